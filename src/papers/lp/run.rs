//! Paper A (Salzo, Suykens, Rosasco), `kplay run` and `kplay race`: a validated experiment's run
//! ([`crate::papers::lp::LpSession`], its algorithm under the one executor) to its end, and
//! paper A's race. The executor owns the stopping rule (relative duality gap ≤ tol, the cap,
//! stall, deadline); the algorithms stop only for their own reasons (a stalled linesearch, a
//! non-finite value), all reported as the one [`crate::exec::Stop`].

use serde_json::{json, Value};

use crate::error::Result;
use crate::exec::{run_task_for, Progress, Stop, Task};
use crate::exec::{Race, Target};
use crate::papers::lp::{self, LpAlgorithm, LpProblem, LpSession, LpSpec};
use crate::papers::report::Report;
use crate::spec_json::Paper;
use crate::tensor::GramTensor;

/// Run a paper-A experiment to the end and report (`setup_ms`: data, features or Gram tensor).
pub fn run(spec: &LpSpec) -> Result<Report> {
    let t0 = web_time::Instant::now();
    let mut lp = LpSession::start(spec)?;
    let digest = lp.valid.data.digest();
    let setup_ms = crate::clock::ms_since(t0);
    lp.run.run();
    let solution = lp.solution();
    Ok(Report::of_run(Paper::Lp, &lp.run, digest, setup_ms, solution))
}

/// Paper A's race lanes under their rules ([`LpProblem::race_lanes`],
/// [`LpProblem::lane_watch`]), keyed by position.
fn lanes(valid: &LpProblem, tensor: Option<&GramTensor>) -> Result<Race<LpAlgorithm>> {
    let watch = valid.lane_watch();
    let lanes = valid
        .race_lanes(tensor)?
        .into_iter()
        .enumerate()
        .map(|(k, (name, algorithm))| (k, name, algorithm, watch.clone()));
    Ok(Race::watched(lanes))
}

/// Paper A's race: every applicable algorithm ([`LpProblem::race_lanes`]) until it is
/// within `tol` of F* (or stops), one iteration per lane per round.
pub fn race_of(
    valid: &LpProblem,
    f_star: f64,
    tol: f64,
    tensor: Option<&GramTensor>,
) -> Result<Race<LpAlgorithm>> {
    Ok(lanes(valid, tensor)?.with_target(Target { f_star, tol }))
}

/// One lane's curve (the race plot's input).
pub use crate::plots::lp::RaceCurve;

