//! Page B's state machine, [`MrlsrPage`] (pure core: the wasm `MrlsrPage` only translates JSON
//! and draws into canvases, tests/mrlsr_page.rs steps it natively):
//!
//! - **the fit**: the session ([`MrlsrSession`]) refitted at a new (m, λ) from its cached
//!   eigendecomposition; a refit by hand drops the root search;
//! - **the sweep**: from the current (m, λ) to a target in [`SWEEP_FRAMES`] refits
//!   ([`ParamSweep`], λ on a log scale), then the root search at the target ([`RootWatch`], one
//!   Newton or bisection step per call), as the executor's [`Task`] (one step per unit);
//! - **the equivalence report**: Fig. 1's last run, kept for its plots;
//! - the eigendecomposition's time, as measured by the caller (not finite or negative: NaN).

use super::cv::EquivalenceReport;
use super::root_watch::RootWatch;
use super::sections::MrlsrSpec;
use super::sweep::{ParamSweep, SWEEP_FRAMES};
use super::{MrlsrSession, Summary};
use crate::error::{KpError, Result};
use crate::exec::{Progress, Task};

/// Paper B's page: the core's session, its sweep and the root search at the sweep's target,
/// and the last equivalence experiment.
pub struct MrlsrPage {
    session: MrlsrSession,
    eigen_ms: f64,
    equivalence: Option<EquivalenceReport>,
    sweep: Option<ParamSweep>,
    /// The root search at the sweep's target, stepped after its last refit and drawn on F(C).
    root: Option<RootWatch>,
}

impl MrlsrPage {
    /// The page on `session`, whose eigendecomposition took `eigen_ms` (kept if finite and
    /// non-negative, else NaN); no sweep, no equivalence report.
    pub fn new(session: MrlsrSession, eigen_ms: f64) -> Self {
        let eigen_ms = if eigen_ms.is_finite() && eigen_ms >= 0.0 { eigen_ms } else { f64::NAN };
        Self { session, eigen_ms, equivalence: None, sweep: None, root: None }
    }

    /// The session of the fit shown.
    pub fn session(&self) -> &MrlsrSession {
        &self.session
    }

    /// The eigendecomposition's time (ms) as given, NaN if it was not a time.
    pub fn eigen_ms(&self) -> f64 {
        self.eigen_ms
    }

    /// True if `spec` has the same data and kernel as this page (only m, λ changed).
    pub fn same_model(&self, spec: &MrlsrSpec) -> bool {
        self.session.same_model(spec)
    }

    /// Refit at a new (m, λ) from the cached eigendecomposition; the root search is dropped.
    /// On bad input the previous fit (and its root search) is kept.
    pub fn refit(&mut self, m: f64, lambda: f64) -> Result<()> {
        self.session.refit(m, lambda)?;
        self.root = None;
        Ok(())
    }

    /// Start a sweep from the current (m, λ) to the given one in [`SWEEP_FRAMES`] refits, then
    /// the root search at the target; nothing is refitted until [`Self::sweep_step`]. The target
    /// is checked first (a message naming m or λ); a refused target changes nothing.
    pub fn sweep_to(&mut self, m: f64, lambda: f64) -> Result<()> {
        crate::solvers::mrlsr::check_m_lambda(m, lambda)?;
        let spec = self.session.spec();
        self.sweep = Some(ParamSweep::new((spec.m, spec.lambda), (m, lambda), SWEEP_FRAMES));
        self.root = None;
        Ok(())
    }

    /// One refit of the sweep (its next point) or, the target fitted, one step of the root
    /// search there; false when neither is left (or there is no sweep).
    pub fn sweep_step(&mut self) -> Result<bool> {
        let Some(sw) = self.sweep.as_mut() else { return Ok(false) };
        if !sw.ended() {
            self.session.sweep_step(sw)?;
            if sw.ended() {
                // The direct fit refuses what the search cannot do: then no search.
                self.root = self.session.root_watch().ok();
            }
            return Ok(true);
        }
        match self.root.as_mut() {
            Some(r) if !r.ended() => {
                r.step();
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Back to the sweep's start (its first fit), no root search.
    pub fn sweep_reset(&mut self) -> Result<()> {
        self.root = None;
        if let Some(sw) = self.sweep.as_mut() {
            self.session.sweep_reset(sw)?;
        }
        Ok(())
    }

    /// Whether no sweep is under way (none started, or its target fitted and the root search
    /// there ended).
    pub fn sweep_ended(&self) -> bool {
        self.sweep.is_none_or(|s| s.ended()) && self.root.as_ref().is_none_or(|r| r.ended())
    }

    /// Whether a sweep exists (started, maybe ended).
    pub fn has_sweep(&self) -> bool {
        self.sweep.is_some()
    }

    /// `(refits done, refits in all)` of the sweep (`(0, 0)` without one).
    pub fn sweep_progress(&self) -> (usize, usize) {
        self.sweep.map_or((0, 0), |s| (s.done(), s.frames()))
    }

    /// The root search at the sweep's target, once its last refit is done.
    pub fn root(&self) -> Option<&RootWatch> {
        self.root.as_ref()
    }

    /// Forget the sweep and its root search (m or λ moved by hand).
    pub fn sweep_drop(&mut self) {
        self.sweep = None;
        self.root = None;
    }

    /// The readouts of the current fit, with the eigendecomposition's time.
    pub fn summary(&self) -> Summary {
        self.session.summary(self.eigen_ms)
    }

    /// Fig. 1 on the current data and kernel at the current m ([`MrlsrSession::equivalence`]),
    /// kept as the last report; a refusal keeps the previous one.
    pub fn equivalence(
        &mut self,
        parts: usize,
        folds: usize,
        seed: u64,
    ) -> Result<&EquivalenceReport> {
        let report = self.session.equivalence(parts, folds, seed)?;
        Ok(self.equivalence.insert(report))
    }

    /// The last equivalence experiment's report, if one ran.
    pub fn last_equivalence(&self) -> Option<&EquivalenceReport> {
        self.equivalence.as_ref()
    }
}

/// The sweep and its root search as a task of the executor: one step per unit.
impl Task for MrlsrPage {
    type Error = KpError;
    fn unit(&mut self) -> Result<Progress> {
        Ok(if self.sweep_step()? { Progress::More } else { Progress::Done })
    }
}
