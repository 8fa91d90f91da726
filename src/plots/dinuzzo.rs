//! Plots of paper C's page (Dinuzzo), written against plotters' `DrawingBackend` so they draw
//! into the page's canvases and into native SVG alike:
//!
//! * [`draw_decision_map`]: a scalar field on a grid as a heatmap with contour levels and labelled
//!   points (the decision function `f(x) = Σ c_i k(x_i, x)`, its zero level, the margin levels
//!   ±1 and the support vectors). Reusable by any 2-D classifier page (paper D).
//! * [`draw_regression`]: the regression curve with its ε-tube (RLS / RLA / SVR).
//! * [`draw_log_series`]: several positive quantities against the sweep on a log₁₀ axis (duality
//!   gap, residual, objective; or the race of the five solvers).
//! * [`draw_primal_dual`]: the primal F and the dual D against the sweep (linear values, log
//!   sweep axis): coordinate descent raises D in every sweep while F may rise (Theorem 4's erratum).
//! * [`draw_theorem5`]: a loss beside its Moreau–Yosida envelope, and the eigenvalues of
//!   `K_α = αK − I` (Theorem 5).
//!
//! `scale` is the device-pixel ratio (fonts and strokes are multiplied by it).
//!
//! Long file: the five plots of page C share its frame, tick and legend helpers; its tests are
//! the last 130 lines.

use std::ops::Range;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::plots::style::{
    draw_rich_text, fit_legend, int_label, num, plot_rect, pow10_label, Legend, Look, Obstacles,
    Room, Swatch, GRID_BOLD, GRID_COLOR,
};
use crate::solvers::fixed_point::EnvelopePoint;

type PResult<T, DB> = Result<T, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Colour of class +1 (and of positive values of the field).
pub const POS_COLOR: RGBColor = crate::plots::style::CLASS_POS;
/// Colour of class −1 (and of negative values).
pub const NEG_COLOR: RGBColor = crate::plots::style::CLASS_NEG;
pub use crate::plots::style::RACE_COLORS;

/// A scalar field sampled on a regular `nx × ny` grid over `x_range × y_range`, row-major in y
/// then x (the layout of [`crate::datasets::plane::grid`]): `values[j·nx + i]` is at
/// `(x_i, y_j)`, the grid's nodes including both ends.
#[derive(Debug, Clone, Copy)]
pub struct Field<'a> {
    pub values: &'a [f64],
    pub nx: usize,
    pub ny: usize,
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
}

impl Field<'_> {
    fn ok(&self) -> bool {
        self.nx >= 2 && self.ny >= 2 && self.values.len() == self.nx * self.ny
    }
    fn node(&self, i: usize, j: usize) -> (f64, f64) {
        let x =
            self.x_range.0 + (self.x_range.1 - self.x_range.0) * i as f64 / (self.nx - 1) as f64;
        let y =
            self.y_range.0 + (self.y_range.1 - self.y_range.0) * j as f64 / (self.ny - 1) as f64;
        (x, y)
    }
}

/// A data point to mark: `label` picks the colour (sign; 0 draws grey) unless `color` is set,
/// `size` multiplies the default radius, `ring` draws a black ring (support vectors).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointMark {
    pub x: f64,
    pub y: f64,
    pub label: f64,
    pub size: f64,
    pub ring: bool,
    pub color: Option<RGBColor>,
}

impl PointMark {
    /// A plain point of class `label`.
    pub fn new(x: f64, y: f64, label: f64) -> Self {
        Self { x, y, label, size: 1.0, ring: false, color: None }
    }
}

/// A contour level and how to draw it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    pub value: f64,
    /// Stroke width in CSS pixels.
    pub width: f64,
    pub color: RGBColor,
}

/// Where the plotting area landed on the backend, in backend pixels, and the data ranges it
/// shows: what the page needs to turn a click into data coordinates.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotFrame {
    pub pixels_x: Range<i32>,
    pub pixels_y: Range<i32>,
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
}

impl PlotFrame {
    /// Data coordinates of the backend pixel `(px, py)`, or `None` outside the plotting area.
    pub fn to_data(&self, px: f64, py: f64) -> Option<(f64, f64)> {
        let (x0, x1) = (self.pixels_x.start as f64, self.pixels_x.end as f64);
        let (y0, y1) = (self.pixels_y.start as f64, self.pixels_y.end as f64);
        if !(px >= x0 && px <= x1 && py >= y0 && py <= y1) || x1 <= x0 || y1 <= y0 {
            return None;
        }
        let u = (px - x0) / (x1 - x0);
        let v = (py - y0) / (y1 - y0);
        Some((
            self.x_range.0 + u * (self.x_range.1 - self.x_range.0),
            self.y_range.1 - v * (self.y_range.1 - self.y_range.0),
        ))
    }
}

