// The browser columns of `make bench-peers` (benches/peers/run.py; not a test): paper A's specs on
// the timing page bench.html (iterations, solver time in the page, one thread), paper A's Newton
// specs in the preset worker (run-worker.js) and paper B's eigendecomposition in the page's
// worker (bench-mrlsr.html), each on a plain server (one thread) and on tools/serve.py
// (cross-origin isolated: the threaded build, issue 21 §3). Prints one JSON object.
// Usage: node bench-peers.mjs SPECS.json N,N,… [C-CASES.json]
import { readFileSync } from 'node:fs';
import { serve, browser, WORKER_SPY, learnRunWorker, runWorkerJob } from './harness.mjs';

const specs = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const sizes = process.argv[3] ?? '1000,2000';
const server = await serve({ plain: true });
const isolated = await serve();
const b = await browser();

/** Each Newton spec in a fresh run worker of a page served by `srv` (twice, the second timed). */
async function newtonInWorker(srv) {
  const ctx = await b.newContext();
  await ctx.addInitScript(WORKER_SPY, false);
  const page = await ctx.newPage();
  await page.goto(`${srv.url}lp.html`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 120000 });
  await learnRunWorker(page);
  const out = [];
  for (const spec of specs) {
    if (spec.solver?.algorithm !== 'dual_newton') { out.push(null); continue; }
    const [cold, warm] = await runWorkerJob(page, spec, 2);
    out.push({ threads: warm.threads, iterations: warm.iter, solver_ms: warm.solve_ms, cold_ms: cold.solve_ms });
  }
  await ctx.close();
  return out;
}

/** Paper B's eigendecomposition in the page's worker (bench-mrlsr.html) on `srv`. */
async function eigenOn(srv, page) {
  const out = {};
  await page.goto(`${srv.url}bench-mrlsr.html?n=${sizes}&main=&refit=500&reps=30`);
  await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 3600000 });
  const err = await page.locator('#error').innerText();
  if (err) throw new Error(err);
  const r = JSON.parse(await page.evaluate(() => document.body.dataset.results));
  for (const [n, w] of Object.entries(r.worker)) out[n] = { ms: w.eigen_ms, threads: w.threads ?? 1 };
  return out;
}

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
  let eigen = {};
  let eigenThreads = {};
  if (sizes) {
    eigen = await eigenOn(server, page);
    const ictx = await b.newContext();
    eigenThreads = await eigenOn(isolated, await ictx.newPage());
    await ictx.close();
  }
  const newton = { one: await newtonInWorker(server), threads: await newtonInWorker(isolated) };
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
  console.log(JSON.stringify({ a, eigen, eigen_threads: eigenThreads, newton, c }));
  await ctx.close();
} finally {
  await b.close();
  await server.stop();
  await isolated.stop();
}
