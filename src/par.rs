//! Threads (issue 21 §3): one process-wide thread count, used by the few places where a
//! parallel loop pays (paper B's eigendecomposition through faer's rayon backend, the kernel
//! matrices of [`crate::kernels::ResolvedKernel::cross`]).
//!
//! The rule: **results do not depend on the number of threads, or the tolerance is stated and
//! tested.** A kernel matrix is split into blocks of columns, each built by one thread exactly as
//! [`crate::kernels::CrossJob`] builds it: the same bits for every thread count. faer's parallel
//! eigensolver splits its reductions differently with more threads, so its last bits change
//! (measured: max |Δλ| 5.7e-14 at ‖K‖ = 240); `tests/threads.rs` checks the bits of the kernel
//! matrices and that tolerance for the eigendecomposition and for `kplay run` on paper B.
//!
//! Natively rayon is always compiled in (`kplay --threads N` calls [`set_threads`]); in wasm only
//! the `threads` build has it (`+atomics`, std rebuilt, `make build-threads`), where the page's worker
//! starts wasm-bindgen-rayon's pool and then calls `setThreads`. Everywhere else [`threads`] is 1.
//! The default is 1 thread, so a library user and the tests get the sequential code unless they
//! ask.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{KpError, Result};

/// Whether this build can run more than one thread (rayon compiled in).
pub const AVAILABLE: bool = cfg!(any(not(target_arch = "wasm32"), feature = "threads"));

/// Most threads [`set_threads`] accepts.
pub const MAX_THREADS: usize = 256;

static THREADS: AtomicUsize = AtomicUsize::new(1);

/// The number of threads parallel loops use (1 = sequential).
pub fn threads() -> usize {
    THREADS.load(Ordering::Relaxed).max(1)
}

/// Use `n` threads from now on (1 = sequential). Natively the first call with `n > 1` also
/// builds rayon's global pool with `n` threads (later calls may lower the count, not raise it
/// past the pool). In a wasm build without threads any `n > 1` is refused with a message.
pub fn set_threads(n: usize) -> Result<()> {
    if n == 0 || n > MAX_THREADS {
        return Err(KpError::Parameter {
            name: "threads",
            reason: format!("a number of threads between 1 and {MAX_THREADS} (got {n})"),
        });
    }
    if n > 1 && !AVAILABLE {
        return Err(KpError::Parameter {
            name: "threads",
            reason: format!(
                "this build has one thread (the threaded wasm build needs a cross-origin \
                 isolated page); got {n}"
            ),
        });
    }
    #[cfg(any(not(target_arch = "wasm32"), feature = "threads"))]
    {
        // Natively the pool is ours to size; in wasm wasm-bindgen-rayon's initThreadPool built it.
        #[cfg(not(target_arch = "wasm32"))]
        if n > 1 {
            // An error means the global pool already exists (built by an earlier call): keep it.
            let _ = rayon::ThreadPoolBuilder::new().num_threads(n).build_global();
        }
        let n = n.min(rayon::current_num_threads().max(1));
        THREADS.store(n, Ordering::Relaxed);
    }
    #[cfg(not(any(not(target_arch = "wasm32"), feature = "threads")))]
    THREADS.store(1, Ordering::Relaxed);
    Ok(())
}

/// faer's parallelism for the current thread count (`Par::Seq` for one thread).
pub fn faer_par() -> faer::Par {
    #[cfg(any(not(target_arch = "wasm32"), feature = "threads"))]
    if threads() > 1 {
        return faer::Par::rayon(threads());
    }
    faer::Par::Seq
}

/// faer's self-adjoint eigendecomposition of the lower triangle of `a` (eigenvalues ascending,
/// and the eigenvectors when `vectors`), with the parallelism of [`faer_par`]
/// rather than faer's process-wide default (which, with its rayon backend compiled in, is every
/// core). `None` if it did not converge.
pub fn self_adjoint_evd(
    a: faer::MatRef<'_, f64>,
    vectors: bool,
) -> Option<(faer::diag::Diag<f64>, Option<faer::Mat<f64>>)> {
    use faer::dyn_stack::{MemBuffer, MemStack};
    use faer::linalg::evd::{self, ComputeEigenvectors};
    let n = a.nrows();
    let par = faer_par();
    let mut s = faer::diag::Diag::<f64>::zeros(n);
    let mut u = vectors.then(|| faer::Mat::<f64>::zeros(n, n));
    let want = if vectors { ComputeEigenvectors::Yes } else { ComputeEigenvectors::No };
    let mut buf =
        MemBuffer::new(evd::self_adjoint_evd_scratch::<f64>(n, want, par, Default::default()));
    evd::self_adjoint_evd(
        a,
        s.as_mut(),
        u.as_mut().map(|u| u.as_mut()),
        par,
        MemStack::new(&mut buf),
        Default::default(),
    )
    .ok()?;
    Some((s, u))
}

/// `f(c, chunk)` for the consecutive chunks of `data` of `len` elements (the last may be
/// shorter), results in chunk order. With more than one thread the chunks run in parallel, each
/// written by one thread, so the results are those of the sequential loop.
pub fn for_each_chunk<T, R, F>(data: &mut [T], len: usize, f: F) -> Vec<R>
where
    T: Send,
    R: Send,
    F: Fn(usize, &mut [T]) -> R + Sync + Send,
{
    let len = len.max(1);
    #[cfg(any(not(target_arch = "wasm32"), feature = "threads"))]
    if threads() > 1 && data.len() > len {
        use rayon::prelude::*;
        return data.par_chunks_mut(len).enumerate().map(|(c, chunk)| f(c, chunk)).collect();
    }
    data.chunks_mut(len).enumerate().map(|(c, chunk)| f(c, chunk)).collect()
}
