//! The wasm shell of paper B's page (M-RLSR and kernel ridge): JSON spec in, serde summaries
//! out, plots drawn by [`crate::plots::mrlsr`]. No mathematics and no page logic here: the
//! session is [`crate::papers::mrlsr`], the page's state (the sweep, its root search, the last
//! equivalence report) [`crate::papers::mrlsr::page::MrlsrPage`], the model selection and the
//! equivalence experiment [`crate::papers::mrlsr::cv`].

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use super::{js_err, js_object, to_js};
use web_sys::HtmlCanvasElement;

use crate::papers::mrlsr::cv::{self, CvGrid, ModelSelection, ModelSelectionRun};
use crate::papers::mrlsr::page::MrlsrPage as PageCore;
use crate::papers::mrlsr::{
    self, EigenPayload, FitCurves, GramBuild, MrlsrChecked, MrlsrSession, MrlsrSpec, NScan,
    NScanRun, RootWatch, ScanKind, SessionAdoption,
};
use crate::papers::{Paper, Spec};
use crate::plots::mrlsr::{self as plot, Curve};
use crate::plots::text::num;

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

/// The page's spec checked by the core within the page's budget ([`MrlsrChecked::for_page`]):
/// what every session, Gram build and worker job of the page starts from.
fn checked(spec_json: &str) -> Result<MrlsrChecked, JsError> {
    MrlsrChecked::for_page(&parse(spec_json)?).map_err(js_err)
}

/// A spec's Gram matrix built in slices on the main thread ([`GramBuild`]) while the worker
/// computes the eigendecomposition; handed to [`MrlsrPage::from_eigen_and_gram`] so adopting
/// the worker's result does not block the page with an O(n²) kernel build (issue 13: no
/// main-thread task over 200 ms).
#[wasm_bindgen]
pub struct MrlsrGram {
    build: GramBuild,
}

#[wasm_bindgen]
impl MrlsrGram {
    /// Validate the spec, generate the data and allocate K (after the budget check).
    #[wasm_bindgen(constructor)]
    pub fn new(spec_json: &str) -> Result<MrlsrGram, JsError> {
        Ok(Self { build: GramBuild::new(&checked(spec_json)?).map_err(js_err)? })
    }

    /// Build for up to `budget_ms` (at least one block); true when K is complete.
    pub fn advance(&mut self, budget_ms: f64) -> Result<bool, JsError> {
        self.build.advance(budget_ms).map_err(js_err)
    }

    /// The fraction of K computed.
    pub fn fraction(&self) -> f64 {
        self.build.fraction()
    }
}

/// A worker's eigendecomposition adopted on the page's main thread in slices of a few ms
/// ([`SessionAdoption`]): K finished from the page's [`MrlsrGram`], the worker's Q copied in
/// from its (transferred) buffer block by block and checked probe by probe, then the first fit
/// and KRR. The page calls [`Self::advance`] once per frame until it says done, then
/// [`Self::finish`] (issue 36: no main-thread task over 200 ms; the one-call
/// `MrlsrPage.fromEigenAndGram` was 0.2–0.4 s at n = 2 000).
#[wasm_bindgen]
pub struct MrlsrAdopt {
    adoption: SessionAdoption,
    vectors: js_sys::Float64Array,
    eigen_ms: f64,
    slices: usize,
}

#[wasm_bindgen]
impl MrlsrAdopt {
    /// Start adopting the worker's `values` (n) and `vectors` (n², column-major; kept as the JS
    /// array and copied in slices) for `spec_json`, taking K from `gram` when it belongs to the
    /// same data and kernel. `eigen_ms` is the worker's timing, shown as such.
    #[wasm_bindgen(constructor)]
    pub fn new(
        spec_json: &str,
        values: Vec<f64>,
        vectors: js_sys::Float64Array,
        eigen_ms: f64,
        gram: &mut MrlsrGram,
    ) -> Result<MrlsrAdopt, JsError> {
        let checked = checked(spec_json)?;
        let len = vectors.length() as usize;
        let adoption =
            SessionAdoption::new(checked, Some(&mut gram.build), values, len).map_err(js_err)?;
        Ok(Self { adoption, vectors, eigen_ms, slices: 0 })
    }

