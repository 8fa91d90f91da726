//! Paper C (Dinuzzo), section 3: the fixed-point iteration (non-linear Jacobi)
//! `c ← −J_α(αKc − c)` (eq. 10), and what it shares with the coordinate-descent solvers of
//! [`super::coordinate`]: the regularization problem (2), the per-sweep [`Record`] in the one
//! executor's shape ([`crate::exec`]), and the Theorem 5 helpers (Moreau–Yosida envelope, eigenvalues of `K_α = αK − I`).
//!
//! Problem (2): `min_c F(c) = f(Kc) + cᵀKc/2` with `f(z) = Σ_i L(y_i, z_i)/λ`.

mod decision;
mod problem;
pub(crate) use problem::Operator;
pub use problem::{RegularizationProblem, Representation};
mod power;
mod theorem5;
pub use decision::DecisionMap;
pub use power::PowerIteration;
pub use theorem5::{
    envelope_curve, k_alpha_eigenvalues, k_alpha_eigenvalues_of_block, theorem5_functional,
    EnvelopePoint, MAX_EIGEN_N,
};

use crate::fmath;
use crate::plots::text::num;

use nalgebra::DVector;
use serde::{Deserialize, Serialize};
use web_time::Instant;

use crate::error::{KpError, Result};
use crate::exec::{Record, Stepper, Stop};

/// One sweep's record in the executor's shape (paper C: one fixed-point iteration, eq. 10, or
/// one macro-iteration of coordinate descent, Algorithm 1/2): `F(c) = Σ L(y_i, (Kc)_i)/λ +
/// cᵀKc/2`, the dual `D(c) = −Σ L*(y_i, −λc_i)/λ − cᵀKc/2 ≤ min F`, the duality gap `F − D ≥ 0`
/// (zero exactly at a solution) and its relative value, the natural residual
/// `max_i |c_i + J_1((Kc)_i − c_i)|` (Theorem 1 at α = 1) and `max_i |h_i|`, the latest change
/// of each coefficient (the stopping test, Algorithm 1).
pub(crate) fn sweep_record(
    problem: &RegularizationProblem,
    c: &DVector<f64>,
    z: &DVector<f64>,
    sweep: usize,
    max_h: f64,
    time_ms: f64,
    elapsed_ms: f64,
) -> Record {
    let objective = problem.objective_at(c, z);
    let dual = problem.dual_objective_at(c, z);
    let gap = objective - dual;
    Record {
        iter: sweep,
        primal: Some(objective),
        dual: Some(dual),
        gap: Some(gap),
        rel_gap: Some(crate::solvers::relative_gap(gap, objective)),
        residual: Some(problem.residual_at(c, z)),
        max_h: Some(max_h),
        time_ms,
        elapsed_ms,
        ..Record::default()
    }
}

/// A record's value of an `Option` measure paper C always sets (NaN if absent).
pub(crate) fn val(m: Option<f64>) -> f64 {
    m.unwrap_or(f64::NAN)
}

/// The message of a run the executor's stall rule ended ([`Stop::Stalled`]).
pub fn stalled_message(sweep: usize, tol: f64) -> String {
    format!(
        "stalled at sweep {sweep}: neither max|h| nor the objectives and the gap have improved beyond rounding for at least {} sweeps and half the run; the tolerance δ = {tol:e} is below what floating point reaches on this problem",
        crate::exec::STALL_MIN_WINDOW
    )
}

/// The step size α of the fixed-point iteration (section 3.1, condition (11): `0 < α < 2/‖K‖₂`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum StepRule {
    /// `α = 1/‖K‖₂` (power iteration).
    InverseNorm,
    /// `α = 1/tr(K)`, cheaper and smaller.
    InverseTrace,
    /// A value the user chose; above `2/‖K‖₂` it is allowed (to watch it fail) but flagged.
    Fixed(f64),
}

