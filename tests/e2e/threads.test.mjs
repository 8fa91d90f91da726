// Threads in the browser (issue 21 §3): paper B's worker loads the threaded wasm when the page is
// cross-origin isolated (tools/serve.py sends COOP/COEP, as `make serve`) and the one-thread
// build otherwise (python3 -m http.server, a plain static host): both pages run, with no console
// error, and give the same digest and iterations, and the objective to paper B's page ↔ CLI
// tolerance (1e-12 relative, cli-parity.test.mjs: faer's parallel eigensolver changes the last
// bits, tests/threads.rs); so does kplay --threads 2.
// The eigen message's `threads` field (www/mrlsr-worker.js) says which build ran: a test-only
// init script records it from the page's Worker objects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useBothServers, openPage, KPLAY, WORKER_SPY, runWorkerJob } from './harness.mjs';

const env = useBothServers();

const spec = () => {
  const s = JSON.parse(execFileSync(KPLAY, ['spec', 'mrlsr']).toString());
  s.data.n = 700;
  return s;
};

/** Open paper B at n = 700 from `url`; the run's readout, the worker's thread count, isolation. */
async function runAt(url) {
  const { page, errors, ctx } = await openPage(env.b, `${url}mrlsr.html#spec=${encodeURIComponent(JSON.stringify(spec()))}`);
  await page.waitForFunction(() => document.body.dataset.ready === '1' && document.body.dataset.busy === '0' && !!document.body.dataset.run,
    null, { timeout: 240000 });
  const run = JSON.parse(await page.evaluate(() => document.body.dataset.run));
  const isolated = await page.evaluate(() => self.crossOriginIsolated === true);
  const threads = await page.evaluate(() => window.__eigenThreads);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const link = await page.evaluate(() => decodeURIComponent(location.hash.slice('#spec='.length)));
  assert.deepEqual(errors, []);
  await ctx.close();
  return { run, isolated, threads, cores, link };
}

// Record the `threads` of every eigen message a page's workers post (test only).
const RECORD = () => {
  const W = window.Worker;
  window.Worker = class extends W {
    constructor(...a) {
      super(...a);
      this.addEventListener('message', (ev) => {
        if (ev.data?.type === 'eigen') window.__eigenThreads = ev.data.threads;
      });
    }
  };
};

test('paper B isolated (threads) and not (one thread): both run, same results to 1e-12, kplay agrees', async () => {
  const origNew = env.b.newContext.bind(env.b);
  env.b.newContext = async (...a) => {
    const ctx = await origNew(...a);
    await ctx.addInitScript(RECORD);
    return ctx;
  };
  try {
    const iso = await runAt(env.isolated.url);
    const plain = await runAt(env.plain.url);
    assert.equal(iso.isolated, true, 'tools/serve.py makes the page cross-origin isolated');
    assert.equal(plain.isolated, false, 'python3 -m http.server does not');
    assert.equal(plain.threads, 1, 'not isolated: the one-thread build');
    assert.equal(iso.threads, Math.min(8, iso.cores), 'isolated: the threaded build on every core (at most 8)');
    console.log(`# isolated: ${iso.threads} threads (${iso.cores} cores); plain: ${plain.threads}`);
    assert.equal(iso.run.digest, plain.run.digest, 'data digest');
    assert.equal(iso.run.iterations, plain.run.iterations, 'root-solve iterations');
    // faer's parallel eigensolver sums in another order (tests/threads.rs): the objective agrees
    // to paper B's page ↔ CLI tolerance, not bit for bit.
    const relIso = Math.abs(iso.run.objective - plain.run.objective) / Math.abs(plain.run.objective);
    assert.ok(relIso <= 1e-12, `objective: ${iso.threads} threads ${iso.run.objective}, one ${plain.run.objective} (relative ${relIso})`);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kplay-threads-'));
    const file = path.join(dir, 'spec.json');
    writeFileSync(file, iso.link);
    const native = JSON.parse(execFileSync(KPLAY, ['--threads', '2', 'run', file], { maxBuffer: 1 << 28 }).toString());
    assert.equal(native.data_digest, iso.run.digest, 'kplay: data digest');
    assert.equal(native.iterations, iso.run.iterations, 'kplay: iterations');
    const rel = Math.abs(native.primal - iso.run.objective) / Math.abs(native.primal);
    assert.ok(rel <= 1e-12, `kplay primal ${native.primal}, page ${iso.run.objective} (relative ${rel})`);
  } finally {
    env.b.newContext = origNew;
  }
});

