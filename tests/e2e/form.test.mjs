// One rule for spec ↔ controls on every page (issue 20, www/form.js and src/spec_diff.rs): a
// link, a pasted link or a lesson step whose spec the page's controls cannot hold is refused with
// a message naming the field, and the page keeps the run it showed; one owner of the address
// (www/url.js): the speed, classroom flag, spec and lesson live side by side in the URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, text } from './harness.mjs';
import { LESSONS } from './lesson-files.mjs';

const env = useBrowser();

const specOf = (page) => page.evaluate(() => JSON.parse(decodeURIComponent(location.hash.slice('#spec='.length))));
const errorText = (page) => page.evaluate(() => (document.getElementById('error').hidden ? '' : document.getElementById('error').textContent));
const b64url = (s) => Buffer.from(s, 'utf8').toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const link = (file, spec) => `${env.url}${file}#spec=${encodeURIComponent(JSON.stringify(spec))}`;

/** Each page's default spec (read from its own link), edited by `edit`, must be refused at
 *  `field`; the page shows its default run instead and works. */
async function refusedOnOpen(file, edit, field, ready) {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}${file}`);
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  const spec = await specOf(page);
  await ctx.close();
  edit(spec);
  const p = await openPage(env.b, link(file, spec));
  await p.page.waitForFunction(() => document.body.dataset.ready === '1');
  const msg = await errorText(p.page);
  assert.ok(msg.startsWith(`The link's experiment is not valid: ${field}: this page's controls cannot hold`) || msg.includes(`${field}: this page's controls cannot hold`), msg);
  if (ready) await ready(p.page);
  assert.deepEqual(errors, []);
  assert.deepEqual(p.errors, []);
  await p.ctx.close();
}

test('page D: an overlap below the slider and a spread the page has no control for are refused, naming the field', async () => {
  await refusedOnOpen('perceptron.html', (s) => { s.data.set.shape.margin = -0.05; }, 'data.set.shape.margin',
    async (page) => assert.equal(await page.locator('#data').inputValue(), 'blobs', 'the default run is shown'));
  await refusedOnOpen('perceptron.html', (s) => { s.data.set.shape.spread = 0.3; }, 'data.set.shape.spread');
  await refusedOnOpen('perceptron.html', (s) => { s.data.set.label_noise = 0.1; }, 'data.set.label_noise');
});

test('page D: a value the controls hold opens as asked; a pasted link they cannot hold leaves the run and its controls', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}perceptron.html`);
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  const spec = await specOf(page);
  spec.data.set.shape.margin = -0.45;
  spec.data.set.n = 80;
  await page.goto(link('perceptron.html', spec));
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  assert.equal(await errorText(page), '');
  assert.equal(await page.locator('#data').inputValue(), 'overlap');
  assert.equal(Number(await page.locator('#overlap').inputValue()), 0.45);
  assert.equal(await page.locator('#n').inputValue(), '80');
  const run = await page.evaluate(() => document.body.dataset.runId);
  // Pasted: spread 0.3 cannot be shown; the run and every control stay.
  const bad = structuredClone(spec);
  bad.data.set.shape.spread = 0.3;
  bad.data.set.n = 99;
  await page.evaluate((s) => { location.hash = `#spec=${encodeURIComponent(JSON.stringify(s))}`; }, bad);
  await page.waitForFunction(() => /data\.set\.shape\.spread/.test(document.getElementById('error').textContent));
  assert.equal(await page.evaluate(() => document.body.dataset.runId), run, 'no new run');
  assert.equal(await page.locator('#n').inputValue(), '80', 'the controls show the run');
  assert.equal(Number(await page.locator('#overlap').inputValue()), 0.45);
  // The page still works: a control change starts a run of what the controls show.
  await page.fill('#n', '70');
  await page.dispatchEvent('#n', 'change');
  await page.waitForFunction((r) => document.body.dataset.runId !== r, run);
  assert.equal((await specOf(page)).data.set.n, 70);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('pages A, B, C: a value a control cannot hold is refused, naming the field', async () => {
  // A: the p slider moves in steps of 10⁻⁴ (4/3, 6/5, 8/7 are snapped to exactly).
  await refusedOnOpen('lp.html', (s) => { s.model.p = 1.23456; }, 'model.p');
  // B: the m slider moves in steps of 0.01.
  await refusedOnOpen('mrlsr.html', (s) => { s.m = 1.234; }, 'm');
  // C: the blobs' spread has no control.
  await refusedOnOpen('dinuzzo.html', (s) => { s.data.shape = { kind: 'blobs', margin: 0.5, spread: 0.3 }; }, 'data.shape.spread');
});

test('page C keeps the fields it has no control for (sweep cap, seed) from a link', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}dinuzzo.html`);
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  const spec = await specOf(page);
  spec.method.max_sweeps = 777;
  spec.method.seed = 5;
  await page.goto(link('dinuzzo.html', spec));
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  assert.equal(await errorText(page), '');
  await page.fill('#lambda', '0.2');
  await page.dispatchEvent('#lambda', 'change');
  await page.waitForFunction(() => /0\.2/.test(decodeURIComponent(location.hash)));
  const after = await specOf(page);
  assert.equal(after.lambda, 0.2);
  assert.equal(after.method.max_sweeps, 777);
  assert.equal(after.method.seed, 5);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('a lesson step the page cannot hold says which step and field; the lesson stays', async () => {
  const { page: p0, ctx: c0 } = await openPage(env.b, `${env.url}perceptron.html`);
  await p0.waitForFunction(() => document.body.dataset.ready === '1');
  const spec = await specOf(p0);
  await c0.close();
  const bad = structuredClone(spec);
  bad.data.set.shape.spread = 0.3;
  const L = structuredClone(LESSONS.d);
  L.title = 'Spread';
  L.steps = [{ ...L.steps[0], title: 'A spread the page has no control for', spec: bad }];
  const { page, errors, ctx } = await openPage(env.b, `${env.url}perceptron.html#lesson-data=j${b64url(JSON.stringify(L))}&step=1`);
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  if (await page.evaluate(() => document.body.dataset.lessonError === '1')) {
    assert.fail(`the lesson did not open: ${await text(page, '#lesson-error')}`);
  }
  await page.waitForFunction(() => /Lesson step 1: data\.set\.shape\.spread/.test(document.getElementById('error').textContent));
  assert.equal(await page.evaluate(() => document.body.dataset.lessonStep), '1');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('one address: speed, classroom flag and spec or lesson live side by side', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}perceptron.html?classroom=1&speed=3`, { speed: null });
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  const run = await page.evaluate(() => document.body.dataset.runId);
  await page.fill('#n', '50');
  await page.dispatchEvent('#n', 'change');
  await page.waitForFunction((r) => document.body.dataset.runId !== r, run);
  let u = new URL(await page.evaluate(() => location.href));
  assert.equal(u.searchParams.get('classroom'), '1');
  assert.equal(u.searchParams.get('speed'), '3');
  assert.equal(JSON.parse(decodeURIComponent(u.hash.slice('#spec='.length))).data.set.n, 50);
  // A new speed keeps the spec and the classroom flag.
  await page.locator('#speed').fill('8');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('speed') !== '3');
  u = new URL(await page.evaluate(() => location.href));
  assert.equal(u.searchParams.get('classroom'), '1');
  assert.match(u.hash, /^#spec=/);
  assert.equal(JSON.parse(decodeURIComponent(u.hash.slice('#spec='.length))).data.set.n, 50);
  assert.deepEqual(errors, []);
  await ctx.close();
});
