//! Theorem 1's one O(n³) step: the symmetric eigendecomposition of K, and the payload a page's
//! worker computes and hands back, checked against K before it is adopted.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::model::*;
use nalgebra::{DMatrix, DVector};

use crate::data::Dataset;
use crate::error::{KpError, Result};
use crate::exec::{run_task_for, Progress, Task};
use crate::kernels::{Kernel, ResolvedKernel};

/// Calls of [`symmetric_eigen`] in this process (this wasm instance, in a browser).
static EIGEN_CALLS: AtomicUsize = AtomicUsize::new(0);
/// Calls of [`EigenPayload::check_against`] (the whole check in one call) in this process.
static WHOLE_CHECKS: AtomicUsize = AtomicUsize::new(0);

/// How often this process (in a browser: this wasm instance, i.e. this thread) ran the O(n³)
/// decomposition ([`symmetric_eigen`]) and the unsliced payload check
/// ([`EigenPayload::check_against`]): `(eigendecompositions, whole checks)`. A page's main
/// thread must show (0, 0) after adopting a worker's decomposition (issue 36: no main-thread
/// task over 200 ms); the e2e tests read it as a state, not a time.
pub fn whole_matrix_calls() -> (usize, usize) {
    (EIGEN_CALLS.load(Ordering::Relaxed), WHOLE_CHECKS.load(Ordering::Relaxed))
}

/// Symmetric eigendecomposition `K = QΛQᵀ` (Theorem 1, step 1): the eigenvalues (ascending)
/// and the orthonormal eigenvectors as the columns of Q. Computed by `faer`'s self-adjoint
/// eigensolver (blocked tridiagonalization + divide and conquer, pure Rust, also in wasm32;
/// issue 12: 5–20× faster than nalgebra's implicit QR at n = 1000–2000); nalgebra stays the
/// matrix type, the conversion is two O(n²) copies.
pub fn symmetric_eigen(gram: &DMatrix<f64>) -> Result<(DVector<f64>, DMatrix<f64>)> {
    EIGEN_CALLS.fetch_add(1, Ordering::Relaxed);
    let n = gram.nrows();
    if n != gram.ncols() || n > MAX_EIGEN_N {
        return Err(KpError::Parameter {
            name: "K",
            reason: format!(
                "need a square matrix of size at most {MAX_EIGEN_N} (got {} × {})",
                n,
                gram.ncols()
            ),
        });
    }
    if gram.iter().any(|v| !v.is_finite()) {
        return Err(KpError::NonFinite("an entry of K".into()));
    }
    let a = faer::Mat::<f64>::from_fn(n, n, |i, j| gram[(i, j)]);
    let (s, u) = crate::par::self_adjoint_evd(a.as_ref(), true).ok_or_else(|| {
        KpError::NonFinite("the symmetric eigendecomposition of K did not converge".into())
    })?;
    let u = u.ok_or_else(|| KpError::NonFinite("the eigenvectors of K".into()))?;
    let s = s.column_vector();
    let values = DVector::from_fn(n, |i, _| s[i]);
    let vectors = DMatrix::from_fn(n, n, |i, j| u[(i, j)]);
    if values.iter().any(|v| !v.is_finite()) || vectors.iter().any(|v| !v.is_finite()) {
        return Err(KpError::NonFinite("the eigendecomposition of K".into()));
    }
    Ok((values, vectors))
}

/// Relative residual allowed by [`EigenPayload::check_against`] for both
/// `‖QQᵀv − v‖/‖v‖` and `‖Kv − QΛQᵀv‖/(‖K‖_F‖v‖)`. A fresh decomposition is at rounding level
/// (≈ 1e-15–1e-13 for n ≤ 3000); a payload for other data, with permuted eigenvalues, or a flipped
/// entry is far above.
pub const EIGEN_CHECK_TOL: f64 = 1e-9;

/// Random probe vectors used by [`EigenPayload::check_against`].
const EIGEN_PROBES: usize = 2;

/// A symmetric eigendecomposition `K = QΛQᵀ` as flat arrays, the form in which a Web Worker
/// hands it to the page: `values[j] = λ_j` and `vectors[j·n + i] = Q[i, j]` (column-major, so
/// eigenvector j is the contiguous slice `vectors[j·n .. (j+1)·n]`).
#[derive(Debug, Clone, PartialEq)]
pub struct EigenPayload {
    /// Size of K.
    pub n: usize,
    /// The n eigenvalues λ_j.
    pub values: Vec<f64>,
    /// The n² entries of Q, column-major.
    pub vectors: Vec<f64>,
}

