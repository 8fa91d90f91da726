//! The wasm shell of paper C's page (Dinuzzo): a JSON spec in (data, loss, λ, kernel, solver,
//! race), the core's problem and solvers stepped, summaries out, plots drawn into canvases.
//! No mathematics here: everything is a call into `solvers::{fixed_point, coordinate}`,
//! `datasets::plane` and `plot_dinuzzo`.

use nalgebra::DMatrix;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::{js_err, to_js};
use web_sys::HtmlCanvasElement;

use crate::engine::dinuzzo::{method_index, method_name, uses_kernel_rows, Built, DataSpec, DinuzzoSpec, RACER_NAMES};
use crate::engine::{self, Paper, Spec};
use crate::datasets::plane::{self, Regression1d};
use crate::losses::Loss;
use crate::plot_dinuzzo::{self as pd, Field, Level, PlotFrame, PointMark};
use crate::solvers::coordinate::DinuzzoSolver;
use crate::solvers::fixed_point::{
    envelope_curve, k_alpha_eigenvalues, DecisionMap, RegularizationProblem, StopReason,
};

/// The K_α eigenvalues are computed on the leading principal block of at most this size.
pub const EIG_CAP: usize = 300;
/// Cross-kernel entries cached for the heatmap (8 bytes each).
const MAP_CACHE: usize = 4_000_000;

/// The default spec as JSON text.
#[wasm_bindgen(js_name = dinuzzoDefaultSpec)]
pub fn dinuzzo_default_spec() -> String {
    Spec::Dinuzzo(DinuzzoSpec::default()).to_json()
}

fn parse(spec_json: &str) -> Result<DinuzzoSpec, JsError> {
    match Spec::from_json_for(Paper::Dinuzzo, spec_json).map_err(js_err)? {
        Spec::Dinuzzo(s) => Ok(s),
        _ => Err(js_err("paper: not a paper-C spec")),
    }
}

fn build(spec: &DinuzzoSpec) -> Result<Option<Built>, JsError> {
    engine::dinuzzo::build(spec).map_err(js_err)
}

fn start(built: &Built, spec: &DinuzzoSpec) -> Result<Vec<(usize, DinuzzoSolver)>, JsError> {
    engine::dinuzzo::start(built, spec).map_err(js_err)
}

#[derive(Serialize)]
struct RaceRow {
    name: &'static str,
    sweep: usize,
    gap: f64,
    max_h: f64,
    status: StopReason,
    elapsed_ms: f64,
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
    race: Vec<RaceRow>,
    /// The data's 64-bit digest (as `kplay digest` prints it).
    digest: String,
}

/// Paper C's experiment and its running solver(s).
#[wasm_bindgen]
pub struct DinuzzoPlayground {
    spec: DinuzzoSpec,
    built: Option<Built>,
    runs: Vec<(usize, DinuzzoSolver)>,
    sel: usize,
    map: Option<(DecisionMap, usize, usize)>,
    eig: Option<(f64, Vec<f64>)>,
    frame: Option<PlotFrame>,
}

impl DinuzzoPlayground {
    fn selected(&self) -> Option<&DinuzzoSolver> {
        self.runs.get(self.sel).map(|r| &r.1)
    }

    fn from_spec(spec: DinuzzoSpec, reuse: Option<&Built>) -> Result<Self, JsError> {
        let built = match reuse {
            Some(b) => Some(b.clone()),
            None => build(&spec)?,
        };
        let runs = match &built {
            Some(b) => start(b, &spec)?,
            None => Vec::new(),
        };
        let want = method_index(&spec.method);
        let sel = runs.iter().position(|r| r.0 == want).unwrap_or(0);
        Ok(Self { spec, built, runs, sel, map: None, eig: None, frame: None })
    }

    /// α of the solver shown: the fixed point's α, or coordinate descent's `1/k_ii` of the first kept row.
    fn shown_alpha(&self) -> Option<f64> {
        match self.selected()? {
            DinuzzoSolver::FixedPoint(s) => Some(s.alpha()),
            DinuzzoSolver::Coordinate(s) => {
                let d = s.problem().diagonal();
                d.iter().find(|v| **v > 0.0).map(|v| 1.0 / v)
            }
        }
    }

