// The lesson editor of the paper pages (issue 35 §1, §2, §6; docs/teaching.md "How to write a
// lesson in the page"): a three-step lesson built on page C only through the editor — the page's
// state added as steps, a control changed between them, texts typed (previewed by the lesson's
// renderer), claims picked from readouts, one against an earlier step, each evaluated at once by
// the core's evaluator and marked as the answer — saved; the saved file passes `kplay lesson
// check`, its measured values agree with `kplay run` on the step's spec, later steps are merge
// patches, and it opens from the file and from its link, and plays in classroom mode at 1280 × 720
// with "Open a lesson…" still there. Bad input gets a message naming the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, openPage, text, KPLAY } from './harness.mjs';
import { openEditor, setControl, waitRun, addStep, pickClaim } from './lesson-editor-flow.mjs';

const env = useBrowser();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'kplay-editor-'));
const VIEW = { width: 1280, height: 720 };

/** `kplay run` of a step's spec on paper C: the native report. */
function native(spec) {
  const file = path.join(tmp, `spec-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ paper: 'dinuzzo', ...spec }));
  return JSON.parse(execFileSync(KPLAY, ['run', file], { maxBuffer: 1 << 28 }).toString());
}

let saved = null; // { file, text, link } of the lesson the first test builds

test('a three-step lesson built only through the editor on page C passes kplay lesson check', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}dinuzzo.html`);
  await waitRun(page);
  await openEditor(page);
  assert.equal(await page.locator('#lesson-editor').isVisible(), true);
  await page.fill('#le-title', 'Lesson · coordinate descent as λ and the width change');

  // Step 1: fewer points (a changed control), the page's state as a step.
  await setControl(page, 'n', '80');
  await addStep(page, {
    title: 'Coordinate descent on 80 points',
    look: 'The map shows $f(x) = \\sum_i c_i k(x_i, x)$; the sweep count is on the left.',
    predict: '**Predict:** does the run reach the tolerance $\\delta$?',
    explain: 'It does: the status reads converged, as Theorem 4 leads us to expect.',
    reference: 'Theorem 4',
  });
  const uses1 = await page.$$eval('#le-uses input[data-use]:checked', (els) => els.map((e) => e.dataset.use));
  for (const id of ['n', 'map', 'r-sweep', 'r-status']) assert.ok(uses1.includes(id), `step 1 uses ${id}: ${uses1}`);
  assert.ok(!uses1.includes('lambda'), `an unchanged control is not in uses: ${uses1}`);
  // The preview is the lesson's renderer: math as MathML, bold as <b>.
  assert.ok(await page.locator('#le-p-look math').count() >= 1);
  assert.equal(await page.locator('#le-p-predict b').innerText(), 'Predict:');
  const s1 = await pickClaim(page, { readout: 'r-status', rel: '==', value: 'converged' });
  assert.ok(s1.pass, s1.line);
  assert.match(s1.line, /measured converged = converged: PASS/);

  // Step 2: λ changed; the claim compares the sweeps with step 1's.
  await setControl(page, 'lambda', '1');
  await addStep(page, {
    title: 'A larger λ',
    look: 'Only $\\lambda$ has changed: $\\lambda = 1$.',
    predict: '**Predict:** more sweeps than step 1, or fewer?',
    explain: 'The sweep count against step 1 is the answer; the claim states it.',
    reference: 'ours',
  });
  const uses2 = await page.$$eval('#le-uses input[data-use]:checked', (els) => els.map((e) => e.dataset.use));
  assert.ok(uses2.includes('lambda') && !uses2.includes('n'), `step 2 uses the changed control: ${uses2}`);
  const s2 = await pickClaim(page, { readout: 'r-sweep', rel: '<', against: 1, otherwise: '>=' });
  assert.ok(s2.pass, s2.line);

  // Step 3: a narrower Gaussian; support vectors against step 2's.
  await setControl(page, 'mu', '0.2');
  await addStep(page, {
    title: 'A narrower kernel',
    look: 'The width $\\mu$ of $k(x, x\') = \\exp(-\\lVert x - x\' \\rVert^2/\\mu)$ is now 0.2.',
    predict: '**Predict:** more support vectors than step 2, or fewer?',
    explain: 'Compare the ringed points with step 2.',
    reference: 'ours',
  });
  const s3 = await pickClaim(page, { readout: 'r-support', rel: '>', against: 2, otherwise: '<=' });
  assert.ok(s3.pass, s3.line);
  assert.equal(await page.locator('#le-steps li').count(), 3);

  // Reorder and delete: a fourth step moved up and back, then deleted; a move that would put a
  // claim before the step it reads is refused, naming it.
  await page.click('#le-add');
  await page.waitForFunction(() => document.querySelectorAll('#le-steps li').length === 4);
  await page.fill('#le-s-title', 'to be deleted');
  await page.getByRole('button', { name: 'move up step 4' }).click();
  assert.equal(await page.locator('#le-steps li').nth(2).locator('.le-step-name').innerText(), 'to be deleted · 0 claims');
  await page.getByRole('button', { name: 'move down step 3' }).click();
  await page.getByRole('button', { name: 'delete step 4' }).click();
  assert.equal(await page.locator('#le-steps li').count(), 3);
  await page.getByRole('button', { name: 'move up step 3' }).click();
  assert.match(await text(page, '#le-msg'), /claim “c1” of the step now numbered 2 reads step 3, not an earlier step/);
  assert.equal(await page.locator('#le-steps li').nth(2).locator('.le-step-name').innerText(), 'A narrower kernel · 1 claim');

  // Every claim checked by the evaluator kplay uses, then saved: the file and its link.
  await page.click('#le-check');
  await page.waitForSelector('#lesson-editor[data-checked]', { timeout: 120000 });
  assert.equal(await page.getAttribute('#lesson-editor', 'data-checked'), 'pass', await text(page, '#le-msg'));
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#le-save')]);
  const file = path.join(tmp, download.suggestedFilename());
  await download.saveAs(file);
  await page.waitForFunction(() => document.getElementById('le-link').value.includes('#lesson-data=z'));
  const link = await page.inputValue('#le-link');
  saved = { file, text: readFileSync(file, 'utf8'), link };
  assert.deepEqual(errors, []);
  await ctx.close();

  // The file: steps 2 and 3 inherit (merge patches), every step answers its question.
  const L = JSON.parse(saved.text);
  assert.equal(L.page, 'dinuzzo.html');
  assert.equal(L.steps.length, 3);
  assert.ok(L.steps[0].spec && !L.steps[0].patch);
  assert.deepEqual(L.steps[1].patch, { lambda: 1 });
  assert.equal(L.steps[1].spec, undefined);
  assert.deepEqual(L.steps[2].patch, { kernel: { bandwidth: { fixed: 0.2 } } });
  assert.equal(L.steps[0].spec.data.n, 80);
  for (const s of L.steps) assert.ok(s.claims.some((c) => c.answers), s.title);
  assert.deepEqual(L.steps[1].claims[0].rhs, { step: [1, 'iterations'] });
  assert.deepEqual(L.steps[2].claims[0].rhs, { step: [2, 'solution.support_size'] });
  assert.equal(L.steps[0].speed, 'max');

  // kplay lesson check: every claim passes, and the values it measured are `kplay run`'s.
  const out = execFileSync(KPLAY, ['lesson', 'check', file], { encoding: 'utf8' });
  assert.match(out, /3 claims, 0 failed/, out);
  const spec1 = L.steps[0].spec;
  const spec2 = { ...spec1, lambda: 1 };
  const spec3 = { ...spec2, kernel: { ...spec2.kernel, bandwidth: { fixed: 0.2 } } };
  const [r1, r2, r3] = [spec1, spec2, spec3].map(native);
  const rel2 = L.steps[1].claims[0].rel;
  assert.equal(rel2 === '<' ? r2.iterations < r1.iterations : r2.iterations >= r1.iterations, true);
  assert.match(s2.line, new RegExp(`measured ${r2.iterations} [<≥] ${r1.iterations}: PASS`));
  const sv = (r) => r.solution.support_size;
  assert.match(s3.line, new RegExp(`measured ${sv(r3)} [>≤] ${sv(r2)}: PASS`));
  assert.ok(out.includes(`measured ${r2.iterations}`), out);
});

