// The page: translates form controls into an experiment spec, steps the wasm solver inside a
// per-frame time budget, and asks the wasm module to draw. No mathematics here.
import init, { Playground, defaultSpec, lpControlsLose, lossCatalogue, tensorKernelCatalogue, raceColors, specSchema } from './pkg/kernel_playground.js';
import { $, fmt, showError, clearError, sizeCanvas, specFromHash, startFromHash, writeHash as putHash, bumpRunId, exposeRun, losses, lossCaps, fillLossSelect, buildLossParamFields, showLossParams, tensorKernels, buildTensorKernelControls, showTensorKernelParams, attachCsvInput, readOrShow, attachCopyLink, renderRaceTable, statusWord, fmtMs, runStatus } from './common.js';
import { Player, FRAME_BUDGET_MS } from './player.js';
import { schemaForm, onSpecHash } from './state.js';
import { attachLessons } from './lesson.js';
import { attachExport } from './export.js';
import { attachExplanations } from './explain.js';
// The race lanes' colours (plots::style::RACE_COLORS), read once.
let colours;
const raceColours = () => (colours ??= JSON.parse(raceColors()));

let pg = null;
let player = null;
let last = null; // the last summary shown
let firstPlotMs = null;

function restarted() {
  bumpRunId();
}

// ---- spec <-> controls -------------------------------------------------------------------

function writeHash() {
  putHash(pg.specJson());
}

let csvData = null; // the CSV file the user loaded, { kind: 'csv', text }
let form = null; // the page's state and controls, bound from the core's schema (state.js)

/** Paper A's form from the core's schema (`specSchema('lp')`); the page's own part: a CSV
 *  file's text, p's readout and its snap to the tensor-kernel values, which fields show.
 *  The fields the page has no control for (the iteration cap, the linesearch's δ and θ, …)
 *  come from the spec shown. Built once the catalogue's parameter fields exist. */
function makeForm() {
  return schemaForm(specSchema('lp'), {
    lose: lpControlsLose,
    toExtra: (s) => {
      if (s.data.kind === 'csv' && s.data.text) csvData = s.data;
      showFields();
      $('p-out').textContent = Number(s.model.p).toFixed(4);
    },
    fromExtra: (s) => {
      if (s.data.kind === 'csv') s.data = csvData ?? { kind: 'csv' };
      // The slider's 1e-4 step cannot hold 4/3, 6/5, 8/7 exactly: snap to the tensor-kernel
      // values (q = 4, 6, 8) when the slider sits on one of them.
      for (const q of [4, 6, 8]) if (Math.abs(s.model.p - q / (q - 1)) < 1e-4) s.model.p = q / (q - 1);
    },
  });
}

function showFields() {
  const blobs = $('data-kind').value === 'two_blobs';
  const csv = $('data-kind').value === 'csv';
  $('blob-fields').hidden = !blobs;
  $('csv-label').hidden = !csv;
  for (const id of ['d', 'k', 'sigma']) $(id).closest('label').hidden = blobs || csv;
  for (const id of ['n', 'seed']) $(id).closest('label').hidden = csv;
  showLossParams($('loss').value);
  showTensorKernelParams($('kernel').value);
}

// ---- tensor build (module Web Worker) -------------------------------------------------------
// The worker (tensor-worker.js) builds the Gram tensor in its own wasm instance from the spec and
// transfers the values back; the page's Playground adopts them (refused unless they fit its
// spec). One build at a time: a new build, a new spec or Cancel terminates the running worker.

let current = null; // { worker, reject } of the running build

class Cancelled extends Error {
  constructor() { super('cancelled'); this.cancelled = true; }
}

/** Terminate the running build worker, if any; its promise rejects with Cancelled. */
function stopWorker() {
  if (!current) return false;
  const c = current;
  current = null;
  c.worker.terminate();
  c.reject(new Cancelled());
  return true;
}

