// Page B's readouts, panels and per-frame work that hold no form state (split from mrlsr.js):
// the status line, the fit's readouts, the equivalence experiment's table and plots, §4's
// n-scans, the eigendecomposition's time estimate and busy box, the module Worker's jobs, and
// the core tasks the Player's frame budget advances (engine.tick). No mathematics here.
import { MrlsrNScan, drawCvHeatmap, drawEquivalenceReport } from './pkg/kernel_playground.js';
import { $, fmt, num, showError, clearError, sizeCanvas, exposeRun } from './common.js';

// Seconds of Gram matrix + eigendecomposition measured in the worker (headless Chromium,
// release wasm; docs/mrlsr.md), interpolated log-log for the "about X s" estimate and scaled
// by what this machine showed last (a result with n ≥ 300 updates `eigenScale`).
const EIGEN_TABLE = [[500, 1.3], [1000, 3.9], [2000, 55]];
let eigenScale = 1;
const body = document.body;

export function setStatus(msg, busy = false) {
  $('status').textContent = msg;
  body.dataset.busy = busy ? '1' : '0';
}

export function bump(key) {
  body.dataset[key] = String(Number(body.dataset[key] || 0) + 1);
}

// ---- readouts and drawing ------------------------------------------------------------------

export function showSummary(s, dropped) {
  $('r-nd').textContent = `${s.n} × ${s.d}`;
  $('r-c0').textContent = s.c0 == null ? 'none (f = 0)' : fmt(s.c0, 6);
  // The full values for a script (the root search's end is compared with them).
  if (s.c0 == null) delete $('r-c0').dataset.value;
  else $('r-c0').dataset.value = String(s.c0);
  $('r-norm').textContent = fmt(s.norm_h, 6);
  // λ₂ and F's residual are often below 10⁻³: written as the plots write numbers (5.5 × 10⁻⁴,
  // not 5.502441e-4), the full value kept in data-value for a script.
  for (const [id, v] of [['r-lambda2', s.lambda2], ['r-fres', s.f_residual]]) {
    $(id).textContent = v == null ? '–' : num(v);
    if (v == null) delete $(id).dataset.value;
    else $(id).dataset.value = String(v);
  }
  $('r-obj').textContent = fmt(s.objective, 8);
  $('r-iters').textContent = String(s.iterations);
  exposeRun(s.iterations, s.objective, s.digest);
  $('r-refit').textContent = `${s.refit_ms.toFixed(2)} ms`;
  $('r-eigen').textContent = `${s.eigen_ms.toFixed(1)} ms in the worker (n = ${s.n})`;
  const out = $('outside');
  if (s.kind === 'outside') {
    const roots = s.roots.length === 0 ? 'F has no positive root.'
      : `Roots of F: ${s.roots.map((r, i) => `C = ${fmt(r.c, 4)} (${r.kind.replace('_', ' ')}${s.minimizer === i ? ', minimizer' : ''})`).join('; ')}.`;
    out.textContent = `Outside Theorem 1 (m ≤ 1: not strictly convex, F may have no root). ${s.message} ${roots}`;
    out.dataset.roots = JSON.stringify(s.roots.map((r) => r.c));
    out.hidden = false;
  } else {
    out.hidden = true;
    out.textContent = '';
  }
  // A numerically singular K is expected for a smooth kernel on many points (its eigenvalues
  // decay fast) and the fit is still the unique minimizer: a note, not an alarm.
  const w = $('warning');
  const singular = Boolean(s.warning) && s.warning.startsWith('K is numerically singular');
  w.hidden = !s.warning;
  w.classList.toggle('info', singular);
  w.setAttribute('role', singular ? 'note' : 'alert');
  w.textContent = !s.warning ? ''
    : singular ? `Note (expected for a smooth kernel such as the Gaussian on ${s.n} points, whose eigenvalues decay fast): ${s.warning}`
      : `Warning: ${s.warning}`;
  body.dataset.kind = s.kind;
  $('fit-caption').textContent = (s.d === 1
    ? 'Data (grey), M-RLSR at (m, λ) (red) and kernel ridge at λ₂ (blue).'
    : `Fitted values against the true y on the ${s.n} training points (${s.d} features): M-RLSR (red dots) and KRR at λ₂ (blue circles).`)
    + (dropped === undefined ? '' : ` Black ring: point ${dropped} of the generated sample (counting from 0), left out of the data (not fitted).`);
}

