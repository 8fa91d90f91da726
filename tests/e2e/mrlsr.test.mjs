// Paper B's page (mrlsr.html), used as a person uses it: drag the m slider, read the readouts,
// go below m = 1, run the equivalence experiment and the model selection, type bad values.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { serve, browser, openPage, text, canvasPixels, ROOT } from './harness.mjs';

let server;
let b;
before(async () => {
  server = await serve();
  b = await browser();
});
after(async () => {
  await b?.close();
  await server?.stop();
});

const open = (opts) => openPage(b, `${server.url}mrlsr.html`, opts);
const counter = (page, key) => page.evaluate((k) => Number(document.body.dataset[k] || 0), key);
const num = async (page, sel) => Number((await text(page, sel)).replace(/[^0-9eE.+-].*$/, ''));

/** Drag the m slider's thumb to the value `to` with the mouse, in several moves. */
async function dragM(page, to) {
  const slider = page.locator('#m');
  const box = await slider.boundingBox();
  const min = 0.1;
  const max = 4;
  const cur = Number(await slider.inputValue());
  const xOf = (v) => box.x + 8 + ((v - min) / (max - min)) * (box.width - 16);
  const y = box.y + box.height / 2;
  await page.mouse.move(xOf(cur), y);
  await page.mouse.down();
  for (let k = 1; k <= 8; k++) {
    await page.mouse.move(xOf(cur + ((to - cur) * k) / 8), y);
    await page.waitForTimeout(30);
  }
  await page.mouse.up();
  await page.waitForTimeout(100);
}

