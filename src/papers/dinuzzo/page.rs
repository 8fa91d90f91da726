//! Paper C's page as a state machine, natively (issue 20: the page's state machines move from
//! `src/web/` into the core). One spec; its problem, built at once when small or in slices (the
//! Gram matrix, ‖K‖₂, then the decision map's cross kernel) one frame at a time; the running
//! solver or the race's lanes; the decision map. Every decision the page makes — reuse the data
//! and the Gram matrix when only the solver or the race changed, fall back to the previous run
//! when a new problem fails to build — is made and tested here; the wasm `DinuzzoPlayground`
//! only translates and draws. A worker may prepare a large problem on every core instead
//! ([`DinuzzoPage::prepare_all`], [`DinuzzoPage::handover`]) and the page adopt it after its
//! checks ([`DinuzzoPage::adopt`], issue 21 §3; tests/dinuzzo_prep.rs).

use nalgebra::DMatrix;

use super::spec::{
    needs_norm, uses_kernel_rows, DataSpec, DecisionMap, DinuzzoChecked, DinuzzoPreparation,
    DinuzzoSession, DinuzzoSpec, SweepSolver,
};
use crate::datasets::plane;
use crate::error::{KpError, Result};
use crate::exec::Race;
use crate::exec::{run_task_for, Progress, Task};
use crate::kernels::CrossJob;
use crate::papers::dinuzzo::run::{method_index, Lane};
use crate::papers::spec::Spec;
use crate::spec_json::Paper;

/// Cross-kernel entries cached for the heatmap (8 bytes each): the grid's side is chosen so
/// side² · n stays within this.
const MAP_CACHE: usize = 4_000_000;
/// Problems with n² up to this are built at once when a spec is applied (a few ms); larger
/// ones are built in slices by [`DinuzzoPage::prepare`], one per frame.
const SYNC_GRAM: usize = 250_000;
/// Decision maps with (grid points × n) up to this are computed at once (the default page's).
const SYNC_MAP: usize = 1_500_000;

/// Values handed over: their count, and the function that writes them into a page's own
/// storage of that length ([`DinuzzoPage::adopt`]).
pub type Fill<'a> = (usize, &'a mut dyn FnMut(&mut [f64]));

/// A prepared problem as a worker hands it to a page ([`DinuzzoPage::handover`]).
pub struct Handover<'a> {
    /// The data digest ([`crate::papers::dinuzzo::digest_of`]).
    pub digest: String,
    /// The Gram matrix's entries, column-major (none for the features or kernel-rows forms).
    pub gram: Option<&'a [f64]>,
    /// `‖K‖₂` when the spec's solver needs it.
    pub norm: Option<f64>,
    /// The decision map's cross kernel, column-major (grid points × data points).
    pub map: Option<&'a [f64]>,
}

/// Parse a paper-C spec strictly (its own tag or none) and check it ([`DinuzzoSpec::check`]),
/// one message naming the field.
pub fn parse(spec_json: &str) -> Result<DinuzzoChecked> {
    match Spec::from_json_for(Paper::Dinuzzo, spec_json)? {
        Spec::Dinuzzo(s) => s.check(),
        _ => Err(KpError::Spec("paper: not a paper-C spec".into())),
    }
}

/// Paper C's page experiment.
pub struct DinuzzoPage {
    spec: DinuzzoChecked,
    built: Option<DinuzzoSession>,
    /// The running solver, or the race's five: one race either way ([`Race`]).
    runs: Race<Box<dyn SweepSolver>>,
    /// The lane shown (the spec's method).
    sel: usize,
    map: Option<(DecisionMap, usize, usize)>,
    /// The problem being built in slices (Gram matrix, ‖K‖₂), until ready.
    prep: Option<DinuzzoPreparation>,
    /// The decision map's cross kernel being built in slices, with the grid's shape.
    map_job: Option<(CrossJob, usize, usize)>,
    /// The run to restore if the preparation of a new spec fails.
    fallback: Option<Box<DinuzzoPage>>,
}

impl DinuzzoPage {
    /// Parse and check a spec, generate its data, and start the solver(s) at c = 0 (a large
    /// problem's O(n²) work waits for [`Self::prepare`]).
    pub fn new(spec_json: &str) -> Result<Self> {
        Self::from_spec(parse(spec_json)?, None)
    }