/// Settings of the fixed-point solver (checked by [`Self::validate`]; a spec's are checked
/// with field names by paper C's spec check).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedPointConfig {
    /// Step-size rule.
    pub step: StepRule,
    /// δ: stop when `max_i |c_i^{k+1} − c_i^k| < δ` (the sweep cap is the executor's,
    /// [`crate::exec::Watch::capped`]).
    pub tol: f64,
    /// Also stop when the relative duality gap is at most this (see
    /// [`super::coordinate::CoordinateConfig::gap_tol`]).
    pub gap_tol: Option<f64>,
}

impl Default for FixedPointConfig {
    fn default() -> Self {
        Self { step: StepRule::InverseNorm, tol: 1e-8, gap_tol: None }
    }
}

pub(crate) fn check_tol(tol: f64) -> Result<()> {
    if !(tol.is_finite() && tol > 0.0) {
        return Err(KpError::Parameter {
            name: "tol",
            reason: format!("δ must be a finite number > 0 (got {tol})"),
        });
    }
    Ok(())
}

impl FixedPointConfig {
    /// Check δ > 0 and a fixed α > 0.
    pub fn validate(&self) -> Result<()> {
        check_tol(self.tol)?;
        check_gap_tol(self.gap_tol)?;
        if let StepRule::Fixed(a) = self.step {
            if !(a.is_finite() && a > 0.0) {
                return Err(KpError::Parameter {
                    name: "alpha",
                    reason: format!("α must be a finite number > 0 (got {a})"),
                });
            }
        }
        Ok(())
    }
}

/// The fixed-point iteration of paper C, eq. (10), as a steppable state:
/// `z = Kc; v = αz − c; c ← −J_α(v)` (steps 1–3 of section 3).
#[derive(Debug, Clone)]
pub struct FixedPoint {
    problem: RegularizationProblem,
    cfg: FixedPointConfig,
    alpha: f64,
    norm_k: f64,
    c: DVector<f64>,
    z: DVector<f64>,
    v: DVector<f64>,
    max_h: f64,
    first_h: f64,
    best_h: f64,
    since_best: usize,
    growth_run: usize,
    sweep: usize,
    elapsed_ms: f64,
    /// The algorithm's own end (converged, diverged, non-finite), or running.
    status: Stop,
    /// The executor ended the run (stall, cap, deadline): no further step.
    halted: bool,
    message: Option<String>,
    warnings: Vec<String>,
    /// The record of the current iterate (one record, not a trace: the executor keeps that).
    last: Record,
}

impl FixedPoint {
    /// Start from `c = 0`.
    pub fn new(problem: RegularizationProblem, cfg: FixedPointConfig) -> Result<Self> {
        cfg.validate()?;
        let norm_k = problem.spectral_norm();
        let alpha = match cfg.step {
            StepRule::InverseNorm => 1.0 / norm_k,
            StepRule::InverseTrace => 1.0 / problem.trace(),
            StepRule::Fixed(a) => a,
        };
        if !(alpha.is_finite() && alpha > 0.0) {
            return Err(KpError::Parameter {
                name: "alpha",
                reason: format!("the step rule gave α = {alpha}: K is numerically zero"),
            });
        }
        let n = problem.n();
        let mut warnings = Vec::new();
        if !problem.dropped().is_empty() {
            warnings.push(dropped_message(problem.dropped()));
        }
        if alpha * norm_k >= 2.0 {
            warnings.push(format!(
                "α = {} is not below 2/‖K‖₂ = {} (condition (11) of Theorem 2): the iteration is not guaranteed to converge and may diverge",
                num(alpha),
                num(2.0 / norm_k)
            ));
        }
        let c = DVector::zeros(n);
        let z = DVector::zeros(n);
        let mut s = Self {
            problem,
            cfg,
            alpha,
            norm_k,
            c,
            z,
            v: DVector::zeros(n),
            max_h: f64::INFINITY,
            first_h: f64::NAN,
            best_h: f64::INFINITY,
            since_best: 0,
            growth_run: 0,
            sweep: 0,
            elapsed_ms: 0.0,
            status: Stop::Running,
            halted: false,
            message: None,
            warnings,
            last: Record::default(),
        };
        s.last = s.make_record(0.0);
        Ok(s)
    }

