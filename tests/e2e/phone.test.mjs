// Students on a phone and in a course page (issue 32 §10):
//  - at 390 × 844 on a touch phone no page scrolls sideways, in normal and in lesson mode, and
//    after Run it the step's plot is on screen (the view follows the run);
//  - a tap on the plot that changes the data during an explained step takes the step back to
//    its question (the explanation of the run now gone is hidden, the new run waits);
//  - the lesson's own embed code in a 760 px course column: the embedded step's question, Run it,
//    plot and explanation inside the frame's 720 px, nothing scrolling;
//  - every page names its paper from one catalogue (www/papers.js), with a link where the
//    paper's text prints a public address.
// Each state is waited for (phase, run id, scroll position), never the clock. Screenshots go to
// tests/e2e/test-results/ (phone-*.png, embed-760-*.png).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { useBrowser, frameWith, ROOT } from './harness.mjs';
import { LESSONS } from './lesson-files.mjs';
import { PAPERS } from '../../www/papers.js';

const env = useBrowser();
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
const PAGE = { a: 'lp.html', b: 'mrlsr.html', c: 'dinuzzo.html', d: 'perceptron.html' };
const SHOTS = path.join(ROOT, 'tests/e2e/test-results');
mkdirSync(SHOTS, { recursive: true });
/** How many first steps of each lesson the phone walk runs. */

/** A page in a fresh context (`opts` for newContext), console errors collected; waits for ready. */
async function open(url, opts) {
  const ctx = await env.b.newContext(opts);
  const page = await ctx.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  return { ctx, page, errors };
}

/** Pixels the page scrolls sideways (0 when none). */
const sideways = (page) => page.evaluate(() => document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth);

/** The widest element past the right edge, for the message of a failing assertion. */
const culprit = (page) => page.evaluate(() => {
  const w = document.scrollingElement.clientWidth;
  let worst = null;
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.right > w + 0.5 && (!worst || r.right > worst.right)) worst = { el: `${el.tagName.toLowerCase()}#${el.id}.${el.className}`, right: r.right };
  }
  return JSON.stringify(worst);
});

async function assertNoSideways(page, where) {
  const over = await sideways(page);
  assert.ok(over <= 0, `${where}: the page scrolls ${over} px sideways (${over > 0 ? await culprit(page) : ''})`);
}

/** The step's plot (the first figure it names that is shown) is wholly on screen. */
const plotInView = (page) => page.evaluate(() => {
  const figs = [...document.querySelectorAll('section.plots figure.lesson-uses')].filter((f) => f.getClientRects().length > 0);
  const c = (figs[0] ?? document.querySelector('section.plots figure'))?.querySelector('canvas');
  if (!c) return false;
  const r = c.getBoundingClientRect();
  return r.height > 0 && r.top >= -0.5 && r.bottom <= innerHeight + 0.5;
});

test('phone 390 × 844: no page scrolls sideways, normal and classroom mode', async () => {
  for (const p of ['index.html', ...Object.values(PAGE)]) {
    for (const q of ['', '?classroom=1']) {
      const { ctx, page, errors } = await open(`${env.url}${p}${q}${p === 'index.html' ? '' : `${q ? '&' : '?'}speed=max`}`, PHONE);
      await assertNoSideways(page, `${p}${q}`);
      // The folded controls unfolded (the longest fieldsets on screen): still no sideways scroll.
      if (await page.locator('#controls-toggle').isVisible()) {
        await page.locator('#controls-toggle').tap();
        await assertNoSideways(page, `${p}${q} with all the controls`);
      }
      if (q === '') await page.screenshot({ path: path.join(SHOTS, `phone-${p.replace('.html', '')}.png`), fullPage: false });
      assert.deepEqual(errors, [], p);
      await ctx.close();
    }
  }
});

