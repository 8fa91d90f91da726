//! Paper D's problem — the data, its kernel and the normalized signed Gram matrix G, with the
//! independent checks of a separator and of an ε-certificate — and the choice of algorithm with
//! its parameters: what the algorithms (`algorithms.rs`) and the bounds (`bounds.rs`) are built
//! from, in a file of its own so they import their sibling, not `mod.rs` (issue 34: no parent ⇄
//! child import cycle).

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use crate::error::{KpError, Result};
use crate::kernels::{Kernel, ResolvedKernel};

/// A labelled data set with its kernel and normalized signed Gram matrix G (paper D, §3).
#[derive(Debug, Clone)]
pub struct PerceptronProblem {
    x: DMatrix<f64>,
    y: DVector<f64>,
    kernel: ResolvedKernel,
    /// `√K(x_i, x_i)`.
    sqrt_kdiag: DVector<f64>,
    g: DMatrix<f64>,
}

fn bad(name: &'static str, reason: impl Into<String>) -> KpError {
    KpError::Parameter { name, reason: reason.into() }
}

/// Columns and rows per tile of [`normalize_gram`]: two 64 × 64 tiles (64 KiB) stay in L2.
const NORMALIZE_TILE: usize = 64;

/// `K` → `G` in place (paper D §3, below Eq. (9)): `G_ij = y_i y_j K_ij/(√K_ii √K_jj)`, then
/// `G_ij = G_ji = (G_ij + G_ji)/2` (the kernel's product may differ in the last bit between
/// `K_ij` and `K_ji`) and `G_ii = 1` exactly. Each pair's factor `y_i y_j/(s_i s_j)` is the
/// same bits for `(i, j)` and `(j, i)` (products commute), so it is computed once, and the
/// lower triangle is walked in tiles so the transposed reads stay in cache: the bits of the
/// entry-by-entry loops (tested against them). False if an entry is not finite.
fn normalize_gram(g: &mut DMatrix<f64>, y: &[f64], s: &[f64]) -> bool {
    let n = g.nrows();
    debug_assert!(g.ncols() == n && y.len() == n && s.len() == n);
    let a = g.as_mut_slice();
    let mut finite = true;
    for j0 in (0..n).step_by(NORMALIZE_TILE) {
        let j1 = (j0 + NORMALIZE_TILE).min(n);
        for i0 in (j0..n).step_by(NORMALIZE_TILE) {
            let i1 = (i0 + NORMALIZE_TILE).min(n);
            for j in j0..j1 {
                let (yj, sj) = (y[j], s[j]);
                for i in i0.max(j + 1)..i1 {
                    let f = y[i] * yj / (s[i] * sj);
                    let v = 0.5 * (a[j * n + i] * f + a[i * n + j] * f);
                    finite &= v.is_finite();
                    a[j * n + i] = v;
                    a[i * n + j] = v;
                }
            }
        }
    }
    for i in 0..n {
        a[i * n + i] = 1.0;
    }
    finite
}

impl PerceptronProblem {
    /// Check the data (n ≥ 2 points, finite coordinates, labels ±1 with both classes present),
    /// resolve the kernel on `x` and build G. A point with `K(x_i, x_i) = 0` (for example the
    /// origin with a linear kernel) cannot be normalized and is rejected.
    pub fn new(x: &DMatrix<f64>, y: &[f64], kernel: &Kernel) -> Result<Self> {
        Self::check_data(x, y)?;
        let resolved = kernel.resolve(x)?;
        Self::with_resolved(x, y, resolved)
    }

    /// As [`PerceptronProblem::new`] with an already resolved kernel.
    pub fn with_resolved(x: &DMatrix<f64>, y: &[f64], kernel: ResolvedKernel) -> Result<Self> {
        Self::check_data(x, y)?;
        let k = kernel.gram(x)?;
        Self::with_kernel_matrix(x, y, kernel, k)
    }

