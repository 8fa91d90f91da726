// Paper C's page: form controls → spec → wasm (DinuzzoPlayground); solver sweeps run inside a
// per-frame time budget; the wasm module draws. No mathematics here.
// A large problem's O(n²) preparation (Gram matrix, ‖K‖₂, the map's kernel values) runs in a
// module Worker on every core (www/prep-worker.js, threaded build) when the page is cross-origin
// isolated on 2 cores or more, and the page adopts it after its checks (issue 21 §3); otherwise,
// or if the worker fails, times out or is refused, in slices on this thread, one per frame.
import init, { DinuzzoPlayground, dinuzzoDefaultSpec, dinuzzoControlsLose, lossCatalogue, kernelCatalogue, parseKernel, kernelText, raceColors, specSchema } from './pkg/kernel_playground.js';
import { $, fmt, showError, clearError, sizeCanvas, startFromHash, writeHash, bumpRunId, exposeRun, losses, lossCaps, fillLossSelect, buildKernelFields, showKernelFields, kernelFromExpression, EXPRESSION, kernelToFields, kernels, buildLossParamFields, showLossParams, attachCsvInput, readOrShow, attachCopyLink, followSpecHash, renderRaceTable, statusWord, runStatus } from './common.js';
import { Player } from './player.js';
import { PrepWorker } from './prep-client.js';
import { schemaForm } from './state.js';
import { attachLessons } from './lesson.js';
import { attachExport } from './export.js';
import { attachExplanations } from './explain.js';

let colours = null;
const raceColours = () => (colours ??= JSON.parse(raceColors()));
let pg = null;
let player = null;
let last = null; // the last summary shown
let form = null; // the page's state and controls, bound from the core's schema (state.js)
let csvData = null; // the CSV file the user loaded, { kind: 'csv', text }
let mapCost = 0; // ms of the last map draw, to throttle it on large data
let lastMap = 0;

// ---- spec <-> controls -------------------------------------------------------------------

/** Paper C's form from the core's schema (`specSchema('dinuzzo')`). The page's own part: a
 *  kernel expression (the expression field, parsed by the core), the clicked points, a CSV file's text, and the sweep cap a
 *  link gave, kept across a change of method; the blobs' spread and the circles' inner radius
 *  have no control and run at the schema's defaults. Built once the catalogue's fields exist. */
function makeForm() {
  return schemaForm(specSchema('dinuzzo'), {
    lose: dinuzzoControlsLose,
    fixed: ['data.shape.spread', 'data.shape.factor'],
    toExtra: (s) => {
      if (s.data.kind === 'csv' && s.data.text) csvData = s.data;
      kernelToFields(s.kernel); // a composite kernel: the expression field
      showRelevant();
    },
    fromExtra: (s, base) => {
      if (s.data.kind === 'csv') s.data = csvData ?? { kind: 'csv' };
      if (s.data.kind === 'points' && !s.data.points) s.data = { kind: 'points', points: currentPoints(), view: pg ? Array.from(pg.view()) : [-2, 2, -2, 2] };
      if ($('kernel').value === EXPRESSION) s.kernel = kernelFromExpression();
      if (base?.method?.max_sweeps !== undefined) s.method.max_sweeps = base.method.max_sweeps;
    },
  });
}

/** Make `s` the page's run with its controls, or show why not (the current run stays). */
function loadSpec(s) {
  const before = form.spec;
  try {
    form.show(s, before);
  } catch (e) {
    showError(e.message ?? String(e));
    return false;
  }
  if (applySpec(s)) return true;
  if (before) form.toControls(before);
  return false;
}

/** Show only the controls that apply to the current choices. */
function showRelevant() {
  const kind = $('data-kind').value;
  const shape = $('shape').value;
  const show = (sel, on) => document.querySelectorAll(sel).forEach((e) => { e.hidden = !on; });
  show('.only-classification', kind === 'classification');
  show('.only-regression', kind === 'regression');
  show('.only-generated', kind !== 'points' && kind !== 'csv');
  show('.only-csv', kind === 'csv');
  show('.only-blobs', shape === 'blobs');
  show('.only-jitter', shape !== 'blobs');
  showLossParams($('loss').value);
  show('.only-laplacian', $('kernel').value === 'laplacian');
  show('.only-gaussian', $('kernel').value === 'gaussian');
  show('.only-poly', $('kernel').value === 'polynomial');
  showKernelFields($('kernel').value);
  show('.only-fp', $('algorithm').value === 'fixed_point');
  show('.only-cd', $('algorithm').value === 'coordinate');
  show('.only-fixed-alpha', $('alpha-rule').value === 'fixed');
}

