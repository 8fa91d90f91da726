// Soak test (issue #13, `make soak`, not part of make test): each page plays a run at its
// largest allowed settings for SOAK_MINUTES (default 10) while the JS heap (CDP
// Performance.getMetrics) and the wasm memory (the module's memory.buffer) are sampled every
// SOAK_EVERY_S seconds; the CLI runs 10⁶ iterations while its RSS is sampled. Memory must be
// flat after warm-up: the last sample may exceed the one at 20 % of the run by at most 10 %
// (+ 2 MiB for the JS heap's garbage-collection noise). Writes tests/e2e/test-results/soak.json.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { serve, browser, ROOT, KPLAY } from './harness.mjs';

const MINUTES = Number(process.env.SOAK_MINUTES || 10);
const EVERY_S = Number(process.env.SOAK_EVERY_S || Math.max(5, MINUTES * 6));
const only = process.env.SOAK_ONLY ? process.env.SOAK_ONLY.split(',') : null;

// The largest settings each page allows (src/budget.rs, Budget::PAGE), and a run that does not
// converge before the soak ends (tiny tolerance, a cap the budget still allows).
const RUNS = {
  a: ['lp.html', { data: { kind: 'sparse_regression', n: 1000, d: 1000, k: 10, sigma: 0.05, seed: 1 },
    model: { problem: 'lp_regression', p: 1.05, gamma: 10 }, solver: { algorithm: 'dual_gradient', tol: 1e-300, max_iter: 240000 } }, 'r-iter'],
  c: ['dinuzzo.html', { data: { kind: 'classification', shape: { kind: 'moons', noise: 0.3 }, n: 2000, label_noise: 0.1, seed: 1 },
    loss: { kind: 'hinge' }, lambda: 1e-4, kernel: { kind: 'gaussian', bandwidth: { fixed: 0.5 } },
    method: { kind: 'coordinate', rule: 'randomized_cyclic', seed: 1, tol: 1e-300, max_sweeps: 10000000 }, race: false }, 'r-sweep'],
  d: ['perceptron.html', { data: { kind: 'generated', set: { shape: { kind: 'blobs', margin: -1.5, spread: 0.5 }, n: 2000, label_noise: 0, seed: 1 } },
    kernel: { kind: 'gaussian', bandwidth: { fixed: 0.5 } }, algorithm: { kind: 'perceptron' }, max_iter: 10000000 }, 'r-iter'],
};

function flat(samples, key, slackBytes) {
  const warm = samples[Math.floor(samples.length / 5)]?.[key];
  const last = samples.at(-1)?.[key];
  return { warm, last, flat: last <= warm * 1.1 + slackBytes };
}

async function soakPage(b, url, name, [file, spec, readout]) {
  const ctx = await b.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  // ?speed=max: the pages default to watchable speeds (A 15/s, D 1/s); a soak runs flat out.
  await page.goto(`${url}${file}?speed=max#spec=${encodeURIComponent(JSON.stringify(spec))}`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 120000 });
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Performance.enable');
  const samples = [];
  const t0 = Date.now();
  for (;;) {
    // The live heap, not the garbage-collection sawtooth (without this C's samples swung
    // 2.7 ↔ 6.1 MiB over a flat run and read as growth).
    await cdp.send('HeapProfiler.collectGarbage');
    const { metrics } = await cdp.send('Performance.getMetrics');
    const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]));
    const wasm = await page.evaluate(async () => (await (await import(performance.getEntriesByType('resource').map((e) => e.name).find((n) => /\/pkg\/kernel_playground(\.[0-9a-f]+)?\.js$/.test(n)) ?? './pkg/kernel_playground.js')).default()).memory.buffer.byteLength);
    const iter = Number(await page.locator(`#${readout}`).innerText()) || 0;
    const err = await page.evaluate(() => (document.getElementById('error')?.hidden === false ? document.getElementById('error').textContent : ''));
    samples.push({ t_s: Math.round((Date.now() - t0) / 1000), js_heap: m.JSHeapUsedSize, wasm, iter, err: err.slice(0, 200) });
    console.log(`${name} t=${samples.at(-1).t_s}s js=${(m.JSHeapUsedSize / 1048576).toFixed(1)}MiB wasm=${(wasm / 1048576).toFixed(1)}MiB ${readout}=${iter}${err ? ` error: ${err.slice(0, 120)}` : ''}`);
    if (Date.now() - t0 >= MINUTES * 60000) break;
    await new Promise((r) => setTimeout(r, EVERY_S * 1000));
  }
  await ctx.close();
  return { page: file, spec, samples, errors, js: flat(samples, 'js_heap', 2 << 20), wasm_mem: flat(samples, 'wasm', 0) };
}

