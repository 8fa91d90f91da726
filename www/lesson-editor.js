// The lesson editor of every paper page (issue 35 §1–2, docs/teaching.md "How to write a lesson in
// the page"): a panel, closed until "Write a lesson" opens it, in which a lecturer builds a
// lesson file from the page itself.
//  - **Add this state as a step**: the step's spec is the page's own (what "Save spec" writes);
//    `uses` is the controls changed since the previous step plus the plots on screen and the
//    readouts of a measure,
//    editable as checkboxes over the page's elements (the core's catalogue, src/lesson/elements.rs,
//    through www/lesson-worker.js); `speed` is the speed slider's.
//  - title, look, question and explanation with a live preview in the lesson's own renderer
//    (lesson-text.js); steps reordered, edited, deleted; a step after the first is written as a
//    merge patch on the previous step's spec when that is shorter (checked: the core resolves it
//    back to the same spec, or the step keeps its whole spec).
//  - a claim picker: a measure of the run (or a click on a readout that shows one), a relation,
//    a number or the same measure of an earlier step; the claim is evaluated at once by the
//    evaluator of `kplay lesson check` (the wasm, in the worker), measured value and PASS/FAIL;
//    a checkbox marks the claims that answer the question.
//  - Try it plays the lesson as a file opens (lesson.js); Save lesson downloads the file and
//    gives its link; Open loads a file or a built-in lesson for editing.
// Every value the lecturer types is checked here or by the one parser (resolveLesson), with a
// message naming the field; nothing of a lesson is ever inserted as HTML.
import { $ } from './common.js';
import { renderText, quoteNumber } from './lesson-text.js';
import { download } from './export.js';
import { queryParam } from './url.js';

const TEXTS = [['look', 'What to look at'], ['predict', 'The question (before the run)'], ['explain', 'The explanation (after the run)']];
const RELS = [['<', '<'], ['<=', '≤'], ['==', '='], ['!=', '≠'], ['>=', '≥'], ['>', '>'], ['within', '≈ (relative tolerance)']];
const MAX_USES = 24;
const MAX_STEPS = 40;
/** Measures a claim should not read (machine-dependent times, whole arrays). */
const NOT_CLAIMED = new Set(['setup_ms', 'time_ms', 'trace', 'solution', 'paper']);

/** One request to the editor's worker at a time per id; resolves to its answer. */
function workerClient() {
  let w = null;
  let next = 0;
  const waiting = new Map();
  return (op, ...args) => new Promise((resolve, reject) => {
    if (!w) {
      w = new Worker(new URL('./lesson-worker.js', import.meta.url), { type: 'module' });
      w.onmessage = (ev) => {
        const p = waiting.get(ev.data.id);
        waiting.delete(ev.data.id);
        if (ev.data.error) p?.reject(new Error(ev.data.error)); else p?.resolve(ev.data.out);
      };
      w.onerror = (ev) => { for (const p of waiting.values()) p.reject(new Error(ev.message || 'the editor\'s worker failed')); waiting.clear(); w = null; };
    }
    const id = ++next;
    waiting.set(id, { resolve, reject });
    w.postMessage({ id, op, args });
  });
}

/** RFC 7386 merge patch taking `a` to `b` (objects field by field, anything else replaced), or
 *  null when there is none (a null inside `b` cannot be written as a patch). */
export function mergeDiff(a, b) {
  const isObj = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
  if (!isObj(a) || !isObj(b)) return b;
  const out = {};
  for (const k of Object.keys(b)) {
    if (b[k] === null) return null;
    if (JSON.stringify(a[k]) === JSON.stringify(b[k])) continue;
    const d = isObj(a[k]) && isObj(b[k]) ? mergeDiff(a[k], b[k]) : b[k];
    if (d === null) return null;
    out[k] = d;
  }
  for (const k of Object.keys(a)) if (!(k in b)) out[k] = null;
  return out;
}

/** Indented JSON with each array of numbers and words on one line (`"uses": ["n", "map"]`): a
 *  raw newline never occurs inside a JSON string, so the items split at `,` + newline. */
const oneLineArrays = (text) => text.replace(/\[\n\s+([^[\]{}]*?)\n\s*\]/g, (_, items) => `[${items.split(/,\n\s*/).join(', ')}]`);

/** JSON with object keys sorted (to compare two specs). */
const canon = (v) => JSON.stringify(v, (_, x) => (x && typeof x === 'object' && !Array.isArray(x)
  ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x));