function currentPoints() {
  const flat = pg ? Array.from(pg.points()) : [];
  const out = [];
  for (let i = 0; i + 2 < flat.length; i += 3) out.push([flat[i], flat[i + 1], flat[i + 2]]);
  return out;
}

// ---- drawing -----------------------------------------------------------------------------

function drawMap(force) {
  const now = performance.now();
  if (!force && now - lastMap < 3 * mapCost) return;
  const c = $('map');
  pg.drawMap(c, sizeCanvas(c));
  lastMap = performance.now();
  mapCost = lastMap - now;
  document.body.dataset.mapDraws = String(Number(document.body.dataset.mapDraws || 0) + 1);
}

function draw(all) {
  if (!pg) return;
  try {
    drawMap(all);
    const conv = $('conv');
    pg.drawConvergence(conv, sizeCanvas(conv));
    const fd = $('fd');
    pg.drawPrimalDual(fd, sizeCanvas(fd));
    if (all) {
      const t5 = $('theorem5');
      pg.drawTheorem5(t5, sizeCanvas(t5));
    }
  } catch (e) {
    showError(`drawing failed: ${e.message ?? e}`);
  }
}

function showSummary(s) {
  last = s;
  const set = (id, v) => { $(id).textContent = v; };
  set('r-method', s.race.length ? `${s.method} (racing ${s.race.length})` : s.method);
  set('r-sweep', s.empty ? '–' : s.sweep);
  exposeRun(s.sweep, s.objective, s.digest);
  set('r-objective', s.empty ? '–' : fmt(s.objective, 8));
  set('r-gap', s.empty ? '–' : fmt(s.gap));
  set('r-residual', s.empty ? '–' : fmt(s.residual));
  set('r-maxh', s.empty || s.sweep === 0 ? '–' : fmt(s.max_h));
  set('r-skipped', s.empty ? '–' : s.skipped);
  set('r-support', s.empty ? '–' : `${s.support} of ${s.n}`);
  set('r-alpha', s.alpha == null ? 'α_i = 1/k_ii' : `${fmt(s.alpha)} (${fmt(s.alpha_limit)})`);
  set('r-status', runStatus(s.status, player ? player.playing : true, s.sweep));
  set('r-time', s.sweep > 0 ? fmt(s.elapsed_ms / s.sweep, 2) : '–');
  document.body.dataset.status = s.status;
  document.body.dataset.sweep = String(s.sweep);
  // Messages from the solver: divergence, α above 2/‖K‖₂, dropped rows.
  const notes = [];
  if (s.message) notes.push(s.message);
  // Said once: after a divergence (or overflow) the message names α and 2/‖K‖₂ already, so the
  // start's warning about condition (11) is not repeated beside it.
  const diverged = s.status === 'diverged' || s.status === 'non_finite';
  for (const w of s.warnings) if (!(diverged && w.includes('2/‖K‖₂'))) notes.push(w);
  if (s.preparing) notes.push(`Preparing the run — ${prep.running ? prep.text() : s.preparing}.`);
  else if (s.empty) notes.push('No data: click or tap the map to add points (of the class chosen under the map; shift-click: the other class).');
  const box = $('notice');
  box.textContent = notes.join(' · ');
  box.hidden = notes.length === 0;
  box.classList.toggle('diverged', s.status === 'diverged' || s.status === 'non_finite');
  // The race table (the engine's standings, one row per lane).
  renderRaceTable($('race-table'), s.race, [(l) => String(l.iterations), (l) => fmt(l.last.gap, 2), (l) => statusWord(l.status)], raceColours());
  // The caption says what the map shows now: the map rings the points with cᵢ ≠ 0 unless every
  // point has one (then it rings none, and says so).
  const ci = 'c<sub>i</sub> ≠ 0';
  const rings = s.empty ? 'click to add points'
    : s.sweep === 0 ? `no point has ${ci} yet (c = 0 before the first sweep)`
      : s.regression ? `ringed: the ${s.support} points with ${ci}`
        : s.support === s.n ? `all ${s.n} points have ${ci} (all are support vectors), so none is ringed`
          : s.support === 0 ? `no point has ${ci}` : `ringed: the ${s.support} support vectors (${ci})`;
  $('map-caption').innerHTML = s.regression
    ? `Regression curve f(x) = Σ c<sub>i</sub> k(x<sub>i</sub>, x) (blue) with its ε-tube for SVR; dashed grey: the noiseless curve; ${rings}.`
    : `Decision function f(x) = Σ c<sub>i</sub> k(x<sub>i</sub>, x): blue f &gt; 0, red f &lt; 0 (as on page D); black line f = 0, grey lines f = ±1; ${rings}.`;
  const before = s.sweep === 0 ? ' Before the first sweep: only the starting values (dots at sweep 0).' : '';
  $('conv-caption').textContent = s.race.length
    ? `Race: the duality gap of each solver against the sweep (log scale); dotted: δ.${before}`
    : `Duality gap, residual, max|h| and objective against the sweep (log scale); dotted: δ.${before}`;
}

