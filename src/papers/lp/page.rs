//! Paper A's page as a state machine, natively (issue 20: "the state machines now in src/web/"
//! move into the core): one experiment, its running solver, its Gram tensor (tensor path; built
//! by a worker and adopted here), its race. The wasm `Playground` only translates this to
//! JavaScript; every decision — when the data are regenerated, when the tensor is kept, what a
//! step after the end does — is made and tested here.

use super::algorithm::LpAlgorithm;
use super::spec::{LpProblem, LpRun, LpSpec, PathSpec};
use crate::error::{KpError, Result};
use crate::exec::{Record, Stop};
use crate::papers::lp::run::RaceJob;
use crate::tensor::GramTensor;

/// One page experiment: the checked spec and its data, the run under the executor (none on the
/// tensor path until the Gram tensor is adopted), the tensor, the race.
pub struct LpPage {
    valid: LpProblem,
    run: Option<LpRun>,
    tensor: Option<GramTensor>,
    build_ms: f64,
    race: Option<RaceJob>,
    digest: String,
}

/// What the page's race shows: `idle` (none), `reference` (F* being computed, with the
/// reference run's iterations), `racing`, `done`.
pub enum RacePhase<'a> {
    /// No race.
    Idle,
    /// The reference run for F*.
    Reference(&'a LpRun),
    /// The lanes, running or done.
    Lanes(&'a RaceJob, &'a crate::exec::Race<LpAlgorithm>),
}

impl LpPage {
    /// Parse and check a spec (one message naming the field), build its data and start the
    /// solver at α = 0 (features path; the tensor path waits for its Gram tensor).
    pub fn new(spec_json: &str) -> Result<Self> {
        let valid = LpSpec::from_json(spec_json)?.validate()?;
        let digest = valid.data.digest();
        let mut me = Self { valid, run: None, tensor: None, build_ms: 0.0, race: None, digest };
        me.restart()?;
        Ok(me)
    }

    /// Restart the solver from α = 0 on the same data (a built tensor is kept); ends a race.
    pub fn restart(&mut self) -> Result<()> {
        self.race = None;
        self.run = match (self.valid.checked.path, &self.tensor) {
            (PathSpec::Features, _) => Some(self.valid.start()?),
            (PathSpec::Tensor, Some(t)) => Some(self.valid.start_with_tensor(t.clone())?),
            (PathSpec::Tensor, None) => None,
        };
        Ok(())
    }

    /// Apply a new spec. The data are regenerated only if the data part changed (moving the p
    /// or γ slider restarts the solver on the same data), and the Gram tensor is kept while its
    /// key (data digest, kernel, q) is unchanged. On error the old state is kept.
    pub fn update(&mut self, spec_json: &str) -> Result<()> {
        let spec = LpSpec::from_json(spec_json)?;
        let old_key = self.valid.tensor_key();
        if spec.data == self.valid.spec.data {
            self.valid.retune(spec)?;
        } else {
            self.valid = spec.validate()?;
            self.digest = self.valid.data.digest();
        }
        if self.valid.tensor_key() != old_key {
            self.tensor = None;
        }
        self.restart()
    }

    /// Adopt a Gram tensor built elsewhere (a worker) for tensor key `key`, and restart the
    /// solve on it. Refused, keeping the state, unless the key is this experiment's and the
    /// values fit (count C(n+q−1, q), all finite). `build_ms` is kept when it is a time.
    pub fn adopt_tensor(&mut self, key: &str, values: Vec<f64>, build_ms: f64) -> Result<()> {
        let t = self.valid.tensor_from_values(key, values)?;
        let old = self.tensor.replace(t);
        if let Err(e) = self.restart() {
            self.tensor = old;
            return Err(e);
        }
        self.build_ms = if build_ms.is_finite() && build_ms >= 0.0 { build_ms } else { f64::NAN };
        Ok(())
    }

    /// One iteration while the run is going: 1 if it advanced, 0 after the end (converged, at
    /// the cap, stalled, non-finite) or before the tensor is in place.
    pub fn step(&mut self) -> usize {
        self.run.as_mut().map_or(0, |r| r.step().is_some() as usize)
    }

    /// Iterations while the run is going and `budget_ms` has not elapsed (at least one step):
    /// the executor's slice ([`LpRun::run_for`]).
    pub fn run_for(&mut self, budget_ms: f64) -> usize {
        self.run.as_mut().map_or(0, |run| run.run_for(budget_ms))
    }

    /// The last record, the stop reason and the phase (`solving`, or `needs_build` on the
    /// tensor path before the Gram tensor is adopted: NaN measures at iteration 0).
    pub fn last(&self) -> (Record, Stop, &'static str) {
        match &self.run {
            Some(run) => (run.last(), run.stop(), "solving"),
            None => {
                let nan = Some(f64::NAN);
                let z = Record {
                    primal: nan,
                    dual: nan,
                    gap: nan,
                    rel_gap: nan,
                    step: Some(0.0),
                    backtracks: Some(0),
                    ..Record::default()
                };
                (z, Stop::Running, "needs_build")
            }
        }
    }

    /// Start a race (features path): the reference F* by the dual Newton method, then every
    /// applicable algorithm ([`RaceJob`], the same job `kplay race` runs to the end).
    pub fn start_race(&mut self) -> Result<()> {
        if self.valid.checked.path != PathSpec::Features {
            return Err(KpError::Spec(
                "model.path: the race runs on the features path (choose path = features)".into(),
            ));
        }
        self.race = Some(RaceJob::new(&self.valid, None)?);
        Ok(())
    }

    /// Advance the race for about `budget_ms`.
    pub fn race_for(&mut self, budget_ms: f64) -> Result<()> {
        if let Some(job) = self.race.as_mut() {
            job.advance(&self.valid, budget_ms)?;
        }
        Ok(())
    }

    /// Where the race is.
    pub fn race_phase(&self) -> RacePhase<'_> {
        match &self.race {
            None => RacePhase::Idle,
            Some(job) => match (job.reference(), job.race()) {
                (Some(r), _) => RacePhase::Reference(r),
                (None, Some(race)) => RacePhase::Lanes(job, race),
                (None, None) => RacePhase::Idle,
            },
        }
    }

    /// The checked experiment (spec, data, parameters).
    pub fn valid(&self) -> &LpProblem {
        &self.valid
    }

    /// The running solver (none before the tensor path's Gram tensor is adopted).
    pub fn run(&self) -> Option<&LpRun> {
        self.run.as_ref()
    }

    /// Whether the Gram tensor is in place (tensor path).
    pub fn has_tensor(&self) -> bool {
        self.tensor.is_some()
    }

    /// Milliseconds the adopted Gram tensor took to build (NaN if not reported).
    pub fn build_ms(&self) -> f64 {
        self.build_ms
    }

    /// The data's bit digest (equal to `kplay digest` on the same spec).
    pub fn digest(&self) -> &str {
        &self.digest
    }
}
