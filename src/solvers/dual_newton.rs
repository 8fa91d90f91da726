//! Beyond paper A (issue 3, item 8): a damped Newton method on the smooth dual of the square
//! loss, `Λ(α) = P(α) + (1/(2γ))‖α‖² − ⟨y, α⟩` (eq. 8 with `P(α) = (1/q)‖Φ_n* α‖_q^q`).
//!
//! `∇Λ = ∇P(α) + α/γ − y`, `∇²Λ = ∇²P(α) + I/γ` (features: `(q − 1)·X diag(|Xᵀα|^(q−2)) Xᵀ + I/γ`;
//! q = 4 Gram tensor: `3 Σ_kl K_ijkl α_k α_l + δ_ij/γ`), positive definite since Λ is
//! `1/γ`-strongly convex. Each iteration solves `∇²Λ d = −∇Λ` by Cholesky (nalgebra) and
//! backtracks from t = 1 (factor θ) until Armijo `Λ(α + t d) ≤ Λ(α) + c t ⟨∇Λ, d⟩` holds, with the
//! same rounding slack as [`super::prox_dual`] (`8ε` times the magnitudes compared), so the
//! full Newton steps near the optimum are not refused for differences below rounding.
//! The gap is `(γ/2)‖∇Λ(α)‖²` (= `F(w(α)) + Λ(α)` for the square loss, see [`super::dual_lp`]).

use nalgebra::DVector;
use web_time::Instant;

use super::prox_dual::{check_problem, evaluate_dual, features_w, DualEval};
use super::{Solver, Status, StepRecord};
use crate::error::{KpError, Result};
use crate::losses::Loss;
use crate::lp::DualPolynomial;

/// Parameters of the damped Newton method.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewtonConfig {
    /// γ > 0.
    pub gamma: f64,
    /// Armijo constant c ∈ (0, 1/2).
    pub armijo: f64,
    /// Step shrink factor θ ∈ (0, 1).
    pub theta: f64,
    /// Cap on step reductions per iteration.
    pub max_backtracks: usize,
}

impl NewtonConfig {
    /// Defaults c = 1e-4, θ = 0.5, 60 reductions.
    pub fn new(gamma: f64) -> Self {
        Self { gamma, armijo: 1e-4, theta: 0.5, max_backtracks: 60 }
    }
}

/// The state of the dual Newton method (square loss), generic over `P`.
pub struct DualNewton<P: DualPolynomial> {
    poly: P,
    y: DVector<f64>,
    cfg: NewtonConfig,
    q: f64,
    alpha: DVector<f64>,
    gradp: DVector<f64>,
    pval: f64,
    /// `∇Λ(α)`.
    grad: DVector<f64>,
    lambda: f64,
    eval: DualEval,
    iter: usize,
    last_step: f64,
    last_backtracks: usize,
    elapsed_ms: f64,
}

fn lambda_of(pval: f64, alpha: &DVector<f64>, y: &DVector<f64>, gamma: f64) -> f64 {
    pval + alpha.norm_squared() / (2.0 * gamma) - y.dot(alpha)
}

impl<P: DualPolynomial> DualNewton<P> {
    /// Start at α = 0 after checking γ > 0, `p = q/(q − 1)` in (1, 2), finite targets, c ∈ (0, 1/2),
    /// θ ∈ (0, 1).
    pub fn new(poly: P, y: DVector<f64>, cfg: NewtonConfig) -> Result<Self> {
        let n = poly.n();
        let q = poly.q();
        check_problem(&Loss::Square, cfg.gamma, q, n, &y)?;
        if !(cfg.armijo.is_finite() && cfg.armijo > 0.0 && cfg.armijo < 0.5) {
            return Err(KpError::Parameter {
                name: "solver.armijo",
                reason: format!("the Armijo constant c must lie in (0, 1/2) (got {})", cfg.armijo),
            });
        }
        if !(cfg.theta.is_finite() && cfg.theta > 0.0 && cfg.theta < 1.0) {
            return Err(KpError::LinesearchParam { name: "theta", value: cfg.theta });
        }
        let alpha = DVector::zeros(n);
        let mut gradp = DVector::zeros(n);
        let pval = poly.value_grad(&alpha, &mut gradp);
        let mut me = Self {
            poly,
            y,
            cfg,
            q,
            alpha,
            gradp,
            pval,
            grad: DVector::zeros(n),
            lambda: 0.0,
            eval: DualEval { primal: 0.0, lambda: 0.0, gap: 0.0 },
            iter: 0,
            last_step: 0.0,
            last_backtracks: 0,
            elapsed_ms: 0.0,
        };
        me.refresh();
        Ok(me)
    }

