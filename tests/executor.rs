//! The executor is generic (issue 34): an algorithm written in this one file, knowing nothing of
//! the four papers, runs through `exec::Run` and `exec::Race`, and the executor alone
//! gives it the iteration cap, the tolerance on a named measure, the time limit and the stall
//! rule (`exec::Watch`); the algorithm itself only steps. Every count is checked against the
//! closed form of the iteration, computed here apart from the algorithm.
#![cfg(not(target_arch = "wasm32"))]

use std::sync::Mutex;

use kernel_playground::clock;
use kernel_playground::exec::Race;
use kernel_playground::exec::{
    run_task_for, Measure, Progress, Record, Run, Stepper, Stop, Task, Tol, Watch, STALL_MIN_WINDOW,
};
use serde_json::{json, Value};

/// No tolerance: the algorithm never stops by itself.
const NONE: f64 = f64::NEG_INFINITY;

/// The deadline is process-wide: the tests that set it run one at a time.
static DEADLINE: Mutex<()> = Mutex::new(());

/// Gradient descent on `f(x) = x²/2` with step `h`: `x_{k+1} = (1 − h) x_k`; its records carry
/// `f` as the primal and as the gap (`f* = 0`), so the executor can watch either. Its own stop is
/// `f ≤ tol` ([`Stop::Converged`]; never with [`NONE`]); it has no cap, no trace and no clock of its own. At
/// iteration `alarm` it sets the process-wide deadline to now, as `kplay --time-limit` would
/// have it pass at that moment (a time limit that needs no waiting).
struct Descent {
    x: f64,
    h: f64,
    k: usize,
    tol: f64,
    alarm: Option<usize>,
}

impl Descent {
    fn new(h: f64, tol: f64) -> Self {
        Self { x: 1.0, h, k: 0, tol, alarm: None }
    }
    fn f(&self) -> f64 {
        0.5 * self.x * self.x
    }
}

impl Stepper for Descent {
    fn record(&self) -> Record {
        let f = self.f();
        Record {
            iter: self.k,
            primal: Some(f),
            gap: Some(f),
            rel_gap: Some(f),
            ..Record::default()
        }
    }
    fn step(&mut self) -> Option<Record> {
        if self.stop() != Stop::Running {
            return None;
        }
        self.x *= 1.0 - self.h;
        self.k += 1;
        if self.alarm == Some(self.k) {
            clock::set_deadline(Some(web_time::Instant::now()));
        }
        Some(self.record())
    }
    fn stop(&self) -> Stop {
        if self.f() <= self.tol {
            Stop::Converged
        } else {
            Stop::Running
        }
    }
    fn solution(&self) -> Value {
        json!({ "x": self.x })
    }
}

/// `x_k` of the closed form's recursion, apart from the algorithm: `(1 − h)^k` as the same
/// products in the same order.
fn x_after(h: f64, k: usize) -> f64 {
    (0..k).fold(1.0, |x, _| x * (1.0 - h))
}

/// `f(x_k) = x_k²/2`, rounded as the algorithm rounds it.
fn f_after(h: f64, k: usize) -> f64 {
    let x = x_after(h, k);
    0.5 * x * x
}

/// The first k with `f(x_k) ≤ tol`.
fn first_below(h: f64, tol: f64) -> usize {
    (0..).find(|&k| f_after(h, k) <= tol).unwrap()
}

/// The first k at which `f(x_k)` is 0 (the halving has underflowed): the last progress.
fn underflow(h: f64) -> usize {
    (0..).find(|&k| f_after(h, k) == 0.0).unwrap()
}

#[test]
fn a_run_ends_at_the_algorithms_own_stop_or_the_executors_cap() {
    let _g = DEADLINE.lock().unwrap_or_else(|e| e.into_inner());
    clock::set_deadline(None);
    // Its own stop: converged at the closed form's first iterate below tol.
    let mut run = Run::new(Box::new(Descent::new(0.1, 1e-6)));
    assert_eq!(run.run(), Stop::Converged);
    let k = first_below(0.1, 1e-6);
    assert_eq!(run.last().iter, k);
    assert_eq!(run.solution()["x"].as_f64(), Some(x_after(0.1, k)));
    // The cap: the executor's, on an algorithm that has none.
    let mut run = Run::new(Box::new(Descent::new(1e-4, NONE))).capped(250);
    assert_eq!(run.run(), Stop::MaxIterations);
    assert_eq!(run.last().iter, 250);
    assert_eq!(run.trace().len(), 251, "the executor's trace: the start and every step");
    assert_eq!(run.solution()["x"].as_f64(), Some(x_after(1e-4, 250)));
    assert_eq!(run.step(), None, "an ended run steps no more");
    // The algorithm's stop wins on the step that reaches the cap.
    let mut run = Run::new(Box::new(Descent::new(0.1, 1e-6))).capped(k);
    assert_eq!((run.run(), run.last().iter), (Stop::Converged, k));
    // A cap of 0 ends the run before its first step.
    let mut run = Run::new(Box::new(Descent::new(0.1, NONE))).capped(0);
    assert_eq!((run.run(), run.last().iter), (Stop::MaxIterations, 0));
    // Sliced as a page slices it (no time budget: one step per slice), the same end.
    let mut sliced = Run::new(Box::new(Descent::new(1e-4, NONE))).capped(250);
    let mut slices = 0;
    while sliced.stop() == Stop::Running {
        sliced.run_for(0.0);
        slices += 1;
    }
    assert_eq!((sliced.stop(), sliced.last().iter, slices), (Stop::MaxIterations, 250, 250));
}

