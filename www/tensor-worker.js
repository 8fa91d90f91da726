// Module Web Worker: builds one Gram tensor (paper A, Section 2.3) off the page's main thread.
// Receives { spec, maxBytes? }; posts { type: 'progress', done, total, fraction, build_ms } about
// every 75 ms, then { type: 'done', values (Float64Array, transferred), build_ms, key }, or
// { type: 'error', message, stage } (stage 'start': the spec or the budget refused the build;
// 'build': it failed on the way, e.g. a non-finite kernel value). The page cancels by
// terminating the worker. No mathematics here.
import init, { TensorBuilder } from './pkg/kernel_playground.js';

const SLICE_MS = 75;

self.onmessage = async (ev) => {
  let b = null;
  let stage = 'init';
  try {
    const { spec, maxBytes } = ev.data ?? {};
    await init({ module_or_path: new URL('./pkg/kernel_playground_lp_bg.wasm', import.meta.url) });
    stage = 'start';
    b = new TensorBuilder(typeof spec === 'string' ? spec : JSON.stringify(spec), maxBytes ?? undefined);
    stage = 'build';
    for (;;) {
      const st = b.advance(SLICE_MS);
      if (st.finished) {
        const values = b.takeValues();
        self.postMessage({ type: 'done', values, build_ms: st.build_ms, key: b.key }, [values.buffer]);
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
