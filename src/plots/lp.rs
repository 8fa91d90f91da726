//! Paper A's plots (the convergence of the duality gap, the coefficient spikes, the race, the 1-D
//! curve, the 2-D heatmap), written against plotters' `DrawingBackend`, so the same code draws
//! into the page's canvases (plotters-canvas) and into native SVG files (`kplay plot`).
//!
//! `scale` is the device-pixel ratio: fonts and strokes are multiplied by it so high-DPI
//! canvases stay sharp (the canvas backing store is sized CSS size × devicePixelRatio).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::exec::Record;
use crate::plots::style::{
    fit_legend, int_label, lg, num, plot_rect, pow10_label, Legend, Look, Obstacles, Swatch,
};

/// Colours shared by the page's legend and the plots.
pub const GAP_COLOR: RGBColor = RGBColor(214, 39, 40);
pub const PRIMAL_COLOR: RGBColor = RGBColor(31, 119, 180);
pub const DUAL_COLOR: RGBColor = RGBColor(44, 160, 44);
pub const TRUE_COLOR: RGBColor = RGBColor(214, 39, 40);
pub const EST_COLOR: RGBColor = RGBColor(31, 119, 180);

type PResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// A named curve of the convergence plot: label, points, colour.
type Curve<'a> = (&'a str, &'a Vec<(f64, f64)>, RGBColor);

/// The duality gap and the two objectives (primal `F(w(α))`, dual `−Λ(α)`) against the
/// iteration, on a log₁₀ axis (paper A, Figure 1 left). Non-positive values are skipped.
pub fn draw_convergence<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    trace: &[Record],
    scale: f64,
) -> PResult<DB> {
    root.fill(&WHITE)?;
    let look = Look::new(scale);
    let gap: Vec<(f64, f64)> =
        trace.iter().filter_map(|r| r.gap.and_then(lg).map(|v| (r.iter as f64, v))).collect();
    let primal: Vec<(f64, f64)> =
        trace.iter().filter_map(|r| r.primal.and_then(lg).map(|v| (r.iter as f64, v))).collect();
    let dual: Vec<(f64, f64)> =
        trace.iter().filter_map(|r| r.dual.and_then(lg).map(|v| (r.iter as f64, v))).collect();
    let all = gap.iter().chain(&primal).chain(&dual).map(|p| p.1);
    let (mut lo, mut hi) =
        all.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    if !lo.is_finite() {
        lo = -1.0;
        hi = 1.0;
    }
    lo = lo.floor();
    hi = hi.ceil().max(lo + 1.0);
    let xmax = trace.last().map(|r| r.iter).unwrap_or(1).max(1) as f64;
    let w = look.stroke(2.0);
    let series: [Curve; 3] = [
        ("duality gap", &gap, GAP_COLOR),
        ("primal F(w)", &primal, PRIMAL_COLOR),
        ("dual −Λ(α)", &dual, DUAL_COLOR),
    ];
    let legend = Legend::new(
        &look,
        series.iter().map(|(n, _, c)| (n.to_string(), Swatch::Line(*c, 2.0))).collect(),
    );
    let (mut chart, spot, ()) = fit_legend(
        root.dim_in_pixel().0,
        &legend,
        |room| look.chart_in(root, 40.0, room, 0f64..xmax, lo..hi),
        |c| {
            let mut o = Obstacles::default();
            for (_, pts, _) in &series {
                o.polyline(pts.iter().map(|p| c.backend_coord(p)));
                if pts.len() < 60 {
                    pts.iter().for_each(|p| o.disc(c.backend_coord(p), look.px(2.0)));
                }
            }
            (plot_rect(c), o, ())
        },
    )?;
    let ph = plot_h(&chart, &look);
    look.mesh(&mut chart)
        .x_desc("iteration")
        .x_label_formatter(&int_label)
        .y_label_formatter(&pow10_label)
        .y_labels(look.labels_down(ph, ((hi - lo) as usize + 1).min(12)))
        .x_labels(look.labels_fit(root.dim_in_pixel().0, 8, &int_label(&xmax)))
        .draw()?;
    for (_, pts, color) in series {
        chart.draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(w)))?;
        if pts.len() < 60 {
            chart.draw_series(pts.iter().map(|&p| Circle::new(p, look.px(2.0), color.filled())))?;
        }
    }
    legend.draw(root, spot)?;
    root.present()
}

