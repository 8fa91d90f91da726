//! Paper B's plots for `kplay plot`: F(C) of eq. 6 with its root C₀, and where the spec allows
//! them §4's n-scans, drawn by [`crate::plots::mrlsr`] and [`crate::plots::nscan`].

use crate::error::Result;
use crate::papers::mrlsr::{self, MrlsrChecked, MrlsrSession, MrlsrSpec};
use crate::plots::svg::svg;

/// `F`, then `nscan-stability` and `nscan-lambda2` where the spec allows them, as SVG text.
pub fn svg_plots(s: &MrlsrSpec) -> Result<Vec<(&'static str, String)>> {
    // The page's session on the spec checked within the core's budget: F(C) as the page draws it.
    let checked = MrlsrChecked::check(s, crate::solvers::mrlsr::MAX_EIGEN_N)?;
    let (samples, minimizer) = MrlsrSession::new(checked.clone())?.f_samples(400)?;
    let f = svg(|root| {
        crate::plots::mrlsr::draw_f(root, &samples, minimizer, 1.0)
            .map(|_| ())
            .map_err(|e| e.to_string())
    })?;
    let mut out = vec![("F", f)];
    // §4's stability scans against n (lesson B10, B11), where the spec allows them (generated
    // data, a fixed kernel, 24 ≤ n ≤ 200; λ₂'s move at m > 1): the same core computation the
    // page draws in those steps.
    for (kind, name) in [
        (mrlsr::ScanKind::Stability, "nscan-stability"),
        (mrlsr::ScanKind::Lambda2Move, "nscan-lambda2"),
    ] {
        let Ok(run) = mrlsr::NScanRun::new(&checked, kind) else { continue };
        let scan = run.run_to_end()?;
        out.push((
            name,
            svg(|root| {
                crate::plots::nscan::draw_nscan(root, &scan, 1.0).map_err(|e| e.to_string())
            })?,
        ));
    }
    Ok(out)
}
