//! Page D's state machine, [`PerceptronPage`] (pure core: the wasm `PerceptronPlayground` only
//! translates JSON and draws into canvases, tests/perceptron_page.rs steps it natively):
//!
//! - **the reuse rule**: a spec with the shown session's data, kernel and margin settings
//!   ([`PerceptronChecked::same_problem`]) restarts only the algorithm on the same G and ρ_K;
//!   anything else prepares a new session;
//! - **sliced preparation**: a new session whose n² is at most [`SYNC_GRAM`] is prepared at
//!   once; a larger one in slices ([`PerceptronPage::prepare`], one per frame, or adopted from
//!   a worker), while the old session stays shown (not stepped);
//! - **the heatmap's cross kernel** `K(grid, x)` for a non-linear kernel, cached under its grid
//!   ([`HeatGrid`]: the view and the cells) and computed at once when (cells × n) is at most
//!   [`SYNC_HEAT`], else in slices after any session preparation;
//! - **the race** of the six algorithms on the session's problem, dropped by any update;
//! - a refused spec (bad JSON, a failed check, a failed preparation) leaves the shown session,
//!   its run and its race as they were.

use nalgebra::DMatrix;
use serde::Serialize;

use super::checked::PerceptronChecked;
use super::prepare::PerceptronPreparation;
use super::race::{PerceptronRace, RaceEntry};
use super::session::{
    view_box, BoundLine, CertificateCheck, Outcome, PerceptronSession, SeparatorCheck,
};
use super::spec::{DataSpec, PerceptronSpec};
use crate::error::{KpError, Result};
use crate::exec::Record;
use crate::kernels::{CrossJob, ResolvedKernel};
use crate::solvers::perceptron::margin::{Margin, Separability};

/// Points with n² up to this are prepared at once when a spec is applied; larger sets in
/// slices ([`PerceptronPage::prepare`]), one per frame.
pub const SYNC_GRAM: usize = 250_000;
/// Heatmap cross kernels with (cells × n) up to this are computed at once.
pub const SYNC_HEAT: usize = 1_000_000;

/// The outcome without its weight vectors.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum OutcomeSummary {
    /// A separator, with its independent check.
    Separator { check: SeparatorCheck },
    /// A certificate, with its independent check.
    Certificate { check: CertificateCheck },
    /// The cap came first, after this many iterations.
    IterationCap { iterations: usize },
}

/// ρ_K's certified bracket as the page shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MarginSummary {
    /// The estimate of ρ_K.
    pub rho: f64,
    /// The certified lower end of ρ_K.
    pub lower: f64,
    /// The certified upper end of ρ_K.
    pub upper: f64,
    /// What the min-norm computation certified (separable, inseparable or undecided).
    pub separability: Separability,
    /// Whether ρ is exact to rounding (the bracket closed to `rel_tol`, or a rank ≤ 2 G).
    pub exact: bool,
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

/// The readouts and the outcome panel of a session that can step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    /// Iterations done.
    pub iter: usize,
    /// `min_i (Gα)_i` (> 0: a separator).
    pub min_g_alpha: Option<f64>,
    /// `‖p‖_G` of the von Neumann algorithms.
    pub norm_p_g: Option<f64>,
    /// Whether the run has ended.
    pub finished: bool,
    /// The run's stop word (`running`, `separator`, `certificate`, `max_iterations`, …), as
    /// `kplay run` prints it.
    pub status: &'static str,
    /// The algorithm's short name.
    pub algorithm: &'static str,
    /// The number of points.
    pub n: usize,
    /// Iterations done by the call that asked.
    pub steps_this_call: usize,
    /// ρ_K's bracket.
    pub margin: MarginSummary,
    /// The paper's bounds drawn as reference lines.
    pub bounds: Vec<BoundLine>,
    /// The verified outcome once finished.
    pub outcome: Option<OutcomeSummary>,
    /// Why the outcome could not be verified (a non-finite iterate).
    pub error: Option<String>,
    /// The data's 64-bit digest (as `kplay digest` prints it).
    pub digest: String,
}

/// The summary while a new data set is prepared (no run can step).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PreparingSummary {
    /// What is computed and how far ([`PerceptronPage::preparing`]).
    pub preparing: String,
    /// The new data set's number of points.
    pub n: usize,
    /// Always 0: no run yet.
    pub iter: usize,
    /// Always false.
    pub finished: bool,
}

