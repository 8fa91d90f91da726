// Measurement (not a test): embed.html?plot=b-fit with a paper-B spec at n = 2 000 (issue 36,
// item 7: the eigendecomposition ran on the embed's main thread for 3.6 s; page B runs it in its
// worker). Records the main-thread tasks over 50 ms (Long Tasks API) from navigation until the
// embed is ready and has played a few steps. The rule: none over 200 ms.
// Usage: node embed-longtasks.mjs [n]   (KPLAY_SITE=DIR serves another build, e.g. main's dist)
import { serve, browser } from './harness.mjs';

const n = Number(process.argv[2] ?? 2000);
const spec = { data: { kind: 'sine', n, sigma: 0.2, seed: 1 }, kernel: { kind: 'gaussian', bandwidth: 'heuristic' }, m: 1.5, lambda: 1e-3 };
const server = await serve();
const b = await browser();
try {
  const ctx = await b.newContext({ viewport: { width: 640, height: 400 } });
  const page = await ctx.newPage();
  await page.addInitScript(() => {
    window.__long = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push({ start: e.startTime, ms: e.duration }); })
      .observe({ type: 'longtask', buffered: true });
  });
  const t0 = Date.now();
  await page.goto(`${server.url}embed.html?plot=b-fit#spec=${encodeURIComponent(JSON.stringify(spec))}`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 300000 });
  const ready = Date.now() - t0;
  await page.waitForFunction(() => Number(document.body.dataset.steps) >= 10, null, { timeout: 300000 });
  const r = await page.evaluate(() => ({ long: window.__long, error: document.getElementById('error').hidden ? '' : document.getElementById('error').textContent }));
  const sorted = [...r.long].sort((x, y) => y.ms - x.ms);
  console.log(`embed b-fit n = ${n}: ready in ${(ready / 1000).toFixed(1)} s; ${r.long.length} long tasks, longest ${sorted.slice(0, 4).map((e) => `${e.ms.toFixed(0)} ms`).join(', ') || '–'}; over 200 ms: ${r.long.filter((e) => e.ms > 200).length}${r.error ? ` — error: ${r.error.slice(0, 160)}` : ''}`);
  await ctx.close();
} finally {
  await b.close();
  await server.stop();
}
