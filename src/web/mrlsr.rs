//! The wasm shell of paper B's page (M-RLSR and kernel ridge): JSON spec in, serde summaries
//! out, plots drawn by [`crate::plot_mrlsr`]. No mathematics here: every number comes from
//! [`crate::solvers::mrlsr`] and [`crate::cv`].

use nalgebra::DVector;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use super::{js_err, to_js};
use web_sys::HtmlCanvasElement;

use crate::cv::{
    self, CvGrid, EquivalenceConfig, EquivalenceReport, ModelSelection, ModelSelectionConfig,
    ModelSelectionRun,
};
use crate::data::Dataset;
use crate::datasets::regression::{curve_grid, Friedman1, Sine1d};
use crate::engine::mrlsr::{DataSpec, MrlsrSpec, PAGE_MAX_N};
use crate::engine::{self, Paper, Spec};
use crate::kernels::{CrossJob, Kernel};
use crate::plot_mrlsr::{self as plot, Curve};
use crate::solvers::mrlsr::{EigenPayload, MrlsrFit, MrlsrModel, MrlsrOutcome, StationaryKind};

/// Points of the drawn 1-D curves.
const CURVE_POINTS: usize = 300;

/// Samples of F for its plot.
const F_SAMPLES: usize = 400;

/// Milliseconds since the first call, in a window or a Web Worker alike (web-time reads the
/// global `performance`, which workers have; `window` they do not).
fn now_ms() -> f64 {
    thread_local!(static ORIGIN: web_time::Instant = web_time::Instant::now());
    ORIGIN.with(|o| o.elapsed().as_secs_f64() * 1e3)
}

fn backend(canvas: HtmlCanvasElement) -> Result<CanvasBackend, JsError> {
    CanvasBackend::with_canvas_object(canvas).ok_or_else(|| js_err("no 2-D context on the canvas"))
}

/// The page's spec is the engine's paper-B spec (tagged `"paper": "mrlsr"` or untagged).
fn parse(spec_json: &str) -> Result<MrlsrSpec, JsError> {
    match Spec::from_json_for(Paper::Mrlsr, spec_json).map_err(js_err)? {
        Spec::Mrlsr(s) => Ok(s),
        _ => Err(js_err("paper: not a paper-B spec")),
    }
}

fn build_data(spec: &DataSpec) -> Result<Dataset, JsError> {
    engine::mrlsr::build_data(spec, PAGE_MAX_N).map_err(js_err)
}

/// One row of the readouts for a stationary point (m ≤ 1).
#[derive(Serialize)]
struct RootInfo {
    c: f64,
    kind: StationaryKind,
    objective: f64,
    norm_h: f64,
}

/// What the page shows after a fit.
#[derive(Serialize)]
struct Summary {
    n: usize,
    d: usize,
    kernel: String,
    eigen_ms: f64,
    refit_ms: f64,
    m: f64,
    lambda: f64,
    /// "theorem1" (m > 1) or "outside" (m ≤ 1).
    kind: &'static str,
    /// C₀ of the reported fit (the minimizer), None when f = 0 is the minimizer.
    c0: Option<f64>,
    norm_h: f64,
    lambda2: Option<f64>,
    iterations: usize,
    f_residual: Option<f64>,
    objective: f64,
    krr_norm_h: Option<f64>,
    /// Outside Theorem 1: the core's explanation, the roots, f = 0's objective, the minimizer.
    message: Option<String>,
    roots: Vec<RootInfo>,
    zero_objective: Option<f64>,
    minimizer: Option<usize>,
    /// Singular-K warning (the core proceeds).
    warning: Option<String>,
    digest: String,
}

/// A spec's Gram matrix built in slices on the main thread (one [`CrossJob`] block per
/// `advance`), while the worker computes the eigendecomposition; handed to
/// [`MrlsrPage::from_eigen_and_gram`] so adopting the worker's result does not block the page
/// with an O(n²) kernel build (issue 13: no main-thread task over 200 ms).
#[wasm_bindgen]
pub struct MrlsrGram {
    data: DataSpec,
    kernel: Kernel,
    job: Option<CrossJob>,
}

