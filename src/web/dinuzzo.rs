//! The wasm shell of paper C's page (Dinuzzo): a JSON spec in, the core's page state machine
//! ([`crate::papers::dinuzzo::page::DinuzzoPage`]) stepped, summaries out, plots drawn into
//! canvases. No mathematics and no decisions here.

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::{js_err, js_object, to_js};
use web_sys::HtmlCanvasElement;

use crate::datasets::plane::Regression1d;
use crate::exec::Standing;
use crate::papers::dinuzzo::page::DinuzzoPage;
use crate::papers::dinuzzo::run::method_name;
use crate::papers::dinuzzo::{envelope_curve, k_alpha_eigenvalues_of_block, DataSpec, DinuzzoSpec};
use crate::papers::{self, Spec};
use crate::plots::dinuzzo::{self as pd, Field, Level, PlotFrame, PointMark};

/// The K_α eigenvalues are computed on the leading principal block of at most this size.
pub const EIG_CAP: usize = 300;
/// The default spec as JSON text.
#[wasm_bindgen(js_name = dinuzzoDefaultSpec)]
pub fn dinuzzo_default_spec() -> String {
    Spec::Dinuzzo(DinuzzoSpec::default()).to_json()
}

/// What the page shows after each frame.
#[derive(Serialize)]
struct Summary {
    empty: bool,
    regression: bool,
    n: usize,
    dropped: usize,
    method: String,
    sweep: usize,
    objective: f64,
    dual: f64,
    gap: f64,
    residual: f64,
    max_h: f64,
    skipped: usize,
    support: usize,
    status: String,
    message: Option<String>,
    warnings: Vec<String>,
    alpha: Option<f64>,
    alpha_limit: Option<f64>,
    elapsed_ms: f64,
    steps_this_call: usize,
    /// In race mode each lane's [`Standing`] (empty otherwise).
    race: Vec<Standing>,
    /// The data's 64-bit digest (as `kplay digest` prints it).
    digest: String,
    /// What is being prepared before the run can start (empty when ready).
    preparing: String,
}

/// Paper C's page: a thin wrapper over [`crate::papers::dinuzzo::page::DinuzzoPage`] (the spec,
/// its problem prepared in slices, the solver or race, the decision map, the reuse and fallback
/// decisions), plus what only drawing needs: the K_α eigenvalues of the Theorem 5 plot and the
/// last map's frame (for clicks).
#[wasm_bindgen]
pub struct DinuzzoPlayground {
    page: DinuzzoPage,
    eig: Option<(f64, Vec<f64>)>,
    frame: Option<PlotFrame>,
    /// What the page says is being prepared, when not [`DinuzzoPage::preparing`] (a worker's).
    note: Option<String>,
}

impl DinuzzoPlayground {
    /// α of the solver shown: the fixed point's α, or coordinate descent's `1/k_ii` of the first kept row.
    fn shown_alpha(&self) -> Option<f64> {
        let s = self.page.selected()?;
        match s.alpha_norm() {
            Some((alpha, _)) => Some(alpha),
            None => {
                let d = s.problem().diagonal();
                d.iter().find(|v| **v > 0.0).map(|v| 1.0 / v)
            }
        }
    }

