//! Paper B's experiment (Audiffren, Kadri): the M-RLSR spec (data, kernel, m, λ) of eq. 4,
//! `min_f (1/n)‖y − f(X)‖² + λ‖f‖_H^m`, the Table-1 model-selection spec, and the page's
//! session: the data, the eigendecomposition of K (Theorem 1) and the fits at (m, λ) with
//! KRR at λ₂ beside them (Definition 3.3, Proposition 5.1). The page (`src/web/mrlsr.rs`) and
//! `kplay` build the same model from the same JSON.

use std::sync::Arc;

use serde::Serialize;

use nalgebra::{DMatrix, DVector};

use crate::data::Dataset;
use crate::datasets::regression::{curve_grid, Friedman1, Sine1d};
use crate::error::{KpError, Result};
use crate::exec::{run_task_for, Progress, Task};
use crate::kernels::{Bandwidth, CrossJob, Kernel, ResolvedKernel};
use crate::solvers::mrlsr::EigenAdoption;
pub use crate::solvers::mrlsr::EigenPayload;
use crate::solvers::mrlsr::{FSamples, MrlsrFit, MrlsrModel, MrlsrOutcome, StationaryKind};
use cv::EquivalenceReport;

pub mod cv;
mod nscan;
pub mod page;
pub mod plot;
mod root_watch;
pub mod run;
pub mod schema;
mod sections;
mod sweep;
pub use nscan::{log_log_fit, NScan, NScanRun, ScanKind, ScanSeries, SCAN_MAX_N};
pub use root_watch::{RootView, RootWatch};
pub use sections::{
    build_data, build_data_and_removed, CheckedData, DataSpec, LogGrid, MrlsrChecked,
    MrlsrEquivalenceChecked, MrlsrEquivalenceSpec, MrlsrSelectionChecked, MrlsrSelectionSpec,
    MrlsrSpec, RemovedPoint, SelectionSettings, StepGrid, MAX_GRID, PAGE_MAX_N,
};
pub use sweep::{ParamSweep, SWEEP_FRAMES};

/// One stationary point of the readouts (m ≤ 1).
#[derive(Debug, Clone, Serialize)]
pub struct RootInfo {
    pub c: f64,
    pub kind: StationaryKind,
    pub objective: f64,
    pub norm_h: f64,
}

/// What the page reads out after a fit (and `kplay run` prints the same quantities).
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub n: usize,
    pub d: usize,
    pub kernel: String,
    pub eigen_ms: f64,
    pub refit_ms: f64,
    pub m: f64,
    pub lambda: f64,
    /// "theorem1" (m > 1) or "outside" (m ≤ 1).
    pub kind: &'static str,
    /// C₀ of the reported fit (the minimizer), None when f = 0 is the minimizer.
    pub c0: Option<f64>,
    pub norm_h: f64,
    /// λ₂ of Proposition 5.1 (KRR at λ₂ has the same solution).
    pub lambda2: Option<f64>,
    pub iterations: usize,
    pub f_residual: Option<f64>,
    pub objective: f64,
    pub krr_norm_h: Option<f64>,
    /// Outside Theorem 1: the core's explanation, the roots, f = 0's objective, the minimizer.
    pub message: Option<String>,
    pub roots: Vec<RootInfo>,
    pub zero_objective: Option<f64>,
    pub minimizer: Option<usize>,
    /// Singular-K warning (the core proceeds).
    pub warning: Option<String>,
    pub digest: String,
}

/// The fitted curves of a 1-D data set on a grid (the page's fit plot), or the fitted values
/// at the samples for more features.
#[derive(Debug, Clone)]
pub enum FitCurves {
    /// 1-D: the samples, the grid, the truth (sine data), KRR(λ₂) and M-RLSR on the grid, and
    /// the point the spec's `drop` left out as (x, y).
    OneD {
        xs: Vec<f64>,
        grid: Vec<f64>,
        truth: Option<Vec<f64>>,
        krr: Option<Vec<f64>>,
        mrlsr: Vec<f64>,
        removed: Option<(f64, f64)>,
    },
    /// More features: the fitted values of M-RLSR and KRR(λ₂) at the samples, and the point
    /// `drop` left out as (true y, M-RLSR's prediction there).
    Fitted { mrlsr: Vec<f64>, krr: Option<Vec<f64>>, removed: Option<(f64, f64)> },
}

