//! The wasm shell of paper D's page (smoothed kernel perceptrons and von Neumann certificates):
//! JSON spec in, summaries out, drawing into canvases. The mathematics is in
//! `crate::solvers::perceptron` (session, algorithms, bounds) and `solvers::perceptron::margin`.

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::{js_err, js_object, to_js};
use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};

use crate::engine::perceptron::PerceptronRace;
use crate::experiment::perceptron::{
    view_box, BoundLine, CertificateCheck, DataSpec, Outcome, PerceptronSpec, SeparatorCheck,
    Session, SessionPreparation,
};
use crate::kernels::CrossJob;
use crate::plots::perceptron::{
    boundary_rect, draw_boundary, draw_race, draw_trace, equal_aspect, heatmap_rgba, BoundaryScene,
};
use crate::solvers::perceptron::margin::Margin;
use nalgebra::DMatrix;

/// Paper D's default experiment (separable blobs, linear kernel, SNKP) as JSON text.
#[wasm_bindgen(js_name = perceptronDefaultSpec)]
pub fn perceptron_default_spec() -> String {
    PerceptronSpec::default().to_tagged_json()
}

/// The outcome without its weight vectors.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum OutcomeSummary {
    Separator { check: SeparatorCheck },
    Certificate { check: CertificateCheck },
    IterationCap { iterations: usize },
}

#[derive(Serialize)]
struct MarginSummary {
    rho: f64,
    lower: f64,
    upper: f64,
    separability: crate::solvers::perceptron::margin::Separability,
    exact: bool,
}

impl From<&Margin> for MarginSummary {
    fn from(m: &Margin) -> Self {
        Self {
            rho: m.rho,
            lower: m.lower,
            upper: m.upper,
            separability: m.separability,
            exact: m.exact,
        }
    }
}

#[derive(Serialize)]
struct Summary {
    iter: usize,
    min_g_alpha: Option<f64>,
    norm_p_g: Option<f64>,
    finished: bool,
    /// The run's stop word (`running`, `separator`, `certificate`, `max_iterations`, …), as
    /// `kplay run` prints it.
    status: &'static str,
    algorithm: &'static str,
    n: usize,
    steps_this_call: usize,
    margin: MarginSummary,
    bounds: Vec<BoundLine>,
    outcome: Option<OutcomeSummary>,
    error: Option<String>,
    /// The data's 64-bit digest (as `kplay digest` prints it).
    digest: String,
}

/// The summary while a new data set is prepared (no run yet).
#[derive(Serialize)]
struct PreparingSummary {
    preparing: String,
    n: usize,
    iter: usize,
    finished: bool,
}

#[derive(Serialize)]
struct RaceSummary {
    finished: bool,
    /// Each lane's standing with its outcome, check and bound (as `kplay race` prints them).
    lanes: Vec<serde_json::Value>,
}

/// Points with n² up to this are prepared at once when a spec is applied; larger sets in
/// slices ([`PerceptronPlayground::prepare`]), one per frame.
const SYNC_GRAM: usize = 250_000;
/// Heatmap cross kernels with (cells × n) up to this are computed at once.
const SYNC_HEAT: usize = 1_000_000;

/// The heatmap's grid and its cached cross kernel `K(grid, x)`.
struct Heat {
    key: ([u64; 4], usize, usize),
    cross: Option<DMatrix<f64>>,
    job: Option<CrossJob>,
}

/// Paper D's experiment with its running algorithm, and optionally a race of all six.
#[wasm_bindgen]
pub struct PerceptronPlayground {
    /// The running session; `None` until the first preparation is done.
    session: Option<Session>,
    /// A new spec's session being prepared in slices (G, then ρ_K); the old session runs on.
    prep: Option<SessionPreparation>,
    race: Option<PerceptronRace>,
    heat: Option<Heat>,
    /// Equal-aspect view and plotting rectangle of the last boundary drawing (for clicks).
    view: [f64; 4],
    rect: [i32; 4],
    /// What the page says is being prepared, when not the preparation's own progress (a
    /// worker's, [`perceptron_prepare`]).
    note: Option<String>,
}

