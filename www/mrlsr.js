// Paper B's page: its controls bound from the core's schema (state.js), keeps one MrlsrPage (data + cached
// eigendecomposition) and refits it on every m / λ change, draws through the wasm module.
// The O(n³) steps (eigendecomposition, model selection, equivalence experiment) run in a
// module Worker (mrlsr-worker.js); the m / λ refit (a few ms) stays here. Every setting is in
// the URL hash (#spec=…). No mathematics here. The readouts, the panels' displays, the worker's
// jobs and the sliced preparations are in mrlsr-view.js.
import init, { MrlsrPage, MrlsrAdopt, MrlsrGram, mrlsrWholeMatrixCalls, checkMrlsrSpec, mrlsrControlsLose, kernelCatalogue, parseKernel, kernelText, specSchema } from './pkg/kernel_playground.js';
import { $, num, showError, clearError, sizeCanvas, specFromHash, kernels, buildKernelFields, showKernelFields, kernelFromExpression, kernelToFields, EXPRESSION, writeHash, attachCopyLink } from './common.js';
import { attachLessons } from './lesson.js';
import { attachExport } from './export.js';
import { attachExplanations } from './explain.js';
import { Player } from './player.js';
import { onSpecHash, schemaForm } from './state.js';
import {
  setStatus, bump, showSummary as showReadouts, drawEq, drawScans, clearScans, runScans, newScanGen, scanGenNow,
  sliced, runSlices, jobs, startJob, cancelJob, estimate, calibrateEigen, showBusy, hideBusy,
  clearEquivalence, showEquivalence, selectionPanel,
} from './mrlsr-view.js';

let page = null;        // MrlsrPage
let pageSpec = null;    // the page's state (form.spec) `page` was built from, its runs' sections kept
let csvText = null;     // contents of the chosen CSV file
let form = null;        // the page's state and controls, bound from the core's schema (state.js)
let player = null;      // the Player that plays a sweep of (m, λ) (www/player.js)
let refitPending = false;
const HASH_MIN_MS = 200;
let hashNote = null;    // message about an unusable link, kept until the first model shows
const body = document.body;

/** The readouts of a fit, the left-out point of the page's spec marked. */
function showSummary(s) {
  showReadouts(s, pageSpec?.data?.drop);
}

// ---- spec <-> controls ---------------------------------------------------------------------
// The page's state (`form.spec`) is its link: the fit (data, kernel, m, λ), the model-selection
// fields (`sel`) and the sections of the experiments that ran (`selection`, `equivalence`), so
// that `kplay run` of a copied link reproduces their tables.

/** The data and kernel of a spec, keys sorted: the model an equivalence experiment ran on. */
function modelKey(s) {
  const sorted = (v) => (Array.isArray(v) ? v.map(sorted)
    : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : v);
  return JSON.stringify(sorted([s.data, s.kernel]));
}

/** Paper B's form from the core's schema (`specSchema('mrlsr')`). The page's own part: the
 *  Gaussian's bandwidth (`heuristic` or `{fixed: μ}`: a checkbox and a field, not one field),
 *  a kernel expression, a CSV file's text, the point a link left out (data.drop) and the
 *  equivalence section, both kept while the data (and kernel) stay, and the views of m and λ
 *  (m's readout, λ's log slider and readout). Built once the catalogue's fields exist. */