#[wasm_bindgen]
impl MrlsrGram {
    /// Validate the spec, generate the data and allocate K (after the budget check).
    #[wasm_bindgen(constructor)]
    pub fn new(spec_json: &str) -> Result<MrlsrGram, JsError> {
        let spec = parse(spec_json)?;
        let data = build_data(&spec.data)?;
        let rk = spec.kernel.resolve(&data.x).map_err(js_err)?;
        let job = CrossJob::gram(rk, data.x).map_err(js_err)?;
        Ok(Self { data: spec.data, kernel: spec.kernel, job: Some(job) })
    }

    /// Build for up to `budget_ms` (at least one block); true when K is complete.
    pub fn advance(&mut self, budget_ms: f64) -> Result<bool, JsError> {
        match &mut self.job {
            Some(j) => j.advance(budget_ms).map_err(js_err),
            None => Ok(true),
        }
    }

    /// The fraction of K computed.
    pub fn fraction(&self) -> f64 {
        self.job.as_ref().map(CrossJob::fraction).unwrap_or(1.0)
    }
}

/// Paper B's page state: the data, the cached eigendecomposition and the current fits.
#[wasm_bindgen]
pub struct MrlsrPage {
    spec_data: DataSpec,
    kernel: Kernel,
    data: Dataset,
    model: MrlsrModel,
    eigen_ms: f64,
    m: f64,
    lambda: f64,
    outcome: MrlsrOutcome,
    krr: Option<MrlsrFit>,
    refit_ms: f64,
    equivalence: Option<EquivalenceReport>,
}

fn fit_with_krr(
    model: &MrlsrModel,
    m: f64,
    lambda: f64,
) -> Result<(MrlsrOutcome, Option<MrlsrFit>, f64), JsError> {
    let t0 = now_ms();
    let outcome = model.fit(m, lambda).map_err(js_err)?;
    let refit_ms = now_ms() - t0;
    let krr = match outcome.best_fit() {
        Some(f) if f.lambda2.is_finite() && f.lambda2 > 0.0 => {
            Some(model.krr(f.lambda2).map_err(js_err)?)
        }
        _ => None,
    };
    Ok((outcome, krr, refit_ms))
}

#[wasm_bindgen]
impl MrlsrPage {
    /// Validate the spec, build the data, the Gram matrix and its eigendecomposition (the one
    /// O(n³) step, timed), then fit at (m, λ).
    #[wasm_bindgen(constructor)]
    pub fn new(spec_json: &str) -> Result<MrlsrPage, JsError> {
        let spec = parse(spec_json)?;
        let data = build_data(&spec.data)?;
        let t0 = now_ms();
        let model = MrlsrModel::from_dataset(&data, &spec.kernel).map_err(js_err)?;
        let eigen_ms = now_ms() - t0;
        Self::fitted(spec, data, model, eigen_ms)
    }

    /// The page state of a model: fit at the spec's (m, λ), with KRR beside it.
    fn fitted(
        spec: MrlsrSpec,
        data: Dataset,
        model: MrlsrModel,
        eigen_ms: f64,
    ) -> Result<MrlsrPage, JsError> {
        let eigen_ms = if eigen_ms.is_finite() && eigen_ms >= 0.0 { eigen_ms } else { f64::NAN };
        let (outcome, krr, refit_ms) = fit_with_krr(&model, spec.m, spec.lambda)?;
        Ok(Self {
            spec_data: spec.data,
            kernel: spec.kernel,
            data,
            model,
            eigen_ms,
            m: spec.m,
            lambda: spec.lambda,
            outcome,
            krr,
            refit_ms,
            equivalence: None,
        })
    }

