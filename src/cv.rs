//! Splits, k-fold cross-validation, the scaled RMSE, and paper B's two experiments:
//! the weak-equivalence experiment of Fig. 1 (Section 5.3) and the Table-1 model selection
//! (Appendix E.1.1); the first lives in `src/cv/equivalence.rs`.
//!
//! Every fold, part or training set builds one [`MrlsrModel`] (one eigendecomposition) and then
//! fits every (m, λ) of a grid by the scalar root-solve only.

use crate::fmath;
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::error::{KpError, Result};
use crate::kernels::{Kernel, ResolvedKernel};
use crate::rng::Rng;
use crate::solvers::mrlsr::MrlsrModel;

mod equivalence;
pub use equivalence::{
    equivalence_experiment, EquivalenceConfig, EquivalenceReport, EquivalenceRun, PartEquivalence,
};

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

fn check_grid(values: &[f64], name: &'static str, m_like: bool) -> Result<()> {
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

/// k-fold CV of M-RLSR over `ms × lambdas` with a fixed resolved kernel. For m ≤ 1 the fit used
/// is the lowest objective found ([`crate::solvers::mrlsr::MrlsrOutcome::best_alpha`]). KRR is
/// `ms = [2]`. One eigendecomposition per fold.
pub fn cv_grid(
    data: &Dataset,
    kernel: ResolvedKernel,
    ms: &[f64],
    lambdas: &[f64],
    folds: usize,
    seed: u64,
) -> Result<CvGrid> {
    let mut v = cv_grids(data, kernel, &[(ms, lambdas)], folds, seed)?;
    v.pop().ok_or_else(|| KpError::NonFinite("empty cross-validation".into()))
}

/// [`cv_grid`] for several (m grid, λ grid) pairs on the same folds, sharing each fold's
/// eigendecomposition (e.g. M-RLSR over m × λ and KRR over λ₂).
pub fn cv_grids(
    data: &Dataset,
    kernel: ResolvedKernel,
    grids: &[(&[f64], &[f64])],
    folds: usize,
    seed: u64,
) -> Result<Vec<CvGrid>> {
    for (ms, lambdas) in grids {
        check_grid(ms, "m grid", true)?;
        check_grid(lambdas, "λ grid", false)?;
    }
    let fold_list = kfold(data.n(), folds, seed)?;
    let mut sums: Vec<Vec<Vec<f64>>> =
        grids.iter().map(|(ms, ls)| vec![vec![0.0; ls.len()]; ms.len()]).collect();
    let mut failures = vec![0usize; grids.len()];
    for fold in &fold_list {
        let train = subset(data, &fold.train)?;
        let test = subset(data, &fold.test)?;
        let model = MrlsrModel::with_kernel(&train.x, &train.y, kernel.clone())?;
        let cross = kernel.cross(&test.x, &train.x)?;
        for (g, (ms, lambdas)) in grids.iter().enumerate() {
            for (i, &m) in ms.iter().enumerate() {
                for (j, &lambda) in lambdas.iter().enumerate() {
                    let score = model
                        .fit(m, lambda)
                        .and_then(|o| scaled_rmse(&test.y, &(&cross * o.best_alpha(model.n()))));
                    match score {
                        Ok(s) if s.is_finite() => sums[g][i][j] += s,
                        _ => {
                            failures[g] += 1;
                            sums[g][i][j] = f64::NAN;
                        }
                    }
                }
            }
        }
    }
    let k = fold_list.len() as f64;
    let mut out = Vec::with_capacity(grids.len());
    for (g, (ms, lambdas)) in grids.iter().enumerate() {
        out.push(finish_grid(ms, lambdas, &sums[g], k, failures[g])?);
    }
    Ok(out)
}

/// Settings of the Table-1 model selection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSelectionConfig {
    /// Grid of m for M-RLSR (the paper: 0.1..2.9 by 0.1).
    pub ms: Vec<f64>,
    /// Grid of λ for M-RLSR (the paper: 7 values 1e-5..1e2).
    pub lambdas: Vec<f64>,
    /// Grid of λ₂ for KRR (the paper: 25 values 1e-7..1e3).
    pub lambda2s: Vec<f64>,
    /// Folds (the paper: 10).
    pub folds: usize,
    /// Training fraction (the paper: 0.7).
    pub train_fraction: f64,
    /// Seed of the train/test split (the CV folds use seed + 1).
    pub seed: u64,
}

impl ModelSelectionConfig {
    /// The grids of Appendix E.1.1.
    pub fn paper(seed: u64) -> Self {
        Self {
            ms: step_grid(0.1, 2.9, 0.1).unwrap_or_default(),
            lambdas: log_grid(1e-5, 1e2, 7).unwrap_or_default(),
            lambda2s: log_grid(1e-7, 1e3, 25).unwrap_or_default(),
            folds: 10,
            train_fraction: 0.7,
            seed,
        }
    }
}