    /// A page for `spec` (reusing built data and Gram matrix when given): the data are
    /// generated and checked at once, the O(n²) work runs in slices ([`Self::prepare`]); small
    /// problems are ready on return.
    fn from_spec(spec: DinuzzoChecked, reuse: Option<&DinuzzoSession>) -> Result<Self> {
        let prep = match reuse {
            Some(b) => Some(DinuzzoPreparation::from_built(b.clone(), &spec)),
            None => DinuzzoPreparation::new(&spec)?,
        };
        let small = prep.as_ref().is_none_or(|p| p.n().saturating_mul(p.n()) <= SYNC_GRAM);
        let mut s = Self {
            spec,
            built: None,
            runs: Race::new(Vec::new()),
            sel: 0,
            map: None,
            prep,
            map_job: None,
            fallback: None,
        };
        if small {
            s.advance(f64::INFINITY)?;
        }
        Ok(s)
    }

    /// Apply a new spec; the data and the Gram matrix (and the decision map's kernel values)
    /// are kept when only the solver or the race changed. On error the old run is kept; a new
    /// problem that fails while it is prepared in slices restores it ([`Self::prepare`]).
    pub fn update(&mut self, spec_json: &str) -> Result<()> {
        let spec = parse(spec_json)?;
        let same_problem = self.same_problem(&spec);
        let mut next = if same_problem {
            Self::from_spec(spec, self.built.as_ref())?
        } else {
            Self::from_spec(spec, None)?
        };
        if same_problem {
            next.map_job = None;
            next.map = self.map.take();
        }
        let ready = next.ready();
        let old = std::mem::replace(self, next);
        if !ready {
            // Kept until the new problem is ready: a failure there restores it.
            self.fallback = Some(Box::new(old)).filter(|o| o.ready());
        }
        Ok(())
    }

    /// Whether `spec` poses the same problem as the page's (data, loss, λ, kernel, and whether
    /// the solver reads kernel rows): then the built problem is reused.
    pub fn same_problem(&self, spec: &DinuzzoSpec) -> bool {
        self.ready()
            && spec.data == self.spec.data
            && spec.loss == self.spec.loss
            && spec.lambda == self.spec.lambda
            && spec.kernel == self.spec.kernel
            && uses_kernel_rows(&spec.method) == uses_kernel_rows(&self.spec.method)
    }

    /// The grid of the decision map (or the regression curve's abscissae) and its shape.
    fn map_points(&self, b: &DinuzzoSession) -> Result<(DMatrix<f64>, usize, usize)> {
        if b.regression {
            let (x0, x1) = (
                b.x.iter().copied().fold(f64::INFINITY, f64::min),
                b.x.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            );
            let m = 240usize;
            return Ok((
                DMatrix::from_fn(m, 1, |i, _| x0 + (x1 - x0) * i as f64 / (m - 1) as f64),
                m,
                1,
            ));
        }
        let view = self.view();
        let side = ((MAP_CACHE as f64 / b.problem.n().max(1) as f64).sqrt() as usize).clamp(24, 80);
        let g = plane::grid(view[0], view[1], view[2], view[3], side, side)?;
        Ok((g, side, side))
    }

    /// Advance the preparation, then the map, sliced by the executor ([`run_task_for`]); true
    /// when both are done.
    fn advance(&mut self, budget_ms: f64) -> Result<bool> {
        run_task_for(self, budget_ms)?;
        let done = self.prep.is_none() && self.map_job.is_none();
        if done {
            self.fallback = None;
        }
        Ok(done)
    }

    /// The problem is ready: start the solver(s) and the decision map's job (run at once when
    /// it is small).
    fn on_built(&mut self) -> Result<()> {
        let built = self.prep.take().and_then(DinuzzoPreparation::built);
        if let Some(b) = &built {
            self.runs = crate::papers::dinuzzo::run::start(b, &self.spec)?;
            let want = method_index(&self.spec.method);
            self.sel = self.runs.lanes().iter().position(|l| l.key == want).unwrap_or(0);
            if self.map.is_none() {
                let (pts, nx, ny) = self.map_points(b)?;
                let mut job = b.problem.decision_map_job(pts)?;
                if (nx * ny).saturating_mul(b.problem.n()) <= SYNC_MAP {
                    job.advance(f64::INFINITY)?;
                }
                self.map_job = Some((job, nx, ny));
            }
        }
        self.built = built;
        Ok(())
    }

