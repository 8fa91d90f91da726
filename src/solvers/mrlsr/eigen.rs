//! Theorem 1's one O(n³) step: the symmetric eigendecomposition of K, and the payload a page's
//! worker computes and hands back, checked against K before it is adopted.

use super::*;

/// Symmetric eigendecomposition `K = QΛQᵀ` (Theorem 1, step 1): the eigenvalues (ascending)
/// and the orthonormal eigenvectors as the columns of Q. Computed by `faer`'s self-adjoint
/// eigensolver (blocked tridiagonalization + divide and conquer, pure Rust, also in wasm32;
/// issue 12: 5–20× faster than nalgebra's implicit QR at n = 1000–2000); nalgebra stays the
/// matrix type, the conversion is two O(n²) copies.
pub fn symmetric_eigen(gram: &DMatrix<f64>) -> Result<(DVector<f64>, DMatrix<f64>)> {
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
    // `!(x <= tol)` on purpose: a NaN residual must fail the check.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    pub fn check_against(&self, gram: &DMatrix<f64>) -> Result<()> {
        let bad = |reason: String| Err(KpError::Parameter { name: "eigendecomposition", reason });
        let n = gram.nrows();
        if gram.ncols() != n {
            return bad(format!("K is {n} × {}, not square", gram.ncols()));
        }
        if self.n != n {
            return bad(format!("it is for n = {} samples but the data have {n}", self.n));
        }
        if self.values.len() != n {
            return bad(format!("{} eigenvalues for n = {n}", self.values.len()));
        }
        if Some(self.vectors.len()) != n.checked_mul(n) {
            return bad(format!(
                "{} eigenvector entries for n = {n} (need n² = {})",
                self.vectors.len(),
                n.saturating_mul(n)
            ));
        }
        if let Some(i) = self.values.iter().position(|v| !v.is_finite()) {
            return bad(format!("eigenvalue {i} is {}", self.values[i]));
        }
        if let Some(i) = self.vectors.iter().position(|v| !v.is_finite()) {
            return bad(format!("eigenvector entry {i} is {}", self.vectors[i]));
        }
        let q = DMatrix::from_column_slice(n, n, &self.vectors);
        let lam = DVector::from_column_slice(&self.values);
        let k_norm = gram.norm();
        if !(k_norm.is_finite() && k_norm > 0.0) {
            return Err(KpError::Parameter {
                name: "kernel",
                reason: "the Gram matrix K is zero or not finite: every f in the span is 0".into(),
            });
        }
        let mut rng = crate::rng::Rng::new(0x5eed_e16e);
        for _ in 0..EIGEN_PROBES {
            let v = DVector::from_fn(n, |_, _| rng.normal());
            let v_norm = v.norm();
            let w = q.tr_mul(&v);
            let orth = (&q * &w - &v).norm() / v_norm;
            if !(orth <= EIGEN_CHECK_TOL) {
                return bad(format!("the eigenvectors are not orthonormal (‖QQᵀv − v‖/‖v‖ = {orth:.2e} > {EIGEN_CHECK_TOL:.0e}); it was computed for other data or was corrupted"));
            }
            let recon = (gram * &v - &q * w.component_mul(&lam)).norm() / (k_norm * v_norm);
            if !(recon <= EIGEN_CHECK_TOL) {
                return bad(format!("it does not reproduce this Gram matrix (‖Kv − QΛQᵀv‖/(‖K‖‖v‖) = {recon:.2e} > {EIGEN_CHECK_TOL:.0e}); it was computed for other data or kernel, or was corrupted"));
            }
        }
        Ok(())
    }
}