/** Build the Gram tensor of `specJson` in a module worker; resolves to { values, build_ms, key, threads }. */
function buildTensor(specJson, onProgress) {
  stopWorker();
  const worker = new Worker(new URL('./tensor-worker.js', import.meta.url), { type: 'module' });
  return new Promise((resolve, reject) => {
    const me = { worker, reject };
    current = me;
    const end = () => { if (current === me) current = null; worker.terminate(); };
    worker.onmessage = (ev) => {
      if (current !== me) return; // a stale message from a cancelled build
      const m = ev.data;
      if (m.type === 'progress') onProgress(m);
      else if (m.type === 'done') { end(); resolve(m); }
      else if (m.type === 'error') { end(); const e = new Error(m.message); e.refused = m.stage === 'start'; reject(e); }
    };
    worker.onerror = (ev) => {
      ev.preventDefault();
      if (current !== me) return;
      end();
      reject(new Error(`the build worker stopped: ${ev.message || 'it could not start'}`));
    };
    worker.onmessageerror = () => {
      if (current !== me) return;
      end();
      reject(new Error('the build worker sent a message the page could not read'));
    };
    worker.postMessage({ spec: specJson });
  });
}

function showProgress(st) {
  $('build-progress').value = st.fraction;
  $('build-readout').textContent = `${st.done} / ${st.total} values, ${(st.build_ms / 1000).toFixed(2)} s`;
}

function showBuildBox() {
  let cost = null;
  try {
    cost = pg.tensorCost();
  } catch (e) {
    showError(e.message ?? String(e));
  }
  $('build-box').hidden = !cost;
  const built = Boolean(cost) && pg.hasTensor();
  if (cost) {
    $('tensor-cost').textContent = `Before the build: ${cost.text}.`;
    $('build-progress').value = built ? 1 : 0;
    $('build-readout').textContent = built ? 'built' : 'not built';
  }
  document.body.dataset.build = cost ? (built ? 'done' : 'needed') : 'none';
}

async function startBuild() {
  if (!pg || !pg.tensorKey()) return;
  const target = pg;
  clearError();
  document.body.dataset.build = 'building';
  $('build-progress').value = 0;
  $('build-readout').textContent = 'starting the build worker…';
  try {
    const m = await buildTensor(target.specJson(), showProgress);
    if (pg !== target) return;
    pg.adoptTensor(m.values, m.build_ms, m.key);
    document.body.dataset.build = 'done';
    document.body.dataset.buildMs = m.build_ms.toFixed(1);
    $('build-progress').value = 1;
    $('build-readout').textContent = `built: ${m.values.length} values in ${(m.build_ms / 1000).toFixed(2)} s${m.threads > 1 ? ` on ${m.threads} threads` : ''}`;
    restarted();
    setPlaying(true);
    showSummary(pg.summary());
    draw();
  } catch (e) {
    if (e.cancelled) return; // whoever cancelled set the state
    document.body.dataset.build = e.refused ? 'refused' : 'failed';
    $('build-readout').textContent = e.refused ? 'refused' : 'failed';
    showError(e.message ?? String(e));
  }
}

function cancelBuild() {
  stopPreset();
  if (stopWorker()) {
    $('build-readout').textContent = 'cancelled';
    document.body.dataset.build = 'cancelled';
  }
}

// ---- race ------------------------------------------------------------------------------------

let racing = false;

function raceFrame() {
  try {
    const st = pg.raceFor(FRAME_BUDGET_MS);
    if (st.phase === 'reference') {
      $('race-readout').textContent = `computing F* (dual Newton, iteration ${st.reference_iter})…`;
      return;
    }
    $('race-readout').textContent = `F* = ${fmt(st.f_star, 12)} (dual Newton, ${st.reference_iter} it.)`;
    renderRaceTable($('race-table'), st.lanes,
      [(l) => String(l.iterations), (l) => fmtMs(l.time_ms), (l) => fmt(l.rel_err, 2), (l) => statusWord(l.status)], raceColours());
    pg.drawRace($('race'), sizeCanvas($('race')));
    if (st.phase === 'done') {
      racing = false;
      document.body.dataset.race = 'done';
    }
  } catch (e) {
    racing = false;
    document.body.dataset.race = 'failed';
    showError(e.message ?? String(e));
  }
}

function startRace() {
  if (!pg) return;
  try {
    pg.startRace();
  } catch (e) {
    showError(e.message ?? String(e));
    return;
  }
  setPlaying(false);
  racing = true;
  document.body.dataset.race = 'running';
  pg.drawRace($('race'), sizeCanvas($('race')));
}

// ---- drawing -----------------------------------------------------------------------------