/// A diverging colour for `t ∈ [−1, 1]`: `NEG_COLOR` at −1, white at 0, `POS_COLOR` at +1
/// (lightened so that points and contours stay visible on top).
pub fn diverging(t: f64) -> RGBColor {
    let t = if t.is_finite() { t.clamp(-1.0, 1.0) } else { 0.0 };
    let end = if t >= 0.0 { POS_COLOR } else { NEG_COLOR };
    let a = 0.75 * t.abs();
    let mix = |c: u8| (255.0 + (c as f64 - 255.0) * a).round() as u8;
    RGBColor(mix(end.0), mix(end.1), mix(end.2))
}

/// Line segments of the `level` set of a gridded field by marching squares, in data
/// coordinates. Saddle cells are resolved by the cell's mean value.
pub fn contour_segments(field: &Field, level: f64) -> Vec<((f64, f64), (f64, f64))> {
    let mut out = Vec::new();
    if !field.ok() {
        return out;
    }
    let v = |i: usize, j: usize| field.values[j * field.nx + i] - level;
    // Interpolated crossing on the edge between two nodes.
    let cross = |a: (f64, f64), fa: f64, b: (f64, f64), fb: f64| {
        let t = if fa == fb { 0.5 } else { fa / (fa - fb) };
        (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1))
    };
    for j in 0..field.ny - 1 {
        for i in 0..field.nx - 1 {
            let (f00, f10, f11, f01) = (v(i, j), v(i + 1, j), v(i + 1, j + 1), v(i, j + 1));
            if ![f00, f10, f11, f01].iter().all(|x| x.is_finite()) {
                continue;
            }
            let (p00, p10, p11, p01) = (
                field.node(i, j),
                field.node(i + 1, j),
                field.node(i + 1, j + 1),
                field.node(i, j + 1),
            );
            // Edges: 0 bottom (00-10), 1 right (10-11), 2 top (01-11), 3 left (00-01), each
            // oriented from its lower node, so a cell and its neighbour compute the shared
            // crossing bit-identically (the polyline closes exactly).
            let edges = [
                (p00, f00, p10, f10),
                (p10, f10, p11, f11),
                (p01, f01, p11, f11),
                (p00, f00, p01, f01),
            ];
            let mut pts: Vec<(usize, (f64, f64))> = Vec::with_capacity(4);
            for (k, &(a, fa, b, fb)) in edges.iter().enumerate() {
                if (fa >= 0.0) != (fb >= 0.0) {
                    pts.push((k, cross(a, fa, b, fb)));
                }
            }
            match pts.len() {
                2 => out.push((pts[0].1, pts[1].1)),
                4 => {
                    // Saddle: corners 00 and 11 share a sign. Join around the centre's sign.
                    let centre = 0.25 * (f00 + f10 + f11 + f01);
                    if (centre >= 0.0) == (f00 >= 0.0) {
                        // 00's region connects through the centre: cut off corners 10 and 01.
                        out.push((pts[0].1, pts[1].1));
                        out.push((pts[2].1, pts[3].1));
                    } else {
                        out.push((pts[3].1, pts[0].1));
                        out.push((pts[1].1, pts[2].1));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// A tick label with as many decimals as the axis span needs.
fn tick(v: f64, span: f64) -> String {
    if v.abs() >= 1e5 {
        num(v)
    } else if span >= 20.0 {
        format!("{v:.0}")
    } else if span >= 2.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// A heatmap of `field` (values divided by `clip` and clamped to ±1 for the colour), the given
/// contour `levels`, and the `points` on top. Each grid node is drawn as one rectangle, so the
/// cost is `nx·ny` fills whatever the canvas size. Returns the plotting frame (for clicks).
/// With `field = None` only the axes and points are drawn (an empty data set still shows where
/// to click), with `hint` written in the middle.
#[allow(clippy::too_many_arguments)]
pub fn draw_decision_map<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    field: Option<&Field>,
    x_range: (f64, f64),
    y_range: (f64, f64),
    clip: f64,
    levels: &[Level],
    points: &[PointMark],
    hint: Option<&str>,
    scale: f64,
) -> PResult<PlotFrame, DB> {
    root.fill(&WHITE)?;
    let look = Look::new(scale);
    let s = look.s;
    let mut chart = ChartBuilder::on(root)
        .margin((8.0 * s) as i32)
        .margin_right(look.right_margin())
        .x_label_area_size((28.0 * s) as i32)
        .y_label_area_size((36.0 * s) as i32)
        .build_cartesian_2d(x_range.0..x_range.1, y_range.0..y_range.1)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(look.labels_along(root.dim_in_pixel().0, 7))
        .y_labels(look.labels_down(root.dim_in_pixel().1, 7))
        .x_label_formatter(&|v: &f64| format!("{v:.1}"))
        .y_label_formatter(&|v: &f64| format!("{v:.1}"))
        .label_style(look.font())
        .draw()?;
    if let Some(f) = field.filter(|f| f.ok()) {
        let clip = if clip.is_finite() && clip > 0.0 { clip } else { 1.0 };
        let dx = 0.5 * (f.x_range.1 - f.x_range.0) / (f.nx - 1) as f64;
        let dy = 0.5 * (f.y_range.1 - f.y_range.0) / (f.ny - 1) as f64;
        chart.draw_series((0..f.ny).flat_map(|j| (0..f.nx).map(move |i| (i, j))).map(
            |(i, j)| {
                let (x, y) = f.node(i, j);
                let c = diverging(f.values[j * f.nx + i] / clip);
                Rectangle::new([(x - dx, y - dy), (x + dx, y + dy)], c.filled())
            },
        ))?;
        for lv in levels {
            let w = look.stroke(lv.width);
            let segs = contour_segments(f, lv.value);
            chart.draw_series(
                segs.into_iter()
                    .map(|(a, b)| PathElement::new(vec![a, b], lv.color.stroke_width(w))),
            )?;
        }
    }
    let r0 = 3.5 * s;
    for p in points {
        if !(p.x.is_finite() && p.y.is_finite()) {
            continue;
        }
        let color = p.color.unwrap_or(if p.label > 0.0 {
            POS_COLOR
        } else if p.label < 0.0 {
            NEG_COLOR
        } else {
            RGBColor(120, 120, 120)
        });
        let r = (r0 * p.size.max(0.1)).round() as i32;
        chart.draw_series(std::iter::once(Circle::new((p.x, p.y), r, color.filled())))?;
        chart.draw_series(std::iter::once(Circle::new(
            (p.x, p.y),
            r,
            WHITE.stroke_width(look.stroke(0.8)),
        )))?;
        if p.ring {
            chart.draw_series(std::iter::once(Circle::new(
                (p.x, p.y),
                r + (2.5 * s) as i32,
                BLACK.stroke_width(look.stroke(1.2)),
            )))?;
        }
    }
    let (px, py) = chart.plotting_area().get_pixel_range();
    if let Some(h) = hint {
        let style = look
            .font_of(13.8)
            .color(&RGBColor(90, 90, 90))
            .pos(Pos::new(HPos::Center, VPos::Center));
        root.draw_text(h, &style, ((px.start + px.end) / 2, (py.start + py.end) / 2))?;
    }
    root.present()?;
    Ok(PlotFrame { pixels_x: px, pixels_y: py, x_range, y_range })
}

/// The regression picture: data points (support vectors ringed), the fitted curve, its ε-tube
/// `f ± ε` (when `eps > 0`) and the noiseless truth (dashed grey) if given.
pub fn draw_regression<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &[(f64, f64, bool)],
    curve: &[(f64, f64)],
    eps: f64,
    truth: Option<&[(f64, f64)]>,
    scale: f64,
) -> PResult<PlotFrame, DB> {
    root.fill(&WHITE)?;
    let look = Look::new(scale);
    let s = look.s;
    let xs = data.iter().map(|p| p.0).chain(curve.iter().map(|p| p.0)).filter(|v| v.is_finite());
    let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    let ys = data.iter().map(|p| p.1).chain(curve.iter().map(|p| p.1)).filter(|v| v.is_finite());
    let (mut y0, mut y1) =
        ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    let (x0, x1) = if x0.is_finite() && x1 > x0 { (x0, x1) } else { (-3.0, 3.0) };
    if !(y0.is_finite() && y1 > y0) {
        y0 = -1.0;
        y1 = 1.0;
    }
    let pad = 0.08 * (y1 - y0);
    let (y0, y1) = (y0 - pad, y1 + pad);
    let mut chart = ChartBuilder::on(root)
        .margin((8.0 * s) as i32)
        .margin_right(look.right_margin())
        .x_label_area_size((28.0 * s) as i32)
        .y_label_area_size((36.0 * s) as i32)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart
        .configure_mesh()
        .light_line_style(GRID_COLOR)
        .bold_line_style(GRID_BOLD)
        .x_labels(look.labels_along(root.dim_in_pixel().0, 7))
        .y_labels(look.labels_down(root.dim_in_pixel().1, 7))
        .x_label_formatter(&|v: &f64| format!("{v:.1}"))
        .y_label_formatter(&|v: &f64| format!("{v:.1}"))
        .label_style(look.font())
        .draw()?;
    let fin: Vec<(f64, f64)> =
        curve.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite()).collect();
    if eps > 0.0 && fin.len() >= 2 {
        let mut poly: Vec<(f64, f64)> = fin.iter().map(|&(x, y)| (x, y + eps)).collect();
        poly.extend(fin.iter().rev().map(|&(x, y)| (x, y - eps)));
        chart.draw_series(std::iter::once(Polygon::new(
            poly,
            RGBColor(31, 119, 180).mix(0.15).filled(),
        )))?;
        for sign in [1.0, -1.0] {
            chart.draw_series(LineSeries::new(
                fin.iter().map(|&(x, y)| (x, y + sign * eps)),
                RGBColor(31, 119, 180).mix(0.5).stroke_width(look.stroke(1.0)),
            ))?;
        }
    }
    if let Some(t) = truth {
        chart.draw_series(DashedLineSeries::new(
            t.iter().copied(),
            6.0 * s,
            4.0 * s,
            RGBColor(130, 130, 130).stroke_width(look.stroke(1.2)),
        ))?;
    }
    for &(x, y, sv) in data {
        if !(x.is_finite() && y.is_finite()) {
            continue;
        }
        let r = (3.0 * s).round() as i32;
        chart.draw_series(std::iter::once(Circle::new(
            (x, y),
            r,
            RGBColor(60, 60, 60).filled(),
        )))?;
        if sv {
            chart.draw_series(std::iter::once(Circle::new(
                (x, y),
                r + (2.5 * s) as i32,
                POS_COLOR.stroke_width(look.stroke(1.2)),
            )))?;
        }
    }
    chart.draw_series(LineSeries::new(
        fin.iter().copied(),
        RGBColor(31, 119, 180).stroke_width(look.stroke(2.2)),
    ))?;
    let (px, py) = chart.plotting_area().get_pixel_range();
    root.present()?;
    Ok(PlotFrame { pixels_x: px, pixels_y: py, x_range: (x0, x1), y_range: (y0, y1) })
}

/// One named curve of [`draw_log_series`]: `(sweep, value)` pairs; non-positive values are
/// skipped on the log axis.
#[derive(Debug, Clone)]
pub struct Series<'a> {
    pub name: &'a str,
    pub color: RGBColor,
    pub points: Vec<(f64, f64)>,
    pub dashed: bool,
}

/// Keep at most `max` points of a curve (every k-th, plus the last), so a trace of many
/// thousand sweeps draws as fast as a short one.
fn thin(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    if points.len() <= max || max < 2 {
        return points.to_vec();
    }
    let k = points.len().div_ceil(max - 1);
    let mut out: Vec<(f64, f64)> = points.iter().step_by(k).copied().collect();
    if let Some(&last) = points.last() {
        if out.last() != Some(&last) {
            out.push(last);
        }
    }
    out
}

/// Positive quantities against the sweep on a log₁₀ axis with a legend (paper C's convergence
/// picture: duality gap, residual, objective; or the five solvers' gaps in the race).
/// A horizontal dotted line marks `reference` (e.g. the tolerance δ) if given.
pub fn draw_log_series<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    series: &[Series],
    x_desc: &str,
    reference: Option<(f64, &str)>,
    scale: f64,
) -> PResult<(), DB> {
    root.fill(&WHITE)?;
    let look = Look::new(scale);
    let s = look.s;
    let logged: Vec<Vec<(f64, f64)>> = series
        .iter()
        .map(|sr| {
            thin(
                &sr.points
                    .iter()
                    .filter(|p| p.1.is_finite() && p.1 > 0.0 && p.0.is_finite())
                    .map(|p| (p.0, p.1.log10()))
                    .collect::<Vec<_>>(),
                1500,
            )
        })
        .collect();
    let reference = reference.filter(|r| r.0.is_finite() && r.0 > 0.0);
    let all = logged.iter().flatten().map(|p| p.1).chain(reference.map(|r| r.0.log10()));
    let (mut lo, mut hi) =
        all.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    if !lo.is_finite() {
        lo = -1.0;
        hi = 1.0;
    }
    let lo = lo.floor().max(-20.0);
    let hi = hi.ceil().min(300.0).max(lo + 1.0);
    let xmax = logged.iter().flatten().map(|p| p.0).fold(1.0f64, f64::max);
    let mut rows = vec![];
    if let Some((_, name)) = reference {
        rows.push((name.to_string(), Swatch::Dashed(RGBColor(120, 120, 120), 1.0)));
    }
    for sr in series {
        let w = if sr.dashed { 1.5 } else { 2.0 };
        rows.push((
            sr.name.to_string(),
            if sr.dashed { Swatch::Dashed(sr.color, w) } else { Swatch::Line(sr.color, w) },
        ));
    }
    let legend = Legend::new(&look, rows);
    let (mut chart, spot, ()) = fit_legend(
        root.dim_in_pixel().0,
        &legend,
        |room: Room| {
            ChartBuilder::on(root)
                .margin((8.0 * s) as i32)
                .margin_right((22.0 * s) as i32 + room.right)
                .margin_top((8.0 * s) as i32 + room.top)
                .x_label_area_size((34.0 * s) as i32)
                .y_label_area_size((46.0 * s) as i32)
                .build_cartesian_2d(0f64..xmax, lo..hi)
        },
        |c| {
            let mut o = Obstacles::default();
            if let Some((r, _)) = reference {
                let y = r.log10();
                o.polyline([c.backend_coord(&(0.0, y)), c.backend_coord(&(xmax, y))]);
            }
            for pts in &logged {
                o.polyline(pts.iter().map(|p| c.backend_coord(p)));
                if pts.len() == 1 {
                    o.disc(c.backend_coord(&pts[0]), (2.5 * s) as i32);
                }
            }
            (plot_rect(c), o, ())
        },
    )?;
    let span = (hi - lo) as usize;
    let [left, top, right, bottom] = plot_rect(&chart);
    let rows_fit =
        look.labels_down((bottom - top + look.px(40.0)).max(0) as u32, span + 1).max(2) - 1;
    let step = span.div_ceil(rows_fit.max(1)).max(1);
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .x_label_formatter(&int_label)
        .y_label_formatter(&move |v: &f64| {
            if (v.round() as i64).rem_euclid(step as i64) == 0 {
                pow10_label(v)
            } else {
                String::new()
            }
        })
        .y_labels(span + 1)
        .x_labels(look.labels_fit((right - left).max(0) as u32, 8, &int_label(&xmax)))
        .label_style(look.font())
        .axis_desc_style(look.font())
        .light_line_style(GRID_COLOR)
        .bold_line_style(GRID_BOLD)
        .draw()?;
    if let Some((r, _)) = reference {
        let y = r.log10();
        let c = RGBColor(120, 120, 120);
        chart.draw_series(DashedLineSeries::new(
            vec![(0.0, y), (xmax, y)],
            3.0 * s,
            3.0 * s,
            c.stroke_width(look.stroke(1.0)),
        ))?;
    }
    for (sr, pts) in series.iter().zip(&logged) {
        let color = sr.color;
        let w = look.stroke(if sr.dashed { 1.5 } else { 2.0 });
        if sr.dashed {
            chart.draw_series(DashedLineSeries::new(
                pts.iter().copied(),
                7.0 * s,
                4.0 * s,
                color.stroke_width(w),
            ))?;
        } else {
            chart.draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(w)))?;
        }
        if pts.len() == 1 {
            chart.draw_series(
                pts.iter().map(|&p| Circle::new(p, (2.5 * s) as i32, color.filled())),
            )?;
        }
    }
    legend.draw(root, spot)?;
    root.present()
}

