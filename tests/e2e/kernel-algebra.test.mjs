// Kernel algebra in the pages (issue 20, item 4; ours, not the papers'): pages B, C and D offer an
// "expression" kernel (sums, products, positive scalings: `gaussian(mu=0.5) + 0.1·linear`), read
// by the core's parser; a link carrying a composite kernel fills the field; bad expressions and
// bad composite links are messages naming the field, and the page keeps working. Each page's run
// is compared with `kplay run` of the page's own link (same digest, iterations, objective bits).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, openPage, text, KPLAY } from './harness.mjs';

const env = useBrowser();
const waitStatus = (page, ...s) => page.waitForFunction((s) => s.includes(document.body.dataset.status), s, { timeout: 120000 });
const hashSpec = (page) => page.evaluate(() => decodeURIComponent(location.hash.slice('#spec='.length)));

function kplay(spec) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kplay-algebra-'));
  const file = path.join(dir, 'spec.json');
  writeFileSync(file, spec);
  return JSON.parse(execFileSync(KPLAY, ['run', file], { maxBuffer: 1 << 28 }).toString());
}

test('page C: an expression kernel runs, equals kplay on the page link, and a bad expression names the kernel', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}dinuzzo.html`);
  await waitStatus(page, 'converged');
  assert.ok(await page.$$eval('#kernel option', (os) => os.some((o) => o.value === 'expression')));
  const r0 = await page.evaluate(() => document.body.dataset.runId);
  await page.selectOption('#kernel', 'expression');
  await page.waitForFunction((r) => document.body.dataset.runId !== r, r0);
  assert.ok(await page.locator('#kernel-expr').isVisible(), 'the expression field is shown');
  const r1 = await page.evaluate(() => document.body.dataset.runId);
  await page.fill('#kernel-expr', '0.5·gaussian(mu=0.5) + 0.1·linear·matern32(length=1)');
  await page.dispatchEvent('#kernel-expr', 'change');
  await page.waitForFunction((r) => document.body.dataset.runId !== r, r1);
  await waitStatus(page, 'converged');
  const spec = await hashSpec(page);
  const k = JSON.parse(spec).kernel;
  assert.equal(k.kind, 'sum');
  assert.equal(k.of[1].of.kind, 'product');
  const run = JSON.parse(await page.evaluate(() => document.body.dataset.run));
  const native = kplay(spec);
  assert.equal(native.data_digest, run.digest);
  assert.equal(native.iterations, run.iterations);
  assert.equal(native.primal, run.objective, 'the same objective bits');
  // A bad expression: a message naming the kernel and the character; the page keeps working.
  await page.fill('#kernel-expr', 'gaussian + rbf');
  await page.dispatchEvent('#kernel-expr', 'change');
  await page.waitForSelector('#error:not([hidden])');
  const msg = await text(page, '#error');
  assert.ok(msg.includes('kernel') && msg.includes('rbf') && msg.includes('character 12'), msg);
  const r2 = await page.evaluate(() => document.body.dataset.runId);
  await page.fill('#kernel-expr', 'laplacian(sigma=0.7) + linear');
  await page.dispatchEvent('#kernel-expr', 'change');
  await page.waitForFunction((r) => document.body.dataset.runId !== r, r2);
  await waitStatus(page, 'converged');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('page D: a link with a composite kernel fills the expression field and separates XOR', async () => {
  const kernel = { kind: 'sum', of: [{ kind: 'linear' }, { kind: 'scaled', scale: 2, of: { kind: 'gaussian', bandwidth: { fixed: 0.5 } } }] };
  const spec = { paper: 'perceptron', data: { kind: 'generated', set: { shape: { kind: 'xor', noise: 0 }, n: 80, label_noise: 0, seed: 2 } }, kernel, algorithm: { kind: 'perceptron' }, max_iter: 200000 };
  const { page, errors, ctx } = await openPage(env.b, `${env.url}perceptron.html#spec=${encodeURIComponent(JSON.stringify(spec))}`);
  await waitStatus(page, 'separator');
  assert.equal(await page.locator('#kernel').inputValue(), 'expression');
  assert.equal(await page.locator('#kernel-expr').inputValue(), 'linear + 2·gaussian(mu=0.5)');
  assert.equal(await page.locator('#outcome').getAttribute('data-verified'), 'true');
  const run = JSON.parse(await page.evaluate(() => document.body.dataset.run));
  const native = kplay(await hashSpec(page));
  assert.equal(native.status, 'separator');
  assert.equal(native.iterations, run.iterations);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('page B: a composite kernel from a link fits (C₀ shown); a composite with an unknown field is the core\'s message', async () => {
  const kernel = { kind: 'product', of: [{ kind: 'gaussian', bandwidth: 'heuristic' }, { kind: 'polynomial', degree: 2, offset: 1 }] };
  const state = { data: { kind: 'sine', n: 60, sigma: 0.1, seed: 4 }, kernel, m: 1.5, lambda: 0.001 };
  const b = await openPage(env.b, `${env.url}mrlsr.html#spec=${encodeURIComponent(JSON.stringify(state))}`);
  await b.page.waitForFunction(() => document.body.dataset.ready === '1' && document.body.dataset.busy === '0' && !!document.body.dataset.run, null, { timeout: 120000 });
  assert.equal(await b.page.locator('#kernel').inputValue(), 'expression');
  assert.ok(Number(await text(b.page, '#r-c0')) > 0, await text(b.page, '#r-c0'));
  assert.deepEqual(b.errors, []);
  await b.ctx.close();

  const bad = { ...state, kernel: { kind: 'sum', of: [{ kind: 'linear', x: 1 }, { kind: 'linear' }] } };
  const c = await openPage(env.b, `${env.url}mrlsr.html#spec=${encodeURIComponent(JSON.stringify(bad))}`);
  await c.page.waitForSelector('#error:not([hidden])', { timeout: 120000 });
  const msg = await text(c.page, '#error');
  assert.ok(msg.includes('kernel') && msg.includes('unknown field `x`'), msg);
  assert.deepEqual(c.errors, []);
  await c.ctx.close();
});