function makeForm() {
  return schemaForm(specSchema('mrlsr'), {
    lose: mrlsrControlsLose,
    own: ['kernel.bandwidth'],
    spans: { m: [0.1, 4] }, // the slider's span; `kplay run` takes any m in (0, 100]
    toExtra: (s) => {
      if (s.data.kind === 'csv' && typeof s.data.text === 'string') csvText = s.data.text;
      if (s.kernel.kind === 'gaussian') {
        $('mu-heuristic').checked = s.kernel.bandwidth === 'heuristic';
        if (s.kernel.bandwidth?.fixed !== undefined) $('mu').value = String(s.kernel.bandwidth.fixed);
      }
      kernelToFields(s.kernel); // a composite kernel: the expression field
      showMLambda(s.m, s.lambda);
      syncVisibility();
    },
    fromExtra: (s, base) => {
      if (s.data.kind === 'csv' && s.data.text !== csvText) {
        if (csvText === null) throw new Error('data: choose a CSV file (a header row with a column named y)');
        s.data = { kind: 'csv', text: csvText };
      }
      // A point left out belongs to the data it was left out of.
      if (['kind', 'n', 'sigma', 'seed'].some((k) => s.data[k] !== base.data?.[k])) delete s.data.drop;
      if ($('kernel').value === EXPRESSION) s.kernel = kernelFromExpression();
      else if (s.kernel.kind === 'gaussian') s.kernel.bandwidth = $('mu-heuristic').checked ? 'heuristic' : { fixed: form.read('kernel.bandwidth.fixed') };
      // An equivalence experiment belongs to the data and kernel it ran on.
      if (modelKey(s) !== modelKey(base)) delete s.equivalence;
    },
  });
}

/** Read the controls into the page's state; throws a message naming the field. */
function readState() {
  form.spec = form.fromControls(form.spec);
  return form.spec;
}

/** The fit of a state (the controls read by default): data, kernel, m, λ, what the worker, a
 *  lesson and the export read. */
function fitSpec(state = readState()) {
  const { data, kernel, m, lambda } = state;
  return { data, kernel, m, lambda };
}

/** A field's control as a number, or `fallback` while it holds none. */
function readOr(path, fallback) {
  try {
    return form.read(path);
  } catch {
    return fallback;
  }
}

/** The current λ if the field holds a valid one, else `fallback`. */
function lambdaOr(fallback) {
  const v = readOr('lambda', fallback);
  return v > 0 ? v : fallback;
}

function syncVisibility() {
  const kind = $('data-kind').value;
  $('gen-fields').hidden = kind === 'csv';
  $('csv-field').hidden = kind !== 'csv';
  const k = $('kernel').value;
  $('gauss-fields').hidden = k !== 'gaussian';
  $('poly-fields').hidden = k !== 'polynomial';
  $('lap-fields').hidden = k !== 'laplacian';
  showKernelFields(k);
  $('mu').disabled = $('mu-heuristic').checked;
}

function draw() {
  if (!page) return;
  try {
    const c1 = $('fit');
    page.drawFit(c1, sizeCanvas(c1));
    const c2 = $('fplot');
    page.drawF(c2, sizeCanvas(c2));
    drawScans();
    bump('draws');
    showSweep();
  } catch (e) {
    showError(`drawing failed: ${e.message ?? e}`);
  }
}

// ---- URL hash: the page's state ----------------------------------------------------------

let hashTimer = null;
let hashWritten = 0;

/**
 * Write the form into the URL hash (history.replaceState). While a slider is dragged the writes
 * are throttled to one per HASH_MIN_MS, the last one trailing (Chromium refuses hundreds of
 * history updates in a few seconds); `now` writes at once.
 */
function saveHash(now = true) {
  const write = () => {
    clearTimeout(hashTimer);
    hashTimer = null;
    hashWritten = performance.now();
    try {
      writeHash(JSON.stringify({ paper: 'mrlsr', ...readState() }));
    } catch {
      // an unreadable field: the link keeps the last valid settings
    }
  };
  if (now || performance.now() - hashWritten >= HASH_MIN_MS) write();
  else if (!hashTimer) hashTimer = setTimeout(write, HASH_MIN_MS);
}

/** Make a link's or a lesson step's spec the page's state; throws a message naming the field,
 *  the controls back at the state they showed. */
