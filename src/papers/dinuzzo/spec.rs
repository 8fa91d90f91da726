//! Paper C's experiment (Dinuzzo): problem (2), `min_c Σ L(y_i, (Kc)_i)/λ + cᵀKc/2`, on 2-D
//! classification points, 1-D regression data or a CSV file — the spec, its validation, the data
//! and the problem, built at once ([`build`]) or in resumable stages a page spreads over frames
//! ([`DinuzzoPreparation`]). The page (`src/web/dinuzzo.rs`) and `kplay` build the same problem from
//! the same JSON; the engine (`crate::papers::dinuzzo::run`) runs and races its solvers.

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

/// The vocabulary of paper C's sessions: the solver a page steps (either method, read between
/// steps), its decision map, and Theorem 5's envelope and the spectrum of K_α = αK − I the page
/// draws.
pub use crate::solvers::coordinate::SweepSolver;
pub use crate::solvers::fixed_point::{envelope_curve, k_alpha_eigenvalues_of_block, DecisionMap};

use crate::data::{CsvSource, Dataset};
use crate::datasets::plane::{self, Classification2d, Regression1d, Shape2d};
use crate::error::{KpError, Result};
use crate::exec::{run_task_for, Progress, Task};
use crate::kernels::{Bandwidth, CrossJob, Kernel, ResolvedKernel};
use crate::losses::Loss;
use crate::solvers::coordinate::{CoordinateConfig, IndexRule, Method};
use crate::solvers::fixed_point::{
    FixedPointConfig, PowerIteration, RegularizationProblem, Representation, StepRule,
};

use super::schema;

/// Largest data set the page accepts (the Gram matrix is n² doubles).
pub const MAX_PAGE_N: usize = 2500;
/// Largest data set for the race (five solvers on one Gram matrix).
pub const MAX_RACE_N: usize = 2000;
/// Largest data set natively when coordinate descent computes kernel rows instead of storing
/// the Gram matrix (`method.cache_mib`): memory is O(n) plus the cache; a greedy sweep costs
/// O(n²) operations.
pub const MAX_ROWS_N: usize = 20_000;

/// The data part of paper C's spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum DataSpec {
    /// Generated 2-D classification data ([`Classification2d`]).
    Classification { shape: Shape2d, n: usize, label_noise: f64, seed: u64 },
    /// Generated 1-D regression data ([`Regression1d`]).
    Regression { n: usize, noise: f64, outliers: f64, seed: u64 },
    /// Points the user placed, `[x₁, x₂, ±1]`, shown in the fixed window `view = [x_min, x_max, y_min, y_max]`.
    Points { points: Vec<[f64; 3]>, view: [f64; 4] },
    /// A CSV file with a `y` column: two feature columns (2-D classification, `y` = ±1) or one
    /// (1-D regression).
    Csv(CsvSource),
}

/// The method part of paper C's spec, as a link, a lesson and `kplay` carry it: the fixed
/// point (section 3, eq. 10) or coordinate descent (section 4.1, Algorithm 1/2) with its
/// settings and the sweep cap. The spec's own type, not the solvers' ([`Method`]): the check
/// maps it to the solver's settings, and the cap goes to the executor.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MethodSpec {
    FixedPoint(FixedPointSpec),
    Coordinate(CoordinateSpec),
}

/// The fixed point's settings in a spec.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedPointSpec {
    /// The step-size rule (`α = 1/‖K‖₂`, `1/tr K`, or a fixed value).
    pub step: StepRule,
    /// δ: stop when `max_i |c_i^{k+1} − c_i^k| < δ`.
    pub tol: f64,
    /// The sweep cap (the executor's).
    pub max_sweeps: usize,
    /// Also stop when the relative duality gap is at most this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap_tol: Option<f64>,
}

