// Paper B's page (mrlsr.html), used as a person uses it: drag the m slider, read the readouts,
// go below m = 1, run the equivalence experiment and the model selection, type bad values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { useBrowser, openPage, text, canvasPixels, ROOT } from './harness.mjs';

const env = useBrowser();

const open = (opts) => openPage(env.b, `${env.url}mrlsr.html`, opts);
const counter = (page, key) => page.evaluate((k) => Number(document.body.dataset[k] || 0), key);
/** A typed λ (or a lesson's Run it) sweeps the fit there: wait for the sweep's last refit. */
const sweepEnded = (page) => page.waitForFunction(() => {
  const s = document.body.dataset.sweep;
  return s !== undefined && s.split('/')[0] === s.split('/')[1] && document.body.dataset.playing === '0';
}, null, { timeout: 60000 });
// A readout's value: its data-value when it keeps one (λ₂, written 5.5 × 10⁻⁴), else its text's number.
const num = async (page, sel) => Number((await page.locator(sel).getAttribute('data-value')) ?? (await text(page, sel)).replace(/[^0-9eE.+-].*$/, ''));

/** Drag the m slider's thumb to the value `to` with the mouse, in several moves. */
async function dragM(page, to) {
  const slider = page.locator('#m');
  const box = await slider.boundingBox();
  const min = 0.1;
  const max = 4;
  const cur = Number(await slider.inputValue());
  const xOf = (v) => box.x + 8 + ((v - min) / (max - min)) * (box.width - 16);
  const y = box.y + box.height / 2;
  await page.mouse.move(xOf(cur), y);
  await page.mouse.down();
  for (let k = 1; k <= 8; k++) {
    await page.mouse.move(xOf(cur + ((to - cur) * k) / 8), y);
    await page.waitForTimeout(30);
  }
  await page.mouse.up();
  await page.waitForTimeout(100);
}

