//! The Gram-tensor build for a module Web Worker (www/tensor-worker.js): the worker's own wasm
//! instance regenerates the data from the spec (the generator is deterministic, so the bits
//! equal the page's), steps `GramTensorBuild` and hands the values back; the page adopts them
//! with `Playground::adoptTensor`. No mathematics here.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::{js_err, to_js};
use crate::papers::lp::GramTensorBuild;
use crate::papers::lp::LpSpec;

/// Progress of a build, as the worker posts it.
#[derive(Serialize)]
pub(crate) struct BuildState {
    pub done: u64,
    pub total: u64,
    pub fraction: f64,
    pub finished: bool,
    pub build_ms: f64,
}

/// A Gram-tensor build (paper A, Section 2.3) driven by the worker: `advance` until
/// `finished`, then `take_values`.
#[wasm_bindgen]
pub struct TensorBuilder {
    build: Option<GramTensorBuild>,
    values: Option<Vec<f64>>,
    key: String,
    build_ms: f64,
}

#[wasm_bindgen]
impl TensorBuilder {
    /// Validate the spec, build its data exactly as the page does and start the build; refused
    /// on the features path and over the memory budget (`max_bytes`, if given, lowers it).
    #[wasm_bindgen(constructor)]
    pub fn new(spec_json: &str, max_bytes: Option<f64>) -> Result<TensorBuilder, JsError> {
        crate::budget::set_active(crate::budget::Budget::PAGE_WORKER);
        let valid = LpSpec::from_json(spec_json).map_err(js_err)?.validate().map_err(js_err)?;
        let key = valid.tensor_key().ok_or_else(|| {
            js_err("the features path builds no Gram tensor: choose the tensor path")
        })?;
        let budget = match max_bytes {
            None => u64::MAX,
            Some(b) if b.is_finite() && b >= 0.0 => b as u64,
            Some(b) => {
                return Err(js_err(format!(
                    "the memory budget must be a non-negative number of bytes (got {b})"
                )))
            }
        };
        let build = valid.tensor_build_within(budget).map_err(js_err)?;
        Ok(Self { build: Some(build), values: None, key, build_ms: 0.0 })
    }

    /// Compute for about `budget_ms` (at least one block); returns
    /// `{done, total, fraction, finished, build_ms}`. A non-finite kernel value is an error.
    pub fn advance(&mut self, budget_ms: f64) -> Result<JsValue, JsError> {
        let t0 = web_time::Instant::now();
        let Some(b) = self.build.as_mut() else {
            let total = self.values.as_ref().map_or(0, |v| v.len() as u64);
            return to_js(&BuildState {
                done: total,
                total,
                fraction: 1.0,
                finished: true,
                build_ms: self.build_ms,
            });
        };
        crate::exec::run_task_for(b, budget_ms).map_err(js_err)?;
        let prog = b.progress();
        self.build_ms += t0.elapsed().as_secs_f64() * 1e3;
        let finished = b.is_done();
        if finished {
            let b = self.build.take().ok_or_else(|| js_err("the build is gone"))?;
            self.values = Some(b.finish().map_err(js_err)?.into_values());
        }
        to_js(&BuildState {
            done: prog.done,
            total: prog.total,
            fraction: prog.fraction(),
            finished,
            build_ms: self.build_ms,
        })
    }

    /// The finished tensor's values (one per symmetry class, colex order), moved out: a
    /// Float64Array for `Playground::adoptTensor`. An error before the build is finished.
    #[wasm_bindgen(js_name = takeValues)]
    pub fn take_values(&mut self) -> Result<Vec<f64>, JsError> {
        self.values.take().ok_or_else(|| {
            js_err("the Gram tensor is not finished (or its values were already taken)")
        })
    }

    /// Milliseconds spent computing so far.
    #[wasm_bindgen(getter, js_name = buildMs)]
    pub fn build_ms(&self) -> f64 {
        self.build_ms
    }

    /// What the tensor depends on (data digest, kernel, q); `adoptTensor` checks it.
    #[wasm_bindgen(getter)]
    pub fn key(&self) -> String {
        self.key.clone()
    }
}
