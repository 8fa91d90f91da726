//! Paper B's plots, written against plotters' `DrawingBackend` (the page's canvases and native
//! SVG alike): the fitted M-RLSR and KRR(λ₂) curves (1-D) or predicted-vs-true scatter, the
//! function F(C) of Theorem 1 (eq. 6) with its roots, the Fig. 1 equivalence bars and λ → λ₂
//! curves, and the Table-1 cross-validation heatmap over m × λ (the n-scans of §4's Example:
//! [`crate::plots::nscan`]).
//!
//! `scale` is the device-pixel ratio (fonts and strokes are multiplied by it).

use std::ops::Range;

use plotters::coord::Shift;
use plotters::prelude::*;

use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::papers::mrlsr::RootView;
use crate::plots::style::{
    draw_rich_text, fit_legend, lg, num, place_label, plot_rect, pow10_label, rich_size,
    three_digits, Chart2d, DrawResult, Legend, Look, Obstacles, Spot, Swatch, GRID_BOLD,
    GRID_COLOR,
};
use crate::solvers::mrlsr::FSamples;

/// M-RLSR curve colour.
pub const MRLSR_COLOR: RGBColor = RGBColor(214, 39, 40);
/// KRR(λ₂) curve colour.
pub const KRR_COLOR: RGBColor = RGBColor(31, 119, 180);
/// KRR(λ₂) drawn wide and light under the M-RLSR curve (trained on the same data they are the same function).
pub const KRR_WIDE_COLOR: RGBColor = RGBColor(130, 175, 225);
/// Data points / truth colour.
pub const DATA_COLOR: RGBColor = RGBColor(120, 120, 120);
/// The point a spec's `drop` removed: a hollow ring, darker than the data.
pub const REMOVED_COLOR: RGBColor = RGBColor(0, 0, 0);
/// The removed point's legend text.
pub const REMOVED_LABEL: &str = "removed point";
/// Colours of the parts Z₁..Z₄ (and further).
pub const PART_COLORS: [RGBColor; 6] = [
    RGBColor(214, 39, 40),
    RGBColor(31, 119, 180),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

type PResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

pub(crate) fn range_of<'a>(vals: impl Iterator<Item = &'a f64>) -> (f64, f64) {
    let (lo, hi) = vals
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    if !lo.is_finite() {
        return (-1.0, 1.0);
    }
    if hi - lo < 1e-12 {
        return (lo - 1.0, hi + 1.0);
    }
    let pad = 0.06 * (hi - lo);
    (lo - pad, hi + pad)
}

/// A labelled polyline for [`draw_fit_1d`].
pub struct Curve<'a> {
    /// Legend text.
    pub label: String,
    /// Values on the curve grid.
    pub values: &'a [f64],
    /// Colour.
    pub color: RGBColor,
    /// Dashed (drawn as short segments).
    pub dashed: bool,
    /// Stroke width in CSS pixels (before the device-pixel ratio).
    pub width: f64,
}

