// Hostile links (issue #13): each page is loaded with a fixed, seeded set of bad `#spec=`
// hashes — every reproduction of the issue plus seeded mutations of the default spec — and
// must stay alive: no panic in the console, no crash overlay, and (pages A, C, D) Reset then
// Step advances the iteration readout; page B refits when m changes. Strings from the link
// must never reach innerHTML: a markup payload in every string field must not become an element.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage } from './harness.mjs';

const env = useBrowser();

const XSS = '<img src=x id=xss onerror="window.__xss=1">';
const HUGE = [0, -1, 1e-320, 1e308, -1e308, 1.8e19, 25000, 25000000, 1e7, 100000, 20000, 0.5, 'x', null, XSS];

/** A small seeded PRNG (mulberry32): the same hostile set on every run. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` copies of `base`, each with one or two leaves (numbers or strings) replaced by hostile values. */
function mutations(base, count, seed) {
  const r = rng(seed);
  const leaves = [];
  (function walk(v, path) {
    if (v && typeof v === 'object') for (const k of Object.keys(v)) walk(v[k], [...path, k]);
    else leaves.push(path);
  })(base, []);
  const out = [];
  for (let i = 0; i < count; i++) {
    const s = structuredClone(base);
    for (let j = 0; j <= (r() < 0.3 ? 1 : 0); j++) {
      const path = leaves[Math.floor(r() * leaves.length)];
      let o = s;
      for (const k of path.slice(0, -1)) o = o[k];
      o[path.at(-1)] = HUGE[Math.floor(r() * HUGE.length)];
    }
    out.push(JSON.stringify(s));
  }
  return out;
}

const sparse = (n, d, extra = {}) => ({ kind: 'sparse_regression', n, d, k: Math.min(10, d), sigma: 0.05, seed: 1, ...extra });
const specA = (data, solver = {}, model = {}) => JSON.stringify({
  data, model: { problem: 'lp_regression', p: 4 / 3, gamma: 10, ...model }, solver: { algorithm: 'dual_gradient', ...solver },
});
const BASE_A = { data: sparse(100, 1000), model: { problem: 'lp_regression', p: 4 / 3, gamma: 10 }, solver: { algorithm: 'dual_gradient', tol: 1e-10, max_iter: 1000 } };
const HASHES_A = [
  specA(sparse(25000, 1000), { algorithm: 'dual_newton' }),
  specA(sparse(25000, 1), { algorithm: 'dual_newton' }),
  specA(sparse(1, 25000000)),
  specA(sparse(25000000, 1)),
  specA(sparse(2, 10000000), { algorithm: 'fista' }),
  specA(sparse(100, 100000), { algorithm: 'primal_gd' }),
  specA(sparse(20, 30, { sigma: 1.8e19 })),
  specA(sparse(5, 3), { tol: 1e-320, max_iter: 4000000 }),
  specA(sparse(200, 3000), { algorithm: 'prox_dual' }, { loss: { kind: 'eps_insensitive', eps: 0 } }),
  specA(sparse(2000, 10), { algorithm: 'prox_dual' }, { path: 'tensor' }),
  `${specA(sparse(20, 30))} trailing garbage {{{`,
  specA(sparse(20, 30), { algorithm: XSS }),
  specA({ kind: 'csv', text: `${XSS},y\n1,2\n` }),
  specA({ kind: 'csv', path: '/dev/urandom' }),
  '%E0%A4%A',
  ...mutations(BASE_A, 12, 1),
];

