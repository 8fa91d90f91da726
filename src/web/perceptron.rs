//! The wasm shell of paper D's page (smoothed kernel perceptrons and von Neumann certificates):
//! JSON in and out and drawing into canvases, nothing else. The page's state machine (the reuse
//! rule, the sliced preparations, the heatmap's cache, the race) is the core's
//! [`PerceptronPage`]; the spec's checks are [`crate::papers::perceptron::PerceptronChecked`];
//! the mathematics is in `crate::solvers::perceptron` and `solvers::perceptron::margin`.

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;

use super::{js_err, js_object, to_js};
use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};

use crate::papers::perceptron::{
    hand_points, to_data, PerceptronChecked, PerceptronPage, PerceptronPreparation, PerceptronSpec,
};
use crate::plots::perceptron::{
    boundary_rect, draw_boundary, draw_race, draw_trace, equal_aspect, heatmap_rgba, BoundaryScene,
};

/// Paper D's default experiment (separable blobs, linear kernel, SNKP) as JSON text.
#[wasm_bindgen(js_name = perceptronDefaultSpec)]
pub fn perceptron_default_spec() -> String {
    PerceptronSpec::default().to_tagged_json()
}

/// Paper D's page in the browser: the core's state machine ([`PerceptronPage`]) behind JSON in
/// and out and the canvases it draws.
#[wasm_bindgen]
pub struct PerceptronPlayground {
    page: PerceptronPage,
}

fn ctx2d(canvas: &HtmlCanvasElement) -> Result<CanvasRenderingContext2d, JsError> {
    canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
        .ok_or_else(|| js_err("no 2-D context on the canvas"))
}

fn parse_points(points_json: &str) -> Result<Vec<[f64; 3]>, JsError> {
    serde_json::from_str(points_json).map_err(js_err)
}

/// The hand-made points `[[x₁, x₂, ±1], …]` drawn alone (when they do not make a valid data
/// set yet, e.g. one class only), so the user sees what was clicked.
#[wasm_bindgen(js_name = drawHandPoints)]
pub fn draw_hand_points(
    canvas: HtmlCanvasElement,
    dpr: f64,
    points_json: &str,
) -> Result<(), JsError> {
    let (x, y, view) = hand_points(&parse_points(points_json)?);
    let rect = boundary_rect(canvas.width(), canvas.height(), dpr);
    let view = equal_aspect(view, rect);
    let root = CanvasBackend::with_canvas_object(canvas)
        .ok_or_else(|| js_err("no 2-D context on the canvas"))?
        .into_drawing_area();
    let scene = BoundaryScene { x: &x, y: &y, p: None, arrow: None, hull: None, heat: None };
    draw_boundary(&root, view, &scene, dpr, true).map_err(js_err)?;
    Ok(())
}

/// Data coordinates of a click on a canvas showing hand-made points (see [`draw_hand_points`]).
#[wasm_bindgen(js_name = handPointAt)]
pub fn hand_point_at(
    width: u32,
    height: u32,
    dpr: f64,
    points_json: &str,
    px: f64,
    py: f64,
) -> Result<Vec<f64>, JsError> {
    let (_, _, view) = hand_points(&parse_points(points_json)?);
    let rect = boundary_rect(width, height, dpr);
    Ok(to_data(equal_aspect(view, rect), rect, px, py).to_vec())
}

#[wasm_bindgen]
impl PerceptronPlayground {
    /// Check a JSON spec, build G, compute ρ_K and start the algorithm (a large data set is
    /// prepared in slices, [`Self::prepare`]).
    #[wasm_bindgen(constructor)]
    pub fn new(spec_json: &str) -> Result<PerceptronPlayground, JsError> {
        Ok(Self { page: PerceptronPage::new(spec_json).map_err(js_err)? })
    }

    /// Apply a new spec ([`PerceptronPage::update`]: only the algorithm restarts when the data,
    /// kernel and margin settings are unchanged; a large new data set is prepared in slices
    /// while the old run is shown). On error the old run is kept.
    pub fn update(&mut self, spec_json: &str) -> Result<(), JsError> {
        self.page.update(spec_json).map_err(js_err)
    }

    /// Spend up to `budget_ms` on what is being prepared (a new session, then the heatmap's
    /// cross kernel). Returns true when nothing is left. On error the preparation is dropped.
    pub fn prepare(&mut self, budget_ms: f64) -> Result<bool, JsError> {
        self.page.prepare(budget_ms).map_err(js_err)
    }

