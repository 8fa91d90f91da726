//! The thin wasm shell: translates between the page and the core. No mathematics here.

pub mod dinuzzo;
pub mod mrlsr;
pub mod perceptron;
pub mod run_worker;
pub mod tensor_worker;

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::exec::Record;
use crate::exec::Standing;
use crate::exec::Stop;
use crate::papers;
use crate::papers::lp::page::{LpPage, RacePhase};
use crate::papers::lp::{count_above, top_k_recovery, LpSpec, PathSpec};

/// Install the panic hook so that a bug shows in the console with its message.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// A message for JavaScript (every wasm shell's error conversion).
pub(crate) fn js_err(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

/// The threaded build's pool (wasm-bindgen-rayon): `await initThreadPool(n)` in a Web Worker of
/// a cross-origin isolated page starts n workers sharing this module's memory (issue 21 §3).
#[cfg(feature = "threads")]
pub use wasm_bindgen_rayon::init_thread_pool;

/// Use `n` threads in the parallel loops of [`crate::par`] (after `initThreadPool(n)` in the
/// threaded build); returns the count in use. The one-thread build accepts only 1.
#[wasm_bindgen(js_name = setThreads)]
pub fn set_threads(n: usize) -> Result<usize, JsError> {
    crate::par::set_threads(n).map_err(js_err)?;
    Ok(crate::par::threads())
}

/// The default experiment as JSON text.
#[wasm_bindgen(js_name = defaultSpec)]
pub fn default_spec() -> String {
    LpSpec::default().to_json()
}

/// The loss catalogue as JSON text: each loss's capabilities ([`crate::losses::Capabilities`]:
/// kind, label, classification, square, smooth_dual, parameter), from which the pages build
/// their loss selects and their "which algorithm takes this loss" rules.
#[wasm_bindgen(js_name = lossCatalogue)]
pub fn loss_catalogue() -> String {
    crate::losses::catalogue_json()
}

/// The pair-kernel catalogue as JSON text: each kernel's [`crate::kernels::KernelInfo`] (kind,
/// label, formula, capabilities, parameters with ranges and defaults), from which pages B, C and
/// D build their kernel selects and fields.
#[wasm_bindgen(js_name = kernelCatalogue)]
pub fn kernel_catalogue() -> String {
    crate::kernels::catalogue_json()
}

/// Paper A's tensor-kernel catalogue as JSON text: each kernel's
/// [`crate::tensor::TensorKernelInfo`] (kind, label, formula, parameters, finite features).
#[wasm_bindgen(js_name = tensorKernelCatalogue)]
pub fn tensor_kernel_catalogue() -> String {
    crate::tensor::kernel::catalogue_json()
}

/// A kernel expression (`gaussian(mu=0.5) + 0.1·linear`, [`crate::kernels::expr`]) as the
/// spec's kernel JSON text; an error naming the character otherwise.
#[wasm_bindgen(js_name = parseKernel)]
pub fn parse_kernel(text: &str) -> Result<String, JsError> {
    crate::kernels::expr::json_of_text(text).map_err(js_err)
}

/// Page A: the message shown when its controls cannot hold the spec it was asked to show
/// ([`crate::spec_diff::controls_lose_as`]): `asked` is the spec put into the controls,
/// `shown` the spec read back from them. `undefined` when they are the same experiment.
#[wasm_bindgen(js_name = lpControlsLose)]
pub fn lp_controls_lose(asked: &str, shown: &str) -> Result<Option<String>, JsError> {
    crate::spec_diff::controls_lose_as::<LpSpec>(crate::spec_json::Paper::Lp, asked, shown)
        .map_err(js_err)
}

/// The page fields of a paper (`lp`, `mrlsr`, `dinuzzo`, `perceptron`) as JSON text: path,
/// control, type, range, step, default, label, unit, options, where it applies
/// ([`crate::papers::spec_schema`]); `www/state.js` binds a page's controls from it.
#[wasm_bindgen(js_name = specSchema)]
pub fn spec_schema(paper: &str) -> Result<String, JsError> {
    crate::papers::spec_schema(paper).map(|s| s.to_json()).map_err(js_err)
}

/// A spec's kernel (JSON text) written as the expression [`parse_kernel`] reads back.
#[wasm_bindgen(js_name = kernelText)]
pub fn kernel_text(json: &str) -> Result<String, JsError> {
    crate::kernels::expr::text_of_json(json).map_err(js_err)
}

/// The race lanes' colours as JSON text (`["#1f77b4", …]`, [`crate::plots::style::RACE_COLORS`]):
/// the race tables' swatches match the curves.
#[wasm_bindgen(js_name = raceColors)]
pub fn race_colors() -> String {
    let hex: Vec<String> = crate::plots::style::RACE_COLORS
        .iter()
        .map(|c| format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2))
        .collect();
    serde_json::to_string(&hex).unwrap_or_else(|_| "[]".into())
}

