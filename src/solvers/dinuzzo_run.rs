//! Paper C's solvers in the one solver protocol ([`crate::stepper`]): a sweep of the fixed point
//! (eq. 10) or of coordinate descent (Algorithms 1–2) is one [`Record`], its stop reason the one
//! [`Stop`], and [`DinuzzoSolver`] — either method — a [`Stepper`] that the engine's `Run`, the
//! race and the page step alike.

use super::coordinate::DinuzzoSolver;
use super::fixed_point::{StopReason, SweepRecord};
use super::relative_gap;
use crate::stepper::{Record, Stepper, Stop};

/// A sweep in the one record shape: F(c), the dual D(c), the gap (the certificate) and
/// relative gap, the natural residual (Theorem 1 at α = 1) and `max|h|` (Algorithm 1's test).
impl From<&SweepRecord> for Record {
    fn from(r: &SweepRecord) -> Record {
        Record {
            iter: r.sweep,
            primal: Some(r.objective),
            dual: Some(r.dual),
            gap: Some(r.gap),
            rel_gap: Some(relative_gap(r.gap, r.objective)),
            residual: Some(r.residual),
            max_h: Some(r.max_h),
            elapsed_ms: r.elapsed_ms,
            ..Record::default()
        }
    }
}

/// Paper C's stop reasons as the one [`Stop`] (the sweep cap is `max_iterations`).
impl From<StopReason> for Stop {
    fn from(s: StopReason) -> Stop {
        match s {
            StopReason::Running => Stop::Running,
            StopReason::Converged => Stop::Converged,
            StopReason::MaxSweeps => Stop::MaxIterations,
            StopReason::Diverged => Stop::Diverged,
            StopReason::NonFinite => Stop::NonFinite,
            StopReason::Stalled => Stop::Stalled,
        }
    }
}

impl Stepper for DinuzzoSolver {
    fn record(&self) -> Record {
        let current = match self {
            DinuzzoSolver::FixedPoint(s) => s.current(),
            DinuzzoSolver::Coordinate(s) => s.current(),
        };
        Record::from(&current)
    }
    fn step(&mut self) -> Option<Record> {
        DinuzzoSolver::step(self).map(|r| Record::from(&r))
    }
    fn stop(&self) -> Stop {
        Stop::from(self.status())
    }
    fn halt(&mut self, stop: Stop) {
        // Paper C's own stop vocabulary has no time limit: the executor keeps that reason.
        if stop == Stop::Stalled {
            self.halt_stalled();
        }
    }
    fn solution(&self) -> serde_json::Value {
        let support = self.support();
        // The page's readouts too: support size, step α and ‖K‖₂ of the fixed point, the
        // solver's message (why it stopped, if not converged) and its warnings.
        let (alpha, norm_k) = match self {
            DinuzzoSolver::FixedPoint(s) => (Some(s.alpha()), Some(s.norm_k())),
            DinuzzoSolver::Coordinate(_) => (None, None),
        };
        serde_json::json!({
            "c": self.c().as_slice(),
            "support_size": support.len(),
            "support": support,
            "alpha": alpha,
            "norm_k": norm_k,
            "message": self.message(),
            "warnings": self.warnings(),
        })
    }
}