    /// Spend up to `budget_ms` on the O(n²) preparation (Gram matrix, ‖K‖₂, the map's cross
    /// kernel); true when everything is ready. If it fails, the previous run is restored (when
    /// there was one) and the error returned.
    pub fn prepare(&mut self, budget_ms: f64) -> Result<bool> {
        match self.advance(budget_ms) {
            Ok(done) => Ok(done),
            Err(e) => {
                if let Some(old) = self.fallback.take() {
                    *self = *old;
                } else {
                    self.prep = None;
                    self.map_job = None;
                }
                Err(e)
            }
        }
    }

    /// Whether this page's preparation ahead is a whole Gram matrix not yet started (a large
    /// problem), which a worker may compute on every core and hand over ([`Self::adopt`]).
    pub fn offloadable(&self) -> bool {
        self.prep.as_ref().is_some_and(DinuzzoPreparation::gram_pending)
    }

    /// Everything [`Self::prepare`] computes, at once: the Gram matrix and the map's cross
    /// kernel on [`crate::par::threads`] threads (the same bits as the slices,
    /// [`CrossJob::run_to_end`]), then `‖K‖₂` by the same power iteration. For a worker (issue
    /// 21 §3), which then hands [`Self::handover`] to the page.
    pub fn prepare_all(&mut self) -> Result<()> {
        if let Some(p) = &mut self.prep {
            p.run_to_end()?;
        }
        // Starts the run and the map's job (one block of it).
        self.advance(0.0)?;
        if let Some((job, _, _)) = &mut self.map_job {
            job.run_to_end()?;
        }
        while !self.advance(f64::INFINITY)? {}
        Ok(())
    }