/// Paper B's session: the data, the eigendecomposition of K (Theorem 1: the one O(n³) step)
/// and the fit at (m, λ), with KRR at λ₂ beside it (Proposition 5.1). A refit at a new (m, λ)
/// reuses the eigendecomposition: only the scalar root solve for C₀ and α = Qα' run. Built only
/// from a checked spec ([`MrlsrChecked`]).
pub struct MrlsrSession {
    spec: MrlsrSpec,
    data: Dataset,
    /// Shared with a [`RootWatch`] that steps the root search over frames.
    model: Arc<MrlsrModel>,
    outcome: MrlsrOutcome,
    krr: Option<MrlsrFit>,
    refit_ms: f64,
}

fn elapsed_ms(t0: web_time::Instant) -> f64 {
    t0.elapsed().as_secs_f64() * 1e3
}

impl MrlsrSession {
    /// Build K of the checked spec's data and its eigendecomposition, then fit.
    pub fn new(checked: MrlsrChecked) -> Result<Self> {
        let (spec, data) = checked.into_spec_and_data();
        let model = MrlsrModel::from_dataset(&data, &spec.kernel)?;
        Self::fitted(spec, data, model)
    }

    /// As [`Self::new`], adopting an eigendecomposition computed elsewhere (the page's worker),
    /// checked against K ([`EigenPayload::check_against`]).
    pub fn with_eigen(checked: MrlsrChecked, payload: EigenPayload) -> Result<Self> {
        let (spec, data) = checked.into_spec_and_data();
        let model = MrlsrModel::from_dataset_with_eigen(&data, &spec.kernel, payload)?;
        Self::fitted(spec, data, model)
    }

    /// As [`Self::with_eigen`] with K already built (in slices, [`GramBuild`]).
    pub fn with_gram_and_eigen(
        checked: MrlsrChecked,
        k: DMatrix<f64>,
        payload: EigenPayload,
    ) -> Result<Self> {
        let (spec, data) = checked.into_spec_and_data();
        let rk = spec.kernel.resolve(&data.x)?;
        let model = MrlsrModel::with_gram_and_eigen(&data.x, &data.y, rk, k, payload)?;
        Self::fitted(spec, data, model)
    }

    fn fitted(spec: MrlsrSpec, data: Dataset, model: MrlsrModel) -> Result<Self> {
        let (outcome, krr, refit_ms) = fit_with_krr(&model, spec.m, spec.lambda)?;
        Ok(Self { spec, data, model: Arc::new(model), outcome, krr, refit_ms })
    }

    /// Whether `other` has the same data and kernel (so only m, λ changed: no new
    /// eigendecomposition is needed).
    pub fn same_model(&self, other: &MrlsrSpec) -> bool {
        other.data == self.spec.data && other.kernel == self.spec.kernel
    }

    /// Refit at (m, λ) from the cached eigendecomposition; on an error the previous fit stays.
    pub fn refit(&mut self, m: f64, lambda: f64) -> Result<()> {
        // Named as the spec names them (`m`, `lambda`), as `MrlsrPage::sweep_to` does.
        crate::solvers::mrlsr::check_m_lambda(m, lambda)?;
        let (outcome, krr, refit_ms) = fit_with_krr(&self.model, m, lambda)?;
        self.spec.m = m;
        self.spec.lambda = lambda;
        self.outcome = outcome;
        self.krr = krr;
        self.refit_ms = refit_ms;
        Ok(())
    }

    /// The spec of the current fit.
    pub fn spec(&self) -> &MrlsrSpec {
        &self.spec
    }

