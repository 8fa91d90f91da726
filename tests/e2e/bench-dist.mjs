// `make bench-dist` (not a test: it reports, it checks nothing): what dist/ weighs and how fast the
// front page moves from it. Sizes of each wasm (raw, gzip, brotli: dist/'s own .gz/.br copies) and
// of the whole folder; then five cold loads of the front page served from dist/ under a sub-path
// (fresh browser context each, so no HTTP cache and no service worker), each giving
// body.dataset.firstMoveMs: performance.now() (since navigation start) when a card first draws a
// new iterate. Prints one JSON object.
import { readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, browser, DIST } from './harness.mjs';

const walk = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
const files = walk(DIST);
const size = (f) => statSync(f).size;
// One wasm per page group (tools/wasm-split.mjs) and the full one (the timing pages').
const wasms = files.filter((f) => f.endsWith('.wasm')).sort();
const plain = files.filter((f) => !/\.(gz|br)$/.test(f));
const sum = (fs) => fs.reduce((s, f) => s + size(f), 0);
const precached = (await import('node:fs')).readFileSync(path.join(DIST, 'sw.js'), 'utf8').match(/^const PRECACHE = (\[.*\]);$/m)[1];
const pre = JSON.parse(precached).filter((f) => f !== './').map((f) => path.join(DIST, f));
const brOf = (f) => (files.includes(`${f}.br`) ? size(`${f}.br`) : size(f));
const gzOf = (f) => (files.includes(`${f}.gz`) ? size(`${f}.gz`) : size(f));

const server = await serve({ prefix: 'course/kplay/' });
const b = await browser();
const firstMove = [];
try {
  for (let i = 0; i < 5; i++) {
    const ctx = await b.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
    const page = await ctx.newPage();
    await page.goto(`${server.url}index.html`);
    await page.waitForFunction(() => document.body.dataset.firstMoveMs, null, { timeout: 60000 });
    firstMove.push(Number(await page.evaluate(() => document.body.dataset.firstMoveMs)));
    await ctx.close();
  }
} finally {
  await b.close();
  await server.stop();
}
const sorted = [...firstMove].sort((x, y) => x - y);
console.log(JSON.stringify({
  wasm: wasms.map((wasm) => ({ file: path.relative(DIST, wasm), raw: size(wasm), gzip: size(`${wasm}.gz`), brotli: size(`${wasm}.br`) })),
  dist: { files: plain.length, bytes: sum(plain), with_compressed_copies: sum(files) },
  first_visit_download: { raw: sum(pre), gzip: pre.reduce((s, f) => s + gzOf(f), 0), brotli: pre.reduce((s, f) => s + brOf(f), 0), note: 'every precached file: about what one client downloads on a first visit that stays until the service worker has precached the site (the hashed files the page loaded come from the HTTP cache)' },
  front_page_first_move_ms: { cold_loads: firstMove, median: sorted[2] },
  load_average: os.loadavg().map((x) => Number(x.toFixed(2))),
}, null, 1));
