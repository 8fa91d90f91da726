// Page D's race reproduced from its link (issue 34): the race's ε, δ, γ set on the page are in
// the spec its Copy link button copies, and `kplay race` of that spec gives the page's standings
// — every lane's status, iterations, outcome, independent check, bound and final measures, bit
// for bit (times aside).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, openPage, KPLAY } from './harness.mjs';

const env = useBrowser();

/** `kplay race` on a spec: its lanes without their times. */
function kplayRace(spec) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kplay-race-'));
  const file = path.join(dir, 'spec.json');
  writeFileSync(file, JSON.stringify(spec));
  const out = JSON.parse(execFileSync(KPLAY, ['race', file], { maxBuffer: 1 << 28 }).toString());
  return out.lanes.map(({ time_ms, ...l }) => l);
}

const change = async (page, id, value) => {
  await page.fill(`#${id}`, value);
  await page.dispatchEvent(`#${id}`, 'change');
};

test("page D's copied race link, run by kplay race, gives the page's standings", async () => {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}perceptron.html`);
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.url.replace(/\/$/, '') });
  await page.waitForFunction(() => document.body.dataset.status === 'separator', null, { timeout: 60000 });
  // Overlapping blobs: the perceptrons run to the cap, the von Neumann algorithms certify, so
  // ε, δ and γ decide the certificate lanes.
  await page.selectOption('#data', 'overlap');
  await change(page, 'maxiter', '5000');
  // The fields are shared with the algorithm's parameters: ε and γ on ISNKPVN, δ on SNKPVN …
  await page.selectOption('#algo', 'isnkpvn');
  await change(page, 'epsilon', '0.02');
  await change(page, 'gamma', '4');
  await page.selectOption('#algo', 'snkpvn');
  await change(page, 'delta', '0.05');
  let spec = await page.evaluate(() => JSON.parse(decodeURIComponent(location.hash.slice('#spec='.length))));
  assert.deepEqual(spec.algorithm, { kind: 'snkpvn', delta: 0.05 });
  assert.deepEqual(spec.race, { epsilon: 0.02, gamma: 4 }, 'what the algorithm does not own is the race’s');
  // … then the plain Perceptron: all three are the race's.
  await page.selectOption('#algo', 'perceptron');
  await page.waitForFunction(() => !document.body.dataset.race || document.body.dataset.race !== 'running');
  await page.click('#race');
  await page.waitForFunction(() => document.body.dataset.race === 'done', null, { timeout: 120000 });
  const standings = JSON.parse(await page.evaluate(() => document.body.dataset.standings));
  await page.click('#copy-link');
  const link = await page.evaluate(() => navigator.clipboard.readText());
  assert.ok(link.includes('#spec='), link);
  spec = JSON.parse(decodeURIComponent(link.slice(link.indexOf('#spec=') + '#spec='.length)));
  assert.equal(spec.paper, 'perceptron');
  assert.deepEqual(spec.algorithm, { kind: 'perceptron' });
  assert.deepEqual(spec.race, { epsilon: 0.02, delta: 0.05, gamma: 4 });

  const native = kplayRace(spec);
  assert.deepEqual(standings, native);
  assert.deepEqual(native.map((l) => l.algorithm), ['Perceptron', 'NKP', 'SNKP', 'NVN', 'SNKPVN', 'ISNKPVN']);
  for (const l of native.slice(3)) assert.deepEqual([l.status, l.verified], ['certificate', true], JSON.stringify(l));
  // The race's parameters are what decides: without them (ε = δ = 0.01, γ = 2) SNKPVN (δ) and
  // ISNKPVN (γ, ε) stop at other iterates (NVN's first iterates are already under both ε here).
  const { race, ...plain } = spec;
  const defaults = kplayRace(plain);
  for (const k of [4, 5]) assert.notDeepEqual(defaults[k], native[k], native[k].algorithm);

  // The link opened afresh shows the race's values in the fields.
  const again = await openPage(env.b, link);
  await again.page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60000 });
  const fields = await again.page.evaluate(() => ['epsilon', 'delta', 'gamma'].map((id) => document.getElementById(id).value));
  assert.deepEqual(fields, ['0.02', '0.05', '4']);
  assert.deepEqual(again.errors, []);
  await again.ctx.close();
  assert.deepEqual(errors, []);
  await ctx.close();
});