/// The 1-D data points and fitted curves (M-RLSR at (m, λ), eq. 4 / Theorem 1, and KRR at the
/// weakly equivalent λ₂ of Proposition 5.1) over `grid`; `removed`, the (x, y) of a point the
/// spec left out of the data, is a hollow ring with its own legend row.
pub fn draw_fit_1d<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    x: &[f64],
    y: &[f64],
    grid: &[f64],
    curves: &[Curve<'_>],
    removed: Option<(f64, f64)>,
    scale: f64,
) -> PResult<DB> {
    root.fill(&WHITE)?;
    let look = Look::new(scale);
    let s = look.s;
    let removed = removed.filter(|(a, b)| a.is_finite() && b.is_finite());
    let (rx, ry) = removed.map(|(a, b)| (vec![a], vec![b])).unwrap_or_default();
    let (x0, x1) = range_of(x.iter().chain(grid.iter()).chain(&rx));
    let (y0, y1) = range_of(y.iter().chain(curves.iter().flat_map(|c| c.values.iter())).chain(&ry));
    let r = (2.5 * s) as i32;
    let ring = (6.0 * s) as i32;
    let data: Vec<(f64, f64)> = x
        .iter()
        .zip(y)
        .filter(|(a, b)| a.is_finite() && b.is_finite())
        .map(|(&a, &b)| (a, b))
        .collect();
    let lines: Vec<Vec<(f64, f64)>> = curves
        .iter()
        .map(|c| {
            grid.iter()
                .zip(c.values)
                .filter(|(_, v)| v.is_finite())
                .map(|(&a, &b)| (a, b))
                .collect()
        })
        .collect();
    let mut rows = vec![("data".to_string(), Swatch::Dot(DATA_COLOR))];
    for c in curves {
        let w = c.width.min(4.0);
        rows.push((
            c.label.clone(),
            if c.dashed { Swatch::Dashed(c.color, w) } else { Swatch::Line(c.color, w) },
        ));
    }
    if removed.is_some() {
        rows.push((REMOVED_LABEL.to_string(), Swatch::Ring(REMOVED_COLOR)));
    }
    let legend = Legend::new(&look, rows);
    let (mut chart, spot, ()) = fit_legend(
        root.dim_in_pixel().0,
        &legend,
        |room| look.chart_in(root, 34.0, room, x0..x1, y0..y1),
        |ch| {
            let mut o = Obstacles::default();
            data.iter().for_each(|p| o.disc(ch.backend_coord(p), r));
            removed.iter().for_each(|p| o.disc(ch.backend_coord(p), ring));
            for l in &lines {
                o.polyline(l.iter().map(|p| ch.backend_coord(p)));
            }
            (plot_rect(ch), o, ())
        },
    )?;
    look.mesh(&mut chart)
        .x_desc("x")
        .y_desc("y")
        .x_labels(look.labels_along(root.dim_in_pixel().0, 8))
        .y_labels(look.labels_down(root.dim_in_pixel().1, 7))
        .draw()?;
    chart.draw_series(data.iter().map(|&p| Circle::new(p, r, DATA_COLOR.mix(0.7).filled())))?;
    for (c, pts) in curves.iter().zip(lines) {
        let w = (c.width * s).round().max(1.0) as u32;
        let style = c.color.stroke_width(w);
        if c.dashed {
            chart.draw_series(
                pts.chunks(2)
                    .filter(|p| p.len() == 2)
                    .enumerate()
                    .filter(|(k, _)| k % 2 == 0)
                    .map(move |(_, p)| PathElement::new(p.to_vec(), style)),
            )?;
        } else {
            chart.draw_series(LineSeries::new(pts, style))?;
        }
    }
    let ring_style = REMOVED_COLOR.stroke_width(look.stroke(2.0));
    chart.draw_series(removed.iter().map(|&p| Circle::new(p, ring, ring_style)))?;
    legend.draw(root, spot)?;
    root.present()
}