/// The data of any paper's spec (JSON text, tagged or paper A's untagged form) as CSV: what
/// `kplay gen` writes for the same spec (the page's "Save data (CSV)").
#[wasm_bindgen(js_name = dataCsv)]
pub fn data_csv(spec_json: &str) -> Result<String, JsError> {
    let spec = crate::papers::Spec::from_json(spec_json).map_err(js_err)?;
    Ok(crate::papers::data(&spec).map_err(js_err)?.to_csv())
}

/// What the page shows after each frame.
#[derive(Serialize)]
struct Summary {
    iter: usize,
    primal: f64,
    dual: f64,
    gap: f64,
    rel_gap: f64,
    step: f64,
    backtracks: usize,
    time_ms: f64,
    elapsed_ms: f64,
    status: Stop,
    steps_this_call: usize,
    n: usize,
    d: usize,
    digest: String,
    /// "solving", or "needs_build" on the tensor path before its Gram tensor is adopted.
    phase: &'static str,
    algorithm: String,
}

/// Paper A's page: a thin wrapper over [`crate::papers::lp::page::LpPage`], which holds the
/// experiment, its run, its Gram tensor (built by a `TensorBuilder` in a Web Worker and adopted
/// by `adoptTensor`) and its race, and makes every decision natively.
#[wasm_bindgen]
pub struct Playground {
    page: LpPage,
}

/// A value as plain JSON-compatible JavaScript (maps as objects).
pub(crate) fn to_js<T: Serialize>(v: &T) -> Result<JsValue, JsError> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(js_err)
}

/// A plain JavaScript object of `fields` (e.g. typed arrays a worker transfers, which serde
/// would copy into plain arrays).
pub(crate) fn js_object(fields: &[(&str, JsValue)]) -> Result<JsValue, JsError> {
    let out = js_sys::Object::new();
    for (k, v) in fields {
        js_sys::Reflect::set(&out, &JsValue::from_str(k), v)
            .map_err(|_| js_err("could not build the result object"))?;
    }
    Ok(out.into())
}

fn canvas_root(
    canvas: HtmlCanvasElement,
) -> Result<DrawingArea<CanvasBackend, plotters::coord::Shift>, JsError> {
    let backend = CanvasBackend::with_canvas_object(canvas)
        .ok_or_else(|| js_err("no 2-D context on the canvas"))?;
    Ok(backend.into_drawing_area())
}

#[derive(Serialize)]
struct Recovery {
    k: usize,
    recovered: usize,
    above: usize,
    max_abs: f64,
}

/// The race's state for the page: its phase, F* and the reference's iterations, and each
/// lane's [`Standing`] (the shape every page's race and `kplay race` share).
#[derive(Serialize)]
struct RaceState {
    phase: &'static str,
    f_star: f64,
    reference_iter: usize,
    lanes: Vec<Standing>,
}

#[wasm_bindgen]
impl Playground {
    /// Validate a JSON spec, build its data and start the solver at α = 0 (features path).
    #[wasm_bindgen(constructor)]
    pub fn new(spec_json: &str) -> Result<Playground, JsError> {
        Ok(Self { page: LpPage::new(spec_json).map_err(js_err)? })
    }