    fn summary_with(&self, steps: usize) -> Result<JsValue, JsError> {
        let race = if self.page.spec().race { self.page.runs().standings() } else { Vec::new() };
        let method = method_name(&self.page.spec().method);
        let Some(lane) = self.page.selected_lane() else {
            let regression = matches!(self.page.spec().data, DataSpec::Regression { .. });
            return to_js(&Summary {
                empty: true,
                regression,
                n: 0,
                dropped: 0,
                method,
                sweep: 0,
                objective: f64::NAN,
                dual: f64::NAN,
                gap: f64::NAN,
                residual: f64::NAN,
                max_h: f64::NAN,
                skipped: 0,
                support: 0,
                status: if self.page.ready() { "empty".into() } else { "preparing".into() },
                message: None,
                warnings: Vec::new(),
                alpha: None,
                alpha_limit: None,
                elapsed_ms: 0.0,
                steps_this_call: steps,
                race,
                digest: crate::papers::dinuzzo::dataset(&self.page.spec().data)
                    .map(|d| d.digest())
                    .unwrap_or_default(),
                preparing: self.page.preparing(),
            });
        };
        let s = lane.solver.as_ref();
        let r = lane.trace().last().copied();
        let (alpha, alpha_limit) = match s.alpha_norm() {
            Some((alpha, norm_k)) => (Some(alpha), Some(2.0 / norm_k)),
            None => (None, None),
        };
        // The executor's stop word, as `kplay run` prints it.
        let status = lane.stop().word().to_string();
        to_js(&Summary {
            empty: false,
            regression: self.page.built().is_some_and(|b| b.regression),
            n: s.problem().n(),
            dropped: s.problem().dropped().len(),
            method,
            sweep: r.map(|r| r.iter).unwrap_or(0),
            objective: r.and_then(|r| r.primal).unwrap_or(f64::NAN),
            dual: r.and_then(|r| r.dual).unwrap_or(f64::NAN),
            gap: r.and_then(|r| r.gap).unwrap_or(f64::NAN),
            residual: r.and_then(|r| r.residual).unwrap_or(f64::NAN),
            max_h: r.and_then(|r| r.max_h).unwrap_or(f64::NAN),
            skipped: s.skipped_updates(),
            support: s.support().len(),
            status,
            message: s.note().map(String::from),
            warnings: {
                let mut w = s.flags().to_vec();
                if let Some(b) = self.page.built() {
                    w.extend(papers::dinuzzo::run::race_note(b, self.page.spec()));
                }
                w
            },
            alpha,
            alpha_limit,
            elapsed_ms: r.map(|r| r.elapsed_ms).unwrap_or(0.0),
            steps_this_call: steps,
            race,
            digest: self.page.built().map(crate::papers::dinuzzo::digest_of).unwrap_or_default(),
            preparing: self.page.preparing(),
        })
    }
}

#[wasm_bindgen]
impl DinuzzoPlayground {
    /// Validate a JSON spec, build the data and the problem, and start the solver(s) at c = 0.
    #[wasm_bindgen(constructor)]
    pub fn new(spec_json: &str) -> Result<DinuzzoPlayground, JsError> {
        Ok(Self {
            page: DinuzzoPage::new(spec_json).map_err(js_err)?,
            eig: None,
            frame: None,
            note: None,
        })
    }

    /// Apply a new spec ([`DinuzzoPage::update`]: the data and the Gram matrix are kept when
    /// only the solver or the race changed). On error the old run is kept.
    pub fn update(&mut self, spec_json: &str) -> Result<(), JsError> {
        self.page.update(spec_json).map_err(js_err)?;
        self.eig = None;
        self.frame = None;
        self.note = None;
        Ok(())
    }

    /// Spend up to `budget_ms` on the O(n²) preparation (Gram matrix, ‖K‖₂, the map's cross
    /// kernel); returns true when the run is ready to step. If it fails, the previous run is
    /// restored and the error returned.
    pub fn prepare(&mut self, budget_ms: f64) -> Result<bool, JsError> {
        self.page.prepare(budget_ms).map_err(js_err)
    }

    /// Whether the preparation ahead is a whole kernel matrix not yet started, which a worker
    /// may compute ([`dinuzzo_prepare`]) for [`Self::adopt_prepared`].
    pub fn offloadable(&self) -> bool {
        self.page.offloadable()
    }

    /// Adopt a worker's preparation ([`dinuzzo_prepare`]'s `digest`, `gram`, `norm`, `map`):
    /// [`DinuzzoPage::adopt`] checks it against this page's spec and writes it into the
    /// page's own matrices (no new allocation). On error what was refused is left to
    /// [`Self::prepare`]'s slices.
    #[wasm_bindgen(js_name = adoptPrepared)]
    pub fn adopt_prepared(
        &mut self,
        digest: &str,
        gram: js_sys::Float64Array,
        norm: Option<f64>,
        map: Option<js_sys::Float64Array>,
    ) -> Result<(), JsError> {
        let mut fill_gram = |d: &mut [f64]| gram.copy_to(d);
        let mut fill_map = |d: &mut [f64]| {
            if let Some(m) = &map {
                m.copy_to(d)
            }
        };
        let map_fill = map
            .as_ref()
            .map(|m| (m.length() as usize, &mut fill_map as &mut dyn FnMut(&mut [f64])));
        let r = self
            .page
            .adopt(digest, (gram.length() as usize, &mut fill_gram), norm, map_fill)
            .map_err(js_err);
        self.eig = None;
        self.frame = None;
        self.note = None;
        r
    }

