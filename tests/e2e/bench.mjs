// Browser timings (not a test): serves www/, opens the timing page and the main page in
// headless Chromium, runs the same specs natively with kplay, and prints a markdown table.
// Usage: node bench.mjs [specs.json]   (make bench-web)
//        node bench.mjs mrlsr [n,n,…] [main-thread n,…]   (paper B: eigendecomposition in the
//        page's worker, adoption on the main thread, m-slider refit; see docs/mrlsr.md)
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { serve, browser, KPLAY, WWW } from './harness.mjs';

const defaultSpecs = [
  { data: { kind: 'sparse_regression', n: 100, d: 1000, k: 10, sigma: 0.05, seed: 1 }, model: { problem: 'lp_regression', p: 4 / 3, gamma: 10 }, solver: { tol: 1e-10, max_iter: 5000 } },
  { data: { kind: 'sparse_regression', n: 200, d: 10000, k: 10, sigma: 0.05, seed: 7 }, model: { problem: 'lp_regression', p: 4 / 3, gamma: 10 }, solver: { tol: 1e-10, max_iter: 5000 } },
];

if (process.argv[2] === 'mrlsr') {
  const sizes = process.argv[3] ?? '500,1000,2000';
  const main = process.argv[4] ?? '';
  const server = await serve();
  const b = await browser();
  try {
    const ctx = await b.newContext();
    const page = await ctx.newPage();
    await page.goto(`${server.url}bench-mrlsr.html?n=${sizes}&main=${main}&refit=500&reps=300`);
    await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 1800000 });
    const err = await page.locator('#error').innerText();
    if (err) throw new Error(err);
    const r = JSON.parse(await page.evaluate(() => document.body.dataset.results));
    console.log('| n | eigen in the worker (ms) | round trip (ms) | adopt on the main thread (ms) | longest main-thread task meanwhile (ms) |');
    console.log('| --- | --- | --- | --- | --- |');
    for (const [n, w] of Object.entries(r.worker)) {
      console.log(`| ${n} | ${w.eigen_ms.toFixed(0)} | ${w.round_trip_ms.toFixed(0)} | ${w.adopt_ms.toFixed(0)} | ${w.longest_task_during_ms.toFixed(0)} |`);
    }
    for (const [n, ms] of Object.entries(r.main)) console.log(`main thread n = ${n}: ${ms.toFixed(0)} ms`);
    console.log(`m-slider refit n = 500: ${r.refit.toFixed(3)} ms (mean of 300)`);
    await ctx.close();
  } finally {
    await b.close();
    await server.stop();
  }
  process.exit(0);
}
const specs = process.argv[2] ? JSON.parse(readFileSync(process.argv[2], 'utf8')) : defaultSpecs;

const server = await serve();
const b = await browser();
try {
  // Page load to first plot, three cold loads.
  const firsts = [];
  for (let i = 0; i < 3; i++) {
    const ctx = await b.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(`${server.url}lp.html`);
    await page.waitForFunction(() => document.body.dataset.firstPlotMs, null, { timeout: 60000 });
    firsts.push(Number(await page.evaluate(() => document.body.dataset.firstPlotMs)));
    await ctx.close();
  }
  const ctx = await b.newContext();
  const page = await ctx.newPage();
  await page.goto(`${server.url}bench.html#specs=${encodeURIComponent(JSON.stringify(specs))}`);
  await page.waitForFunction(() => document.body.dataset.done, null, { timeout: 600000 });
  const web = JSON.parse(await page.locator('#out').innerText());
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kplay-bench-'));
  const wasm = readFileSync(path.join(WWW, 'pkg/kernel_playground_bg.wasm'));
  console.log(`wasm: ${wasm.length} bytes raw, ${gzipSync(wasm, { level: 9 }).length} bytes gzipped`);
  console.log(`page load to first plot: ${firsts.map((v) => v.toFixed(0)).join(', ')} ms (3 cold loads); wasm init ${web.init_ms.toFixed(0)} ms`);
  console.log('\n| n | d | p | algorithm / path | iterations native / wasm | solve native (ms) | solve wasm (ms) | setup native (ms) | data/features build wasm (ms) | tensor build wasm worker (ms, values/s) | same data |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  web.results.forEach((r, i) => {
    const file = path.join(dir, `s${i}.json`);
    writeFileSync(file, JSON.stringify(specs[i]));
    const nat = JSON.parse(execFileSync(KPLAY, ['run', file], { maxBuffer: 1 << 30 }).toString());
    const d = specs[i].data;
    const m = specs[i].model;
    const alg = `${specs[i].solver?.algorithm ?? 'dual_gradient'} / ${m.path ?? 'features'}${m.kernel ? ` ${m.kernel.kind}${m.kernel.degree ? ` s=${m.kernel.degree}` : ''}` : ''}`;
    const tb = r.tensor ? `${r.tensor.build_ms.toFixed(0)} (${r.tensor.entries_per_s.toExponential(2)})` : '–';
    console.log(`| ${d.n} | ${d.d} | ${m.p.toFixed(4)} | ${alg} | ${nat.iterations} / ${r.iterations} | ${nat.time_ms.toFixed(1)} | ${r.solver_ms.toFixed(1)} | ${(nat.setup_ms ?? 0).toFixed(0)} | ${r.build_ms.toFixed(0)} | ${tb} | ${nat.data_digest === r.digest ? 'yes' : 'NO'} |`);
  });
  await ctx.close();
} finally {
  await b.close();
  await server.stop();
}
