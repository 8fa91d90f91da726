//! Paper C (Dinuzzo), section 3: the fixed-point iteration (non-linear Jacobi)
//! `c ← −J_α(αKc − c)` (eq. 10), and what it shares with the coordinate-descent solvers of
//! [`super::coordinate`]: the regularization problem (2), the per-sweep record, the stop reason,
//! and the Theorem 5 helpers (Moreau–Yosida envelope, eigenvalues of `K_α = αK − I`).
//!
//! Problem (2): `min_c F(c) = f(Kc) + cᵀKc/2` with `f(z) = Σ_i L(y_i, z_i)/λ`.

use std::sync::Arc;

use crate::fmath;

use nalgebra::{DMatrix, DVector, SymmetricEigen};
use serde::{Deserialize, Serialize};
use web_time::Instant;

use crate::error::{KpError, Result};
use crate::kernels::{CrossJob, Kernel, ResolvedKernel};
use crate::losses::Loss;
use crate::rng::Rng;

/// Largest n for which the helpers form a dense symmetric eigendecomposition.
pub const MAX_EIGEN_N: usize = 2500;

/// How `z = Kc` is computed (paper C, section 3, step 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Representation {
    /// Form the Gram matrix `K` once (any kernel).
    Gram,
    /// Linear kernel only: keep `X` and compute `w = Xᵀc, z = Xw` (eq. 4–5), no Gram matrix.
    Features,
    /// Any kernel, no Gram matrix: keep the inputs and compute a row `k(x_i, ·)` when a solver
    /// needs it (coordinate descent keeps recent rows in a bounded cache,
    /// [`super::coordinate::CoordinateConfig::cache_mib`]). Memory O(n·d) instead of n².
    KernelRows,
}

#[derive(Debug, Clone)]
pub(crate) enum Operator {
    /// The Gram matrix K (n × n, symmetric), shared by the clones of a problem (the race).
    Gram(Arc<DMatrix<f64>>),
    /// `X` (n × d) and its transpose `Xᵀ` (d × n, so that column i is `x_i`).
    Features { x: DMatrix<f64>, xt: DMatrix<f64> },
    /// The inputs, the kernel and `‖x_i‖²`: rows of K computed on demand.
    Rows { x: DMatrix<f64>, kernel: ResolvedKernel, sq: DVector<f64> },
}

/// Problem (2) of paper C with every input checked: kernel operator, targets, loss, λ, and the
/// diagonal `k_ii` with the rows where `k_ii = 0` dropped (section 4.1: such a row and column
/// of K are zero and "can be removed without affecting optimization results").
#[derive(Debug, Clone)]
pub struct RegularizationProblem {
    pub(crate) op: Operator,
    pub(crate) y: DVector<f64>,
    pub(crate) loss: Loss,
    pub(crate) lambda: f64,
    pub(crate) diag: DVector<f64>,
    pub(crate) active: Vec<bool>,
    dropped: Vec<usize>,
    inputs: Option<(DMatrix<f64>, ResolvedKernel)>,
    /// `‖K‖₂` once computed ([`Self::set_spectral_norm`] from a [`PowerIteration`] run in slices).
    norm: Option<f64>,
}

