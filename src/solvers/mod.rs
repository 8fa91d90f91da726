//! Steppable solvers. A solver is an explicit state; [`Solver::step`] advances it by one
//! iteration and returns a [`StepRecord`] of what happened. Running to a tolerance is the loop
//! in [`Driver`], shared by the CLI, the tests and the page (argmin-style, with the reason for
//! stopping as an enum, and scikit-learn-style duality-gap stopping).

pub mod coordinate;
pub mod dual_lp;
pub mod dual_newton;
pub mod fixed_point;
pub mod mrlsr;
pub mod perceptron;
pub mod primal;
pub mod prox_dual;
pub mod row_cache;

use crate::stepper::{Record, Stop};
use serde::{Deserialize, Serialize};

/// What one iteration did (paper A, Algorithm 2.1: one accepted step after its linesearch).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// Iteration index; 0 is the starting point.
    pub iter: usize,
    /// Primal objective `F(w(α))`.
    pub primal: f64,
    /// Dual objective `−Λ(α)`, a lower bound on `min F`.
    pub dual: f64,
    /// Duality gap `F(w(α)) + Λ(α) ≥ 0`.
    pub gap: f64,
    /// Relative gap `gap / max(|F(w(α))|, 1e-300)`: the stopping measure.
    pub rel_gap: f64,
    /// Step size accepted by the linesearch (0 at iteration 0).
    pub step: f64,
    /// Number of step reductions the linesearch made.
    pub backtracks: usize,
    /// Wall-clock time spent in this iteration, milliseconds.
    pub time_ms: f64,
    /// Cumulative solver time since the start, milliseconds.
    pub elapsed_ms: f64,
}

/// The stopping measure of every paper-A solver: `gap / max(|F|, 1e-300)` (docs/spec.md).
pub fn relative_gap(gap: f64, primal: f64) -> f64 {
    gap / primal.abs().max(1e-300)
}

/// The iteration bookkeeping shared by the paper-A solvers: how many steps were accepted, the
/// last accepted step size and its linesearch reductions, and the cumulative solver time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Progress {
    /// Accepted iterations so far (0 at the starting point).
    pub iter: usize,
    /// Step size of the last accepted iteration (0 before the first).
    pub step: f64,
    /// Step reductions the last linesearch made.
    pub backtracks: usize,
    /// Cumulative solver time, milliseconds.
    pub elapsed_ms: f64,
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

    /// The record of the current iterate, given its objectives (`dual` = `−Λ(α)`), its
    /// duality gap, its relative gap, and the duration of the iteration that produced it.
    pub fn record(
        &self,
        primal: f64,
        dual: f64,
        gap: f64,
        rel_gap: f64,
        time_ms: f64,
    ) -> StepRecord {
        StepRecord {
            iter: self.iter,
            primal,
            dual,
            gap,
            rel_gap,
            step: self.step,
            backtracks: self.backtracks,
            time_ms,
            elapsed_ms: self.elapsed_ms,
        }
    }
}

/// A paper-A iteration in the one record shape of [`crate::stepper`]: primal F(w(α)), dual
/// −Λ(α), the gap and relative gap (the certificate), the accepted step and its backtracks.
impl From<&StepRecord> for Record {
    fn from(r: &StepRecord) -> Record {
        Record {
            iter: r.iter,
            primal: Some(r.primal),
            dual: Some(r.dual),
            gap: Some(r.gap),
            rel_gap: Some(r.rel_gap),
            step: Some(r.step),
            backtracks: Some(r.backtracks),
            time_ms: r.time_ms,
            elapsed_ms: r.elapsed_ms,
            ..Record::default()
        }
    }
}

/// A solver as an explicit, steppable state.
pub trait Solver {
    /// The record of the current iterate without advancing (iteration 0 at the start).
    fn current(&self) -> StepRecord;
    /// Advance one iteration. `Err(status)` when the solver cannot advance
    /// ([`Stop::Stalled`] or [`Stop::NonFinite`]).
    fn step(&mut self) -> Result<StepRecord, Stop>;
}

