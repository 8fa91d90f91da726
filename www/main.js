// The page: translates form controls into an experiment spec, steps the wasm solver inside a
// per-frame time budget, and asks the wasm module to draw. No mathematics here.
import init, { Playground, defaultSpec } from './pkg/kernel_playground.js';
import { $, fmt, showError, clearError, sizeCanvas, readNumber, specFromHash, writeHash as putHash, bumpRunId } from './common.js';

const FRAME_BUDGET_MS = 12;
let pg = null;
let playing = true;
let spec = null;
let firstPlotMs = null;

function restarted() {
  bumpRunId();
}

// ---- spec <-> controls -------------------------------------------------------------------

function writeHash() {
  putHash(pg.specJson());
}

function specFromControls() {
  const s = structuredClone(spec);
  if (s.data.kind === 'sparse_regression') {
    s.data.n = readNumber('n', 'n');
    s.data.d = readNumber('d', 'd');
    s.data.k = readNumber('k', 'k');
    s.data.sigma = readNumber('sigma', 'σ');
    s.data.seed = readNumber('seed', 'seed');
  }
  s.model.p = readNumber('p', 'p');
  s.model.gamma = readNumber('gamma', 'γ');
  s.solver = s.solver || {};
  s.solver.tol = readNumber('tol', 'tolerance');
  return s;
}

function controlsFromSpec(s) {
  if (s.data.kind === 'sparse_regression') {
    for (const key of ['n', 'd', 'k', 'sigma', 'seed']) $(key).value = s.data[key];
  }
  $('p').value = s.model.p;
  $('p-out').textContent = Number(s.model.p).toFixed(4);
  $('gamma').value = s.model.gamma;
  $('tol').value = (s.solver && s.solver.tol) ?? 1e-10;
}



// ---- drawing -----------------------------------------------------------------------------

function draw() {
  if (!pg) return;
  try {
    const conv = $('conv');
    pg.drawConvergence(conv, sizeCanvas(conv));
    const sp = $('spikes');
    pg.drawSpikes(sp, sizeCanvas(sp));
    if (firstPlotMs === null) {
      firstPlotMs = performance.now();
      document.body.dataset.firstPlotMs = firstPlotMs.toFixed(1);
    }
  } catch (e) {
    showError(`drawing failed: ${e.message ?? e}`);
  }
}

function showSummary(s) {
  $('r-iter').textContent = s.iter;
  $('r-gap').textContent = fmt(s.gap);
  $('r-relgap').textContent = fmt(s.rel_gap);
  $('r-step').textContent = s.iter === 0 ? '–' : `${fmt(s.step)} (${s.backtracks} backtracks)`;
  $('r-primal').textContent = fmt(s.primal, 10);
  $('r-dual').textContent = fmt(s.dual, 10);
  $('r-status').textContent = s.status.replace('_', ' ');
  $('r-time').textContent = s.iter === 0 ? '–' : fmt(s.elapsed_ms / s.iter, 2);
  $('r-digest').textContent = s.digest;
  document.body.dataset.status = s.status;
}

function setPlaying(on) {
  playing = on;
  $('play').textContent = on ? 'Pause' : 'Play';
}

// ---- actions -----------------------------------------------------------------------------
function apply() {
  let next;
  try {
    next = specFromControls();
  } catch (e) {
    showError(e.message);
    return;
  }
  try {
    if (pg) pg.update(JSON.stringify(next));
    else pg = new Playground(JSON.stringify(next));
  } catch (e) {
    showError(e.message ?? String(e));
    return;
  }
  spec = next;
  restarted();
  clearError();
  writeHash();
  setPlaying(true);
  showSummary(pg.summary());
  draw();
}

function frame() {
  if (pg && playing) {
    try {
      const s = pg.runFor(FRAME_BUDGET_MS);
      if (s.steps_this_call > 0) draw();
      showSummary(s);
      if (s.status !== 'running') setPlaying(false);
    } catch (e) {
      showError(e.message ?? String(e));
      setPlaying(false);
    }
  }
  requestAnimationFrame(frame);
}

function wire() {
  $('p').addEventListener('input', () => {
    $('p-out').textContent = Number($('p').value).toFixed(4);
    apply();
  });
  for (const id of ['n', 'd', 'k', 'sigma', 'seed', 'gamma', 'tol']) $(id).addEventListener('change', apply);
  for (const b of document.querySelectorAll('.marks button')) {
    b.addEventListener('click', () => {
      $('p').value = b.dataset.p;
      $('p-out').textContent = Number(b.dataset.p).toFixed(4);
      apply();
    });
  }
  $('play').addEventListener('click', () => {
    if (!pg) return;
    if (!playing && pg.summary().status !== 'running') pg.reset();
    setPlaying(!playing);
  });
  $('step').addEventListener('click', () => {
    if (!pg) return;
    setPlaying(false);
    try {
      showSummary(pg.step());
      draw();
    } catch (e) {
      showError(e.message ?? String(e));
    }
  });
  // Reset restarts from α = 0 and keeps the play/pause state, so a paused class can step
  // through the first iterations.
  $('reset').addEventListener('click', () => {
    if (!pg) return;
    pg.reset();
    restarted();
    showSummary(pg.summary());
    draw();
  });
  $('copy-link').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(location.href);
    } catch {
      showError('Copying is not allowed here; copy the address bar instead.');
    }
  });
  window.addEventListener('resize', draw);
  window.addEventListener('hashchange', () => {
    try {
      const s = specFromHash();
      if (!s) return;
      const fresh = new Playground(JSON.stringify(s));
      pg = fresh;
      spec = s;
      controlsFromSpec(spec);
      restarted();
      clearError();
      setPlaying(true);
      draw();
    } catch (e) {
      showError(`The link's experiment could not be used: ${e.message ?? e}`);
    }
  });
}

async function main() {
  await init();
  spec = JSON.parse(defaultSpec());
  let fromHash = null;
  try {
    fromHash = specFromHash();
  } catch (e) {
    showError(`The link's experiment could not be read (${e.message}); showing the default experiment.`);
  }
  if (fromHash) {
    try {
      pg = new Playground(JSON.stringify(fromHash));
      spec = fromHash;
    } catch (e) {
      showError(`The link's experiment is not valid: ${e.message ?? e}. Showing the default experiment.`);
    }
  }
  if (!pg) pg = new Playground(JSON.stringify(spec));
  controlsFromSpec(spec);
  restarted();
  wire();
  showSummary(pg.summary());
  draw();
  document.body.dataset.ready = '1';
  requestAnimationFrame(frame);
}

main().catch((e) => showError(`The page could not start: ${e.message ?? e}`));
