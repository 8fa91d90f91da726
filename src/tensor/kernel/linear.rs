//! The linear tensor kernel `K = sum(x'_1 ⊙ ⋯ ⊙ x'_q)` (paper A, eq. 13).

use super::def::{TensorKernelDef, TensorKernelInfo};
use crate::error::Result;

/// `K = Σ_k x'_1k ⋯ x'_qk`.
pub struct Linear;

impl TensorKernelDef for Linear {
    const DEFAULT: Self = Linear;
    fn info(&self) -> TensorKernelInfo {
        TensorKernelInfo {
            kind: "linear",
            label: "linear",
            formula: "s",
            parameters: &[],
            finite_features: true,
        }
    }
    fn check(&self) -> Result<()> {
        Ok(())
    }
    #[inline(always)]
    fn link(&self, s: f64) -> f64 {
        s
    }
    fn features(&self) -> std::result::Result<usize, &'static str> {
        Ok(1)
    }
    fn identity_features(&self) -> bool {
        true
    }
    fn overflow_hint(&self) -> String {
        "the inputs are too large; scale them down".into()
    }
    fn key(&self) -> String {
        "linear".to_string()
    }
}