for (const [id, L] of Object.entries(LESSONS)) {
  test(`phone 390 × 844: lesson ${id}, every step — no sideways scroll, the plot in view after Run it`, async () => {
    const { ctx, page, errors } = await open(`${env.url}${PAGE[id]}?speed=max#lesson=${id}&step=1`, PHONE);
    const n = L.steps.length;
    for (let k = 1; k <= n; k++) {
      const where = `lesson ${id} step ${k}`;
      await page.waitForFunction((k) => document.body.dataset.lessonStep === String(k) && document.body.dataset.lessonPhase === 'predict', k);
      await page.evaluate(() => window.scrollTo(0, 0));
      await assertNoSideways(page, `${where} before the run`);
      // Run it is at the top of the page: the plot is below the fold until the run starts.
      await page.locator('#lesson-run').scrollIntoViewIfNeeded();
      const before = await plotInView(page);
      const followed = Number(await page.evaluate(() => document.body.dataset.plotFollowed ?? 0));
      await page.locator('#lesson-run').tap();
      if (!before) await page.waitForFunction((f) => Number(document.body.dataset.plotFollowed ?? 0) > f, followed);
      await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 180000 });
      // The scroll (smooth where motion is allowed) ends with the plot wholly on screen.
      await page.waitForFunction(() => document.body.dataset.plotScroll !== 'moving', null, { timeout: 10000 });
      await page.waitForFunction(() => {
        const figs = [...document.querySelectorAll('section.plots figure.lesson-uses')].filter((f) => f.getClientRects().length > 0);
        const c = (figs[0] ?? document.querySelector('section.plots figure'))?.querySelector('canvas');
        const r = c.getBoundingClientRect();
        return r.top >= -0.5 && r.bottom <= innerHeight + 0.5;
      }, null, { timeout: 10000 });
      assert.ok(await plotInView(page), `${where}: the plot is on screen after Run it`);
      await assertNoSideways(page, `${where} after the run`);
      if (k === 1) await page.screenshot({ path: path.join(SHOTS, `phone-lesson-${id}-after-run.png`) });
      if (k < n) {
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.locator('#lesson-next').tap();
      }
    }
    assert.deepEqual(errors, []);
    await ctx.close();
  });
}

test('phone: a tap that changes the data during an explained step takes the step back to its question', async () => {
  for (const [id, canvas] of [['c', '#map'], ['d', '#boundary']]) {
    const { ctx, page, errors } = await open(`${env.url}${PAGE[id]}?speed=max#lesson=${id}&step=1`, PHONE);
    await page.waitForFunction(() => document.body.dataset.lessonPhase === 'predict');
    await page.locator('#lesson-run').tap();
    await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 180000 });
    assert.ok(await page.locator('#lesson-explain').isVisible(), `${id}: explained`);
    const run = await page.evaluate(() => document.body.dataset.runId);
    await page.locator(canvas).scrollIntoViewIfNeeded();
    const box = await page.locator(canvas).boundingBox();
    await page.touchscreen.tap(box.x + box.width * 0.3, box.y + box.height * 0.4);
    await page.waitForFunction((r) => document.body.dataset.runId !== r, run);
    // The new data's run waits at its start; the step asks its question again.
    assert.equal(await page.evaluate(() => document.body.dataset.lessonPhase), 'predict', `${id}: back to the question`);
    assert.ok(await page.locator('#lesson-explain').isHidden(), `${id}: the old explanation is gone`);
    assert.equal(await page.evaluate(() => document.body.dataset.playing), '0', `${id}: the new run waits for Run it`);
    assert.equal(await page.locator('#lesson-run').textContent(), 'Run it');
    // Run it runs the step on the tapped data and explains it.
    const pts = await page.evaluate(() => document.body.dataset.points ?? document.body.dataset.n);
    await page.locator('#lesson-run').tap();
    await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 180000 });
    assert.equal(await page.evaluate(() => document.body.dataset.points ?? document.body.dataset.n), pts, `${id}: the run kept the tapped data`);
    assert.deepEqual(errors, []);
    await ctx.close();
  }
});

