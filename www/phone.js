// Students on a phone (issue 32 §10). On the one-column page the plot sits far below the lesson's
// Run it button: when a run starts on a narrow screen and the step's plot is not on screen, the
// view scrolls to it. A tap on a plot that changes the data (pages C and D add a point) starts a
// new run: the step's explanation, about the run now gone, must not stay up, so the page asks
// the lesson (www/lesson.js listens for 'kplay:data-changed') to go back to its question.
// Nothing here runs inside a lesson embed: an iframe must never scroll the course page around it.

/** The one-column layout (style.css: main's grid turns to one column at 900 px). */
const NARROW = '(max-width: 900px)';

/** The plot the current step looks at: the first figure the step names, else the page's first. */
export function stepPlot() {
  const plots = document.querySelector('section.plots');
  if (!plots) return null;
  const fig = [...plots.querySelectorAll('figure.lesson-uses')].find((f) => f.getClientRects().length > 0)
    ?? [...plots.querySelectorAll('figure')].find((f) => f.getClientRects().length > 0);
  return fig?.querySelector('canvas') ?? null;
}

/** Is the canvas wholly inside the viewport? */
function inView(c) {
  const r = c.getBoundingClientRect();
  return r.top >= 0 && r.bottom <= window.innerHeight;
}

/** Scroll the step's plot into view (its figure's top at the top of the screen when the figure
 *  fits, else the canvas's); smoothly unless the reader asks for reduced motion or `smoothly`
 *  is false. */
export function showStepPlot(smoothly = true) {
  const c = stepPlot();
  if (!c || inView(c)) return false;
  const fig = c.closest('figure');
  const target = fig && fig.getBoundingClientRect().height <= window.innerHeight ? fig : c;
  const smooth = smoothly && !window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  if (smooth) {
    smoothScrolling = true;
    document.body.dataset.plotScroll = 'moving';
  }
  target.scrollIntoView({ block: 'start', behavior: smooth ? 'smooth' : 'auto' });
  document.body.dataset.plotFollowed = String(Number(document.body.dataset.plotFollowed || 0) + 1);
  return true;
}

let attached = false;
let smoothScrolling = false; // a smooth scroll to the plot is under way (until 'scrollend')
let recheck = false; // the layout moved during it: look again when it ends

/** Wire the phone behaviours once per page (called by lesson-embed.js's attachLessonEmbed). */
export function attachPhone() {
  if (attached) return;
  attached = true;
  const body = document.body;
  // A run starts (the lesson's phase turns to 'running'): follow it to the plot. When it ends, the
  // explanation opens above the plot and pushes it down: the view follows the plot again (at
  // once), so the run's last picture stays on screen; the explanation is just above it.
  let phase = body.dataset.lessonPhase;
  let following = false;
  new MutationObserver(() => {
    const now = body.dataset.lessonPhase;
    if (now === phase) return;
    phase = now;
    if (body.classList.contains('lesson-embed') || !window.matchMedia(NARROW).matches) return;
    if (now === 'running') {
      following = true;
      // After this frame's layout (the run row's status text may have just changed).
      requestAnimationFrame(() => { if (phase === 'running') showStepPlot(); });
    } else if (now === 'explained' && following) {
      following = false;
      // A smooth scroll still under way aims at where the plot was: look again when it ends.
      requestAnimationFrame(() => { if (smoothScrolling) recheck = true; else showStepPlot(false); });
    } else following = false;
  }).observe(body, { attributes: true, attributeFilter: ['data-lesson-phase'] });
  window.addEventListener('scrollend', () => {
    smoothScrolling = false;
    if (recheck) {
      recheck = false;
      showStepPlot(false);
    }
    body.dataset.plotScroll = 'still';
  });
  // A tap (a click) on a plot that started a new run: the run id changed between the window's
  // capture listener (before the page's handler) and its bubble listener (after it).
  let before = null;
  window.addEventListener('click', () => { before = body.dataset.runId; }, true);
  window.addEventListener('click', (ev) => {
    if (!(ev.target instanceof HTMLCanvasElement) || !body.classList.contains('in-lesson')) return;
    if (body.dataset.runId === before) return;
    window.dispatchEvent(new CustomEvent('kplay:data-changed', { detail: { by: 'tap' } }));
  });
}
