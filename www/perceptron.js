// Paper D's page: controls → spec → wasm; steps inside a per-frame budget; draws through the
// wasm module. No mathematics here.
import init, { PerceptronPlayground, perceptronDefaultSpec, perceptronControlsLose, kernelCatalogue, parseKernel, kernelText, drawHandPoints, handPointAt, specSchema } from './pkg/kernel_playground.js';
import { $, fmt, num, showError, clearError, sizeCanvas, kernels, buildKernelFields, showKernelFields, kernelFromExpression, kernelToFields, EXPRESSION, startFromHash, writeHash, bumpRunId, exposeRun, attachCsvInput, readOrShow, renderRaceTable, fmtMs, attachCopyLink, followSpecHash, runStatus, plotScale } from './common.js';
import { Player } from './player.js';
import { PrepWorker } from './prep-client.js';
import { schemaForm } from './state.js';
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

let csvData = null; // the CSV file the user loaded, { kind: 'csv', text }
let form = null; // the page's state and controls, bound from the core's schema (state.js)
const MARGIN = 'data.set.shape.margin';
const RACE = ['epsilon', 'delta', 'gamma'];

/** Paper D's form from the core's schema (`specSchema('perceptron')`). Three controls are not
 *  one field each (state.js `views`); the expression kernel is common.js's; the blobs' spread,
 *  the circles' inner radius and the label noise have no control and run at the schema's
 *  defaults; the margin search's tolerances come from the spec shown. */
function makeForm() {
  return schemaForm(specSchema('perceptron'), {
    lose: perceptronControlsLose,
    fixed: ['data.set.shape.spread', 'data.set.shape.factor', 'data.set.label_noise'],
    views: [
      // One select for where the data come from, the generated shape and (two blobs) the
      // margin's sign: a gap slider for ≥ 0, an overlap slider for its negative.
      {
        paths: ['data.kind', 'data.set.shape.kind', MARGIN],
        to: (s) => {
          const d = s.data;
          if (d.kind === 'points') points = d.points;
          if (d.kind === 'csv' && d.text) csvData = d;
          if (d.kind !== 'generated') {
            $('data').value = d.kind === 'points' ? 'hand' : 'csv';
            return;
          }
          const sh = d.set.shape;
          const overlap = sh.kind === 'blobs' && sh.margin < 0;
          $('data').value = overlap ? 'overlap' : sh.kind;
          if (sh.kind === 'blobs') $(overlap ? 'overlap' : 'margin').value = String(Math.abs(sh.margin));
        },
        from: (s, read) => {
          const v = $('data').value;
          if (v === 'hand') return { data: { kind: 'points', points } };
          if (v === 'csv') return { data: csvData ?? { kind: 'csv' } };
          if (v !== 'blobs' && v !== 'overlap') return { 'data.kind': 'generated', 'data.set.shape.kind': v };
          const margin = v === 'overlap' ? -read(MARGIN, 'overlap') : read(MARGIN, 'margin');
          return { 'data.kind': 'generated', 'data.set.shape.kind': 'blobs', [MARGIN]: margin };
        },
      },
      // The Gaussian's width: a number (`bandwidth.fixed`) or `auto` (the heuristic bandwidth).
      {
        paths: ['kernel.bandwidth.fixed'],
        to: (s) => { $('mu').value = s.kernel.bandwidth === 'heuristic' ? 'auto' : String(s.kernel.bandwidth?.fixed ?? ''); },
        from: (s, read) => ({ 'kernel.bandwidth': $('mu').value.trim() === 'auto' ? 'heuristic' : { fixed: read('kernel.bandwidth.fixed') } }),
      },
      // ε, δ, γ serve the algorithm's parameter when it has one, else the race's, which the spec
      // carries only where it differs from the default (absent: the algorithm's, or the default).
      {
        paths: ['race.epsilon', 'race.delta', 'race.gamma'],
        to: (s) => {
          for (const k of RACE) if (s.algorithm[k] === undefined) $(k).value = String(s.race?.[k] ?? form.field(`race.${k}`).default);
        },
        from: (s, read) => Object.fromEntries(RACE.map((k) => {
          const v = s.algorithm[k] === undefined ? read(`race.${k}`, k) : undefined;
          return [`race.${k}`, v === form.field(`race.${k}`).default ? undefined : v];
        })),
      },
    ],
    toExtra: (s) => {
      kernelToFields(s.kernel); // a sum, product or scaling: the expression field
      showKnobs();
    },
    fromExtra: (s) => {
      if (s.kernel.kind === EXPRESSION) s.kernel = kernelFromExpression();
    },
  });
}

/** The spec of the run shown, to restore the controls to when a spec is refused (form.js). */
const shownSpec = () => (pg && valid ? form.spec : null);

/** The run's spec becomes the page's state (`form.spec`) and the address's. */
function showRun() {
  form.spec = JSON.parse(pg.specJson());
  writeHash(pg.specJson());
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

/** Run what the controls show; false (the message shown, the run kept) when the core refuses it. */
function apply() {
  showKnobs();
  const next = readOrShow(() => form.fromControls());
  if (!next) return false;
  const json = JSON.stringify(next);
  try {
    if (pg) pg.update(json);
    else pg = new PerceptronPlayground(json);
  } catch (e) {
    const msg = e.message ?? String(e);
    if (next.data.kind === 'points') invalidHand(msg);
    else showError(msg);
    return false;
  }
  valid = true;
  racing = false;
  prep.start(pg.specJson(), pg.offloadable());
  bumpRunId();
  clearError();
  showRun();
  setPlaying(true);
  showSummary(pg.summary());
  drawAll();
  drawRace();
  renderRaceTable($('race-table'), [], []);
  return true;
}

/** Make `s` (a pasted link, a lesson step) the page's run, or throw / show why not: the run
 *  and its controls stay (a hand-made set the core refuses stays on the plot to be fixed). */
function loadSpec(s) {
  const before = shownSpec();
  form.show(s, before);
  if (!apply() && valid && before) form.toControls(before);
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
      if (!wasReady) showRun();
      drawAll();
    }
  } catch (e) {
    showError(e.message ?? String(e));
    if (pg.ready()) {
      form.toControls(JSON.parse(pg.specJson()));
      showRun();
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
  followSpecHash(loadSpec);
}

async function main() {
  await init({ module_or_path: new URL('./pkg/kernel_playground_perceptron_bg.wasm', import.meta.url) });
  kernels(kernelCatalogue, { parse: parseKernel, text: kernelText });
  const built = buildKernelFields($('kernel'), $('lap-sigma').closest('label'));
  for (const f of built) f.addEventListener('change', apply);
  form = makeForm();
  const start = startFromHash((s) => {
    form.show(s, null);
    return new PerceptronPlayground(JSON.stringify(s));
  }, JSON.parse(perceptronDefaultSpec()));
  pg = start.state;
  valid = true;
  prep.start(pg.specJson(), pg.offloadable());
  form.toControls(start.spec);
  wire();
  bumpRunId();
  showRun(); // the live state is in the URL from the start (Copy link, kplay)
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
      loadSpec(s);
      setPlaying(false);
    },
    player,
    actions: { race: () => $('race').click() },
  }, 'd');
  document.body.dataset.ready = '1';
}

main().catch((e) => showError(`The page could not start: ${e.message ?? e}`));
