//! ‖K‖₂ by power iteration, as a resumable state (the fixed point's step α and condition (11)).

use nalgebra::{DVector, SymmetricEigen};

use super::problem::RegularizationProblem;
use crate::rng::Rng;

/// `‖K‖₂` by power iteration as a steppable state (one product `Kv` per step), exactly as
/// [`RegularizationProblem::spectral_norm`] computes it, so a page can run it across frames.
#[derive(Debug, Clone)]
pub struct PowerIteration {
    v: DVector<f64>,
    kv: DVector<f64>,
    est: f64,
    iter: usize,
    pub(super) value: Option<f64>,
}

impl PowerIteration {
    /// Start on `problem` (for n ≤ 200 the value is computed exactly at once).
    pub fn new(problem: &RegularizationProblem) -> Self {
        let n = problem.n();
        if let Some(v) = problem.norm {
            return Self {
                v: DVector::zeros(0),
                kv: DVector::zeros(0),
                est: v,
                iter: 0,
                value: Some(v),
            };
        }
        if n <= 200 {
            let v = SymmetricEigen::new(problem.dense_gram())
                .eigenvalues
                .iter()
                .fold(0.0f64, |m, &v| m.max(v));
            return Self {
                v: DVector::zeros(0),
                kv: DVector::zeros(0),
                est: v,
                iter: 0,
                value: Some(v),
            };
        }
        let mut rng = Rng::new(0x5eed);
        let mut v = DVector::from_fn(n, |_, _| 1.0 + 0.1 * rng.normal());
        v /= v.norm();
        Self { v, kv: DVector::zeros(n), est: 0.0, iter: 0, value: None }
    }

    /// A power iteration already settled at `value` (‖K‖₂ computed elsewhere, e.g. by the same
    /// iteration in a worker), for [`RegularizationProblem::set_spectral_norm`].
    pub fn settled(value: f64) -> Self {
        Self {
            v: DVector::zeros(0),
            kv: DVector::zeros(0),
            est: value,
            iter: 0,
            value: Some(value),
        }
    }

    /// One product `Kv`; returns `Some(‖K‖₂)` once settled (1000 products at most).
    pub fn step(&mut self, problem: &RegularizationProblem) -> Option<f64> {
        if self.value.is_some() {
            return self.value;
        }
        if self.iter >= 1000 {
            self.value = Some(self.est);
            return self.value;
        }
        self.iter += 1;
        problem.kc_into(&self.v, &mut self.kv);
        let rq = self.v.dot(&self.kv);
        let nk = self.kv.norm();
        if !(nk.is_finite() && nk > 0.0) {
            self.value = Some(rq.max(0.0));
            return self.value;
        }
        self.v.copy_from(&self.kv);
        self.v /= nk;
        if (rq - self.est).abs() <= 1e-12 * rq.abs() {
            self.value = Some(nk.max(rq));
            return self.value;
        }
        self.est = rq;
        None
    }

    /// Products done so far.
    pub fn iterations(&self) -> usize {
        self.iter
    }
}

/// `‖K‖₂` of a problem, here beside the iteration that computes it (so `problem.rs` does not
/// import this file: no import cycle between the two).
impl RegularizationProblem {
    /// `‖K‖₂`, the largest eigenvalue of K: exact (symmetric eigendecomposition) for n ≤ 200,
    /// else by power iteration ([`PowerIteration`]) from a seeded start until the Rayleigh
    /// quotient settles; a value stored by [`Self::set_spectral_norm`] is returned as is.
    pub fn spectral_norm(&self) -> f64 {
        if let Some(v) = self.norm {
            return v;
        }
        let mut job = PowerIteration::new(self);
        while job.step(self).is_none() {}
        job.step(self).unwrap_or(0.0)
    }

    /// Store `‖K‖₂` computed by a [`PowerIteration`] on this problem (run in slices by a page),
    /// so [`Self::spectral_norm`] does not recompute it.
    pub fn set_spectral_norm(&mut self, job: &PowerIteration) {
        if let Some(v) = job.value {
            self.norm = Some(v);
        }
    }
}