impl EigenPayload {
    /// Gram matrix of `x` under `kernel` and its eigendecomposition (the O(n³) step that a
    /// page runs off the main thread). Checks the inputs as the model constructors do.
    pub fn compute(x: &DMatrix<f64>, y: &DVector<f64>, kernel: ResolvedKernel) -> Result<Self> {
        check_inputs(x, y)?;
        let gram = kernel.gram(x)?;
        Self::of_gram(&gram)
    }

    /// The eigendecomposition of a given symmetric matrix.
    pub fn of_gram(gram: &DMatrix<f64>) -> Result<Self> {
        let (values, q) = symmetric_eigen(gram)?;
        Ok(Self {
            n: gram.nrows(),
            values: values.as_slice().to_vec(),
            vectors: q.as_slice().to_vec(),
        })
    }

    /// Refuse a payload that does not decompose `gram`: wrong lengths, a non-finite entry, Q not
    /// orthonormal (`‖QQᵀv − v‖ > tol·‖v‖`) or `‖Kv − QΛQᵀv‖ > tol·‖K‖_F‖v‖`, with
    /// `tol =` [`EIGEN_CHECK_TOL`], for fixed pseudo-random probes v (O(n²) each, against the
    /// O(n³) decomposition).
    ///
    /// The whole check in one call (O(n²) work, tens of ms at n = 2 000): a page's main thread
    /// adopts through [`EigenAdoption`] instead, a few ms per slice, with the same check.
    pub fn check_against(&self, gram: &DMatrix<f64>) -> Result<()> {
        let n = gram.nrows();
        check_shape(gram, self.n, &self.values, self.vectors.len())?;
        if let Some(i) = self.vectors.iter().position(|v| !v.is_finite()) {
            return bad_payload(format!("eigenvector entry {i} is {}", self.vectors[i]));
        }
        WHOLE_CHECKS.fetch_add(1, Ordering::Relaxed);
        let q = DMatrix::from_column_slice(n, n, &self.vectors);
        let lam = DVector::from_column_slice(&self.values);
        let mut check = EigenCheck::new();
        while !check.passed() {
            check.step(gram, &q, &lam)?;
        }
        Ok(())
    }
}

/// A refusal of a payload, naming it.
fn bad_payload<T>(reason: String) -> Result<T> {
    Err(KpError::Parameter { name: "eigendecomposition", reason })
}

/// The payload's lengths against K (n × n) and its eigenvalues finite.
fn check_shape(
    gram: &DMatrix<f64>,
    n_payload: usize,
    values: &[f64],
    vectors: usize,
) -> Result<()> {
    let n = gram.nrows();
    if gram.ncols() != n {
        return bad_payload(format!("K is {n} × {}, not square", gram.ncols()));
    }
    if n_payload != n {
        return bad_payload(format!("it is for n = {n_payload} samples but the data have {n}"));
    }
    if values.len() != n {
        return bad_payload(format!("{} eigenvalues for n = {n}", values.len()));
    }
    if Some(vectors) != n.checked_mul(n) {
        return bad_payload(format!(
            "{vectors} eigenvector entries for n = {n} (need n² = {})",
            n.saturating_mul(n)
        ));
    }
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return bad_payload(format!("eigenvalue {i} is {}", values[i]));
    }
    Ok(())
}

/// Where an [`EigenCheck`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CheckStage {
    /// ‖K‖_F.
    Norm,
    /// The next probe v and `w = Qᵀv`.
    Project,
    /// `‖Qw − v‖/‖v‖`.
    Orthonormal,
    /// `‖Kv − Q(Λw)‖/(‖K‖_F‖v‖)`.
    Reconstruct,
    /// Every probe passed.
    Passed,
}

/// [`EigenPayload::check_against`]'s probes as steps of one O(n²) pass each (‖K‖_F; per probe
/// `w = Qᵀv`; `Qw − v`; `Kv − QΛw`), so a page's main thread can run the check in slices. The
/// same arithmetic and the same messages as the one-call check, which runs these steps.
pub struct EigenCheck {
    stage: CheckStage,
    probe: usize,
    rng: crate::rng::Rng,
    k_norm: f64,
    v: DVector<f64>,
    v_norm: f64,
    w: DVector<f64>,
}