/// Result of the Table-1 model selection.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelSelection {
    /// CV over m × λ for M-RLSR, on the training part.
    pub mrlsr_cv: CvGrid,
    /// Test scaled RMSE of M-RLSR refitted on the whole training part at (best m, best λ).
    pub mrlsr_test_rmse: f64,
    /// CV over λ₂ for KRR (a one-row grid with m = 2).
    pub krr_cv: CvGrid,
    /// Test scaled RMSE of KRR at the best λ₂.
    pub krr_test_rmse: f64,
    /// λ₂ weakly equivalent to the chosen M-RLSR on the training part (if best m > 1).
    pub mrlsr_equivalent_lambda2: Option<f64>,
    /// Size of the training part.
    pub n_train: usize,
    /// Size of the test part.
    pub n_test: usize,
}

/// Check the grids, split train/test and resolve the kernel on the training inputs (Appendix
/// E.1.1): the start of both the batch and the stepped model selection.
fn selection_split(
    data: &Dataset,
    kernel: &Kernel,
    cfg: &ModelSelectionConfig,
) -> Result<(Dataset, Dataset, ResolvedKernel)> {
    check_grid(&cfg.ms, "m grid", true)?;
    check_grid(&cfg.lambdas, "λ grid", false)?;
    check_grid(&cfg.lambda2s, "λ₂ grid", false)?;
    let (tr, te) = train_test_split(data.n(), cfg.train_fraction, cfg.seed)?;
    let train = subset(data, &tr)?;
    let test = subset(data, &te)?;
    let kernel = kernel.resolve(&train.x)?;
    Ok((train, test, kernel))
}

/// Table 1 (Appendix E.1.1), with a full m × λ grid: split train/test, choose (m, λ) for M-RLSR
/// and λ₂ for KRR by k-fold CV on the training part (kernel resolved on the training inputs),
/// refit on the training part, report the test scaled RMSE of both.
pub fn model_selection(
    data: &Dataset,
    kernel: &Kernel,
    cfg: &ModelSelectionConfig,
) -> Result<ModelSelection> {
    let (train, test, kernel) = selection_split(data, kernel, cfg)?;
    let two = [2.0];
    let mut cvs = cv_grids(
        &train,
        kernel.clone(),
        &[(&cfg.ms, &cfg.lambdas), (&two, &cfg.lambda2s)],
        cfg.folds,
        cfg.seed.wrapping_add(1),
    )?;
    let krr_cv = cvs.pop().ok_or_else(|| KpError::NonFinite("empty cross-validation".into()))?;
    let mrlsr_cv = cvs.pop().ok_or_else(|| KpError::NonFinite("empty cross-validation".into()))?;
    let model = MrlsrModel::with_kernel(&train.x, &train.y, kernel.clone())?;
    let cross = kernel.cross(&test.x, &train.x)?;
    let best = model.fit(mrlsr_cv.best_m, mrlsr_cv.best_lambda)?;
    let mrlsr_test_rmse = scaled_rmse(&test.y, &(&cross * best.best_alpha(model.n())))?;
    let mrlsr_equivalent_lambda2 =
        if mrlsr_cv.best_m > 1.0 { best.best_fit().map(|f| f.lambda2) } else { None };
    let krr = model.krr(krr_cv.best_lambda)?;
    let krr_test_rmse = scaled_rmse(&test.y, &(&cross * &krr.alpha))?;
    Ok(ModelSelection {
        mrlsr_cv,
        mrlsr_test_rmse,
        krr_cv,
        krr_test_rmse,
        mrlsr_equivalent_lambda2,
        n_train: train.n(),
        n_test: test.n(),
    })
}

/// Progress of a [`ModelSelectionRun`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RunProgress {
    /// Units of work done (one eigendecomposition, or one m row of one grid, per unit).
    pub done: usize,
    /// Units of work in all.
    pub total: usize,
    /// Fold being processed (0-based; equals the number of folds when the CV is complete).
    pub fold: usize,
}

/// The Table-1 model selection of [`model_selection`] as a steppable state, so a page can
/// spread it over animation frames: each [`ModelSelectionRun::step`] either builds one fold's
/// eigendecomposition or fits one m row (all λ) of one grid on that fold, then
/// [`ModelSelectionRun::finish`] refits on the training part exactly as [`model_selection`] does.
/// Same folds, same order of summation: the result equals [`model_selection`]'s.
pub struct ModelSelectionRun {
    grids: [(Vec<f64>, Vec<f64>); 2],
    folds: Vec<Fold>,
    train: Dataset,
    test: Dataset,
    kernel: ResolvedKernel,
    sums: [Vec<Vec<f64>>; 2],
    failures: [usize; 2],
    fold: usize,
    /// (model, cross kernel test × train, test targets) of the current fold.
    current: Option<(MrlsrModel, DMatrix<f64>, DVector<f64>)>,
    /// Next (grid, row) to fit on the current fold.
    cursor: (usize, usize),
    done: usize,
}