impl RegularizationProblem {
    /// Problem (2) on inputs `x` (rows) with a pair kernel. `Representation::Features` is only
    /// for the linear kernel (section 3, step 1 and Algorithm 2).
    pub fn new(
        x: &DMatrix<f64>,
        y: &DVector<f64>,
        kernel: &Kernel,
        loss: Loss,
        lambda: f64,
        repr: Representation,
    ) -> Result<Self> {
        if x.nrows() != y.len() {
            return Err(KpError::Parameter {
                name: "targets",
                reason: format!("there are {} input rows but {} targets", x.nrows(), y.len()),
            });
        }
        if x.iter().any(|v| !v.is_finite()) {
            return Err(KpError::NonFinite("an input value is not finite".into()));
        }
        let rk = kernel.resolve(x)?;
        let op = match repr {
            Representation::Gram => return Self::with_gram(x, y, rk, rk.gram(x)?, loss, lambda),
            Representation::KernelRows => {
                Operator::Rows { x: x.clone(), kernel: rk, sq: ResolvedKernel::squared_norms(x) }
            }
            Representation::Features => {
                if rk != ResolvedKernel::Linear {
                    return Err(KpError::Parameter {
                        name: "representation",
                        reason: "the features representation (w = Xᵀc, no Gram matrix) needs the linear kernel".into(),
                    });
                }
                Operator::Features { x: x.clone(), xt: x.transpose() }
            }
        };
        let mut p = Self::build(op, y, loss, lambda)?;
        p.inputs = Some((x.clone(), rk));
        Ok(p)
    }

    /// Problem (2) on inputs `x` with the Gram matrix `k` of the resolved kernel `rk` already
    /// computed (e.g. by a [`crate::kernels::CrossJob`] spread over frames); the same problem
    /// as [`Self::new`] with the Gram representation.
    pub fn with_gram(
        x: &DMatrix<f64>,
        y: &DVector<f64>,
        rk: ResolvedKernel,
        k: DMatrix<f64>,
        loss: Loss,
        lambda: f64,
    ) -> Result<Self> {
        if k.nrows() != x.nrows() || k.ncols() != x.nrows() {
            return Err(KpError::Parameter {
                name: "kernel matrix",
                reason: format!(
                    "must be n × n with n = {} inputs (got {} × {})",
                    x.nrows(),
                    k.nrows(),
                    k.ncols()
                ),
            });
        }
        let mut p = Self::build(Operator::Gram(std::sync::Arc::new(k)), y, loss, lambda)?;
        p.inputs = Some((x.clone(), rk));
        Ok(p)
    }

    /// Problem (2) from a given Gram matrix `k` (symmetric positive semi-definite, n × n).
    /// Without inputs, [`Self::predict`] is not available.
    pub fn from_gram(k: DMatrix<f64>, y: &DVector<f64>, loss: Loss, lambda: f64) -> Result<Self> {
        if k.nrows() != k.ncols() || k.nrows() != y.len() {
            return Err(KpError::Parameter {
                name: "kernel matrix",
                reason: format!(
                    "must be n × n with n = {} targets (got {} × {})",
                    y.len(),
                    k.nrows(),
                    k.ncols()
                ),
            });
        }
        let n = k.nrows();
        for i in 0..n {
            for j in 0..i {
                let (a, b) = (k[(i, j)], k[(j, i)]);
                if (a - b).abs() > 1e-10 * (1.0 + a.abs().max(b.abs())) {
                    return Err(KpError::Parameter {
                        name: "kernel matrix",
                        reason: format!(
                            "must be symmetric, but K[{i},{j}] = {a} and K[{j},{i}] = {b}"
                        ),
                    });
                }
            }
        }
        Self::build(Operator::Gram(Arc::new(k)), y, loss, lambda)
    }

