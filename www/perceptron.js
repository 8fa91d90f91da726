// Paper D's page: controls → spec → wasm; steps inside a per-frame budget; draws through the
// wasm module. No mathematics here.
import init, { PerceptronPlayground, perceptronDefaultSpec, perceptronControlsLose, kernelCatalogue, parseKernel, kernelText, drawHandPoints, handPointAt } from './pkg/kernel_playground.js';
import { $, fmt, num, showError, clearError, sizeCanvas, readNumber, kernels, buildKernelFields, showKernelFields, kernelFromFields, kernelToFields, startFromHash, writeHash, bumpRunId, exposeRun, attachCsvInput, readOrShow, renderRaceTable, fmtMs, attachCopyLink, followSpecHash, runStatus, plotScale } from './common.js';
import { Player } from './player.js';
import { PrepWorker } from './prep-client.js';
import { bindControls } from './form.js';
import { attachLessons } from './lesson.js';
import { attachExport } from './export.js';
import { attachExplanations } from './explain.js';
import { renderText } from './lesson-text.js';

let pg = null; // the running experiment (kept when a new spec is invalid)
let valid = false; // whether pg matches the controls
let player = null;
let last = null; // the last summary shown
let points = []; // hand-made points [[x1, x2, ±1], …]
let racing = false;
let lastBoundaryDraw = 0;

// ---- spec <-> controls -------------------------------------------------------------------

function readPositive(id, label) {
  const raw = $(id).value.trim();
  const v = Number(raw);
  if (raw === '' || Number.isNaN(v)) throw new Error(`${label}: “${raw}” is not a number`);
  return v; // the core checks the range (ε > 0, γ > 1, …) with its own message
}

let csvData = null; // the CSV file the user loaded, { kind: 'csv', text }

function dataSpec() {
  const kind = $('data').value;
  if (kind === 'hand') return { kind: 'points', points };
  if (kind === 'csv') return csvData ?? { kind: 'csv' };
  const n = readNumber('n', 'n');
  const seed = readNumber('seed', 'seed');
  const noise = readNumber('noise', 'noise');
  let shape;
  if (kind === 'blobs') shape = { kind: 'blobs', margin: Number($('margin').value), spread: 0.5 };
  else if (kind === 'overlap') shape = { kind: 'blobs', margin: -Number($('overlap').value), spread: 0.5 };
  else if (kind === 'circles') shape = { kind: 'circles', noise, factor: 0.45 };
  else if (kind === 'xor') shape = { kind: 'xor', noise };
  else shape = { kind: 'moons', noise };
  return { kind: 'generated', set: { shape, n, label_noise: 0, seed } };
}

function kernelSpec() {
  const k = $('kernel').value;
  if (k !== 'gaussian') return kernelFromFields(k);
  const raw = $('mu').value.trim();
  if (raw === 'auto') return { kind: 'gaussian', bandwidth: 'heuristic' };
  return { kind: 'gaussian', bandwidth: { fixed: readPositive('mu', 'width') } };
}

function algoSpec() {
  const a = $('algo').value;
  if (a === 'nvn') return { kind: 'nvn', epsilon: readPositive('epsilon', 'ε') };
  if (a === 'snkpvn') return { kind: 'snkpvn', delta: readPositive('delta', 'δ') };
  if (a === 'isnkpvn') return { kind: 'isnkpvn', gamma: readPositive('gamma', 'γ'), epsilon: readPositive('epsilon', 'ε') };
  return { kind: a };
}

// The race's ε, δ, γ share their fields with the algorithm's parameters (one field each).
const RACE_FIELDS = [['epsilon', 'ε'], ['delta', 'δ'], ['gamma', 'γ']];

/** The spec's `race` (ε, δ, γ of the race of the six algorithms): each field the algorithm
 *  does not own, where it differs from the field's default (the core's default, docs/spec.md);
 *  the core takes the algorithm's own value for the others. So the link carries the race. */
