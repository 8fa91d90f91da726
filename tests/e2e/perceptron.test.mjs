// Paper D's page (perceptron.html), used as a person uses it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { useBrowser, openPage, text, canvasPixels, ROOT, checkPastedLink, readNum, NUM_RE } from './harness.mjs';

const env = useBrowser();

const open = (dpr = 1) => openPage(env.b, `${env.url}perceptron.html`, { dpr });
const status = (page) => page.evaluate(() => document.body.dataset.status);
const waitStatus = (page, s, timeout = 60000) =>
  page.waitForFunction((s) => document.body.dataset.status === s, s, { timeout });
const runId = (page) => page.evaluate(() => Number(document.body.dataset.runId));

test('loads with no console errors; the default separable run ends with a verified separator', async () => {
  const { page, errors, ctx } = await open();
  await waitStatus(page, 'separator');
  const last = await canvasPixels(page, 'boundary');
  const out = await page.locator('#outcome');
  assert.equal(await out.getAttribute('data-verified'), 'true');
  const t = await out.innerText();
  const n = Number(await text(page, '#r-n'));
  assert.match(t, new RegExp(`correctly classified ${n}/${n}`));
  assert.ok(readNum(t.match(new RegExp(`min \\(Gα\\)ᵢ = (${NUM_RE}) > 0`))?.[1]) > 0, t);
  // Step after the run has ended advances nothing and says so (the same rule on every page).
  const end = await text(page, '#r-iter');
  await page.click('#step');
  assert.equal(await text(page, '#r-iter'), end);
  await page.waitForSelector('#step-note:not([hidden])');
  assert.match(await text(page, '#step-note'), /ended \(separator\)/);
  // Reset shows α = 0 again (paused): the boundary repaints; Step moves it again.
  await page.click('#reset');
  await page.waitForFunction(() => document.getElementById('r-iter').textContent === '0');
  const atZero = await canvasPixels(page, 'boundary');
  assert.notEqual(atZero, last, 'the boundary repainted');
  await page.click('#step');
  await page.waitForFunction(() => document.getElementById('r-iter').textContent === '1');
  assert.notEqual(await canvasPixels(page, 'boundary'), atZero, 'one step moves the boundary');
  assert.match(await text(page, '#r-margin'), /separable/);
  const shots = path.join(ROOT, 'tests/e2e/test-results');
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, 'perceptron.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('an inseparable set with NVN ends with a verified ε-certificate', async () => {
  const { page, errors, ctx } = await open();
  await page.selectOption('#data', 'overlap');
  await page.selectOption('#algo', 'nvn');
  await waitStatus(page, 'certificate');
  const out = page.locator('#outcome');
  assert.equal(await out.getAttribute('data-verified'), 'true');
  // textContent: the box's notation is MathML, whose innerText splits ‖p‖_G over lines.
  const t = (await out.textContent()).replace(/\s+/g, ' ');
  const m = t.match(new RegExp(`‖p‖_?G = (${NUM_RE}) ≤ ε = (${NUM_RE})`));
  assert.ok(m, t);
  assert.ok(readNum(m[1]) <= readNum(m[2]), t);
  assert.match(await text(page, '#r-margin'), /inseparable/);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('click adds a +1 point, shift-click a −1 point, and each restarts the run', async () => {
  const { page, errors, ctx } = await open();
  await waitStatus(page, 'separator');
  const n0 = Number(await text(page, '#r-n'));
  const r0 = await runId(page);
  const box = await page.locator('#boundary').boundingBox();
  await page.mouse.click(box.x + box.width * 0.7, box.y + box.height * 0.3);
  await page.waitForFunction((n) => Number(document.body.dataset.n) === n + 1, n0);
  assert.equal(await page.locator('#data').inputValue(), 'hand');
  const last = () => page.evaluate(() => {
    const s = JSON.parse(decodeURIComponent(location.hash.slice(6)));
    return s.data.points[s.data.points.length - 1];
  });
  assert.equal((await last())[2], 1);
  assert.ok((await runId(page)) > r0);
  const r1 = await runId(page);
  await page.keyboard.down('Shift');
  await page.mouse.click(box.x + box.width * 0.3, box.y + box.height * 0.7);
  await page.keyboard.up('Shift');
  await page.waitForFunction((n) => Number(document.body.dataset.n) === n + 2, n0);
  assert.equal((await last())[2], -1);
  assert.ok((await runId(page)) > r1);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('a hand-made one-class set shows “all labels are equal” and the page recovers', async () => {
  const { page, errors, ctx } = await open();
  await page.click('#clear');
  await page.waitForFunction(() => !document.getElementById('error').hidden);
  assert.match(await text(page, '#error'), /at least 2 points/);
  const box = await page.locator('#boundary').boundingBox();
  await page.mouse.click(box.x + box.width * 0.6, box.y + box.height * 0.3);
  await page.mouse.click(box.x + box.width * 0.75, box.y + box.height * 0.4);
  await page.waitForFunction(() => /all labels are equal/.test(document.getElementById('error').textContent));
  assert.equal(await status(page), 'invalid');
  // Shift-click a point of the other class: a valid set; the run goes to an outcome.
  await page.keyboard.down('Shift');
  await page.mouse.click(box.x + box.width * 0.3, box.y + box.height * 0.75);
  await page.keyboard.up('Shift');
  await page.waitForFunction(() => document.getElementById('error').hidden);
  await waitStatus(page, 'separator');
  assert.equal(await text(page, '#r-n'), '3');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('race mode runs all six algorithms and draws', async () => {
  const { page, errors, ctx } = await open();
  const blank = await canvasPixels(page, 'racec');
  await page.click('#race');
  await page.waitForFunction(() => document.body.dataset.race === 'done', null, { timeout: 60000 });
  assert.notEqual(await canvasPixels(page, 'racec'), blank);
  // The shared race table: the six algorithms in order, each outcome checked independently.
  const rows = await page.locator('#race-table tbody tr').allInnerTexts();
  assert.deepEqual(rows.map((r) => r.split('\t')[0].trim()), ['Perceptron', 'NKP', 'SNKP', 'NVN', 'SNKPVN', 'ISNKPVN']);
  for (const r of rows) assert.match(r, /(separator|certificate) ✓ verified|cap/, r);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('a bad ε shows a message and the page keeps working', async () => {
  const { page, errors, ctx } = await open();
  await page.selectOption('#algo', 'nvn');
  await page.fill('#epsilon', '0');
  await page.dispatchEvent('#epsilon', 'change');
  await page.waitForFunction(() => !document.getElementById('error').hidden);
  assert.match(await text(page, '#error'), /epsilon/);
  // A number control takes no letters; an emptied one is read as no number, naming the field.
  await page.fill('#epsilon', '');
  await page.dispatchEvent('#epsilon', 'change');
  assert.match(await text(page, '#error'), /algorithm\.epsilon: .* is not a number/);
  await page.selectOption('#algo', 'isnkpvn');
  await page.fill('#epsilon', '0.01');
  await page.fill('#gamma', '1');
  await page.dispatchEvent('#gamma', 'change');
  assert.match(await text(page, '#error'), /gamma/);
  await page.fill('#gamma', '2');
  await page.dispatchEvent('#gamma', 'change');
  await page.waitForFunction(() => document.getElementById('error').hidden);
  await waitStatus(page, 'separator');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('Gaussian kernel separates the concentric circles', async () => {
  const { page, errors, ctx } = await open();
  await page.selectOption('#data', 'circles');
  await page.selectOption('#kernel', 'gaussian');
  await waitStatus(page, 'separator');
  assert.equal(await page.locator('#outcome').getAttribute('data-verified'), 'true');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('a link pasted into the address bar loads (hashchange), a broken one keeps the run, Copy link is there', async () => {
  const { page, errors, ctx } = await open();
  assert.ok(await page.locator('#copy-link').isVisible());
  await checkPastedLink(page, (spec) => { spec.data.set.n = 24; }, 24);
  assert.deepEqual(errors, []);
  await ctx.close();
});
