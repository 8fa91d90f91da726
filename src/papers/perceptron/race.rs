//! Paper D's race, [`PerceptronRace`]: the six algorithms on one session's problem, each a lane
//! of the executor's [`Race`] capped at the spec's `max_iter`, with the race ε, δ, γ of the
//! checked spec ([`super::PerceptronChecked::race_parameters`]); each finished lane's outcome is
//! verified independently of its algorithm ([`Outcome::of`]). The page's Race button and
//! `kplay race` run this same race.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::session::PerceptronSession;
use crate::error::Result;
use crate::exec::Stepper;
use crate::exec::{Lane, Race};
use crate::solvers::perceptron::margin::Separability;
use crate::solvers::perceptron::{start, Outcome, PerceptronAlgorithm, PerceptronProblem};

/// One lane of paper D's race: any of its algorithms.
type Algorithm = Box<dyn Stepper + Send>;

/// One racer's result in [`PerceptronRace::entries`] (the page's race plot).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RaceEntry {
    pub name: String,
    pub iterations: usize,
    /// "separator", "certificate", "cap", "running" or "failed".
    pub outcome: String,
    /// Whether the independent check passed.
    pub verified: bool,
    /// The paper's bound for this algorithm on this data (if any).
    pub bound: Option<f64>,
    /// Milliseconds of stepping.
    pub ms: f64,
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
    /// The six algorithms on the session's data with its checked spec's race ε (NVN, ISNKPVN),
    /// δ (SNKPVN) and γ (ISNKPVN) ([`super::PerceptronChecked::race_parameters`]), each capped at its
    /// `max_iter`: the page's Race button and `kplay race` alike.
    pub fn new(session: &PerceptronSession) -> Result<Self> {
        let (epsilon, delta, gamma) = session.spec().race_parameters();
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
        let race = Race::new(lanes).chunked(64).capped(session.spec().max_iter);
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

    /// Each lane as `kplay race` prints it: its [`crate::exec::Standing`] with the outcome,
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