/// Series against the sweep from sweep 1 on a log₁₀ sweep axis with linear values (paper C: the
/// primal F(c) and the Fenchel dual D(c), whose rises and falls a log value axis would hide).
pub fn draw_primal_dual<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    series: &[Series],
    scale: f64,
) -> PResult<(), DB> {
    root.fill(&WHITE)?;
    let look = Look::new(scale);
    let s = look.s;
    let pts: Vec<Vec<(f64, f64)>> = series
        .iter()
        .map(|sr| {
            let p: Vec<(f64, f64)> =
                sr.points.iter().copied().filter(|p| p.0 >= 1.0 && p.1.is_finite()).collect();
            thin(&p, 1500)
        })
        .collect();
    let (mut lo, mut hi) = pts
        .iter()
        .flatten()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.1), b.max(p.1)));
    if !(lo.is_finite() && hi > lo) {
        (lo, hi) = if lo.is_finite() { (lo - 1.0, lo + 1.0) } else { (0.0, 1.0) };
    }
    let pad = 0.05 * (hi - lo);
    let xmax = pts.iter().flatten().map(|p| p.0).fold(10.0f64, f64::max);
    let legend = Legend::new(
        &look,
        series.iter().map(|sr| (sr.name.to_string(), Swatch::Line(sr.color, 2.0))).collect(),
    );
    let (mut chart, spot, ()) = fit_legend(
        root.dim_in_pixel().0,
        &legend,
        |room: Room| {
            ChartBuilder::on(root)
                .margin((8.0 * s) as i32)
                .margin_right((22.0 * s) as i32 + room.right)
                .margin_top((8.0 * s) as i32 + room.top)
                .x_label_area_size((34.0 * s) as i32)
                .y_label_area_size((52.0 * s) as i32)
                .build_cartesian_2d((1f64..xmax).log_scale(), (lo - pad)..(hi + pad))
        },
        |c| {
            let mut o = Obstacles::default();
            for p in &pts {
                o.polyline(p.iter().map(|q| c.backend_coord(q)));
            }
            (plot_rect(c), o, ())
        },
    )?;
    chart
        .configure_mesh()
        .x_desc("sweep (log scale)")
        .x_label_formatter(&int_label)
        .y_labels(look.labels_down(root.dim_in_pixel().1, 6))
        .y_label_formatter(&move |v: &f64| tick(*v, hi - lo))
        .label_style(look.font())
        .axis_desc_style(look.font())
        .light_line_style(GRID_COLOR)
        .bold_line_style(GRID_BOLD)
        .draw()?;
    for (sr, p) in series.iter().zip(&pts) {
        let w = look.stroke(2.0);
        chart.draw_series(LineSeries::new(p.iter().copied(), sr.color.stroke_width(w)))?;
    }
    legend.draw(root, spot)?;
    root.present()
}

