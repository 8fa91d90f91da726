//! Tensor kernels and the Gram tensor of paper A (Salzo, Suykens, Rosasco), Sections 2.2–2.3.
//!
//! For an even `q` (here q = 4, p = 4/3 and q = 6, p = 6/5) a tensor kernel is
//! `K(x'_1, …, x'_q) = Σ_k φ_k(x'_1)⋯φ_k(x'_q)` (eq. 16), and the smooth part of the dual is
//! `P(α) = (1/q)‖Φ_n*α‖_q^q = (1/q) Σ_{i1..iq} K(x_{i1}, …, x_{iq}) α_{i1}⋯α_{iq}` (eq. 15).
//!
//! * [`TensorKernel`] / [`TensorKernelConfig`]: linear, polynomial of degree s, exponential,
//!   validated together with q.
//! * [`GramTensor`]: the Gram tensor stored once per symmetry class, i.e. one value per sorted
//!   tuple `i1 ≤ … ≤ iq`, `C(n+q−1, q)` values in colex order ([`rank`] is the combinatorial
//!   number system). Built by the steppable [`GramTensorBuild`] after a cost estimate
//!   ([`estimate_cost`]) and a memory budget check. It implements
//!   [`DualPolynomial`](crate::lp::DualPolynomial): value, gradient `ω` and Hessian in one pass
//!   each over the symmetry classes.
//! * [`TensorPredictor`]: the estimator of Remark 2.4 (eq. 17), with grid helpers for plots.
//! * [`tensor_features`]: the explicit finite feature map of the linear and polynomial tensor
//!   kernels (Section 2.2, Table 2), for the features path of Remark 2.5.
//!
//! Storage order: the block of tuples sharing the "suffix" `(i3, …, iq)` is contiguous, and in it
//! the pair `(i1 ≤ i2 ≤ i3)` sits at `i2(i2+1)/2 + i1`. A block is one matrix product
//! `X_{0..=i3} diag(x_{i3}⊙⋯⊙x_{iq}) X_{0..=i3}ᵀ` (nalgebra/matrixmultiply), and every pass of
//! [`DualPolynomial`](crate::lp::DualPolynomial) walks the blocks with the multiplicity (the
//! number of ordered tuples in the class) of each entry known from the block's suffix.

use crate::fmath;
use crate::plot_text::num;
use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use crate::error::{KpError, Result};
use crate::lp::{DualPolynomial, FeaturePolynomial};

pub mod kernel;
pub use kernel::{TensorKernel, TensorKernelDef, TensorKernelInfo, MAX_DEGREE};

/// Default memory budget for a Gram tensor, a feature matrix or a predictor (512 MiB).
pub const DEFAULT_MEMORY_BUDGET: u64 = 512 * 1024 * 1024;

/// Column-panel width of the build's block products.
const BUILD_PANEL: usize = 24;

/// A tensor kernel with its order q checked: q ∈ {4, 6} (p = 4/3, 6/5), degree 1 ≤ s ≤ 64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TensorKernelConfig {
    kernel: TensorKernel,
    q: usize,
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

// ---------------------------------------------------------------------------------------------
// Combinatorics of the symmetry classes.

/// Binomial coefficient `C(n, k)`, `None` on u64 overflow.
pub fn binomial(n: u64, k: u64) -> Option<u64> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut r: u128 = 1;
    for i in 0..k {
        r = r * (n - i) as u128 / (i + 1) as u128;
        if r > u64::MAX as u128 {
            return None;
        }
    }
    Some(r as u64)
}

/// Number of symmetry classes of an order-q tensor on n points: `C(n + q − 1, q)`.
pub fn symmetry_classes(n: usize, q: usize) -> Option<u64> {
    binomial(n.checked_add(q)?.checked_sub(1)? as u64, q as u64)
}

/// Rank of a sorted tuple `i1 ≤ … ≤ iq` (0-based) in colex order:
/// `Σ_j C(i_j + j − 1, j)` (j = 1..q), the combinatorial number system applied to the strictly
/// increasing `i_j + j − 1`. `None` if the tuple is not sorted or the rank overflows.
pub fn rank(sorted: &[usize]) -> Option<u64> {
    let mut r: u64 = 0;
    for (j, &i) in sorted.iter().enumerate() {
        if j > 0 && sorted[j - 1] > i {
            return None;
        }
        r = r.checked_add(binomial((i + j) as u64, (j + 1) as u64)?)?;
    }
    Some(r)
}

/// Inverse of [`rank`]: the sorted q-tuple of rank `r`.
pub fn unrank(mut r: u64, q: usize) -> Vec<usize> {
    let mut t = vec![0usize; q];
    for j in (0..q).rev() {
        let k = (j + 1) as u64;
        // Largest c ≥ j with C(c, k) ≤ r (C(j, k) = 0 ≤ r always).
        let fits = |c: u64| binomial(c, k).is_some_and(|b| b <= r);
        let mut lo = j as u64;
        let mut hi = lo + 1;
        while fits(hi) {
            lo = hi;
            hi = hi.saturating_mul(2);
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        r -= binomial(lo, k).unwrap_or(0);
        t[j] = lo as usize - j;
    }
    t
}

/// Multiplicity of a sorted tuple: how many ordered tuples it stands for, `len!/Π c_i!`.
pub fn multiplicity(sorted: &[usize]) -> f64 {
    let mut m = factorial(sorted.len());
    for run in runs(sorted) {
        m /= factorial(run);
    }
    m
}

fn factorial(k: usize) -> f64 {
    (1..=k).map(|i| i as f64).product()
}

/// Lengths of the runs of equal values in a sorted slice.
fn runs(sorted: &[usize]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i + 1;
        while j < sorted.len() && sorted[j] == sorted[i] {
            j += 1;
        }
        out.push(j - i);
        i = j;
    }
    out
}

/// Advance a sorted tuple with entries < n to the next one in colex order; false at the end.
fn next_sorted(t: &mut [usize], n: usize) -> bool {
    let len = t.len();
    for j in 0..len {
        let cap = if j + 1 < len { t[j + 1] } else { n - 1 };
        if t[j] < cap {
            t[j] += 1;
            for l in t.iter_mut().take(j) {
                *l = 0;
            }
            return true;
        }
    }
    false
}

// ---------------------------------------------------------------------------------------------
// Cost estimate and budget.

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

fn check_budget(what: &str, bytes: u64, max_bytes: u64, detail: &str) -> Result<()> {
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

fn check_finite_inputs(x: &DMatrix<f64>) -> Result<()> {
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

// ---------------------------------------------------------------------------------------------
mod gram;
mod predict;
pub use gram::{BuildProgress, GramTensor, GramTensorBuild};
pub use predict::{
    feature_count, feature_monomials, feature_polynomial, tensor_features, Grid1d, Grid2d,
    TensorPredictor, MAX_GRID_POINTS,
};
