// Paper B's heavy steps off the main thread (a module Worker started by mrlsr.js): the Gram
// matrix's symmetric eigendecomposition (O(n³)), the Table-1 model selection (one
// eigendecomposition per fold) and the Fig.-1 equivalence experiment. The same wasm module as
// the page builds the data from the same spec (deterministic generator, same bits); the page
// checks the eigendecomposition it receives against its own Gram matrix. No mathematics here.
//
// In:  {id, type: 'eigen', spec}                      -> {id, type: 'eigen', n, digest, eigen_ms, threads, values, vectors}
//      {id, type: 'selection', spec}                  -> {id, type: 'progress', done, total, grid?} …, {id, type: 'selection', result}
//      {id, type: 'equivalence', spec}                -> {id, type: 'equivalence', report}
// (`spec` is the page's paper-B spec with its `selection` or `equivalence` section: the run
// `kplay run` makes of the same spec.)
// Any failure -> {id, type: 'error', message}. The page tags requests with `id` and ignores
// answers to requests it no longer wants (and terminates the worker to cancel).
//
// Threads (issue 21 §3): www/threaded.js loads the threaded build when the page is cross-origin
// isolated (the eigendecomposition then runs on every core, at most 8, and agrees with one
// thread to rounding: src/par.rs, tests/threads.rs), the one-thread group otherwise.
import init, { mrlsrEigen, mrlsrEquivalence, MrlsrSelection } from './pkg/kernel_playground.js';
import { loadEngine } from './threaded.js';

let E = null;
let threads = 1;
const ready = loadEngine(() => init({ module_or_path: new URL('./pkg/kernel_playground_mrlsr_bg.wasm', import.meta.url) }),
  { mrlsrEigen, mrlsrEquivalence, MrlsrSelection }).then((r) => ({ E, threads } = r));

function fail(id, e) {
  postMessage({ id, type: 'error', message: String(e?.message ?? e) });
}

async function eigen(id, spec) {
  const r = E.mrlsrEigen(JSON.stringify(spec));
  postMessage({ id, type: 'eigen', n: r.n, digest: r.digest, eigen_ms: r.eigen_ms, threads, values: r.values, vectors: r.vectors },
    [r.values.buffer, r.vectors.buffer]);
}

function selection(id, spec) {
  const sel = new E.MrlsrSelection(JSON.stringify(spec));
  try {
    let fold = -1;
    for (;;) {
      // Budget 0: exactly one unit of work (one fold's eigendecomposition or one m row).
      const st = sel.runFor(0);
      const msg = { id, type: 'progress', done: st.done, total: st.total };
      // A new fold finished: post the heatmap so far (once per fold, not per row).
      const foldsDone = Math.floor(st.done / (st.total / Math.max(1, spec.selection?.folds ?? 10)));
      if (foldsDone !== fold || st.complete) {
        fold = foldsDone;
        msg.grid = sel.partialGrid();
      }
      postMessage(msg);
      if (st.complete) {
        postMessage({ id, type: 'selection', result: st.result });
        return;
      }
    }
  } finally {
    sel.free();
  }
}

function equivalence(id, spec) {
  postMessage({ id, type: 'progress', done: 0, total: 1 });
  const report = E.mrlsrEquivalence(JSON.stringify(spec));
  postMessage({ id, type: 'equivalence', report });
}

self.onmessage = async (ev) => {
  const { id, type, spec } = ev.data ?? {};
  try {
    await ready;
    if (type === 'eigen') await eigen(id, spec);
    else if (type === 'selection') selection(id, spec);
    else if (type === 'equivalence') equivalence(id, spec);
    else fail(id, `unknown request ${type}`);
  } catch (e) {
    fail(id, e);
  }
};
