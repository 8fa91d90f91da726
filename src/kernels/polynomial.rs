//! The polynomial kernel `k(x, x') = (⟨x, x'⟩ + c)^d`, d ≥ 1, c ≥ 0.

use std::fmt;

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

use super::def::{Argument, Bandwidth, KernelDef, KernelInfo, Parameter, ResolvedDef};
use crate::error::{KpError, Result};

/// `k(x, x') = (⟨x, x'⟩ + offset)^degree`, degree ≥ 1, offset ≥ 0.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Polynomial {
    /// The power d ≥ 1.
    pub degree: u32,
    /// The offset c ≥ 0 added to the inner product.
    pub offset: f64,
}

const PARAMETERS: &[Parameter] = &[
    Parameter {
        name: "degree",
        field: "degree",
        path: "kernel.degree",
        symbol: "d",
        doc: "the power of ⟨x, x′⟩ + c",
        min: 1.0,
        min_exclusive: false,
        integer: true,
        default: 2.0,
    },
    Parameter {
        name: "offset",
        field: "offset",
        path: "kernel.offset",
        symbol: "c",
        doc: "added to ⟨x, x′⟩",
        min: 0.0,
        min_exclusive: false,
        integer: false,
        default: 1.0,
    },
];

impl KernelDef for Polynomial {
    type Resolved = Polynomial;
    const DEFAULT: Self = Polynomial { degree: 2, offset: 1.0 };
    fn info(&self) -> KernelInfo {
        KernelInfo {
            kind: "polynomial",
            label: "polynomial",
            formula: "(⟨x, x′⟩ + c)^d",
            pair: true,
            needs_bandwidth: false,
            parameters: PARAMETERS,
            bandwidth: false,
        }
    }
    fn from_values(values: &[f64], _bandwidth: Bandwidth) -> Self {
        Polynomial { degree: values[0] as u32, offset: values[1] }
    }
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "polynomial(degree={}, offset={})", self.degree, self.offset)
    }
    fn resolve(&self, _x: &DMatrix<f64>) -> Result<Polynomial> {
        let Polynomial { degree, offset } = *self;
        if degree < 1 {
            return Err(KpError::Parameter {
                name: "kernel.degree",
                reason: format!("must be at least 1 (got {degree})"),
            });
        }
        if !(offset.is_finite() && offset >= 0.0) {
            return Err(KpError::Parameter {
                name: "kernel.offset",
                reason: format!("must be a finite number ≥ 0 (got {offset})"),
            });
        }
        Ok(*self)
    }
}

impl ResolvedDef for Polynomial {
    fn argument(&self) -> Argument {
        Argument::InnerProduct
    }
    #[inline(always)]
    fn of(&self, t: f64) -> f64 {
        (t + self.offset).powi(self.degree as i32)
    }
}
