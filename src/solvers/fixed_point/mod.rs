//! Paper C (Dinuzzo), section 3: the fixed-point iteration (non-linear Jacobi)
//! `c ← −J_α(αKc − c)` (eq. 10), and what it shares with the coordinate-descent solvers of
//! [`super::coordinate`]: the regularization problem (2), the per-sweep record, the stop reason,
//! and the Theorem 5 helpers (Moreau–Yosida envelope, eigenvalues of `K_α = αK − I`).
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
    EnvelopePoint,
};

use std::sync::Arc;

use crate::fmath;
use crate::plot_text::num;

use nalgebra::{DMatrix, DVector, SymmetricEigen};
use serde::{Deserialize, Serialize};
use web_time::Instant;

use crate::error::{KpError, Result};
use crate::kernels::{CrossJob, Kernel, ResolvedKernel};
use crate::losses::Loss;
use crate::rng::Rng;

/// Largest n for which the helpers form a dense symmetric eigendecomposition.
pub const MAX_EIGEN_N: usize = 2500;

/// What one sweep did (paper C: one fixed-point iteration, eq. 10, or one macro-iteration of
/// coordinate descent, Algorithm 1/2).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SweepRecord {
    /// Sweep index; 0 is the starting point.
    pub sweep: usize,
    /// `F(c) = Σ L(y_i, (Kc)_i)/λ + cᵀKc/2`.
    pub objective: f64,
    /// The dual objective `D(c) = −Σ L*(y_i, −λc_i)/λ − cᵀKc/2 ≤ min F`.
    pub dual: f64,
    /// The duality gap `F(c) − D(c) ≥ 0`, zero exactly at a solution.
    pub gap: f64,
    /// Natural residual `max_i |c_i + J_1((Kc)_i − c_i)|` (Theorem 1 at α = 1).
    pub residual: f64,
    /// `max_i dist(−c_i, ∂f_i((Kc)_i))` (Corollary 1).
    pub subgradient_distance: f64,
    /// `max_i |h_i|`: the latest change of each coefficient (the stopping test, Algorithm 1).
    pub max_h: f64,
    /// Updates skipped because `h = 0` (cumulative; Algorithm 2's saving).
    pub skipped: usize,
    /// Wall-clock time of this sweep, milliseconds.
    pub time_ms: f64,
    /// Cumulative solver time, milliseconds.
    pub elapsed_ms: f64,
}

/// Why a run stopped (or that it has not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Still iterating.
    Running,
    /// `max_i |h_i| < δ`.
    Converged,
    /// The sweep cap was hit first.
    MaxSweeps,
    /// The fixed-point iteration diverges (seen only with α above 2/‖K‖₂, where Theorem 2's
    /// sufficient condition (11) fails).
    Diverged,
    /// A value overflowed.
    NonFinite,
    /// The executor's stall rule ([`crate::stepper::Stall`]) ended the run: no measure improved
    /// beyond rounding for as long as it had improved before (a tolerance floating point cannot
    /// reach): ours, not the paper's.
    Stalled,
}