fn not_ready() -> JsError {
    js_err("the run is still being prepared")
}

fn ctx2d(canvas: &HtmlCanvasElement) -> Result<CanvasRenderingContext2d, JsError> {
    canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
        .ok_or_else(|| js_err("no 2-D context on the canvas"))
}

/// Map a device-pixel position to data coordinates for `view` drawn in `rect`.
fn to_data(view: [f64; 4], rect: [i32; 4], px: f64, py: f64) -> [f64; 2] {
    let [a, b, c, d] = view;
    let tx = (px - rect[0] as f64) / ((rect[2] - rect[0]).max(1) as f64);
    let ty = (py - rect[1] as f64) / ((rect[3] - rect[1]).max(1) as f64);
    [a + tx * (b - a), d - ty * (d - c)]
}

/// The hand-made points `[[x₁, x₂, ±1], …]` drawn alone (when they do not make a valid data
/// set yet, e.g. one class only), so the user sees what was clicked.
#[wasm_bindgen(js_name = drawHandPoints)]
pub fn draw_hand_points(
    canvas: HtmlCanvasElement,
    dpr: f64,
    points_json: &str,
) -> Result<(), JsError> {
    let pts: Vec<[f64; 3]> = serde_json::from_str(points_json).map_err(js_err)?;
    let drawable = |p: &&[f64; 3]| {
        crate::budget::coordinate("points", 0, p[0])
            .and(crate::budget::coordinate("points", 0, p[1]))
            .is_ok()
    };
    let x: Vec<(f64, f64)> = pts.iter().filter(drawable).map(|p| (p[0], p[1])).collect();
    let y: Vec<f64> = pts.iter().filter(drawable).map(|p| p[2]).collect();
    let m = nalgebra::DMatrix::from_fn(x.len(), 2, |i, j| if j == 0 { x[i].0 } else { x[i].1 });
    let rect = boundary_rect(canvas.width(), canvas.height(), dpr);
    let view = equal_aspect(view_box(&m, true), rect);
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
    let pts: Vec<[f64; 3]> = serde_json::from_str(points_json).map_err(js_err)?;
    let pts: Vec<&[f64; 3]> = pts.iter().filter(|p| p[0].is_finite() && p[1].is_finite()).collect();
    let m = nalgebra::DMatrix::from_fn(pts.len(), 2, |i, j| pts[i][j]);
    let rect = boundary_rect(width, height, dpr);
    Ok(to_data(equal_aspect(view_box(&m, true), rect), rect, px, py).to_vec())
}

#[wasm_bindgen]
impl PerceptronPlayground {
    /// Validate a JSON spec, build G, compute ρ_K and start the algorithm.
    #[wasm_bindgen(constructor)]
    pub fn new(spec_json: &str) -> Result<PerceptronPlayground, JsError> {
        let mut pg = Self {
            session: None,
            prep: None,
            race: None,
            heat: None,
            view: [-1.0, 1.0, -1.0, 1.0],
            rect: [0, 0, 1, 1],
            note: None,
        };
        pg.update(spec_json)?;
        Ok(pg)
    }

    /// Apply a new spec: only the algorithm restarts when the data and kernel are unchanged.
    /// A new data set or kernel is prepared in slices ([`Self::prepare`]) when large (the old
    /// run stays until it is ready). On error the old run is kept.
    pub fn update(&mut self, spec_json: &str) -> Result<(), JsError> {
        let spec = PerceptronSpec::from_json(spec_json).map_err(js_err)?;
        self.note = None;
        if let Some(s) = self
            .session
            .as_mut()
            .filter(|s| spec.data == s.spec.data && spec.kernel == s.spec.kernel)
        {
            spec.race_parameters().map_err(js_err)?;
            s.restart(spec.algorithm, spec.max_iter).map_err(js_err)?;
            s.spec.race = spec.race;
            self.prep = None;
        } else {
            let prep = SessionPreparation::new(spec).map_err(js_err)?;
            let small = prep.n().saturating_mul(prep.n()) <= SYNC_GRAM;
            self.prep = Some(prep);
            if small {
                self.prepare(f64::INFINITY)?;
            }
        }
        self.race = None;
        Ok(())
    }

