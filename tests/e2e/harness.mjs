// Shared set-up for the end-to-end tests: serve dist/ (what `make dist` builds from www/, what a
// host publishes) on loopback with tools/serve.py (Python's http.server, as `make serve`), start Debian's Chromium through
// playwright-core, and collect console errors.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const WWW = path.join(ROOT, 'www');
/** The site the tests load: dist/ (`make test-e2e` builds it first), or KPLAY_SITE. */
export const DIST = process.env.KPLAY_SITE ? path.resolve(process.env.KPLAY_SITE) : path.join(ROOT, 'dist');
export const KPLAY = path.join(process.env.CARGO_TARGET_DIR ? path.resolve(ROOT, process.env.CARGO_TARGET_DIR) : path.join(ROOT, 'target'), 'release/kplay');

/**
 * Start tools/serve.py (what `make serve` runs: http.server with dist/'s .br/.gz copies, cache
 * headers, a long listen backlog) on a free loopback port serving `dir` (default dist/), or with
 * `plain` Python's own `python3 -m http.server`; resolves to { url, stop, root }. With `prefix`
 * ('course/kplay/'), the site is served under that sub-path (a symlink `root/course/kplay` → dir
 * in a temporary root) and `url` ends with it.
 */
export async function serve({ dir = DIST, prefix = '', plain = false } = {}) {
  if (!existsSync(path.join(dir, 'index.html'))) throw new Error(`${dir}/index.html is missing: run make dist (make test-e2e does)`);
  let root = dir;
  if (prefix) {
    root = mkdtempSync(path.join(os.tmpdir(), 'kplay-site-'));
    const link = path.join(root, prefix).replace(/\/+$/, '');
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(path.resolve(dir), link);
  }
  const args = plain ? ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', root]
    : ['-u', path.join(ROOT, 'tools/serve.py'), '--port', '0', '--bind', '127.0.0.1', '--directory', root];
  const proc = spawn('python3', args, {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let buf = '';
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`http.server did not start: ${buf}`)), 15000);
    const onData = (d) => {
      buf += d.toString();
      const m = buf.match(/port (\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`http.server exited (${code}): ${buf}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/${prefix}`,
    root,
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill();
      await once(proc, 'exit').catch(() => {});
    },
  };
}

/** Every page opened through `b.newContext(...).newPage()` gets its CPU slowed `rate` times
 * (CDP Emulation.setCPUThrottlingRate) before it loads: env KPLAY_CPU_THROTTLE=4
 * (`make test-e2e-throttled`) runs the suite as on a slow machine. */
function throttle(b, rate) {
  if (!(rate > 1)) return b;
  const newContext = b.newContext.bind(b);
  b.newContext = async (...args) => {
    const ctx = await newContext(...args);
    const newPage = ctx.newPage.bind(ctx);
    ctx.newPage = async (...a) => {
      const page = await newPage(...a);
      const cdp = await ctx.newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate });
      return page;
    };
    return ctx;
  };
  return b;
}

/** The CPU slow-down the tests run under (1 = none). */
export const CPU_THROTTLE = Number(process.env.KPLAY_CPU_THROTTLE || 1);

/** Launch headless Chromium with the flags this closed network needs. */
export async function browser() {
  return throttle(await launch(), CPU_THROTTLE);
}

async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROME || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

/** A new page that records console errors and uncaught exceptions into `errors`. */
export async function openPage(b, url, { dpr = 1, speed = 'max', viewport = { width: 1280, height: 900 } } = {}) {
  const ctx = await b.newContext({ viewport, deviceScaleFactor: dpr });
  // The pages play at a watchable default speed; tests that are not about the speed run at max
  // (the page's own `?speed=` parameter), so a run ends as soon as the machine allows.
  if (speed !== null) {
    const u = new URL(url);
    if (!u.searchParams.has('speed')) u.searchParams.set('speed', String(speed));
    url = u.href;
  }
  const page = await ctx.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  return { page, errors, ctx };
}

/** The frame of `page` whose URL matches `re`, waiting until one has navigated there: the
 *  pages' embed codes are `loading="lazy"` iframes, whose loads the host page's `goto` does not
 *  wait for. */
export async function frameWith(page, re) {
  return page.frames().find((f) => re.test(f.url()))
    ?? page.waitForEvent('framenavigated', { predicate: (f) => re.test(f.url()), timeout: 60000 });
}

export const text = (page, sel) => page.locator(sel).innerText();
/** A number as the pages write it (www/common.js `num`: −0.0035, 4 861.4, 2.26 × 10⁻⁸) or as
 *  JS does (2.26e-8), back to a number. */
