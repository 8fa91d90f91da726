//! The Gaussian kernel `k(x, x') = exp(−‖x − x'‖²/μ)` (paper B's parametrization), its
//! bandwidth μ chosen or paper B's heuristic.

use std::fmt;

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

use super::def::{bandwidth_heuristic, Argument, Bandwidth, KernelDef, KernelInfo, ResolvedDef};
use crate::error::{KpError, Result};
use crate::fmath;

/// `k(x, x') = exp(−‖x − x'‖²/μ)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gaussian {
    /// μ, or paper B's heuristic computed from the training inputs.
    pub bandwidth: Bandwidth,
}

/// The Gaussian kernel with its bandwidth resolved to a number (`{"kind": "gaussian", "mu": …}`,
/// what `kplay run` reports).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ResolvedGaussian {
    /// μ > 0.
    pub mu: f64,
}

impl KernelDef for Gaussian {
    type Resolved = ResolvedGaussian;
    const DEFAULT: Self = Gaussian { bandwidth: Bandwidth::Heuristic };
    fn info(&self) -> KernelInfo {
        KernelInfo {
            kind: "gaussian",
            label: "Gaussian",
            formula: "exp(−‖x − x′‖²/μ)",
            pair: true,
            needs_bandwidth: true,
            parameters: &[],
            bandwidth: true,
        }
    }
    fn from_values(_values: &[f64], bandwidth: Bandwidth) -> Self {
        Gaussian { bandwidth }
    }
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.bandwidth {
            Bandwidth::Heuristic => write!(f, "gaussian"),
            Bandwidth::Fixed(mu) => write!(f, "gaussian(mu={mu})"),
        }
    }
    fn resolve(&self, x: &DMatrix<f64>) -> Result<ResolvedGaussian> {
        let mu = match self.bandwidth {
            Bandwidth::Fixed(mu) => mu,
            Bandwidth::Heuristic => bandwidth_heuristic(x),
        };
        if !(mu.is_finite() && mu > 0.0) {
            let why = if matches!(self.bandwidth, Bandwidth::Heuristic) {
                "the heuristic gave μ = 0: all inputs are identical".to_string()
            } else {
                format!("must be a finite number > 0 (got {mu})")
            };
            return Err(KpError::Parameter { name: "kernel.mu", reason: why });
        }
        Ok(ResolvedGaussian { mu })
    }
}

impl ResolvedDef for ResolvedGaussian {
    fn argument(&self) -> Argument {
        Argument::SquaredDistance
    }
    #[inline(always)]
    fn of(&self, d2: f64) -> f64 {
        fmath::exp(-d2 / self.mu)
    }
}
