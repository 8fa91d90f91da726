//! What paper B's cross-validations share: log and step grids, seeded splits into parts, a
//! train/test split, k-fold folds, row subsets, the scaled RMSE (Appendix E) and the CV grid
//! result. A child of its own so that `cv.rs` (the model selection) and `cv/equivalence.rs`
//! (Fig. 1) import a sibling, not their parent (no parent ⇄ child import cycle).

use crate::fmath;
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::error::{KpError, Result};
use crate::rng::Rng;

/// `count` values log-spaced on `[lo, hi]` (both > 0), e.g. the paper's 7 values 1e-5..1e2.
pub fn log_grid(lo: f64, hi: f64, count: usize) -> Result<Vec<f64>> {
    if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && hi >= lo) {
        return Err(KpError::Parameter {
            name: "grid",
            reason: format!("a log grid needs 0 < lo ≤ hi, finite (got {lo}, {hi})"),
        });
    }
    if !(1..=10_000).contains(&count) {
        return Err(KpError::Parameter {
            name: "grid",
            reason: format!("the number of grid values must lie in 1..=10000 (got {count})"),
        });
    }
    if count == 1 {
        return Ok(vec![lo]);
    }
    let (a, b) = (fmath::log10(lo), fmath::log10(hi));
    Ok((0..count).map(|k| fmath::pow(10f64, a + (b - a) * k as f64 / (count - 1) as f64)).collect())
}

/// `lo, lo + step, …` up to `hi` (inclusive up to rounding), e.g. the paper's m grid 0.1..2.9
/// by 0.1. Values are computed as `lo + k·step` and rounded to 12 decimals.
pub fn step_grid(lo: f64, hi: f64, step: f64) -> Result<Vec<f64>> {
    if !(lo.is_finite() && hi.is_finite() && step.is_finite() && step > 0.0 && hi >= lo) {
        return Err(KpError::Parameter {
            name: "grid",
            reason: format!("need lo ≤ hi and step > 0, finite (got {lo}, {hi}, {step})"),
        });
    }
    let count = ((hi - lo) / step + 1e-9).floor() as usize + 1;
    if count > 10_000 {
        return Err(KpError::Parameter {
            name: "grid",
            reason: format!("{count} values is above the limit of 10000"),
        });
    }
    Ok((0..count).map(|k| ((lo + step * k as f64) * 1e12).round() / 1e12).collect())
}

/// The indices 0..n in a seeded random order (Fisher–Yates with [`Rng`]).
pub fn shuffled_indices(n: usize, seed: u64) -> Vec<usize> {
    Rng::new(seed).choose_distinct(n, n)
}

/// Split 0..n at random into `parts` parts of sizes differing by at most one (Z₁..Z_parts of
/// Fig. 1). Each part's indices are sorted.
pub fn split_parts(n: usize, parts: usize, seed: u64) -> Result<Vec<Vec<usize>>> {
    if parts < 1 || n < 2 * parts {
        return Err(KpError::Parameter {
            name: "parts",
            reason: format!("splitting {n} samples into {parts} parts needs at least 1 part and 2 samples per part"),
        });
    }
    let idx = shuffled_indices(n, seed);
    let mut out: Vec<Vec<usize>> = (0..parts)
        .map(|p| {
            let (a, b) = (p * n / parts, (p + 1) * n / parts);
            let mut v = idx[a..b].to_vec();
            v.sort_unstable();
            v
        })
        .collect();
    out.retain(|v| !v.is_empty());
    Ok(out)
}

