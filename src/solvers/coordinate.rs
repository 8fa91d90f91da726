//! Paper C (Dinuzzo), section 4.1: coordinate descent (non-linear Gauss–Seidel), Algorithm 1
//! for a Gram matrix and Algorithm 2 for the linear kernel, with the three essentially cyclic
//! index rules (cyclic, Aitken double sweep, randomized cyclic).
//!
//! Update of coordinate i (eq. 13 with `α_i = 1/k_ii`, `S_i = −J^i_{1/k_ii}`):
//! `z_i = k_iᵀc; v_i = z_i/k_ii − c_i; t = S_i(v_i); h_i = t − c_i; c_i = t`.

use nalgebra::DVector;
use serde::{Deserialize, Serialize};
use web_time::Instant;

use super::fixed_point::{check_tol_cap, dropped_message, Operator, RegularizationProblem, StopReason, SweepRecord};
use crate::error::Result;
use crate::rng::Rng;

/// Refresh `z = Kc` from scratch every this many sweeps, so rounding in the incremental
/// updates `z += h_i k_i` cannot drift.
const REFRESH_EVERY: usize = 64;

/// The order in which coordinates are visited (section 4.1, "essentially cyclic" rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexRule {
    /// `1, …, ℓ` in every macro-iteration.
    Cyclic,
    /// Alternate `1, …, ℓ` with the reverse `ℓ − 1, …, 1`.
    AitkenDoubleSweep,
    /// A fresh random permutation in every macro-iteration (seeded).
    RandomizedCyclic,
}

/// Validated settings of coordinate descent.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoordinateConfig {
    /// Index rule.
    pub rule: IndexRule,
    /// Seed of the randomized cyclic rule.
    pub seed: u64,
    /// δ: stop when `max_i |h_i| < δ` (Algorithm 1).
    pub tol: f64,
    /// Sweep (macro-iteration) cap.
    pub max_sweeps: usize,
    /// Also stop when the relative duality gap `(F − D)/|F|` is at most this (scikit-learn's
    /// rule; the gap certifies the objective, where `max|h| < δ` only says the iterates stalled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap_tol: Option<f64>,
}

impl Default for CoordinateConfig {
    fn default() -> Self {
        Self { rule: IndexRule::Cyclic, seed: 0, tol: 1e-8, max_sweeps: 10_000, gap_tol: None }
    }
}

impl CoordinateConfig {
    /// Check δ > 0, the cap ≥ 1 and a gap tolerance > 0.
    pub fn validate(&self) -> Result<()> {
        check_tol_cap(self.tol, self.max_sweeps)?;
        check_gap_tol(self.gap_tol)
    }
}

/// Coordinate descent of paper C as a steppable state; one [`Self::step`] is one macro-iteration
/// (every kept index once).
///
/// With a Gram matrix (Algorithm 1) the predictions `z = Kc` are kept up to date by
/// `z += h_i k_i` after each update, which gives exactly `z_i = k_iᵀc` at the cost of one column
/// of K and skips the work when `h_i = 0`; with the features representation (Algorithm 2)
/// `w = Xᵀc` is kept and `w += x_i h_i` only when `h_i ≠ 0`. Skipped updates are counted.
pub struct CoordinateDescent {
    problem: RegularizationProblem,
    cfg: CoordinateConfig,
    c: DVector<f64>,
    /// `z = Kc` (Gram) — for features it is recomputed from w at each record.
    z: DVector<f64>,
    /// `w = Xᵀc` (features only).
    w: DVector<f64>,
    h: DVector<f64>,
    order: Vec<usize>,
    rng: Rng,
    forward: bool,
    skipped: usize,
    sweep: usize,
    elapsed_ms: f64,
    status: StopReason,
    message: Option<String>,
    warnings: Vec<String>,
    trace: Vec<SweepRecord>,
}

impl CoordinateDescent {
    /// Start from `c = 0`, with `h_i` the residuals of eq. (13) at `c = 0`.
    pub fn new(problem: RegularizationProblem, cfg: CoordinateConfig) -> Result<Self> {
        cfg.validate()?;
        let n = problem.n();
        let order: Vec<usize> = (0..n).filter(|&i| problem.active[i]).collect();
        let w = match &problem.op {
            Operator::Features { xt, .. } => DVector::zeros(xt.nrows()),
            Operator::Gram(_) => DVector::zeros(0),
        };
        let mut warnings = Vec::new();
        if !problem.dropped().is_empty() {
            warnings.push(dropped_message(problem.dropped()));
        }
        let c = DVector::zeros(n);
        let z = DVector::zeros(n);
        let mut h = DVector::zeros(n);
        for &i in &order {
            let a = 1.0 / problem.diag[i];
            h[i] = problem.loss.neg_resolvent(problem.y[i], a * z[i] - c[i], a, problem.lambda) - c[i];
        }
        let mut s = Self {
            problem,
            cfg,
            c,
            z,
            w,
            h,
            order,
            rng: Rng::new(cfg.seed),
            forward: true,
            skipped: 0,
            sweep: 0,
            elapsed_ms: 0.0,
            status: StopReason::Running,
            message: None,
            warnings,
            trace: Vec::new(),
        };
        let rec = s.record(0.0);
        if !rec.max_h.is_finite() {
            s.status = StopReason::NonFinite;
        } else if rec.max_h < cfg.tol {
            s.status = StopReason::Converged;
        }
        s.trace.push(rec);
        Ok(s)
    }