    /// The data.
    pub fn data(&self) -> &Dataset {
        &self.data
    }

    /// The KRR fit at λ₂, if the M-RLSR solution is not 0.
    pub fn krr(&self) -> Option<&MrlsrFit> {
        self.krr.as_ref()
    }

    /// The readouts, with the eigendecomposition's time as measured by the caller.
    pub fn summary(&self, eigen_ms: f64) -> Summary {
        let best = self.outcome.best_fit();
        let (kind, message, roots, zero_objective, minimizer) = match &self.outcome {
            MrlsrOutcome::Theorem1(_) => ("theorem1", None, Vec::new(), None, None),
            MrlsrOutcome::OutsideTheorem(o) => (
                "outside",
                Some(o.message.clone()),
                o.stationary
                    .iter()
                    .map(|s| RootInfo {
                        c: s.fit.c0,
                        kind: s.kind,
                        objective: s.fit.objective,
                        norm_h: s.fit.norm_h,
                    })
                    .collect(),
                Some(o.zero_objective),
                o.minimizer,
            ),
        };
        let zero_obj = self.model.y().norm_squared() / self.model.n() as f64;
        Summary {
            n: self.data.n(),
            d: self.data.d(),
            kernel: format!("{:?}", self.model.kernel()),
            eigen_ms,
            refit_ms: self.refit_ms,
            m: self.spec.m,
            lambda: self.spec.lambda,
            kind,
            c0: best.map(|f| f.c0),
            norm_h: best.map(|f| f.norm_h).unwrap_or(0.0),
            lambda2: best.map(|f| f.lambda2),
            iterations: best.map(|f| f.iterations).unwrap_or(0),
            f_residual: best.map(|f| f.f_residual),
            objective: best.map(|f| f.objective).unwrap_or(zero_obj),
            krr_norm_h: self.krr.as_ref().map(|k| k.norm_h),
            message,
            roots,
            zero_objective,
            minimizer,
            warning: self.model.singularity().map(|s| s.message.clone()),
            digest: self.data.digest(),
        }
    }

    /// The fit plot's curves: on `points` grid points over the data's range for 1-D data, or
    /// the fitted values at the samples.
    pub fn fit_curves(&self, points: usize) -> Result<FitCurves> {
        let alpha = self.outcome.best_alpha(self.model.n());
        let removed = self.removed()?;
        if self.data.d() == 1 {
            let xs: Vec<f64> = self.data.x.column(0).iter().copied().collect();
            let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - 1.0, lo + 1.0) };
            let grid = curve_grid(lo, hi, points)?;
            let mrlsr = self.model.predict(&alpha, &grid)?.as_slice().to_vec();
            let krr = match &self.krr {
                Some(k) => Some(self.model.predict(&k.alpha, &grid)?.as_slice().to_vec()),
                None => None,
            };
            let g: Vec<f64> = grid.column(0).iter().copied().collect();
            let truth = matches!(self.spec.data, DataSpec::Sine { .. })
                .then(|| g.iter().map(|&x| Sine1d::target(x)).collect());
            let removed = removed.map(|r| (r.x[0], r.y));
            Ok(FitCurves::OneD { xs, grid: g, truth, krr, mrlsr, removed })
        } else {
            let fitted: DVector<f64> = self.model.gram() * &alpha;
            let krr = self.krr.as_ref().map(|k| k.fitted.as_slice().to_vec());
            let removed = match removed {
                Some(r) => {
                    let at = DMatrix::from_row_slice(1, r.x.len(), &r.x);
                    Some((r.y, self.model.predict(&alpha, &at)?[0]))
                }
                None => None,
            };
            Ok(FitCurves::Fitted { mrlsr: fitted.as_slice().to_vec(), krr, removed })
        }
    }

    /// The point the spec's `drop` left out, if any (the generated data rebuilt: O(n d)).
    pub fn removed(&self) -> Result<Option<RemovedPoint>> {
        match self.spec.data {
            DataSpec::Sine { drop: Some(_), .. } | DataSpec::Friedman { drop: Some(_), .. } => {
                Ok(build_data_and_removed(&self.spec.data, usize::MAX)?.1)
            }
            _ => Ok(None),
        }
    }

    /// F(C) of eq. 6 sampled over a range that holds every positive root, and the minimizer's
    /// C₀ (the page's F plot).
    pub fn f_samples(&self, samples: usize) -> Result<(FSamples, Option<f64>)> {
        let (lo, hi) = self.model.auto_c_range(self.spec.m, self.spec.lambda)?;
        let s = self.model.sample_f(self.spec.m, self.spec.lambda, lo, hi, samples)?;
        Ok((s, self.outcome.best_fit().map(|f| f.c0)))
    }

    /// Fig. 1 on this data and kernel at the current m (> 1): `parts` parts, λ chosen on Z₁ by
    /// k-fold CV over the paper's λ grid (1e-7..1e2, 10 values), λ₂ from Z₁. The folds are
    /// reduced to fit small parts (at most `folds`, at least 2 test samples each, at least 2).
    /// The values are checked first as the spec's `equivalence` section
    /// ([`MrlsrEquivalenceSpec::check`]), each refusal naming its path (`equivalence.parts`).
    pub fn equivalence(&self, parts: usize, folds: usize, seed: u64) -> Result<EquivalenceReport> {
        equivalence_section(parts, folds, seed).check(&self.spec, self.data.n())?.run()
    }
}

