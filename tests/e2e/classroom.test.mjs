// One step, one screen (issue 19, "What to build" item 6): in classroom mode at 1280 × 720 every
// step of every lesson shows, without the page scrolling, the plots and readouts it names
// (`uses` in www/lessons/*.json), its question and, after the run, its explanation; the lesson's
// keys work whatever control has focus. Each step is run to its end state (the lesson's
// "explained" phase), never waited for by the clock; the runs go at ?speed=max, which a link's
// speed makes the lesson keep.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, text } from './harness.mjs';
import { LESSONS } from './lesson-files.mjs';

const env = useBrowser();
const VIEW = { width: 1280, height: 720 };
const PAGE = { a: 'lp.html', b: 'mrlsr.html', c: 'dinuzzo.html', d: 'perceptron.html' };

/** Where `ids` sit on the screen: each element's box, whether it is rendered, and the page's
 *  own scroll height. */
const layout = (page, ids) => page.evaluate((ids) => {
  const box = (el) => {
    if (!el) return null;
    const r = el.getBoundingClientRect();
    const shown = el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
    return { shown, top: r.top, bottom: r.bottom, left: r.left, right: r.right };
  };
  const out = {};
  for (const id of ids) out[id] = box(document.getElementById(id));
  return { boxes: out, scrollHeight: document.scrollingElement.scrollHeight, scrollWidth: document.scrollingElement.scrollWidth };
}, ids);

function assertOnScreen(where, id, b) {
  assert.ok(b, `${where}: #${id} exists`);
  assert.ok(b.shown, `${where}: #${id} is shown`);
  assert.ok(b.bottom - b.top > 0, `${where}: #${id} has a height`);
  assert.ok(b.top >= -0.5 && b.left >= -0.5 && b.bottom <= VIEW.height + 0.5 && b.right <= VIEW.width + 0.5,
    `${where}: #${id} inside the 1280 × 720 viewport (${JSON.stringify(b)})`);
}

for (const [id, L] of Object.entries(LESSONS)) {
  test(`lesson ${id} at 1280 × 720 in classroom mode: every step on one screen, before and after its run`, async () => {
    const { page, errors, ctx } = await openPage(env.b, `${env.url}${PAGE[id]}?classroom=1#lesson=${id}&step=1`, { viewport: VIEW });
    let maxScroll = 0;
    let maxBottom = 0;
    const rows = [];
    for (let k = 1; k <= L.steps.length; k++) {
      const step = L.steps[k - 1];
      const where = `lesson ${id} step ${k}`;
      await page.waitForFunction((k) => document.body.dataset.lessonStep === String(k) && document.body.dataset.lessonPhase === 'predict', k);
      // Before the run: the question on screen, no explanation, no solver notice (it would give
      // the answer away), no page scroll.
      let l = await layout(page, ['lesson-predict', 'lesson-run', 'lesson-next', 'notice']);
      assertOnScreen(where, 'lesson-predict', l.boxes['lesson-predict']);
      assertOnScreen(where, 'lesson-run', l.boxes['lesson-run']);
      assert.ok(!l.boxes.notice || !l.boxes.notice.shown, `${where}: no solver notice before the run`);
      assert.ok(await page.locator('#lesson-explain').isHidden(), `${where}: the explanation waits for the run`);
      assert.ok(l.scrollHeight <= VIEW.height, `${where} before the run: scrollHeight ${l.scrollHeight}`);
      maxScroll = Math.max(maxScroll, l.scrollHeight);
      await page.click('#lesson-run');
      await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 180000 });
      // After the run: every element the step names, the question and the explanation on screen.
      const ids = [...step.uses, 'lesson-predict', 'lesson-explain', 'lesson-next', 'lesson-prev'];
      l = await layout(page, ids);
      for (const u of ids) assertOnScreen(where, u, l.boxes[u]);
      maxBottom = Math.max(maxBottom, ...step.uses.map((u) => l.boxes[u].bottom));
      assert.ok(l.scrollHeight <= VIEW.height, `${where} after the run: scrollHeight ${l.scrollHeight} > ${VIEW.height}`);
      assert.ok(l.scrollWidth <= VIEW.width, `${where} after the run: scrollWidth ${l.scrollWidth}`);
      maxScroll = Math.max(maxScroll, l.scrollHeight);
      const iters = await page.evaluate(() => document.body.dataset.sweep ?? document.getElementById('r-iter')?.textContent ?? '');
      rows.push(`${k}:${step.speed ?? '-'}/${iters}`);
      if (k < L.steps.length) await page.click('#lesson-next');
    }
    // The plots' axis labels are 20 px in classroom mode (12 px × 5/3, at devicePixelRatio 1).
    // (dist/ hashes file names: import the common.js the page itself loaded.)
    assert.equal(await page.evaluate(async () => {
      const url = performance.getEntriesByType('resource').map((e) => e.name).find((n) => /\/common(\.[0-9a-f]+)?\.js$/.test(n));
      return (await import(url)).plotScale();
    }), 5 / 3);
    console.log(`lesson ${id}: max scrollHeight ${maxScroll} (viewport ${VIEW.height}), lowest named element's bottom ${Math.round(maxBottom)}; speed/iterations per step ${rows.join(' ')}`);
    assert.deepEqual(errors, []);
    await ctx.close();
  });
}