// Kernel sums, products and scalings (issue 20): deep nesting, many leaves, bad scales, and the
// leaves of a composite mutated like every other field.
const COMPOSITE = { kind: 'sum', of: [{ kind: 'gaussian', bandwidth: { fixed: 0.5 } }, { kind: 'scaled', scale: 0.1, of: { kind: 'product', of: [{ kind: 'linear' }, { kind: 'polynomial', degree: 2, offset: 1 }] } }] };
const nested = (depth) => (depth === 0 ? { kind: 'linear' } : { kind: 'scaled', scale: 2, of: nested(depth - 1) });
const HOSTILE_KERNELS = [
  nested(400),
  { kind: 'sum', of: Array.from({ length: 5000 }, () => ({ kind: 'linear' })) },
  { kind: 'scaled', scale: -1, of: { kind: 'linear' } },
  { kind: 'scaled', scale: 1e308, of: { kind: 'product', of: [{ kind: 'polynomial', degree: 30, offset: 1e10 }, { kind: 'polynomial', degree: 30, offset: 1e10 }] } },
  { kind: 'sum', of: [] },
  { kind: 'product', of: [{ kind: 'sum', of: [{ kind: 'linear', x: 1 }] }] },
];
const pts = (k, v) => Array.from({ length: k }, (_, i) => [v * ((i % 7) - 3) / 3 || 0.5, v * ((i % 5) - 2) / 2 || -0.5, i % 2 ? 1 : -1]);
const BASE_C = {
  data: { kind: 'classification', shape: { kind: 'moons', noise: 0.15 }, n: 200, label_noise: 0.05, seed: 1 },
  loss: { kind: 'hinge' }, lambda: 0.1, kernel: { kind: 'gaussian', bandwidth: { fixed: 0.5 } },
  method: { kind: 'coordinate', rule: 'cyclic', seed: 1, tol: 1e-8, max_sweeps: 20000 }, race: false,
};
const specC = (over) => JSON.stringify({ ...BASE_C, ...over });
const HASHES_C = [
  specC({ data: { kind: 'points', points: [[1e308, 1e308, 1], [-1, -1, -1], [1, 1, 1]], view: [-2, 2, -2, 2] }, loss: { kind: 'logistic' }, kernel: { kind: 'linear' } }),
  specC({ data: { kind: 'points', points: [[0.5, 0.5, 1], [-0.5, -0.5, -1]], view: [-1e308, 1e308, -2, 2] } }),
  specC({ data: { kind: 'points', points: [], view: [-1e308, 1e308, -2, 2] } }),
  specC({ data: { kind: 'points', points: [[0.5, 0.5, 1], [-0.5, -0.5, -1]], view: [1, 1, 1, 1] } }),
  specC({ data: { kind: 'classification', shape: { kind: 'moons', noise: 0.15 }, n: 25000, label_noise: 0.05, seed: 1 } }),
  specC({ data: { kind: 'points', points: pts(20000, 1), view: [-2, 2, -2, 2] } }),
  specC({ data: { kind: 'classification', shape: { kind: 'blobs', margin: 1e300, spread: 1e300 }, n: 200, label_noise: 0, seed: 1 } }),
  specC({ lambda: 1e-320 }),
  specC({ race: true, data: { kind: 'classification', shape: { kind: 'moons', noise: 0.15 }, n: 2500, label_noise: 0.05, seed: 1 } }),
  ...mutations(BASE_C, 12, 2),
  ...HOSTILE_KERNELS.map((kernel) => specC({ kernel })),
  ...mutations({ ...BASE_C, kernel: COMPOSITE }, 4, 5),
];

const BASE_D = {
  data: { kind: 'generated', set: { shape: { kind: 'blobs', margin: 0.3, spread: 0.5 }, n: 60, label_noise: 0, seed: 1 } },
  kernel: { kind: 'linear' }, algorithm: { kind: 'perceptron' }, max_iter: 100000,
};
const genD = (n) => JSON.stringify({ ...BASE_D, data: { kind: 'generated', set: { ...BASE_D.data.set, n } } });
const HASHES_D = [
  genD(10000), genD(25000), genD(30000), genD(100000), genD(10000000),
  JSON.stringify({ ...BASE_D, data: { kind: 'points', points: pts(20000, 1) } }),
  JSON.stringify({ ...BASE_D, data: { kind: 'points', points: [[1e308, 1, 1], [-1, -1, -1]] } }),
  JSON.stringify({ ...BASE_D, max_iter: 0 }),
  JSON.stringify({ ...BASE_D, kernel: { kind: 'gaussian', bandwidth: { fixed: 1e-320 } } }),
  ...mutations(BASE_D, 12, 3),
  ...HOSTILE_KERNELS.map((kernel) => JSON.stringify({ ...BASE_D, kernel })),
  ...mutations({ ...BASE_D, kernel: COMPOSITE }, 4, 6),
];

const BASE_B = { data: { kind: 'sine', n: 100, sigma: 0.2, seed: 1 }, kernel: { kind: 'gaussian', bandwidth: 'heuristic' }, m: 1.5, lambda: 1e-3 };
const HASHES_B = [
  JSON.stringify({ ...BASE_B, data: { kind: 'sine', n: 25000, sigma: 0.2, seed: 1 } }),
  JSON.stringify({ ...BASE_B, data: { kind: 'csv', text: `${Array.from({ length: 20000 }, (_, i) => `c${i}`).join(',')},y\n` } }),
  JSON.stringify({ ...BASE_B, data: { kind: 'csv', text: 'a,a,y\n1,2,3\n' } }),
  JSON.stringify({ ...BASE_B, m: 1e308, lambda: -1 }),
  ...mutations(BASE_B, 8, 4),
  ...HOSTILE_KERNELS.slice(0, 3).map((kernel) => JSON.stringify({ ...BASE_B, kernel })),
  ...mutations({ ...BASE_B, kernel: COMPOSITE }, 3, 7),
];

