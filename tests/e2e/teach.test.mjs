// The teaching features, used as a lecturer and a student use them: the front page's live cards,
// the shared player (speed, Step after the end, keyboard), classroom mode, exports, the phone
// layout and an accessibility check (axe-core) on every page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, openPage, text, canvasPixels, KPLAY, ROOT } from './harness.mjs';

const env = useBrowser();
const ds = (page, key) => page.evaluate((k) => document.body.dataset[k], key);
const num = async (page, sel) => Number(await text(page, sel));

test('the front page animates all four cards from the real engine, with no console error', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}index.html`, { speed: null });
  for (const id of ['a', 'b', 'c', 'd']) {
    await page.waitForFunction((id) => Number(document.getElementById(`card-${id}`).dataset.frames) >= 2, id, { timeout: 60000 });
  }
  const first = {};
  for (const id of ['a', 'b', 'c', 'd']) first[id] = await canvasPixels(page, `live-${id}`);
  const f0 = await page.evaluate(() => [...document.querySelectorAll('.card')].map((c) => Number(c.dataset.frames)));
  // Every card draws new iterates (each card's frame counter moves and its picture changes).
  await page.waitForFunction((f0) => [...document.querySelectorAll('.card')].every((c, i) => Number(c.dataset.frames) >= f0[i] + 3), f0, { timeout: 60000 });
  for (const id of ['a', 'b', 'c', 'd']) assert.notEqual(await canvasPixels(page, `live-${id}`), first[id], `card ${id} did not move`);
  const ms = Number(await ds(page, 'firstMoveMs'));
  assert.ok(ms > 0);
  console.log(`# front page: first moving plot ${ms} ms after navigation start`);
  // Explore and Lesson links, and the way back from every page.
  for (const [id, href] of [['a', 'lp.html'], ['b', 'mrlsr.html'], ['c', 'dinuzzo.html'], ['d', 'perceptron.html']]) {
    assert.equal(await page.locator(`#card-${id} a.explore`).getAttribute('href'), href);
  }
  assert.equal(await page.locator('#card-a a.lesson-link').getAttribute('href'), 'lp.html#lesson=a&step=1');
  assert.equal(await page.locator('#card-d a.lesson-link').getAttribute('href'), 'perceptron.html#lesson=d&step=1');
  assert.equal(await page.locator('#card-b a.lesson-link').getAttribute('href'), 'mrlsr.html#lesson=b&step=1');
  assert.equal(await page.locator('#card-c a.lesson-link').getAttribute('href'), 'dinuzzo.html#lesson=c&step=1');
  // The classroom checkbox sends every link to classroom mode.
  await page.check('#front-classroom');
  assert.equal(await page.locator('#card-a a.lesson-link').getAttribute('href'), 'lp.html?classroom=1#lesson=a&step=1');
  assert.equal(await page.locator('#card-b a.explore').getAttribute('href'), 'mrlsr.html?classroom=1');
  await page.uncheck('#front-classroom');
  assert.equal(await page.locator('#card-a a.lesson-link').getAttribute('href'), 'lp.html#lesson=a&step=1');
  // The animations can be paused (moving content must be stoppable).
  await page.click('#pause-all');
  const fp = await page.evaluate(() => [...document.querySelectorAll('.card')].map((c) => c.dataset.frames).join());
  await page.waitForFunction(() => document.getElementById('front-status').textContent.includes('paused'));
  const shots = path.join(ROOT, 'tests/e2e/test-results');
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, 'front.png') });
  assert.equal(await page.evaluate(() => [...document.querySelectorAll('.card')].map((c) => c.dataset.frames).join()), fp);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('an old index.html#spec= link forwards to paper A\'s page with the same spec', async () => {
  const spec = { data: { kind: 'sparse_regression', n: 33, d: 120, k: 3, sigma: 0.1, seed: 9 }, model: { problem: 'lp_regression', p: 1.25, gamma: 5 } };
  const { page, errors, ctx } = await openPage(env.b, `${env.url}index.html#spec=${encodeURIComponent(JSON.stringify(spec))}`);
  assert.match(page.url(), /\/lp\.html\?speed=max#spec=/);
  assert.equal(await page.locator('#n').inputValue(), '33');
  assert.equal(Number(await page.locator('#p').inputValue()), 1.25);
  for (const p of ['index.html', 'mrlsr.html', 'dinuzzo.html', 'perceptron.html']) {
    assert.equal(await page.locator(`nav.papers a[href="${p}"]`).count(), 1, `link to ${p}`);
  }
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('the speed control changes the iterations per frame measurably (2/s against max)', async () => {
  // p = 1.1 needs about 2500 iterations (lesson A, step 4): long enough to watch both speeds.
  const spec = { data: { kind: 'sparse_regression', n: 50, d: 300, k: 5, sigma: 0.05, seed: 1 }, model: { problem: 'lp_regression', p: 1.1, gamma: 10 }, solver: { tol: 1e-8, max_iter: 5000 } };
  const { page, errors, ctx } = await openPage(env.b, `${env.url}lp.html#spec=${encodeURIComponent(JSON.stringify(spec))}`, { speed: 2 });
  assert.equal(await text(page, '#speed-out'), '2 iterations/s');
  await page.waitForFunction(() => Number(document.body.dataset.playerFrames) >= 40, null, { timeout: 60000 });
  const slow = await page.evaluate(() => ({ f: Number(document.body.dataset.playerFrames), s: Number(document.body.dataset.playerSteps) }));
  // At 2/s a frame is owed at most 0.25 s × 2 = 0.5 iteration: at most one iteration every two frames.
  assert.ok(slow.s >= 1 && slow.s <= slow.f / 2 + 1, `2/s: ${slow.s} iterations in ${slow.f} frames`);
  // Max: the slider's last rung; every frame makes at least one iteration.
  await page.focus('#speed');
  await page.keyboard.press('End');
  assert.equal(await text(page, '#speed-out'), 'max');
  assert.match(page.url(), /speed=max/);
  const f1 = await page.evaluate(() => ({ f: Number(document.body.dataset.playerFrames), s: Number(document.body.dataset.playerSteps) }));
  await page.waitForFunction(() => document.body.dataset.status === 'converged', null, { timeout: 120000 });
  const f2 = await page.evaluate(() => ({ f: Number(document.body.dataset.playerFrames), s: Number(document.body.dataset.playerSteps) }));
  const ratio = (f2.s - f1.s) / Math.max(1, f2.f - f1.f);
  assert.ok(ratio >= 1, `max: ${f2.s - f1.s} iterations in ${f2.f - f1.f} frames`);
  assert.ok(ratio > 2 * (slow.s / slow.f), 'max is measurably faster than 2/s');
  assert.equal(await num(page, '#r-iter'), f2.s, 'every iteration of the run was made by the player');
  assert.deepEqual(errors, []);
  await ctx.close();
});

for (const [file, endLabel, counter] of [['lp.html', 'converged', '#r-iter'], ['dinuzzo.html', 'converged', '#r-sweep'], ['perceptron.html', 'separator', '#r-iter']]) {
  test(`${file}: Step after the run has ended advances nothing and says so; Reset then Step advances one`, async () => {
    const { page, errors, ctx } = await openPage(env.b, `${env.url}${file}`);
    await page.waitForFunction(() => document.body.dataset.playing === '0' && Number(document.body.dataset.playerSteps) > 0, null, { timeout: 60000 });
    const it = await num(page, counter);
    await page.click('#step');
    assert.equal(await num(page, counter), it);
    const note = await text(page, '#step-note');
    assert.ok(note.includes(`The run has ended (${endLabel})`) && note.includes('Reset starts it again'), note);
    assert.equal(await page.locator('#step-note').getAttribute('aria-live'), 'polite');
    await page.click('#reset');
    assert.equal(await num(page, counter), 0);
    await page.click('#step');
    assert.equal(await num(page, counter), 1);
    assert.equal(await text(page, '#play'), 'Play');
    assert.deepEqual(errors, []);
    await ctx.close();
  });
}

test('keyboard: space plays and pauses, → steps, r resets', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}lp.html`, { speed: 1 });
  await page.click('#step'); // paused after one step
  assert.equal(await text(page, '#play'), 'Play');
  await page.evaluate(() => document.activeElement.blur()); // space on a focused button is that button's click
  const i0 = await num(page, '#r-iter');
  await page.keyboard.press('ArrowRight');
  assert.equal(await num(page, '#r-iter'), i0 + 1);
  await page.keyboard.press('Space');
  assert.equal(await text(page, '#play'), 'Pause');
  await page.keyboard.press('Space');
  assert.equal(await text(page, '#play'), 'Play');
  await page.keyboard.press('r');
  assert.equal(await num(page, '#r-iter'), 0);
  // Typing in a field is not a shortcut.
  await page.focus('#seed');
  await page.keyboard.press('r');
  assert.equal(await num(page, '#r-iter'), 0);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('classroom mode hides the controls the lesson does not use, enlarges type, and the keys drive the lesson', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}lp.html?classroom=1#lesson=a&step=6`, { viewport: { width: 1280, height: 720 } });
  assert.equal(await ds(page, 'classroom'), '1');
  assert.ok(await page.locator('#p').isVisible(), 'the step uses p');
  assert.ok(await page.locator('#n').isHidden(), 'data controls hidden');
  assert.ok(await page.locator('#preset-table1').isHidden(), 'presets hidden');
  assert.ok(await page.locator('#copy-link').isHidden());
  assert.ok(await page.locator('#race').isHidden(), 'the race plot is not used by this step');
  assert.ok(await page.locator('#spikes').isVisible());
  assert.ok(await page.locator('#play').isVisible() && await page.locator('#speed').isVisible());
  const fs = await page.evaluate(() => parseFloat(getComputedStyle(document.body).fontSize));
  assert.ok(fs >= 18, `font ${fs}px`);
  const h = await page.evaluate(() => document.getElementById('spikes').clientHeight);
  assert.ok(h >= 260, `plot height ${h}`);
  // ←/→ move between steps; space runs the step.
  await page.evaluate(() => document.activeElement.blur());
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => document.body.dataset.lessonStep === '5');
  assert.match(page.url(), /#lesson=a&step=5$/);
  await page.keyboard.press('Space');
  await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 60000 });
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.body.dataset.lessonStep === '6');
  // The toggle leaves classroom mode: the controls come back.
  await page.click('#classroom-toggle');
  assert.ok(await page.locator('#n').isVisible());
  assert.doesNotMatch(page.url(), /classroom=1/);
  assert.deepEqual(errors, []);
  await ctx.close();
});

