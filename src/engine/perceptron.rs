//! Paper D (Ramdas, Peña) in the engine: a validated [`Session`] (2-D data, G, ρ_K and the
//! running perceptron-family algorithm) behind [`Stepper`]. A run ends with a verified
//! separator (`Gα > 0`), a verified ε-certificate (`‖p‖_G ≤ ε`), or the iteration cap.

use serde_json::{json, Value};

use super::{Paper, Record, Report, Run, Stepper, Stop};
use crate::data::Dataset;
use crate::error::Result;
use crate::solvers::perceptron::session::{build_points, DataSpec, PerceptronSpec, Race, Session};
use crate::solvers::perceptron::PerceptronAlgorithm;
use crate::solvers::perceptron::{Halt, PerceptronRecord};

/// A paper-D iteration's record in the engine's shape.
pub fn record_of(r: &PerceptronRecord, elapsed_ms: f64) -> Record {
    Record { iter: r.iter, min_g_alpha: Some(r.min_g_alpha), norm_p_g: r.norm_p_g, elapsed_ms, ..Record::default() }
}

/// A session's state in the engine's terms.
pub fn stop_of(s: &Session) -> Stop {
    match s.halted() {
        Some(Halt::Separator) => Stop::Separator,
        Some(Halt::Certificate) => Stop::Certificate,
        Some(Halt::Failed) => Stop::Failed,
        None if s.finished() => Stop::MaxIterations,
        None => Stop::Running,
    }
}

/// Replace a CSV `path` by the file's text through `read`.
pub fn resolve_csv(data: &mut DataSpec, read: &mut dyn FnMut(&str) -> Result<String>) -> Result<()> {
    if let DataSpec::Csv { text: t @ None, path: Some(p) } = data {
        *t = Some(read(p)?);
    }
    Ok(())
}

/// The spec's points as a [`Dataset`].
pub fn dataset(data: &DataSpec) -> Result<Dataset> {
    let (x, y) = build_points(data)?;
    Ok(Dataset { x, y: nalgebra::DVector::from_vec(y), w_true: None, feature_names: vec!["x1".into(), "x2".into()] })
}

/// A session with its solver time.
pub struct PerceptronRun {
    pub session: Session,
    elapsed_ms: f64,
}

impl PerceptronRun {
    /// Validate the spec, build G and ρ_K, start the algorithm.
    pub fn start(spec: &PerceptronSpec) -> Result<Self> {
        Ok(Self { session: Session::new(spec.clone())?, elapsed_ms: 0.0 })
    }
}

impl Stepper for PerceptronRun {
    fn record(&self) -> Record {
        record_of(&self.session.record(), self.elapsed_ms)
    }
    fn step(&mut self) -> Option<Record> {
        let t0 = web_time::Instant::now();
        if !self.session.step() {
            return None;
        }
        self.elapsed_ms += t0.elapsed().as_secs_f64() * 1e3;
        Some(self.record())
    }
    fn stop(&self) -> Stop {
        stop_of(&self.session)
    }
    fn solution(&self) -> Value {
        let outcome = self.session.outcome().ok().flatten();
        json!({ "alpha": self.session.alpha(), "p": self.session.p(), "outcome": outcome })
    }
}

/// Run a paper-D experiment to its verified outcome (or the cap) and report `alpha`, `p` and
/// the outcome with its independent check.
pub fn run(spec: &PerceptronSpec) -> Result<Report> {
    let t0 = web_time::Instant::now();
    let pr = PerceptronRun::start(spec)?;
    let setup_ms = t0.elapsed().as_secs_f64() * 1e3;
    let digest = pr.session.digest.clone();
    let mut run = Run::new(Box::new(pr));
    let status = run.run();
    let last = run.last();
    Ok(Report { paper: Paper::Perceptron, status, iterations: last.iter, last, data_digest: digest, setup_ms, solution: run.solution(), trace: run.trace() })
}

/// The six algorithms of paper D on the spec's data (ε, δ, γ from the spec's algorithm where it
/// has them, else the page's 0.01, 0.01, 2), each to its verified outcome or the cap.
pub fn race(spec: &PerceptronSpec) -> Result<Value> {
    let session = Session::new(spec.clone())?;
    let (mut epsilon, mut delta, mut gamma) = (0.01, 0.01, 2.0);
    match spec.algorithm {
        PerceptronAlgorithm::Nvn { epsilon: e } => epsilon = e,
        PerceptronAlgorithm::Snkpvn { delta: d } => delta = d,
        PerceptronAlgorithm::Isnkpvn { gamma: g, epsilon: e } => {
            gamma = g;
            epsilon = e;
        }
        _ => {}
    }
    let mut race = Race::new(&session, epsilon, delta, gamma)?;
    while !race.finished() {
        race.run_for(1e3);
    }
    Ok(json!({"paper": "perceptron", "margin": session.margin, "lanes": race.entries()}))
}