    /// As the constructor, but adopt the eigendecomposition computed by [`mrlsr_eigen`] (in a
    /// Web Worker) instead of computing it: `values` (n) and `vectors` (n², column-major:
    /// eigenvector j is `vectors[j·n..(j+1)·n]`). The data and Gram matrix are rebuilt here from
    /// the spec (O(n²)) and the payload is checked against them
    /// ([`EigenPayload::check_against`]); `eigen_ms` is the worker's timing, shown as such.
    #[wasm_bindgen(js_name = fromEigen)]
    pub fn from_eigen(
        spec_json: &str,
        values: Vec<f64>,
        vectors: Vec<f64>,
        eigen_ms: f64,
    ) -> Result<MrlsrPage, JsError> {
        let spec = parse(spec_json)?;
        let data = build_data(&spec.data)?;
        let payload = EigenPayload { n: values.len(), values, vectors };
        let model =
            MrlsrModel::from_dataset_with_eigen(&data, &spec.kernel, payload).map_err(js_err)?;
        Self::fitted(spec, data, model, eigen_ms)
    }

    /// [`Self::from_eigen`] with the Gram matrix taken from `gram` (built in slices on the
    /// main thread while the worker ran, [`MrlsrGram`]) when it belongs to the same data and
    /// kernel; otherwise (or if unfinished) it is completed or rebuilt here.
    #[wasm_bindgen(js_name = fromEigenAndGram)]
    pub fn from_eigen_and_gram(
        spec_json: &str,
        values: Vec<f64>,
        vectors: Vec<f64>,
        eigen_ms: f64,
        gram: &mut MrlsrGram,
    ) -> Result<MrlsrPage, JsError> {
        let spec = parse(spec_json)?;
        if spec.data != gram.data || spec.kernel != gram.kernel {
            return Self::from_eigen(spec_json, values, vectors, eigen_ms);
        }
        let job = gram.job.take().ok_or_else(|| js_err("this Gram matrix was already used"))?;
        let k = job.finish().map_err(js_err)?;
        let data = build_data(&spec.data)?;
        let rk = spec.kernel.resolve(&data.x).map_err(js_err)?;
        let payload = EigenPayload { n: values.len(), values, vectors };
        let model =
            MrlsrModel::with_gram_and_eigen(&data.x, &data.y, rk, k, payload).map_err(js_err)?;
        Self::fitted(spec, data, model, eigen_ms)
    }

    /// True if `spec_json` has the same data and kernel as this page (so only m, λ changed and
    /// no eigendecomposition is needed).
    #[wasm_bindgen(js_name = sameModel)]
    pub fn same_model(&self, spec_json: &str) -> bool {
        match parse(spec_json) {
            Ok(s) => s.data == self.spec_data && s.kernel == self.kernel,
            Err(_) => false,
        }
    }

    /// Refit at a new (m, λ) from the cached eigendecomposition: only the scalar root-solve
    /// for C₀ and α = Qα' run (Theorem 1). On bad input the previous fit is kept.
    pub fn refit(&mut self, m: f64, lambda: f64) -> Result<JsValue, JsError> {
        let (outcome, krr, refit_ms) = fit_with_krr(&self.model, m, lambda)?;
        self.m = m;
        self.lambda = lambda;
        self.outcome = outcome;
        self.krr = krr;
        self.refit_ms = refit_ms;
        self.summary()
    }

    /// The readouts of the current fit.
    pub fn summary(&self) -> Result<JsValue, JsError> {
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
        to_js(&Summary {
            n: self.data.n(),
            d: self.data.d(),
            kernel: format!("{:?}", self.model.kernel()),
            eigen_ms: self.eigen_ms,
            refit_ms: self.refit_ms,
            m: self.m,
            lambda: self.lambda,
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
        })
    }