/// What the page's readouts show: a run, or a preparation under way.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PageSummary {
    /// A session that can step.
    Run(Box<RunSummary>),
    /// A new session being prepared.
    Preparing(PreparingSummary),
}

/// The race's state for the page: whether it is over, and each lane as `kplay race` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RaceSummary {
    pub finished: bool,
    /// Each lane's standing with its outcome, check and bound.
    pub lanes: Vec<serde_json::Value>,
}

/// The heatmap's grid: `nx × ny` cells over `view` (the key of the cached cross kernel).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeatGrid {
    /// `[x_min, x_max, y_min, y_max]`.
    pub view: [f64; 4],
    /// Cells across.
    pub nx: usize,
    /// Cells up.
    pub ny: usize,
}

impl HeatGrid {
    /// The grid for a plotting area of `pw × ph` device pixels showing `view`, for `n` points:
    /// 160² cells for the linear kernel (O(n + cells) per drawing); else coarser for large n so
    /// one drawing stays within ~3·10⁶ kernel evaluations (24² to 140² cells), the cells'
    /// aspect the area's.
    pub fn for_area(view: [f64; 4], pw: usize, ph: usize, n: usize, linear: bool) -> Self {
        let (pw, ph) = (pw.max(2), ph.max(2));
        let cells = if linear {
            160.0 * 160.0
        } else {
            (3.0e6 / n.max(1) as f64).clamp(24.0 * 24.0, 140.0 * 140.0)
        };
        let aspect = pw as f64 / ph as f64;
        let nx = ((cells * aspect).sqrt().round() as usize).clamp(8, pw.max(8));
        let ny = ((cells / aspect).sqrt().round() as usize).clamp(8, ph.max(8));
        Self { view, nx, ny }
    }

    fn key(&self) -> ([u64; 4], usize, usize) {
        (self.view.map(f64::to_bits), self.nx, self.ny)
    }
}

/// The heatmap's values on a grid: the decision function `f` (row-major, y increasing), or
/// `None` while its cross kernel is still being computed ([`PerceptronPage::prepare`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Heatmap {
    /// The grid the values are on.
    pub grid: HeatGrid,
    /// `f` at the cells, or `None` while the cross kernel is computed.
    pub values: Option<Vec<f64>>,
}

/// The heatmap's cached cross kernel `K(grid, x)` and the job computing it.
struct Heat {
    key: ([u64; 4], usize, usize),
    cross: Option<DMatrix<f64>>,
    job: Option<CrossJob>,
}

/// Map a device-pixel position to data coordinates for `view` drawn in `rect`
/// (`[left, top, right, bottom]` device pixels; y grows downwards on the canvas).
pub fn to_data(view: [f64; 4], rect: [i32; 4], px: f64, py: f64) -> [f64; 2] {
    let [a, b, c, d] = view;
    let tx = (px - rect[0] as f64) / ((rect[2] - rect[0]).max(1) as f64);
    let ty = (py - rect[1] as f64) / ((rect[3] - rect[1]).max(1) as f64);
    [a + tx * (b - a), d - ty * (d - c)]
}

/// The hand-made points `[[x₁, x₂, ±1], …]` a canvas can show (coordinates finite and within
/// the budget's limit), their labels, and the view box around them and the origin (at least
/// `[−1.5, 1.5]²`, [`view_box`]): what a click maps into while the points do not make a valid
/// data set yet (one class only, say).
pub fn hand_points(points: &[[f64; 3]]) -> (Vec<(f64, f64)>, Vec<f64>, [f64; 4]) {
    let drawable = |p: &&[f64; 3]| {
        crate::budget::coordinate("points", 0, p[0])
            .and(crate::budget::coordinate("points", 0, p[1]))
            .is_ok()
    };
    let x: Vec<(f64, f64)> = points.iter().filter(drawable).map(|p| (p[0], p[1])).collect();
    let y: Vec<f64> = points.iter().filter(drawable).map(|p| p[2]).collect();
    let m = DMatrix::from_fn(x.len(), 2, |i, j| if j == 0 { x[i].0 } else { x[i].1 });
    let view = view_box(&m, true);
    (x, y, view)
}