impl MrlsrSession {
    /// The root search of the current fit's (m, λ), nothing stepped ([`RootWatch`]).
    pub fn root_watch(&self) -> Result<RootWatch> {
        RootWatch::new(self.model.clone(), self.spec.m, self.spec.lambda)
    }
}

impl MrlsrSession {
    /// One refit of `sweep`: at its next point. A point inside the sweep the core refuses
    /// (an m ≤ 1 where F has no usable root, say) keeps the previous fit and the sweep goes
    /// on; the target's refusal is returned. Returns whether points remain.
    pub fn sweep_step(&mut self, sweep: &mut ParamSweep) -> Result<bool> {
        if sweep.ended() {
            return Ok(false);
        }
        let (m, lambda) = sweep.advance();
        match self.refit(m, lambda) {
            Err(e) if sweep.ended() => Err(e),
            _ => Ok(!sweep.ended()),
        }
    }

    /// Back to the sweep's start: the fit at its first point, nothing done.
    pub fn sweep_reset(&mut self, sweep: &mut ParamSweep) -> Result<()> {
        let (m, lambda) = sweep.rewind();
        self.refit(m, lambda)
    }

    /// Every remaining point of `sweep` at once (`kplay`'s and the tests' path).
    pub fn sweep_to_end(&mut self, sweep: &mut ParamSweep) -> Result<()> {
        while self.sweep_step(sweep)? {}
        Ok(())
    }
}

/// The `equivalence` section of `parts` parts, at most `folds` folds and the split's `seed`, at
/// the spec's m over the paper's λ grid.
fn equivalence_section(parts: usize, folds: usize, seed: u64) -> MrlsrEquivalenceSpec {
    MrlsrEquivalenceSpec {
        m: None,
        parts: Some(parts),
        folds: Some(folds),
        seed: Some(seed),
        lambdas: None,
    }
}

/// Fig. 1 (Section 4.3) on a checked spec's data and kernel at its m (> 1): `parts` parts, λ
/// chosen on Z₁ by k-fold CV over the paper's λ grid (1e-7..1e2, 10 values), λ₂ from Z₁; the
/// folds reduced to fit small parts (at most `folds`, at least 2 test samples each, at least 2).
/// The values are checked as the spec's `equivalence` section first
/// ([`MrlsrEquivalenceSpec::check`]), each refusal naming its path.
pub fn equivalence(
    checked: &MrlsrChecked,
    parts: usize,
    folds: usize,
    seed: u64,
) -> Result<EquivalenceReport> {
    equivalence_section(parts, folds, seed).check(checked.spec(), checked.data().n())?.run()
}

