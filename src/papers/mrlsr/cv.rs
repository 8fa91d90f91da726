//! Splits, k-fold cross-validation, the scaled RMSE, and paper B's two experiments:
//! the weak-equivalence experiment of Fig. 1 (Section 5.3) and the Table-1 model selection
//! (Appendix E.1.1); the first lives in `cv/equivalence.rs`,
//! the grids, splits, folds and the scaled RMSE both use in `cv/folds.rs`.
//!
//! Every fold, part or training set builds one [`MrlsrModel`] (one eigendecomposition) and then
//! fits every (m, λ) of a grid by the scalar root-solve only.

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::error::{KpError, Result};
use crate::kernels::{Kernel, ResolvedKernel};
use crate::solvers::mrlsr::MrlsrModel;

mod equivalence;
mod folds;
pub use equivalence::{
    equivalence_experiment, EquivalenceConfig, EquivalenceReport, EquivalenceRun, PartEquivalence,
};
use folds::{check_grid, finish_grid};
pub use folds::{
    check_lambda_curves, kfold, log_grid, scaled_rmse, shuffled_indices, split_parts, step_grid,
    subset, train_test_split, CvGrid, Fold,
};

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
