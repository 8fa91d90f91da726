//! Paper B's model ([`MrlsrModel`]: the data, the kernel, the Gram matrix and its cached
//! eigendecomposition, Theorem 1's quantities) and its fits, with the input checks. A child of its
//! own: the eigendecomposition (`eigen.rs`, with the constructors that compute or adopt it), the
//! root solve (`root.rs`, with the fits that run it) and the scan of F import it, and `mod.rs`
//! only lists and re-exports (issue 34: no parent ⇄ child import cycle).

use crate::fmath;
use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use crate::error::{KpError, Result};
use crate::kernels::ResolvedKernel;

/// Largest n for which [`MrlsrModel`] runs the O(n³) eigendecomposition (about 1 GFLOP·27 and
/// 72 MB for the Gram matrix and Q at n = 3000).
pub const MAX_EIGEN_N: usize = 3000;

/// Iteration cap of the scalar root-solve (it needs fewer than 10 in practice).
pub const ROOT_MAX_ITER: usize = 200;

/// Bound on |ln C| in the root-solve (e^700 is close to the largest double).
pub(super) const T_LIMIT: f64 = 700.0;

/// What [`MrlsrModel`] found when K is numerically singular (it proceeds; see the module doc).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Singularity {
    /// The threshold `n·ε·max d` under which an eigenvalue counts as 0.
    pub threshold: f64,
    /// Number of eigenvalues at or below the threshold.
    pub zero_eigenvalues: usize,
    /// Number of input rows equal to an earlier row.
    pub duplicate_rows: usize,
    /// A sentence for the user.
    pub message: String,
}

/// Gram matrix, its eigendecomposition `K = QDQᵀ` and `y' = Qᵀy` (Theorem 1), computed once
/// per (data, kernel) and shared by every fit.
#[derive(Debug, Clone)]
pub struct MrlsrModel {
    pub(super) x: DMatrix<f64>,
    pub(super) y: DVector<f64>,
    pub(super) kernel: ResolvedKernel,
    pub(super) gram: DMatrix<f64>,
    pub(super) q: DMatrix<f64>,
    /// Eigenvalues, those under the threshold set to exactly 0.
    pub(super) d: DVector<f64>,
    /// Eigenvalues as computed.
    pub(super) raw_eigenvalues: DVector<f64>,
    pub(super) yp: DVector<f64>,
    /// Indices of the eigenvalues kept (d_i > threshold).
    pub(super) active: Vec<usize>,
    pub(super) d_max: f64,
    pub(super) d_min_active: f64,
    /// `Σ_i 4 d_i y'_i²` (the m = 1 existence constant).
    pub(super) s4: f64,
    pub(super) y_norm2: f64,
    pub(super) singular: Option<Singularity>,
}

/// One M-RLSR (or KRR) solution and its diagnostics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MrlsrFit {
    /// Exponent m of the regularizer (2 for KRR).
    pub m: f64,
    /// Regularization parameter λ.
    pub lambda: f64,
    /// Coefficients α (`f = Σ α_i k(·, x_i)`), Theorem 1 eq. (5).
    #[serde(serialize_with = "ser_dvec")]
    pub alpha: DVector<f64>,
    /// The root C₀ of F (eq. 6); 1 for KRR.
    pub c0: f64,
    /// `F(C₀)`, the root residual.
    pub f_residual: f64,
    /// `‖f‖_H = √(αᵀKα)`.
    pub norm_h: f64,
    /// Iterations of the root-solve (0 for the closed forms).
    pub iterations: usize,
    /// The KRR parameter of the weak equivalence, `λ₂ = (m/2)·C₀·λ` (Proposition 5.1).
    pub lambda2: f64,
    /// Fitted values on the training inputs, `Kα`.
    #[serde(serialize_with = "ser_dvec")]
    pub fitted: DVector<f64>,
    /// Objective value `(1/n)‖y − Kα‖² + λ‖f‖_H^m` (eq. 4).
    pub objective: f64,
}

/// The second-order nature of a stationary point (m ≤ 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StationaryKind {
    /// Hessian positive definite: a strict local minimum.
    LocalMinimum,
    /// Hessian with a negative direction: a saddle point.
    Saddle,
}

