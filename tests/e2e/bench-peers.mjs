// The browser column of `make bench-peers` (benches/peers/run.py; not a test): paper A's specs on
// the timing page bench.html (iterations, solver time in the page) and paper B's
// eigendecomposition in the page's worker (bench-mrlsr.html). Prints one JSON object.
// Usage: node bench-peers.mjs SPECS.json N,N,…
import { readFileSync } from 'node:fs';
import { serve, browser } from './harness.mjs';

const specs = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const sizes = process.argv[3] ?? '1000,2000';
const server = await serve();
const b = await browser();
try {
  const ctx = await b.newContext();
  const page = await ctx.newPage();
  // Each spec twice, the second timed: the first also pays for Chromium compiling the solver's
  // wasm functions with its optimizing tier (once per page load; tens of ms).
  const twice = specs.flatMap((s) => [s, s]);
  await page.goto(`${server.url}bench.html#specs=${encodeURIComponent(JSON.stringify(twice))}`);
  await page.waitForFunction(() => document.body.dataset.done, null, { timeout: 3600000 });
  const all = JSON.parse(await page.locator('#out').innerText()).results;
  const a = specs.map((_, i) => ({ iterations: all[2 * i + 1].iterations, solver_ms: all[2 * i + 1].solver_ms, cold_ms: all[2 * i].solver_ms }));
  const eigen = {};
  if (sizes) {
    await page.goto(`${server.url}bench-mrlsr.html?n=${sizes}&main=&refit=500&reps=30`);
    await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 3600000 });
    const err = await page.locator('#error').innerText();
    if (err) throw new Error(err);
    const r = JSON.parse(await page.evaluate(() => document.body.dataset.results));
    for (const [n, w] of Object.entries(r.worker)) eigen[n] = w.eigen_ms;
  }
  let c = [];
  if (process.argv[4]) {
    const cases = JSON.parse(readFileSync(process.argv[4], 'utf8'));
    await page.goto(`${server.url}bench.html#specs=[]`);
    await page.waitForFunction(() => document.body.dataset.done, null, { timeout: 60000 });
    c = await page.evaluate(async (cases) => {
      const m = await import(performance.getEntriesByType('resource').map((e) => e.name).find((n) => /\/pkg\/kernel_playground(\.[0-9a-f]+)?\.js$/.test(n)) ?? './pkg/kernel_playground.js');
      await m.default();
      const out = [];
      const run = (spec, target) => {
        const pg = new m.DinuzzoPlayground(JSON.stringify(spec));
        while (!pg.ready()) pg.prepare(200);
        let s = pg.summary();
        while (pg.running() && !(s.objective <= target)) s = pg.step();
        pg.free();
        return s;
      };
      for (const { n, spec, target } of cases) {
        // Twice: the first run also pays for Chromium compiling the solver's wasm functions
        // with its optimizing tier (a page pays it once per load); the second is the steady state.
        const cold = run(spec, target);
        const s = run(spec, target);
        out.push({ n, ms: s.elapsed_ms, cold_ms: cold.elapsed_ms, sweeps: s.sweep, objective: s.objective, reached: s.objective <= target });
      }
      return out;
    }, cases);
  }
  console.log(JSON.stringify({ a, eigen, c }));
  await ctx.close();
} finally {
  await b.close();
  await server.stop();
}