/// Predicted against true targets on the training inputs, for multi-dimensional data:
/// M-RLSR fitted values `Kα` and KRR(λ₂)'s, with the diagonal y = f.
pub fn draw_pred_vs_true<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    y: &[f64],
    mrlsr: &[f64],
    krr: Option<&[f64]>,
    removed: Option<(f64, f64)>,
    labels: (&str, &str),
    scale: f64,
) -> PResult<DB> {
    root.fill(&WHITE)?;
    let look = Look::new(scale);
    let s = look.s;
    let removed = removed.filter(|(a, b)| a.is_finite() && b.is_finite());
    let rv: Vec<f64> = removed.iter().flat_map(|&(a, b)| [a, b]).collect();
    let (lo, hi) =
        range_of(y.iter().chain(mrlsr.iter()).chain(krr.unwrap_or(&[]).iter()).chain(rv.iter()));
    let r = (2.5 * s) as i32;
    let ring = (6.0 * s) as i32;
    let pairs = |f: &[f64]| -> Vec<(f64, f64)> {
        y.iter()
            .zip(f)
            .filter(|(a, b)| a.is_finite() && b.is_finite())
            .map(|(&a, &b)| (a, b))
            .collect()
    };
    let kp = krr.map(pairs).unwrap_or_default();
    let mp = pairs(mrlsr);
    let mut rows = vec![];
    if krr.is_some() {
        rows.push((labels.1.to_string(), Swatch::Ring(KRR_COLOR)));
    }
    rows.push((labels.0.to_string(), Swatch::Dot(MRLSR_COLOR)));
    if removed.is_some() {
        rows.push((REMOVED_LABEL.to_string(), Swatch::Ring(REMOVED_COLOR)));
    }
    let legend = Legend::new(&look, rows);
    let (mut chart, spot, ()) = fit_legend(
        root.dim_in_pixel().0,
        &legend,
        |room| look.chart_in(root, 34.0, room, lo..hi, lo..hi),
        |ch| {
            let mut o = Obstacles::default();
            o.polyline([ch.backend_coord(&(lo, lo)), ch.backend_coord(&(hi, hi))]);
            kp.iter().chain(&mp).for_each(|p| o.disc(ch.backend_coord(p), r));
            removed.iter().for_each(|p| o.disc(ch.backend_coord(p), ring));
            (plot_rect(ch), o, ())
        },
    )?;
    look.mesh(&mut chart)
        .x_desc("true y")
        .y_desc("fitted f(x)")
        .x_labels(look.labels_along(root.dim_in_pixel().0, 8))
        .y_labels(look.labels_down(root.dim_in_pixel().1, 8))
        .draw()?;
    chart.draw_series(LineSeries::new(
        vec![(lo, lo), (hi, hi)],
        DATA_COLOR.stroke_width(look.stroke(1.0)),
    ))?;
    chart.draw_series(kp.iter().map(|&p| Circle::new(p, r, KRR_COLOR.stroke_width(1))))?;
    chart.draw_series(mp.iter().map(|&p| Circle::new(p, r, MRLSR_COLOR.mix(0.8).filled())))?;
    let ring_style = REMOVED_COLOR.stroke_width(look.stroke(2.0));
    chart.draw_series(removed.iter().map(|&p| Circle::new(p, ring, ring_style)))?;
    legend.draw(root, spot)?;
    root.present()
}

/// F(C) of Theorem 1 (eq. 6) on a log axis of C, drawn as `φ = ln(G(C)/C)` where
/// `F = G − C` (same sign as F, readable over many decades), with each positive root marked
/// (filled: the minimizer; open: another stationary point).
pub fn draw_f<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    samples: &FSamples,
    minimizer: Option<f64>,
    scale: f64,
) -> PResult<DB> {
    draw_f_search(root, samples, minimizer, None, scale)
}

/// The root search's iterates and bracket.
pub const SEARCH_COLOR: RGBColor = RGBColor(230, 110, 0);

/// The root search's legend row: the step count, the search, the kind of the latest step.
pub fn search_label(v: &RootView) -> String {
    let of = if v.search.1 > 1 {
        format!(" (root {} of {})", v.search.0, v.search.1)
    } else {
        String::new()
    };
    if v.ended {
        format!("root search: {} steps, ended{of}", v.steps)
    } else if v.steps == 0 && v.path.len() <= 1 {
        format!("root search: start{of}")
    } else {
        let kind = if v.newton { "Newton" } else { "bisection" };
        format!("root search: step {} ({kind}){of}", v.steps)
    }
}

