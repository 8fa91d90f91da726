// Guided lessons and classroom mode, shared by the pages.
//
// A lesson is a data file (docs/lessons.md): the built-in ones are www/lessons/{a,b,c,d}.json;
// a lecturer's own opens from a file (the "Open a lesson…" button, or dropped on the page) or
// from a link that carries it (`#lesson-data=<base64url>`: "z" + deflate-raw or "j" + plain
// JSON). Every lesson, built-in or not, is validated and resolved by the wasm `resolveLesson` — the Rust parser
// `kplay lesson check` uses — before anything of it is shown; an invalid one gives a message
// naming the field and the page keeps working. Lesson text is rendered by www/lesson-text.js
// into DOM nodes (never as HTML).
//
// A step sets the page to a spec (paused at iteration 0), says what to look at, asks the class
// to predict, runs when asked (the Run button, or a forward key), and once the run has ended
// shows the explanation (the look text and the question fold to a line each). The state lives in
// the URL: `#lesson=a&step=5`; `?classroom=1` (or the Classroom button) hides the controls the
// step does not use and enlarges type and plots for a projector.
// Keyboard, as a presenter's clicker (reveal.js): PageDown / → / space forward (run, then the
// next step), PageUp / ← back, Esc leaves a field (docs/teaching.md).
import { $, lessonMode, isTypingField, showError } from './common.js';
import { renderText, quoteNumber } from './lesson-text.js';
import { readUrl, queryParam, writeUrl } from './url.js';
import { onLessonHash } from './state.js';
import { resolveLesson } from './pkg/kernel_playground.js';
import { lessonEmbedKind, lessonEmbedMarkup, attachLessonEmbed } from './lesson-embed.js';
import { attachEditor } from './lesson-editor.js';

/** The built-in lessons: id → file (relative to the page). */
export const BUILTIN = { a: 'lessons/a.json', b: 'lessons/b.json', c: 'lessons/c.json', d: 'lessons/d.json' };
const PAGE_OF = { a: 'lp.html', b: 'mrlsr.html', c: 'dinuzzo.html', d: 'perceptron.html' };
/** The lesson text that folds to a line once the explanation shows. */
const FOLDS = ['lesson-look', 'lesson-predict'];
/** The largest lesson (bytes of JSON) a file or link may carry: the Rust parser's MAX_BYTES. */
export const MAX_LESSON_BYTES = 256 * 1024;

/** The longest lesson data a link may carry (characters of base64url). */
export const MAX_LINK_DATA = 400000;
/** A piece of a refused link, quoted in its message: at most 24 characters. */
const quoted = (x) => `“${x.length > 24 ? `${x.slice(0, 24)}…` : x}”`;

/** `{ id, step, data? }` from `#lesson=<id>&step=<k>` or `#lesson-data=<b64>&step=<k>`; null
 *  when the hash is not a lesson's. A lesson link the page cannot follow is refused with a
 *  message (issue 36): `{ refused }` when the lesson itself is refused (the page shows its own
 *  experiment), `stepRefused` beside a lesson opened at step 1 when only the step is not one. */
export function lessonFromHash() {
  const { hash } = readUrl();
  if (!/^lesson(-data)?=/.test(hash)) return null;
  const m = hash.match(/^(lesson|lesson-data)=([^&]*)(?:&step=([^&]*))?$/);
  if (!m) return { refused: 'a lesson link is #lesson=<a, b, c or d>&step=<number> (or #lesson-data=…&step=<number>)' };
  const out = {};
  if (m[1] === 'lesson') {
    if (!/^[a-d]$/.test(m[2])) return { refused: `lesson ${quoted(m[2])} is not a lesson here: the lessons are a, b, c and d` };
    out.id = m[2];
  } else {
    const d = m[2];
    if (d.length > MAX_LINK_DATA + 1) return { refused: `the link's lesson data has ${d.length} characters; a link carries at most ${MAX_LINK_DATA}` };
    if (d.length < 2 || !/^[jz]/.test(d)) return { refused: 'the link\'s lesson data is empty or does not start with “j” (JSON) or “z” (compressed)' };
    if (!/^[jz][A-Za-z0-9_-]+$/.test(d)) return { refused: 'the link\'s lesson data is not base64url (letters, digits, - and _)' };
    out.id = 'own';
    out.data = d;
  }
  const k = m[3];
  if (k === undefined) out.step = 1;
  else if (/^[1-9]\d{0,8}$/.test(k)) out.step = Number(k);
  else {
    out.step = 1;
    out.stepRefused = `step ${quoted(k)} is not a step number (a whole number from 1): showing step 1`;
  }
  return out;
}

const b64ToBytes = (s) => {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
};
const bytesToB64 = (bytes) => {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};
async function pipe(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  const buf = new Uint8Array(await out.arrayBuffer());
  return buf;
}