    /// As [`PerceptronProblem::with_resolved`] with the kernel matrix `k` of `x` already
    /// computed (e.g. by a [`crate::kernels::CrossJob`] spread over frames).
    pub fn with_kernel_matrix(
        x: &DMatrix<f64>,
        y: &[f64],
        kernel: ResolvedKernel,
        k: DMatrix<f64>,
    ) -> Result<Self> {
        Self::check_data(x, y)?;
        let n = x.nrows();
        if k.nrows() != n || k.ncols() != n {
            return Err(bad(
                "inputs",
                format!("the kernel matrix must be {n} × {n} (got {} × {})", k.nrows(), k.ncols()),
            ));
        }
        let mut sqrt_kdiag = DVector::zeros(n);
        for i in 0..n {
            let kii = k[(i, i)];
            if kii.is_nan() || kii <= 1e-300 {
                return Err(bad(
                    "inputs",
                    format!(
                        "point {} has K(x,x) = {kii}: its feature vector is zero and cannot be normalized \
                         (with a linear or homogeneous polynomial kernel, remove points at the origin)",
                        i + 1
                    ),
                ));
            }
            sqrt_kdiag[i] = kii.sqrt();
        }
        let yv = DVector::from_column_slice(y);
        let mut g = k;
        if !normalize_gram(&mut g, y, sqrt_kdiag.as_slice()) {
            return Err(KpError::NonFinite("the normalized Gram matrix".into()));
        }
        Ok(Self { x: x.clone(), y: yv, kernel, sqrt_kdiag, g })
    }

    pub(crate) fn check_data(x: &DMatrix<f64>, y: &[f64]) -> Result<()> {
        let n = x.nrows();
        if n < 2 {
            return Err(bad("inputs", format!("at least 2 points are needed (got {n})")));
        }
        if x.ncols() == 0 {
            return Err(bad("inputs", "the points have no coordinates"));
        }
        if y.len() != n {
            return Err(bad("labels", format!("{} labels for {} points", y.len(), n)));
        }
        if let Some((i, _)) =
            x.row_iter().enumerate().find(|(_, r)| r.iter().any(|v| !v.is_finite()))
        {
            return Err(KpError::NonFinite(format!(
                "point {} has a NaN or infinite coordinate",
                i + 1
            )));
        }
        if let Some((i, v)) = y.iter().enumerate().find(|(_, v)| **v != 1.0 && **v != -1.0) {
            return Err(bad("labels", format!("labels must be +1 or −1 (label {} is {v})", i + 1)));
        }
        if y.iter().all(|&v| v == y[0]) {
            return Err(bad(
                "labels",
                "all labels are equal (every point has the same label): there is nothing to separate (add a point of the other class)",
            ));
        }
        Ok(())
    }

    /// Number of points n.
    pub fn n(&self) -> usize {
        self.g.nrows()
    }
    /// The normalized signed Gram matrix G.
    pub fn gram(&self) -> &DMatrix<f64> {
        &self.g
    }
    /// The training inputs (rows).
    pub fn x(&self) -> &DMatrix<f64> {
        &self.x
    }
    /// The labels ±1.
    pub fn y(&self) -> &DVector<f64> {
        &self.y
    }
    /// The kernel with its bandwidth resolved.
    pub fn kernel(&self) -> ResolvedKernel {
        self.kernel.clone()
    }

    /// `‖v‖_G = √(vᵀGv)` (clamped at 0 against rounding).
    pub fn norm_g(&self, v: &DVector<f64>) -> f64 {
        (v.dot(&(&self.g * v))).max(0.0).sqrt()
    }

    /// The decision function of Lemma 1, `f(x) = Σ_i α_i y_i K(x_i, x)/√K(x_i,x_i)`, at the rows
    /// of `points` (for the page: the boundary is `f = 0`). Computed from the kernel, not from G.
    pub fn decision_function(&self, alpha: &[f64], points: &DMatrix<f64>) -> Result<DVector<f64>> {
        let k = self.kernel.cross(points, &self.x)?;
        self.decision_function_with(alpha, &k)
    }

    /// [`Self::decision_function`] with the cross kernel `K(points, x)` given (cached by a page
    /// that redraws the same grid after every iteration).
    pub fn decision_function_with(
        &self,
        alpha: &[f64],
        cross: &DMatrix<f64>,
    ) -> Result<DVector<f64>> {
        if alpha.len() != self.n() || cross.ncols() != self.n() {
            return Err(bad(
                "alpha",
                format!(
                    "length {} (cross kernel: {} columns) but there are {} points",
                    alpha.len(),
                    cross.ncols(),
                    self.n()
                ),
            ));
        }
        let c = DVector::from_fn(self.n(), |i, _| alpha[i] * self.y[i] / self.sqrt_kdiag[i]);
        Ok(cross * c)
    }

    /// For the linear kernel, the weighted combination `Σ_i p_i y_i x_i/‖x_i‖` (paper §5, `XYp`
    /// on normalized data), whose Euclidean norm is `‖p‖_G`; `None` for other kernels.
    pub fn linear_combination(&self, p: &[f64]) -> Option<DVector<f64>> {
        if !matches!(self.kernel, ResolvedKernel::Linear(_)) || p.len() != self.n() {
            return None;
        }
        let mut w = DVector::zeros(self.x.ncols());
        for (i, row) in self.x.row_iter().enumerate() {
            w += row.transpose() * (p[i] * self.y[i] / self.sqrt_kdiag[i]);
        }
        Some(w)
    }