function draw() {
  if (!pg) return;
  try {
    const conv = $('conv');
    pg.drawConvergence(conv, sizeCanvas(conv));
    const sp = $('spikes');
    const thr = Number($('threshold').value);
    pg.drawSpikes(sp, sizeCanvas(sp), thr);
    const rec = pg.recovery(thr);
    $('recovery').textContent = rec.k > 0
      ? `top-${rec.k} of |w| recovers ${rec.recovered} of the ${rec.k} true features; ${rec.above} entries above τ`
      : `${rec.above} entries above τ`;
    drawPredictor();
    if (!racing) pg.drawRace($('race'), sizeCanvas($('race')));
    if (firstPlotMs === null) {
      firstPlotMs = performance.now();
      document.body.dataset.firstPlotMs = firstPlotMs.toFixed(1);
    }
  } catch (e) {
    showError(`drawing failed: ${e.message ?? e}`);
  }
}

function drawPredictor() {
  const c = $('predictor');
  const dim = pg.inputDim();
  const fig = c.closest('figure');
  const st = pg.summary();
  fig.hidden = !(dim === 1 || dim === 2) || st.phase !== 'solving';
  if (fig.hidden) return;
  const dpr = sizeCanvas(c);
  if (dim === 1) {
    pg.drawPredictor1d(c, dpr);
  } else {
    const w = Math.max(2, Math.round(c.width / 2));
    const h = Math.max(2, Math.round(c.height / 2));
    const rgba = pg.predictorImage(w, h);
    const img = new ImageData(new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.length), w, h);
    const off = new OffscreenCanvas(w, h);
    off.getContext('2d').putImageData(img, 0, 0);
    const ctx = c.getContext('2d');
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(off, 0, 0, c.width, c.height);
  }
}

function showSummary(s) {
  last = s;
  document.body.dataset.phase = s.phase;
  $('r-iter').textContent = s.iter;
  $('r-gap').textContent = fmt(s.gap);
  $('r-relgap').textContent = fmt(s.rel_gap);
  $('r-step').textContent = s.iter === 0 ? '–' : `${fmt(s.step)} (${s.backtracks} backtracks)`;
  $('r-primal').textContent = fmt(s.primal, 10);
  $('r-dual').textContent = fmt(s.dual, 10);
  $('r-status').textContent = s.phase === 'solving' ? runStatus(s.status, player ? player.playing : true, s.iter) : s.status.replace('_', ' ');
  $('r-time').textContent = s.iter === 0 ? '–' : fmt(s.elapsed_ms / s.iter, 2);
  $('r-digest').textContent = s.digest;
  exposeRun(s.iter, s.primal, s.digest);
  document.body.dataset.status = s.status;
}

function setPlaying(on) {
  player?.restarted(on);
}

// ---- actions -----------------------------------------------------------------------------
function apply() {
  const next = readOrShow(() => form.fromControls());
  if (!next) return;
  try {
    if (pg) pg.update(JSON.stringify(next));
    else pg = new Playground(JSON.stringify(next));
  } catch (e) {
    showError(e.message ?? String(e));
    return;
  }
  form.spec = next;
  stopWorker();
  stopPreset();
  restarted();
  clearError();
  writeHash();
  racing = false;
  showBuildBox();
  setPlaying(true);
  showSummary(pg.summary());
  draw();
}

/** The run as the shared player drives it (www/player.js). */
const engine = {
  step: () => pg.step(),
  runFor: (ms) => pg.runFor(ms),
  ended: () => !last || last.status !== 'running',
  endLabel: () => (last ? last.status.replace('_', ' ') : 'not started'),
  playingChanged: () => { if (last) showSummary(last); },
  ready: () => Boolean(pg) && !racing && last && last.phase === 'solving',
  reset: () => {
    pg.reset();
    restarted();
    showSummary(pg.summary());
    draw();
  },
  show: (s) => {
    showSummary(s);
    if (s.steps_this_call === undefined || s.steps_this_call > 0) draw();
  },
  tick: () => { if (pg && racing) raceFrame(); },
  error: (e) => showError(e.message ?? String(e)),
};