    /// Draw the data with the M-RLSR and KRR(λ₂) curves (1-D data), or predicted against true
    /// targets (more features).
    #[wasm_bindgen(js_name = drawFit)]
    pub fn draw_fit(&self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let root = backend(canvas)?.into_drawing_area();
        let n = self.model.n();
        let alpha = self.outcome.best_alpha(n);
        let mlabel = format!("M-RLSR (m = {:.2}, λ = {:.2e})", self.m, self.lambda);
        let klabel = match &self.krr {
            Some(k) => format!("KRR (λ₂ = {:.2e})", k.lambda),
            None => "KRR (no λ₂: f = 0)".to_string(),
        };
        if self.data.d() == 1 {
            let xs: Vec<f64> = self.data.x.column(0).iter().copied().collect();
            let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - 1.0, lo + 1.0) };
            let grid = curve_grid(lo, hi, CURVE_POINTS).map_err(js_err)?;
            let fm = self.model.predict(&alpha, &grid).map_err(js_err)?;
            let fk = match &self.krr {
                Some(k) => Some(self.model.predict(&k.alpha, &grid).map_err(js_err)?),
                None => None,
            };
            let g: Vec<f64> = grid.column(0).iter().copied().collect();
            let truth: Option<Vec<f64>> = matches!(self.spec_data, DataSpec::Sine { .. })
                .then(|| g.iter().map(|&x| Sine1d::target(x)).collect());
            let mut curves = Vec::new();
            if let Some(t) = &truth {
                curves.push(Curve {
                    label: "truth sin(2πx)".into(),
                    values: t,
                    color: plot::DATA_COLOR,
                    dashed: true,
                    width: 1.5,
                });
            }
            if let Some(k) = &fk {
                curves.push(Curve {
                    label: klabel,
                    values: k.as_slice(),
                    color: plot::KRR_WIDE_COLOR,
                    dashed: false,
                    width: 6.0,
                });
            }
            curves.push(Curve {
                label: mlabel,
                values: fm.as_slice(),
                color: plot::MRLSR_COLOR,
                dashed: false,
                width: 2.0,
            });
            plot::draw_fit_1d(&root, &xs, self.data.y.as_slice(), &g, &curves, dpr).map_err(js_err)
        } else {
            let fitted: DVector<f64> = self.model.gram() * &alpha;
            let fk = self.krr.as_ref().map(|k| k.fitted.as_slice());
            plot::draw_pred_vs_true(
                &root,
                self.data.y.as_slice(),
                fitted.as_slice(),
                fk,
                (&mlabel, &klabel),
                dpr,
            )
            .map_err(js_err)
        }
    }

    /// Draw F(C) (eq. 6) over a range that holds every positive root, roots marked and the
    /// minimizer filled.
    #[wasm_bindgen(js_name = drawF)]
    pub fn draw_f(&self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let (lo, hi) = self.model.auto_c_range(self.m, self.lambda).map_err(js_err)?;
        let samples =
            self.model.sample_f(self.m, self.lambda, lo, hi, F_SAMPLES).map_err(js_err)?;
        let minimizer = self.outcome.best_fit().map(|f| f.c0);
        let root = backend(canvas)?.into_drawing_area();
        plot::draw_f(&root, &samples, minimizer, dpr).map_err(js_err)
    }

    /// Fig. 1 on the current data and kernel at the current m (> 1): parts Z₁..Z_parts, λ
    /// chosen on Z₁ by k-fold CV over the paper's λ grid (1e-7..1e2, 10 values), λ₂ from Z₁.
    /// The folds are reduced to fit small parts (at most 10, at least 2 test samples each).
    pub fn equivalence(
        &mut self,
        parts: usize,
        folds: usize,
        seed: u32,
    ) -> Result<JsValue, JsError> {
        let mut cfg = EquivalenceConfig::paper(seed as u64);
        cfg.m = self.m;
        cfg.parts = parts;
        let part_n = self.data.n() / parts.max(1);
        cfg.folds = folds.min(part_n / 2).max(2);
        let report = cv::equivalence_experiment(&self.data, &self.kernel, &cfg).map_err(js_err)?;
        let out = to_js(&report);
        self.equivalence = Some(report);
        out
    }

    /// Draw the last equivalence experiment: bars of ‖f_MRLSR − f_KRR(λ₂)‖_H per part and the
    /// λ → λ₂ curves.
    #[wasm_bindgen(js_name = drawEquivalence)]
    pub fn draw_equivalence(
        &self,
        bars: HtmlCanvasElement,
        curves: HtmlCanvasElement,
        dpr: f64,
    ) -> Result<(), JsError> {
        let rep = self
            .equivalence
            .as_ref()
            .ok_or_else(|| js_err("run the equivalence experiment first"))?;
        let values: Vec<f64> = rep.parts.iter().map(|p| p.diff_rkhs).collect();
        plot::draw_equivalence_bars(&backend(bars)?.into_drawing_area(), &values, dpr)
            .map_err(js_err)?;
        plot::draw_lambda_curves(
            &backend(curves)?.into_drawing_area(),
            &rep.lambdas,
            &rep.curves,
            (rep.lambda, rep.lambda2),
            dpr,
        )
        .map_err(js_err)
    }
}