    /// Apply a new spec ([`LpPage::update`]: the data are regenerated only if the data part
    /// changed; the Gram tensor is kept while its key is unchanged). On error the old run is kept.
    pub fn update(&mut self, spec_json: &str) -> Result<(), JsError> {
        self.page.update(spec_json).map_err(js_err)
    }

    /// Restart the solver from α = 0 on the same data (the built tensor is kept).
    pub fn reset(&mut self) -> Result<(), JsError> {
        self.page.restart().map_err(js_err)
    }

    /// The Gram tensor's cost, shown before the build (null on the features path).
    #[wasm_bindgen(js_name = tensorCost)]
    pub fn tensor_cost(&self) -> Result<JsValue, JsError> {
        match self.page.valid().tensor_cost().map_err(js_err)? {
            None => Ok(JsValue::NULL),
            Some(c) => {
                #[derive(Serialize)]
                struct C {
                    entries: u64,
                    bytes: u64,
                    build_multiplications: f64,
                    gradient_multiplications: f64,
                    text: String,
                }
                to_js(&C {
                    entries: c.entries,
                    bytes: c.bytes,
                    build_multiplications: c.build_multiplications,
                    gradient_multiplications: c.gradient_multiplications,
                    text: c.describe(),
                })
            }
        }
    }

    /// What this experiment's Gram tensor depends on (data digest, kernel, q); null on the
    /// features path. Equal to `TensorBuilder.key` for the same spec.
    #[wasm_bindgen(js_name = tensorKey)]
    pub fn tensor_key(&self) -> Option<String> {
        self.page.valid().tensor_key()
    }

    /// Whether the Gram tensor is in place (tensor path) — then the solve runs.
    #[wasm_bindgen(js_name = hasTensor)]
    pub fn has_tensor(&self) -> bool {
        self.page.has_tensor()
    }

    /// Adopt the Gram tensor built by a `TensorBuilder` (in a Web Worker) for the spec with
    /// tensor key `key`, and restart the solve on it. Refused, keeping the state, unless the key
    /// is this experiment's and the values fit (count C(n+q−1, q), all finite).
    #[wasm_bindgen(js_name = adoptTensor)]
    pub fn adopt_tensor(
        &mut self,
        values: Vec<f64>,
        build_ms: f64,
        key: &str,
    ) -> Result<(), JsError> {
        self.page.adopt_tensor(key, values, build_ms).map_err(js_err)
    }

    /// Milliseconds the adopted Gram tensor took to build (NaN if not reported).
    #[wasm_bindgen(getter, js_name = buildMs)]
    pub fn build_ms(&self) -> f64 {
        self.page.build_ms()
    }

    /// Advance exactly one iteration while the run is going; after it has ended (converged, at
    /// the cap, stalled, non-finite) nothing advances, on every page alike, and the summary's
    /// `steps_this_call` is 0 so the page can say so.
    pub fn step(&mut self) -> Result<JsValue, JsError> {
        let did = self.page.step();
        self.summary_with(did)
    }

    /// Advance while the run is going and `budget_ms` has not elapsed (at least one step).
    #[wasm_bindgen(js_name = runFor)]
    pub fn run_for(&mut self, budget_ms: f64) -> Result<JsValue, JsError> {
        let k = self.page.run_for(budget_ms);
        self.summary_with(k)
    }

    /// The current state for the readouts.
    pub fn summary(&self) -> Result<JsValue, JsError> {
        self.summary_with(0)
    }

    fn summary_with(&self, steps: usize) -> Result<JsValue, JsError> {
        let (r, status, phase) = self.page.last();
        let valid = self.page.valid();
        let v = |m: Option<f64>| m.unwrap_or(f64::NAN);
        to_js(&Summary {
            iter: r.iter,
            primal: v(r.primal),
            dual: v(r.dual),
            gap: v(r.gap),
            rel_gap: v(r.rel_gap),
            step: r.step.unwrap_or(0.0),
            backtracks: r.backtracks.unwrap_or(0),
            time_ms: r.time_ms,
            elapsed_ms: r.elapsed_ms,
            status,
            steps_this_call: steps,
            n: valid.data.n(),
            d: valid.data.d(),
            digest: self.page.digest().to_string(),
            phase,
            algorithm: valid.spec.solver.algorithm.clone(),
        })
    }

