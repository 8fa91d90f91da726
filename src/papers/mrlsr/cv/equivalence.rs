//! Paper B's weak-equivalence experiment of Fig. 1 (Section 5.3, Proposition 5.1): the parts
//! Z₁…Z_p, λ chosen on Z₁ by k-fold CV, λ₂ from Z₁, M-RLSR(λ) against KRR(λ₂) on every part —
//! in one call ([`equivalence_experiment`]) or stepped ([`EquivalenceRun`], a task of the executor).

use super::folds::{
    check_grid, finish_grid, kfold, log_grid, scaled_rmse, split_parts, subset, CvGrid, Fold,
};
use crate::data::Dataset;
use crate::error::{KpError, Result};
use crate::kernels::{Kernel, ResolvedKernel};
use crate::solvers::mrlsr::MrlsrModel;
use serde::{Deserialize, Serialize};

/// Settings of the equivalence experiment (Fig. 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EquivalenceConfig {
    /// The fixed exponent m > 1 (the paper: 1.2 on the synthetic set).
    pub m: f64,
    /// Log grid of λ for the CV on Z₁ and for the λ → λ₂ curves.
    pub lambdas: Vec<f64>,
    /// Folds of the CV on Z₁ (the paper: 10).
    pub folds: usize,
    /// Number of parts (the paper: 4).
    pub parts: usize,
    /// Seed of the split into parts (the CV folds use seed + 1).
    pub seed: u64,
}

impl EquivalenceConfig {
    /// The paper's synthetic-set setting: m = 1.2, λ over 1e-7..1e2, 10 folds, 4 parts.
    pub fn paper(seed: u64) -> Self {
        Self {
            m: 1.2,
            lambdas: log_grid(1e-7, 1e2, 10).unwrap_or_default(),
            folds: 10,
            parts: 4,
            seed,
        }
    }
}

/// Per-part result of the equivalence experiment.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartEquivalence {
    /// 1-based part index (Z₁ is 1).
    pub part: usize,
    /// Samples in the part.
    pub n: usize,
    /// C₀ of M-RLSR(λ) on this part.
    pub c0: f64,
    /// The part's own equivalent `(m/2)·C₀·λ` (equal to the shared λ₂ only on Z₁).
    pub own_lambda2: f64,
    /// RMS over the part of `f_MRLSR(x_i) − f_KRR(x_i)` (fitted values).
    pub diff_rms: f64,
    /// `‖f_MRLSR − f_KRR‖_H`.
    pub diff_rkhs: f64,
    /// RMS of the M-RLSR fitted values, to read `diff_rms` relatively.
    pub fitted_rms: f64,
    /// How KRR was solved: "cholesky" (independent of the eigendecomposition) or "eigen".
    pub krr_method: &'static str,
    /// Singular-K warning on this part, if any.
    pub warning: Option<String>,
}

/// Result of the equivalence experiment.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EquivalenceReport {
    /// The fixed exponent m.
    pub m: f64,
    /// λ chosen by CV on Z₁.
    pub lambda: f64,
    /// λ₂ = (m/2)·C₀(Z₁, m, λ)·λ (Proposition 5.1).
    pub lambda2: f64,
    /// The λ grid (CV on Z₁ and curves).
    pub lambdas: Vec<f64>,
    /// The CV scaled RMSE on Z₁ over `lambdas`.
    pub cv_rmse: Vec<f64>,
    /// One entry per part Z₁..Z_parts.
    pub parts: Vec<PartEquivalence>,
    /// Folds of the CV on Z₁ (the configured folds, reduced to fit Z₁ by the caller).
    pub folds: usize,
    /// `curves[p][j]` = λ₂ of part p for `lambdas[j]` (the λ → λ₂ maps of Proposition 5.1).
    pub curves: Vec<Vec<f64>>,
    /// The Gaussian bandwidth (or kernel) used for every part, resolved on the whole data.
    pub kernel: String,
}

