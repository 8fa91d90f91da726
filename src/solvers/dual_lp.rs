//! ℓp-regularized least squares solved in the dual (paper A, Algorithm 2.1).
//!
//! Primal `F(w) = (γ/2)‖Xw − y‖² + (1/p)‖w‖_p^p`, `1 < p < 2`; dual
//! `Λ(α) = (1/q)‖Xᵀα‖_q^q + (1/(2γ))‖α‖² − ⟨y, α⟩` with gradient
//! `∇Λ(α) = X J_q(Xᵀα) − y + α/γ`, primal iterate `w(α) = J_q(Xᵀα)`.
//! Gradient descent on Λ with the paper's backtracking: from `λ̄` each iteration, shrink by θ
//! while `Λ(α) − Λ(α − λ∇Λ) < λ(1 − δ)‖∇Λ‖²`.
//!
//! Two facts keep the numbers exact to rounding:
//! * along a search direction `u(λ) = Xᵀα − λ Xᵀg`, so one product `Xᵀg` serves every trial
//!   step of the linesearch (each trial costs O(d));
//! * for the square loss the duality gap equals `(γ/2)‖∇Λ(α)‖²` (expand `F(w(α)) + Λ(α)` with
//!   `⟨y, α⟩ = ‖Xᵀα‖_q^q − ⟨Xw − y, α⟩`), a sum of squares with no cancellation; the tests check
//!   it against `F + Λ` computed term by term.

use nalgebra::{DMatrix, DVector};
use web_time::Instant;

use super::{Solver, Status, StepRecord};
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
    iter: usize,
    last_step: f64,
    last_backtracks: usize,
    elapsed_ms: f64,
    /// Scratch: `Xᵀg` and a trial `u`.
    xtg: DVector<f64>,
    u_trial: DVector<f64>,
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
            iter: 0,
            last_step: 0.0,
            last_backtracks: 0,
            elapsed_ms: 0.0,
            xtg: DVector::zeros(d),
            u_trial: DVector::zeros(d),
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

    /// `Λ(α) − Λ(α − λg)` from the trial `u − λXᵀg`, summed termwise to limit cancellation.
    fn decrease(&mut self, step: f64, g2: f64, ag: f64, yg: f64) -> f64 {
        let q = self.q;
        let mut dq = 0.0;
        for ((ut, &u), &z) in self.u_trial.iter_mut().zip(self.u.iter()).zip(self.xtg.iter()) {
            let v = u - step * z;
            *ut = v;
            dq += abs_pow(u, q) - abs_pow(v, q);
        }
        // ‖α‖² − ‖α − λg‖² = 2λ⟨α, g⟩ − λ²‖g‖² ;  ⟨y, α⟩ − ⟨y, α − λg⟩ = λ⟨y, g⟩
        dq / q + (2.0 * step * ag - step * step * g2) / (2.0 * self.gamma) - step * yg
    }
}

impl Solver for DualLp {
    fn current(&self) -> StepRecord {
        let gap = self.gap();
        StepRecord {
            iter: self.iter,
            primal: self.primal,
            dual: -self.lambda,
            gap,
            rel_gap: gap / self.primal.abs().max(1e-300),
            step: self.last_step,
            backtracks: self.last_backtracks,
            time_ms: 0.0,
            elapsed_ms: self.elapsed_ms,
        }
    }

    fn step(&mut self) -> Result<StepRecord, Status> {
        let t0 = Instant::now();
        let g2 = self.grad.norm_squared();
        if g2 == 0.0 {
            return Err(Status::Stalled);
        }
        self.xtg = self.x.tr_mul(&self.grad);
        let ag = self.alpha.dot(&self.grad);
        let yg = self.y.dot(&self.grad);
        let mut step = self.ls.step0;
        let mut backtracks = 0;
        loop {
            let dec = self.decrease(step, g2, ag, yg);
            if !dec.is_finite() && backtracks >= self.ls.max_backtracks {
                return Err(Status::NonFinite);
            }
            if dec.is_finite() && dec >= step * (1.0 - self.ls.delta) * g2 {
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
        self.iter += 1;
        self.last_step = step;
        self.last_backtracks = backtracks;
        let dt = t0.elapsed().as_secs_f64() * 1e3;
        self.elapsed_ms += dt;
        let mut rec = self.current();
        rec.time_ms = dt;
        Ok(rec)
    }
}