function raceSpec(algorithm) {
  const race = {};
  for (const [id, label] of RACE_FIELDS) {
    if (algorithm[id] !== undefined) continue;
    const v = readPositive(id, label);
    if (v !== Number($(id).defaultValue)) race[id] = v;
  }
  return race;
}

/** The controls as a spec; `base` (the spec shown, by default the run's) lends the fields the
 *  page has no control for (the margin search's tolerances). */
function specFromControls(base = pg ? JSON.parse(pg.specJson()) : null) {
  const s = { data: dataSpec(), kernel: kernelSpec(), algorithm: algoSpec(), max_iter: readNumber('maxiter', 'iteration cap') };
  if (base && base.margin) s.margin = base.margin;
  const race = raceSpec(s.algorithm);
  if (Object.keys(race).length) s.race = race;
  return s;
}

/** Put a spec into the controls, or throw a message naming the field they cannot hold (form.js). */
const showSpec = bindControls({ lose: perceptronControlsLose, toControls: controlsFromSpec, fromControls: specFromControls });
const shownSpec = () => (pg && valid ? JSON.parse(pg.specJson()) : null);

function controlsFromSpec(s) {
  const d = s.data;
  if (d.kind === 'points') {
    $('data').value = 'hand';
    points = d.points;
  } else if (d.kind === 'csv') {
    $('data').value = 'csv';
    if (d.text) csvData = d;
  } else {
    const sh = d.set.shape;
    if (sh.kind === 'blobs' && sh.margin < 0) {
      $('data').value = 'overlap';
      $('overlap').value = -sh.margin;
    } else if (sh.kind === 'blobs') {
      $('data').value = 'blobs';
      $('margin').value = sh.margin;
    } else {
      $('data').value = sh.kind;
      $('noise').value = sh.noise;
    }
    $('n').value = d.set.n;
    $('seed').value = d.set.seed;
  }
  $('kernel').value = s.kernel.kind;
  kernelToFields(s.kernel);
  if (s.kernel.kind === 'gaussian') $('mu').value = s.kernel.bandwidth === 'heuristic' ? 'auto' : s.kernel.bandwidth.fixed;
  $('algo').value = s.algorithm.kind;
  // The algorithm's own value, else the race's, else the field's default.
  for (const [id] of RACE_FIELDS) $(id).value = s.algorithm[id] ?? s.race?.[id] ?? $(id).defaultValue;
  $('maxiter').value = s.max_iter;
  showKnobs();
}

function showKnobs() {
  const d = $('data').value;
  for (const el of document.querySelectorAll('.knob')) el.hidden = !el.classList.contains(`k-${d}`);
  const k = $('kernel').value;
  for (const el of document.querySelectorAll('.kn')) el.hidden = !el.classList.contains(`kn-${k}`);
  showKernelFields(k);
  const a = $('algo').value;
  for (const el of document.querySelectorAll('.ap')) el.hidden = !el.classList.contains(`ap-${a}`);
  $('margin-out').textContent = Number($('margin').value).toFixed(2);
  $('overlap-out').textContent = Number($('overlap').value).toFixed(2);
}

// ---- drawing -----------------------------------------------------------------------------

function drawAll(force = true) {
  try {
    const b = $('boundary');
    const dpr = sizeCanvas(b);
    if (!valid) {
      drawHandPoints(b, dpr, JSON.stringify(points));
    } else if (pg) {
      const now = performance.now();
      if (force || now - lastBoundaryDraw > 80) {
        pg.drawBoundary(b, dpr);
        lastBoundaryDraw = now;
      }
      const t = $('trace');
      pg.drawTrace(t, sizeCanvas(t));
    }
  } catch (e) {
    showError(`drawing failed: ${e.message ?? e}`);
  }
}

function drawRace() {
  if (!pg) return;
  try {
    const c = $('racec');
    pg.drawRace(c, sizeCanvas(c));
  } catch (e) {
    showError(`drawing failed: ${e.message ?? e}`);
  }
}