/// [`draw_f`] with the root search of the direct solve drawn on it (`search`): the current
/// search's iterates as dots joined in order, the current one ringed, its bracket as two
/// dashed verticals, and only the roots found so far marked; the legend reads the step count.
pub fn draw_f_search<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    samples: &FSamples,
    minimizer: Option<f64>,
    search: Option<&RootView>,
    scale: f64,
) -> PResult<DB> {
    root.fill(&WHITE)?;
    let look = Look::new(scale);
    let s = look.s;
    let pts: Vec<(f64, f64)> = samples
        .c
        .iter()
        .zip(&samples.phi)
        .filter_map(|(&c, &p)| lg(c).filter(|_| p.is_finite()).map(|l| (l, p)))
        .collect();
    let (x0, x1) = range_of(pts.iter().map(|p| &p.0));
    let (mut y0, mut y1) = range_of(pts.iter().map(|p| &p.1));
    y0 = y0.min(-1.0);
    y1 = y1.max(1.0);
    let w = look.stroke(2.0);
    let r = (6.0 * s) as i32;
    let dot = (3.5 * s) as i32;
    let shown_roots: &[f64] = search.map_or(&samples.roots, |v| &v.found);
    // The positive roots on the log axis, the minimizer's flagged, with their labels.
    let roots: Vec<(f64, bool, String)> = shown_roots
        .iter()
        .filter_map(|&c| {
            let l = lg(c).filter(|l| *l >= x0 && *l <= x1)?;
            let best = minimizer.is_some_and(|mc| (mc - c).abs() <= 1e-9 * c.abs());
            Some((l, best, format!("C = {}{}", num(c), if best { " (minimizer)" } else { "" })))
        })
        .collect();
    // The search's iterates inside the plot's range (on the curve: φ at the iterate).
    let inside = |&(c, p): &(f64, f64)| {
        lg(c).filter(|l| *l >= x0 && *l <= x1 && p.is_finite()).map(|l| (l, p.clamp(y0, y1)))
    };
    let path: Vec<(f64, f64)> =
        search.map(|v| v.path.iter().filter_map(inside).collect()).unwrap_or_default();
    let current = search.and_then(|v| v.path.last()).and_then(inside);
    let bracket: Vec<f64> = search
        .and_then(|v| v.bracket)
        .map(|(a, b)| [a, b].into_iter().filter_map(lg).filter(|l| *l >= x0 && *l <= x1).collect())
        .unwrap_or_default();
    let size = 12.0 * s;
    let mut rows = vec![("F(C) (eq. 6), log scale".to_string(), Swatch::Line(KRR_COLOR, 2.0))];
    if let Some(v) = search {
        rows.push((search_label(v), Swatch::Dot(SEARCH_COLOR)));
        if v.bracket.is_some() {
            rows.push(("bracket".to_string(), Swatch::Dashed(SEARCH_COLOR, 1.5)));
        }
    }
    let legend = Legend::new(&look, rows);
    let (mut chart, spot, labels) = fit_legend(
        root.dim_in_pixel().0,
        &legend,
        |room| look.chart_in(root, 34.0, room, x0..x1, y0..y1),
        |ch| {
            let mut o = Obstacles::default();
            o.polyline([ch.backend_coord(&(x0, 0.0)), ch.backend_coord(&(x1, 0.0))]);
            o.polyline(pts.iter().map(|p| ch.backend_coord(p)));
            roots.iter().for_each(|(l, _, _)| o.disc(ch.backend_coord(&(*l, 0.0)), r));
            path.iter().for_each(|p| o.disc(ch.backend_coord(p), dot));
            o.polyline(path.iter().map(|p| ch.backend_coord(p)));
            current.iter().for_each(|p| o.disc(ch.backend_coord(p), r));
            for &b in &bracket {
                o.polyline([ch.backend_coord(&(b, y0)), ch.backend_coord(&(b, y1))]);
            }
            let area = plot_rect(ch);
            let labels: Vec<[i32; 4]> = roots
                .iter()
                .map(|(l, _, text)| {
                    let (cx, cy) = ch.backend_coord(&(*l, 0.0));
                    let (tw, th) = rich_size(text, size);
                    label_spot(&mut o, area, (tw, th), (cx, cy), r + look.px(3.0))
                })
                .collect();
            (area, o, labels)
        },
    )?;
    // As many y labels as the plotting area holds (a legend outside it leaves it lower).
    let area = plot_rect(&chart);
    let y_labels = ((f64::from(area[3] - area[1]) / (26.0 * s)) as usize).clamp(2, 10);
    look.mesh(&mut chart)
        .x_desc("C (log scale)")
        .y_desc("ln(G(C)/C), sign of F")
        .x_label_formatter(&pow10_label)
        .x_labels(((x1 - x0).ceil() as usize + 1).clamp(2, 14))
        .y_labels(y_labels)
        .draw()?;
    let thin = SEARCH_COLOR.stroke_width(look.stroke(1.5));
    for &b in &bracket {
        // Dashed: every other of 24 pieces.
        let piece = (y1 - y0) / 24.0;
        chart.draw_series((0..24).step_by(2).map(|k| {
            let a = y0 + piece * k as f64;
            PathElement::new(vec![(b, a), (b, a + piece)], thin)
        }))?;
    }
    chart.draw_series(LineSeries::new(
        vec![(x0, 0.0), (x1, 0.0)],
        BLACK.stroke_width(look.stroke(1.0)),
    ))?;
    chart.draw_series(LineSeries::new(pts, KRR_COLOR.stroke_width(w)))?;
    if !path.is_empty() {
        chart.draw_series(LineSeries::new(path.clone(), thin))?;
        chart.draw_series(path.iter().map(|&p| Circle::new(p, dot, SEARCH_COLOR.filled())))?;
    }
    if let Some(p) = current {
        chart.draw_series(std::iter::once(Circle::new(p, r, BLACK.stroke_width(w))))?;
    }
    let (bx, by) = root.get_base_pixel();
    for ((l, best, text), b) in roots.iter().zip(&labels) {
        let style = if *best { MRLSR_COLOR.filled() } else { MRLSR_COLOR.stroke_width(w) };
        chart.draw_series(std::iter::once(Circle::new((*l, 0.0), r, style)))?;
        draw_rich_text(
            root,
            text,
            (b[0] - bx, b[1] - by),
            Pos::new(HPos::Left, VPos::Top),
            size,
            &MRLSR_COLOR,
        )?;
    }
    legend.draw(root, spot)?;
    root.present()
}