/// The eigendecomposition a worker computes for a checked spec, from the data and Gram matrix
/// the page builds ([`EigenPayload::compute`]), and the data's digest.
pub fn page_eigen(checked: &MrlsrChecked) -> Result<(EigenPayload, String)> {
    let (spec, data) = (checked.spec(), checked.data());
    let kernel = spec.kernel.resolve(&data.x)?;
    let payload = EigenPayload::compute(&data.x, &data.y, kernel)?;
    Ok((payload, data.digest()))
}

/// Time (ms) to build the model — Gram matrix plus symmetric eigendecomposition — on the
/// synthetic set (Friedman #1) of size n, Gaussian kernel (the browser benchmark; any n).
pub fn time_eigen(n: usize, seed: u64) -> Result<f64> {
    let data = Friedman1 { n, sigma: 1.0, seed }.generate()?;
    let kernel = Kernel::gaussian(Bandwidth::Heuristic);
    let t0 = web_time::Instant::now();
    let model = MrlsrModel::from_dataset(&data, &kernel)?;
    let dt = elapsed_ms(t0);
    drop(model);
    Ok(dt)
}

/// Mean time (ms) of one m-slider refit (Theorem 1 root solve + α) on the synthetic set of
/// size n, over `reps` refits cycling m through 1.2, 1.5, 3 at λ = 1e-3.
pub fn time_refit(n: usize, reps: usize, seed: u64) -> Result<f64> {
    let data = Friedman1 { n, sigma: 1.0, seed }.generate()?;
    let kernel = Kernel::gaussian(Bandwidth::Heuristic);
    let model = MrlsrModel::from_dataset(&data, &kernel)?;
    let ms = [1.2, 1.5, 3.0];
    let reps = reps.max(1);
    let t0 = web_time::Instant::now();
    for r in 0..reps {
        model.fit_theorem1(ms[r % 3], 1e-3)?;
    }
    Ok(elapsed_ms(t0) / reps as f64)
}

/// Fit at (m, λ) and KRR at the λ₂ of Proposition 5.1 when the fit is not 0; the fit's time.
fn fit_with_krr(
    model: &MrlsrModel,
    m: f64,
    lambda: f64,
) -> Result<(MrlsrOutcome, Option<MrlsrFit>, f64)> {
    let t0 = web_time::Instant::now();
    let outcome = model.fit(m, lambda)?;
    let refit_ms = elapsed_ms(t0);
    let krr = krr_beside(model, &outcome)?;
    Ok((outcome, krr, refit_ms))
}

/// KRR at the λ₂ of Proposition 5.1 beside a fit, when the fit is not 0.
fn krr_beside(model: &MrlsrModel, outcome: &MrlsrOutcome) -> Result<Option<MrlsrFit>> {
    Ok(match outcome.best_fit() {
        Some(f) if f.lambda2.is_finite() && f.lambda2 > 0.0 => Some(model.krr(f.lambda2)?),
        _ => None,
    })
}

/// Where a [`SessionAdoption`] is.
enum AdoptStage {
    /// Finishing K in blocks of columns.
    Gram { job: CrossJob, kernel: ResolvedKernel, values: Vec<f64> },
    /// Copying and checking the worker's decomposition ([`EigenAdoption`]).
    Eigen(Box<EigenAdoption>),
    /// The first fit at (m, λ).
    Fit(MrlsrModel),
    /// KRR at λ₂ beside it.
    Krr { model: MrlsrModel, outcome: MrlsrOutcome, refit_ms: f64 },
    /// The session, ready.
    Done(Box<MrlsrSession>),
}