    /// Check a separator independently of the algorithm that produced it (Lemma 1): `Gα` is
    /// recomputed from G, and every training point is classified with the decision function
    /// computed from the kernel.
    pub fn verify_separator(&self, alpha: &[f64]) -> Result<SeparatorCheck> {
        if alpha.len() != self.n() || alpha.iter().any(|v| !v.is_finite()) {
            return Err(bad("alpha", "must hold one finite weight per point"));
        }
        let a = DVector::from_column_slice(alpha);
        let ga = &self.g * &a;
        let min_g_alpha = ga.min();
        let norm_g = a.dot(&ga).max(0.0).sqrt();
        let f = self.decision_function(alpha, &self.x)?;
        let correct = (0..self.n()).filter(|&j| self.y[j] * f[j] > 0.0).count();
        Ok(SeparatorCheck {
            min_g_alpha,
            norm_g,
            normalized_margin: if norm_g > 0.0 { Some(min_g_alpha / norm_g) } else { None },
            correct,
            n: self.n(),
            verified: min_g_alpha > 0.0 && correct == self.n(),
        })
    }

    /// Check an ε-certificate of infeasibility (Eq. (14)): p in the simplex (p ≥ 0,
    /// |Σp − 1| ≤ 1e-12) and `‖p‖_G ≤ ε`, with `‖p‖_G` recomputed from G.
    pub fn verify_certificate(&self, p: &[f64], epsilon: f64) -> Result<CertificateCheck> {
        if p.len() != self.n() || p.iter().any(|v| !v.is_finite()) {
            return Err(bad("p", "must hold one finite weight per point"));
        }
        let (min_p, sum_error) = crate::solvers::perceptron::simplex::simplex_residuals(p);
        let norm_g = self.norm_g(&DVector::from_column_slice(p));
        Ok(CertificateCheck {
            min_p,
            sum_error,
            norm_g,
            epsilon,
            verified: min_p >= 0.0 && sum_error.abs() <= 1e-12 && norm_g <= epsilon,
        })
    }
}

/// The independent check of a separator α (Lemma 1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SeparatorCheck {
    /// `min_i (Gα)_i`, recomputed; > 0 for a separator.
    pub min_g_alpha: f64,
    /// `‖α‖_G`.
    pub norm_g: f64,
    /// `min_i (Gα)_i / ‖α‖_G`: the normalized margin of α, a lower bound on ρ_K (Lemma 3).
    pub normalized_margin: Option<f64>,
    /// Training points with `y_j f(x_j) > 0`, f from the kernel.
    pub correct: usize,
    /// Number of training points.
    pub n: usize,
    /// `min_i (Gα)_i > 0` and every point on its side.
    pub verified: bool,
}

/// The independent check of an ε-certificate p (Theorem 2, Eq. (14)).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CertificateCheck {
    /// `min_i p_i` (≥ 0 in the simplex).
    pub min_p: f64,
    /// `Σ p_i − 1`.
    pub sum_error: f64,
    /// `‖p‖_G`, recomputed.
    pub norm_g: f64,
    /// The tolerance ε it was checked against.
    pub epsilon: f64,
    /// p ∈ Δ_n (to 1e-12) and `‖p‖_G ≤ ε`.
    pub verified: bool,
}

/// Which of paper D's algorithms to run, with its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum PerceptronAlgorithm {
    /// Classic kernel Perceptron (Algorithm 1) on the normalized features: α_j += 1 on a mistake.
    Perceptron,
    /// Normalized Kernel Perceptron (Algorithm 3; with a linear kernel, Algorithm 2 on normalized data).
    Nkp,
    /// Smoothed Normalized Kernel Perceptron (Algorithm 4).
    Snkp,
    /// Normalized von Neumann (Algorithm 5, kernelized), stopping at `‖p‖_G ≤ ε`.
    Nvn {
        /// Certificate accuracy ε > 0.
        epsilon: f64,
    },
    /// SNKPVN(q = 1/n, δ) (Algorithm 6).
    Snkpvn {
        /// Certificate accuracy δ > 0 (a separator is guaranteed when δ ≤ ρ_K).
        delta: f64,
    },
    /// ISNKPVN(γ, ε) (Algorithm 7).
    Isnkpvn {
        /// Shrink factor γ > 1 of the inner accuracy, `δ_t = ‖q_t‖_G/γ`.
        gamma: f64,
        /// Certificate accuracy ε > 0.
        epsilon: f64,
    },
}