const el = (tag, props = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k in e) e[k] = v; else e.setAttribute(k, v);
  }
  e.append(...kids);
  return e;
};

/** The panel's markup (no lesson text in it: fields are filled by value). */
const MARKUP = `
  <div class="le-head"><h2>Write a lesson</h2> <button type="button" id="le-close">Close</button></div>
  <label class="le-wide">Lesson title <input id="le-title" maxlength="300" placeholder="Lesson · a topic, not an outcome"></label>
  <div class="le-row"><button type="button" id="le-add" class="le-main">Add this state as a step</button>
    <button type="button" id="le-try">Try it</button> <button type="button" id="le-save">Save lesson</button>
    <button type="button" id="le-check">Check every claim</button></div>
  <div class="le-row"><button type="button" id="le-open">Open a file…</button>
    <input type="file" id="le-file" accept=".json,application/json" hidden>
    <select id="le-builtin" aria-label="open a built-in lesson"><option value="">Open a built-in lesson…</option>
      <option value="a">Lesson A (lp.html)</option><option value="b">Lesson B (mrlsr.html)</option>
      <option value="c">Lesson C (dinuzzo.html)</option><option value="d">Lesson D (perceptron.html)</option></select>
    <button type="button" id="le-new">New lesson</button></div>
  <p id="le-msg" class="le-msg" role="status" aria-live="polite"></p>
  <p class="le-linkrow" hidden><label>Link <input id="le-link" readonly></label></p>
  <ol id="le-steps" class="le-steps"></ol>
  <section id="le-step" class="le-step" hidden aria-label="the step being edited">
    <h3 id="le-step-head"></h3>
    <label class="le-wide">Step title <input id="le-s-title" maxlength="300"></label>
    <div class="le-row"><button type="button" id="le-s-replace">Replace its spec by the page's state</button>
      <button type="button" id="le-s-show">Show it in the page</button>
      <label>speed <input id="le-s-speed" size="7" title="iterations per second (0.1 to 10⁶) or max"></label>
      <label>reference <input id="le-s-ref" size="16" maxlength="300" placeholder="Theorem 4, or ours"></label></div>
    <div id="le-texts"></div>
    <details class="le-uses-box"><summary>Elements the step shows (<span id="le-uses-count"></span>) and hides until its run</summary>
      <div id="le-uses" class="le-uses"></div></details>
    <fieldset class="le-claims"><legend>Claims (checked by the evaluator of kplay lesson check)</legend>
      <ul id="le-claims"></ul>
      <div class="le-row"><label>measure <input id="le-c-lhs" list="le-measures" size="18" placeholder="a readout: click it"></label>
        <select id="le-c-rel" aria-label="relation"></select>
        <select id="le-c-against" aria-label="against"><option value="value">a number or word</option></select>
        <input id="le-c-value" size="8" aria-label="the number or word">
        <label class="le-tol">tolerance <input id="le-c-tol" size="5" value="0.01"></label></div>
      <div class="le-row"><label>id <input id="le-c-id" size="8"></label>
        <label class="le-grow">says <input id="le-c-says" maxlength="300"></label>
        <label>reference <input id="le-c-ref" size="10" value="ours" maxlength="300"></label>
        <label><input type="checkbox" id="le-c-answers"> answers the question</label>
        <button type="button" id="le-c-add">Add and check the claim</button></div>
      <p id="le-c-result" class="le-result" role="status" aria-live="polite"></p>
      <datalist id="le-measures"></datalist>
    </fieldset>
  </section>`;

/**
 * Attach the editor to a page. `api`: `spec()` the page's spec (JSON text, as Save spec writes
 * it), `load(spec)` the lesson's load, `player`, `paper` ('a'…'d'), `pageOf` (lesson id → page),
 * `builtin` (lesson id → file), `parseLesson`, `encodeLesson` and `openText` (lesson.js: open a
 * lesson's text as a file opens).
 */
