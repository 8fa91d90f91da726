// Paper D's large data set prepared in a worker on every core (issue 21 §3): on a cross-origin
// isolated page (tools/serve.py, as `make serve`) with 2 cores or more, www/prep-worker.js
// computes the kernel matrix behind G on the threaded build and the page adopts it, then
// computes ρ_K in slices; without isolation (python3 -m http.server) the page prepares all of
// it in slices. Both give the same run, bit for bit, and kplay's. A spec changed while the
// worker works ignores its answer; a worker that fails leaves the page to its slices. No test
// checks time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBothServers, runPrepared, preparedBothWays, seedChangedWhilePreparing, kplayLink, BROKEN_PREP_WORKER } from './harness.mjs';

const env = useBothServers();

// 2000 points (the page's budget allows n ≤ 2000 for a kernel matrix): SNKP to its separator.
const SPEC = {
  paper: 'perceptron',
  data: { kind: 'generated', set: { shape: { kind: 'blobs', margin: 0.3, spread: 0.5 }, n: 2000, label_noise: 0, seed: 1 } },
  kernel: { kind: 'gaussian', bandwidth: { fixed: 0.5 } }, algorithm: { kind: 'snkp' }, max_iter: 100000,
};
const ended = () => ['separator', 'certificate', 'cap'].includes(document.body.dataset.status);
const runAt = (url, spec, init) => runPrepared(env.b, url, 'perceptron.html', spec, ended, init);

/** The page's run is kplay's: digest, iterations, min_i (Gα)_i's bits. */
function sameAsKplay(r) {
  const native = kplayLink(r.link);
  assert.equal(native.data_digest, r.run.digest);
  assert.equal(native.iterations, r.run.iterations);
  assert.equal(native.min_g_alpha, r.run.objective);
  assert.equal(native.status, 'separator');
}

test('page D at n = 2000: the kernel matrix from a worker on threads (isolated) or in slices (plain), the same run bit for bit, and kplay\'s', async () => {
  sameAsKplay(await preparedBothWays(env, 'perceptron.html', SPEC, ended));
});

test('page D: a spec changed while the worker prepares: the stale answer is ignored, the new spec runs as kplay does', async () => {
  const { run, link, worker, cores, errors } = await seedChangedWhilePreparing(env, 'perceptron.html', SPEC, ended);
  assert.equal(JSON.parse(link).data.set.seed, 2);
  assert.equal(worker, String(Math.min(8, cores)), 'the new spec\'s matrix and search adopted from its worker');
  sameAsKplay({ run, link });
  assert.deepEqual(errors, []);
});

test('page D: a worker that fails: the page prepares in slices and gives the same run', async () => {
  const broken = await runAt(env.isolated.url, SPEC, BROKEN_PREP_WORKER);
  assert.equal(broken.isolated, true);
  assert.equal(broken.worker, 'slices', 'the failure seen, the slices took over');
  sameAsKplay(broken);
  // A missing script is a 404 the browser logs itself; the page logs no error of its own.
  assert.deepEqual(broken.errors.filter((e) => !/404|Failed to load/.test(e)), []);
  await broken.ctx.close();
});