/// The page's settings of the Table-1 model selection.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct SelectionSpec {
    data: DataSpec,
    kernel: Kernel,
    #[serde(default)]
    config: Option<ModelSelectionConfig>,
    #[serde(default)]
    folds: Option<usize>,
}

/// Progress and, once done, the result of the model selection.
#[derive(Serialize)]
struct SelectionState<'a> {
    done: usize,
    total: usize,
    complete: bool,
    steps_this_call: usize,
    elapsed_ms: f64,
    result: Option<&'a ModelSelection>,
}

/// Table-1 model selection spread over frames ([`ModelSelectionRun`]).
#[wasm_bindgen]
pub struct MrlsrSelection {
    run: ModelSelectionRun,
    result: Option<ModelSelection>,
    elapsed_ms: f64,
}

#[wasm_bindgen]
impl MrlsrSelection {
    /// Build the data and start the run with the paper's grids (m 0.1..2.9 by 0.1, 7 λ,
    /// 25 λ₂, 70/30 split) unless `config` is given; `folds` overrides the 10 folds.
    #[wasm_bindgen(constructor)]
    pub fn new(spec_json: &str) -> Result<MrlsrSelection, JsError> {
        let spec: SelectionSpec =
            serde_json::from_str(spec_json).map_err(|e| js_err(format!("spec: {e}")))?;
        let data = build_data(&spec.data)?;
        let mut cfg = spec.config.unwrap_or_else(|| ModelSelectionConfig::paper(1));
        if let Some(k) = spec.folds {
            cfg.folds = k;
        }
        let run = ModelSelectionRun::new(&data, &spec.kernel, &cfg).map_err(js_err)?;
        Ok(Self { run, result: None, elapsed_ms: 0.0 })
    }

    /// Work for at most `budget_ms` (at least one unit), then report the progress; when the
    /// CV is complete, refit and score on the test part.
    #[wasm_bindgen(js_name = runFor)]
    pub fn run_for(&mut self, budget_ms: f64) -> Result<JsValue, JsError> {
        let t0 = now_ms();
        let run = &mut self.run;
        let k = crate::clock::try_within(budget_ms, || {
            if run.is_complete() {
                Ok(false)
            } else {
                run.step().map(|_| true)
            }
        })
        .map_err(js_err)?;
        if self.run.is_complete() && self.result.is_none() {
            self.result = Some(self.run.finish().map_err(js_err)?);
        }
        self.elapsed_ms += now_ms() - t0;
        self.state(k)
    }

    fn state(&self, k: usize) -> Result<JsValue, JsError> {
        let p = self.run.progress();
        to_js(&SelectionState {
            done: p.done,
            total: p.total,
            complete: self.result.is_some(),
            steps_this_call: k,
            elapsed_ms: self.elapsed_ms,
            result: self.result.as_ref(),
        })
    }

    /// The M-RLSR CV grid averaged over the folds done so far (null before the first fold
    /// completes), for a worker to post with its progress.
    #[wasm_bindgen(js_name = partialGrid)]
    pub fn partial_grid(&self) -> Result<JsValue, JsError> {
        match &self.result {
            Some(r) => to_js(&r.mrlsr_cv),
            None => match self.run.partial_grid(0) {
                Some(g) => to_js(&g),
                None => Ok(JsValue::NULL),
            },
        }
    }