function loadState(h) {
  if (typeof h !== 'object' || h === null) throw new Error('not a settings object');
  // A CSV's text comes only inside a lesson's spec (a lesson step that removes one point); a
  // link never carries it. The core parses and checks the text (sizes, columns) when it builds.
  if (h.data?.kind === 'csv' && typeof h.data.text !== 'string') throw new Error('it refers to a CSV file, which a link cannot hold (choose the file again)');
  // The core's strict parser and checks (unknown fields, types, ranges): a message naming the field.
  checkMrlsrSpec(JSON.stringify(h));
  // A spec without the model-selection fields (a lesson step, an older link) keeps the form's.
  const s = { ...h, sel: h.sel ?? form.spec.sel };
  form.show(s, form.spec);
  form.spec = s;
}

/** m and λ beside their controls: m's readout, λ's log slider and readout. */
function showMLambda(m, lambda) {
  $('m-out').textContent = m.toFixed(2);
  $('loglambda').value = String(Math.log10(lambda));
  $('lambda-out').textContent = lambdaLabel(lambda);
}

/** m and λ into their controls (a sweep's refit, a lesson's run). */
function setMLambda(m, lambda) {
  $('m').value = String(m);
  $('lambda').value = String(lambda);
  showMLambda(m, lambda);
}

/** λ beside its slider as the page writes numbers (common.js num), to three digits: 10⁻⁶, not 1.00e-6. */
function lambdaLabel(v) {
  return num(Number(v.toPrecision(3)));
}

/** Apply the link's settings to the form; on a bad link keep the form's settings (the defaults
 *  when the page opens) and remember a message for #error. */
function applyHash(keeps = 'Showing the default settings.') {
  let h;
  try {
    h = specFromHash();
  } catch (e) {
    hashNote = `The link's settings could not be read (${e.message}); ${keeps.toLowerCase()}`;
    return false;
  }
  if (h === null) return false;
  try {
    loadState(h);
    return true;
  } catch (e) {
    hashNote = `The link's settings are not valid: ${e.message ?? e}. ${keeps}`;
    return false;
  }
}

// ---- build (eigendecomposition in the worker) and refit -----------------------------------

/**
 * Read the form. Same data and kernel as the current model: refit only. Otherwise check the
 * spec here (cheap: data and kernel), then compute the eigendecomposition in a worker and
 * adopt it. Resolves when the model is shown, refused, or the computation is cancelled.
 */
async function build() {
  const gen = ++buildGen;
  let state;
  let s;
  try {
    state = readState();
    s = fitSpec(state);
  } catch (e) {
    refuseInput(String(e.message ?? e));
    return;
  }
  formError = null;
  saveHash();
  const json = JSON.stringify(s);
  if (page && page.sameModel(json)) {
    if (cancelJob('eigen')) setStatus('kept the current data and kernel');
    dropGram();
    scheduleRefit();
    return;
  }
  let checked;
  try {
    checked = checkMrlsrSpec(json);
  } catch (e) {
    refuseInput(String(e.message ?? e));
    return;
  }
  cancelJob('equivalence'); // its result would belong to the old data
  startGram(json);
  const n = checked.n;
  const text = `computing eigendecomposition… (n = ${n}, ${estimate(n)})`;
  setStatus(page ? 'the previous model stays usable meanwhile' : '');
  showBusy(text);
  bump('eigenStarts');
  await new Promise((resolve) => {
    startJob('eigen', { type: 'eigen', spec: s }, {
      async eigen(d) {
        hideBusy();
        if (gen === buildGen) await adopt(state, s, d, gen); // only the newest input's result
        resolve();
      },
      error(msg) {
        hideBusy();
        showError(msg);
        setStatus(page ? 'the previous data and kernel are kept' : 'no model');
        resolve();
      },
      cancel() {
        hideBusy();
        resolve();
      },
    });
  });
}

// Only the newest input's result is adopted (issue 36): every build() takes the next generation,
// and a form the newest build() refused keeps its message until a newer input is accepted: an
// earlier input's eigendecomposition is cancelled (and dropped if it answers anyway), and moving
// m or λ reads the whole form again instead of refitting the older model.
let buildGen = 0;
let formError = null;

/** The newest input is refused: show why, stop the computation for an earlier input. */
function refuseInput(msg) {
  formError = msg;
  cancelJob('eigen');
  dropGram();
  showError(msg);
  setStatus(page ? 'the previous data and kernel are kept' : 'no model');
}