/** Load `file#spec=hash` in a fresh page, check it is alive, and return what it showed. */
async function loadHostile(file, hash, alive) {
  const ctx = await env.b.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  const url = `${env.url}${file}#spec=${hash.startsWith('%') ? hash : encodeURIComponent(hash)}`;
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 120000 });
  const shown = await page.evaluate(() => document.getElementById('error')?.hidden === false ? document.getElementById('error').textContent : '');
  await alive(page);
  const state = await page.evaluate(() => ({ crashed: document.body.dataset.crashed, xss: window.__xss, img: !!document.getElementById('xss') }));
  const panics = errors.filter((e) => /panicked|RuntimeError|unreachable|capacity overflow/.test(e));
  assert.deepEqual(panics, [], `${file} ${hash.slice(0, 200)}: ${panics.join('\n')}`);
  assert.equal(state.crashed, undefined, `${file}: the crash overlay showed for ${hash.slice(0, 200)}`);
  assert.equal(state.xss, undefined, `${file}: a string from the link ran as markup`);
  assert.equal(state.img, false, `${file}: a string from the link became an element`);
  await ctx.close();
  return shown;
}

/** Reset, then Step advances `readout` (an iteration or sweep counter). */
const stepAdvances = (readout) => async (page) => {
  await page.click('#reset');
  await page.waitForFunction((id) => /^\d+$/.test(document.getElementById(id).textContent), readout, { timeout: 60000 });
  const before = Number(await page.locator(`#${readout}`).innerText());
  await page.click('#step');
  await page.waitForFunction(([id, b]) => Number(document.getElementById(id).textContent) > b, [readout, before], { timeout: 60000 });
};

async function sweep(file, hashes, alive) {
  const messages = [];
  for (const h of hashes) messages.push([h.slice(0, 120), await loadHostile(file, h, alive)]);
  console.log(`${file}: ${hashes.length} hostile links, all alive`);
  for (const [h, m] of messages.slice(0, 16)) console.log(`  ${h}\n    → ${m.slice(0, 300) || '(accepted)'}`);
}

test('paper A survives every hostile link', async () => {
  await sweep('index.html', HASHES_A, stepAdvances('r-iter'));
});

test('paper C survives every hostile link', async () => {
  await sweep('dinuzzo.html', HASHES_C, stepAdvances('r-sweep'));
});

test('paper D survives every hostile link', async () => {
  await sweep('perceptron.html', HASHES_D, stepAdvances('r-iter'));
});

test('paper B survives every hostile link', async () => {
  await sweep('mrlsr.html', HASHES_B, async (page) => {
    const before = await page.locator('dl').first().innerText();
    await page.locator('#m').fill('2.7');
    await page.locator('#m').dispatchEvent('input');
    await page.locator('#m').dispatchEvent('change');
    await page.waitForFunction((b) => document.querySelector('dl').innerText !== b, before, { timeout: 60000 });
  });
});

