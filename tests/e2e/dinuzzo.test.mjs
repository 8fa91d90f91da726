// Paper C's page (dinuzzo.html), used as a person uses it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { useBrowser, openPage, text, canvasPixels, ROOT, checkPastedLink } from './harness.mjs';

const env = useBrowser();

const open = (hash = '') => openPage(env.b, `${env.url}dinuzzo.html${hash}`);
const runId = (page) => page.evaluate(() => Number(document.body.dataset.runId));
const status = (page) => page.evaluate(() => document.body.dataset.status);
const waitStatus = (page, s, timeout = 60000) =>
  page.waitForFunction((s) => document.body.dataset.status === s, s, { timeout });
/** Wait until the run has stopped (converged or hit the sweep cap). */
const waitStopped = (page, timeout = 60000) =>
  page.waitForFunction(() => ['converged', 'max_iterations'].includes(document.body.dataset.status), null, { timeout });
const hashSpec = (page) => page.evaluate(() => JSON.parse(decodeURIComponent(location.hash.slice('#spec='.length))));

/** Pixels of a canvas close to an RGB colour. */
const colourCount = (page, id, rgb) => page.evaluate(([id, rgb]) => {
  const c = document.getElementById(id);
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let k = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (Math.abs(d[i] - rgb[0]) + Math.abs(d[i + 1] - rgb[1]) + Math.abs(d[i + 2] - rgb[2]) < 40) k++;
  }
  return k;
}, [id, rgb]);