impl Default for EigenCheck {
    fn default() -> Self {
        Self::new()
    }
}

impl EigenCheck {
    /// A check not started (the probes are the fixed pseudo-random ones of `check_against`).
    pub fn new() -> Self {
        Self {
            stage: CheckStage::Norm,
            probe: 0,
            rng: crate::rng::Rng::new(0x5eed_e16e),
            k_norm: f64::NAN,
            v: DVector::zeros(0),
            v_norm: f64::NAN,
            w: DVector::zeros(0),
        }
    }

    /// Whether every probe passed.
    pub fn passed(&self) -> bool {
        self.stage == CheckStage::Passed
    }

    /// Steps a whole check takes (for a progress fraction).
    pub const STEPS: usize = 1 + 3 * EIGEN_PROBES;

    /// Steps done.
    pub fn steps_done(&self) -> usize {
        let within = match self.stage {
            CheckStage::Norm => return 0,
            CheckStage::Passed => return Self::STEPS,
            CheckStage::Project => 0,
            CheckStage::Orthonormal => 1,
            CheckStage::Reconstruct => 2,
        };
        1 + 3 * self.probe + within
    }

    /// One step against K (`gram`), Q (n × n, columns the eigenvectors) and Λ (`lam`), whose
    /// sizes the caller checked; an error refuses the payload (the message says why).
    // `!(x <= tol)` on purpose: a NaN residual must fail the check.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    pub fn step(
        &mut self,
        gram: &DMatrix<f64>,
        q: &DMatrix<f64>,
        lam: &DVector<f64>,
    ) -> Result<()> {
        match self.stage {
            CheckStage::Norm => {
                self.k_norm = gram.norm();
                if !(self.k_norm.is_finite() && self.k_norm > 0.0) {
                    return Err(KpError::Parameter {
                        name: "kernel",
                        reason: "the Gram matrix K is zero or not finite: every f in the span is 0"
                            .into(),
                    });
                }
                self.stage =
                    if EIGEN_PROBES > 0 { CheckStage::Project } else { CheckStage::Passed };
            }
            CheckStage::Project => {
                let n = q.nrows();
                let rng = &mut self.rng;
                self.v = DVector::from_fn(n, |_, _| rng.normal());
                self.v_norm = self.v.norm();
                self.w = q.tr_mul(&self.v);
                self.stage = CheckStage::Orthonormal;
            }
            CheckStage::Orthonormal => {
                let orth = (q * &self.w - &self.v).norm() / self.v_norm;
                if !(orth <= EIGEN_CHECK_TOL) {
                    return bad_payload(format!("the eigenvectors are not orthonormal (‖QQᵀv − v‖/‖v‖ = {orth:.2e} > {EIGEN_CHECK_TOL:.0e}); it was computed for other data or was corrupted"));
                }
                self.stage = CheckStage::Reconstruct;
            }
            CheckStage::Reconstruct => {
                let recon = (gram * &self.v - q * self.w.component_mul(lam)).norm()
                    / (self.k_norm * self.v_norm);
                if !(recon <= EIGEN_CHECK_TOL) {
                    return bad_payload(format!("it does not reproduce this Gram matrix (‖Kv − QΛQᵀv‖/(‖K‖‖v‖) = {recon:.2e} > {EIGEN_CHECK_TOL:.0e}); it was computed for other data or kernel, or was corrupted"));
                }
                self.probe += 1;
                self.stage = if self.probe < EIGEN_PROBES {
                    CheckStage::Project
                } else {
                    CheckStage::Passed
                };
            }
            CheckStage::Passed => {}
        }
        Ok(())
    }
}

/// Entries of Q copied in (and checked finite) per unit of [`EigenAdoption::advance`]:
/// 2¹⁸ (2 MiB, about a millisecond).
const FILL_BLOCK_ENTRIES: usize = 1 << 18;

