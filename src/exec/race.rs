//! One race for every paper: several algorithms on the same problem, each a [`Stepper`],
//! stepped in turn (a chunk of iterations per lane per round) within the caller's time budget.
//! Paper A races its solvers to a reference optimum F* ([`Target`]); paper C races the fixed
//! point, its coordinate rules and greedy + shrinking to each one's own stopping test; paper D
//! races its six perceptron-family algorithms to a verified outcome. The pages (a few ms per
//! frame) and `kplay race` (to the end) drive the same [`Race`], and every lane reads out as one
//! [`Standing`].

use serde::Serialize;
use serde_json::Value;

use super::stepper::{insert_measures, run_task_for, Progress, Record, Stepper, Stop, Task};
use super::stepper::{Trace, Watch};

/// A reference optimum: a lane has won once its primal objective is within `tol` of `f_star`
/// (relative), `(F(x_k) − F*)/|F*| ≤ tol` (paper A's race, F* from dual Newton).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Target {
    pub f_star: f64,
    pub tol: f64,
}

impl Target {
    /// The relative error `(primal − F*)/max(|F*|, 1e-300)`.
    pub fn rel_err(&self, primal: f64) -> f64 {
        (primal - self.f_star) / self.f_star.abs().max(1e-300)
    }

    fn reached(&self, r: &Record) -> bool {
        r.primal.is_some_and(|p| self.rel_err(p) <= self.tol)
    }
}

/// One algorithm in a race.
pub struct Lane<S> {
    /// The name the page and `kplay race` show.
    pub name: String,
    /// The caller's index of this algorithm (page C's method index; the lane's position otherwise).
    pub key: usize,
    /// The algorithm's state.
    pub solver: S,
    /// Milliseconds this lane has spent stepping.
    pub ms: f64,
    /// Iterations this race has stepped the lane.
    pub steps: usize,
    /// Whether the race's [`Target`] has been reached.
    reached: bool,
    /// The executor's stop rules (stall, deadline), as for any [`crate::exec::Run`].
    watch: Watch,
    /// The lane's bounded trace, as a [`crate::exec::Run`] keeps it.
    trace: Trace,
}

impl<S: Stepper> Lane<S> {
    /// Up to `chunk` iterations while the lane runs (ending it at `target`); whether it advanced.
    fn step_chunk(&mut self, chunk: usize, target: Option<Target>) -> bool {
        if !self.running() {
            return false;
        }
        let mut any = false;
        let t0 = web_time::Instant::now();
        for _ in 0..chunk {
            let Some(r) = self.watch.step(&mut self.solver) else { break };
            self.trace.push(r);
            any = true;
            self.steps += 1;
            if target.is_some_and(|t| t.reached(&r)) {
                self.reached = true;
            }
            if !self.running() {
                break;
            }
        }
        self.ms += crate::clock::ms_since(t0);
        any
    }

    /// Why the lane ended: [`Stop::Converged`] once the race's target is reached, else the
    /// executor's reason (stalled, time limit) or the algorithm's own ([`Stop::Running`] while
    /// it runs).
    pub fn stop(&self) -> Stop {
        if self.reached {
            Stop::Converged
        } else {
            self.watch.stop(&self.solver)
        }
    }

    /// Whether the lane still runs.
    pub fn running(&self) -> bool {
        self.stop() == Stop::Running
    }

    /// The records of the lane's run so far (bounded, the first and the latest kept).
    pub fn trace(&self) -> &[Record] {
        self.trace.kept()
    }
}

/// Several steppable algorithms on one problem.
pub struct Race<S> {
    lanes: Vec<Lane<S>>,
    /// Iterations per lane per round (paper D's iterations are O(n) each: 64 of them).
    chunk: usize,
    target: Option<Target>,
    /// Whether the process-wide deadline ended the race (`kplay race --time-limit`).
    timed_out: bool,
}

impl<S: Stepper> Task for Race<S> {
    type Error = std::convert::Infallible;
    /// One round: every lane still running advances by its chunk; done when no lane advanced.
    fn unit(&mut self) -> std::result::Result<Progress, Self::Error> {
        Ok(if self.step_round() { Progress::More } else { Progress::Done })
    }
}

impl<S: Stepper> Race<S> {
    /// A race of `(key, name, algorithm)` lanes, one iteration per lane per round, each lane
    /// to its own end.
    pub fn new(lanes: impl IntoIterator<Item = (usize, String, S)>) -> Self {
        Self::watched(
            lanes.into_iter().map(|(key, name, solver)| (key, name, solver, Watch::default())),
        )
    }

    /// A race whose lanes' stop rules also hold a cap and/or a tolerance ([`Watch::with_cap`],
    /// [`Watch::with_tol`]), one [`Watch`] per lane.
    pub fn watched(lanes: impl IntoIterator<Item = (usize, String, S, Watch)>) -> Self {
        let lanes = lanes
            .into_iter()
            .map(|(key, name, mut solver, mut watch)| {
                watch.start(&mut solver);
                let trace = Trace::new(solver.record());
                Lane { name, key, solver, ms: 0.0, steps: 0, reached: false, watch, trace }
            })
            .collect();
        Self { lanes, chunk: 1, target: None, timed_out: false }
    }

