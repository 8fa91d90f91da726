// `make load` (not part of make test; issue 22 item 5): a room of students opening the site at
// once. Serves dist/ with python http.server on loopback (what `make serve` runs on a lecturer's
// laptop) and lets CLIENTS simulated clients (default 100) each fetch the front page and paper A's
// page with every file they load, then what the service worker precaches; six connections per
// client, as a browser opens per host. Then the same clients come back "warm": the service worker
// answers from its cache, so only the pages (revalidated: 304) and the service worker's update
// check reach the server. Bounded: CLIENTS ≤ 500, LOAD_TIMEOUT_S (default 300). Prints one JSON object.
import { readFileSync, statSync, existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import os from 'node:os';
import { serve, DIST } from './harness.mjs';

const CLIENTS = Math.min(Number(process.env.CLIENTS || 100), 500);
const PER_CLIENT = 6;
const TIMEOUT_S = Number(process.env.LOAD_TIMEOUT_S || 300);

// What a page loads: its html, then every file it names, recursively (the references dist.mjs wrote).
const REF = /(["'])((?:\.\/)*[A-Za-z0-9_\-./]+\.(?:js|css|wasm|webmanifest))\1/g;
const FULL_WASM = /^pkg\/kernel_playground_bg\.[0-9a-f]{10}\.wasm$/;
function closure(page) {
  const seen = new Set([page]);
  const todo = [page];
  while (todo.length) {
    const f = todo.pop();
    if (!/\.(html|js)$/.test(f)) continue;
    for (const m of readFileSync(path.join(DIST, f), 'utf8').matchAll(REF)) {
      const r = path.posix.normalize(path.posix.join(path.posix.dirname(f), m[2]));
      // The glue names the full wasm as its default; the pages pass their own (tools/wasm-split.mjs).
      if (FULL_WASM.test(r)) continue;
      if (!seen.has(r) && existsSync(path.join(DIST, r))) { seen.add(r); todo.push(r); }
    }
  }
  return [...seen];
}
const sw = readFileSync(path.join(DIST, 'sw.js'), 'utf8');
const precache = JSON.parse(sw.match(/^const PRECACHE = (\[.*\]);$/m)[1]).filter((f) => f !== './');
const pages = [...new Set([...closure('index.html'), ...closure('lp.html'), 'sw.js'])];
const cold = [...new Set([...pages, ...precache])];
const size = (f) => statSync(path.join(DIST, f)).size;
const br = (f) => (existsSync(path.join(DIST, `${f}.br`)) ? size(`${f}.br`) : size(f));

const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS * PER_CLIENT });
function get(base, f, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${f}`, { agent, headers }, (res) => {
      let n = 0;
      res.on('data', (d) => { n += d.length; });
      res.on('end', () => resolve({ status: res.statusCode, bytes: n, lastModified: res.headers['last-modified'] }));
    });
    req.on('error', reject);
    req.setTimeout(TIMEOUT_S * 1000, () => req.destroy(new Error(`timeout ${f}`)));
  });
}
/** One client: `files` over PER_CLIENT connections; resolves to { ms, bytes, requests, failed }. */
async function client(base, files, headers) {
  const t0 = performance.now();
  const queue = [...files];
  let bytes = 0, failed = 0;
  await Promise.all(Array.from({ length: PER_CLIENT }, async () => {
    for (let f = queue.shift(); f !== undefined; f = queue.shift()) {
      try {
        const r = await get(base, f, headers(f));
        bytes += r.bytes;
        if (r.status >= 400) failed++;
      } catch { failed++; }
    }
  }));
  return { ms: performance.now() - t0, bytes, requests: files.length, failed };
}
async function room(base, files, headers = () => ({})) {
  const t0 = performance.now();
  const rs = await Promise.all(Array.from({ length: CLIENTS }, () => client(base, files, headers)));
  const wall = (performance.now() - t0) / 1000;
  const ms = rs.map((r) => r.ms).sort((a, b) => a - b);
  const bytes = rs.reduce((s, r) => s + r.bytes, 0);
  return {
    clients: CLIENTS, requests_per_client: files.length, bytes_per_client: Math.round(bytes / CLIENTS),
    failed: rs.reduce((s, r) => s + r.failed, 0), wall_s: Number(wall.toFixed(2)),
    throughput_MB_s: Number((bytes / 1e6 / wall).toFixed(1)), requests_s: Math.round((CLIENTS * files.length) / wall),
    client_ms: { p50: Math.round(ms[Math.floor(CLIENTS / 2)]), p95: Math.round(ms[Math.floor(CLIENTS * 0.95)]), max: Math.round(ms[CLIENTS - 1]) },
  };
}

const timer = setTimeout(() => { console.error(`load: over ${TIMEOUT_S} s; so far: ${JSON.stringify(report)}`); process.exit(1); }, TIMEOUT_S * 1000);
const report = { clients: CLIENTS, connections_per_client: PER_CLIENT, cold_files: cold.length };
const only = process.env.LOAD_SERVERS ? process.env.LOAD_SERVERS.split(',').map(Number) : [0, 1, 2];
// tools/serve.py (make serve) as a browser asks (brotli accepted), the same without compression,
// then Python's plain http.server (no compression, a listen backlog of 5).
for (const [name, plain, enc] of [['tools/serve.py, brotli', false, 'br, gzip'], ['tools/serve.py, no compression', false, null], ['python3 -m http.server', true, null]].filter((_, i) => only.includes(i))) {
  console.error(`load: ${name}…`);
  const server = await serve({ prefix: 'course/kplay/', plain });
  const ae = enc ? { 'accept-encoding': enc } : {};
  try {
    const lm = Object.fromEntries(await Promise.all(['index.html', 'lp.html'].map(async (f) => [f, (await get(server.url, f, ae)).lastModified])));
    const c = await room(server.url, cold, () => ae);
    // Warm: the two pages revalidated (If-Modified-Since → 304) and the service worker's update check.
    const w = await room(server.url, ['index.html', 'lp.html', 'sw.js'], (f) => ({ ...ae, ...(lm[f] ? { 'if-modified-since': lm[f] } : {}) }));
    report[name] = { cold: c, warm: w };
    console.error(JSON.stringify(report[name]));
  } finally {
    await server.stop();
  }
}
clearTimeout(timer);
agent.destroy();
console.log(JSON.stringify({
  ...report,
  note: 'cold: front page + paper A page + the service worker precache, each file once; warm: after the service worker, the two pages revalidated (304) + sw.js',
  brotli_bytes_per_cold_client: cold.reduce((s, f) => s + br(f), 0),
  cores: os.cpus().length, load_average: os.loadavg().map((x) => Number(x.toFixed(2))),
}, null, 1));