function outcomeText(s) {
  const o = s.outcome;
  if (!o) return ['running', `${s.algorithm} running… iteration ${s.iter}`];
  if (o.kind === 'separator') {
    const c = o.check;
    return ['separator', `Separator found by ${s.algorithm} after ${s.iter} iterations${c.verified ? ' — verified' : ' — NOT verified'}: ` +
      `min (Gα)ᵢ = ${num(c.min_g_alpha)} > 0, points correctly classified ${c.correct}/${c.n}` +
      (c.normalized_margin != null ? `, normalized margin ${num(c.normalized_margin)} ≤ $ρ_K$` : '') + '.'];
  }
  if (o.kind === 'certificate') {
    const c = o.check;
    return ['certificate', `ε-certificate from ${s.algorithm} after ${s.iter} iterations${c.verified ? ' — verified' : ' — NOT verified'}: ` +
      `p in the simplex (min pᵢ = ${num(c.min_p)}, Σpᵢ − 1 = ${num(c.sum_error)}), $‖p‖_G$ = ${num(c.norm_g)} ≤ ε = ${num(c.epsilon)}, ` +
      'so $ρ_K$ ≤ ε (Lemma 3: $ρ_K ≤ ‖p‖_G$); only $‖p‖_G = 0$ would prove that no separator exists (Theorem 2).'];
  }
  return ['cap', `Iteration cap reached after ${o.iterations} iterations without a separator or a certificate (raise the cap, or ε/δ).`];
}

// The outcome's notation ($‖p‖_G$, $ρ_K$) through the lessons' one renderer, inside one inline
// span: classroom mode folds that span to its first lines, so no padding shows a cut line.
function showOutcomeText(box, text) {
  const tmp = document.createElement('div');
  renderText(tmp, text);
  const span = document.createElement('span');
  span.className = 'outcome-text';
  span.append(...(tmp.firstElementChild ? tmp.firstElementChild.childNodes : []));
  box.replaceChildren(span);
}

function showSummary(s) {
  last = s;
  if (s.preparing !== undefined && s.margin === undefined) {
    // A large data set is being prepared in slices (G, then ρ_K): no run yet.
    $('r-n').textContent = s.n;
    $('r-iter').textContent = '–';
    $('r-status').textContent = 'preparing';
    const box = $('outcome');
    box.dataset.kind = 'preparing';
    box.dataset.verified = 'false';
    box.textContent = `Preparing the run — ${prep.running ? prep.text() : s.preparing}.`;
    document.body.dataset.status = 'preparing';
    document.body.dataset.n = String(s.n);
    return;
  }
  $('r-n').textContent = s.n;
  $('r-iter').textContent = s.iter;
  exposeRun(s.iter, s.min_g_alpha, s.digest);
  $('r-mingalpha').textContent = fmt(s.min_g_alpha);
  $('r-normp').textContent = s.norm_p_g == null ? '– (no p)' : fmt(s.norm_p_g);
  const m = s.margin;
  const sep = m.separability === 'separable' ? 'separable' : m.separability === 'inseparable' ? 'inseparable' : 'undecided';
  $('r-margin').textContent = `${fmt(m.rho)} ∈ [${fmt(m.lower)}, ${fmt(m.upper)}] (${sep})`;
  $('r-status').textContent = s.outcome ? s.outcome.kind.replace('_', ' ') : runStatus('running', player ? player.playing : true, s.iter);
  const [kind, text] = outcomeText(s);
  const box = $('outcome');
  box.dataset.kind = kind;
  box.dataset.verified = s.outcome && s.outcome.check ? String(s.outcome.check.verified) : 'false';
  showOutcomeText(box, text);
  document.body.dataset.status = kind;
  document.body.dataset.n = String(s.n);
  if (s.error) showError(s.error);
}

function setPlaying(on) {
  player?.restarted(on);
}

// ---- actions -----------------------------------------------------------------------------

function invalidHand(msg) {
  valid = false;
  showError(msg);
  document.body.dataset.status = 'invalid';
  document.body.dataset.n = String(points.length);
  $('r-n').textContent = points.length;
  const box = $('outcome');
  box.dataset.kind = 'invalid';
  box.textContent = 'No run: fix the data (see the message above).';
  drawAll();
}

