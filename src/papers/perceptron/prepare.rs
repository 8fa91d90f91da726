//! [`PerceptronPreparation`]: paper D's session built in resumable stages (the kernel matrix by
//! blocks of columns, then ρ_K's min-norm search), so a page spreads the O(n²) work over frames;
//! or computed at once by a worker on every thread and adopted by the page after its checks
//! (issue 21 §3; tests/perceptron_prep.rs).

use std::sync::Arc;

use super::checked::PerceptronChecked;
use super::session::{points_digest, PerceptronSession};
use crate::error::{KpError, Result};
use crate::exec::{run_task_for, Progress, Task};
use crate::kernels::{CrossJob, ResolvedKernel};
use crate::solvers::perceptron::margin::{margin_from, MinNormSearch};
use crate::solvers::perceptron::PerceptronProblem;

enum Stage {
    Gram { job: CrossJob, kernel: ResolvedKernel },
    Margin { problem: Arc<PerceptronProblem>, search: MinNormSearch },
}

/// A [`PerceptronSession`] built in resumable stages, so a page can spread the O(n²) work over animation
/// frames (issue #13: no main-thread task over 200 ms at the page's largest n): G by column
/// blocks ([`CrossJob`]), then the min-norm search of ρ_K's bracket ([`MinNormSearch`]). The
/// session equals [`PerceptronSession::new`]'s bit for bit ([`PerceptronSession::new`] runs this to its end).
pub struct PerceptronPreparation {
    spec: PerceptronChecked,
    stage: Option<Stage>,
    /// The session, once the last unit built it (taken by [`Self::advance`]).
    ready: Option<PerceptronSession>,
}

/// Frank–Wolfe iterations of the min-norm search per check of the clock (each O(n)).
const SEARCH_CHUNK: usize = 64;

impl PerceptronPreparation {
    /// The preparation of a checked spec's session: G allocated (after the memory budget's
    /// check), nothing computed yet.
    pub fn new(spec: PerceptronChecked) -> Result<Self> {
        let kernel = spec.kernel().clone();
        let job = CrossJob::gram(kernel.clone(), spec.x().clone())?;
        Ok(Self { spec, stage: Some(Stage::Gram { job, kernel }), ready: None })
    }

    /// The number of points.
    pub fn n(&self) -> usize {
        self.spec.x().nrows()
    }

    /// The checked spec being prepared.
    pub fn spec(&self) -> &PerceptronChecked {
        &self.spec
    }

    /// The data's digest, as the session will hold it ([`PerceptronSession::digest`]).
    pub fn digest(&self) -> String {
        points_digest(self.spec.x(), self.spec.y())
    }

    /// Whether the whole kernel matrix is still ahead (no slice of it computed yet), which a
    /// worker may compute on every core ([`Self::kernel_matrix_all`]) and the page adopt
    /// ([`Self::adopt_kernel_matrix`]) instead of its slices (issue 21 §3).
    pub fn offloadable(&self) -> bool {
        matches!(&self.stage, Some(Stage::Gram { job, .. }) if job.fraction() == 0.0)
    }

    /// The kernel matrix `K(xᵢ, xⱼ)` behind G (before its normalization, Ramdas–Peña §2),
    /// column-major, computed at once on [`crate::par::threads`] threads with the slices' bits
    /// ([`CrossJob::run_to_end`]): what a worker hands to a page. An error once the
    /// preparation is past the kernel matrix.
    pub fn kernel_matrix_all(&mut self) -> Result<&[f64]> {
        let Some(Stage::Gram { job, .. }) = &mut self.stage else {
            return Err(KpError::Parameter {
                name: "prepared",
                reason: "this preparation is past its kernel matrix".into(),
            });
        };
        job.run_to_end()?;
        job.values().ok_or_else(|| KpError::Parameter {
            name: "prepared",
            reason: "the kernel matrix did not complete".into(),
        })
    }

    /// Take the kernel matrix computed elsewhere for this spec (a worker's
    /// [`Self::kernel_matrix_all`]) instead of computing it in slices: `digest` must be this
    /// spec's data digest and the preparation must not have started its slices; the `len`
    /// values `fill` writes go into the matrix allocated (and budget-checked) when the spec was
    /// applied, and are checked there ([`CrossJob::adopt`]: finite, one block recomputed bit for
    /// bit). On a refusal the error says why and the slices compute the matrix from column 0;
    /// after an adoption the next [`Self::advance`] goes on with ρ_K, and the session is the
    /// sliced one's bit for bit (tests/perceptron_prep.rs).
    pub fn adopt_kernel_matrix(
        &mut self,
        digest: &str,
        len: usize,
        fill: impl FnOnce(&mut [f64]),
    ) -> Result<()> {
        let own = self.digest();
        if digest != own {
            return Err(KpError::Parameter {
                name: "prepared",
                reason: format!("data digest {digest} handed over; this spec's data are {own}"),
            });
        }
        match &mut self.stage {
            Some(Stage::Gram { job, .. }) if job.fraction() == 0.0 => job.adopt(len, fill),
            _ => Err(KpError::Parameter {
                name: "prepared",
                reason: "no whole kernel matrix left to compute here".into(),
            }),
        }
    }

    /// Work until done or `budget_ms` has elapsed (at least one unit, sliced by the executor's
    /// [`run_task_for`]); `Some(session)` when done. After an error the preparation is spent.
    pub fn advance(&mut self, budget_ms: f64) -> Result<Option<PerceptronSession>> {
        run_task_for(self, budget_ms)?;
        Ok(self.ready.take())
    }

