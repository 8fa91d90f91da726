// Paper B's eigendecomposition in the page's worker, one thread (python3 -m http.server: not
// cross-origin isolated) against the threaded build (tools/serve.py: isolated), alternating
// REPS times at n = N (default 2000); and kplay --threads 1 / 2 natively on the same spec.
// Then paper A's dual Newton (n = 200, d = A_D, default 100 000, p = 4/3) in the preset worker
// (run-worker.js), one thread against the threaded build, and kplay --threads 1 / 2.
// A benchmark (issue 21 §3, docs/benchmarks.md), not a test. Usage: node bench-threads.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, browser, openPage, KPLAY, WORKER_SPY, learnRunWorker, runWorkerJob } from './harness.mjs';

const N = Number(process.env.N || 2000);
const REPS = Number(process.env.REPS || 3);
const spec = JSON.parse(execFileSync(KPLAY, ['spec', 'mrlsr']).toString());
spec.data.n = N;
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const b = await browser();
const servers = { one: await serve({ plain: true }), threads: await serve() };
const times = { one: [], threads: [] };
// The page's first eigendecomposition runs in a fresh V8 isolate: the whole call in V8's baseline
// code (a wasm function gets its optimizing tier only for later calls). A second job in the same
// page (a new seed) runs what a class sees from then on; both are reported.
const later = { one: [], threads: [] };
const loadBefore = load();
const eigenText = async (page) => {
  await page.waitForFunction(() => document.body.dataset.busy === '0' && !!document.body.dataset.run
    && /n = \d+/.test(document.getElementById('r-eigen').textContent), null, { timeout: 600000 });
  return page.locator('#r-eigen').innerText();
};
for (let r = 0; r < REPS; r++) {
  for (const kind of ['one', 'threads']) {
    const { page, ctx } = await openPage(b, `${servers[kind].url}mrlsr.html#spec=${encodeURIComponent(JSON.stringify(spec))}`);
    const txt = await eigenText(page);
    const iso = await page.evaluate(() => self.crossOriginIsolated);
    times[kind].push(Number(txt.replace(/ ms.*/, '')));
    const next = { ...spec, data: { ...spec.data, seed: spec.data.seed + 1 } };
    await page.evaluate((h) => { document.getElementById('r-eigen').textContent = ''; location.hash = h; },
      `#spec=${encodeURIComponent(JSON.stringify(next))}`);
    const txt2 = await eigenText(page);
    later[kind].push(Number(txt2.replace(/ ms.*/, '')));
    console.log(`${kind}: first ${txt}, second ${txt2} (crossOriginIsolated ${iso})`);
    await ctx.close();
  }
}
await b.close();
for (const s of Object.values(servers)) await s.stop();
const dir = mkdtempSync(path.join(os.tmpdir(), 'kplay-bench-threads-'));
writeFileSync(path.join(dir, 'spec.json'), JSON.stringify(spec));
const native = { 1: [], 2: [] };
for (let r = 0; r < REPS; r++) {
  for (const t of [1, 2]) {
    const t0 = process.hrtime.bigint();
    execFileSync(KPLAY, ['--threads', String(t), 'run', path.join(dir, 'spec.json')], { maxBuffer: 1 << 28 });
    native[t].push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}
// Paper A: dual Newton in the preset worker, the same spec on both servers (the worker's URL is
// the page's own: a preset starts it and is cancelled at once).
const A_D = Number(process.env.A_D || 100000);
const aSpec = { data: { kind: 'sparse_regression', n: 200, d: A_D, k: 10, sigma: 0.05, seed: 1 },
  model: { problem: 'lp_regression', p: 4 / 3, gamma: 10 }, solver: { algorithm: 'dual_newton', tol: 1e-10, max_iter: 100 } };
const b2 = await browser();
const servers2 = { one: await serve({ plain: true }), threads: await serve() };
const aTimes = { one: [], threads: [] };
const aThreads = {};
const pages = {};
for (const kind of ['one', 'threads']) {
  const ctx = await b2.newContext();
  await ctx.addInitScript(WORKER_SPY, false);
  const page = await ctx.newPage();
  await page.goto(`${servers2[kind].url}lp.html`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 120000 });
  await learnRunWorker(page);
  pages[kind] = page;
}
for (let r = 0; r < REPS; r++) {
  for (const kind of ['one', 'threads']) {
    const [row] = await runWorkerJob(pages[kind], aSpec);
    aTimes[kind].push(row.solve_ms);
    aThreads[kind] = row.threads;
    console.log(`A newton ${kind}: ${row.solve_ms.toFixed(0)} ms, ${row.iter} iterations, ${row.threads} threads, F ${row.primal}`);
  }
}
await b2.close();
for (const s of Object.values(servers2)) await s.stop();
writeFileSync(path.join(dir, 'a.json'), JSON.stringify(aSpec));
const aNative = { 1: [], 2: [] };
for (let r = 0; r < REPS; r++) {
  for (const t of [1, 2]) {
    const out = JSON.parse(execFileSync(KPLAY, ['--threads', String(t), 'run', path.join(dir, 'a.json')], { maxBuffer: 1 << 28 }).toString());
    aNative[t].push(out.time_ms);
  }
}

const best = (a) => Math.min(...a).toFixed(0);
const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)].toFixed(0);
console.log(`\nload before / after: ${loadBefore} / ${load()}`);
console.log(`| n = ${N} | 1 thread | 2 threads | speed-up (best) |`);
console.log('| --- | --- | --- | --- |');
console.log(`| Chromium worker, the page's first eigendecomposition (ms, best / median of ${REPS}) | ${best(times.one)} / ${med(times.one)} | ${best(times.threads)} / ${med(times.threads)} | ${(Math.min(...times.one) / Math.min(...times.threads)).toFixed(2)} |`);
console.log(`| Chromium worker, a second one in the same page (ms, best / median of ${REPS}) | ${best(later.one)} / ${med(later.one)} | ${best(later.threads)} / ${med(later.threads)} | ${(Math.min(...later.one) / Math.min(...later.threads)).toFixed(2)} |`);
console.log(`| kplay run, whole process (ms, best / median of ${REPS}) | ${best(native[1])} / ${med(native[1])} | ${best(native[2])} / ${med(native[2])} | ${(Math.min(...native[1]) / Math.min(...native[2])).toFixed(2)} |`);
console.log(`\n| A dual Newton, n = 200, d = ${A_D}, p = 4/3 | 1 thread | ${aThreads.threads} threads | speed-up (best) |`);
console.log('| --- | --- | --- | --- |');
console.log(`| Chromium preset worker, solve (ms, best / median of ${REPS}) | ${best(aTimes.one)} / ${med(aTimes.one)} | ${best(aTimes.threads)} / ${med(aTimes.threads)} | ${(Math.min(...aTimes.one) / Math.min(...aTimes.threads)).toFixed(2)} |`);
console.log(`| kplay run, solve (ms, best / median of ${REPS}) | ${best(aNative[1])} / ${med(aNative[1])} | ${best(aNative[2])} / ${med(aNative[2])} | ${(Math.min(...aNative[1]) / Math.min(...aNative[2])).toFixed(2)} |`);
console.log(`| worker ÷ kplay (best, 1 thread / ${aThreads.threads} threads vs kplay 1 thread) | ${(Math.min(...aTimes.one) / Math.min(...aNative[1])).toFixed(2)} | ${(Math.min(...aTimes.threads) / Math.min(...aNative[1])).toFixed(2)} | |`);