/// A stationary point of eq. (4) with f ≠ 0, i.e. a positive root of F.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StationaryPoint {
    /// α, C, ‖f‖ and objective at this root of F (eq. 5 with C in place of C₀).
    pub fit: MrlsrFit,
    /// Local minimum or saddle, from the exact second-order test.
    pub kind: StationaryKind,
    /// `1 − ρ·Σ β̂_i²/δ_i` with the Hessian `diag(δ) − ρβ̂β̂ᵀ` in the coordinates of f
    /// (`δ_i = 2d_i/n + λmC₀`, `ρ = λmC₀(2 − m)`): positive iff the Hessian is positive definite.
    pub hessian_margin: f64,
}

/// Report for m ≤ 1, outside Theorem 1.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutsideTheorem {
    /// The exponent m ≤ 1.
    pub m: f64,
    /// Regularization parameter λ.
    pub lambda: f64,
    /// The positive roots of F, by increasing C (decreasing ‖f‖).
    pub stationary: Vec<StationaryPoint>,
    /// Objective at f = 0: `‖y‖²/n`.
    pub zero_objective: f64,
    /// Index in `stationary` of the lowest objective, or `None` when f = 0 is lowest.
    pub minimizer: Option<usize>,
    /// What this means, for the user.
    pub message: String,
}

/// The result of [`MrlsrModel::fit`]: Theorem 1's unique solution, or a distinct report when
/// m ≤ 1 (never a silent number).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MrlsrOutcome {
    /// m > 1: the unique minimizer (Theorem 1).
    Theorem1(MrlsrFit),
    /// m ≤ 1: stationary points and the value at f = 0.
    OutsideTheorem(OutsideTheorem),
}

impl MrlsrOutcome {
    /// The fit of the best point found (`None` when f = 0 is best, m ≤ 1 only).
    pub fn best_fit(&self) -> Option<&MrlsrFit> {
        match self {
            MrlsrOutcome::Theorem1(f) => Some(f),
            MrlsrOutcome::OutsideTheorem(o) => {
                o.minimizer.and_then(|i| o.stationary.get(i)).map(|s| &s.fit)
            }
        }
    }

    /// Coefficients α of the best point found (zeros when f = 0 is best).
    pub fn best_alpha(&self, n: usize) -> DVector<f64> {
        self.best_fit().map(|f| f.alpha.clone()).unwrap_or_else(|| DVector::zeros(n))
    }
}

/// λ > 0 finite (eq. 4), else a message naming the solver's `name` for it (λ, λ₂).
pub(crate) fn check_lambda(lambda: f64, name: &'static str) -> Result<()> {
    positive_finite(lambda, name, "")
}

/// The spec's `m` and `lambda` (eq. 4) as the spec, the page's sweep and a refit all check
/// them: [`check_m`], then λ > 0 finite, each refusal naming the field (`lambda: λ must be …`,
/// with the symbol its control shows).
pub(crate) fn check_m_lambda(m: f64, lambda: f64) -> Result<()> {
    check_m(m)?;
    positive_finite(lambda, "lambda", "λ ")
}

fn positive_finite(x: f64, name: &'static str, symbol: &str) -> Result<()> {
    if !(x.is_finite() && x > 0.0) {
        return Err(KpError::Parameter {
            name,
            reason: format!("{symbol}must be a positive finite number (got {x})"),
        });
    }
    Ok(())
}

/// m > 0 finite and ≤ 100 (above, ‖f‖^m overflows), else a message naming `m`.
pub(crate) fn check_m(m: f64) -> Result<()> {
    if !(m.is_finite() && m > 0.0) {
        return Err(KpError::Parameter {
            name: "m",
            reason: format!("the exponent must be a positive finite number (got {m})"),
        });
    }
    if m > 100.0 {
        return Err(KpError::Parameter {
            name: "m",
            reason: format!("exponents above 100 overflow ‖f‖^m (got {m})"),
        });
    }
    Ok(())
}

/// Number of rows equal to an earlier row (sort, then compare neighbours).
pub(super) fn duplicate_rows(x: &DMatrix<f64>) -> usize {
    let n = x.nrows();
    let mut idx: Vec<usize> = (0..n).collect();
    let cmp = |a: &usize, b: &usize| {
        for j in 0..x.ncols() {
            let o = x[(*a, j)].total_cmp(&x[(*b, j)]);
            if o != std::cmp::Ordering::Equal {
                return o;
            }
        }
        std::cmp::Ordering::Equal
    };
    idx.sort_by(cmp);
    idx.windows(2).filter(|w| cmp(&w[0], &w[1]) == std::cmp::Ordering::Equal).count()
}