function setPlaying(on) {
  player?.restarted(on);
}

// ---- actions -----------------------------------------------------------------------------

function restarted() {
  prep.start(pg.specJson(), pg.offloadable());
  bumpRunId();
  setPlaying(true);
  writeHash(pg.specJson());
  showSummary(pg.summary());
  draw(true);
}

/** Build a new run from a spec; on error show it and keep the old run. */
function applySpec(next) {
  try {
    if (pg) pg.update(JSON.stringify(next));
    else pg = new DinuzzoPlayground(JSON.stringify(next));
  } catch (e) {
    showError(e.message ?? String(e));
    return false;
  }
  form.spec = next;
  clearError();
  restarted();
  return true;
}

function apply() {
  showRelevant();
  const next = readOrShow(() => form.fromControls());
  if (!next) return;
  applySpec(next);
}

function onMapClick(ev) {
  if (!pg || form.spec.data.kind === 'regression') return;
  const c = $('map');
  const sx = c.width / c.clientWidth;
  const sy = c.height / c.clientHeight;
  const xy = Array.from(pg.toData(ev.offsetX * sx, ev.offsetY * sy));
  if (xy.length !== 2) return;
  const chosen = Number(document.querySelector('input[name=click-class]:checked')?.value ?? 1);
  const label = ev.shiftKey ? -chosen : chosen;
  const data = form.spec.data.kind === 'points'
    ? structuredClone(form.spec.data)
    : { kind: 'points', points: currentPoints(), view: Array.from(pg.view()) };
  data.points.push([xy[0], xy[1], label]);
  let next;
  try {
    next = { ...form.fromControls(), data };
  } catch (e) {
    showError(e.message);
    return;
  }
  if (applySpec(next)) $('data-kind').value = 'points';
  showRelevant();
  document.body.dataset.points = String(data.points.length);
}

/** The run as the shared player drives it (www/player.js). */
const engine = {
  step: () => pg.step(),
  runFor: (ms) => pg.runFor(ms),
  ended: () => !pg || !pg.running(),
  endLabel: () => (last ? last.status.replace('_', ' ') : 'not started'),
  playingChanged: () => { if (last) showSummary(last); },
  reset: () => {
    pg.reset();
    bumpRunId();
    showSummary(pg.summary());
    draw(true);
  },
  // Slow speeds draw every iterate (the map too); at max the map is throttled by its cost.
  show: (s, every) => {
    showSummary(s);
    draw(false);
    if (every || !pg.running()) drawMap(true);
  },
  error: (e) => showError(e.message ?? String(e)),
  // Large problems are built in slices, one per frame (Gram matrix, ‖K‖₂, the map's kernel
  // values), so the page never blocks: the run starts when they are done.
  ready: () => !!pg && pg.ready(),
  tick: (ms) => prepareSlice(ms),
};

// ---- a large problem prepared in a worker, on every core (issue 21 §3) --------------------

const prep = new PrepWorker({
  paper: 'dinuzzo',
  what: 'the kernel matrix',
  note: (text) => pg?.setPreparingNote(text),
  started: () => drawMap(true),
  adopt: (d) => {
    if (!pg || !pg.offloadable()) throw new Error('this page has no kernel matrix left to adopt');
    pg.adoptPrepared(d.digest, d.gram, d.norm ?? undefined, d.map ?? undefined);
  },
  adopted: () => {
    if (pg.preparing()) return; // what is left (the map's values, if refused) goes in slices
    document.body.dataset.prepared = String(Number(document.body.dataset.prepared || 0) + 1);
    showSummary(pg.summary());
    draw(true);
  },
  status: $('prep-note'),
});