test('the page loads with no console error, fits, and dragging m refits and repaints', async () => {
  const { page, errors, ctx } = await open();
  assert.equal(await text(page, '#r-nd'), '100 × 1');
  const c0a = await num(page, '#r-c0');
  assert.ok(c0a > 0, `C₀ readout ${c0a}`);
  const blank = await page.evaluate(() => {
    const c = document.createElement('canvas');
    const f = document.getElementById('fit');
    c.width = f.width;
    c.height = f.height;
    return c.toDataURL();
  });
  const fit0 = await canvasPixels(page, 'fit');
  const f0 = await canvasPixels(page, 'fplot');
  assert.notEqual(fit0, blank, 'the fit canvas is blank');
  const refits0 = await counter(page, 'refits');
  const builds0 = await counter(page, 'builds');
  await dragM(page, 3.0);
  const m = Number(await text(page, '#m-out'));
  assert.ok(m > 2.5, `m after the drag: ${m}`);
  const refits1 = await counter(page, 'refits');
  assert.ok(refits1 >= refits0 + 2, `several refits while dragging (${refits0} → ${refits1})`);
  assert.equal(await counter(page, 'builds'), builds0, 'dragging m must not recompute the eigendecomposition');
  const c0b = await num(page, '#r-c0');
  assert.notEqual(c0b, c0a, 'C₀ changes with m');
  assert.notEqual(await canvasPixels(page, 'fit'), fit0, 'the fit canvas repaints');
  assert.notEqual(await canvasPixels(page, 'fplot'), f0, 'the F canvas repaints');
  // λ₂ = (m/2)·C₀·λ holds between the readouts (to their printed precision).
  const l2 = await num(page, '#r-lambda2');
  const lambda = Number(await page.locator('#lambda').inputValue());
  const ratio = l2 / ((m / 2) * c0b * lambda);
  assert.ok(Math.abs(ratio - 1) < 1e-3, `λ₂ readout ${l2} vs (m/2)C₀λ: ratio ${ratio}`);
  assert.match(await text(page, '#r-refit'), /ms$/);
  assert.match(await text(page, '#r-eigen'), /ms/);
  assert.ok(await page.locator('#outside').isHidden(), 'no outside-the-theorem note at m > 1');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('m ≤ 1 shows the outside-the-theorem note with the roots of F, and back above 1 hides it', async () => {
  const { page, errors, ctx } = await open();
  await dragM(page, 0.5);
  const m = Number(await text(page, '#m-out'));
  assert.ok(m < 1, `m = ${m}`);
  const note = page.locator('#outside');
  await note.waitFor({ state: 'visible' });
  const t = await note.innerText();
  assert.match(t, /Outside Theorem 1/);
  assert.match(t, /not convex|no root|two/);
  assert.equal(await page.evaluate(() => document.body.dataset.kind), 'outside');
  await dragM(page, 2.0);
  await note.waitFor({ state: 'hidden' });
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('the equivalence experiment: rounding level on Z₁, clearly positive on the other parts', async () => {
  const { page, errors, ctx } = await open();
  const bars0 = await canvasPixels(page, 'eq-bars');
  await page.click('#eq-run');
  await page.waitForFunction(() => Number(document.body.dataset.eqRuns || 0) >= 1, null, { timeout: 60000 });
  const diffs = await page.$$eval('#eq-table tbody tr', (rows) => rows.map((r) => Number(r.dataset.diff)));
  assert.equal(diffs.length, 4);
  const norm = await num(page, '#r-norm');
  assert.ok(diffs[0] < 1e-8 * Math.max(norm, 1), `Z₁: ${diffs[0]}`);
  for (const d of diffs.slice(1)) assert.ok(d > 1e-6, `another part: ${d}`);
  assert.notEqual(await canvasPixels(page, 'eq-bars'), bars0, 'the bar plot is drawn');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('the equivalence experiment at m = 2: kernel ridge itself, λ₂ = λ reproduces it on every part, and the summary says so (§5)', async () => {
  const { page, errors, ctx } = await open();
  await page.$eval('#m', (el) => {
    el.value = '2';
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await page.waitForFunction(() => document.getElementById('m-out').textContent.trim() === '2.00');
  await page.click('#eq-run');
  await page.waitForFunction(() => Number(document.body.dataset.eqRuns || 0) >= 1, null, { timeout: 60000 });
  const diffs = await page.$$eval('#eq-table tbody tr', (rows) => rows.map((r) => Number(r.dataset.diff)));
  assert.equal(diffs.length, 4);
  const norm = await num(page, '#r-norm');
  // Z₁ is λ₂'s own part (zero); elsewhere M-RLSR's root solve stands between it and KRR: about
  // 10⁻⁶ ‖f‖_H measured, against 10⁻³–10⁻² ‖f‖_H at m = 1.5 (the test above).
  for (const d of diffs) assert.ok(d < 1e-4 * norm, `every part at m = 2: ${d} (‖f‖_H = ${norm})`);
  const summary = await text(page, '#eq-summary');
  assert.match(summary, /^m = 2: /);
  assert.match(summary, /every part/);
  assert.doesNotMatch(summary, /only on Z₁/);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('bad values show a message in #error and the page keeps working', async () => {
  const { page, errors, ctx } = await open();
  const err = page.locator('#error');
  // λ ≤ 0.
  await page.fill('#lambda', '-1');
  await page.press('#lambda', 'Enter');
  await err.waitFor({ state: 'visible' });
  assert.match(await err.innerText(), /λ/);
  const sweeps = await counter(page, 'sweeps');
  await page.fill('#lambda', '1e-2');
  await page.press('#lambda', 'Enter');
  await err.waitFor({ state: 'hidden' });
  assert.equal(await counter(page, 'sweeps'), sweeps + 1, 'a valid typed λ starts a sweep');
  await sweepEnded(page);
  // n over the page budget.
  await page.fill('#n', '5000');
  await page.press('#n', 'Enter');
  await err.waitFor({ state: 'visible' });
  assert.match(await err.innerText(), /budget/);
  // Chosen μ ≤ 0.
  await page.fill('#n', '100');
  await page.press('#n', 'Enter');
  await err.waitFor({ state: 'hidden' });
  await page.uncheck('#mu-heuristic');
  await page.fill('#mu', '0');
  await page.press('#mu', 'Enter');
  await err.waitFor({ state: 'visible' });
  assert.match(await err.innerText(), /μ|mu|bandwidth/);
  await page.fill('#mu', '0.05');
  await page.press('#mu', 'Enter');
  await err.waitFor({ state: 'hidden' });
  // Still refits on m.
  const c0 = await num(page, '#r-c0');
  await dragM(page, 2.5);
  assert.notEqual(await num(page, '#r-c0'), c0);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('on a 1280 × 720 projector a refused λ brings its message into view', async () => {
  const { page, errors, ctx } = await open({ viewport: { width: 1280, height: 720 } });
  await page.fill('#lambda', '-1');
  await page.press('#lambda', 'Enter');
  const err = page.locator('#error');
  await err.waitFor({ state: 'visible' });
  assert.match(await err.innerText(), /lambda: λ must be a positive finite number/);
  const inView = () => page.evaluate(() => {
    const r = document.getElementById('error').getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight;
  });
  assert.ok(await inView(), 'the message is on screen without scrolling');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('model selection runs across frames with a progress readout and fills the table', async () => {
  const { page, errors, ctx } = await open();
  await page.fill('#sel-n', '100');
  await page.fill('#sel-folds', '3');
  await page.click('#sel-run');
  await page.waitForFunction(() => Number(document.body.dataset.selRuns || 0) >= 1, null, { timeout: 120000 });
  assert.match(await text(page, '#sel-progress'), /done/);
  const krr = Number(await text(page, '#sel-krr'));
  const mr = Number(await text(page, '#sel-mrlsr'));
  assert.ok(krr > 0 && krr < 1, `KRR scaled RMSE ${krr}`);
  assert.ok(mr > 0 && mr < 1, `M-RLSR scaled RMSE ${mr}`);
  // The screenshot for the docs: equivalence too, on the 10-D set's neighbour (the sine default).
  await page.click('#eq-run');
  await page.waitForFunction(() => Number(document.body.dataset.eqRuns || 0) >= 1, null, { timeout: 60000 });
  const shots = path.join(ROOT, 'tests/e2e/test-results');
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, 'mrlsr.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await ctx.close();
});

// ---- the eigendecomposition in a Web Worker, Cancel, stale results, the URL hash ----------

/** Start recording long tasks and requestAnimationFrame gaps in the page. */
const watchMainThread = (page) => page.evaluate(() => {
  window.__long = [];
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) window.__long.push({ start: e.startTime, duration: e.duration });
  }).observe({ entryTypes: ['longtask'] });
  window.__frames = [];
  const tick = (t) => {
    window.__frames.push(t);
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
});

/** Set n and press Enter (starts a new eigendecomposition unless n is unchanged). */
async function setN(page, n) {
  await page.fill('#n', String(n));
  await page.press('#n', 'Enter');
}

test('n = 2000: the eigendecomposition runs in a worker, the page stays responsive, Cancel keeps the old model, the result repaints', async () => {
  // n = 2000 (the page's largest): with faer's eigensolver n = 1000 can finish in the worker
  // before a test clicks, so the cancel half starts the largest computation and cancels at once.
  const { page, errors, ctx } = await open();
  await watchMainThread(page);
  const fit0 = await canvasPixels(page, 'fit');
  const builds0 = await counter(page, 'builds');
  // Start, then cancel while it runs: the previous model and its settings stay.
  await setN(page, 2000);
  await page.locator('#busy').waitFor({ state: 'visible' });
  assert.match(await text(page, '#busy-text'), /computing eigendecomposition… \(n = 2000, (about [\d.]+ s|under a second)\)/);
  await page.click('#eigen-cancel');
  await page.locator('#busy').waitFor({ state: 'hidden' });
  assert.match(await text(page, '#status'), /cancelled/);
  assert.equal(await page.inputValue('#n'), '100', 'the form shows the kept model again');
  assert.match(await page.evaluate(() => decodeURIComponent(location.hash)), /"n":100,/);
  assert.equal(await counter(page, 'builds'), builds0, 'a cancelled computation is never adopted');
  assert.equal(await text(page, '#r-nd'), '100 × 1');
  // The old model keeps refitting on the m slider while a computation runs.
  const refits0 = await counter(page, 'refits');
  await setN(page, 2000);
  await page.locator('#busy').waitFor({ state: 'visible' });
  await dragM(page, 2.5);
  assert.ok(await counter(page, 'refits') > refits0, 'm refits during the computation');
  if (await page.locator('#busy').isVisible()) assert.equal(await text(page, '#r-nd'), '100 × 1');
  if (await page.locator('#eigen-cancel').isVisible()) await page.click('#eigen-cancel');
  await page.locator('#busy').waitFor({ state: 'hidden' });
  const builds1 = await counter(page, 'builds');
  // Now let it finish, watching the main thread.
  const t0 = await page.evaluate(() => performance.now());
  await setN(page, 1000);
  await page.locator('#busy').waitFor({ state: 'visible' });
  await page.waitForFunction((b) => Number(document.body.dataset.builds) > b, builds1, { timeout: 240000 });
  const adoptAt = Number(await page.evaluate(() => document.body.dataset.adoptAt));
  const eigenMs = Number((await text(page, '#r-eigen')).replace(/ ms.*/, ''));
  assert.equal(await text(page, '#r-nd'), '1000 × 1');
  // Adopted in slices (MrlsrAdopt): the main thread's wasm never decomposed nor ran the whole
  // payload check in one call (issue 36 §7; a state, not a time).
  const st = await page.evaluate(() => ({ main: document.body.dataset.mainEigen, slices: Number(document.body.dataset.adoptSlices) }));
  assert.deepEqual(JSON.parse(st.main ?? 'null'), { eigen: 0, whole_checks: 0 }, `main-thread whole-matrix calls: ${st.main}`);
  assert.ok(st.slices >= 1, `adopted through MrlsrAdopt: ${st.slices} slices`);
  assert.ok(eigenMs > 0, `eigendecomposition time readout ${eigenMs}`);
  const { long, frames } = await page.evaluate(() => ({ long: window.__long, frames: window.__frames }));
  // While the worker computed (before the main thread took the result), no long task over 300 ms
  // and animation frames kept coming. The task that adopts the result starts (with the worker's
  // message) just before `adoptAt` is stamped inside it: it belongs to "after", not "during".
  const during = long.filter((e) => e.start >= t0 && e.start + e.duration < adoptAt);
  assert.ok(during.every((e) => e.duration <= 300), `long tasks during the computation: ${JSON.stringify(during)}`);
  const fr = frames.filter((t) => t >= t0 && t < adoptAt);
  let gap = 0;
  for (let i = 1; i < fr.length; i++) gap = Math.max(gap, fr[i] - fr[i - 1]);
  assert.ok(fr.length >= 5, `${fr.length} animation frames during ${(adoptAt - t0).toFixed(0)} ms`);
  assert.ok(gap < 300, `largest gap between animation frames: ${gap.toFixed(0)} ms`);
  const after = long.filter((e) => e.start >= adoptAt);
  console.log(`# eigen ${eigenMs} ms in the worker; ${fr.length} frames, max gap ${gap.toFixed(0)} ms; long tasks before adoption: ${during.map((e) => e.duration.toFixed(0)).join(", ") || "none"}, after: ${after.map((e) => e.duration.toFixed(0)).join(', ') || 'none'}`);
  assert.notEqual(await canvasPixels(page, 'fit'), fit0, 'the fit canvas repaints with the new data');
  // The m slider refits the new model at once.
  const c0 = await num(page, '#r-c0');
  await dragM(page, 1.3);
  assert.notEqual(await num(page, '#r-c0'), c0);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('a newer data spec replaces a running computation: only the newest result is adopted', async () => {
  const { page, errors, ctx } = await open();
  const builds0 = await counter(page, 'builds');
  const starts0 = await counter(page, 'eigenStarts');
  await setN(page, 900);
  await page.locator('#busy').waitFor({ state: 'visible' });
  await setN(page, 300);
  await page.waitForFunction((b) => Number(document.body.dataset.builds) > b, builds0, { timeout: 120000 });
  assert.equal(await counter(page, 'eigenStarts'), starts0 + 2);
  assert.equal(await text(page, '#r-nd'), '300 × 1');
  await page.waitForTimeout(1500);
  assert.equal(await counter(page, 'builds'), builds0 + 1, 'the older (n = 900) result never arrives');
  assert.equal(await text(page, '#r-nd'), '300 × 1');
  assert.ok(await page.locator('#busy').isHidden());
  assert.deepEqual(errors, []);
  await ctx.close();
});

const READOUTS = ['#r-nd', '#r-c0', '#r-norm', '#r-lambda2', '#r-obj', '#m-out', '#lambda-out'];
const readouts = async (page) => Object.fromEntries(await Promise.all(READOUTS.map(async (s) => [s, await text(page, s)])));

test('the URL hash holds every setting: set the controls, reload with the URL, same readouts', async () => {
  const { page, errors, ctx } = await open();
  const builds0 = await counter(page, 'builds');
  await page.selectOption('#data-kind', 'friedman');
  await page.waitForFunction((b) => Number(document.body.dataset.builds) > b, builds0, { timeout: 120000 });
  const b1 = await counter(page, 'builds');
  await page.fill('#n', '150');
  await page.fill('#seed', '7');
  await page.press('#seed', 'Enter');
  await page.waitForFunction((b) => Number(document.body.dataset.builds) > b && document.body.dataset.computing === '0', b1, { timeout: 120000 });
  const b2 = await counter(page, 'builds');
  await page.selectOption('#kernel', 'polynomial');
  await page.waitForFunction((b) => Number(document.body.dataset.builds) > b && document.body.dataset.computing === '0', b2, { timeout: 120000 });
  await dragM(page, 2.4);
  await page.fill('#lambda', '3e-2');
  await page.press('#lambda', 'Enter');
  await sweepEnded(page);
  await page.fill('#sel-folds', '4');
  await page.press('#sel-folds', 'Enter');
  await page.waitForFunction(() => /"folds":4/.test(decodeURIComponent(location.hash)));
  const before = await readouts(page);
  assert.equal(before['#r-nd'], '150 × 10');
  const url = page.url();
  const h = JSON.parse(decodeURIComponent(new URL(url).hash.slice('#spec='.length)));
  assert.deepEqual(h.data, { kind: 'friedman', n: 150, sigma: 0.2, seed: 7 });
  assert.equal(h.kernel.kind, 'polynomial');
  assert.equal(h.lambda, 0.03);
  assert.equal(h.sel.folds, 4);
  await ctx.close();
  const again = await openPage(env.b, url);
  assert.deepEqual(await readouts(again.page), before);
  assert.equal(await again.page.inputValue('#seed'), '7');
  assert.equal(await again.page.inputValue('#kernel'), 'polynomial');
  assert.equal(await again.page.inputValue('#sel-folds'), '4');
  assert.ok(await again.page.locator('#error').isHidden());
  assert.deepEqual([...errors, ...again.errors], []);
  await again.ctx.close();
});

test('a malformed or out-of-range link shows a message and falls back to the defaults', async () => {
  const good = { data: { kind: 'sine', n: 100, sigma: 0.2, seed: 1 }, kernel: { kind: 'gaussian', bandwidth: 'heuristic' }, m: 1.5, lambda: 1e-3 };
  const cases = [
    ['%7Bnot%20json', /could not be read/],
    [encodeURIComponent(JSON.stringify({ ...good, m: 7 })), /m: this page's slider covers 0\.1\.\.4/],
    // The core's checks (checkMrlsrSpec), each message naming the field.
    [encodeURIComponent(JSON.stringify({ ...good, data: { ...good.data, n: 5000 } })), /data\.n: n = 5000 is above this page's eigendecomposition budget of 2000/],
    [encodeURIComponent(JSON.stringify({ ...good, lambda: -1 })), /lambda: λ must be a positive finite number/],
    [encodeURIComponent(JSON.stringify({ ...good, extra: 1 })), /unknown field `extra`/],
    [encodeURIComponent(JSON.stringify({ ...good, kernel: { kind: 'gaussian', bandwidth: { fixed: -1 } } })), /kernel\.bandwidth\.fixed: μ must be a finite number > 0/],
    [encodeURIComponent(JSON.stringify({ ...good, data: { kind: 'csv' } })), /CSV/],
    [encodeURIComponent(JSON.stringify({ ...good, data: { ...good.data, drop: 100 } })), /data\.drop: drop is the index of one generated point to leave out, 0\.\.=99 for n = 100 \(got 100\)/],
    [encodeURIComponent(JSON.stringify([1, 2])), /not valid/],
  ];
  for (const [hash, re] of cases) {
    const { page, errors, ctx } = await openPage(env.b, `${env.url}mrlsr.html#spec=${hash}`);
    const err = page.locator('#error');
    await err.waitFor({ state: 'visible' });
    assert.match(await err.innerText(), re, hash);
    assert.match(await err.innerText(), /default/);
    assert.equal(await text(page, '#r-nd'), '100 × 1', 'the defaults are shown');
    assert.equal(await text(page, '#m-out'), '1.50');
    // The page works: moving m refits (and writes a valid link).
    const c0 = await num(page, '#r-c0');
    await dragM(page, 2.5);
    assert.notEqual(await num(page, '#r-c0'), c0);
    await page.waitForFunction(() => /"m":2\.\d+/.test(decodeURIComponent(location.hash)), null, { timeout: 5000 });
    assert.deepEqual(errors, [], hash);
    await ctx.close();
  }
});

/** The readouts and the data values kept beside them (λ₂ and F(C₀) exactly), and the URL's spec. */
const exact = (page) => page.evaluate(() => {
  const ids = ['r-nd', 'r-c0', 'r-norm', 'r-lambda2', 'r-fres', 'r-obj', 'r-iters', 'm-out', 'lambda-out'];
  return Object.fromEntries(ids.map((id) => {
    const el = document.getElementById(id);
    return [id, `${el.textContent}|${el.dataset.value ?? ''}`];
  }));
});

// Issue 32 §9: a run on page B is something to watch. A typed λ (the page's "run") moves the fit
// from its λ to the new one in 40 refits, λ on a log scale, at 30 refits per second; Pause,
// Step, Play and Reset work as on the other pages, and the last refit is the direct fit's.
test('a typed λ sweeps the fit there frame by frame: pause, step, play, and the end is the direct fit', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}mrlsr.html`, { speed: null });
  assert.equal(await page.locator('#play').isDisabled(), true, 'nothing to play before a sweep');
  const start = await exact(page);
  // Every readout of the λ₂ and ‖f‖ the sweep passes through, recorded by the page itself.
  await page.evaluate(() => {
    window.seenNorms = new Set();
    new MutationObserver(() => window.seenNorms.add(document.getElementById('r-norm').textContent))
      .observe(document.getElementById('r-norm'), { childList: true, characterData: true, subtree: true });
  });
  await page.fill('#lambda', '1e-6');
  await page.press('#lambda', 'Enter');
  assert.equal(await page.evaluate(() => document.body.dataset.playing), '1');
  // Midway: the λ shown is between the two, and the fit readouts have moved.
  await page.waitForFunction(() => {
    const [d] = (document.body.dataset.sweep ?? '0/0').split('/').map(Number);
    return d >= 8 && d <= 30;
  }, null, { timeout: 60000 });
  await page.click('#play'); // Pause
  assert.equal(await text(page, '#play'), 'Play');
  const [k, frames] = (await page.evaluate(() => document.body.dataset.sweep)).split('/').map(Number);
  assert.equal(frames, 40);
  assert.ok(k < 40, `paused at refit ${k}`);
  const mid = Number(await page.locator('#lambda').inputValue());
  assert.ok(mid < 1e-3 && mid > 1e-6, `λ midway ${mid}`);
  // Geometric: after k of 40 refits λ = 10^(−3 − 3k/40).
  assert.ok(Math.abs(Math.log10(mid) - (-3 - (3 * k) / 40)) < 1e-9, `λ after ${k} refits: ${mid}`);
  await page.click('#step');
  assert.equal(await page.evaluate(() => document.body.dataset.sweep), `${k + 1}/40`, 'Step makes one refit');
  await page.click('#play');
  await sweepEnded(page);
  const end = await exact(page);
  const seen = await page.evaluate(() => window.seenNorms.size);
  assert.ok(seen >= 20, `the ‖f‖ readout took ${seen} values during the sweep`);
  assert.equal(await page.locator('#lambda').inputValue(), '0.000001');
  // The direct fit at λ = 10⁻⁶, opened from a link: the same readouts, to the last bit kept.
  const spec = { paper: 'mrlsr', data: { kind: 'sine', n: 100, sigma: 0.2, seed: 1 }, kernel: { kind: 'gaussian', bandwidth: 'heuristic' }, m: 1.5, lambda: 1e-6 };
  const direct = await openPage(env.b, `${env.url}mrlsr.html#spec=${encodeURIComponent(JSON.stringify(spec))}`);
  await direct.page.waitForFunction(() => Number(document.body.dataset.builds) >= 1, null, { timeout: 60000 });
  assert.deepEqual(end, await exact(direct.page));
  assert.equal(await canvasPixels(page, 'fit'), await canvasPixels(direct.page, 'fit'), 'the same fit plot');
  await direct.ctx.close();
  // Reset: back to the sweep's start, the readouts of λ = 10⁻³ again (the λ output aside: the
  // page's HTML writes its first value as 1e-3, a refit as 1.00e-3).
  await page.click('#reset');
  const { 'lambda-out': _, ...back } = await exact(page);
  const { 'lambda-out': __, ...first } = start;
  assert.deepEqual(back, first);
  assert.equal(await page.locator('#lambda').inputValue(), '0.001');
  // Space replays it (focus off the text field).
  await page.evaluate(() => document.activeElement.blur());
  await page.keyboard.press('Space');
  await sweepEnded(page);
  assert.deepEqual(await exact(page), end);
  // Dragging m refits at once and drops the sweep.
  await dragM(page, 2.0);
  assert.equal(await page.locator('#play').isDisabled(), true);
  assert.deepEqual(errors, []);
  await ctx.close();
});

// Page B's Play / Step / Reset and speed are the shared Player's (www/player.js), as on the
// other pages: the speed ladder and its readout, `?speed=` in the address both ways, and at
// "max" the sweep advances in the Player's frame budget (MrlsrPage.runFor).
test('the speed slider is the shared Player\'s: its ladder, ?speed= in the address, and max plays the sweep to its end', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}mrlsr.html?speed=2`, { speed: null });
  await page.waitForFunction(() => Number(document.body.dataset.builds) >= 1, null, { timeout: 60000 });
  assert.equal(await page.evaluate(() => document.body.dataset.speed), '2', 'the link\'s speed');
  assert.equal(await text(page, '#speed-out'), '2 refits/s');
  await page.locator('#speed').evaluate((el) => { el.value = el.max; el.dispatchEvent(new Event('input')); });
  assert.equal(await page.evaluate(() => document.body.dataset.speed), 'max');
  assert.equal(await text(page, '#speed-out'), 'max');
  assert.equal(new URL(page.url()).searchParams.get('speed'), 'max', 'the address keeps the speed');
  const steps = await counter(page, 'playerSteps');
  await page.fill('#lambda', '1e-5');
  await page.press('#lambda', 'Enter');
  await sweepEnded(page);
  assert.equal(await page.evaluate(() => document.body.dataset.sweep), '40/40');
  assert.ok(await counter(page, 'playerSteps') - steps >= 40, 'the Player made the 40 refits');
  assert.equal(await page.locator('#lambda').inputValue(), '0.00001');
  // The default speed, without a link's: 30 refits per second.
  const plain = await openPage(env.b, `${env.url}mrlsr.html`, { speed: null });
  await plain.page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60000 });
  assert.equal(await text(plain.page, '#speed-out'), '30 refits/s');
  await plain.ctx.close();
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('a link with data.drop leaves that point out and the fit plot rings it', async () => {
  const spec = { paper: 'mrlsr', data: { kind: 'sine', n: 100, sigma: 0.2, seed: 1, drop: 16 }, kernel: { kind: 'gaussian', bandwidth: { fixed: 0.1 } }, m: 1.5, lambda: 1e-3 };
  const { page, errors, ctx } = await openPage(env.b, `${env.url}mrlsr.html#spec=${encodeURIComponent(JSON.stringify(spec))}`);
  await page.waitForFunction(() => Number(document.body.dataset.builds) >= 1, null, { timeout: 60000 });
  assert.equal(await text(page, '#r-nd'), '99 × 1');
  assert.match(await text(page, '#fit-caption'), /Black ring: point 16/);
  const ringed = await canvasPixels(page, 'fit');
  // The link keeps the field; a new seed is new data: no point left out.
  assert.equal(JSON.parse(decodeURIComponent(new URL(page.url()).hash.slice('#spec='.length))).data.drop, 16);
  const b = await counter(page, 'builds');
  await page.fill('#seed', '2');
  await page.press('#seed', 'Enter');
  await page.waitForFunction((b0) => Number(document.body.dataset.builds) > b0, b, { timeout: 60000 });
  assert.equal(await text(page, '#r-nd'), '100 × 1');
  assert.doesNotMatch(await text(page, '#fit-caption'), /ring/);
  assert.notEqual(await canvasPixels(page, 'fit'), ringed);
  assert.deepEqual(errors, []);
  await ctx.close();
});

// A lesson step's Run it is the sweep too: B4 (λ 10⁻³ → 10⁻⁶) played at the page's own speed,
// and Run it again after the explanation starts again from the step's λ and ends on the same fit.
test('lesson B4: Run it sweeps λ down frame by frame; Run it again replays it from 10⁻³ to the same end', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}mrlsr.html#lesson=b&step=4`, { speed: null });
  await page.waitForFunction(() => Number(document.body.dataset.builds) >= 1, null, { timeout: 60000 });
  const runTo = async () => {
    const sweeps = await counter(page, 'sweeps');
    await page.click('#lesson-run');
    await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 60000 });
    assert.equal(await counter(page, 'sweeps'), sweeps + 1);
    assert.equal(await page.evaluate(() => document.body.dataset.sweep), '40/40');
    return exact(page);
  };
  await page.evaluate(() => {
    window.seenL = new Set();
    new MutationObserver(() => window.seenL.add(document.getElementById('lambda-out').textContent))
      .observe(document.getElementById('lambda-out'), { childList: true, characterData: true, subtree: true });
  });
  const first = await runTo();
  assert.equal(first['lambda-out'], '10⁻⁶|'); // the page's number format (common.js num)
  const seen = await page.evaluate(() => window.seenL.size);
  assert.ok(seen >= 20, `λ took ${seen} values during the run`);
  assert.deepEqual(await runTo(), first);
  assert.deepEqual(errors, []);
  await ctx.close();
});

// Issue 32 §9: the root search for C₀ drawn on F(C). After the sweep's last refit the page
// steps the direct solve's own search (RootWatch, one Newton or bisection step per frame on the
// Player); Step makes one step and redraws F(C); the roots it ends on are a direct link's
// C₀ (B2, m = 1.5: and as many steps as its readout) and stationary points (B6, m = 0.5), to
// the last bit.
test('lessons B2 and B6: Run it draws the search for the roots of F step by step and ends on a direct link’s C₀', async () => {
  for (const [step, m] of [[2, 1.5], [6, 0.5]]) {
    const { page, errors, ctx } = await openPage(env.b, `${env.url}mrlsr.html#lesson=b&step=${step}`, { speed: null });
    await page.waitForFunction(() => Number(document.body.dataset.builds) >= 1, null, { timeout: 60000 });
    await page.click('#lesson-run');
    if (step === 2) {
      // Mid-search: pause, one Step is one step, and the F plot is redrawn.
      await page.waitForFunction(() => document.body.dataset.rootSteps !== undefined
        && Number(document.body.dataset.rootSteps) >= 1 && document.body.dataset.rootFound === undefined, null, { timeout: 60000, polling: 'raf' });
      await page.click('#play');
      const k = Number(await page.evaluate(() => document.body.dataset.rootSteps));
      if (await page.evaluate(() => document.body.dataset.rootFound === undefined)) {
        const before = await canvasPixels(page, 'fplot');
        await page.click('#step');
        assert.equal(Number(await page.evaluate(() => document.body.dataset.rootSteps)), k + 1, 'Step makes one root step');
        assert.notEqual(await canvasPixels(page, 'fplot'), before, 'the F plot shows the new iterate');
      }
      await page.click('#play');
    }
    await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 60000 });
    assert.equal(await page.evaluate(() => document.body.dataset.sweep), '40/40');
    const found = JSON.parse(await page.evaluate(() => document.body.dataset.rootFound));
    const steps = Number(await page.evaluate(() => document.body.dataset.rootSteps));
    const spec = { paper: 'mrlsr', data: { kind: 'sine', n: 100, sigma: 0.2, seed: 1 }, kernel: { kind: 'gaussian', bandwidth: 'heuristic' }, m, lambda: 1e-3 };
    const direct = await openPage(env.b, `${env.url}mrlsr.html#spec=${encodeURIComponent(JSON.stringify(spec))}`);
    await direct.page.waitForFunction(() => Number(document.body.dataset.builds) >= 1, null, { timeout: 60000 });
    const c0 = Number(await direct.page.locator('#r-c0').getAttribute('data-value'));
    if (m > 1) {
      assert.deepEqual(found, [c0], `B${step}: the search ends on the direct C₀`);
      assert.equal(steps, Number(await text(direct.page, '#r-iters')), `B${step}: as many steps as the direct solve`);
    } else {
      const roots = JSON.parse(await direct.page.locator('#outside').getAttribute('data-roots'));
      assert.equal(roots.length, 2);
      assert.deepEqual(found, roots, `B${step}: the search ends on the direct roots`);
      assert.ok(found.includes(c0), 'the minimizer is one of them');
      assert.ok(steps >= 2, `B${step}: ${steps} steps`);
    }
    await direct.ctx.close();
    assert.deepEqual(errors, []);
    await ctx.close();
  }
});

// Lesson B10 and B11 quote n-scans: the step shows the scan's plot (log–log, slopes drawn), hidden
// before the run, computed by the core after the sweep (MrlsrNScan) with the slopes the claims state.
test('lessons B10 and B11: the n-scan plot is hidden before the run and drawn after it, with the claimed slopes', async () => {
  for (const [step, id, check] of [
    [10, 'nscan-stability', (s) => s.series.length === 2 && s.series[0].slope < -0.8 && s.series[1].slope > -0.7 && s.series[1].slope < -0.3],
    [11, 'nscan-lambda2', (s) => s.series.length === 1 && s.series[0].slope < -0.5],
  ]) {
    const { page, errors, ctx } = await openPage(env.b, `${env.url}mrlsr.html#lesson=b&step=${step}`);
    await page.waitForFunction(() => Number(document.body.dataset.builds) >= 1, null, { timeout: 60000 });
    const shown = () => page.evaluate((id) => {
      const c = document.getElementById(id);
      return c.getBoundingClientRect().height > 0 && getComputedStyle(c.closest('figure')).display !== 'none';
    }, id);
    assert.equal(await shown(), false, `B${step}: no scan before the run`);
    await page.click('#lesson-run');
    await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 120000 });
    assert.equal(await shown(), true, `B${step}: the scan after the run`);
    const scan = JSON.parse(await page.evaluate(() => document.body.dataset.nscan));
    assert.deepEqual(scan.ns, [12, 25, 50, 100]);
    assert.ok(check(scan), `B${step}: slopes ${scan.series.map((s) => s.slope)}`);
    const blank = await page.evaluate((id) => {
      const c = document.getElementById(id);
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let ink = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] < 200) ink++;
      return ink;
    }, id);
    assert.ok(blank > 500, `B${step}: the scan is drawn (${blank} dark pixels)`);
    assert.deepEqual(errors, []);
    await ctx.close();
  }
});
