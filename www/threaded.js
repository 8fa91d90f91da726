// The engine of a Web Worker, with threads where the browser allows them (issue 21 §3).
//
// When the page is cross-origin isolated (COOP/COEP headers from `make serve`, or from the
// service worker, www/sw.js), `loadEngine` loads the threaded build (pkg-threads/,
// `make build-threads`: shared memory, wasm-bindgen-rayon's pool of workers) and sets the core's
// thread count to the machine's cores (at most 8). Otherwise, or if anything in that path fails
// (no SharedArrayBuffer, one core, a host whose CSP forbids the pool's workers, a pool that does
// not start within POOL_TIMEOUT_MS), it loads the worker's own one-thread page group. Either way
// the caller gets the same exports; the results are the same bits, except paper B's
// eigendecomposition, which agrees to rounding (src/par.rs, tests/threads.rs). No mathematics.
// Only for Web Workers: the pool's threads block, which a page's main thread may not.
// The worker imports its one-thread exports itself (tools/wasm-split.mjs reads those imports to
// link the worker's page group) and hands them over with their init.

const POOL_TIMEOUT_MS = 15000;

async function loadThreaded() {
  const cores = Math.min(8, navigator.hardwareConcurrency || 1);
  if (self.crossOriginIsolated !== true || typeof SharedArrayBuffer !== 'function' || cores < 2) return null;
  try {
    const m = await import('./pkg-threads/kernel_playground.js');
    await m.default({ module_or_path: new URL('./pkg-threads/kernel_playground_bg.wasm', import.meta.url) });
    let timer;
    const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('the thread pool did not start')), POOL_TIMEOUT_MS); });
    await Promise.race([m.initThreadPool(cores), timeout]).finally(() => clearTimeout(timer));
    return { E: m, threads: m.setThreads(cores) };
  } catch (e) {
    console.warn(`threaded engine unavailable, using one thread: ${e?.message ?? e}`);
    return null;
  }
}

// `{ E, threads }`: E the threaded build's exports, or else `plain` after `initPlain()` (the
// worker's one-thread group); threads the count in use. Also published as `self.kplayThreads`
// for the e2e tests.
export async function loadEngine(initPlain, plain) {
  let r = await loadThreaded();
  if (!r) {
    await initPlain();
    r = { E: plain, threads: 1 };
  }
  self.kplayThreads = r.threads;
  return r;
}
