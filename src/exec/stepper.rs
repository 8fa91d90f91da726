//! The one solver protocol of the four papers (argmin's `Executor` and `TerminationReason`,
//! linfa's fit-as-state): every iterative algorithm is a [`Stepper`] that reports one
//! [`Record`] per iteration and a [`Stop`] reason, and one driver, [`Run`], owns the loop, the
//! bounded [`Trace`] and the time limit. It sits below the solvers, so each algorithm
//! implements it in its own module; [`crate::papers`] runs any paper's spec through it.

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
    /// The algorithm's own step cannot move (A: the linesearch found no decrease above
    /// rounding), or the executor's rule ([`Stall`]) found that no certificate measure has
    /// improved beyond rounding for as long as the run had improved before — the iterate is as
    /// accurate as floating point allows (ours, not the papers').
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
    /// The executor has ended the run with `stop` (its stall rule or the deadline): an
    /// algorithm that reports its status elsewhere (a page's readout) records it; by default
    /// nothing (the executor keeps the reason itself).
    fn halt(&mut self, _stop: Stop) {}
}

/// Iterations a run may go without progress before [`Stall`] may end it, at least (ours).
pub const STALL_MIN_WINDOW: usize = 200;

/// A measure improves only by more than this many ulps of its scale (ours).
pub const STALL_ULPS: f64 = 16.0;

/// The executor's stall rule, one for every algorithm of every paper and every command (`kplay
/// run`, `kplay race`, the pages, the lessons): a run has stalled when none of its certificate
/// measures has improved beyond rounding level for [`STALL_MIN_WINDOW`] iterations **and** for
/// at least as many iterations as it took to reach its best (iteration `i`, last progress at
/// `b`: stalled once `i − b ≥ max(STALL_MIN_WINDOW, i/2)`, i.e. at `max(b + 200, 2b)`).
///
/// The measures are those the record carries: the primal objective (falling), the dual (rising)
/// and the duality gap (falling) — or, for a method without a gap (B's root), its residual
/// `|F(C)|` — and C's `max|h|` (falling) while the gap is above its rounding level (once the gap
/// certifies the objective to rounding, a smaller step is noise). Progress is a new best by more
/// than [`STALL_ULPS`] ulps of the measure's scale: `|primal|`, `|dual|`, `max(|primal|,
/// |dual|)` for the gap (a difference of the two, whose rounding is theirs), the value itself
/// otherwise. The
/// best-so-far, not the latest value, is compared, so a method that is not monotone (FISTA,
/// C's primal under coordinate ascent) is judged by what it has reached, and the window grows
/// with the run, so a method whose oscillation period grows (FISTA's momentum) is never cut
/// while its best still improves now and then; a run at rounding level ends in at most twice
/// the iterations it needed to get there. A record with none of these measures (D's
/// perceptrons, which end at their own certificates or cap) never stalls.
#[derive(Debug, Clone, Copy)]
pub struct Stall {
    best: [f64; 5],
    last_progress: usize,
    iter: usize,
}

impl Default for Stall {
    fn default() -> Self {
        Self { best: [f64::NAN; 5], last_progress: 0, iter: 0 }
    }
}

impl Stall {
    /// Observe one step's record (not the starting point's); true once the run has stalled.
    pub fn observe(&mut self, r: &Record) -> bool {
        self.iter += 1;
        let p = r.primal.filter(|v| v.is_finite());
        let d = r.dual.filter(|v| v.is_finite());
        let ulp = STALL_ULPS * f64::EPSILON;
        let gap_scale = match (p, d) {
            (Some(p), Some(d)) => Some(p.abs().max(d.abs())),
            _ => None,
        };
        // Every measure as (value to minimize, its rounding scale).
        let residual = if r.gap.is_none() { r.residual.map(f64::abs) } else { None };
        let gap = r.gap.filter(|g| g.is_finite()).map(|g| (g, gap_scale.unwrap_or(g.abs())));
        // Once the gap certifies the objective to rounding, a smaller step is noise.
        let gap_at_rounding = gap.is_some_and(|(g, scale)| g.abs() <= ulp * scale);
        let max_h = r.max_h.filter(|_| !gap_at_rounding);
        let measures = [
            p.map(|v| (v, v.abs())),
            d.map(|v| (-v, v.abs())),
            gap,
            max_h.map(|h| (h, h.abs())),
            residual.map(|v| (v, v)),
        ];
        let mut watched = false;
        let mut progress = false;
        for (best, m) in self.best.iter_mut().zip(measures) {
            let Some((v, scale)) = m else { continue };
            if !v.is_finite() {
                continue;
            }
            watched = true;
            if best.is_nan() || v < *best - ulp * scale {
                *best = v;
                progress = true;
            }
        }
        if progress || !watched {
            self.last_progress = self.iter;
            return false;
        }
        let since = self.iter - self.last_progress;
        since >= STALL_MIN_WINDOW && 2 * since >= self.iter
    }
}