/// A label's box of `size` near the point `(cx, cy)` (a marker of radius `r`): above right,
/// above left, below right, below left, then farther up and down; inside `area` where it can
/// be, the least covering of `obs` (the box is added to `obs`).
fn label_spot(
    obs: &mut Obstacles,
    area: [i32; 4],
    size: (i32, i32),
    (cx, cy): (i32, i32),
    r: i32,
) -> [i32; 4] {
    let (w, h) = size;
    let mut corners = vec![];
    for k in 0..4 {
        let up = cy - r - h - k * h;
        let down = cy + r + k * h;
        corners.extend([(cx + r, up), (cx - r - w, up), (cx + r, down), (cx - r - w, down)]);
    }
    let fits =
        |&(x, y): &(i32, i32)| x >= area[0] && y >= area[1] && x + w <= area[2] && y + h <= area[3];
    let inside: Vec<(i32, i32)> = corners.iter().copied().filter(fits).collect();
    place_label(obs, size, if inside.is_empty() { &corners } else { &inside })
}

/// Fig. 1 (left): `‖f_MRLSR − f_KRR(λ₂)‖_H` per part on a log axis; values at rounding level
/// (Z₁) sit near the floor. Each bar is labelled with its value.
pub fn draw_equivalence_bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    values: &[f64],
    scale: f64,
) -> PResult<DB> {
    root.fill(&WHITE)?;
    let look = Look::new(scale);
    let s = look.s;
    let logs: Vec<f64> = values.iter().map(|&v| lg(v).unwrap_or(-17.0).max(-17.0)).collect();
    let lo = logs.iter().copied().fold(f64::INFINITY, f64::min).floor() - 1.0;
    let hi = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max).ceil() + 2.0;
    let (lo, hi) =
        if lo.is_finite() && hi.is_finite() { (lo, hi.max(lo + 3.0)) } else { (-17.0, 1.0) };
    let n = values.len().max(1) as f64;
    let size = 12.0 * s;
    let title_h = (2.0 * size).ceil() as i32;
    let mut chart = ChartBuilder::on(root)
        .margin((8.0 * s) as i32)
        .margin_top((8.0 * s) as i32 + title_h)
        .margin_right(look.right_margin())
        .x_label_area_size((34.0 * s) as i32)
        .y_label_area_size((52.0 * s) as i32)
        .build_cartesian_2d(0.0..n, lo..hi)?;
    let font = look.font();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(values.len().max(1) * 2 + 1)
        .x_label_formatter(&|v: &f64| {
            let k = (v - 0.5).round();
            if (v - 0.5 - k).abs() < 1e-6 && k >= 0.0 {
                format!(
                    "Z{}",
                    crate::plots::style::subscript(&(k as usize + 1).to_string())
                        .unwrap_or_default()
                )
            } else {
                String::new()
            }
        })
        .y_label_formatter(&pow10_label)
        .y_labels(look.labels_down(root.dim_in_pixel().1, ((hi - lo) as usize + 1).min(12)))
        .label_style(font.clone())
        .axis_desc_style(font)
        .light_line_style(GRID_COLOR)
        .bold_line_style(GRID_BOLD)
        .draw()?;
    let area = plot_rect(&chart);
    let (bx, by) = root.get_base_pixel();
    // The longest title that fits beside the plot (a narrow canvas, the classroom's half width,
    // takes a shorter one; the figure's caption says it in full).
    let room = f64::from(root.dim_in_pixel().0) - f64::from(area[0] - bx) - 4.0 * s;
    let title = [
        "‖f_{MRLSR} − f_{KRR(λ₂)}‖_H per part (log scale)",
        "‖f_{MRLSR} − f_{KRR(λ₂)}‖_H per part",
        "‖f_M − f_K‖_H per part",
    ]
    .into_iter()
    .find(|t| rich_size(t, size).0 as f64 <= room)
    .unwrap_or("‖f_M − f_K‖_H");
    draw_rich_text(
        root,
        title,
        (area[0] - bx, area[1] - by - look.px(4.0)),
        Pos::new(HPos::Left, VPos::Bottom),
        size,
        &BLACK,
    )?;
    let mut obs = Obstacles::default();
    for (k, (&l, &v)) in logs.iter().zip(values).enumerate() {
        let color = PART_COLORS[k % PART_COLORS.len()];
        chart.draw_series(std::iter::once(Rectangle::new(
            [(k as f64 + 0.2, lo), (k as f64 + 0.8, l)],
            color.mix(0.8).filled(),
        )))?;
        // Three significant digits, as the table beside it: narrow enough for four labels side by side.
        let text = num(three_digits(v));
        let (tw, th) = rich_size(&text, size);
        let (cx, top) = chart.backend_coord(&(k as f64 + 0.5, l));
        let g = look.px(2.0);
        let b = place_label(
            &mut obs,
            (tw, th),
            &[(cx - tw / 2, top - th - g), (cx - tw / 2, top + g), (cx - tw / 2, top - 2 * th - g)],
        );
        draw_rich_text(
            root,
            &text,
            (b[0] - bx, b[1] - by),
            Pos::new(HPos::Left, VPos::Top),
            size,
            &BLACK,
        )?;
    }
    root.present()
}