test('the page loads without console errors, the default run converges and the readouts move', async () => {
  const { page, errors, ctx } = await open();
  const blank = await page.evaluate(() => {
    const c = document.createElement('canvas');
    const m = document.getElementById('map');
    c.width = m.width;
    c.height = m.height;
    return c.toDataURL();
  });
  await waitStatus(page, 'converged');
  const sweep = Number(await text(page, '#r-sweep'));
  assert.ok(sweep >= 5, `sweeps ${sweep}`);
  const gap = Number(await text(page, '#r-gap'));
  assert.ok(gap >= 0 && gap < 1e-5, `gap ${gap}`);
  assert.ok(Number(await text(page, '#r-maxh')) < 1e-8);
  const sv = await text(page, '#r-support');
  const [k, n] = sv.split(' of ').map(Number);
  assert.ok(k > 0 && k < n, `support ${sv}`);
  assert.equal(n, 200);
  assert.notEqual(await canvasPixels(page, 'map'), blank, 'map is blank');
  // The heatmap shows both classes' colours.
  assert.ok((await colourCount(page, 'map', [214, 96, 77])) > 50, 'no red (−1) class points');
  assert.ok((await colourCount(page, 'map', [67, 147, 195])) > 50, 'no blue (+1) class points');
  const shots = path.join(ROOT, 'tests/e2e/test-results');
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, 'dinuzzo.png'), fullPage: true });
  // Step after convergence advances nothing and says so; Reset goes back to sweep 0 and Play
  // restarts it.
  const end = await text(page, '#r-sweep');
  await page.click('#step');
  assert.equal(await text(page, '#r-sweep'), end);
  await page.waitForSelector('#step-note:not([hidden])');
  assert.match(await text(page, '#step-note'), /ended \(converged\)/);
  await page.click('#reset');
  await page.waitForSelector('#step-note', { state: 'hidden' });
  assert.equal(await text(page, '#r-sweep'), '0');
  await page.click('#step');
  assert.equal(await text(page, '#r-sweep'), '1');
  assert.equal(await text(page, '#play'), 'Play');
  await page.click('#play');
  await waitStatus(page, 'converged');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('click adds a +1 point, shift-click a −1 point, and each restarts the run on the new data', async () => {
  const { page, errors, ctx } = await open();
  await waitStatus(page, 'converged');
  const box = await page.locator('#map').boundingBox();
  const r0 = await runId(page);
  const before = await canvasPixels(page, 'map');
  await page.mouse.click(box.x + box.width * 0.5, box.y + box.height * 0.5);
  await page.waitForFunction((r) => Number(document.body.dataset.runId) > r, r0);
  let s = await hashSpec(page);
  assert.equal(s.data.kind, 'points');
  assert.equal(s.data.points.length, 201);
  assert.equal(s.data.points[200][2], 1);
  assert.equal(await page.locator('#data-kind').inputValue(), 'points');
  const r1 = await runId(page);
  await page.keyboard.down('Shift');
  await page.mouse.click(box.x + box.width * 0.3, box.y + box.height * 0.3);
  await page.keyboard.up('Shift');
  await page.waitForFunction((r) => Number(document.body.dataset.runId) > r, r1);
  s = await hashSpec(page);
  assert.equal(s.data.points.length, 202);
  assert.equal(s.data.points[201][2], -1);
  // The second point is up and left of the first (screen y grows downwards).
  assert.ok(s.data.points[201][0] < s.data.points[200][0] && s.data.points[201][1] > s.data.points[200][1]);
  await waitStatus(page, 'converged');
  assert.ok((await text(page, '#r-support')).endsWith('of 202'));
  assert.notEqual(await canvasPixels(page, 'map'), before);
  // Clear empties the data; two clicks make a new data set that runs.
  await page.click('#clear');
  await waitStatus(page, 'empty');
  assert.ok((await text(page, '#notice')).includes('click'));
  await page.mouse.click(box.x + box.width * 0.3, box.y + box.height * 0.5);
  await page.keyboard.down('Shift');
  await page.mouse.click(box.x + box.width * 0.7, box.y + box.height * 0.5);
  await page.keyboard.up('Shift');
  await waitStatus(page, 'converged');
  s = await hashSpec(page);
  assert.deepEqual(s.data.points.map((p) => p[2]), [1, -1]);
  assert.equal(await text(page, '#r-support'), '2 of 2');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('a typed α above 2/‖K‖₂ makes the fixed point diverge and the page says why', async () => {
  const { page, errors, ctx } = await open();
  // RLS with λ = 1, where the fixed point converges in a few hundred sweeps at α = 1/‖K‖₂.
  await page.selectOption('#loss', 'square');
  await page.fill('#lambda', '1');
  await page.locator('#lambda').blur();
  await page.selectOption('#algorithm', 'fixed_point');
  await waitStatus(page, 'converged');
  const alphaText = await text(page, '#r-alpha'); // "α (2/‖K‖₂)"
  const limit = Number(alphaText.match(/\(([^)]+)\)/)[1]);
  assert.ok(limit > 0, alphaText);
  await page.selectOption('#alpha-rule', 'fixed');
  await page.fill('#alpha', String(limit * 3));
  await page.locator('#alpha').press('Enter');
  await page.locator('#alpha').blur();
  await waitStatus(page, 'diverged');
  const note = await text(page, '#notice');
  assert.ok(note.includes('diverged') && note.includes('2/‖K‖₂'), note);
  assert.ok(await page.locator('#notice.diverged').isVisible());
  // Back below the limit: converges again, the message goes.
  await page.fill('#alpha', String(limit * 0.6));
  await page.locator('#alpha').blur();
  await waitStatus(page, 'converged');
  assert.ok(!(await text(page, '#notice')).includes('diverged'));
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('switching the loss or the coordinate rule restarts the run', async () => {
  const { page, errors, ctx } = await open();
  await waitStatus(page, 'converged');
  for (const [sel, value] of [['#loss', 'logistic'], ['#rule', 'aitken_double_sweep'], ['#rule', 'randomized_cyclic'], ['#loss', 'square']]) {
    const r0 = await runId(page);
    await page.selectOption(sel, value);
    await page.waitForFunction((r) => Number(document.body.dataset.runId) > r, r0);
    const s = await hashSpec(page);
    if (sel === '#loss') assert.equal(s.loss.kind, value);
    else assert.equal(s.method.rule, value);
    await waitStatus(page, 'converged', 90000);
  }
  // RLS has no sparsity: every point is a support vector.
  assert.equal(await text(page, '#r-support'), '200 of 200');
  // Beyond the paper: the greedy rule, then shrinking (a key of the spec only when on).
  for (const step of ['greedy', 'shrinking']) {
    const r0 = await runId(page);
    if (step === 'greedy') await page.selectOption('#rule', 'greedy');
    else await page.check('#shrinking');
    await page.waitForFunction((r) => Number(document.body.dataset.runId) > r, r0);
    const s = await hashSpec(page);
    assert.equal(s.method.rule, 'greedy');
    assert.equal(s.method.shrinking, step === 'shrinking' ? true : undefined);
    await waitStatus(page, 'converged', 90000);
    assert.ok((await text(page, '#r-method')).startsWith(step === 'shrinking' ? 'CD greedy + shrinking' : 'CD greedy'));
  }
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('race mode runs the fixed point, the three rules and greedy pairs + shrinking, and draws five gap curves', async () => {
  const { page, errors, ctx } = await open();
  await waitStatus(page, 'converged');
  await page.check('#race');
  await page.waitForSelector('#race-table:not([hidden])');
  assert.equal(await page.locator('#race-table tbody tr').count(), 5);
  // Every racer stops (the fixed point at α = 1/‖K‖₂ may hit the sweep cap on the hinge loss:
  // that slowness is the paper's point).
  await page.waitForFunction(() => document.getElementById('play').textContent === 'Play', null, { timeout: 120000 });
  const rows = await page.locator('#race-table tbody tr').allInnerTexts();
  assert.equal(rows.length, 5);
  for (const r of rows.slice(1)) assert.ok(r.includes('converged'), r);
  assert.ok(!rows[0].includes('running'), rows[0]);
  for (const rgb of [[31, 119, 180], [255, 127, 14], [44, 160, 44], [148, 103, 189], [140, 86, 75]]) {
    assert.ok((await colourCount(page, 'conv', rgb)) > 30, `no curve of colour ${rgb}`);
  }
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('bad values show a message in #error and the page recovers', async () => {
  const { page, errors, ctx } = await open();
  await waitStatus(page, 'converged');
  for (const [id, value, needle] of [['lambda', '-1', 'λ'], ['lambda', '0', 'λ'], ['tol', '0', 'δ'], ['n', '1', 'n'], ['mu', '0', 'mu']]) {
    const old = await page.locator(`#${id}`).inputValue();
    await page.fill(`#${id}`, value);
    await page.locator(`#${id}`).blur();
    await page.waitForSelector('#error:not([hidden])');
    const msg = await text(page, '#error');
    assert.ok(msg.includes(needle), `message for ${id}=${value}: ${msg}`);
    await page.fill(`#${id}`, old);
    await page.locator(`#${id}`).blur();
    await page.waitForSelector('#error', { state: 'hidden' });
  }
  // ε < 0 for SVR, and a classification loss on regression data.
  await page.selectOption('#loss', 'eps_insensitive');
  await page.fill('#eps', '-0.5');
  await page.locator('#eps').blur();
  await page.waitForSelector('#error:not([hidden])');
  assert.ok((await text(page, '#error')).includes('ε'));
  await page.fill('#eps', '0.2');
  await page.locator('#eps').blur();
  await page.waitForSelector('#error', { state: 'hidden' });
  await page.selectOption('#data-kind', 'regression');
  await waitStopped(page);
  await page.selectOption('#loss', 'hinge');
  await page.waitForSelector('#error:not([hidden])');
  assert.ok((await text(page, '#error')).includes('±1'));
  await page.selectOption('#loss', 'square');
  await page.waitForSelector('#error', { state: 'hidden' });
  // Still alive: whether or not the restarted run has already ended (machine speed decides),
  // Reset goes back to sweep 0 and Step advances exactly one sweep.
  await page.click('#step');
  await page.click('#reset');
  assert.equal(await text(page, '#r-sweep'), '0');
  await page.click('#step');
  assert.equal(await text(page, '#r-sweep'), '1');
  await page.click('#step');
  assert.equal(await text(page, '#r-sweep'), '2');
  assert.deepEqual(errors, []);
  await ctx.close();
});

// Timings, not a test of correctness: DINUZZO_BENCH=1 node --test dinuzzo.test.mjs prints the
// browser's sweeps-to-δ table for benches/dinuzzo.rs's workloads (www/bench-dinuzzo.html);
// DINUZZO_BENCH=losses the table per loss at n = 200.
test('browser timings of paper C (DINUZZO_BENCH=1)', { skip: !process.env.DINUZZO_BENCH, timeout: 3600000 }, async () => {
  const ctx = await env.b.newContext();
  const page = await ctx.newPage();
  const sizes = process.env.DINUZZO_BENCH_N || '500,2000';
  const mode = process.env.DINUZZO_BENCH === 'losses' ? 'losses' : `n=${sizes}`;
  await page.goto(`${env.url}bench-dinuzzo.html#${mode}`);
  await page.waitForFunction(() => document.body.dataset.done, null, { timeout: 3600000 });
  const web = JSON.parse(await page.locator('#out').innerText());
  console.log(`wasm init ${web.init_ms.toFixed(0)} ms`);
  console.log('| loss | n | solver | sweeps to δ=1e-8 | status | time to δ (s) | setup (s) | sweeps/s | final gap |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of web.results) {
    console.log(`| ${r.loss} | ${r.n} | ${r.solver} | ${r.sweeps} | ${r.status} | ${(r.solver_ms / 1000).toFixed(3)} | ${(r.setup_ms / 1000).toFixed(3)} | ${r.sweeps_per_s.toFixed(0)} | ${r.gap.toExponential(2)} |`);
  }
  await ctx.close();
});

test('a link pasted into the address bar loads (hashchange), a broken one keeps the run', async () => {
  const { page, errors, ctx } = await open();
  await waitStatus(page, 'converged');
  await checkPastedLink(page, (spec) => { spec.data.n = 60; }, 60);
  assert.deepEqual(errors, []);
  await ctx.close();
});
