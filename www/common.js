// Helpers shared by the pages: number formatting, error box, high-DPI canvas sizing, URL-hash state.

import { specText, writeSpec } from './url.js';
import { onSpecHash } from './state.js';

export const $ = (id) => document.getElementById(id);

/** Short, readable number: fixed for moderate magnitudes, exponent otherwise. */
export function fmt(v, digits = 4) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return String(v);
  if (v === 0) return '0';
  const a = Math.abs(v);
  return a >= 1e-3 && a < 1e5 ? v.toPrecision(digits + 2) : v.toExponential(digits);
}

/** A number as a reader writes it — the JS twin of the plots' formatter (src/plots/text.rs
 *  `num`; both are held to tests/num-cases.json): plain with up to 5 significant digits and
 *  thin-space groups of thousands (0.1, 4 861.4, −0.0035) from 10⁻³ to 10⁶, otherwise
 *  `m × 10ᵏ` (5.5 × 10⁻⁴). Zero is "0"; NaN and ±∞ are written as such. */
export function num(v) {
  if (typeof v !== 'number') return String(v);
  if (v === 0) return '0';
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞';
  const a = Math.abs(v);
  const sign = v < 0 ? '−' : '';
  const trim = (t) => (t.includes('.') ? t.replace(/0+$/, '').replace(/\.$/, '') : t);
  if (a >= 1e-3 && a < 1e6) {
    const decimals = Math.min(8, Math.max(0, 4 - Math.floor(Math.log10(a))));
    const [int, frac] = trim(a.toFixed(decimals)).split('.');
    const grouped = int.length > 3 ? int.replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009') : int;
    return `${sign}${grouped}${frac !== undefined ? `.${frac}` : ''}`;
  }
  let e = Math.floor(Math.log10(a));
  let m = a / 10 ** e;
  if (m.toFixed(2).startsWith('10')) {
    m /= 10;
    e += 1;
  }
  const mt = trim(m.toFixed(2));
  const exp = String(e).replace(/[-0-9]/g, (c) => '⁻⁰¹²³⁴⁵⁶⁷⁸⁹'['-0123456789'.indexOf(c)]);
  return mt === '1' ? `${sign}10${exp}` : `${sign}${mt} × 10${exp}`;
}

/** How many characters of a user's string a message echoes (the core's error::ECHO_CHARS). */
export const ECHO_CHARS = 40;

/** A user's string as a message echoes it: whole up to ECHO_CHARS characters, else its first
 *  ECHO_CHARS and "… (N characters)", as the core's error::clip writes it (issue 36). */
export function clip(s) {
  const chars = [...String(s)];
  return chars.length <= ECHO_CHARS ? chars.join('') : `${chars.slice(0, ECHO_CHARS).join('')}… (${chars.length} characters)`;
}

/** Show a message in the page's #error box (role=alert), scrolled into view if it is not: on
 *  a 1280 × 720 projector page B's box sits below the fold, under the controls that refused. */
export function showError(msg) {
  const box = $('error');
  box.textContent = msg;
  box.hidden = false;
  const r = box.getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight) box.scrollIntoView({ block: 'nearest' });
}

/** Hide the #error box. */
export function clearError() {
  const box = $('error');
  box.hidden = true;
  box.textContent = '';
}

/** How much larger the plots' text and strokes are in classroom mode: the plots' 12 px text
 *  becomes 20 px, legible on a 1280 × 720 projector. */
export const CLASSROOM_PLOT_ZOOM = 5 / 3;

/** The scale the Rust plots draw at: devicePixelRatio (a high-DPI canvas stays sharp) times the
 *  classroom zoom. Fonts, strokes, margins and marks are multiplied by it; pixel positions of a
 *  click are not (they use devicePixelRatio alone: the backing store is CSS size × dpr). */
export function plotScale() {
  const zoom = document.body.classList.contains('classroom') ? CLASSROOM_PLOT_ZOOM : 1;
  return (window.devicePixelRatio || 1) * zoom;
}