    /// Whether the preparation ahead is a whole kernel matrix not yet started, which a worker
    /// may compute on every core ([`perceptron_prepare`]) for [`Self::adopt_prepared`].
    pub fn offloadable(&self) -> bool {
        self.page.offloadable()
    }

    /// Adopt a worker's preparation ([`perceptron_prepare`]'s `digest`, `gram` and, when
    /// given, `margin_p` with `margin_iterations`): [`PerceptronPreparation::adopt_kernel_matrix`]
    /// checks the matrix against this page's spec and writes it into the page's own matrix (no
    /// new allocation), then [`PerceptronPreparation::adopt_margin_search`] resumes ρ_K's search
    /// from the weights. What is refused is computed by the page's slices ([`Self::prepare`]
    /// goes on from where the preparation is), and the error says why.
    #[wasm_bindgen(js_name = adoptPrepared)]
    pub fn adopt_prepared(
        &mut self,
        digest: &str,
        gram: js_sys::Float64Array,
        margin_p: Option<js_sys::Float64Array>,
        margin_iterations: Option<f64>,
    ) -> Result<(), JsError> {
        self.page
            .adopt_kernel_matrix(digest, gram.length() as usize, |d| gram.copy_to(d))
            .map_err(js_err)?;
        let (Some(w), Some(it)) = (margin_p, margin_iterations) else {
            return Ok(());
        };
        if !(it.is_finite() && it >= 0.0 && it.fract() == 0.0) {
            return Err(js_err(format!("marginIterations: a whole number ≥ 0 (got {it})")));
        }
        // The length before the copy: no allocation sized by what was handed over.
        self.page
            .adopt_margin_search(w.length() as usize, || w.to_vec(), it as usize)
            .map_err(js_err)
    }

    /// Say `note` as the progress while the data are prepared elsewhere (a worker);
    /// `undefined` goes back to the preparation's own progress.
    #[wasm_bindgen(js_name = setPreparingNote)]
    pub fn set_preparing_note(&mut self, note: Option<String>) {
        self.page.set_note(note);
    }

    /// Whether the run can step (a session exists and no new one is being prepared).
    pub fn ready(&self) -> bool {
        self.page.ready()
    }

    /// What is being prepared, for the page's progress readout (empty when nothing is).
    pub fn preparing(&self) -> String {
        self.page.preparing()
    }

    /// Restart the algorithm on the same data.
    pub fn reset(&mut self) -> Result<(), JsError> {
        self.page.reset().map_err(js_err)
    }

    /// One iteration; returns the summary.
    pub fn step(&mut self) -> Result<JsValue, JsError> {
        let k = self.page.step().map_err(js_err)?;
        to_js(&self.page.summary(k))
    }

    /// Iterate within `budget_ms` (at least one iteration unless finished).
    #[wasm_bindgen(js_name = runFor)]
    pub fn run_for(&mut self, budget_ms: f64) -> Result<JsValue, JsError> {
        let k = self.page.run_for(budget_ms).map_err(js_err)?;
        to_js(&self.page.summary(k))
    }

    /// The current state for the readouts and the outcome panel.
    pub fn summary(&self) -> Result<JsValue, JsError> {
        to_js(&self.page.summary(0))
    }

    /// The spec as JSON text (for the URL hash).
    #[wasm_bindgen(js_name = specJson)]
    pub fn spec_json(&self) -> String {
        self.page.spec_json()
    }

    /// The per-iteration records so far (`min_i (Gα)_i`, `‖p‖_G`, …), for the page's export.
    pub fn trace(&self) -> Result<JsValue, JsError> {
        to_js(&self.page.trace().map_err(js_err)?)
    }

    /// The current coefficients α of the separator `f = Σ α_i y_i K(x_i, ·)/√K_ii` (export).
    pub fn alpha(&self) -> Vec<f64> {
        self.page.alpha()
    }

    /// The current simplex weights p of the von Neumann algorithms (empty for the perceptrons).
    pub fn p(&self) -> Vec<f64> {
        self.page.p()
    }

    /// The data points as JSON `[[x₁, x₂, ±1], …]` (to turn a generated set into a hand-made one).
    #[wasm_bindgen(js_name = pointsJson)]
    pub fn points_json(&self) -> String {
        serde_json::to_string(&self.page.points()).unwrap_or_default()
    }

