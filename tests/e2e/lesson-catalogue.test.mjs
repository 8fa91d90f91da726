// A lecturer's lesson file against the core's catalogues (issue 35 §3–5, docs/lessons.md): the
// page refuses a misspelt element id as `kplay lesson check` does, naming the step and the nearest
// id; a step given as a merge patch opens with the spec the core resolved (the same as the CLI's);
// lesson math renders the commands of the one list, a letter outside the BMP as one letter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, openPage, text, KPLAY } from './harness.mjs';
import { LESSONS } from './lesson-files.mjs';

const env = useBrowser();
const b64url = (s) => Buffer.from(s, 'utf8').toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const link = (L, step = 1) => `${env.url}dinuzzo.html#lesson-data=j${b64url(JSON.stringify(L))}&step=${step}`;

/** `kplay lesson check` on L: [exit status, stderr]. */
function cli(L) {
  const f = path.join(mkdtempSync(path.join(os.tmpdir(), 'kplay-lesson-')), 'l.json');
  writeFileSync(f, JSON.stringify(L));
  try {
    execFileSync(KPLAY, ['lesson', 'check', f], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return [0, ''];
  } catch (e) {
    return [e.status, String(e.stderr)];
  }
}

/** Lesson C cut to two steps. */
function twoSteps() {
  const L = structuredClone(LESSONS.c);
  L.steps = L.steps.slice(0, 2);
  return L;
}

test('a misspelt element id is refused by the page and by kplay, naming the step and the nearest id', async () => {
  const L = twoSteps();
  L.steps[1].uses = ['alpha-rule', 'mapp'];
  const want = 'steps[1].uses[1]: "mapp" is not an element of dinuzzo.html; did you mean "map"?';
  const [status, stderr] = cli(L);
  assert.equal(status, 2);
  assert.ok(stderr.includes(want), stderr);
  const { page, errors, ctx } = await openPage(env.b, link(L));
  await page.waitForFunction(() => document.body.dataset.lessonError === '1');
  assert.ok((await text(page, '#lesson-error')).includes(want), await text(page, '#lesson-error'));
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('a step given as a patch opens with the spec the core resolved', async () => {
  const L = twoSteps();
  const full = L.steps[1].spec;
  // Step 2 as only what changes: the method (the rest inherited from step 1), λ changed too.
  delete L.steps[1].spec;
  L.steps[1].patch = { method: full.method, lambda: 0.25 };
  L.steps[1].claims = [{ id: 'ok', says: 'it ends', lhs: { run: 'status' }, rel: '==', rhs: { value: 'converged' }, reference: 'ours', answers: true }];
  const [status, stderr] = cli(L);
  assert.equal(status, 0, stderr);
  const { page, errors, ctx } = await openPage(env.b, link(L, 2));
  await page.waitForFunction(() => document.body.dataset.lessonStep === '2');
  assert.equal(await page.locator('#lambda').inputValue(), '0.25');
  assert.equal(await page.locator('#algorithm').inputValue(), full.method.kind);
  assert.equal(await page.locator('#n').inputValue(), String(L.steps[0].spec.data.n), 'inherited from step 1');
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('lesson math: the catalogue\'s commands render, 𝕂 stays one letter, a misspelt command is refused', async () => {
  const L = twoSteps();
  L.steps[0].look = 'Look: $\\exp(-\\lVert x \\rVert^2)$ over $\\mathbb{K}$ and card(𝕂), $\\alpha \\leq \\sum_{i=1}^n x_i$.';
  const { page, errors, ctx } = await openPage(env.b, link(L));
  await page.waitForFunction(() => document.body.dataset.lessonStep === '1');
  const look = await text(page, '#lesson-look');
  assert.ok(look.includes('card(𝕂)'), look);
  assert.ok(!look.includes('\uFFFD') && !look.includes('\\'), look);
  const mi = await page.$$eval('#lesson-look math mi', (els) => els.map((e) => e.textContent));
  for (const w of ['exp', '𝕂', 'α']) assert.ok(mi.includes(w), `${w} in ${mi.join(' ')}`);
  assert.ok((await page.$$eval('#lesson-look math mo', (els) => els.map((e) => e.textContent))).includes('‖'));
  assert.deepEqual(errors, []);
  await ctx.close();
  const bad = twoSteps();
  bad.steps[0].look = 'Look: $\\exq(x)$';
  const [status, stderr] = cli(bad);
  assert.equal(status, 2);
  assert.match(stderr, /steps\[0\]\.look.*: unknown math command \\exq; did you mean \\exp\?/, stderr);
});
