// Page C says how a run ended in the core's words (issue 34): its status word is the executor's
// stop word, the one `kplay run` prints for the same spec (the page once said `max_sweeps` where
// kplay said `max_iterations`). One spec per way a run of paper C ends on the page: converged
// (δ reached), the sweep cap, and the executor's stall rule (a fixed α whose iteration neither
// converges nor grows); each page run is also kplay's in iterations and objective bits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, openPage, KPLAY } from './harness.mjs';

const env = useBrowser();

const base = {
  paper: 'dinuzzo',
  data: { kind: 'classification', shape: { kind: 'moons', noise: 0.15 }, n: 150, label_noise: 0.05, seed: 1 },
  loss: { kind: 'hinge' }, lambda: 0.1, kernel: { kind: 'gaussian', bandwidth: { fixed: 0.5 } }, race: false,
};
const CASES = [
  { name: 'converged', method: { kind: 'coordinate', rule: 'cyclic', seed: 1, tol: 1e-8, max_sweeps: 20000 } },
  { name: 'the sweep cap', method: { kind: 'coordinate', rule: 'cyclic', seed: 1, tol: 1e-8, max_sweeps: 7 } },
  { name: 'the stall rule', method: { kind: 'fixed_point', step: { kind: 'fixed', value: 0.5 }, tol: 1e-8, max_sweeps: 3000 } },
];

const ENDED = () => !['running', 'preparing', 'empty', undefined].includes(document.body.dataset.status);

for (const c of CASES) {
  test(`page C ends at ${c.name} with kplay run's status word`, async () => {
    const spec = { ...base, method: c.method };
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kplay-status-'));
    const file = path.join(dir, 'spec.json');
    writeFileSync(file, JSON.stringify(spec));
    const native = JSON.parse(execFileSync(KPLAY, ['run', file], { maxBuffer: 1 << 28 }).toString());
    const { page, errors, ctx } = await openPage(env.b, `${env.url}dinuzzo.html?speed=max#spec=${encodeURIComponent(JSON.stringify(spec))}`);
    await page.waitForFunction(ENDED, null, { timeout: 120000 });
    const status = await page.evaluate(() => document.body.dataset.status);
    assert.equal(status, native.status, 'the page says what kplay says');
    const run = JSON.parse(await page.evaluate(() => document.body.dataset.run));
    assert.equal(run.iterations, native.iterations, 'iterations');
    assert.equal(run.objective, native.primal, 'final objective bits');
    // The readout the reader sees is that word, its underscore a space.
    const shown = await page.evaluate(() => document.getElementById('r-status').textContent);
    assert.ok(shown.includes(native.status.replaceAll('_', ' ')), `r-status "${shown}" shows ${native.status}`);
    assert.deepEqual(errors, []);
    await ctx.close();
  });
}

test('the three cases end three different ways (the test can tell them apart)', () => {
  const words = CASES.map((c) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kplay-status-'));
    const file = path.join(dir, 'spec.json');
    writeFileSync(file, JSON.stringify({ ...base, method: c.method }));
    return JSON.parse(execFileSync(KPLAY, ['run', file]).toString()).status;
  });
  assert.deepEqual(words, ['converged', 'max_iterations', 'stalled']);
});
