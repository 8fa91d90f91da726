// A user's CSV file on every page (issue 11, item 3): picked with the file input, validated by the
// core with the same messages as `kplay`, never put into the link, and reproduced by `kplay run`
// on the page's link plus the file's `path`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, openPage, KPLAY } from './harness.mjs';

const env = useBrowser();
const dir = mkdtempSync(path.join(os.tmpdir(), 'kplay-csv-'));

function file(name, text) {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

// Two rings, +1 inside and −1 outside (2 features), and a sparse linear regression (6 features).
let rings = 'a,b,y\n';
for (let i = 0; i < 60; i++) {
  const t = (i / 60) * 2 * Math.PI;
  const r = i % 2 === 0 ? 0.5 : 1.5;
  rings += `${r * Math.cos(t)},${r * Math.sin(t)},${i % 2 === 0 ? 1 : -1}\n`;
}
let linear = 'x1,x2,x3,x4,x5,x6,y\n';
for (let i = 0; i < 40; i++) {
  const x = Array.from({ length: 6 }, (_, j) => Math.sin(1.7 * i + 2.3 * j + 0.1 * i * j));
  linear += `${x.join(',')},${2 * x[0] - x[3] + 0.01 * Math.cos(i)}\n`;
}
const RINGS = file('rings.csv', rings);
const LINEAR = file('linear.csv', linear);
const BAD = file('bad.csv', 'a,b,y\n0,1,1\n1,0,2\n2,2,-1\n');

async function loadAndCompare(pageFile, select, option, csv, done, field) {
  const { page, errors, ctx } = await openPage(env.b, `${env.url}${pageFile}`);
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60000 });
  const r0 = await page.evaluate(() => document.body.dataset.runId);
  await page.selectOption(select, option);
  await page.setInputFiles('#csv-file', csv);
  await page.waitForFunction((r) => document.body.dataset.runId !== r, r0);
  await page.waitForFunction(done, null, { timeout: 120000 });
  const run = JSON.parse(await page.evaluate(() => document.body.dataset.run));
  const spec = await page.evaluate(() => JSON.parse(decodeURIComponent(location.hash.slice('#spec='.length))));
  assert.equal(spec.data.kind, 'csv');
  assert.equal(spec.data.text, undefined, 'the link does not carry the file');
  spec.data.path = path.basename(csv);
  const specFile = file(`${pageFile}.json`, JSON.stringify(spec));
  const native = JSON.parse(execFileSync(KPLAY, ['run', specFile], { maxBuffer: 1 << 28 }).toString());
  assert.equal(native.data_digest, run.digest, 'the page read the same numbers');
  assert.equal(native.iterations, run.iterations);
  assert.equal(native[field], run.objective);
  assert.deepEqual(errors, []);
  return { page, ctx };
}

test('page C runs a CSV file (two rings, Gaussian kernel) as kplay does', async () => {
  const { ctx } = await loadAndCompare('dinuzzo.html', '#data-kind', 'csv', RINGS, () => ['converged', 'max_iterations'].includes(document.body.dataset.status), 'primal');
  await ctx.close();
});

test('page D runs a CSV file and refuses labels that are not ±1 with a message, then keeps working', async () => {
  const { page, ctx } = await loadAndCompare('perceptron.html', '#data', 'csv', RINGS, () => ['separator', 'certificate', 'max_iterations', 'cap'].includes(document.body.dataset.status) || document.body.dataset.status?.startsWith('iteration'), 'min_g_alpha');
  await page.setInputFiles('#csv-file', BAD);
  await page.waitForSelector('#error:not([hidden])');
  const msg = await page.locator('#error').innerText();
  assert.ok(msg.includes('+1 or −1'), msg);
  await page.setInputFiles('#csv-file', RINGS);
  await page.waitForSelector('#error', { state: 'hidden' });
  await ctx.close();
});

test('page A runs a CSV file (regression) as kplay does', async () => {
  const { ctx } = await loadAndCompare('lp.html', '#data-kind', 'csv', LINEAR, () => document.body.dataset.status === 'converged', 'primal');
  await ctx.close();
});

test('Save data (CSV) on every page writes what kplay gen writes for the page’s spec', async () => {
  for (const f of ['lp.html', 'mrlsr.html', 'dinuzzo.html', 'perceptron.html']) {
    const { page, errors, ctx } = await openPage(env.b, `${env.url}${f}`);
    await page.waitForFunction(() => document.body.dataset.ready === '1' && !!document.body.dataset.run, null, { timeout: 120000 });
    const [specDl] = await Promise.all([page.waitForEvent('download'), page.click('#save-spec')]);
    const specFile = path.join(dir, `${f}-spec.json`);
    await specDl.saveAs(specFile);
    const [dataDl] = await Promise.all([page.waitForEvent('download'), page.click('#save-data')]);
    const dataFile = path.join(dir, `${f}-data.csv`);
    await dataDl.saveAs(dataFile);
    const pageCsv = (await import('node:fs')).readFileSync(dataFile, 'utf8');
    const native = execFileSync(KPLAY, ['gen', specFile], { maxBuffer: 1 << 28 }).toString();
    assert.ok(pageCsv.length > 20, `${f}: empty data CSV`);
    assert.equal(pageCsv, native, `${f}: the page's data CSV differs from kplay gen`);
    assert.deepEqual(errors, []);
    await ctx.close();
  }
});