/** A lesson's JSON text as link data ("z" + base64url of deflate-raw). */
export async function encodeLesson(text) {
  return `z${bytesToB64(await pipe(new TextEncoder().encode(text), new CompressionStream('deflate-raw')))}`;
}

/** Link data back to JSON text, at most MAX_LESSON_BYTES (a message otherwise). */
export async function decodeLesson(data) {
  let bytes;
  try {
    bytes = b64ToBytes(data.slice(1));
  } catch {
    throw new Error('the link\'s lesson is not base64url');
  }
  if (data[0] === 'z') {
    // Inflate in a stream and stop past the cap (a small link must not inflate to gigabytes).
    const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
    const parts = [];
    let total = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.length;
        if (total > MAX_LESSON_BYTES) { reader.cancel(); throw new Error(`the link's lesson is over ${MAX_LESSON_BYTES} bytes`); }
        parts.push(value);
      }
    } catch (e) {
      throw e.message?.includes('bytes') ? e : new Error('the link\'s lesson is not valid compressed data');
    }
    bytes = new Uint8Array(total);
    let at = 0;
    for (const p of parts) { bytes.set(p, at); at += p.length; }
  }
  if (bytes.length > MAX_LESSON_BYTES) throw new Error(`the link's lesson is over ${MAX_LESSON_BYTES} bytes`);
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

/** Parse and validate lesson JSON text (the Rust parser through the wasm): the lesson, or throws
 *  an Error whose message names the field. */
export function parseLesson(text) {
  if (text.length > MAX_LESSON_BYTES) throw new Error(`the lesson is over ${MAX_LESSON_BYTES} bytes`);
  // The core resolves it (a step's `patch` merged into the previous step's spec), so the page
  // runs exactly the specs `kplay lesson check` runs.
  const out = JSON.parse(resolveLesson(text));
  if (out.error) throw new Error(out.error);
  return out.lesson;
}

// A lesson link owns the URL hash from the start: the page's start-up must not overwrite it with
// its own #spec= before attachLessons runs (this module is evaluated before the page's script).
const linkAtLoad = lessonFromHash();
if (linkAtLoad?.id) lessonMode.active = true;

const classroomFromUrl = () => queryParam('classroom') === '1';

/** Classroom mode on or off (body class, URL flag, button state). */
function setClassroom(on) {
  document.body.classList.toggle('classroom', on);
  document.documentElement.classList.toggle('classroom', on); // the root size: every rem grows
  document.body.dataset.classroom = on ? '1' : '0';
  writeUrl({ query: { classroom: on ? '1' : null } });
  const b = $('classroom-toggle');
  if (b) {
    b.setAttribute('aria-pressed', String(on));
    b.textContent = on ? 'Leave classroom mode' : 'Classroom mode';
  }
  window.dispatchEvent(new Event('resize')); // the plots redraw at their new size
}

/** The Classroom toggle in the header of every page. */
function addClassroomToggle() {
  const nav = document.querySelector('nav.papers');
  if (!nav || $('classroom-toggle')) return;
  const b = document.createElement('button');
  b.type = 'button';
  b.id = 'classroom-toggle';
  b.className = 'classroom-toggle';
  b.title = 'for a projector: larger type and plots, only the controls the lesson uses';
  b.addEventListener('click', () => setClassroom(!document.body.classList.contains('classroom')));
  // A click does not leave the focus on the toggle: space after it is the page's (a lesson's
  // forward key), not a second click that leaves classroom mode. The keyboard still reaches it.
  b.addEventListener('mousedown', (ev) => ev.preventDefault());
  nav.after(b);
}

/** On a phone the experiment's fieldsets fold away behind one button (Play, Step, the speed
 *  and the readouts stay); they start folded on a narrow screen. */
function addControlsToggle() {
  const controls = document.querySelector('section.controls');
  if (!controls || $('controls-toggle')) return;
  const b = document.createElement('button');
  b.type = 'button';
  b.id = 'controls-toggle';
  b.className = 'controls-toggle';
  b.setAttribute('aria-controls', 'controls-fold');
  const set = (folded) => {
    document.body.classList.toggle('controls-folded', folded);
    b.setAttribute('aria-expanded', String(!folded));
    b.textContent = folded ? 'Show all the controls' : 'Fold the controls';
  };
  b.addEventListener('click', () => set(!document.body.classList.contains('controls-folded')));
  controls.id = controls.id || 'controls-fold';
  controls.prepend(b);
  set(window.matchMedia('(max-width: 600px)').matches);
}

/** Every plot redrawn on every size change (issue 32): a ResizeObserver on each canvas of the
 *  page. When a canvas's box no longer matches its backing store (box × devicePixelRatio) — the
 *  lesson column widened, an outcome box appeared, a plot was shown — the page's own resize
 *  handler redraws its plots at their new sizes (sizeCanvas), once per frame: a circle stays a
 *  circle. */
