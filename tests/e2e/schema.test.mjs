// One schema per paper (issue 34 §3, src/schema.rs, www/state.js): the controls of pages A, B, C
// and D carry their paper's schema — each number control's min, max and step, a fresh control's
// default, the default run's values — read from the page's own wasm (`specSchema`); and a link
// with a value outside a field's range is refused with a message naming the field's path, the
// page showing its default run and its controls showing that run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage } from './harness.mjs';

const env = useBrowser();

// Each page, with the slider spans it declares (state.js `spans`: the part of a field's range a
// slider shows; page B's m slider covers 0.1..4 of (0, 100]).
const PAGES = [['lp.html', 'lp', {}], ['mrlsr.html', 'mrlsr', { m: [0.1, 4] }], ['dinuzzo.html', 'dinuzzo', {}], ['perceptron.html', 'perceptron', {}]];

/** The control attributes a field's range gives (state.js: an open end one step inside; a span
 *  inside the field's range). */
function expected(f, span) {
  const edge = (b, open, sign) => (open && f.step ? b + sign * f.step : b);
  const step = f.step === null ? 'any' : String(f.step);
  if (span) {
    assert.ok(f.min === null || (f.min_open ? span[0] > f.min : span[0] >= f.min), `${f.path}: span ${span} inside the field's range`);
    assert.ok(f.max === null || (f.max_open ? span[1] < f.max : span[1] <= f.max), `${f.path}: span ${span} inside the field's range`);
    return { min: span[0], max: span[1], step };
  }
  return {
    min: f.min === null ? null : edge(f.min, f.min_open, 1),
    max: f.max === null ? null : edge(f.max, f.max_open, -1),
    step,
  };
}

for (const [file, paper, spans] of PAGES) {
  test(`page ${paper}: the controls carry the schema's ranges, steps and defaults`, async () => {
    const { page, errors, ctx } = await openPage(env.b, `${env.url}${file}`);
    const got = await page.evaluate(async (paper) => {
      // The page's own wasm module, already initialized (dist/ names it with a hash).
      const url = performance.getEntriesByType('resource').map((e) => e.name).find((n) => /\/pkg\/kernel_playground(\.[0-9a-f]+)?\.js$/.test(n)) ?? './pkg/kernel_playground.js';
      const wasm = await import(url);
      const schema = JSON.parse(wasm.specSchema(paper));
      const spec = JSON.parse(decodeURIComponent(location.hash.slice('#spec='.length)));
      const at = (s, path) => path.split('.').reduce((v, k) => (v !== null && typeof v === 'object' ? v[k] : undefined), s);
      return schema.fields.filter((f) => f.control && document.getElementById(f.control)).map((f) => {
        const el = document.getElementById(f.control);
        return { f, type: el.type, min: el.getAttribute('min'), max: el.getAttribute('max'), step: el.getAttribute('step'),
          value: el.type === 'checkbox' ? el.checked : el.value, path: el.dataset.path, shown: at(spec, f.path),
          applies: f.when.every((w) => w.values.includes(at(spec, w.path))) };
      });
    }, paper);
    let numbers = 0;
    for (const c of got) {
      assert.equal(c.path, c.f.path, `${c.f.control} carries its path`);
      if (c.applies && c.shown !== undefined) {
        // The default run's value is in the control; for a number it is the schema's default.
        if (c.type === 'checkbox') assert.equal(c.value, Boolean(c.shown), c.f.path);
        else if (c.f.type === 'choice') assert.equal(c.value, c.shown, c.f.path);
        // A slider sits on its step grid (p = 4/3 shows 1.3333; the page snaps it back).
        else if (c.type === 'range') assert.ok(Math.abs(Number(c.value) - c.shown) <= c.f.step / 2, `${c.f.path}: ${c.value} vs ${c.shown}`);
        else assert.equal(Number(c.value), c.shown, c.f.path);
      }
      if (c.f.type === 'number' || c.f.type === 'integer') {
        assert.equal(c.f.default !== null && typeof c.f.default, 'number', c.f.path);
        if (c.applies && c.shown !== undefined) assert.equal(c.shown, c.f.default, `${c.f.path}: the default run uses the schema's default`);
        else assert.equal(Number(c.value), c.f.default, `${c.f.path}: a fresh control holds the schema's default`);
        if (c.type !== 'number' && c.type !== 'range') continue;
        const e = expected(c.f, spans[c.f.path]);
        assert.equal(c.min === null ? null : Number(c.min), e.min, `${c.f.path} min`);
        assert.equal(c.max === null ? null : Number(c.max), e.max, `${c.f.path} max`);
        assert.equal(c.step, e.step, `${c.f.path} step`);
        numbers += 1;
      }
    }
    assert.ok(numbers >= 8, `${paper}: ${numbers} number controls checked`);
    assert.deepEqual(errors, []);
    await ctx.close();
  });
}

