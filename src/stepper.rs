//! The one solver protocol of the four papers (argmin's `Executor` and `TerminationReason`,
//! linfa's fit-as-state): every iterative algorithm is a [`Stepper`] that reports one
//! [`Record`] per iteration and a [`Stop`] reason, and one driver, [`Run`], owns the loop, the
//! bounded [`Trace`] and the time limit. It sits below the solvers, so each algorithm
//! implements it in its own module; [`crate::engine`] runs any paper's spec through it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Why a run ended, or that it has not: one type for every paper (argmin's
/// `TerminationReason` as data), with each paper's own outcomes as variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// Still iterating.
    Running,
    /// The paper's stopping test held (A: relative duality gap ≤ tol; B: the root of F is
    /// found to rounding; C: `max|h| < δ`).
    Converged,
    /// The iteration (sweep) cap came first.
    MaxIterations,
    /// A: the linesearch found no decrease above rounding, or the gap made no progress for
    /// [`crate::solvers::STALL_WINDOW`] iterations; C: `max|h|` made none for as many sweeps —
    /// the iterate is as accurate as floating point allows (ours, not the papers').
    Stalled,
    /// A value overflowed.
    NonFinite,
    /// C: the fixed-point iteration diverges (α above 2/‖K‖₂, where Theorem 2's sufficient
    /// condition (11) fails).
    Diverged,
    /// D: `Gα > 0`, a verified separator.
    Separator,
    /// D: `‖p‖_G` under the tolerance, a certificate of (ε-)inseparability.
    Certificate,
    /// D: the algorithm failed (a non-finite value).
    Failed,
    /// The CLI's `--time-limit` came first ([`crate::clock::set_deadline`]): the result is the
    /// iterate reached by then.
    TimeLimit,
}

impl Stop {
    /// The status word the pages and `kplay` print.
    pub fn word(self) -> &'static str {
        match self {
            Stop::Running => "running",
            Stop::Converged => "converged",
            Stop::MaxIterations => "max_iterations",
            Stop::Stalled => "stalled",
            Stop::NonFinite => "non_finite",
            Stop::Diverged => "diverged",
            Stop::Separator => "separator",
            Stop::Certificate => "certificate",
            Stop::Failed => "failed",
            Stop::TimeLimit => "time_limit",
        }
    }
}

/// What one iteration did, in one shape for every paper: the fields a paper does not have are
/// `None` (left out of `kplay`'s JSON), so a trace plot, the race and `kplay` read any paper alike.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct Record {
    /// Iteration (sweep) index; 0 is the starting point.
    pub iter: usize,
    /// Primal objective (A: `F(w(α))`; C: `F(c)`; B: the M-RLSR objective of eq. 4 at the end).
    pub primal: Option<f64>,
    /// Dual objective, a lower bound on the optimum (A: `−Λ(α)`; C: `D(c)`).
    pub dual: Option<f64>,
    /// Duality gap `primal − dual ≥ 0`: the certificate of accuracy.
    pub gap: Option<f64>,
    /// Relative gap `gap / max(|primal|, 1e-300)`.
    pub rel_gap: Option<f64>,
    /// A residual: C's natural residual (Theorem 1 at α = 1); B's root residual `F(C)` (eq. 6).
    pub residual: Option<f64>,
    /// C: `max_i |h_i|`, the paper's stopping test (Algorithm 1).
    pub max_h: Option<f64>,
    /// D: `min_i (Gα)_i` (> 0 means α separates).
    pub min_g_alpha: Option<f64>,
    /// D: `‖p‖_G` of the dual iterate (a certificate when small).
    pub norm_p_g: Option<f64>,
    /// A: the step the linesearch accepted (B: C of the current iterate).
    pub step: Option<f64>,
    /// A: the step reductions of the linesearch.
    pub backtracks: Option<usize>,
    /// Wall-clock time of this iteration, milliseconds.
    pub time_ms: f64,
    /// Cumulative solver time, milliseconds.
    pub elapsed_ms: f64,
}

/// An iterative algorithm of any paper as an explicit steppable state.
pub trait Stepper {
    /// The record of the current iterate (iteration 0 before any step).
    fn record(&self) -> Record;
    /// Advance one iteration; `None` once the run has ended (nothing changes then).
    fn step(&mut self) -> Option<Record>;
    /// Why the run ended, or [`Stop::Running`].
    fn stop(&self) -> Stop;
    /// The paper's solution vectors as JSON (A: `w`, `alpha`; B: `alpha`, `C0`, `lambda2`;
    /// C: `c`; D: `alpha`, `p`).
    fn solution(&self) -> Value;
}

/// A bounded trace ([`crate::budget::push_bounded`]): at most the active budget's `trace`
/// records (10 000 in the page and the CLI); past that the older history is thinned, the first
/// record and the newest always kept, so any number of iterations runs in flat memory.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    kept: Vec<Record>,
    cap: usize,
}

impl Trace {
    /// A trace starting at `first`, bounded by the active budget.
    pub fn new(first: Record) -> Self {
        Self { kept: vec![first], cap: crate::budget::active().trace }
    }

    /// Add a record.
    pub fn push(&mut self, r: Record) {
        crate::budget::push_bounded(&mut self.kept, r, self.cap);
    }

    /// The kept records in order, the latest included.
    pub fn records(&self) -> Vec<Record> {
        self.kept.clone()
    }

    /// The latest record.
    pub fn latest(&self) -> Record {
        self.kept.last().copied().unwrap_or_default()
    }
}

/// The one driver: steps any [`Stepper`], keeps its bounded [`Trace`], and runs within a
/// time budget (the page's frame) or to the end (the CLI and the tests).
pub struct Run {
    stepper: Box<dyn Stepper>,
    trace: Trace,
    /// Set when the driver, not the algorithm, ended the run (the time limit).
    ended: Option<Stop>,
}

impl Run {
    /// Wrap a stepper at its starting point.
    pub fn new(stepper: Box<dyn Stepper>) -> Self {
        let first = stepper.record();
        Self { stepper, trace: Trace::new(first), ended: None }
    }

    /// One iteration unless the run has ended.
    pub fn step(&mut self) -> Option<Record> {
        if self.ended.is_some() {
            return None;
        }
        let r = self.stepper.step()?;
        self.trace.push(r);
        Some(r)
    }

    /// Step while running and `budget_ms` has not elapsed (at least one step if running);
    /// returns the number of steps.
    pub fn run_for(&mut self, budget_ms: f64) -> usize {
        crate::clock::within(budget_ms, || self.step().is_some())
    }

    /// Step to the end, or until the process-wide deadline (`kplay --time-limit`) has passed:
    /// then the run ends with [`Stop::TimeLimit`] and keeps its partial trace and iterate.
    pub fn run(&mut self) -> Stop {
        while self.step().is_some() {
            if crate::clock::deadline_passed() {
                self.ended = Some(Stop::TimeLimit);
            }
        }
        self.stop()
    }

    /// Why it ended, or running.
    pub fn stop(&self) -> Stop {
        self.ended.unwrap_or_else(|| self.stepper.stop())
    }

    /// The latest record.
    pub fn last(&self) -> Record {
        self.trace.latest()
    }

    /// The current solution vectors (see [`Stepper::solution`]).
    pub fn solution(&self) -> Value {
        self.stepper.solution()
    }

    /// The trace (bounded).
    pub fn trace(&self) -> Vec<Record> {
        self.trace.records()
    }
}
