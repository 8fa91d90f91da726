// Page B's model selection and equivalence experiment reproduced from its link (issue 34): the
// Copy link carries the `selection` and `equivalence` sections of the runs the user made, and
// `kplay run` of that spec prints the same tables. Paper B's eigendecompositions are faer's
// scalar code in wasm and its AVX2 code natively (docs/spec.md), so the tables agree to
// rounding amplified by the conditioning of K + nλI, not bit for bit: the selection's numbers
// within 1e-9 relative, the equivalence's within 1e-6 (its small λ on small parts; the
// differences of fitted functions, at rounding level on Z₁, in absolute terms there), the
// chosen (m, λ), λ₂ and λ, the sizes, the failures and the strings exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, openPage, KPLAY } from './harness.mjs';

const env = useBrowser();

function kplayRun(spec) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kplay-mrlsr-'));
  const file = path.join(dir, 'spec.json');
  writeFileSync(file, JSON.stringify(spec));
  return JSON.parse(execFileSync(KPLAY, ['run', file], { maxBuffer: 1 << 28 }).toString());
}

/** Fields compared exactly: choices on a grid, sizes, counts, labels. */
const EXACT = new Set(['best_m', 'best_lambda', 'm', 'lambda', 'n', 'n_train', 'n_test', 'failures', 'part', 'folds', 'krr_method', 'kernel', 'warning']);
/** Differences of two fitted functions: at rounding level on Z₁, compared in absolute terms there. */
const DIFFS = new Set(['diff_rms', 'diff_rkhs']);

function agree(rel, page, native, where = '', key = '') {
  if (typeof page === 'number' && typeof native === 'number') {
    if (EXACT.has(key)) return assert.equal(page, native, where);
    const floor = DIFFS.has(key) ? 1e-6 : 0;
    const tol = rel * Math.max(Math.abs(page), Math.abs(native), floor);
    return assert.ok(Math.abs(page - native) <= tol, `${where}: page ${page}, kplay ${native}`);
  }
  if (Array.isArray(page) && Array.isArray(native)) {
    assert.equal(page.length, native.length, `${where}: length`);
    return page.forEach((v, i) => agree(rel, v, native[i], `${where}[${i}]`, key));
  }
  if (page && native && typeof page === 'object' && typeof native === 'object') {
    assert.deepEqual(Object.keys(page).sort(), Object.keys(native).sort(), `${where}: keys`);
    for (const k of Object.keys(page)) agree(rel, page[k], native[k], `${where}.${k}`, k);
    return undefined;
  }
  return assert.deepEqual(page, native, where);
}

test("page B's copied link, run by kplay run, gives the page's model selection and equivalence tables", async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}mrlsr.html`);
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.url.replace(/\/$/, '') });
  await page.waitForFunction(() => document.body.dataset.ready === '1' && document.body.dataset.busy === '0' && !!document.body.dataset.run, null, { timeout: 120000 });
  // Before any run the link carries neither section.
  let h = await page.evaluate(() => JSON.parse(decodeURIComponent(location.hash.slice('#spec='.length))));
  assert.equal(h.selection, undefined);
  assert.equal(h.equivalence, undefined);

  await page.fill('#sel-n', '80');
  await page.fill('#sel-folds', '3');
  await page.click('#sel-run');
  await page.waitForFunction(() => Number(document.body.dataset.selRuns || 0) >= 1, null, { timeout: 180000 });
  const selection = JSON.parse(await page.evaluate(() => document.body.dataset.selResult));
  await page.click('#eq-run');
  await page.waitForFunction(() => Number(document.body.dataset.eqRuns || 0) >= 1, null, { timeout: 120000 });
  const equivalence = JSON.parse(await page.evaluate(() => document.body.dataset.eqReport));
  const m = Number(await page.inputValue('#m'));

  await page.click('#copy-link');
  const link = await page.evaluate(() => navigator.clipboard.readText());
  assert.ok(link.includes('#spec='), link);
  const spec = JSON.parse(decodeURIComponent(link.slice(link.indexOf('#spec=') + '#spec='.length)));
  assert.equal(spec.paper, 'mrlsr');
  assert.deepEqual(spec.selection, {
    data: { kind: 'friedman', n: 80, sigma: 1, seed: 1 }, kernel: { kind: 'gaussian', bandwidth: 'heuristic' }, folds: 3,
  });
  assert.deepEqual(spec.equivalence, { m, parts: 4, folds: 10, seed: 1 });

  const native = kplayRun(spec);
  assert.equal(native.paper, 'mrlsr');
  agree(1e-9, selection, native.selection, 'selection');
  // Fig. 1 chooses a small λ on a part of 25 points, where K + nλI is ill-conditioned: the
  // eigendecompositions' rounding (1e-16 relative) is amplified up to about 1e-8 at λ = 1e-7
  // (the CV error and λ₂ at the grid's first λ; measured 4.4e-8 at most), 1e-12 at λ ≥ 1e-4.
  agree(1e-6, equivalence, native.equivalence, 'equivalence');
  // The tables are the paper's: 29 m × 7 λ for M-RLSR, 25 λ₂ for kernel ridge, 4 parts with
  // Z₁ alone at rounding level.
  assert.deepEqual([native.selection.mrlsr_cv.rmse.length, native.selection.mrlsr_cv.rmse[0].length, native.selection.krr_cv.rmse[0].length], [29, 7, 25]);
  const rel = (p) => p.diff_rms / p.fitted_rms;
  assert.ok(rel(native.equivalence.parts[0]) < 1e-9, JSON.stringify(native.equivalence.parts[0]));
  for (const p of native.equivalence.parts.slice(1)) assert.ok(rel(p) > 1e3 * Math.max(rel(native.equivalence.parts[0]), 1e-13), JSON.stringify(p));

  // A new data seed: the equivalence ran on other data, so the link drops it; the selection
  // (its own data) stays.
  await page.fill('#seed', '5');
  await page.press('#seed', 'Enter');
  await page.waitForFunction(() => /"seed":5/.test(decodeURIComponent(location.hash)));
  h = await page.evaluate(() => JSON.parse(decodeURIComponent(location.hash.slice('#spec='.length))));
  assert.equal(h.equivalence, undefined);
  assert.deepEqual(h.selection, spec.selection);

  // The copied link opened afresh keeps both sections (its controls hold them) without a message.
  const again = await openPage(env.b, link);
  await again.page.waitForFunction(() => document.body.dataset.ready === '1' && document.body.dataset.busy === '0' && !!document.body.dataset.run, null, { timeout: 120000 });
  const back = await again.page.evaluate(() => JSON.parse(decodeURIComponent(location.hash.slice('#spec='.length))));
  assert.deepEqual([back.selection, back.equivalence], [spec.selection, spec.equivalence]);
  assert.ok(await again.page.locator('#error').isHidden());
  assert.deepEqual(again.errors, []);
  await again.ctx.close();
  assert.deepEqual(errors, []);
  await ctx.close();
});