function wire() {
  $('p').addEventListener('input', () => {
    $('p-out').textContent = Number($('p').value).toFixed(4);
    apply();
  });
  const fields = ['n', 'd', 'k', 'sigma', 'seed', 'gamma', 'tol', 'separation', 'spread', 'flip', 'algorithm', 'path', 'kernel'].map($);
  for (const f of [...fields, ...document.querySelectorAll('[data-loss-param] input, [data-tensor-param] input')]) {
    f.addEventListener('change', () => { showFields(); apply(); });
  }
  $('loss').addEventListener('change', () => {
    // A classification loss needs ±1 labels: switch to the 2-D blobs; and back for regression.
    // The rules read the core's loss capabilities (src/losses/), not a list of names.
    const caps = lossCaps($('loss').value);
    if (caps.classification && $('data-kind').value !== 'two_blobs') { $('data-kind').value = 'two_blobs'; $('n').value = 100; }
    if (!caps.classification && $('data-kind').value === 'two_blobs') $('data-kind').value = 'sparse_regression';
    if (!caps.square && ['dual_gradient', 'primal_gd', 'fista'].includes($('algorithm').value)) $('algorithm').value = 'prox_dual';
    if (!caps.smooth_dual && $('algorithm').value === 'dual_newton') $('algorithm').value = 'prox_dual';
    showFields();
    apply();
  });
  $('data-kind').addEventListener('change', () => { showFields(); apply(); });
  attachCsvInput($('csv-file'), null, (text) => {
    csvData = { kind: 'csv', text };
    $('data-kind').value = 'csv';
    showFields();
    apply();
  });
  $('threshold').addEventListener('input', () => {
    $('thr-out').textContent = Number($('threshold').value).toFixed(2);
    draw();
  });
  $('build').addEventListener('click', startBuild);
  $('cancel').addEventListener('click', cancelBuild);
  $('race-start').addEventListener('click', startRace);
  $('preset-cancel').addEventListener('click', stopPreset);
  for (const [id, fn] of Object.entries(PRESET_DEFS)) $(id).addEventListener('click', () => runPreset(fn));
  for (const b of document.querySelectorAll('.marks button')) {
    b.addEventListener('click', () => {
      $('p').value = b.dataset.p;
      $('p-out').textContent = Number(b.dataset.p).toFixed(4);
      apply();
    });
  }
  attachCopyLink($('copy-link'));
  window.addEventListener('resize', draw);
  onSpecHash(() => {
    try {
      const s = specFromHash();
      if (!s) return;
      const fresh = playgroundFor(s, form.spec);
      stopWorker();
      stopPreset();
      pg = fresh;
      form.spec = s;
      showBuildBox();
      restarted();
      clearError();
      showSummary(pg.summary());
      setPlaying(true);
      draw();
    } catch (e) {
      showError(`The link's experiment could not be used: ${e.message ?? e}`);
    }
  });
}

/** A new Playground for `s`, its spec put into the controls; throws (the controls keep showing
 *  `current`) when the spec is invalid or the controls cannot hold it. */
function playgroundFor(s, current) {
  const fresh = new Playground(JSON.stringify(s));
  try {
    form.show(s, current);
  } catch (e) {
    fresh.free();
    throw e;
  }
  return fresh;
}

/** Make `s` the page's run, paused at iteration 0 (a lesson step); throws (the current run and
 *  its controls stay) when the spec is invalid or the controls cannot hold it. */
function loadSpec(s) {
  const fresh = playgroundFor(s, form.spec);
  stopWorker();
  stopPreset();
  if (pg) pg.free();
  pg = fresh;
  form.spec = s;
  racing = false;
  delete document.body.dataset.race;
  renderRaceTable($('race-table'), [], []);
  showBuildBox();
  restarted();
  clearError();
  showSummary(pg.summary());
  setPlaying(false);
  draw();
}

async function main() {
  await init({ module_or_path: new URL('./pkg/kernel_playground_lp_bg.wasm', import.meta.url) });
  losses(lossCatalogue);
  fillLossSelect($('loss'), (c) => (c.classification ? `${c.label} (±1)` : c.label));
  buildLossParamFields($('loss').closest('label'));
  tensorKernels(tensorKernelCatalogue);
  buildTensorKernelControls($('kernel'), $('kernel').closest('label'));
  form = makeForm();
  ({ state: pg, spec: form.spec } = startFromHash((s) => playgroundFor(s, null), JSON.parse(defaultSpec())));
  // A large link's data (up to 10⁶ values) took a task of its own: draw in the next one, so
  // neither blocks the page for long (issue 13).
  await new Promise((resolve) => setTimeout(resolve, 0));
  form.toControls(form.spec);
  showBuildBox();
  restarted();
  writeHash(); // the live state is in the URL from the start (Copy link, kplay)
  wire();
  showSummary(pg.summary());
  draw();
  // The default run takes 63 iterations: 15/s lets a class watch it for ~4 s.
  player = new Player(engine, { speed: 15 });
  attachExplanations('a');
  attachExport({
    spec: () => pg.specJson(),
    run: () => ({ spec: JSON.parse(pg.specJson()), summary: pg.summary(), trace: pg.trace(), solution: { w: Array.from(pg.w()) } }),
  });
  attachLessons({ spec: () => pg.specJson(), load: loadSpec, player, actions: { race: startRace, build: startBuild } }, 'a');
  document.body.dataset.ready = '1';
}