/// A worker's eigendecomposition adopted by a page's main thread in units of at most about one
/// O(n²) pass each, a few per frame: Q copied in from the worker's buffer in blocks (each
/// checked finite), the [`EigenCheck`] of [`EigenPayload::check_against`] step by step,
/// `y' = Qᵀy`; then [`Self::finish`] gives the same model as
/// [`MrlsrModel::with_gram_and_eigen`] (issue 36: the one-call adoption was a 0.4 s task at
/// n = 2 000).
pub struct EigenAdoption {
    x: DMatrix<f64>,
    y: DVector<f64>,
    kernel: ResolvedKernel,
    gram: DMatrix<f64>,
    lam: DVector<f64>,
    q: DMatrix<f64>,
    filled: usize,
    check: EigenCheck,
    yp: Option<DVector<f64>>,
    failed: Option<KpError>,
}

impl EigenAdoption {
    /// Check the inputs (as the model constructors do), K's size, the payload's lengths
    /// (`vectors` entries to come) and eigenvalues, and allocate Q.
    pub fn new(
        x: &DMatrix<f64>,
        y: &DVector<f64>,
        kernel: ResolvedKernel,
        gram: DMatrix<f64>,
        values: Vec<f64>,
        vectors: usize,
    ) -> Result<Self> {
        check_inputs(x, y)?;
        check_gram_size(x, &gram)?;
        check_shape(&gram, values.len(), &values, vectors)?;
        let n = gram.nrows();
        Ok(Self {
            x: x.clone(),
            y: y.clone(),
            kernel,
            gram,
            lam: DVector::from_vec(values),
            q: DMatrix::zeros(n, n),
            filled: 0,
            check: EigenCheck::new(),
            yp: None,
            failed: None,
        })
    }

    /// Units of work in all (for a progress fraction).
    fn units(&self) -> usize {
        self.q.len().div_ceil(FILL_BLOCK_ENTRIES) + EigenCheck::STEPS + 1
    }

    /// The fraction of the adoption done.
    pub fn fraction(&self) -> f64 {
        let done = self.filled.div_ceil(FILL_BLOCK_ENTRIES)
            + self.check.steps_done()
            + usize::from(self.yp.is_some());
        done as f64 / self.units() as f64
    }

    /// Whether every unit is done (then [`Self::finish`]).
    pub fn is_done(&self) -> bool {
        self.yp.is_some()
    }

    /// Work for up to `budget_ms` (at least one unit); `source(offset, dst)` writes the
    /// eigenvector entries `vectors[offset .. offset + dst.len()]` (column-major) into `dst`.
    /// True when done. A refusal (non-finite entry, failed probe) is returned, and again on
    /// every later call.
    pub fn advance(
        &mut self,
        budget_ms: f64,
        source: &mut dyn FnMut(usize, &mut [f64]),
    ) -> Result<bool> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if let Err(e) = run_task_for(&mut Fed { adoption: self, source }, budget_ms) {
            self.failed = Some(e.clone());
            return Err(e);
        }
        Ok(self.is_done())
    }

    /// One unit: a block of Q, a check step or `y' = Qᵀy`; false when nothing is left.
    fn unit(&mut self, source: &mut dyn FnMut(usize, &mut [f64])) -> Result<bool> {
        let total = self.q.len();
        if self.filled < total {
            let (a, b) = (self.filled, (self.filled + FILL_BLOCK_ENTRIES).min(total));
            let dst = &mut self.q.as_mut_slice()[a..b];
            source(a, dst);
            if let Some(i) = dst.iter().position(|v| !v.is_finite()) {
                return bad_payload(format!("eigenvector entry {} is {}", a + i, dst[i]));
            }
            self.filled = b;
            return Ok(true);
        }
        if !self.check.passed() {
            self.check.step(&self.gram, &self.q, &self.lam)?;
            return Ok(true);
        }
        if self.yp.is_none() {
            self.yp = Some(self.q.tr_mul(&self.y));
            return Ok(true);
        }
        Ok(false)
    }

    /// The model, once [`Self::is_done`]: the same as [`MrlsrModel::with_gram_and_eigen`]'s.
    pub fn finish(self) -> Result<MrlsrModel> {
        let Some(yp) = self.yp else {
            return bad_payload("the adoption is not finished".into());
        };
        MrlsrModel::assemble_with(&self.x, &self.y, self.kernel, self.gram, self.lam, self.q, yp)
    }
}

/// A [`EigenAdoption`] with the source of the worker's values: the executor's [`Task`], sliced by
/// [`run_task_for`].
struct Fed<'a> {
    adoption: &'a mut EigenAdoption,
    source: &'a mut dyn FnMut(usize, &mut [f64]),
}

