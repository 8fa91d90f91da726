// Last-resort overlay (issue #13): a panic in the wasm module kills it, and every button
// after that does nothing. Instead of a silent dead page, say so, show the spec from the
// link that led here (as text, never as HTML) and offer a reload. Loaded first by every page
// with one line: <script type="module" src="crash.js"></script>. No dependency, no inline code.

let shown = false;

function specFromHash() {
  const raw = location.hash.slice(1);
  if (!raw) return '(no spec in the link: the page\'s default)';
  let text = raw;
  try { text = decodeURIComponent(raw); } catch { /* keep the raw text */ }
  return text.length > 4000 ? `${text.slice(0, 4000)}… (${text.length} characters)` : text;
}

function show(reason) {
  if (shown || !document.body) return;
  shown = true;
  const box = document.createElement('div');
  box.id = 'crash';
  box.setAttribute('role', 'alert');
  box.style.cssText = 'position:fixed;left:0;right:0;bottom:0;z-index:1000;padding:12px 16px;'
    + 'background:#fff3f3;border-top:3px solid #b00020;color:#222;font:14px/1.4 system-ui,sans-serif;'
    + 'max-height:45vh;overflow:auto;box-shadow:0 -2px 8px rgba(0,0,0,.2)';
  const title = document.createElement('strong');
  title.textContent = 'Something went wrong — reload the page. ';
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = 'Reload';
  button.addEventListener('click', () => location.reload());
  const why = document.createElement('p');
  why.textContent = `The page stopped working: ${String(reason).slice(0, 500)}`;
  const label = document.createElement('p');
  label.textContent = 'The experiment that caused it (please report it with this text):';
  const spec = document.createElement('pre');
  spec.id = 'crash-spec';
  spec.style.cssText = 'white-space:pre-wrap;word-break:break-all;margin:0';
  spec.textContent = specFromHash();
  box.append(title, button, why, label, spec);
  document.body.append(box);
  document.body.dataset.crashed = '1';
}

// console_error_panic_hook reports a Rust panic through console.error ("panicked at …").
const consoleError = console.error.bind(console);
console.error = (...args) => {
  consoleError(...args);
  const first = args.map(String).join(' ');
  if (first.includes('panicked at')) show(first.split('\n')[0]);
};

window.addEventListener('error', (e) => show(e.error?.message || e.message || 'an uncaught error'));
window.addEventListener('unhandledrejection', (e) => show(e.reason?.message || e.reason || 'an unhandled promise rejection'));