    /// Draw the CV scaled RMSE heatmap over m × λ (partial while running).
    #[wasm_bindgen(js_name = drawHeatmap)]
    pub fn draw_heatmap(&self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let root = backend(canvas)?.into_drawing_area();
        let grid = match &self.result {
            Some(r) => Some(r.mrlsr_cv.clone()),
            None => self.run.partial_grid(0),
        };
        match grid {
            Some(g) => {
                let bi = g.ms.iter().position(|&m| m == g.best_m);
                let bj = g.lambdas.iter().position(|&l| l == g.best_lambda);
                let best = bi.zip(bj);
                plot::draw_heatmap(&root, &g.ms, &g.lambdas, &g.rmse, best, dpr).map_err(js_err)
            }
            None => {
                root.fill(&WHITE).map_err(js_err)?;
                root.present().map_err(js_err)
            }
        }
    }
}

/// Time (ms) to build the model — Gram matrix plus symmetric eigendecomposition — on the
/// synthetic set of size n (for the browser benchmark; above [`PAGE_MAX_N`] is allowed here).
#[wasm_bindgen(js_name = benchEigen)]
pub fn bench_eigen(n: usize, seed: u32) -> Result<f64, JsError> {
    let data = Friedman1 { n, sigma: 1.0, seed: seed as u64 }.generate().map_err(js_err)?;
    let kernel = Kernel::Gaussian { bandwidth: crate::kernels::Bandwidth::Heuristic };
    let t0 = now_ms();
    let model = MrlsrModel::from_dataset(&data, &kernel).map_err(js_err)?;
    let dt = now_ms() - t0;
    drop(model);
    Ok(dt)
}

/// Mean time (ms) of one m-slider refit (Theorem 1 root-solve + α) on the synthetic set of
/// size n, over `reps` refits cycling m through 1.2, 1.5, 3 at λ = 1e-3.
#[wasm_bindgen(js_name = benchRefit)]
pub fn bench_refit(n: usize, reps: usize, seed: u32) -> Result<f64, JsError> {
    let data = Friedman1 { n, sigma: 1.0, seed: seed as u64 }.generate().map_err(js_err)?;
    let kernel = Kernel::Gaussian { bandwidth: crate::kernels::Bandwidth::Heuristic };
    let model = MrlsrModel::from_dataset(&data, &kernel).map_err(js_err)?;
    let ms = [1.2, 1.5, 3.0];
    let reps = reps.max(1);
    let t0 = now_ms();
    for r in 0..reps {
        model.fit_theorem1(ms[r % 3], 1e-3).map_err(js_err)?;
    }
    Ok((now_ms() - t0) / reps as f64)
}

/// Check a page spec without the O(n³) step: parse it, build the data (within
/// [`PAGE_MAX_N`]) and resolve the kernel, so bad input is reported at once on the main thread
/// before a worker starts. Returns `{n, d, digest}`.
#[wasm_bindgen(js_name = checkMrlsrSpec)]
pub fn check_mrlsr_spec(spec_json: &str) -> Result<JsValue, JsError> {
    let spec = parse(spec_json)?;
    let data = build_data(&spec.data)?;
    spec.kernel.resolve(&data.x).map_err(js_err)?;
    #[derive(Serialize)]
    struct Checked {
        n: usize,
        d: usize,
        digest: String,
    }
    to_js(&Checked { n: data.n(), d: data.d(), digest: data.digest() })
}

/// The O(n³) step of [`MrlsrPage`] for a Web Worker: build the data and Gram matrix of the
/// spec exactly as the page does and decompose it ([`EigenPayload::compute`]). Returns
/// `{n, digest, eigen_ms, values: Float64Array, vectors: Float64Array}` (vectors column-major),
/// fresh JS buffers that the worker can transfer to the page for [`MrlsrPage::from_eigen`].
#[wasm_bindgen(js_name = mrlsrEigen)]
pub fn mrlsr_eigen(spec_json: &str) -> Result<JsValue, JsError> {
    let spec = parse(spec_json)?;
    let data = build_data(&spec.data)?;
    let t0 = now_ms();
    let kernel = spec.kernel.resolve(&data.x).map_err(js_err)?;
    let payload = EigenPayload::compute(&data.x, &data.y, kernel).map_err(js_err)?;
    let eigen_ms = now_ms() - t0;
    let out = js_sys::Object::new();
    let set = |k: &str, v: &JsValue| {
        js_sys::Reflect::set(&out, &JsValue::from_str(k), v)
            .map(|_| ())
            .map_err(|_| js_err("could not build the result object"))
    };
    set("n", &JsValue::from_f64(payload.n as f64))?;
    set("digest", &JsValue::from_str(&data.digest()))?;
    set("eigen_ms", &JsValue::from_f64(eigen_ms))?;
    set("values", &js_sys::Float64Array::from(payload.values.as_slice()).into())?;
    set("vectors", &js_sys::Float64Array::from(payload.vectors.as_slice()).into())?;
    Ok(out.into())
}