/// The recovered `w` against the true spikes `w*` (paper A, Figure 1 right). With many
/// features each pixel column shows the range of `w` over the indices it covers, so a
/// 100 000-feature vector draws as fast as a small one; true spikes are drawn on top.
pub fn draw_spikes<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    w: &[f64],
    w_true: Option<&[f64]>,
    scale: f64,
) -> PResult<DB> {
    draw_spikes_threshold(root, w, w_true, None, scale)
}

/// [`draw_spikes`] with a threshold `±τ` drawn as two dashed lines (the page's slider).
pub fn draw_spikes_threshold<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    w: &[f64],
    w_true: Option<&[f64]>,
    threshold: Option<f64>,
    scale: f64,
) -> PResult<DB> {
    root.fill(&WHITE)?;
    let look = Look::new(scale);
    let d = w.len().max(1);
    let amp = w.iter().chain(w_true.unwrap_or(&[]).iter()).fold(0.0f64, |m, v| {
        if v.is_finite() {
            m.max(v.abs())
        } else {
            m
        }
    });
    let amp = if amp > 0.0 { amp * 1.1 } else { 1.0 };
    let stroke = look.stroke(1.5);
    let spikes: Vec<(f64, f64)> = w_true
        .unwrap_or(&[])
        .iter()
        .enumerate()
        .filter(|(_, v)| **v != 0.0)
        .map(|(j, &v)| (j as f64 + 0.5, v))
        .collect();
    let threshold = threshold.filter(|t| t.is_finite() && *t > 0.0 && *t < amp);
    let mut rows = vec![("estimate w".to_string(), Swatch::Block(EST_COLOR))];
    if w_true.is_some() {
        rows.push(("true spikes w*".to_string(), Swatch::Ring(TRUE_COLOR)));
    }
    let legend = Legend::new(&look, rows);
    let ring = look.px(4.0);
    let (mut chart, spot, bars) = fit_legend(
        root.dim_in_pixel().0,
        &legend,
        |room| look.chart_in(root, 40.0, room, 0f64..d as f64, -amp..amp),
        |c| {
            // One bucket per (device) pixel of the plotting area.
            let cols = (c.plotting_area().dim_in_pixel().0 as usize).max(1);
            let per = d.div_ceil(cols).max(1);
            let mut bars: Vec<(f64, f64, f64)> = Vec::with_capacity(cols);
            for (b, chunk) in w.chunks(per).enumerate() {
                let (mut lo, mut hi) = (0.0f64, 0.0f64);
                for &v in chunk {
                    if v.is_finite() {
                        lo = lo.min(v);
                        hi = hi.max(v);
                    }
                }
                if lo != 0.0 || hi != 0.0 {
                    bars.push(((b * per) as f64 + 0.5 * per as f64, lo, hi));
                }
            }
            let mut o = Obstacles::default();
            for &(x, lo, hi) in &bars {
                o.polyline([c.backend_coord(&(x, lo)), c.backend_coord(&(x, hi))]);
            }
            spikes.iter().for_each(|p| o.disc(c.backend_coord(p), ring));
            for t in threshold.iter().flat_map(|&t| [t, -t]) {
                o.polyline([c.backend_coord(&(0.0, t)), c.backend_coord(&(d as f64, t))]);
            }
            (plot_rect(c), o, bars)
        },
    )?;
    look.mesh(&mut chart)
        .x_desc("feature index j")
        .x_label_formatter(&int_label)
        .x_labels(look.labels_along(root.dim_in_pixel().0, 6))
        .y_labels(look.labels_down(root.dim_in_pixel().1, 7))
        .draw()?;
    chart.draw_series(bars.iter().map(|&(x, lo, hi)| {
        PathElement::new(vec![(x, lo), (x, hi)], EST_COLOR.stroke_width(stroke))
    }))?;
    chart.draw_series(spikes.iter().map(|&(x, v)| {
        EmptyElement::at((x, v)) + Circle::new((0, 0), ring, TRUE_COLOR.stroke_width(stroke))
    }))?;
    if let Some(t) = threshold {
        let gray = RGBColor(120, 120, 120);
        for v in [t, -t] {
            chart.draw_series(DashedLineSeries::new(
                vec![(0.0, v), (d as f64, v)],
                look.px(6.0) as u32,
                look.px(4.0) as u32,
                gray.stroke_width(stroke),
            ))?;
        }
    }
    legend.draw(root, spot)?;
    root.present()
}