/**
 * Size a canvas's backing store to its CSS size × devicePixelRatio and return the scale the
 * Rust plots use for fonts and strokes (`plotScale()`: the ratio, times the classroom zoom).
 */
export function sizeCanvas(c) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(c.clientWidth * dpr));
  const h = Math.max(1, Math.round(c.clientHeight * dpr));
  if (c.width !== w || c.height !== h) {
    c.width = w;
    c.height = h;
  }
  return plotScale();
}

/** Whether a key press in `el` is typing (a text or number field, a text area, an editable
 *  element), where the pages' shortcuts stand aside. Sliders, check boxes, menus and buttons are
 *  not: → goes to the next step even after the speed slider was touched. */
export function isTypingField(el) {
  if (!el || !el.tagName) return false;
  if (el.isContentEditable || el.tagName === 'TEXTAREA') return true;
  if (el.tagName !== 'INPUT') return false;
  return !['range', 'checkbox', 'radio', 'button', 'submit', 'reset', 'color', 'file', 'image'].includes(el.type);
}

/** Whether space in `el` is that control's own action (press a button, tick a box, open a
 *  menu), which the shortcuts leave to it. */
export function spaceIsOwn(el) {
  if (!el || !el.tagName) return false;
  if (['BUTTON', 'A', 'SUMMARY', 'SELECT'].includes(el.tagName)) return true;
  return el.tagName === 'INPUT' && ['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'color', 'image'].includes(el.type);
}

/** The status word of a run that may be paused: the solver says "running" until it ends, the
 *  page says "paused" (or "ready" at iteration 0) while the player is not playing. */
export function runStatus(status, playing, iteration) {
  const w = String(status).replaceAll('_', ' ');
  if (w !== 'running' || playing) return w;
  return iteration > 0 ? 'paused' : 'ready (paused)';
}

/** The spec in the URL hash (`#spec=<URI-encoded JSON>`), or null; throws on malformed JSON. */
export function specFromHash() {
  const text = specText();
  return text === null ? null : JSON.parse(text);
}

/**
 * The page's starting state: `build(spec)` on the URL hash's spec when the link is readable and
 * valid, else on `fallback` with a message in #error saying why. Returns `{ state, spec }`.
 */
export function startFromHash(build, fallback) {
  let fromHash = null;
  try {
    fromHash = specFromHash();
  } catch (e) {
    showError(`The link's experiment could not be read (${e.message}); showing the default experiment.`);
  }
  if (fromHash) {
    try {
      return { state: build(fromHash), spec: fromHash };
    } catch (e) {
      showError(`The link's experiment is not valid: ${e.message ?? e}. Showing the default experiment.`);
    }
  }
  return { state: build(fallback), spec: fallback };
}

/** Set while a guided lesson owns the URL hash (`#lesson=…&step=…`, www/lesson.js). */
export const lessonMode = { active: false };

/** Put a spec (JSON text) into the URL hash without adding a history entry (not during a
 *  lesson: then the hash holds the lesson's step, whose spec is the lesson's). */
export function writeHash(json) {
  if (lessonMode.active) return;
  let text = json;
  try {
    const s = JSON.parse(json);
    if (s && s.data && s.data.kind === 'csv' && typeof s.data.text === 'string') {
      // A link cannot carry the file (it can be megabytes): the page that opens it says so.
      delete s.data.text;
      text = JSON.stringify(s);
    }
  } catch {
    // not JSON: written as it is
  }
  writeSpec(text);
}

/** Mark a (re)start of a run on <body data-run-id>, so a restart is observable. */
export function bumpRunId() {
  document.body.dataset.runId = String(Number(document.body.dataset.runId || 0) + 1);
  noteStep(1);
}

/**
 * The rule for Step on every page: after a run has ended it advances nothing, and the note
 * beside the buttons (#step-note, aria-live) says so; any step that did advance clears the note.
 * `advanced` is the number of iterations the Step call made, `status` the run's status word.
 */
export function noteStep(advanced, status) {
  const note = $('step-note');
  if (!note) return;
  if (advanced > 0) {
    note.hidden = true;
    note.textContent = '';
    return;
  }
  note.textContent = `The run has ended (${String(status).replace(/_/g, ' ')}): Step does not go further. Reset starts it again.`;
  note.hidden = false;
}

/**
 * Publish the run's exact numbers on <body data-run> as JSON (iterations, the final objective
 * and the data digest), so a test — or a curious user in the console — can compare the page with
 * `kplay run` on the page's link bit for bit: JSON numbers round-trip doubles exactly.
 */
export function exposeRun(iterations, objective, digest) {
  document.body.dataset.run = JSON.stringify({ iterations, objective, digest });
}

let catalogue = null;

/**
 * The core's loss catalogue (src/losses/ `capabilities()`: kind, label, classification,
 * square, smooth_dual, parameter), read once from the wasm module after `init()`. Every page's
 * "does this algorithm take this loss" rule reads it instead of a list of names.
 */
export function losses(lossCatalogue) {
  if (!catalogue) catalogue = JSON.parse(lossCatalogue());
  return catalogue;
}

/** The capabilities of one loss kind (from a catalogue already read by `losses`). */
export function lossCaps(kind) {
  return (catalogue ?? []).find((c) => c.kind === kind) ?? { kind, label: kind, classification: false, square: false, smooth_dual: false, parameters: [] };
}

/**
 * Build, after `anchor`, one labelled number field per loss parameter the catalogue declares
 * (id = the parameter's spec name, e.g. `eps`; min and default from the catalogue; the
 * parameter's doc as tooltip), each labelled with `data-loss-param` = its loss kinds. A new
 * loss with a parameter needs no page edit. Call once after `losses()`.
 */
export function buildLossParamFields(anchor) {
  const made = new Map();
  for (const c of catalogue ?? []) {
    for (const p of c.parameters ?? []) {
      if (made.has(p.name)) { made.get(p.name).dataset.lossParam += ` ${c.kind}`; continue; }
      if (document.getElementById(p.name)) throw new Error(`loss parameter ${p.name}: the page already has a field with this id`);
      const label = document.createElement('label');
      label.dataset.lossParam = c.kind;
      label.title = p.doc;
      label.hidden = true;
      const input = document.createElement('input');
      Object.assign(input, { id: p.name, type: 'number', step: 'any', value: String(p.default) });
      input.min = String(p.min);
      label.append(`${p.symbol} `, input);
      made.set(p.name, label);
    }
  }
  anchor.after(...made.values());
}

/** Show only the parameter fields of loss `kind` (built by `buildLossParamFields`). */
export function showLossParams(kind) {
  document.querySelectorAll('[data-loss-param]').forEach((l) => { l.hidden = !l.dataset.lossParam.split(' ').includes(kind); });
}

/** Put a loss spec's parameters into their fields. */
export function lossToFields(loss) {
  for (const p of lossCaps(loss.kind).parameters ?? []) if (loss[p.name] !== undefined) $(p.name).value = loss[p.name];
}

/**
 * Fill a loss <select> with the catalogue's losses (keeping the current choice); `name(c)` gives
 * an option's text. Built with text nodes, never innerHTML.
 */
export function fillLossSelect(select, name) {
  const keep = select.value;
  select.replaceChildren(...(catalogue ?? []).map((c) => {
    const o = document.createElement('option');
    o.value = c.kind;
    o.textContent = name(c);
    return o;
  }));
  if (keep && [...select.options].some((o) => o.value === keep)) select.value = keep;
}

let tensorCat = null;

/**
 * Paper A's tensor-kernel catalogue (src/tensor/kernel/ `TensorKernel::info()`: kind, label,
 * formula, parameters with ranges and defaults, finite_features), read once after `init()`.
 * Page A's kernel select and its parameter fields are built from it, as the loss select is
 * from the loss catalogue: a new tensor kernel needs no page edit.
 */
export function tensorKernels(tensorKernelCatalogue) {
  if (!tensorCat) tensorCat = JSON.parse(tensorKernelCatalogue());
  return tensorCat;
}

/** A tensor kernel's option text: its label, and "tensor only" when it has no finite feature map. */
export function tensorKernelOption(c) {
  return c.finite_features ? c.label : `${c.label} (tensor only)`;
}

/** The catalogue entry of tensor kernel `kind` (from a catalogue already read by `tensorKernels`). */
function tensorKernelEntry(kind) {
  return (tensorCat ?? []).find((c) => c.kind === kind) ?? { kind, label: kind, parameters: [], finite_features: false };
}

/**
 * Fill page A's kernel <select> with the tensor-kernel catalogue (option text from
 * `tensorKernelOption`, the formula as tooltip), keeping the current choice; and build after
 * `anchor` one number field per parameter (id = the parameter's spec name, e.g. `degree`; min,
 * step and default from the catalogue), each labelled with `data-tensor-param` = its kinds.
 */
export function buildTensorKernelControls(select, anchor) {
  const keep = select.value;
  select.replaceChildren(...(tensorCat ?? []).map((c) => {
    const o = document.createElement('option');
    o.value = c.kind;
    o.textContent = tensorKernelOption(c);
    o.title = `K = ${c.formula}, s = sum(x′₁ ⊙ ⋯ ⊙ x′_q)`;
    return o;
  }));
  if (keep && [...select.options].some((o) => o.value === keep)) select.value = keep;
  const made = new Map();
  for (const c of tensorCat ?? []) {
    for (const p of c.parameters ?? []) {
      if (made.has(p.name)) { made.get(p.name).dataset.tensorParam += ` ${c.kind}`; continue; }
      if (document.getElementById(p.name)) throw new Error(`tensor-kernel parameter ${p.name}: the page already has a field with this id`);
      const label = document.createElement('label');
      label.dataset.tensorParam = c.kind;
      label.title = p.doc;
      label.hidden = true;
      const input = document.createElement('input');
      Object.assign(input, { id: p.name, type: 'number', step: p.integer ? '1' : 'any', value: String(p.default) });
      input.min = String(p.min);
      label.append(`${p.symbol} `, input);
      made.set(p.name, label);
    }
  }
  anchor.after(...made.values());
}

/** Show only the parameter fields of tensor kernel `kind`. */
export function showTensorKernelParams(kind) {
  document.querySelectorAll('[data-tensor-param]').forEach((l) => { l.hidden = !l.dataset.tensorParam.split(' ').includes(kind); });
}

/** Put a tensor-kernel spec's parameters into their fields. */
export function tensorKernelToFields(kernel) {
  for (const p of tensorKernelEntry(kernel.kind).parameters ?? []) if (kernel[p.name] !== undefined) $(p.name).value = kernel[p.name];
}

let kernelCat = null;

/**
 * The core's pair-kernel catalogue (src/kernels.rs `Kernel::info()`: kind, label, formula,
 * pair, needs_bandwidth, parameters with ranges and defaults, bandwidth), read once after `init()`.
 */
export function kernels(kernelCatalogue, algebra) {
  if (!kernelCat) kernelCat = JSON.parse(kernelCatalogue());
  if (algebra) kernelAlgebra = algebra;
  return kernelCat;
}

/**
 * The core's kernel-expression conversions (src/kernels/expr.rs through the wasm exports
 * `parseKernel` and `kernelText`), passed in by each page: `parse(text)` → the spec's kernel
 * JSON text, `text(json)` → the expression. Sums, products and positive scalings of kernels
 * (ours, not the papers') are chosen as "expression" in the kernel select.
 */
let kernelAlgebra = null;
/** The kernel select's value for a composite kernel typed as an expression. */
export const EXPRESSION = 'expression';
const COMPOSITE = new Set(['sum', 'product', 'scaled']);

/** The catalogue entry of one kernel kind (null when the catalogue does not know it). */
export function kernelInfo(kind) {
  return (kernelCat ?? []).find((k) => k.kind === kind) ?? null;
}

/**
 * Fill a kernel <select> from the catalogue (label and formula; the current choice kept) and
 * build, after `anchor`, a labelled field for every catalogue parameter the page has no field for
 * (id = the parameter's `field`, shared by pages B, C and D), marked `data-kernel-param` = its
 * kernel. A new kernel needs no page edit. The Gaussian's bandwidth field stays the page's own.
 */
export function buildKernelFields(select, anchor) {
  const keep = select.value;
  select.replaceChildren(...(kernelCat ?? []).map((k) => {
    const o = document.createElement('option');
    o.value = k.kind;
    o.textContent = `${k.label} ${k.formula}`;
    return o;
  }));
  if (kernelAlgebra) {
    const o = document.createElement('option');
    o.value = EXPRESSION;
    o.textContent = 'expression k₁ + s·k₂ (ours)';
    select.append(o);
  }
  if (keep && [...select.options].some((o) => o.value === keep)) select.value = keep;
  const made = [];
  if (kernelAlgebra && !document.getElementById('kernel-expr')) {
    const label = document.createElement('label');
    label.dataset.kernelParam = EXPRESSION;
    label.title = 'Kernels added (+), multiplied (· or *) and scaled by a positive number, e.g. gaussian(mu=0.5) + 0.1·linear. Kinds: '
      + (kernelCat ?? []).map((k) => k.kind + (k.parameters.length ? `(${k.parameters.map((p) => `${p.name}=…`).join(', ')})` : k.bandwidth ? '(mu=…)' : '')).join(', ');
    label.hidden = true;
    const input = document.createElement('input');
    Object.assign(input, { id: 'kernel-expr', type: 'text', size: 24, spellcheck: false, value: 'gaussian(mu=0.5) + 0.1·linear' });
    input.setAttribute('aria-label', 'kernel expression');
    label.append('k = ', input);
    made.push(label);
  }
  for (const k of kernelCat ?? []) {
    for (const p of k.parameters) {
      if (document.getElementById(p.field)) continue;
      const label = document.createElement('label');
      label.dataset.kernelParam = k.kind;
      label.title = p.doc;
      label.hidden = true;
      const input = document.createElement('input');
      Object.assign(input, { id: p.field, type: 'number', step: p.integer ? '1' : 'any', value: String(p.default) });
      input.min = String(p.min);
      label.append(`${p.symbol} `, input);
      made.push(label);
    }
  }
  anchor.after(...made);
  return made.map((l) => l.querySelector('input'));
}

/** Show only the built parameter fields of kernel `kind`. */
export function showKernelFields(kind) {
  document.querySelectorAll('[data-kernel-param]').forEach((l) => { l.hidden = l.dataset.kernelParam !== kind; });
}

/**
 * The kernel the expression field holds (a sum, product or scaled kernel), parsed by the core
 * (a message naming the field). A kernel with plain parameters is bound from the page's schema
 * (www/state.js), which reads its numbers.
 */
export function kernelFromExpression() {
  if (!kernelAlgebra) throw new Error('kernel: the kernel expression parser has not loaded');
  try {
    return JSON.parse(kernelAlgebra.parse($('kernel-expr').value));
  } catch (e) {
    throw new Error(String(e.message ?? e));
  }
}

/** Put a kernel spec's plain parameters into their fields. */
export function kernelToFields(k) {
  if (COMPOSITE.has(k?.kind) && kernelAlgebra) {
    // Throws the core's message naming the field for a malformed composite.
    $('kernel-expr').value = kernelAlgebra.text(JSON.stringify(k));
    $('kernel').value = EXPRESSION;
    showKernelFields(EXPRESSION);
    return;
  }
  for (const p of kernelInfo(k.kind)?.parameters ?? []) if (k[p.name] !== undefined) $(p.field).value = String(k[p.name]);
}

/** The largest CSV file a page reads (the core checks the contents; this bounds the read). */
export const CSV_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The text of a CSV file the user picked or dropped, refused before reading when it is larger
 * than CSV_MAX_BYTES (a message naming the file and both sizes).
 */
export async function readCsvFile(file) {
  if (file.size > CSV_MAX_BYTES) {
    throw new Error(`data.text: the file “${clip(file.name)}” has ${(file.size / 1048576).toFixed(1)} MB; this page reads CSV files up to ${CSV_MAX_BYTES / 1048576} MB (kplay reads larger ones)`);
  }
  return file.text();
}

/**
 * Wire a file input (and dropping a file onto `dropTarget`) to `onText(text)`; errors go to the
 * page's #error box.
 */
export function attachCsvInput(input, dropTarget, onText) {
  const take = async (file) => {
    if (!file) return;
    try {
      onText(await readCsvFile(file));
    } catch (e) {
      showError(e.message ?? String(e));
    }
  };
  input.addEventListener('change', () => take(input.files[0]));
  if (dropTarget) {
    dropTarget.addEventListener('dragover', (ev) => ev.preventDefault());
    dropTarget.addEventListener('drop', (ev) => {
      ev.preventDefault();
      take(ev.dataTransfer?.files?.[0]);
    });
  }
}

/**
 * `read()` (a page's controls → spec), or null after showing its message in #error: the first
 * step of every page's apply.
 */
export function readOrShow(read) {
  try {
    return read();
  } catch (e) {
    showError(e.message ?? String(e));
    return null;
  }
}

/**
 * Follow the URL's `#spec=` when it changes by hand or through history (a pasted link, Back):
 * `load(spec)` loads it as the page's experiment. An unreadable link shows its message and the
 * current run stays. (A lesson's `#lesson=` hash is lesson.js's; the page's own writes use
 * replaceState, which fires no hashchange.)
 */
export function followSpecHash(load) {
  onSpecHash(() => {
    let s;
    try {
      s = specFromHash();
    } catch (e) {
      showError(`The link's experiment could not be read (${e.message}); the current experiment stays.`);
      return;
    }
    if (!s) return;
    try {
      load(s);
    } catch (e) {
      showError(`The link's experiment is not valid: ${e.message ?? e}`);
    }
  });
}

/** The Copy link button: the address (which holds the page's spec) to the clipboard. */
export function attachCopyLink(button) {
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(location.href);
    } catch {
      showError('Copying is not allowed here; copy the address bar instead.');
    }
  });
}

