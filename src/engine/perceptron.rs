//! Paper D (Ramdas, Peña) in the engine: a validated [`Session`] (2-D data, G, ρ_K and the
//! running perceptron-family algorithm, a [`super::Stepper`] under the executor's [`super::Run`])
//! run to its end, and the race of the six algorithms (each a lane of [`Race`], capped by the
//! race). A run ends with a verified separator (`Gα > 0`), a verified ε-certificate
//! (`‖p‖_G ≤ ε`), or the iteration cap.

use serde_json::{json, Value};

use std::sync::Arc;

use super::race::{Lane, Race};
use super::report::Report;
use crate::data::Dataset;
use crate::error::Result;
use crate::experiment::perceptron::{build_points, DataSpec, PerceptronSpec, RaceEntry, Session};
use crate::solvers::perceptron::margin::Separability;
use crate::solvers::perceptron::{start, Outcome, PerceptronAlgorithm, PerceptronProblem};
use crate::spec_json::Paper;
use crate::stepper::Stepper;

/// One lane of paper D's race: any of its algorithms.
type Algorithm = Box<dyn Stepper + Send>;

/// The spec's points as a [`Dataset`].
pub fn dataset(data: &DataSpec) -> Result<Dataset> {
    let (x, y) = build_points(data)?;
    Ok(Dataset {
        x,
        y: nalgebra::DVector::from_vec(y),
        w_true: None,
        feature_names: vec!["x1".into(), "x2".into()],
    })
}

/// Run a paper-D experiment to its verified outcome (or the cap) and report `alpha`, `p` and
/// the outcome with its independent check.
/// The report's `time_ms` is the whole run's (paper D's iterations are O(n) and not timed one
/// by one).
pub fn run(spec: &PerceptronSpec) -> Result<Report> {
    let t0 = web_time::Instant::now();
    let mut session = Session::new(spec.clone())?;
    let setup_ms = t0.elapsed().as_secs_f64() * 1e3;
    let t1 = web_time::Instant::now();
    let status = session.run_to_end();
    let mut last = session.record();
    last.elapsed_ms = t1.elapsed().as_secs_f64() * 1e3;
    let outcome = session.outcome().ok().flatten();
    let mut solution = session.solution();
    solution["outcome"] = json!(outcome);
    solution["margin"] = json!(session.margin);
    Ok(Report {
        paper: Paper::Perceptron,
        status,
        iterations: last.iter,
        last,
        data_digest: session.digest.clone(),
        setup_ms,
        solution,
        trace: session.trace(),
        extra: serde_json::Map::new(),
    })
}

/// Paper D's race: the six algorithms on one session's problem (64 iterations per lane per
/// round), each to its verified outcome or the cap, with the paper's bound for each.
pub struct PerceptronRace {
    problem: Arc<PerceptronProblem>,
    /// The lanes' algorithms with their parameters (the certificate tolerances).
    algorithms: [PerceptronAlgorithm; 6],
    race: Race<Algorithm>,
    bounds: Vec<Option<f64>>,
}

impl PerceptronRace {
    /// The six algorithms on the session's data with its spec's race ε (NVN, ISNKPVN), δ
    /// (SNKPVN) and γ (ISNKPVN) ([`PerceptronSpec::race_parameters`]), each capped at its
    /// `max_iter`: the page's Race button and `kplay race` alike.
    pub fn new(session: &Session) -> Result<Self> {
        let (epsilon, delta, gamma) = session.spec.race_parameters()?;
        let algs = [
            PerceptronAlgorithm::Perceptron,
            PerceptronAlgorithm::Nkp,
            PerceptronAlgorithm::Snkp,
            PerceptronAlgorithm::Nvn { epsilon },
            PerceptronAlgorithm::Snkpvn { delta },
            PerceptronAlgorithm::Isnkpvn { gamma, epsilon },
        ];
        let separable = session.margin.separability == Separability::Separable;
        let bounds = algs.iter().map(|a| session.bound(a, separable)).collect();
        let mut lanes = Vec::new();
        for (k, a) in algs.into_iter().enumerate() {
            lanes.push((k, a.name().to_string(), start(session.problem.clone(), a)?));
        }
        let race = Race::new(lanes).chunked(64).capped(session.spec.max_iter);
        Ok(Self { problem: session.problem.clone(), algorithms: algs, race, bounds })
    }