/// Theorem 5 as a picture: left, the loss `L(y, t)/λ` beside its Moreau–Yosida envelope
/// `f_α(t)`; right, the eigenvalues of `K_α = αK − I` in increasing order (negative ones red:
/// the reformulated kernel is not positive semidefinite). `eig_note` is printed under them.
pub fn draw_theorem5<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    envelope: &[EnvelopePoint],
    loss_name: &str,
    alpha: f64,
    eigenvalues: &[f64],
    eig_note: &str,
    scale: f64,
) -> PResult<(), DB> {
    root.fill(&WHITE)?;
    let look = Look::new(scale);
    let s = look.s;
    let (w, _) = root.dim_in_pixel();
    let (left, right) = root.split_horizontally((w as f64 * 0.55) as u32);
    // Left: loss and envelope.
    let t0 = envelope.first().map(|p| p.t).unwrap_or(-1.0);
    let t1 = envelope.last().map(|p| p.t).unwrap_or(1.0).max(t0 + 1e-9);
    let vals = envelope.iter().flat_map(|p| [p.loss, p.envelope]).filter(|v| v.is_finite());
    let (mut lo, mut hi) =
        vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    if !(lo.is_finite() && hi > lo) {
        lo = 0.0;
        hi = 1.0;
    }
    let pad = 0.06 * (hi - lo);
    let size = 12.0 * s;
    let cap_h = (1.5 * size).ceil() as i32;
    let (lc, ec) = (RGBColor(40, 40, 40), RGBColor(214, 39, 40));
    let loss: Vec<(f64, f64)> = envelope.iter().map(|p| (p.t, p.loss)).collect();
    let env: Vec<(f64, f64)> = envelope.iter().map(|p| (p.t, p.envelope)).collect();
    let legend = Legend::new(
        &look,
        vec![
            ("loss L(y,t)/λ".to_string(), Swatch::Line(lc, 2.0)),
            ("Moreau–Yosida f_α".to_string(), Swatch::Dashed(ec, 2.0)),
        ],
    )
    .with_font(10.8);
    let (mut chart, spot, ()) = fit_legend(
        left.dim_in_pixel().0,
        &legend,
        |room: Room| {
            ChartBuilder::on(&left)
                .margin((8.0 * s) as i32)
                .margin_top((8.0 * s) as i32 + cap_h + room.top)
                .margin_right((8.0 * s) as i32 + room.right)
                .x_label_area_size((40.0 * s) as i32)
                .y_label_area_size((40.0 * s) as i32)
                .build_cartesian_2d(t0..t1, (lo - pad)..(hi + pad))
        },
        |c| {
            let mut o = Obstacles::default();
            o.polyline(loss.iter().map(|p| c.backend_coord(p)));
            o.polyline(env.iter().map(|p| c.backend_coord(p)));
            (plot_rect(c), o, ())
        },
    )?;
    chart
        .configure_mesh()
        .x_desc("prediction t")
        .x_labels(look.labels_along(left.dim_in_pixel().0, 6))
        .y_labels(look.labels_down(root.dim_in_pixel().1, 6))
        .x_label_formatter(&|v: &f64| format!("{v:.1}"))
        .y_label_formatter(&move |v: &f64| tick(*v, hi - lo))
        .label_style(look.font())
        .axis_desc_style(look.font())
        .light_line_style(GRID_COLOR)
        .bold_line_style(GRID_BOLD)
        .draw()?;
    chart.draw_series(LineSeries::new(loss.iter().copied(), lc.stroke_width(look.stroke(2.0))))?;
    chart.draw_series(DashedLineSeries::new(
        env.iter().copied(),
        6.0 * s,
        3.0 * s,
        ec.stroke_width(look.stroke(2.0)),
    ))?;
    caption(
        &left,
        &format!("{loss_name}: L/λ and its envelope f_α, α = {}", num(alpha)),
        size,
        cap_h,
        s,
    )?;
    legend.draw(root, spot)?;
    // Right: eigenvalues of K_α.
    let m = eigenvalues.len().max(1) as f64;
    let fin = eigenvalues.iter().copied().filter(|v| v.is_finite());
    let (mut elo, mut ehi) = fin.fold((-1.0f64, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let epad = 0.06 * (ehi - elo).max(1e-9);
    elo -= epad;
    ehi += epad;
    let mut chart = ChartBuilder::on(&right)
        .margin((8.0 * s) as i32)
        .margin_top((8.0 * s) as i32 + cap_h)
        .margin_right(look.right_margin())
        .x_label_area_size((40.0 * s) as i32)
        .y_label_area_size((40.0 * s) as i32)
        .build_cartesian_2d(0f64..m, elo..ehi)?;
    chart
        .configure_mesh()
        .x_desc(eig_note)
        .x_labels(look.labels_along(right.dim_in_pixel().0, 5))
        .y_labels(look.labels_down(root.dim_in_pixel().1, 6))
        .x_label_formatter(&int_label)
        .y_label_formatter(&move |v: &f64| tick(*v, ehi - elo))
        .label_style(look.font())
        .axis_desc_style(look.font_of(10.8))
        .light_line_style(GRID_COLOR)
        .bold_line_style(GRID_BOLD)
        .draw()?;
    caption(&right, "eigenvalues of K_α = αK − I", size, cap_h, s)?;
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(0.0, 0.0), (m, 0.0)],
        RGBColor(120, 120, 120).stroke_width(1),
    )))?;
    let r = (2.0 * s).round().max(1.0) as i32;
    chart.draw_series(eigenvalues.iter().enumerate().filter(|(_, v)| v.is_finite()).map(
        |(i, &v)| {
            let c = if v < 0.0 { RGBColor(214, 39, 40) } else { RGBColor(31, 119, 180) };
            Circle::new((i as f64 + 0.5, v), r, c.filled())
        },
    ))?;
    root.present()
}