/// The executor's stop rules for one run of any [`Stepper`]: its [`Stall`] rule and the
/// process-wide deadline (`kplay --time-limit`, [`crate::clock::set_deadline`]). [`Run`], each
/// lane of a race and the pages step through it, so every command ends alike.
#[derive(Debug, Clone, Default)]
pub struct Watch {
    stall: Stall,
    ended: Option<Stop>,
    /// The iteration cap, if the executor owns it ([`Watch::with_cap`]).
    cap: Option<usize>,
    /// The tolerance on a named measure, if the executor owns it ([`Watch::with_tol`]).
    tol: Option<Tol>,
}

/// A measure of a [`Record`] the executor can stop on (the papers' stopping tests: A's relative
/// duality gap, C's `max|h| < δ`, B's residual `|F(C)|`, D's `‖p‖_G`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// [`Record::rel_gap`].
    RelGap,
    /// [`Record::gap`].
    Gap,
    /// [`Record::max_h`].
    MaxH,
    /// [`Record::residual`].
    Residual,
    /// [`Record::norm_p_g`].
    NormPG,
}

impl Measure {
    /// The measure's value in `r`, if the record carries it.
    pub fn of(self, r: &Record) -> Option<f64> {
        match self {
            Measure::RelGap => r.rel_gap,
            Measure::Gap => r.gap,
            Measure::MaxH => r.max_h,
            Measure::Residual => r.residual,
            Measure::NormPG => r.norm_p_g,
        }
    }
}

/// The executor's convergence test: the run has converged once `measure ≤ tol` (strict `<`
/// when `strict`, as C's `max|h| < δ`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tol {
    /// The measure tested.
    pub measure: Measure,
    /// Its tolerance.
    pub tol: f64,
    /// Whether the test is strict (`<`).
    pub strict: bool,
}

impl Tol {
    /// Whether `r` meets the test.
    pub fn met(&self, r: &Record) -> bool {
        self.measure.of(r).is_some_and(|v| if self.strict { v < self.tol } else { v <= self.tol })
    }
}

impl Watch {
    /// The executor's rules with an iteration cap ([`Self::with_cap`] on the default rules).
    pub fn capped(cap: usize) -> Self {
        Self::default().with_cap(cap)
    }

    /// The executor also owns the iteration cap: the run ends [`Stop::MaxIterations`] once its
    /// record's `iter` reaches `cap` (unless the algorithm or the tolerance ended it first).
    pub fn with_cap(mut self, cap: usize) -> Self {
        self.cap = Some(cap);
        self
    }

    /// The executor also owns the convergence test on a named measure: the run ends
    /// [`Stop::Converged`] at the first record that meets `tol` (checked before the cap).
    pub fn with_tol(mut self, tol: Tol) -> Self {
        self.tol = Some(tol);
        self
    }

    /// Whether the starting record already ends the run (converged at iteration 0, or a cap of
    /// 0): for [`Run::new`] and the lanes, so a run that needs no step takes none.
    pub fn start<S: Stepper + ?Sized>(&mut self, s: &mut S) {
        if self.ended.is_some() || s.stop() != Stop::Running {
            return;
        }
        let r = s.record();
        if self.tol.is_some_and(|t| t.met(&r)) {
            self.end(s, Stop::Converged);
        } else if self.cap.is_some_and(|c| r.iter >= c) {
            self.end(s, Stop::MaxIterations);
        }
    }

    /// One step of `s` unless the run has ended; after it, the stall rule and the deadline may
    /// end the run ([`Stepper::halt`] tells the algorithm).
    pub fn step<S: Stepper + ?Sized>(&mut self, s: &mut S) -> Option<Record> {
        if self.ended.is_some() {
            return None;
        }
        let r = s.step()?;
        if s.stop() == Stop::Running {
            if self.tol.is_some_and(|t| t.met(&r)) {
                self.end(s, Stop::Converged);
            } else if self.cap.is_some_and(|c| r.iter >= c) {
                self.end(s, Stop::MaxIterations);
            } else if self.stall.observe(&r) {
                self.end(s, Stop::Stalled);
            } else if crate::clock::deadline_passed() {
                self.end(s, Stop::TimeLimit);
            }
        }
        Some(r)
    }