    /// Step within `budget_ms` (see [`Race::run_for`]).
    pub fn run_for(&mut self, budget_ms: f64) {
        self.race.run_for(budget_ms);
    }

    /// Every lane to its end.
    pub fn run(&mut self) {
        self.race.run();
    }

    /// Every lane to its end, the lanes on [`crate::par::threads`] threads (see
    /// [`Race::run_parallel`]).
    pub fn run_parallel(&mut self) {
        self.race.run_parallel();
    }

    /// Whether every algorithm has finished.
    pub fn finished(&self) -> bool {
        !self.race.running()
    }

    /// The independent check of a finished lane's outcome: the outcome's word and whether the
    /// check passed ("running" while it runs, "failed" on a non-finite value).
    fn checked(&self, lane: &Lane<Algorithm>) -> (&'static str, bool) {
        if lane.running() {
            return ("running", false);
        }
        let (stop, iter) = (lane.stop(), lane.solver.record().iter);
        let algorithm = &self.algorithms[lane.key];
        match Outcome::of(stop, iter, &lane.solver.solution(), algorithm, &self.problem) {
            Ok(Outcome::Separator { check, .. }) => ("separator", check.verified),
            Ok(Outcome::Certificate { check, .. }) => ("certificate", check.verified),
            Ok(Outcome::IterationCap { .. }) => ("cap", false),
            Err(_) => ("failed", false),
        }
    }

    /// The standings for the page's race plot.
    pub fn entries(&self) -> Vec<RaceEntry> {
        self.race
            .lanes()
            .iter()
            .zip(&self.bounds)
            .map(|(l, b)| {
                let (outcome, verified) = self.checked(l);
                RaceEntry {
                    name: l.name.clone(),
                    iterations: l.solver.record().iter,
                    outcome: outcome.into(),
                    verified,
                    bound: *b,
                    ms: l.ms,
                }
            })
            .collect()
    }

    /// Each lane as `kplay race` prints it: its [`super::race::Standing`] with the outcome,
    /// its independent check and the paper's bound.
    pub fn lanes_json(&self) -> Vec<Value> {
        self.race
            .standings()
            .iter()
            .zip(self.race.lanes())
            .zip(&self.bounds)
            .map(|((st, l), b)| {
                let (outcome, verified) = self.checked(l);
                let mut v = st.to_json();
                v["outcome"] = outcome.into();
                v["verified"] = verified.into();
                v["bound"] = json!(b);
                v
            })
            .collect()
    }
}