/// Paper B's session built from a worker's eigendecomposition by a page's main thread in
/// slices of a few ms ([`Self::advance`], one O(n²) pass at most per unit): K finished in
/// blocks of columns (or taken from the page's [`GramBuild`]), the worker's Q copied in and
/// checked ([`EigenAdoption`]: the probes of [`EigenPayload::check_against`], step by step),
/// then the first fit and KRR beside it. The session equals [`MrlsrSession::with_gram_and_eigen`]'s
/// (issue 36: that one call was a 0.4 s main-thread task at n = 2 000).
pub struct SessionAdoption {
    spec: MrlsrSpec,
    data: Dataset,
    stage: Option<AdoptStage>,
    vectors: usize,
    failed: Option<KpError>,
}

impl SessionAdoption {
    /// Take the checked spec and its data, and K from `gram` if it belongs to the same data
    /// and kernel (else start building it here); `values` are the worker's eigenvalues,
    /// `vectors` the number of eigenvector entries it sent (n², checked with the rest).
    pub fn new(
        checked: MrlsrChecked,
        gram: Option<&mut GramBuild>,
        values: Vec<f64>,
        vectors: usize,
    ) -> Result<Self> {
        let (spec, data) = checked.into_spec_and_data();
        let kernel = spec.kernel.resolve(&data.x)?;
        let job = match gram.map(|g| g.take_job_for(&spec)).transpose()?.flatten() {
            Some(job) => job,
            None => CrossJob::gram(kernel.clone(), data.x.clone())?,
        };
        Ok(Self {
            spec,
            data,
            stage: Some(AdoptStage::Gram { job, kernel, values }),
            vectors,
            failed: None,
        })
    }

    /// Whether the session is ready ([`Self::finish`]).
    pub fn is_done(&self) -> bool {
        matches!(self.stage, Some(AdoptStage::Done(_)))
    }

    /// A rough fraction done, for a progress readout (K, then the adoption, then the fit).
    pub fn fraction(&self) -> f64 {
        match &self.stage {
            Some(AdoptStage::Gram { job, .. }) => 0.3 * job.fraction(),
            Some(AdoptStage::Eigen(a)) => 0.3 + 0.6 * a.fraction(),
            Some(AdoptStage::Fit(_)) => 0.9,
            Some(AdoptStage::Krr { .. }) => 0.95,
            Some(AdoptStage::Done(_)) => 1.0,
            None => 0.0,
        }
    }

    /// Work for up to `budget_ms` (at least one unit); `source(offset, dst)` writes the
    /// worker's eigenvector entries `vectors[offset .. offset + dst.len()]` into `dst`. True
    /// when the session is ready. A refusal is returned, and again on every later call.
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
            self.stage = None;
            return Err(e);
        }
        Ok(self.is_done())
    }

    /// One unit of work; false when the session is ready.
    fn unit(&mut self, source: &mut dyn FnMut(usize, &mut [f64])) -> Result<bool> {
        let Some(stage) = self.stage.take() else {
            return Err(KpError::Parameter {
                name: "eigendecomposition",
                reason: "the adoption was already refused".into(),
            });
        };
        let (next, more) = match stage {
            AdoptStage::Gram { mut job, kernel, values } => {
                if job.advance(0.0)? {
                    let k = job.finish()?;
                    let (x, y) = (&self.data.x, &self.data.y);
                    let a = EigenAdoption::new(x, y, kernel, k, values, self.vectors)?;
                    (AdoptStage::Eigen(Box::new(a)), true)
                } else {
                    (AdoptStage::Gram { job, kernel, values }, true)
                }
            }
            AdoptStage::Eigen(mut a) => {
                if a.is_done() {
                    (AdoptStage::Fit((*a).finish()?), true)
                } else {
                    a.advance(0.0, source)?;
                    (AdoptStage::Eigen(a), true)
                }
            }
            AdoptStage::Fit(model) => {
                let t0 = web_time::Instant::now();
                let outcome = model.fit(self.spec.m, self.spec.lambda)?;
                (AdoptStage::Krr { model, outcome, refit_ms: elapsed_ms(t0) }, true)
            }
            AdoptStage::Krr { model, outcome, refit_ms } => {
                let krr = krr_beside(&model, &outcome)?;
                let session = MrlsrSession {
                    spec: self.spec.clone(),
                    data: self.data.clone(),
                    model: Arc::new(model),
                    outcome,
                    krr,
                    refit_ms,
                };
                (AdoptStage::Done(Box::new(session)), true)
            }
            AdoptStage::Done(s) => (AdoptStage::Done(s), false),
        };
        self.stage = Some(next);
        Ok(more)
    }

    /// The session, once ready; the data's digest and the fit equal
    /// [`MrlsrSession::with_gram_and_eigen`]'s.
    pub fn finish(self) -> Result<MrlsrSession> {
        match self.stage {
            Some(AdoptStage::Done(s)) => Ok(*s),
            _ => Err(self.failed.unwrap_or_else(|| KpError::Parameter {
                name: "eigendecomposition",
                reason: "the adoption is not finished".into(),
            })),
        }
    }
}