/** A course page: a 760 px column of text with the lesson's own embed code in it. */
const coursePage = (code) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Course, week 3</title><link rel="icon" href="data:,">
<style>body { margin: 0; font-family: serif; background: #f4f1ea; } .column { width: 760px; margin: 0 auto; background: #fff; padding: 24px 0; }
.column p, .column h1 { margin: 0 0 16px; padding: 0; }</style></head>
<body><div class="column"><h1>Week 3: kernel methods</h1><p>Before the lecture, try the step below.</p>
${code}
<p>Next week: the exam.</p></div></body></html>`;

test('the lesson embed in a 760 px course column: question, Run it, plot and explanation inside the 720 px frame', async () => {
  for (const [id, L] of Object.entries(LESSONS)) {
    // The code as a lecturer copies it (the lesson's own "Copy embed code" button, this lesson).
    const src = await open(`${env.url}${PAGE[id]}#lesson=${id}&step=1`, { viewport: { width: 1280, height: 900 } });
    await src.page.waitForFunction(() => document.body.dataset.lessonPhase === 'predict');
    await src.page.selectOption('#lesson-embed-kind', 'lesson');
    await src.page.click('#lesson-embed-copy');
    const code = await src.page.locator('#lesson-embed-code').inputValue();
    assert.match(code, /width="1280" height="720" style="border:0;max-width:100%"/);
    await src.ctx.close();
    const ctx = await env.b.newContext({ viewport: { width: 1280, height: 900 } });
    const fixture = `${env.url}course-760.html`;
    await ctx.route(fixture, (r) => r.fulfill({ contentType: 'text/html', body: coursePage(code.replace('?embed=lesson#', '?embed=lesson&amp;speed=max#')) }));
    const host = await ctx.newPage();
    const errors = [];
    host.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    host.on('pageerror', (e) => errors.push(String(e)));
    await host.goto(fixture);
    const frameBox = await host.locator('iframe').boundingBox();
    assert.equal(Math.round(frameBox.width), 760, 'the frame takes the column\'s width');
    assert.equal(Math.round(frameBox.height), 720);
    const f = await frameWith(host, /\?embed=lesson/);
    await f.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
    // Two steps each by default; KPLAY_EMBED_ALL=1 walks every step.
    const n = process.env.KPLAY_EMBED_ALL ? L.steps.length : Math.min(2, L.steps.length);
    const heights = [];
    const shown = []; // % of the explanation in view without scrolling its box
    for (let k = 1; k <= n; k++) {
      const where = `lesson ${id} step ${k} in a 760 px column`;
      await f.waitForFunction((k) => document.body.dataset.lessonStep === String(k) && document.body.dataset.lessonPhase === 'predict', k);
      for (const phase of ['predict', 'explained']) {
        const g = await f.evaluate(() => {
          const box = (el) => {
            if (!el || el.getClientRects().length === 0) return null;
            const r = el.getBoundingClientRect();
            return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, h: r.height };
          };
          const figs = [...document.querySelectorAll('section.plots figure.lesson-uses')].filter((x) => x.getClientRects().length > 0);
          const se = document.scrollingElement;
          return {
            iw: innerWidth,
            ih: innerHeight,
            scroll: [se.scrollWidth - se.clientWidth, se.scrollHeight - se.clientHeight],
            canvases: figs.map((x) => box(x.querySelector('canvas'))),
            predict: box(document.getElementById('lesson-predict')),
            run: box(document.getElementById('lesson-run')),
            explain: box(document.getElementById('lesson-explain')),
            explainShown: (() => { const e = document.getElementById('lesson-explain'); return e.scrollHeight > 0 ? Math.min(1, e.clientHeight / e.scrollHeight) : 1; })(),
            fieldsets: [...document.querySelectorAll('section.controls fieldset')].filter((x) => x.getClientRects().length > 0).length,
            readouts: [...document.querySelectorAll('.readouts dd')].filter((x) => x.getClientRects().length > 0 && !x.classList.contains('lesson-uses')).length,
          };
        });
        const inside = (b, what) => {
          assert.ok(b, `${where} (${phase}): ${what} is shown`);
          assert.ok(b.h > 0 && b.top >= -0.5 && b.bottom <= g.ih + 0.5 && b.left >= -0.5 && b.right <= g.iw + 0.5,
            `${where} (${phase}): ${what} inside the ${g.iw} × ${g.ih} frame (${JSON.stringify(b)})`);
        };
        assert.equal(g.iw, 760);
        assert.equal(g.ih, 720);
        assert.deepEqual(g.scroll, [0, 0], `${where} (${phase}): the frame does not scroll`);
        assert.ok(g.canvases.length >= 1, `${where}: a plot`);
        g.canvases.forEach((c, i) => inside(c, `plot ${i + 1}`));
        if (phase === 'explained') {
          heights.push(Math.min(...g.canvases.map((c) => c.h)));
          shown.push(Math.round(100 * g.explainShown));
        }
        assert.ok(Math.min(...g.canvases.map((c) => c.h)) >= 200, `${where}: the plot keeps a readable height (${g.canvases.map((c) => c.h)})`);
        inside(g.run, 'Run it');
        inside(g.predict, 'the question');
        if (phase === 'explained') inside(g.explain, 'the explanation');
        assert.equal(g.fieldsets, 0, `${where}: no fieldset`);
        assert.equal(g.readouts, 0, `${where}: no readout the step does not name`);
        if (phase === 'predict') {
          if (k === 1) await host.screenshot({ path: path.join(SHOTS, `embed-760-${id}-question.png`) });
          await f.click('#lesson-run');
          await f.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 180000 });
        } else if (k === 1) await host.screenshot({ path: path.join(SHOTS, `embed-760-${id}-explained.png`) });
      }
      if (k < n) await f.click('#lesson-next');
    }
    console.log(`lesson ${id} in a 760 × 720 frame: ${n} steps, plot heights ${heights.map(Math.round).join(' ')} px; explanation in view ${shown.join(' ')} %`);
    assert.deepEqual(errors, []);
    await ctx.close();
  }
});

