//! Paper A's algorithms as one type for its sessions and races: each variant is an algorithm
//! that implements [`Stepper`] itself (Algorithm 2.1, Algorithm 3.3 and the dual Newton method
//! on the features or the Gram tensor, primal gradient descent, FISTA); this enum only names
//! which one runs and reads its iterates (the dual α, the primal w) for the predictor and the
//! plots. The executor ([`crate::exec::Run`], a race's lanes) steps it.

use nalgebra::DVector;
use serde_json::Value;

use crate::exec::{Record, Stepper, Stop};
use crate::lp::FeaturePolynomial;
use crate::solvers::dual_lp::DualLp;
use crate::solvers::dual_newton::DualNewton;
use crate::solvers::primal::{Fista, PrimalGd};
use crate::solvers::prox_dual::ProxDual;
use crate::tensor::GramTensor;

/// One of paper A's algorithms at its current iterate.
pub enum LpAlgorithm {
    /// Algorithm 2.1 (square loss, features).
    DualGradient(DualLp),
    /// Algorithm 3.3 on the features.
    ProxDual(ProxDual<FeaturePolynomial>),
    /// Algorithm 3.3 on the Gram tensor.
    ProxDualTensor(ProxDual<GramTensor>),
    /// The dual Newton method on the features.
    DualNewton(DualNewton<FeaturePolynomial>),
    /// The dual Newton method on the Gram tensor.
    DualNewtonTensor(DualNewton<GramTensor>),
    /// Primal gradient descent with Armijo backtracking.
    PrimalGd(PrimalGd),
    /// FISTA on the primal.
    Fista(Fista),
}

impl LpAlgorithm {
    fn inner(&self) -> &dyn Stepper {
        match self {
            Self::DualGradient(s) => s,
            Self::ProxDual(s) => s,
            Self::ProxDualTensor(s) => s,
            Self::DualNewton(s) => s,
            Self::DualNewtonTensor(s) => s,
            Self::PrimalGd(s) => s,
            Self::Fista(s) => s,
        }
    }

    fn inner_mut(&mut self) -> &mut dyn Stepper {
        match self {
            Self::DualGradient(s) => s,
            Self::ProxDual(s) => s,
            Self::ProxDualTensor(s) => s,
            Self::DualNewton(s) => s,
            Self::DualNewtonTensor(s) => s,
            Self::PrimalGd(s) => s,
            Self::Fista(s) => s,
        }
    }

    /// The dual iterate α (None for the primal methods).
    pub fn alpha(&self) -> Option<DVector<f64>> {
        match self {
            Self::DualGradient(s) => Some(s.alpha().clone()),
            Self::ProxDual(s) => Some(s.alpha().clone()),
            Self::ProxDualTensor(s) => Some(s.alpha().clone()),
            Self::DualNewton(s) => Some(s.alpha().clone()),
            Self::DualNewtonTensor(s) => Some(s.alpha().clone()),
            Self::PrimalGd(_) | Self::Fista(_) => None,
        }
    }

    /// The primal weights w in feature space (None on the Gram tensor, which has no features).
    pub fn w(&self) -> Option<DVector<f64>> {
        match self {
            Self::DualGradient(s) => Some(s.w().clone()),
            Self::ProxDual(s) => Some(s.w()),
            Self::DualNewton(s) => Some(s.w()),
            Self::PrimalGd(s) => Some(s.w().clone()),
            Self::Fista(s) => Some(s.w().clone()),
            Self::ProxDualTensor(_) | Self::DualNewtonTensor(_) => None,
        }
    }
}

/// The running algorithm's own protocol, unchanged: its record, step, stop and solution.
impl Stepper for LpAlgorithm {
    fn record(&self) -> Record {
        self.inner().record()
    }
    fn step(&mut self) -> Option<Record> {
        self.inner_mut().step()
    }
    fn stop(&self) -> Stop {
        self.inner().stop()
    }
    fn solution(&self) -> Value {
        self.inner().solution()
    }
    fn halt(&mut self, stop: Stop) {
        self.inner_mut().halt(stop)
    }
}