test('the saved lesson opens from its file and from its link, and plays in classroom mode', async () => {
  assert.ok(saved, 'the first test saved a lesson');
  // From the file, with "Open a lesson…".
  {
    const { page, errors, ctx } = await openPage(env.b, `${env.url}dinuzzo.html`);
    await page.setInputFiles('#lesson-file', saved.file);
    await page.waitForFunction(() => document.body.dataset.lesson === 'own');
    assert.equal(await text(page, '#lesson-count'), 'Step 1 of 3');
    assert.equal(await text(page, '#lesson-step-title'), 'Coordinate descent on 80 points');
    assert.equal(await page.inputValue('#n'), '80');
    assert.deepEqual(errors, []);
    await ctx.close();
  }
  // From the link, at step 2: λ = 1 inherited from the patch.
  {
    const { page, errors, ctx } = await openPage(env.b, saved.link.replace('&step=1', '&step=2'));
    await page.waitForFunction(() => document.body.dataset.lessonStep === '2');
    assert.equal(await page.inputValue('#lambda'), '1');
    assert.equal(await page.inputValue('#n'), '80');
    assert.deepEqual(errors, []);
    await ctx.close();
  }
  // Classroom mode at 1280 × 720: every step runs and explains; the page does not scroll; "Open
  // a lesson…" is there, the editor is not.
  {
    const u = new URL(saved.link);
    const { page, errors, ctx } = await openPage(env.b, `${env.url}dinuzzo.html?classroom=1${u.hash}`, { viewport: VIEW });
    await page.waitForFunction(() => document.body.dataset.lessonStep === '1' && document.body.dataset.classroom === '1');
    assert.equal(await page.locator('#lesson-open').isVisible(), true);
    assert.equal(await page.locator('#lesson-write').isVisible(), false);
    for (let k = 1; k <= 3; k++) {
      await page.waitForFunction((k) => document.body.dataset.lessonStep === String(k), k);
      assert.equal(await page.locator('#lesson-explain').isVisible(), false, `step ${k}: no explanation before the run`);
      await page.keyboard.press('PageDown');
      await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 60000 });
      assert.equal(await page.locator('#lesson-explain').isVisible(), true);
      const fits = await page.evaluate(() => document.scrollingElement.scrollHeight <= innerHeight + 1
        && document.scrollingElement.scrollWidth <= innerWidth + 1);
      assert.ok(fits, `step ${k}: the classroom page scrolls`);
      if (k < 3) await page.keyboard.press('PageDown');
    }
    assert.deepEqual(errors, []);
    await ctx.close();
  }
});