/// The message of a [`StopReason::Stalled`] run.
pub fn stalled_message(sweep: usize, tol: f64) -> String {
    format!(
        "stalled at sweep {sweep}: neither max|h| nor the objectives and the gap have improved beyond rounding for at least {} sweeps and half the run; the tolerance δ = {tol:e} is below what floating point reaches on this problem",
        crate::stepper::STALL_MIN_WINDOW
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

/// Validated settings of the fixed-point solver.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedPointConfig {
    /// Step-size rule.
    pub step: StepRule,
    /// δ: stop when `max_i |c_i^{k+1} − c_i^k| < δ`.
    pub tol: f64,
    /// Sweep cap.
    pub max_sweeps: usize,
    /// Also stop when the relative duality gap is at most this (see
    /// [`super::coordinate::CoordinateConfig::gap_tol`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap_tol: Option<f64>,
}

impl Default for FixedPointConfig {
    fn default() -> Self {
        Self { step: StepRule::InverseNorm, tol: 1e-8, max_sweeps: 10_000, gap_tol: None }
    }
}

pub(crate) fn check_tol_cap(tol: f64, max_sweeps: usize) -> Result<()> {
    if !(tol.is_finite() && tol > 0.0) {
        return Err(KpError::Parameter {
            name: "tol",
            reason: format!("δ must be a finite number > 0 (got {tol})"),
        });
    }
    if max_sweeps < 1 {
        return Err(KpError::Parameter {
            name: "max_sweeps",
            reason: "the sweep cap must be at least 1".into(),
        });
    }
    Ok(())
}

impl FixedPointConfig {
    /// Check δ > 0, the cap ≥ 1 and a fixed α > 0.
    pub fn validate(&self) -> Result<()> {
        check_tol_cap(self.tol, self.max_sweeps)?;
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
    status: StopReason,
    message: Option<String>,
    warnings: Vec<String>,
    trace: Vec<SweepRecord>,
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
            status: StopReason::Running,
            message: None,
            warnings,
            trace: Vec::new(),
        };
        let rec = s.record(0.0);
        s.trace.push(rec);
        Ok(s)
    }

    fn record(&self, time_ms: f64) -> SweepRecord {
        let objective = self.problem.objective_at(&self.c, &self.z);
        let dual = self.problem.dual_objective_at(&self.c, &self.z);
        SweepRecord {
            sweep: self.sweep,
            objective,
            dual,
            gap: objective - dual,
            residual: self.problem.residual_at(&self.c, &self.z),
            subgradient_distance: self.problem.subgradient_distance_at(&self.c, &self.z),
            max_h: self.max_h,
            skipped: 0,
            time_ms,
            elapsed_ms: self.elapsed_ms,
        }
    }

    /// One fixed-point iteration (eq. 10). Returns `None` once the run has stopped.
    pub fn step(&mut self) -> Option<SweepRecord> {
        if self.status != StopReason::Running {
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
        let rec = self.record(dt);
        crate::budget::push_bounded(&mut self.trace, rec, crate::budget::active().trace);
        self.update_status(&rec);
        Some(rec)
    }

    fn update_status(&mut self, rec: &SweepRecord) {
        let h = rec.max_h;
        if !(h.is_finite() && rec.objective.is_finite() && self.z.iter().all(|v| v.is_finite())) {
            self.status = StopReason::NonFinite;
            self.message = Some(format!(
                "the iteration overflowed at sweep {} (α = {}, 2/‖K‖₂ = {})",
                rec.sweep,
                num(self.alpha),
                num(2.0 / self.norm_k)
            ));
            return;
        }
        if self.first_h.is_nan() {
            self.first_h = h;
        }
        if h < self.cfg.tol || gap_reached(rec, self.cfg.gap_tol) {
            self.status = StopReason::Converged;
            return;
        }
        let prev = self.trace.len().checked_sub(2).and_then(|i| self.trace.get(i)).map(|r| r.max_h);
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
            self.status = StopReason::Diverged;
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
                rec.sweep,
                num(self.alpha),
                num(2.0 / self.norm_k)
            ));
            return;
        }
        if rec.sweep >= self.cfg.max_sweeps {
            self.status = StopReason::MaxSweeps;
        }
    }

    /// The executor's stall rule ended the run ([`crate::stepper::Watch`]).
    pub fn halt_stalled(&mut self) {
        if self.status == StopReason::Running {
            self.status = StopReason::Stalled;
            self.message = Some(stalled_message(self.sweep, self.cfg.tol));
        }
    }

    /// Step until the run stops, under the executor's stall rule ([`crate::stepper::Stall`]).
    pub fn run(&mut self) -> StopReason {
        let mut stall = crate::stepper::Stall::default();
        while let Some(r) = self.step() {
            if self.status == StopReason::Running
                && stall.observe(&crate::stepper::Record::from(&r))
            {
                self.halt_stalled();
            }
        }
        self.status
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
    /// Why the run stopped, or `Running`.
    pub fn status(&self) -> StopReason {
        self.status
    }
    /// A sentence for the user when the run diverged or overflowed.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }
    /// Flags raised at the start (α ≥ 2/‖K‖₂, dropped rows).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
    /// Every record so far, starting with sweep 0.
    pub fn trace(&self) -> &[SweepRecord] {
        &self.trace
    }
    /// The latest record.
    pub fn current(&self) -> SweepRecord {
        self.trace.last().copied().unwrap_or_else(|| self.record(0.0))
    }
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
pub(crate) fn gap_reached(rec: &SweepRecord, gap_tol: Option<f64>) -> bool {
    gap_tol.is_some_and(|g| {
        rec.gap.is_finite() && crate::solvers::relative_gap(rec.gap, rec.objective) <= g
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
