//! The duality maps of ℓp spaces (paper A, notation of the digest).
//!
//! `J_q(u) = sign(u)|u|^(q−1)` componentwise is the gradient of `(1/q)‖u‖_q^q`; with
//! `1/p + 1/q = 1` it inverts `J_p`, so `J_p ∘ J_q = Id`.

/// The conjugate exponent `q = p/(p − 1)` of `p > 1`, snapped to the nearest integer when it is
/// within 8 ulps of it: p = 4/3 is not a double, and `p/(p − 1)` of the nearest one is
/// 4.000000000000001, where the user meant q = 4 (the tensor path's q; [`abs_pow`] and
/// [`j_scalar`] then multiply instead of calling `pow`).
pub fn conjugate_exponent(p: f64) -> f64 {
    let q = p / (p - 1.0);
    let r = q.round();
    if (q - r).abs() <= 8.0 * f64::EPSILON * q {
        r
    } else {
        q
    }
}

/// `|t|^r` with the fast paths for the exponents of the tensor kernels.
#[inline]
pub fn abs_pow(t: f64, r: f64) -> f64 {
    let a = t.abs();
    if r == 2.0 {
        a * a
    } else if r == 3.0 {
        a * a * a
    } else if r == 4.0 {
        let a2 = a * a;
        a2 * a2
    } else if a == 0.0 {
        0.0
    } else {
        fmath::pow(a, r)
    }
}

/// `|t|^k` for an integer `k ≥ 1` by binary powering (at most 2·log₂k multiplications, in a
/// fixed order: the same bits natively and in wasm). Within about `k·ε` relative of the exact power
/// (each squaring at most doubles the relative error), where `pow` is within one ulp; Algorithm 2.1
/// uses it at integer q ≠ 4 (p = 1.1, 5/4, 6/5, 8/7, …) in place of two `pow` calls per coordinate
/// and iteration (issue 21; tests/paper_a.rs checks the bound).
#[inline]
pub fn abs_powi(t: f64, k: u32) -> f64 {
    let (mut a, mut k, mut r) = (t.abs(), k, 1.0f64);
    loop {
        if k & 1 == 1 {
            r *= a;
        }
        k >>= 1;
        if k == 0 {
            return r;
        }
        a *= a;
    }
}

/// One coordinate of the duality map: `sign(t)|t|^(r−1)`.
#[inline]
pub fn j_scalar(t: f64, r: f64) -> f64 {
    let m = abs_pow(t, r - 1.0);
    if t < 0.0 {
        -m
    } else {
        m
    }
}

/// The duality map `J_r(u) = sign(u)|u|^(r−1)`, written into `out`.
pub fn j_map_into(u: &[f64], r: f64, out: &mut [f64]) {
    for (o, &t) in out.iter_mut().zip(u) {
        *o = j_scalar(t, r);
    }
}