    fn summary_with(&self, steps: usize) -> Result<JsValue, JsError> {
        let race = if self.spec.race {
            self.runs
                .iter()
                .map(|(k, s)| {
                    let r = s.trace().last().copied();
                    RaceRow {
                        name: RACER_NAMES[*k],
                        sweep: r.map(|r| r.sweep).unwrap_or(0),
                        gap: r.map(|r| r.gap).unwrap_or(f64::NAN),
                        max_h: r.map(|r| r.max_h).unwrap_or(f64::NAN),
                        status: s.status(),
                        elapsed_ms: r.map(|r| r.elapsed_ms).unwrap_or(0.0),
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        let method = method_name(&self.spec.method);
        let Some(s) = self.selected() else {
            let regression = matches!(self.spec.data, DataSpec::Regression { .. });
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
                status: "empty".into(),
                message: None,
                warnings: Vec::new(),
                alpha: None,
                alpha_limit: None,
                elapsed_ms: 0.0,
                steps_this_call: steps,
                race,
                digest: engine::dinuzzo::dataset(&self.spec.data).map(|d| d.digest()).unwrap_or_default(),
            });
        };
        let r = s.trace().last().copied();
        let (alpha, alpha_limit) = match s {
            DinuzzoSolver::FixedPoint(f) => (Some(f.alpha()), Some(2.0 / f.norm_k())),
            DinuzzoSolver::Coordinate(_) => (None, None),
        };
        let status = serde_json::to_value(s.status()).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
        to_js(&Summary {
            empty: false,
            regression: self.built.as_ref().is_some_and(|b| b.regression),
            n: s.problem().n(),
            dropped: s.problem().dropped().len(),
            method,
            sweep: r.map(|r| r.sweep).unwrap_or(0),
            objective: r.map(|r| r.objective).unwrap_or(f64::NAN),
            dual: r.map(|r| r.dual).unwrap_or(f64::NAN),
            gap: r.map(|r| r.gap).unwrap_or(f64::NAN),
            residual: r.map(|r| r.residual).unwrap_or(f64::NAN),
            max_h: r.map(|r| r.max_h).unwrap_or(f64::NAN),
            skipped: r.map(|r| r.skipped).unwrap_or(0),
            support: s.support().len(),
            status,
            message: s.message().map(String::from),
            warnings: {
                let mut w = s.warnings().to_vec();
                if let Some(b) = &self.built {
                    w.extend(engine::dinuzzo::race_note(b, &self.spec));
                }
                w
            },
            alpha,
            alpha_limit,
            elapsed_ms: r.map(|r| r.elapsed_ms).unwrap_or(0.0),
            steps_this_call: steps,
            race,
            digest: self.built.as_ref().map(engine::dinuzzo::digest_of).unwrap_or_default(),
        })
    }
}

#[wasm_bindgen]
impl DinuzzoPlayground {
    /// Validate a JSON spec, build the data and the problem, and start the solver(s) at c = 0.
    #[wasm_bindgen(constructor)]
    pub fn new(spec_json: &str) -> Result<DinuzzoPlayground, JsError> {
        let spec = parse(spec_json)?;
        Self::from_spec(spec, None)
    }

    /// Apply a new spec; the data and the Gram matrix are kept when only the solver or the race
    /// changed. On error the old run is kept.
    pub fn update(&mut self, spec_json: &str) -> Result<(), JsError> {
        let spec = parse(spec_json)?;
        let same_problem =
            spec.data == self.spec.data && spec.loss == self.spec.loss && spec.lambda == self.spec.lambda && spec.kernel == self.spec.kernel
                && uses_kernel_rows(&spec.method) == uses_kernel_rows(&self.spec.method);
        let next = if same_problem { Self::from_spec(spec, self.built.as_ref())? } else { Self::from_spec(spec, None)? };
        let keep_map = same_problem;
        let map = if keep_map { self.map.take() } else { None };
        *self = next;
        self.map = map;
        Ok(())
    }

    /// Restart the solver(s) from c = 0 on the same problem.
    pub fn reset(&mut self) -> Result<(), JsError> {
        if let Some(b) = &self.built {
            self.runs = start(b, &self.spec)?;
        }
        Ok(())
    }

    /// One sweep of every running solver (even paused); returns the summary.
    pub fn step(&mut self) -> Result<JsValue, JsError> {
        let mut k = 0;
        for (i, (_, s)) in self.runs.iter_mut().enumerate() {
            if s.step().is_some() && i == self.sel {
                k += 1;
            }
        }
        self.summary_with(k)
    }

    /// Sweep the running solver(s) in turn until none runs or `budget_ms` has elapsed (at least
    /// one round).
    #[wasm_bindgen(js_name = runFor)]
    pub fn run_for(&mut self, budget_ms: f64) -> Result<JsValue, JsError> {
        let t0 = web_time::Instant::now();
        let mut k = 0;
        loop {
            let mut any = false;
            for (i, (_, s)) in self.runs.iter_mut().enumerate() {
                if s.step().is_some() {
                    any = true;
                    if i == self.sel {
                        k += 1;
                    }
                }
            }
            if !any || t0.elapsed().as_secs_f64() * 1e3 >= budget_ms {
                break;
            }
        }
        self.summary_with(k)
    }

    /// True while any solver is still running.
    pub fn running(&self) -> bool {
        self.runs.iter().any(|r| r.1.status() == StopReason::Running)
    }

    /// The current state for the readouts.
    pub fn summary(&self) -> Result<JsValue, JsError> {
        self.summary_with(0)
    }

    /// The spec as JSON text (for the URL hash).
    #[wasm_bindgen(js_name = specJson)]
    pub fn spec_json(&self) -> String {
        Spec::Dinuzzo(self.spec.clone()).to_json()
    }

    /// The window of the map `[x_min, x_max, y_min, y_max]` (kept fixed while the user clicks).
    pub fn view(&self) -> Vec<f64> {
        match (&self.spec.data, &self.built) {
            (DataSpec::Points { view, .. }, _) => view.to_vec(),
            (_, Some(b)) => b.view.to_vec(),
            _ => vec![-2.0, 2.0, -2.0, 2.0],
        }
    }

    /// The current 2-D data as a flat `[x₁, x₂, label, …]` list (to start editing by clicks).
    pub fn points(&self) -> Vec<f64> {
        match &self.built {
            Some(b) if !b.regression => b.x.row_iter().zip(b.y.iter()).flat_map(|(r, &l)| [r[0], r[1], l]).collect(),
            _ => Vec::new(),
        }
    }

    /// Data coordinates `[x₁, x₂]` of a canvas backing-store pixel of the last map drawn, or an
    /// empty array outside the plotting area.
    #[wasm_bindgen(js_name = toData)]
    pub fn to_data(&self, px: f64, py: f64) -> Vec<f64> {
        self.frame.as_ref().and_then(|f| f.to_data(px, py)).map(|(a, b)| vec![a, b]).unwrap_or_default()
    }

    /// The per-sweep records of the solver shown.
    pub fn trace(&self) -> Result<JsValue, JsError> {
        match self.selected() {
            Some(s) => to_js(&s.trace()),
            None => to_js(&Vec::<u8>::new()),
        }
    }

    /// The coefficients c of the solver shown.
    pub fn coefficients(&self) -> Vec<f64> {
        self.selected().map(|s| s.c().as_slice().to_vec()).unwrap_or_default()
    }

    /// Draw the decision function (heatmap, zero level, margins ±1, support vectors ringed) or
    /// the regression curve with its ε-tube into `canvas`.
    #[wasm_bindgen(js_name = drawMap)]
    pub fn draw_map(&mut self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let backend = CanvasBackend::with_canvas_object(canvas).ok_or_else(|| js_err("no 2-D context on the canvas"))?;
        let root = backend.into_drawing_area();
        let view = self.view();
        let (xr, yr) = ((view[0], view[1]), (view[2], view[3]));
        let Some(b) = &self.built else {
            let f = pd::draw_decision_map(&root, None, xr, yr, 1.0, &[], &[], Some("click: class +1 · shift-click: class −1"), dpr).map_err(js_err)?;
            self.frame = Some(f);
            return Ok(());
        };
        let Some(s) = self.runs.get(self.sel).map(|r| &r.1) else { return Ok(()) };
        let c = s.c();
        if b.regression {
            let (x0, x1) = (b.x.iter().copied().fold(f64::INFINITY, f64::min), b.x.iter().copied().fold(f64::NEG_INFINITY, f64::max));
            let m = 240usize;
            if self.map.is_none() {
                let pts = DMatrix::from_fn(m, 1, |i, _| x0 + (x1 - x0) * i as f64 / (m - 1) as f64);
                self.map = Some((b.problem.decision_map(pts, MAP_CACHE).map_err(js_err)?, m, 1));
            }
            let Some((map, _, _)) = &self.map else { return Ok(()) };
            let f = map.evaluate(s.problem(), c).map_err(js_err)?;
            let curve: Vec<(f64, f64)> = (0..m).map(|i| (x0 + (x1 - x0) * i as f64 / (m - 1) as f64, f[i])).collect();
            let truth: Vec<(f64, f64)> = curve.iter().map(|&(x, _)| (x, Regression1d::truth(x))).collect();
            let data: Vec<(f64, f64, bool)> = (0..b.y.len()).map(|i| (b.x[(i, 0)], b.y[i], c[i] != 0.0)).collect();
            let eps = match self.spec.loss {
                Loss::EpsInsensitive { eps } => eps,
                _ => 0.0,
            };
            let show_truth = matches!(self.spec.data, DataSpec::Regression { .. });
            let f = pd::draw_regression(&root, &data, &curve, eps, show_truth.then_some(&truth[..]), dpr).map_err(js_err)?;
            self.frame = Some(f);
            return Ok(());
        }
        if self.map.is_none() {
            let side = if b.problem.n() <= 600 { 80 } else if b.problem.n() <= 1200 { 64 } else { 48 };
            let g = plane::grid(xr.0, xr.1, yr.0, yr.1, side, side).map_err(js_err)?;
            self.map = Some((b.problem.decision_map(g, MAP_CACHE).map_err(js_err)?, side, side));
        }
        let Some((map, nx, ny)) = &self.map else { return Ok(()) };
        let vals = map.evaluate(s.problem(), c).map_err(js_err)?;
        let maxabs = vals.iter().fold(0.0f64, |m, v| if v.is_finite() { m.max(v.abs()) } else { m });
        let field = Field { values: vals.as_slice(), nx: *nx, ny: *ny, x_range: xr, y_range: yr };
        let levels = [
            Level { value: 0.0, width: 2.4, color: BLACK },
            Level { value: 1.0, width: 1.2, color: RGBColor(90, 90, 90) },
            Level { value: -1.0, width: 1.2, color: RGBColor(90, 90, 90) },
        ];
        let sparse = s.support().len() < b.y.len();
        let pts: Vec<PointMark> = (0..b.y.len())
            .map(|i| PointMark { ring: sparse && c[i] != 0.0, ..PointMark::new(b.x[(i, 0)], b.x[(i, 1)], b.y[i]) })
            .collect();
        let f = pd::draw_decision_map(&root, Some(&field), xr, yr, maxabs.clamp(1e-6, 1.5), &levels, &pts, None, dpr).map_err(js_err)?;
        self.frame = Some(f);
        Ok(())
    }

    /// Draw the duality gap, the residual and the objective against the sweep (log scale), or,
    /// in race mode, the five solvers' duality gaps.
    #[wasm_bindgen(js_name = drawConvergence)]
    pub fn draw_convergence(&self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let backend = CanvasBackend::with_canvas_object(canvas).ok_or_else(|| js_err("no 2-D context on the canvas"))?;
        let root = backend.into_drawing_area();
        let tol = engine::dinuzzo::tolerance(&self.spec.method);
        let runs: Vec<(usize, &DinuzzoSolver)> = if self.spec.race {
            self.runs.iter().map(|(k, s)| (*k, s)).collect()
        } else {
            self.selected().map(|s| (self.sel, s)).into_iter().collect()
        };
        let series = engine::dinuzzo::convergence_series(&runs, self.spec.race);
        pd::draw_log_series(&root, &series, "sweep", Some((tol, "δ")), dpr).map_err(js_err)
    }

    /// Theorem 5: the loss beside its Moreau–Yosida envelope at the solver's α, and the
    /// eigenvalues of `K_α = αK − I` (on the leading block of at most [`EIG_CAP`] points).
    #[wasm_bindgen(js_name = drawTheorem5)]
    pub fn draw_theorem5(&mut self, canvas: HtmlCanvasElement, dpr: f64) -> Result<(), JsError> {
        let backend = CanvasBackend::with_canvas_object(canvas).ok_or_else(|| js_err("no 2-D context on the canvas"))?;
        let root = backend.into_drawing_area();
        let alpha = self.shown_alpha().unwrap_or(1.0);
        let loss = self.spec.loss;
        let lambda = self.spec.lambda;
        let y = if loss.is_classification() || !self.built.as_ref().is_some_and(|b| b.regression) { 1.0 } else { 0.0 };
        let (t0, t1) = if y == 1.0 { (-2.0, 3.0) } else { (-2.5, 2.5) };
        let env = envelope_curve(loss, y, alpha, lambda, t0, t1, 241).map_err(js_err)?;
        let n = self.built.as_ref().map(|b| b.problem.n()).unwrap_or(0);
        if self.eig.as_ref().is_none_or(|e| e.0 != alpha) {
            let ev = match &self.built {
                Some(b) if n <= EIG_CAP => k_alpha_eigenvalues(&b.problem, alpha).map_err(js_err)?,
                Some(b) => {
                    let k = b.problem.dense_gram().view((0, 0), (EIG_CAP, EIG_CAP)).into_owned();
                    let ys = b.y.rows(0, EIG_CAP).into_owned();
                    let sub = RegularizationProblem::from_gram(k, &ys, Loss::Square, 1.0).map_err(js_err)?;
                    k_alpha_eigenvalues(&sub, alpha).map_err(js_err)?
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
        let name = match loss {
            Loss::Hinge => "L1-SVM (hinge)",
            Loss::SquaredHinge => "L2-SVM",
            Loss::Square => "RLS",
            Loss::Absolute => "RLA",
            Loss::EpsInsensitive { .. } => "SVR",
            Loss::Logistic => "logistic",
            Loss::Huber { .. } => "Huber",
        };
        pd::draw_theorem5(&root, &env, name, alpha, ev, &note, dpr).map_err(js_err)
    }
}
