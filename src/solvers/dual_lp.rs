//! ℓp-regularized least squares solved in the dual (paper A, Algorithm 2.1).
//!
//! Primal `F(w) = (γ/2)‖Xw − y‖² + (1/p)‖w‖_p^p`, `1 < p < 2`; dual
//! `Λ(α) = (1/q)‖Xᵀα‖_q^q + (1/(2γ))‖α‖² − ⟨y, α⟩` with gradient
//! `∇Λ(α) = X J_q(Xᵀα) − y + α/γ`, primal iterate `w(α) = J_q(Xᵀα)`.
//! Gradient descent on Λ with the paper's backtracking: from `λ̄` each iteration, shrink by θ
//! while `Λ(α) − Λ(α − λ∇Λ) < λ(1 − δ)‖∇Λ‖²`.
//!
//! Two facts keep the numbers exact to rounding:
//! * the linesearch test is evaluated as `λ(δ − λ/(2γ))‖g‖² ≥ B(λ)`, an exact rewriting with
//!   the Bregman remainder `B` of the polynomial term computed termwise without cancellation
//!   along `Xᵀα − λXᵀg` (one product `Xᵀg` serves every trial step; each trial costs O(d));
//! * for the square loss the duality gap equals `(γ/2)‖∇Λ(α)‖²` (expand `F(w(α)) + Λ(α)` with
//!   `⟨y, α⟩ = ‖Xᵀα‖_q^q − ⟨Xw − y, α⟩`), a sum of squares with no cancellation; the tests check
//!   it against `F + Λ` computed term by term.

use crate::fmath;
use nalgebra::{DMatrix, DVector};
use web_time::Instant;

use super::{Progress, Solver, Status, StepRecord};
use crate::lp::{abs_pow, conjugate_exponent, j_map_into, norm_pow};

/// Linesearch parameters of Algorithm 2.1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Linesearch {
    /// Sufficient-decrease parameter δ ∈ (0, 1).
    pub delta: f64,
    /// Shrink factor θ ∈ (0, 1).
    pub theta: f64,
    /// Initial step λ̄ ∈ (0, γ/(2(1 − δ))].
    pub step0: f64,
    /// Cap on reductions per iteration; reaching it means the decrease is below rounding.
    pub max_backtracks: usize,
}

/// The state of Algorithm 2.1 on one data set.
pub struct DualLp {
    x: DMatrix<f64>,
    y: DVector<f64>,
    gamma: f64,
    p: f64,
    q: f64,
    ls: Linesearch,
    /// Dual iterate α (length n).
    alpha: DVector<f64>,
    /// `u = Xᵀα` (length d).
    u: DVector<f64>,
    /// `w = J_q(u)` (length d).
    w: DVector<f64>,
    /// `∇Λ(α)` (length n).
    grad: DVector<f64>,
    /// `‖u‖_q^q` (= `‖w‖_p^p`).
    s: f64,
    lambda: f64,
    primal: f64,
    progress: Progress,
    /// Scratch: `Xᵀg`.
    xtg: DVector<f64>,
}

impl DualLp {
    /// Start Algorithm 2.1 at α = 0. Parameters must already be validated
    /// (see [`crate::experiment`]).
    pub fn new(x: DMatrix<f64>, y: DVector<f64>, gamma: f64, p: f64, ls: Linesearch) -> Self {
        let (n, d) = x.shape();
        let q = conjugate_exponent(p);
        let mut me = Self {
            x,
            y,
            gamma,
            p,
            q,
            ls,
            alpha: DVector::zeros(n),
            u: DVector::zeros(d),
            w: DVector::zeros(d),
            grad: DVector::zeros(n),
            s: 0.0,
            lambda: 0.0,
            primal: 0.0,
            progress: Progress::default(),
            xtg: DVector::zeros(d),
        };
        me.refresh();
        me
    }

    /// Recompute `w`, `∇Λ`, `Λ` and `F` from `α` and `u`.
    fn refresh(&mut self) {
        j_map_into(self.u.as_slice(), self.q, self.w.as_mut_slice());
        self.s = norm_pow(self.u.as_slice(), self.q);
        // grad = Xw − y + α/γ ; residual r = Xw − y
        let xw = &self.x * &self.w;
        let r = &xw - &self.y;
        self.primal = 0.5 * self.gamma * r.norm_squared() + self.s / self.p;
        self.grad = r + &self.alpha / self.gamma;
        self.lambda = self.s / self.q + self.alpha.norm_squared() / (2.0 * self.gamma) - self.y.dot(&self.alpha);
    }

