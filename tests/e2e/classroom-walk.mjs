// The lecturer's walk of issue 32: every step of a lesson at 1280 × 720 in classroom mode, driven
// by a clicker's keys only (PageDown and space, alternately), measured before the run and after
// the explanation. Used by classroom.test.mjs (asserts) and screenshots-classroom.mjs (writes
// docs/classroom/<lesson>-<step>-before.png and <lesson>-<step>.png). Every wait is for a state of
// the page (the lesson's phase and step, the plots' backing stores), never for a time.
import path from 'node:path';
import { LESSONS } from './lesson-files.mjs';

export const VIEW = { width: 1280, height: 720 };
export const PAGE = { a: 'lp.html', b: 'mrlsr.html', c: 'dinuzzo.html', d: 'perceptron.html' };
/** The largest difference between a canvas's backing-store aspect and its box's. */
export const ASPECT_TOL = 0.02;
/** The smallest text (px) of a step in classroom mode. */
export const MIN_TEXT_PX = 18;
/** The least height (px) of a shown plot at 1280 × 720: a plot the class can read, not a strip
 *  under its caption and readouts. */
export const MIN_PLOT_PX = 200;

/** What a lecturer sees, measured in the page: page scroll, the explanation box, every shown
 *  canvas's aspect (box and backing store), the step's hidden-until-run elements, and the
 *  smallest text in the lesson panel and the shown controls, readouts and plots (HTML and
 *  MathML sub- and superscripts excepted: they are smaller by design). */
export const measure = (page, uses = []) => page.evaluate(({ minPx, uses }) => {
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const se = document.scrollingElement;
  const box = document.getElementById('lesson-explain');
  const canvases = [...document.querySelectorAll('canvas')].filter((c) => shown(c) && c.clientWidth > 0 && c.clientHeight > 0)
    .map((c) => {
      const dpr = window.devicePixelRatio || 1;
      const boxA = c.clientHeight / c.clientWidth;
      const storeA = c.height / c.width;
      return { id: c.id, box: [c.clientWidth, c.clientHeight], store: [c.width, c.height], dpr, err: Math.abs(storeA / boxA - 1) };
    });
  const reveal = [...document.querySelectorAll('[data-reveal=after-run], .lesson-hidden')].map((el) => ({
    id: el.id || `${el.tagName.toLowerCase()}:${el.textContent.slice(0, 30)}`,
    rendered: el.getClientRects().length > 0 && !el.closest('[hidden]') && el.closest('figure, fieldset, dl, section, #lesson')?.getClientRects().length > 0,
    visible: shown(el),
  }));
  // Text nodes of the step: in the lesson panel and the page's main area, rendered.
  const small = [];
  const scripted = (n) => {
    if (n.parentElement.closest('sub, sup')) return true;
    for (let e = n.parentElement; e && e.namespaceURI === 'http://www.w3.org/1998/Math/MathML'; e = e.parentElement) {
      const p = e.parentElement;
      if (p && ['msub', 'msup', 'msubsup', 'munder', 'mover', 'munderover'].includes(p.localName) && p.firstElementChild !== e) return true;
    }
    return false;
  };
  for (const root of [document.getElementById('lesson'), document.querySelector('main')]) {
    if (!root) continue;
    const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = w.nextNode(); n; n = w.nextNode()) {
      if (!n.textContent.trim() || !n.parentElement || scripted(n)) continue;
      const r = document.createRange();
      r.selectNodeContents(n);
      const rect = r.getBoundingClientRect();
      if (!rect.width || !rect.height || !shown(n.parentElement)) continue;
      const px = parseFloat(getComputedStyle(n.parentElement).fontSize);
      if (px < minPx - 0.05) small.push({ px: Math.round(px * 10) / 10, where: (n.parentElement.id || n.parentElement.className || n.parentElement.localName), text: n.textContent.trim().slice(0, 24) });
    }
  }
  return {
    step: document.body.dataset.lessonStep,
    phase: document.body.dataset.lessonPhase,
    scroll: [se.scrollWidth, se.scrollHeight],
    explain: box && !box.hidden ? { scroll: box.scrollHeight, client: box.clientHeight } : null,
    canvases,
    reveal,
    small,
    lessonW: getComputedStyle(document.body).getPropertyValue('--lesson-w').trim(),
    // The controls, readouts and plots the step names, the question and Run it: on the screen
    // (the question's folded line may give its room to the explanation, as issue 32 allows,
    // only where the page's fit says so: data-lesson-fit = no-look-predict).
    offScreen: [...uses, ...(document.body.dataset.lessonFit === 'no-look-predict' ? [] : ['lesson-predict']), 'lesson-run', 'lesson-next'].filter((id) => {
      const el = document.getElementById(id);
      if (!el || el.getClientRects().length === 0) return true;
      const r = el.getBoundingClientRect();
      return !(r.height > 0 && r.top >= -0.5 && r.left >= -0.5 && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5);
    }),
  };
}, { minPx: MIN_TEXT_PX, uses });