    /// Step each lane `chunk` iterations per round (at least one).
    pub fn chunked(mut self, chunk: usize) -> Self {
        self.chunk = chunk.max(1);
        self
    }

    /// Cap every lane at `cap` iterations (the executor's cap, [`Watch::with_cap`]): a lane
    /// that reaches it while its algorithm still runs stands at [`Stop::MaxIterations`].
    pub fn capped(mut self, cap: usize) -> Self {
        for l in &mut self.lanes {
            l.watch = std::mem::take(&mut l.watch).with_cap(cap);
            l.watch.check_cap(&mut l.solver);
        }
        self
    }

    /// End each lane once it reaches `target` (checked after every iteration).
    pub fn with_target(mut self, target: Target) -> Self {
        for l in &mut self.lanes {
            l.reached = target.reached(&l.solver.record());
        }
        self.target = Some(target);
        self
    }

    /// The reference optimum, if the race has one.
    pub fn target(&self) -> Option<Target> {
        self.target
    }

    /// The lanes, in the order given.
    pub fn lanes(&self) -> &[Lane<S>] {
        &self.lanes
    }

    /// Whether any lane still runs.
    pub fn running(&self) -> bool {
        self.lanes.iter().any(Lane::running)
    }

    /// One round: up to `chunk` iterations of every running lane. Returns whether any lane
    /// advanced.
    pub fn step_round(&mut self) -> bool {
        let (chunk, target) = (self.chunk, self.target);
        let mut any = false;
        for lane in &mut self.lanes {
            any |= lane.step_chunk(chunk, target);
        }
        any
    }

    /// Rounds until every lane has ended or `budget_ms` has elapsed (at least one round);
    /// returns the number of rounds in which some lane advanced.
    pub fn run_for(&mut self, budget_ms: f64) -> usize {
        match run_task_for(self, budget_ms) {
            Ok(rounds) => rounds,
            Err(never) => match never {},
        }
    }

    /// Every lane to its end, or until the process-wide deadline (`kplay --time-limit`) has
    /// passed: then the lanes still running stand at [`Stop::TimeLimit`].
    pub fn run(&mut self) {
        loop {
            if crate::clock::deadline_passed() {
                self.timed_out = true;
                break;
            }
            if !self.step_round() {
                break;
            }
        }
    }

    /// [`Self::run`] with the lanes on [`crate::par::threads`] threads (`kplay race --threads
    /// N`): each lane runs to its own end on one thread, so every lane takes exactly the steps it
    /// takes in [`Self::run`] (lanes never interact); only the lanes' `ms` and, at a deadline,
    /// where each lane stands differ.
    pub fn run_parallel(&mut self)
    where
        S: Send,
    {
        if crate::par::threads() <= 1 || self.lanes.len() < 2 {
            return self.run();
        }
        let (chunk, target) = (self.chunk, self.target);
        let timed_out = std::sync::atomic::AtomicBool::new(false);
        crate::par::for_each_chunk(&mut self.lanes, 1, |_, lanes| {
            for lane in lanes {
                loop {
                    if crate::clock::deadline_passed() {
                        timed_out.store(true, std::sync::atomic::Ordering::Relaxed);
                        break;
                    }
                    if !lane.step_chunk(chunk, target) {
                        break;
                    }
                }
            }
        });
        self.timed_out = timed_out.into_inner();
    }

    /// Each lane's standing, in lane order.
    pub fn standings(&self) -> Vec<Standing> {
        self.lanes
            .iter()
            .map(|l| {
                let last = l.solver.record();
                Standing {
                    algorithm: l.name.clone(),
                    key: l.key,
                    status: match l.stop() {
                        Stop::Running if self.timed_out => Stop::TimeLimit,
                        s => s,
                    },
                    iterations: last.iter,
                    time_ms: l.ms,
                    rel_err: self.target.and_then(|t| last.primal.map(|p| t.rel_err(p))),
                    last,
                }
            })
            .collect()
    }
}

/// Where a lane stands, in one shape for every paper: the pages' race tables and `kplay race`
/// read it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Standing {
    /// The algorithm's name.
    pub algorithm: String,
    /// The caller's key of the lane.
    pub key: usize,
    /// Why it ended, or running.
    pub status: Stop,
    /// Its iterations (sweeps for paper C).
    pub iterations: usize,
    /// Milliseconds spent stepping it.
    pub time_ms: f64,
    /// The relative error against the race's F*, if the race has one.
    pub rel_err: Option<f64>,
    /// Its latest record (the paper's own measures).
    pub last: Record,
}