/// Coordinate descent's settings in a spec (see [`CoordinateConfig`] for each field's meaning).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoordinateSpec {
    /// The index rule.
    pub rule: IndexRule,
    /// Seed of the randomized cyclic rule.
    pub seed: u64,
    /// δ: stop when `max_i |h_i| < δ` (Algorithm 1).
    pub tol: f64,
    /// The sweep (macro-iteration) cap (the executor's).
    pub max_sweeps: usize,
    /// Also stop when the relative duality gap is at most this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap_tol: Option<f64>,
    /// Shrinking (libsvm's).
    #[serde(default, skip_serializing_if = "is_false")]
    pub shrinking: bool,
    /// Kernel rows computed on demand with a cache of this many MiB (no stored Gram matrix).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_mib: Option<f64>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl MethodSpec {
    /// The sweep cap.
    pub fn max_sweeps(&self) -> usize {
        match self {
            Self::FixedPoint(f) => f.max_sweeps,
            Self::Coordinate(c) => c.max_sweeps,
        }
    }

    /// The tolerance δ.
    pub fn tol(&self) -> f64 {
        match self {
            Self::FixedPoint(f) => f.tol,
            Self::Coordinate(c) => c.tol,
        }
    }

    /// The solver's settings (the cap left to the executor).
    pub fn solver(&self) -> Method {
        match *self {
            Self::FixedPoint(f) => Method::FixedPoint(FixedPointConfig {
                step: f.step,
                tol: f.tol,
                gap_tol: f.gap_tol,
            }),
            Self::Coordinate(c) => Method::Coordinate(CoordinateConfig {
                rule: c.rule,
                seed: c.seed,
                tol: c.tol,
                gap_tol: c.gap_tol,
                shrinking: c.shrinking,
                cache_mib: c.cache_mib,
            }),
        }
    }
}

/// Paper C's experiment: problem (2) with a loss, λ and a kernel on some data, solved by the
/// fixed point (eq. 10) or coordinate descent (Algorithm 1/2); `race` runs the fixed point, the
/// three coordinate rules and greedy coordinate descent with shrinking side by side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DinuzzoSpec {
    pub data: DataSpec,
    pub loss: Loss,
    pub lambda: f64,
    pub kernel: Kernel,
    pub method: MethodSpec,
    #[serde(default)]
    pub race: bool,
}

impl Default for DinuzzoSpec {
    fn default() -> Self {
        Self {
            data: DataSpec::Classification {
                shape: Shape2d::Moons { noise: 0.15 },
                n: 200,
                label_noise: 0.05,
                seed: 1,
            },
            loss: Loss::Hinge,
            lambda: 0.1,
            kernel: Kernel::gaussian(Bandwidth::Fixed(0.5)),
            method: MethodSpec::Coordinate(CoordinateSpec {
                rule: IndexRule::Cyclic,
                seed: 1,
                tol: 1e-8,
                max_sweeps: 20_000,
                gap_tol: None,
                shrinking: false,
                cache_mib: None,
            }),
            race: false,
        }
    }
}

/// Paper C's spec after its checks ([`DinuzzoSpec::check`]): the only form a session (the
/// page, `kplay run`/`race`/`plot`, a preparation) accepts. It reads as the spec it came from
/// (`Deref`), and carries the solver's settings the check mapped from the spec's method.
#[derive(Debug, Clone, PartialEq)]
pub struct DinuzzoChecked {
    spec: DinuzzoSpec,
    solver: Method,
}

impl std::ops::Deref for DinuzzoChecked {
    type Target = DinuzzoSpec;
    fn deref(&self) -> &DinuzzoSpec {
        &self.spec
    }
}

impl DinuzzoChecked {
    /// The solver's settings (the spec's method without its cap).
    pub fn method(&self) -> Method {
        self.solver
    }

    /// The sweep cap, the executor's ([`crate::exec::Watch::capped`]).
    pub fn max_sweeps(&self) -> usize {
        self.spec.method.max_sweeps()
    }

    /// The spec as written.
    pub fn spec(&self) -> &DinuzzoSpec {
        &self.spec
    }
}