    fn refresh(&mut self) {
        self.grad = &self.gradp + &self.alpha / self.cfg.gamma - &self.y;
        self.lambda = lambda_of(self.pval, &self.alpha, &self.y, self.cfg.gamma);
        self.eval = evaluate_dual(&Loss::Square, self.cfg.gamma, self.q, &self.y, &self.alpha, self.pval, &self.gradp);
    }

    /// Dual iterate α.
    pub fn alpha(&self) -> &DVector<f64> {
        &self.alpha
    }
    /// `∇P(α)`: the predictions at the training points.
    pub fn predictions(&self) -> &DVector<f64> {
        &self.gradp
    }
    /// `∇Λ(α)`.
    pub fn grad(&self) -> &DVector<f64> {
        &self.grad
    }
    /// `F(w(α))`.
    pub fn primal_objective(&self) -> f64 {
        self.eval.primal
    }
    /// `Λ(α)`.
    pub fn dual_objective(&self) -> f64 {
        self.lambda
    }
    /// The gap `(γ/2)‖∇Λ(α)‖²`.
    pub fn gap(&self) -> f64 {
        self.eval.gap
    }
}

impl DualNewton<crate::lp::FeaturePolynomial> {
    /// The primal iterate `w(α) = J_q(Xᵀα)` (features path).
    pub fn w(&self) -> DVector<f64> {
        features_w(&self.poly.x, &self.alpha, self.q)
    }
}

impl<P: DualPolynomial> Solver for DualNewton<P> {
    fn current(&self) -> StepRecord {
        StepRecord {
            iter: self.iter,
            primal: self.eval.primal,
            dual: -self.lambda,
            gap: self.eval.gap,
            rel_gap: self.eval.gap / self.eval.primal.abs().max(1e-300),
            step: self.last_step,
            backtracks: self.last_backtracks,
            time_ms: 0.0,
            elapsed_ms: self.elapsed_ms,
        }
    }

    fn step(&mut self) -> std::result::Result<StepRecord, Status> {
        let t0 = Instant::now();
        if self.grad.norm_squared() == 0.0 {
            return Err(Status::Stalled);
        }
        let mut h = self.poly.hessian(&self.alpha);
        let inv_g = 1.0 / self.cfg.gamma;
        for i in 0..h.nrows() {
            h[(i, i)] += inv_g;
        }
        if !h.iter().all(|v| v.is_finite()) {
            return Err(Status::NonFinite);
        }
        let chol = match h.cholesky() {
            Some(c) => c,
            None => return Err(Status::NonFinite),
        };
        let dir = -chol.solve(&self.grad);
        let slope = self.grad.dot(&dir);
        if !(slope < 0.0) {
            return Err(if slope.is_finite() { Status::Stalled } else { Status::NonFinite });
        }
        let n = self.alpha.len();
        let mut t = 1.0;
        let mut backtracks = 0;
        let mut trial_grad = DVector::zeros(n);
        let (trial, pt) = loop {
            let trial = &self.alpha + &dir * t;
            let pt = self.poly.value_grad(&trial, &mut trial_grad);
            let lt = lambda_of(pt, &trial, &self.y, self.cfg.gamma);
            let slack = 8.0 * f64::EPSILON * (pt.abs() + self.pval.abs() + trial.norm_squared() * inv_g + self.y.dot(&trial).abs());
            if lt.is_finite() && lt <= self.lambda + self.cfg.armijo * t * slope + slack {
                break (trial, pt);
            }
            if backtracks >= self.cfg.max_backtracks {
                return Err(if lt.is_finite() { Status::Stalled } else { Status::NonFinite });
            }
            t *= self.cfg.theta;
            backtracks += 1;
        };
        self.alpha = trial;
        self.gradp = trial_grad;
        self.pval = pt;
        self.refresh();
        if !(self.eval.primal.is_finite() && self.lambda.is_finite()) {
            return Err(Status::NonFinite);
        }
        self.iter += 1;
        self.last_step = t;
        self.last_backtracks = backtracks;
        let dt = t0.elapsed().as_secs_f64() * 1e3;
        self.elapsed_ms += dt;
        let mut rec = self.current();
        rec.time_ms = dt;
        Ok(rec)
    }
}
