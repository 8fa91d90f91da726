//! The Laplacian kernel `k(x, x') = exp(−‖x − x'‖/σ)`, σ > 0: positive definite on distinct
//! points, with a rougher (Lipschitz, not smooth) feature space than the Gaussian's.

use std::fmt;

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

use super::def::{positive, Argument, Bandwidth, KernelDef, KernelInfo, Parameter, ResolvedDef};
use crate::error::Result;
use crate::fmath;

/// `k(x, x') = exp(−‖x − x'‖/σ)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Laplacian {
    /// The length scale σ > 0.
    pub sigma: f64,
}

const PARAMETERS: &[Parameter] = &[Parameter {
    name: "sigma",
    field: "lap-sigma",
    path: "kernel.sigma",
    symbol: "σ",
    doc: "the length scale",
    min: 0.0,
    min_exclusive: true,
    integer: false,
    default: 0.5,
}];

impl KernelDef for Laplacian {
    type Resolved = Laplacian;
    const DEFAULT: Self = Laplacian { sigma: 0.5 };
    fn info(&self) -> KernelInfo {
        KernelInfo {
            kind: "laplacian",
            label: "Laplacian",
            formula: "exp(−‖x − x′‖/σ)",
            pair: true,
            needs_bandwidth: true,
            parameters: PARAMETERS,
            bandwidth: false,
        }
    }
    fn from_values(values: &[f64], _bandwidth: Bandwidth) -> Self {
        Laplacian { sigma: values[0] }
    }
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "laplacian(sigma={})", self.sigma)
    }
    fn resolve(&self, _x: &DMatrix<f64>) -> Result<Laplacian> {
        positive("kernel.sigma", self.sigma)?;
        Ok(*self)
    }
}

impl ResolvedDef for Laplacian {
    fn argument(&self) -> Argument {
        Argument::SquaredDistance
    }
    #[inline(always)]
    fn of(&self, d2: f64) -> f64 {
        fmath::exp(-d2.sqrt() / self.sigma)
    }
}
