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
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use crate::error::{KpError, Result};
use crate::lp::{DualPolynomial, FeaturePolynomial};

/// Default memory budget for a Gram tensor, a feature matrix or a predictor (512 MiB).
pub const DEFAULT_MEMORY_BUDGET: u64 = 512 * 1024 * 1024;

/// Column-panel width of the build's block products.
const BUILD_PANEL: usize = 24;

/// Largest polynomial degree accepted (higher degrees overflow f64 for any useful data).
pub const MAX_DEGREE: u32 = 64;

/// A tensor kernel of paper A, Section 2.2 (`x'_1 ⊙ ⋯ ⊙ x'_q` is the componentwise product).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TensorKernel {
    /// Linear tensor kernel `K = Σ_k x'_1k ⋯ x'_qk = sum(x'_1 ⊙ ⋯ ⊙ x'_q)` (eq. 13).
    Linear,
    /// Polynomial tensor kernel of degree s ≥ 1: `K = (sum(x'_1 ⊙ ⋯ ⊙ x'_q))^s`.
    Polynomial { degree: u32 },
    /// Exponential tensor kernel `K = exp(sum(x'_1 ⊙ ⋯ ⊙ x'_q))` (infinite feature map).
    Exponential,
}

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
        if let TensorKernel::Polynomial { degree } = kernel {
            if !(1..=MAX_DEGREE).contains(&degree) {
                return Err(KpError::Parameter {
                    name: "kernel.degree",
                    reason: format!(
                        "the polynomial degree s must satisfy 1 ≤ s ≤ {MAX_DEGREE} (got {degree})"
                    ),
                });
            }
        }
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
        !matches!(self.kernel, TensorKernel::Exponential)
    }

    /// The scalar function g with `K = g(sum(x'_1 ⊙ ⋯ ⊙ x'_q))`.
    #[inline]
    pub fn link(&self, s: f64) -> f64 {
        match self.kernel {
            TensorKernel::Linear => s,
            TensorKernel::Polynomial { degree } => s.powi(degree as i32),
            TensorKernel::Exponential => fmath::exp(s),
        }
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
            "Gram tensor of order q = {} on n = {} points (d = {}): {} values ({:.1} MiB), about {:.3e} \
             multiplications to build, {:.3e} per gradient",
            self.q,
            self.n,
            self.d,
            self.entries,
            self.bytes as f64 / (1024.0 * 1024.0),
            self.build_multiplications,
            self.gradient_multiplications
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
// The build, as a steppable state.

/// Progress of a Gram-tensor build: `done` of `total` values computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BuildProgress {
    pub done: u64,
    pub total: u64,
}

impl BuildProgress {
    /// Fraction done, in [0, 1].
    pub fn fraction(&self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            self.done as f64 / self.total as f64
        }
    }
    /// Whether every value is computed.
    pub fn is_done(&self) -> bool {
        self.done >= self.total
    }
}

/// A Gram-tensor build in progress (Section 2.3): call [`advance`](Self::advance) until done
/// (the page draws a progress bar and may drop the state between calls to cancel), then
/// [`finish`](Self::finish).
pub struct GramTensorBuild {
    cfg: TensorKernelConfig,
    cost: TensorCost,
    /// Inputs, n × d.
    x: DMatrix<f64>,
    /// Inputs transposed, d × n (a sample per contiguous column).
    xt: DMatrix<f64>,
    values: Vec<f64>,
    /// The current block's suffix `(i3, …, iq)`, sorted.
    suffix: Vec<usize>,
    more: bool,
    error: Option<KpError>,
    v: DVector<f64>,
    c: DMatrix<f64>,
    m: DMatrix<f64>,
}

impl GramTensorBuild {
    /// Check the inputs, estimate the cost, refuse a build over `max_bytes`, and allocate.
    pub fn new(x: &DMatrix<f64>, cfg: TensorKernelConfig, max_bytes: u64) -> Result<Self> {
        let (n, d) = x.shape();
        let cost = estimate_cost(n, d, &cfg)?;
        // Scratch of the build: the inputs twice, the scaled block (d × n) and the product (n × n).
        let (nu, du) = (n as u64, d as u64);
        let scratch = nu
            .saturating_mul(du)
            .saturating_mul(3)
            .saturating_add(nu.saturating_mul(nu))
            .saturating_mul(8);
        check_budget(
            "the Gram tensor",
            cost.bytes.saturating_add(scratch),
            max_bytes,
            &format!(
                "{} values of 8 bytes, one per symmetry class, C(n+q−1, q) with n = {n}, q = {}",
                cost.entries, cfg.q
            ),
        )?;
        check_finite_inputs(x)?;
        let total = usize::try_from(cost.entries).map_err(|_| KpError::Parameter {
            name: "n",
            reason: format!("{} values do not fit in this platform's address space", cost.entries),
        })?;
        let mut values = Vec::new();
        values.try_reserve_exact(total).map_err(|_| KpError::Parameter {
            name: "memory budget",
            reason: format!("could not allocate {} bytes for the Gram tensor", cost.bytes),
        })?;
        Ok(Self {
            cfg,
            cost,
            x: x.clone(),
            xt: x.transpose(),
            values,
            suffix: vec![0; cfg.q - 2],
            more: true,
            error: None,
            v: DVector::zeros(d),
            c: DMatrix::zeros(d, n),
            m: DMatrix::zeros(n, n),
        })
    }