let plotsObserved = false;
function observePlots() {
  if (plotsObserved || typeof ResizeObserver === 'undefined') return;
  plotsObserved = true;
  const stale = (c) => {
    const dpr = window.devicePixelRatio || 1;
    return c.clientWidth > 0 && c.clientHeight > 0
      && (Math.round(c.clientWidth * dpr) !== c.width || Math.round(c.clientHeight * dpr) !== c.height);
  };
  const canvases = [...document.querySelectorAll('canvas')];
  let queued = false;
  let tries = 0;
  const redraw = () => {
    if (queued) return;
    queued = true;
    // Next frame, not inside the observer: a redraw that moves the layout starts no loop.
    requestAnimationFrame(() => {
      queued = false;
      window.dispatchEvent(new Event('resize'));
      // A page may put a redraw off (page B waits 100 ms, and draws nothing while its model is
      // being built): look again, and ask again while a canvas is still stale (a few times).
      setTimeout(() => {
        if (canvases.some(stale) && tries++ < 20) redraw();
        else if (!canvases.some(stale)) tries = 0;
      }, 250);
    });
  };
  const ro = new ResizeObserver((entries) => {
    if (entries.some((e) => stale(e.target))) { tries = 0; redraw(); }
  });
  for (const c of canvases) ro.observe(c);
}

/** Classroom mode alone (a page without a lesson). */
export function attachClassroom() {
  observePlots();
  addClassroomToggle();
  addControlsToggle();
  setClassroom(classroomFromUrl() || (lessonEmbedKind() !== null && !!lessonFromHash()?.id));
}

/**
 * Wire lessons and classroom mode into a page. `api` is the page's:
 *  - `load(spec)`: make `spec` the page's run, paused at iteration 0;
 *  - `player`: the page's Player (www/player.js);
 *  - `actions` (optional): named actions a step may run instead of Play (e.g. `race`);
 *  - `pausable` (optional): the actions whose run the Player plays (space pauses them);
 *  - `spec()` (optional): the page's spec as JSON text, as "Save spec" writes it (the lesson
 *    editor's "Add this state as a step").
 */
/** The lesson panel's markup, one template for the four pages (no text from the link); `keys`
 *  names the page's own shortcuts (page B refits, it has no play/pause or reset). */
const panelMarkup = (keys) => `
    <div class="lesson-head"><b id="lesson-title"></b> <span id="lesson-count"></span>
      <progress id="lesson-progress" max="1" value="0" aria-label="lesson progress"></progress></div>
    <p id="lesson-link-note" class="lesson-error" role="alert"></p>
    <h2 id="lesson-step-title" tabindex="-1"></h2>
    <div id="lesson-look" class="lesson-look"></div>
    <div id="lesson-predict" class="lesson-predict"></div>
    <p class="lesson-runrow"><button id="lesson-run" type="button">Run it</button> <span id="lesson-status" role="status" aria-live="polite"></span></p>
    <div id="lesson-explain" class="lesson-explain" tabindex="0" role="region" aria-label="explanation" hidden></div>
    <div class="lesson-nav"><button id="lesson-prev" type="button">← Previous</button> <button id="lesson-next" type="button">Next →</button> <button id="lesson-exit" type="button">Leave the lesson</button></div>
    <p class="lesson-keys">Keys (a clicker's): PageDown, → or space forward (run, then the next step) · PageUp or ← back · ↑/↓ scroll the explanation · Esc leaves a field · ${keys}</p>${lessonEmbedMarkup}`;

/** The "Open a lesson…" button (a file picker) and the line that reports a bad lesson. */
function addLessonOpener(openText) {
  const nav = document.querySelector('nav.papers');
  if (!nav || $('lesson-open')) return;
  const wrap = document.createElement('span');
  wrap.className = 'lesson-open';
  const b = document.createElement('button');
  b.type = 'button';
  b.id = 'lesson-open';
  b.textContent = 'Open a lesson…';
  b.title = 'a lesson file (docs/lessons.md), checked with kplay lesson check; or drop it on the page';
  const input = document.createElement('input');
  input.type = 'file';
  input.id = 'lesson-file';
  input.accept = '.json,application/json';
  input.hidden = true;
  const err = document.createElement('span');
  err.id = 'lesson-error';
  err.className = 'lesson-error';
  err.setAttribute('role', 'alert');
  b.addEventListener('click', () => input.click());
  input.addEventListener('change', () => {
    const f = input.files?.[0];
    input.value = '';
    if (f) openFile(f, openText);
  });
  wrap.append(b, input, err);
  ($('classroom-toggle') ?? nav).after(wrap);
  document.addEventListener('dragover', (ev) => {
    if ([...(ev.dataTransfer?.types ?? [])].includes('Files')) ev.preventDefault();
  });
  document.addEventListener('drop', (ev) => {
    const f = ev.dataTransfer?.files?.[0];
    if (!f || isTypingField(ev.target)) return;
    if (!/\.json$/i.test(f.name) && f.type !== 'application/json') return; // a CSV drop is the page's
    ev.preventDefault();
    ev.stopPropagation();
    openFile(f, openText);
  }, true);
}