test('the front page and each paper page name their paper from one catalogue (www/papers.js)', async () => {
  const refs = async (page) => page.evaluate(() => [...document.querySelectorAll('[data-paper-ref]')].map((el) => ({
    id: el.dataset.paperRef,
    text: el.textContent,
    links: [...el.querySelectorAll('a')].map((a) => a.href),
    shown: el.getClientRects().length > 0,
  })));
  const check = (r, where) => {
    const p = PAPERS[r.id];
    assert.ok(p, `${where}: paper ${r.id} is in the catalogue`);
    assert.ok(r.shown, `${where}: paper ${r.id}'s reference is shown`);
    assert.ok(r.text.includes(p.title), `${where}: the title of paper ${r.id}`);
    for (const a of p.authors) assert.ok(r.text.includes(a), `${where}: author ${a}`);
    if (p.year !== null) assert.ok(r.text.includes(String(p.year)), `${where}: the year of paper ${r.id}`);
    assert.deepEqual(r.links, p.url ? [p.url] : [], `${where}: paper ${r.id} links its public address where the text prints one`);
  };
  const front = await open(`${env.url}index.html`, { viewport: { width: 1280, height: 900 } });
  const fr = await refs(front.page);
  assert.deepEqual(fr.map((r) => r.id), ['a', 'b', 'c', 'd'], 'the front page names the four papers');
  for (const r of fr) check(r, 'index.html');
  // Each card's reference sits in the card of its paper (its Explore link goes to the paper's page).
  assert.deepEqual(await front.page.evaluate(() => [...document.querySelectorAll('[data-paper-ref]')].map((el) => el.closest('.card')?.querySelector('a.explore')?.getAttribute('href'))),
    ['a', 'b', 'c', 'd'].map((id) => PAPERS[id].page));
  // The footer says where the docs are (dist/ does not ship docs/).
  assert.match(await front.page.locator('footer').textContent(), /docs\/ folder/);
  assert.deepEqual(front.errors, []);
  await front.ctx.close();
  for (const [id, file] of Object.entries(PAGE)) {
    const { ctx, page, errors } = await open(`${env.url}${file}?speed=max`, { viewport: { width: 1280, height: 900 } });
    const r = await refs(page);
    assert.deepEqual(r.map((x) => x.id), [id], `${file} names its own paper`);
    check(r[0], file);
    assert.deepEqual(errors, []);
    await ctx.close();
  }
  // Three papers have a public address (B's HAL preprint printed in its text; C's arXiv entry and
  // D's ICML proceedings page, matched by title in www/papers.js's header): each is linked.
  assert.deepEqual(Object.values(PAPERS).filter((p) => p.url).map((p) => p.url),
    ['https://hal.science/hal-01003191', 'https://arxiv.org/abs/1008.5090', 'https://proceedings.mlr.press/v32/ramdas14.html']);
});