/** One slice of the preparation of a large problem; on failure the previous run comes back. */
function prepareSlice(ms) {
  if (!pg || !pg.preparing()) return;
  // The worker prepares: its progress, a few times a second.
  if (prep.tick(() => showSummary(pg.summary()))) return;
  try {
    const done = pg.prepare(ms);
    showSummary(pg.summary());
    if (done) {
      document.body.dataset.prepared = String(Number(document.body.dataset.prepared || 0) + 1);
      draw(true);
    } else drawMap(true);
  } catch (e) {
    showError(e.message ?? String(e));
    form.spec = JSON.parse(pg.specJson());
    form.toControls(form.spec);
    writeHash(pg.specJson());
    showSummary(pg.summary());
    draw(true);
  }
}

function wire() {
  const inputs = ['margin', 'noise', 'label-noise', 'rnoise', 'outliers', 'n', 'seed', 'lambda', 'mu', 'lap-sigma', 'degree', 'offset', 'alpha', 'tol'];
  for (const id of inputs) $(id).addEventListener('change', apply);
  document.querySelectorAll('[data-loss-param] input').forEach((i) => i.addEventListener('change', apply));
  for (const id of ['shape', 'loss', 'kernel', 'algorithm', 'alpha-rule', 'rule', 'shrinking', 'race']) $(id).addEventListener('change', apply);
  $('data-kind').addEventListener('change', () => {
    // Regression data need a regression loss; switch once so the first picture is not an error.
    if ($('data-kind').value === 'regression' && lossCaps($('loss').value).classification) $('loss').value = 'eps_insensitive';
    if ($('data-kind').value !== 'regression' && !lossCaps($('loss').value).classification && form.spec.data.kind === 'regression') $('loss').value = 'hinge';
    apply();
  });
  $('clear').addEventListener('click', () => {
    if (!pg) return;
    const view = form.spec.data.kind === 'regression' ? [-2, 2, -2, 2] : Array.from(pg.view());
    let next;
    try {
      next = { ...form.fromControls(), data: { kind: 'points', points: [], view } };
    } catch (e) {
      showError(e.message);
      return;
    }
    if (form.spec.data.kind === 'regression' && !lossCaps(next.loss.kind).classification) {
      $('loss').value = 'hinge';
      next.loss = { kind: 'hinge' };
    }
    if (applySpec(next)) $('data-kind').value = 'points';
    showRelevant();
    document.body.dataset.points = '0';
  });
  $('map').addEventListener('click', onMapClick);
  attachCsvInput($('csv-file'), $('map'), (text) => {
    csvData = { kind: 'csv', text };
    $('data-kind').value = 'csv';
    apply();
  });
  attachCopyLink($('copy-link'));
  followSpecHash(loadSpec);
  window.addEventListener('resize', () => draw(true));
}


async function main() {
  await init({ module_or_path: new URL('./pkg/kernel_playground_dinuzzo_bg.wasm', import.meta.url) });
  losses(lossCatalogue);
  fillLossSelect($('loss'), (c) => (c.paper_c ? `${c.paper_c} (${c.label})` : c.label));
  buildLossParamFields($('loss').closest('label'));
  kernels(kernelCatalogue, { parse: parseKernel, text: kernelText });
  for (const f of buildKernelFields($('kernel'), $('offset').closest('label'))) f.addEventListener('change', () => apply());
  form = makeForm();
  ({ state: pg, spec: form.spec } = startFromHash((s) => {
    form.show(s, null);
    return new DinuzzoPlayground(JSON.stringify(s));
  }, JSON.parse(dinuzzoDefaultSpec())));
  form.toControls(form.spec);
  wire();
  restarted();
  // The default run takes about 3400 sweeps: 500 sweeps/s lets a class watch it for ~7 s.
  player = new Player(engine, { speed: 500, unit: 'sweeps' });
  attachExplanations('c');
  attachExport({
    // Tagged with the paper, so \`kplay run spec.json\` knows which engine to run.
    spec: () => JSON.stringify({ paper: 'dinuzzo', ...JSON.parse(pg.specJson()) }),
    run: () => ({ spec: JSON.parse(pg.specJson()), summary: pg.summary(), trace: pg.trace(), solution: { c: Array.from(pg.coefficients()) } }),
  });
  attachLessons({
    spec: () => pg.specJson(),
    load: (s) => {
      loadSpec(s);
      setPlaying(false);
    },
    player,
  }, 'c');
  document.body.dataset.ready = '1';
}

main().catch((e) => showError(`The page could not start: ${e.message ?? e}`));