    fn build(op: Operator, y: &DVector<f64>, loss: Loss, lambda: f64) -> Result<Self> {
        if !(lambda.is_finite() && lambda > 0.0) {
            return Err(KpError::Parameter {
                name: "lambda",
                reason: format!("λ must be a finite number > 0 (got {lambda})"),
            });
        }
        loss.validate()?;
        if let Some((i, v)) = y.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(KpError::NonFinite(format!("target y[{i}] = {v}")));
        }
        loss.check_targets(y.as_slice())?;
        let n = y.len();
        if n == 0 {
            return Err(KpError::NTooSmall(0));
        }
        let diag = match &op {
            Operator::Gram(k) => {
                if k.iter().any(|v| !v.is_finite()) {
                    return Err(KpError::NonFinite("a kernel matrix entry is not finite".into()));
                }
                k.diagonal()
            }
            Operator::Features { x, .. } => {
                DVector::from_iterator(n, x.row_iter().map(|r| r.norm_squared()))
            }
            Operator::Rows { x, kernel, sq } => {
                let d = kernel.gram_diagonal(x, sq);
                if d.iter().any(|v| !v.is_finite()) {
                    return Err(KpError::NonFinite("a kernel value k(x_i, x_i) overflowed".into()));
                }
                d
            }
        };
        if let Some((i, v)) = diag.iter().enumerate().find(|(_, v)| **v < 0.0) {
            return Err(KpError::Parameter {
                name: "kernel matrix",
                reason: format!("a kernel matrix has k_ii ≥ 0, but k_{i}{i} = {v}: it is not positive semi-definite"),
            });
        }
        let active: Vec<bool> = diag.iter().map(|&d| d > 0.0).collect();
        let dropped: Vec<usize> = (0..n).filter(|&i| !active[i]).collect();
        if dropped.len() == n {
            return Err(KpError::Parameter {
                name: "kernel matrix",
                reason: "every k_ii is 0: K is the zero matrix, there is nothing to learn".into(),
            });
        }
        Ok(Self { op, y: y.clone(), loss, lambda, diag, active, dropped, inputs: None, norm: None })
    }

    /// Number of coefficients n (ℓ in the paper).
    pub fn n(&self) -> usize {
        self.y.len()
    }

    /// The loss L.
    pub fn loss(&self) -> Loss {
        self.loss
    }

    /// The regularization parameter λ.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// The targets y.
    pub fn y(&self) -> &DVector<f64> {
        &self.y
    }

    /// Indices i with `k_ii = 0`, whose row is dropped (their `c_i` stay 0; section 4.1).
    pub fn dropped(&self) -> &[usize] {
        &self.dropped
    }

    /// The diagonal `k_ii` (for the features representation, `‖x_i‖²`).
    pub fn diagonal(&self) -> &DVector<f64> {
        &self.diag
    }

    /// `tr(K)`.
    pub fn trace(&self) -> f64 {
        self.diag.sum()
    }

    /// `out = Kc` (section 3, step 1; with features, `w = Xᵀc, z = Xw`).
    pub fn kc_into(&self, c: &DVector<f64>, out: &mut DVector<f64>) {
        match &self.op {
            Operator::Gram(k) => out.gemv(1.0, &**k, c, 0.0),
            Operator::Features { x, xt } => {
                let w = xt * c;
                out.gemv(1.0, x, &w, 0.0);
            }
            Operator::Rows { .. } => {
                // Σ_j c_j k_j over the non-zero c_j in index order: the sums of the stored
                // matrix's product (terms c_j = 0 add nothing), without the matrix.
                out.fill(0.0);
                let mut row = DVector::zeros(self.n());
                for j in 0..self.n() {
                    if c[j] != 0.0 {
                        self.kernel_row_into(j, &mut row);
                        out.axpy(c[j], &row, 1.0);
                    }
                }
            }
        }
    }

    /// Row (= column) `i` of K: `out[j] = k(x_i, x_j)` (for the features representation
    /// `⟨x_i, x_j⟩ = (X x_i)_j`). For [`Representation::KernelRows`] with inputs of at most 5
    /// columns it equals the stored Gram matrix's column bit for bit
    /// ([`ResolvedKernel::gram_row_into`]).
    pub fn kernel_row_into(&self, i: usize, out: &mut DVector<f64>) {
        match &self.op {
            Operator::Gram(k) => out.copy_from(&k.column(i)),
            Operator::Features { x, xt } => out.gemv(1.0, x, &xt.column(i), 0.0),
            Operator::Rows { x, kernel, sq } => kernel.gram_row_into(x, sq, i, out),
        }
    }

    /// Whether K is stored (`Representation::Gram`) rather than computed row by row.
    pub fn stores_gram(&self) -> bool {
        matches!(self.op, Operator::Gram(_))
    }

    /// `Kc`.
    pub fn kc(&self, c: &DVector<f64>) -> DVector<f64> {
        let mut z = DVector::zeros(self.n());
        self.kc_into(c, &mut z);
        z
    }

    /// The objective of problem (2), `F(c) = Σ L(y_i, z_i)/λ + cᵀz/2` with `z = Kc` given.
    pub fn objective_at(&self, c: &DVector<f64>, z: &DVector<f64>) -> f64 {
        let loss: f64 = self.y.iter().zip(z.iter()).map(|(&y, &t)| self.loss.value(y, t)).sum();
        loss / self.lambda + 0.5 * c.dot(z)
    }

    /// The dual objective `D(c) = −Σ L*(y_i, −λc_i)/λ − cᵀz/2` (`z = Kc` given): by Fenchel
    /// duality `D(c) ≤ min F`, with equality at a solution, and coordinate descent (eq. 13) is
    /// exact coordinate maximization of D, so D never decreases along Algorithm 1.
    pub fn dual_objective_at(&self, c: &DVector<f64>, z: &DVector<f64>) -> f64 {
        let conj: f64 = (0..self.n())
            .filter(|&i| self.active[i])
            .map(|i| self.loss.conjugate_rounded(self.y[i], -self.lambda * c[i]))
            .sum();
        -conj / self.lambda - 0.5 * c.dot(z)
    }

    /// `F(c)`.
    pub fn objective(&self, c: &DVector<f64>) -> f64 {
        self.objective_at(c, &self.kc(c))
    }

    /// The natural residual of Theorem 1 at α = 1, `max_i |c_i + J_1(z_i − c_i)|` over the kept
    /// rows (`z = Kc`): zero exactly at a solution, and continuous in c, so it is the
    /// optimality measure plotted for every solver.
    pub fn residual_at(&self, c: &DVector<f64>, z: &DVector<f64>) -> f64 {
        let mut r: f64 = 0.0;
        for i in 0..self.n() {
            if self.active[i] {
                let t = self.loss.neg_resolvent(self.y[i], z[i] - c[i], 1.0, self.lambda);
                r = fmath::max((c[i] - t).abs(), r);
            }
        }
        r
    }

    /// The distance of `−c` to `∂f(Kc)` in the max norm over the kept rows (Corollary 1:
    /// zero iff c is optimal). Discontinuous at the kinks of a non-smooth loss.
    pub fn subgradient_distance_at(&self, c: &DVector<f64>, z: &DVector<f64>) -> f64 {
        let mut r: f64 = 0.0;
        for i in 0..self.n() {
            if self.active[i] {
                let (lo, hi) = self.loss.subdifferential(self.y[i], z[i]);
                let target = -c[i] * self.lambda;
                let d = if target < lo {
                    lo - target
                } else if target > hi {
                    target - hi
                } else {
                    0.0
                };
                r = fmath::max(d / self.lambda, r);
            }
        }
        r
    }

    /// `‖K‖₂`, the largest eigenvalue of K: exact (symmetric eigendecomposition) for n ≤ 200,
    /// else by power iteration ([`PowerIteration`]) from a seeded start until the Rayleigh
    /// quotient settles; a value stored by [`Self::set_spectral_norm`] is returned as is.
    pub fn spectral_norm(&self) -> f64 {
        if let Some(v) = self.norm {
            return v;
        }
        let mut job = PowerIteration::new(self);
        while job.step(self).is_none() {}
        job.step(self).unwrap_or(0.0)
    }

    /// Store `‖K‖₂` computed by a [`PowerIteration`] on this problem (run in slices by a page),
    /// so [`Self::spectral_norm`] does not recompute it.
    pub fn set_spectral_norm(&mut self, job: &PowerIteration) {
        if let Some(v) = job.value {
            self.norm = Some(v);
        }
    }

    /// The dense Gram matrix (formed from `X` for the features representation).
    pub fn dense_gram(&self) -> DMatrix<f64> {
        match &self.op {
            Operator::Gram(k) => (**k).clone(),
            Operator::Features { x, xt } => x * xt,
            Operator::Rows { .. } => {
                let n = self.n();
                let mut k = DMatrix::zeros(n, n);
                let mut row = DVector::zeros(n);
                for i in 0..n {
                    self.kernel_row_into(i, &mut row);
                    k.set_column(i, &row);
                }
                k
            }
        }
    }

    /// The decision function `f(x) = Σ_i c_i k(x_i, x)` at the rows of `points` (the heatmap,
    /// the regression curve). Needs a problem built by [`Self::new`].
    pub fn predict(&self, c: &DVector<f64>, points: &DMatrix<f64>) -> Result<DVector<f64>> {
        let Some((x, rk)) = &self.inputs else {
            return Err(KpError::Parameter {
                name: "inputs",
                reason:
                    "this problem was built from a Gram matrix, so it cannot predict at new points"
                        .into(),
            });
        };
        if c.len() != x.nrows() {
            return Err(KpError::Parameter {
                name: "coefficients",
                reason: format!("expected {} coefficients, got {}", x.nrows(), c.len()),
            });
        }
        Ok(rk.cross(points, x)? * c)
    }
}

