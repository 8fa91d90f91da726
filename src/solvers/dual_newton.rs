//! Beyond paper A (issue 3, item 8): a damped Newton method on the smooth duals,
//! `Λ(α) = P(α) + Σ_i g_i(α_i)` (eq. 24, `P(α) = (1/q)‖Φ_n* α‖_q^q`, `g_i(a) = γL*(y_i, −a/γ)`):
//! * square loss: `g(a) = a²/(2γ) − y a`, `g' = a/γ − y`, `g'' = 1/γ` (eq. 8), start α = 0;
//! * logistic loss: `g(a) = γ[(1 − b/γ)log(1 − b/γ) + (b/γ)log(b/γ)]`, `b = y a ∈ (0, γ)`,
//!   `g' = y(log b − log(γ − b))`, `g'' = γ/(b(γ − b))`, start `α = yγ/2` (the domain's centre);
//!   trial points outside the domain have `Λ = +∞` and are backtracked.
//!
//! `∇²Λ = ∇²P(α) + diag(g_i'')` (features: `(q − 1)·X diag(|Xᵀα|^(q−2)) Xᵀ`; q = 4 Gram tensor:
//! `3 Σ_kl K_ijkl α_k α_l`), positive definite. Each iteration solves `∇²Λ d = −∇Λ` by Cholesky
//! (nalgebra) and backtracks from t = 1 (factor θ) until Armijo `Λ(α + t d) ≤ Λ(α) + c t ⟨∇Λ, d⟩`
//! holds up to a rounding slack (`8ε` times the magnitudes compared), so full Newton steps near
//! the optimum are not refused for differences below rounding. The gap is the sum of the
//! Fenchel–Young gaps ([`Loss::dual_gap_term`]); for the square loss `(γ/2)‖∇Λ(α)‖²`.

use nalgebra::DVector;
use web_time::Instant;

use super::prox_dual::{check_problem, evaluate_dual, features_w, DualEval};
use super::Progress;
use crate::error::{KpError, Result};
use crate::exec::{Record, Stepper, Stop};
use crate::losses::Loss;
use crate::lp::DualPolynomial;

/// Parameters of the damped Newton method.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewtonConfig {
    /// The loss: [`Loss::Square`] or [`Loss::Logistic`] (the losses with a twice differentiable dual).
    pub loss: Loss,
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
    /// Square loss; defaults c = 1e-4, θ = 0.5, 60 reductions.
    pub fn new(gamma: f64) -> Self {
        Self::with_loss(Loss::Square, gamma)
    }
    /// Any smooth-dual loss (square, logistic), same defaults.
    pub fn with_loss(loss: Loss, gamma: f64) -> Self {
        Self { loss, gamma, armijo: 1e-4, theta: 0.5, max_backtracks: 60 }
    }
}

/// The state of the dual Newton method (square or logistic loss), generic over `P`.
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
    lambda_mag: f64,
    eval: DualEval,
    progress: Progress,
}

/// `Λ(α)` and the magnitude `|P| + Σ_i (|g_i| + |y_i a_i|)` its rounding is relative to.
fn lambda_of(
    loss: &Loss,
    pval: f64,
    alpha: &DVector<f64>,
    y: &DVector<f64>,
    gamma: f64,
) -> (f64, f64) {
    let (mut sum, mut mag) = (pval, pval.abs());
    for (&a, &yi) in alpha.iter().zip(y.iter()) {
        let g = loss.dual_term(yi, a, gamma);
        sum += g;
        mag += g.abs() + (yi * a).abs();
    }
    (sum, mag)
}

/// `g'(a)`, `g''(a)` of the dual term ([`Loss::dual_term_derivatives`]); `new` admits only the
/// losses that have them, so the NaN never shows (it would stop the run as non-finite).
fn derivatives(loss: &Loss, y: f64, a: f64, gamma: f64) -> (f64, f64) {
    loss.dual_term_derivatives(y, a, gamma).unwrap_or((f64::NAN, f64::NAN))
}