/// Runs a solver against a tolerance and an iteration cap, keeping the trace. Stalls are the
/// executor's to decide ([`crate::stepper::Watch`]), which ends a driver by [`Driver::halt`].
pub struct Driver<S: Solver> {
    pub solver: S,
    pub tol: f64,
    pub max_iter: usize,
    /// The records so far: the first, the latest and a thinned history, at most `trace_cap`
    /// of them ([`crate::budget::push_bounded`]); each record carries its own `iter`.
    pub trace: Vec<StepRecord>,
    pub status: Stop,
    /// Most records the trace keeps (the budget's `trace` when the driver was made).
    pub trace_cap: usize,
}

impl<S: Solver> Driver<S> {
    /// Wrap a solver; the trace starts with the initial point.
    pub fn new(solver: S, tol: f64, max_iter: usize) -> Self {
        let first = solver.current();
        let status = if first.rel_gap <= tol { Stop::Converged } else { Stop::Running };
        Self {
            solver,
            tol,
            max_iter,
            trace: vec![first],
            status,
            trace_cap: crate::budget::active().trace,
        }
    }

    /// Advance one iteration unless the run has ended; returns the new record.
    pub fn step(&mut self) -> Option<StepRecord> {
        if self.status != Stop::Running {
            return None;
        }
        match self.solver.step() {
            Ok(rec) => {
                crate::budget::push_bounded(&mut self.trace, rec, self.trace_cap);
                if !(rec.gap.is_finite() && rec.primal.is_finite()) {
                    self.status = Stop::NonFinite;
                } else if rec.rel_gap <= self.tol {
                    self.status = Stop::Converged;
                } else if rec.iter >= self.max_iter {
                    self.status = Stop::MaxIterations;
                }
                Some(rec)
            }
            Err(st) => {
                self.status = st;
                None
            }
        }
    }

    /// The executor ended the run (its stall rule or the deadline).
    pub fn halt(&mut self, stop: Stop) {
        if self.status == Stop::Running {
            self.status = stop;
        }
    }

    /// Advance one iteration even after the run ended by convergence or the cap
    /// (the page's Step button); never past a stall or a non-finite value.
    pub fn force_step(&mut self) -> Option<StepRecord> {
        if matches!(self.status, Stop::Converged | Stop::MaxIterations) {
            self.status = Stop::Running;
            let cap = self.max_iter;
            self.max_iter = usize::MAX;
            let r = self.step();
            self.max_iter = cap;
            if self.status == Stop::Running {
                self.status = Stop::MaxIterations;
            }
            return r;
        }
        self.step()
    }

    /// Step until the run ends, under the executor's stall rule ([`crate::stepper::Stall`]) and
    /// deadline; the driver itself stops only at the tolerance, the cap and the solver's own
    /// reasons.
    pub fn run(&mut self) -> Stop {
        let mut stall = crate::stepper::Stall::default();
        while let Some(r) = self.step() {
            if self.status == Stop::Running {
                if stall.observe(&Record::from(&r)) {
                    self.status = Stop::Stalled;
                } else if crate::clock::deadline_passed() {
                    self.status = Stop::TimeLimit;
                }
            }
        }
        self.status
    }

    /// The latest record.
    pub fn last(&self) -> StepRecord {
        // `new` pushes the starting record and nothing ever pops, so the trace is never empty.
        *self.trace.last().expect("trace starts non-empty")
    }
}

/// A boxed solver is a solver, so a race can hold different algorithms in one list.
impl<S: Solver + ?Sized> Solver for Box<S> {
    fn current(&self) -> StepRecord {
        (**self).current()
    }
    fn step(&mut self) -> Result<StepRecord, Stop> {
        (**self).step()
    }
}
