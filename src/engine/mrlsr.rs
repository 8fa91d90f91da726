//! Paper B (Audiffren, Kadri) in the engine: the M-RLSR experiment ([`crate::experiment::mrlsr`])
//! solved through Theorem 1: one symmetric eigendecomposition of K, then the safeguarded Newton
//! solve for the root C₀ of F (eq. 6), whose steps are the run's records (the root residual
//! `F(C)` at each).

use super::report::{run_started_capped, Report};
use crate::error::Result;
use crate::experiment::mrlsr::{build_data, MrlsrSpec};
use crate::solvers::mrlsr::{MrlsrModel, MrlsrSolve};
use crate::spec_json::Paper;

/// Fit M-RLSR at (m, λ) as one [`crate::solvers::mrlsr::MrlsrSolve`] stepped by the engine's
/// [`super::Run`]: the trace is the root solve for C₀, one Newton / bisection step per record
/// (m > 1, m ≠ 2; KRR's m = 2 and m ≤ 1 have no steps), the last record the fit's objective.
/// The solution holds `alpha`, `C0`, `lambda2` (Proposition 5.1), `norm_h`, the stationary
/// points for m ≤ 1, the resolved kernel, the root iterations and K's numerically zero
/// eigenvalues.
/// The root solve's cap ([`crate::solvers::mrlsr::ROOT_MAX_ITER`]) is the executor's.
pub fn run(spec: &MrlsrSpec) -> Result<Report> {
    run_started_capped(Paper::Mrlsr, Some(crate::solvers::mrlsr::ROOT_MAX_ITER), || {
        let data = build_data(&spec.data, crate::solvers::mrlsr::MAX_EIGEN_N)?;
        let model = MrlsrModel::from_dataset(&data, &spec.kernel)?;
        let solve = MrlsrSolve::new(model, spec.m, spec.lambda)?;
        Ok((Box::new(solve) as Box<dyn crate::stepper::Stepper>, data.digest()))
    })
}
