//! Losses, each one type that knows its value, derivative, Fenchel conjugate and what the
//! dual methods need (paper A, eq. 7–8 and Appendix A.2). Shared by the solvers of papers A and C.

use serde::{Deserialize, Serialize};

/// A regression or classification loss `L(y, t)` with `t = ⟨Φ(x), w⟩` the prediction.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Loss {
    /// `L(y, t) = (t − y)²/2` (paper A, eq. 7).
    Square,
}

impl Loss {
    /// `L(y, t)`.
    pub fn value(&self, y: f64, t: f64) -> f64 {
        match self {
            Loss::Square => 0.5 * (t - y) * (t - y),
        }
    }

    /// A (sub)gradient of `t ↦ L(y, t)`.
    pub fn derivative(&self, y: f64, t: f64) -> f64 {
        match self {
            Loss::Square => t - y,
        }
    }

    /// Fenchel conjugate of `t ↦ L(y, t)` at `s`: `L*(y, s) = sup_t st − L(y, t)`.
    /// For the square loss `s²/2 + ys`.
    pub fn conjugate(&self, y: f64, s: f64) -> f64 {
        match self {
            Loss::Square => 0.5 * s * s + y * s,
        }
    }

    /// Short human-readable name.
    pub fn name(&self) -> &'static str {
        match self {
            Loss::Square => "square",
        }
    }
}