test('the page loads with no console error, fits, and dragging m refits and repaints', async () => {
  const { page, errors, ctx } = await open();
  assert.equal(await text(page, '#r-nd'), '100 × 1');
  const c0a = await num(page, '#r-c0');
  assert.ok(c0a > 0, `C₀ readout ${c0a}`);
  const blank = await page.evaluate(() => {
    const c = document.createElement('canvas');
    const f = document.getElementById('fit');
    c.width = f.width;
    c.height = f.height;
    return c.toDataURL();
  });
  const fit0 = await canvasPixels(page, 'fit');
  const f0 = await canvasPixels(page, 'fplot');
  assert.notEqual(fit0, blank, 'the fit canvas is blank');
  const refits0 = await counter(page, 'refits');
  const builds0 = await counter(page, 'builds');
  await dragM(page, 3.0);
  const m = Number(await text(page, '#m-out'));
  assert.ok(m > 2.5, `m after the drag: ${m}`);
  const refits1 = await counter(page, 'refits');
  assert.ok(refits1 >= refits0 + 2, `several refits while dragging (${refits0} → ${refits1})`);
  assert.equal(await counter(page, 'builds'), builds0, 'dragging m must not recompute the eigendecomposition');
  const c0b = await num(page, '#r-c0');
  assert.notEqual(c0b, c0a, 'C₀ changes with m');
  assert.notEqual(await canvasPixels(page, 'fit'), fit0, 'the fit canvas repaints');
  assert.notEqual(await canvasPixels(page, 'fplot'), f0, 'the F canvas repaints');
  // λ₂ = (m/2)·C₀·λ holds between the readouts (to their printed precision).
  const l2 = await num(page, '#r-lambda2');
  const lambda = Number(await page.locator('#lambda').inputValue());
  const ratio = l2 / ((m / 2) * c0b * lambda);
  assert.ok(Math.abs(ratio - 1) < 1e-3, `λ₂ readout ${l2} vs (m/2)C₀λ: ratio ${ratio}`);
  assert.match(await text(page, '#r-refit'), /ms$/);
  assert.match(await text(page, '#r-eigen'), /ms/);
  assert.ok(await page.locator('#outside').isHidden(), 'no outside-the-theorem note at m > 1');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('m ≤ 1 shows the outside-the-theorem note with the roots of F, and back above 1 hides it', async () => {
  const { page, errors, ctx } = await open();
  await dragM(page, 0.5);
  const m = Number(await text(page, '#m-out'));
  assert.ok(m < 1, `m = ${m}`);
  const note = page.locator('#outside');
  await note.waitFor({ state: 'visible' });
  const t = await note.innerText();
  assert.match(t, /Outside Theorem 1/);
  assert.match(t, /not convex|no root|two/);
  assert.equal(await page.evaluate(() => document.body.dataset.kind), 'outside');
  await dragM(page, 2.0);
  await note.waitFor({ state: 'hidden' });
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('the equivalence experiment: rounding level on Z₁, clearly positive on the other parts', async () => {
  const { page, errors, ctx } = await open();
  const bars0 = await canvasPixels(page, 'eq-bars');
  await page.click('#eq-run');
  await page.waitForFunction(() => Number(document.body.dataset.eqRuns || 0) >= 1, null, { timeout: 60000 });
  const diffs = await page.$$eval('#eq-table tbody tr', (rows) => rows.map((r) => Number(r.dataset.diff)));
  assert.equal(diffs.length, 4);
  const norm = await num(page, '#r-norm');
  assert.ok(diffs[0] < 1e-8 * Math.max(norm, 1), `Z₁: ${diffs[0]}`);
  for (const d of diffs.slice(1)) assert.ok(d > 1e-6, `another part: ${d}`);
  assert.notEqual(await canvasPixels(page, 'eq-bars'), bars0, 'the bar plot is drawn');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('bad values show a message in #error and the page keeps working', async () => {
  const { page, errors, ctx } = await open();
  const err = page.locator('#error');
  // λ ≤ 0.
  await page.fill('#lambda', '-1');
  await page.press('#lambda', 'Enter');
  await err.waitFor({ state: 'visible' });
  assert.match(await err.innerText(), /λ/);
  const refits = await counter(page, 'refits');
  await page.fill('#lambda', '1e-2');
  await page.press('#lambda', 'Enter');
  await err.waitFor({ state: 'hidden' });
  await page.waitForFunction((r) => Number(document.body.dataset.refits) > r, refits);
  // n over the page budget.
  await page.fill('#n', '5000');
  await page.press('#n', 'Enter');
  await err.waitFor({ state: 'visible' });
  assert.match(await err.innerText(), /budget/);
  // Chosen μ ≤ 0.
  await page.fill('#n', '100');
  await page.press('#n', 'Enter');
  await err.waitFor({ state: 'hidden' });
  await page.uncheck('#mu-heuristic');
  await page.fill('#mu', '0');
  await page.press('#mu', 'Enter');
  await err.waitFor({ state: 'visible' });
  assert.match(await err.innerText(), /μ|mu|bandwidth/);
  await page.fill('#mu', '0.05');
  await page.press('#mu', 'Enter');
  await err.waitFor({ state: 'hidden' });
  // Still refits on m.
  const c0 = await num(page, '#r-c0');
  await dragM(page, 2.5);
  assert.notEqual(await num(page, '#r-c0'), c0);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('model selection runs across frames with a progress readout and fills the table', async () => {
  const { page, errors, ctx } = await open();
  await page.fill('#sel-n', '100');
  await page.fill('#sel-folds', '3');
  await page.click('#sel-run');
  await page.waitForFunction(() => Number(document.body.dataset.selRuns || 0) >= 1, null, { timeout: 120000 });
  assert.match(await text(page, '#sel-progress'), /done/);
  const krr = Number(await text(page, '#sel-krr'));
  const mr = Number(await text(page, '#sel-mrlsr'));
  assert.ok(krr > 0 && krr < 1, `KRR scaled RMSE ${krr}`);
  assert.ok(mr > 0 && mr < 1, `M-RLSR scaled RMSE ${mr}`);
  // The screenshot for the docs: equivalence too, on the 10-D set's neighbour (the sine default).
  await page.click('#eq-run');
  await page.waitForFunction(() => Number(document.body.dataset.eqRuns || 0) >= 1, null, { timeout: 60000 });
  const shots = path.join(ROOT, 'tests/e2e/test-results');
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, 'mrlsr.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await ctx.close();
});