test('classroom lesson keys: → after touching the speed slider is the next step; r after the run hides the explanation', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}dinuzzo.html?classroom=1#lesson=c&step=1`, { viewport: VIEW });
  const speed0 = await page.locator('#speed').inputValue();
  await page.focus('#speed');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.body.dataset.lessonStep === '2');
  assert.equal(await page.locator('#speed').inputValue(), speed0, '→ did not change the speed');
  await page.focus('#speed');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => document.body.dataset.lessonStep === '1');
  // Space on the slider runs the step; r on the finished step takes it back to the question.
  await page.focus('#speed');
  await page.keyboard.press('Space');
  await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 60000 });
  assert.ok(await page.locator('#lesson-explain').isVisible());
  await page.focus('#speed');
  await page.keyboard.press('r');
  await page.waitForFunction(() => document.body.dataset.lessonPhase === 'predict');
  assert.ok(await page.locator('#lesson-explain').isHidden(), 'no explanation beside a blank plot');
  assert.equal(await page.evaluate(() => document.body.dataset.sweep), '0');
  assert.equal(await text(page, '#r-status'), 'ready (paused)', 'paused after Reset, not "running"');
  assert.match(await text(page, '#conv-caption'), /Before the first sweep/);
  // Typing in a number field is typing: → stays in the field (step 3 shows the α field).
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.body.dataset.lessonStep === '3');
  await page.locator('#alpha').focus();
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.body.dataset.lessonStep), '3');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('C step 3: the divergence notice waits for the run; page B\'s singular K is a note, not an alarm', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}dinuzzo.html?classroom=1#lesson=c&step=3`, { viewport: VIEW });
  assert.ok(await page.locator('#notice').isHidden(), 'nothing gives the answer away before the run');
  await page.click('#lesson-run');
  await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 60000 });
  assert.ok(await page.locator('#notice').isVisible(), 'after the run the notice says what happened');
  await ctx.close();
  const b = await openPage(env.b, `${env.url}mrlsr.html`, { viewport: VIEW });
  await b.page.waitForFunction(() => !document.getElementById('warning').hidden, null, { timeout: 60000 });
  assert.equal(await b.page.locator('#warning').getAttribute('role'), 'note');
  assert.ok(await b.page.locator('#warning').evaluate((el) => el.classList.contains('info')));
  assert.match(await text(b.page, '#warning'), /^Note \(expected/);
  assert.deepEqual([...errors, ...b.errors], []);
  await b.ctx.close();
});

test('a tap adds a point of the class chosen in the visible toggle (pages C and D)', async () => {
  for (const [url, canvas] of [['dinuzzo.html', '#map'], ['perceptron.html', '#boundary']]) {
    const { page, errors, ctx } = await openPage(env.b, `${env.url}${url}`, { viewport: { width: 390, height: 844 } });
    // On a phone the fieldsets are folded away; the toggle stays under the plot.
    assert.ok(await page.locator('input[name=click-class][value="-1"]').isVisible(), `${url}: the class toggle is visible`);
    await page.check('input[name=click-class][value="-1"]');
    const run = await page.evaluate(() => document.body.dataset.runId);
    const box = await page.locator(canvas).boundingBox();
    await page.mouse.click(box.x + box.width * 0.5, box.y + box.height * 0.5);
    await page.waitForFunction((r) => document.body.dataset.runId !== r, run);
    const pts = await page.evaluate(() => JSON.parse(decodeURIComponent(location.hash.slice('#spec='.length))).data.points);
    assert.equal(pts.at(-1)[2], -1, `${url}: the tapped point has the chosen class −1`);
    await page.check('input[name=click-class][value="1"]');
    const run2 = await page.evaluate(() => document.body.dataset.runId);
    await page.mouse.click(box.x + box.width * 0.45, box.y + box.height * 0.55);
    await page.waitForFunction((r) => document.body.dataset.runId !== r, run2);
    const pts2 = await page.evaluate(() => JSON.parse(decodeURIComponent(location.hash.slice('#spec='.length))).data.points);
    assert.equal(pts2.length, pts.length + 1);
    assert.equal(pts2.at(-1)[2], 1, `${url}: then class +1`);
    assert.deepEqual(errors, []);
    await ctx.close();
  }
});