export function attachEditor(api) {
  const nav = document.querySelector('nav.papers');
  if (!nav || !api.spec || $('lesson-write')) return;
  const page = api.pageOf[api.paper];
  const ask = workerClient();
  const opener = el('button', { type: 'button', id: 'lesson-write', className: 'lesson-write', textContent: 'Write a lesson',
    title: 'build a lesson from this page: add its state as steps, write the text, pick claims' });
  ($('lesson-open')?.parentElement ?? nav).after(opener);
  const panel = el('aside', { id: 'lesson-editor', className: 'lesson-editor', hidden: true });
  panel.setAttribute('aria-label', 'lesson editor');
  panel.innerHTML = MARKUP;
  document.body.append(panel);
  for (const [v, t] of RELS) $('le-c-rel').append(el('option', { value: v, textContent: t }));

  const ed = { title: '', steps: [], cur: -1, catalogue: null, base: null };
  let checkTimer = 0;
  /** The editor's message line; a refusal stays until the next change (no pending check
   *  replaces it). */
  const msg = (text, bad = false) => {
    if (bad) clearTimeout(checkTimer);
    $('le-msg').textContent = text;
    $('le-msg').classList.toggle('bad', bad);
  };
  const step = () => ed.steps[ed.cur];

  // ---- the page's elements --------------------------------------------------------------------
  const controls = () => (ed.catalogue?.elements ?? []).filter((e) => e.role === 'control' && e.id !== 'speed');
  const valueOf = (id) => {
    const x = $(id);
    if (!x || x.type === 'file') return null;
    return x.type === 'checkbox' ? String(x.checked) : x.value;
  };
  /** Every field of the page's controls by id (the catalogue's controls are among them). */
  const snapshot = () => Object.fromEntries([...document.querySelectorAll('section.controls input[id], section.controls select[id]')]
    .map((x) => [x.id, valueOf(x.id)]));
  const inView = (x) => !!x && x.getClientRects().length > 0 && getComputedStyle(x).visibility !== 'hidden';
  /** On screen and not under the editor's panel: what the lecturer is looking at. */
  const onScreen = (x) => {
    if (!inView(x)) return false;
    const r = x.getBoundingClientRect();
    const right = panel.hidden ? innerWidth : panel.getBoundingClientRect().left;
    return r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < right - 40;
  };
  /** `uses` for the page as it is: the controls changed since `base`, the plots on screen and
   *  the readouts shown that show a measure of the run (catalogue: `measure`). */
  function usesNow() {
    const now = snapshot();
    const out = controls().filter((e) => ed.base && now[e.id] !== ed.base[e.id] && inView($(e.id))).map((e) => e.id);
    for (const e of ed.catalogue.elements) {
      if (e.role === 'plot' && onScreen($(e.id))) out.push(e.id);
    }
    for (const e of ed.catalogue.elements) {
      if (e.role === 'readout' && e.measure && inView($(e.id))) out.push(e.id);
    }
    return out.slice(0, MAX_USES);
  }
  function speedNow() {
    const r = api.player?.rate;
    if (r === Infinity) return 'max';
    return typeof r === 'number' && r >= 0.1 && r <= 1e6 ? r : undefined;
  }
  function specNow() {
    const s = JSON.parse(api.spec());
    delete s.paper;
    return s;
  }

  // ---- the lesson as a file -------------------------------------------------------------------
  const ORDER = ['title', 'spec', 'patch', 'to', 'action', 'until', 'uses', 'figures', 'hide_until_run', 'speed', 'look', 'predict', 'explain', 'reference', 'claims'];
  const cleanClaim = (c) => Object.fromEntries(Object.entries(c).filter(([k]) => k !== 'result'));
  function stepOut(s, prev, patches) {
    const o = {};
    for (const k of ORDER) {
      if (k === 'spec' || k === 'patch') {
        const d = patches && prev ? mergeDiff(prev.spec, s.spec) : null;
        if (k === 'spec' && !(d && JSON.stringify(d).length < JSON.stringify(s.spec).length)) o.spec = s.spec;
        if (k === 'patch' && d && JSON.stringify(d).length < JSON.stringify(s.spec).length) o.patch = d;
      } else if (k === 'claims') o.claims = s.claims.map(cleanClaim);
      else if (k === 'hide_until_run' || k === 'figures') { if (s[k]?.length) o[k] = s[k]; } else if (s[k] !== undefined) o[k] = s[k];
    }
    return o;
  }
  /** The lesson's JSON text; `patches`: later steps as merge patches where shorter (each one
   *  resolved by the core back to the step's spec, or the step keeps its whole spec). */
  function lessonText(patches) {
    const build = (keep) => oneLineArrays(JSON.stringify({ format: 1, title: ed.title, page,
      steps: ed.steps.map((s, i) => stepOut(s, ed.steps[i - 1], patches && !keep.has(i))) }, null, 2));
    if (!patches) return build(new Set());
    const keep = new Set();
    let text = build(keep);
    let resolved;
    try { resolved = api.parseLesson(text); } catch { return text; } // the caller reports it
    resolved.steps.forEach((s, i) => { if (canon(s.spec) !== canon(ed.steps[i].spec)) keep.add(i); });
    if (keep.size) text = build(keep);
    return text;
  }
  /** Validate the whole lesson with the one parser; the message names the field. */
  function validate() {
    clearTimeout(checkTimer);
    if (!ed.steps.length) { msg('No step yet: set the page up, then "Add this state as a step".'); return false; }
    try {
      api.parseLesson(lessonText(false));
    } catch (e) {
      msg(`To do before saving: ${e.message}`, true);
      return false;
    }
    msg(`The lesson is valid: ${ed.steps.length} step${ed.steps.length > 1 ? 's' : ''}. Try it, check every claim, save it.`);
    return true;
  }
  const changed = () => { clearTimeout(checkTimer); checkTimer = setTimeout(validate, 250); };

  const stepName = (s) => `${s.title || '(no title)'} · ${s.claims.length} claim${s.claims.length === 1 ? '' : 's'}${
    s.claims.some((c) => c.result && !c.result.pass) ? ' · a claim fails' : ''}`;

  // ---- the step list --------------------------------------------------------------------------
  function showSteps() {
    const list = $('le-steps');
    list.replaceChildren();
    ed.steps.forEach((s, i) => {
      const b = (text, label, f, off = false) => el('button', { type: 'button', textContent: text, disabled: off,
        onclick: f, 'aria-label': `${label} step ${i + 1}` });
      list.append(el('li', { className: i === ed.cur ? 'current' : '', dataset: { step: String(i + 1) } },
        el('span', { className: 'le-step-name', textContent: stepName(s) }),
        b('↑', 'move up', () => move(i, -1), i === 0), b('↓', 'move down', () => move(i, 1), i === ed.steps.length - 1),
        b('Edit', 'edit', () => edit(i, true)), b('Delete', 'delete', () => remove(i))));
    });
    $('le-step').hidden = ed.cur < 0;
    if (ed.cur >= 0) showStep();
    changed();
  }
  /** Claims read earlier steps by number (`step`, `step_compute`): a move or a delete renumbers
   *  them (`map`: old number → new, or undefined when the step goes); one that would read a step
   *  that is gone or not earlier is refused, naming it. */
  function renumbered(order) {
    const map = new Map(order.map((old, k) => [old + 1, k + 1]));
    const fix = (q) => {
      if (!q || typeof q !== 'object') return q;
      if (Array.isArray(q)) return q.map(fix);
      return Object.fromEntries(Object.entries(q).map(([k, v]) => (
        (k === 'step' || k === 'step_compute') && Array.isArray(v) ? [k, [map.get(v[0]) ?? 0, v[1]]] : [k, fix(v)])));
    };
    const steps = order.map((old) => ({ ...ed.steps[old], claims: ed.steps[old].claims.map((c) => {
      const n = { ...c, lhs: fix(c.lhs) };
      if (c.rhs) n.rhs = fix(c.rhs);
      if (c.range) n.range = fix(c.range);
      return n;
    }) }));
    steps.forEach((s, k) => {
      for (const c of s.claims) {
        for (const m of JSON.stringify([c.lhs, c.rhs, c.range]).matchAll(/"step(?:_compute)?":\[(\d+),/g)) {
          const ref = Number(m[1]);
          if (ref < 1 || ref > k) throw new Error(`claim “${c.id}” of the step now numbered ${k + 1} reads ${ref ? `step ${ref}, not an earlier step` : 'a step that is deleted'}: delete that claim first`);
        }
      }
    });
    return steps;
  }
  function reorder(order, cur) {
    try {
      ed.steps = renumbered(order);
    } catch (e) {
      msg(e.message, true);
      return;
    }
    ed.cur = cur;
    for (const s of ed.steps) for (const c of s.claims) delete c.result; // to check again
    showSteps();
  }
  function move(i, d) {
    const order = ed.steps.map((_, k) => k);
    [order[i], order[i + d]] = [order[i + d], order[i]];
    reorder(order, ed.cur === i ? i + d : ed.cur === i + d ? i : ed.cur);
  }
  function remove(i) {
    const order = ed.steps.map((_, k) => k).filter((k) => k !== i);
    const cur = ed.cur === i ? Math.min(i, order.length - 1) : ed.cur > i ? ed.cur - 1 : ed.cur;
    reorder(order, cur);
  }
  async function showInPage(s) {
    try {
      await api.load(structuredClone(s.spec));
      ed.base = snapshot();
    } catch (e) {
      msg(`Step ${ed.cur + 1}: ${e.message ?? e}`, true);
    }
  }
  function edit(i, load) {
    ed.cur = i;
    showSteps();
    if (load) showInPage(ed.steps[i]);
    $('le-s-title').focus();
  }

  // ---- the step being edited ------------------------------------------------------------------
  const quoteOf = (s) => (id) => {
    const c = s.claims.find((x) => x.id === id);
    return c && typeof c.rhs?.value === 'number' ? quoteNumber(c.rhs.value) : '?';
  };
  function showStep() {
    const s = step();
    $('le-step-head').textContent = `Step ${ed.cur + 1} of ${ed.steps.length}`;
    $('le-s-title').value = s.title;
    $('le-s-ref').value = s.reference;
    $('le-s-speed').value = s.speed === undefined ? '' : String(s.speed);
    for (const [k] of TEXTS) {
      $(`le-s-${k}`).value = s[k];
      renderText($(`le-p-${k}`), s[k], quoteOf(s));
    }
    showUses();
    showClaims();
    $('le-c-id').value = freshId();
    showAgainst();
  }
  function showUses() {
    const s = step();
    const box = $('le-uses');
    box.replaceChildren();
    for (const e of ed.catalogue?.elements ?? []) {
      const u = el('input', { type: 'checkbox', checked: s.uses.includes(e.id), dataset: { use: e.id } });
      const h = el('input', { type: 'checkbox', checked: (s.hide_until_run ?? []).includes(e.id), dataset: { hide: e.id },
        title: 'hidden until the run has ended', 'aria-label': `hide ${e.id} until the run` });
      u.addEventListener('change', () => {
        if (u.checked && s.uses.length >= MAX_USES) { u.checked = false; msg(`uses: at most ${MAX_USES} elements`, true); return; }
        s.uses = u.checked ? [...s.uses, e.id] : s.uses.filter((x) => x !== e.id);
        $('le-uses-count').textContent = `${s.uses.length} shown`;
        changed();
      });
      h.addEventListener('change', () => {
        const list = (s.hide_until_run ?? []).filter((x) => x !== e.id);
        s.hide_until_run = h.checked ? [...list, e.id] : list;
        changed();
      });
      box.append(el('label', { title: e.what }, u, ` ${e.id} `, el('small', { textContent: `${e.role} · ${e.what}` })), h);
    }
    $('le-uses-count').textContent = `${s.uses.length} shown`;
  }
  const TEXT_FIELDS = { 'le-s-title': 'title', 'le-s-ref': 'reference' };
  for (const [k, label] of TEXTS) {
    $('le-texts').append(el('label', { className: 'le-text' }, label,
      el('textarea', { id: `le-s-${k}`, rows: k === 'explain' ? 4 : 2, maxLength: 8000 })),
    el('div', { id: `le-p-${k}`, className: `le-preview lesson-${k}`, 'aria-label': `${label}: preview` }));
    TEXT_FIELDS[`le-s-${k}`] = k;
  }
  for (const [id, field] of Object.entries(TEXT_FIELDS)) {
    $(id).addEventListener('input', () => {
      const s = step();
      if (!s) return;
      s[field] = $(id).value;
      if ($(`le-p-${field}`)) renderText($(`le-p-${field}`), s[field], quoteOf(s));
      if (field === 'title') showStepNames();
      changed();
    });
  }
  const showStepNames = () => {
    const li = $('le-steps').children[ed.cur]?.querySelector('.le-step-name');
    if (li) li.textContent = stepName(step());
  };
  $('le-s-speed').addEventListener('change', () => {
    const s = step();
    const t = $('le-s-speed').value.trim();
    const x = Number(t);
    if (t === '') delete s.speed;
    else if (t === 'max') s.speed = 'max';
    else if (Number.isFinite(x) && x >= 0.1 && x <= 1e6) s.speed = x;
    else { msg(`Step ${ed.cur + 1} · speed: 0.1 to 10⁶ iterations per second, or max (got “${t.slice(0, 24)}”)`, true); return; }
    changed();
  });
  $('le-title').addEventListener('input', () => { ed.title = $('le-title').value; changed(); });

  // ---- adding and replacing steps -------------------------------------------------------------
  function pageState() {
    try {
      return specNow();
    } catch (e) {
      msg(`The page's state is not a spec: ${e.message ?? e}`, true);
      return null;
    }
  }
  $('le-add').addEventListener('click', () => {
    if (!ed.catalogue) { msg('The page\'s element list is still loading.'); return; }
    if (ed.steps.length >= MAX_STEPS) { msg(`steps: at most ${MAX_STEPS} steps`, true); return; }
    const spec = pageState();
    if (!spec) return;
    const s = { title: '', spec, uses: usesNow(), speed: speedNow(), look: '', predict: '', explain: '', reference: '', claims: [] };
    if (s.speed === undefined) delete s.speed;
    ed.base = snapshot();
    ed.steps.splice(ed.cur + 1, 0, s);
    ed.cur += 1;
    showSteps();
    $('le-s-title').focus();
  });
  $('le-s-replace').addEventListener('click', () => {
    const spec = pageState();
    if (!spec) return;
    const s = step();
    s.spec = spec;
    for (const k of ed.steps.slice(ed.cur)) for (const c of k.claims) delete c.result; // to check again
    ed.base = snapshot();
    showSteps();
  });
  $('le-s-show').addEventListener('click', () => showInPage(step()));

  // ---- the claim picker -----------------------------------------------------------------------
  const measures = () => (ed.catalogue?.measures ?? []).filter((m) => !NOT_CLAIMED.has(m.path));
  function showAgainst() {
    const sel = $('le-c-against');
    const keep = sel.value;
    sel.replaceChildren(el('option', { value: 'value', textContent: 'a number or word' }));
    for (let k = 1; k <= ed.cur; k++) sel.append(el('option', { value: String(k), textContent: `the same measure of step ${k}` }));
    sel.value = [...sel.options].some((o) => o.value === keep) ? keep : 'value';
    syncPicker();
  }
  function syncPicker() {
    $('le-c-value').hidden = $('le-c-against').value !== 'value';
    panel.querySelector('.le-tol').hidden = $('le-c-rel').value !== 'within';
    if (!$('le-c-id').value) $('le-c-id').value = freshId();
  }
  const freshId = () => {
    const s = step();
    let n = (s?.claims.length ?? 0) + 1;
    while (s?.claims.some((c) => c.id === `c${n}`)) n++;
    return `c${n}`;
  };
  $('le-c-rel').addEventListener('change', syncPicker);
  $('le-c-against').addEventListener('change', syncPicker);
  /** The claim the picker describes, or a message naming the field. */
  function pickedClaim() {
    const s = step();
    const path = $('le-c-lhs').value.trim();
    if (!/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/.test(path)) throw new Error('Claim · measure: a measure path such as iterations or solution.support_size (or click a readout)');
    const id = $('le-c-id').value.trim();
    if (!/^[a-z0-9_-]{1,32}$/.test(id)) throw new Error('Claim · id: 1–32 of a–z, 0–9, _ and -');
    if (s.claims.some((c) => c.id === id)) throw new Error(`Claim · id: “${id}” is used in this step already`);
    const rel = $('le-c-rel').value;
    const against = $('le-c-against').value;
    let rhs;
    let rhsText;
    if (against === 'value') {
      const t = $('le-c-value').value.trim();
      if (!t) throw new Error('Claim · value: a number (or a word such as converged)');
      const x = Number(t);
      const word = !Number.isFinite(x);
      if (word && !['==', '!='].includes(rel)) throw new Error(`Claim · value: “${t.slice(0, 24)}” is not a number (a word compares with = and ≠ only)`);
      rhs = { value: word ? t : x };
      rhsText = t;
    } else {
      const k = Number(against);
      if (!(k >= 1 && k <= ed.cur)) throw new Error('Claim · against: an earlier step');
      rhs = { step: [k, path] };
      rhsText = `step ${k}'s ${path}`;
    }
    const c = { id, says: '', lhs: { run: path }, rel, rhs, reference: $('le-c-ref').value.trim() || 'ours' };
    if (rel === 'within') {
      const tol = Number($('le-c-tol').value);
      if (!(Number.isFinite(tol) && tol >= 0 && tol < 1)) throw new Error('Claim · tolerance: a relative tolerance in [0, 1)');
      c.tol = tol;
    }
    const relText = RELS.find(([v]) => v === rel)[1].replace(' (relative tolerance)', '');
    c.says = $('le-c-says').value.trim() || `${path} ${relText} ${rhsText}`;
    if (c.says.length > 300) throw new Error('Claim · says: at most 300 characters');
    if ($('le-c-answers').checked) c.answers = true;
    return c;
  }
  const resultText = (r) => (r.error ? `error: ${r.error}`
    : `measured ${r.measured} ${r.rhs}: ${r.not_run ? 'NOT RUN' : r.pass ? 'PASS' : 'FAIL'}`);
  /** A lesson JSON for evaluating step k's claims: every step's whole spec (no patches). */
  const draftText = () => lessonText(false);
  $('le-c-add').addEventListener('click', async () => {
    const s = step();
    const out = $('le-c-result');
    let c;
    try {
      c = pickedClaim();
    } catch (e) {
      out.textContent = e.message;
      out.className = 'le-result bad';
      return;
    }
    out.textContent = 'Evaluating: the step runs as kplay lesson check runs it…';
    out.className = 'le-result';
    const k = ed.cur;
    let r;
    try {
      r = await ask('claim', draftText(), k, JSON.stringify(c));
    } catch (e) {
      r = { error: e.message };
    }
    if (r.error) {
      out.textContent = `This claim cannot be checked: ${r.error}`;
      out.className = 'le-result bad';
      return;
    }
    c.result = r;
    if (ed.steps[k] !== s) return; // the lecturer moved on meanwhile
    s.claims.push(c);
    out.textContent = `${c.id}: ${resultText(r)}`;
    out.className = `le-result ${r.pass ? 'pass' : 'bad'}`;
    out.dataset.pass = r.pass ? '1' : '0';
    $('le-c-id').value = '';
    $('le-c-says').value = '';
    showClaims();
    syncPicker();
    changed();
  });
  function showClaims() {
    const s = step();
    const list = $('le-claims');
    list.replaceChildren();
    for (const c of s.claims) {
      const ans = el('input', { type: 'checkbox', checked: !!c.answers });
      ans.addEventListener('change', () => { if (ans.checked) c.answers = true; else delete c.answers; changed(); });
      const r = c.result;
      list.append(el('li', { dataset: { claim: c.id, pass: r ? (r.pass ? '1' : '0') : '' } },
        el('code', { textContent: c.id }), ` ${c.says} `,
        el('span', { className: `le-result ${r ? (r.pass ? 'pass' : 'bad') : ''}`, textContent: r ? resultText(r) : '(not checked yet)' }),
        el('label', {}, ans, ' answers'),
        el('button', { type: 'button', textContent: 'Delete', 'aria-label': `delete claim ${c.id}`,
          onclick: () => { s.claims = s.claims.filter((x) => x !== c); showClaims(); showStepNames(); changed(); } })));
    }
    showStepNames();
  }
  $('le-check').addEventListener('click', async () => {
    if (!validate()) return;
    msg('Checking every claim: every step runs as kplay lesson check runs it…');
    let out;
    try {
      out = await ask('check', draftText());
    } catch (e) {
      out = { error: e.message };
    }
    if (out.error) { msg(`The lesson cannot be checked: ${out.error}`, true); return; }
    for (const r of out.results) {
      const c = ed.steps[r.step - 1]?.claims.find((x) => x.id === r.id);
      if (c) c.result = r;
    }
    const failed = out.results.filter((r) => !r.pass).length;
    showSteps();
    msg(`${out.results.length} claims checked, ${failed} failed${failed ? ': the steps list names them' : ''}.`, failed > 0);
    panel.dataset.checked = failed ? 'fail' : 'pass';
  });
  // A click on a readout that shows a measure writes it into the picker.
  function pickReadouts() {
    for (const e of ed.catalogue.elements) {
      const x = $(e.id);
      if (!e.measure || !x) continue;
      x.classList.add('le-pickable');
      x.title = `lesson editor: a click picks ${e.measure} for a claim`;
      x.addEventListener('click', () => {
        if (panel.hidden || ed.cur < 0) return;
        $('le-c-lhs').value = e.measure;
        $('le-c-result').textContent = `Measure ${e.measure} (the ${e.what} readout): choose the relation and what to compare it with.`;
        $('le-c-result').className = 'le-result';
        $('le-c-value').focus();
      });
    }
  }

  // ---- open, try, save --------------------------------------------------------------------------
  function loadLesson(L) {
    ed.title = L.title;
    $('le-title').value = L.title;
    ed.steps = L.steps.map((s) => ({ ...structuredClone(s), claims: s.claims.map((c) => ({ ...c })) }));
    for (const s of ed.steps) delete s.patch;
    ed.cur = -1;
    showSteps();
    msg(`Opened “${L.title}”: ${L.steps.length} steps. Edit a step, or add the page's state as a new one.`);
  }
  function openLessonText(text) {
    let L;
    try {
      L = api.parseLesson(text);
    } catch (e) {
      msg(`This lesson cannot be opened: ${e.message}`, true);
      return;
    }
    if (L.page !== page) { msg(`page: this lesson plays on ${L.page}; open it in the editor there.`, true); return; }
    loadLesson(L);
  }
  $('le-open').addEventListener('click', () => $('le-file').click());
  $('le-file').addEventListener('change', async () => {
    const f = $('le-file').files?.[0];
    $('le-file').value = '';
    if (!f) return;
    if (f.size > 256 * 1024) { msg(`The file is ${f.size} bytes; a lesson is at most 262144`, true); return; }
    openLessonText(await f.text());
  });
  async function openBuiltin(id) {
    if (api.pageOf[id] !== page) { location.assign(`${api.pageOf[id]}?edit=${id}`); return; }
    try {
      openLessonText(await (await fetch(new URL(api.builtin[id], location.href))).text());
    } catch (e) {
      msg(`Lesson ${id} could not be fetched: ${e.message ?? e}`, true);
    }
  }
  $('le-builtin').addEventListener('change', () => {
    const id = $('le-builtin').value;
    $('le-builtin').value = '';
    if (id) openBuiltin(id);
  });
  $('le-new').addEventListener('click', () => {
    if (ed.steps.length && !confirm('Start a new lesson? The steps here are dropped (save them first).')) return;
    loadLesson({ title: '', steps: [] });
    ed.base = snapshot();
    msg('A new lesson: set the page up, then "Add this state as a step".');
  });
  /** The lesson's text for a file, or null (the message names the field). */
  function finalText() {
    if (!validate()) return null;
    return lessonText(true);
  }
  $('le-try').addEventListener('click', () => {
    const text = finalText();
    if (!text) return;
    close();
    api.openText(text);
  });
  $('le-save').addEventListener('click', async () => {
    const text = finalText();
    if (!text) return;
    const name = `${(ed.title.toLowerCase().match(/[a-z0-9]+/g) ?? ['lesson']).join('-').slice(0, 60)}.json`;
    download(name, new Blob([text], { type: 'application/json' }));
    const link = `${location.origin}${location.pathname}#lesson-data=${await api.encodeLesson(text)}&step=1`;
    $('le-link').value = link;
    panel.querySelector('.le-linkrow').hidden = false;
    panel.dataset.saved = name;
    $('le-link').select();
    try { await navigator.clipboard.writeText(link); msg(`Saved ${name}; its link is copied (and below).`); } catch { msg(`Saved ${name}; its link is below.`); }
  });

  // ---- open and close ---------------------------------------------------------------------------
  async function open() {
    panel.hidden = false;
    document.body.classList.add('editing-lesson');
    opener.setAttribute('aria-expanded', 'true');
    if (!ed.catalogue) {
      msg('Loading the page\'s elements…');
      try {
        const c = await ask('catalogue', page);
        if (c.error) throw new Error(c.error);
        ed.catalogue = c;
        $('le-measures').replaceChildren(...measures().map((m) => el('option', { value: m.path, label: `${m.path} · ${m.what}` })));
        pickReadouts();
        panel.dataset.ready = '1';
        msg(ed.steps.length ? '' : 'Set the page up (data, model, solver, speed), then "Add this state as a step".');
        if (ed.cur >= 0) showStep();
      } catch (e) {
        msg(`The editor could not start: ${e.message ?? e}`, true);
      }
    }
  }
  function close() {
    panel.hidden = true;
    document.body.classList.remove('editing-lesson');
    opener.setAttribute('aria-expanded', 'false');
  }
  opener.addEventListener('click', () => (panel.hidden ? open() : close()));
  $('le-close').addEventListener('click', close);
  // The page as it started is the base the first step's changed controls are read from.
  ed.base = snapshot();
  const edit0 = queryParam('edit');
  if (edit0 && /^[a-d]$/.test(edit0)) open().then(() => openBuiltin(edit0));
}
