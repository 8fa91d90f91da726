// Module Web Worker of the page's lesson editor (www/lesson-editor.js): the page's catalogue
// (the elements a step may name, the measures a claim may read) and a claim evaluated by the
// evaluator `kplay lesson check` uses (src/lesson/editor.rs), off the page's main thread: the
// evaluation runs the steps the claim reads. It loads the full module (every paper's engine, as
// the timing pages do), so no paper page's own wasm grows; a lecturer's first claim waits for it.
// Receives { id, op: 'catalogue' | 'claim' | 'check', args }; posts { id, out } or { id, error }.
import init, { lessonCatalogue, evaluateClaim, checkLessonClaims } from './pkg/kernel_playground.js';

let ready = null;
const OPS = { catalogue: lessonCatalogue, claim: evaluateClaim, check: checkLessonClaims };

self.onmessage = async (ev) => {
  const { id, op, args } = ev.data ?? {};
  try {
    ready ??= init({ module_or_path: new URL('./pkg/kernel_playground_bg.wasm', import.meta.url) });
    await ready;
    const f = OPS[op];
    if (!f) throw new Error(`unknown request ${String(op)}`);
    self.postMessage({ id, out: JSON.parse(f(...args)) });
  } catch (e) {
    self.postMessage({ id, error: String(e?.message ?? e) });
  }
};