    /// G from the complete kernel matrix (normalized, Ramdas–Peña §2) and ρ_K's min-norm search
    /// started on it.
    fn margin_stage(&self, job: CrossJob, kernel: ResolvedKernel) -> Result<Stage> {
        let problem = Arc::new(PerceptronProblem::with_kernel_matrix(
            self.spec.x(),
            self.spec.y(),
            kernel,
            job.finish()?,
        )?);
        let o = self.spec.margin_options();
        let search = MinNormSearch::new(problem.gram(), o.rel_tol, o.zero_tol, o.max_iter)?;
        Ok(Stage::Margin { problem, search })
    }

    /// Past a complete kernel matrix (computed or adopted): G built and the search started.
    fn enter_margin_stage(&mut self) -> Result<()> {
        if let Some(Stage::Gram { job, kernel }) = self.stage.take() {
            self.stage = Some(if job.is_done() {
                self.margin_stage(job, kernel)?
            } else {
                Stage::Gram { job, kernel }
            });
        }
        Ok(())
    }

    /// Run ρ_K's min-norm search (Frank–Wolfe, [`MinNormSearch`]) to its stop, after the kernel
    /// matrix (on every thread, [`Self::kernel_matrix_all`]) when it is still ahead; returns the
    /// search's weights and iterations for a worker to hand over with the matrix
    /// ([`Self::adopt_margin_search`]). The bracket of ρ_K is computed from them by the session
    /// ([`crate::solvers::perceptron::margin::margin_from`]), wherever they come from.
    pub fn margin_search_all(&mut self) -> Result<(Vec<f64>, usize)> {
        if matches!(&self.stage, Some(Stage::Gram { .. })) {
            self.kernel_matrix_all()?;
            self.enter_margin_stage()?;
        }
        match &mut self.stage {
            Some(Stage::Margin { problem, search }) => {
                while !search.advance(problem.gram(), usize::MAX) {}
                search.stopped_state().map(|(p, it)| (p.to_vec(), it)).ok_or_else(|| {
                    KpError::Parameter {
                        name: "prepared",
                        reason: "the search did not stop".into(),
                    }
                })
            }
            _ => Err(KpError::Parameter {
                name: "prepared",
                reason: "this preparation has no min-norm search ahead".into(),
            }),
        }
    }

    /// Take ρ_K's min-norm search from elsewhere (a worker's [`Self::margin_search_all`] on the
    /// same data), after the kernel matrix was adopted ([`Self::adopt_kernel_matrix`]): G is
    /// built here, and the weights are checked and resumed as a stopped search
    /// ([`MinNormSearch::resume_stopped`]); the next [`Self::advance`] computes ρ_K's bracket
    /// from them and G, as the slices would. On a refusal the error says why and the search
    /// runs here from its start.
    pub fn adopt_margin_search(&mut self, p: Vec<f64>, iterations: usize) -> Result<()> {
        self.enter_margin_stage()?;
        let o = self.spec.margin_options();
        match &mut self.stage {
            Some(Stage::Margin { problem, search }) => {
                *search = MinNormSearch::resume_stopped(
                    problem.gram(),
                    p,
                    iterations,
                    o.rel_tol,
                    o.zero_tol,
                    o.max_iter,
                )?;
                Ok(())
            }
            _ => Err(KpError::Parameter {
                name: "prepared",
                reason: "no min-norm search to adopt here: the kernel matrix is not complete"
                    .into(),
            }),
        }
    }

    /// What is being computed and how far, for a progress readout.
    pub fn progress(&self) -> (&'static str, f64) {
        match &self.stage {
            Some(Stage::Gram { job, .. }) => ("normalized Gram matrix G", job.fraction()),
            Some(Stage::Margin { search, .. }) => (
                "margin ρ_K (min-norm point)",
                search.iterations() as f64 / search.max_iter() as f64,
            ),
            None => ("failed", 0.0),
        }
    }
}

impl PerceptronSession {
    /// Build G of a checked spec, compute ρ_K and start the algorithm at its first iterate.
    pub fn new(spec: PerceptronChecked) -> Result<Self> {
        let mut prep = PerceptronPreparation::new(spec)?;
        loop {
            if let Some(s) = prep.advance(f64::INFINITY)? {
                return Ok(s);
            }
        }
    }
}

impl Task for PerceptronPreparation {
    type Error = KpError;
    /// One unit: a block of G's columns ([`CrossJob`]'s unit; G and ρ_K's search set up after
    /// the last), or [`SEARCH_CHUNK`] Frank–Wolfe iterations of the search (the session built
    /// after the last); done once the session is built. A unit that fails leaves the
    /// preparation spent.
    fn unit(&mut self) -> Result<Progress> {
        let next = match self.stage.take() {
            None if self.ready.is_some() => return Ok(Progress::Done),
            None => {
                return Err(KpError::Parameter {
                    name: "data",
                    reason: "this preparation failed earlier; start again".into(),
                })
            }
            Some(Stage::Gram { mut job, kernel }) => {
                if job.unit()? == Progress::Done {
                    self.margin_stage(job, kernel)?
                } else {
                    Stage::Gram { job, kernel }
                }
            }
            Some(Stage::Margin { problem, mut search }) => {
                if search.advance(problem.gram(), SEARCH_CHUNK) {
                    let margin = margin_from(
                        problem.gram(),
                        &self.spec.margin_options(),
                        search.finish(problem.gram()),
                    )?;
                    self.ready =
                        Some(PerceptronSession::from_parts(self.spec.clone(), problem, margin)?);
                    return Ok(Progress::Done);
                }
                Stage::Margin { problem, search }
            }
        };
        self.stage = Some(next);
        Ok(Progress::More)
    }
}
