//! Paper A, Algorithm 3.3: proximal gradient with linesearch on the dual, for every loss.
//!
//! Dual (eq. 24): `Λ(α) = P(α) + Σ_i γ L*(y_i, −α_i/γ)` with `P(α) = (1/q)‖Φ_n* α‖_q^q` a
//! [`DualPolynomial`] (features or Gram tensor). Split (eq. 27): `φ1 = P`, smooth with locally
//! Lipschitz gradient, and `φ2(α) = Σ_i g_i(α_i)`, `g_i(a) = γ L*(y_i, −a/γ)`
//! ([`Loss::dual_term`]), whose prox is coordinatewise ([`Loss::prox_dual`]). The whole loss part,
//! linear and quadratic terms included, sits in φ2, so φ1 is the same polynomial for every loss.
//!
//! Iteration (eq. 28): `α⁺ = prox_{λφ2}(α − λ∇P(α))`, `λ = λ̄θ^j` with the least j such that
//! `P(α⁺) − P(α) − ⟨α⁺ − α, ∇P(α)⟩ ≤ (δ/λ)‖α⁺ − α‖²`. Each iteration starts from λ̄ (as printed).
//! Near the optimum both sides fall below the rounding of `P` (`8ε(|P(α⁺)| + |P(α)| + |⟨·,·⟩|)`)
//! and the comparison of values carries no information. In that band the test is decided by the
//! stronger condition `⟨∇P(α⁺) − ∇P(α), α⁺ − α⟩ ≤ (δ/λ)‖α⁺ − α‖²` (it implies the paper's, P being
//! convex), computed from gradients without cancellation; elsewhere the paper's test is used as is.
//!
//! Reported per iteration: `F(w(α)) = γ Σ L(y_i, ∇P(α)_i) + (q − 1)P(α)` (since
//! `⟨Φ(x_i), w(α)⟩ = ∇P(α)_i` and `(1/p)‖w(α)‖_p^p = (q/p)P(α)`), `−Λ(α)`, and the gap as the sum
//! of the coordinate Fenchel–Young gaps ([`Loss::dual_gap_term`]), equal to `F + Λ`.

use nalgebra::{DMatrix, DVector};
use web_time::Instant;

use super::dual_lp::Linesearch;
use super::Progress;
use crate::error::{KpError, Result};
use crate::exec::{Record, Stepper, Stop};
use crate::losses::Loss;
use crate::lp::{conjugate_exponent, j_map_into, DualPolynomial};

/// Validated parameters of Algorithm 3.3.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProxDualConfig {
    /// The loss L.
    pub loss: Loss,
    /// Regularization weight γ > 0 (the loss is multiplied by γ).
    pub gamma: f64,
    /// Linesearch δ, θ ∈ (0, 1), initial step λ̄ > 0, cap on reductions.
    pub linesearch: Linesearch,
    /// Start each linesearch from `min(λ̄, λ_prev/θ)` instead of λ̄ (not in the paper: saves
    /// reductions when λ̄ is far above the local step; the convergence theory is unchanged since
    /// the accepted steps still satisfy the same test). Default false: the paper's rule.
    pub warm_start: bool,
}

impl ProxDualConfig {
    /// Defaults: δ = 0.5, θ = 0.5, λ̄ = γ, at most 80 reductions per iteration.
    pub fn new(loss: Loss, gamma: f64) -> Self {
        Self {
            loss,
            gamma,
            linesearch: Linesearch { delta: 0.5, theta: 0.5, step0: gamma, max_backtracks: 80 },
            warm_start: false,
        }
    }
}

/// Check the shared parameters of paper A's dual solvers: γ, the exponent, the targets.
pub(crate) fn check_problem(
    loss: &Loss,
    gamma: f64,
    q: f64,
    n: usize,
    y: &DVector<f64>,
) -> Result<()> {
    loss.validate()?;
    if !(gamma.is_finite() && gamma > 0.0) {
        return Err(KpError::GammaNotPositive(gamma));
    }
    // q = p/(p − 1) > 2 exactly when 1 < p < 2.
    if !(q.is_finite() && q > 2.0) {
        let p = if q > 1.0 { q / (q - 1.0) } else { f64::NAN };
        return Err(KpError::POutOfRange(p));
    }
    if n == 0 {
        return Err(KpError::NTooSmall(0));
    }
    if y.len() != n {
        return Err(KpError::Parameter {
            name: "y",
            reason: format!("there are {} targets for {n} samples", y.len()),
        });
    }
    if let Some((i, v)) = y.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return Err(KpError::NonFinite(format!("target y[{i}] = {v}")));
    }
    loss.check_targets(y.as_slice())
}