    fn make_record(&self, time_ms: f64) -> Record {
        sweep_record(
            &self.problem,
            &self.c,
            &self.z,
            self.sweep,
            self.max_h,
            time_ms,
            self.elapsed_ms,
        )
    }

    /// One fixed-point iteration (eq. 10). Returns `None` once the run has stopped.
    fn sweep(&mut self) -> Option<Record> {
        if self.status != Stop::Running || self.halted {
            return None;
        }
        let t0 = Instant::now();
        let p = &self.problem;
        // Step 2: v = αz − c (z = Kc is kept from the previous iteration).
        self.v.copy_from(&self.z);
        self.v *= self.alpha;
        self.v -= &self.c;
        // Step 3: c ← −J_α(v), componentwise; dropped rows stay at 0.
        let mut max_h: f64 = 0.0;
        for i in 0..p.n() {
            if p.active[i] {
                let t = p.loss.neg_resolvent(p.y[i], self.v[i], self.alpha, p.lambda);
                max_h = fmath::max((t - self.c[i]).abs(), max_h);
                if (t - self.c[i]).is_nan() {
                    max_h = f64::NAN;
                }
                self.c[i] = t;
            }
        }
        // Step 1 of the next iteration: z = Kc.
        self.problem.kc_into(&self.c, &mut self.z);
        self.sweep += 1;
        self.max_h = max_h;
        let dt = t0.elapsed().as_secs_f64() * 1e3;
        self.elapsed_ms += dt;
        let prev = self.last.max_h;
        let rec = self.make_record(dt);
        self.last = rec;
        self.update_status(&rec, prev);
        Some(rec)
    }

    /// The algorithm's own stops after a sweep (`prev`: the previous sweep's `max|h|`).
    fn update_status(&mut self, rec: &Record, prev: Option<f64>) {
        let h = val(rec.max_h);
        if !(h.is_finite() && val(rec.primal).is_finite() && self.z.iter().all(|v| v.is_finite())) {
            self.status = Stop::NonFinite;
            self.message = Some(format!(
                "the iteration overflowed at sweep {} (α = {}, 2/‖K‖₂ = {})",
                rec.iter,
                num(self.alpha),
                num(2.0 / self.norm_k)
            ));
            return;
        }
        if self.first_h.is_nan() {
            self.first_h = h;
        }
        if h < self.cfg.tol || gap_reached(rec, self.cfg.gap_tol) {
            self.status = Stop::Converged;
            return;
        }
        if let Some(prev) = prev {
            if h > prev {
                self.growth_run += 1;
            } else {
                self.growth_run = 0;
            }
        }
        if h < self.best_h {
            self.best_h = h;
            self.since_best = 0;
        } else {
            self.since_best += 1;
        }
        let above = self.alpha * self.norm_k > 2.0;
        let exploded = h > 1e10 * self.first_h.max(1.0);
        let growing = above && self.growth_run >= 20;
        let stuck = above && self.since_best >= 500;
        if exploded || growing || stuck {
            self.status = Stop::Diverged;
            let how = if stuck && !exploded && !growing {
                format!(
                    "the change |Δc| has not decreased for {} sweeps (it oscillates)",
                    self.since_best
                )
            } else {
                format!("the change |Δc| grew from {} to {}", num(self.first_h), num(h))
            };
            self.message = Some(format!(
                "diverged at sweep {}: α = {} exceeds 2/‖K‖₂ = {} (condition (11) of Theorem 2: sufficient for F(cᵏ) → min F, not necessary), and {how}",
                rec.iter,
                num(self.alpha),
                num(2.0 / self.norm_k)
            ));
        }
    }