impl Standing {
    /// `{algorithm, status, iterations, time_ms, rel_err?, <the paper's measures>}`: the
    /// latest record's measures the paper has (primal, dual, gap, rel_gap, residual, max_h,
    /// min_g_alpha, norm_p_g), flattened beside the lane's name and status.
    pub fn to_json(&self) -> Value {
        let mut out = serde_json::Map::new();
        out.insert("algorithm".into(), Value::String(self.algorithm.clone()));
        out.insert("status".into(), Value::String(self.status.word().into()));
        out.insert("iterations".into(), self.iterations.into());
        out.insert("time_ms".into(), self.time_ms.into());
        if let Some(e) = self.rel_err {
            out.insert("rel_err".into(), e.into());
        }
        insert_measures(&mut out, &self.last);
        Value::Object(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::exec::stepper::tests::Seq;

    /// `primal = 2^-k` after k steps, ending at `cap` with [`Stop::MaxIterations`].
    fn halving(k: usize) -> f64 {
        0.5f64.powi(k as i32)
    }

    fn lanes(caps: &[usize]) -> Vec<(usize, String, Seq)> {
        caps.iter()
            .enumerate()
            .map(|(i, &cap)| (10 + i, format!("lane {i}"), Seq { k: 0, cap, f: halving }))
            .collect()
    }

    #[test]
    fn lanes_run_to_their_own_end_whatever_the_chunk_and_the_slices() {
        for chunk in [1, 3, 64] {
            let mut whole = Race::new(lanes(&[5, 0, 130])).chunked(chunk);
            whole.run();
            let mut sliced = Race::new(lanes(&[5, 0, 130])).chunked(chunk);
            let mut rounds = 0;
            while sliced.running() {
                sliced.run_for(0.0);
                rounds += 1;
            }
            assert_eq!(rounds, 130usize.div_ceil(chunk), "chunk {chunk}");
            for r in [&whole, &sliced] {
                let s = r.standings();
                assert_eq!(
                    s.iter().map(|x| (x.key, x.iterations, x.status)).collect::<Vec<_>>(),
                    vec![
                        (10, 5, Stop::MaxIterations),
                        (11, 0, Stop::MaxIterations),
                        (12, 130, Stop::MaxIterations)
                    ]
                );
                assert_eq!(r.lanes().iter().map(|l| l.steps).collect::<Vec<_>>(), vec![5, 0, 130]);
                assert!(s.iter().all(|x| x.rel_err.is_none()));
            }
            assert!(!whole.step_round(), "nothing left to step");
        }
    }

    #[test]
    fn a_target_ends_each_lane_at_the_first_iterate_within_tol() {
        // F* = 2^-20 → rel err after k steps is 2^(20-k) − 1 ≤ 1 from k = 19 on.
        let t = Target { f_star: 0.5f64.powi(20), tol: 1.0 };
        let mut race = Race::new(lanes(&[10, 40])).with_target(t).chunked(7);
        race.run();
        let s = race.standings();
        assert_eq!((s[0].iterations, s[0].status), (10, Stop::MaxIterations));
        assert_eq!((s[1].iterations, s[1].status), (19, Stop::Converged));
        assert_eq!(s[1].rel_err, Some(1.0));
        assert!(s[0].rel_err.is_some_and(|e| e > 1.0));
        let j = s[1].to_json();
        assert_eq!(
            (j["algorithm"].as_str(), j["status"].as_str(), j["iterations"].as_u64()),
            (Some("lane 1"), Some("converged"), Some(19))
        );
        assert_eq!(j["primal"].as_f64(), Some(0.5f64.powi(19)));
        assert!(j.get("gap").is_none(), "measures the paper lacks are left out: {j}");
        // A lane already at the target never steps.
        let mut done = Race::new(lanes(&[5])).with_target(Target { f_star: 1.0, tol: 0.0 });
        assert!(!done.running() && !done.step_round());
        assert_eq!(done.lanes()[0].steps, 0);
    }

    /// `primal = 2^-min(k, 10)`: improves for 10 steps, then sits at rounding level forever.
    struct Flat {
        k: usize,
    }

    impl Stepper for Flat {
        fn record(&self) -> Record {
            Record {
                iter: self.k,
                primal: Some(0.5f64.powi(self.k.min(10) as i32)),
                ..Record::default()
            }
        }
        fn step(&mut self) -> Option<Record> {
            self.k += 1;
            Some(self.record())
        }
        fn stop(&self) -> Stop {
            Stop::Running
        }
        fn solution(&self) -> Value {
            Value::Null
        }
    }

    #[test]
    fn every_lane_stalls_by_the_executors_rule_as_a_run_does() {
        for chunk in [1, 64] {
            let mut race = Race::new([(0, "flat".to_string(), Flat { k: 0 })]).chunked(chunk);
            race.run();
            let s = race.standings();
            assert_eq!((s[0].status, s[0].iterations), (Stop::Stalled, 210), "chunk {chunk}");
        }
        let mut run = super::super::stepper::Run::new(Box::new(Flat { k: 0 }));
        assert_eq!((run.run(), run.last().iter), (Stop::Stalled, 210));
    }
}