    /// Data coordinates of a device-pixel position on the boundary canvas (last drawing).
    #[wasm_bindgen(js_name = dataAt)]
    pub fn data_at(&self, px: f64, py: f64) -> Vec<f64> {
        self.page.data_at(px, py).to_vec()
    }

    /// Draw the decision function (heatmap, zero level), the points sized by p and, for the
    /// linear kernel, the arrow `Σ p_i y_i x_i/‖x_i‖`. The heatmap is an RGBA buffer put with
    /// `putImageData`; its grid is coarser for large n so one drawing stays within ~3·10⁶
    /// kernel evaluations (bilinear interpolation in between; [`PerceptronPage::heatmap`]).
    #[wasm_bindgen(js_name = drawBoundary)]
    pub fn draw_boundary(&mut self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let (w, h) = (canvas.width(), canvas.height());
        let rect = boundary_rect(w, h, dpr);
        let Some(shown_view) = self.page.session().map(|s| s.view) else {
            // Nothing built yet (a large first data set is being prepared): an empty frame.
            let root = CanvasBackend::with_canvas_object(canvas)
                .ok_or_else(|| js_err("no 2-D context on the canvas"))?
                .into_drawing_area();
            let scene =
                BoundaryScene { x: &[], y: &[], p: None, arrow: None, hull: None, heat: None };
            let view = self.page.view();
            let rect = draw_boundary(&root, view, &scene, dpr, true).map_err(js_err)?;
            self.page.set_drawn(view, rect);
            return Ok(());
        };
        let view = equal_aspect(shown_view, rect);
        let (pw, ph) = ((rect[2] - rect[0]).max(2) as usize, (rect[3] - rect[1]).max(2) as usize);
        let heatmap = self.page.heatmap(view, pw, ph).map_err(js_err)?;
        let session = self.page.session().ok_or_else(|| js_err("no session"))?;
        let ctx = ctx2d(&canvas)?;
        let heat_missing = match &heatmap {
            Some(hm) => match &hm.values {
                Some(f) => {
                    let img = heatmap_rgba(
                        f,
                        hm.grid.nx,
                        hm.grid.ny,
                        pw,
                        ph,
                        (dpr.round() as usize).max(1),
                    );
                    let data = ImageData::new_with_u8_clamped_array_and_sh(
                        Clamped(img.as_slice()),
                        pw as u32,
                        ph as u32,
                    )
                    .map_err(|_| js_err("could not build the heatmap image"))?;
                    ctx.put_image_data(&data, rect[0] as f64, rect[1] as f64)
                        .map_err(|_| js_err("could not draw the heatmap"))?;
                    false
                }
                None => true,
            },
            None => false,
        };
        let xm = session.problem.x();
        let x: Vec<(f64, f64)> = (0..xm.nrows()).map(|i| (xm[(i, 0)], xm[(i, 1)])).collect();
        let y: Vec<f64> = session.problem.y().iter().copied().collect();
        let p = session.p();
        let arrow = session.combination();
        let hull = arrow.and_then(|_| session.feature_hull());
        // The circle of radius |ρ_K| once the run has ended (it would answer a prediction).
        let rho = if session.finished() { session.margin.rho } else { f64::NAN };
        let scene = BoundaryScene {
            x: &x,
            y: &y,
            p: p.as_deref(),
            arrow,
            hull: hull.as_deref().map(|h| (h, rho)),
            heat: None,
        };
        let root = CanvasBackend::with_canvas_object(canvas)
            .ok_or_else(|| js_err("no 2-D context on the canvas"))?
            .into_drawing_area();
        let drawn = draw_boundary(&root, view, &scene, dpr, heat_missing).map_err(js_err)?;
        self.page.set_drawn(view, drawn);
        Ok(())
    }

    /// Draw `min_i (Gα)_i` and `‖p_k‖_G` against the iteration with the bounds.
    #[wasm_bindgen(js_name = drawTrace)]
    pub fn draw_trace(&self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        #[allow(clippy::type_complexity)]
        let (trace, bounds): (Vec<(usize, f64, Option<f64>)>, Vec<(String, f64, bool)>) = match self
            .page
            .session()
        {
            Some(session) => (
                crate::plots::perceptron::trace_points(&session.trace()),
                session.bounds().into_iter().map(|b| (b.label, b.iterations, b.current)).collect(),
            ),
            None => (Vec::new(), Vec::new()),
        };
        let root = CanvasBackend::with_canvas_object(canvas)
            .ok_or_else(|| js_err("no 2-D context on the canvas"))?
            .into_drawing_area();
        draw_trace(&root, &trace, &bounds, dpr).map_err(js_err)
    }