/// Check δ, θ ∈ (0, 1), λ̄ > 0 finite, at least one reduction allowed.
pub(crate) fn check_linesearch(ls: &Linesearch) -> Result<()> {
    for (name, value) in [("delta", ls.delta), ("theta", ls.theta)] {
        if !(value.is_finite() && value > 0.0 && value < 1.0) {
            return Err(KpError::LinesearchParam { name, value });
        }
    }
    if !(ls.step0.is_finite() && ls.step0 > 0.0) {
        return Err(KpError::Parameter {
            name: "solver.step0",
            reason: format!(
                "the initial step λ̄ must be a positive finite number (got {})",
                ls.step0
            ),
        });
    }
    if ls.max_backtracks < 1 {
        return Err(KpError::Parameter {
            name: "solver.max_backtracks",
            reason: "must be at least 1".into(),
        });
    }
    Ok(())
}

/// The primal iterate on the features path, `w(α) = J_q(Xᵀα)` (paper A, Theorem 2.1 / eq. 9).
pub fn features_w(x: &DMatrix<f64>, alpha: &DVector<f64>, q: f64) -> DVector<f64> {
    let u = x.tr_mul(alpha);
    let mut w = DVector::zeros(u.len());
    j_map_into(u.as_slice(), q, w.as_mut_slice());
    w
}

/// The value of the iterate's objectives, from `P(α)` and `∇P(α)` (paper A, eq. 6 and 24).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DualEval {
    /// `F(w(α))`.
    pub primal: f64,
    /// `Λ(α)`.
    pub lambda: f64,
    /// `Σ_i` Fenchel–Young gaps `= F(w(α)) + Λ(α)`.
    pub gap: f64,
}

/// Evaluate primal, dual and gap at α from `P(α)` and `∇P(α)`.
pub fn evaluate_dual(
    loss: &Loss,
    gamma: f64,
    q: f64,
    y: &DVector<f64>,
    alpha: &DVector<f64>,
    pval: f64,
    gradp: &DVector<f64>,
) -> DualEval {
    let mut lsum = 0.0;
    let mut gsum = 0.0;
    let mut gap = 0.0;
    for i in 0..y.len() {
        let (yi, ai, ti) = (y[i], alpha[i], gradp[i]);
        lsum += loss.value(yi, ti);
        gsum += loss.dual_term(yi, ai, gamma);
        gap += loss.dual_gap_term(yi, ai, ti, gamma);
    }
    DualEval { primal: gamma * lsum + (q - 1.0) * pval, lambda: pval + gsum, gap }
}

/// The state of Algorithm 3.3 on one problem, generic over the polynomial `P`.
pub struct ProxDual<P: DualPolynomial> {
    poly: P,
    y: DVector<f64>,
    loss: Loss,
    gamma: f64,
    q: f64,
    ls: Linesearch,
    warm_start: bool,
    alpha: DVector<f64>,
    /// `∇P(α)`, the predictions `⟨Φ(x_i), w(α)⟩` on the training points.
    gradp: DVector<f64>,
    pval: f64,
    eval: DualEval,
    progress: Progress,
    // scratch
    trial: DVector<f64>,
    trial_grad: DVector<f64>,
}

impl<P: DualPolynomial> ProxDual<P> {
    /// Start Algorithm 3.3 at α = 0 after checking every parameter: the loss's (ε ≥ 0, ρ > 0),
    /// γ > 0, `p = q/(q − 1)` in (1, 2), labels ±1 for a classification loss, the linesearch.
    pub fn new(poly: P, y: DVector<f64>, cfg: ProxDualConfig) -> Result<Self> {
        let n = poly.n();
        let q = poly.q();
        check_problem(&cfg.loss, cfg.gamma, q, n, &y)?;
        check_linesearch(&cfg.linesearch)?;
        let alpha = DVector::zeros(n);
        let mut gradp = DVector::zeros(n);
        let pval = poly.value_grad(&alpha, &mut gradp);
        let eval = evaluate_dual(&cfg.loss, cfg.gamma, q, &y, &alpha, pval, &gradp);
        Ok(Self {
            poly,
            y,
            loss: cfg.loss,
            gamma: cfg.gamma,
            q,
            ls: cfg.linesearch,
            warm_start: cfg.warm_start,
            alpha,
            gradp,
            pval,
            eval,
            progress: Progress::default(),
            trial: DVector::zeros(n),
            trial_grad: DVector::zeros(n),
        })
    }