    /// The per-iteration records so far.
    pub fn trace(&self) -> Result<JsValue, JsError> {
        match self.page.run() {
            Some(r) => to_js(&r.kept()),
            None => to_js(&Vec::<Record>::new()),
        }
    }

    /// The current primal iterate w in the original features (empty if not available).
    pub fn w(&self) -> Vec<f64> {
        self.page
            .run()
            .and_then(|r| self.page.valid().weights(r))
            .map(|w| w.as_slice().to_vec())
            .unwrap_or_default()
    }

    /// The bit digest of the data (equal to `kplay digest` on the same spec).
    pub fn digest(&self) -> String {
        self.page.digest().to_string()
    }

    /// The spec as JSON text (for the URL hash).
    #[wasm_bindgen(js_name = specJson)]
    pub fn spec_json(&self) -> String {
        self.page.valid().spec.to_json()
    }

    /// Support recovery of the current w: top-k against the true spikes, and how many
    /// |w_j| lie above `threshold_frac · max|w|`.
    pub fn recovery(&self, threshold_frac: f64) -> Result<JsValue, JsError> {
        let w = self.w();
        let max_abs = w.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let (k, recovered) = match &self.page.valid().data.w_true {
            Some(t) if t.len() == w.len() => top_k_recovery(&w, t.as_slice()),
            _ => (0, 0),
        };
        to_js(&Recovery { k, recovered, above: count_above(&w, threshold_frac * max_abs), max_abs })
    }

    /// Draw the gap and the objectives into `canvas` (backing store already sized by the page).
    #[wasm_bindgen(js_name = drawConvergence)]
    pub fn draw_convergence(&self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let root = canvas_root(canvas)?;
        let trace = self.page.run().map(|r| r.kept()).unwrap_or(&[]);
        crate::plots::lp::draw_convergence(&root, trace, dpr).map_err(js_err)
    }

    /// Draw the estimate `w` against the true spikes into `canvas`, with the threshold line
    /// at `threshold_frac · max|w|`.
    #[wasm_bindgen(js_name = drawSpikes)]
    pub fn draw_spikes(
        &self,
        canvas: HtmlCanvasElement,
        dpr: f64,
        threshold_frac: Option<f64>,
    ) -> Result<(), JsError> {
        let root = canvas_root(canvas)?;
        let w_true = self.page.valid().data.w_true.as_ref().map(|v| v.as_slice());
        let w = self.w();
        let max_abs = w.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        crate::plots::lp::draw_spikes_threshold(
            &root,
            &w,
            w_true,
            threshold_frac.map(|t| t * max_abs),
            dpr,
        )
        .map_err(js_err)
    }

    /// Whether the data are 2-D (the predictor is drawn as a heatmap) or 1-D (a curve).
    #[wasm_bindgen(js_name = inputDim)]
    pub fn input_dim(&self) -> usize {
        self.page.valid().data.d()
    }

    /// The 2-D predictor (Remark 2.4) as an RGBA image `w × h` over the data's bounding box
    /// (plus 10 %), with the f = 0 level set and the training points.
    #[wasm_bindgen(js_name = predictorImage)]
    pub fn predictor_image(&self, w: usize, h: usize) -> Result<Vec<u8>, JsError> {
        let run = self.page.run().ok_or_else(|| js_err("the solve has not started"))?;
        let x = &self.page.valid().data.x;
        if x.ncols() != 2 || w < 2 || h < 2 {
            return Err(js_err("the heatmap needs 2-D inputs"));
        }
        let pred = self.page.valid().predictor(run).map_err(js_err)?;
        let range = |j: usize| {
            let (lo, hi) = x
                .column(j)
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
            let pad = 0.1 * (hi - lo).max(1e-9);
            (lo - pad, hi + pad)
        };
        let (xr, yr) = (range(0), range(1));
        let values = pred.grid_2d(xr, yr, w, h).map_err(js_err)?;
        let pts: Vec<(f64, f64, f64)> = (0..x.nrows())
            .map(|i| {
                let gx = (x[(i, 0)] - xr.0) / (xr.1 - xr.0) * (w - 1) as f64;
                let gy = (x[(i, 1)] - yr.0) / (yr.1 - yr.0) * (h - 1) as f64;
                (gx, gy, self.page.valid().data.y[i])
            })
            .collect();
        Ok(crate::plots::lp::heatmap_rgba(&values, w, h, &pts))
    }