main().catch((e) => showError(`The page could not start: ${e.message ?? e}`));

// ---- paper presets ---------------------------------------------------------------------------
// Each preset is a list of jobs (one spec each) run one after another in one module Web Worker
// (run-worker.js: data, Gram tensor, solve, in the worker's own wasm instance; a job reuses the
// previous job's data and tensor when they fit), with the paper's figure beside ours. Only
// numbers come back; the table fills in as jobs finish. Cancel, a new preset or a change of the
// page's experiment terminates the worker.

const sparse = (n, d, k, seed = 1) => ({ kind: 'sparse_regression', n, d, k, sigma: 0.05, seed });
const model = (p, extra = {}) => ({ problem: 'lp_regression', p, gamma: 10, ...extra });

function table1(n, d, label, paperScale = false) {
  // The paper's Table 1 (as printed): dual GD + linesearch 12(5), 15(4), 63(22), 258(55);
  // primal GD > 5000 for all; FISTA 1158 (4/3), 1542 (5/4).
  const ps = [[4 / 3, '4/3', '12(5)', '1158'], [5 / 4, '5/4', '15(4)', '1542'], [1.1, '1.1', '63(22)', '–'], [1.05, '1.05', '258(55)', '–']];
  const algs = (p) => (p >= 1.2 ? ['dual_gradient', 'dual_newton', 'fista', 'primal_gd'] : ['dual_gradient', 'dual_newton']);
  const paperOf = (alg, dual, fista) => ({ dual_gradient: dual, dual_newton: '– (not in the paper)', fista, primal_gd: '> 5000' })[alg];
  const skip = 'skipped at paper scale: > 5000 iterations of ~0.1 s each (native figures: docs/paper-a.md)';
  return {
    title: `Table 1 (${label})`,
    head: ['p', 'algorithm', 'iterations', 'solve (s)', 'rel. gap', 'F(w)', 'paper: iterations'],
    note: `Relative precision = relative duality gap (F(w) + Λ(α))/F(w) ≤ 1e-8 (for the primal methods α = γ(y − Xw)), a certified bound on (F − F*)/F. ` +
      `n = ${n}, d = ${d}${d < 100000 ? ' (the paper uses d = 100 000: see “Table 1 at paper scale”)' : ' as in the paper; the data (200 × 100 000) are generated once in the worker and shared by all jobs'}, 10 relevant, σ = 0.05, γ = 10; iteration cap 5000. ` +
      (paperScale ? 'Primal GD and FISTA are skipped at this scale (over 5000 iterations of about 0.1 s each); their native figures are in docs/paper-a.md. ' : '') +
      'The paper does not define its relative precision, so counts are not directly comparable.',
    jobs: ps.flatMap(([p, pl, dual, fista]) => algs(p).map((alg) => ({
      row: [pl, alg], paper: paperOf(alg, dual, fista),
      skip: paperScale && ['fista', 'primal_gd'].includes(alg) ? skip : undefined,
      spec: { data: sparse(n, d, 10), model: model(p), solver: { algorithm: alg, tol: 1e-8, max_iter: 5000 } },
    }))),
  };
}

