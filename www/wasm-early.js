// The front page's engine, compiled while the page is still being parsed: the module scripts
// (front.js) run only after parsing, and compiling the wasm then cost the first moving plot
// ~50–150 ms. A classic async script in the head (CSP: no inline script) starts the streaming
// compile; front.js awaits `self.kplayWasm` and falls back to fetching the wasm itself.
'use strict';
if (typeof WebAssembly === 'object' && typeof WebAssembly.compileStreaming === 'function' && /^https?:$/.test(location.protocol)) {
  self.kplayWasm = WebAssembly.compileStreaming(fetch(new URL('pkg/kernel_playground_front_bg.wasm', document.baseURI)));
  self.kplayWasm.catch(() => {}); // front.js reports a failure by loading the wasm itself
}