    /// The cost estimate (known before any value is computed).
    pub fn cost(&self) -> &TensorCost {
        &self.cost
    }

    /// Whether every value is computed (then call [`finish`](Self::finish)).
    pub fn is_done(&self) -> bool {
        !self.more
    }

    /// Values computed so far, of the total.
    pub fn progress(&self) -> BuildProgress {
        BuildProgress { done: self.values.len() as u64, total: self.cost.entries }
    }

    /// Compute the next blocks, at least one and about `max_entries` values; returns the
    /// progress. A non-finite kernel value stops the build with an error naming the tuple
    /// (and every later call returns the same error).
    pub fn advance(&mut self, max_entries: usize) -> Result<BuildProgress> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let start = self.values.len();
        while self.more {
            if let Err(e) = self.build_block() {
                self.error = Some(e.clone());
                return Err(e);
            }
            self.more = next_sorted(&mut self.suffix, self.cost.n);
            if self.values.len() - start >= max_entries {
                break;
            }
        }
        Ok(self.progress())
    }

    /// One block: every pair `i1 ≤ i2 ≤ i3` for the current suffix `(i3, …, iq)`.
    fn build_block(&mut self) -> Result<()> {
        let s0 = self.suffix[0];
        let m = s0 + 1;
        self.v.copy_from(&self.xt.column(s0));
        for &j in &self.suffix[1..] {
            self.v.component_mul_assign(&self.xt.column(j));
        }
        for i in 0..m {
            let mut col = self.c.column_mut(i);
            col.copy_from(&self.xt.column(i));
            col.component_mul_assign(&self.v);
        }
        // Only the upper triangle i1 ≤ i2 is needed: compute it by column panels, each panel
        // [j0, j0 + b) needing rows 0..j0 + b (about half the flops of the full m × m product).
        let mut j0 = 0;
        while j0 < m {
            let b = BUILD_PANEL.min(m - j0);
            let mut mp = self.m.view_mut((0, j0), (j0 + b, b));
            mp.gemm(1.0, &self.x.rows(0, j0 + b), &self.c.columns(j0, b), 0.0);
            j0 += b;
        }
        let mm = &self.m;
        let block_start = self.values.len();
        for i2 in 0..m {
            for i1 in 0..=i2 {
                let s = mm[(i1, i2)];
                let k = self.cfg.link(s);
                if !k.is_finite() {
                    self.values.truncate(block_start);
                    let mut tuple = vec![i1, i2];
                    tuple.extend_from_slice(&self.suffix);
                    return Err(non_finite_error(&self.cfg, &tuple, s, k));
                }
                self.values.push(k);
            }
        }
        Ok(())
    }

    /// The finished Gram tensor; an error if the build is not complete.
    pub fn finish(self) -> Result<GramTensor> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.more || (self.values.len() as u64) != self.cost.entries {
            return Err(KpError::Parameter {
                name: "build",
                reason: format!(
                    "the Gram tensor is not complete ({} of {} values)",
                    self.values.len(),
                    self.cost.entries
                ),
            });
        }
        Ok(GramTensor { cfg: self.cfg, n: self.cost.n, d: self.cost.d, values: self.values })
    }
}

fn non_finite_error(cfg: &TensorKernelConfig, tuple: &[usize], s: f64, k: f64) -> KpError {
    let names: Vec<String> = tuple.iter().map(|i| format!("x{}", i + 1)).collect();
    let hint = match cfg.kernel {
        TensorKernel::Exponential => format!(
            "exp overflows above {:.1}; scale the inputs down (e.g. divide them by a constant) or use the polynomial kernel",
            fmath::ln(f64::MAX)
        ),
        TensorKernel::Polynomial { degree } => format!("the power {degree} overflows; scale the inputs down or lower the degree"),
        TensorKernel::Linear => "the inputs are too large; scale them down".into(),
    };
    KpError::NonFinite(format!(
        "tensor kernel value K({}) = {k} (samples counted from 1) with sum(x_i1 ⊙ ⋯ ⊙ x_iq) = {s}: {hint}",
        names.join(", ")
    ))
}

// ---------------------------------------------------------------------------------------------
// The Gram tensor and the dual polynomial.

/// The Gram tensor `K_{i1…iq} = K(x_{i1}, …, x_{iq})` (paper A, eq. 15), one value per
/// symmetry class in colex order (see [`rank`]).
#[derive(Debug, Clone)]
pub struct GramTensor {
    cfg: TensorKernelConfig,
    n: usize,
    d: usize,
    values: Vec<f64>,
}

/// Weights `multiplicity/q` of the entries of one block, by pattern of `(i1, i2)`.
#[derive(Clone, Copy)]
struct BlockWeights {
    /// `i1 < i2 < i3`.
    lt_lo: f64,
    /// `i1 = i2 < i3`.
    eq_lo: f64,
    /// `i1 < i2 = i3`.
    lt_hi: f64,
    /// `i1 = i2 = i3`.
    eq_hi: f64,
}