/// `‖K‖₂` by power iteration as a steppable state (one product `Kv` per step), exactly as
/// [`RegularizationProblem::spectral_norm`] computes it, so a page can run it across frames.
#[derive(Debug, Clone)]
pub struct PowerIteration {
    v: DVector<f64>,
    kv: DVector<f64>,
    est: f64,
    iter: usize,
    value: Option<f64>,
}

impl PowerIteration {
    /// Start on `problem` (for n ≤ 200 the value is computed exactly at once).
    pub fn new(problem: &RegularizationProblem) -> Self {
        let n = problem.n();
        if let Some(v) = problem.norm {
            return Self {
                v: DVector::zeros(0),
                kv: DVector::zeros(0),
                est: v,
                iter: 0,
                value: Some(v),
            };
        }
        if n <= 200 {
            let v = SymmetricEigen::new(problem.dense_gram())
                .eigenvalues
                .iter()
                .fold(0.0f64, |m, &v| m.max(v));
            return Self {
                v: DVector::zeros(0),
                kv: DVector::zeros(0),
                est: v,
                iter: 0,
                value: Some(v),
            };
        }
        let mut rng = Rng::new(0x5eed);
        let mut v = DVector::from_fn(n, |_, _| 1.0 + 0.1 * rng.normal());
        v /= v.norm();
        Self { v, kv: DVector::zeros(n), est: 0.0, iter: 0, value: None }
    }