/// A random train/test split with `round(fraction·n)` training samples (both sides non-empty).
pub fn train_test_split(
    n: usize,
    train_fraction: f64,
    seed: u64,
) -> Result<(Vec<usize>, Vec<usize>)> {
    if !(train_fraction.is_finite() && train_fraction > 0.0 && train_fraction < 1.0) {
        return Err(KpError::Parameter {
            name: "train fraction",
            reason: format!("must lie strictly between 0 and 1 (got {train_fraction})"),
        });
    }
    // n < 2 first: `clamp(1, n − 1)` panics when n − 1 < 1.
    let n_train =
        if n < 2 { 0 } else { ((train_fraction * n as f64).round() as usize).clamp(1, n - 1) };
    if n < 2 || n_train == 0 || n_train >= n {
        return Err(KpError::Parameter {
            name: "n",
            reason: format!("cannot split {n} samples into non-empty train and test sets"),
        });
    }
    let idx = shuffled_indices(n, seed);
    let mut train = idx[..n_train].to_vec();
    let mut test = idx[n_train..].to_vec();
    train.sort_unstable();
    test.sort_unstable();
    Ok((train, test))
}

/// One fold of k-fold cross-validation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fold {
    /// Indices the models are fitted on.
    pub train: Vec<usize>,
    /// Indices the scaled RMSE is measured on.
    pub test: Vec<usize>,
}

/// k-fold cross-validation folds of 0..n after a seeded shuffle (2 ≤ k ≤ n/2, so that every
/// test fold holds at least 2 samples).
pub fn kfold(n: usize, k: usize, seed: u64) -> Result<Vec<Fold>> {
    if k < 2 || n < 2 * k {
        return Err(KpError::Parameter {
            name: "folds",
            reason: format!("k-fold cross-validation needs 2 ≤ k ≤ n/2 (got k = {k}, n = {n})"),
        });
    }
    let parts = split_parts(n, k, seed)?;
    Ok((0..parts.len())
        .map(|f| {
            let test = parts[f].clone();
            let mut train: Vec<usize> = parts
                .iter()
                .enumerate()
                .filter(|(g, _)| *g != f)
                .flat_map(|(_, p)| p.iter().copied())
                .collect();
            train.sort_unstable();
            Fold { train, test }
        })
        .collect())
}

/// The rows `idx` of a data set (indices must be < n).
pub fn subset(data: &Dataset, idx: &[usize]) -> Result<Dataset> {
    if let Some(&bad) = idx.iter().find(|&&i| i >= data.n()) {
        return Err(KpError::Parameter {
            name: "indices",
            reason: format!("index {bad} is out of range for {} samples", data.n()),
        });
    }
    let x = DMatrix::from_fn(idx.len(), data.d(), |r, c| data.x[(idx[r], c)]);
    let y = DVector::from_fn(idx.len(), |r, _| data.y[idx[r]]);
    Ok(Dataset { x, y, w_true: data.w_true.clone(), feature_names: data.feature_names.clone() })
}

/// Paper B's scaled RMSE `(1/max y)·√(mean (y − f)²)` (Appendix E). When max y ≤ 0 the scale is
/// `max |y|` instead (the paper's targets are positive); all-zero targets are an error.
pub fn scaled_rmse(y: &DVector<f64>, f: &DVector<f64>) -> Result<f64> {
    if y.len() != f.len() || y.is_empty() {
        return Err(KpError::Parameter {
            name: "predictions",
            reason: format!("{} predictions for {} targets", f.len(), y.len()),
        });
    }
    let max = y.max();
    let scale = if max > 0.0 { max } else { y.amax() };
    if !(scale > 0.0 && scale.is_finite()) {
        return Err(KpError::Parameter {
            name: "y",
            reason: "the scaled RMSE divides by max y, and every target is 0".into(),
        });
    }
    let mse = (y - f).norm_squared() / y.len() as f64;
    Ok(mse.sqrt() / scale)
}

pub(super) fn check_grid(values: &[f64], name: &'static str, m_like: bool) -> Result<()> {
    if values.is_empty() {
        return Err(KpError::Parameter { name, reason: "the grid is empty".into() });
    }
    for &v in values {
        let ok = v.is_finite() && v > 0.0 && (!m_like || v <= 100.0);
        if !ok {
            return Err(KpError::Parameter {
                name,
                reason: format!(
                    "every value must be positive and finite{} (got {v})",
                    if m_like { " and ≤ 100" } else { "" }
                ),
            });
        }
    }
    Ok(())
}