function apply() {
  showKnobs();
  const next = readOrShow(specFromControls);
  if (!next) return;
  const json = JSON.stringify(next);
  try {
    if (pg) pg.update(json);
    else pg = new PerceptronPlayground(json);
  } catch (e) {
    const msg = e.message ?? String(e);
    if (next.data.kind === 'points') invalidHand(msg);
    else showError(msg);
    return;
  }
  valid = true;
  racing = false;
  prep.start(pg.specJson(), pg.offloadable());
  bumpRunId();
  clearError();
  writeHash(pg.specJson());
  setPlaying(true);
  showSummary(pg.summary());
  drawAll();
  drawRace();
  renderRaceTable($('race-table'), [], []);
}

function onCanvasClick(ev) {
  const c = $('boundary');
  const r = c.getBoundingClientRect();
  const dpr = window.devicePixelRatio || 1;
  const px = (ev.clientX - r.left) * dpr;
  const py = (ev.clientY - r.top) * dpr;
  let xy;
  try {
    if ($('data').value !== 'hand') {
      points = valid && pg ? JSON.parse(pg.pointsJson()) : [];
    }
    xy = valid && pg ? pg.dataAt(px, py) : handPointAt(c.width, c.height, plotScale(), JSON.stringify(points), px, py);
  } catch (e) {
    showError(e.message ?? String(e));
    return;
  }
  const chosen = Number(document.querySelector('input[name=click-class]:checked')?.value ?? 1);
  const label = ev.shiftKey ? -chosen : chosen;
  points = [...points, [Number(xy[0].toFixed(4)), Number(xy[1].toFixed(4)), label]];
  $('data').value = 'hand';
  apply();
}

/** The run as the shared player drives it (www/player.js); the race runs beside it. */
const engine = {
  step: () => pg.step(),
  runFor: (ms) => pg.runFor(racing ? ms / 2 : ms),
  ended: () => !last || Boolean(last.finished),
  endLabel: () => (last && last.outcome ? last.outcome.kind.replace('_', ' ') : 'finished'),
  playingChanged: () => { if (last && last.margin !== undefined) showSummary(last); },
  ready: () => Boolean(pg) && valid && pg.ready(),
  reset: () => {
    if (!pg || !valid) return;
    pg.reset();
    bumpRunId();
    showSummary(pg.summary());
    drawAll();
  },
  show: (s, every) => {
    showSummary(s);
    drawAll(every || s.finished);
  },
  tick: (ms) => {
    if (pg && pg.preparing()) prepareSlice(ms);
    if (!racing || !pg || !valid) return;
    const r = pg.raceFor(ms / 2);
    drawRace();
    renderRaceTable($('race-table'), r.lanes, [(l) => String(l.iterations), (l) => fmtMs(l.time_ms),
      (l) => l.outcome + (l.outcome === 'separator' || l.outcome === 'certificate' ? (l.verified ? ' ✓ verified' : ' ✗ not verified') : ''),
      (l) => (l.bound == null ? '–' : fmt(l.bound, 3))]);
    if (r.finished) {
      // The standings as `kplay race` prints them (without the machine's times).
      document.body.dataset.standings = JSON.stringify(r.lanes.map(({ time_ms, ...l }) => l));
      racing = false;
    }
    document.body.dataset.race = r.finished ? 'done' : 'running';
  },
  error: (e) => {
    racing = false;
    showError(e.message ?? String(e));
  },
};

// ---- a large data set's kernel matrix prepared in a worker, on every core (issue 21 §3) -----

const prep = new PrepWorker({
  paper: 'perceptron',
  what: 'the kernel matrix',
  note: (text) => pg?.setPreparingNote(text),
  started: () => showSummary(pg.summary()),
  adopt: (d) => {
    if (!pg || !pg.offloadable()) throw new Error('this page has no kernel matrix left to adopt');
    pg.adoptPrepared(d.digest, d.gram, d.marginP ?? undefined, d.marginIterations ?? undefined);
  },
  // ρ_K's bracket from the adopted search (and the heatmap's kernel values) follow in slices.
  adopted: () => showSummary(pg.summary()),
  status: $('prep-note'),
});

