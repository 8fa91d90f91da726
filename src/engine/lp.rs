//! Paper A (Salzo, Suykens, Rosasco) in the engine: the validated experiment
//! ([`crate::lp_experiment`]) and its running solver behind [`Stepper`]. Paper A's own
//! [`crate::solvers::Driver`] keeps its stopping rule (relative duality gap ≤ tol, the cap, a
//! stalled linesearch, a non-finite value); this adapter reads it in the engine's terms.

use serde_json::{json, Value};

use super::race::{Race, Target};
use super::{Paper, Record, Report, Stepper, Stop};
use crate::error::Result;
use crate::lp_experiment::{self, Experiment, ValidExperiment};
use crate::solvers::{Driver, Status, StepRecord};
use crate::tensor::GramTensor;

/// A paper-A iteration's record in the engine's shape.
pub fn record_of(r: &StepRecord) -> Record {
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

/// Paper A's status in the engine's terms.
pub fn stop_of(s: Status) -> Stop {
    match s {
        Status::Running => Stop::Running,
        Status::Converged => Stop::Converged,
        Status::MaxIterations => Stop::MaxIterations,
        Status::Stalled => Stop::Stalled,
        Status::NonFinite => Stop::NonFinite,
    }
}

/// A validated paper-A experiment and its run (the solver behind paper A's driver).
pub struct LpRun {
    pub valid: ValidExperiment,
    pub run: lp_experiment::Run,
}

impl LpRun {
    /// Validate, build the data (and the Gram tensor on the tensor path) and start the solver.
    pub fn start(spec: &Experiment) -> Result<Self> {
        let valid = spec.validate()?;
        let run = valid.start_any()?;
        Ok(Self { valid, run })
    }
}

impl Stepper for LpRun {
    fn record(&self) -> Record {
        record_of(&self.run.last())
    }
    fn step(&mut self) -> Option<Record> {
        self.run.step().map(|r| record_of(&r))
    }
    fn stop(&self) -> Stop {
        stop_of(self.run.status)
    }
    fn solution(&self) -> Value {
        let w = self.valid.weights(&self.run).map(|w| w.as_slice().to_vec());
        let alpha = self.run.solver.alpha().map(|a| a.as_slice().to_vec());
        json!({ "w": w, "alpha": alpha })
    }
}

/// Run a paper-A experiment to the end and report (`setup_ms`: data, features or Gram tensor).
pub fn run(spec: &Experiment) -> Result<Report> {
    super::run_started(Paper::Lp, || {
        let lp = LpRun::start(spec)?;
        let digest = lp.valid.data.digest();
        Ok((Box::new(lp), digest))
    })
}

/// A paper-A driver as a race lane: its records and stop reason in the engine's terms, its
/// solution the dual iterate α and (when available) the weights w.
impl Stepper for lp_experiment::Run {
    fn record(&self) -> Record {
        record_of(&self.last())
    }
    fn step(&mut self) -> Option<Record> {
        Driver::step(self).map(|r| record_of(&r))
    }
    fn stop(&self) -> Stop {
        stop_of(self.status)
    }
    fn solution(&self) -> Value {
        let w = self.solver.w().map(|w| w.as_slice().to_vec());
        let alpha = self.solver.alpha().map(|a| a.as_slice().to_vec());
        json!({ "w": w, "alpha": alpha })
    }
}

/// Paper A's race: every applicable algorithm ([`ValidExperiment::race_lanes`]) until it is
/// within `tol` of F* (or stops), one iteration per lane per round.
pub fn race_of(
    valid: &ValidExperiment,
    f_star: f64,
    tol: f64,
    tensor: Option<&GramTensor>,
) -> Result<Race<lp_experiment::Run>> {
    let lanes =
        valid.race_lanes(tensor)?.into_iter().enumerate().map(|(k, (name, run))| (k, name, run));
    Ok(Race::new(lanes).with_target(Target { f_star, tol }))
}

/// One lane's curve: its name and `(iteration, time_ms, relative error)` points.
pub type RaceCurve = (String, Vec<(f64, f64, f64)>);

/// A paper-A race's curves: each lane's relative error `(F(w_k) − F*)/F*` against the
/// iteration and the time, from its trace (the page's race plot).
pub fn race_curves(race: &Race<lp_experiment::Run>) -> Vec<RaceCurve> {
    let Some(t) = race.target() else { return Vec::new() };
    race.lanes()
        .iter()
        .map(|l| {
            (
                l.name.clone(),
                l.solver
                    .trace
                    .iter()
                    .map(|r| (r.iter as f64, r.elapsed_ms, t.rel_err(r.primal)))
                    .collect(),
            )
        })
        .collect()
}

/// Every applicable paper-A algorithm against F* (see [`super::race`]).
pub fn race(spec: &Experiment) -> Result<Value> {
    let valid = spec.validate()?;
    // The tensor path races on its built Gram tensor (F* from the same tensor).
    let tensor = match valid.checked.path {
        crate::lp_experiment::PathSpec::Tensor => Some(valid.build_tensor()?),
        crate::lp_experiment::PathSpec::Features => None,
    };
    let (f_star, newton_iters) = valid.reference_optimum(tensor.clone())?;
    let mut race = race_of(&valid, f_star, spec.solver.tol.max(1e-15), tensor.as_ref())?;
    race.run();
    let lanes: Vec<Value> = race.standings().iter().map(|s| s.to_json()).collect();
    Ok(
        json!({"paper": "lp", "f_star": f_star, "reference_newton_iterations": newton_iters, "lanes": lanes}),
    )
}