/** Show (or clear) the message about a lesson that could not be opened. */
export function lessonError(msg) {
  const e = $('lesson-error');
  if (e) e.textContent = msg ? `This lesson cannot be opened: ${msg}` : '';
  document.body.dataset.lessonError = msg ? '1' : '0';
  delete document.body.dataset.linkRefused;
}

/** Say why a lesson link was refused (or only its step), in one or two screen lines. */
function linkRefused(msg) {
  // A lesson that opened all the same says it in its panel; else the line beside the buttons.
  const open = document.body.classList.contains('in-lesson') && $('lesson-link-note');
  const e = open ? $('lesson-link-note') : $('lesson-error');
  if (e) e.textContent = `This link was refused: ${msg}.`;
  document.body.dataset.lessonError = '1';
  document.body.dataset.linkRefused = msg;
}

async function openFile(file, openText) {
  if (file.size > MAX_LESSON_BYTES) { lessonError(`the file is ${file.size} bytes; at most ${MAX_LESSON_BYTES}`); return; }
  openText(await file.text());
}

/** The readouts of each page that show a measure of the run, and the measure: the core's table
 *  (src/lesson/measures.rs READOUTS; tests/lesson_elements.rs holds this copy equal to it).
 *  A step whose claim compares with an earlier step's measure shows that step's value beside
 *  the readout (markEarlier). */
export const READOUT_MEASURES = {
  'lp.html': { 'r-iter': 'iterations', 'r-gap': 'gap', 'r-relgap': 'rel_gap', 'r-primal': 'primal', 'r-dual': 'dual', 'r-status': 'status' },
  'mrlsr.html': { 'r-c0': 'solution.C0', 'r-norm': 'solution.norm_h', 'r-lambda2': 'solution.lambda2', 'r-fres': 'residual', 'r-obj': 'primal', 'r-iters': 'solution.root_iterations' },
  'dinuzzo.html': { 'r-sweep': 'iterations', 'r-objective': 'primal', 'r-gap': 'gap', 'r-residual': 'residual', 'r-maxh': 'max_h', 'r-support': 'solution.support_size', 'r-alpha': 'solution.alpha', 'r-status': 'status' },
  'perceptron.html': { 'r-iter': 'iterations', 'r-mingalpha': 'min_g_alpha', 'r-normp': 'norm_p_g', 'r-margin': 'solution.margin.rho', 'r-status': 'status' },
};

/** The earlier steps' measures a step's claims compare with: `[k, path]` of every `{"step":
 *  [k, path]}` in them (a support's `.len` read as the support readout's count). */
export function earlierMeasures(step) {
  const out = [];
  const walk = (q) => {
    if (!q || typeof q !== 'object') return;
    if (Array.isArray(q.step) && q.step.length === 2) {
      out.push([q.step[0], q.step[1].replace(/^solution\.support\.len$/, 'solution.support_size')]);
      return;
    }
    for (const v of Array.isArray(q) ? q : Object.values(q)) walk(v);
  };
  for (const c of step.claims ?? []) walk([c.lhs, c.rhs, c.range]);
  return out;
}

/** Is `page` (a lesson's `page`) the page this is? */
const samePage = (page) => PAGE_OF[Object.keys(PAGE_OF).find((k) => PAGE_OF[k] === page)] === (location.pathname.split('/').pop() || 'index.html');