    /// Dual iterate α.
    pub fn alpha(&self) -> &DVector<f64> {
        &self.alpha
    }
    /// `∇P(α)`: the predictions `⟨Φ(x_i), w(α)⟩` at the training points.
    pub fn predictions(&self) -> &DVector<f64> {
        &self.gradp
    }
    /// The polynomial `P`.
    pub fn poly(&self) -> &P {
        &self.poly
    }
    /// The exponents (p, q).
    pub fn exponents(&self) -> (f64, f64) {
        (conjugate_exponent(self.q), self.q)
    }
    /// The loss.
    pub fn loss(&self) -> Loss {
        self.loss
    }
    /// `F(w(α))`.
    pub fn primal_objective(&self) -> f64 {
        self.eval.primal
    }
    /// `Λ(α)`.
    pub fn dual_objective(&self) -> f64 {
        self.eval.lambda
    }
    /// The duality gap `F(w(α)) + Λ(α)` as a sum of Fenchel–Young gaps.
    pub fn gap(&self) -> f64 {
        self.eval.gap
    }
}

impl ProxDual<crate::lp::FeaturePolynomial> {
    /// The primal iterate `w(α) = J_q(Xᵀα)` (features path).
    pub fn w(&self) -> DVector<f64> {
        features_w(&self.poly.x, &self.alpha, self.q)
    }
}

impl<P: DualPolynomial> ProxDual<P> {
    /// The record of the current iterate (its duration 0).
    fn current(&self) -> Record {
        self.progress.record(
            self.eval.primal,
            -self.eval.lambda,
            self.eval.gap,
            super::relative_gap(self.eval.gap, self.eval.primal),
            0.0,
        )
    }

    /// One iteration of Algorithm 3.3 (eq. 28 with its linesearch). Its own stops: α a fixed
    /// point of the prox-gradient map or a linesearch with no decrease above rounding
    /// ([`Stop::Stalled`]), a non-finite value ([`Stop::NonFinite`]).
    fn iterate(&mut self) -> Option<Record> {
        let t0 = Instant::now();
        let n = self.alpha.len();
        let mut lam = if self.warm_start && self.progress.step > 0.0 {
            (self.progress.step / self.ls.theta).min(self.ls.step0)
        } else {
            self.ls.step0
        };
        let mut backtracks = 0;
        let pnew = loop {
            for i in 0..n {
                let v = self.alpha[i] - lam * self.gradp[i];
                self.trial[i] = self.loss.prox_dual(self.y[i], v, lam, self.gamma);
            }
            let mut dn2 = 0.0;
            let mut lin = 0.0;
            for i in 0..n {
                let d = self.trial[i] - self.alpha[i];
                dn2 += d * d;
                lin += d * self.gradp[i];
            }
            if dn2 == 0.0 {
                // α is a fixed point of the prox-gradient map: the dual optimum.
                return self.progress.end(Stop::Stalled);
            }
            let pt = self.poly.value_grad(&self.trial, &mut self.trial_grad);
            let lhs = pt - self.pval - lin;
            let rhs = self.ls.delta / lam * dn2;
            let slack = 8.0 * f64::EPSILON * (pt.abs() + self.pval.abs() + lin.abs());
            let accept = if lhs + slack <= rhs {
                true
            } else if lhs - slack > rhs {
                false
            } else {
                // Within rounding of the threshold: decide by the bound
                // `P(α⁺) − P(α) − ⟨d, ∇P(α)⟩ ≤ ⟨∇P(α⁺) − ∇P(α), d⟩` (convexity of P), whose
                // right side is computed from gradients without the cancellation of values.
                let mut gd = 0.0;
                for i in 0..n {
                    gd += (self.trial_grad[i] - self.gradp[i]) * (self.trial[i] - self.alpha[i]);
                }
                gd <= rhs
            };
            if pt.is_finite() && accept {
                break pt;
            }
            if backtracks >= self.ls.max_backtracks {
                return self.progress.end(if pt.is_finite() {
                    Stop::Stalled
                } else {
                    Stop::NonFinite
                });
            }
            lam *= self.ls.theta;
            backtracks += 1;
        };
        std::mem::swap(&mut self.alpha, &mut self.trial);
        std::mem::swap(&mut self.gradp, &mut self.trial_grad);
        self.pval = pnew;
        self.eval = evaluate_dual(
            &self.loss,
            self.gamma,
            self.q,
            &self.y,
            &self.alpha,
            self.pval,
            &self.gradp,
        );
        if !(self.eval.primal.is_finite() && self.eval.lambda.is_finite()) {
            return self.progress.end(Stop::NonFinite);
        }
        let dt = self.progress.accept(t0, lam, backtracks);
        let mut rec = self.current();
        rec.time_ms = dt;
        self.progress.keep(rec)
    }
}

/// Algorithm 3.3 in the one executor's protocol: one accepted step per [`Stepper::step`]; its
/// own stops only (stalled linesearch, non-finite value); the tolerance, the cap, the stall
/// rule and the trace are the executor's.
impl<P: DualPolynomial> Stepper for ProxDual<P> {
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