/** One slice of the preparation (a large data set's G and ρ_K, or the heatmap's kernel values). */
function prepareSlice(ms) {
  // The worker prepares: its progress, a few times a second.
  if (prep.tick(() => showSummary(pg.summary()))) return;
  const wasReady = pg.ready();
  try {
    const done = pg.prepare(ms);
    if (!wasReady) showSummary(pg.summary());
    if (done) {
      document.body.dataset.prepared = String(Number(document.body.dataset.prepared || 0) + 1);
      if (!wasReady) writeHash(pg.specJson());
      drawAll();
    }
  } catch (e) {
    showError(e.message ?? String(e));
    if (pg.ready()) {
      controlsFromSpec(JSON.parse(pg.specJson()));
      writeHash(pg.specJson());
      showSummary(pg.summary());
      drawAll();
    } else {
      valid = false;
    }
  }
}

function wire() {
  attachCsvInput($('csv-file'), $('boundary'), (text) => {
    csvData = { kind: 'csv', text };
    $('data').value = 'csv';
    showKnobs();
    apply();
  });
  for (const id of ['data', 'kernel', 'algo', 'n', 'seed', 'noise', 'degree', 'offset', 'mu', 'lap-sigma', 'epsilon', 'delta', 'gamma', 'maxiter']) {
    $(id).addEventListener('change', apply);
  }
  for (const id of ['margin', 'overlap']) $(id).addEventListener('input', apply);
  $('boundary').addEventListener('click', onCanvasClick);
  $('clear').addEventListener('click', () => {
    points = [];
    $('data').value = 'hand';
    apply();
  });
  $('race').addEventListener('click', () => {
    if (!pg || !valid) return;
    try {
      pg.startRace(); // the spec's race ε, δ, γ: the link's, so `kplay race` runs the same race
    } catch (e) {
      showError(e.message ?? String(e));
      return;
    }
    clearError();
    racing = true;
    document.body.dataset.race = 'running';
  });
  window.addEventListener('resize', () => { drawAll(); drawRace(); });
  attachCopyLink($('copy-link'));
  followSpecHash((s) => {
    showSpec(s, shownSpec());
    apply();
  });
}

async function main() {
  await init({ module_or_path: new URL('./pkg/kernel_playground_perceptron_bg.wasm', import.meta.url) });
  kernels(kernelCatalogue, { parse: parseKernel, text: kernelText });
  const built = buildKernelFields($('kernel'), $('lap-sigma').closest('label'));
  for (const f of built) f.addEventListener('change', apply);
  const start = startFromHash((s) => {
    showSpec(s, null);
    return new PerceptronPlayground(JSON.stringify(s));
  }, JSON.parse(perceptronDefaultSpec()));
  pg = start.state;
  const spec = start.spec;
  valid = true;
  prep.start(pg.specJson(), pg.offloadable());
  controlsFromSpec(spec);
  wire();
  bumpRunId();
  writeHash(pg.specJson()); // the live state is in the URL from the start (Copy link, kplay)
  showSummary(pg.summary());
  drawAll();
  drawRace();
  // The default separable run ends in 3 iterations: 1/s makes them watchable one by one.
  player = new Player(engine, { speed: 1 });
  attachExplanations('d');
  attachExport({
    // Tagged with the paper, so \`kplay run spec.json\` knows which engine to run.
    spec: () => JSON.stringify({ paper: 'perceptron', ...JSON.parse(pg.specJson()) }),
    run: () => ({ spec: JSON.parse(pg.specJson()), summary: pg.summary(), trace: pg.trace(), solution: { alpha: Array.from(pg.alpha()), p: Array.from(pg.p()) } }),
  });
  attachLessons({
    spec: () => pg.specJson(),
    load: (s) => {
      showSpec(s, shownSpec());
      apply();
      setPlaying(false);
    },
    player,
    actions: { race: () => $('race').click() },
  }, 'd');
  document.body.dataset.ready = '1';
}

main().catch((e) => showError(`The page could not start: ${e.message ?? e}`));
