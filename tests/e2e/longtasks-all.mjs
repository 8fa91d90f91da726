// Measurement (not a test: tests never check time): the longest main-thread task of every page
// and every embed plot, in its default state and under each of the fuzz's hostile links
// (tests/e2e/hostile-links.mjs), issue 36 §7: "no main-thread task over 200 ms on any page or
// embed under the fuzz's links". Each link: a fresh page traced (Chromium's `toplevel` trace:
// every task of the renderer's main thread with its wall time and its thread (CPU) time), wait
// for body[data-ready], 1.5 s of its own activity (the embeds autoplay), then Reset and Step where
// the page has them, 0.5 s more. Two figures per task: wall time (what the Long Tasks API
// reports; on a loaded machine it includes the time the thread waited for a core) and thread
// time (the work itself, nearly independent of the load average; on an idle machine the two
// agree). Prints one line per page or embed (links, the longest task by thread time with its
// wall time and link, how many links had a task over 200 ms of thread time), then every link
// whose longest task took over LIST_MS (150) ms of thread time.
// Usage: node longtasks-all.mjs      env ONLY=<regexp on the label>, KPLAY_SITE=DIR (another
// build), LIST_MS=<ms>, MAX_LINKS=<k> (the first k hostile links of each page), KPLAY_CPU_THROTTLE applies. The load average is printed before and after.
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { serve, browser, WWW } from './harness.mjs';
import { HASHES_A, HASHES_B, HASHES_C, HASHES_D } from './hostile-links.mjs';

const LIST_MS = Number(process.env.LIST_MS ?? 150);
const MAX_LINKS = Number(process.env.MAX_LINKS ?? Infinity); // hostile links per page (all by default)
const B2000 = JSON.stringify({ data: { kind: 'sine', n: 2000, sigma: 0.2, seed: 1 }, kernel: { kind: 'gaussian', bandwidth: 'heuristic' }, m: 1.5, lambda: 1e-3 });
const HASHES = { 'lp.html': HASHES_A, 'mrlsr.html': [...HASHES_B, B2000], 'dinuzzo.html': HASHES_C, 'perceptron.html': HASHES_D };
// The embed catalogue, read from www/embed.js (PLOTS: name → its paper page).
const PLOTS = [...fs.readFileSync(path.join(WWW, 'embed.js'), 'utf8').matchAll(/^\s+'([a-z]-[a-z]+)': \{ page: '([a-z]+\.html)'/gm)].map((m) => ({ plot: m[1], page: m[2] }));
if (PLOTS.length === 0) throw new Error('no plots found in www/embed.js');

const TARGETS = [
  { label: 'index.html', url: 'index.html', hashes: [null], viewport: { width: 1280, height: 900 } },
  ...Object.entries(HASHES).map(([file, hs]) => ({ label: file, url: file, hashes: [null, ...hs.slice(0, MAX_LINKS)], viewport: { width: 1280, height: 900 } })),
  ...PLOTS.map(({ plot, page }) => ({ label: `embed ${plot}`, url: `embed.html?plot=${plot}`, hashes: [null, ...HASHES[page].slice(0, MAX_LINKS)], viewport: { width: 640, height: 400 } })),
].filter((t) => !process.env.ONLY || new RegExp(process.env.ONLY).test(t.label));

/** The renderer main thread's tasks in a Chromium trace: [{wall, thread}] in ms. */
function mainTasks(buf) {
  const ev = JSON.parse(buf.toString()).traceEvents ?? [];
  const main = new Set(ev.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  return ev.filter((e) => e.ph === 'X' && /RunTask/.test(e.name) && main.has(`${e.pid}:${e.tid}`))
    .map((e) => ({ wall: (e.dur ?? 0) / 1000, thread: (e.tdur ?? 0) / 1000 }));
}

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(', ');
console.log(`load average at start: ${load()}`);
const server = await serve();
const b = await browser();
const rows = [];
const slow = [];
try {
  for (const t of TARGETS) {
    const per = [];
    for (const [i, hash] of t.hashes.entries()) {
      const ctx = await b.newContext({ viewport: t.viewport });
      const page = await ctx.newPage();
      await b.startTracing(page, { categories: ['toplevel'] });
      const frag = hash === null ? '' : `#spec=${hash.startsWith('%') ? hash : encodeURIComponent(hash)}`;
      let note = '';
      try {
        await page.goto(`${server.url}${t.url}${frag}`);
        await page.waitForSelector('body[data-ready="1"]', { timeout: 180000 });
        await page.waitForTimeout(1500);
        for (const id of ['#reset', '#step']) {
          const el = page.locator(id);
          if (await el.count() && await el.first().isVisible() && await el.first().isEnabled()) await el.first().click({ timeout: 5000 }).catch(() => {});
        }
        await page.waitForTimeout(500);
      } catch (e) {
        note = ` (${String(e.message ?? e).split('\n')[0].slice(0, 80)})`;
      }
      const tasks = mainTasks(await b.stopTracing());
      const top = tasks.reduce((a, x) => (x.thread > a.thread ? x : a), { thread: 0, wall: 0 });
      const wall = tasks.reduce((a, x) => Math.max(a, x.wall), 0);
      const link = hash === null ? 'default' : `link ${i}: ${hash.slice(0, 90)}`;
      per.push({ max: top.thread, wallOfMax: top.wall, wall, link });
      if (top.thread > LIST_MS || note) slow.push(`${t.label} ${link}: longest ${top.thread.toFixed(0)} ms thread (${top.wall.toFixed(0)} ms wall); longest wall ${wall.toFixed(0)} ms${note}`);
      await ctx.close();
    }
    const worst = per.reduce((a, x) => (x.max > a.max ? x : a), per[0]);
    const over = per.filter((x) => x.max > 200).length;
    const wallMax = Math.max(...per.map((x) => x.wall));
    const row = `${t.label.padEnd(20)} ${String(per.length).padStart(3)} links  longest ${worst.max.toFixed(0).padStart(4)} ms thread (${worst.wallOfMax.toFixed(0).padStart(4)} ms wall; ${worst.link.slice(0, 48)})  over 200 ms thread: ${over}  longest wall ${wallMax.toFixed(0)} ms`;
    rows.push(row);
    console.log(row);
  }
} finally {
  await b.close();
  await server.stop();
}
console.log(`\nload average at end: ${load()}\n`);
console.log(rows.join('\n'));
console.log(`\nlinks with a task over ${LIST_MS} ms:`);
console.log(slow.join('\n') || '(none)');
