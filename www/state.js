// A page's state and its one binding to the address and the controls (issue 34 §3).
//
// - The address: the only `hashchange` listener of a page. It dispatches a changed `#spec=` to
//   the page (`onSpecHash`) and every change to the lesson player (`onLessonHash`, lesson.js:
//   `#lesson=…&step=…`, `#lesson-data=…`), which decides what a hash means for a lesson.
// - The controls: bound both ways from the core's schema of the paper (wasm `specSchema(paper)`,
//   src/schema.rs): each field's path, control, type, range, step and default. One number
//   reader; the checked rule of www/form.js (write the spec into the controls, read them back,
//   the core compares, refuse naming the field and restore).
// - The state: `form.spec`, the spec of the run the page shows.

import { bindControls } from './form.js';

const handlers = { spec: [], lesson: [] };
let listening = false;

function route() {
  const hash = location.hash.replace(/^#/, '');
  if (hash.startsWith('spec=')) for (const h of handlers.spec) h();
  for (const h of handlers.lesson) h();
}

function listen() {
  if (listening) return;
  listening = true;
  window.addEventListener('hashchange', route);
}

/** Call `handler()` when the address's `#spec=` changes by hand or through history (a pasted
 *  link, Back). The page's own writes use replaceState, which fires no hashchange. */
export function onSpecHash(handler) {
  handlers.spec.push(handler);
  listen();
}

/** Call `handler()` on every change of the address's hash (the lesson player's). */
export function onLessonHash(handler) {
  handlers.lesson.push(handler);
  listen();
}

/** The value at a dotted path of a spec, or undefined. */
export function getPath(spec, path) {
  return path.split('.').reduce((v, k) => (v !== null && typeof v === 'object' ? v[k] : undefined), spec);
}

/** Put `value` at a dotted path, making objects on the way. */
export function setPath(spec, path, value) {
  const keys = path.split('.');
  let at = spec;
  for (const k of keys.slice(0, -1)) {
    if (at[k] === null || typeof at[k] !== 'object') at[k] = {};
    at = at[k];
  }
  at[keys[keys.length - 1]] = value;
}

/** Whether a schema field applies to `spec` (each of its `when` holds). */
export function applies(field, spec) {
  return field.when.every((w) => w.values.includes(getPath(spec, w.path)));
}

/** The one number reader: a field's control (or `control`, one serving several fields) as a
 *  number, or a message naming the field's path. */
export function readField(field, control = field.control) {
  const el = document.getElementById(control);
  const raw = String(el.value).trim();
  const v = Number(raw);
  if (raw === '' || !Number.isFinite(v)) throw new Error(`${field.path}: “${raw}” is not a number`);
  if (field.type === 'integer' && !Number.isInteger(v)) throw new Error(`${field.path}: ${field.label} must be a whole number (got ${raw})`);
  return v;
}

/** Put `value` at `path` as a choice does: a changed `….kind` starts its object afresh. */
function put(spec, path, value) {
  if (path.endsWith('.kind') && getPath(spec, path) !== value) setPath(spec, path.slice(0, -'.kind'.length), { kind: value });
  else setPath(spec, path, value);
}

/** The bound a control carries: an open end one step inside (a slider must not reach it);
 *  null for an unbounded end. */
function edge(bound, open, step, sign) {
  if (bound === null) return null;
  return open && step ? bound + sign * step : bound;
}

/** A field's range as text: `(0, 100]`, `[2, ∞)`. */
function rangeText(f) {
  return `${f.min_open ? '(' : '['}${f.min ?? '−∞'}, ${f.max ?? '∞'}${f.max_open ? ')' : ']'}`;
}

/**
 * A page's form bound from its paper's schema (`schemaJson`: wasm `specSchema(paper)`).
 * `lose`: the page's wasm `…ControlsLose`. `own`: path prefixes the page reads and writes
 * itself (`kernel` on page C: its expression field). `fixed`: paths without a control the page
 * always runs at the schema's default (page C's blob spread). `spans`: path → [lo, hi], the
 * part of a field's range a slider shows (page B's m: 0.1..4 of (0, 100]); a spec outside it is
 * refused naming the field. `toExtra(spec)` and `fromExtra(spec, base)` do the page's own part
 * after the schema's.
 * `views`: controls that are not one field each (page D's data select stands for `data.kind`,
 * the shape and the blobs' overlap), each `{ paths, to(spec), from(spec, read) }`. Its paths
 * leave the generic binding; it runs where its first path comes in the schema and applies, so
 * the fields after it see its choice: `to` writes its controls, `from` returns the new values
 * by path (a `….kind` starts its object afresh; `undefined` leaves a field out), `read(path,
 * control)` being the one number reader.
 * Returns `{ spec, schema, field(path), read(path), toControls, fromControls, show }`; `show`
 * is form.js's checked rule.
 */
export function schemaForm(schemaJson, { lose, own = [], fixed = [], spans = {}, views = [], toExtra = () => {}, fromExtra = () => {} }) {
  const schema = JSON.parse(schemaJson);
  const owned = (path) => own.some((p) => path === p || path.startsWith(`${p}.`));
  const control = (f) => (f.control ? document.getElementById(f.control) : null);
  for (const f of schema.fields) {
    const el = control(f);
    if (!el) continue;
    el.dataset.path = f.path;
    // A fresh control holds the schema's default (the spec shown then overrides it).
    if (f.type === 'bool') el.checked = Boolean(f.default);
    else el.value = String(f.default);
    if (f.type !== 'number' && f.type !== 'integer') continue;
    if (el.type !== 'number' && el.type !== 'range') continue;
    // The schema's ends (an unbounded end: no attribute), or the slider's span inside them.
    const [lo, hi] = spans[f.path] ?? [edge(f.min, f.min_open, f.step, 1), edge(f.max, f.max_open, f.step, -1)];
    for (const [attr, b] of [['min', lo], ['max', hi]]) {
      if (b === null) el.removeAttribute(attr);
      else el.setAttribute(attr, String(b));
    }
    el.step = f.step === null ? 'any' : String(f.step);
  }
  const field = (path) => schema.fields.find((f) => f.path === path);
  const read = (path, control) => readField(field(path), control);
  const viewOf = (f) => views.find((v) => v.paths.includes(f.path));

  function toControls(spec) {
    for (const f of schema.fields) {
      const view = viewOf(f);
      if (view) {
        if (view.paths[0] === f.path && applies(f, spec)) view.to(spec);
        continue;
      }
      const el = control(f);
      if (!el || owned(f.path) || !applies(f, spec)) continue;
      const v = getPath(spec, f.path) ?? f.default;
      const span = spans[f.path];
      if (span && !(v >= span[0] && v <= span[1])) {
        throw new Error(`${f.path}: this page's slider covers ${span[0]}..${span[1]} (got ${v}); \`kplay run\` takes any ${f.label} in ${rangeText(f)}`);
      }
      if (f.type === 'bool') el.checked = Boolean(v);
      else el.value = String(v);
    }
    toExtra(spec);
  }

  function fromControls(base) {
    const s = structuredClone(base);
    for (const f of schema.fields) {
      const view = viewOf(f);
      if (view) {
        if (view.paths[0] === f.path && applies(f, s)) for (const [p, v] of Object.entries(view.from(s, read))) put(s, p, v);
        continue;
      }
      if (owned(f.path) || !applies(f, s)) continue;
      const el = control(f);
      if (f.type === 'choice') {
        if (!el || getPath(s, f.path) === el.value) continue;
        // Another kind (a `….kind` tag): its object starts afresh, the fields under it from
        // the controls or the schema's defaults. Any other choice is a plain value.
        if (f.path.endsWith('.kind')) setPath(s, f.path.slice(0, -'.kind'.length), { kind: el.value });
        else setPath(s, f.path, el.value);
      } else if (el && f.type === 'bool') {
        setPath(s, f.path, el.checked);
      } else if (el) {
        setPath(s, f.path, readField(f));
      } else if (fixed.includes(f.path) || getPath(s, f.path) === undefined) {
        setPath(s, f.path, f.default);
      }
    }
    fromExtra(s, base);
    return s;
  }

  const form = {
    spec: null,
    schema,
    field,
    read,
    toControls,
    fromControls: (base = form.spec) => fromControls(base),
  };
  form.show = bindControls({ lose, toControls, fromControls: (s) => fromControls(s) });
  return form;
}