impl ModelSelectionRun {
    /// Validate the grids, split train/test and resolve the kernel on the training inputs
    /// (Appendix E.1.1), as [`model_selection`].
    pub fn new(data: &Dataset, kernel: &Kernel, cfg: &ModelSelectionConfig) -> Result<Self> {
        let (train, test, kernel) = selection_split(data, kernel, cfg)?;
        let folds = kfold(train.n(), cfg.folds, cfg.seed.wrapping_add(1))?;
        let grids = [(cfg.ms.clone(), cfg.lambdas.clone()), (vec![2.0], cfg.lambda2s.clone())];
        let sums = [
            vec![vec![0.0; cfg.lambdas.len()]; cfg.ms.len()],
            vec![vec![0.0; cfg.lambda2s.len()]; 1],
        ];
        Ok(Self {
            grids,
            folds,
            train,
            test,
            kernel,
            sums,
            failures: [0, 0],
            fold: 0,
            current: None,
            cursor: (0, 0),
            done: 0,
        })
    }

    /// Work done so far and in all.
    pub fn progress(&self) -> RunProgress {
        let per_fold = 1 + self.grids[0].0.len() + self.grids[1].0.len();
        RunProgress { done: self.done, total: per_fold * self.folds.len(), fold: self.fold }
    }

    /// True once every fold has been processed ([`Self::finish`] may be called).
    pub fn is_complete(&self) -> bool {
        self.fold >= self.folds.len()
    }

    /// One unit of work; returns the progress after it (no-op once complete).
    pub fn step(&mut self) -> Result<RunProgress> {
        if self.is_complete() {
            return Ok(self.progress());
        }
        match self.current.take() {
            None => {
                let fold = &self.folds[self.fold];
                let tr = subset(&self.train, &fold.train)?;
                let te = subset(&self.train, &fold.test)?;
                let model = MrlsrModel::with_kernel(&tr.x, &tr.y, self.kernel.clone())?;
                let cross = self.kernel.cross(&te.x, &tr.x)?;
                self.current = Some((model, cross, te.y));
                self.cursor = (0, 0);
            }
            Some(state) => {
                let (g, i) = self.cursor;
                {
                    let (model, cross, ty) = &state;
                    let m = self.grids[g].0[i];
                    for (j, &lambda) in self.grids[g].1.iter().enumerate() {
                        let score = model
                            .fit(m, lambda)
                            .and_then(|o| scaled_rmse(ty, &(cross * o.best_alpha(model.n()))));
                        match score {
                            Ok(s) if s.is_finite() => self.sums[g][i][j] += s,
                            _ => {
                                self.failures[g] += 1;
                                self.sums[g][i][j] = f64::NAN;
                            }
                        }
                    }
                }
                let next = if i + 1 < self.grids[g].0.len() {
                    Some((g, i + 1))
                } else if g + 1 < 2 {
                    Some((g + 1, 0))
                } else {
                    None
                };
                match next {
                    Some(c) => {
                        self.cursor = c;
                        self.current = Some(state);
                    }
                    None => self.fold += 1,
                }
            }
        }
        self.done += 1;
        Ok(self.progress())
    }

    /// The CV grid of M-RLSR (index 0) or KRR (index 1) so far, averaged over the folds done
    /// (for a live heatmap); None before the first fold is complete.
    pub fn partial_grid(&self, which: usize) -> Option<CvGrid> {
        let folds_done = self.fold;
        if folds_done == 0 || which > 1 {
            return None;
        }
        finish_grid(
            &self.grids[which].0,
            &self.grids[which].1,
            &self.sums[which],
            folds_done as f64,
            self.failures[which],
        )
        .ok()
    }

    /// Refit at the chosen parameters on the whole training part and score on the test part
    /// (only once [`Self::is_complete`]).
    pub fn finish(&self) -> Result<ModelSelection> {
        if !self.is_complete() {
            return Err(KpError::Parameter {
                name: "model selection",
                reason: "the cross-validation has not finished".into(),
            });
        }
        let k = self.folds.len() as f64;
        let mrlsr_cv =
            finish_grid(&self.grids[0].0, &self.grids[0].1, &self.sums[0], k, self.failures[0])?;
        let krr_cv =
            finish_grid(&self.grids[1].0, &self.grids[1].1, &self.sums[1], k, self.failures[1])?;
        let model = MrlsrModel::with_kernel(&self.train.x, &self.train.y, self.kernel.clone())?;
        let cross = self.kernel.cross(&self.test.x, &self.train.x)?;
        let best = model.fit(mrlsr_cv.best_m, mrlsr_cv.best_lambda)?;
        let mrlsr_test_rmse = scaled_rmse(&self.test.y, &(&cross * best.best_alpha(model.n())))?;
        let mrlsr_equivalent_lambda2 =
            if mrlsr_cv.best_m > 1.0 { best.best_fit().map(|f| f.lambda2) } else { None };
        let krr = model.krr(krr_cv.best_lambda)?;
        let krr_test_rmse = scaled_rmse(&self.test.y, &(&cross * &krr.alpha))?;
        Ok(ModelSelection {
            mrlsr_cv,
            mrlsr_test_rmse,
            krr_cv,
            krr_test_rmse,
            mrlsr_equivalent_lambda2,
            n_train: self.train.n(),
            n_test: self.test.n(),
        })
    }
}

/// The mean scaled RMSE over `k` folds from the per-cell sums, and the best cell.
fn finish_grid(
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