    /// End the run with `stop` (the executor's reason) and tell the algorithm.
    pub fn end<S: Stepper + ?Sized>(&mut self, s: &mut S, stop: Stop) {
        self.ended = Some(stop);
        s.halt(stop);
    }

    /// The executor's reason, if it ended the run.
    pub fn ended(&self) -> Option<Stop> {
        self.ended
    }

    /// Why the run of `s` ended, or running.
    pub fn stop<S: Stepper + ?Sized>(&self, s: &S) -> Stop {
        self.ended.unwrap_or_else(|| s.stop())
    }
}

/// Step `s` to its end under the executor's rules ([`Watch`]); returns why it ended.
pub fn run_to_end<S: Stepper + ?Sized>(s: &mut S) -> Stop {
    let mut w = Watch::default();
    while w.step(s).is_some() {}
    w.stop(s)
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

    /// The kept records in order, borrowed.
    pub fn kept(&self) -> &[Record] {
        &self.kept
    }

    /// The latest record.
    pub fn latest(&self) -> Record {
        self.kept.last().copied().unwrap_or_default()
    }
}

/// The one driver: steps any [`Stepper`] under the executor's stop rules ([`Watch`]: the cap,
/// the tolerance, stall, deadline), keeps its bounded [`Trace`], and runs within a time budget
/// (the page's frame, [`Run::run_for`]) or to the end (the CLI and the tests). `S` is the
/// algorithm: any boxed [`Stepper`] by default, or a paper's own algorithm type when its caller
/// reads more than the record (paper A's weights and dual iterate, [`Run::stepper`]).
pub struct Run<S: Stepper = Box<dyn Stepper>> {
    stepper: S,
    trace: Trace,
    /// The executor's stop rules (cap, tolerance, stall, deadline).
    watch: Watch,
}

impl<S: Stepper> Run<S> {
    /// Wrap a stepper at its starting point.
    pub fn new(stepper: S) -> Self {
        Self::with_watch(stepper, Watch::default())
    }

    /// Wrap a stepper under stop rules that also hold the cap and/or the tolerance
    /// ([`Watch::with_cap`], [`Watch::with_tol`]).
    pub fn with_watch(mut stepper: S, mut watch: Watch) -> Self {
        watch.start(&mut stepper);
        let first = stepper.record();
        Self { stepper, trace: Trace::new(first), watch }
    }

    /// One iteration unless the run has ended (the executor's rules apply).
    pub fn step(&mut self) -> Option<Record> {
        let r = self.watch.step(&mut self.stepper)?;
        self.trace.push(r);
        Some(r)
    }

    /// Step while running and `budget_ms` has not elapsed (at least one step if running);
    /// returns the number of steps. The executor owns the slicing: a page advances a run by one
    /// call per animation frame.
    pub fn run_for(&mut self, budget_ms: f64) -> usize {
        match run_task_for(self, budget_ms) {
            Ok(steps) => steps,
            Err(never) => match never {},
        }
    }

    /// Step to the end, or until the process-wide deadline (`kplay --time-limit`) has passed:
    /// then the run ends with [`Stop::TimeLimit`] and keeps its partial trace and iterate.
    pub fn run(&mut self) -> Stop {
        self.end_at_deadline();
        while self.step().is_some() {}
        self.stop()
    }

    /// End the run at once with [`Stop::TimeLimit`] if it is running and the process-wide
    /// deadline has passed (before a slice that would otherwise take one step past it).
    pub fn end_at_deadline(&mut self) {
        if self.stop() == Stop::Running && crate::clock::deadline_passed() {
            self.watch.end(&mut self.stepper, Stop::TimeLimit);
        }
    }

