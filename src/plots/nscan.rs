//! Paper B's n-scans (§4's Example and the λ₂ move against n, lesson B steps 10–11) on
//! log–log axes, written against plotters' `DrawingBackend` like [`crate::plots::mrlsr`].
//!
//! `scale` is the device-pixel ratio (fonts and strokes are multiplied by it).

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::plots::mrlsr::{log_log_chart, range_of};
use crate::plots::style::{lg, num, plot_rect, Legend, Look, Swatch};

type PResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

const SCAN_COLORS: [RGBColor; 2] = [RGBColor(31, 119, 180), RGBColor(214, 39, 40)];

/// A number of a log axis's tick `10^v` to two significant digits, plainly written.
fn log_tick(v: &f64) -> String {
    let x = 10f64.powf(*v);
    let digits = 1 - x.abs().log10().floor() as i32;
    let p = 10f64.powi(digits);
    num((x * p).round() / p)
}

/// An n-scan ([`crate::papers::mrlsr::NScan`]) on log–log axes: each series' value at each
/// n as dots, its least-squares power law `e^b·n^slope` as a dashed line over the scanned n, the
/// slope written in its legend row.
pub fn draw_nscan<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    scan: &crate::papers::mrlsr::NScan,
    scale: f64,
) -> PResult<DB> {
    root.fill(&WHITE)?;
    let look = Look::new(scale);
    let s = look.s;
    let xs: Vec<f64> = scan.ns.iter().map(|&n| (n as f64).log10()).collect();
    let dots: Vec<Vec<(f64, f64)>> = scan
        .series
        .iter()
        .map(|se| xs.iter().zip(&se.values).filter_map(|(&x, &v)| lg(v).map(|l| (x, l))).collect())
        .collect();
    // The fitted power law, in log10: lg v = slope·lg n + b/ln 10.
    let fits: Vec<Vec<(f64, f64)>> = scan
        .series
        .iter()
        .map(|se| {
            let (a, b) = (xs.first().copied().unwrap_or(0.0), xs.last().copied().unwrap_or(1.0));
            (0..=16)
                .map(|k| {
                    let x = a + (b - a) * k as f64 / 16.0;
                    (x, se.slope * x + se.intercept / std::f64::consts::LN_10)
                })
                .filter(|p| p.1.is_finite())
                .collect()
        })
        .collect();
    let (x0, x1) = range_of(xs.iter());
    let (y0, y1) = range_of(dots.iter().chain(&fits).flatten().map(|p| &p.1));
    let r = (4.5 * s) as i32;
    let rows: Vec<(String, Swatch)> = scan
        .series
        .iter()
        .enumerate()
        .map(|(k, se)| {
            let slope = format!("{:.2}", se.slope).replace('-', "−");
            (format!("{} (slope {slope})", se.label), Swatch::Dashed(SCAN_COLORS[k % 2], 2.0))
        })
        .collect();
    let legend = Legend::new(&look, rows);
    let points: Vec<(f64, f64)> = dots.iter().flatten().copied().collect();
    let (mut chart, spot) =
        log_log_chart(root, &look, &legend, 84.0, (x0..x1, y0..y1), &fits, &points, r)?;
    let what = match scan.kind {
        crate::papers::mrlsr::ScanKind::Stability => "largest change (log)",
        crate::papers::mrlsr::ScanKind::Lambda2Move => "largest λ₂ move (log)",
    };
    // As many y labels as the plotting area holds (a legend outside it leaves it lower).
    let area = plot_rect(&chart);
    let y_labels = ((f64::from(area[3] - area[1]) / (26.0 * s)) as usize).clamp(2, 5);
    look.mesh(&mut chart)
        .x_desc("n (log scale)")
        .y_desc(what)
        .x_label_formatter(&log_tick)
        .y_label_formatter(&log_tick)
        .x_labels(look.labels_along(root.dim_in_pixel().0, 5))
        .y_labels(y_labels)
        .draw()?;
    let w = look.stroke(2.0);
    for (k, (d, f)) in dots.iter().zip(&fits).enumerate() {
        let color = SCAN_COLORS[k % 2];
        let style = color.stroke_width(w);
        chart.draw_series(
            f.chunks(2).filter(|p| p.len() == 2).map(move |p| PathElement::new(p.to_vec(), style)),
        )?;
        chart.draw_series(d.iter().map(|&p| Circle::new(p, r, color.filled())))?;
    }
    legend.draw(root, spot)?;
    root.present()
}
