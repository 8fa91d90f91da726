//! Paper D's pictures, written against plotters' `DrawingBackend` (canvas in the page, SVG
//! natively): the decision-function heatmap with its zero level (an RGBA buffer the page puts
//! with `putImageData`, or rectangles on other backends), the points sized by the certificate
//! weights p, the combination `Σ p_i y_i x_i/‖x_i‖` as an arrow (linear kernel, §5), the trace
//! of `min_i (Gα)_i` and `‖p_k‖_G` with the iteration bounds, and the race of the algorithms.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::papers::perceptron::RaceEntry;
use crate::plots::style::{
    draw_rich_text, fit_legend, lg, num, place_label, plot_rect, rich_size, text_width, Legend,
    Look, Obstacles, Swatch,
};

type PResult<DB, T> = Result<T, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Colour of the +1 class (and of positive decision values).
pub const POS: RGBColor = crate::plots::style::CLASS_POS;
/// Colour of the −1 class (and of negative decision values).
pub const NEG: RGBColor = crate::plots::style::CLASS_NEG;
/// The hull of the `y_i x_i/‖x_i‖` (Theorem 3).
const HULL: RGBColor = RGBColor(90, 90, 90);
/// The circle of radius |ρ_K| about the origin.
const BALL: RGBColor = RGBColor(0, 128, 64);
const ARROW: RGBColor = RGBColor(106, 61, 154);
const MIN_G: RGBColor = RGBColor(44, 140, 44);
const P_COL: RGBColor = RGBColor(106, 61, 154);

/// Layout of the boundary plot (device pixels): margin, x-label band, y-label band.
fn layout(scale: f64) -> (i32, i32, i32) {
    let s = Look::new(scale).s;
    ((8.0 * s) as i32, (28.0 * s) as i32, (40.0 * s) as i32)
}

/// The plotting rectangle `[x0, y0, x1, y1]` (device pixels) of the boundary plot on a
/// `w × h` canvas — where the page puts the heatmap image and maps clicks.
pub fn boundary_rect(w: u32, h: u32, scale: f64) -> [i32; 4] {
    let (m, xl, yl) = layout(scale);
    let mr = Look::new(scale).right_margin();
    [m + yl, m, (w as i32 - mr).max(m + yl + 2), (h as i32 - m - xl).max(m + 2)]
}

/// Grow `view` so one data unit has the same length on both axes of `rect` (circles stay round).
pub fn equal_aspect(view: [f64; 4], rect: [i32; 4]) -> [f64; 4] {
    let [a, b, c, d] = view;
    let pw = (rect[2] - rect[0]).max(1) as f64;
    let ph = (rect[3] - rect[1]).max(1) as f64;
    let (sx, sy) = ((b - a) / pw, (d - c) / ph);
    let u = sx.max(sy);
    let (cx, cy) = (0.5 * (a + b), 0.5 * (c + d));
    [cx - 0.5 * u * pw, cx + 0.5 * u * pw, cy - 0.5 * u * ph, cy + 0.5 * u * ph]
}

fn mix(c: RGBColor, t: f64) -> [u8; 3] {
    let t = t.clamp(0.0, 1.0);
    let f = |v: u8| (255.0 + (v as f64 - 255.0) * t).round() as u8;
    [f(c.0), f(c.1), f(c.2)]
}