    /// Why it ended, or running.
    pub fn stop(&self) -> Stop {
        self.watch.stop(&self.stepper)
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

    /// The trace (bounded), borrowed.
    pub fn kept(&self) -> &[Record] {
        self.trace.kept()
    }

    /// The algorithm itself (its own state: a paper's iterate beyond the record).
    pub fn stepper(&self) -> &S {
        &self.stepper
    }

    /// The algorithm, the run ended (to continue it under other rules, or read it whole).
    pub fn into_stepper(self) -> S {
        self.stepper
    }

    /// The run keeping at most `records` records (instead of the active budget's `trace`; at
    /// least 4), thinned as [`Trace`] does.
    pub fn with_trace_bound(mut self, records: usize) -> Self {
        self.trace.cap = records;
        self
    }

    /// The run with an iteration cap (see [`Watch::with_cap`]); a run already at the cap ends.
    pub fn capped(mut self, cap: usize) -> Self {
        self.watch = std::mem::take(&mut self.watch).with_cap(cap);
        self.watch.check_cap(&mut self.stepper);
        self
    }
}

impl Watch {
    /// End `s` at once if it is running and already at the cap (a cap of 0, or a lane capped
    /// after it started); returns whether it has ended.
    pub fn check_cap<S: Stepper + ?Sized>(&mut self, s: &mut S) -> bool {
        if self.ended.is_none()
            && s.stop() == Stop::Running
            && self.cap.is_some_and(|c| s.record().iter >= c)
        {
            self.end(s, Stop::MaxIterations);
        }
        self.stop(s) != Stop::Running
    }
}

/// A boxed algorithm steps as the algorithm itself (a race's lanes of different algorithms).
impl<T: Stepper + ?Sized> Stepper for Box<T> {
    fn record(&self) -> Record {
        (**self).record()
    }
    fn step(&mut self) -> Option<Record> {
        (**self).step()
    }
    fn stop(&self) -> Stop {
        (**self).stop()
    }
    fn solution(&self) -> Value {
        (**self).solution()
    }
    fn halt(&mut self, stop: Stop) {
        (**self).halt(stop)
    }
}

/// Add a record's measures the paper has (`primal`, `dual`, `gap`, `rel_gap`, `residual`,
/// `max_h`, `min_g_alpha`, `norm_p_g`) to a JSON object.
pub(crate) fn insert_measures(out: &mut serde_json::Map<String, Value>, r: &Record) {
    if let Value::Object(m) = without_nulls(serde_json::to_value(r).unwrap_or(Value::Null)) {
        for (k, v) in m {
            if !matches!(k.as_str(), "iter" | "time_ms" | "elapsed_ms" | "step" | "backtracks") {
                out.insert(k, v);
            }
        }
    }
}

/// An object without its `null` fields (a record's measures the paper does not have).
pub(crate) fn without_nulls(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.into_iter().filter(|(_, x)| !x.is_null()).collect()),
        other => other,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn rec(iter: usize) -> Record {
        Record { iter, ..Record::default() }
    }

    #[test]
    fn trace_is_bounded_and_keeps_first_and_latest() {
        let mut t = Trace::new(rec(0));
        for i in 1..=100_000 {
            t.push(rec(i));
        }
        let r = t.records();
        assert!(r.len() <= crate::budget::active().trace, "{}", r.len());
        assert_eq!(r[0].iter, 0);
        assert_eq!(r.last().map(|x| x.iter), Some(100_000));
        assert!(r.windows(2).all(|w| w[0].iter < w[1].iter));
        // Short runs keep every record.
        let mut s = Trace::new(rec(0));
        for i in 1..=100 {
            s.push(rec(i));
        }
        assert_eq!(s.records().len(), 101);
    }

    /// A test-only algorithm: `primal(k)` after k steps, ending only at `cap` (also the race's
    /// tests' lanes).
    pub(crate) struct Seq {
        pub(crate) k: usize,
        pub(crate) cap: usize,
        pub(crate) f: fn(usize) -> f64,
    }

    impl Stepper for Seq {
        fn record(&self) -> Record {
            Record { iter: self.k, primal: Some((self.f)(self.k)), ..Record::default() }
        }
        fn step(&mut self) -> Option<Record> {
            (self.k < self.cap).then(|| {
                self.k += 1;
                self.record()
            })
        }
        fn stop(&self) -> Stop {
            if self.k < self.cap {
                Stop::Running
            } else {
                Stop::MaxIterations
            }
        }
        fn solution(&self) -> Value {
            Value::Null
        }
    }

    fn run(f: fn(usize) -> f64, cap: usize) -> (Stop, usize) {
        let mut r = Run::new(Box::new(Seq { k: 0, cap, f }));
        let stop = r.run();
        (stop, r.last().iter)
    }