/// Fig. 1: split into Z₁..Z_parts; choose λ on Z₁ by k-fold CV; λ₂ from Z₁; on each part fit
/// M-RLSR(λ) (Theorem 1) and KRR(λ₂) (Cholesky solve of `(K + nλ₂I)α = y`, independent of the
/// eigendecomposition) and report their difference both as the RMS of fitted values and in RKHS
/// norm; plus the λ → λ₂ curve of every part. The kernel is resolved once on the whole data so
/// that the parts differ only by their samples. [`EquivalenceRun`] run to its end.
pub fn equivalence_experiment(
    data: &Dataset,
    kernel: &Kernel,
    cfg: &EquivalenceConfig,
) -> Result<EquivalenceReport> {
    let mut run = EquivalenceRun::new(data, kernel, cfg)?;
    while !run.is_complete() {
        run.step()?;
    }
    run.finish()
}

/// One part of Fig. 1: M-RLSR(λ) (`fit`) against KRR(λ₂) on the part's model, and the part's
/// λ → λ₂ curve over the grid.
fn part_equivalence(
    model: &MrlsrModel,
    fit: &crate::solvers::mrlsr::MrlsrFit,
    index: usize,
    lambda2: f64,
    cfg: &EquivalenceConfig,
) -> Result<(PartEquivalence, Vec<f64>)> {
    let n = model.n();
    let mut a = model.gram().clone();
    for i in 0..n {
        a[(i, i)] += n as f64 * lambda2;
    }
    let (alpha_k, method) = match a.cholesky() {
        Some(ch) => (ch.solve(model.y()), "cholesky"),
        None => (model.krr(lambda2)?.alpha, "eigen"),
    };
    let fitted_k = model.gram() * &alpha_k;
    let diff_rms = ((&fit.fitted - &fitted_k).norm_squared() / n as f64).sqrt();
    let diff_rkhs = model.rkhs_distance(&fit.alpha, &alpha_k)?;
    let part = PartEquivalence {
        part: index + 1,
        n,
        c0: fit.c0,
        own_lambda2: fit.lambda2,
        diff_rms,
        diff_rkhs,
        fitted_rms: (fit.fitted.norm_squared() / n as f64).sqrt(),
        krr_method: method,
        warning: model.singularity().map(|s| s.message.clone()),
    };
    let curve = cfg
        .lambdas
        .iter()
        .map(|&l| model.fit_theorem1(cfg.m, l).map(|f| f.lambda2).unwrap_or(f64::NAN))
        .collect();
    Ok((part, curve))
}

/// Where an [`EquivalenceRun`] is.
enum EqStage {
    /// The CV on Z₁ over the λ grid: one fold per unit.
    Cv { fold: usize, sums: Vec<f64>, failures: usize },
    /// The parts, one per unit (Z₁ first: it fixes λ₂).
    Parts { next: usize, lambda: f64, lambda2: f64, cv: CvGrid },
    /// Every part done.
    Done { lambda: f64, lambda2: f64, cv: CvGrid },
}

/// Fig. 1 ([`equivalence_experiment`]) as a steppable task: each [`EquivalenceRun::step`] runs
/// one fold of the CV on Z₁ (its eigendecomposition and every λ) or one part (its model, the fit
/// at λ, KRR at λ₂ by Cholesky, its λ → λ₂ curve); [`EquivalenceRun::finish`] gives the report.
/// Same operations in the same order: the report equals [`equivalence_experiment`]'s bit for bit.
pub struct EquivalenceRun {
    cfg: EquivalenceConfig,
    kernel: ResolvedKernel,
    sets: Vec<Dataset>,
    folds: Vec<Fold>,
    stage: Option<EqStage>,
    parts: Vec<PartEquivalence>,
    curves: Vec<Vec<f64>>,
    done: usize,
}

impl EquivalenceRun {
    /// Check m and the λ grid, resolve the kernel on the whole data, split into parts and fold Z₁.
    pub fn new(data: &Dataset, kernel: &Kernel, cfg: &EquivalenceConfig) -> Result<Self> {
        if !(cfg.m.is_finite() && cfg.m > 1.0 && cfg.m <= 100.0) {
            return Err(KpError::Parameter {
                name: "m",
                reason: format!(
                    "Proposition 5.1 (weak equivalence) needs 1 < m ≤ 100 here (got {})",
                    cfg.m
                ),
            });
        }
        check_grid(&cfg.lambdas, "λ grid", false)?;
        let kernel = kernel.resolve(&data.x)?;
        let parts = split_parts(data.n(), cfg.parts, cfg.seed)?;
        let sets: Vec<Dataset> = parts.iter().map(|p| subset(data, p)).collect::<Result<_>>()?;
        let folds = kfold(sets[0].n(), cfg.folds, cfg.seed.wrapping_add(1))?;
        let sums = vec![0.0; cfg.lambdas.len()];
        Ok(Self {
            cfg: cfg.clone(),
            kernel,
            sets,
            folds,
            stage: Some(EqStage::Cv { fold: 0, sums, failures: 0 }),
            parts: Vec::new(),
            curves: Vec::new(),
            done: 0,
        })
    }