impl PerceptronAlgorithm {
    /// Check the parameters: ε > 0, δ > 0, γ > 1 (all finite).
    pub fn validate(&self) -> Result<()> {
        let pos = |name: &'static str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(bad(name, format!("must be a finite number > 0 (got {v})")))
            }
        };
        match *self {
            PerceptronAlgorithm::Nvn { epsilon } => pos("epsilon", epsilon),
            PerceptronAlgorithm::Snkpvn { delta } => pos("delta", delta),
            PerceptronAlgorithm::Isnkpvn { gamma, epsilon } => {
                pos("epsilon", epsilon)?;
                if !(gamma.is_finite() && gamma > 1.0) {
                    return Err(bad("gamma", format!("must be a finite number > 1 (got {gamma})")));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Short name for tables and legends.
    pub fn name(&self) -> &'static str {
        match self {
            PerceptronAlgorithm::Perceptron => "Perceptron",
            PerceptronAlgorithm::Nkp => "NKP",
            PerceptronAlgorithm::Snkp => "SNKP",
            PerceptronAlgorithm::Nvn { .. } => "NVN",
            PerceptronAlgorithm::Snkpvn { .. } => "SNKPVN",
            PerceptronAlgorithm::Isnkpvn { .. } => "ISNKPVN",
        }
    }

    /// The certificate tolerance (ε or δ) of the dual algorithms.
    pub fn certificate_tolerance(&self) -> Option<f64> {
        match *self {
            PerceptronAlgorithm::Nvn { epsilon } | PerceptronAlgorithm::Isnkpvn { epsilon, .. } => {
                Some(epsilon)
            }
            PerceptronAlgorithm::Snkpvn { delta } => Some(delta),
            _ => None,
        }
    }
}

// Native only: proptest is a native dev-dependency (the wasm tests run in Chromium).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The entry-by-entry normalization [`normalize_gram`] replaced (before issue 21's page D
    /// work): every product, then the symmetrization, then the unit diagonal.
    fn reference(k: &DMatrix<f64>, y: &[f64], s: &[f64]) -> DMatrix<f64> {
        let n = k.nrows();
        let mut g = k.clone();
        for j in 0..n {
            for i in 0..n {
                g[(i, j)] *= y[i] * y[j] / (s[i] * s[j]);
            }
        }
        for i in 0..n {
            g[(i, i)] = 1.0;
            for j in 0..i {
                let v = 0.5 * (g[(i, j)] + g[(j, i)]);
                g[(i, j)] = v;
                g[(j, i)] = v;
            }
        }
        g
    }

    proptest! {
        /// Same bits as the reference at sizes around the tile (1 … 2 tiles and a remainder),
        /// on a non-symmetric K (a kernel's product may differ in the last bit across the
        /// diagonal) with positive diagonals spread over decades.
        #[test]
        fn tiled_normalization_is_the_entry_by_entry_one(
            n in prop_oneof![1usize..4, 60usize..70, 125usize..135],
            seed in any::<u64>(),
        ) {
            let mut state = seed | 1;
            let mut next = move || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 11) as f64 / (1u64 << 53) as f64
            };
            let k = DMatrix::from_fn(n, n, |_, _| 4.0 * next() - 2.0);
            let y: Vec<f64> = (0..n).map(|_| if next() < 0.5 { -1.0 } else { 1.0 }).collect();
            let s: Vec<f64> = (0..n).map(|_| 10f64.powf(6.0 * next() - 3.0)).collect();
            let want = reference(&k, &y, &s);
            let mut got = k.clone();
            prop_assert!(normalize_gram(&mut got, &y, &s));
            for (a, b) in got.iter().zip(want.iter()) {
                prop_assert_eq!(a.to_bits(), b.to_bits());
            }
        }
    }

    /// A non-finite entry is reported, as the reference's check did.
    #[test]
    fn a_non_finite_entry_is_refused() {
        let mut k = DMatrix::from_element(3, 3, 0.5);
        k[(2, 0)] = f64::INFINITY;
        assert!(!normalize_gram(&mut k, &[1.0, -1.0, 1.0], &[1.0, 1.0, 1.0]));
        let mut ok = DMatrix::from_element(3, 3, 0.5);
        assert!(normalize_gram(&mut ok, &[1.0, -1.0, 1.0], &[1.0, 1.0, 1.0]));
    }
}