#[test]
fn a_run_stalls_by_the_executors_rule_once_its_measure_is_at_rounding_level() {
    let _g = DEADLINE.lock().unwrap_or_else(|e| e.into_inner());
    clock::set_deadline(None);
    // Halving x: f falls by a factor 4 per step until it underflows to 0 at b, then stays there.
    // Stalled at max(b + window, 2b) exactly (the rule of exec::Stall), never before.
    let b = underflow(0.5);
    let mut run = Run::new(Box::new(Descent::new(0.5, NONE)));
    assert_eq!(run.run(), Stop::Stalled);
    assert_eq!(run.last().iter, (b + STALL_MIN_WINDOW).max(2 * b));
    // A slow run that still improves is never cut: 10⁵ steps of 10⁻⁴, to the cap.
    let mut slow = Run::new(Box::new(Descent::new(1e-4, NONE))).capped(100_000);
    assert_eq!((slow.run(), slow.last().iter), (Stop::MaxIterations, 100_000));
}

#[test]
fn the_time_limit_ends_a_run_where_it_stands() {
    let _g = DEADLINE.lock().unwrap_or_else(|e| e.into_inner());
    let mut d = Descent::new(1e-4, NONE);
    d.alarm = Some(37);
    let mut run = Run::new(Box::new(d)).capped(1000);
    let stop = run.run();
    clock::set_deadline(None);
    assert_eq!((stop, run.last().iter), (Stop::TimeLimit, 37));
    assert_eq!(run.solution()["x"].as_f64(), Some(x_after(1e-4, 37)), "the iterate reached");
    // A deadline already passed ends the run before its first step.
    clock::set_deadline(Some(web_time::Instant::now()));
    let mut run = Run::new(Box::new(Descent::new(0.1, 1e-6)));
    let stop = run.run();
    clock::set_deadline(None);
    assert_eq!((stop, run.last().iter), (Stop::TimeLimit, 0));
}

#[test]
fn a_race_of_lanes_gets_the_same_cap_stall_and_time_limit() {
    let _g = DEADLINE.lock().unwrap_or_else(|e| e.into_inner());
    clock::set_deadline(None);
    let lanes = || {
        vec![
            (0, "converges".to_string(), Descent::new(0.1, 1e-6)),
            (1, "slow".to_string(), Descent::new(1e-4, NONE)),
            (2, "stalls".to_string(), Descent::new(0.5, NONE)),
        ]
    };
    let b = underflow(0.5);
    let stalls_at = (b + STALL_MIN_WINDOW).max(2 * b);
    let cap = 5000;
    assert!(stalls_at < cap);
    for chunk in [1, 64] {
        for threads in [false, true] {
            let mut race = Race::new(lanes()).chunked(chunk).capped(cap);
            if threads {
                race.run_parallel();
            } else {
                race.run();
            }
            let s = race.standings();
            let got: Vec<_> = s.iter().map(|l| (l.key, l.status, l.iterations)).collect();
            assert_eq!(
                got,
                vec![
                    (0, Stop::Converged, first_below(0.1, 1e-6)),
                    (1, Stop::MaxIterations, cap),
                    (2, Stop::Stalled, stalls_at),
                ],
                "chunk {chunk}, threads {threads}"
            );
            assert_eq!(s[1].to_json()["status"], "max_iterations");
        }
    }
    // The time limit: the slow lane sets it at its step 300; every lane still running then
    // stands at time_limit, the ones that had ended keep their own stop.
    let mut l = lanes();
    l[1].2.alarm = Some(300);
    let mut race = Race::new(l).capped(cap);
    race.run();
    clock::set_deadline(None);
    let s = race.standings();
    assert_eq!((s[0].status, s[0].iterations), (Stop::Converged, first_below(0.1, 1e-6)));
    assert_eq!((s[1].status, s[1].iterations), (Stop::TimeLimit, 300));
    // One iteration per lane per round: the stalling lane had done 300 steps too.
    assert_eq!((s[2].status, s[2].iterations), (Stop::TimeLimit, 300));
    assert_eq!(s[2].to_json()["status"], "time_limit");
}

/// A tolerance on the gap, met by `gap ≤ tol`.
fn gap_tol(tol: f64) -> Tol {
    Tol { measure: Measure::Gap, tol, strict: false }
}

