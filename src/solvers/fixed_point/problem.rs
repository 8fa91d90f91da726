//! Problem (2) of paper C, `min_c Σ L(y_i, (Kc)_i)/λ + cᵀKc/2`: the data, the loss and λ, and K
//! stored as the Gram matrix, computed row by row, or through the features (linear kernel); its
//! objective, dual and duality gap — the certificate every solver of paper C reports.

use std::sync::Arc;

use crate::fmath;

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use crate::error::{KpError, Result};
use crate::kernels::{Kernel, ResolvedKernel};
use crate::losses::Loss;

/// `Kc` with a stored Gram matrix runs on [`crate::par::threads`] threads from this many
/// entries of K on (a worker's ‖K‖₂, paper C's fixed point natively with `--threads`).
const PAR_KC_ENTRIES: usize = 1 << 18;

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
    pub(super) dropped: Vec<usize>,
    pub(super) inputs: Option<(DMatrix<f64>, ResolvedKernel)>,
    /// `‖K‖₂` once computed ([`Self::set_spectral_norm`] from a [`PowerIteration`](super::PowerIteration) run in slices).
    pub(super) norm: Option<f64>,
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
            Representation::Gram => {
                let k = rk.gram(x)?;
                return Self::with_gram(x, y, rk, k, loss, lambda);
            }
            Representation::KernelRows => Operator::Rows {
                x: x.clone(),
                kernel: rk.clone(),
                sq: ResolvedKernel::squared_norms(x),
            },
            Representation::Features => {
                if !matches!(rk, ResolvedKernel::Linear(_)) {
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
            Operator::Gram(k) => {
                let (n, m) = (k.nrows(), k.ncols());
                let threads = crate::par::threads();
                if threads > 1 && n.saturating_mul(m) >= PAR_KC_ENTRIES {
                    // Bands of rows in parallel: nalgebra's gemv is one axpy per column, entry
                    // by entry, so each (Kc)_i is summed over j in the same order as on one
                    // thread, the same bits (tests/dinuzzo_prep.rs).
                    let band = n.div_ceil(threads).max(1);
                    crate::par::for_each_chunk(out.as_mut_slice(), band, |b, o| {
                        let len = o.len();
                        let mut o = nalgebra::DVectorViewMut::from_slice(o, len);
                        o.gemv(1.0, &k.rows(b * band, len), c, 0.0);
                    });
                } else {
                    out.gemv(1.0, &**k, c, 0.0);
                }
            }
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

    /// The stored Gram matrix's entries (column-major), when the problem stores one.
    pub fn gram_values(&self) -> Option<&[f64]> {
        match &self.op {
            Operator::Gram(k) => Some(k.as_slice()),
            _ => None,
        }
    }

    /// `‖K‖₂` if known (computed or stored), without computing it.
    pub fn known_norm(&self) -> Option<f64> {
        self.norm
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