/** Click `sel` and return the download's bytes and suggested name. */
async function save(page, sel) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(sel)]);
  const file = await dl.path();
  return { name: dl.suggestedFilename(), bytes: readFileSync(file) };
}
const pngSize = (b) => {
  assert.deepEqual([...b.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'PNG signature');
  assert.equal(b.subarray(12, 16).toString(), 'IHDR');
  return { w: b.readUInt32BE(16), h: b.readUInt32BE(20) };
};

test('exports: plots as PNG at device resolution, the run as JSON, the trace as CSV, and kplay run on the saved spec gives the same run', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}lp.html`, { dpr: 2 });
  await page.waitForFunction(() => document.body.dataset.status === 'converged', null, { timeout: 60000 });
  const png = await save(page, 'button.png[data-canvas="conv"]');
  assert.equal(png.name, 'conv.png');
  const size = pngSize(png.bytes);
  const dims = await page.evaluate(() => ({ w: document.getElementById('conv').width, h: document.getElementById('conv').height, cw: document.getElementById('conv').clientWidth }));
  assert.deepEqual(size, { w: dims.w, h: dims.h });
  assert.equal(size.w, Math.round(dims.cw * 2), 'device resolution');
  // The PNG decodes (in the browser, from the saved bytes).
  const decoded = await page.evaluate(async (bytes) => {
    const bmp = await createImageBitmap(new Blob([new Uint8Array(bytes)], { type: 'image/png' }));
    return [bmp.width, bmp.height];
  }, [...png.bytes]);
  assert.deepEqual(decoded, [dims.w, dims.h]);
  const run = await save(page, '#save-run');
  assert.equal(run.name, 'run.json');
  const r = JSON.parse(run.bytes.toString());
  // One record per iteration, from iteration 0 (the starting point) to the last.
  assert.equal(r.trace.length, r.summary.iter + 1);
  assert.equal(r.trace[r.trace.length - 1].iter, r.summary.iter);
  assert.equal(r.solution.w.length, r.spec.data.d);
  const csv = await save(page, '#save-trace');
  assert.equal(csv.name, 'trace.csv');
  const lines = csv.bytes.toString().trim().split('\n');
  assert.equal(lines.length, r.trace.length + 1, 'header + one row per record');
  assert.ok(lines[0].split(',').length >= 3);
  const specFile = await save(page, '#save-spec');
  assert.equal(specFile.name, 'spec.json');
  assert.equal(await text(page, '#kplay-cmd'), 'kplay run spec.json');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kplay-export-'));
  writeFileSync(path.join(dir, 'spec.json'), specFile.bytes);
  const nat = JSON.parse(execFileSync(KPLAY, ['run', 'spec.json'], { cwd: dir, maxBuffer: 1 << 28 }).toString());
  assert.equal(nat.iterations ?? nat.iter, r.summary.iter, 'kplay: same iterations');
  assert.ok(Math.abs(nat.primal - r.summary.primal) <= 1e-12 * Math.abs(nat.primal));
  // Pages C and D: run JSON with the trace and the solution; B: plots as PNG.
  for (const [file, key] of [['dinuzzo.html', 'c'], ['perceptron.html', 'alpha']]) {
    const o = await openPage(env.b, `${env.url}${file}`);
    await o.page.waitForFunction(() => document.body.dataset.playing === '0' && Number(document.body.dataset.playerSteps) > 0, null, { timeout: 60000 });
    const j = JSON.parse((await save(o.page, '#save-run')).bytes.toString());
    assert.ok(Array.isArray(j.trace) && j.trace.length > 0, `${file} trace`);
    assert.ok(j.solution[key].length > 0, `${file} solution`);
    // kplay run on the saved (paper-tagged) spec: the same number of iterations (sweeps).
    const sp = await save(o.page, '#save-spec');
    writeFileSync(path.join(dir, `${key}-spec.json`), sp.bytes);
    const k = JSON.parse(execFileSync(KPLAY, ['run', `${key}-spec.json`], { cwd: dir, maxBuffer: 1 << 28 }).toString());
    assert.equal(k.iterations, j.summary.sweep ?? j.summary.iter, `${file}: kplay iterations`);
    assert.ok((await save(o.page, '#save-trace')).bytes.length > 0);
    const firstCanvas = await o.page.locator('button.png').first().getAttribute('data-canvas');
    pngSize((await save(o.page, `button.png[data-canvas="${firstCanvas}"]`)).bytes);
    assert.deepEqual(o.errors, []);
    await o.ctx.close();
  }
  const b = await openPage(env.b, `${env.url}mrlsr.html`);
  await b.page.waitForFunction(() => Number(document.body.dataset.draws) > 0, null, { timeout: 60000 });
  pngSize((await save(b.page, 'button.png[data-canvas="fit"]')).bytes);
  const bj = JSON.parse((await save(b.page, '#save-run')).bytes.toString());
  assert.equal(bj.spec.data.kind, 'sine');
  writeFileSync(path.join(dir, 'b-spec.json'), (await save(b.page, '#save-spec')).bytes);
  const kb = JSON.parse(execFileSync(KPLAY, ['run', 'b-spec.json'], { cwd: dir, maxBuffer: 1 << 28 }).toString());
  assert.equal(kb.paper, 'mrlsr');
  assert.ok(Math.abs(kb.primal - bj.summary.objective) <= 1e-10 * Math.abs(bj.summary.objective), `kplay ${kb.primal} vs page ${bj.summary.objective}`);
  assert.ok(bj.summary.c0 > 0 && bj.summary.n === bj.spec.data.n);
  assert.equal(await b.page.locator('#save-trace').count(), 0, 'no iterations, no trace');
  assert.deepEqual(b.errors, []);
  await b.ctx.close();
  assert.deepEqual(errors, []);
  await ctx.close();
});

const PAGES = ['index.html', 'lp.html', 'mrlsr.html', 'dinuzzo.html', 'perceptron.html', 'lp.html#lesson=a&step=2', 'perceptron.html?classroom=1#lesson=d&step=4'];

test('phone (390 × 844): no horizontal scroll on any page, and a tap on the clickable plot adds a point', async () => {
  for (const p of PAGES) {
    const { page, errors, ctx } = await openPage(env.b, `${env.url}${p}`, { viewport: { width: 390, height: 844 }, speed: p === 'index.html' ? null : 'max' });
    const over = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(over <= 0, `${p}: ${over}px of horizontal scroll`);
    assert.deepEqual(errors, [], p);
    await ctx.close();
  }
  const ctx = await env.b.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const page = await ctx.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(`${env.url}dinuzzo.html?speed=max`);
  await page.waitForSelector('body[data-ready="1"]');
  const box = await page.locator('#map').boundingBox();
  await page.locator('#map').scrollIntoViewIfNeeded();
  const b2 = await page.locator('#map').boundingBox();
  await page.touchscreen.tap(b2.x + b2.width / 2, b2.y + b2.height / 2);
  await page.waitForFunction(() => document.body.dataset.points !== undefined, null, { timeout: 10000 });
  assert.ok(Number(await page.evaluate(() => document.body.dataset.points)) > 0 && box.width <= 390);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('accessibility: axe-core reports no serious or critical violation on any page', async () => {
  const axe = readFileSync(path.join(ROOT, 'tests/e2e/node_modules/axe-core/axe.min.js'), 'utf8');
  for (const p of PAGES) {
    const { page, errors, ctx } = await openPage(env.b, `${env.url}${p}`, { speed: p === 'index.html' ? null : 'max' });
    await page.evaluate(axe); // through the debugger protocol, so the page's CSP stays as it is
    const res = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
    const bad = res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
    assert.deepEqual(bad, [], `${p}: ${bad.join('\n')}`);
    assert.deepEqual(errors, [], p);
    await ctx.close();
  }
});

test('every page has a Content-Security-Policy, no inline script and no inline event handler', async () => {
  const { readdirSync } = await import('node:fs');
  for (const f of readdirSync(path.join(ROOT, 'www')).filter((f) => /^(index|lp|mrlsr|dinuzzo|perceptron)\.html$/.test(f))) {
    const html = readFileSync(path.join(ROOT, 'www', f), 'utf8');
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self';/, f);
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, `${f}: inline script`);
    assert.doesNotMatch(html, /\son[a-z]+=/i, `${f}: inline handler`);
  }
  for (const f of readdirSync(path.join(ROOT, 'www')).filter((f) => f.endsWith('.js'))) {
    const js = readFileSync(path.join(ROOT, 'www', f), 'utf8');
    assert.doesNotMatch(js, /\beval\(|new Function\(/, `${f}: eval`);
  }
});

test('every readout and plot explains itself on hover, focus and tap, with a MathML formula where there is one', async () => {
  const { EXPLAIN } = await import('../../www/explain.js');
  for (const [file, paper] of [['lp.html', 'a'], ['mrlsr.html', 'b'], ['dinuzzo.html', 'c'], ['perceptron.html', 'd']]) {
    const { page, errors, ctx } = await openPage(env.b, `${env.url}${file}`);
    // Every readout (<dd id>) and every plot on the page has its explanation.
    const ids = await page.evaluate(() => [...document.querySelectorAll('.readouts dd[id], .plots canvas[id]')].map((e) => e.id));
    const missing = ids.filter((id) => !(id in EXPLAIN[paper]) && !['eq-bars', 'eq-curves', 'heatmap'].includes(id));
    assert.deepEqual(missing, [], `${file}: readouts or plots without an explanation`);
    const buttons = page.locator('button.info');
    assert.ok(await buttons.count() >= Object.keys(EXPLAIN[paper]).length - 1);
    const first = buttons.first();
    const pop = page.locator(`#${await first.getAttribute('aria-describedby')}`);
    assert.ok(await pop.isHidden());
    await first.hover();
    assert.ok(await pop.isVisible(), 'hover shows it');
    await page.mouse.move(0, 0);
    assert.ok(await pop.isHidden());
    await first.focus();
    assert.ok(await pop.isVisible(), 'focus shows it');
    await page.keyboard.press('Escape');
    assert.ok(await pop.isHidden());
    await first.click();
    await page.mouse.move(0, 0);
    assert.ok(await pop.isVisible(), 'a click (tap) pins it');
    assert.ok(await page.locator('.explain-pop math').count() > 0, 'MathML formulas');
    assert.deepEqual(errors, [], file);
    await ctx.close();
  }
});