    fn max_h(&self) -> f64 {
        let mut m: f64 = 0.0;
        for &i in &self.order {
            let a = self.h[i].abs();
            if a.is_nan() {
                return f64::NAN;
            }
            m = m.max(a);
        }
        m
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
            max_h: self.max_h(),
            skipped: self.skipped,
            time_ms,
            elapsed_ms: self.elapsed_ms,
        }
    }

    /// The visiting order of the next macro-iteration.
    fn prepare_order(&mut self) {
        match self.cfg.rule {
            IndexRule::Cyclic => {}
            IndexRule::AitkenDoubleSweep => {}
            IndexRule::RandomizedCyclic => {
                // Fisher–Yates with the seeded generator.
                let m = self.order.len();
                for k in (1..m).rev() {
                    let j = self.rng.below(k + 1);
                    self.order.swap(k, j);
                }
            }
        }
    }

    /// One coordinate update (Algorithm 1 or 2, lines 2–6) of index i.
    #[inline]
    fn update(&mut self, i: usize) {
        let p = &self.problem;
        let kii = p.diag[i];
        let zi = match &p.op {
            Operator::Gram(_) => self.z[i],
            Operator::Features { xt, .. } => xt.column(i).dot(&self.w),
        };
        let a = 1.0 / kii;
        let v = zi * a - self.c[i];
        let t = p.loss.neg_resolvent(p.y[i], v, a, p.lambda);
        let h = t - self.c[i];
        self.h[i] = h;
        if h != 0.0 {
            self.c[i] = t;
            match &p.op {
                Operator::Gram(k) => self.z.axpy(h, &k.column(i), 1.0),
                Operator::Features { xt, .. } => self.w.axpy(h, &xt.column(i), 1.0),
            }
        } else {
            self.skipped += 1;
        }
    }

    /// One macro-iteration: every kept index once, in the rule's order. Returns `None` once
    /// the run has stopped.
    pub fn step(&mut self) -> Option<SweepRecord> {
        if self.status != StopReason::Running {
            return None;
        }
        let t0 = Instant::now();
        self.prepare_order();
        let m = self.order.len();
        if self.cfg.rule == IndexRule::AitkenDoubleSweep && !self.forward {
            // Reverse sweep ℓ − 1, …, 1: the last index was just updated.
            for k in (0..m.saturating_sub(1)).rev() {
                let i = self.order[k];
                self.update(i);
            }
        } else {
            for k in 0..m {
                let i = self.order[k];
                self.update(i);
            }
        }
        self.forward = !self.forward;
        self.sweep += 1;
        match &self.problem.op {
            Operator::Features { x, .. } => self.z.gemv(1.0, x, &self.w, 0.0),
            Operator::Gram(_) => {
                if self.sweep.is_multiple_of(REFRESH_EVERY) {
                    let mut z = DVector::zeros(self.problem.n());
                    self.problem.kc_into(&self.c, &mut z);
                    self.z = z;
                }
            }
        }
        let dt = t0.elapsed().as_secs_f64() * 1e3;
        self.elapsed_ms += dt;
        let rec = self.record(dt);
        crate::budget::push_bounded(&mut self.trace, rec, crate::budget::active().trace);
        if !(rec.max_h.is_finite() && rec.objective.is_finite()) {
            self.status = StopReason::NonFinite;
            self.message = Some(format!("a value overflowed at sweep {}", rec.sweep));
        } else if rec.max_h < self.cfg.tol || gap_reached(&rec, self.cfg.gap_tol) {
            self.status = StopReason::Converged;
        } else if rec.sweep >= self.cfg.max_sweeps {
            self.status = StopReason::MaxSweeps;
        }
        Some(rec)
    }

    /// Step until the run stops.
    pub fn run(&mut self) -> StopReason {
        while self.step().is_some() {}
        self.status
    }

    /// The coefficients c.
    pub fn c(&self) -> &DVector<f64> {
        &self.c
    }
    /// The predictions on the training inputs, `z = Kc`.
    pub fn z(&self) -> &DVector<f64> {
        &self.z
    }
    /// `w = Xᵀc` for the features representation (Algorithm 2), else `None`.
    pub fn w(&self) -> Option<&DVector<f64>> {
        match self.problem.op {
            Operator::Features { .. } => Some(&self.w),
            Operator::Gram(_) => None,
        }
    }
    /// The latest change `h_i` of each coefficient.
    pub fn h(&self) -> &DVector<f64> {
        &self.h
    }
    /// Updates skipped so far because `h = 0`.
    pub fn skipped(&self) -> usize {
        self.skipped
    }
    /// The problem being solved.
    pub fn problem(&self) -> &RegularizationProblem {
        &self.problem
    }
    /// Why the run stopped, or `Running`.
    pub fn status(&self) -> StopReason {
        self.status
    }
    /// A sentence for the user when a value overflowed.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }
    /// Flags raised at the start (dropped rows).
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