    /// The 1-D predictor curve (d = 1) with the training points.
    #[wasm_bindgen(js_name = drawPredictor1d)]
    pub fn draw_predictor_1d(&self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let run = self.page.run().ok_or_else(|| js_err("the solve has not started"))?;
        let x = &self.page.valid().data.x;
        if x.ncols() != 1 {
            return Err(js_err("the curve needs 1-D inputs"));
        }
        let pred = self.page.valid().predictor(run).map_err(js_err)?;
        let (lo, hi) = x
            .column(0)
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
        let m = 200;
        let xs: Vec<f64> = (0..m).map(|i| lo + (hi - lo) * i as f64 / (m - 1) as f64).collect();
        let fs: Vec<f64> = xs.iter().map(|&v| pred.predict(&[v]).unwrap_or(f64::NAN)).collect();
        let root = canvas_root(canvas)?;
        crate::plots::lp::draw_curve_1d(
            &root,
            &xs,
            &fs,
            x.column(0).as_slice(),
            self.page.valid().data.y.as_slice(),
            dpr,
        )
        .map_err(js_err)
    }

    /// Start a race (features path): first the reference F* by the dual Newton method, stepped
    /// by `raceFor`, then every applicable algorithm in turn.
    #[wasm_bindgen(js_name = startRace)]
    pub fn start_race(&mut self) -> Result<(), JsError> {
        self.page.start_race().map_err(js_err)
    }

    /// Advance the race for about `budget_ms`; returns its state.
    #[wasm_bindgen(js_name = raceFor)]
    pub fn race_for(&mut self, budget_ms: f64) -> Result<JsValue, JsError> {
        self.page.race_for(budget_ms).map_err(js_err)?;
        self.race_state()
    }

    fn race_state(&self) -> Result<JsValue, JsError> {
        to_js(&match self.page.race_phase() {
            RacePhase::Idle => {
                RaceState { phase: "idle", f_star: f64::NAN, reference_iter: 0, lanes: vec![] }
            }
            RacePhase::Reference(r) => RaceState {
                phase: "reference",
                f_star: f64::NAN,
                reference_iter: r.last().iter,
                lanes: vec![],
            },
            RacePhase::Lanes(job, race) => RaceState {
                phase: if race.running() { "racing" } else { "done" },
                f_star: race.target().map_or(f64::NAN, |t| t.f_star),
                reference_iter: job.reference_iter(),
                lanes: race.standings(),
            },
        })
    }

    /// Draw the race: relative error against iterations (solid) and time (dashed).
    #[wasm_bindgen(js_name = drawRace)]
    pub fn draw_race(&self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let root = canvas_root(canvas)?;
        let phase = self.page.race_phase();
        let curves: Vec<papers::lp::run::RaceCurve> = match &phase {
            RacePhase::Lanes(_, r) => papers::lp::run::race_curves(r),
            _ => vec![],
        };
        let waiting = if matches!(phase, RacePhase::Reference(_)) {
            Some("Computing F* with the dual Newton method to machine precision…")
        } else if self.page.valid().checked.path != PathSpec::Features {
            Some("The race runs on the features path: choose path = features, then press Race.")
        } else {
            None
        };
        match waiting {
            Some(text) if !matches!(phase, RacePhase::Lanes(..)) => {
                crate::plots::lp::draw_message(&root, text, dpr).map_err(js_err)
            }
            _ => crate::plots::lp::draw_race(&root, &curves, dpr).map_err(js_err),
        }
    }
}
