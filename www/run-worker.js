// Module Web Worker: runs a paper preset's jobs (data, Gram tensor, solve) off the page's main
// thread, one job per message, reusing the previous job's data and tensor when they fit.
// Receives { spec, index, wantTensor? }; posts { type: 'progress', index, ...state } about every
// 100 ms (state: phase 'data' | 'build' | 'solve', iter, rel_gap, build_fraction, data_ms,
// build_ms, solve_ms, status, …), then { type: 'row', index, threads, ...final state } (with values
// (Float64Array, transferred) and key when wantTensor and the job built a tensor), or
// { type: 'error', index, message, stage }. The page cancels by terminating the worker.
// No mathematics here. Threads where the page allows them (www/threaded.js: paper A's Newton
// Hessian on every core of an isolated page, the same bits as one thread).
import init, { RunWorker } from './pkg/kernel_playground.js';
import { loadEngine } from './threaded.js';

const SLICE_MS = 100;
let rw = null;
let ready = null;

self.onmessage = async (ev) => {
  const { spec, index, wantTensor } = ev.data ?? {};
  let stage = 'init';
  try {
    ready ??= loadEngine(() => init({ module_or_path: new URL('./pkg/kernel_playground_lp_bg.wasm', import.meta.url) }), { RunWorker });
    const { E, threads } = await ready;
    rw ??= new E.RunWorker();
    stage = 'start';
    rw.start(typeof spec === 'string' ? spec : JSON.stringify(spec));
    self.postMessage({ type: 'progress', index, ...rw.progress() });
    stage = 'run';
    for (;;) {
      const st = rw.advance(SLICE_MS);
      if (st.phase === 'done') {
        const msg = { type: 'row', index, threads, ...st };
        if (wantTensor && st.tensor_path) {
          msg.values = rw.tensorValues();
          msg.key = rw.tensorKey();
          self.postMessage(msg, [msg.values.buffer]);
        } else self.postMessage(msg);
        break;
      }
      self.postMessage({ type: 'progress', index, ...st });
    }
  } catch (e) {
    self.postMessage({ type: 'error', index, message: e?.message ?? String(e), stage });
  }
};