function dropGram() {
  if (gram) gram.free();
  gram = null;
}

// The Gram matrix of the spec being decomposed, built on the main thread in slices of a few ms
// per frame while the worker runs, so adopting the worker's result is not one long task.
let gram = null;

function startGram(json) {
  if (gram) gram.free();
  gram = null;
  try {
    gram = new MrlsrGram(json);
  } catch {
    return; // the worker reports the same problem with its message
  }
  const mine = gram;
  // A non-finite kernel value: adoption rebuilds K and reports it.
  sliced((ms) => (gram !== mine ? null : mine.advance(ms))).catch(() => {});
}

// The adoption in progress (MrlsrAdopt), if any: equivalence waits for it.
let adopting = null;

/**
 * Take a worker's eigendecomposition: the wasm side rebuilds the data, finishes K, copies Q in
 * from the transferred buffer and checks it, then fits, a few ms per frame (MrlsrAdopt; issue
 * 36: no main-thread task over 200 ms). Dropped if a newer input arrives meanwhile.
 */
async function adopt(state, s, d, gen) {
  if (!(d.values instanceof Float64Array) || !(d.vectors instanceof Float64Array) || !Number.isFinite(d.eigen_ms)) {
    showError('the background worker sent a malformed eigendecomposition; the previous model is kept');
    return;
  }
  const at = { ...s, m: readOr('m', s.m), lambda: lambdaOr(s.lambda) };
  body.dataset.adoptAt = String(performance.now()); // when the main thread takes over (tests)
  let job = null;
  let mine = null;
  try {
    const json = JSON.stringify(at);
    if (!gram) gram = new MrlsrGram(json);
    job = new MrlsrAdopt(json, d.values, d.vectors, d.eigen_ms, gram);
    gram.free(); // K's build moved into the adoption
    gram = null;
    adopting = mine = job;
    setStatus('checking the eigendecomposition from the worker…', true);
    const adopted = job;
    // A newer input drops it: its own build takes over.
    if (!await sliced((ms) => (gen !== buildGen ? null : adopted.advance(ms)))) {
      job.free();
      return;
    }
    body.dataset.adoptSlices = String(job.slices());
    const next = job.finish();
    job = null;
    if (page) page.free();
    page = next;
    pageSpec = structuredClone(state);
    calibrateEigen(d.n, d.eigen_ms);
    clearError();
    if (hashNote) {
      showError(hashNote);
      hashNote = null;
    }
    showSummary(page.summary());
    draw();
    bump('builds');
    // For students: what was computed once and what a change of m or λ reuses (no engineering timings).
    setStatus(`ready: K = QDQᵀ computed once (${(d.eigen_ms / 1000).toFixed(2)} s); changing m or λ reuses it`);
    if (at.lambda !== lambdaOr(at.lambda) || readOr('m', at.m) !== at.m) scheduleRefit();
  } catch (e) {
    if (job) job.free();
    job = null;
    showError(String(e.message ?? e));
    setStatus(page ? 'the previous data and kernel are kept' : 'no model');
  } finally {
    if (adopting === mine) adopting = null;
    body.dataset.mainEigen = JSON.stringify(mrlsrWholeMatrixCalls()); // tests: 0 on this thread
  }
}

/** The Cancel button: stop the worker, keep the previous model and put its settings back. */
function cancelEigen() {
  if (!cancelJob('eigen')) return;
  if (gram) gram.free();
  gram = null;
  if (pageSpec) {
    // The model kept, with the form's m, λ, model-selection fields and selection that ran, and
    // the equivalence only if it ran on the model kept.
    const keep = { ...form.spec, data: pageSpec.data, kernel: pageSpec.kernel, m: readOr('m', pageSpec.m), lambda: lambdaOr(pageSpec.lambda) };
    delete keep.equivalence;
    if (pageSpec.equivalence) keep.equivalence = pageSpec.equivalence;
    try {
      form.show(keep, null);
      form.spec = keep;
    } catch {
      // the page's own model always fits its controls
    }
    saveHash();
    setStatus('cancelled: the previous data and kernel are kept');
  } else {
    setStatus('cancelled: no model yet; change a setting to compute one');
  }
  bump('cancels');
}