/// `‖u‖_r^r = Σ |u_j|^r`, summed with four accumulators.
pub fn norm_pow(u: &[f64], r: f64) -> f64 {
    let mut acc = [0.0f64; 4];
    let chunks = u.chunks_exact(4);
    let rest = chunks.remainder();
    for c in chunks {
        acc[0] += abs_pow(c[0], r);
        acc[1] += abs_pow(c[1], r);
        acc[2] += abs_pow(c[2], r);
        acc[3] += abs_pow(c[3], r);
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for &t in rest {
        s += abs_pow(t, r);
    }
    s
}

use crate::fmath;
use nalgebra::{DMatrix, DVector};

/// The smooth polynomial part of paper A's dual, `P(α) = (1/q)‖Φ_n* α‖_q^q`, and what the dual
/// methods need of it. Computed from the features (`Φ_n* α = Xᵀα`, any q > 2, Remark 2.5) or,
/// for even q, from a Gram tensor (eq. 13–14). Note `∇P(α)_i = ⟨Φ(x_i), w(α)⟩` with
/// `w(α) = J_q(Φ_n* α)`, and `‖w(α)‖_p^p = q·P(α)`, so the primal value is computable on both paths.
pub trait DualPolynomial {
    /// Number of samples n (the length of α).
    fn n(&self) -> usize;
    /// The exponent q (even integer on the tensor path).
    fn q(&self) -> f64;
    /// `P(α)`.
    fn value(&self, alpha: &DVector<f64>) -> f64;
    /// `P(α)`, writing `∇P(α)` into `grad`.
    fn value_grad(&self, alpha: &DVector<f64>, grad: &mut DVector<f64>) -> f64;
    /// `∇²P(α)` (n × n), for the dual Newton method.
    fn hessian(&self, alpha: &DVector<f64>) -> DMatrix<f64>;
    /// The primal iterate `w(α) = J_q(Φ*α)` when the feature map is explicit (features path,
    /// Theorem 2.1 / eq. 9); None on the Gram tensor, which has no features.
    fn weights(&self, alpha: &DVector<f64>) -> Option<DVector<f64>>;
}

/// `P(α) = (1/q)‖Xᵀα‖_q^q` from the features `X` (n × d).
pub struct FeaturePolynomial {
    pub x: DMatrix<f64>,
    pub q: f64,
}

impl DualPolynomial for FeaturePolynomial {
    fn n(&self) -> usize {
        self.x.nrows()
    }
    /// `w(α) = J_q(Xᵀα)`.
    fn weights(&self, alpha: &DVector<f64>) -> Option<DVector<f64>> {
        let u = self.x.tr_mul(alpha);
        let mut w = DVector::zeros(u.len());
        j_map_into(u.as_slice(), self.q, w.as_mut_slice());
        Some(w)
    }
    fn q(&self) -> f64 {
        self.q
    }
    fn value(&self, alpha: &DVector<f64>) -> f64 {
        let u = self.x.tr_mul(alpha);
        norm_pow(u.as_slice(), self.q) / self.q
    }
    /// One pass over X (column-major: column j is `x_j ∈ ℝⁿ`): `u_j = ⟨x_j, α⟩`,
    /// `∇P += J_q(u_j)·x_j` while the column is in cache. The same operations in the same order
    /// as `Xᵀα`, then `X·J_q(u)` (nalgebra's `tr_mul`, `gemv`) and [`norm_pow`]: the same bits.
    fn value_grad(&self, alpha: &DVector<f64>, grad: &mut DVector<f64>) -> f64 {
        let (n, d) = self.x.shape();
        let q = self.q;
        if d == 0 {
            grad.fill(0.0);
            return 0.0;
        }
        if crate::par::threads() > 1 && n.saturating_mul(d) >= PAR_MIN_ENTRIES {
            return self.value_grad_parallel(alpha, grad);
        }
        let g = grad.as_mut_slice();
        // norm_pow's order: four accumulators over the chunks of four, then the rest in turn.
        let full = d - d % 4;
        let mut acc = [0.0f64; 4];
        let mut rest = [0.0f64; 3];
        for (j, col) in self.x.column_iter().enumerate() {
            let u = col.dot(alpha);
            let w = j_scalar(u, q);
            let c = &col.as_slice()[..n];
            if j == 0 {
                for (o, &v) in g.iter_mut().zip(c) {
                    *o = v * w;
                }
            } else {
                for (o, &v) in g.iter_mut().zip(c) {
                    *o += v * w;
                }
            }
            if j < full {
                acc[j % 4] += abs_pow(u, q);
            } else {
                rest[j - full] = abs_pow(u, q);
            }
        }
        let mut total = (acc[0] + acc[1]) + (acc[2] + acc[3]);
        for &t in &rest[..d - full] {
            total += t;
        }
        total / q
    }
    /// `(q − 1)·X diag(|Xᵀα|^(q−2)) Xᵀ`: its lower half by `faer`'s blocked matrix product
    /// over column blocks of X (a scaled copy of one block at a time, never of X), then mirrored.
    fn hessian(&self, alpha: &DVector<f64>) -> DMatrix<f64> {
        let u = self.x.tr_mul(alpha);
        let weights: Vec<f64> =
            u.iter().map(|&t| (self.q - 1.0) * abs_pow(t, self.q - 2.0)).collect();
        weighted_gram(&self.x, &weights)
    }
}

/// Below this many entries of X, [`FeaturePolynomial::value_grad`] stays on one thread.
const PAR_MIN_ENTRIES: usize = 1 << 18;

impl FeaturePolynomial {
    /// [`DualPolynomial::value_grad`] on [`crate::par::threads`] threads, with the same bits:
    /// the columns' `u_j = ⟨x_j, α⟩`, `J_q(u_j)` and `|u_j|^q` in parallel (each column by one
    /// thread, the same dot product), then `∇P = X·J_q(u)` by bands of rows (each entry summed
    /// over j in order, as the one-thread loop does), then `Σ|u_j|^q` in [`norm_pow`]'s order.
    fn value_grad_parallel(&self, alpha: &DVector<f64>, grad: &mut DVector<f64>) -> f64 {
        let (n, d) = self.x.shape();
        let q = self.q;
        let threads = crate::par::threads();
        let mut terms = vec![[0.0f64; 2]; d];
        let width = d.div_ceil(4 * threads).max(64);
        crate::par::for_each_chunk(&mut terms, width, |c, out| {
            for (k, o) in out.iter_mut().enumerate() {
                let u = self.x.column(c * width + k).dot(alpha);
                *o = [j_scalar(u, q), abs_pow(u, q)];
            }
        });
        let data = self.x.as_slice();
        let band = n.div_ceil(threads).max(1);
        crate::par::for_each_chunk(grad.as_mut_slice(), band, |b, g| {
            let r0 = b * band;
            for (j, t) in terms.iter().enumerate() {
                let c = &data[j * n + r0..j * n + r0 + g.len()];
                if j == 0 {
                    for (o, &v) in g.iter_mut().zip(c) {
                        *o = v * t[0];
                    }
                } else {
                    for (o, &v) in g.iter_mut().zip(c) {
                        *o += v * t[0];
                    }
                }
            }
        });
        let full = d - d % 4;
        let mut acc = [0.0f64; 4];
        for (j, t) in terms[..full].iter().enumerate() {
            acc[j % 4] += t[1];
        }
        let mut total = (acc[0] + acc[1]) + (acc[2] + acc[3]);
        for t in &terms[full..] {
            total += t[1];
        }
        total / q
    }
}

/// `X diag(c) Xᵀ` for X (n × d, column-major) and weights `c` (length d): the lower half by
/// `faer`'s matrix product, summed over blocks of columns of X so that only one block (about
/// 2 MB) is copied and scaled at a time, then mirrored. The product runs on
/// [`crate::par::threads`] threads; faer splits it by blocks of the output, each summed in the
/// same order, so the bits do not depend on the count (tests/threads.rs).
pub fn weighted_gram(x: &DMatrix<f64>, c: &[f64]) -> DMatrix<f64> {
    use faer::linalg::matmul::triangular::{matmul, BlockStructure};
    let (n, d) = x.shape();
    if n == 0 || d == 0 {
        return DMatrix::zeros(n, n);
    }
    let mut h = faer::Mat::<f64>::zeros(n, n);
    let block = (262_144 / n).clamp(64, d.max(64));
    let data = x.as_slice();
    let mut scaled = vec![0.0; n * block.min(d)];
    let mut j0 = 0;
    while j0 < d {
        let b = block.min(d - j0);
        let cols = &data[j0 * n..(j0 + b) * n];
        for (k, (dst, src)) in
            scaled.chunks_exact_mut(n).zip(cols.chunks_exact(n)).take(b).enumerate()
        {
            let w = c[j0 + k];
            for (o, &v) in dst.iter_mut().zip(src) {
                *o = w * v;
            }
        }
        let lhs = faer::MatRef::from_column_major_slice(&scaled[..n * b], n, b);
        let rhs = faer::MatRef::from_column_major_slice(cols, n, b).transpose();
        let accum = if j0 == 0 { faer::Accum::Replace } else { faer::Accum::Add };
        matmul(
            h.as_mut(),
            BlockStructure::TriangularLower,
            accum,
            lhs,
            BlockStructure::Rectangular,
            rhs,
            BlockStructure::Rectangular,
            1.0,
            crate::par::faer_par(),
        );
        j0 += b;
    }
    DMatrix::from_fn(n, n, |i, j| if i >= j { h[(i, j)] } else { h[(j, i)] })
}