/// The heatmap as RGBA bytes (`w × h`, top row first): the `gx × gy` grid of decision values
/// `f` (row-major, y increasing) is bilinearly interpolated to pixels, coloured blue for
/// `f > 0` and red for `f < 0` (intensity ∝ √(|f|/max|f|)), and pixels where f changes sign
/// within `line` pixels are drawn dark: the zero level, the decision boundary.
pub fn heatmap_rgba(f: &[f64], gx: usize, gy: usize, w: usize, h: usize, line: usize) -> Vec<u8> {
    let mut out = vec![255u8; w * h * 4];
    if gx < 2 || gy < 2 || f.len() != gx * gy || w == 0 || h == 0 {
        return out;
    }
    let amax = f.iter().fold(0.0f64, |m, v| if v.is_finite() { m.max(v.abs()) } else { m });
    let amax = if amax > 0.0 { amax } else { 1.0 };
    let mut val = vec![0.0f64; w * h];
    for py in 0..h {
        // Pixel row 0 is the top (largest y).
        let gyf = (h - 1 - py) as f64 * (gy - 1) as f64 / (h.max(2) - 1) as f64;
        let j0 = (gyf.floor() as usize).min(gy - 2);
        let ty = gyf - j0 as f64;
        for px in 0..w {
            let gxf = px as f64 * (gx - 1) as f64 / (w.max(2) - 1) as f64;
            let i0 = (gxf.floor() as usize).min(gx - 2);
            let tx = gxf - i0 as f64;
            let at = |i: usize, j: usize| f[j * gx + i];
            let v = (1.0 - ty) * ((1.0 - tx) * at(i0, j0) + tx * at(i0 + 1, j0))
                + ty * ((1.0 - tx) * at(i0, j0 + 1) + tx * at(i0 + 1, j0 + 1));
            val[py * w + px] = v;
        }
    }
    let line = line.max(1);
    for py in 0..h {
        for px in 0..w {
            let v = val[py * w + px];
            let k = (py * w + px) * 4;
            let t = (v.abs() / amax).sqrt() * 0.55;
            let rgb = if v >= 0.0 { mix(POS, t) } else { mix(NEG, t) };
            out[k..k + 3].copy_from_slice(&rgb);
            // Zero level: a sign change to a neighbour within `line` pixels (right or below).
            let mut edge = false;
            for dxy in 1..=line {
                if px + dxy < w && (val[py * w + px + dxy] >= 0.0) != (v >= 0.0) {
                    edge = true;
                }
                if py + dxy < h && (val[(py + dxy) * w + px] >= 0.0) != (v >= 0.0) {
                    edge = true;
                }
            }
            if edge && v.is_finite() {
                out[k..k + 3].copy_from_slice(&[25, 25, 25]);
            }
        }
    }
    out
}