/// Fig. 1 (right): the λ → λ₂ = (m/2)·C₀·λ maps of every part on one log–log plot, with the
/// chosen (λ, λ₂) of Z₁ marked.
pub fn draw_lambda_curves<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    lambdas: &[f64],
    curves: &[Vec<f64>],
    chosen: (f64, f64),
    scale: f64,
) -> PResult<DB> {
    root.fill(&WHITE)?;
    let look = Look::new(scale);
    let s = look.s;
    let xs: Vec<f64> = lambdas.iter().map(|&l| lg(l).unwrap_or(f64::NAN)).collect();
    let ys: Vec<f64> = curves.iter().flatten().filter_map(|&v| lg(v)).chain(lg(chosen.1)).collect();
    let (x0, x1) = range_of(xs.iter());
    let (y0, y1) = range_of(ys.iter());
    // As many x labels ("1e-8", about 40 px at scale 1) as fit side by side with a gap, so they
    // never overlap on a narrow canvas (a phone, the classroom layout).
    let width = f64::from(root.dim_in_pixel().0) - 60.0 * s;
    let fit = ((width / (48.0 * s)).floor() as usize).max(2);
    let w = look.stroke(2.0);
    let lines: Vec<Vec<(f64, f64)>> = curves
        .iter()
        .map(|curve| {
            xs.iter()
                .zip(curve)
                .filter_map(|(&x, &v)| lg(v).filter(|_| x.is_finite()).map(|l| (x, l)))
                .collect()
        })
        .collect();
    let mark = lg(chosen.0).zip(lg(chosen.1));
    let r = (6.0 * s) as i32;
    let mut rows: Vec<(String, Swatch)> = (0..curves.len())
        .map(|p| {
            let z = crate::plots::style::subscript(&(p + 1).to_string()).unwrap_or_default();
            (format!("Z{z}"), Swatch::Line(PART_COLORS[p % PART_COLORS.len()], 2.0))
        })
        .collect();
    if mark.is_some() {
        rows.push(("chosen (λ, λ₂) on Z₁".to_string(), Swatch::Ring(BLACK)));
    }
    let legend = Legend::new(&look, rows);
    let (mut chart, spot) =
        log_log_chart(root, &look, &legend, 52.0, (x0..x1, y0..y1), &lines, mark.as_slice(), r)?;
    look.mesh(&mut chart)
        .x_desc("λ")
        .y_desc("λ₂")
        .x_label_formatter(&pow10_label)
        .y_label_formatter(&pow10_label)
        .x_labels(((x1 - x0).ceil() as usize + 1).clamp(2, 14).min(fit))
        .y_labels(
            look.labels_down(root.dim_in_pixel().1, ((y1 - y0).ceil() as usize + 1).clamp(2, 14)),
        )
        .draw()?;
    for (p, pts) in lines.into_iter().enumerate() {
        let color = PART_COLORS[p % PART_COLORS.len()];
        chart.draw_series(LineSeries::new(pts, color.stroke_width(w)))?;
    }
    if let Some(m) = mark {
        chart.draw_series(std::iter::once(Circle::new(m, r, BLACK.stroke_width(w))))?;
    }
    legend.draw(root, spot)?;
    root.present()
}