/**
 * One race view for every page: fill `table` (its <thead> written in the page) with one row per
 * lane — the lane's colour swatch (`colors[lane.key]`, the curve's colour) and name, then one
 * cell per `columns` entry (a function of the lane, the engine's Standing, returning text).
 * Built with text nodes: nothing from a spec (a link) becomes markup. Hidden when there are no
 * lanes.
 */
export function renderRaceTable(table, lanes, columns, colors = []) {
  table.hidden = lanes.length === 0;
  const body = table.querySelector('tbody');
  body.textContent = '';
  for (const lane of lanes) {
    const tr = document.createElement('tr');
    const name = document.createElement('td');
    const sw = document.createElement('span');
    sw.className = 'swatch';
    if (colors[lane.key]) sw.style.background = colors[lane.key];
    name.append(sw, String(lane.algorithm));
    tr.append(name);
    for (const col of columns) {
      const td = document.createElement('td');
      td.textContent = col(lane);
      tr.append(td);
    }
    body.appendChild(tr);
  }
}

/** Milliseconds as the race tables show them: "< 0.01", "3.27", "412.5", "12840". */
export const fmtMs = (v) => (!(v >= 0.01) ? '< 0.01' : v.toFixed(v < 10 ? 2 : v < 1000 ? 1 : 0));

/** A stop reason as the race tables show it ("max_iterations" → "max iterations"). */
export const statusWord = (s) => String(s).replaceAll('_', ' ');