/** The equivalence experiment's last report (null before the first), redrawn at every size
 *  change; before it the two plots are blank at their boxes' sizes (issue 32: a backing store
 *  always of its box's aspect). */
let lastEq = null;
export function drawEq() {
  const b = $('eq-bars');
  const c = $('eq-curves');
  const dpr = sizeCanvas(b);
  sizeCanvas(c);
  if (lastEq) drawEquivalenceReport(b, c, lastEq, dpr);
  else for (const k of [b, c]) k.getContext('2d')?.clearRect(0, 0, k.width, k.height);
}

// ---- §4's stability scans against n (lesson B10, B11) --------------------------------------
// A step that names `nscan-stability` or `nscan-lambda2` runs that scan in the core after its
// sweep (MrlsrNScan: one removal per unit, sliced over frames), then shows and draws it in the
// fit plot's place; a new step (or its run again) hides it and shows the fit again. kplay plot writes the same plots (PREFIX-nscan-*.svg).
const SCANS = { 'nscan-stability': 'stability', 'nscan-lambda2': 'lambda2' };
const scans = {}; // canvas id -> finished MrlsrNScan

export function drawScans() {
  for (const id of Object.keys(SCANS)) {
    const job = scans[id];
    const c = $(id);
    if (job && !c.closest('figure').hidden) job.draw(c, sizeCanvas(c));
  }
}

export function clearScans() {
  for (const id of Object.keys(SCANS)) {
    scans[id]?.free();
    delete scans[id];
    $(id).closest('figure').hidden = true;
  }
  $('fit').closest('figure').hidden = false;
  delete body.dataset.nscan;
}

/** Run the scans `step` names on the spec `specJson`, a few ms per frame; then show and draw them. */
export async function runScans(step, gen, specJson) {
  for (const id of Object.keys(SCANS)) {
    if (!(step.uses ?? []).includes(id)) continue;
    let job = null;
    try {
      job = new MrlsrNScan(specJson, SCANS[id]);
      setStatus('scanning n: every point removed in turn…', true);
      const mine = job;
      const finished = await sliced((ms) => {
        if (gen !== scanGen) return null;
        if (mine.runFor(ms)) return true;
        const [d, t] = mine.progress();
        setStatus(`scanning n: ${d} of ${t} points removed in turn…`, true);
        return false;
      });
      if (!finished) { job.free(); return; }
    } catch (e) {
      job?.free();
      showError(String(e.message ?? e));
      setStatus('the scan failed');
      return;
    }
    scans[id]?.free();
    scans[id] = job;
    $(id).closest('figure').hidden = false;
    $('fit').closest('figure').hidden = true; // the scan is the step's answer: in the fit plot's place
    body.dataset.nscan = JSON.stringify(job.result());
    setStatus('scan done');
  }
  drawScans();
}
let scanGen = 0;

/** A new generation of scans (a step loaded): a scan of an older one stops. */
export function newScanGen() {
  return ++scanGen;
}

/** The current generation of scans. */
export function scanGenNow() {
  return scanGen;
}

// ---- work sliced over frames by the Player ------------------------------------------------
// A core task the page advances a few ms per frame (`advance(ms)`: true when done, false for
// more, null when a newer input dropped it): run by the Player's tick (engine.tick) within its
// frame budget, shared among the tasks under way. `sliced` resolves true when done, false when
// dropped, and rejects with the task's refusal.
const slices = new Set();