const PRESET_DEFS = {
  'preset-table1': () => table1(200, 10000, 'page scale'),
  'preset-table1-paper': () => table1(200, 100000, 'paper scale', true),
  'preset-small': () => table1(40, 300, 'small'),
  'preset-table2': () => {
    const data = sparse(90, 650, 6);
    const kern = { kernel: { kind: 'polynomial', degree: 2 } };
    return {
      title: 'Table 2: q = 4, polynomial degree 2, n = 90, d = 650 (N = 211 575 features)',
      head: ['path', 'algorithm', 'iterations', 'build (s)', 'solve (s)', 'rel. gap', 'F(w)', 'paper'],
      note: 'Paper: Gram-tensor build 2.73 s, solve with the tensor 2.49 s (29 iterations), without the tensor 9.87 s (28 iterations). ' +
        'Relative precision: relative duality gap ≤ 1e-8. The second tensor job reuses the first one’s tensor; the features job’s build column is the feature-matrix (data) time.',
      jobs: [
        { row: ['tensor', 'prox_dual'], paper: 'build 2.73 s, solve 2.49 s, 29 it.', spec: { data, model: model(4 / 3, { ...kern, path: 'tensor' }), solver: { algorithm: 'prox_dual', tol: 1e-8, max_iter: 5000 } } },
        { row: ['tensor', 'dual_newton'], paper: '–', spec: { data, model: model(4 / 3, { ...kern, path: 'tensor' }), solver: { algorithm: 'dual_newton', tol: 1e-8 } } },
        { row: ['features', 'dual_gradient'], paper: 'solve 9.87 s, 28 it.', spec: { data, model: model(4 / 3, kern), solver: { algorithm: 'dual_gradient', tol: 1e-8, max_iter: 5000 } } },
      ],
    };
  },
  'preset-figure1': () => ({
    title: 'Figure 1: linear tensor kernel, p = 4/3, n = 85, d = 1500, 6 relevant',
    head: ['path', 'algorithm', 'iterations', 'build (s)', 'solve (s)', 'rel. gap', 'F(w)', 'paper'],
    note: 'After the run in the worker, the experiment becomes the page\'s (its Gram tensor is handed over) and the spikes plot above shows the recovered w = J_q(Xᵀα) against w*; the paper\'s Figure 1 recovers all 6 spikes.',
    jobs: [{ row: ['tensor', 'prox_dual'], paper: 'all 6 spikes recovered', show: true,
      spec: { data: sparse(85, 1500, 6), model: model(4 / 3, { path: 'tensor' }), solver: { algorithm: 'prox_dual', tol: 1e-8, max_iter: 5000 } } }],
  }),
};

let preset = null; // { worker, reject } of the running preset

/** Terminate the running preset's worker, if any; its pending job rejects with Cancelled. */
function stopPreset() {
  if (!preset) return false;
  const p = preset;
  preset = null;
  p.worker.terminate();
  p.reject?.(new Cancelled());
  $('preset-status').textContent = 'cancelled';
  document.body.dataset.preset = 'cancelled';
  $('preset-cancel').disabled = true;
  return true;
}

/** Run one job in the preset's worker; resolves to its final state (numbers only). */
function runJobInWorker(p, job, index, onProgress) {
  return new Promise((resolve, reject) => {
    p.reject = reject;
    p.worker.onmessage = (ev) => {
      const m = ev.data;
      if (preset !== p || m.index !== index) return; // stale: a cancelled preset or job
      if (m.type === 'progress') onProgress(m);
      else if (m.type === 'row') resolve(m);
      else if (m.type === 'error') reject(new Error(m.message));
    };
    p.worker.onerror = (ev) => {
      ev.preventDefault();
      if (preset === p) reject(new Error(`the preset worker stopped: ${ev.message || 'it could not start'}`));
    };
    p.worker.onmessageerror = () => { if (preset === p) reject(new Error('the preset worker sent a message the page could not read')); };
    p.worker.postMessage({ spec: JSON.stringify(job.spec), index, wantTensor: Boolean(job.show) });
  });
}

const secs = (ms) => (ms / 1000).toFixed(3);

function phaseText(m) {
  if (m.phase === 'data') return 'generating the data';
  if (m.phase === 'build') return `building the Gram tensor: ${(100 * m.build_fraction).toFixed(0)} %`;
  return `iteration ${m.iter}, relative gap ${fmt(m.rel_gap, 2)}`;
}

/** The job's share done, for the progress bar: build first half, solve second (by log gap). */
function jobFraction(m, tol) {
  if (m.phase === 'data') return 0;
  const build = m.tensor_path ? 0.5 : 0;
  if (m.phase === 'build') return build * m.build_fraction;
  if (m.phase === 'done') return 1;
  const g = m.rel_gap > 0 && Number.isFinite(m.rel_gap) ? Math.min(1, Math.max(0, Math.log(m.rel_gap) / Math.log(tol))) : 0;
  return build + (1 - build) * g;
}