    /// One product `Kv`; returns `Some(‖K‖₂)` once settled (1000 products at most).
    pub fn step(&mut self, problem: &RegularizationProblem) -> Option<f64> {
        if self.value.is_some() {
            return self.value;
        }
        if self.iter >= 1000 {
            self.value = Some(self.est);
            return self.value;
        }
        self.iter += 1;
        problem.kc_into(&self.v, &mut self.kv);
        let rq = self.v.dot(&self.kv);
        let nk = self.kv.norm();
        if !(nk.is_finite() && nk > 0.0) {
            self.value = Some(rq.max(0.0));
            return self.value;
        }
        self.v.copy_from(&self.kv);
        self.v /= nk;
        if (rq - self.est).abs() <= 1e-12 * rq.abs() {
            self.value = Some(nk.max(rq));
            return self.value;
        }
        self.est = rq;
        None
    }

    /// Products done so far.
    pub fn iterations(&self) -> usize {
        self.iter
    }
}

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
    /// `max|h|` made no progress for [`super::STALL_WINDOW`] sweeps (it sits at rounding level
    /// above a tolerance floating point cannot reach): ours, not the paper's.
    Stalled,
}

/// The message of a [`StopReason::Stalled`] run.
pub fn stalled_message(sweep: usize, tol: f64) -> String {
    format!(
        "stalled at sweep {sweep}: max|h| has not fallen for {} sweeps (rounding level); the tolerance δ = {tol:e} is below what floating point reaches on this problem",
        super::STALL_WINDOW
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
    /// Stall detection on `max|h|` ([`super::StallWatch`]).
    stall: super::StallWatch,
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
                "α = {alpha:.4e} is not below 2/‖K‖₂ = {:.4e} (condition (11) of Theorem 2): the iteration is not guaranteed to converge and may diverge",
                2.0 / norm_k
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
            stall: super::StallWatch::default(),
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
                "the iteration overflowed at sweep {} (α = {:.4e}, 2/‖K‖₂ = {:.4e})",
                rec.sweep,
                self.alpha,
                2.0 / self.norm_k
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
                format!("the change |Δc| grew from {:.3e} to {:.3e}", self.first_h, h)
            };
            self.message = Some(format!(
                "diverged at sweep {}: α = {:.4e} exceeds 2/‖K‖₂ = {:.4e} (condition (11) of Theorem 2, sufficient for convergence but not necessary), and {how}",
                rec.sweep,
                self.alpha,
                2.0 / self.norm_k
            ));
            return;
        }
        if rec.sweep >= self.cfg.max_sweeps {
            self.status = StopReason::MaxSweeps;
        } else if self.stall.stalled(rec.objective, rec.dual, rec.gap, h) {
            self.status = StopReason::Stalled;
            self.message = Some(stalled_message(rec.sweep, self.cfg.tol));
        }
    }

    /// Step until the run stops.
    pub fn run(&mut self) -> StopReason {
        while self.step().is_some() {}
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

/// One point of the Theorem 5 picture: the loss `L(y, t)/λ` and its Moreau–Yosida envelope
/// `f_α(t) = min_s L(y, s)/λ + (α/2)(s − t)²` (paper C, appendix definition).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EnvelopePoint {
    pub t: f64,
    pub loss: f64,
    pub envelope: f64,
}