impl BlockWeights {
    #[inline]
    fn row(&self, i2: usize, s0: usize) -> (f64, f64) {
        if i2 < s0 {
            (self.lt_lo, self.eq_lo)
        } else {
            (self.lt_hi, self.eq_hi)
        }
    }
}

/// `Σ a_i b_i` with four accumulators.
#[inline]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; 4];
    let ca = a.chunks_exact(4);
    let cb = b.chunks_exact(4);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        acc[0] += x[0] * y[0];
        acc[1] += x[1] * y[1];
        acc[2] += x[2] * y[2];
        acc[3] += x[3] * y[3];
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

/// `Σ k_i a_i`, while `g_i += c·k_i` (fused, four accumulators; `k` sets the length).
#[inline]
fn dot_axpy(k: &[f64], a: &[f64], g: &mut [f64], c: f64) -> f64 {
    let n = k.len();
    let (a, g) = (&a[..n], &mut g[..n]);
    let mut acc = [0.0f64; 4];
    let mut kc = k.chunks_exact(4);
    let mut ac = a.chunks_exact(4);
    let mut gc = g.chunks_exact_mut(4);
    for ((kk, aa), gg) in (&mut kc).zip(&mut ac).zip(&mut gc) {
        for l in 0..4 {
            acc[l] += kk[l] * aa[l];
            gg[l] += kk[l] * c;
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for ((kk, aa), gg) in kc.remainder().iter().zip(ac.remainder()).zip(gc.into_remainder()) {
        s += kk * aa;
        *gg += kk * c;
    }
    s
}

/// `Σ k_i a_i`, while `g_i += c·k_i` and `u_i += cu·k_i` (fused, four accumulators).
#[inline]
fn dot_axpy2(k: &[f64], a: &[f64], g: &mut [f64], c: f64, u: &mut [f64], cu: f64) -> f64 {
    let n = k.len();
    let (a, g, u) = (&a[..n], &mut g[..n], &mut u[..n]);
    let mut acc = [0.0f64; 4];
    let mut kc = k.chunks_exact(4);
    let mut ac = a.chunks_exact(4);
    let mut gc = g.chunks_exact_mut(4);
    let mut uc = u.chunks_exact_mut(4);
    for (((kk, aa), gg), uu) in (&mut kc).zip(&mut ac).zip(&mut gc).zip(&mut uc) {
        for l in 0..4 {
            acc[l] += kk[l] * aa[l];
            gg[l] += kk[l] * c;
            uu[l] += kk[l] * cu;
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (((kk, aa), gg), uu) in
        kc.remainder().iter().zip(ac.remainder()).zip(gc.into_remainder()).zip(uc.into_remainder())
    {
        s += kk * aa;
        *gg += kk * c;
        *uu += kk * cu;
    }
    s
}

/// Products of α over the suffix: all of it, with one position left out, with two left out.
fn suffix_products(s: &[usize], a: &[f64], loo: &mut [f64]) -> f64 {
    for (j, l) in loo.iter_mut().enumerate() {
        *l = s.iter().enumerate().filter(|&(k, _)| k != j).map(|(_, &i)| a[i]).product();
    }
    s.iter().map(|&i| a[i]).product()
}

fn suffix_pair_product(s: &[usize], a: &[f64], j: usize, k: usize) -> f64 {
    s.iter().enumerate().filter(|&(l, _)| l != j && l != k).map(|(_, &i)| a[i]).product()
}

impl GramTensor {
    /// Build in one go (loop over [`GramTensorBuild::advance`]).
    pub fn build(x: &DMatrix<f64>, cfg: TensorKernelConfig, max_bytes: u64) -> Result<Self> {
        let mut b = GramTensorBuild::new(x, cfg, max_bytes)?;
        while !b.advance(1 << 20)?.is_done() {}
        b.finish()
    }

    /// Rebuild a Gram tensor from its stored values (one per symmetry class, colex order, as
    /// [`values`](Self::values) gives them), e.g. values built in a Web Worker and sent to the
    /// page. Refused unless there are exactly `C(n+q−1, q)` values (Section 2.3) and every one
    /// is finite: a tensor of another n or q, or a corrupted transfer, never reaches a solver.
    pub fn from_values(
        cfg: TensorKernelConfig,
        n: usize,
        d: usize,
        values: Vec<f64>,
    ) -> Result<Self> {
        let cost = estimate_cost(n, d, &cfg)?;
        if values.len() as u64 != cost.entries {
            return Err(KpError::Parameter {
                name: "tensor",
                reason: format!(
                    "a Gram tensor of order q = {} on n = {n} points has C(n+q−1, q) = {} values, but {} were given \
                     (it was built for other data or another q)",
                    cfg.q,
                    cost.entries,
                    values.len()
                ),
            });
        }
        if let Some(r) = values.iter().position(|v| !v.is_finite()) {
            let tuple: Vec<String> =
                unrank(r as u64, cfg.q).iter().map(|i| format!("x{}", i + 1)).collect();
            return Err(KpError::NonFinite(format!(
                "Gram tensor value number {} of {}, K({}), is {} (samples counted from 1)",
                r + 1,
                values.len(),
                tuple.join(", "),
                values[r]
            )));
        }
        Ok(Self { cfg, n, d, values })
    }

    /// The stored values, moved out (the inverse of [`from_values`](Self::from_values)).
    pub fn into_values(self) -> Vec<f64> {
        self.values
    }

    /// The kernel and q.
    pub fn config(&self) -> &TensorKernelConfig {
        &self.cfg
    }

    /// Dimension of the inputs.
    pub fn d(&self) -> usize {
        self.d
    }

    /// The cost figures of this tensor (Section 2.3).
    pub fn cost(&self) -> Result<TensorCost> {
        estimate_cost(self.n, self.d, &self.cfg)
    }

    /// The stored values, one per sorted tuple, in colex order.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// `K_{i1…iq}` for indices in any order (0-based).
    pub fn get(&self, idx: &[usize]) -> Result<f64> {
        if idx.len() != self.cfg.q {
            return Err(KpError::Parameter {
                name: "index",
                reason: format!("need {} indices (got {})", self.cfg.q, idx.len()),
            });
        }
        if let Some(&bad) = idx.iter().find(|&&i| i >= self.n) {
            return Err(KpError::Parameter {
                name: "index",
                reason: format!("index {bad} is not below n = {}", self.n),
            });
        }
        let mut t = idx.to_vec();
        t.sort_unstable();
        let r = rank(&t).and_then(|r| usize::try_from(r).ok());
        r.and_then(|r| self.values.get(r).copied()).ok_or_else(|| KpError::Parameter {
            name: "index",
            reason: "index out of range".into(),
        })
    }

    /// Walk the blocks of the storage: `f(suffix, block values, weights)`.
    fn for_each_block(&self, mut f: impl FnMut(&[usize], &[f64], BlockWeights)) {
        let q = self.cfg.q;
        let qf = q as f64;
        let mut s = vec![0usize; q - 2];
        let mut off = 0usize;
        loop {
            let s0 = s[0];
            let m = s0 + 1;
            let len = m * (m + 1) / 2;
            let m0 = multiplicity_with_q(&s, q);
            let c3 = s.iter().take_while(|&&i| i == s0).count() as f64;
            let w = BlockWeights {
                lt_lo: m0 / qf,
                eq_lo: m0 / (2.0 * qf),
                lt_hi: m0 / ((c3 + 1.0) * qf),
                eq_hi: m0 / ((c3 + 1.0) * (c3 + 2.0) * qf),
            };
            f(&s, &self.values[off..off + len], w);
            off += len;
            if !next_sorted(&mut s, self.n) {
                break;
            }
        }
    }

    fn check_alpha(&self, alpha: &DVector<f64>) {
        assert_eq!(
            alpha.len(),
            self.n,
            "α has length {} but the Gram tensor has n = {}",
            alpha.len(),
            self.n
        );
    }

    /// Coefficients `c_0..c_q` of the degree-q polynomial `λ ↦ P(α + λ v)` in one pass, so a
    /// linesearch along `v` (Algorithm 2.1 / 3.3) costs O(q) per trial step instead of a pass.
    pub fn line_polynomial(&self, alpha: &DVector<f64>, dir: &DVector<f64>) -> Vec<f64> {
        self.check_alpha(alpha);
        assert_eq!(dir.len(), self.n);
        let q = self.cfg.q;
        let (a, v) = (alpha.as_slice(), dir.as_slice());
        let mut out = vec![0.0; q + 1];
        // Each value contributes w K Π_j (a_{t_j} + λ v_{t_j}): multiply the linear factors out.
        let mut poly_s = vec![0.0; q - 1];
        let mut poly = vec![0.0; q + 1];
        self.for_each_block(|s, blk, w| {
            // Polynomial of the suffix factors.
            poly_s.iter_mut().for_each(|c| *c = 0.0);
            poly_s[0] = 1.0;
            for (deg, &i) in s.iter().enumerate() {
                for k in (0..=deg).rev() {
                    poly_s[k + 1] += poly_s[k] * v[i];
                    poly_s[k] *= a[i];
                }
            }
            let s0 = s[0];
            // Inner sums: Σ w K (a_i1 + λ v_i1)(a_i2 + λ v_i2) = A + Bλ + Cλ².
            let (mut ca, mut cb, mut cc) = (0.0, 0.0, 0.0);
            let mut off = 0;
            for i2 in 0..=s0 {
                let row = &blk[off..off + i2 + 1];
                off += i2 + 1;
                let (wl, we) = w.row(i2, s0);
                let ra = dot(&row[..i2], &a[..i2]);
                let rv = dot(&row[..i2], &v[..i2]);
                let kd = row[i2];
                ca += wl * ra * a[i2] + we * kd * a[i2] * a[i2];
                cb += wl * (ra * v[i2] + rv * a[i2]) + 2.0 * we * kd * a[i2] * v[i2];
                cc += wl * rv * v[i2] + we * kd * v[i2] * v[i2];
            }
            poly.iter_mut().for_each(|c| *c = 0.0);
            for (k, &p) in poly_s.iter().enumerate() {
                poly[k] += p * ca;
                poly[k + 1] += p * cb;
                poly[k + 2] += p * cc;
            }
            for (o, p) in out.iter_mut().zip(&poly) {
                *o += p;
            }
        });
        out
    }
}

/// `q!/Π c!` over the runs of the suffix (the multiplicity of `(i1, i2, suffix)` when i1, i2
/// are distinct from each other and from the suffix).
fn multiplicity_with_q(s: &[usize], q: usize) -> f64 {
    let mut m = factorial(q);
    for run in runs(s) {
        m /= factorial(run);
    }
    m
}

impl DualPolynomial for GramTensor {
    fn n(&self) -> usize {
        self.n
    }

    fn q(&self) -> f64 {
        self.cfg.q as f64
    }

    /// `P(α) = (1/q) Σ_{i1..iq} K_{i1…iq} α_{i1}⋯α_{iq}` (eq. 15): one pass over the classes,
    /// each value weighted by its multiplicity.
    fn value(&self, alpha: &DVector<f64>) -> f64 {
        self.check_alpha(alpha);
        let a = alpha.as_slice();
        let mut p = 0.0;
        self.for_each_block(|s, blk, w| {
            let a_s: f64 = s.iter().map(|&i| a[i]).product();
            if a_s == 0.0 {
                return;
            }
            let s0 = s[0];
            let mut t = 0.0;
            let mut off = 0;
            for i2 in 0..=s0 {
                let row = &blk[off..off + i2 + 1];
                off += i2 + 1;
                let (wl, we) = w.row(i2, s0);
                let rs = dot(&row[..i2], &a[..i2]);
                t += a[i2] * (wl * rs + we * row[i2] * a[i2]);
            }
            p += t * a_s;
        });
        p
    }

    /// `P(α)` and `ω_i = ∂P/∂α_i = Σ_{i2..iq} K_{i i2…iq} α_{i2}⋯α_{iq}` (Section 2.3, for q = 4
    /// `ω_i = Σ_{jkl} K_{ijkl} α_j α_k α_l`) in one pass: about two multiply-adds per stored value.
    fn value_grad(&self, alpha: &DVector<f64>, grad: &mut DVector<f64>) -> f64 {
        self.check_alpha(alpha);
        assert_eq!(grad.len(), self.n);
        grad.fill(0.0);
        let a = alpha.as_slice();
        let g = grad.as_mut_slice();
        let mut loo = vec![0.0; self.cfg.q - 2];
        let mut p = 0.0;
        self.for_each_block(|s, blk, w| {
            let a_s = suffix_products(s, a, &mut loo);
            let s0 = s[0];
            let mut t = 0.0;
            let mut off = 0;
            for i2 in 0..=s0 {
                let row = &blk[off..off + i2 + 1];
                off += i2 + 1;
                let (wl, we) = w.row(i2, s0);
                let c = wl * a[i2] * a_s;
                let rs = if c == 0.0 {
                    dot(&row[..i2], &a[..i2])
                } else {
                    dot_axpy(&row[..i2], a, g, c)
                };
                let kd = row[i2];
                g[i2] += (wl * rs + 2.0 * we * kd * a[i2]) * a_s;
                t += a[i2] * (wl * rs + we * kd * a[i2]);
            }
            for (&sj, &l) in s.iter().zip(loo.iter()) {
                g[sj] += t * l;
            }
            p += t * a_s;
        });
        p
    }

    /// `∇²P(α)_{ij} = (q − 1) Σ K_{ij i3…iq} α_{i3}⋯α_{iq}` (for q = 4: `3 Σ_kl K_ijkl α_k α_l`),
    /// in one pass over the classes (about three multiply-adds per stored value).
    fn hessian(&self, alpha: &DVector<f64>) -> DMatrix<f64> {
        self.check_alpha(alpha);
        let n = self.n;
        let a = alpha.as_slice();
        // G holds each unordered pair of positions once; H = G + Gᵀ.
        let mut gm = DMatrix::<f64>::zeros(n, n);
        let mut u = vec![0.0; n];
        let mut loo = vec![0.0; self.cfg.q - 2];
        self.for_each_block(|s, blk, w| {
            let a_s = suffix_products(s, a, &mut loo);
            let s0 = s[0];
            let m = s0 + 1;
            u[..m].iter_mut().for_each(|x| *x = 0.0);
            let mut t = 0.0;
            let mut off = 0;
            let gs = gm.as_mut_slice();
            for i2 in 0..m {
                let row = &blk[off..off + i2 + 1];
                off += i2 + 1;
                let (wl, we) = w.row(i2, s0);
                let c = wl * a_s;
                let ca = wl * a[i2];
                let col = &mut gs[i2 * n..i2 * n + i2 + 1];
                let rs = dot_axpy2(&row[..i2], a, &mut col[..i2], c, &mut u[..i2], ca);
                let kd = row[i2];
                col[i2] += we * kd * a_s;
                u[i2] += wl * rs + 2.0 * we * kd * a[i2];
                t += a[i2] * (wl * rs + we * kd * a[i2]);
            }
            for (j, &sj) in s.iter().enumerate() {
                let l = loo[j];
                let col = &mut gs[sj * n..sj * n + m];
                for (gi, ui) in col.iter_mut().zip(&u[..m]) {
                    *gi += ui * l;
                }
                for k in j + 1..s.len() {
                    gs[s[k] * n + sj] += t * suffix_pair_product(s, a, j, k);
                }
            }
        });
        let gt = gm.transpose();
        gm + gt
    }
}

// ---------------------------------------------------------------------------------------------
// Predictor (Remark 2.4).

/// The estimator of Remark 2.4 / eq. (17),
/// `f(x) = Σ_{i1..i(q−1)} K(x_{i1}, …, x_{i(q−1)}, x) α_{i1}⋯α_{i(q−1)}`.
///
/// By the symmetry over the q − 1 training indices it is a sum over sorted tuples
/// `i1 ≤ i2 ≤ … ≤ i(q−1)` with weight `mult·α_{i1}⋯α_{i(q−1)}`, and `K = g(⟨x, x_{i1} ⊙ v⟩)`
/// with `v = x_{i2} ⊙ ⋯ ⊙ x_{i(q−1)}` (g the identity, `t^s` or `exp`). For a batch of points
/// and a fixed suffix `(i2, …)`, all `i1 ≤ i2` come from one matrix product
/// `X_{0..=i2} diag(v) Pᵀ`; the cost is about `d·C(n+q−2, q−1)` multiplications per point and
/// the memory O((n + d)·batch). For the linear kernel it collapses to `⟨x, (Xᵀα)^(q−1)⟩`.
pub struct TensorPredictor {
    cfg: TensorKernelConfig,
    d: usize,
    form: PredictorForm,
}

enum PredictorForm {
    /// Linear kernel: `f(x) = ⟨x, w⟩`, `w = (Xᵀα)^(q−1)` componentwise.
    Linear(DVector<f64>),
    /// Training inputs (n × d), transposed (d × n), and α.
    Tuples { x: DMatrix<f64>, xt: DMatrix<f64>, alpha: DVector<f64> },
}

/// Values of a predictor on a 1-D grid.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Grid1d {
    pub xs: Vec<f64>,
    pub values: Vec<f64>,
}

/// Values of a predictor on a 2-D grid: `values[j·xs.len() + i] = f(xs[i], ys[j])`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Grid2d {
    pub xs: Vec<f64>,
    pub ys: Vec<f64>,
    pub values: Vec<f64>,
}

/// Largest number of grid points the grid helpers accept.
pub const MAX_GRID_POINTS: usize = 1_000_000;

/// Points per batch of the predictor.
const PREDICT_BATCH: usize = 256;

impl TensorPredictor {
    /// Prepare the predictor for dual coefficients `alpha` on training inputs `x` (n × d).
    pub fn new(x: &DMatrix<f64>, alpha: &DVector<f64>, cfg: TensorKernelConfig) -> Result<Self> {
        let (n, d) = x.shape();
        if n == 0 {
            return Err(KpError::NTooSmall(0));
        }
        if d == 0 {
            return Err(KpError::DTooSmall(0));
        }
        if alpha.len() != n {
            return Err(KpError::Parameter {
                name: "alpha",
                reason: format!("α has length {} but there are n = {n} samples", alpha.len()),
            });
        }
        check_finite_inputs(x)?;
        if let Some(i) = alpha.iter().position(|v| !v.is_finite()) {
            return Err(KpError::NonFinite(format!("α[{}] = {}", i + 1, alpha[i])));
        }
        if matches!(cfg.kernel, TensorKernel::Linear) {
            let u = x.tr_mul(alpha);
            let w = u.map(|t| t.powi(cfg.q as i32 - 1));
            return Ok(Self { cfg, d, form: PredictorForm::Linear(w) });
        }
        Ok(Self {
            cfg,
            d,
            form: PredictorForm::Tuples { x: x.clone(), xt: x.transpose(), alpha: alpha.clone() },
        })
    }

    /// Multiplications per predicted point, about `d·C(n+q−2, q−1)` (d for the linear kernel).
    pub fn multiplications_per_point(&self) -> f64 {
        match &self.form {
            PredictorForm::Linear(_) => self.d as f64,
            PredictorForm::Tuples { x, .. } => {
                self.d as f64
                    * symmetry_classes(x.nrows(), self.cfg.q - 1)
                        .map_or(f64::INFINITY, |t| t as f64)
            }
        }
    }

    /// `f` at a batch of points (rows of `pts`, b × d), added into `out`.
    fn batch(
        &self,
        x: &DMatrix<f64>,
        xt: &DMatrix<f64>,
        alpha: &DVector<f64>,
        pts: &DMatrix<f64>,
        out: &mut [f64],
    ) {
        let (n, d) = x.shape();
        let b = pts.nrows();
        let q = self.cfg.q;
        let ptst = pts.transpose(); // d × b
        let mut scaled = DMatrix::<f64>::zeros(d, b);
        let mut prod = DMatrix::<f64>::zeros(n, b);
        let mut v = DVector::<f64>::zeros(d);
        let mut coef = vec![0.0; n];
        let fact = factorial(q - 1);
        let mut s = vec![0usize; q - 2];
        loop {
            let s0 = s[0];
            let m = s0 + 1;
            let a_s: f64 = s.iter().map(|&i| alpha[i]).product();
            if a_s != 0.0 {
                let mut m0 = fact;
                for run in runs(&s) {
                    m0 /= factorial(run);
                }
                let c3 = s.iter().take_while(|&&i| i == s0).count() as f64;
                v.copy_from(&xt.column(s0));
                for &j in &s[1..] {
                    v.component_mul_assign(&xt.column(j));
                }
                for (mut col, pcol) in scaled.column_iter_mut().zip(ptst.column_iter()) {
                    col.copy_from(&pcol);
                    col.component_mul_assign(&v);
                }
                let mut pv = prod.view_mut((0, 0), (m, b));
                pv.gemm(1.0, &x.rows(0, m), &scaled, 0.0);
                for (i1, c) in coef[..m].iter_mut().enumerate() {
                    let w = if i1 < s0 { m0 } else { m0 / (c3 + 1.0) };
                    *c = w * alpha[i1] * a_s;
                }
                for (o, col) in out.iter_mut().zip(pv.column_iter()) {
                    *o +=
                        col.iter().zip(&coef[..m]).map(|(&t, c)| c * self.cfg.link(t)).sum::<f64>();
                }
            }
            if !next_sorted(&mut s, n) {
                break;
            }
        }
    }

    /// Input dimension d.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// `f(x)` at one point (length d).
    pub fn predict(&self, point: &[f64]) -> Result<f64> {
        let m = DMatrix::from_row_slice(1, point.len(), point);
        Ok(self.predict_rows(&m)?[0])
    }

    /// `f` at each row of `points` (m × d).
    pub fn predict_rows(&self, points: &DMatrix<f64>) -> Result<DVector<f64>> {
        if points.ncols() != self.d {
            return Err(KpError::Parameter {
                name: "points",
                reason: format!(
                    "the points have {} coordinates but the training inputs have d = {}",
                    points.ncols(),
                    self.d
                ),
            });
        }
        check_finite_inputs(points)?;
        let rows = points.nrows();
        let out = match &self.form {
            PredictorForm::Linear(w) => points * w,
            PredictorForm::Tuples { x, xt, alpha } => {
                let mut out = DVector::zeros(rows);
                let mut start = 0;
                while start < rows {
                    let b = PREDICT_BATCH.min(rows - start);
                    let pts = points.rows(start, b).into_owned();
                    self.batch(x, xt, alpha, &pts, &mut out.as_mut_slice()[start..start + b]);
                    start += b;
                }
                out
            }
        };
        if let Some(r) = out.iter().position(|v| !v.is_finite()) {
            let p: Vec<String> = points.row(r).iter().map(|v| format!("{v}")).collect();
            return Err(KpError::NonFinite(format!(
                "the predictor f(x) overflowed at x = ({}); the kernel values there are too large",
                p.join(", ")
            )));
        }
        Ok(out)
    }

    /// `f` on `m` equally spaced points of `[lo, hi]` (1-D inputs only).
    pub fn grid_1d(&self, lo: f64, hi: f64, m: usize) -> Result<Grid1d> {
        if self.d != 1 {
            return Err(KpError::Parameter {
                name: "grid",
                reason: format!("a 1-D grid needs 1-D inputs (d = {})", self.d),
            });
        }
        let xs = linspace(lo, hi, m, "grid.x")?;
        let pts = DMatrix::from_column_slice(m, 1, &xs);
        let values = self.predict_rows(&pts)?.as_slice().to_vec();
        Ok(Grid1d { xs, values })
    }

    /// `f` on an `mx × my` grid over `[x_range] × [y_range]` (2-D inputs only).
    pub fn grid_2d(
        &self,
        x_range: (f64, f64),
        y_range: (f64, f64),
        mx: usize,
        my: usize,
    ) -> Result<Grid2d> {
        if self.d != 2 {
            return Err(KpError::Parameter {
                name: "grid",
                reason: format!("a 2-D grid needs 2-D inputs (d = {})", self.d),
            });
        }
        let xs = linspace(x_range.0, x_range.1, mx, "grid.x")?;
        let ys = linspace(y_range.0, y_range.1, my, "grid.y")?;
        if mx.saturating_mul(my) > MAX_GRID_POINTS {
            return Err(KpError::Parameter {
                name: "grid",
                reason: format!("{mx} × {my} points is above the limit of {MAX_GRID_POINTS}"),
            });
        }
        let mut pts = DMatrix::<f64>::zeros(mx * my, 2);
        for (j, &y) in ys.iter().enumerate() {
            for (i, &x) in xs.iter().enumerate() {
                pts[(j * mx + i, 0)] = x;
                pts[(j * mx + i, 1)] = y;
            }
        }
        let values = self.predict_rows(&pts)?.as_slice().to_vec();
        Ok(Grid2d { xs, ys, values })
    }
}

fn linspace(lo: f64, hi: f64, m: usize, name: &'static str) -> Result<Vec<f64>> {
    if !(lo.is_finite() && hi.is_finite() && lo < hi) {
        return Err(KpError::Parameter {
            name,
            reason: format!("the range must be finite with lo < hi (got [{lo}, {hi}])"),
        });
    }
    if !(2..=MAX_GRID_POINTS).contains(&m) {
        return Err(KpError::Parameter {
            name,
            reason: format!(
                "the number of grid points must be between 2 and {MAX_GRID_POINTS} (got {m})"
            ),
        });
    }
    let h = (hi - lo) / (m - 1) as f64;
    Ok((0..m).map(|i| if i + 1 == m { hi } else { lo + h * i as f64 }).collect())
}

// ---------------------------------------------------------------------------------------------
// The features path (finite kernels).

/// Number of features N of a finite tensor kernel on d inputs: d (linear), `C(d + s − 1, s)`
/// (polynomial of degree s, Section 2.2); an error for the exponential kernel.
pub fn feature_count(d: usize, cfg: &TensorKernelConfig) -> Result<u64> {
    match cfg.kernel {
        TensorKernel::Linear => Ok(d as u64),
        TensorKernel::Polynomial { degree } => {
            binomial((d + degree as usize).saturating_sub(1) as u64, degree as u64).ok_or_else(
                || KpError::Parameter {
                    name: "kernel.degree",
                    reason: format!("C(d+s−1, s) overflows for d = {d}, s = {degree}"),
                },
            )
        }
        TensorKernel::Exponential => Err(exponential_has_no_features()),
    }
}

fn exponential_has_no_features() -> KpError {
    KpError::Parameter {
        name: "kernel",
        reason:
            "the exponential tensor kernel has infinitely many features (no finite feature map): \
                 only the Gram-tensor path can solve with it"
                .into(),
    }
}

/// The multi-indices of the polynomial features, as sorted tuples of input coordinates
/// (0-based; `[j, j]` is `x_j²`, `[j, k]` is `x_j x_k`), in the column order of
/// [`tensor_features`].
pub fn feature_monomials(
    d: usize,
    cfg: &TensorKernelConfig,
    max_features: u64,
) -> Result<Vec<Vec<usize>>> {
    let nf = feature_count(d, cfg)?;
    if nf > max_features {
        return Err(KpError::Parameter {
            name: "features",
            reason: format!("{nf} features, above the limit of {max_features}"),
        });
    }
    let s = match cfg.kernel {
        TensorKernel::Polynomial { degree } => degree as usize,
        _ => 1,
    };
    let mut out = Vec::with_capacity(nf as usize);
    let mut t = vec![0usize; s];
    loop {
        out.push(t.clone());
        if !next_sorted(&mut t, d) {
            break;
        }
    }
    Ok(out)
}

/// The explicit feature map of a finite tensor kernel at the rows of `x` (n × d), an n × N
/// matrix `Φ` with `Σ_k φ_k(x'_1)⋯φ_k(x'_q) = K(x'_1, …, x'_q)`. For degree s the feature of
/// the monomial `x^k` (|k| = s) is `(s!/(k_1!⋯k_d!))^(1/q) x^k` (Section 2.2; Table 2 for s = 2,
/// q = 4: `x_j²` and `2^(1/4) x_j x_k`). Refused when `8·n·N` exceeds `max_bytes`.
pub fn tensor_features(
    x: &DMatrix<f64>,
    cfg: &TensorKernelConfig,
    max_bytes: u64,
) -> Result<DMatrix<f64>> {
    let (n, d) = x.shape();
    if n == 0 {
        return Err(KpError::NTooSmall(0));
    }
    if d == 0 {
        return Err(KpError::DTooSmall(0));
    }
    let nf = feature_count(d, cfg)?;
    let bytes = nf.saturating_mul(n as u64).saturating_mul(8);
    check_budget(
        "the feature matrix",
        bytes,
        max_bytes,
        &format!("n = {n} rows × N = {nf} features"),
    )?;
    check_finite_inputs(x)?;
    let s = match cfg.kernel {
        TensorKernel::Linear => return Ok(x.clone()),
        TensorKernel::Polynomial { degree } => degree as usize,
        TensorKernel::Exponential => return Err(exponential_has_no_features()),
    };
    let inv_q = 1.0 / cfg.q as f64;
    let mut phi = DMatrix::<f64>::zeros(n, nf as usize);
    let mut t = vec![0usize; s];
    let mut col = 0;
    loop {
        let coef = fmath::pow(multiplicity(&t), inv_q);
        let mut c = phi.column_mut(col);
        c.copy_from(&x.column(t[0]));
        for &j in &t[1..] {
            c.component_mul_assign(&x.column(j));
        }
        c *= coef;
        col += 1;
        if !next_sorted(&mut t, d) {
            break;
        }
    }
    Ok(phi)
}

/// The features path as a [`DualPolynomial`]: `P(α) = (1/q)‖Φᵀα‖_q^q` with the explicit
/// feature map (Remark 2.5).
pub fn feature_polynomial(
    x: &DMatrix<f64>,
    cfg: &TensorKernelConfig,
    max_bytes: u64,
) -> Result<FeaturePolynomial> {
    Ok(FeaturePolynomial { x: tensor_features(x, cfg, max_bytes)?, q: cfg.q as f64 })
}