    /// What the preparation produced, for a page to adopt: the data digest, the Gram matrix's
    /// entries (when the problem stores one), `‖K‖₂` (when the spec's solver needs it) and the
    /// map's cross kernel (column-major, grid points × data points); `None` until ready.
    pub fn handover(&self) -> Option<Handover<'_>> {
        let b = self.built.as_ref()?;
        Some(Handover {
            digest: super::spec::digest_of(b),
            gram: b.problem.gram_values(),
            norm: if needs_norm(&self.spec) { b.problem.known_norm() } else { None },
            map: self.map.as_ref().and_then(|(m, _, _)| m.cross_values()),
        })
    }

    /// Take a preparation computed elsewhere for this page's spec (a worker's
    /// [`Self::handover`]) instead of computing it in slices: the digest must be this spec's
    /// data digest; the Gram matrix (and the map's kernel values) are written into this page's
    /// own matrices, allocated and budget-checked when the spec was applied, after their sizes
    /// are checked, and spot-checked ([`CrossJob::adopt`]); `‖K‖₂` within its bounds
    /// ([`DinuzzoPreparation::adopt_norm`]). Whatever is refused stays to be computed by
    /// [`Self::prepare`], from where it is, and the error says why: the page never breaks.
    /// The run is then exactly the sliced one's (tests/dinuzzo_prep.rs).
    pub fn adopt(
        &mut self,
        digest: &str,
        gram: Fill<'_>,
        norm: Option<f64>,
        map: Option<Fill<'_>>,
    ) -> Result<()> {
        let Some(p) = &mut self.prep else {
            return Err(KpError::Parameter {
                name: "prepared",
                reason: "this page has no preparation under way".into(),
            });
        };
        let own = p.digest();
        if digest != own {
            return Err(KpError::Parameter {
                name: "prepared",
                reason: format!("data digest {digest} handed over; this spec's data are {own}"),
            });
        }
        let Some(job) = p.gram_job() else {
            return Err(KpError::Parameter {
                name: "prepared",
                reason: "no whole kernel matrix left to compute here".into(),
            });
        };
        let (len, fill) = gram;
        job.adopt(len, fill)?;
        // The matrix is complete: one unit of work builds the problem (and starts ‖K‖₂).
        self.prepare(0.0)?;
        if let (Some(v), Some(p)) = (norm, &mut self.prep) {
            p.adopt_norm(v)?;
        }
        // Starts the run and the map's job.
        if self.prepare(0.0)? {
            return Ok(());
        }
        if let (Some((len, fill)), Some((job, _, _))) = (map, &mut self.map_job) {
            job.adopt(len, fill)?;
            self.prepare(0.0)?;
        }
        Ok(())
    }

    /// Whether the run is ready to step (the problem is built; the map may still be computing).
    pub fn ready(&self) -> bool {
        self.prep.is_none()
    }

    /// What is being prepared, for a progress readout (empty when ready), e.g.
    /// "computing the kernel matrix: 45 %".
    pub fn preparing(&self) -> String {
        if let Some(p) = &self.prep {
            let (what, f) = p.progress();
            return format!("computing the {what}: {:.0} %", 100.0 * f);
        }
        if let Some((job, _, _)) = &self.map_job {
            return format!(
                "computing the decision map's kernel values: {:.0} %",
                100.0 * job.fraction()
            );
        }
        String::new()
    }

    /// Restart the solver(s) from c = 0 on the same problem.
    pub fn reset(&mut self) -> Result<()> {
        if let Some(b) = &self.built {
            self.runs = crate::papers::dinuzzo::run::start(b, &self.spec)?;
        }
        Ok(())
    }

    /// Sweeps of the shown lane so far.
    fn sel_steps(&self) -> usize {
        self.runs.lanes().get(self.sel).map_or(0, |l| l.steps)
    }

    /// One sweep of every running solver; the sweeps the shown lane made (0 after its end).
    pub fn step(&mut self) -> usize {
        let before = self.sel_steps();
        self.runs.step_round();
        self.sel_steps() - before
    }

    /// Sweep the running solver(s) in turn until none runs or `budget_ms` has elapsed (at least
    /// one round); the sweeps the shown lane made.
    pub fn run_for(&mut self, budget_ms: f64) -> usize {
        let before = self.sel_steps();
        self.runs.run_for(budget_ms);
        self.sel_steps() - before
    }

    /// True while any solver is still running.
    pub fn running(&self) -> bool {
        self.runs.running()
    }

    /// The solver shown (the spec's method; in a race its lane).
    pub fn selected(&self) -> Option<&dyn SweepSolver> {
        self.selected_lane().map(|l| l.solver.as_ref())
    }

    /// The lane shown: its solver, its executor's stop word and its trace.
    pub fn selected_lane(&self) -> Option<&Lane> {
        self.runs.lanes().get(self.sel)
    }

    /// The position, among the race's lanes, of the solver shown.
    pub fn selected_key(&self) -> usize {
        self.sel
    }

    /// The spec.
    pub fn spec(&self) -> &DinuzzoSpec {
        &self.spec
    }

    /// The built problem (once ready).
    pub fn built(&self) -> Option<&DinuzzoSession> {
        self.built.as_ref()
    }

    /// The race (one lane when the spec races nothing).
    pub fn runs(&self) -> &Race<Box<dyn SweepSolver>> {
        &self.runs
    }

    /// The decision map's kernel values and the grid's shape (once computed).
    pub fn map(&self) -> Option<&(DecisionMap, usize, usize)> {
        self.map.as_ref()
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
            Some(b) if !b.regression => {
                b.x.row_iter().zip(b.y.iter()).flat_map(|(r, &l)| [r[0], r[1], l]).collect()
            }
            _ => Vec::new(),
        }
    }
}

impl Task for DinuzzoPage {
    type Error = KpError;
    /// One unit of the preparation (the solvers and the map's job started after its last), else
    /// one block of the decision map's cross kernel (the map built after its last); done once
    /// both are.
    fn unit(&mut self) -> Result<Progress> {
        if let Some(p) = &mut self.prep {
            if p.unit()? == Progress::More {
                return Ok(Progress::More);
            }
            self.on_built()?;
        }
        if let Some((job, nx, ny)) = &mut self.map_job {
            if job.unit()? == Progress::More {
                return Ok(Progress::More);
            }
            let (nx, ny) = (*nx, *ny);
            if let Some((job, _, _)) = self.map_job.take() {
                self.map = Some((DecisionMap::from_job(job)?, nx, ny));
            }
        }
        self.fallback = None;
        Ok(Progress::Done)
    }
}