export function sliced(advance) {
  return new Promise((resolve, reject) => slices.add({ advance, resolve, reject }));
}

export function runSlices(ms) {
  if (slices.size === 0) return;
  const each = ms / slices.size;
  for (const s of [...slices]) {
    try {
      const r = s.advance(each);
      if (r === false) continue;
      slices.delete(s);
      s.resolve(r === true);
    } catch (e) {
      slices.delete(s);
      s.reject(e);
    }
  }
}

// ---- background jobs (module Worker) ------------------------------------------------------

let nextJobId = 1;
export const jobs = { eigen: null, selection: null, equivalence: null };

/**
 * Start `msg` in a fresh worker as job `kind`, replacing (terminating) an older job of that
 * kind, so no stale answer can arrive. `on[type](data)` handles the worker's messages; the
 * job ends on its final message or an error. Returns the job.
 */
export function startJob(kind, msg, on) {
  cancelJob(kind);
  const id = nextJobId++;
  const worker = new Worker(new URL('./mrlsr-worker.js', import.meta.url), { type: 'module' });
  const job = { id, worker, kind, started: performance.now(), onCancel: on.cancel };
  jobs[kind] = job;
  const finish = () => {
    if (jobs[kind] === job) jobs[kind] = null;
    worker.terminate();
  };
  worker.onmessage = (ev) => {
    const d = ev.data;
    if (jobs[kind] !== job || !d || d.id !== id) return; // an answer nobody waits for
    if (d.type === 'progress') {
      on.progress?.(d);
      return;
    }
    finish();
    if (d.type === 'error') on.error(String(d.message));
    else if (on[d.type]) on[d.type](d);
    else on.error(`unexpected message from the worker: ${d.type}`);
  };
  worker.onerror = (ev) => {
    if (jobs[kind] !== job) return;
    ev.preventDefault();
    finish();
    on.error(`the background worker failed: ${ev.message || 'could not start'}`);
  };
  worker.postMessage({ ...msg, id });
  return job;
}

/** Terminate the job of `kind` if one runs (its onCancel runs). */
export function cancelJob(kind) {
  const job = jobs[kind];
  if (!job) return false;
  jobs[kind] = null;
  job.worker.terminate();
  job.onCancel?.();
  return true;
}

/** Seconds the eigendecomposition of size n should take on the reference machine. */
function tableSeconds(n) {
  const t = EIGEN_TABLE;
  let k = 0;
  while (k < t.length - 2 && n > t[k + 1][0]) k++;
  const [[n0, s0], [n1, s1]] = [t[k], t[k + 1]];
  const p = n <= n0 ? 3 : Math.log(s1 / s0) / Math.log(n1 / n0); // O(n³) below the table
  return s0 * (n / n0) ** p;
}

/** A worker's eigendecomposition of size n took `ms`: scale the estimates to this machine
 *  (n ≥ 300, where the O(n³) step dominates). */
export function calibrateEigen(n, ms) {
  if (n >= 300) eigenScale = ms / 1000 / tableSeconds(n);
}

/** "about X s" for size n, scaled by the last measurement on this machine. */
export function estimate(n) {
  const s = eigenScale * tableSeconds(n);
  return s < 1 ? 'under a second' : `about ${s < 10 ? s.toFixed(1) : s.toFixed(0)} s`;
}

let busyTimer = null;

export function showBusy(text) {
  $('busy-text').textContent = text;
  $('busy').hidden = false;
  body.dataset.computing = '1';
  const t0 = performance.now();
  clearInterval(busyTimer);
  busyTimer = setInterval(() => {
    $('busy-text').textContent = `${text} ${((performance.now() - t0) / 1000).toFixed(0)} s elapsed`;
  }, 1000);
}

export function hideBusy() {
  clearInterval(busyTimer);
  busyTimer = null;
  $('busy').hidden = true;
  body.dataset.computing = '0';
}