/// What the boundary plot shows.
pub struct BoundaryScene<'a> {
    /// Points `(x₁, x₂)`.
    pub x: &'a [(f64, f64)],
    /// Labels ±1.
    pub y: &'a [f64],
    /// Certificate weights p (the points are sized by them), where the algorithm has one.
    pub p: Option<&'a [f64]>,
    /// `Σ p_i y_i x_i/‖x_i‖` (linear kernel); its length is `‖p‖_G ≤ 1`.
    pub arrow: Option<[f64; 2]>,
    /// With the arrow: the hull of the `y_i x_i/‖x_i‖` (vertices, same unit frame) and ρ_K (NaN:
    /// not drawn yet); the circle of radius |ρ_K| about 0 is the largest ball inside the hull
    /// when ρ_K < 0 (Theorem 3) and the hull's distance from 0 when ρ_K > 0 (Lemma 3).
    pub hull: Option<(&'a [(f64, f64)], f64)>,
    /// Decision values on a `gx × gy` grid over the view, drawn as rectangles (for backends
    /// without image support; the page puts [`heatmap_rgba`] instead and passes None).
    pub heat: Option<(&'a [f64], usize, usize)>,
}

/// The boundary plot: axes, (optionally) the heatmap as cells, the origin, the points sized by
/// p and the arrow. Does not clear the plotting rectangle when `clear_plot` is false (the page
/// has put the heatmap image there). Returns the plotting rectangle in device pixels.
pub fn draw_boundary<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    view: [f64; 4],
    scene: &BoundaryScene,
    scale: f64,
    clear_plot: bool,
) -> PResult<DB, [i32; 4]> {
    let look = Look::new(scale);
    let s = look.s;
    let (w, h) = root.dim_in_pixel();
    let rect = boundary_rect(w, h, s);
    // Clear everything but the plotting rectangle (the heatmap image may already be there).
    let white = WHITE.filled();
    if clear_plot {
        root.fill(&WHITE)?;
    } else {
        root.draw(&Rectangle::new([(0, 0), (w as i32, rect[1])], white))?;
        root.draw(&Rectangle::new([(0, rect[3]), (w as i32, h as i32)], white))?;
        root.draw(&Rectangle::new([(0, 0), (rect[0], h as i32)], white))?;
        root.draw(&Rectangle::new([(rect[2], 0), (w as i32, h as i32)], white))?;
    }
    let (m, xl, yl) = layout(s);
    let [a, b, c, d] = view;
    let mut chart = ChartBuilder::on(root)
        .margin(m)
        .margin_right(look.right_margin())
        .x_label_area_size(xl)
        .y_label_area_size(yl)
        .build_cartesian_2d(a..b, c..d)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .label_style(look.font())
        .x_labels(look.labels_along(root.dim_in_pixel().0, 7))
        .y_labels(look.labels_down(root.dim_in_pixel().1, 7))
        .x_label_formatter(&|v: &f64| format!("{v:.1}"))
        .y_label_formatter(&|v: &f64| format!("{v:.1}"))
        .draw()?;
    if let Some((f, gx, gy)) = scene.heat {
        if gx >= 2 && gy >= 2 && f.len() == gx * gy {
            let amax = f
                .iter()
                .fold(0.0f64, |m, v| if v.is_finite() { m.max(v.abs()) } else { m })
                .max(1e-300);
            let (dx, dy) = ((b - a) / (gx - 1) as f64, (d - c) / (gy - 1) as f64);
            chart.draw_series((0..gy).flat_map(|j| (0..gx).map(move |i| (i, j))).map(
                |(i, j)| {
                    let v = f[j * gx + i];
                    let rgb = if v >= 0.0 {
                        mix(POS, (v / amax).sqrt() * 0.55)
                    } else {
                        mix(NEG, (-v / amax).sqrt() * 0.55)
                    };
                    let (x0, y0) = (a + (i as f64 - 0.5) * dx, c + (j as f64 - 0.5) * dy);
                    Rectangle::new(
                        [(x0, y0), (x0 + dx, y0 + dy)],
                        RGBColor(rgb[0], rgb[1], rgb[2]).filled(),
                    )
                },
            ))?;
        }
    }
    let thin = look.stroke(1.0);
    // The origin (linear separators pass through it).
    let o_len = (6.0 * s) as i32;
    chart.draw_series(std::iter::once(
        EmptyElement::at((0.0, 0.0))
            + PathElement::new(vec![(-o_len, 0), (o_len, 0)], BLACK.stroke_width(thin))
            + PathElement::new(vec![(0, -o_len), (0, o_len)], BLACK.stroke_width(thin)),
    ))?;
    let mut o = Obstacles::default();
    let mut labels: Vec<(String, RGBColor)> = vec![];
    let oc = chart.backend_coord(&(0.0, 0.0));
    o.polyline([(oc.0 - o_len, oc.1), (oc.0 + o_len, oc.1)]);
    o.polyline([(oc.0, oc.1 - o_len), (oc.0, oc.1 + o_len)]);
    let n = scene.x.len().max(1) as f64;
    let stroke = look.stroke(1.2);
    let mark = |i: usize| {
        let (r, filled) = match scene.p.and_then(|p| p.get(i)) {
            Some(&pi) => {
                let r = 2.0 + 4.0 * (pi.max(0.0) * n).sqrt();
                (r.min(16.0), pi * n > 0.05)
            }
            None => (3.5, true),
        };
        ((r * s).round().max(1.0) as i32, filled)
    };
    for (i, p) in scene.x.iter().enumerate() {
        o.disc(chart.backend_coord(p), mark(i).0);
    }
    chart.draw_series(scene.x.iter().zip(scene.y).enumerate().map(|(i, (&(u, v), &l))| {
        let col = if l > 0.0 { POS } else { NEG };
        let (r, filled) = mark(i);
        let style = if filled { col.mix(0.85).filled() } else { col.stroke_width(stroke) };
        EmptyElement::at((u, v))
            + Circle::new((0, 0), r, style)
            + Circle::new((0, 0), r, WHITE.mix(0.9).stroke_width(thin))
    }))?;
    if let Some([wx, wy]) = scene.arrow {
        // Unit length drawn as R data units; the dotted circle is ‖·‖ = 1.
        let rr = 0.4 * (b - a).min(d - c);
        let circle: Vec<(f64, f64)> = (0..=96)
            .map(|k| {
                let t = k as f64 / 96.0 * std::f64::consts::TAU;
                (rr * t.cos(), rr * t.sin())
            })
            .collect();
        o.polyline(circle.iter().map(|p| chart.backend_coord(p)));
        chart.draw_series(
            circle
                .chunks(2)
                .map(|seg| PathElement::new(seg.to_vec(), ARROW.mix(0.5).stroke_width(thin))),
        )?;
        if let Some((hull, rho)) = scene.hull.filter(|h| h.0.len() >= 2) {
            let mut poly: Vec<(f64, f64)> = hull.iter().map(|&(u, v)| (rr * u, rr * v)).collect();
            poly.push(poly[0]);
            chart.draw_series(std::iter::once(Polygon::new(
                poly.clone(),
                HULL.mix(0.10).filled(),
            )))?;
            o.polyline(poly.iter().map(|p| chart.backend_coord(p)));
            chart.draw_series(std::iter::once(PathElement::new(
                poly,
                HULL.stroke_width(look.stroke(1.5)),
            )))?;
            // Short labels in the colour of what they name; the figure caption (and the
            // explainer) says what the hull, the circle and the arrow are.
            labels.push(("hull".to_string(), HULL));
            if rho.is_finite() {
                let r = rr * rho.abs();
                let ball: Vec<(f64, f64)> = (0..=96)
                    .map(|k| {
                        let t = k as f64 / 96.0 * std::f64::consts::TAU;
                        (r * t.cos(), r * t.sin())
                    })
                    .collect();
                o.polyline(ball.iter().map(|p| chart.backend_coord(p)));
                chart.draw_series(std::iter::once(PathElement::new(
                    ball,
                    BALL.stroke_width(look.stroke(2.0)),
                )))?;
                labels.push((format!("|ρ_K| = {:.3}", rho.abs()), BALL));
            }
        }
        let tip = (rr * wx, rr * wy);
        let aw = look.stroke(2.5);
        o.polyline([chart.backend_coord(&(0.0, 0.0)), chart.backend_coord(&tip)]);
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(0.0, 0.0), tip],
            ARROW.stroke_width(aw),
        )))?;
        let len = (wx * wx + wy * wy).sqrt();
        if len > 1e-12 {
            let (ux, uy) = (wx / len, wy / len);
            let hl = 0.05 * (b - a).min(d - c);
            let left = (tip.0 - hl * (ux * 0.87 - uy * 0.5), tip.1 - hl * (uy * 0.87 + ux * 0.5));
            let right = (tip.0 - hl * (ux * 0.87 + uy * 0.5), tip.1 - hl * (uy * 0.87 - ux * 0.5));
            o.polyline([left, tip, right].iter().map(|p| chart.backend_coord(p)));
            chart.draw_series(std::iter::once(Polygon::new(
                vec![tip, left, right],
                ARROW.filled(),
            )))?;
        }
        labels.push((format!("‖p‖_G = {len:.3}"), ARROW));
    }
    // The labels where they cover the fewest points and curves: the corners of the plot, then
    // the middles of its edges, shrunk (to 3/5 at most) to fit its width.
    let area = plot_rect(&chart);
    let (bx, by) = root.get_base_pixel();
    let g = look.px(4.0);
    for (text, color) in labels {
        let full = 12.0 * s;
        let fit = (area[2] - area[0] - 2 * g) as f64;
        let w0 = rich_size(&text, full).0 as f64;
        let size = if w0 > fit { (full * fit / w0).max(0.6 * full) } else { full };
        let (tw, th) = rich_size(&text, size);
        let (l, t, r, bt) = (area[0] + g, area[1] + g, area[2] - g - tw, area[3] - g - th);
        let (cx, cy) = ((area[0] + area[2] - tw) / 2, (area[1] + area[3] - th) / 2);
        let mut corners =
            vec![(l, t), (r, t), (l, bt), (r, bt), (cx, t), (cx, bt), (l, cy), (r, cy)];
        // Then a row under (or over) each corner, for a second label in the same corner, then
        // anywhere on a grid of half-line steps.
        for k in 1..4 {
            corners.extend([(l, t + k * th), (r, t + k * th), (l, bt - k * th), (r, bt - k * th)]);
        }
        let mut y = t;
        while y <= bt {
            corners.extend([(l, y), (cx, y), (r, y), ((l + cx) / 2, y), ((cx + r) / 2, y)]);
            y += (th / 2).max(1);
        }
        let bx0 = place_label(&mut o, (tw, th), &corners);
        draw_rich_text(
            root,
            &text,
            (bx0[0] - bx, bx0[1] - by),
            Pos::new(HPos::Left, VPos::Top),
            size,
            &color,
        )?;
    }
    let px = chart.plotting_area().get_pixel_range();
    root.present()?;
    Ok([px.0.start, px.1.start, px.0.end, px.1.end])
}

