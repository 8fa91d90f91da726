// Measurement (not a test): click each paper-A preset in headless Chromium and record the page's
// long main-thread tasks (Long Tasks API, > 50 ms) with the preset's progress line at the time,
// how long the preset took, and its finished rows (iterations, build / solve seconds in the
// preset worker). The presets run their jobs in a module Web Worker (www/run-worker.js).
// Usage: node presets-longtasks.mjs [cap_seconds_per_preset] [preset ids…]
//   default cap 240 s; default presets: Figure 1, Table 2, Small batch, Table 1 (page scale).
//   Add preset-table1-paper for Table 1 at the paper's d = 100 000 (several minutes).
import { serve, browser, openPage } from './harness.mjs';

const CAP_S = Number(process.argv[2] ?? 240);
const PRESETS = process.argv.length > 3 ? process.argv.slice(3) : ['preset-figure1', 'preset-table2', 'preset-small', 'preset-table1'];

const server = await serve();
const b = await browser();
try {
  for (const id of PRESETS) {
    const { page, errors, ctx } = await openPage(b, `${server.url}lp.html`);
    await page.evaluate(() => {
      window.__long = [];
      new PerformanceObserver((l) => {
        const status = document.getElementById('preset-status').textContent;
        for (const e of l.getEntries()) window.__long.push({ start: e.startTime, ms: e.duration, status });
      }).observe({ type: 'longtask', buffered: false });
      new MutationObserver(() => {
        for (const tr of document.querySelectorAll('#preset-table tbody tr[data-done="1"]:not([data-t])')) tr.dataset.t = String(performance.now() - window.__t0);
      }).observe(document.getElementById('preset-table'), { childList: true, subtree: true, attributes: true });
      window.__t0 = performance.now();
    });
    await page.click(`#${id}`);
    let outcome = 'done';
    try {
      await page.waitForFunction(() => ['done', 'failed', 'cancelled'].includes(document.body.dataset.preset), null, { timeout: CAP_S * 1000 });
      outcome = await page.evaluate(() => document.body.dataset.preset);
    } catch {
      outcome = `stopped after ${CAP_S} s`;
      await page.click('#preset-cancel');
    }
    // Figure 1 hands its run to the page, which solves it again inside the frame budget.
    await page.waitForTimeout(id === 'preset-figure1' ? 8000 : 0);
    const r = await page.evaluate(() => ({
      long: window.__long, ms: performance.now() - window.__t0,
      rows: [...document.querySelectorAll('#preset-table tbody tr')].map((tr) => ({ text: tr.innerText.replace(/\s+/g, ' '), t: tr.dataset.t })),
      status: document.getElementById('preset-status').textContent,
    }));
    const sorted = [...r.long].sort((a, c) => c.ms - a.ms);
    console.log(`\n## ${id}: ${outcome} (${r.status}), ${(r.ms / 1000).toFixed(1)} s; ${r.long.length} long tasks, ${r.long.filter((e) => e.ms > 200).length} over 200 ms, ${r.long.filter((e) => e.ms > 1000).length} over 1 s`);
    for (const e of sorted.slice(0, 5)) console.log(`  ${e.ms.toFixed(0)} ms at +${((e.start - r.long[0].start) / 1000).toFixed(1)} s — ${e.status}`);
    for (const row of r.rows) console.log(`  | ${row.text}${row.t !== undefined ? `   [done at +${(Number(row.t) / 1000).toFixed(1)} s]` : ''}`);
    if (errors.length) console.log('  console errors:', errors);
    await ctx.close();
  }
} finally {
  await b.close();
  await server.stop();
}