/// Cross-validated scaled RMSE over a grid of m × λ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CvGrid {
    /// Grid of m (rows).
    pub ms: Vec<f64>,
    /// Grid of λ (columns).
    pub lambdas: Vec<f64>,
    /// Mean over folds of the test-fold scaled RMSE, `rmse[i][j]` for `ms[i]`, `lambdas[j]`
    /// (NaN where a fit failed, e.g. overflow at an extreme value).
    pub rmse: Vec<Vec<f64>>,
    /// m of the lowest mean CV scaled RMSE.
    pub best_m: f64,
    /// λ of the lowest mean CV scaled RMSE.
    pub best_lambda: f64,
    /// That lowest mean CV scaled RMSE.
    pub best_rmse: f64,
    /// Number of (fold, m, λ) fits that failed (counted as NaN).
    pub failures: usize,
}

impl CvGrid {
    /// Check the shape of a grid received from elsewhere (a Web Worker's message) before it is
    /// drawn: `rmse` is `ms.len() × lambdas.len()`, the grids are non-empty and finite, and the
    /// best (m, λ) is on the grid. Returns the best cell's (row, column).
    pub fn check(&self) -> Result<(usize, usize)> {
        let bad = |reason: String| Err(KpError::Parameter { name: "CV grid", reason });
        if self.ms.is_empty() || self.lambdas.is_empty() {
            return bad("the m or λ grid is empty".into());
        }
        if self.ms.iter().chain(&self.lambdas).any(|v| !v.is_finite()) {
            return bad("a grid value is not finite".into());
        }
        if self.rmse.len() != self.ms.len()
            || self.rmse.iter().any(|r| r.len() != self.lambdas.len())
        {
            return bad(format!(
                "the RMSE table is not {} × {}",
                self.ms.len(),
                self.lambdas.len()
            ));
        }
        let i = self.ms.iter().position(|&m| m == self.best_m);
        let j = self.lambdas.iter().position(|&l| l == self.best_lambda);
        match i.zip(j) {
            Some(b) => Ok(b),
            None => bad(format!(
                "the best (m, λ) = ({}, {}) is not on the grid",
                self.best_m, self.best_lambda
            )),
        }
    }
}

/// Check the λ → λ₂ curves of an equivalence report received from elsewhere before drawing
/// them: one value per λ in every curve, finite positive λ.
pub fn check_lambda_curves(lambdas: &[f64], curves: &[Vec<f64>]) -> Result<()> {
    check_grid(lambdas, "λ grid", false)?;
    if let Some(p) = curves.iter().position(|c| c.len() != lambdas.len()) {
        return Err(KpError::Parameter {
            name: "λ₂ curves",
            reason: format!(
                "curve {} has {} values for {} λ",
                p + 1,
                curves[p].len(),
                lambdas.len()
            ),
        });
    }
    Ok(())
}

/// The mean scaled RMSE over `k` folds from the per-cell sums, and the best cell.
pub(super) fn finish_grid(
    ms: &[f64],
    lambdas: &[f64],
    sums: &[Vec<f64>],
    k: f64,
    failures: usize,
) -> Result<CvGrid> {
    let rmse: Vec<Vec<f64>> = sums.iter().map(|row| row.iter().map(|s| s / k).collect()).collect();
    let mut best = (f64::INFINITY, 0, 0);
    for (i, row) in rmse.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            if v < best.0 {
                best = (v, i, j);
            }
        }
    }
    if !best.0.is_finite() {
        return Err(KpError::NonFinite("every fit of the cross-validation grid failed".into()));
    }
    Ok(CvGrid {
        ms: ms.to_vec(),
        lambdas: lambdas.to_vec(),
        rmse,
        best_m: ms[best.1],
        best_lambda: lambdas[best.2],
        best_rmse: best.0,
        failures,
    })
}
