//! The algorithms of the four papers, each an explicit state that implements the one executor's
//! [`crate::exec::Stepper`] directly: one step → one [`Record`], and only the algorithm's own
//! stop reasons. The cap, the tolerance, the stall rule, the deadline and the trace are the
//! executor's ([`crate::exec::Run`], [`crate::exec::Watch`]).

pub mod coordinate;
pub mod dual_lp;
pub mod dual_newton;
pub mod fixed_point;
pub mod mrlsr;
pub mod perceptron;
pub mod primal;
pub mod prox_dual;
pub mod row_cache;

use crate::exec::{Record, Stop};

/// The stopping measure of every paper-A solver: `gap / max(|F|, 1e-300)` (docs/spec.md).
pub fn relative_gap(gap: f64, primal: f64) -> f64 {
    gap / primal.abs().max(1e-300)
}

/// The iteration bookkeeping shared by the paper-A algorithms: how many steps were accepted, the
/// last accepted step size and its linesearch reductions, the cumulative solver time, the latest
/// record and the algorithm's own stop (a linesearch that cannot move, a non-finite value).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Accepted iterations so far (0 at the starting point).
    pub iter: usize,
    /// Step size of the last accepted iteration (0 before the first).
    pub step: f64,
    /// Step reductions the last linesearch made.
    pub backtracks: usize,
    /// Cumulative solver time, milliseconds.
    pub elapsed_ms: f64,
    /// The latest accepted iteration's record (None at the starting point).
    last: Option<Record>,
    /// The algorithm's own stop, or [`Stop::Running`].
    status: Stop,
}

impl Default for Progress {
    fn default() -> Self {
        Self {
            iter: 0,
            step: 0.0,
            backtracks: 0,
            elapsed_ms: 0.0,
            last: None,
            status: Stop::Running,
        }
    }
}

impl Progress {
    /// Count one accepted iteration begun at `t0`; returns its duration in milliseconds.
    pub fn accept(&mut self, t0: web_time::Instant, step: f64, backtracks: usize) -> f64 {
        let dt = t0.elapsed().as_secs_f64() * 1e3;
        self.iter += 1;
        self.step = step;
        self.backtracks = backtracks;
        self.elapsed_ms += dt;
        dt
    }

    /// The record of the current iterate in the executor's shape, given its objectives
    /// (`dual` = `−Λ(α)`), its duality gap, its relative gap, and the duration of the iteration
    /// that produced it: primal F(w(α)), dual −Λ(α), the gap and relative gap (the
    /// certificate), the accepted step and its backtracks.
    pub fn record(&self, primal: f64, dual: f64, gap: f64, rel_gap: f64, time_ms: f64) -> Record {
        Record {
            iter: self.iter,
            primal: Some(primal),
            dual: Some(dual),
            gap: Some(gap),
            rel_gap: Some(rel_gap),
            step: Some(self.step),
            backtracks: Some(self.backtracks),
            time_ms,
            elapsed_ms: self.elapsed_ms,
            ..Record::default()
        }
    }

    /// Whether the algorithm may still step (none of its own stops has happened).
    pub fn running(&self) -> bool {
        self.status == Stop::Running
    }

    /// The algorithm cannot advance: it ends with `stop` (the step returns nothing).
    pub fn end(&mut self, stop: Stop) -> Option<Record> {
        self.status = stop;
        None
    }

    /// Keep an accepted iteration's record; a non-finite primal value or gap ends the run
    /// ([`Stop::NonFinite`]) after this record.
    pub fn keep(&mut self, rec: Record) -> Option<Record> {
        self.last = Some(rec);
        let finite = |m: Option<f64>| m.is_some_and(f64::is_finite);
        if !(finite(rec.gap) && finite(rec.primal)) {
            self.status = Stop::NonFinite;
        }
        Some(rec)
    }

    /// The latest accepted iteration's record, or `start` (the starting point's) before any.
    pub fn last_or(&self, start: impl FnOnce() -> Record) -> Record {
        self.last.unwrap_or_else(start)
    }

    /// The algorithm's own stop, or [`Stop::Running`].
    pub fn status(&self) -> Stop {
        self.status
    }
}

/// Paper A's solution as JSON: the primal weights `w` (null where not available) and the dual
/// iterate `α` (null for the primal methods).
pub(crate) fn solution_json(
    w: Option<&nalgebra::DVector<f64>>,
    alpha: Option<&nalgebra::DVector<f64>>,
) -> serde_json::Value {
    serde_json::json!({
        "w": w.map(|v| v.as_slice().to_vec()),
        "alpha": alpha.map(|v| v.as_slice().to_vec()),
    })
}
