//! The duality maps of ℓp spaces (paper A, notation of the digest).
//!
//! `J_q(u) = sign(u)|u|^(q−1)` componentwise is the gradient of `(1/q)‖u‖_q^q`; with
//! `1/p + 1/q = 1` it inverts `J_p`, so `J_p ∘ J_q = Id`.

/// The conjugate exponent `q = p/(p − 1)` of `p > 1`.
pub fn conjugate_exponent(p: f64) -> f64 {
    p / (p - 1.0)
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
    fn q(&self) -> f64 {
        self.q
    }
    fn value(&self, alpha: &DVector<f64>) -> f64 {
        let u = self.x.tr_mul(alpha);
        norm_pow(u.as_slice(), self.q) / self.q
    }
    fn value_grad(&self, alpha: &DVector<f64>, grad: &mut DVector<f64>) -> f64 {
        let u = self.x.tr_mul(alpha);
        let mut w = DVector::zeros(u.len());
        j_map_into(u.as_slice(), self.q, w.as_mut_slice());
        grad.gemv(1.0, &self.x, &w, 0.0);
        norm_pow(u.as_slice(), self.q) / self.q
    }
    /// `(q − 1)·X diag(|Xᵀα|^(q−2)) Xᵀ`.
    fn hessian(&self, alpha: &DVector<f64>) -> DMatrix<f64> {
        let u = self.x.tr_mul(alpha);
        let mut xs = self.x.clone();
        for (j, mut col) in xs.column_iter_mut().enumerate() {
            col *= (self.q - 1.0) * abs_pow(u[j], self.q - 2.0);
        }
        xs * self.x.transpose()
    }
}
