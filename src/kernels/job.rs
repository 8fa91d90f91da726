//! [`CrossJob`]: a cross-kernel (or Gram) matrix built a block of columns at a time (a page's
//! slices), run to its end on every thread ([`CrossJob::run_to_end`], a worker's), or adopted
//! from values computed elsewhere after a spot check ([`CrossJob::adopt`], issue 21 §3).

use nalgebra::DMatrix;

use super::{kernel_matrix_zeros, ResolvedKernel, JOB_BLOCK_ENTRIES};
use crate::error::{KpError, Result};
use crate::stepper::{run_task_for, Progress, Task};

/// A cross-kernel (or Gram) matrix computed a block of columns at a time, so a page can spread
/// an n × n build over animation frames instead of blocking its main thread (issue #13: no task
/// over 200 ms). Each block is [`ResolvedKernel::cross`] of the rows of `a` against a block of
/// rows of `b`, so the result is bit-identical to `cross(a, b)` (tested).
#[derive(Debug, Clone)]
pub struct CrossJob {
    kernel: ResolvedKernel,
    a: DMatrix<f64>,
    b: DMatrix<f64>,
    k: DMatrix<f64>,
    done: usize,
}

impl CrossJob {
    /// The `m × n` cross kernel of the rows of `a` against the rows of `b`; the budget is
    /// checked before the matrix is allocated.
    pub fn new(kernel: ResolvedKernel, a: DMatrix<f64>, b: DMatrix<f64>) -> Result<Self> {
        let k = kernel_matrix_zeros(&a, &b)?;
        Ok(Self { kernel, a, b, k, done: 0 })
    }

    /// The n × n Gram matrix of the rows of `x` (the budget's kernel limit applies, as for
    /// [`ResolvedKernel::gram`]).
    pub fn gram(kernel: ResolvedKernel, x: DMatrix<f64>) -> Result<Self> {
        crate::budget::active().kernel("data.n", "the n × n Gram matrix", x.nrows())?;
        Self::new(kernel, x.clone(), x)
    }

    /// Compute blocks of columns until done or `budget_ms` has elapsed (at least one block; the
    /// executor's slicing, [`run_task_for`]); returns whether the matrix is complete. Fails (and
    /// stays failed) on a non-finite value.
    pub fn advance(&mut self, budget_ms: f64) -> Result<bool> {
        run_task_for(self, budget_ms)?;
        Ok(self.is_done())
    }

    /// Compute every column not yet computed, in one call: on [`crate::par::threads`] threads
    /// blocks of columns in parallel, each exactly as [`ResolvedKernel::cross`] builds it, so the
    /// matrix has the same bits as the sliced one for any thread count (tests/threads.rs). For a
    /// worker, whose threads may block (a page's main thread keeps [`Self::advance`]).
    pub fn run_to_end(&mut self) -> Result<()> {
        let (m, n) = (self.a.nrows(), self.b.nrows());
        let threads = crate::par::threads();
        if threads > 1 && m > 0 && self.done < n && !self.kernel.is_composite() {
            let s0 = self.done;
            let width = (n - s0).div_ceil(4 * threads).max(1);
            let (kernel, a, b) = (&self.kernel, &self.a, &self.b);
            // Column-major: the columns [s, s + w) of K are one contiguous chunk.
            let rest = &mut self.k.as_mut_slice()[s0 * m..];
            let results = crate::par::for_each_chunk(rest, width * m, |c, chunk| {
                let (s, w) = (s0 + c * width, chunk.len() / m);
                let block = kernel.cross_plain(a, &b.rows(s, w).into_owned())?;
                chunk.copy_from_slice(block.as_slice());
                Ok(())
            });
            results.into_iter().collect::<Result<Vec<()>>>()?;
            self.done = n;
        }
        while !self.advance(f64::INFINITY)? {}
        Ok(())
    }

    /// The matrix's entries (column-major) once complete, e.g. to hand them to a page.
    pub fn values(&self) -> Option<&[f64]> {
        self.is_done().then(|| self.k.as_slice())
    }

    /// Take the whole matrix from `len` values (column-major) that `fill` writes into the
    /// job's own storage, allocated and budget-checked when the job was made, so adopting
    /// allocates nothing: `len` must be `m·n`. The values must be the ones this job computes:
    /// they are checked to be finite and one block of columns (in the middle) is recomputed
    /// here and compared bit for bit. On any failure the job starts over from column 0 (the
    /// caller continues in slices) and the error says why.
    pub fn adopt(&mut self, len: usize, fill: impl FnOnce(&mut [f64])) -> Result<()> {
        let (m, n) = (self.a.nrows(), self.b.nrows());
        if len != m.saturating_mul(n) {
            return Err(KpError::Parameter {
                name: "kernel values",
                reason: format!("{len} values handed over for a {m} × {n} matrix"),
            });
        }
        fill(self.k.as_mut_slice());
        let width = (JOB_BLOCK_ENTRIES / m.max(1)).clamp(1, n.max(1));
        let s = (n - width.min(n)) / 2;
        let checked = if self.k.iter().any(|v| !v.is_finite()) {
            Err(KpError::NonFinite("a kernel value handed over is not finite".into()))
        } else if n == 0 {
            Ok(())
        } else {
            let w = width.min(n - s);
            let block = self.kernel.cross(&self.a, &self.b.rows(s, w).into_owned())?;
            let same = block
                .as_slice()
                .iter()
                .zip(self.k.columns(s, w).iter())
                .all(|(u, v)| u.to_bits() == v.to_bits());
            if same {
                Ok(())
            } else {
                Err(KpError::Parameter {
                    name: "kernel values",
                    reason: format!(
                        "the values handed over differ from this build's in columns {s}..{}",
                        s + w
                    ),
                })
            }
        };
        self.done = if checked.is_ok() { n } else { 0 };
        checked
    }

    /// Whether every column has been computed.
    pub fn is_done(&self) -> bool {
        self.done == self.b.nrows()
    }

    /// The fraction of columns computed, in [0, 1].
    pub fn fraction(&self) -> f64 {
        if self.b.nrows() == 0 {
            1.0
        } else {
            self.done as f64 / self.b.nrows() as f64
        }
    }

    /// Run to the end and return the matrix.
    pub fn finish(self) -> Result<DMatrix<f64>> {
        Ok(self.into_parts()?.1)
    }

    /// Run to the end and return the rows of `a` with the matrix.
    pub fn into_parts(mut self) -> Result<(DMatrix<f64>, DMatrix<f64>)> {
        while !self.advance(f64::INFINITY)? {}
        Ok((self.a, self.k))
    }
}

impl Task for CrossJob {
    type Error = KpError;
    /// One block of columns (about [`JOB_BLOCK_ENTRIES`] entries); done once every column is.
    fn unit(&mut self) -> Result<Progress> {
        let (m, n) = (self.a.nrows(), self.b.nrows());
        if self.done >= n {
            return Ok(Progress::Done);
        }
        let width = (JOB_BLOCK_ENTRIES / m.max(1)).clamp(1, n.max(1));
        let w = width.min(n - self.done);
        let rows = self.b.rows(self.done, w).into_owned();
        let block = self.kernel.cross(&self.a, &rows)?;
        self.k.columns_mut(self.done, w).copy_from(&block);
        self.done += w;
        Ok(Progress::More)
    }
}