const OUT_OF_RANGE = [
  ['lp.html', (s) => { s.data.n = 0; }, 'data.n'],
  ['lp.html', (s) => { s.model.p = 2.5; }, 'model.p'],
  ['lp.html', (s) => { s.solver = { ...(s.solver ?? {}), max_iter: 0 }; }, 'solver.max_iter'],
  ['mrlsr.html', (s) => { s.data.n = 1; }, 'data.n'],
  ['mrlsr.html', (s) => { s.data.sigma = -0.5; }, 'data.sigma'],
  ['mrlsr.html', (s) => { s.lambda = 0; }, 'lambda'],
  ['mrlsr.html', (s) => { s.sel.folds = 11; }, 'sel.folds'],
  ['mrlsr.html', (s) => { s.kernel = { kind: 'polynomial', degree: 0, offset: 1 }; }, 'kernel.degree'],
  ['mrlsr.html', (s) => { s.m = 7; }, 'm: this page\'s slider covers 0.1..4'],
  ['dinuzzo.html', (s) => { s.data.label_noise = 1.5; }, 'data.label_noise'],
  ['dinuzzo.html', (s) => { s.data.seed = -1; }, 'data.seed'],
  ['dinuzzo.html', (s) => { s.method.tol = 0; }, 'method.tol'],
  ['perceptron.html', (s) => { s.data.set.n = 1; }, 'data.set.n'],
  ['perceptron.html', (s) => { s.data.set.shape = { kind: 'moons', noise: -0.1 }; }, 'data.set.shape.noise'],
  ['perceptron.html', (s) => { s.kernel = { kind: 'gaussian', bandwidth: { fixed: 0 } }; }, 'kernel.bandwidth.fixed'],
  ['perceptron.html', (s) => { s.kernel = { kind: 'polynomial', degree: 0, offset: 1 }; }, 'kernel.degree'],
  ['perceptron.html', (s) => { s.algorithm = { kind: 'isnkpvn', gamma: 1, epsilon: 0.01 }; }, 'algorithm.gamma'],
  ['perceptron.html', (s) => { s.race = { epsilon: 0 }; }, 'race.epsilon'],
  ['perceptron.html', (s) => { s.max_iter = 0; }, 'max_iter'],
];

test('a link with a value outside a field\'s range is refused naming the field; the default run is shown', async () => {
  for (const [file, edit, path] of OUT_OF_RANGE) {
    const first = await openPage(env.b, `${env.url}${file}`);
    const spec = await first.page.evaluate(() => JSON.parse(decodeURIComponent(location.hash.slice('#spec='.length))));
    await first.ctx.close();
    const good = structuredClone(spec);
    edit(spec);
    const { page, errors, ctx } = await openPage(env.b, `${env.url}${file}#spec=${encodeURIComponent(JSON.stringify(spec))}`);
    const msg = await page.evaluate(() => (document.getElementById('error').hidden ? '' : document.getElementById('error').textContent));
    assert.ok(msg.includes(path), `${file} ${path}: ${msg}`);
    const shown = await page.evaluate(() => JSON.parse(decodeURIComponent(location.hash.slice('#spec='.length))));
    assert.deepEqual(shown, good, `${file} ${path}: the default run is shown`);
    // The field's control (where it has one of its own and the run has the field) shows the
    // default run's value again.
    const back = await page.evaluate(async ([paper, path]) => {
      const url = performance.getEntriesByType('resource').map((e) => e.name).find((n) => /\/pkg\/kernel_playground(\.[0-9a-f]+)?\.js$/.test(n)) ?? './pkg/kernel_playground.js';
      const f = JSON.parse((await import(url)).specSchema(paper)).fields.find((x) => x.path === path);
      const el = f?.control && document.getElementById(f.control);
      return el ? { f, value: el.value, type: el.type } : null;
    }, [file.replace('.html', ''), path]);
    const want = path.split('.').reduce((v, k) => (v !== null && typeof v === 'object' ? v[k] : undefined), good);
    if (back && want !== undefined) {
      const tol = back.type === 'range' ? back.f.step / 2 : 0;
      assert.ok(Math.abs(Number(back.value) - want) <= tol, `${file} ${path}: the control shows ${back.value}, the run ${want}`);
    }
    assert.deepEqual(errors, []);
    await ctx.close();
  }
});

test('page D: a pasted link the core refuses leaves the run and its controls', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}perceptron.html`);
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  const spec = await page.evaluate(() => JSON.parse(decodeURIComponent(location.hash.slice('#spec='.length))));
  const run = await page.evaluate(() => document.body.dataset.runId);
  // Controls that hold every value of the link (ε is the race's on the Perceptron), a range
  // only the core checks.
  const bad = { ...structuredClone(spec), max_iter: 0, race: { epsilon: 0.05 } };
  bad.data.set.n = 33;
  await page.evaluate((s) => { location.hash = `#spec=${encodeURIComponent(JSON.stringify(s))}`; }, bad);
  await page.waitForFunction(() => /max_iter/.test(document.getElementById('error').textContent));
  assert.equal(await page.evaluate(() => document.body.dataset.runId), run, 'no new run');
  assert.deepEqual(await page.evaluate(() => ['n', 'maxiter', 'epsilon'].map((id) => document.getElementById(id).value)),
    [String(spec.data.set.n), String(spec.max_iter), '0.01'], 'the controls show the run');
  assert.deepEqual(errors, []);
  await ctx.close();
});