/// A chart's title centred in the top `h` pixels of `area`, in rich text of `size` pixels,
/// shrunk (to 3/5 at most) when it would not fit the width.
fn caption<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    size: f64,
    h: i32,
    s: f64,
) -> PResult<(), DB> {
    let w = area.dim_in_pixel().0 as f64 - 8.0 * s;
    let full = crate::plots::style::rich_size(text, size).0 as f64;
    let size = if full > w { (size * w / full).max(0.6 * size) } else { size };
    let (aw, _) = area.dim_in_pixel();
    draw_rich_text(
        area,
        text,
        (aw as i32 / 2, (8.0 * s) as i32 + h / 2),
        Pos::new(HPos::Center, VPos::Center),
        size,
        &BLACK,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_of(f: impl Fn(f64, f64) -> f64, nx: usize, ny: usize) -> Vec<f64> {
        let mut v = Vec::new();
        for j in 0..ny {
            for i in 0..nx {
                let x = -1.0 + 2.0 * i as f64 / (nx - 1) as f64;
                let y = -1.0 + 2.0 * j as f64 / (ny - 1) as f64;
                v.push(f(x, y));
            }
        }
        v
    }

    #[test]
    fn contour_of_a_linear_field_lies_on_its_line() {
        // f = x + 2y − 0.3: linear interpolation is exact, so every endpoint is on the line.
        let vals = field_of(|x, y| x + 2.0 * y - 0.3, 21, 17);
        let f = Field { values: &vals, nx: 21, ny: 17, x_range: (-1.0, 1.0), y_range: (-1.0, 1.0) };
        for level in [0.0, 1.0, -1.0] {
            let segs = contour_segments(&f, level);
            assert!(!segs.is_empty());
            for (a, b) in segs {
                for p in [a, b] {
                    assert!(
                        (p.0 + 2.0 * p.1 - 0.3 - level).abs() < 1e-12,
                        "{p:?} off the level {level}"
                    );
                }
            }
        }
        // A level outside the range has no segment.
        assert!(contour_segments(&f, 10.0).is_empty());
    }

    #[test]
    fn contour_of_a_circle_is_closed_and_near_the_circle() {
        let vals = field_of(|x, y| x * x + y * y, 41, 41);
        let f = Field { values: &vals, nx: 41, ny: 41, x_range: (-1.0, 1.0), y_range: (-1.0, 1.0) };
        // Level 0.23: no grid node (multiples of 0.05) lies on it, since 92 is not a sum of two squares.
        let segs = contour_segments(&f, 0.23);
        let r0 = 0.23f64.sqrt();
        // Every endpoint is near the circle (interpolation error of a quadratic on h = 0.05).
        for (a, b) in &segs {
            for p in [a, b] {
                let r = (p.0 * p.0 + p.1 * p.1).sqrt();
                assert!((r - r0).abs() < 5e-3, "radius {r}");
            }
        }
        // Closed curve: every endpoint is shared by exactly two segments.
        let key = |p: (f64, f64)| ((p.0 * 1e9).round() as i64, (p.1 * 1e9).round() as i64);
        let mut count = std::collections::HashMap::new();
        for (a, b) in &segs {
            *count.entry(key(*a)).or_insert(0) += 1;
            *count.entry(key(*b)).or_insert(0) += 1;
        }
        assert!(count.values().all(|&c| c == 2));
        // The polygon's length approximates the circumference 2πr.
        let len: f64 =
            segs.iter().map(|(a, b)| ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()).sum();
        assert!((len - 2.0 * std::f64::consts::PI * r0).abs() < 0.02, "length {len}");
    }

    #[test]
    fn frame_maps_pixels_to_data_and_back() {
        let fr = PlotFrame {
            pixels_x: 40..440,
            pixels_y: 10..210,
            x_range: (-2.0, 2.0),
            y_range: (-1.0, 1.0),
        };
        assert_eq!(fr.to_data(40.0, 10.0), Some((-2.0, 1.0)));
        assert_eq!(fr.to_data(440.0, 210.0), Some((2.0, -1.0)));
        assert_eq!(fr.to_data(240.0, 110.0), Some((0.0, 0.0)));
        assert_eq!(fr.to_data(10.0, 110.0), None);
    }

    #[test]
    fn diverging_colours() {
        assert_eq!(diverging(0.0), RGBColor(255, 255, 255));
        let p = diverging(1.0);
        let n = diverging(-1.0);
        // +1 blue, −1 red (plots::style::CLASS_POS / CLASS_NEG, the same on pages C and D).
        assert!(p.2 > p.0 && n.0 > n.2);
        assert_eq!(diverging(5.0), p);
        assert_eq!(diverging(f64::NAN), RGBColor(255, 255, 255));
    }

    #[test]
    fn plots_render_to_svg() {
        let vals = field_of(|x, y| x - y, 10, 10);
        let f = Field { values: &vals, nx: 10, ny: 10, x_range: (-1.0, 1.0), y_range: (-1.0, 1.0) };
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (400, 300)).into_drawing_area();
            let lv = [Level { value: 0.0, width: 2.0, color: BLACK }];
            let pts = [
                PointMark::new(0.5, -0.5, 1.0),
                PointMark { ring: true, ..PointMark::new(-0.5, 0.5, -1.0) },
            ];
            let fr = draw_decision_map(
                &root,
                Some(&f),
                (-1.0, 1.0),
                (-1.0, 1.0),
                1.0,
                &lv,
                &pts,
                None,
                1.0,
            )
            .unwrap();
            assert!(fr.pixels_x.end > fr.pixels_x.start);
        }
        assert!(svg.matches("<rect").count() >= 100);
        let mut svg2 = String::new();
        {
            let root = SVGBackend::with_string(&mut svg2, (400, 300)).into_drawing_area();
            let s = [Series {
                name: "gap",
                color: RACE_COLORS[0],
                points: vec![(0.0, 1.0), (1.0, 1e-3), (2.0, 0.0)],
                dashed: false,
            }];
            draw_log_series(&root, &s, "sweep", Some((1e-8, "δ")), 1.0).unwrap();
        }
        assert!(svg2.contains("gap"));
        let mut svg3 = String::new();
        let d = [Series {
            name: "dual D(c)",
            color: RACE_COLORS[1],
            points: vec![(0.0, 0.0), (1.0, 2.0), (30.0, 5.0)],
            dashed: false,
        }];
        let root = SVGBackend::with_string(&mut svg3, (400, 300)).into_drawing_area();
        draw_primal_dual(&root, &d, 1.0).unwrap();
        drop(root);
        assert!(svg3.contains("dual D(c)"));
    }
}