/// K must be n × n for the n rows of `x`, else a message naming `K`.
pub(super) fn check_gram_size(x: &DMatrix<f64>, gram: &DMatrix<f64>) -> Result<()> {
    if gram.nrows() != x.nrows() || gram.ncols() != x.nrows() {
        return Err(KpError::Parameter {
            name: "K",
            reason: format!(
                "the Gram matrix must be n × n with n = {} (got {} × {})",
                x.nrows(),
                gram.nrows(),
                gram.ncols()
            ),
        });
    }
    Ok(())
}

/// Checks shared by every constructor: sizes, the eigendecomposition budget, finiteness, y ≠ 0.
pub(super) fn check_inputs(x: &DMatrix<f64>, y: &DVector<f64>) -> Result<()> {
    let n = x.nrows();
    if n < 1 || x.ncols() < 1 {
        return Err(KpError::Parameter {
            name: "data",
            reason: format!("need at least one sample and one feature (got {n} × {})", x.ncols()),
        });
    }
    if y.len() != n {
        return Err(KpError::Parameter {
            name: "y",
            reason: format!("{} targets for {n} inputs", y.len()),
        });
    }
    if n > MAX_EIGEN_N {
        return Err(KpError::Parameter {
            name: "n",
            reason: format!(
                "n = {n} is above the eigendecomposition budget of {MAX_EIGEN_N} samples (the O(n³) decomposition would need about {:.0} GFLOP and {:.0} MB); subsample the data",
                9.0 * (n as f64).powi(3) / 1e9,
                16.0 * (n as f64).powi(2) / 1e6
            ),
        });
    }
    if x.iter().any(|v| !v.is_finite()) {
        return Err(KpError::NonFinite("an input value is NaN or infinite".into()));
    }
    if y.iter().any(|v| !v.is_finite()) {
        return Err(KpError::NonFinite("a target value is NaN or infinite".into()));
    }
    if y.iter().all(|&v| v == 0.0) {
        return Err(KpError::Parameter {
            name: "y",
            reason: "every target is 0: the solution is f = 0 and C₀ = ‖f‖^(m−2) is undefined"
                .into(),
        });
    }
    Ok(())
}

impl MrlsrModel {
    /// Theorem 1, step 3 and the bookkeeping: threshold the spectrum, `y' = Qᵀy`, singularity.
    pub(super) fn assemble(
        x: &DMatrix<f64>,
        y: &DVector<f64>,
        kernel: ResolvedKernel,
        gram: DMatrix<f64>,
        raw: DVector<f64>,
        q: DMatrix<f64>,
    ) -> Result<Self> {
        let yp = q.tr_mul(y);
        Self::assemble_with(x, y, kernel, gram, raw, q, yp)
    }

    /// [`Self::assemble`] with `y' = Qᵀy` already computed (by [`EigenAdoption`], in its own
    /// slice).
    pub(super) fn assemble_with(
        x: &DMatrix<f64>,
        y: &DVector<f64>,
        kernel: ResolvedKernel,
        gram: DMatrix<f64>,
        raw: DVector<f64>,
        q: DMatrix<f64>,
        yp: DVector<f64>,
    ) -> Result<Self> {
        let n = x.nrows();
        let d_max = raw.iter().fold(0.0_f64, |a, &b| a.max(b));
        if d_max <= 0.0 {
            return Err(KpError::Parameter {
                name: "kernel",
                reason: "the Gram matrix K is zero: every f in the span is 0".into(),
            });
        }
        let threshold = n as f64 * f64::EPSILON * d_max;
        let d = raw.map(|v| if v > threshold { v } else { 0.0 });
        let active: Vec<usize> = (0..n).filter(|&i| d[i] > 0.0).collect();
        let zero = n - active.len();
        let y_norm2 = y.norm_squared();
        let signal: f64 = active.iter().map(|&i| yp[i] * yp[i]).sum();
        if signal <= 1e-24 * y_norm2 {
            return Err(KpError::Parameter {
                name: "y",
                reason: "y has no component in the range of K (yᵀKy ≈ 0): the solution is f = 0 and C₀ = ‖f‖^(m−2) is undefined".into(),
            });
        }
        let singular = if zero > 0 {
            let dups = duplicate_rows(x);
            let cause = if dups > 0 {
                format!("{dups} input rows duplicate earlier ones")
            } else {
                "no duplicate rows: constant-like inputs or a fast-decaying kernel spectrum"
                    .to_string()
            };
            Some(Singularity {
                threshold,
                zero_eigenvalues: zero,
                duplicate_rows: dups,
                message: format!(
                    "K is numerically singular: {zero} of {n} eigenvalues are ≤ n·ε·max = {threshold:.3e} ({cause}). \
                     The objective depends on α only through f = Σ αᵢk(·, xᵢ), so α is taken with no component \
                     along those eigenvectors (the minimum-norm α); for m > 1 Theorem 1 still gives the unique f."
                ),
            })
        } else {
            None
        };
        let d_min_active = active.iter().map(|&i| d[i]).fold(f64::INFINITY, f64::min);
        let s4 = active.iter().map(|&i| 4.0 * d[i] * yp[i] * yp[i]).sum();
        Ok(Self {
            x: x.clone(),
            y: y.clone(),
            kernel,
            gram,
            q,
            d,
            raw_eigenvalues: raw,
            yp,
            active,
            d_max,
            d_min_active,
            s4,
            y_norm2,
            singular,
        })
    }