/// Fig. 1 for a Web Worker: the equivalence experiment of [`MrlsrPage::equivalence`] on the
/// spec's data, kernel and m (> 1), without a page. Returns the serialized report.
#[wasm_bindgen(js_name = mrlsrEquivalence)]
pub fn mrlsr_equivalence(
    spec_json: &str,
    parts: usize,
    folds: usize,
    seed: u32,
) -> Result<JsValue, JsError> {
    let spec = parse(spec_json)?;
    let data = build_data(&spec.data)?;
    let mut cfg = EquivalenceConfig::paper(seed as u64);
    cfg.m = spec.m;
    cfg.parts = parts;
    let part_n = data.n() / parts.max(1);
    cfg.folds = folds.min(part_n / 2).max(2);
    let report = cv::equivalence_experiment(&data, &spec.kernel, &cfg).map_err(js_err)?;
    to_js(&report)
}

/// The parts of a serialized [`EquivalenceReport`] that the plots need.
#[derive(Deserialize)]
struct EquivalenceDrawing {
    lambda: f64,
    lambda2: f64,
    lambdas: Vec<f64>,
    curves: Vec<Vec<f64>>,
    parts: Vec<PartDrawing>,
}

#[derive(Deserialize)]
struct PartDrawing {
    diff_rkhs: f64,
}

/// Draw a serialized equivalence report (from [`mrlsr_equivalence`], e.g. posted by a worker):
/// the bars of ‖f_MRLSR − f_KRR(λ₂)‖_H per part and the λ → λ₂ curves. The shape is checked.
#[wasm_bindgen(js_name = drawEquivalenceReport)]
pub fn draw_equivalence_report(
    bars: HtmlCanvasElement,
    curves: HtmlCanvasElement,
    report: JsValue,
    dpr: f64,
) -> Result<(), JsError> {
    let rep: EquivalenceDrawing = serde_wasm_bindgen::from_value(report)
        .map_err(|e| js_err(format!("equivalence report: {e}")))?;
    cv::check_lambda_curves(&rep.lambdas, &rep.curves).map_err(js_err)?;
    let values: Vec<f64> = rep.parts.iter().map(|p| p.diff_rkhs).collect();
    plot::draw_equivalence_bars(&backend(bars)?.into_drawing_area(), &values, dpr)
        .map_err(js_err)?;
    plot::draw_lambda_curves(
        &backend(curves)?.into_drawing_area(),
        &rep.lambdas,
        &rep.curves,
        (rep.lambda, rep.lambda2),
        dpr,
    )
    .map_err(js_err)
}

/// Draw a serialized CV grid (from [`MrlsrSelection::partial_grid`] or a finished model
/// selection's `mrlsr_cv`, e.g. posted by a worker) as the heatmap; the shape is checked.
#[wasm_bindgen(js_name = drawCvHeatmap)]
pub fn draw_cv_heatmap(canvas: HtmlCanvasElement, grid: JsValue, dpr: f64) -> Result<(), JsError> {
    let root = backend(canvas)?.into_drawing_area();
    if grid.is_null() || grid.is_undefined() {
        root.fill(&WHITE).map_err(js_err)?;
        return root.present().map_err(js_err);
    }
    let g: CvGrid =
        serde_wasm_bindgen::from_value(grid).map_err(|e| js_err(format!("CV grid: {e}")))?;
    let best = g.check().map_err(js_err)?;
    plot::draw_heatmap(&root, &g.ms, &g.lambdas, &g.rmse, Some(best), dpr).map_err(js_err)
}
