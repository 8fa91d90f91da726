// Measurement (not a test): each page loaded at its largest allowed settings (src/budget.rs,
// Budget::PAGE) and played for a few seconds, then Reset and Step; records the longest
// main-thread tasks (Long Tasks API, > 50 ms) from navigation on. The issue's rule: none over 200 ms.
// Usage: node limits-longtasks.mjs [seconds_of_play]   (env KPLAY_CPU_THROTTLE applies;
// ONLY=<regexp> runs the cases whose label matches)
import { serve, browser } from './harness.mjs';

const PLAY_S = Number(process.argv[2] ?? 5);
const sparse = (n, d) => ({ kind: 'sparse_regression', n, d, k: 10, sigma: 0.05, seed: 1 });
const A = (data, algorithm, extra = {}) => ({ data, model: { problem: 'lp_regression', p: 4 / 3, gamma: 10, ...extra }, solver: { algorithm, tol: 1e-12, max_iter: 1000 } });
const C = (n, kernel, race = false) => ({ data: { kind: 'classification', shape: { kind: 'moons', noise: 0.15 }, n, label_noise: 0.05, seed: 1 },
  loss: { kind: 'hinge' }, lambda: 0.1, kernel, method: { kind: 'coordinate', rule: 'cyclic', seed: 1, tol: 1e-8, max_sweeps: 20000 }, race });
const D = (n, kernel, margin = 0.3) => ({ data: { kind: 'generated', set: { shape: { kind: 'blobs', margin, spread: 0.5 }, n, label_noise: 0, seed: 1 } },
  kernel, algorithm: { kind: 'perceptron' }, max_iter: 100000 });
const gau = { kind: 'gaussian', bandwidth: { fixed: 0.5 } };
const CASES = [
  ['index.html', 'A n·d = 10⁶ (1000 × 1000) dual_gradient', A(sparse(1000, 1000), 'dual_gradient')],
  ['index.html', 'A n = 10⁶, d = 1 prox_dual', { ...A(sparse(1000000, 1), 'prox_dual'), data: { ...sparse(1000000, 1), k: 1 } }],
  ['index.html', 'A dual_newton n = 500, d = 1000', A(sparse(500, 1000), 'dual_newton')],
  ['index.html', 'A fista 250 × 4000', A(sparse(250, 4000), 'fista')],
  ['dinuzzo.html', 'C n = 2000 Gaussian', C(2000, gau)],
  ['dinuzzo.html', 'C race n = 2000 Gaussian', C(2000, gau, true)],
  ['perceptron.html', 'D n = 2000 linear', D(2000, { kind: 'linear' })],
  ['perceptron.html', 'D n = 2000 Gaussian, overlapping', D(2000, gau, -1.5)],
  ['mrlsr.html', 'B n = 2000 Gaussian', { data: { kind: 'sine', n: 2000, sigma: 0.2, seed: 1 }, kernel: { kind: 'gaussian', bandwidth: 'heuristic' }, m: 1.5, lambda: 1e-3 }],
];

const server = await serve();
const b = await browser();
try {
  for (const [file, label, spec] of CASES.filter((c) => !process.env.ONLY || new RegExp(process.env.ONLY).test(c[1]))) {
    const ctx = await b.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    await page.addInitScript(() => {
      window.__long = [];
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push({ start: e.startTime, ms: e.duration }); })
        .observe({ type: 'longtask', buffered: true });
    });
    await page.goto(`${server.url}${file}#spec=${encodeURIComponent(JSON.stringify(spec))}`);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 180000 });
    await page.waitForTimeout(PLAY_S * 1000);
    if (await page.locator('#reset').count()) {
      await page.click('#reset');
      await page.click('#step');
      await page.waitForTimeout(1000);
    }
    const r = await page.evaluate(() => ({ status: document.body.dataset.status, long: window.__long, error: document.getElementById('error')?.hidden === false ? document.getElementById('error').textContent : '' }));
    const sorted = [...r.long].sort((x, y) => y.ms - x.ms);
    console.log(`${label}: ${r.long.length} long tasks, longest ${sorted.slice(0, 4).map((e) => `${e.ms.toFixed(0)} ms`).join(', ') || '–'}; over 200 ms: ${r.long.filter((e) => e.ms > 200).length}; status ${r.status}${r.error ? ` — error: ${r.error.slice(0, 160)}` : ''}`);
    await ctx.close();
  }
} finally {
  await b.close();
  await server.stop();
}
