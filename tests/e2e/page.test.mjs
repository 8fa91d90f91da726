// The walking skeleton's page, used as a person uses it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, openPage, text, iteration, relGap, canvasPixels, KPLAY, ROOT } from './harness.mjs';

const env = useBrowser();

test('the page loads with no console error and the default run lowers the gap to convergence', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}lp.html`);
  await page.waitForFunction(() => document.body.dataset.status === 'converged', null, { timeout: 60000 });
  const it = await iteration(page);
  assert.ok(it >= 5, `expected several iterations, got ${it}`);
  const rg = await relGap(page);
  assert.ok(rg <= 1e-10, `relative gap ${rg} above the default tolerance`);
  // The convergence plot holds a curve that went down: read the trace's first and last gaps.
  const blank = await page.evaluate(() => {
    const c = document.createElement('canvas');
    c.width = document.getElementById('conv').width;
    c.height = document.getElementById('conv').height;
    return c.toDataURL();
  });
  assert.notEqual(await canvasPixels(page, 'conv'), blank, 'convergence canvas is blank');
  assert.notEqual(await canvasPixels(page, 'spikes'), blank, 'spike canvas is blank');
  const shots = path.join(ROOT, 'tests/e2e/test-results');
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, 'page.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('the canvases are sized for the device pixel ratio (sharp on high-DPI screens)', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}lp.html`, { dpr: 2 });
  const dims = await page.evaluate(() => {
    const c = document.getElementById('conv');
    return { w: c.width, cw: c.clientWidth, h: c.height, ch: c.clientHeight };
  });
  assert.equal(dims.w, Math.round(dims.cw * 2));
  assert.equal(dims.h, Math.round(dims.ch * 2));
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('dragging the p slider restarts the run with the new p and puts it in the URL', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}lp.html`);
  await page.waitForFunction(() => document.body.dataset.status === 'converged', null, { timeout: 60000 });
  const before = await canvasPixels(page, 'conv');
  const run0 = Number(await page.evaluate(() => document.body.dataset.runId));
  const box = await page.locator('#p').boundingBox();
  await page.mouse.move(box.x + box.width * 0.33, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  const p = Number(await page.locator('#p').inputValue());
  assert.ok(p > 1.4 && p < 1.6, `slider value ${p}`);
  const run1 = Number(await page.evaluate(() => document.body.dataset.runId));
  assert.ok(run1 > run0, `the run did not restart (run id ${run0} -> ${run1})`);
  assert.equal(Number(await text(page, '#p-out')).toFixed(4), p.toFixed(4));
  const spec = await page.evaluate(() => JSON.parse(decodeURIComponent(location.hash.slice('#spec='.length))));
  assert.equal(spec.model.p, p);
  // The run restarted: it converges again, from a fresh trace, and the plot changed.
  await page.waitForFunction(() => document.body.dataset.status === 'converged', null, { timeout: 60000 });
  assert.notEqual(await canvasPixels(page, 'conv'), before);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('Step advances exactly one iteration while the run goes, and none after it ended (and says so)', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}lp.html`);
  // Let the default run end, then Step: nothing advances and the note says why.
  await page.waitForFunction(() => document.body.dataset.status === 'converged', null, { timeout: 60000 });
  const end = await iteration(page);
  await page.click('#step');
  assert.equal(await iteration(page), end);
  await page.waitForSelector('#step-note:not([hidden])');
  assert.match(await text(page, '#step-note'), /ended \(converged\)/);
  assert.equal(await text(page, '#play'), 'Play');
  // Reset (paused) and step from iteration 0.
  await page.click('#reset');
  await page.waitForSelector('#step-note', { state: 'hidden' });
  const i0 = await iteration(page);
  assert.equal(i0, 0);
  await page.click('#step');
  assert.equal(await iteration(page), i0 + 1);
  await page.click('#step');
  assert.equal(await iteration(page), i0 + 2);
  await page.waitForTimeout(200); // paused: nothing moves
  assert.equal(await iteration(page), i0 + 2);
  await page.click('#reset');
  assert.equal(await iteration(page), 0);
  assert.equal(await text(page, '#play'), 'Play');
  await page.click('#step');
  assert.equal(await iteration(page), 1);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('a bad value shows a message, and the page keeps working afterwards', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}lp.html`);
  for (const [id, value, needle] of [['gamma', '-1', 'γ'], ['k', '5000', 'k'], ['n', '0', 'n'], ['tol', '0', 'tolerance']]) {
    const old = await page.locator(`#${id}`).inputValue();
    await page.fill(`#${id}`, value);
    await page.locator(`#${id}`).press('Enter');
    await page.locator(`#${id}`).blur();
    await page.waitForSelector('#error:not([hidden])');
    const msg = await text(page, '#error');
    assert.ok(msg.includes(needle), `message for ${id}=${value}: ${msg}`);
    await page.fill(`#${id}`, old);
    await page.locator(`#${id}`).blur();
    await page.waitForSelector('#error', { state: 'hidden' });
  }
  // Still alive: paused and reset, it steps from iteration 0.
  await page.click('#step');
  await page.click('#reset');
  assert.equal(await iteration(page), 0);
  await page.click('#step');
  assert.equal(await iteration(page), 1);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('a malformed or invalid URL hash shows a message and the default experiment runs', async () => {
  for (const hash of ['#spec=%7Bnot-json', `#spec=${encodeURIComponent(JSON.stringify({ data: { kind: 'sparse_regression', n: 10, d: 5, k: 9, sigma: 0, seed: 1 }, model: { problem: 'lp_regression', p: 1.5, gamma: 1 } }))}`]) {
    const { page, errors, ctx } = await openPage(env.b, `${env.url}lp.html${hash}`);
    assert.ok(await page.locator('#error').isVisible());
    await page.waitForFunction(() => Number(document.getElementById('r-iter').textContent) > 0, null, { timeout: 30000 });
    assert.deepEqual(errors, []);
    await ctx.close();
  }
});

test('a link reproduces the experiment, and its data are bit-identical to the native ones', async () => {
  const spec = { data: { kind: 'sparse_regression', n: 40, d: 300, k: 4, sigma: 0.1, seed: 12345 },
    model: { problem: 'lp_regression', p: 1.2, gamma: 3 }, solver: { tol: 1e-9 } };
  const { page, errors, ctx } = await openPage(env.b, `${env.url}lp.html#spec=${encodeURIComponent(JSON.stringify(spec))}`);
  assert.equal(await page.locator('#n').inputValue(), '40');
  assert.equal(Number(await page.locator('#p').inputValue()), 1.2);
  const pageDigest = await text(page, '#r-digest');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kplay-'));
  const file = path.join(dir, 'spec.json');
  writeFileSync(file, JSON.stringify(spec));
  const nativeDigest = execFileSync(KPLAY, ['digest', file]).toString().trim();
  assert.match(nativeDigest, /^[0-9a-f]{16}$/);
  assert.equal(pageDigest, nativeDigest);
  // And the page's converged objective equals the native one.
  await page.waitForFunction(() => document.body.dataset.status === 'converged', null, { timeout: 60000 });
  const native = JSON.parse(execFileSync(KPLAY, ['run', file], { maxBuffer: 1 << 28 }).toString());
  const primal = await page.evaluate(() => document.getElementById('r-primal').textContent);
  assert.ok(Math.abs(Number(primal) - native.primal) <= 1e-9 * Math.abs(native.primal), `${primal} vs ${native.primal}`);
  assert.deepEqual(errors, []);
  await ctx.close();
});
