//! Paper C's plot for `kplay plot`: the convergence of the spec's method (gap, residual, max|h|,
//! objective), or the five gaps of its race, drawn by [`crate::plots::dinuzzo`].

use super::run as dinuzzo;
use crate::error::{KpError, Result};
use crate::papers::dinuzzo::DinuzzoSpec;
use crate::plots::svg::svg;

/// `convergence`, as SVG text.
pub fn svg_plots(s: &DinuzzoSpec) -> Result<Vec<(&'static str, String)>> {
    let s = &s.check()?;
    let built = crate::papers::dinuzzo::build(s)?.ok_or_else(|| KpError::Parameter {
        name: "points",
        reason: "no points: add at least one".into(),
    })?;
    let mut race = dinuzzo::start(&built, s)?;
    race.run();
    let lanes: Vec<&dinuzzo::Lane> = race.lanes().iter().collect();
    let series = dinuzzo::convergence_series(&lanes, s.race);
    let tol = dinuzzo::tolerance(&s.method);
    let conv = svg(|root| {
        crate::plots::dinuzzo::draw_log_series(root, &series, "sweep", Some((tol, "δ")), 1.0)
            .map_err(|e| e.to_string())
    })?;
    Ok(vec![("convergence", conv)])
}