fn not_ready() -> KpError {
    KpError::Parameter { name: "session", reason: "the run is still being prepared".into() }
}

/// Page D's experiment: the shown session, a new one being prepared, the heatmap's cache and
/// the race (see the module's documentation for the rules).
pub struct PerceptronPage {
    /// The shown session; `None` until the first preparation is done.
    session: Option<PerceptronSession>,
    /// A new spec's session being prepared in slices (G, then ρ_K); the old session is shown.
    prep: Option<PerceptronPreparation>,
    race: Option<PerceptronRace>,
    heat: Option<Heat>,
    /// The view and plotting rectangle of the last boundary drawing (for clicks).
    view: [f64; 4],
    rect: [i32; 4],
    /// What the page says is being prepared, when not the preparation's own progress (a
    /// worker's).
    note: Option<String>,
}

impl PerceptronPage {
    /// The page on a JSON spec (checked; prepared at once when small, else in slices).
    pub fn new(spec_json: &str) -> Result<Self> {
        let mut page = Self {
            session: None,
            prep: None,
            race: None,
            heat: None,
            view: [-1.0, 1.0, -1.0, 1.0],
            rect: [0, 0, 1, 1],
            note: None,
        };
        page.update(spec_json)?;
        Ok(page)
    }

    /// Apply a JSON spec: checked ([`PerceptronChecked::check`]); with the shown session's
    /// data, kernel and margin settings only the algorithm restarts (G, ρ_K and the heatmap's
    /// cache kept, a preparation under way dropped); otherwise a new session is prepared, at
    /// once when n² ≤ [`SYNC_GRAM`], else in slices ([`Self::prepare`]) while the old one
    /// stays shown. The race is dropped. On error nothing changes.
    pub fn update(&mut self, spec_json: &str) -> Result<()> {
        let checked = PerceptronChecked::check(PerceptronSpec::from_json(spec_json)?)?;
        self.apply(checked)
    }

    /// [`Self::update`] with a checked spec.
    pub fn apply(&mut self, checked: PerceptronChecked) -> Result<()> {
        if let Some(s) = self.session.as_mut().filter(|s| s.spec().same_problem(&checked)) {
            s.restart(checked)?;
            self.prep = None;
        } else {
            let prep = PerceptronPreparation::new(checked)?;
            let small = prep.n().saturating_mul(prep.n()) <= SYNC_GRAM;
            let previous = self.prep.replace(prep);
            if small {
                if let Err(e) = self.prepare(f64::INFINITY) {
                    self.prep = previous;
                    return Err(e);
                }
            }
        }
        self.note = None;
        self.race = None;
        Ok(())
    }

    /// Spend up to `budget_ms` on what is being prepared: a new session (G, ρ_K; shown when
    /// done, the heatmap's cache and the race dropped), else the heatmap's cross kernel; one
    /// of them per call. Returns true when nothing is left. On error the preparation is dropped
    /// (the shown session stays) and the error returned.
    pub fn prepare(&mut self, budget_ms: f64) -> Result<bool> {
        if let Some(p) = &mut self.prep {
            return match p.advance(budget_ms) {
                Ok(Some(session)) => {
                    self.view = session.view;
                    self.session = Some(session);
                    self.prep = None;
                    self.heat = None;
                    self.race = None;
                    Ok(true)
                }
                Ok(None) => Ok(false),
                Err(e) => {
                    self.prep = None;
                    Err(e)
                }
            };
        }
        if let Some(h) = &mut self.heat {
            if let Some(job) = &mut h.job {
                if !job.advance(budget_ms)? {
                    return Ok(false);
                }
                h.cross = h.job.take().map(CrossJob::finish).transpose()?;
            }
        }
        Ok(true)
    }

    /// Whether the preparation ahead is a whole kernel matrix not yet started, which a worker
    /// may compute ([`PerceptronPreparation::kernel_matrix_all`]) for [`Self::adopt_kernel_matrix`].
    pub fn offloadable(&self) -> bool {
        self.prep.as_ref().is_some_and(PerceptronPreparation::offloadable)
    }

    fn preparation(&mut self) -> Result<&mut PerceptronPreparation> {
        self.note = None;
        self.prep.as_mut().ok_or_else(|| KpError::Parameter {
            name: "prepared",
            reason: "this page has no preparation under way".into(),
        })
    }

