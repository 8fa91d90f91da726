//! Paper A (Salzo, Suykens, Rosasco) in the engine: a validated experiment's run
//! ([`crate::experiment::lp::LpRun`], a [`super::Stepper`]) to its end, and paper A's race.
//! Paper A's [`crate::solvers::Driver`] keeps its stopping rule (relative duality gap ≤ tol,
//! the cap, a stalled linesearch, a non-finite value) and reports it as the one [`super::Stop`].

use serde_json::{json, Value};

use super::race::{Race, Target};
use super::{Paper, Report, Stop};
use crate::error::Result;
use crate::experiment::lp::{self, Experiment, LpRun, ValidExperiment};
use crate::tensor::GramTensor;

/// Run a paper-A experiment to the end and report (`setup_ms`: data, features or Gram tensor).
pub fn run(spec: &Experiment) -> Result<Report> {
    super::run_started(Paper::Lp, || {
        let lp = LpRun::start(spec)?;
        let digest = lp.valid.data.digest();
        Ok((Box::new(lp), digest))
    })
}

/// Paper A's race: every applicable algorithm ([`ValidExperiment::race_lanes`]) until it is
/// within `tol` of F* (or stops), one iteration per lane per round.
pub fn race_of(
    valid: &ValidExperiment,
    f_star: f64,
    tol: f64,
    tensor: Option<&GramTensor>,
) -> Result<Race<lp::Run>> {
    let lanes =
        valid.race_lanes(tensor)?.into_iter().enumerate().map(|(k, (name, run))| (k, name, run));
    Ok(Race::new(lanes).with_target(Target { f_star, tol }))
}

/// One lane's curve (the race plot's input).
pub use crate::plot::RaceCurve;

/// A paper-A race's curves: each lane's relative error `(F(w_k) − F*)/F*` against the
/// iteration and the time, from its trace (the page's race plot).
pub fn race_curves(race: &Race<lp::Run>) -> Vec<RaceCurve> {
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

/// The race's tolerance on `(F − F*)/F*`: the spec's `tol`, but not below 10⁻¹⁴ (F* itself is a
/// run's smallest primal value, so a tighter target may be unreachable by rounding). The page
/// and `kplay race` use this one rule.
pub fn race_tolerance(tol: f64) -> f64 {
    tol.max(1e-14)
}

/// Paper A's race as one resumable job, for the page (a few ms per frame) and `kplay race` (to
/// the end) alike: first the reference run for F* ([`ValidExperiment::reference_run`]), then
/// every applicable algorithm against it ([`race_of`], tolerance [`race_tolerance`]).
pub struct RaceJob {
    reference: Option<lp::Run>,
    race: Option<Race<lp::Run>>,
    reference_iter: usize,
    tensor: Option<GramTensor>,
}

impl RaceJob {
    /// Start with the reference run (on the tensor path, on the built Gram tensor).
    pub fn new(valid: &ValidExperiment, tensor: Option<GramTensor>) -> Result<Self> {
        let reference = valid.reference_run(tensor.as_ref())?;
        Ok(Self { reference: Some(reference), race: None, reference_iter: 0, tensor })
    }

    /// Work for about `budget_ms` (at least one step): the reference run, then the race's rounds.
    pub fn advance(&mut self, valid: &ValidExperiment, budget_ms: f64) -> Result<()> {
        let t0 = web_time::Instant::now();
        if let Some(r) = self.reference.as_mut() {
            crate::clock::within(budget_ms, || {
                !crate::clock::deadline_passed() && r.step().is_some()
            });
            if r.status != Stop::Running || crate::clock::deadline_passed() {
                let f_star = lp::reference_value(r)?;
                self.reference_iter = r.last().iter;
                self.reference = None;
                let tol = race_tolerance(valid.spec.solver.tol);
                self.race = Some(race_of(valid, f_star, tol, self.tensor.as_ref())?);
            }
        }
        let left = budget_ms - crate::clock::ms_since(t0);
        if let Some(race) = self.race.as_mut().filter(|_| left > 0.0) {
            race.run_for(left);
        }
        Ok(())
    }

    /// Run to the end (the CLI), or until `kplay --time-limit` passes: the reference run, then
    /// the race's rounds by [`Race::run`] (which honours the deadline; `advance`'s time slices
    /// are the page's).
    pub fn run(&mut self, valid: &ValidExperiment) -> Result<()> {
        while self.reference.is_some() {
            self.advance(valid, 0.0)?;
        }
        if let Some(race) = self.race.as_mut() {
            race.run_parallel();
        }
        Ok(())
    }

    /// The reference run while F* is being computed.
    pub fn reference(&self) -> Option<&lp::Run> {
        self.reference.as_ref()
    }

    /// The race, once F* is known.
    pub fn race(&self) -> Option<&Race<lp::Run>> {
        self.race.as_ref()
    }

    /// The reference run's iterations (once it has ended).
    pub fn reference_iter(&self) -> usize {
        self.reference_iter
    }
}

/// Every applicable paper-A algorithm against F* (see [`super::race`]).
pub fn race(spec: &Experiment) -> Result<Value> {
    let valid = spec.validate()?;
    // The tensor path races on its built Gram tensor (F* from the same tensor).
    let tensor = match valid.checked.path {
        crate::experiment::lp::PathSpec::Tensor => Some(valid.build_tensor()?),
        crate::experiment::lp::PathSpec::Features => None,
    };
    let mut job = RaceJob::new(&valid, tensor)?;
    job.run(&valid)?;
    let race = job.race().ok_or_else(|| {
        crate::error::KpError::NonFinite("the race did not start: no reference F*".into())
    })?;
    let f_star = race.target().map_or(f64::NAN, |t| t.f_star);
    let lanes: Vec<Value> = race.standings().iter().map(|s| s.to_json()).collect();
    Ok(json!({
        "paper": "lp",
        "f_star": f_star,
        "reference_newton_iterations": job.reference_iter(),
        "lanes": lanes,
    }))
}
