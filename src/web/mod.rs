//! The thin wasm shell: translates between the page and the core. No mathematics here.

pub mod mrlsr;
pub mod dinuzzo;
pub mod perceptron;

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::experiment::{Experiment, ValidExperiment};
use crate::solvers::dual_lp::DualLp;
use crate::solvers::{Driver, Status, StepRecord};

/// Install the panic hook so that a bug shows in the console with its message.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

fn js_err(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

/// The default experiment as JSON text.
#[wasm_bindgen(js_name = defaultSpec)]
pub fn default_spec() -> String {
    Experiment::default().to_json()
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
    status: Status,
    steps_this_call: usize,
    n: usize,
    d: usize,
    digest: String,
}

/// One experiment and its running solver.
#[wasm_bindgen]
pub struct Playground {
    valid: ValidExperiment,
    run: Driver<DualLp>,
    digest: String,
}

fn to_js<T: Serialize>(v: &T) -> Result<JsValue, JsError> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(js_err)
}

#[wasm_bindgen]
impl Playground {
    /// Validate a JSON spec, build its data and start the solver at α = 0.
    #[wasm_bindgen(constructor)]
    pub fn new(spec_json: &str) -> Result<Playground, JsError> {
        let spec = Experiment::from_json(spec_json).map_err(js_err)?;
        let valid = spec.validate().map_err(js_err)?;
        let run = valid.start();
        let digest = valid.data.digest();
        Ok(Self { valid, run, digest })
    }

    /// Apply a new spec. The data are regenerated only if the data part changed, so moving
    /// the p or γ slider restarts the solver on the same data. On error the old run is kept.
    pub fn update(&mut self, spec_json: &str) -> Result<(), JsError> {
        let spec = Experiment::from_json(spec_json).map_err(js_err)?;
        if spec.data == self.valid.spec.data {
            let (p, gamma, linesearch) = spec.check_parameters().map_err(js_err)?;
            self.valid.spec = spec;
            self.valid.p = p;
            self.valid.gamma = gamma;
            self.valid.linesearch = linesearch;
        } else {
            self.valid = spec.validate().map_err(js_err)?;
            self.digest = self.valid.data.digest();
        }
        self.run = self.valid.start();
        Ok(())
    }

    /// Restart the solver from α = 0 on the same data.
    pub fn reset(&mut self) {
        self.run = self.valid.start();
    }

    /// Advance exactly one iteration (even after convergence); returns the summary.
    pub fn step(&mut self) -> Result<JsValue, JsError> {
        let did = self.run.force_step().is_some() as usize;
        self.summary_with(did)
    }

    /// Advance while the run is going and `budget_ms` has not elapsed (at least one step).
    #[wasm_bindgen(js_name = runFor)]
    pub fn run_for(&mut self, budget_ms: f64) -> Result<JsValue, JsError> {
        let t0 = web_time::Instant::now();
        let mut k = 0;
        while self.run.status == Status::Running {
            if self.run.step().is_some() {
                k += 1;
            }
            if t0.elapsed().as_secs_f64() * 1e3 >= budget_ms {
                break;
            }
        }
        self.summary_with(k)
    }

    /// The current state for the readouts.
    pub fn summary(&self) -> Result<JsValue, JsError> {
        self.summary_with(0)
    }

    fn summary_with(&self, steps: usize) -> Result<JsValue, JsError> {
        let r: StepRecord = self.run.last();
        to_js(&Summary {
            iter: r.iter,
            primal: r.primal,
            dual: r.dual,
            gap: r.gap,
            rel_gap: r.rel_gap,
            step: r.step,
            backtracks: r.backtracks,
            time_ms: r.time_ms,
            elapsed_ms: r.elapsed_ms,
            status: self.run.status,
            steps_this_call: steps,
            n: self.valid.data.n(),
            d: self.valid.data.d(),
            digest: self.digest.clone(),
        })
    }

    /// The per-iteration records so far.
    pub fn trace(&self) -> Result<JsValue, JsError> {
        to_js(&self.run.trace)
    }

    /// The current primal iterate w.
    pub fn w(&self) -> Vec<f64> {
        self.run.solver.w().as_slice().to_vec()
    }

    /// The bit digest of the data (equal to `kplay digest` on the same spec).
    pub fn digest(&self) -> String {
        self.digest.clone()
    }

    /// The spec as JSON text (for the URL hash).
    #[wasm_bindgen(js_name = specJson)]
    pub fn spec_json(&self) -> String {
        self.valid.spec.to_json()
    }

    /// Draw the gap and the objectives into `canvas` (backing store already sized by the page).
    #[wasm_bindgen(js_name = drawConvergence)]
    pub fn draw_convergence(&self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let backend = CanvasBackend::with_canvas_object(canvas).ok_or_else(|| js_err("no 2-D context on the canvas"))?;
        let root = backend.into_drawing_area();
        crate::plot::draw_convergence(&root, &self.run.trace, dpr).map_err(js_err)
    }

    /// Draw the estimate `w` against the true spikes into `canvas`.
    #[wasm_bindgen(js_name = drawSpikes)]
    pub fn draw_spikes(&self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let backend = CanvasBackend::with_canvas_object(canvas).ok_or_else(|| js_err("no 2-D context on the canvas"))?;
        let root = backend.into_drawing_area();
        let w_true = self.valid.data.w_true.as_ref().map(|v| v.as_slice());
        crate::plot::draw_spikes(&root, self.run.solver.w().as_slice(), w_true, dpr).map_err(js_err)
    }
}
