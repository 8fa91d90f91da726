//! A tensor kernel with its order q checked ([`TensorKernelConfig`]), and the default memory
//! budget. A child of `tensor` of its own so that the Gram tensor and the predictor import their
//! siblings, not `tensor/mod.rs` (issue 34: no parent ⇄ child import cycle).

use super::kernel::TensorKernel;
use crate::error::{KpError, Result};

/// Default memory budget for a Gram tensor, a feature matrix or a predictor (512 MiB).
pub const DEFAULT_MEMORY_BUDGET: u64 = 512 * 1024 * 1024;

/// Column-panel width of the build's block products.
pub(super) const BUILD_PANEL: usize = 24;

/// A tensor kernel with its order q checked: q ∈ {4, 6} (p = 4/3, 6/5), degree 1 ≤ s ≤ 64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TensorKernelConfig {
    pub(super) kernel: TensorKernel,
    pub(super) q: usize,
}

impl TensorKernelConfig {
    /// Validate a kernel of order q (paper A, eq. 16: q must be an even integer; we support 4, 6).
    pub fn new(kernel: TensorKernel, q: usize) -> Result<Self> {
        if q != 4 && q != 6 {
            let reason = if q % 2 == 1 {
                format!(
                    "a tensor kernel needs an even order q; q = {q} is odd. Use q = 4 (p = 4/3) or \
                     q = 6 (p = 6/5), or the features path, which works for any p (Remark 2.5)"
                )
            } else {
                format!(
                    "the supported tensor orders are q = 4 (p = 4/3) and q = 6 (p = 6/5); got q = {q}"
                )
            };
            return Err(KpError::Parameter { name: "q", reason });
        }
        kernel.check()?;
        Ok(Self { kernel, q })
    }

    /// Validate from the primal exponent p: it must be `q/(q − 1)` for q = 4 or 6.
    pub fn from_p(kernel: TensorKernel, p: f64) -> Result<Self> {
        if !(p.is_finite() && p > 1.0 && p < 2.0) {
            return Err(KpError::POutOfRange(p));
        }
        let q = p / (p - 1.0);
        let qr = q.round();
        if (q - qr).abs() > 1e-9 * q || (qr != 4.0 && qr != 6.0) {
            return Err(KpError::Parameter {
                name: "p",
                reason: format!(
                    "p = {p} gives q = p/(p−1) = {q:.6}; the tensor-kernel path needs q = 4 (p = 4/3) \
                     or q = 6 (p = 6/5). For other p use the features path (Remark 2.5)"
                ),
            });
        }
        Self::new(kernel, qr as usize)
    }

    /// The kernel.
    pub fn kernel(&self) -> TensorKernel {
        self.kernel
    }

    /// The order q of the tensor (the dual exponent).
    pub fn q(&self) -> usize {
        self.q
    }

    /// The primal exponent `p = q/(q − 1)`.
    pub fn p(&self) -> f64 {
        self.q as f64 / (self.q as f64 - 1.0)
    }

    /// Whether the kernel has a finite feature map (linear, polynomial).
    pub fn has_finite_features(&self) -> bool {
        self.kernel.features().is_ok()
    }

    /// The scalar function g with `K = g(sum(x'_1 ⊙ ⋯ ⊙ x'_q))`.
    #[inline]
    pub fn link(&self, s: f64) -> f64 {
        self.kernel.link(s)
    }

    /// `K(x'_1, …, x'_q)` evaluated directly (section 2.2); exactly q points of equal length.
    pub fn eval(&self, points: &[&[f64]]) -> Result<f64> {
        if points.len() != self.q {
            return Err(KpError::Parameter {
                name: "points",
                reason: format!(
                    "a tensor kernel of order q = {} takes {} points (got {})",
                    self.q,
                    self.q,
                    points.len()
                ),
            });
        }
        let d = points[0].len();
        if points.iter().any(|p| p.len() != d) {
            return Err(KpError::Parameter {
                name: "points",
                reason: "the points have different lengths".into(),
            });
        }
        let s: f64 = (0..d).map(|k| points.iter().map(|p| p[k]).product::<f64>()).sum();
        Ok(self.link(s))
    }
}
