// Guided lessons and classroom mode, shared by the pages.
//
// A lesson is a list of steps (www/lessons.js). A step sets the page to a spec (paused at
// iteration 0), says what to look at, asks the class to predict, runs when asked (the Run
// button, or space), and once the run has ended shows the explanation with the paper's formula.
// The state lives in the URL: `#lesson=a&step=5` (a lecturer can send students to step 5);
// `?classroom=1` (or the Classroom button) hides the controls the step does not use and
// enlarges type and plots for a projector. Keyboard: ←/→ = previous/next step.
//
// Only the lesson's id and step number are read from the URL, and both are checked against the
// lessons that exist; no URL text is ever put into the page as markup.
import { $, lessonMode, isTypingField, spaceIsOwn } from './common.js';
import { LESSONS } from './lessons.js';
import { lessonEmbedKind, lessonEmbedMarkup, attachLessonEmbed } from './lesson-embed.js';

/** `{ id, step }` from `#lesson=<id>&step=<k>` when both are valid, else null. */
export function lessonFromHash() {
  const m = location.hash.match(/^#lesson=([a-z]+)(?:&step=(\d{1,3}))?$/);
  if (!m || !Object.prototype.hasOwnProperty.call(LESSONS, m[1])) return null;
  const n = LESSONS[m[1]].steps.length;
  const k = Math.min(Math.max(Number(m[2] ?? 1), 1), n);
  return { id: m[1], step: k };
}

// A lesson link owns the URL hash from the start: the page's start-up must not overwrite it with
// its own #spec= before attachLessons runs (this module is evaluated before the page's script).
if (lessonFromHash()) lessonMode.active = true;

const classroomFromUrl = () => new URLSearchParams(location.search).get('classroom') === '1';

function setQuery(key, value) {
  const q = new URLSearchParams(location.search);
  if (value === null) q.delete(key); else q.set(key, value);
  const qs = q.toString();
  history.replaceState(null, '', `${location.pathname}${qs ? `?${qs}` : ''}${location.hash}`);
}

/** Classroom mode on or off (body class, URL flag, button state). */
function setClassroom(on) {
  document.body.classList.toggle('classroom', on);
  document.documentElement.classList.toggle('classroom', on); // the root size: every rem grows
  document.body.dataset.classroom = on ? '1' : '0';
  setQuery('classroom', on ? '1' : null);
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

export function attachLessons(api, paper) {
  attachClassroom();
  const panel = $('lesson');
  if (!panel.firstElementChild) panel.innerHTML = panelMarkup(paper === 'b' ? 'space run' : 'space run/pause · r reset');
  let cur = null; // { id, step, phase }
  let watching = false;
  let loading = Promise.resolve(); // the step's load (a page may load asynchronously)
  let actionDone = false; // the step's action (if any) has finished
  attachLessonEmbed(() => (cur ? { id: cur.id, step: cur.step } : null), lessonFromHash()?.id === paper);

  const lessonOf = () => LESSONS[cur.id];

  function writeLessonHash() {
    history.replaceState(null, '', `${location.pathname}${location.search}#lesson=${cur.id}&step=${cur.step}`);
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
    // Lesson text is the project's own static content (www/lessons.js), never URL text.
    $('lesson-look').innerHTML = step.look;
    $('lesson-predict').innerHTML = step.predict;
    $('lesson-explain').innerHTML = step.explain;
    $('lesson-prev').disabled = cur.step === 1;
    $('lesson-next').disabled = cur.step === L.steps.length;
    markUses(step);
    writeLessonHash();
    loading = Promise.resolve(api.load(structuredClone(step.spec)));
    if (step.speed && !api.player.urlSpeed) api.player.setRate(step.speed === 'max' ? Infinity : step.speed, false);
    setPhase('predict');
  }

  function go(k) {
    const n = lessonOf().steps.length;
    if (k < 1 || k > n) return;
    cur = { id: cur.id, step: k, phase: 'predict' };
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
    if (cur.phase === 'explained') loading = Promise.resolve(api.load(structuredClone(step.spec)));
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
    history.replaceState(null, '', `${location.pathname}${location.search}`);
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

  function fromHash() {
    const l = lessonFromHash();
    if (!l || l.id !== paper) {
      if (!cur) lessonMode.active = false;
      return false;
    }
    cur = { ...l, phase: 'predict' };
    api.player.arrowsTaken = true;
    show();
    return true;
  }
  window.addEventListener('hashchange', fromHash);
  return fromHash();
}