/** All the page's shown canvases have a backing store of their box's aspect (a state to wait for). */
const canvasesSettled = (tol) => [...document.querySelectorAll('canvas')].every((c) => {
  if (c.getClientRects().length === 0 || !c.clientWidth || !c.clientHeight) return true;
  return Math.abs((c.height / c.width) / (c.clientHeight / c.clientWidth) - 1) <= tol;
});

/**
 * Walk lesson `id` in browser `b` from `url` (the server's base URL). Returns one row per step and
 * phase with the figures (`ok` flags per check), and `failures` (strings). `shots`: a directory
 * for screenshots. Each step: wait for its question; measure; a forward key (PageDown on odd
 * steps, space on even ones) runs it; wait for the explanation; measure; a forward key (the
 * other one) goes on, pressed again while the explanation pages (only if it overflows).
 */
export async function walk(b, url, id, { shots = null, log = () => {} } = {}) {
  const L = LESSONS[id];
  const ctx = await b.newContext({ viewport: VIEW, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${url}${PAGE[id]}?classroom=1&speed=max#lesson=${id}&step=1`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  const rows = [];
  for (let k = 1; k <= L.steps.length; k++) {
    const keys = k % 2 ? ['PageDown', 'Space'] : ['Space', 'PageDown'];
    await page.waitForFunction((k) => document.body.dataset.lessonStep === String(k) && document.body.dataset.lessonPhase === 'predict', k, { timeout: 60000 });
    for (const phase of ['before', 'after']) {
      if (phase === 'after') {
        await page.keyboard.press(keys[0]);
        await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 300000 });
      }
      // Page B decomposes K in a worker when a step changes its data or kernel, and its busy line
      // (one line of text above the plot) leaves when that ends: wait for that state first, or the
      // plot's box changes after it was measured as settled.
      await page.waitForFunction(() => document.body.dataset.computing !== '1', null, { timeout: 60000 });
      // The plots redraw at their new sizes (ResizeObserver): wait for that state, bounded.
      const settled = await page.waitForFunction(canvasesSettled, ASPECT_TOL, { timeout: 10000 }).then(() => true, () => false);
      const m = await measure(page, phase === 'after' ? L.steps[k - 1].uses : []);
      const ok = {
        noScroll: m.scroll[0] <= VIEW.width && m.scroll[1] <= VIEW.height,
        explainFits: phase === 'before' ? true : !!m.explain && m.explain.scroll <= m.explain.client,
        aspect: settled && m.canvases.every((c) => c.err <= ASPECT_TOL),
        plotRoom: m.canvases.every((c) => c.box[1] >= MIN_PLOT_PX),
        hiddenBeforeRun: phase === 'before' ? m.reveal.every((r) => !r.visible) : m.reveal.every((r) => !r.rendered || r.visible),
        onScreen: m.offScreen.length === 0,
        text18: m.small.length === 0,
      };
      const row = { id, k, phase, ok, m };
      rows.push(row);
      log(`${id}${k} ${phase}: scroll ${m.scroll.join('×')}${m.explain ? `, explanation ${m.explain.scroll}/${m.explain.client}` : ''}, lesson column ${m.lessonW}, canvases ${m.canvases.map((c) => `${c.id} ${c.box[1]}px ${(c.err * 100).toFixed(1)}%`).join(' ')}, hidden-until-run ${m.reveal.filter((r) => !r.visible).length}/${m.reveal.length}${m.offScreen.length ? `, off screen: ${m.offScreen.join(' ')}` : ''}, text < ${MIN_TEXT_PX}px: ${m.small.length}${m.small.length ? ` (smallest ${Math.min(...m.small.map((s) => s.px))} px, ${m.small[0].where})` : ''}`);
      if (shots) await page.screenshot({ path: path.join(shots, phase === 'before' ? `${id}-${k}-before.png` : `${id}-${k}.png`) });
    }
    if (k < L.steps.length) {
      // Forward until the next step's question (the explanation pages first if it overflows);
      // never a re-run of this step.
      const runs = await page.evaluate(() => document.body.dataset.playerSteps ?? '');
      for (let press = 0; press < 12; press++) {
        const top = await page.evaluate(() => document.getElementById('lesson-explain').scrollTop);
        await page.keyboard.press(keys[1]);
        // Either the next step, or (an overflowing explanation) the box paged down.
        await page.waitForFunction(([k, top]) => document.body.dataset.lessonStep !== String(k) || document.body.dataset.lessonPhase !== 'explained'
          || document.getElementById('lesson-explain').scrollTop !== top, [k, top], { timeout: 10000 });
        if (await page.evaluate((k) => document.body.dataset.lessonStep !== String(k), k)) break;
      }
      const phase = await page.evaluate(() => [document.body.dataset.lessonStep, document.body.dataset.lessonPhase]);
      if (phase[0] === String(k)) throw new Error(`${id}${k}: ${keys[1]} after the explanation left the step at phase ${phase[1]} (player steps ${runs})`);
    }
  }
  await ctx.close();
  return { rows, errors };
}

/** Count, per check, the screens (step × before/after) that pass. */
export function tally(rows) {
  const keys = Object.keys(rows[0]?.ok ?? {});
  return Object.fromEntries(keys.map((key) => [key, `${rows.filter((r) => r.ok[key]).length}/${rows.length}`]));
}