fn pow10_label(v: &f64) -> String {
    let e = v.round();
    if (v - e).abs() < 1e-9 {
        if (0.0..=4.0).contains(&e) {
            num(10f64.powi(e as i32))
        } else {
            crate::plots::style::pow10_label(v)
        }
    } else {
        String::new()
    }
}

/// One iterate of the trace: `(k, min_i (Gα_k)_i, ‖p_k‖_G)`.
pub type TracePoint = (usize, f64, Option<f64>);

/// The trace's points `(iteration, min_i (Gα)_i, ‖p‖_G)` from the executor's records.
pub fn trace_points(trace: &[crate::exec::Record]) -> Vec<TracePoint> {
    trace.iter().map(|r| (r.iter, r.min_g_alpha.unwrap_or(f64::NAN), r.norm_p_g)).collect()
}

/// `|min_i (Gα_k)_i|` (solid once positive, light while ≤ 0) and `‖p_k‖_G` against the
/// iteration, both axes log₁₀, with the paper's iteration bounds as vertical lines
/// (`(label, iterations, applies to the current algorithm)`).
pub fn draw_trace<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    trace: &[TracePoint],
    bounds: &[(String, f64, bool)],
    scale: f64,
) -> PResult<DB, ()> {
    root.fill(&WHITE)?;
    let look = Look::new(scale);
    let s = look.s;
    let last = trace.last().map(|t| t.0).unwrap_or(1).max(1) as f64;
    let bmax = bounds.iter().map(|b| b.1).filter(|v| v.is_finite()).fold(0.0f64, f64::max);
    let xmax = (last.max(bmax.min(1e7)).max(10.0) * 1.5).log10();
    // Thin out long traces to ≤ ~2000 points.
    let stride = (trace.len() / 2000).max(1);
    let pts: Vec<&TracePoint> = trace
        .iter()
        .filter(|t| t.0 >= 1)
        .enumerate()
        .filter(|(i, _)| i % stride == 0)
        .map(|(_, t)| t)
        .chain(trace.last())
        .collect();
    let mg_pos: Vec<(f64, f64)> = pts
        .iter()
        .filter(|t| t.1 > 0.0)
        .filter_map(|t| lg(t.1).map(|v| ((t.0.max(1) as f64).log10(), v)))
        .collect();
    let mg_neg: Vec<(f64, f64)> = pts
        .iter()
        .filter(|t| t.1 <= 0.0)
        .filter_map(|t| lg(-t.1).map(|v| ((t.0.max(1) as f64).log10(), v)))
        .collect();
    let pn: Vec<(f64, f64)> = pts
        .iter()
        .filter_map(|t| t.2.and_then(lg).map(|v| ((t.0.max(1) as f64).log10(), v)))
        .collect();
    let all = mg_pos.iter().chain(&mg_neg).chain(&pn).map(|p| p.1);
    let (mut lo, mut hi) =
        all.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    if !lo.is_finite() {
        lo = -3.0;
        hi = 0.0;
    }
    lo = lo.floor().max(-16.0);
    hi = hi.ceil().max(lo + 1.0);
    let w = look.stroke(2.0);
    let r = (1.6 * s).round().max(1.0) as i32;
    let mut rows = vec![
        ("|min (Gα)ᵢ| while ≤ 0".to_string(), Swatch::Dot(RGBColor(192, 221, 192))),
        ("min (Gα)ᵢ > 0".to_string(), Swatch::Line(MIN_G, 2.0)),
    ];
    if !pn.is_empty() {
        rows.push(("‖p_k‖_G".to_string(), Swatch::Line(P_COL, 2.0)));
    }
    let series = rows.len();
    let mut current_rows = vec![];
    let small = 11.0 * s;
    // The bounds inside the x range: (x, tag at the line, current). The legend names them, the
    // tag at each line is its value: names beside lines a few pixels apart would overprint.
    let bound_color =
        |current: bool| if current { RGBColor(0, 0, 0) } else { RGBColor(150, 150, 150) };
    let mut lines: Vec<(f64, String, bool)> = vec![];
    for (label, it, current) in bounds {
        let Some(x) = lg(*it).filter(|x| *x <= xmax) else { continue };
        let value = num(it.round());
        let w = if *current { 2.0 } else { 1.0 };
        if *current {
            current_rows.push(rows.len());
        }
        rows.push((format!("{label} = {value}"), Swatch::Dashed(bound_color(*current), w)));
        lines.push((x, value, *current));
    }
    // Where the whole legend fits nowhere (a classroom plot 230 px high): first the other
    // algorithms' bounds (grey, their values tagged at their lines), then the series rows (the
    // caption names the colours); the selected algorithm's bound last (the lessons name it; its
    // line is the black one, its value tagged at it).
    let mut drop: Vec<usize> =
        (series..rows.len()).filter(|&k| !current_rows.contains(&k)).collect();
    drop.extend((0..series).rev());
    let n_current = current_rows.len();
    drop.extend(current_rows);
    let n_drop = drop.len();
    let legend = Legend::new(&look, rows).droppable(drop);
    let (mut chart, spot, placed) = fit_legend(
        root.dim_in_pixel().0,
        &legend,
        |room| look.chart_in(root, 36.0, room, 0f64..xmax, lo..hi),
        |c| {
            let mut o = Obstacles::default();
            mg_neg.iter().for_each(|p| o.disc(c.backend_coord(p), r));
            o.polyline(mg_pos.iter().map(|p| c.backend_coord(p)));
            o.polyline(pn.iter().map(|p| c.backend_coord(p)));
            if mg_pos.len() < 60 {
                mg_pos.iter().for_each(|p| o.disc(c.backend_coord(p), r + 1));
            }
            if pn.len() < 60 {
                pn.iter().for_each(|p| o.disc(c.backend_coord(p), r + 1));
            }
            for (x, _, _) in &lines {
                o.polyline([c.backend_coord(&(*x, lo)), c.backend_coord(&(*x, hi))]);
            }
            let area = plot_rect(c);
            let g = look.px(4.0);
            let placed: Vec<[i32; 4]> = lines
                .iter()
                .map(|(x, text, _)| {
                    let (tw, th) = rich_size(text, small);
                    let lx = c.backend_coord(&(*x, lo)).0;
                    let mut corners = vec![];
                    let mut y = area[1] + g;
                    while y + th <= area[3] - g {
                        corners.push((lx + g, y));
                        corners.push((lx - g - tw, y));
                        y += th + g / 2;
                    }
                    // Then a little farther from the line, where lines a few pixels apart
                    // leave no room beside it.
                    let mut y = area[1] + g;
                    while y + th <= area[3] - g {
                        for k in 1..4 {
                            corners.push((lx + g + k * tw / 2, y));
                            corners.push((lx - g - tw - k * tw / 2, y));
                        }
                        y += th / 2 + 1;
                    }
                    // Inside the plotting area, or running into the right margin (empty at
                    // the top: the last x tick label is at the bottom), never off the canvas.
                    let right = root.get_base_pixel().0 + root.dim_in_pixel().0 as i32 - g;
                    let fits = |&(x, _): &(i32, i32)| x >= area[0] && x + tw <= right;
                    let inside: Vec<(i32, i32)> = corners.iter().copied().filter(fits).collect();
                    place_label(
                        &mut o,
                        (tw, th),
                        if inside.is_empty() { &corners } else { &inside },
                    )
                })
                .collect();
            (area, o, placed)
        },
    )?;
    let pr = plot_rect(&chart);
    let ph = (pr[3] - pr[1] + look.px(36.0)).max(0) as u32;
    // Plain tick labels (1, 10, …, 10 000) where they fit side by side, else 10ᵏ (narrower).
    let widest = pow10_label(&xmax.floor().clamp(0.0, 4.0));
    let slot = (pr[2] - pr[0]).max(1) as f64 / xmax.ceil().max(1.0);
    let plain = text_width(&widest, 12.0 * s) + 12.0 * s <= slot;
    let x_label =
        |v: &f64| if plain { pow10_label(v) } else { crate::plots::style::pow10_label(v) };
    look.mesh(&mut chart)
        .x_desc("iteration k (log scale)")
        .x_label_formatter(&x_label)
        .y_label_formatter(&pow10_label)
        .x_labels((xmax.ceil() as usize + 1).clamp(2, 12))
        .y_labels(look.labels_down(ph, ((hi - lo) as usize + 1).min(12)))
        .draw()?;
    chart.draw_series(mg_neg.iter().map(|&p| Circle::new(p, r, MIN_G.mix(0.3).filled())))?;
    chart.draw_series(LineSeries::new(mg_pos.iter().copied(), MIN_G.stroke_width(w)))?;
    if !pn.is_empty() {
        chart.draw_series(LineSeries::new(pn.iter().copied(), P_COL.stroke_width(w)))?;
    }
    // Markers too, so a run of a few iterations is visible.
    if mg_pos.len() < 60 {
        chart.draw_series(mg_pos.iter().map(|&p| Circle::new(p, r + 1, MIN_G.filled())))?;
    }
    if pn.len() < 60 {
        chart.draw_series(pn.iter().map(|&p| Circle::new(p, r + 1, P_COL.filled())))?;
    }
    let (bx, by) = root.get_base_pixel();
    // The selected algorithm's line is the one black line: while its legend row (with its value)
    // is shown, a tag at the line says nothing more, and where lines crowd it has no room.
    let current_named = n_current > 0 && spot.dropped + n_current <= n_drop;
    for ((x, text, current), b) in lines.iter().zip(&placed) {
        let col = bound_color(*current);
        let dash: Vec<(f64, f64)> =
            (0..24).map(|i| (*x, lo + (hi - lo) * i as f64 / 23.0)).collect();
        chart.draw_series(dash.chunks(2).map(|seg| {
            PathElement::new(seg.to_vec(), col.stroke_width(if *current { w } else { 1 }))
        }))?;
        if *current && current_named {
            continue;
        }
        draw_rich_text(
            root,
            text,
            (b[0] - bx, b[1] - by),
            Pos::new(HPos::Left, VPos::Top),
            small,
            &col,
        )?;
    }
    legend.draw(root, spot)?;
    root.present()
}