    /// Units done and in all (one per fold of the CV on Z₁, one per part).
    pub fn progress(&self) -> (usize, usize) {
        (self.done, self.folds.len() + self.sets.len())
    }

    /// True once every part is done ([`Self::finish`] may be called).
    pub fn is_complete(&self) -> bool {
        matches!(self.stage, Some(EqStage::Done { .. }))
    }

    /// One unit of work (no-op once complete).
    pub fn step(&mut self) -> Result<()> {
        let Some(stage) = self.stage.take() else {
            return Err(KpError::Parameter {
                name: "equivalence",
                reason: "an earlier step of the experiment failed".into(),
            });
        };
        self.stage = Some(match stage {
            EqStage::Cv { fold, mut sums, mut failures } => {
                let z1 = &self.sets[0];
                let f = &self.folds[fold];
                let train = subset(z1, &f.train)?;
                let test = subset(z1, &f.test)?;
                let model = MrlsrModel::with_kernel(&train.x, &train.y, self.kernel.clone())?;
                let cross = self.kernel.cross(&test.x, &train.x)?;
                for (j, &lambda) in self.cfg.lambdas.iter().enumerate() {
                    let score = model
                        .fit(self.cfg.m, lambda)
                        .and_then(|o| scaled_rmse(&test.y, &(&cross * o.best_alpha(model.n()))));
                    match score {
                        Ok(s) if s.is_finite() => sums[j] += s,
                        _ => {
                            failures += 1;
                            sums[j] = f64::NAN;
                        }
                    }
                }
                if fold + 1 < self.folds.len() {
                    EqStage::Cv { fold: fold + 1, sums, failures }
                } else {
                    let k = self.folds.len() as f64;
                    let cv = finish_grid(&[self.cfg.m], &self.cfg.lambdas, &[sums], k, failures)?;
                    EqStage::Parts { next: 0, lambda: cv.best_lambda, lambda2: f64::NAN, cv }
                }
            }
            EqStage::Parts { next, lambda, mut lambda2, cv } => {
                let set = &self.sets[next];
                let model = MrlsrModel::with_kernel(&set.x, &set.y, self.kernel.clone())?;
                let fit = model.fit_theorem1(self.cfg.m, lambda)?;
                if next == 0 {
                    lambda2 = fit.lambda2;
                }
                let (part, curve) = part_equivalence(&model, &fit, next, lambda2, &self.cfg)?;
                self.parts.push(part);
                self.curves.push(curve);
                if next + 1 < self.sets.len() {
                    EqStage::Parts { next: next + 1, lambda, lambda2, cv }
                } else {
                    EqStage::Done { lambda, lambda2, cv }
                }
            }
            done @ EqStage::Done { .. } => {
                self.stage = Some(done);
                return Ok(());
            }
        });
        self.done += 1;
        Ok(())
    }

    /// The report (only once [`Self::is_complete`]).
    pub fn finish(&self) -> Result<EquivalenceReport> {
        let Some(EqStage::Done { lambda, lambda2, cv }) = &self.stage else {
            return Err(KpError::Parameter {
                name: "equivalence",
                reason: "the experiment has not finished".into(),
            });
        };
        Ok(EquivalenceReport {
            m: self.cfg.m,
            lambda: *lambda,
            lambda2: *lambda2,
            lambdas: self.cfg.lambdas.clone(),
            cv_rmse: cv.rmse.first().cloned().unwrap_or_default(),
            folds: self.folds.len(),
            parts: self.parts.clone(),
            curves: self.curves.clone(),
            kernel: format!("{:?}", self.kernel),
        })
    }
}

impl crate::exec::Task for EquivalenceRun {
    type Error = KpError;
    /// One unit of the experiment ([`EquivalenceRun::step`]); done once every part is.
    fn unit(&mut self) -> Result<crate::exec::Progress> {
        if self.is_complete() {
            return Ok(crate::exec::Progress::Done);
        }
        self.step()?;
        Ok(crate::exec::Progress::More)
    }
}
