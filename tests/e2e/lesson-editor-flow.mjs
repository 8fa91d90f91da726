// A lecturer's gestures in the page's lesson editor (www/lesson-editor.js), shared by
// lesson-editor.test.mjs and screenshots-editor.mjs: page C's controls changed as a lecturer
// changes them, a step added from the page's state, its texts typed, a claim picked by clicking
// a readout. Only the editor's own controls are used (no lesson JSON is written by hand).

/** Open the editor and wait for the page's catalogue. */
export async function openEditor(page) {
  await page.click('#lesson-write');
  await page.waitForSelector('#lesson-editor[data-ready="1"]', { timeout: 60000 });
}

/** Change a control of page C as a lecturer does (type, leave the field) and wait for the new
 *  run to end. */
export async function setControl(page, id, value) {
  const before = await page.evaluate(() => document.body.dataset.runId);
  const tag = await page.$eval(`#${id}`, (e) => e.tagName);
  if (tag === 'SELECT') await page.selectOption(`#${id}`, value);
  else {
    await page.fill(`#${id}`, value);
    await page.locator(`#${id}`).blur();
  }
  await page.waitForFunction((b) => document.body.dataset.runId !== b, before, { timeout: 60000 });
  await waitRun(page);
}

/** Wait until page C's run has converged. */
export const waitRun = (page) => page.waitForFunction(() => document.body.dataset.status === 'converged', null, { timeout: 60000 });

/** "Add this state as a step", then type its title, texts and reference. */
export async function addStep(page, { title, look, predict, explain, reference }) {
  const n = await page.locator('#le-steps li').count();
  await page.click('#le-add');
  await page.waitForFunction((n) => document.querySelectorAll('#le-steps li').length === n + 1, n);
  await page.fill('#le-s-title', title);
  await page.fill('#le-s-look', look);
  await page.fill('#le-s-predict', predict);
  await page.fill('#le-s-explain', explain);
  await page.fill('#le-s-ref', reference);
}

/**
 * Pick a claim: click the readout, choose the relation and what it is compared with (`against`:
 * a step number, or `value`), mark it as the answer, add it; wait for its evaluation. When it
 * fails and `otherwise` gives another relation, the lecturer deletes it and takes that one.
 * Returns the result line and whether it passed.
 */
export async function pickClaim(page, { readout, rel, against = 'value', value, says, answers = true, otherwise }) {
  await page.click(`#${readout}`);
  await page.selectOption('#le-c-rel', rel);
  await page.selectOption('#le-c-against', String(against));
  if (value !== undefined) await page.fill('#le-c-value', String(value));
  if (says) await page.fill('#le-c-says', says);
  await page.setChecked('#le-c-answers', answers);
  const n = await page.locator('#le-claims li').count();
  await page.click('#le-c-add');
  await page.waitForFunction((n) => document.querySelectorAll('#le-claims li').length === n + 1
    || document.querySelector('#le-c-result').classList.contains('bad'), n, { timeout: 120000 });
  const li = page.locator('#le-claims li').last();
  const pass = (await li.getAttribute('data-pass')) === '1';
  if (!pass && otherwise) {
    await li.getByRole('button', { name: /delete claim/ }).click();
    return pickClaim(page, { readout, rel: otherwise, against, value, says, answers });
  }
  return { pass, line: await page.locator('#le-c-result').innerText() };
}