    /// Work for up to `budget_ms` (at least one unit, at most about one O(n²) pass); true when
    /// the page is ready for [`Self::finish`]. A refused payload: the error says why.
    pub fn advance(&mut self, budget_ms: f64) -> Result<bool, JsError> {
        self.slices += 1;
        let vectors = &self.vectors;
        let mut source = |offset: usize, dst: &mut [f64]| {
            vectors.subarray(offset as u32, (offset + dst.len()) as u32).copy_to(dst);
        };
        self.adoption.advance(budget_ms, &mut source).map_err(js_err)
    }

    /// The fraction done (K, the copy and check of Q, the first fit).
    pub fn fraction(&self) -> f64 {
        self.adoption.fraction()
    }

    /// Calls of [`Self::advance`] so far (a test reads that the adoption was sliced).
    pub fn slices(&self) -> usize {
        self.slices
    }

    /// The page, once [`Self::advance`] said done.
    pub fn finish(self) -> Result<MrlsrPage, JsError> {
        let session = self.adoption.finish().map_err(js_err)?;
        Ok(MrlsrPage::of(session, self.eigen_ms))
    }
}

/// How often this wasm instance (this thread) ran paper B's O(n³) eigendecomposition and the
/// whole payload check in one call: `{eigen, whole_checks}`. On a page's main thread both stay 0
/// (the worker decomposes; [`MrlsrAdopt`] checks in slices): the e2e tests read it as a state.
#[wasm_bindgen(js_name = mrlsrWholeMatrixCalls)]
pub fn mrlsr_whole_matrix_calls() -> Result<JsValue, JsError> {
    let (eigen, whole_checks) = crate::solvers::mrlsr::whole_matrix_calls();
    js_object(&[
        ("eigen", JsValue::from_f64(eigen as f64)),
        ("whole_checks", JsValue::from_f64(whole_checks as f64)),
    ])
}

/// Paper B's page: the core's page ([`crate::papers::mrlsr::page::MrlsrPage`]: the session,
/// the sweep, its root search, the last equivalence experiment), translated to JS and drawn.
#[wasm_bindgen]
pub struct MrlsrPage {
    page: PageCore,
}

#[wasm_bindgen]
impl MrlsrPage {
    /// Validate the spec, build the data, the Gram matrix and its eigendecomposition (the one
    /// O(n³) step, timed), then fit at (m, λ).
    #[wasm_bindgen(constructor)]
    pub fn new(spec_json: &str) -> Result<MrlsrPage, JsError> {
        let checked = checked(spec_json)?;
        let t0 = now_ms();
        let session = MrlsrSession::new(checked).map_err(js_err)?;
        Ok(Self::of(session, now_ms() - t0))
    }

    fn of(session: MrlsrSession, eigen_ms: f64) -> MrlsrPage {
        Self { page: PageCore::new(session, eigen_ms) }
    }

    /// As the constructor, but adopt the eigendecomposition computed by [`mrlsr_eigen`] (in a
    /// Web Worker) instead of computing it: `values` (n) and `vectors` (n², column-major:
    /// eigenvector j is `vectors[j·n..(j+1)·n]`), checked against K in the core;
    /// `eigen_ms` is the worker's timing, shown as such.
    #[wasm_bindgen(js_name = fromEigen)]
    pub fn from_eigen(
        spec_json: &str,
        values: Vec<f64>,
        vectors: Vec<f64>,
        eigen_ms: f64,
    ) -> Result<MrlsrPage, JsError> {
        let payload = EigenPayload { n: values.len(), values, vectors };
        let session = MrlsrSession::with_eigen(checked(spec_json)?, payload).map_err(js_err)?;
        Ok(Self::of(session, eigen_ms))
    }

