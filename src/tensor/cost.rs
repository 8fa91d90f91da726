//! What a Gram tensor, a feature matrix or a predictor costs, known before it is built, and the
//! checks of the memory budget and of the inputs.

use crate::plots::text::num;
use nalgebra::DMatrix;
use serde::Serialize;

use super::classes::*;
use super::config::*;
use crate::error::{KpError, Result};

/// What building and using a Gram tensor costs, known before the build (paper A, Section 2.3,
/// "Cost per iteration").
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TensorCost {
    pub n: usize,
    pub d: usize,
    pub q: usize,
    /// Stored values, one per symmetry class: `C(n + q − 1, q)` (≈ n⁴/24 for q = 4).
    pub entries: u64,
    /// Memory of the stored values, `8·entries` bytes.
    pub bytes: u64,
    /// Multiplications to build, ≈ `d·entries`.
    pub build_multiplications: f64,
    /// Multiplications of one gradient in this implementation (≈ 2·entries: one pass over the
    /// classes with two multiply-adds per value).
    pub gradient_multiplications: f64,
    /// The paper's count for one gradient with q = 4, `n²(n + 1)²/4` (None for q = 6).
    pub paper_gradient_multiplications: Option<f64>,
}

impl TensorCost {
    /// Build time in seconds at a measured rate of `multiplications_per_second`.
    pub fn estimated_build_seconds(&self, multiplications_per_second: f64) -> f64 {
        self.build_multiplications / multiplications_per_second
    }

    /// Human-readable summary for the page / CLI.
    pub fn describe(&self) -> String {
        format!(
            "Gram tensor of order q = {} on n = {} points (d = {}): {} values ({} MiB), about {} \
             multiplications to build, {} per gradient",
            self.q,
            self.n,
            self.d,
            num(self.entries as f64),
            num((self.bytes as f64 / (1024.0 * 1024.0) * 10.0).round() / 10.0),
            num(self.build_multiplications),
            num(self.gradient_multiplications)
        )
    }
}

/// Cost of the Gram tensor of `n` points in dimension `d` for this kernel (Section 2.3).
pub fn estimate_cost(n: usize, d: usize, cfg: &TensorKernelConfig) -> Result<TensorCost> {
    if n == 0 {
        return Err(KpError::NTooSmall(n));
    }
    if d == 0 {
        return Err(KpError::DTooSmall(d));
    }
    let q = cfg.q;
    let too_big = || KpError::Parameter {
        name: "n",
        reason: format!("the Gram tensor of order {q} on n = {n} points has more than 2^64 values"),
    };
    let entries = symmetry_classes(n, q).ok_or_else(too_big)?;
    let bytes = entries.checked_mul(8).ok_or_else(too_big)?;
    let nf = n as f64;
    Ok(TensorCost {
        n,
        d,
        q,
        entries,
        bytes,
        build_multiplications: d as f64 * entries as f64,
        gradient_multiplications: 2.0 * entries as f64,
        paper_gradient_multiplications: (q == 4).then(|| nf * nf * (nf + 1.0) * (nf + 1.0) / 4.0),
    })
}

pub(super) fn check_budget(what: &str, bytes: u64, max_bytes: u64, detail: &str) -> Result<()> {
    if bytes > max_bytes {
        return Err(KpError::Parameter {
            name: "memory budget",
            reason: format!(
                "{what} would need {bytes} bytes ({:.1} MiB, {detail}), above the budget of {max_bytes} bytes \
                 ({:.1} MiB). Reduce n (or d), or raise the budget",
                bytes as f64 / (1024.0 * 1024.0),
                max_bytes as f64 / (1024.0 * 1024.0)
            ),
        });
    }
    Ok(())
}

pub(super) fn check_finite_inputs(x: &DMatrix<f64>) -> Result<()> {
    for (j, col) in x.column_iter().enumerate() {
        for (i, v) in col.iter().enumerate() {
            if !v.is_finite() {
                return Err(KpError::Parameter {
                    name: "x",
                    reason: format!("input x[{}][{}] = {v} is not a finite number (rows and columns counted from 1)", i + 1, j + 1),
                });
            }
        }
    }
    Ok(())
}