impl Task for Fed<'_> {
    type Error = KpError;
    fn unit(&mut self) -> Result<Progress> {
        Ok(if self.adoption.unit(self.source)? { Progress::More } else { Progress::Done })
    }
}

impl MrlsrModel {
    /// Build from a data set with a kernel whose bandwidth is resolved on `data.x`.
    pub fn from_dataset(data: &Dataset, kernel: &Kernel) -> Result<Self> {
        Self::new(&data.x, &data.y, kernel)
    }

    /// Build from inputs (rows of `x`) and targets, resolving the kernel on `x`.
    pub fn new(x: &DMatrix<f64>, y: &DVector<f64>, kernel: &Kernel) -> Result<Self> {
        let k = kernel.resolve(x)?;
        Self::with_kernel(x, y, k)
    }

    /// Build with an already resolved kernel (so several subsets can share one bandwidth):
    /// Gram matrix, symmetric eigendecomposition, `y' = Qᵀy` (Theorem 1, steps 1–3).
    pub fn with_kernel(x: &DMatrix<f64>, y: &DVector<f64>, kernel: ResolvedKernel) -> Result<Self> {
        check_inputs(x, y)?;
        let gram = kernel.gram(x)?;
        let (raw, q) = symmetric_eigen(&gram)?;
        Self::assemble(x, y, kernel, gram, raw, q)
    }

    /// Build from inputs, targets and a kernel resolved on `x` (as [`MrlsrModel::new`]) but
    /// adopt a precomputed eigendecomposition of their Gram matrix instead of computing it,
    /// e.g. one computed in a Web Worker by [`EigenPayload::compute`] on the same data. The
    /// Gram matrix is rebuilt here (O(n²)) and the payload is refused with a
    /// [`KpError::Parameter`] unless it has the right lengths, finite entries, and passes
    /// [`EigenPayload::check_against`] (orthonormality and `K ≈ QΛQᵀ` on random probes).
    pub fn with_eigen(
        x: &DMatrix<f64>,
        y: &DVector<f64>,
        kernel: &Kernel,
        payload: EigenPayload,
    ) -> Result<Self> {
        let k = kernel.resolve(x)?;
        Self::with_kernel_and_eigen(x, y, k, payload)
    }

    /// [`MrlsrModel::with_eigen`] on a data set.
    pub fn from_dataset_with_eigen(
        data: &Dataset,
        kernel: &Kernel,
        payload: EigenPayload,
    ) -> Result<Self> {
        Self::with_eigen(&data.x, &data.y, kernel, payload)
    }

    /// [`MrlsrModel::with_eigen`] with an already resolved kernel.
    pub fn with_kernel_and_eigen(
        x: &DMatrix<f64>,
        y: &DVector<f64>,
        kernel: ResolvedKernel,
        payload: EigenPayload,
    ) -> Result<Self> {
        check_inputs(x, y)?;
        let gram = kernel.gram(x)?;
        Self::with_gram_and_eigen(x, y, kernel, gram, payload)
    }

    /// [`MrlsrModel::with_kernel_and_eigen`] with the Gram matrix of `x` already computed (a
    /// page builds it in slices, [`crate::kernels::CrossJob`], while a worker computes the
    /// eigendecomposition); the payload is checked against it as there.
    pub fn with_gram_and_eigen(
        x: &DMatrix<f64>,
        y: &DVector<f64>,
        kernel: ResolvedKernel,
        gram: DMatrix<f64>,
        payload: EigenPayload,
    ) -> Result<Self> {
        check_inputs(x, y)?;
        check_gram_size(x, &gram)?;
        payload.check_against(&gram)?;
        let n = payload.n;
        let raw = DVector::from_vec(payload.values);
        let q = DMatrix::from_vec(n, n, payload.vectors);
        Self::assemble(x, y, kernel, gram, raw, q)
    }

    /// The cached eigendecomposition as a flat payload (the inverse of
    /// [`MrlsrModel::with_eigen`]; raw eigenvalues, as computed).
    pub fn eigen_payload(&self) -> EigenPayload {
        EigenPayload {
            n: self.n(),
            values: self.raw_eigenvalues.as_slice().to_vec(),
            vectors: self.q.as_slice().to_vec(),
        }
    }
}