    /// Say `note` on the map while the problem is prepared elsewhere (a worker); `undefined`
    /// goes back to the page's own progress.
    #[wasm_bindgen(js_name = setPreparingNote)]
    pub fn set_preparing_note(&mut self, note: Option<String>) {
        self.note = note;
    }

    /// Whether the run is ready to step (the problem is built; the map may still be computing).
    pub fn ready(&self) -> bool {
        self.page.ready()
    }

    /// What is being prepared, for the page's progress readout (empty when ready), e.g.
    /// "building the kernel matrix: 45 %".
    #[wasm_bindgen(js_name = preparing)]
    pub fn preparing(&self) -> String {
        self.page.preparing()
    }

    /// Restart the solver(s) from c = 0 on the same problem.
    pub fn reset(&mut self) -> Result<(), JsError> {
        self.page.reset().map_err(js_err)
    }

    /// One sweep of every running solver (even paused); returns the summary.
    pub fn step(&mut self) -> Result<JsValue, JsError> {
        let k = self.page.step();
        self.summary_with(k)
    }

    /// Sweep the running solver(s) in turn until none runs or `budget_ms` has elapsed (at least
    /// one round).
    #[wasm_bindgen(js_name = runFor)]
    pub fn run_for(&mut self, budget_ms: f64) -> Result<JsValue, JsError> {
        let k = self.page.run_for(budget_ms);
        self.summary_with(k)
    }

    /// True while any solver is still running.
    pub fn running(&self) -> bool {
        self.page.running()
    }

    /// The current state for the readouts.
    pub fn summary(&self) -> Result<JsValue, JsError> {
        self.summary_with(0)
    }

    /// The spec as JSON text (for the URL hash).
    #[wasm_bindgen(js_name = specJson)]
    pub fn spec_json(&self) -> String {
        Spec::Dinuzzo(self.page.spec().clone()).to_json()
    }

    /// The window of the map `[x_min, x_max, y_min, y_max]` (kept fixed while the user clicks).
    pub fn view(&self) -> Vec<f64> {
        self.page.view()
    }

    /// The current 2-D data as a flat `[x₁, x₂, label, …]` list (to start editing by clicks).
    pub fn points(&self) -> Vec<f64> {
        self.page.points()
    }

    /// Data coordinates `[x₁, x₂]` of a canvas backing-store pixel of the last map drawn, or an
    /// empty array outside the plotting area.
    #[wasm_bindgen(js_name = toData)]
    pub fn to_data(&self, px: f64, py: f64) -> Vec<f64> {
        self.frame
            .as_ref()
            .and_then(|f| f.to_data(px, py))
            .map(|(a, b)| vec![a, b])
            .unwrap_or_default()
    }

    /// The per-sweep records of the lane shown (the executor's trace, as `kplay run` prints it).
    pub fn trace(&self) -> Result<JsValue, JsError> {
        match self.page.selected_lane() {
            Some(l) => to_js(&l.trace()),
            None => to_js(&Vec::<u8>::new()),
        }
    }

    /// The coefficients c of the solver shown.
    pub fn coefficients(&self) -> Vec<f64> {
        self.page.selected().map(|s| s.c().as_slice().to_vec()).unwrap_or_default()
    }

