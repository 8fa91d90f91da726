//! M-RLSR, m-power regularized least squares (paper B, Audiffren–Kadri), and KRR (m = 2).
//!
//! Problem (paper B, eq. 4 / 8): `min_f (1/n) Σ (y_i − f(x_i))² + λ‖f‖_H^m`, with
//! `f = Σ α_i k(·, x_i)`, i.e. `J(α) = ‖y − Kα‖²/n + λ(αᵀKα)^(m/2)`.
//!
//! **Theorem 1** (m > 1): with `K = QDQᵀ` and `y' = Qᵀy`, the minimizer is `α = Qα'`,
//! `α'_i = 2y'_i / (2d_i + λmnC₀)` (eq. 5 / 9), where C₀ is the unique positive root of
//! `F(C) = (Σ_i 4d_i y'_i² / (2d_i + λmnC)²)^(m/2 − 1) − C` (eq. 6 / 10). Note
//! `Σ_i 4d_i y'_i²/(2d_i + λmnC)² = ‖f_C‖²_H` for the function `f_C` built from α'(C), so the root
//! states `C₀ = ‖f‖_H^(m−2)`.
//!
//! [`MrlsrModel`] computes the Gram matrix and its symmetric eigendecomposition once per
//! (data, kernel); every later fit — a new m or λ — is a scalar root-solve in O(n) per iteration
//! plus one product `Qα'` in O(n²). This is what makes the m slider live.
//!
//! **Root-solve.** We solve `φ(t) = (m/2 − 1)·ln g(eᵗ) − t = 0` with `C = eᵗ` and
//! `g(C) = Σ 4d_i y'_i²/(2d_i + λmnC)²`; φ has the sign of F for C > 0, and
//! `φ'(t) = −1 − (m − 2)·r̄(t)` where `r̄ ∈ [0, 1)` is a weighted mean of `s/(2d_i + s)`,
//! `s = λmnC`. Hence for m > 1, `φ' ≤ −min(1, m − 1) < 0`: φ is strictly decreasing, which gives
//! a guaranteed bracket around any start, and Newton in t (safeguarded by bisection inside the
//! bracket) converges in a handful of steps whatever the scale of C.
//!
//! **m ≤ 1** is outside Theorem 1 (the objective is not strictly convex; for m < 1 not convex).
//! At m = 1, `φ` is still decreasing, towards `ln(λn / √(Σ 4d_i y'_i²))`: a root exists iff
//! `Σ 4d_i y'_i² > (λn)²`, and otherwise `f = 0` is the minimizer (it is exactly the subgradient
//! condition at 0). For m < 1, φ → +∞ at both ends: F has zero or two positive roots (the digest's
//! **Check** note); [`MrlsrModel::fit`] returns every stationary point with its objective value
//! and an exact second-order test (the Hessian in the coordinates of f is diagonal minus rank one),
//! plus the value at `f = 0`, which is always a local minimum when m < 1.
//!
//! **Singular K** (duplicate or constant inputs, or a fast-decaying spectrum): eigenvalues
//! `≤ n·ε·max d` are treated as exactly 0. We *proceed with a warning* rather than refuse, because
//! the objective depends on α only through f, and on the eigenvectors with `d_i = 0` f does not
//! move: Theorem 1's derivation (stationarity in the coordinates `β_i = √d_i α'_i` of f) is
//! unchanged on the others, so the minimizer f is still unique and given by eq. (5). Along the
//! null eigenvectors we set `α'_i = 0` (the minimum-norm coefficient vector of the same f);
//! eq. (5) would put `2y'_i/(λmnC₀)` there, which adds a function of RKHS norm
//! `≤ √(threshold)·|α'_i|` — pure rounding noise that can be amplified at small λ.

mod eigen;
mod model;
mod root;
mod scan;
pub use eigen::{
    symmetric_eigen, whole_matrix_calls, EigenAdoption, EigenCheck, EigenPayload, EIGEN_CHECK_TOL,
};
pub(crate) use model::check_m_lambda;
pub use model::{
    MrlsrFit, MrlsrModel, MrlsrOutcome, OutsideTheorem, Singularity, StationaryKind,
    StationaryPoint, MAX_EIGEN_N, ROOT_MAX_ITER,
};
pub use root::{root_run, MrlsrSolve, RootSearch, RootSolve, RootStart};
pub use scan::FSamples;