export function attachLessons(api, paper) {
  attachClassroom();
  const panel = $('lesson');
  if (!panel.firstElementChild) panel.innerHTML = panelMarkup(paper === 'b' ? 'a run cannot be paused here' : 'space pauses a run · r reset');
  let cur = null; // { id, step, phase, lesson, data? }
  let watching = false;
  let loading = Promise.resolve(); // the step's load (a page may load asynchronously)
  let actionDone = false; // the step's action (if any) has finished
  attachLessonEmbed(() => (cur ? { id: cur.id, step: cur.step, data: cur.data } : null), [paper, 'own'].includes(lessonFromHash()?.id));

  const lessonOf = () => cur.lesson;

  function writeLessonHash() {
    const which = cur.data ? `lesson-data=${cur.data}` : `lesson=${cur.id}`;
    writeUrl({ hash: `${which}&step=${cur.step}` });
  }

  /** What each step's run left in the readouts (step → measure → text), recorded when its run
   *  ends; a later step that compares with it shows it ("step 4: 17") beside the readout. */
  const seen = new Map();
  function recordSeen() {
    const map = READOUT_MEASURES[lessonOf().page] ?? {};
    const got = {};
    for (const [id, path] of Object.entries(map)) if ($(id)) got[path] = $(id).textContent.trim();
    seen.set(`${cur.id}:${cur.step}`, got);
  }
  /** Beside each readout the step names or keeps, the earlier step's value its claims compare
   *  with (known once that step was run here): not this step's answer, so shown before the run. */
  function markEarlier(step) {
    for (const el of document.querySelectorAll('[data-earlier]')) delete el.dataset.earlier;
    if (!step) return;
    const map = READOUT_MEASURES[lessonOf().page] ?? {};
    const byPath = {};
    for (const [id, path] of Object.entries(map)) byPath[path] ??= id;
    const notes = {};
    for (const [k, path] of earlierMeasures(step)) {
      const id = byPath[path];
      const text = seen.get(`${cur.id}:${k}`)?.[path];
      if (!id || !text || text === '–') continue;
      const note = `step ${k}: ${text}`;
      if (!(notes[id] ?? []).includes(note)) (notes[id] ??= []).push(note);
    }
    for (const [id, list] of Object.entries(notes)) if ($(id)) $(id).dataset.earlier = list.join(' · ');
  }

  function setPhase(phase) {
    if (phase === 'explained' && cur.phase !== 'explained') recordSeen();
    cur.phase = phase;
    document.body.dataset.lessonPhase = phase;
    $('lesson-run').disabled = phase === 'running';
    $('lesson-run').textContent = phase === 'explained' ? 'Run it again' : 'Run it';
    $('lesson-explain').hidden = phase !== 'explained';
    for (const id of FOLDS) $(id).classList.remove('open');
    showFolds();
    showStatus();
    fitExplanation();
  }

  /** After the run the look text and the question fold to one line each (a click opens one
   *  again), so the explanation gets the column. */
  function showFolds() {
    for (const id of FOLDS) {
      const el = $(id);
      const folded = cur?.phase === 'explained' && !el.classList.contains('open');
      el.title = cur?.phase !== 'explained' ? '' : folded ? 'a click shows it in full' : 'a click folds it to one line';
      el.dataset.folded = folded ? '1' : '0'; // clipped on screen only: a screen reader reads it all
    }
  }

  /** Classroom mode on a wide screen: once the explanation shows, widen the lesson column (the
   *  plots shrink, and redraw: observePlots) until the whole explanation is in view, up to 60 %
   *  of the screen; if it still overflows, the look text's line goes, then the question's. What
   *  is still too long scrolls in its box (forward keys page through it, ↑/↓ scroll it). */
  function fitExplanation() {
    const body = document.body;
    body.style.removeProperty('--lesson-w');
    delete body.dataset.lessonFit;
    if (!cur || cur.phase !== 'explained' || !body.classList.contains('classroom') || !window.matchMedia('(min-width: 901px)').matches) return;
    const box = $('lesson-explain');
    const over = () => box.scrollHeight > box.clientHeight;
    if (!over()) return;
    const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
    const base = parseFloat(getComputedStyle(body).getPropertyValue('--lesson-w')) || 24;
    const most = (0.6 * window.innerWidth) / rem;
    // Not past what the rest of the row can give: the page never scrolls sideways.
    const se = document.scrollingElement;
    const wide = () => se.scrollWidth > se.clientWidth;
    let prev = null;
    for (let w = base + 2; w <= most + 1.99; w += 2) {
      body.style.setProperty('--lesson-w', `${Math.min(w, most).toFixed(2)}rem`);
      if (wide()) {
        if (prev) body.style.setProperty('--lesson-w', prev);
        else body.style.removeProperty('--lesson-w');
        break;
      }
      if (!over()) return;
      prev = body.style.getPropertyValue('--lesson-w');
    }
    for (const fit of ['no-look', 'no-look-predict']) {
      body.dataset.lessonFit = fit;
      if (!over()) return;
    }
  }

  /** Whether the page's Player plays the step's run (Play, or an action the page lists in
   *  `pausable`, e.g. page B's sweep): space pauses and resumes it. */
  const playerRuns = (step) => !step.action || (api.pausable ?? []).includes(step.action);

  /** The lesson's status line; a run paused midway says so (not "Running…"). */
  function showStatus() {
    const phase = cur.phase;
    const step = lessonOf().steps[cur.step - 1];
    const paused = phase === 'running' && playerRuns(step) && !api.player.playing && !api.player.engine.ended();
    $('lesson-status').textContent = phase === 'predict' ? 'Predict first, then press Run it (or space).'
      : paused ? 'Paused: space or Play goes on.'
        : phase === 'running' ? 'Running…' : 'The run has ended: here is what happened.';
  }

  /** Show only the controls the step names (classroom mode hides the others). */
  function markUses(step) {
    for (const el of document.querySelectorAll('.lesson-uses')) el.classList.remove('lesson-uses');
    for (const id of step.uses ?? []) {
      const el = $(id);
      if (!el) continue;
      el.classList.add('lesson-uses');
      el.closest('fieldset')?.classList.add('lesson-uses');
      el.closest('figure')?.classList.add('lesson-uses');
    }
    for (const id of step.figures ?? []) $(id)?.closest('figure')?.classList.add('lesson-uses');
    // The iteration count and the run's status stay beside the named readouts.
    for (const id of ['r-iter', 'r-sweep', 'r-status']) $(id)?.classList.add('lesson-keep');
    // A step that names no plot still shows the page's first one.
    const plots = document.querySelector('section.plots');
    if (plots && !plots.querySelector('figure.lesson-uses')) plots.querySelector('figure')?.classList.add('lesson-uses');
    // The plots take their new sizes (classroom mode shows only these) and redraw.
    if (document.body.classList.contains('classroom')) window.dispatchEvent(new Event('resize'));
  }

  /** What would give the step's answer away before its run: the elements the step lists in
   *  `hide_until_run` (class .lesson-hidden) and those the page marks `data-reveal="after-run"`
   *  (every step) stay hidden (style.css) until the run has ended and the explanation shows. */
  function markHidden(step) {
    for (const el of document.querySelectorAll('.lesson-hidden')) el.classList.remove('lesson-hidden');
    for (const id of step.hide_until_run ?? []) $(id)?.classList.add('lesson-hidden');
  }

  function show() {
    const L = lessonOf();
    const step = L.steps[cur.step - 1];
    lessonMode.active = true;
    panel.hidden = false;
    document.body.classList.add('in-lesson');
    document.body.dataset.lesson = cur.id;
    document.body.dataset.lessonStep = String(cur.step);
    $('lesson-title').textContent = L.title;
    $('lesson-progress').max = L.steps.length;
    $('lesson-progress').value = cur.step;
    $('lesson-count').textContent = `Step ${cur.step} of ${L.steps.length}`;
    $('lesson-step-title').textContent = step.title;
    // Lesson text (a file's or a link's too) becomes DOM nodes, never markup (lesson-text.js);
    // {=id} quotes the number the step's claim `id` states (checked by kplay lesson check).
    const quote = (id) => {
      const c = step.claims.find((x) => x.id === id);
      return c && typeof c.rhs?.value === 'number' ? quoteNumber(c.rhs.value) : '?';
    };
    renderText($('lesson-look'), step.look, quote);
    renderText($('lesson-predict'), step.predict, quote);
    renderText($('lesson-explain'), step.explain, quote);
    $('lesson-prev').disabled = cur.step === 1;
    $('lesson-next').disabled = cur.step === L.steps.length;
    markUses(step);
    markHidden(step);
    markEarlier(step);
    writeLessonHash();
    loading = loadStep(step);
    if (step.speed && !api.player.urlSpeed) api.player.setRate(step.speed === 'max' ? Infinity : step.speed, false);
    setPhase('predict');
  }

  /** Load a step's spec into the page; a spec the page refuses (a value its controls cannot
   *  hold, form.js) shows the page's message naming the step and the field, never an uncaught
   *  error. */
  function loadStep(step) {
    const failed = (e) => showError(`Lesson step ${cur.step}: ${e.message ?? e}`);
    try {
      return Promise.resolve(api.load(structuredClone(step.spec))).catch(failed);
    } catch (e) {
      failed(e);
      return Promise.resolve();
    }
  }

  function go(k) {
    const n = lessonOf().steps.length;
    if (k < 1 || k > n) return;
    $('lesson-link-note').textContent = '';
    cur = { ...cur, step: k, phase: 'predict' };
    show();
    $('lesson-step-title').focus({ preventScroll: true });
  }

  function finished() {
    const step = lessonOf().steps[cur.step - 1];
    if (step.action) return actionDone && (!step.until || document.body.dataset[step.until[0]] === step.until[1]);
    return api.player.engine.ended();
  }

  function watch() {
    if (!cur || cur.phase !== 'running') { watching = false; return; }
    if (finished()) {
      setPhase('explained');
      watching = false;
      return;
    }
    requestAnimationFrame(watch);
  }

  async function run() {
    const step = lessonOf().steps[cur.step - 1];
    const me = cur;
    if (cur.phase === 'explained') loading = loadStep(step);
    setPhase('running');
    await loading;
    if (cur !== me) return; // the class moved on meanwhile
    actionDone = false;
    if (step.action) {
      try {
        await api.actions[step.action](step);
      } finally {
        actionDone = true;
      }
    } else api.player.setPlaying(true);
    if (!watching) { watching = true; requestAnimationFrame(watch); }
  }

  $('lesson-prev').addEventListener('click', () => go(cur.step - 1));
  $('lesson-next').addEventListener('click', () => go(cur.step + 1));
  $('lesson-run').addEventListener('click', run);
  for (const id of FOLDS) {
    $(id).addEventListener('click', (ev) => {
      if (!cur || cur.phase !== 'explained' || ev.target.closest?.('a')) return;
      $(id).classList.toggle('open');
      showFolds();
      fitExplanation();
    });
  }
  window.addEventListener('resize', () => fitExplanation());
  $('lesson-exit').addEventListener('click', () => {
    cur = null;
    markHidden({});
    markEarlier(null);
    lessonMode.active = false;
    panel.hidden = true;
    document.body.classList.remove('in-lesson');
    delete document.body.dataset.lesson;
    api.player.arrowsTaken = false;
    writeUrl({ hash: '' });
  });
  // Reset (the button or r) takes the run back to its start: the explanation of the run that is
  // gone goes with it. Paused, the step asks again (Run it); playing (Play after the end), the
  // step is running again and explains itself at the end.
  api.player.onReset?.push(() => {
    if (!cur || lessonOf().steps[cur.step - 1].action) return;
    if (!api.player.playing) {
      if (cur.phase !== 'predict') setPhase('predict');
    } else if (cur.phase !== 'running') {
      setPhase('running');
      if (!watching) { watching = true; requestAnimationFrame(watch); }
    }
  });
  // Hook for phones (issue 32 §10, www/phone.js): a tap on a plot that changed the data started a
  // new run; the explanation of the old one goes, the new run waits at its start, the step asks
  // its question again (Run it runs it on the new data).
  window.addEventListener('kplay:data-changed', () => {
    if (!cur || cur.phase === 'running' || lessonOf().steps[cur.step - 1].action) return;
    api.player.setPlaying(false);
    setPhase('predict');
  });
  api.player.onPlaying?.push(() => { if (cur && cur.phase === 'running') showStatus(); });
  // The keys a presenter's clicker sends (reveal.js's): PageDown, → and space go forward (before
  // the run: run it; after the explanation: the next step — never a re-run), PageUp and ← back.
  // They work whatever control has focus: no button, menu, box or slider keeps them (a focused
  // button does not take space, the speed slider does not take →). A text or number field keeps
  // → and space while typing; PageDown and PageUp work there too, and Esc leaves the field.
  // While the step runs, space pauses and resumes it (PageDown and → do nothing). An explanation
  // too long for its box (only on screens smaller than a projector's 1280 × 720): forward pages
  // through it before going on, back pages up before going back; ↑/↓ scroll it a line, End and
  // Home to its end and start. An embedded step (no next step) pages its frame instead.
  const explainBox = () => $('lesson-explain');
  const oneStep = () => document.body.classList.contains('embed-step'); // an embedded step stays
  const overflows = (box) => !box.hidden && box.scrollHeight > box.clientHeight + 1;
  function forward() {
    if (cur.phase === 'predict') { run(); return; }
    if (cur.phase !== 'explained') return;
    const box = explainBox();
    if (overflows(box) && box.scrollTop + box.clientHeight < box.scrollHeight - 1) {
      box.scrollBy({ top: Math.max(box.clientHeight - 40, 40) });
      return;
    }
    if (!oneStep()) go(cur.step + 1);
    else pageBy(1);
  }
  function back() {
    const box = explainBox();
    if (cur.phase === 'explained' && overflows(box) && box.scrollTop > 0) {
      box.scrollBy({ top: -Math.max(box.clientHeight - 40, 40) });
      return;
    }
    if (!oneStep()) go(cur.step - 1);
    else pageBy(-1);
  }
  /** An embedded step has no next step: in a narrow frame (the one-column layout, where the
   *  explanation is part of the page, not a box) forward and back page the frame instead. */
  function pageBy(sign) {
    window.scrollBy({ top: sign * Math.max(innerHeight - 40, 40) });
  }
  // A caption folded to two lines in classroom mode (style.css) opens on a click, and folds again;
  // so does an outcome folded to three.
  document.addEventListener('click', (ev) => {
    if (!document.body.classList.contains('classroom') || ev.target.closest?.('button, input, select, a')) return;
    const cap = ev.target.closest?.('.plots figcaption');
    if (cap) cap.classList.toggle('caption-open');
    const out = ev.target.closest?.('.outcome');
    if (out) out.classList.toggle('outcome-open');
  });
  const ownArrows = (t) => t?.tagName === 'SELECT' || (t?.tagName === 'INPUT' && ['range', 'radio'].includes(t.type));
  document.addEventListener('keydown', (ev) => {
    if (!cur || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const t = ev.target;
    const typing = isTypingField(t);
    if (ev.key === 'Escape') {
      if (typing || ownArrows(t)) { t.blur(); ev.preventDefault(); }
      return;
    }
    const space = ev.key === ' ' || ev.code === 'Space';
    const page = ev.key === 'PageDown' || ev.key === 'PageUp';
    if (typing && !page) return;
    const step = lessonOf().steps[cur.step - 1];
    if (space || ev.key === 'PageDown' || ev.key === 'ArrowRight') {
      ev.preventDefault();
      ev.stopImmediatePropagation();
      if (space && cur.phase === 'running') {
        if (playerRuns(step)) api.player.toggle?.();
        return;
      }
      forward();
    } else if (ev.key === 'PageUp' || ev.key === 'ArrowLeft') {
      ev.preventDefault();
      ev.stopImmediatePropagation();
      back();
    } else if ((ev.key === 'End' || ev.key === 'Home') && !typing && !ownArrows(t) && cur.phase === 'explained') {
      // End / Home: the explanation's end or start (the box when it scrolls, else the page).
      const box = explainBox();
      ev.preventDefault();
      if (overflows(box)) box.scrollTo({ top: ev.key === 'End' ? box.scrollHeight : 0 });
      else window.scrollTo({ top: ev.key === 'End' ? document.scrollingElement.scrollHeight : 0 });
    } else if ((ev.key === 'ArrowDown' || ev.key === 'ArrowUp') && !ownArrows(t) && cur.phase === 'explained') {
      const box = explainBox();
      if (t === box || !overflows(box)) return; // the focused box scrolls itself
      ev.preventDefault();
      box.scrollBy({ top: ev.key === 'ArrowDown' ? 40 : -40 });
    }
  }, true);

  /** Start `lesson` (validated) at step k; `data` is its link data for a lecturer's lesson. */
  function start(id, lesson, k, data) {
    const n = lesson.steps.length;
    cur = { id, lesson, data, step: Math.min(Math.max(k, 1), n), phase: 'predict' };
    api.player.arrowsTaken = true;
    lessonError('');
    show();
  }

  let opening = 0; // the latest open wins
  /** Open a lesson from the hash (a built-in id or link data): async, since it is fetched,
   *  inflated and validated; returns whether the hash names a lesson for this page. */
  function fromHash() {
    const l = lessonFromHash();
    if (l?.refused) linkRefused(l.refused);
    if (l?.id && l.id !== 'own' && l.id !== paper) {
      linkRefused(`lesson ${l.id} plays on ${PAGE_OF[l.id]}, not on this page`);
    }
    if (!l?.id || (l.id !== 'own' && l.id !== paper)) {
      if (!cur) lessonMode.active = false;
      return false;
    }
    if (cur && cur.id === l.id && cur.data === l.data) {
      if (l.stepRefused) linkRefused(l.stepRefused);
      else if (l.step > lessonOf().steps.length) linkRefused(`step ${l.step}: this lesson has ${lessonOf().steps.length} steps`);
      else if (l.step !== cur.step) go(l.step);
      return true;
    }
    lessonMode.active = true;
    const me = ++opening;
    (async () => {
      try {
        const text = l.data ? await decodeLesson(l.data)
          : await (await fetch(new URL(BUILTIN[l.id], location.href))).text();
        const lesson = parseLesson(text);
        if (me !== opening) return;
        if (!samePage(lesson.page)) {
          throw new Error(`page: this lesson plays on ${lesson.page}`);
        }
        start(l.id, lesson, l.step, l.data);
        const n = lesson.steps.length;
        if (l.stepRefused) linkRefused(l.stepRefused);
        else if (l.step > n) linkRefused(`step ${l.step}: this lesson has ${n} steps, showing step ${n}`);
      } catch (e) {
        if (me !== opening) return;
        if (!cur) lessonMode.active = false;
        lessonError(e.message ?? String(e));
      }
    })();
    return true;
  }

  /** Open a lecturer's lesson from its JSON text (a file): validate, then play it here or on
   *  its own page (the link carries it there). */
  async function openText(text) {
    let lesson;
    try {
      lesson = parseLesson(text);
    } catch (e) {
      lessonError(e.message ?? String(e));
      return;
    }
    const data = await encodeLesson(text);
    if (!samePage(lesson.page)) {
      location.assign(`${lesson.page}${location.search}#lesson-data=${data}&step=1`);
      return;
    }
    ++opening;
    lessonMode.active = true;
    start('own', lesson, 1, data);
  }
  addLessonOpener(openText);
  // The lesson editor (www/lesson-editor.js): Try it opens its lesson as a file opens.
  attachEditor({ spec: api.spec, load: api.load, player: api.player, paper, pageOf: PAGE_OF, builtin: BUILTIN, parseLesson, encodeLesson, openText });

  onLessonHash(fromHash);
  // A link refused outright: the page's start-up has put its own #spec= in the hash by now.
  if (linkAtLoad?.refused && !lessonFromHash()) linkRefused(linkAtLoad.refused);
  return fromHash();
}
