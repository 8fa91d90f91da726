// Paper C's large problem prepared in a worker on every core (issue 21 §3): on a cross-origin
// isolated page (tools/serve.py, as `make serve`) with 2 cores or more, www/prep-worker.js
// computes the Gram matrix, ‖K‖₂ and the map's kernel values on the threaded build and the page
// adopts them; without isolation (python3 -m http.server) the page prepares in slices. Both give
// the same run, bit for bit, and kplay's. A spec changed while the worker works ignores its
// answer; a worker that fails leaves the page to its slices. No test checks time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useBothServers, openPage, KPLAY } from './harness.mjs';

const env = useBothServers();

// The page's largest n (its budget's kernel limit), the fixed point with α = 1/‖K‖₂ (so ‖K‖₂ is part of the preparation).
const SPEC = {
  data: { kind: 'classification', shape: { kind: 'moons', noise: 0.15 }, n: 2000, label_noise: 0.05, seed: 1 }, loss: { kind: 'hinge' }, lambda: 0.1,
  kernel: { kind: 'gaussian', bandwidth: { fixed: 0.5 } }, method: { kind: 'fixed_point', step: { kind: 'inverse_norm' }, tol: 1e-8, max_sweeps: 40 }, race: false,
};
const ended = () => ['max_sweeps', 'converged'].includes(document.body.dataset.status);

/** kplay's run of the page's link. */
function kplay(link) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kplay-prep-'));
  const file = path.join(dir, 'spec.json');
  writeFileSync(file, link);
  return JSON.parse(execFileSync(KPLAY, ['run', file], { maxBuffer: 1 << 28 }).toString());
}

/** Open page C on `spec` from `url` (after `init`, an init script), run to the end. */
async function runAt(url, spec, init) {
  const ctx = await env.b.newContext({ viewport: { width: 1280, height: 900 } });
  if (init) await ctx.addInitScript(init);
  const page = await ctx.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${url}dinuzzo.html?speed=max#spec=${encodeURIComponent(JSON.stringify(spec))}`);
  assert.equal(await page.evaluate(() => document.getElementById('error')?.textContent ?? ''), '', 'the link is taken');
  await page.waitForFunction(() => Number(document.body.dataset.prepared || 0) >= 1, null, { timeout: 240000 });
  await page.waitForFunction(ended, null, { timeout: 240000 });
  const out = await page.evaluate(() => ({
    run: JSON.parse(document.body.dataset.run),
    worker: document.body.dataset.prepWorker ?? null,
    note: document.getElementById('prep-note').hidden ? '' : document.getElementById('prep-note').textContent,
    isolated: self.crossOriginIsolated === true,
    cores: navigator.hardwareConcurrency,
    link: decodeURIComponent(location.hash.slice('#spec='.length)),
  }));
  return { ...out, page, errors, ctx };
}

test('page C at n = 2000: prepared in a worker on threads (isolated) or in slices (plain), the same run bit for bit, and kplay\'s', async () => {
  const iso = await runAt(env.isolated.url, SPEC);
  const plain = await runAt(env.plain.url, SPEC);
  assert.equal(iso.isolated, true, 'tools/serve.py makes the page cross-origin isolated');
  assert.equal(plain.isolated, false);
  assert.ok(iso.cores >= 2, 'this test needs 2 cores');
  assert.equal(iso.worker, String(Math.min(8, iso.cores)), 'isolated: adopted from the worker on every core (at most 8)');
  assert.match(iso.note, /worker on \d+ threads/);
  assert.equal(plain.worker, null, 'not isolated: no worker, slices');
  console.log(`# ${iso.note}`);
  assert.deepEqual(iso.run, plain.run, 'digest, sweeps and objective bits');
  const native = kplay(iso.link);
  assert.equal(native.data_digest, iso.run.digest);
  assert.equal(native.iterations, iso.run.iterations);
  assert.equal(native.primal, iso.run.objective);
  for (const r of [iso, plain]) {
    assert.deepEqual(r.errors, []);
    await r.ctx.close();
  }
});

test('a spec changed while the worker prepares: the stale answer is ignored, the new spec runs as kplay does', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.isolated.url}dinuzzo.html?speed=max#spec=${encodeURIComponent(JSON.stringify(SPEC))}`);
  await page.waitForFunction(() => document.body.dataset.ready === '1' && document.body.dataset.prepWorker === 'running', null, { timeout: 120000 });
  await page.fill('#seed', '2');
  await page.dispatchEvent('#seed', 'change');
  await page.waitForFunction(() => Number(document.body.dataset.prepared || 0) >= 1, null, { timeout: 240000 });
  await page.waitForFunction(ended, null, { timeout: 240000 });
  const run = JSON.parse(await page.evaluate(() => document.body.dataset.run));
  const link = await page.evaluate(() => decodeURIComponent(location.hash.slice('#spec='.length)));
  assert.equal(JSON.parse(link).data.seed, 2);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  assert.equal(await page.evaluate(() => document.body.dataset.prepWorker), String(Math.min(8, cores)), 'the new spec\'s preparation adopted from its worker');
  const native = kplay(link);
  assert.equal(native.data_digest, run.digest);
  assert.equal(native.iterations, run.iterations);
  assert.equal(native.primal, run.objective);
  assert.deepEqual(errors, []);
  await ctx.close();
});

// The page's worker is replaced by one that fails to load (a missing script).
const BROKEN = () => {
  const W = window.Worker;
  window.Worker = class extends W {
    constructor(url, opts) {
      super(String(url).includes('prep-worker') ? new URL('./no-such-worker.js', location.href) : url, opts);
    }
  };
};

test('a worker that fails: the page prepares in slices and gives the same run', async () => {
  const broken = await runAt(env.isolated.url, SPEC, BROKEN);
  assert.equal(broken.isolated, true);
  assert.equal(broken.worker, 'slices', 'the failure seen, the slices took over');
  const native = kplay(broken.link);
  assert.equal(native.data_digest, broken.run.digest);
  assert.equal(native.iterations, broken.run.iterations);
  assert.equal(native.primal, broken.run.objective);
  // A missing script is a 404 the browser logs itself; the page logs no error of its own.
  assert.deepEqual(broken.errors.filter((e) => !/404|Failed to load/.test(e)), []);
  await broken.ctx.close();
});
