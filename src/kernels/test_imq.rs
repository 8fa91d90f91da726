//! A test-only kernel (issue 34: "a new kernel lands as one file and one list line"): the
//! inverse multiquadric `k(x, x') = (1 + ‖x − x'‖²/c²)^(−1/2)`, c > 0, positive definite on
//! distinct points in every dimension (a completely monotone function of the squared distance,
//! Schoenberg; Wendland, *Scattered Data Approximation*, Thm 7.15). It is this file and the
//! `#[cfg(test)]` line of `catalogue!` in kernels/mod.rs; kernels/catalogue_tests.rs reads it
//! through the spec parser, the expression parser, the exported catalogue, the Gram builders
//! and `kplay run`'s engine.

use std::fmt;

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

use super::def::{positive, Argument, Bandwidth, KernelDef, KernelInfo, Parameter, ResolvedDef};
use crate::error::Result;

/// `k(x, x') = (1 + ‖x − x'‖²/c²)^(−1/2)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestImq {
    /// The length scale c > 0.
    pub c: f64,
}

const PARAMETERS: &[Parameter] = &[Parameter {
    name: "c",
    field: "imq-c",
    path: "kernel.c",
    symbol: "c",
    doc: "the length scale",
    min: 0.0,
    min_exclusive: true,
    integer: false,
    default: 1.0,
}];

impl KernelDef for TestImq {
    type Resolved = TestImq;
    const DEFAULT: Self = TestImq { c: 1.0 };
    fn info(&self) -> KernelInfo {
        KernelInfo {
            kind: "test_imq",
            label: "inverse multiquadric",
            formula: "(1 + ‖x − x′‖²/c²)^(−1/2)",
            pair: true,
            needs_bandwidth: true,
            parameters: PARAMETERS,
            bandwidth: false,
        }
    }
    fn from_values(values: &[f64], _bandwidth: Bandwidth) -> Self {
        TestImq { c: values[0] }
    }
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "test_imq(c={})", self.c)
    }
    fn resolve(&self, _x: &DMatrix<f64>) -> Result<TestImq> {
        positive("kernel.c", self.c)?;
        Ok(*self)
    }
}

impl ResolvedDef for TestImq {
    fn argument(&self) -> Argument {
        Argument::SquaredDistance
    }
    fn of(&self, d2: f64) -> f64 {
        1.0 / (1.0 + d2 / (self.c * self.c)).sqrt()
    }
}