export function clearEquivalence() {
  lastEq = null;
  $('eq-table').querySelector('tbody').replaceChildren();
  $('eq-table').hidden = true;
  $('eq-summary').textContent = '';
  drawEq();
}

export function showEquivalence(rep) {
  try {
    const tb = $('eq-table').querySelector('tbody');
    tb.replaceChildren();
    for (const p of rep.parts) {
      const tr = document.createElement('tr');
      tr.dataset.part = String(p.part);
      tr.dataset.diff = String(p.diff_rkhs);
      for (const v of [`Z${p.part}`, String(p.n), fmt(p.c0, 4), fmt(p.own_lambda2, 4), p.diff_rkhs.toExponential(3)]) {
        const td = document.createElement('td');
        td.textContent = v;
        tr.append(td);
      }
      tb.append(tr);
    }
    $('eq-table').hidden = false;
    // §5: at m = 2 M-RLSR is kernel ridge (λ₂ = λ on every sample); for m ≠ 2 λ₂ depends on Z.
    $('eq-summary').textContent = `m = ${rep.m}: λ = ${fmt(rep.lambda, 3)} chosen on Z₁ by CV, λ₂ = ${fmt(rep.lambda2, 4)}. `
      + (rep.m === 2
        ? 'At m = 2 M-RLSR is kernel ridge: λ₂ = λ reproduces it on every part, to the root solver’s tolerance (a strong equivalence).'
        : 'The same λ₂ reproduces M-RLSR only on Z₁: the equivalence is weak (data-dependent).');
    lastEq = rep;
    drawEq();
    clearError();
    bump('eqRuns');
    setStatus('equivalence experiment done');
  } catch (e) {
    showError(String(e.message ?? e));
    setStatus('equivalence experiment failed');
  }
}

function selectionIdle() {
  $('sel-run').disabled = false;
  $('sel-cancel').hidden = true;
  body.dataset.selRunning = '0';
}

/** The model-selection panel while the worker runs: busy at once; the returned handlers show
 *  its progress (the heatmap so far), its result, a refusal or a cancel, and end it idle. */
export function selectionPanel() {
  $('sel-run').disabled = true;
  $('sel-cancel').hidden = false;
  $('sel-table').hidden = true;
  body.dataset.selRunning = '1';
  const hm = $('heatmap');
  const t0 = performance.now();
  const drawGrid = (grid) => {
    try {
      drawCvHeatmap(hm, grid ?? null, sizeCanvas(hm));
    } catch (e) {
      showError(`drawing failed: ${e.message ?? e}`);
    }
  };
  return {
    progress(d) {
      $('sel-progress').textContent = `cross-validation in the worker: ${d.done} / ${d.total} steps (${(100 * d.done / d.total).toFixed(0)} %), ${((performance.now() - t0) / 1000).toFixed(1)} s`;
      if (d.grid !== undefined) drawGrid(d.grid);
    },
    done(r) {
      drawGrid(r.mrlsr_cv);
      $('sel-krr').textContent = r.krr_test_rmse.toExponential(3);
      $('sel-krr-p').textContent = `λ₂ = ${r.krr_cv.best_lambda.toExponential(1)}`;
      $('sel-mrlsr').textContent = r.mrlsr_test_rmse.toExponential(3);
      $('sel-mrlsr-p').textContent = `m = ${r.mrlsr_cv.best_m.toFixed(1)}, λ = ${r.mrlsr_cv.best_lambda.toExponential(1)}`;
      $('sel-table').hidden = false;
      $('sel-progress').textContent += ` — done (n_train = ${r.n_train}, n_test = ${r.n_test})`;
      selectionIdle();
      bump('selRuns');
    },
    error(msg) {
      showError(msg);
      selectionIdle();
    },
    cancel() {
      $('sel-progress').textContent += ' — cancelled';
      selectionIdle();
    },
  };
}