/// A paper-A race's curves: each lane's relative error `(F(w_k) − F*)/F*` against the
/// iteration and the time, from its trace (the page's race plot).
pub fn race_curves(race: &Race<LpAlgorithm>) -> Vec<RaceCurve> {
    let Some(t) = race.target() else { return Vec::new() };
    race.lanes()
        .iter()
        .map(|l| {
            (
                l.name.clone(),
                l.trace()
                    .iter()
                    .map(|r| (r.iter as f64, r.elapsed_ms, t.rel_err(r.primal.unwrap_or(f64::NAN))))
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
/// the end) alike: first the reference run for F* ([`LpProblem::reference_run`]), then
/// every applicable algorithm against it ([`race_of`], tolerance [`race_tolerance`]).
pub struct RaceJob {
    reference: Option<lp::LpRun>,
    race: Option<Race<LpAlgorithm>>,
    reference_iter: usize,
    /// How the reference run ended (running until it has).
    reference_stop: Stop,
    /// The best primal value the reference run reached (F* once it has ended by itself).
    reference_best: f64,
    tensor: Option<GramTensor>,
}

impl RaceJob {
    /// Start with the reference run (on the tensor path, on the built Gram tensor).
    pub fn new(valid: &LpProblem, tensor: Option<GramTensor>) -> Result<Self> {
        let reference = valid.reference_run(tensor.as_ref())?;
        Ok(Self {
            reference: Some(reference),
            race: None,
            reference_iter: 0,
            reference_stop: Stop::Running,
            reference_best: f64::NAN,
            tensor,
        })
    }

    /// Work for about `budget_ms` (at least one step): the reference run, then the race's rounds.
    /// A reference run cut by the deadline (`kplay --time-limit`) gives no F*: the race is then
    /// started without a target, so no lane is judged converged against a value that is not the
    /// optimum, and every lane stands at `time_limit`.
    pub fn advance(&mut self, valid: &LpProblem, budget_ms: f64) -> Result<()> {
        run_task_for(&mut RaceSlice { job: self, valid }, budget_ms)?;
        Ok(())
    }

    /// One unit: a step of the reference run (the race set up once it has ended), else a round
    /// of the race; done once every lane has ended.
    fn unit(&mut self, valid: &LpProblem) -> Result<Progress> {
        if let Some(r) = self.reference.as_mut() {
            r.end_at_deadline();
            if r.stop() == Stop::Running {
                r.step();
            }
            let stop = r.stop();
            if stop != Stop::Running {
                self.reference_iter = r.last().iter;
                self.reference_stop = stop;
                self.reference_best = lp::reference_value(r).unwrap_or(f64::NAN);
                let f_star =
                    if stop == Stop::TimeLimit { None } else { Some(lp::reference_value(r)?) };
                self.reference = None;
                let race = if let Some(f_star) = f_star {
                    let tol = race_tolerance(valid.spec.solver.tol);
                    race_of(valid, f_star, tol, self.tensor.as_ref())?
                } else {
                    lanes(valid, self.tensor.as_ref())?
                };
                self.race = Some(race);
            }
            return Ok(Progress::More);
        }
        match self.race.as_mut() {
            Some(race) => match race.unit() {
                Ok(p) => Ok(p),
                Err(never) => match never {},
            },
            None => Ok(Progress::Done),
        }
    }

    /// How the reference run for F* ended: `converged`, `stalled` (at rounding: its best is
    /// F*), `max_iterations`, or `time_limit` (cut: no F*, the lanes are not judged); running
    /// while it runs.
    pub fn reference_stop(&self) -> Stop {
        match &self.reference {
            Some(r) => r.stop(),
            None => self.reference_stop,
        }
    }

    /// The smallest primal value the ended reference run reached (NaN before).
    pub fn reference_best(&self) -> f64 {
        self.reference_best
    }

    /// Run to the end (the CLI), or until `kplay --time-limit` passes: the reference run, then
    /// the race's rounds by [`Race::run`] (which honours the deadline; `advance`'s time slices
    /// are the page's).
    pub fn run(&mut self, valid: &LpProblem) -> Result<()> {
        while self.reference.is_some() {
            self.advance(valid, 0.0)?;
        }
        if let Some(race) = self.race.as_mut() {
            race.run_parallel();
        }
        Ok(())
    }

    /// The reference run while F* is being computed.
    pub fn reference(&self) -> Option<&lp::LpRun> {
        self.reference.as_ref()
    }

    /// The race, once F* is known.
    pub fn race(&self) -> Option<&Race<LpAlgorithm>> {
        self.race.as_ref()
    }

    /// The reference run's iterations (once it has ended).
    pub fn reference_iter(&self) -> usize {
        self.reference_iter
    }
}

/// Every applicable paper-A algorithm against F* (see [`crate::exec::race`]).
pub fn race(spec: &LpSpec) -> Result<Value> {
    let valid = spec.validate()?;
    // The tensor path races on its built Gram tensor (F* from the same tensor).
    let tensor = match valid.checked.path {
        crate::papers::lp::PathSpec::Tensor => Some(valid.build_tensor()?),
        crate::papers::lp::PathSpec::Features => None,
    };
    let mut job = RaceJob::new(&valid, tensor)?;
    job.run(&valid)?;
    let race = job.race().ok_or_else(|| {
        crate::error::KpError::NonFinite("the race did not start: no reference F*".into())
    })?;
    let lanes: Vec<Value> = race.standings().iter().map(|s| s.to_json()).collect();
    let mut out = json!({
        "paper": "lp",
        "f_star": race.target().map(|t| t.f_star),
        "reference_newton_iterations": job.reference_iter(),
        "reference_status": job.reference_stop().word(),
        "lanes": lanes,
    });
    if race.target().is_none() {
        out["reference_best_primal"] = json!(finite_or_null(job.reference_best()));
        out["note"] = Value::String(format!(
            "the reference run for F* ({}) was cut by the time limit at iteration {}: F* is unknown (its best primal value is only an upper bound), so no lane is judged converged against it",
            valid.reference_algorithm().unwrap_or("dual_newton"),
            job.reference_iter()
        ));
    }
    Ok(out)
}

/// A finite number, or JSON null.
fn finite_or_null(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// A [`RaceJob`] with the experiment it races on, as the executor's [`Task`].
struct RaceSlice<'a> {
    job: &'a mut RaceJob,
    valid: &'a LpProblem,
}

impl Task for RaceSlice<'_> {
    type Error = crate::error::KpError;
    fn unit(&mut self) -> Result<Progress> {
        self.job.unit(self.valid)
    }
}
