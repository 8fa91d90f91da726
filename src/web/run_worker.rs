//! A paper preset's jobs for a module Web Worker (www/run-worker.js): the worker's own wasm
//! instance runs each job (`papers::lp::job::Job`: data, Gram tensor, solve) in time slices
//! and posts the progress; consecutive jobs share data and tensor. Only numbers leave it. No
//! mathematics here.

use wasm_bindgen::prelude::*;

use super::{js_err, to_js};
use crate::papers::lp::job::{Job, JobCache};

/// Runs one job at a time: `start(spec)`, then `advance(budget)` until its phase is `done`.
#[wasm_bindgen]
pub struct RunWorker {
    job: Option<Job>,
    cache: Option<JobCache>,
}

impl Default for RunWorker {
    fn default() -> Self {
        Self::new()
    }
}

#[wasm_bindgen]
impl RunWorker {
    /// An idle worker with nothing cached.
    #[wasm_bindgen(constructor)]
    pub fn new() -> RunWorker {
        crate::budget::set_active(crate::budget::Budget::PAGE_WORKER);
        Self { job: None, cache: Some(JobCache::default()) }
    }

    /// Check a job's spec and make it the current job; the previous job's data and Gram tensor
    /// are reused if they fit. Refused (keeping the cache) on a bad spec.
    pub fn start(&mut self, spec_json: &str) -> Result<(), JsError> {
        let cache = match self.job.take() {
            Some(j) => j.into_cache(),
            None => self.cache.take().unwrap_or_default(),
        };
        let spec = match crate::papers::lp::LpSpec::from_json(spec_json)
            .and_then(|s| s.check().map(|_| s))
        {
            Ok(s) => s,
            Err(e) => {
                self.cache = Some(cache);
                return Err(js_err(e));
            }
        };
        self.job = Some(Job::new(spec, cache).map_err(js_err)?);
        Ok(())
    }

    /// Work for about `budget_ms`; returns `{phase, iter, rel_gap, primal, dual, status,
    /// build_fraction, data_ms, build_ms, solve_ms, data_reused, tensor_reused, tensor_path}`.
    pub fn advance(&mut self, budget_ms: f64) -> Result<JsValue, JsError> {
        let job = self.job.as_mut().ok_or_else(|| js_err("no job: call start(spec) first"))?;
        let p = job.advance(budget_ms).map_err(js_err)?;
        to_js(&p)
    }

    /// The current job's state without working.
    pub fn progress(&self) -> Result<JsValue, JsError> {
        let job = self.job.as_ref().ok_or_else(|| js_err("no job: call start(spec) first"))?;
        to_js(&job.progress())
    }

    /// The current job's Gram tensor values (a copy, for `Playground::adoptTensor` on the
    /// page); empty on the features path or before the build ends.
    #[wasm_bindgen(js_name = tensorValues)]
    pub fn tensor_values(&self) -> Vec<f64> {
        self.job
            .as_ref()
            .and_then(|j| j.tensor())
            .map(|(_, t)| t.values().to_vec())
            .unwrap_or_default()
    }

    /// The key of the current job's Gram tensor (`adoptTensor` checks it); empty if none.
    #[wasm_bindgen(js_name = tensorKey)]
    pub fn tensor_key(&self) -> String {
        self.job.as_ref().and_then(|j| j.tensor()).map(|(k, _)| k.clone()).unwrap_or_default()
    }
}