/// The loss and its Moreau–Yosida envelope sampled at `points` evenly spaced `t` in
/// `[t_min, t_max]` (Theorem 5: the non-smooth loss beside its smooth twin).
pub fn envelope_curve(
    loss: Loss,
    y: f64,
    alpha: f64,
    lambda: f64,
    t_min: f64,
    t_max: f64,
    points: usize,
) -> Result<Vec<EnvelopePoint>> {
    loss.validate()?;
    loss.check_targets(&[y])?;
    if !(alpha.is_finite() && alpha > 0.0) {
        return Err(KpError::Parameter {
            name: "alpha",
            reason: format!("α must be a finite number > 0 (got {alpha})"),
        });
    }
    if !(lambda.is_finite() && lambda > 0.0) {
        return Err(KpError::Parameter {
            name: "lambda",
            reason: format!("λ must be a finite number > 0 (got {lambda})"),
        });
    }
    if !(t_min.is_finite() && t_max.is_finite() && t_min < t_max) {
        return Err(KpError::Parameter {
            name: "range",
            reason: format!("need finite t_min < t_max (got {t_min}, {t_max})"),
        });
    }
    if !(2..=100_000).contains(&points) {
        return Err(KpError::Parameter {
            name: "points",
            reason: format!("between 2 and 100000 grid points (got {points})"),
        });
    }
    Ok((0..points)
        .map(|k| {
            let t = t_min + (t_max - t_min) * k as f64 / (points - 1) as f64;
            EnvelopePoint {
                t,
                loss: loss.value(y, t) / lambda,
                envelope: loss.moreau_envelope(y, t, alpha, lambda),
            }
        })
        .collect())
}