impl std::fmt::Debug for CoordinateDescent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoordinateDescent")
            .field("cfg", &self.cfg)
            .field("n", &self.problem.n())
            .field("sweep", &self.sweep)
            .field("status", &self.status)
            .field("skipped", &self.skipped)
            .finish_non_exhaustive()
    }
}

/// Which of paper C's solvers to run: the fixed point of section 3 (eq. 10) or coordinate
/// descent of section 4.1 (Algorithm 1/2). Serde form for the experiment spec.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Method {
    FixedPoint(super::fixed_point::FixedPointConfig),
    Coordinate(CoordinateConfig),
}

/// Either solver behind one steppable interface, so the page can race the fixed point against
/// the three coordinate rules on one plot.
#[derive(Debug)]
pub enum DinuzzoSolver {
    FixedPoint(Box<super::fixed_point::FixedPoint>),
    Coordinate(Box<CoordinateDescent>),
}

impl DinuzzoSolver {
    /// Validate the method's settings and start from `c = 0`.
    pub fn new(problem: RegularizationProblem, method: Method) -> Result<Self> {
        Ok(match method {
            Method::FixedPoint(cfg) => Self::FixedPoint(Box::new(super::fixed_point::FixedPoint::new(problem, cfg)?)),
            Method::Coordinate(cfg) => Self::Coordinate(Box::new(CoordinateDescent::new(problem, cfg)?)),
        })
    }
    /// One sweep (see [`CoordinateDescent::step`], [`super::fixed_point::FixedPoint::step`]).
    pub fn step(&mut self) -> Option<SweepRecord> {
        match self {
            Self::FixedPoint(s) => s.step(),
            Self::Coordinate(s) => s.step(),
        }
    }
    /// Step until the run stops.
    pub fn run(&mut self) -> StopReason {
        while self.step().is_some() {}
        self.status()
    }
    /// The coefficients c.
    pub fn c(&self) -> &DVector<f64> {
        match self {
            Self::FixedPoint(s) => s.c(),
            Self::Coordinate(s) => s.c(),
        }
    }
    /// `z = Kc`.
    pub fn z(&self) -> &DVector<f64> {
        match self {
            Self::FixedPoint(s) => s.z(),
            Self::Coordinate(s) => s.z(),
        }
    }
    /// Why the run stopped, or `Running`.
    pub fn status(&self) -> StopReason {
        match self {
            Self::FixedPoint(s) => s.status(),
            Self::Coordinate(s) => s.status(),
        }
    }
    /// A sentence for the user when the run diverged or overflowed.
    pub fn message(&self) -> Option<&str> {
        match self {
            Self::FixedPoint(s) => s.message(),
            Self::Coordinate(s) => s.message(),
        }
    }
    /// Flags raised at the start.
    pub fn warnings(&self) -> &[String] {
        match self {
            Self::FixedPoint(s) => s.warnings(),
            Self::Coordinate(s) => s.warnings(),
        }
    }
    /// Every record so far.
    pub fn trace(&self) -> &[SweepRecord] {
        match self {
            Self::FixedPoint(s) => s.trace(),
            Self::Coordinate(s) => s.trace(),
        }
    }
    /// The problem being solved.
    pub fn problem(&self) -> &RegularizationProblem {
        match self {
            Self::FixedPoint(s) => s.problem(),
            Self::Coordinate(s) => s.problem(),
        }
    }
    /// Indices with `c_i ≠ 0` (the support vectors of the picture).
    pub fn support(&self) -> Vec<usize> {
        self.c().iter().enumerate().filter(|(_, v)| **v != 0.0).map(|(i, _)| i).collect()
    }
}

/// Whether a sweep's relative duality gap `(F − D)/max(|F|, 1e-300)` reached the optional
/// tolerance (the certificate as a stopping rule, beside the paper's `max|h| < δ`).
pub(crate) fn gap_reached(rec: &SweepRecord, gap_tol: Option<f64>) -> bool {
    gap_tol.is_some_and(|g| rec.gap.is_finite() && crate::solvers::relative_gap(rec.gap, rec.objective) <= g)
}

/// A gap tolerance, when given, is a finite positive number.
pub(crate) fn check_gap_tol(gap_tol: Option<f64>) -> Result<()> {
    match gap_tol {
        Some(g) if !(g.is_finite() && g > 0.0) => {
            Err(crate::error::KpError::Parameter { name: "method.gap_tol", reason: format!("must be a finite number > 0 (got {g})") })
        }
        _ => Ok(()),
    }
}