/// The height of a chart's plotting area plus its bottom label band, the length its y tick
/// labels share.
fn plot_h<DB: DrawingBackend, CT: plotters::coord::CoordTranslate>(
    chart: &ChartContext<'_, DB, CT>,
    look: &Look,
) -> u32 {
    let r = plot_rect(chart);
    (r[3] - r[1] + look.px(40.0)).max(0) as u32
}

/// Render both plots of a run into SVG text (native use: `kplay plot`).
pub fn svg_pair(
    trace: &[Record],
    w: &[f64],
    w_true: Option<&[f64]>,
) -> Result<(String, String), String> {
    let mut a = String::new();
    let mut b = String::new();
    {
        let root = SVGBackend::with_string(&mut a, (720, 360)).into_drawing_area();
        draw_convergence(&root, trace, 1.0).map_err(|e| e.to_string())?;
    }
    {
        let root = SVGBackend::with_string(&mut b, (720, 360)).into_drawing_area();
        draw_spikes(&root, w, w_true, 1.0).map_err(|e| e.to_string())?;
    }
    Ok((a, b))
}

/// One lane of a race: (algorithm name, [(iteration, elapsed ms, relative error)]).
pub type RaceCurve = (String, Vec<(f64, f64, f64)>);

/// What the race plot says before the race has data (no axes: they would show made-up ranges).
pub const RACE_EMPTY: &str = "Press Race to run every algorithm on this data.";

/// A plot's empty state: one grey centred line of text on white (wrapped at the width).
pub fn draw_message<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    text: &str,
    scale: f64,
) -> PResult<DB> {
    root.fill(&WHITE)?;
    let (w, h) = root.dim_in_pixel();
    let size = 15.0 * Look::new(scale).s;
    // Wrap by an estimate of the text width (about 0.55 em per character in sans-serif).
    let per_line = ((w as f64 * 0.9) / (0.55 * size)).floor().max(8.0) as usize;
    let mut lines: Vec<String> = vec![];
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= per_line => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    let style = ("sans-serif", size)
        .into_font()
        .color(&RGBColor(110, 110, 110))
        .pos(Pos::new(HPos::Center, VPos::Center));
    let step = 1.4 * size;
    let top = h as f64 / 2.0 - step * (lines.len() as f64 - 1.0) / 2.0;
    for (i, l) in lines.iter().enumerate() {
        root.draw(&Text::new(
            l.as_str(),
            ((w / 2) as i32, (top + step * i as f64) as i32),
            style.clone(),
        ))?;
    }
    root.present()
}

