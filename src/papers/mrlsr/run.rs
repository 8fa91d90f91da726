//! Paper B (Audiffren, Kadri), `kplay run`: the M-RLSR experiment ([`crate::papers::mrlsr`])
//! solved through Theorem 1: one symmetric eigendecomposition of K, then the safeguarded Newton
//! solve for the root C₀ of F (eq. 6), whose steps are the run's records (the root residual
//! `F(C)` at each); then the spec's optional sections, the Table-1 model selection and Fig. 1's
//! equivalence experiment, each a task the executor steps ([`crate::exec::run_task_for`]).

use serde_json::{json, Value};

use crate::error::Result;
use crate::exec::{run_task_for, Task};
use crate::papers::mrlsr::{MrlsrChecked, MrlsrSpec};
use crate::papers::report::{run_started_capped, Report};
use crate::solvers::mrlsr::{MrlsrModel, MrlsrSolve, MAX_EIGEN_N};
use crate::spec_json::Paper;

/// Fit M-RLSR at (m, λ) as one [`crate::solvers::mrlsr::MrlsrSolve`] stepped by the executor's
/// [`crate::exec::Run`]: the trace is the root solve for C₀, one Newton / bisection step per record
/// (m > 1, m ≠ 2; KRR's m = 2 and m ≤ 1 have no steps), the last record the fit's objective.
/// The solution holds `alpha`, `C0`, `lambda2` (Proposition 5.1), `norm_h`, the stationary
/// points for m ≤ 1, the resolved kernel, the root iterations and K's numerically zero
/// eigenvalues.
/// The root solve's cap ([`crate::solvers::mrlsr::ROOT_MAX_ITER`]) is the executor's.
/// The whole spec is checked first ([`MrlsrChecked`], data within
/// [`crate::solvers::mrlsr::MAX_EIGEN_N`]); the `selection` and `equivalence` sections run after
/// the fit, and the report gains a `selection` and an `equivalence` object.
pub fn run(spec: &MrlsrSpec) -> Result<Report> {
    let checked = MrlsrChecked::check(spec, MAX_EIGEN_N)?;
    let mut report =
        run_started_capped(Paper::Mrlsr, Some(crate::solvers::mrlsr::ROOT_MAX_ITER), || {
            let (spec, data) = (checked.spec(), checked.data());
            let model = MrlsrModel::from_dataset(data, &spec.kernel)?;
            let solve = MrlsrSolve::new(model, spec.m, spec.lambda)?;
            Ok((Box::new(solve) as Box<dyn crate::exec::Stepper>, data.digest()))
        })?;
    if let Some(s) = checked.selection() {
        let mut run = s.start()?;
        let value = match to_end(&mut run)? {
            true => serde_json::to_value(run.finish()?).unwrap_or(Value::Null),
            false => cut(run.progress().done, run.progress().total),
        };
        report.extra.insert("selection".into(), value);
    }
    if let Some(e) = checked.equivalence() {
        let mut run = e.start()?;
        let value = match to_end(&mut run)? {
            true => serde_json::to_value(run.finish()?).unwrap_or(Value::Null),
            false => cut(run.progress().0, run.progress().1),
        };
        report.extra.insert("equivalence".into(), value);
    }
    Ok(report)
}

/// Step `task` to its end through the executor, unit by unit; false when the process-wide
/// deadline (`kplay --time-limit`) came first.
fn to_end<T: Task<Error = crate::error::KpError>>(task: &mut T) -> Result<bool> {
    loop {
        if crate::clock::deadline_passed() {
            return Ok(false);
        }
        // One unit per call; 0 units left more to do: the task said it is done.
        if run_task_for(task, 0.0)? == 0 {
            return Ok(true);
        }
    }
}

/// What a section reports when the deadline cut it: the units done of all.
fn cut(done: usize, total: usize) -> Value {
    json!({ "status": "time_limit", "done": done, "total": total })
}