    /// The step size α in use.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
    /// `‖K‖₂` (the largest eigenvalue of K).
    pub fn norm_k(&self) -> f64 {
        self.norm_k
    }
    /// The coefficients c.
    pub fn c(&self) -> &DVector<f64> {
        &self.c
    }
    /// The predictions on the training inputs, `z = Kc`.
    pub fn z(&self) -> &DVector<f64> {
        &self.z
    }
    /// The problem being solved.
    pub fn problem(&self) -> &RegularizationProblem {
        &self.problem
    }
    /// A sentence for the user when the run diverged or overflowed.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }
    /// Flags raised at the start (α ≥ 2/‖K‖₂, dropped rows).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

/// The fixed point in the one executor's protocol: one sweep (eq. 10) per step; its own stops
/// are convergence (`max|h| < δ` or the gap tolerance), divergence and overflow; the sweep
/// cap, the stall rule, the deadline and the trace are the executor's.
impl Stepper for FixedPoint {
    fn record(&self) -> Record {
        self.last
    }
    fn step(&mut self) -> Option<Record> {
        self.sweep()
    }
    fn stop(&self) -> Stop {
        self.status
    }
    fn halt(&mut self, stop: Stop) {
        self.halted = true;
        if stop == Stop::Stalled {
            self.message = Some(stalled_message(self.sweep, self.cfg.tol));
        }
    }
    fn solution(&self) -> serde_json::Value {
        solution_json(self.c(), Some((self.alpha, self.norm_k)), self.message(), self.warnings())
    }
}

/// Paper C's solution as JSON, for either solver: `c`, the support (size and indices), the
/// fixed point's step α and ‖K‖₂ (null for coordinate descent), the solver's message (why it
/// stopped, if not converged) and its warnings — the page's readouts too.
pub(crate) fn solution_json(
    c: &DVector<f64>,
    alpha_norm: Option<(f64, f64)>,
    message: Option<&str>,
    warnings: &[String],
) -> serde_json::Value {
    let support = support_of(c);
    serde_json::json!({
        "c": c.as_slice(),
        "support_size": support.len(),
        "support": support,
        "alpha": alpha_norm.map(|a| a.0),
        "norm_k": alpha_norm.map(|a| a.1),
        "message": message,
        "warnings": warnings,
    })
}

/// Indices with `c_i ≠ 0` (the support vectors of the picture).
pub fn support_of(c: &DVector<f64>) -> Vec<usize> {
    c.iter().enumerate().filter(|(_, v)| **v != 0.0).map(|(i, _)| i).collect()
}

pub(crate) fn dropped_message(dropped: &[usize]) -> String {
    let shown: Vec<String> = dropped.iter().take(10).map(|i| i.to_string()).collect();
    let more = if dropped.len() > 10 { ", …" } else { "" };
    format!(
        "{} row(s) with k_ii = 0 (so the whole row and column of K are zero) were dropped, as section 4.1 allows: indices {}{more}; their coefficients stay 0",
        dropped.len(),
        shown.join(", ")
    )
}

/// Whether a sweep's relative duality gap `(F − D)/max(|F|, 1e-300)` reached the optional
/// tolerance (the certificate as a stopping rule, beside the paper's `max|h| < δ`).
pub(crate) fn gap_reached(rec: &Record, gap_tol: Option<f64>) -> bool {
    gap_tol.is_some_and(|g| {
        let gap = val(rec.gap);
        gap.is_finite() && crate::solvers::relative_gap(gap, val(rec.primal)) <= g
    })
}

/// A gap tolerance, when given, is a finite positive number.
pub(crate) fn check_gap_tol(gap_tol: Option<f64>) -> Result<()> {
    match gap_tol {
        Some(g) if !(g.is_finite() && g > 0.0) => Err(crate::error::KpError::Parameter {
            name: "method.gap_tol",
            reason: format!("must be a finite number > 0 (got {g})"),
        }),
        _ => Ok(()),
    }
}
