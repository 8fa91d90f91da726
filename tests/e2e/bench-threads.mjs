// Paper B's eigendecomposition in the page's worker, one thread (python3 -m http.server: not
// cross-origin isolated) against the threaded build (tools/serve.py: isolated), alternating
// REPS times at n = N (default 2000); and kplay --threads 1 / 2 natively on the same spec.
// A benchmark (issue 21 §3, docs/benchmarks.md), not a test. Usage: node bench-threads.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, browser, openPage, KPLAY } from './harness.mjs';

const N = Number(process.env.N || 2000);
const REPS = Number(process.env.REPS || 3);
const spec = JSON.parse(execFileSync(KPLAY, ['spec', 'mrlsr']).toString());
spec.data.n = N;
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const b = await browser();
const servers = { one: await serve({ plain: true }), threads: await serve() };
const times = { one: [], threads: [] };
const loadBefore = load();
for (let r = 0; r < REPS; r++) {
  for (const kind of ['one', 'threads']) {
    const { page, ctx } = await openPage(b, `${servers[kind].url}mrlsr.html#spec=${encodeURIComponent(JSON.stringify(spec))}`);
    await page.waitForFunction(() => document.body.dataset.busy === '0' && !!document.body.dataset.run
      && /n = \d+/.test(document.getElementById('r-eigen').textContent), null, { timeout: 600000 });
    const txt = await page.locator('#r-eigen').innerText();
    const iso = await page.evaluate(() => self.crossOriginIsolated);
    times[kind].push(Number(txt.replace(/ ms.*/, '')));
    console.log(`${kind}: ${txt} (crossOriginIsolated ${iso})`);
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
const best = (a) => Math.min(...a).toFixed(0);
const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)].toFixed(0);
console.log(`\nload before / after: ${loadBefore} / ${load()}`);
console.log(`| n = ${N} | 1 thread | 2 threads | speed-up (best) |`);
console.log('| --- | --- | --- | --- |');
console.log(`| Chromium worker, eigendecomposition (ms, best / median of ${REPS}) | ${best(times.one)} / ${med(times.one)} | ${best(times.threads)} / ${med(times.threads)} | ${(Math.min(...times.one) / Math.min(...times.threads)).toFixed(2)} |`);
console.log(`| kplay run, whole process (ms, best / median of ${REPS}) | ${best(native[1])} / ${med(native[1])} | ${best(native[2])} / ${med(native[2])} | ${(Math.min(...native[1]) / Math.min(...native[2])).toFixed(2)} |`);
