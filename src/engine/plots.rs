//! The pages' plots as SVG for `kplay plot`: the same drawing functions (written against
//! plotters' `DrawingBackend`) that draw into the pages' canvases, here on plotters' SVG backend.

use plotters::prelude::*;

use super::dinuzzo;
use super::spec::Spec;
use crate::error::{KpError, Result};
use crate::experiment::dinuzzo::DinuzzoSpec;
use crate::experiment::lp::Experiment;
use crate::experiment::lp::LpRun;
use crate::experiment::mrlsr::{self, MrlsrChecked, MrlsrSession, MrlsrSpec};
use crate::experiment::perceptron::{PerceptronChecked, PerceptronSpec, Session};

/// Size of each SVG, pixels.
const SIZE: (u32, u32) = (720, 360);

fn svg(
    draw: impl FnOnce(
        &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    ) -> std::result::Result<(), String>,
) -> Result<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        draw(&root).map_err(|e| KpError::Parameter { name: "plot", reason: e })?;
    }
    Ok(out)
}

/// Solve the spec and draw its plots: `(name, SVG text)` pairs. A: `convergence` (gap and
/// objectives) and `spikes` (w against w*); B: `F` (F(C) of eq. 6 with its root C₀), and where
/// the spec allows them the n-scans `nscan-stability` and `nscan-lambda2` (§4, Assumption 1);
/// C: `convergence` (gap, residual, max|h|, objective; the five gaps for a race);
/// D: `trace` (min(Gα) and ‖p‖_G with the paper's iteration bounds).
pub fn svg_plots(spec: &Spec) -> Result<Vec<(&'static str, String)>> {
    match spec {
        Spec::Lp(e) => lp(e),
        Spec::Mrlsr(s) => mrlsr_plots(s),
        Spec::Dinuzzo(s) => dinuzzo_plots(s),
        Spec::Perceptron(s) => perceptron_plots(s),
    }
}

fn lp(e: &Experiment) -> Result<Vec<(&'static str, String)>> {
    let mut lp = LpRun::start(e)?;
    lp.run.run();
    let w_true = lp.valid.data.w_true.as_ref().map(|v| v.as_slice());
    let w = lp.valid.weights(&lp.run).map(|w| w.as_slice().to_vec()).unwrap_or_default();
    let (conv, spikes) = crate::plots::lp::svg_pair(lp.run.kept(), &w, w_true)
        .map_err(|e| KpError::Parameter { name: "plot", reason: e })?;
    Ok(vec![("convergence", conv), ("spikes", spikes)])
}

fn mrlsr_plots(s: &MrlsrSpec) -> Result<Vec<(&'static str, String)>> {
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

fn dinuzzo_plots(s: &DinuzzoSpec) -> Result<Vec<(&'static str, String)>> {
    let s = &s.check()?;
    let built = crate::experiment::dinuzzo::build(s)?.ok_or_else(|| KpError::Parameter {
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

fn perceptron_plots(s: &PerceptronSpec) -> Result<Vec<(&'static str, String)>> {
    let mut session = Session::new(PerceptronChecked::check(s.clone())?)?;
    session.run_to_end();
    let trace = crate::plots::perceptron::trace_points(&session.trace());
    let bounds: Vec<(String, f64, bool)> =
        session.bounds().into_iter().map(|b| (b.label, b.iterations, b.current)).collect();
    let t = svg(|root| {
        crate::plots::perceptron::draw_trace(root, &trace, &bounds, 1.0).map_err(|e| e.to_string())
    })?;
    Ok(vec![("trace", t)])
}