impl DinuzzoSpec {
    /// Every range check of paper C's spec, in one place, each refusal naming its field: the
    /// race on kernel rows, the plot window and the generated data's size, λ > 0, the loss's
    /// parameters, and the method's δ > 0, sweep cap ≥ 1, gap tolerance > 0, fixed α > 0,
    /// kernel-row cache ≥ 0 (within the memory budget) and the greedy-pairs rule's losses
    /// (outside a race).
    /// What depends on the data themselves (a CSV file's columns and size, the greedy sweep's
    /// work, the race's n, `K ≠ 0`) is checked when they are built.
    pub fn check(&self) -> Result<DinuzzoChecked> {
        if self.race && uses_kernel_rows(&self.method) {
            return Err(race_on_rows());
        }
        let limit = n_limit(self);
        match &self.data {
            DataSpec::Classification { n, .. } | DataSpec::Regression { n, .. } => {
                check_page_n("n", *n, limit)?
            }
            DataSpec::Points { points, view } => {
                check_view(view)?;
                check_page_n("points", points.len(), limit)?;
            }
            DataSpec::Csv(_) => {}
        }
        // λ, δ, the sweep cap, a fixed α, the generated data's knobs and the kernel's
        // parameters: the page schema's ranges (`dinuzzo/schema.rs`), read here, not restated.
        crate::schema::check_spec(&schema::schema().fields, self)?;
        self.loss.validate()?;
        let method = self.method.solver();
        match self.method {
            MethodSpec::FixedPoint(f) => {
                check_gap(f.gap_tol)?;
            }
            MethodSpec::Coordinate(c) => {
                check_gap(c.gap_tol)?;
                crate::solvers::coordinate::check_cache_mib(c.cache_mib)?;
                // A race runs its own five methods (the fifth falls back to greedy for such a
                // loss, [`crate::papers::dinuzzo::run::fifth_rule`]), not the spec's rule as written.
                if c.rule == IndexRule::GreedyPairs
                    && !self.race
                    && crate::solvers::coordinate::PairBox::of(self.loss, self.lambda).is_none()
                {
                    return Err(crate::solvers::coordinate::pairs_refused(self.loss));
                }
            }
        }
        Ok(DinuzzoChecked { spec: self.clone(), solver: method })
    }
}

fn check_gap(gap_tol: Option<f64>) -> Result<()> {
    match gap_tol {
        Some(g) if !(g.is_finite() && g > 0.0) => {
            Err(bad("method.gap_tol", format!("must be a finite number > 0 (got {g})")))
        }
        _ => Ok(()),
    }
}

/// The data and problem built from a spec.
pub struct DinuzzoSession {
    pub x: DMatrix<f64>,
    pub y: DVector<f64>,
    /// 1-D regression data (curve plot) rather than 2-D classification (decision map).
    pub regression: bool,
    /// The plot window `[x_min, x_max, y_min, y_max]`.
    pub view: [f64; 4],
    pub problem: RegularizationProblem,
}

impl Clone for DinuzzoSession {
    fn clone(&self) -> Self {
        Self {
            x: self.x.clone(),
            y: self.y.clone(),
            regression: self.regression,
            view: self.view,
            problem: self.problem.clone(),
        }
    }
}

pub(crate) fn bad(name: &'static str, reason: impl Into<String>) -> KpError {
    KpError::Parameter { name, reason: reason.into() }
}