    /// Number of training samples.
    pub fn n(&self) -> usize {
        self.y.len()
    }
    /// Training targets.
    pub fn y(&self) -> &DVector<f64> {
        &self.y
    }
    /// Training inputs.
    pub fn x(&self) -> &DMatrix<f64> {
        &self.x
    }
    /// The resolved kernel.
    pub fn kernel(&self) -> ResolvedKernel {
        self.kernel.clone()
    }
    /// The Gram matrix K.
    pub fn gram(&self) -> &DMatrix<f64> {
        &self.gram
    }
    /// Eigenvalues d_i of K as used (those ≤ threshold set to 0), in nalgebra's order.
    pub fn eigenvalues(&self) -> &DVector<f64> {
        &self.d
    }
    /// Eigenvalues as computed by the decomposition (may hold tiny negatives).
    pub fn raw_eigenvalues(&self) -> &DVector<f64> {
        &self.raw_eigenvalues
    }
    /// `y' = Qᵀy`.
    pub fn y_prime(&self) -> &DVector<f64> {
        &self.yp
    }
    /// Present when K is numerically singular (the model proceeds; see the module doc).
    pub fn singularity(&self) -> Option<&Singularity> {
        self.singular.as_ref()
    }

    /// `ln g(C)` and the weighted mean `r̄` of `s/(2d_i + s)`, `s = λmnC`, computed with a scale
    /// factor so that neither tiny nor huge C overflows.
    pub(super) fn log_g(&self, m: f64, lambda: f64, c: f64) -> (f64, f64) {
        let s = lambda * m * self.n() as f64 * c;
        let sc = s.max(2.0 * self.d_max);
        let (mut sum, mut rsum) = (0.0, 0.0);
        for &i in &self.active {
            let di = self.d[i];
            let den = (2.0 * di + s) / sc;
            let w = 4.0 * di * self.yp[i] * self.yp[i] / (den * den);
            sum += w;
            rsum += w * (s / (2.0 * di + s));
        }
        if sum <= 0.0 {
            return (f64::NEG_INFINITY, 0.0);
        }
        (fmath::ln(sum) - 2.0 * fmath::ln(sc), rsum / sum)
    }

    /// `φ(t) = (m/2 − 1)·ln g(eᵗ) − t` and `φ'(t) = −1 − (m − 2)·r̄` (module doc).
    pub(super) fn phi(&self, m: f64, lambda: f64, t: f64) -> (f64, f64) {
        let e = 0.5 * m - 1.0;
        let (lg, rbar) = self.log_g(m, lambda, fmath::exp(t));
        let phi = if e == 0.0 { -t } else { e * lg - t };
        (phi, -1.0 - (m - 2.0) * rbar)
    }

    /// `F(C) = (Σ 4d_i y'_i²/(2d_i + λmnC)²)^(m/2 − 1) − C` (eq. 6).
    pub fn f_of_c(&self, m: f64, lambda: f64, c: f64) -> f64 {
        let (lg, _) = self.log_g(m, lambda, c);
        fmath::exp((0.5 * m - 1.0) * lg) - c
    }

