//! Paper B (Audiffren, Kadri) in the engine: the M-RLSR experiment ([`crate::experiment::mrlsr`])
//! solved through Theorem 1: one symmetric eigendecomposition of K, then the safeguarded Newton
//! solve for the root C₀ of F (eq. 6), whose steps are the run's records (the root residual
//! `F(C)` at each).

use serde_json::json;

use super::{Paper, Record, Report, Stop};
use crate::error::Result;
use crate::experiment::mrlsr::{build_data, MrlsrSpec};
use crate::solvers::mrlsr::{MrlsrModel, MrlsrOutcome, RootStep};

/// A root-solve step in the engine's shape: the residual is `F(C)` (eq. 6), `step` is C.
pub fn record_of(r: &RootStep, elapsed_ms: f64) -> Record {
    Record {
        iter: r.iter,
        residual: Some(r.f_value),
        step: Some(r.c),
        elapsed_ms,
        ..Record::default()
    }
}

/// Fit M-RLSR at (m, λ): the trace is the root solve for C₀ stepped one Newton / bisection
/// step at a time (m > 1, m ≠ 2; KRR's m = 2 and m ≤ 1 have no steps here), and the fit is
/// [`MrlsrModel::fit`]. Reports `alpha`, `C0`, `lambda2` (Proposition 5.1), `norm_h`,
/// `objective` and, for m ≤ 1, the stationary points.
pub fn run(spec: &MrlsrSpec) -> Result<Report> {
    let t0 = web_time::Instant::now();
    let data = build_data(&spec.data, crate::solvers::mrlsr::MAX_EIGEN_N)?;
    let model = MrlsrModel::from_dataset(&data, &spec.kernel)?;
    let setup_ms = t0.elapsed().as_secs_f64() * 1e3;
    let t1 = web_time::Instant::now();
    let outcome = model.fit(spec.m, spec.lambda)?;
    let mut trace = Vec::new();
    if spec.m > 1.0 && spec.m != 2.0 {
        let mut solve = model.root_solve(spec.m, spec.lambda);
        trace.push(record_of(&solve.current(), 0.0));
        while let Some(r) = solve.step() {
            trace.push(record_of(&r, t1.elapsed().as_secs_f64() * 1e3));
        }
    }
    let best = outcome.best_fit();
    let elapsed_ms = t1.elapsed().as_secs_f64() * 1e3;
    let last = Record {
        iter: best.map(|f| f.iterations).unwrap_or(0),
        primal: Some(
            best.map(|f| f.objective).unwrap_or(model.y().norm_squared() / model.n() as f64),
        ),
        residual: best.map(|f| f.f_residual),
        step: best.map(|f| f.c0),
        elapsed_ms,
        ..Record::default()
    };
    let stationary = match &outcome {
        MrlsrOutcome::OutsideTheorem(o) => Some(
            json!({ "message": o.message, "minimizer": o.minimizer, "zero_objective": o.zero_objective,
            "points": o.stationary.iter().map(|s| json!({"C": s.fit.c0, "kind": s.kind, "objective": s.fit.objective})).collect::<Vec<_>>() }),
        ),
        MrlsrOutcome::Theorem1(_) => None,
    };
    let solution = json!({
        "alpha": outcome.best_alpha(model.n()).as_slice(),
        "C0": best.map(|f| f.c0),
        "lambda2": best.map(|f| f.lambda2),
        "norm_h": best.map(|f| f.norm_h).unwrap_or(0.0),
        "theorem1": matches!(outcome, MrlsrOutcome::Theorem1(_)),
        "stationary": stationary,
        // What the page reads out beside the fit, so a shell can check it.
        "kernel": model.kernel(),
        "root_iterations": trace.len().saturating_sub(1),
        "zero_eigenvalues": model.singularity().map_or(0, |s| s.zero_eigenvalues),
        "singularity": model.singularity().map(|s| s.message.clone()),
    });
    Ok(Report {
        paper: Paper::Mrlsr,
        status: Stop::Converged,
        iterations: last.iter,
        last,
        data_digest: data.digest(),
        setup_ms,
        solution,
        trace,
    })
}