/// The race: one horizontal bar per algorithm, its iterations to the outcome on a log axis,
/// coloured by the outcome (separator / certificate / cap / running), with the algorithm's
/// bound (if any) as a black tick.
pub fn draw_race<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    entries: &[RaceEntry],
    scale: f64,
) -> PResult<DB, ()> {
    root.fill(&WHITE)?;
    let look = Look::new(scale);
    let s = look.s;
    if entries.is_empty() {
        let (w, h) = root.dim_in_pixel();
        let style = look
            .font_of(14.0)
            .color(&RGBColor(120, 120, 120))
            .pos(Pos::new(HPos::Center, VPos::Center));
        root.draw(&Text::new(
            "Press Race to run the six algorithms on this data.",
            (w as i32 / 2, h as i32 / 2),
            style,
        ))?;
        return root.present();
    }
    let m = entries.len().max(1);
    let top = entries
        .iter()
        .flat_map(|e| [e.iterations as f64, e.bound.unwrap_or(0.0).min(1e8)])
        .fold(10.0f64, f64::max);
    let xmax = (top * 2.0).log10();
    let mut chart = ChartBuilder::on(root)
        .margin((8.0 * s) as i32)
        .x_label_area_size((36.0 * s) as i32)
        .y_label_area_size((80.0 * s) as i32)
        .build_cartesian_2d(0f64..xmax, 0f64..m as f64)?;
    let font = look.font();
    let names: Vec<String> = entries.iter().map(|e| e.name.clone()).collect();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc("iterations, log scale (tick: the paper's bound)")
        .x_label_formatter(&pow10_label)
        .x_labels((xmax.ceil() as usize + 1).clamp(2, 12))
        .y_labels(m * 2 + 1)
        .y_label_formatter(&|v: &f64| {
            let k = (v - 0.5).round();
            if (v - 0.5 - k).abs() < 1e-6 && k >= 0.0 {
                names.get(m - 1 - k as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .label_style(font.clone())
        .axis_desc_style(font.clone())
        .light_line_style(crate::plots::style::GRID_COLOR)
        .bold_line_style(crate::plots::style::GRID_BOLD)
        .draw()?;
    for (k, e) in entries.iter().enumerate() {
        let row = (m - 1 - k) as f64;
        let col = match e.outcome.as_str() {
            "separator" => RGBColor(44, 160, 44),
            "certificate" => P_COL,
            "running" => RGBColor(180, 180, 180),
            _ => RGBColor(120, 120, 120),
        };
        let x = (e.iterations.max(1) as f64).log10();
        chart.draw_series(std::iter::once(Rectangle::new(
            [(0.0, row + 0.2), (x.max(0.02), row + 0.8)],
            col.filled(),
        )))?;
        if let Some(b) = e.bound.and_then(lg) {
            if b <= xmax {
                let bw = look.stroke(2.0);
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(b, row + 0.1), (b, row + 0.9)],
                    BLACK.stroke_width(bw),
                )))?;
            }
        }
        let tag = match e.outcome.as_str() {
            "separator" | "certificate" => format!(
                "{} {} {}",
                e.iterations,
                e.outcome,
                if e.verified { "✓" } else { "(unverified)" }
            ),
            o => format!("{} {o}", e.iterations),
        };
        let (bx, by) = root.get_base_pixel();
        let (px, py) = chart.backend_coord(&(x.max(0.02), row + 0.5));
        let g = look.px(4.0);
        let size = 11.0 * s;
        if x > 0.6 * xmax {
            let pos = Pos::new(HPos::Right, VPos::Center);
            draw_rich_text(root, &tag, (px - g - bx, py - by), pos, size, &WHITE)?;
        } else {
            // Right of the bar, and right of the bound's tick if the text would cross it.
            let tw = rich_size(&tag, size).0;
            let tick = e.bound.and_then(lg).filter(|b| *b <= xmax);
            let mut left = px + g;
            if let Some(t) = tick.map(|b| chart.backend_coord(&(b, row)).0) {
                if t >= left - g && t <= left + tw + g {
                    left = t + g;
                }
            }
            let pos = Pos::new(HPos::Left, VPos::Center);
            draw_rich_text(root, &tag, (left - bx, py - by), pos, size, &BLACK)?;
        }
    }
    root.present()
}

