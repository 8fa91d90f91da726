// Paper C's large problem prepared in a worker on every core (issue 21 §3): on a cross-origin
// isolated page (tools/serve.py, as `make serve`) with 2 cores or more, www/prep-worker.js
// computes the Gram matrix, ‖K‖₂ and the map's kernel values on the threaded build and the page
// adopts them; without isolation (python3 -m http.server) the page prepares in slices. Both give
// the same run, bit for bit, and kplay's. A spec changed while the worker works ignores its
// answer; a worker that fails leaves the page to its slices. No test checks time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBothServers, runPrepared, preparedBothWays, seedChangedWhilePreparing, kplayLink, BROKEN_PREP_WORKER } from './harness.mjs';

const env = useBothServers();

// The page's largest n (its budget's kernel limit), the fixed point with α = 1/‖K‖₂ (so ‖K‖₂ is part of the preparation).
const SPEC = {
  data: { kind: 'classification', shape: { kind: 'moons', noise: 0.15 }, n: 2000, label_noise: 0.05, seed: 1 }, loss: { kind: 'hinge' }, lambda: 0.1,
  kernel: { kind: 'gaussian', bandwidth: { fixed: 0.5 } }, method: { kind: 'fixed_point', step: { kind: 'inverse_norm' }, tol: 1e-8, max_sweeps: 40 }, race: false,
};
const ended = () => ['max_iterations', 'converged'].includes(document.body.dataset.status);

const runAt = (url, spec, init) => runPrepared(env.b, url, 'dinuzzo.html', spec, ended, init);

test('page C at n = 2000: prepared in a worker on threads (isolated) or in slices (plain), the same run bit for bit, and kplay\'s', async () => {
  const iso = await preparedBothWays(env, 'dinuzzo.html', SPEC, ended);
  const native = kplayLink(iso.link);
  assert.equal(native.data_digest, iso.run.digest);
  assert.equal(native.iterations, iso.run.iterations);
  assert.equal(native.primal, iso.run.objective);
});

test('a spec changed while the worker prepares: the stale answer is ignored, the new spec runs as kplay does', async () => {
  const { run, link, worker, cores, errors } = await seedChangedWhilePreparing(env, 'dinuzzo.html', SPEC, ended);
  assert.equal(JSON.parse(link).data.seed, 2);
  assert.equal(worker, String(Math.min(8, cores)), 'the new spec\'s preparation adopted from its worker');
  const native = kplayLink(link);
  assert.equal(native.data_digest, run.digest);
  assert.equal(native.iterations, run.iterations);
  assert.equal(native.primal, run.objective);
  assert.deepEqual(errors, []);
});

test('a worker that fails: the page prepares in slices and gives the same run', async () => {
  const broken = await runAt(env.isolated.url, SPEC, BROKEN_PREP_WORKER);
  assert.equal(broken.isolated, true);
  assert.equal(broken.worker, 'slices', 'the failure seen, the slices took over');
  const native = kplayLink(broken.link);
  assert.equal(native.data_digest, broken.run.digest);
  assert.equal(native.iterations, broken.run.iterations);
  assert.equal(native.primal, broken.run.objective);
  // A missing script is a 404 the browser logs itself; the page logs no error of its own.
  assert.deepEqual(broken.errors.filter((e) => !/404|Failed to load/.test(e)), []);
  await broken.ctx.close();
});