/// The six algorithms of paper D on the spec's data (ε, δ, γ: the spec's `race`, else its
/// algorithm's, else 0.01, 0.01, 2), each to its verified outcome or the cap.
pub fn race(spec: &PerceptronSpec) -> Result<Value> {
    let session = Session::new(spec.clone())?;
    let mut race = PerceptronRace::new(&session)?;
    race.run_parallel();
    Ok(json!({"paper": "perceptron", "margin": session.margin, "lanes": race.lanes_json()}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datasets::plane::{Classification2d, Shape2d};
    use crate::kernels::Kernel;

    #[test]
    fn gaussian_kernel_separates_circles_and_race_results_are_verified() {
        let data = DataSpec::Generated {
            set: Classification2d {
                shape: Shape2d::Circles { noise: 0.05, factor: 0.4 },
                n: 60,
                label_noise: 0.0,
                seed: 2,
            },
        };
        let lin = Session::new(PerceptronSpec {
            data: data.clone(),
            algorithm: PerceptronAlgorithm::Nvn { epsilon: 0.01 },
            ..Default::default()
        })
        .unwrap();
        assert_ne!(lin.margin.separability, Separability::Separable);
        let kernel = Kernel::gaussian(crate::kernels::Bandwidth::Fixed(0.5));
        let s = Session::new(PerceptronSpec { data, kernel, ..Default::default() }).unwrap();
        assert_eq!(s.margin.separability, Separability::Separable);
        let mut race = PerceptronRace::new(&s).unwrap();
        while !race.finished() {
            race.run_for(1e9);
        }
        let e = race.entries();
        assert_eq!(e.len(), 6);
        for r in &e {
            assert!(r.outcome == "separator" && r.verified, "{r:?}");
        }
        // The CLI's lanes read the same standings.
        for (j, r) in race.lanes_json().iter().zip(&e) {
            assert_eq!(
                (j["algorithm"].as_str(), j["iterations"].as_u64(), j["status"].as_str()),
                (Some(r.name.as_str()), Some(r.iterations as u64), Some("separator"))
            );
        }
    }

    #[test]
    fn the_race_runs_the_specs_race_parameters_and_refuses_bad_ones_by_name() {
        let base = r#"{"paper": "perceptron", "data": {"kind": "generated", "set": {"shape": {"kind": "blobs", "margin": -1.5, "spread": 0.5}, "n": 40, "label_noise": 0, "seed": 4}}, "kernel": {"kind": "linear"}, "algorithm": {"kind": "nvn", "epsilon": 0.03}, "max_iter": 20000"#;
        let spec = |race: &str| PerceptronSpec::from_json(&format!("{base}{race}}}")).unwrap();
        // Absent: the algorithm's ε, else the defaults; given: the race's own.
        assert_eq!(spec("").race_parameters().unwrap(), (0.03, 0.01, 2.0));
        let s = spec(r#", "race": {"delta": 0.05, "gamma": 4}"#);
        assert_eq!(s.race_parameters().unwrap(), (0.03, 0.05, 4.0));
        // Each lane is the algorithm with those parameters run alone through the executor.
        let v = race(&s).unwrap();
        let session = Session::new(s.clone()).unwrap();
        let algs = [
            PerceptronAlgorithm::Nvn { epsilon: 0.03 },
            PerceptronAlgorithm::Snkpvn { delta: 0.05 },
            PerceptronAlgorithm::Isnkpvn { gamma: 4.0, epsilon: 0.03 },
        ];
        for (lane, a) in v["lanes"].as_array().unwrap()[3..].iter().zip(algs) {
            let mut run = crate::stepper::Run::new(start(session.problem.clone(), a).unwrap())
                .capped(s.max_iter);
            let stop = run.run();
            assert_eq!(lane["status"].as_str(), Some(stop.word()), "{lane}");
            assert_eq!(lane["iterations"].as_u64(), Some(run.last().iter as u64), "{lane}");
            assert_eq!(lane["verified"], true, "{lane}");
        }
        // δ = 0.05 certifies sooner than δ = 0.01 would (Lemma 9's bound falls as 1/δ).
        let default = race(&spec("")).unwrap();
        let snkpvn = |v: &Value| v["lanes"][4]["iterations"].as_u64().unwrap();
        assert!(snkpvn(&v) < snkpvn(&default), "{} vs {}", snkpvn(&v), snkpvn(&default));
        // A bad value names its field, for `kplay race` and `kplay run` alike.
        for (race_json, field) in [
            (r#", "race": {"gamma": 1}"#, "race.gamma"),
            (r#", "race": {"epsilon": 0}"#, "race.epsilon"),
            (r#", "race": {"delta": -1}"#, "race.delta"),
        ] {
            let e = race(&spec(race_json)).unwrap_err().to_string();
            assert!(e.contains(field), "{e}");
            let e = run(&spec(race_json)).unwrap_err().to_string();
            assert!(e.contains(field), "{e}");
        }
        let e = PerceptronSpec::from_json(&format!("{base}, \"race\": {{\"eta\": 1}}}}"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("race") && e.contains("eta"), "{e}");
        // Written back only when given, so the links of specs without a race stay as they were.
        assert!(!spec("").to_json().contains("race"));
        let back = PerceptronSpec::from_json(&s.to_json()).unwrap();
        assert_eq!(back, s);
    }
}