/// The race: relative error `(F − F*)/F*` of each algorithm against iterations (solid) and
/// against time in ms (dashed, top axis rescaled onto the same width) on one log₁₀ axis.
/// `curves`: (name, [(iteration, elapsed ms, relative error)]). Without any point it draws the
/// empty state [`RACE_EMPTY`] instead of axes.
pub fn draw_race<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    curves: &[RaceCurve],
    scale: f64,
) -> PResult<DB> {
    if curves.iter().all(|c| c.1.is_empty()) {
        return draw_message(root, RACE_EMPTY, scale);
    }
    root.fill(&WHITE)?;
    let look = Look::new(scale);
    let floor = -16.0;
    let lgc = |v: f64| if v.is_finite() && v > 0.0 { v.log10().max(floor) } else { floor };
    let imax = curves.iter().flat_map(|c| c.1.iter().map(|p| p.0)).fold(1.0f64, f64::max);
    let tmax = curves.iter().flat_map(|c| c.1.iter().map(|p| p.1)).fold(1e-3f64, f64::max);
    let hi = curves
        .iter()
        .flat_map(|c| c.1.iter().map(|p| lgc(p.2)))
        .fold(-1.0f64, f64::max)
        .ceil()
        .max(floor + 1.0);
    let w = look.stroke(2.0);
    let legend = Legend::new(
        &look,
        curves
            .iter()
            .enumerate()
            .map(|(k, c)| (c.0.clone(), Swatch::Line(crate::plots::style::race_color(k), 2.0)))
            .collect(),
    );
    let (mut chart, spot, ()) = fit_legend(
        root.dim_in_pixel().0,
        &legend,
        |room| {
            Ok::<_, DrawingAreaErrorKind<DB::ErrorType>>(
                ChartBuilder::on(root)
                    .margin(look.px(8.0))
                    .margin_right(look.right_margin() + room.right)
                    .margin_top(look.px(8.0) + room.top)
                    .x_label_area_size(look.px(40.0))
                    .top_x_label_area_size(look.px(44.0))
                    .y_label_area_size(look.px(48.0))
                    .build_cartesian_2d(0f64..imax, floor..hi)?
                    .set_secondary_coord(0f64..tmax, floor..hi),
            )
        },
        |c| {
            let mut o = Obstacles::default();
            for (_, pts) in curves {
                o.polyline(pts.iter().map(|p| c.backend_coord(&(p.0, lgc(p.2)))));
                let sec = c.borrow_secondary();
                o.polyline(pts.iter().map(|p| sec.backend_coord(&(p.1, lgc(p.2)))));
            }
            (plot_rect(&**c), o, ())
        },
    )?;
    let ph = plot_h(&*chart, &look);
    look.mesh(&mut chart)
        .x_desc("iteration (solid)")
        .y_desc("(F − F*)/F*")
        .x_label_formatter(&int_label)
        .y_label_formatter(&pow10_label)
        .y_labels(look.labels_down(ph, 9))
        .x_labels(look.labels_fit(root.dim_in_pixel().0, 8, &int_label(&imax)))
        .draw()?;
    chart
        .configure_secondary_axes()
        .x_desc("time, ms (dashed)")
        .x_label_formatter(&|v: &f64| num(*v))
        .x_labels(look.labels_along(root.dim_in_pixel().0, 6))
        .label_style(look.font())
        .axis_desc_style(look.font())
        .draw()?;
    for (k, (_, pts)) in curves.iter().enumerate() {
        let color = crate::plots::style::race_color(k);
        chart.draw_series(LineSeries::new(
            pts.iter().map(|p| (p.0, lgc(p.2))),
            color.stroke_width(w),
        ))?;
        chart.draw_secondary_series(DashedLineSeries::new(
            pts.iter().map(|p| (p.1, lgc(p.2))).collect::<Vec<_>>(),
            look.px(5.0) as u32,
            look.px(4.0) as u32,
            color.stroke_width(w),
        ))?;
    }
    legend.draw(root, spot)?;
    root.present()
}

/// A 1-D predictor curve over the training points (paper A, Remark 2.4, d = 1).
pub fn draw_curve_1d<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    xs: &[f64],
    fs: &[f64],
    px: &[f64],
    py: &[f64],
    scale: f64,
) -> PResult<DB> {
    root.fill(&WHITE)?;
    let look = Look::new(scale);
    let fin = |v: &&f64| v.is_finite();
    let (x0, x1) = xs
        .iter()
        .chain(px)
        .filter(fin)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    let (y0, y1) = fs
        .iter()
        .chain(py)
        .filter(fin)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    let (x0, x1) = if x0 < x1 { (x0, x1) } else { (-1.0, 1.0) };
    let (y0, y1) =
        if y0 < y1 { (y0 - 0.05 * (y1 - y0), y1 + 0.05 * (y1 - y0)) } else { (-1.0, 1.0) };
    let mut chart = look.chart(root, 36.0, x0..x1, y0..y1)?;
    look.mesh(&mut chart)
        .x_desc("x")
        .x_labels(look.labels_along(root.dim_in_pixel().0, 8))
        .y_labels(look.labels_down(root.dim_in_pixel().1, 8))
        .draw()?;
    // At most about 4000 training points are drawn (evenly strided): a canvas draws each
    // circle with its own calls, and n may be 10⁶ (the page's n·d budget with d = 1).
    let stride = (px.len() / 4000).max(1);
    chart.draw_series(
        px.iter()
            .zip(py)
            .step_by(stride)
            .map(|(&a, &b)| Circle::new((a, b), look.px(3.0), TRUE_COLOR.filled())),
    )?;
    chart.draw_series(LineSeries::new(
        xs.iter().zip(fs).map(|(&a, &b)| (a, b)),
        EST_COLOR.stroke_width(look.stroke(2.0)),
    ))?;
    root.present()
}

