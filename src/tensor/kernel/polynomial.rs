//! The polynomial tensor kernel of degree s ≥ 1: `K = (sum(x'_1 ⊙ ⋯ ⊙ x'_q))^s` (paper A,
//! Section 2.2; Table 2 for s = 2, q = 4).

use super::def::{Parameter, TensorKernelDef, TensorKernelInfo};
use crate::error::{KpError, Result};

/// Largest polynomial degree accepted (higher degrees overflow f64 for any useful data).
pub const MAX_DEGREE: u32 = 64;

/// `K = s^degree`.
pub struct Polynomial {
    /// The degree s, 1 ≤ s ≤ [`MAX_DEGREE`].
    pub degree: u32,
}

const PARAMETERS: &[Parameter] = &[Parameter {
    name: "degree",
    field: "degree",
    path: "kernel.degree",
    symbol: "s",
    doc: "the power of sum(x′₁ ⊙ ⋯ ⊙ x′_q)",
    min: 1.0,
    min_exclusive: false,
    integer: true,
    default: 2.0,
}];

impl TensorKernelDef for Polynomial {
    const DEFAULT: Self = Polynomial { degree: PARAMETERS[0].default as u32 };
    fn info(&self) -> TensorKernelInfo {
        TensorKernelInfo {
            kind: "polynomial",
            label: "polynomial",
            formula: "s^degree",
            parameters: PARAMETERS,
            finite_features: true,
        }
    }
    fn check(&self) -> Result<()> {
        let degree = self.degree;
        if !(1..=MAX_DEGREE).contains(&degree) {
            return Err(KpError::Parameter {
                name: "kernel.degree",
                reason: format!(
                    "the polynomial degree s must satisfy 1 ≤ s ≤ {MAX_DEGREE} (got {degree})"
                ),
            });
        }
        Ok(())
    }
    #[inline(always)]
    fn link(&self, s: f64) -> f64 {
        s.powi(self.degree as i32)
    }
    fn features(&self) -> std::result::Result<usize, &'static str> {
        Ok(self.degree as usize)
    }
    fn identity_features(&self) -> bool {
        false
    }
    fn overflow_hint(&self) -> String {
        format!("the power {} overflows; scale the inputs down or lower the degree", self.degree)
    }
    fn key(&self) -> String {
        format!("polynomial-{}", self.degree)
    }
}