let refitFrame = 0;
function scheduleRefit() {
  if (refitPending) return;
  refitPending = true;
  refitFrame = requestAnimationFrame(() => {
    refitPending = false;
    refit();
  });
}

/** A refit the form asked for and the next frame would make: made now (a sweep starts from it). */
function flushRefit() {
  if (!refitPending) return;
  cancelAnimationFrame(refitFrame);
  refitPending = false;
  refit();
}

/** Refit the current model (also while a new eigendecomposition is computed). */
function refit() {
  // The form's newest input was refused: m or λ moving is a new input of the whole form, read
  // again (the message stays while it is still refused; a refit of the older model would clear it).
  if (formError) {
    build();
    return;
  }
  if (!page) return;
  let m, lambda;
  try {
    m = form.read('m');
    lambda = form.read('lambda');
  } catch (e) {
    showError(e.message);
    return;
  }
  saveHash(false);
  try {
    page.sweepDrop(); // a hand-moved control: the fit follows it at once
    const s = page.refit(m, lambda);
    clearError();
    showSummary(s);
    draw();
    bump('refits');
  } catch (e) {
    showError(String(e.message ?? e));
  }
}

// ---- a sweep of (m, λ): the run a class watches (issue 32 §9) ---------------------------------
// A lesson's Run it (or a typed λ) moves the fit from its (m, λ) to the new one in 40 refits
// (the core's ParamSweep: λ on a log scale), one per frame at the Player's 30 refits per second;
// each reuses the eigendecomposition. Then the direct solve's search for the roots of F at the
// target is drawn on F(C), one Newton or bisection step per frame (the core's RootWatch; none at
// m = 2). Pause, Step, Reset and space work as on the other pages.
// The controls follow the fit shown; the last refit is the target itself, so the end is the
// direct fit's, bit for bit (tests/mrlsr_sweep.rs).

/** Readouts, plots and controls after a refit of the sweep. */
function showSweepFit(s) {
  setMLambda(s.m, s.lambda);
  showSummary(s);
  draw();
}

/** The sweep's state for the buttons and for tests (data-sweep = "done/frames"). */
function showSweep() {
  const has = Boolean(page) && page.hasSweep();
  for (const id of ['play', 'step', 'reset']) $(id).disabled = !has;
  if (!has) {
    delete body.dataset.sweep;
    return;
  }
  const [done, frames] = page.sweepProgress();
  body.dataset.sweep = `${done}/${frames}`;
  // The root search drawn on F(C) after the sweep's last refit: its steps, and the roots it
  // found once it has ended (tests compare them with a direct link's C₀).
  const r = page.rootSearch();
  if (!r) {
    delete body.dataset.rootSteps;
    delete body.dataset.rootFound;
    return;
  }
  body.dataset.rootSteps = String(r.steps);
  if (r.ended) body.dataset.rootFound = JSON.stringify(r.found);
  else delete body.dataset.rootFound;
}

/** Start the move of the current fit to (m, λ) and play it; false if it cannot start. */
function startSweep(m, lambda) {
  if (!page || formError || adopting) return false;
  flushRefit(); // e.g. a lesson step loaded again: its start's fit first
  try {
    page.sweepTo(m, lambda);
  } catch (e) {
    showError(String(e.message ?? e));
    return false;
  }
  clearError();
  bump('sweeps');
  showSweep();
  player.restarted(true);
  return true;
}

