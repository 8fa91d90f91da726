// Module Web Worker: builds one Gram tensor (paper A, Section 2.3) off the page's main thread.
// Receives { spec, maxBytes? }; posts { type: 'progress', done, total, fraction, build_ms } about
// every 75 ms, then { type: 'done', values (Float64Array, transferred), build_ms, key, threads }, or
// { type: 'error', message, stage } (stage 'start': the spec or the budget refused the build;
// 'build': it failed on the way, e.g. a non-finite kernel value). The page cancels by
// terminating the worker. No mathematics here. Threads where the page allows them
// (www/threaded.js; the values are the same bits with any number of threads).
import init, { TensorBuilder } from './pkg/kernel_playground.js';
import { loadEngine } from './threaded.js';

let ready = null;

const SLICE_MS = 75;

self.onmessage = async (ev) => {
  let b = null;
  let stage = 'init';
  try {
    const { spec, maxBytes } = ev.data ?? {};
    ready ??= loadEngine(() => init({ module_or_path: new URL('./pkg/kernel_playground_lp_bg.wasm', import.meta.url) }), { TensorBuilder });
    const { E, threads } = await ready;
    stage = 'start';
    b = new E.TensorBuilder(typeof spec === 'string' ? spec : JSON.stringify(spec), maxBytes ?? undefined);
    stage = 'build';
    for (;;) {
      const st = b.advance(SLICE_MS);
      if (st.finished) {
        const values = b.takeValues();
        self.postMessage({ type: 'done', values, build_ms: st.build_ms, key: b.key, threads }, [values.buffer]);
        break;
      }
      self.postMessage({ type: 'progress', done: st.done, total: st.total, fraction: st.fraction, build_ms: st.build_ms });
    }
  } catch (e) {
    self.postMessage({ type: 'error', message: e?.message ?? String(e), stage });
  } finally {
    b?.free();
  }
};