/// A padded bounding box of the 2-D inputs (columns 0 and 1), or of (x, y) for 1-D data.
fn view_of(x: &DMatrix<f64>, y: &DVector<f64>) -> [f64; 4] {
    let (mut a, mut b, mut c, mut d) =
        (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for (i, r) in x.row_iter().enumerate() {
        let (u, v) = if x.ncols() >= 2 { (r[0], r[1]) } else { (r[0], y[i]) };
        a = a.min(u);
        b = b.max(u);
        c = c.min(v);
        d = d.max(v);
    }
    if !(a.is_finite() && b.is_finite() && c.is_finite() && d.is_finite()) {
        return [-2.0, 2.0, -2.0, 2.0];
    }
    let px = 0.12 * (b - a).max(0.5);
    let py = 0.12 * (d - c).max(0.5);
    [a - px, b + px, c - py, d + py]
}

/// A plot window must be finite, bounded and non-degenerate ([`crate::budget::view_box`]).
pub fn check_view(v: &[f64; 4]) -> Result<()> {
    crate::budget::view_box("view", v)
}

fn check_page_n(name: &'static str, n: usize, limit: usize) -> Result<()> {
    if n > limit {
        return Err(bad(
            name,
            if limit == MAX_PAGE_N {
                format!("the page handles at most {MAX_PAGE_N} points (got {n})")
            } else {
                format!(
                    "coordinate descent on kernel rows handles at most {limit} points (got {n})"
                )
            },
        ));
    }
    Ok(())
}

/// Whether the spec's solver computes kernel rows instead of storing the Gram matrix
/// (coordinate descent with `cache_mib`).
pub fn uses_kernel_rows(m: &MethodSpec) -> bool {
    matches!(m, MethodSpec::Coordinate(c) if c.cache_mib.is_some())
}

/// The largest n a spec accepts: [`MAX_PAGE_N`], or natively [`MAX_ROWS_N`] when no Gram
/// matrix is stored (the page keeps its limit: it draws and sums over every point each frame).
pub fn n_limit(spec: &DinuzzoSpec) -> usize {
    if uses_kernel_rows(&spec.method) && !cfg!(target_arch = "wasm32") {
        MAX_ROWS_N
    } else {
        MAX_PAGE_N
    }
}

/// The data of a spec (`None` for an empty set of clicked points), with whether it is 1-D
/// regression data and its plot window; at most [`MAX_PAGE_N`] points.
pub fn data_of(spec: &DataSpec) -> Result<Option<(Dataset, bool, [f64; 4])>> {
    data_within(spec, MAX_PAGE_N)
}

/// [`data_of`] with the point limit `limit` ([`n_limit`]).
pub fn data_within(spec: &DataSpec, limit: usize) -> Result<Option<(Dataset, bool, [f64; 4])>> {
    Ok(Some(match spec {
        DataSpec::Classification { shape, n, label_noise, seed } => {
            check_page_n("n", *n, limit)?;
            let d =
                Classification2d { shape: *shape, n: *n, label_noise: *label_noise, seed: *seed }
                    .generate()?;
            let v = view_of(&d.x, &d.y);
            (d, false, v)
        }
        DataSpec::Regression { n, noise, outliers, seed } => {
            check_page_n("n", *n, limit)?;
            let d = Regression1d { n: *n, noise: *noise, outliers: *outliers, seed: *seed }
                .generate()?;
            (d, true, [-3.0, 3.0, -3.0, 3.0])
        }
        DataSpec::Points { points, view } => {
            check_view(view)?;
            if points.is_empty() {
                return Ok(None);
            }
            check_page_n("points", points.len(), limit)?;
            let pts: Vec<(f64, f64, f64)> = points.iter().map(|p| (p[0], p[1], p[2])).collect();
            (plane::from_points(&pts)?, false, *view)
        }
        DataSpec::Csv(c) => {
            let d = c.parse()?;
            check_page_n("data.text", d.n(), limit)?;
            let regression = match d.d() {
                2 => false,
                1 => true,
                k => return Err(bad("data.text", format!("paper C plots 2 feature columns (classification) or 1 (regression); the file has {k}"))),
            };
            let v = view_of(&d.x, &d.y);
            (d, regression, v)
        }
    }))
}

/// The spec's data as a [`Dataset`] (an empty one for no clicked points).
pub fn dataset(spec: &DataSpec) -> Result<Dataset> {
    dataset_within(spec, MAX_PAGE_N)
}

/// [`dataset`] with the point limit `limit` ([`n_limit`]).
pub fn dataset_within(spec: &DataSpec, limit: usize) -> Result<Dataset> {
    Ok(match data_within(spec, limit)? {
        Some((d, _, _)) => d,
        None => Dataset {
            x: DMatrix::zeros(0, 2),
            y: DVector::zeros(0),
            w_true: None,
            feature_names: vec!["x1".into(), "x2".into()],
        },
    })
}

pub(crate) fn race_on_rows() -> KpError {
    bad("method.cache_mib", "the race runs every solver on one stored kernel matrix (n ≤ 2000): drop cache_mib to race, or run one method")
}

/// Build data and problem of a checked spec; `Ok(None)` for an empty set of clicked points.
/// The same problem, bit for bit, as a [`DinuzzoPreparation`] run to its end.
pub fn build(spec: &DinuzzoChecked) -> Result<Option<DinuzzoSession>> {
    let Some((d, regression, view)) = data_within(&spec.data, n_limit(spec))? else {
        return Ok(None);
    };
    let repr = if spec.kernel == Kernel::linear() {
        Representation::Features
    } else if uses_kernel_rows(&spec.method) {
        Representation::KernelRows
    } else {
        Representation::Gram
    };
    let problem =
        RegularizationProblem::new(&d.x, &d.y, &spec.kernel, spec.loss, spec.lambda, repr)?;
    Ok(Some(DinuzzoSession { x: d.x, y: d.y, regression, view, problem }))
}

/// Whether the spec's solver(s) need `‖K‖₂` (the fixed point's step and its condition (11)).
pub fn needs_norm(spec: &DinuzzoSpec) -> bool {
    spec.race || matches!(spec.method, MethodSpec::FixedPoint(_))
}

enum Stage {
    Gram { d: Dataset, regression: bool, view: [f64; 4], rk: ResolvedKernel, job: CrossJob },
    Norm { built: DinuzzoSession, job: PowerIteration },
    Done(DinuzzoSession),
}

/// Paper C's problem built in resumable stages, so a page can spread the O(n²) work over
/// animation frames (issue #13: no main-thread task over 200 ms at the page's largest n): the
/// Gram matrix by column blocks ([`CrossJob`]), then `‖K‖₂` by power iteration
/// ([`PowerIteration`]) when a solver needs it. The result equals [`build`]'s bit for bit.
pub struct DinuzzoPreparation {
    stage: Option<Stage>,
    needs_norm: bool,
    /// The spec's loss and λ, for the problem built on the finished Gram matrix.
    loss: Loss,
    lambda: f64,
}

impl DinuzzoPreparation {
    /// Generate the data of a checked spec and allocate the Gram matrix (after the budget
    /// check); `Ok(None)` for an empty set of clicked points.
    pub fn new(spec: &DinuzzoChecked) -> Result<Option<Self>> {
        let Some((d, regression, view)) = data_within(&spec.data, n_limit(spec))? else {
            return Ok(None);
        };
        let needs_norm = needs_norm(spec);
        let direct = if spec.kernel == Kernel::linear() {
            Some(Representation::Features)
        } else if uses_kernel_rows(&spec.method) {
            Some(Representation::KernelRows)
        } else {
            None
        };
        let stage = if let Some(repr) = direct {
            // No Gram matrix to build: the features, or kernel rows computed on demand.
            let problem =
                RegularizationProblem::new(&d.x, &d.y, &spec.kernel, spec.loss, spec.lambda, repr)?;
            Self::after_problem(
                DinuzzoSession { x: d.x, y: d.y, regression, view, problem },
                needs_norm,
            )
        } else {
            let rk = spec.kernel.resolve(&d.x)?;
            let job = CrossJob::gram(rk.clone(), d.x.clone())?;
            Stage::Gram { d, regression, view, rk, job }
        };
        Ok(Some(Self { stage: Some(stage), needs_norm, loss: spec.loss, lambda: spec.lambda }))
    }

    /// Continue from data and a problem already built (e.g. a new solver on the same problem):
    /// only `‖K‖₂` is left to compute, if the spec's solver needs it and it is not known yet.
    pub fn from_built(built: DinuzzoSession, spec: &DinuzzoChecked) -> Self {
        Self {
            stage: Some(Self::after_problem(built, needs_norm(spec))),
            needs_norm: needs_norm(spec),
            loss: spec.loss,
            lambda: spec.lambda,
        }
    }

    fn after_problem(built: DinuzzoSession, needs_norm: bool) -> Stage {
        if needs_norm {
            let job = PowerIteration::new(&built.problem);
            Stage::Norm { built, job }
        } else {
            Stage::Done(built)
        }
    }

    /// Work until done or `budget_ms` has elapsed (at least one unit of work, sliced by the
    /// executor's [`run_task_for`]); returns whether the problem is ready. After an error the
    /// preparation is spent (start a new one).
    pub fn advance(&mut self, budget_ms: f64) -> Result<bool> {
        run_task_for(self, budget_ms)?;
        Ok(matches!(self.stage, Some(Stage::Done(_))))
    }

    /// Run to the end at once, the kernel matrix on [`crate::par::threads`] threads
    /// ([`CrossJob::run_to_end`]: the same bits as the slices); for a worker.
    pub fn run_to_end(&mut self) -> Result<()> {
        if let Some(Stage::Gram { job, .. }) = &mut self.stage {
            job.run_to_end()?;
        }
        while !self.advance(f64::INFINITY)? {}
        Ok(())
    }

    /// The Gram matrix being built, while nothing else has been computed (to adopt it whole).
    pub fn gram_job(&mut self) -> Option<&mut CrossJob> {
        match &mut self.stage {
            Some(Stage::Gram { job, .. }) if job.fraction() == 0.0 => Some(job),
            _ => None,
        }
    }

    /// Whether the whole Gram matrix is still to be computed ([`Self::gram_job`] is there).
    pub fn gram_pending(&self) -> bool {
        matches!(&self.stage, Some(Stage::Gram { job, .. }) if job.fraction() == 0.0)
    }

    /// The data's digest ([`digest_of`]'s), at any stage.
    pub fn digest(&self) -> String {
        match &self.stage {
            Some(Stage::Gram { d, .. }) => data_digest(&d.x, &d.y),
            Some(Stage::Norm { built, .. } | Stage::Done(built)) => digest_of(built),
            None => String::new(),
        }
    }

    /// While `‖K‖₂` is to be computed: take `value` instead (the same [`PowerIteration`] run
    /// elsewhere). Checked against bounds that hold for the power iteration's estimate of a
    /// symmetric K, `0 ≤ value ≤ max_i Σ_j |K_ij|` (Gershgorin); on failure nothing changes.
    pub fn adopt_norm(&mut self, value: f64) -> Result<()> {
        let Some(Stage::Norm { built, .. }) = &mut self.stage else {
            return Err(bad("norm", "‖K‖₂ is not what this preparation computes now"));
        };
        let bound = built.problem.gram_values().map_or(f64::INFINITY, |k| {
            let n = built.problem.n().max(1);
            k.chunks(n).map(|c| c.iter().map(|v| v.abs()).sum::<f64>()).fold(0.0, f64::max)
        });
        if !(value.is_finite() && value >= 0.0 && value <= bound * (1.0 + 1e-12)) {
            return Err(bad(
                "norm",
                format!("‖K‖₂ = {value} handed over is outside [0, {bound}] (Gershgorin)"),
            ));
        }
        if let Some(Stage::Norm { mut built, .. }) = self.stage.take() {
            built.problem.set_spectral_norm(&PowerIteration::settled(value));
            self.stage = Some(Stage::Done(built));
        }
        Ok(())
    }

    /// The number of points (the Gram matrix is n × n).
    pub fn n(&self) -> usize {
        match &self.stage {
            Some(Stage::Gram { d, .. }) => d.n(),
            Some(Stage::Norm { built, .. } | Stage::Done(built)) => built.y.len(),
            None => 0,
        }
    }

    /// What is being computed and how far, for a progress readout: ("kernel matrix", 0.4).
    pub fn progress(&self) -> (&'static str, f64) {
        match &self.stage {
            Some(Stage::Gram { job, .. }) => ("kernel matrix", job.fraction()),
            Some(Stage::Norm { job, .. }) => (
                "‖K‖₂ by power iteration",
                job.iterations() as f64 / (job.iterations() as f64 + 20.0),
            ),
            Some(Stage::Done(_)) => ("ready", 1.0),
            None => ("failed", 0.0),
        }
    }

    /// The built problem once [`Self::advance`] has returned true.
    pub fn built(self) -> Option<DinuzzoSession> {
        match self.stage {
            Some(Stage::Done(b)) => Some(b),
            _ => None,
        }
    }
}

/// The data digest of built data ([`Dataset::digest`] of `x` and `y`): the page shows it, and
/// `kplay digest` prints the same for the same spec.
pub fn digest_of(built: &DinuzzoSession) -> String {
    data_digest(&built.x, &built.y)
}

fn data_digest(x: &DMatrix<f64>, y: &DVector<f64>) -> String {
    Dataset { x: x.clone(), y: y.clone(), w_true: None, feature_names: Vec::new() }.digest()
}

impl Task for DinuzzoPreparation {
    type Error = KpError;
    /// One unit: a block of the Gram matrix's columns ([`CrossJob`]'s unit; the problem built
    /// after the last), or one power-iteration step for `‖K‖₂`; done once the problem is ready.
    fn unit(&mut self) -> Result<Progress> {
        let next = match self.stage.take() {
            None => return Err(bad("data", "this preparation failed earlier; start again")),
            Some(Stage::Gram { d, regression, view, rk, mut job }) => {
                if job.unit()? == Progress::Done {
                    let problem = RegularizationProblem::with_gram(
                        &d.x,
                        &d.y,
                        rk,
                        job.finish()?,
                        self.loss,
                        self.lambda,
                    )?;
                    Self::after_problem(
                        DinuzzoSession { x: d.x, y: d.y, regression, view, problem },
                        self.needs_norm,
                    )
                } else {
                    Stage::Gram { d, regression, view, rk, job }
                }
            }
            Some(Stage::Norm { mut built, mut job }) => {
                if job.step(&built.problem).is_some() {
                    built.problem.set_spectral_norm(&job);
                    Stage::Done(built)
                } else {
                    Stage::Norm { built, job }
                }
            }
            Some(done @ Stage::Done(_)) => done,
        };
        let done = matches!(next, Stage::Done(_));
        self.stage = Some(next);
        Ok(if done { Progress::Done } else { Progress::More })
    }
}