/// Render the boundary plot (with the heatmap as cells) to SVG text, for native use and tests.
pub fn boundary_svg(
    view: [f64; 4],
    scene: &BoundaryScene,
    w: u32,
    h: u32,
) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (w, h)).into_drawing_area();
        let rect = boundary_rect(w, h, 1.0);
        draw_boundary(&root, equal_aspect(view, rect), scene, 1.0, true)
            .map_err(|e| e.to_string())?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heatmap_colours_follow_the_sign_and_the_zero_level_is_dark() {
        // f(x, y) = x on a 3 × 2 grid over [−1, 1]: left half red, right half blue, dark middle.
        let f = [-1.0, 0.0001, 1.0, -1.0, 0.0001, 1.0];
        let w = 41;
        let img = heatmap_rgba(&f, 3, 2, w, 5, 1);
        let px = |x: usize| &img[(2 * w + x) * 4..(2 * w + x) * 4 + 3];
        assert!(px(0)[0] > px(0)[2], "left is red");
        assert!(px(40)[2] > px(40)[0], "right is blue");
        // The sign changes between pixel 19 and 20 (f crosses 0 at x ≈ −0.0001): dark there.
        assert!((15..25).any(|x| px(x) == [25, 25, 25]));
        assert!(px(0) != [25, 25, 25] && px(40) != [25, 25, 25]);
    }

    #[test]
    fn equal_aspect_keeps_the_centre_and_equalizes_units() {
        let v = equal_aspect([-1.0, 1.0, -1.0, 1.0], [0, 0, 200, 100]);
        assert!(((v[1] - v[0]) / 200.0 - (v[3] - v[2]) / 100.0).abs() < 1e-12);
        assert!((v[0] + v[1]).abs() < 1e-12 && (v[2] + v[3]).abs() < 1e-12);
        assert!(v[1] - v[0] >= 2.0 && v[3] - v[2] >= 2.0 - 1e-12);
    }

    #[test]
    fn plots_render_to_svg() {
        let x = [(0.5, 0.5), (-0.5, -0.4)];
        let y = [1.0, -1.0];
        let f = [1.0, -1.0, 0.5, -0.5];
        let scene = BoundaryScene {
            x: &x,
            y: &y,
            p: Some(&[0.5, 0.5]),
            arrow: Some([0.1, 0.2]),
            hull: Some((&[(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)], -0.7)),
            heat: Some((&f, 2, 2)),
        };
        let svg = boundary_svg([-1.0, 1.0, -1.0, 1.0], &scene, 300, 200).unwrap();
        assert!(svg.contains("<svg") && svg.contains("circle"));
        // "|ρ_K|" is drawn as "|ρ", a lowered "K" and "| = 0.700".
        assert!(svg.contains("hull") && svg.contains("|ρ") && svg.contains("| = 0.700"));
        let mut t = String::new();
        {
            let root = SVGBackend::with_string(&mut t, (300, 200)).into_drawing_area();
            draw_trace(
                &root,
                &[(0, -1.0, Some(1.0)), (1, -0.5, Some(0.5)), (5, 0.1, Some(0.2))],
                &[("1/ρ²".into(), 100.0, true)],
                1.0,
            )
            .unwrap();
        }
        assert!(t.contains("polyline") || t.contains("path"));
    }
}