export function readNum(t) {
  const sup = (s) => s.replace(/[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]/g, (c) => '-0123456789'['⁻⁰¹²³⁴⁵⁶⁷⁸⁹'.indexOf(c)]);
  const s = String(t).trim().replace(/\u2212/g, '-').replace(/[\u2009\u202f]/g, '');
  const m = s.match(/^(-?[0-9.]+) × 10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)$/) ?? s.match(/^(-?)10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)$/);
  if (m) return Number(`${m[1] === '-' || m[1] === '' ? `${m[1]}1` : m[1]}e${sup(m[2])}`);
  return Number(s);
}
/** The pattern of one number as readNum reads it (for a RegExp's capture group). */
export const NUM_RE = '[−-]?[0-9.\u2009]+(?: × 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+|e[+-]?[0-9]+)?|[−-]?10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+';
export const iteration = async (page) => Number(await text(page, '#r-iter'));
export const relGap = async (page) => Number(await text(page, '#r-relgap'));

/** A fingerprint of a canvas's pixels. */
export const canvasPixels = (page, id) => page.evaluate((id) => document.getElementById(id).toDataURL(), id);

/**
 * Serve dist/ and launch Chromium once for the calling test file (node:test before/after hooks).
 * Returns `env`, whose `b` (the browser) and `url` (the server's base URL) are set once the
 * `before` hook has run, i.e. inside tests.
 */
export function useBrowser() {
  const env = { b: null, url: '', server: null };
  before(async () => {
    env.server = await serve();
    env.url = env.server.url;
    env.b = await browser();
  });
  after(async () => {
    await env.b?.close();
    await env.server?.stop();
  });
  return env;
}

/**
 * Like [`useBrowser`], with two servers of dist/ for the calling test file: `env.isolated`
 * (tools/serve.py, cross-origin isolated: the threaded build) and `env.plain` (Python's
 * http.server, no headers: one thread), and the browser `env.b`.
 */
export function useBothServers() {
  const env = { b: null, isolated: null, plain: null };
  before(async () => {
    env.isolated = await serve();
    env.plain = await serve({ plain: true });
    env.b = await browser();
  });
  after(async () => {
    await env.b?.close();
    await env.isolated?.stop();
    await env.plain?.stop();
  });
  return env;
}

// A link pasted into the address bar (a `#spec=` hashchange) loads: `edit(spec)` changes the
// page's current spec, the page starts a new run and shows `n` in `#n`; then a broken link keeps
// that run and says it "could not be read". Waits for states (run id, message), never for time.
export async function checkPastedLink(page, edit, n) {
  const spec = await page.evaluate(() => JSON.parse(decodeURIComponent(location.hash.slice('#spec='.length))));
  edit(spec);
  const run = await page.evaluate(() => document.body.dataset.runId);
  await page.evaluate((s) => { location.hash = `#spec=${encodeURIComponent(JSON.stringify(s))}`; }, spec);
  await page.waitForFunction((r) => document.body.dataset.runId !== r, run);
  assert.equal(await page.locator('#n').inputValue(), String(n));
  await page.evaluate(() => { location.hash = '#spec=%7Bnot json'; });
  await page.waitForFunction(() => document.getElementById('error').textContent.includes('could not be read'));
  assert.equal(await page.locator('#n').inputValue(), String(n));
}

/**
 * An init script (`ctx.addInitScript(WORKER_SPY, recordRows)`) that records every Worker URL a
 * page starts in `window.__workerUrls` and, with `recordRows`, every run worker's `row` message
 * (threads, iterations, status, objective) in `window.__rows`.
 */
export const WORKER_SPY = (recordRows) => {
  window.__workerUrls = [];
  window.__rows = [];
  const W = window.Worker;
  window.Worker = class extends W {
    constructor(...a) {
      super(...a);
      window.__workerUrls.push(String(a[0]));
      if (recordRows) {
        this.addEventListener('message', (ev) => {
          if (ev.data?.type === 'row') window.__rows.push({ threads: ev.data.threads, iter: ev.data.iter, status: ev.data.status, primal: ev.data.primal });
        });
      }
    }
  };
};

/**
 * Paper A's page (`lp.html`, spied by [`WORKER_SPY`]) learns its preset worker's URL (hashed in
 * dist/): the small preset starts the worker and is cancelled at once. Waits for the URL, not time.
 */
export async function learnRunWorker(page) {
  await page.click('#preset-small');
  await page.waitForFunction(() => window.__workerUrls.some((u) => /\/run-worker(\.[0-9a-f]{10})?\.js$/.test(u)), null, { timeout: 60000 });
  await page.click('#preset-cancel');
}

/**
 * Run `spec` in a fresh run worker of the page (after [`learnRunWorker`]) `times` times in a row
 * and return each `row` message's threads, iterations, status, objective and solve times.
 */
export function runWorkerJob(page, spec, times = 1) {
  return page.evaluate(async ({ spec, times }) => {
    const url = window.__workerUrls.find((u) => /\/run-worker(\.[0-9a-f]{10})?\.js$/.test(u));
    const w = new Worker(url, { type: 'module' });
    const once = () => new Promise((resolve, reject) => {
      w.onmessage = (ev) => { if (ev.data.type === 'row') resolve(ev.data); else if (ev.data.type === 'error') reject(new Error(ev.data.message)); };
      w.onerror = (ev) => reject(new Error(ev.message));
      w.postMessage({ spec: JSON.stringify(spec), index: 0 });
    });
    const rows = [];
    try {
      for (let i = 0; i < times; i++) {
        const r = await once();
        rows.push({ threads: r.threads, iter: r.iter, status: r.status, primal: r.primal, solve_ms: r.solve_ms });
      }
    } finally {
      w.terminate();
    }
    return rows;
  }, { spec, times });
}