function rssKb(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]);
  } catch { return null; }
}

async function soakCli() {
  const dir = path.join(ROOT, 'tests/e2e/test-results');
  const spec = path.join(dir, 'soak-cli.json');
  // 8 × 12: each iteration takes microseconds, so the solve fills ~90 % of the run and the
  // JSON output at the end (the bounded trace, 10⁵ records) the rest.
  writeFileSync(spec, JSON.stringify({ data: { kind: 'sparse_regression', n: 8, d: 12, k: 2, sigma: 0.05, seed: 1 },
    model: { problem: 'lp_regression', p: 4 / 3, gamma: 10 }, solver: { algorithm: 'dual_gradient', tol: 1e-320, max_iter: 1000000 } }));
  const proc = spawn(KPLAY, ['run', spec], { stdio: ['ignore', 'ignore', 'pipe'] });
  const samples = [];
  const t0 = Date.now();
  const timer = setInterval(() => { const r = rssKb(proc.pid); if (r) samples.push({ t_ms: Date.now() - t0, rss_kb: r }); }, 50);
  const code = await new Promise((r) => proc.on('exit', r));
  clearInterval(timer);
  const kb = samples.map((s) => s.rss_kb);
  // The solve runs until about 90 % of the time; the JSON output (the bounded trace) follows.
  const at = (f) => kb[Math.min(kb.length - 1, Math.floor(kb.length * f))];
  console.log(`CLI: 10⁶ iterations, exit ${code}, ${samples.length} RSS samples over ${Date.now() - t0} ms, RSS at 20 % ${at(0.2)} kB, 50 % ${at(0.5)} kB, 90 % ${at(0.9)} kB, max ${Math.max(...kb)} kB`);
  return { code, samples, max_kb: Math.max(...kb), warm_kb: at(0.2), mid_kb: at(0.5), last_kb: at(0.9) };
}

const out = { minutes: MINUTES, every_s: EVERY_S, pages: {}, cli: null };
mkdirSync(path.join(ROOT, 'tests/e2e/test-results'), { recursive: true });
if (!only || only.includes('cli')) out.cli = await soakCli();
const server = await serve();
const b = await browser();
try {
  for (const [name, run] of Object.entries(RUNS)) {
    if (only && !only.includes(name)) continue;
    out.pages[name] = await soakPage(b, server.url, name, run);
  }
} finally {
  await b.close();
  await server.stop();
}
writeFileSync(path.join(ROOT, 'tests/e2e/test-results/soak.json'), JSON.stringify(out, null, 1));
let ok = true;
for (const [name, r] of Object.entries(out.pages)) {
  const good = r.js.flat && r.wasm_mem.flat && r.errors.length === 0 && !r.samples.some((s) => s.err);
  console.log(`${name}: js ${r.js.warm}→${r.js.last} wasm ${r.wasm_mem.warm}→${r.wasm_mem.last} errors ${r.errors.length} ${good ? 'FLAT' : 'NOT FLAT / ERRORS'}`);
  ok &&= good;
}
if (out.cli) ok &&= out.cli.code === 0 && out.cli.last_kb <= out.cli.warm_kb * 1.1 + 2048;
process.exit(ok ? 0 : 1);
