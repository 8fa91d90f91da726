// Paper C's O(n²) preparation off the main thread, on every core (issue 21 §3): a module Worker
// started by dinuzzo.js when the page is cross-origin isolated on a machine with 2 cores or
// more. The threaded build (www/threaded.js) builds the page's problem from the same spec
// (deterministic generator, same bits) and computes the Gram matrix and the decision map's
// kernel values on every core, then ‖K‖₂ when the solver needs it (`dinuzzoPrepare`); the page
// checks and adopts them (`DinuzzoPlayground.adoptPrepared`). No mathematics here.
//
// In:  {id, type: 'prepare', spec}
// Out: {id, type: 'started', threads}, then
//      {id, type: 'prepared', n, digest, ms, threads, gram: Float64Array, norm, map: Float64Array|null}
//      (buffers transferred), or {id, type: 'error', message}.
// No one-thread fallback here (and so no page group of its own, tools/wasm-split.mjs): without
// threads the page prepares the problem itself, in slices, as it always did.
import { loadEngine } from './threaded.js';

const ready = loadEngine(() => Promise.reject(new Error('no threaded build here: the page prepares in slices')), {});
ready.catch(() => {}); // reported to the page with its request

self.onmessage = async (ev) => {
  const { id, type, spec } = ev.data ?? {};
  try {
    const { E, threads } = await ready;
    if (type !== 'prepare') throw new Error(`unknown request ${type}`);
    postMessage({ id, type: 'started', threads });
    const r = E.dinuzzoPrepare(typeof spec === 'string' ? spec : JSON.stringify(spec));
    const transfer = [r.gram.buffer];
    if (r.map) transfer.push(r.map.buffer);
    postMessage({ id, type: 'prepared', n: r.n, digest: r.digest, ms: r.ms, threads, gram: r.gram, norm: r.norm, map: r.map }, transfer);
  } catch (e) {
    postMessage({ id, type: 'error', message: String(e?.message ?? e) });
  }
};