    /// Dual iterate α.
    pub fn alpha(&self) -> &DVector<f64> {
        &self.alpha
    }
    /// Primal iterate `w(α) = J_q(Xᵀα)`.
    pub fn w(&self) -> &DVector<f64> {
        &self.w
    }
    /// `∇Λ(α)`.
    pub fn grad(&self) -> &DVector<f64> {
        &self.grad
    }
    /// `Λ(α)` as a sum of its three terms.
    pub fn dual_objective(&self) -> f64 {
        self.lambda
    }
    /// `F(w(α))`.
    pub fn primal_objective(&self) -> f64 {
        self.primal
    }
    /// The gap `(γ/2)‖∇Λ(α)‖²` (equal to `F(w(α)) + Λ(α)` for the square loss).
    pub fn gap(&self) -> f64 {
        0.5 * self.gamma * self.grad.norm_squared()
    }
    /// The exponents (p, q).
    pub fn exponents(&self) -> (f64, f64) {
        (self.p, self.q)
    }

    /// The Bregman remainder of `P(α) = (1/q)‖Xᵀα‖_q^q` along `−λg`:
    /// `B = P(α − λg) − P(α) + λ⟨∇P(α), g⟩ = Σ_j (1/q)(|u_j − λz_j|^q − |u_j|^q) + λ J_q(u_j) z_j`
    /// with `u = Xᵀα`, `z = Xᵀg`, each term computed without cancellation (see [`bregman_term`]).
    fn bregman(&self, step: f64) -> f64 {
        let q = self.q;
        let mut acc = [0.0f64; 2];
        for (k, (&u, &z)) in self.u.iter().zip(self.xtg.iter()).enumerate() {
            acc[k & 1] += bregman_term(u, step * z, q);
        }
        acc[0] + acc[1]
    }
}

/// `(1/q)(|u − h|^q − |u|^q) + J_q(u)·h ≥ 0`, accurate to rounding even when `h ≪ u`:
/// with `u − h = u(1 + t)`, `t = −h/u`, it equals `(|u|^q/q)·φ(t)`, `φ(t) = (1+t)^q − 1 − qt`,
/// and φ is summed as its binomial series for small `|t|` (no cancellation of the first order).
pub fn bregman_term(u: f64, h: f64, q: f64) -> f64 {
    if u == 0.0 {
        return abs_pow(h, q) / q;
    }
    let t = -h / u;
    if t < -1.0 {
        // The sign flips: both terms are of comparable size, no cancellation.
        return (abs_pow(u - h, q) - abs_pow(u, q)) / q + crate::lp::j_scalar(u, q) * h;
    }
    let phi = if t.abs() < 1e-3 {
        // Σ_{k≥2} C(q, k) t^k; the ratio of consecutive terms is (q − k)t/(k + 1), |·| < 0.03.
        let mut term = 0.5 * q * (q - 1.0) * t * t;
        let mut sum = term;
        let mut k = 2.0;
        while term.abs() > 1e-18 * sum.abs() && k < 40.0 {
            term *= (q - k) * t / (k + 1.0);
            sum += term;
            k += 1.0;
        }
        sum
    } else {
        fmath::exp_m1(q * fmath::ln_1p(t)) - q * t
    };
    abs_pow(u, q) / q * phi.max(0.0)
}

impl Solver for DualLp {
    fn current(&self) -> StepRecord {
        let gap = self.gap();
        self.progress.record(self.primal, -self.lambda, gap, super::relative_gap(gap, self.primal), 0.0)
    }

    fn step(&mut self) -> Result<StepRecord, Status> {
        let t0 = Instant::now();
        let g2 = self.grad.norm_squared();
        if g2 == 0.0 {
            return Err(Status::Stalled);
        }
        self.xtg = self.x.tr_mul(&self.grad);
        // The paper's test Λ(α) − Λ(α − λg) ≥ λ(1 − δ)‖g‖², rewritten exactly with
        // Λ(α) − Λ(α − λg) = λ‖g‖² − (λ²/(2γ))‖g‖² − B(λ) as λ(δ − λ/(2γ))‖g‖² ≥ B(λ): every
        // term is computed without cancellation, so the test stays meaningful down to rounding.
        let mut step = self.ls.step0;
        let mut backtracks = 0;
        loop {
            let b = self.bregman(step);
            if !b.is_finite() && backtracks >= self.ls.max_backtracks {
                return Err(Status::NonFinite);
            }
            if b.is_finite() && step * (self.ls.delta - step / (2.0 * self.gamma)) * g2 >= b {
                break;
            }
            if backtracks >= self.ls.max_backtracks {
                return Err(Status::Stalled);
            }
            step *= self.ls.theta;
            backtracks += 1;
        }
        let g = std::mem::replace(&mut self.grad, DVector::zeros(0));
        self.alpha.axpy(-step, &g, 1.0);
        // Recompute Xᵀα rather than keep the linesearch's `u − λXᵀg`, so rounding never drifts
        // `w` away from `J_q(Xᵀα)` over many iterations (one product per iteration).
        self.u = self.x.tr_mul(&self.alpha);
        self.refresh();
        if !(self.primal.is_finite() && self.lambda.is_finite()) {
            return Err(Status::NonFinite);
        }
        let dt = self.progress.accept(t0, step, backtracks);
        let mut rec = self.current();
        rec.time_ms = dt;
        Ok(rec)
    }
}
