//! The linear kernel `k(x, x') = ⟨x, x'⟩`.

use std::fmt;

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

use super::def::{Argument, Bandwidth, KernelDef, KernelInfo, ResolvedDef};
use crate::error::Result;

/// `k(x, x') = ⟨x, x'⟩`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Linear {}

impl KernelDef for Linear {
    type Resolved = Linear;
    const DEFAULT: Self = Linear {};
    fn info(&self) -> KernelInfo {
        KernelInfo {
            kind: "linear",
            label: "linear",
            formula: "⟨x, x′⟩",
            pair: true,
            needs_bandwidth: false,
            parameters: &[],
            bandwidth: false,
        }
    }
    fn from_values(_values: &[f64], _bandwidth: Bandwidth) -> Self {
        Linear {}
    }
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "linear")
    }
    fn resolve(&self, _x: &DMatrix<f64>) -> Result<Linear> {
        Ok(*self)
    }
}

impl ResolvedDef for Linear {
    fn argument(&self) -> Argument {
        Argument::InnerProduct
    }
    #[inline(always)]
    fn of(&self, t: f64) -> f64 {
        t
    }
}