    /// The fit for a given C (eq. 5): α' on the kept eigenvectors, α = Qα', diagnostics.
    pub(super) fn fit_at_c(&self, m: f64, lambda: f64, c: f64, iterations: usize) -> MrlsrFit {
        let n = self.n();
        let nf = n as f64;
        let s = lambda * m * nf * c;
        let mut ap = DVector::zeros(n);
        let mut dap = DVector::zeros(n);
        let mut norm2 = 0.0;
        let mut resid2 = 0.0;
        for i in 0..n {
            let di = self.d[i];
            if di > 0.0 {
                ap[i] = 2.0 * self.yp[i] / (2.0 * di + s);
                dap[i] = di * ap[i];
                norm2 += di * ap[i] * ap[i];
                // y'_i − d_i α'_i = y'_i·s/(2d_i + s), without cancellation.
                let r = self.yp[i] * s / (2.0 * di + s);
                resid2 += r * r;
            } else {
                resid2 += self.yp[i] * self.yp[i];
            }
        }
        let alpha = &self.q * &ap;
        let fitted = &self.q * &dap;
        let norm_h = norm2.sqrt();
        let objective = resid2 / nf + lambda * fmath::pow(norm_h, m);
        MrlsrFit {
            m,
            lambda,
            alpha,
            c0: c,
            f_residual: self.f_of_c(m, lambda, c),
            norm_h,
            iterations,
            lambda2: 0.5 * m * c * lambda,
            fitted,
            objective,
        }
    }

    /// Kernel ridge regression `min (1/n)Σ(y_i − f(x_i))² + λ₂‖f‖²_H` in closed form through the
    /// cached eigendecomposition: `α = (K + nλ₂I)⁻¹y = Q (y'/(d + nλ₂))` (m = 2 of Theorem 1).
    pub fn krr(&self, lambda2: f64) -> Result<MrlsrFit> {
        check_lambda(lambda2, "λ₂")?;
        let fit = self.fit_at_c(2.0, lambda2, 1.0, 0);
        finite_fit(fit)
    }

    /// `1 − ρ Σ β̂_i²/δ_i` (see [`StationaryPoint::hessian_margin`]).
    pub(super) fn hessian_margin(&self, fit: &MrlsrFit) -> f64 {
        let nf = self.n() as f64;
        let lmc = fit.lambda * fit.m * fit.c0;
        let rho = lmc * (2.0 - fit.m);
        let s = fit.lambda * fit.m * nf * fit.c0;
        let norm2 = fit.norm_h * fit.norm_h;
        if norm2 <= 0.0 {
            return f64::NAN;
        }
        let mut acc = 0.0;
        for &i in &self.active {
            let di = self.d[i];
            let beta = di.sqrt() * 2.0 * self.yp[i] / (2.0 * di + s);
            acc += beta * beta / norm2 / (2.0 * di / nf + lmc);
        }
        1.0 - rho * acc
    }

    /// Predictions `f(x) = Σ α_i k(x, x_i)` on new inputs (rows of `x_new`): cross kernel × α.
    pub fn predict(&self, alpha: &DVector<f64>, x_new: &DMatrix<f64>) -> Result<DVector<f64>> {
        if alpha.len() != self.n() {
            return Err(KpError::Parameter {
                name: "α",
                reason: format!("{} coefficients for {} training samples", alpha.len(), self.n()),
            });
        }
        if x_new.ncols() != self.x.ncols() {
            return Err(KpError::Parameter {
                name: "inputs",
                reason: format!(
                    "{} features, the model was trained on {}",
                    x_new.ncols(),
                    self.x.ncols()
                ),
            });
        }
        if x_new.iter().any(|v| !v.is_finite()) {
            return Err(KpError::NonFinite("an input value is NaN or infinite".into()));
        }
        Ok(self.kernel.cross(x_new, &self.x)? * alpha)
    }

    /// `‖f_a − f_b‖_H = √((a − b)ᵀK(a − b))` for two coefficient vectors on this model.
    pub fn rkhs_distance(&self, a: &DVector<f64>, b: &DVector<f64>) -> Result<f64> {
        if a.len() != self.n() || b.len() != self.n() {
            return Err(KpError::Parameter {
                name: "α",
                reason: "coefficient vectors must have length n".into(),
            });
        }
        let diff = a - b;
        Ok((&self.gram * &diff).dot(&diff).max(0.0).sqrt())
    }
}

pub(super) fn finite_fit(fit: MrlsrFit) -> Result<MrlsrFit> {
    if !(fit.objective.is_finite()
        && fit.norm_h.is_finite()
        && fit.alpha.iter().all(|v| v.is_finite()))
    {
        return Err(KpError::NonFinite(format!(
            "the M-RLSR fit at m = {}, λ = {:e} overflowed",
            fit.m, fit.lambda
        )));
    }
    Ok(fit)
}

/// Serialize a vector as a plain sequence of numbers (nalgebra is built without serde).
pub(super) fn ser_dvec<S: serde::Serializer>(
    v: &DVector<f64>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.collect_seq(v.iter())
}