    /// [`Self::from_eigen`] with the Gram matrix taken from `gram` (built in slices on the
    /// main thread while the worker ran, [`MrlsrGram`]) when it belongs to the same data and
    /// kernel; otherwise it is rebuilt here.
    #[wasm_bindgen(js_name = fromEigenAndGram)]
    pub fn from_eigen_and_gram(
        spec_json: &str,
        values: Vec<f64>,
        vectors: Vec<f64>,
        eigen_ms: f64,
        gram: &mut MrlsrGram,
    ) -> Result<MrlsrPage, JsError> {
        let checked = checked(spec_json)?;
        let Some(k) = gram.build.take_for(checked.spec()).map_err(js_err)? else {
            return Self::from_eigen(spec_json, values, vectors, eigen_ms);
        };
        let payload = EigenPayload { n: values.len(), values, vectors };
        let session = MrlsrSession::with_gram_and_eigen(checked, k, payload).map_err(js_err)?;
        Ok(Self::of(session, eigen_ms))
    }

    /// True if `spec_json` has the same data and kernel as this page (so only m, λ changed and
    /// no eigendecomposition is needed).
    #[wasm_bindgen(js_name = sameModel)]
    pub fn same_model(&self, spec_json: &str) -> bool {
        parse(spec_json).map(|s| self.page.same_model(&s)).unwrap_or(false)
    }

    /// Refit at a new (m, λ) from the cached eigendecomposition: only the scalar root-solve
    /// for C₀ and α = Qα' run (Theorem 1). On bad input the previous fit is kept.
    pub fn refit(&mut self, m: f64, lambda: f64) -> Result<JsValue, JsError> {
        self.page.refit(m, lambda).map_err(js_err)?;
        self.summary()
    }

    /// Start a sweep from the current (m, λ) to the given one in [`mrlsr::SWEEP_FRAMES`] refits
    /// ([`mrlsr::ParamSweep`]: λ on a log scale), then the root search at the target drawn on F(C)
    /// ([`RootWatch`], one Newton or bisection step per call); nothing is refitted until
    /// [`Self::sweep_step`]. The target is checked first (a message naming m or λ).
    #[wasm_bindgen(js_name = sweepTo)]
    pub fn sweep_to(&mut self, m: f64, lambda: f64) -> Result<(), JsError> {
        self.page.sweep_to(m, lambda).map_err(js_err)
    }

    /// One refit of the sweep (its next point) or, the target fitted, one step of the root
    /// search there; the summary of the fit shown. Without a sweep, the current summary.
    #[wasm_bindgen(js_name = sweepStep)]
    pub fn sweep_step(&mut self) -> Result<JsValue, JsError> {
        self.page.sweep_step().map_err(js_err)?;
        self.summary()
    }

    /// As many sweep steps ([`Self::sweep_step`]) as fit in `budget_ms`, at least one, sliced by
    /// the executor ([`crate::exec::run_task_for`]): the Player's "max" speed. The summary of
    /// the fit shown, with `steps_this_call`.
    #[wasm_bindgen(js_name = runFor)]
    pub fn run_for(&mut self, budget_ms: f64) -> Result<JsValue, JsError> {
        let k = crate::exec::run_task_for(&mut self.page, budget_ms).map_err(js_err)?;
        let s = self.summary()?;
        js_sys::Reflect::set(
            &s,
            &JsValue::from_str("steps_this_call"),
            &JsValue::from_f64(k as f64),
        )
        .map_err(|_| js_err("could not build the summary"))?;
        Ok(s)
    }

    /// Back to the sweep's start (its first fit), no root search; the summary.
    #[wasm_bindgen(js_name = sweepReset)]
    pub fn sweep_reset(&mut self) -> Result<JsValue, JsError> {
        self.page.sweep_reset().map_err(js_err)?;
        self.summary()
    }

