// The O(n²) preparation of papers C and D off the main thread, on every core (issue 21 §3): a
// module Worker started by www/prep-client.js when the page is cross-origin isolated on a
// machine with 2 cores or more. The threaded build (www/threaded.js) builds the page's problem
// from the same spec (deterministic generator, same bits) and computes on every core:
// - paper C (`dinuzzoPrepare`): the Gram matrix and the decision map's kernel values, then ‖K‖₂
//   when the solver needs it;
// - paper D (`perceptronPrepare`): the kernel matrix behind G, then ρ_K's min-norm search.
// The page checks and adopts them (`adoptPrepared` of DinuzzoPlayground / PerceptronPlayground).
// No mathematics here.
//
// In:  {id, type: 'prepare', paper: 'dinuzzo'|'perceptron', spec}
// Out: {id, type: 'started', threads}, then
//      {id, type: 'prepared', threads, n, digest, ms, gram: Float64Array, …}: paper C's with
//      norm (number|null) and map (Float64Array|null), paper D's with marginP (Float64Array) and
//      marginIterations (buffers transferred); or {id, type: 'error', message}.
// No one-thread fallback here (and so no page group of its own, tools/wasm-split.mjs): without
// threads the page prepares the problem itself, in slices, as it always did.
import { loadEngine } from './threaded.js';

const ready = loadEngine(() => Promise.reject(new Error('no threaded build here: the page prepares in slices')), {});
ready.catch(() => {}); // reported to the page with its request

self.onmessage = async (ev) => {
  const { id, type, paper, spec } = ev.data ?? {};
  try {
    const { E, threads } = await ready;
    if (type !== 'prepare') throw new Error(`unknown request ${type}`);
    const prepare = { dinuzzo: E.dinuzzoPrepare, perceptron: E.perceptronPrepare }[paper];
    if (!prepare) throw new Error(`no preparation for paper ${paper}`);
    postMessage({ id, type: 'started', threads });
    const r = prepare(typeof spec === 'string' ? spec : JSON.stringify(spec));
    const transfer = [r.gram.buffer];
    if (r.map) transfer.push(r.map.buffer);
    if (r.marginP) transfer.push(r.marginP.buffer);
    postMessage({ id, type: 'prepared', threads, ...r }, transfer);
  } catch (e) {
    postMessage({ id, type: 'error', message: String(e?.message ?? e) });
  }
};