test('Try it plays the lesson; Open loads a built-in lesson for editing; bad input is named', async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}dinuzzo.html`);
  await waitRun(page);
  await openEditor(page);
  // A built-in lesson into the editor: all its steps, step 2's texts in the fields.
  const cSteps = JSON.parse(readFileSync(new URL('../../www/lessons/c.json', import.meta.url))).steps.length;
  await page.selectOption('#le-builtin', 'c');
  await page.waitForFunction((k) => document.querySelectorAll('#le-steps li').length === k, cSteps);
  await page.getByRole('button', { name: 'edit step 2' }).click();
  assert.equal(await page.inputValue('#le-s-title'), JSON.parse(readFileSync(new URL('../../www/lessons/c.json', import.meta.url))).steps[1].title);
  // Bad input: a word where a number is compared, a misspelt measure (the core names it), bad
  // math in a text (the parser names the field), a bad speed.
  await page.fill('#le-c-lhs', 'iterations');
  await page.selectOption('#le-c-rel', '<');
  await page.selectOption('#le-c-against', 'value');
  await page.fill('#le-c-value', 'many');
  await page.click('#le-c-add');
  assert.match(await text(page, '#le-c-result'), /Claim · value: “many” is not a number/);
  await page.fill('#le-c-lhs', 'iteration');
  await page.fill('#le-c-value', '10');
  await page.click('#le-c-add');
  await page.waitForFunction(() => /cannot be checked/.test(document.getElementById('le-c-result').textContent), null, { timeout: 120000 });
  assert.match(await text(page, '#le-c-result'), /claims\[0\]\.lhs\.run: "iteration" is not a measure of dinuzzo\.html runs; did you mean "iterations"\?/);
  await page.fill('#le-s-look', 'Bad math: $\\exq(x)$');
  await page.waitForFunction(() => /unknown math command/.test(document.getElementById('le-msg').textContent));
  assert.match(await text(page, '#le-msg'), /steps\[1\]\.look \(paragraph 1\): unknown math command \\exq; did you mean \\exp\?/);
  await page.fill('#le-s-speed', 'fast');
  await page.locator('#le-s-speed').blur();
  assert.match(await text(page, '#le-msg'), /Step 2 · speed: 0\.1 to 10⁶/);
  await page.fill('#le-s-look', 'Fine again: $\\exp(x)$.');
  await page.waitForFunction((k) => new RegExp(`The lesson is valid: ${k} steps`).test(document.getElementById('le-msg').textContent), cSteps);
  // Try it: the lesson plays as a file opens, at step 1, the editor closed.
  await page.click('#le-try');
  await page.waitForFunction(() => document.body.dataset.lesson === 'own' && document.body.dataset.lessonStep === '1');
  assert.equal(await page.locator('#lesson-editor').isVisible(), false);
  assert.equal(await text(page, '#lesson-count'), `Step 1 of ${cSteps}`);
  // A built-in lesson of another page opens that page's editor with it.
  await page.click('#lesson-write');
  await page.selectOption('#le-builtin', 'a');
  await page.waitForURL(/lp\.html\?edit=a/);
  const aSteps = JSON.parse(readFileSync(new URL('../../www/lessons/a.json', import.meta.url))).steps.length;
  await page.waitForFunction((k) => document.querySelectorAll('#le-steps li').length === k, aSteps, { timeout: 60000 });
  assert.equal(await page.locator('#lesson-editor').isVisible(), true);
  assert.deepEqual(errors, []);
  await ctx.close();
});

test('pages A, B and D: the page\'s state as a step, a claim checked, a valid one-step lesson', async () => {
  for (const file of ['lp.html', 'mrlsr.html', 'perceptron.html']) {
    const { page, errors, ctx } = await openPage(env.b, `${env.url}${file}`);
    await openEditor(page);
    await page.fill('#le-title', 'Lesson · a first look');
    await page.click('#le-add');
    await page.waitForFunction(() => document.querySelectorAll('#le-steps li').length === 1);
    await page.fill('#le-s-title', 'The page as it opens');
    for (const k of ['look', 'predict', 'explain']) await page.fill(`#le-s-${k}`, `The ${k} text.`);
    await page.fill('#le-s-ref', 'ours');
    // The step's spec went through the core's parser: what is left to do is its claims.
    await page.waitForFunction(() => /steps\[0\]\.claims: 1 to 40 claims/.test(document.getElementById('le-msg').textContent));
    await page.fill('#le-c-lhs', 'iterations');
    await page.selectOption('#le-c-rel', '>=');
    await page.fill('#le-c-value', '0');
    await page.setChecked('#le-c-answers', true);
    await page.click('#le-c-add');
    await page.waitForSelector('#le-claims li[data-pass="1"]', { timeout: 120000 });
    await page.waitForFunction(() => /The lesson is valid: 1 step/.test(document.getElementById('le-msg').textContent));
    assert.deepEqual(errors, [], file);
    await ctx.close();
  }
});