#[test]
fn the_executor_owns_the_tolerance_and_stops_where_the_closed_form_says() {
    let _g = DEADLINE.lock().unwrap_or_else(|e| e.into_inner());
    clock::set_deadline(None);
    for (h, tol) in [(0.1, 1e-8), (0.8, 1e-12), (0.5, 1e-6)] {
        let watch = Watch::default().with_tol(gap_tol(tol)).with_cap(1_000_000);
        let mut run = Run::with_watch(Box::new(Descent::new(h, NONE)), watch);
        assert_eq!(run.run(), Stop::Converged, "h {h}");
        let k = first_below(h, tol);
        assert_eq!(run.last().iter, k, "h {h}");
        assert_eq!(run.solution()["x"].as_f64(), Some(x_after(h, k)));
    }
    // A start that already meets the tolerance takes no step.
    let watch = Watch::default().with_tol(gap_tol(1.0));
    let mut run = Run::with_watch(Box::new(Descent::new(0.1, NONE)), watch);
    assert_eq!((run.run(), run.last().iter), (Stop::Converged, 0));
    // A strict tolerance of 0 is out of reach even where the gap is exactly 0 (h = 1 reaches the
    // minimizer in one step): nothing improves after it, and the stall rule ends the run at
    // max(1 + window, 2).
    let strict0 = Tol { measure: Measure::Gap, tol: 0.0, strict: true };
    let mut run =
        Run::with_watch(Box::new(Descent::new(1.0, NONE)), Watch::default().with_tol(strict0));
    assert_eq!((run.run(), run.last().iter), (Stop::Stalled, 1 + STALL_MIN_WINDOW));
}

#[test]
fn a_race_of_watched_lanes_gets_each_its_own_tolerance_cap_and_stall() {
    let _g = DEADLINE.lock().unwrap_or_else(|e| e.into_inner());
    clock::set_deadline(None);
    let tol = 1e-10;
    let strict0 = Tol { measure: Measure::Gap, tol: 0.0, strict: true };
    let lanes = vec![
        (0, "fast".to_string(), Descent::new(0.5, NONE), Watch::default().with_tol(gap_tol(tol))),
        (
            1,
            "slow".to_string(),
            Descent::new(1e-4, NONE),
            Watch::default().with_tol(gap_tol(tol)).with_cap(500),
        ),
        (2, "exact".to_string(), Descent::new(1.0, NONE), Watch::default().with_tol(strict0)),
    ];
    let mut race = Race::watched(lanes).chunked(7);
    race.run();
    let s = race.standings();
    assert_eq!((s[0].status, s[0].iterations), (Stop::Converged, first_below(0.5, tol)));
    assert_eq!((s[1].status, s[1].iterations), (Stop::MaxIterations, 500));
    assert_eq!((s[2].status, s[2].iterations), (Stop::Stalled, 1 + STALL_MIN_WINDOW));
    // A deadline already passed: a watched race ends at once with time_limit, never converged.
    clock::set_deadline(Some(web_time::Instant::now()));
    let lanes = vec![(
        0,
        "q".to_string(),
        Descent::new(1e-6, NONE),
        Watch::default().with_tol(gap_tol(1e-12)),
    )];
    let mut race = Race::watched(lanes);
    race.run();
    clock::set_deadline(None);
    assert_eq!((race.standings()[0].status, race.standings()[0].iterations), (Stop::TimeLimit, 0));
}

/// A resumable preparation written here, knowing nothing of the papers: `units` units of work,
/// the unit numbered `fails_at` (if any) an error; it keeps no clock and never loops.
struct Chores {
    units: usize,
    done: usize,
    fails_at: Option<usize>,
}

impl Task for Chores {
    type Error = String;
    fn unit(&mut self) -> Result<Progress, String> {
        if self.done == self.units {
            return Ok(Progress::Done);
        }
        if self.fails_at == Some(self.done) {
            return Err(format!("unit {} failed", self.done));
        }
        self.done += 1;
        Ok(Progress::More)
    }
}

#[test]
fn the_executor_slices_a_task_written_in_one_file() {
    let _g = DEADLINE.lock().unwrap_or_else(|e| e.into_inner());
    clock::set_deadline(None);
    // A budget of 0 still advances one unit; an unlimited one runs to the end, counting the
    // units that left more (all 7), and a further slice finds nothing left.
    let mut t = Chores { units: 7, done: 0, fails_at: None };
    assert_eq!(run_task_for(&mut t, 0.0), Ok(1));
    assert_eq!(t.done, 1);
    assert_eq!(run_task_for(&mut t, f64::INFINITY), Ok(6));
    assert_eq!(t.done, 7);
    assert_eq!(run_task_for(&mut t, f64::INFINITY), Ok(0));
    // An error ends the slice where it happened and is returned, every time.
    let mut bad = Chores { units: 7, done: 0, fails_at: Some(3) };
    assert_eq!(run_task_for(&mut bad, f64::INFINITY), Err("unit 3 failed".to_string()));
    assert_eq!(bad.done, 3);
    assert_eq!(run_task_for(&mut bad, 0.0), Err("unit 3 failed".to_string()));
    // A run is a task of the same executor: one step per unit, done when it has ended.
    let mut run = Run::new(Descent::new(0.5, 1e-3));
    assert_eq!(run.run_for(0.0), 1);
    let steps = run_task_for(&mut run, f64::INFINITY).unwrap_or_else(|never| match never {});
    assert_eq!(1 + steps, first_below(0.5, 1e-3));
    assert_eq!(run.stop(), Stop::Converged);
}