const engine = {
  step: () => page.sweepStep(),
  runFor: (ms) => page.runFor(ms),
  ended: () => !page || page.sweepEnded(),
  endLabel: () => 'the fit reached the chosen m and λ, and the search for C₀ on F(C) ended',
  reset: () => {
    if (page && page.hasSweep()) showSweepFit(page.sweepReset());
  },
  show: (s) => {
    showSweepFit(s);
    if (page.sweepEnded()) saveHash();
  },
  ready: () => Boolean(page) && !adopting,
  error: (e) => showError(String(e.message ?? e)),
  // The preparations (K built while the worker decomposes it, the adoption of its result, a
  // lesson step's n-scan) advance in the Player's frame budget, as the other pages' do.
  tick: (ms) => runSlices(ms),
};

// ---- equivalence experiment (Fig. 1), in the worker ---------------------------------------

function runEquivalence() {
  if (!page || !pageSpec || jobs.eigen || jobs.equivalence || adopting) return;
  // The spec's equivalence section (Fig. 1 at the slider's m), run in the worker as `kplay run`
  // runs it, on the model shown.
  const m = readOr('m', pageSpec.m);
  const section = { m, parts: 4, folds: 10, seed: readOr('data.seed', 0) || 0 };
  const s = { paper: 'mrlsr', data: pageSpec.data, kernel: pageSpec.kernel, m, lambda: lambdaOr(pageSpec.lambda), equivalence: section };
  const ranOn = pageSpec;
  setStatus('running the equivalence experiment in the worker (CV on Z₁, one eigendecomposition per fold and part)…', true);
  $('eq-run').disabled = true;
  const done = () => {
    $('eq-run').disabled = false;
  };
  startJob('equivalence', { type: 'equivalence', spec: s }, {
    equivalence(d) {
      done();
      ranOn.equivalence = section;
      if (modelKey(form.spec) === modelKey(ranOn)) form.spec.equivalence = section;
      body.dataset.eqReport = JSON.stringify(d.report);
      saveHash();
      showEquivalence(d.report);
    },
    error(msg) {
      done();
      showError(msg);
      setStatus('equivalence experiment failed');
    },
    cancel() {
      done();
      setStatus('equivalence experiment cancelled (the data or kernel changed)');
    },
  });
}

// ---- model selection (Table 1), in the worker ---------------------------------------------

function runSelection() {
  if (jobs.selection) return;
  let s;
  let section;
  try {
    // The spec's selection section: Table 1 on the 10-D synthetic set with the paper's grids
    // (absent fields), run in the worker as `kplay run` runs it.
    const state = readState();
    const { sel } = state;
    section = {
      data: { kind: 'friedman', n: sel.n, sigma: 1, seed: readOr('data.seed', 1) || 1 },
      kernel: { kind: 'gaussian', bandwidth: 'heuristic' },
      folds: sel.folds,
    };
    s = { ...fitSpec(state), paper: 'mrlsr', selection: section };
  } catch (e) {
    showError(String(e.message ?? e));
    return;
  }
  clearError();
  const panel = selectionPanel();
  startJob('selection', { type: 'selection', spec: s }, {
    progress: panel.progress,
    selection(d) {
      form.spec.selection = section;
      body.dataset.selResult = JSON.stringify(d.result);
      saveHash();
      panel.done(d.result);
    },
    error: panel.error,
    cancel: panel.cancel,
  });
}

// ---- wiring --------------------------------------------------------------------------------