    /// Draw the decision function (heatmap, zero level, margins ±1, support vectors ringed) or
    /// the regression curve with its ε-tube into `canvas`.
    #[wasm_bindgen(js_name = drawMap)]
    pub fn draw_map(&mut self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let backend = CanvasBackend::with_canvas_object(canvas)
            .ok_or_else(|| js_err("no 2-D context on the canvas"))?;
        let root = backend.into_drawing_area();
        let view = self.page.view();
        let (xr, yr) = ((view[0], view[1]), (view[2], view[3]));
        if let (Some(b), None) = (self.page.built(), self.page.map()) {
            // The map's kernel values are still being computed: the points alone, and progress.
            let pts: Vec<PointMark> = if b.regression {
                Vec::new()
            } else {
                (0..b.y.len()).map(|i| PointMark::new(b.x[(i, 0)], b.x[(i, 1)], b.y[i])).collect()
            };
            let f = pd::draw_decision_map(
                &root,
                None,
                xr,
                yr,
                1.0,
                &[],
                &pts,
                Some(&self.page.preparing()),
                dpr,
            )
            .map_err(js_err)?;
            self.frame = Some(f);
            return Ok(());
        }
        let Some(b) = self.page.built() else {
            let note = if self.page.preparing().is_empty() {
                "click or tap: add a point of the chosen class".to_string()
            } else {
                self.note.clone().unwrap_or_else(|| self.page.preparing())
            };
            let f = pd::draw_decision_map(&root, None, xr, yr, 1.0, &[], &[], Some(&note), dpr)
                .map_err(js_err)?;
            self.frame = Some(f);
            return Ok(());
        };
        let Some(s) = self.page.selected() else { return Ok(()) };
        let c = s.c();
        if b.regression {
            let (x0, x1) = (
                b.x.iter().copied().fold(f64::INFINITY, f64::min),
                b.x.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            );
            let m = 240usize;
            let Some((map, _, _)) = self.page.map() else { return Ok(()) };
            let f = map.evaluate(s.problem(), c).map_err(js_err)?;
            let curve: Vec<(f64, f64)> =
                (0..m).map(|i| (x0 + (x1 - x0) * i as f64 / (m - 1) as f64, f[i])).collect();
            let truth: Vec<(f64, f64)> =
                curve.iter().map(|&(x, _)| (x, Regression1d::truth(x))).collect();
            let data: Vec<(f64, f64, bool)> =
                (0..b.y.len()).map(|i| (b.x[(i, 0)], b.y[i], c[i] != 0.0)).collect();
            let eps = self.page.spec().loss.tube_width();
            let show_truth = matches!(self.page.spec().data, DataSpec::Regression { .. });
            let f = pd::draw_regression(
                &root,
                &data,
                &curve,
                eps,
                show_truth.then_some(&truth[..]),
                dpr,
            )
            .map_err(js_err)?;
            self.frame = Some(f);
            return Ok(());
        }
        let Some((map, nx, ny)) = self.page.map() else { return Ok(()) };
        let vals = map.evaluate(s.problem(), c).map_err(js_err)?;
        let maxabs =
            vals.iter().fold(0.0f64, |m, v| if v.is_finite() { m.max(v.abs()) } else { m });
        let field = Field { values: vals.as_slice(), nx: *nx, ny: *ny, x_range: xr, y_range: yr };
        let levels = [
            Level { value: 0.0, width: 2.4, color: BLACK },
            Level { value: 1.0, width: 1.2, color: RGBColor(90, 90, 90) },
            Level { value: -1.0, width: 1.2, color: RGBColor(90, 90, 90) },
        ];
        let sparse = s.support().len() < b.y.len();
        let pts: Vec<PointMark> = (0..b.y.len())
            .map(|i| PointMark {
                ring: sparse && c[i] != 0.0,
                ..PointMark::new(b.x[(i, 0)], b.x[(i, 1)], b.y[i])
            })
            .collect();
        let f = pd::draw_decision_map(
            &root,
            Some(&field),
            xr,
            yr,
            maxabs.clamp(1e-6, 1.5),
            &levels,
            &pts,
            None,
            dpr,
        )
        .map_err(js_err)?;
        self.frame = Some(f);
        Ok(())
    }

    /// Draw the duality gap, the residual and the objective against the sweep (log scale), or,
    /// in race mode, the five solvers' duality gaps.
    #[wasm_bindgen(js_name = drawConvergence)]
    pub fn draw_convergence(&self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let backend = CanvasBackend::with_canvas_object(canvas)
            .ok_or_else(|| js_err("no 2-D context on the canvas"))?;
        let root = backend.into_drawing_area();
        let tol = papers::dinuzzo::run::tolerance(&self.page.spec().method);
        let lanes: Vec<&papers::dinuzzo::run::Lane> = if self.page.spec().race {
            self.page.runs().lanes().iter().collect()
        } else {
            self.page.selected_lane().into_iter().collect()
        };
        let series = papers::dinuzzo::run::convergence_series(&lanes, self.page.spec().race);
        pd::draw_log_series(&root, &series, "sweep", Some((tol, "δ")), dpr).map_err(js_err)
    }

    /// The primal F(c) and the dual D(c) of the run shown against the sweep (linear values, log
    /// sweep axis; paper C, Theorem 4's erratum: coordinate descent is ascent on D).
    #[wasm_bindgen(js_name = drawPrimalDual)]
    pub fn draw_primal_dual(&self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let backend = CanvasBackend::with_canvas_object(canvas)
            .ok_or_else(|| js_err("no 2-D context on the canvas"))?;
        let root = backend.into_drawing_area();
        let series = self
            .page
            .selected_lane()
            .map(papers::dinuzzo::run::primal_dual_series)
            .unwrap_or_default();
        pd::draw_primal_dual(&root, &series, dpr).map_err(js_err)
    }

