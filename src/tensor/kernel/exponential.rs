//! The exponential tensor kernel `K = exp(sum(x'_1 ⊙ ⋯ ⊙ x'_q))` (paper A, Section 2.2: its
//! feature map is infinite, so only the Gram-tensor path solves with it).

use super::def::{TensorKernelDef, TensorKernelInfo};
use crate::error::Result;
use crate::fmath;

/// `K = exp(s)`.
pub struct Exponential;

impl TensorKernelDef for Exponential {
    const DEFAULT: Self = Exponential;
    fn info(&self) -> TensorKernelInfo {
        TensorKernelInfo {
            kind: "exponential",
            label: "exponential",
            formula: "exp(s)",
            parameters: &[],
            finite_features: false,
        }
    }
    fn check(&self) -> Result<()> {
        Ok(())
    }
    #[inline(always)]
    fn link(&self, s: f64) -> f64 {
        fmath::exp(s)
    }
    fn features(&self) -> std::result::Result<usize, &'static str> {
        Err("the exponential tensor kernel has infinitely many features (no finite feature \
             map): only the Gram-tensor path can solve with it")
    }
    fn identity_features(&self) -> bool {
        false
    }
    fn overflow_hint(&self) -> String {
        format!(
            "exp overflows above {:.1}; scale the inputs down (e.g. divide them by a constant) or use the polynomial kernel",
            fmath::ln(f64::MAX)
        )
    }
    fn key(&self) -> String {
        "exponential".to_string()
    }
}