function wire() {
  $('m').addEventListener('input', () => {
    $('m-out').textContent = form.read('m').toFixed(2);
    scheduleRefit();
  });
  $('loglambda').addEventListener('input', () => {
    const v = 10 ** $('loglambda').valueAsNumber; // λ's log view
    $('lambda').value = v.toExponential(2);
    $('lambda-out').textContent = lambdaLabel(v);
    scheduleRefit();
  });
  $('lambda').addEventListener('change', () => {
    const v = lambdaOr(null);
    if (v !== null) {
      showMLambda(form.read('m'), v);
      if (startSweep(form.read('m'), v)) return; // a typed λ: watch the fit move there
    }
    scheduleRefit();
  });
  $('eigen-cancel').addEventListener('click', cancelEigen);
  attachCopyLink($('copy-link'));
  $('sel-cancel').addEventListener('click', () => cancelJob('selection'));
  for (const id of ['sel-n', 'sel-folds']) $(id).addEventListener('change', saveHash);
  onSpecHash(() => {
    if (applyHash('The current settings stay.')) {
      build();
    } else if (hashNote) {
      showError(hashNote);
      hashNote = null;
    }
  });
  for (const id of ['data-kind', 'n', 'sigma', 'seed', 'kernel', 'mu-heuristic', 'mu', 'degree', 'offset', 'lap-sigma']) {
    $(id).addEventListener('change', () => {
      syncVisibility();
      if (id === 'data-kind' && $('data-kind').value === 'friedman' && readOr('data.n', 0) === 100) $('n').value = '500';
      build();
    });
  }
  $('csv').addEventListener('change', async () => {
    const f = $('csv').files[0];
    if (!f) return;
    csvText = await f.text();
    build();
  });
  $('eq-run').addEventListener('click', runEquivalence);
  $('sel-run').addEventListener('click', runSelection);
  let resizeTimer = null;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { draw(); drawEq(); }, 100);
  });
}

async function main() {
  await init({ module_or_path: new URL('./pkg/kernel_playground_mrlsr_bg.wasm', import.meta.url) });
  kernels(kernelCatalogue, { parse: parseKernel, text: kernelText });
  for (const f of buildKernelFields($('kernel'), $('poly-fields'))) {
    f.addEventListener('change', () => { syncVisibility(); build(); });
  }
  form = makeForm();
  form.spec = form.fromControls({}); // the schema's defaults
  applyHash();
  syncVisibility();
  wire();
  player = new Player(engine, { speed: 30, unit: 'refits' });
  player.setPlaying(false);
  // Lessons: the run of a step that moves the fit is the sweep to the step's (m, λ) (space
  // pauses it); the equivalence experiment is an action that runs to its end in the worker.
  const inLesson = attachLessons({
    spec: () => JSON.stringify(fitSpec()),
    load: (s) => {
      clearEquivalence(); // a step's question never shows an earlier run's table or verdict
      newScanGen();
      clearScans(); // nor an earlier step's n-scan
      loadState(s);
      return build();
    },
    player,
    pausable: ['fit'],
    actions: {
      fit: (step) => new Promise((resolve) => {
        clearScans(); // a run again starts from its question: no scan until it has run
        const m = step.to.m ?? readOr('m', 1.5);
        const lambda = step.to.lambda ?? lambdaOr(1e-3);
        if (!startSweep(m, lambda)) {
          setMLambda(m, lambda);
          refit();
          resolve();
          return;
        }
        // The run ends when the sweep has fitted its target (or was dropped: a hand-moved
        // control, a new step's model), and the step's n-scans are drawn.
        const gen = scanGenNow();
        const wait = () => {
          if (!engine.ended()) return requestAnimationFrame(wait);
          if (gen !== scanGenNow()) return resolve();
          runScans(step, gen, JSON.stringify(fitSpec())).finally(resolve);
        };
        requestAnimationFrame(wait);
      }),
      equivalence: () => new Promise((resolve) => {
        const n0 = Number(body.dataset.eqRuns || 0);
        runEquivalence();
        const poll = () => {
          if (Number(body.dataset.eqRuns || 0) > n0 || !jobs.equivalence) resolve();
          else setTimeout(poll, 100);
        };
        setTimeout(poll, 100);
      }),
    },
  }, 'b');
  attachExplanations('b');
  attachExport({
    spec: () => JSON.stringify({ paper: 'mrlsr', ...fitSpec() }),
    run: () => ({ spec: fitSpec(), summary: page ? page.summary() : null }),
    trace: false, // one closed-form solve per (m, λ): no iterations to trace
  });
  if (!inLesson) await build();
  if (hashNote) {
    showError(hashNote);
    hashNote = null;
  }
  body.dataset.ready = '1';
}

main().catch((e) => {
  showError(`failed to start: ${e.message ?? e}`);
});
