// Browser timings (not a test): serves www/, opens the timing page and the main page in
// headless Chromium, runs the same specs natively with kplay, and prints a markdown table.
// Usage: node bench.mjs [specs.json]   (make bench-web)
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
const specs = process.argv[2] ? JSON.parse(readFileSync(process.argv[2], 'utf8')) : defaultSpecs;

const server = await serve();
const b = await browser();
try {
  // Page load to first plot, three cold loads.
  const firsts = [];
  for (let i = 0; i < 3; i++) {
    const ctx = await b.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(server.url);
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
  console.log('\n| n | d | p | iterations native / wasm | ms per iteration native | ms per iteration wasm | data build wasm (ms) | same data |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  web.results.forEach((r, i) => {
    const file = path.join(dir, `s${i}.json`);
    writeFileSync(file, JSON.stringify(specs[i]));
    const nat = JSON.parse(execFileSync(KPLAY, ['run', file], { maxBuffer: 1 << 30 }).toString());
    const d = specs[i].data;
    console.log(`| ${d.n} | ${d.d} | ${specs[i].model.p.toFixed(4)} | ${nat.iterations} / ${r.iterations} | ${(nat.time_ms / nat.iterations).toFixed(2)} | ${r.ms_per_iteration.toFixed(2)} | ${r.build_ms.toFixed(0)} | ${nat.data_digest === r.digest ? 'yes' : 'NO'} |`);
  });
  await ctx.close();
} finally {
  await b.close();
  await server.stop();
}