    /// Spend up to `budget_ms` on what is being prepared: a new session (G, ρ_K), then the
    /// heatmap's cross kernel. Returns true when nothing is left. On error the preparation is
    /// dropped (the previous run, if any, stays) and the error returned.
    pub fn prepare(&mut self, budget_ms: f64) -> Result<bool, JsError> {
        // One task per call, sliced by the executor: a new session leaves no heatmap job, so the
        // heatmap's cross kernel starts on the next call with its own budget.
        if let Some(p) = &mut self.prep {
            match p.advance(budget_ms) {
                Ok(Some(session)) => {
                    self.view = session.view;
                    self.session = Some(session);
                    self.prep = None;
                    self.heat = None;
                    self.race = None;
                    return Ok(true);
                }
                Ok(None) => return Ok(false),
                Err(e) => {
                    self.prep = None;
                    return Err(js_err(e));
                }
            }
        }
        if let Some(h) = &mut self.heat {
            if let Some(job) = &mut h.job {
                if !job.advance(budget_ms).map_err(js_err)? {
                    return Ok(false);
                }
                h.cross = h.job.take().map(CrossJob::finish).transpose().map_err(js_err)?;
            }
        }
        Ok(true)
    }

    /// Whether the preparation ahead is a whole kernel matrix not yet started, which a worker
    /// may compute on every core ([`perceptron_prepare`]) for [`Self::adopt_prepared`].
    pub fn offloadable(&self) -> bool {
        self.prep.as_ref().is_some_and(SessionPreparation::offloadable)
    }