    /// Whether no sweep is under way (none started, or its target fitted and the root search
    /// there ended).
    #[wasm_bindgen(js_name = sweepEnded)]
    pub fn sweep_ended(&self) -> bool {
        self.page.sweep_ended()
    }

    /// Whether a sweep exists (started, maybe ended): Play replays it.
    #[wasm_bindgen(js_name = hasSweep)]
    pub fn has_sweep(&self) -> bool {
        self.page.has_sweep()
    }

    /// `[refits done, refits in all]` of the sweep (`[0, 0]` without one).
    #[wasm_bindgen(js_name = sweepProgress)]
    pub fn sweep_progress(&self) -> Vec<u32> {
        let (done, all) = self.page.sweep_progress();
        vec![done as u32, all as u32]
    }

    /// The root search drawn on F(C) ([`crate::papers::mrlsr::RootView`]: its iterates,
    /// bracket, steps, roots found, whether it ended), or null before it starts.
    #[wasm_bindgen(js_name = rootSearch)]
    pub fn root_search(&self) -> Result<JsValue, JsError> {
        match self.page.root() {
            Some(r) => to_js(&r.view()),
            None => Ok(JsValue::NULL),
        }
    }

    /// Forget the sweep and its root search (m or λ moved by hand: the fit follows the control
    /// at once).
    #[wasm_bindgen(js_name = sweepDrop)]
    pub fn sweep_drop(&mut self) {
        self.page.sweep_drop();
    }

    /// The readouts of the current fit.
    pub fn summary(&self) -> Result<JsValue, JsError> {
        to_js(&self.page.summary())
    }

    /// Draw the data with the M-RLSR and KRR(λ₂) curves (1-D data), or predicted against true
    /// targets (more features).
    #[wasm_bindgen(js_name = drawFit)]
    pub fn draw_fit(&self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let root = backend(canvas)?.into_drawing_area();
        let session = self.page.session();
        let spec = session.spec();
        let mlabel = format!("M-RLSR (m = {}, λ = {})", num(spec.m), num(spec.lambda));
        let klabel = match session.krr() {
            Some(k) => format!("KRR (λ₂ = {})", num(k.lambda)),
            None => "KRR (no λ₂: f = 0)".to_string(),
        };
        let y = session.data().y.as_slice();
        match session.fit_curves(CURVE_POINTS).map_err(js_err)? {
            FitCurves::OneD { xs, grid, truth, krr, mrlsr, removed } => {
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
                if let Some(k) = &krr {
                    curves.push(Curve {
                        label: klabel,
                        values: k,
                        color: plot::KRR_WIDE_COLOR,
                        dashed: false,
                        width: 6.0,
                    });
                }
                curves.push(Curve {
                    label: mlabel,
                    values: &mrlsr,
                    color: plot::MRLSR_COLOR,
                    dashed: false,
                    width: 2.0,
                });
                plot::draw_fit_1d(&root, &xs, y, &grid, &curves, removed, dpr).map_err(js_err)
            }
            FitCurves::Fitted { mrlsr, krr, removed } => plot::draw_pred_vs_true(
                &root,
                y,
                &mrlsr,
                krr.as_deref(),
                removed,
                (&mlabel, &klabel),
                dpr,
            )
            .map_err(js_err),
        }
    }

    /// Draw F(C) (eq. 6) over a range that holds every positive root, roots marked and the
    /// minimizer filled; during a root search its iterates and bracket, and only the roots it
    /// has found.
    #[wasm_bindgen(js_name = drawF)]
    pub fn draw_f(&self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let (samples, minimizer) = self.page.session().f_samples(F_SAMPLES).map_err(js_err)?;
        let root = backend(canvas)?.into_drawing_area();
        let view = self.page.root().map(RootWatch::view);
        plot::draw_f_search(&root, &samples, minimizer, view.as_ref(), dpr).map_err(js_err)
    }