/// A spec's Gram matrix built in slices (one [`CrossJob`] block per `advance`) while a worker
/// computes the eigendecomposition; handed to [`MrlsrSession::with_gram_and_eigen`].
pub struct GramBuild {
    data: DataSpec,
    kernel: Kernel,
    job: Option<CrossJob>,
}

impl GramBuild {
    /// Allocate K of the checked spec's data and kernel (after the budget check).
    pub fn new(checked: &MrlsrChecked) -> Result<Self> {
        let (spec, data) = (checked.spec(), checked.data());
        let rk = spec.kernel.resolve(&data.x)?;
        let job = CrossJob::gram(rk, data.x.clone())?;
        Ok(Self { data: spec.data.clone(), kernel: spec.kernel.clone(), job: Some(job) })
    }

    /// Build for up to `budget_ms` (at least one block); true when K is complete.
    pub fn advance(&mut self, budget_ms: f64) -> Result<bool> {
        match &mut self.job {
            Some(j) => j.advance(budget_ms),
            None => Ok(true),
        }
    }

    /// The fraction of K computed.
    pub fn fraction(&self) -> f64 {
        self.job.as_ref().map(CrossJob::fraction).unwrap_or(1.0)
    }

    /// K, if it belongs to `spec`'s data and kernel (completed here if unfinished); `None`
    /// otherwise. K is handed out once.
    pub fn take_for(&mut self, spec: &MrlsrSpec) -> Result<Option<DMatrix<f64>>> {
        self.take_job_for(spec)?.map(CrossJob::finish).transpose()
    }

    /// K's job as it stands (complete or not), if it belongs to `spec`'s data and kernel, for a
    /// [`SessionAdoption`] to finish in slices; `None` otherwise. Handed out once.
    pub fn take_job_for(&mut self, spec: &MrlsrSpec) -> Result<Option<CrossJob>> {
        if spec.data != self.data || spec.kernel != self.kernel {
            return Ok(None);
        }
        match self.job.take() {
            Some(job) => Ok(Some(job)),
            None => Err(KpError::Parameter {
                name: "gram",
                reason: "this Gram matrix was already used".into(),
            }),
        }
    }
}

/// A [`SessionAdoption`] with the source of the worker's values: the executor's [`Task`], sliced by
/// [`run_task_for`].
struct Fed<'a> {
    adoption: &'a mut SessionAdoption,
    source: &'a mut dyn FnMut(usize, &mut [f64]),
}

impl Task for Fed<'_> {
    type Error = KpError;
    fn unit(&mut self) -> Result<Progress> {
        Ok(if self.adoption.unit(self.source)? { Progress::More } else { Progress::Done })
    }
}

impl Task for cv::ModelSelectionRun {
    type Error = KpError;
    /// One unit of the cross-validation ([`cv::ModelSelectionRun::step`]); done once every fold is.
    fn unit(&mut self) -> Result<Progress> {
        if self.is_complete() {
            return Ok(Progress::Done);
        }
        self.step()?;
        Ok(Progress::More)
    }
}