// Issue 20: a cleared number field and an export click gave an uncaught `n: "" is not a number`
// on page B (found by random form actions). Every page: the export buttons with a cleared field
// show the message naming the field and the page keeps working.
test('export buttons with a cleared number field give a message, not an uncaught error', async () => {
  for (const [file, field] of [['mrlsr.html', '#n'], ['dinuzzo.html', '#n'], ['perceptron.html', '#n'], ['lp.html', '#n']]) {
    const ctx = await env.b.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await ctx.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${env.url}${file}?speed=max`);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 120000 });
    if (await page.locator(field).count() === 0 || !(await page.locator(field).isVisible())) {
      await ctx.close();
      continue;
    }
    await page.locator(field).fill('');
    for (const b of ['#save-spec', '#save-run', '#save-data', '#save-trace']) {
      if (await page.locator(b).count()) await page.locator(b).click();
    }
    // Give the click handlers a turn of the event loop (a state, not a time: the error box or
    // a download has happened by then).
    await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
    assert.deepEqual(errors, [], `${file}: ${errors.join('\n')}`);
    assert.equal(await page.evaluate(() => document.body.dataset.crashed), undefined, file);
    await ctx.close();
  }
});

// Issue 36, item 5: `embed.html?plot=constructor` (a name every object inherits) said "The engine
// could not start: plot.make is not a function". Every unknown name, built-in property names and
// a 5 000-character one included, is named (clipped) with the list of plots.
test('embed.html names an unknown plot and lists the plots, for built-in property names too', async () => {
  const ctx = await env.b.newContext({ viewport: { width: 640, height: 400 } });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'nope', 'x'.repeat(5000)]) {
    await page.goto(`${env.url}embed.html?plot=${encodeURIComponent(name)}`);
    await page.waitForSelector('#error:not([hidden])', { timeout: 60000 });
    const msg = await page.locator('#error').innerText();
    assert.ok(msg.includes('no plot') && msg.includes(name.slice(0, 40)) && msg.includes('b-fit') && msg.includes('d-boundary'), `${name.slice(0, 40)}: ${msg}`);
    assert.ok(!msg.includes('not a function') && msg.length < 400, `${name.slice(0, 40)}: ${msg}`);
  }
  assert.deepEqual(errors, []);
  await ctx.close();
});

// Issue 36, item 8: on page B, choosing "expression" and typing `(((gaussian` within one frame
// showed the error, then cleared it when the eigendecomposition for the select's input (the
// default expression) finished and was adopted: the old fit beside invalid text, no message.
// Only the newest input's result may be adopted, and moving m then reads the whole form again.
test('page B: a kernel expression refused within a frame of the select keeps its message', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}mrlsr.html`);
  await page.waitForFunction(() => Number(document.body.dataset.builds || 0) >= 1 && document.body.dataset.computing !== '1', null, { timeout: 120000 });
  const builds = () => page.evaluate(() => Number(document.body.dataset.builds));
  const b0 = await builds();
  await page.evaluate(() => {
    const sel = document.getElementById('kernel');
    sel.value = 'expression';
    sel.dispatchEvent(new Event('change'));
    const f = document.getElementById('kernel-expr');
    f.value = '(((gaussian';
    f.dispatchEvent(new Event('change'));
  });
  // The select's computation has ended (cancelled, or answered and adopted), and two frames more.
  await page.waitForFunction(() => document.body.dataset.computing === '0', null, { timeout: 120000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const shown = async () => (await page.locator('#error').isVisible()) ? page.locator('#error').innerText() : '';
  let msg = await shown();
  assert.ok(msg.includes('kernel'), `the refusal stays: “${msg}”`);
  assert.equal(await builds(), b0, 'no model of an earlier input was adopted');
  // Moving m reads the whole form again: still refused, the message stays.
  await page.locator('#m').fill('2.5');
  await page.locator('#m').dispatchEvent('input');
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.waitForFunction(() => document.body.dataset.computing !== '1', null, { timeout: 120000 });
  msg = await shown();
  assert.ok(msg.includes('kernel'), `still refused after moving m: “${msg}”`);
  assert.equal(await builds(), b0);
  // A valid expression is the newest input: built, adopted, the message gone.
  await page.fill('#kernel-expr', 'gaussian(mu=0.5) + 0.1·linear');
  await page.dispatchEvent('#kernel-expr', 'change');
  await page.waitForFunction((b) => Number(document.body.dataset.builds) > b, b0, { timeout: 120000 });
  assert.equal(await shown(), '');
  assert.deepEqual(errors, []);
  await ctx.close();
});

// Issue 36, item 7: embed.html?plot=b-fit computed paper B's eigendecomposition on its main
// thread (3.6 s at n = 2 000; tests/e2e/embed-longtasks.mjs measures the longest task). It now
// takes page B's path: the worker (mrlsr-worker.js) decomposes, the embed adopts and checks.
test('embed.html?plot=b-fit decomposes in page B\'s worker and plays', async () => {
  const ctx = await env.b.newContext({ viewport: { width: 640, height: 400 } });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.addInitScript(() => {
    window.__workers = [];
    const W = window.Worker;
    window.Worker = class extends W {
      constructor(url, opts) { super(url, opts); window.__workers.push(String(url)); }
    };
  });
  const spec = { paper: 'mrlsr', data: { kind: 'sine', n: 300, sigma: 0.2, seed: 1 }, kernel: { kind: 'gaussian', bandwidth: 'heuristic' }, m: 1.5, lambda: 1e-3 };
  await page.goto(`${env.url}embed.html?plot=b-fit#spec=${encodeURIComponent(JSON.stringify(spec))}`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 120000 });
  await page.waitForFunction(() => Number(document.body.dataset.steps) >= 3, null, { timeout: 120000 });
  const workers = await page.evaluate(() => window.__workers);
  assert.ok(workers.some((u) => u.includes('mrlsr-worker')), `page B's worker: ${workers.join(', ')}`);
  assert.equal(await page.locator('#error').isVisible(), false, await page.locator('#error').innerText());
  // A spec the core refuses is still named (by MrlsrGram's checks, before any worker).
  await page.goto(`${env.url}embed.html?plot=b-fit&autoplay=0#spec=${encodeURIComponent(JSON.stringify({ ...spec, lambda: -1 }))}`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 120000 });
  const msg = await page.locator('#error').innerText();
  assert.ok(msg.includes('cannot be embedded') && msg.includes('λ'), msg);
  assert.deepEqual(errors, []);
  await ctx.close();
});