    #[test]
    fn a_run_at_rounding_level_stalls_at_max_of_last_progress_plus_200_and_twice_it() {
        // Improves by 1e-3 relative until iteration b, then repeats its value: stalls at
        // max(b + 200, 2b) exactly.
        fn until_100(k: usize) -> f64 {
            1.0 + 1e-3 * (100usize.saturating_sub(k)) as f64
        }
        fn until_5000(k: usize) -> f64 {
            1.0 + 1e-3 * (5000usize.saturating_sub(k)) as f64
        }
        assert_eq!(run(until_100, 1_000_000), (Stop::Stalled, 300));
        assert_eq!(run(until_5000, 1_000_000), (Stop::Stalled, 10_000));
        // Changes of a few ulps are rounding, not progress.
        fn noise(k: usize) -> f64 {
            1.0 - (k % 7) as f64 * f64::EPSILON
        }
        let (stop, it) = run(noise, 1_000_000);
        assert_eq!(stop, Stop::Stalled);
        assert!(it <= 200 + 7, "{it}");
    }

    #[test]
    fn a_method_that_oscillates_with_a_growing_period_but_still_improves_never_stalls() {
        // A new best (by 1e-9 relative) only when ⌊log₁.₅(k + 1)⌋ steps up, with rises of 0.5
        // in between: the gaps between improvements grow by half each time, past any fixed
        // window, but stay under half the run.
        fn growing(k: usize) -> f64 {
            let level = |k: usize| ((k + 1) as f64).ln().div_euclid(1.5f64.ln()) as i32;
            let best = 1.0 + 1e-9 * (100 - level(k)) as f64;
            if k == 0 || level(k) != level(k - 1) {
                best
            } else {
                best + 0.5
            }
        }
        assert_eq!(run(growing, 1 << 20), (Stop::MaxIterations, 1 << 20));
        // The same with a fixed window of 1 000 iterations would have stalled.
        let gaps = (1..1usize << 20).filter(|&k| growing(k) < 1.2).collect::<Vec<_>>();
        assert!(gaps.windows(2).any(|w| w[1] - w[0] > 100_000), "{gaps:?}");
        // A record without a certificate measure (D's perceptrons) never stalls.
        struct Mute(usize);
        impl Stepper for Mute {
            fn record(&self) -> Record {
                Record { iter: self.0, min_g_alpha: Some(-1.0), ..Record::default() }
            }
            fn step(&mut self) -> Option<Record> {
                (self.0 < 5000).then(|| {
                    self.0 += 1;
                    self.record()
                })
            }
            fn stop(&self) -> Stop {
                if self.0 < 5000 {
                    Stop::Running
                } else {
                    Stop::MaxIterations
                }
            }
            fn solution(&self) -> Value {
                Value::Null
            }
        }
        let mut r = Run::new(Box::new(Mute(0)));
        assert_eq!(r.run(), Stop::MaxIterations);
    }
}

/// What one unit of a [`Task`] left to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// More units are left.
    More,
    /// Nothing is left: the task is done (a further unit does nothing and says so again).
    Done,
}

/// Resumable work advanced one unit per call — a run's step, a race's round, a Gram matrix's
/// block of columns, an adopted eigendecomposition's block or check step, a cross-validation's
/// fold step — which the executor slices ([`run_task_for`]): the one place the crate loops
/// over work against a time budget (a page's animation frame).
pub trait Task {
    /// Why a unit failed ([`std::convert::Infallible`] for work that cannot fail).
    type Error;
    /// One unit of work: more left, done, or an error (which ends the slice).
    fn unit(&mut self) -> std::result::Result<Progress, Self::Error>;
}

/// Units of `task` until it is done, a unit fails or `budget_ms` has elapsed (at least one unit,
/// so a budget of 0 still advances); returns how many units left more to do.
pub fn run_task_for<T: Task + ?Sized>(
    task: &mut T,
    budget_ms: f64,
) -> std::result::Result<usize, T::Error> {
    crate::clock::try_within(budget_ms, || task.unit().map(|p| p == Progress::More))
}

impl<S: Stepper> Task for Run<S> {
    type Error = std::convert::Infallible;
    /// One step of the run (the executor's rules apply); done once the run has ended.
    fn unit(&mut self) -> std::result::Result<Progress, Self::Error> {
        Ok(if self.step().is_some() { Progress::More } else { Progress::Done })
    }
}