    /// Fig. 1 on the current data and kernel at the current m (> 1)
    /// ([`MrlsrSession::equivalence`]: `parts`, `folds` and `seed` checked as the spec's
    /// `equivalence` section first, a refusal naming `equivalence.parts`, …).
    pub fn equivalence(
        &mut self,
        parts: usize,
        folds: usize,
        seed: u32,
    ) -> Result<JsValue, JsError> {
        to_js(self.page.equivalence(parts, folds, seed as u64).map_err(js_err)?)
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
            .page
            .last_equivalence()
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

/// §4's stability scan against n ([`NScanRun`]: lesson B10's `stability`, B11's `lambda2`)
/// sliced over frames: one removal per unit.
#[wasm_bindgen]
pub struct MrlsrNScan {
    run: NScanRun,
    result: Option<NScan>,
}

#[wasm_bindgen]
impl MrlsrNScan {
    /// Start the scan `kind` ("stability" or "lambda2") of the spec (checked: a message naming
    /// the scan's requirement).
    #[wasm_bindgen(constructor)]
    pub fn new(spec_json: &str, kind: &str) -> Result<MrlsrNScan, JsError> {
        let kind = match kind {
            "stability" => ScanKind::Stability,
            "lambda2" => ScanKind::Lambda2Move,
            k => return Err(js_err(format!("scan: unknown kind “{k}” (stability or lambda2)"))),
        };
        Ok(Self { run: NScanRun::new(&checked(spec_json)?, kind).map_err(js_err)?, result: None })
    }

    /// Work for up to `budget_ms` (at least one removal); true when the scan is finished.
    #[wasm_bindgen(js_name = runFor)]
    pub fn run_for(&mut self, budget_ms: f64) -> Result<bool, JsError> {
        if self.result.is_none() {
            crate::exec::run_task_for(&mut self.run, budget_ms).map_err(js_err)?;
            if self.run.is_done() {
                self.result = Some(self.run.result().map_err(js_err)?);
            }
        }
        Ok(self.result.is_some())
    }

    /// `[removals done, removals in all]`.
    pub fn progress(&self) -> Vec<u32> {
        let (d, t) = self.run.progress();
        vec![d as u32, t as u32]
    }

    /// The finished scan (`{kind, ns, series: [{label, values, slope, intercept}]}`), or null.
    pub fn result(&self) -> Result<JsValue, JsError> {
        match &self.result {
            Some(r) => to_js(r),
            None => Ok(JsValue::NULL),
        }
    }

    /// Draw the finished scan on log–log axes with its fitted slopes (blank before).
    pub fn draw(&self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let root = backend(canvas)?.into_drawing_area();
        match &self.result {
            Some(r) => crate::plots::nscan::draw_nscan(&root, r, dpr).map_err(js_err),
            None => {
                root.fill(&WHITE).map_err(js_err)?;
                root.present().map_err(js_err)
            }
        }
    }
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
    /// Check the page spec's `selection` section (within the page's budget) and start the
    /// run it describes ([`mrlsr::MrlsrSelectionSpec`]: the paper's grids unless given) — the
    /// same checked run `kplay run` makes of the spec.
    #[wasm_bindgen(constructor)]
    pub fn new(spec_json: &str) -> Result<MrlsrSelection, JsError> {
        let checked = checked(spec_json)?;
        let section = checked
            .selection()
            .ok_or_else(|| js_err("selection: the spec has no selection section"))?;
        let run = section.start().map_err(js_err)?;
        Ok(Self { run, result: None, elapsed_ms: 0.0 })
    }

    /// Work for at most `budget_ms` (at least one unit), then report the progress; when the
    /// CV is complete, refit and score on the test part.
    #[wasm_bindgen(js_name = runFor)]
    pub fn run_for(&mut self, budget_ms: f64) -> Result<JsValue, JsError> {
        let t0 = now_ms();
        let k = crate::exec::run_task_for(&mut self.run, budget_ms).map_err(js_err)?;
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
/// synthetic set of size n ([`mrlsr::time_eigen`]; above [`mrlsr::PAGE_MAX_N`] is allowed).
#[wasm_bindgen(js_name = benchEigen)]
pub fn bench_eigen(n: usize, seed: u32) -> Result<f64, JsError> {
    mrlsr::time_eigen(n, seed as u64).map_err(js_err)
}

/// Mean time (ms) of one m-slider refit ([`mrlsr::time_refit`]).
#[wasm_bindgen(js_name = benchRefit)]
pub fn bench_refit(n: usize, reps: usize, seed: u32) -> Result<f64, JsError> {
    mrlsr::time_refit(n, reps, seed as u64).map_err(js_err)
}

/// Check a page spec without the O(n³) step ([`MrlsrChecked::for_page`]: the data within
/// [`mrlsr::PAGE_MAX_N`], the kernel, m, λ, `sel` and the sections), so bad input is reported at
/// once on the main thread before a worker starts. Returns `{n, d, digest}`
/// ([`mrlsr::CheckedData`]).
#[wasm_bindgen(js_name = checkMrlsrSpec)]
pub fn check_mrlsr_spec(spec_json: &str) -> Result<JsValue, JsError> {
    to_js(&checked(spec_json)?.data_facts())
}

/// The O(n³) step of [`MrlsrPage`] for a Web Worker: build the data and Gram matrix of the
/// spec exactly as the page does and decompose it ([`EigenPayload::compute`]). Returns
/// `{n, digest, eigen_ms, values: Float64Array, vectors: Float64Array}` (vectors column-major),
/// fresh JS buffers that the worker can transfer to the page for [`MrlsrPage::from_eigen`].
#[wasm_bindgen(js_name = mrlsrEigen)]
pub fn mrlsr_eigen(spec_json: &str) -> Result<JsValue, JsError> {
    let checked = checked(spec_json)?;
    let t0 = now_ms();
    let (payload, digest) = mrlsr::page_eigen(&checked).map_err(js_err)?;
    let eigen_ms = now_ms() - t0;
    js_object(&[
        ("n", JsValue::from_f64(payload.n as f64)),
        ("digest", JsValue::from_str(&digest)),
        ("eigen_ms", JsValue::from_f64(eigen_ms)),
        ("values", js_sys::Float64Array::from(payload.values.as_slice()).into()),
        ("vectors", js_sys::Float64Array::from(payload.vectors.as_slice()).into()),
    ])
}

/// Fig. 1 for a Web Worker: the spec's `equivalence` section ([`mrlsr::MrlsrEquivalenceSpec`])
/// checked within the page's budget and run to its end on the spec's data and kernel — the same
/// checked run `kplay run` makes of the spec. Returns the serialized report.
#[wasm_bindgen(js_name = mrlsrEquivalence)]
pub fn mrlsr_equivalence(spec_json: &str) -> Result<JsValue, JsError> {
    let checked = checked(spec_json)?;
    let section = checked
        .equivalence()
        .ok_or_else(|| js_err("equivalence: the spec has no equivalence section"))?;
    let report = section.run().map_err(js_err)?;
    to_js(&report)
}

/// The parts of a serialized [`cv::EquivalenceReport`] that the plots need.
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

/// Paper B's page: the message shown when its controls cannot hold the spec it was
/// asked to show ([`crate::spec_diff::controls_lose_as`]); `undefined` when they agree.
#[wasm_bindgen(js_name = mrlsrControlsLose)]
pub fn mrlsr_controls_lose(asked: &str, shown: &str) -> Result<Option<String>, JsError> {
    crate::spec_diff::controls_lose_as::<crate::papers::mrlsr::MrlsrSpec>(
        crate::spec_json::Paper::Mrlsr,
        asked,
        shown,
    )
    .map_err(js_err)
}