/// The chart of paper B's log–log plots (the λ → λ₂ maps here, the n-scans of
/// [`crate::plots::nscan`]) on `x × y`, with `y_area` CSS pixels for the y labels, and where its
/// legend goes: placed by [`fit_legend`] clear of the polylines `lines` and of the discs of
/// radius `r` (backend pixels) at `dots`.
#[allow(clippy::too_many_arguments)]
pub fn log_log_chart<'a, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, Shift>,
    look: &Look,
    legend: &Legend,
    y_area: f64,
    (x, y): (Range<f64>, Range<f64>),
    lines: &[Vec<(f64, f64)>],
    dots: &[(f64, f64)],
    r: i32,
) -> DrawResult<(Chart2d<'a, DB>, Spot), DB> {
    let s = look.s;
    let (chart, spot, ()) = fit_legend(
        root.dim_in_pixel().0,
        legend,
        |room| {
            ChartBuilder::on(root)
                .margin((8.0 * s) as i32)
                .margin_right(look.right_margin() + room.right)
                .margin_top((8.0 * s) as i32 + room.top)
                .x_label_area_size((34.0 * s) as i32)
                .y_label_area_size((y_area * s) as i32)
                .build_cartesian_2d(x.clone(), y.clone())
        },
        |ch| {
            let mut o = Obstacles::default();
            for l in lines {
                o.polyline(l.iter().map(|p| ch.backend_coord(p)));
            }
            dots.iter().for_each(|p| o.disc(ch.backend_coord(p), r));
            (plot_rect(ch), o, ())
        },
    )?;
    Ok((chart, spot))
}

/// Colours of an n-scan's series (A, B of §4's Example; λ₂'s move).
/// A perceptually ordered colour ramp (dark blue → yellow) for t ∈ [0, 1].
pub fn ramp(t: f64) -> RGBColor {
    const STOPS: [(f64, f64, f64); 5] = [
        (68.0, 1.0, 84.0),
        (59.0, 82.0, 139.0),
        (33.0, 145.0, 140.0),
        (94.0, 201.0, 98.0),
        (253.0, 231.0, 37.0),
    ];
    let t = if t.is_finite() { t.clamp(0.0, 1.0) } else { 0.0 };
    let x = t * (STOPS.len() - 1) as f64;
    let k = (x.floor() as usize).min(STOPS.len() - 2);
    let f = x - k as f64;
    let (a, b) = (STOPS[k], STOPS[k + 1]);
    RGBColor(
        (a.0 + f * (b.0 - a.0)) as u8,
        (a.1 + f * (b.1 - a.1)) as u8,
        (a.2 + f * (b.2 - a.2)) as u8,
    )
}