    /// Start a race of the six algorithms on the current data with the spec's race ε (NVN,
    /// ISNKPVN), δ (SNKPVN) and γ (ISNKPVN): the spec the page's link carries, so `kplay race`
    /// of the link runs the same race.
    #[wasm_bindgen(js_name = startRace)]
    pub fn start_race(&mut self) -> Result<(), JsError> {
        self.page.start_race().map_err(js_err)
    }

    /// Step the race within `budget_ms`; returns `{finished, lanes}`.
    #[wasm_bindgen(js_name = raceFor)]
    pub fn race_for(&mut self, budget_ms: f64) -> Result<JsValue, JsError> {
        to_js(&self.page.race_for(budget_ms).map_err(js_err)?)
    }

    /// Draw the race standings.
    #[wasm_bindgen(js_name = drawRace)]
    pub fn draw_race(&self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let entries = self.page.race_entries();
        let root = CanvasBackend::with_canvas_object(canvas)
            .ok_or_else(|| js_err("no 2-D context on the canvas"))?
            .into_drawing_area();
        draw_race(&root, &entries, dpr).map_err(js_err)
    }
}

/// The timing table of docs/perceptron.md for `n` points (every workload and algorithm run to
/// its outcome, capped at `cap` iterations), as an array of rows.
#[wasm_bindgen(js_name = perceptronTiming)]
pub fn perceptron_timing(n: usize, cap: usize) -> Result<JsValue, JsError> {
    let mut rows = Vec::new();
    for (name, spec, sep) in crate::papers::perceptron::timing_workloads(n) {
        rows.extend(
            crate::papers::perceptron::run_timing_workload(&name, &spec, sep, cap)
                .map_err(js_err)?,
        );
    }
    to_js(&rows)
}

/// Paper D's O(n²) preparation for a Web Worker (issue 21 §3): the page's data built from the
/// same spec, their kernel matrix computed at once on every thread of the threaded build
/// ([`PerceptronPreparation::kernel_matrix_all`], the slices' bits), then ρ_K's min-norm search
/// run to its stop ([`PerceptronPreparation::margin_search_all`]). Returns `{n, digest, ms, gram:
/// Float64Array, marginP: Float64Array, marginIterations}`, fresh JS buffers the worker
/// transfers to the page for [`PerceptronPlayground::adopt_prepared`].
#[wasm_bindgen(js_name = perceptronPrepare)]
pub fn perceptron_prepare(spec_json: &str) -> Result<JsValue, JsError> {
    let t0 = web_time::Instant::now();
    let spec = PerceptronSpec::from_json(spec_json).map_err(js_err)?;
    let checked = PerceptronChecked::check(spec).map_err(js_err)?;
    let mut prep = PerceptronPreparation::new(checked).map_err(js_err)?;
    let (n, digest) = (prep.n(), prep.digest());
    // Copied out before G is built from the matrix for the search.
    let gram = js_sys::Float64Array::from(prep.kernel_matrix_all().map_err(js_err)?);
    let (p, iterations) = prep.margin_search_all().map_err(js_err)?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    js_object(&[
        ("n", JsValue::from_f64(n as f64)),
        ("digest", JsValue::from_str(&digest)),
        ("ms", JsValue::from_f64(ms)),
        ("gram", gram.into()),
        ("marginP", js_sys::Float64Array::from(p.as_slice()).into()),
        ("marginIterations", JsValue::from_f64(iterations as f64)),
    ])
}

/// Paper D's page: the message shown when its controls cannot hold the spec it was
/// asked to show ([`crate::spec_diff::controls_lose_as`]); `undefined` when they agree.
#[wasm_bindgen(js_name = perceptronControlsLose)]
pub fn perceptron_controls_lose(asked: &str, shown: &str) -> Result<Option<String>, JsError> {
    crate::spec_diff::controls_lose_as::<crate::papers::perceptron::PerceptronSpec>(
        crate::spec_json::Paper::Perceptron,
        asked,
        shown,
    )
    .map_err(js_err)
}