/// The smooth functional of Theorem 5 at `c`, in the scaling that is stationary at a solution
/// for every α: `G_α(c) = α·f_α(K_α c/α) + cᵀK_α c/2`, with `f_α` the envelope of
/// [`Loss::moreau_envelope`] (appendix definition) and `K_α = αK − I`. At α = 1 it is the
/// printed `α⁻¹f_α(K_α c) + cᵀK_α c/2`; for α ≠ 1 the printed form is not stationary with
/// the appendix's envelope (the tests check `∇G_α(c*) = 0` by finite differences).
pub fn theorem5_functional(
    problem: &RegularizationProblem,
    c: &DVector<f64>,
    alpha: f64,
) -> Result<f64> {
    if !(alpha.is_finite() && alpha > 0.0) {
        return Err(KpError::Parameter {
            name: "alpha",
            reason: format!("α must be a finite number > 0 (got {alpha})"),
        });
    }
    if c.len() != problem.n() {
        return Err(KpError::Parameter {
            name: "coefficients",
            reason: format!("expected {} coefficients, got {}", problem.n(), c.len()),
        });
    }
    // K_α c = αKc − c
    let kac = problem.kc(c) * alpha - c;
    let env: f64 = (0..problem.n())
        .map(|i| problem.loss.moreau_envelope(problem.y[i], kac[i] / alpha, alpha, problem.lambda))
        .sum();
    Ok(alpha * env + 0.5 * c.dot(&kac))
}

/// The eigenvalues of `K_α = αK − I` in increasing order (Theorem 5: `α·μ_i − 1` for the
/// eigenvalues `μ_i` of K; negative ones make the reformulated kernel indefinite).
pub fn k_alpha_eigenvalues(problem: &RegularizationProblem, alpha: f64) -> Result<Vec<f64>> {
    if !(alpha.is_finite() && alpha > 0.0) {
        return Err(KpError::Parameter {
            name: "alpha",
            reason: format!("α must be a finite number > 0 (got {alpha})"),
        });
    }
    if problem.n() > MAX_EIGEN_N {
        return Err(KpError::Parameter {
            name: "n",
            reason: format!(
                "the eigenvalue plot is limited to n ≤ {MAX_EIGEN_N} points (got {})",
                problem.n()
            ),
        });
    }
    k_alpha_eigenvalues_of_block(problem, problem.n(), alpha)
}

/// [`k_alpha_eigenvalues`] of the leading `m × m` block of K (the page's Theorem 5 picture for
/// large n), by `faer`'s self-adjoint eigenvalue solver (values only; no copy of the whole K).
pub fn k_alpha_eigenvalues_of_block(
    problem: &RegularizationProblem,
    m: usize,
    alpha: f64,
) -> Result<Vec<f64>> {
    if !(alpha.is_finite() && alpha > 0.0) {
        return Err(KpError::Parameter {
            name: "alpha",
            reason: format!("α must be a finite number > 0 (got {alpha})"),
        });
    }
    let m = m.min(problem.n());
    if m > MAX_EIGEN_N {
        return Err(KpError::Parameter {
            name: "n",
            reason: format!("the eigenvalue plot is limited to n ≤ {MAX_EIGEN_N} points (got {m})"),
        });
    }
    let a = match &problem.op {
        Operator::Gram(k) => faer::Mat::<f64>::from_fn(m, m, |i, j| k[(i, j)]),
        Operator::Features { x, .. } => {
            let xb = x.rows(0, m);
            let k = xb * xb.transpose();
            faer::Mat::<f64>::from_fn(m, m, |i, j| k[(i, j)])
        }
        Operator::Rows { .. } => {
            let mut block = DMatrix::zeros(m, m);
            let mut row = DVector::zeros(problem.n());
            for i in 0..m {
                problem.kernel_row_into(i, &mut row);
                block.set_column(i, &row.rows(0, m));
            }
            faer::Mat::<f64>::from_fn(m, m, |i, j| block[(i, j)])
        }
    };
    let values = a
        .self_adjoint_eigenvalues(faer::Side::Lower)
        .map_err(|_| KpError::NonFinite("the eigenvalues of K did not converge".into()))?;
    let mut ev: Vec<f64> = values.iter().map(|&v| alpha * v - 1.0).collect();
    ev.sort_by(f64::total_cmp);
    Ok(ev)
}