/// Table 1 style: cross-validated scaled RMSE over m (rows) × λ (columns) as a heatmap on a
/// log colour scale (dark = low), the best cell outlined; NaN cells (failed fits) are grey.
pub fn draw_heatmap<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    ms: &[f64],
    lambdas: &[f64],
    rmse: &[Vec<f64>],
    best: Option<(usize, usize)>,
    scale: f64,
) -> PResult<DB> {
    root.fill(&WHITE)?;
    let look = Look::new(scale);
    let s = look.s;
    let (nr, nc) = (ms.len().max(1), lambdas.len().max(1));
    let logs: Vec<f64> = rmse.iter().flatten().filter_map(|&v| lg(v)).collect();
    let lo = logs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let span = if hi > lo { hi - lo } else { 1.0 };
    let (areas, bar) =
        root.split_horizontally(root.dim_in_pixel().0.saturating_sub((96.0 * s) as u32));
    let mut chart = ChartBuilder::on(&areas)
        .margin((8.0 * s) as i32)
        .x_label_area_size((34.0 * s) as i32)
        .y_label_area_size((44.0 * s) as i32)
        .build_cartesian_2d(0.0..nc as f64, 0.0..nr as f64)?;
    let font = look.font();
    let lam = lambdas.to_vec();
    let mv = ms.to_vec();
    let xl = move |v: &f64| {
        let k = (v - 0.5).round();
        if (v - 0.5 - k).abs() < 1e-6 && k >= 0.0 {
            lam.get(k as usize).map(|l| num(*l)).unwrap_or_default()
        } else {
            String::new()
        }
    };
    let step = (nr / 10).max(1);
    let yl = move |v: &f64| {
        let k = (v - 0.5).round();
        if (v - 0.5 - k).abs() < 1e-6 && k >= 0.0 && (k as usize).is_multiple_of(step) {
            mv.get(k as usize).map(|m| format!("{m:.1}")).unwrap_or_default()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(nc * 2 + 1)
        .y_labels(nr * 2 + 1)
        .x_label_formatter(&xl)
        .y_label_formatter(&yl)
        .x_desc("λ")
        .y_desc("m")
        .label_style(font.clone())
        .axis_desc_style(font.clone())
        .draw()?;
    for (i, row) in rmse.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            let color = match lg(v) {
                Some(l) => ramp((l - lo) / span),
                None => RGBColor(200, 200, 200),
            };
            chart.draw_series(std::iter::once(Rectangle::new(
                [(j as f64, i as f64), (j as f64 + 1.0, i as f64 + 1.0)],
                color.filled(),
            )))?;
        }
    }
    if let Some((i, j)) = best {
        chart.draw_series(std::iter::once(Rectangle::new(
            [(j as f64, i as f64), (j as f64 + 1.0, i as f64 + 1.0)],
            RGBColor(255, 0, 0).stroke_width(look.stroke(2.0)),
        )))?;
    }
    // Colour bar.
    if lo.is_finite() {
        let mut cb = ChartBuilder::on(&bar)
            .margin_top((8.0 * s) as i32)
            .margin_bottom((42.0 * s) as i32)
            .margin_right((4.0 * s) as i32)
            .y_label_area_size((58.0 * s) as i32)
            .build_cartesian_2d(0.0..1.0, lo..(lo + span))?;
        cb.configure_mesh()
            .disable_mesh()
            .disable_x_axis()
            .y_labels(5)
            .y_label_formatter(&|v: &f64| num(10f64.powf(*v)))
            .label_style(look.font_of(10.0))
            .draw()?;
        let k = 40;
        for q in 0..k {
            let a = lo + span * q as f64 / k as f64;
            let b = lo + span * (q + 1) as f64 / k as f64;
            cb.draw_series(std::iter::once(Rectangle::new(
                [(0.0, a), (1.0, b)],
                ramp(q as f64 / (k - 1) as f64).filled(),
            )))?;
        }
    }
    root.present()
}