test('a static host without the headers: the service worker makes the next visit isolated, and paper B then runs threaded', async () => {
  const ctx = await env.b.newContext();
  await ctx.addInitScript(RECORD);
  const page = await ctx.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${env.plain.url}mrlsr.html?speed=max`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 120000 });
  assert.equal(await page.evaluate(() => self.crossOriginIsolated), false, 'first visit: no headers, not isolated');
  assert.equal(await page.evaluate(() => window.__eigenThreads), 1);
  await page.waitForFunction(() => !!navigator.serviceWorker?.controller, null, { timeout: 60000 });
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]', { timeout: 120000 });
  assert.equal(await page.evaluate(() => self.crossOriginIsolated), true, 'served by the service worker: isolated');
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  assert.equal(await page.evaluate(() => window.__eigenThreads), Math.min(8, cores), 'the threaded build');
  assert.deepEqual(errors, []);
  await ctx.close();
});

// Paper A (issue 21 §3): the preset worker (www/run-worker.js) runs on the threaded build when
// the page is isolated; the Newton Hessian (faer's product split by output blocks) and the Gram
// tensor (blocks in parallel) are the same bits with any number of threads (tests/threads.rs),
// so the small preset's table is identical, cell for cell, under both servers. This also checks
// that the two wasm builds compute alike: a threaded build from another compiler (a nightly's
// std) changed the last bit of the 5000-iteration FISTA rows.

async function presetAt(url) {
  const ctx = await env.b.newContext();
  await ctx.addInitScript(WORKER_SPY, true);
  const page = await ctx.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${url}lp.html`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 120000 });
  await page.click('#preset-small');
  await page.waitForFunction(() => ['done', 'failed'].includes(document.body.dataset.preset), null, { timeout: 300000 });
  assert.equal(await page.evaluate(() => document.body.dataset.preset), 'done');
  const table = await page.evaluate(() => [...document.querySelectorAll('#preset-table tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent)));
  const rows = await page.evaluate(() => window.__rows);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  // A Newton job large enough for faer's parallel product (n = 200, d = 20 000), straight to a
  // run worker of this page: its objective bits and iterations.
  const [newton] = await runWorkerJob(page, { data: { kind: 'sparse_regression', n: 200, d: 20000, k: 10, sigma: 0.05, seed: 3 },
    model: { problem: 'lp_regression', p: 4 / 3, gamma: 10 }, solver: { algorithm: 'dual_newton', tol: 1e-10, max_iter: 100 } });
  assert.deepEqual(errors, []);
  await ctx.close();
  return { table, rows, cores, newton };
}

test('paper A isolated (threads) and not: the preset worker runs threaded or not, with the same table and the same Newton bits', async () => {
  const iso = await presetAt(env.isolated.url);
  const plain = await presetAt(env.plain.url);
  const want = Math.min(8, iso.cores);
  assert.ok(iso.rows.length >= 10 && iso.rows.every((r) => r.threads === want), `isolated rows' threads: ${JSON.stringify(iso.rows.map((r) => r.threads))}`);
  assert.ok(plain.rows.every((r) => r.threads === 1), 'plain: one thread');
  assert.deepEqual(iso.table, plain.table.map((r, i) => r.map((c, j) => (j === 3 ? iso.table[i][3] : c))), 'the table, but for the solve times');
  assert.deepEqual(iso.rows.map(({ iter, status, primal }) => [iter, status, primal]), plain.rows.map(({ iter, status, primal }) => [iter, status, primal]));
  assert.equal(iso.newton.threads, want);
  assert.equal(plain.newton.threads, 1);
  assert.equal(iso.newton.status, 'converged');
  assert.equal(iso.newton.iter, plain.newton.iter, 'Newton iterations');
  assert.equal(iso.newton.primal, plain.newton.primal, 'Newton objective: the same bits');
  console.log(`# paper A Newton n = 200, d = 20 000: ${iso.newton.iter} iterations; ${want} threads ${iso.newton.solve_ms.toFixed(0)} ms, one ${plain.newton.solve_ms.toFixed(0)} ms`);
});