/// An RGBA image of a 2-D predictor (paper A, Remark 2.4): diverging colours by the sign of
/// `f` (blue > 0, red < 0, white at 0, saturating at the 95th percentile of |f|), the level
/// set f = 0 in black, and the training points (+1 dark blue squares, −1 dark red).
/// `values[iy·w + ix]` with iy = 0 the bottom row; points in grid coordinates.
pub fn heatmap_rgba(values: &[f64], w: usize, h: usize, points: &[(f64, f64, f64)]) -> Vec<u8> {
    let mut img = vec![255u8; w * h * 4];
    let mut mags: Vec<f64> = values.iter().filter(|v| v.is_finite()).map(|v| v.abs()).collect();
    mags.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let sat = mags.get(mags.len() * 95 / 100).copied().unwrap_or(1.0).max(1e-300);
    let at = |ix: usize, iy: usize| values.get(iy * w + ix).copied().unwrap_or(0.0);
    for iy in 0..h {
        for ix in 0..w {
            let v = at(ix, iy);
            let t = (v / sat).clamp(-1.0, 1.0);
            let (r, g, b) = if t >= 0.0 {
                (255.0 * (1.0 - 0.75 * t), 255.0 * (1.0 - 0.5 * t), 255.0)
            } else {
                (255.0, 255.0 * (1.0 + 0.6 * t), 255.0 * (1.0 + 0.6 * t))
            };
            let border = (ix + 1 < w && (at(ix + 1, iy) > 0.0) != (v > 0.0))
                || (iy + 1 < h && (at(ix, iy + 1) > 0.0) != (v > 0.0));
            let row = h - 1 - iy;
            let o = (row * w + ix) * 4;
            let px = if border { [0, 0, 0] } else { [r as u8, g as u8, b as u8] };
            img[o..o + 3].copy_from_slice(&px);
        }
    }
    let rad = (w.max(h) / 150).max(2) as i64;
    for &(gx, gy, label) in points {
        let color = if label > 0.0 { [20u8, 40, 140] } else { [150u8, 20, 20] };
        let (cx, cy) = (gx.round() as i64, (h as f64 - 1.0 - gy).round() as i64);
        for dy in -rad..=rad {
            for dx in -rad..=rad {
                let (x, y) = (cx + dx, cy + dy);
                if x >= 0 && y >= 0 && (x as usize) < w && (y as usize) < h {
                    let o = ((y as usize) * w + x as usize) * 4;
                    let edge = dx.abs() == rad || dy.abs() == rad;
                    let px = if edge { [255, 255, 255] } else { color };
                    img[o..o + 3].copy_from_slice(&px);
                }
            }
        }
    }
    img
}

#[cfg(test)]
mod tests {
    use super::*;

    fn race_svg(curves: &[RaceCurve]) -> String {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (600, 300)).into_drawing_area();
            draw_race(&root, curves, 1.0).expect("draw");
        }
        out
    }

    #[test]
    fn the_race_plot_says_press_race_instead_of_drawing_empty_axes() {
        let empty = race_svg(&[]);
        for word in RACE_EMPTY.split_whitespace() {
            assert!(empty.contains(word), "the empty race plot lacks `{word}`");
        }
        assert!(
            !empty.contains("iteration (solid)") && !empty.contains("time, ms"),
            "axes drawn without data"
        );
        // Lanes named but without points yet: still the empty state.
        assert_eq!(race_svg(&[("fista".into(), vec![])]), empty);
        // With points: the axes and the lane's name, not the message.
        let full = race_svg(&[("fista".into(), vec![(0.0, 0.0, 1.0), (5.0, 2.5, 1e-3)])]);
        assert!(
            full.contains("iteration (solid)")
                && full.contains("time, ms")
                && full.contains("fista")
        );
        assert!(!full.contains("Press"));
    }

    #[test]
    fn a_long_message_wraps_inside_the_plot() {
        let mut out = String::new();
        let text = "The race runs on the features path: choose path = features, then press Race.";
        {
            let root = SVGBackend::with_string(&mut out, (240, 200)).into_drawing_area();
            draw_message(&root, text, 1.0).expect("draw");
        }
        let lines = out.matches("<text").count();
        assert!(lines >= 2, "{lines} line(s) for {} characters in 240 px", text.len());
        for word in text.split_whitespace() {
            assert!(out.contains(word), "`{word}` lost");
        }
    }
}