/** `kplay run` on a page's link (the spec JSON text): its JSON output. */
export function kplayLink(link) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kplay-link-'));
  const file = path.join(dir, 'spec.json');
  writeFileSync(file, link);
  return JSON.parse(execFileSync(KPLAY, ['run', file], { maxBuffer: 1 << 28 }).toString());
}

/**
 * Open `file` (the page of paper C or D) on `spec` at `url` (after `init`, an init script) and
 * run it until `ended()` holds in the page, after the preparation of its large problem (issue
 * 21 §3: in a worker on threads when isolated, in slices otherwise). Returns the run
 * (`dataset.run`), how it was prepared (`dataset.prepWorker`), the page's note on it, whether
 * the page is isolated, the cores, the page's link, and the page, its errors and context.
 */
export async function runPrepared(b, url, file, spec, ended, init) {
  const ctx = await b.newContext({ viewport: { width: 1280, height: 900 } });
  if (init) await ctx.addInitScript(init);
  const page = await ctx.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${url}${file}?speed=max#spec=${encodeURIComponent(JSON.stringify(spec))}`);
  assert.equal(await page.evaluate(() => document.getElementById('error')?.textContent ?? ''), '', 'the link is taken');
  await page.waitForFunction(() => Number(document.body.dataset.prepared || 0) >= 1, null, { timeout: 240000 });
  await page.waitForFunction(ended, null, { timeout: 240000 });
  const out = await page.evaluate(() => ({
    run: JSON.parse(document.body.dataset.run),
    worker: document.body.dataset.prepWorker ?? null,
    note: document.getElementById('prep-note').hidden ? '' : document.getElementById('prep-note').textContent,
    isolated: self.crossOriginIsolated === true,
    cores: navigator.hardwareConcurrency,
    link: decodeURIComponent(location.hash.slice('#spec='.length)),
  }));
  return { ...out, page, errors, ctx };
}

/**
 * Run `file` (the page of paper C or D) on `spec` under both servers ([`runPrepared`]): isolated,
 * the problem is prepared in the worker on every core (at most 8) and adopted; plain, in the
 * page's slices; the two runs are the same (digest, iterations, objective bits) and neither page
 * logs an error. Returns the isolated run, for the caller's comparison with kplay.
 */
export async function preparedBothWays(env, file, spec, ended) {
  const iso = await runPrepared(env.b, env.isolated.url, file, spec, ended);
  const plain = await runPrepared(env.b, env.plain.url, file, spec, ended);
  assert.equal(iso.isolated, true, 'tools/serve.py makes the page cross-origin isolated');
  assert.equal(plain.isolated, false);
  assert.ok(iso.cores >= 2, 'this test needs 2 cores');
  assert.equal(iso.worker, String(Math.min(8, iso.cores)), 'isolated: adopted from the worker on every core (at most 8)');
  assert.match(iso.note, /worker on \d+ threads/);
  assert.equal(plain.worker, null, 'not isolated: no worker, slices');
  console.log(`# ${iso.note}`);
  assert.deepEqual(iso.run, plain.run, 'digest, iterations and objective bits');
  for (const r of [iso, plain]) {
    assert.deepEqual(r.errors, []);
    await r.ctx.close();
  }
  return iso;
}

/**
 * Open `file` (the page of paper C or D) on `spec` at the isolated server, set its seed to 2
 * while the worker prepares `spec`'s problem, and run the new spec until `ended()`: the run, the
 * page's link, how it was prepared, the cores, and the page's errors (the context is closed).
 */
export async function seedChangedWhilePreparing(env, file, spec, ended) {
  const { page, errors, ctx } = await openPage(env.b, `${env.isolated.url}${file}?speed=max#spec=${encodeURIComponent(JSON.stringify(spec))}`);
  await page.waitForFunction(() => document.body.dataset.ready === '1' && document.body.dataset.prepWorker === 'running', null, { timeout: 120000 });
  await page.fill('#seed', '2');
  await page.dispatchEvent('#seed', 'change');
  await page.waitForFunction(() => Number(document.body.dataset.prepared || 0) >= 1, null, { timeout: 240000 });
  await page.waitForFunction(ended, null, { timeout: 240000 });
  const out = await page.evaluate(() => ({
    run: JSON.parse(document.body.dataset.run),
    link: decodeURIComponent(location.hash.slice('#spec='.length)),
    worker: document.body.dataset.prepWorker,
    cores: navigator.hardwareConcurrency,
  }));
  await ctx.close();
  return { ...out, errors };
}

/** An init script: the page's preparation worker fails to load (a missing script). */
export const BROKEN_PREP_WORKER = () => {
  const W = window.Worker;
  window.Worker = class extends W {
    constructor(url, opts) {
      super(String(url).includes('prep-worker') ? new URL('./no-such-worker.js', location.href) : url, opts);
    }
  };
};