    /// Adopt a worker's kernel matrix ([`PerceptronPreparation::adopt_kernel_matrix`]: checked
    /// against this page's spec and written into the page's own matrix). What is refused is
    /// computed by the page's slices, and the error says why.
    pub fn adopt_kernel_matrix(
        &mut self,
        digest: &str,
        len: usize,
        fill: impl FnOnce(&mut [f64]),
    ) -> Result<()> {
        self.preparation()?.adopt_kernel_matrix(digest, len, fill)
    }

    /// Adopt a worker's min-norm search of ρ_K ([`PerceptronPreparation::adopt_margin_search`]):
    /// `len` weights (refused before `weights` is called when they are not one per point),
    /// stopped after `iterations`.
    pub fn adopt_margin_search(
        &mut self,
        len: usize,
        weights: impl FnOnce() -> Vec<f64>,
        iterations: usize,
    ) -> Result<()> {
        let p = self.preparation()?;
        if len != p.n() {
            return Err(KpError::Parameter {
                name: "marginP",
                reason: format!("{len} weights handed over for {} points", p.n()),
            });
        }
        p.adopt_margin_search(weights(), iterations)
    }

    /// Say `note` as the progress while the data are prepared elsewhere (a worker); `None`
    /// goes back to the preparation's own progress.
    pub fn set_note(&mut self, note: Option<String>) {
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

    /// The shown session (the previous one while a new one is prepared).
    pub fn session(&self) -> Option<&PerceptronSession> {
        self.session.as_ref()
    }

    /// The session that can step: an error while a new one is prepared.
    pub fn ready_session(&self) -> Result<&PerceptronSession> {
        self.session.as_ref().filter(|_| self.prep.is_none()).ok_or_else(not_ready)
    }

    fn session_mut(&mut self) -> Result<&mut PerceptronSession> {
        if self.prep.is_some() {
            return Err(not_ready());
        }
        self.session.as_mut().ok_or_else(not_ready)
    }

    /// Restart the algorithm on the same data.
    pub fn reset(&mut self) -> Result<()> {
        self.session_mut()?.reset()
    }

    /// One iteration; returns how many were done (0 once finished).
    pub fn step(&mut self) -> Result<usize> {
        Ok(self.session_mut()?.step() as usize)
    }

    /// Iterate within `budget_ms` (at least one iteration unless finished); returns how many.
    pub fn run_for(&mut self, budget_ms: f64) -> Result<usize> {
        Ok(self.session_mut()?.run_for(budget_ms))
    }

    /// The readouts: the run's, with `steps` iterations done by the last call, or the
    /// preparation's progress while a new session is prepared.
    pub fn summary(&self, steps: usize) -> PageSummary {
        let Ok(session) = self.ready_session() else {
            return PageSummary::Preparing(PreparingSummary {
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
        PageSummary::Run(Box::new(RunSummary {
            iter: r.iter,
            min_g_alpha: r.min_g_alpha,
            norm_p_g: r.norm_p_g,
            finished: session.finished(),
            status: session.stop().word(),
            algorithm: session.spec().algorithm.name(),
            n: session.problem.n(),
            steps_this_call: steps,
            margin: (&session.margin).into(),
            bounds: session.bounds(),
            outcome,
            error,
            digest: session.digest.clone(),
        }))
    }

    /// The spec as tagged JSON text (for the URL hash): the one being prepared, else the shown
    /// session's; empty before any.
    pub fn spec_json(&self) -> String {
        match (&self.prep, &self.session) {
            (Some(p), _) => p.spec().to_tagged_json(),
            (None, Some(s)) => s.spec().to_tagged_json(),
            (None, None) => String::new(),
        }
    }

    /// The shown session's per-iteration records (`min_i (Gα)_i`, `‖p‖_G`, …).
    pub fn trace(&self) -> Result<Vec<Record>> {
        Ok(self.session.as_ref().ok_or_else(not_ready)?.trace())
    }

    /// The shown session's α (empty before any session).
    pub fn alpha(&self) -> Vec<f64> {
        self.session.as_ref().map(PerceptronSession::alpha).unwrap_or_default()
    }

    /// The shown session's simplex weights p (empty for the perceptrons).
    pub fn p(&self) -> Vec<f64> {
        self.session.as_ref().and_then(PerceptronSession::p).unwrap_or_default()
    }

    /// The shown session's points `[x₁, x₂, ±1]` (to turn a generated set into a hand-made one):
    /// a hand-made set as written, else the built points.
    pub fn points(&self) -> Vec<[f64; 3]> {
        let Some(session) = &self.session else { return Vec::new() };
        if let DataSpec::Points { points } = &session.spec().data {
            return points.clone();
        }
        let (x, y) = (session.problem.x(), session.problem.y());
        (0..x.nrows()).map(|i| [x[(i, 0)], x[(i, 1)], y[i]]).collect()
    }

    /// Remember the view and the plotting rectangle of a boundary drawing (for clicks).
    pub fn set_drawn(&mut self, view: [f64; 4], rect: [i32; 4]) {
        self.view = view;
        self.rect = rect;
    }

    /// The view of the last boundary drawing (before any: the shown session's, else a default).
    pub fn view(&self) -> [f64; 4] {
        self.view
    }

    /// Data coordinates of a device-pixel position on the last boundary drawing.
    pub fn data_at(&self, px: f64, py: f64) -> [f64; 2] {
        to_data(self.view, self.rect, px, py)
    }

    /// The decision function on the heatmap's grid for a plotting area of `pw × ph` pixels
    /// showing `view` ([`HeatGrid::for_area`]); `None` before any session. The linear kernel's
    /// is computed directly; another kernel's from the cross kernel `K(grid, x)` cached under
    /// the grid: a new grid's is computed at once when (cells × n) ≤ [`SYNC_HEAT`], else by
    /// the slices of [`Self::prepare`] (after any session preparation), and `values` is `None`
    /// until then.
    pub fn heatmap(&mut self, view: [f64; 4], pw: usize, ph: usize) -> Result<Option<Heatmap>> {
        let Some(session) = &self.session else { return Ok(None) };
        let n = session.problem.n();
        let linear = matches!(session.problem.kernel(), ResolvedKernel::Linear(_));
        let grid = HeatGrid::for_area(view, pw, ph, n, linear);
        if linear {
            let values = session.decision_grid(view, grid.nx, grid.ny)?;
            return Ok(Some(Heatmap { grid, values: Some(values) }));
        }
        if self.heat.as_ref().is_none_or(|h| h.key != grid.key()) {
            let g =
                crate::datasets::plane::grid(view[0], view[1], view[2], view[3], grid.nx, grid.ny)?;
            let mut job = CrossJob::new(session.problem.kernel(), g, session.problem.x().clone())?;
            let mut heat = Heat { key: grid.key(), cross: None, job: None };
            if (grid.nx * grid.ny).saturating_mul(n) <= SYNC_HEAT {
                job.advance(f64::INFINITY)?;
                heat.cross = Some(job.finish()?);
            } else {
                heat.job = Some(job);
            }
            self.heat = Some(heat);
        }
        let values = match self.heat.as_ref().and_then(|h| h.cross.as_ref()) {
            Some(cross) => Some(
                session
                    .problem
                    .decision_function_with(&session.alpha(), cross)?
                    .iter()
                    .copied()
                    .collect(),
            ),
            None => None,
        };
        Ok(Some(Heatmap { grid, values }))
    }

    /// Start a race of the six algorithms on the session's problem with its checked spec's race
    /// ε, δ, γ ([`PerceptronRace::new`]); an error while a new session is prepared.
    pub fn start_race(&mut self) -> Result<()> {
        self.race = Some(PerceptronRace::new(self.ready_session()?)?);
        Ok(())
    }

    /// Step the race within `budget_ms`; its state.
    pub fn race_for(&mut self, budget_ms: f64) -> Result<RaceSummary> {
        let race = self.race.as_mut().ok_or_else(|| KpError::Parameter {
            name: "race",
            reason: "no race has been started".into(),
        })?;
        race.run_for(budget_ms);
        Ok(RaceSummary { finished: race.finished(), lanes: race.lanes_json() })
    }

    /// The race's standings (empty without a race).
    pub fn race_entries(&self) -> Vec<RaceEntry> {
        self.race.as_ref().map(|r| r.entries()).unwrap_or_default()
    }
}