    /// Adopt a worker's preparation ([`perceptron_prepare`]'s `digest`, `gram` and, when
    /// given, `margin_p` with `margin_iterations`): [`SessionPreparation::adopt_kernel_matrix`]
    /// checks the matrix against this page's spec and writes it into the page's own matrix (no
    /// new allocation), then [`SessionPreparation::adopt_margin_search`] resumes ρ_K's search
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
        self.note = None;
        let p =
            self.prep.as_mut().ok_or_else(|| js_err("this page has no preparation under way"))?;
        p.adopt_kernel_matrix(digest, gram.length() as usize, |d| gram.copy_to(d))
            .map_err(js_err)?;
        let (Some(w), Some(it)) = (margin_p, margin_iterations) else {
            return Ok(());
        };
        if !(it.is_finite() && it >= 0.0 && it.fract() == 0.0) {
            return Err(js_err(format!("marginIterations: a whole number ≥ 0 (got {it})")));
        }
        // The length before the copy: no allocation sized by what was handed over.
        if w.length() as usize != p.n() {
            return Err(js_err(format!(
                "marginP: {} weights handed over for {} points",
                w.length(),
                p.n()
            )));
        }
        p.adopt_margin_search(w.to_vec(), it as usize).map_err(js_err)
    }

    /// Say `note` as the progress while the data are prepared elsewhere (a worker);
    /// `undefined` goes back to the preparation's own progress.
    #[wasm_bindgen(js_name = setPreparingNote)]
    pub fn set_preparing_note(&mut self, note: Option<String>) {
        self.note = note;
    }

    /// Whether the run can step (a session exists and no new one is being prepared).
    pub fn ready(&self) -> bool {
        self.session.is_some() && self.prep.is_none()
    }

    /// What is being prepared, for the page's progress readout (empty when nothing is).
    pub fn preparing(&self) -> String {
        if let Some(p) = &self.prep {
            if let Some(note) = &self.note {
                return note.clone();
            }
            let (what, f) = p.progress();
            return format!("computing the {what}: {:.0} %", 100.0 * f);
        }
        if let Some(job) = self.heat.as_ref().and_then(|h| h.job.as_ref()) {
            return format!(
                "computing the heatmap's kernel values: {:.0} %",
                100.0 * job.fraction()
            );
        }
        String::new()
    }

    fn s(&self) -> Result<&Session, JsError> {
        self.session.as_ref().filter(|_| self.prep.is_none()).ok_or_else(not_ready)
    }

    /// The session shown (the previous one while a new one is prepared).
    fn cur(&self) -> Result<&Session, JsError> {
        self.session.as_ref().ok_or_else(not_ready)
    }

    fn s_mut(&mut self) -> Result<&mut Session, JsError> {
        if self.prep.is_some() {
            return Err(not_ready());
        }
        self.session.as_mut().ok_or_else(not_ready)
    }

    /// Restart the algorithm on the same data.
    pub fn reset(&mut self) -> Result<(), JsError> {
        let s = self.s_mut()?;
        let (a, m) = (s.spec.algorithm, s.spec.max_iter);
        s.restart(a, m).map_err(js_err)
    }

    /// One iteration; returns the summary.
    pub fn step(&mut self) -> Result<JsValue, JsError> {
        let k = self.s_mut()?.step() as usize;
        self.summary_with(k)
    }

    /// Iterate within `budget_ms` (at least one iteration unless finished).
    #[wasm_bindgen(js_name = runFor)]
    pub fn run_for(&mut self, budget_ms: f64) -> Result<JsValue, JsError> {
        let k = self.s_mut()?.run_for(budget_ms);
        self.summary_with(k)
    }

    /// The current state for the readouts and the outcome panel.
    pub fn summary(&self) -> Result<JsValue, JsError> {
        self.summary_with(0)
    }

    fn summary_with(&self, steps: usize) -> Result<JsValue, JsError> {
        let Ok(session) = self.s() else {
            return to_js(&PreparingSummary {
                preparing: self.preparing(),
                n: self.prep.as_ref().map(|p| p.n()).unwrap_or(0),
                iter: 0,
                finished: false,
            });
        };
        let r = session.record();
        let (outcome, error) = match session.outcome() {
            Ok(Some(Outcome::Separator { check, .. })) => {
                (Some(OutcomeSummary::Separator { check }), None)
            }
            Ok(Some(Outcome::Certificate { check, .. })) => {
                (Some(OutcomeSummary::Certificate { check }), None)
            }
            Ok(Some(Outcome::IterationCap { iterations })) => {
                (Some(OutcomeSummary::IterationCap { iterations }), None)
            }
            Ok(None) => (None, None),
            Err(e) => (None, Some(e.to_string())),
        };
        to_js(&Summary {
            iter: r.iter,
            min_g_alpha: r.min_g_alpha,
            norm_p_g: r.norm_p_g,
            finished: session.finished(),
            status: session.stop().word(),
            algorithm: session.spec.algorithm.name(),
            n: session.problem.n(),
            steps_this_call: steps,
            margin: (&session.margin).into(),
            bounds: session.bounds(),
            outcome,
            error,
            digest: session.digest.clone(),
        })
    }

    /// The spec as JSON text (for the URL hash).
    #[wasm_bindgen(js_name = specJson)]
    pub fn spec_json(&self) -> String {
        match (&self.prep, &self.session) {
            (Some(p), _) => p.spec().to_tagged_json(),
            (None, Some(s)) => s.spec.to_tagged_json(),
            (None, None) => String::new(),
        }
    }

    /// The per-iteration records so far (`min_i (Gα)_i`, `‖p‖_G`, …), for the page's export.
    pub fn trace(&self) -> Result<JsValue, JsError> {
        to_js(&self.cur()?.trace())
    }

    /// The current coefficients α of the separator `f = Σ α_i y_i K(x_i, ·)/√K_ii` (export).
    pub fn alpha(&self) -> Vec<f64> {
        self.session.as_ref().map(Session::alpha).unwrap_or_default()
    }

    /// The current simplex weights p of the von Neumann algorithms (empty for the perceptrons).
    pub fn p(&self) -> Vec<f64> {
        self.session.as_ref().and_then(Session::p).unwrap_or_default()
    }

    /// The data points as JSON `[[x₁, x₂, ±1], …]` (to turn a generated set into a hand-made one).
    #[wasm_bindgen(js_name = pointsJson)]
    pub fn points_json(&self) -> String {
        let Some(session) = &self.session else { return "[]".into() };
        if let DataSpec::Points { points } = &session.spec.data {
            return serde_json::to_string(points).unwrap_or_default();
        }
        let x = session.problem.x();
        let y = session.problem.y();
        let pts: Vec<[f64; 3]> = (0..x.nrows()).map(|i| [x[(i, 0)], x[(i, 1)], y[i]]).collect();
        serde_json::to_string(&pts).unwrap_or_default()
    }

    /// Data coordinates of a device-pixel position on the boundary canvas (last drawing).
    #[wasm_bindgen(js_name = dataAt)]
    pub fn data_at(&self, px: f64, py: f64) -> Vec<f64> {
        to_data(self.view, self.rect, px, py).to_vec()
    }

    /// Draw the decision function (heatmap, zero level), the points sized by p and, for the
    /// linear kernel, the arrow `Σ p_i y_i x_i/‖x_i‖`. The heatmap is an RGBA buffer put with
    /// `putImageData`; its grid is coarser for large n so one drawing stays within ~3·10⁶
    /// kernel evaluations (bilinear interpolation in between).
    #[wasm_bindgen(js_name = drawBoundary)]
    pub fn draw_boundary(&mut self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let (w, h) = (canvas.width(), canvas.height());
        let rect = boundary_rect(w, h, dpr);
        let Some(session) = &self.session else {
            // Nothing built yet (a large first data set is being prepared): an empty frame.
            let root = CanvasBackend::with_canvas_object(canvas)
                .ok_or_else(|| js_err("no 2-D context on the canvas"))?
                .into_drawing_area();
            let scene =
                BoundaryScene { x: &[], y: &[], p: None, arrow: None, hull: None, heat: None };
            self.rect = draw_boundary(&root, self.view, &scene, dpr, true).map_err(js_err)?;
            return Ok(());
        };
        let view = equal_aspect(session.view, rect);
        let (pw, ph) = ((rect[2] - rect[0]).max(2) as usize, (rect[3] - rect[1]).max(2) as usize);
        let n = session.problem.n();
        let linear = matches!(session.problem.kernel(), crate::kernels::ResolvedKernel::Linear(_));
        let cells = if linear {
            160.0 * 160.0
        } else {
            (3.0e6 / n as f64).clamp(24.0 * 24.0, 140.0 * 140.0)
        };
        let aspect = pw as f64 / ph as f64;
        let gx = ((cells * aspect).sqrt().round() as usize).clamp(8, pw.max(8));
        let gy = ((cells / aspect).sqrt().round() as usize).clamp(8, ph.max(8));
        let f = if linear {
            Some(session.decision_grid(view, gx, gy).map_err(js_err)?)
        } else {
            // Kernel values at the grid are cached (the grid only changes with the canvas);
            // a new grid's are computed in slices by `prepare`, the heatmap waits for them.
            let key = (view.map(f64::to_bits), gx, gy);
            if self.heat.as_ref().is_none_or(|h| h.key != key) {
                let g = crate::datasets::plane::grid(view[0], view[1], view[2], view[3], gx, gy)
                    .map_err(js_err)?;
                let mut job =
                    CrossJob::new(session.problem.kernel(), g, session.problem.x().clone())
                        .map_err(js_err)?;
                if (gx * gy).saturating_mul(n) <= SYNC_HEAT {
                    job.advance(f64::INFINITY).map_err(js_err)?;
                }
                self.heat = Some(Heat { key, cross: None, job: Some(job) });
                self.prepare(0.0)?;
            }
            match self.heat.as_ref().and_then(|h| h.cross.as_ref()) {
                Some(cross) => {
                    let g = self.session.as_ref().ok_or_else(not_ready)?;
                    Some(
                        g.problem
                            .decision_function_with(&g.alpha(), cross)
                            .map_err(js_err)?
                            .iter()
                            .copied()
                            .collect::<Vec<f64>>(),
                    )
                }
                None => None,
            }
        };
        let session = self.session.as_ref().ok_or_else(not_ready)?;
        let ctx = ctx2d(&canvas)?;
        if let Some(f) = f {
            let img = heatmap_rgba(&f, gx, gy, pw, ph, (dpr.round() as usize).max(1));
            let data = ImageData::new_with_u8_clamped_array_and_sh(
                Clamped(img.as_slice()),
                pw as u32,
                ph as u32,
            )
            .map_err(|_| js_err("could not build the heatmap image"))?;
            ctx.put_image_data(&data, rect[0] as f64, rect[1] as f64)
                .map_err(|_| js_err("could not draw the heatmap"))?;
        }
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
        let heat_missing = self.heat.as_ref().is_some_and(|h| h.cross.is_none()) && !linear;
        self.rect = draw_boundary(&root, view, &scene, dpr, heat_missing).map_err(js_err)?;
        self.view = view;
        Ok(())
    }

    /// Draw `min_i (Gα)_i` and `‖p_k‖_G` against the iteration with the bounds.
    #[wasm_bindgen(js_name = drawTrace)]
    pub fn draw_trace(&self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        #[allow(clippy::type_complexity)]
        let (trace, bounds): (Vec<(usize, f64, Option<f64>)>, Vec<(String, f64, bool)>) =
            match &self.session {
                Some(session) => (
                    crate::plots::perceptron::trace_points(&session.trace()),
                    session
                        .bounds()
                        .into_iter()
                        .map(|b| (b.label, b.iterations, b.current))
                        .collect(),
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
        self.race = Some(PerceptronRace::new(self.s()?).map_err(js_err)?);
        Ok(())
    }

    /// Step the race within `budget_ms`; returns `{finished, lanes}`.
    #[wasm_bindgen(js_name = raceFor)]
    pub fn race_for(&mut self, budget_ms: f64) -> Result<JsValue, JsError> {
        let race = self.race.as_mut().ok_or_else(|| js_err("no race has been started"))?;
        race.run_for(budget_ms);
        to_js(&RaceSummary { finished: race.finished(), lanes: race.lanes_json() })
    }

    /// Draw the race standings.
    #[wasm_bindgen(js_name = drawRace)]
    pub fn draw_race(&self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let entries = self.race.as_ref().map(|r| r.entries()).unwrap_or_default();
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
    for (name, spec, sep) in crate::experiment::perceptron::timing_workloads(n) {
        rows.extend(
            crate::experiment::perceptron::run_timing_workload(&name, &spec, sep, cap)
                .map_err(js_err)?,
        );
    }
    to_js(&rows)
}

/// Paper D's O(n²) preparation for a Web Worker (issue 21 §3): the page's data built from the
/// same spec, their kernel matrix computed at once on every thread of the threaded build
/// ([`SessionPreparation::kernel_matrix_all`], the slices' bits), then ρ_K's min-norm search
/// run to its stop ([`SessionPreparation::margin_search_all`]). Returns `{n, digest, ms, gram:
/// Float64Array, marginP: Float64Array, marginIterations}`, fresh JS buffers the worker
/// transfers to the page for [`PerceptronPlayground::adopt_prepared`].
#[wasm_bindgen(js_name = perceptronPrepare)]
pub fn perceptron_prepare(spec_json: &str) -> Result<JsValue, JsError> {
    let t0 = web_time::Instant::now();
    let spec = PerceptronSpec::from_json(spec_json).map_err(js_err)?;
    let mut prep = SessionPreparation::new(spec).map_err(js_err)?;
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
    crate::spec_diff::controls_lose_as::<crate::experiment::perceptron::PerceptronSpec>(
        crate::spec_json::Paper::Perceptron,
        asked,
        shown,
    )
    .map_err(js_err)
}
