// Guided lessons and classroom mode, shared by the pages.
//
// A lesson is a data file (docs/lessons.md): the built-in ones are www/lessons/{a,b,c,d}.json;
// a lecturer's own opens from a file (the "Open a lesson…" button, or dropped on the page) or
// from a link that carries it (`#lesson-data=<base64url>`: "z" + deflate-raw or "j" + plain
// JSON). Every lesson, built-in or not, is validated by the wasm `checkLesson` — the Rust parser
// `kplay lesson check` uses — before anything of it is shown; an invalid one gives a message
// naming the field and the page keeps working. Lesson text is rendered by www/lesson-text.js
// into DOM nodes (never as HTML).
//
// A step sets the page to a spec (paused at iteration 0), says what to look at, asks the class
// to predict, runs when asked (the Run button, or space), and once the run has ended shows the
// explanation. The state lives in the URL: `#lesson=a&step=5`; `?classroom=1` (or the Classroom
// button) hides the controls the step does not use and enlarges type and plots for a projector.
// Keyboard: ←/→ = previous/next step.
import { $, lessonMode, isTypingField, spaceIsOwn, showError } from './common.js';
import { renderText, quoteNumber } from './lesson-text.js';
import { readUrl, queryParam, writeUrl } from './url.js';
import { resolveLesson } from './pkg/kernel_playground.js';
import { lessonEmbedKind, lessonEmbedMarkup, attachLessonEmbed } from './lesson-embed.js';

/** The built-in lessons: id → file (relative to the page). */
export const BUILTIN = { a: 'lessons/a.json', b: 'lessons/b.json', c: 'lessons/c.json', d: 'lessons/d.json' };
const PAGE_OF = { a: 'lp.html', b: 'mrlsr.html', c: 'dinuzzo.html', d: 'perceptron.html' };
/** The largest lesson (bytes of JSON) a file or link may carry: the Rust parser's MAX_BYTES. */
export const MAX_LESSON_BYTES = 256 * 1024;

/** `{ id, step, data? }` from `#lesson=<id>&step=<k>` or `#lesson-data=<b64>&step=<k>`, else null. */
export function lessonFromHash() {
  const { hash } = readUrl();
  const b = hash.match(/^lesson=([a-d])(?:&step=(\d{1,3}))?$/);
  if (b) return { id: b[1], step: Number(b[2] ?? 1) };
  const d = hash.match(/^lesson-data=([jz][A-Za-z0-9_-]{1,400000})(?:&step=(\d{1,3}))?$/);
  if (d) return { id: 'own', data: d[1], step: Number(d[2] ?? 1) };
  return null;
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
if (lessonFromHash()) lessonMode.active = true;

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

/** Classroom mode alone (a page without a lesson). */
export function attachClassroom() {
  addClassroomToggle();
  addControlsToggle();
  setClassroom(classroomFromUrl() || (lessonEmbedKind() !== null && lessonFromHash() !== null));
}

/**
 * Wire lessons and classroom mode into a page. `api` is the page's:
 *  - `load(spec)`: make `spec` the page's run, paused at iteration 0;
 *  - `player`: the page's Player (www/player.js);
 *  - `actions` (optional): named actions a step may run instead of Play (e.g. `race`).
 */
/** The lesson panel's markup, one template for the four pages (no text from the link); `keys`
 *  names the page's own shortcuts (page B refits, it has no play/pause or reset). */
const panelMarkup = (keys) => `
    <div class="lesson-head"><b id="lesson-title"></b> <span id="lesson-count"></span>
      <progress id="lesson-progress" max="1" value="0" aria-label="lesson progress"></progress></div>
    <h2 id="lesson-step-title" tabindex="-1"></h2>
    <div id="lesson-look" class="lesson-look"></div>
    <div id="lesson-predict" class="lesson-predict"></div>
    <p class="lesson-runrow"><button id="lesson-run" type="button">Run it</button> <span id="lesson-status" role="status" aria-live="polite"></span></p>
    <div id="lesson-explain" class="lesson-explain" hidden></div>
    <div class="lesson-nav"><button id="lesson-prev" type="button">← Previous</button> <button id="lesson-next" type="button">Next →</button> <button id="lesson-exit" type="button">Leave the lesson</button></div>
    <p class="lesson-keys">Keys: ←/→ previous/next step · ${keys}</p>${lessonEmbedMarkup}`;

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
}

async function openFile(file, openText) {
  if (file.size > MAX_LESSON_BYTES) { lessonError(`the file is ${file.size} bytes; at most ${MAX_LESSON_BYTES}`); return; }
  openText(await file.text());
}

/** Is `page` (a lesson's `page`) the page this is? */
const samePage = (page) => PAGE_OF[Object.keys(PAGE_OF).find((k) => PAGE_OF[k] === page)] === (location.pathname.split('/').pop() || 'index.html');

export function attachLessons(api, paper) {
  attachClassroom();
  const panel = $('lesson');
  if (!panel.firstElementChild) panel.innerHTML = panelMarkup(paper === 'b' ? 'space run' : 'space run/pause · r reset');
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

  function setPhase(phase) {
    cur.phase = phase;
    document.body.dataset.lessonPhase = phase;
    $('lesson-run').disabled = phase === 'running';
    $('lesson-run').textContent = phase === 'explained' ? 'Run it again' : 'Run it';
    $('lesson-explain').hidden = phase !== 'explained';
    showStatus();
  }

  /** The lesson's status line; a run paused midway says so (not "Running…"). */
  function showStatus() {
    const phase = cur.phase;
    const step = lessonOf().steps[cur.step - 1];
    const paused = phase === 'running' && !step.action && !api.player.playing && !api.player.engine.ended();
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
  $('lesson-exit').addEventListener('click', () => {
    cur = null;
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
  // The lesson's keys work whatever control has focus (after the speed slider was touched, →
  // is the next step, not a faster speed), except while typing in a text or number field.
  document.addEventListener('keydown', (ev) => {
    if (!cur || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (isTypingField(ev.target)) return;
    if (ev.key === 'ArrowLeft') { ev.preventDefault(); go(cur.step - 1); }
    else if (ev.key === 'ArrowRight') { ev.preventDefault(); go(cur.step + 1); }
    else if ((ev.key === ' ' || ev.code === 'Space') && cur.phase === 'predict' && !spaceIsOwn(ev.target)) {
      ev.preventDefault();
      ev.stopImmediatePropagation();
      run();
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
    if (!l || (l.id !== 'own' && l.id !== paper)) {
      if (!cur) lessonMode.active = false;
      return false;
    }
    if (cur && cur.id === l.id && cur.data === l.data) {
      if (l.step !== cur.step) go(l.step);
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

  window.addEventListener('hashchange', fromHash);
  return fromHash();
}