/// The decision function `f(x) = Σ_i c_i k(x_i, x)` (paper C, eq. 3 with the representer
/// theorem) on a fixed set of points, for the heatmap redrawn after every sweep: the cross
/// kernel matrix is formed once when it is small, else each evaluation uses only the columns
/// with `c_i ≠ 0` (the support vectors), which is where the hinge loss saves work.
#[derive(Debug, Clone)]
pub struct DecisionMap {
    points: DMatrix<f64>,
    cross: Option<DMatrix<f64>>,
}

impl RegularizationProblem {
    /// A [`DecisionMap`] at the rows of `points`; the `m × n` cross kernel is cached when
    /// `m·n ≤ cache_limit`. Needs a problem built by [`Self::new`].
    pub fn decision_map(&self, points: DMatrix<f64>, cache_limit: usize) -> Result<DecisionMap> {
        let Some((x, rk)) = &self.inputs else {
            return Err(KpError::Parameter {
                name: "inputs",
                reason:
                    "this problem was built from a Gram matrix, so it cannot predict at new points"
                        .into(),
            });
        };
        if points.ncols() != x.ncols() {
            return Err(KpError::Parameter {
                name: "points",
                reason: format!(
                    "points have {} coordinates, the inputs {}",
                    points.ncols(),
                    x.ncols()
                ),
            });
        }
        let cross = if points.nrows().saturating_mul(x.nrows()) <= cache_limit {
            Some(rk.cross(&points, x)?)
        } else {
            None
        };
        Ok(DecisionMap { points, cross })
    }

    /// The cross kernel of a [`DecisionMap`] at `points` as a [`CrossJob`] (to spread over
    /// frames); [`DecisionMap::from_job`] turns the finished job into the map.
    pub fn decision_map_job(&self, points: DMatrix<f64>) -> Result<CrossJob> {
        let Some((x, rk)) = &self.inputs else {
            return Err(KpError::Parameter {
                name: "inputs",
                reason:
                    "this problem was built from a Gram matrix, so it cannot predict at new points"
                        .into(),
            });
        };
        CrossJob::new(*rk, points, x.clone())
    }
}

impl DecisionMap {
    /// The map of a finished [`RegularizationProblem::decision_map_job`] (the cross kernel cached).
    pub fn from_job(job: CrossJob) -> Result<Self> {
        let (points, cross) = job.into_parts()?;
        Ok(Self { points, cross: Some(cross) })
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.points.nrows()
    }
    /// True when there are no points.
    pub fn is_empty(&self) -> bool {
        self.points.nrows() == 0
    }
    /// Whether the cross kernel matrix is cached.
    pub fn is_cached(&self) -> bool {
        self.cross.is_some()
    }
    /// `f(x)` at every point for the coefficients `c` of `problem` (the problem the map was
    /// built from).
    pub fn evaluate(
        &self,
        problem: &RegularizationProblem,
        c: &DVector<f64>,
    ) -> Result<DVector<f64>> {
        if c.len() != problem.n() {
            return Err(KpError::Parameter {
                name: "coefficients",
                reason: format!("expected {} coefficients, got {}", problem.n(), c.len()),
            });
        }
        if let Some(k) = &self.cross {
            if k.ncols() == c.len() {
                return Ok(k * c);
            }
        }
        let Some((x, rk)) = &problem.inputs else {
            return Err(KpError::Parameter {
                name: "inputs",
                reason:
                    "this problem was built from a Gram matrix, so it cannot predict at new points"
                        .into(),
            });
        };
        let support: Vec<usize> = (0..c.len()).filter(|&i| c[i] != 0.0).collect();
        if support.is_empty() {
            return Ok(DVector::zeros(self.points.nrows()));
        }
        let xs = x.select_rows(support.iter());
        let cs = DVector::from_iterator(support.len(), support.iter().map(|&i| c[i]));
        Ok(rk.cross(&self.points, &xs)? * cs)
    }
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
