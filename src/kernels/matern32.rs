//! Matérn 3/2 with length scale ℓ > 0 (ours, in none of the papers):
//! `k(x, x') = (1 + √3 r/ℓ) exp(−√3 r/ℓ)`, `r = ‖x − x'‖`; positive definite on distinct
//! points in every dimension (Rasmussen & Williams, eq. 4.17), once differentiable.

use std::fmt;

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

use super::def::{positive, Argument, Bandwidth, KernelDef, KernelInfo, Parameter, ResolvedDef};
use crate::error::Result;
use crate::fmath;

/// `k(x, x') = (1 + √3 r/ℓ) exp(−√3 r/ℓ)`, `r = ‖x − x'‖`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Matern32 {
    /// The length scale ℓ > 0.
    pub length: f64,
}

const PARAMETERS: &[Parameter] = &[Parameter {
    name: "length",
    field: "matern-length",
    path: "kernel.length",
    symbol: "ℓ",
    doc: "the length scale",
    min: 0.0,
    min_exclusive: true,
    integer: false,
    default: 0.5,
}];

impl KernelDef for Matern32 {
    type Resolved = Matern32;
    const DEFAULT: Self = Matern32 { length: 0.5 };
    fn info(&self) -> KernelInfo {
        KernelInfo {
            kind: "matern32",
            label: "Matérn 3/2",
            formula: "(1 + √3r/ℓ) exp(−√3r/ℓ), r = ‖x − x′‖",
            pair: true,
            needs_bandwidth: true,
            parameters: PARAMETERS,
            bandwidth: false,
        }
    }
    fn from_values(values: &[f64], _bandwidth: Bandwidth) -> Self {
        Matern32 { length: values[0] }
    }
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "matern32(length={})", self.length)
    }
    fn resolve(&self, _x: &DMatrix<f64>) -> Result<Matern32> {
        positive("kernel.length", self.length)?;
        Ok(*self)
    }
}

impl ResolvedDef for Matern32 {
    fn argument(&self) -> Argument {
        Argument::SquaredDistance
    }
    #[inline(always)]
    fn of(&self, d2: f64) -> f64 {
        let u = 3f64.sqrt() * d2.sqrt() / self.length;
        (1.0 + u) * fmath::exp(-u)
    }
}
