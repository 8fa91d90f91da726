//! The executor is generic (issue 34): an algorithm written in this one file — gradient descent
//! on a one-dimensional quadratic, whose iterates have a closed form — runs through
//! [`Run`] and [`Race`] with the cap, the tolerance, the stall rule and the deadline all owned
//! by the executor ([`Watch`]); the algorithm itself only steps.

use kernel_playground::engine::race::Race;
use kernel_playground::stepper::{Measure, Record, Run, Stepper, Stop, Tol, Watch};
use serde_json::{json, Value};

/// Gradient descent on f(x) = ½ a x² from x₀ = 1 with step `eta`: xₖ = (1 − η a)ᵏ, and the
/// "gap" f(xₖ) − f* = ½ a xₖ². Never stops by itself.
struct Quadratic {
    a: f64,
    eta: f64,
    x: f64,
    k: usize,
}

impl Quadratic {
    fn new(a: f64, eta: f64) -> Self {
        Self { a, eta, x: 1.0, k: 0 }
    }
}

impl Stepper for Quadratic {
    fn record(&self) -> Record {
        let f = 0.5 * self.a * self.x * self.x;
        Record {
            iter: self.k,
            primal: Some(f),
            gap: Some(f),
            rel_gap: Some(f),
            ..Record::default()
        }
    }
    fn step(&mut self) -> Option<Record> {
        self.x -= self.eta * self.a * self.x;
        self.k += 1;
        Some(self.record())
    }
    fn stop(&self) -> Stop {
        Stop::Running
    }
    fn solution(&self) -> Value {
        json!({ "x": self.x })
    }
}

/// The first k with ½ a (1 − η a)^{2k} ≤ tol, counted independently of the executor.
fn closed_form_iterations(a: f64, eta: f64, tol: f64) -> usize {
    let r = (1.0 - eta * a).abs();
    (0..).find(|&k| 0.5 * a * r.powi(2 * k as i32) <= tol).unwrap()
}

/// The deadline is process-wide: every test of this file holds this lock, so the one that sets
/// a deadline never ends another's run.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn gap_tol(tol: f64) -> Tol {
    Tol { measure: Measure::Gap, tol, strict: false }
}

#[test]
fn the_executor_owns_the_tolerance_and_stops_where_the_closed_form_says() {
    let _serial = serial();
    for (a, eta, tol) in [(1.0, 0.1, 1e-8), (4.0, 0.2, 1e-12), (0.5, 1.0, 1e-6)] {
        let watch = Watch::default().with_tol(gap_tol(tol)).with_cap(1_000_000);
        let mut run = Run::with_watch(Box::new(Quadratic::new(a, eta)), watch);
        assert_eq!(run.run(), Stop::Converged);
        assert_eq!(run.last().iter, closed_form_iterations(a, eta, tol), "a {a}, eta {eta}");
        let x = run.solution()["x"].as_f64().unwrap();
        let expected = (1.0 - eta * a).powi(run.last().iter as i32);
        assert!((x - expected).abs() <= 1e-12 * expected.abs(), "{x} vs {expected}");
    }
}

#[test]
fn the_executor_owns_the_cap() {
    let _serial = serial();
    let watch = Watch::default().with_tol(gap_tol(1e-300)).with_cap(37);
    let mut run = Run::with_watch(Box::new(Quadratic::new(1.0, 1e-3)), watch);
    assert_eq!(run.run(), Stop::MaxIterations);
    assert_eq!(run.last().iter, 37);
    // A cap of 0 takes no step.
    let mut run = Run::with_watch(Box::new(Quadratic::new(1.0, 0.1)), Watch::default().with_cap(0));
    assert_eq!(run.run(), Stop::MaxIterations);
    assert_eq!(run.trace().len(), 1);
    // A start that already meets the tolerance takes no step either.
    let mut run = Run::with_watch(
        Box::new(Quadratic::new(1.0, 0.1)),
        Watch::default().with_tol(gap_tol(1.0)),
    );
    assert_eq!(run.run(), Stop::Converged);
    assert_eq!(run.last().iter, 0);
}

#[test]
fn the_executor_owns_the_stall_rule() {
    let _serial = serial();
    // η a = 1 reaches the minimizer x = 0 in one step; nothing improves after it, so the stall
    // rule ends the run at max(1 + 200, 2) = 201 — no tolerance (1e-320 is below every gap but 0,
    // which `≤` would meet: the strict test keeps it out of reach).
    let tol = Tol { measure: Measure::Gap, tol: 0.0, strict: true };
    let mut run =
        Run::with_watch(Box::new(Quadratic::new(2.0, 0.5)), Watch::default().with_tol(tol));
    assert_eq!(run.run(), Stop::Stalled);
    assert_eq!(run.last().iter, 201);
}

#[test]
fn a_race_of_the_test_algorithm_gets_cap_tolerance_and_stall_per_lane() {
    let _serial = serial();
    let tol = 1e-10;
    let strict0 = Tol { measure: Measure::Gap, tol: 0.0, strict: true };
    let lanes = vec![
        (0, "fast".to_string(), Quadratic::new(1.0, 0.5), Watch::default().with_tol(gap_tol(tol))),
        (
            1,
            "slow".to_string(),
            Quadratic::new(1.0, 1e-4),
            Watch::default().with_tol(gap_tol(tol)).with_cap(500),
        ),
        (2, "exact".to_string(), Quadratic::new(2.0, 0.5), Watch::default().with_tol(strict0)),
    ];
    let mut race = Race::watched(lanes).chunked(7);
    race.run();
    let s = race.standings();
    assert_eq!(
        (s[0].status, s[0].iterations),
        (Stop::Converged, closed_form_iterations(1.0, 0.5, tol))
    );
    assert_eq!((s[1].status, s[1].iterations), (Stop::MaxIterations, 500));
    assert_eq!((s[2].status, s[2].iterations), (Stop::Stalled, 201));
}

#[test]
fn the_deadline_ends_a_run_and_a_race_with_time_limit_and_their_partial_iterate() {
    let _serial = serial();
    // A deadline already passed: the run ends at once with `time_limit`, never `converged`.
    kernel_playground::clock::set_deadline(Some(web_time::Instant::now()));
    let mut run = Run::with_watch(
        Box::new(Quadratic::new(1.0, 1e-6)),
        Watch::default().with_tol(gap_tol(1e-12)),
    );
    let stop = run.run();
    let mut race =
        Race::watched(vec![(0, "q".to_string(), Quadratic::new(1.0, 1e-6), Watch::default())]);
    race.run();
    kernel_playground::clock::set_deadline(None);
    assert_eq!(stop, Stop::TimeLimit);
    assert_eq!(run.last().iter, 0);
    assert_eq!(race.standings()[0].status, Stop::TimeLimit);
}