/** The finished row's cells after the row label: iterations, [build], solve, rel. gap, F(w). */
function resultCells(m, withBuild) {
  const it = `${m.iter}${m.status === 'converged' ? '' : ` (${m.status.replace('_', ' ')})`}`;
  const build = m.tensor_path ? (m.tensor_reused ? 'reused' : secs(m.build_ms)) : `${secs(m.data_ms)} (data + features)`;
  return [it, ...(withBuild ? [build] : []), secs(m.solve_ms), fmt(m.rel_gap, 2), fmt(m.primal, 10)];
}

async function runPreset(defFn) {
  const def = defFn();
  stopPreset();
  stopWorker();
  setPlaying(false);
  racing = false;
  const p = { worker: new Worker(new URL('./run-worker.js', import.meta.url), { type: 'module' }), reject: null };
  preset = p;
  $('preset-box').hidden = false;
  $('preset-cancel').disabled = false;
  $('preset-progress').value = 0;
  $('preset-title').textContent = def.title;
  $('preset-note').textContent = def.note;
  const thead = $('preset-table').querySelector('thead');
  const tbody = $('preset-table').querySelector('tbody');
  thead.innerHTML = '';
  tbody.innerHTML = '';
  const hr = document.createElement('tr');
  for (const h of def.head) { const th = document.createElement('th'); th.textContent = h; hr.appendChild(th); }
  thead.appendChild(hr);
  const withBuild = def.head.includes('build (s)');
  const nres = def.head.length - 3;
  document.body.dataset.preset = 'running';
  $('preset-status').textContent = 'starting the worker…';
  clearError();
  const jobs = def.jobs;
  let current = null;
  try {
    for (const [index, job] of jobs.entries()) {
      const tr = document.createElement('tr');
      const cells = [...job.row, ...(job.skip ? [job.skip, ...Array(nres - 1).fill('')] : ['…', ...Array(nres - 1).fill('')]), job.paper];
      for (const c of cells) { const td = document.createElement('td'); td.textContent = c; tr.appendChild(td); }
      if (job.skip) tr.dataset.skipped = '1';
      tbody.appendChild(tr);
      if (job.skip) continue;
      current = tr;
      const tol = job.spec.solver?.tol ?? 1e-10;
      const m = await runJobInWorker(p, job, index, (st) => {
        $('preset-status').textContent = `${job.row.join(' ')}: ${phaseText(st)}`;
        tr.children[job.row.length].textContent = st.phase === 'solve' ? String(st.iter) : '…';
        $('preset-progress').value = (index + jobFraction(st, tol)) / jobs.length;
      });
      resultCells(m, withBuild).forEach((v, i) => { tr.children[job.row.length + i].textContent = v; });
      tr.dataset.done = '1';
      current = null;
      $('preset-progress').value = (index + 1) / jobs.length;
      if (job.show) showJobOnPage(job, m);
    }
    preset = null;
    p.worker.terminate();
    $('preset-status').textContent = 'done';
    $('preset-cancel').disabled = true;
    document.body.dataset.preset = 'done';
  } catch (e) {
    if (e.cancelled) return; // stopPreset set the status
    if (preset === p) { preset = null; p.worker.terminate(); }
    const msg = e.message ?? String(e);
    if (current) current.children[2].textContent = 'error';
    $('preset-status').textContent = `failed: ${msg}`;
    $('preset-cancel').disabled = true;
    document.body.dataset.preset = 'failed';
    showError(msg);
  }
}

/** Make a finished job the page's experiment (Figure 1: the spikes plot shows it), adopting the
 *  Gram tensor the worker built; the page then solves it the normal way, inside the frame budget. */
function showJobOnPage(job, m) {
  const next = new Playground(JSON.stringify(job.spec));
  try {
    if (m.values && m.key) next.adoptTensor(m.values, m.build_ms, m.key);
  } catch (e) {
    next.free();
    throw e;
  }
  if (pg) pg.free();
  pg = next;
  form.spec = job.spec;
  form.toControls(form.spec);
  writeHash();
  restarted();
  showBuildBox();
  if (pg.hasTensor()) {
    document.body.dataset.build = 'done';
    $('build-readout').textContent = `built in the preset worker: ${m.values.length} values in ${(m.build_ms / 1000).toFixed(2)} s`;
  }
  setPlaying(true);
  showSummary(pg.summary());
  draw();
}

// For the end-to-end tests (a job no preset contains, e.g. one that fails): run a preset
// definition { title, head, note, jobs: [{ row, paper, spec }] }.
window.kplayRunPreset = (def) => runPreset(() => def);