    /// Theorem 5: the loss beside its Moreau–Yosida envelope at the solver's α, and the
    /// eigenvalues of `K_α = αK − I` (on the leading block of at most [`EIG_CAP`] points).
    #[wasm_bindgen(js_name = drawTheorem5)]
    pub fn draw_theorem5(&mut self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let backend = CanvasBackend::with_canvas_object(canvas)
            .ok_or_else(|| js_err("no 2-D context on the canvas"))?;
        let root = backend.into_drawing_area();
        let alpha = self.shown_alpha().unwrap_or(1.0);
        let loss = self.page.spec().loss;
        let lambda = self.page.spec().lambda;
        let y = if loss.is_classification() || !self.page.built().is_some_and(|b| b.regression) {
            1.0
        } else {
            0.0
        };
        let (t0, t1) = if y == 1.0 { (-2.0, 3.0) } else { (-2.5, 2.5) };
        let env = envelope_curve(loss, y, alpha, lambda, t0, t1, 241).map_err(js_err)?;
        let n = self.page.built().map(|b| b.problem.n()).unwrap_or(0);
        if self.eig.as_ref().is_none_or(|e| e.0 != alpha) {
            let ev = match self.page.built() {
                Some(b) => {
                    k_alpha_eigenvalues_of_block(&b.problem, EIG_CAP, alpha).map_err(js_err)?
                }
                None => Vec::new(),
            };
            self.eig = Some((alpha, ev));
        }
        let ev = self.eig.as_ref().map(|e| e.1.as_slice()).unwrap_or(&[]);
        let neg = ev.iter().filter(|v| **v < 0.0).count();
        let note = if n > EIG_CAP {
            format!("index (first {EIG_CAP} of {n} points) · {neg} negative")
        } else {
            format!("index · {neg} of {} negative", ev.len())
        };
        let caps = loss.capabilities();
        let name = caps.paper_c.unwrap_or(caps.label);
        pd::draw_theorem5(&root, &env, name, alpha, ev, &note, dpr).map_err(js_err)
    }
}

/// Paper C's O(n²) preparation for a Web Worker (issue 21 §3): the page's problem built from
/// the same spec and prepared at once ([`DinuzzoPage::prepare_all`]: the Gram matrix and the
/// map's kernel values on every thread of the threaded build, then ‖K‖₂ when the solver needs
/// it). Returns `{n, digest, ms, gram: Float64Array, norm: number|null, map: Float64Array|null}`,
/// fresh JS buffers the worker transfers to the page for
/// [`DinuzzoPlayground::adopt_prepared`]. An error for a spec with nothing to prepare.
#[wasm_bindgen(js_name = dinuzzoPrepare)]
pub fn dinuzzo_prepare(spec_json: &str) -> Result<JsValue, JsError> {
    let t0 = web_time::Instant::now();
    let mut page = DinuzzoPage::new(spec_json).map_err(js_err)?;
    if !page.offloadable() {
        return Err(js_err("this spec has no kernel matrix to prepare in a worker"));
    }
    page.prepare_all().map_err(js_err)?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let h = page.handover().ok_or_else(|| js_err("the preparation did not finish"))?;
    let gram = h.gram.ok_or_else(|| js_err("no Gram matrix was prepared"))?;
    let n = page.built().map_or(0, |b| b.problem.n());
    js_object(&[
        ("n", JsValue::from_f64(n as f64)),
        ("digest", JsValue::from_str(&h.digest)),
        ("ms", JsValue::from_f64(ms)),
        ("gram", js_sys::Float64Array::from(gram).into()),
        ("norm", h.norm.map_or(JsValue::NULL, JsValue::from_f64)),
        ("map", h.map.map_or(JsValue::NULL, |m| js_sys::Float64Array::from(m).into())),
    ])
}

/// Paper C's page: the message shown when its controls cannot hold the spec it was
/// asked to show ([`crate::spec_diff::controls_lose_as`]); `undefined` when they agree.
#[wasm_bindgen(js_name = dinuzzoControlsLose)]
pub fn dinuzzo_controls_lose(asked: &str, shown: &str) -> Result<Option<String>, JsError> {
    crate::spec_diff::controls_lose_as::<DinuzzoSpec>(
        crate::spec_json::Paper::Dinuzzo,
        asked,
        shown,
    )
    .map_err(js_err)
}
