// Measurement (not a test): click each paper-A preset in headless Chromium and record the page's
// long main-thread tasks (Long Tasks API, > 50 ms) with the preset step running at the time, the
// Gram-tensor build time in the worker, and how long the preset took. Also times `new Playground`
// for Table 1 at the paper's d = 100 000 (the preset uses 10 000).
// Usage: node presets-longtasks.mjs [cap_seconds_per_preset]   (default 240)
import { serve, browser, openPage } from './harness.mjs';

const CAP_S = Number(process.argv[2] ?? 240);
const PRESETS = ['preset-figure1', 'preset-table2', 'preset-small', 'preset-table1'];

const server = await serve();
const b = await browser();
try {
  for (const id of PRESETS) {
    const { page, errors, ctx } = await openPage(b, server.url);
    await page.evaluate(() => {
      window.__long = [];
      new PerformanceObserver((l) => {
        const status = document.getElementById('preset-status').textContent;
        for (const e of l.getEntries()) window.__long.push({ start: e.startTime, ms: e.duration, status });
      }).observe({ type: 'longtask', buffered: false });
      window.__builds = [];
      new MutationObserver(() => {
        const t = document.getElementById('build-readout').textContent;
        if (t.startsWith('built:')) window.__builds.push(t);
      }).observe(document.getElementById('build-readout'), { childList: true, characterData: true, subtree: true });
      window.__t0 = performance.now();
    });
    await page.click(`#${id}`);
    let outcome = 'done';
    try {
      await page.waitForFunction(() => ['done', 'failed', 'cancelled'].includes(document.body.dataset.preset), null, { timeout: CAP_S * 1000 });
      outcome = await page.evaluate(() => document.body.dataset.preset);
    } catch {
      outcome = `stopped after ${CAP_S} s`;
      await page.click('#cancel');
    }
    const r = await page.evaluate(() => ({
      long: window.__long, builds: window.__builds, ms: performance.now() - window.__t0,
      rows: [...document.querySelectorAll('#preset-table tbody tr')].map((tr) => tr.innerText.replace(/\s+/g, ' ')),
    }));
    const sorted = [...r.long].sort((a, c) => c.ms - a.ms);
    console.log(`\n## ${id}: ${outcome}, ${(r.ms / 1000).toFixed(1)} s; ${r.long.length} long tasks, ${r.long.filter((e) => e.ms > 200).length} over 200 ms, ${r.long.filter((e) => e.ms > 1000).length} over 1 s`);
    for (const e of sorted.slice(0, 5)) console.log(`  ${e.ms.toFixed(0)} ms at +${((e.start - r.long[0].start) / 1000).toFixed(1)} s — ${e.status}`);
    for (const t of r.builds) console.log(`  worker ${t}`);
    for (const row of r.rows) console.log(`  | ${row}`);
    if (errors.length) console.log('  console errors:', errors);
    await ctx.close();
  }
  // Table 1 at the paper's scale: the data generation alone, in the page's wasm.
  const { page, ctx } = await openPage(b, server.url);
  const t = await page.evaluate(async () => {
    const m = await import('./pkg/kernel_playground.js');
    await m.default();
    const spec = { data: { kind: 'sparse_regression', n: 200, d: 100000, k: 10, sigma: 0.05, seed: 1 },
      model: { problem: 'lp_regression', p: 4 / 3, gamma: 10 }, solver: { algorithm: 'dual_gradient', tol: 1e-8, max_iter: 5000 } };
    const a = performance.now();
    const pg = new m.Playground(JSON.stringify(spec));
    const made = performance.now() - a;
    const c = performance.now();
    pg.step();
    const first = performance.now() - c;
    pg.free();
    return { made, first };
  });
  console.log(`\nTable 1 at d = 100 000: new Playground (data + features) ${t.made.toFixed(0)} ms, first Algorithm 2.1 iteration ${t.first.toFixed(0)} ms (each a single main-thread task)`);
  await ctx.close();
} finally {
  await b.close();
  await server.stop();
}