impl<P: DualPolynomial> DualNewton<P> {
    /// Start (α = 0, or `yγ/2` for the logistic loss) after checking the loss (square or logistic),
    /// γ > 0, `p = q/(q − 1)` in (1, 2), the targets (±1 labels for the logistic loss),
    /// c ∈ (0, 1/2), θ ∈ (0, 1).
    pub fn new(poly: P, y: DVector<f64>, cfg: NewtonConfig) -> Result<Self> {
        let n = poly.n();
        let q = poly.q();
        if !cfg.loss.capabilities().smooth_dual {
            return Err(KpError::Parameter {
                name: "solver.algorithm",
                reason: format!(
                    "the dual Newton method needs a twice differentiable dual: square or logistic loss (got {})",
                    cfg.loss.name()
                ),
            });
        }
        check_problem(&cfg.loss, cfg.gamma, q, n, &y)?;
        if !(cfg.armijo.is_finite() && cfg.armijo > 0.0 && cfg.armijo < 0.5) {
            return Err(KpError::Parameter {
                name: "solver.armijo",
                reason: format!("the Armijo constant c must lie in (0, 1/2) (got {})", cfg.armijo),
            });
        }
        if !(cfg.theta.is_finite() && cfg.theta > 0.0 && cfg.theta < 1.0) {
            return Err(KpError::LinesearchParam { name: "theta", value: cfg.theta });
        }
        let alpha = y.map(|v| cfg.loss.dual_newton_start(v, cfg.gamma));
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
            lambda_mag: 0.0,
            eval: DualEval { primal: 0.0, lambda: 0.0, gap: 0.0 },
            progress: Progress::default(),
        };
        me.refresh();
        Ok(me)
    }

    fn refresh(&mut self) {
        let (loss, gamma) = (self.cfg.loss, self.cfg.gamma);
        for i in 0..self.grad.len() {
            self.grad[i] = self.gradp[i] + derivatives(&loss, self.y[i], self.alpha[i], gamma).0;
        }
        (self.lambda, self.lambda_mag) = lambda_of(&loss, self.pval, &self.alpha, &self.y, gamma);
        self.eval =
            evaluate_dual(&loss, gamma, self.q, &self.y, &self.alpha, self.pval, &self.gradp);
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
    /// The gap `F(w(α)) + Λ(α)` (square loss: `(γ/2)‖∇Λ(α)‖²`).
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

impl<P: DualPolynomial> DualNewton<P> {
    /// The record of the current iterate (its duration 0).
    fn current(&self) -> Record {
        self.progress.record(
            self.eval.primal,
            -self.lambda,
            self.eval.gap,
            super::relative_gap(self.eval.gap, self.eval.primal),
            0.0,
        )
    }

    /// One damped Newton step with its Armijo backtracking. Its own stops: a zero gradient,
    /// no descent direction or no decrease above rounding ([`Stop::Stalled`]), a non-finite
    /// value or a Hessian that is not positive definite ([`Stop::NonFinite`]).
    fn iterate(&mut self) -> Option<Record> {
        let t0 = Instant::now();
        if self.grad.norm_squared() == 0.0 {
            return self.progress.end(Stop::Stalled);
        }
        let mut h = self.poly.hessian(&self.alpha);
        for i in 0..h.nrows() {
            h[(i, i)] += derivatives(&self.cfg.loss, self.y[i], self.alpha[i], self.cfg.gamma).1;
        }
        if !h.iter().all(|v| v.is_finite()) {
            return self.progress.end(Stop::NonFinite);
        }
        let chol = match h.cholesky() {
            Some(c) => c,
            None => return self.progress.end(Stop::NonFinite),
        };
        let dir = -chol.solve(&self.grad);
        let slope = self.grad.dot(&dir);
        if slope.is_nan() || slope >= 0.0 {
            return self.progress.end(if slope.is_finite() {
                Stop::Stalled
            } else {
                Stop::NonFinite
            });
        }
        let n = self.alpha.len();
        let mut t = 1.0;
        let mut backtracks = 0;
        let mut trial_grad = DVector::zeros(n);
        let (trial, pt) = loop {
            let trial = &self.alpha + &dir * t;
            let pt = self.poly.value_grad(&trial, &mut trial_grad);
            let (lt, mag) = lambda_of(&self.cfg.loss, pt, &trial, &self.y, self.cfg.gamma);
            let slack = 8.0 * f64::EPSILON * (mag + self.lambda_mag);
            if lt.is_finite() && lt <= self.lambda + self.cfg.armijo * t * slope + slack {
                break (trial, pt);
            }
            if backtracks >= self.cfg.max_backtracks {
                return self.progress.end(if lt.is_finite() {
                    Stop::Stalled
                } else {
                    Stop::NonFinite
                });
            }
            t *= self.cfg.theta;
            backtracks += 1;
        };
        self.alpha = trial;
        self.gradp = trial_grad;
        self.pval = pt;
        self.refresh();
        if !(self.eval.primal.is_finite() && self.lambda.is_finite()) {
            return self.progress.end(Stop::NonFinite);
        }
        let dt = self.progress.accept(t0, t, backtracks);
        let mut rec = self.current();
        rec.time_ms = dt;
        self.progress.keep(rec)
    }
}

/// The dual Newton method in the one executor's protocol: one damped step per
/// [`Stepper::step`]; its own stops only (stalled, non-finite); the tolerance, the cap, the
/// stall rule and the trace are the executor's.
impl<P: DualPolynomial> Stepper for DualNewton<P> {
    fn record(&self) -> Record {
        self.progress.last_or(|| self.current())
    }
    fn step(&mut self) -> Option<Record> {
        if !self.progress.running() {
            return None;
        }
        self.iterate()
    }
    fn stop(&self) -> Stop {
        self.progress.status()
    }
    fn solution(&self) -> serde_json::Value {
        super::solution_json(self.poly.weights(&self.alpha).as_ref(), Some(&self.alpha))
    }
}
