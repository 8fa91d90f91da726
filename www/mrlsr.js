// Paper B's page: translates controls into a spec, keeps one MrlsrPage (data + cached
// eigendecomposition) and refits it on every m / λ change, draws through the wasm module.
// No mathematics here.
import init, { MrlsrPage, MrlsrSelection } from './pkg/kernel_playground.js';
import { $, fmt, showError, clearError, sizeCanvas } from './common.js';

const FRAME_BUDGET_MS = 12;
let page = null;        // MrlsrPage
let csvText = null;     // contents of the chosen CSV file
let building = false;
let refitPending = false;
let selection = null;   // MrlsrSelection while running
const body = document.body;

const nextFrame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));

function setStatus(msg, busy = false) {
  $('status').textContent = msg;
  body.dataset.busy = busy ? '1' : '0';
}

function bump(key) {
  body.dataset[key] = String(Number(body.dataset[key] || 0) + 1);
}

// ---- controls -> spec ----------------------------------------------------------------------

function readInt(id, label) {
  const raw = $(id).value.trim();
  const v = Number(raw);
  if (raw === '' || !Number.isFinite(v)) throw new Error(`${label}: “${raw}” is not a number`);
  return v;
}

function dataSpec() {
  const kind = $('data-kind').value;
  if (kind === 'csv') {
    if (csvText === null) throw new Error('choose a CSV file (a header row with a column named y)');
    return { kind: 'csv', text: csvText };
  }
  return { kind, n: readInt('n', 'n'), sigma: readInt('sigma', 'σ'), seed: readInt('seed', 'seed') };
}

function kernelSpec() {
  const k = $('kernel').value;
  if (k === 'linear') return { kind: 'linear' };
  if (k === 'polynomial') return { kind: 'polynomial', degree: readInt('degree', 'degree p'), offset: readInt('offset', 'offset c') };
  return { kind: 'gaussian', bandwidth: $('mu-heuristic').checked ? 'heuristic' : { fixed: readInt('mu', 'μ') } };
}

function readM() {
  return Number($('m').value);
}

function readLambda() {
  const raw = $('lambda').value.trim();
  const v = Number(raw);
  if (raw === '' || !Number.isFinite(v)) throw new Error(`λ: “${raw}” is not a number`);
  return v;
}

function spec() {
  return { data: dataSpec(), kernel: kernelSpec(), m: readM(), lambda: readLambda() };
}

function syncVisibility() {
  const kind = $('data-kind').value;
  $('gen-fields').hidden = kind === 'csv';
  $('csv-field').hidden = kind !== 'csv';
  const k = $('kernel').value;
  $('gauss-fields').hidden = k !== 'gaussian';
  $('poly-fields').hidden = k !== 'polynomial';
  $('mu').disabled = !$('mu-heuristic').checked ? false : true;
}

// ---- readouts and drawing ------------------------------------------------------------------

function showSummary(s) {
  $('r-nd').textContent = `${s.n} × ${s.d}`;
  $('r-c0').textContent = s.c0 == null ? 'none (f = 0)' : fmt(s.c0, 6);
  $('r-norm').textContent = fmt(s.norm_h, 6);
  $('r-lambda2').textContent = s.lambda2 == null ? '–' : fmt(s.lambda2, 6);
  $('r-fres').textContent = s.f_residual == null ? '–' : fmt(s.f_residual, 2);
  $('r-obj').textContent = fmt(s.objective, 8);
  $('r-iters').textContent = String(s.iterations);
  $('r-refit').textContent = `${s.refit_ms.toFixed(2)} ms`;
  $('r-eigen').textContent = `${s.eigen_ms.toFixed(1)} ms (n = ${s.n})`;
  const out = $('outside');
  if (s.kind === 'outside') {
    const roots = s.roots.length === 0 ? 'F has no positive root.'
      : `Roots of F: ${s.roots.map((r, i) => `C = ${fmt(r.c, 4)} (${r.kind.replace('_', ' ')}${s.minimizer === i ? ', minimizer' : ''})`).join('; ')}.`;
    out.textContent = `Outside Theorem 1 (m ≤ 1: not strictly convex, F may have no root or two). ${s.message} ${roots}`;
    out.hidden = false;
  } else {
    out.hidden = true;
    out.textContent = '';
  }
  const w = $('warning');
  w.hidden = !s.warning;
  w.textContent = s.warning ? `Warning: ${s.warning}` : '';
  body.dataset.kind = s.kind;
  $('fit-caption').textContent = s.d === 1
    ? 'Data (grey), M-RLSR at (m, λ) (red) and kernel ridge at the weakly equivalent λ₂ (blue): on the training data they coincide.'
    : `Fitted values against the true y on the ${s.n} training points (${s.d} features): M-RLSR (red dots) and KRR at λ₂ (blue circles).`;
}

function draw() {
  if (!page) return;
  try {
    const c1 = $('fit');
    page.drawFit(c1, sizeCanvas(c1));
    const c2 = $('fplot');
    page.drawF(c2, sizeCanvas(c2));
    bump('draws');
  } catch (e) {
    showError(`drawing failed: ${e.message ?? e}`);
  }
}

// ---- build (eigendecomposition) and refit --------------------------------------------------

async function build() {
  let s;
  try {
    s = spec();
  } catch (e) {
    showError(e.message);
    return;
  }
  const json = JSON.stringify(s);
  if (page && page.sameModel(json)) {
    scheduleRefit();
    return;
  }
  building = true;
  const n = s.data.n ?? 'CSV';
  setStatus(`computing the Gram matrix and its eigendecomposition (n = ${n})…`, true);
  await nextFrame(); // let the "computing…" state paint before the O(n³) step
  await nextFrame();
  try {
    const t0 = performance.now();
    const next = new MrlsrPage(json);
    if (page) page.free();
    page = next;
    clearError();
    showSummary(page.summary());
    draw();
    bump('builds');
    setStatus(`ready (eigendecomposition ${(performance.now() - t0).toFixed(0)} ms including the first fit)`);
    // m or λ moved while the decomposition ran: refit to the controls' current values.
    if (readM() !== s.m || Number($('lambda').value) !== s.lambda) scheduleRefit();
  } catch (e) {
    showError(String(e.message ?? e));
    setStatus(page ? 'the previous data and kernel are kept' : 'no model');
  } finally {
    building = false;
  }
}

function scheduleRefit() {
  if (refitPending) return;
  refitPending = true;
  requestAnimationFrame(() => {
    refitPending = false;
    refit();
  });
}

function refit() {
  if (!page || building) return;
  let m, lambda;
  try {
    m = readM();
    lambda = readLambda();
  } catch (e) {
    showError(e.message);
    return;
  }
  try {
    const s = page.refit(m, lambda);
    clearError();
    showSummary(s);
    draw();
    bump('refits');
  } catch (e) {
    showError(String(e.message ?? e));
  }
}

// ---- equivalence experiment (Fig. 1) -------------------------------------------------------

async function runEquivalence() {
  if (!page || building) return;
  setStatus('running the equivalence experiment (CV on Z₁, four eigendecompositions)…', true);
  $('eq-run').disabled = true;
  await nextFrame();
  try {
    const seed = Number($('seed').value) || 0;
    const rep = page.equivalence(4, 10, seed);
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
    $('eq-summary').textContent = `m = ${rep.m}: λ = ${fmt(rep.lambda, 3)} chosen on Z₁ by CV, λ₂ = ${fmt(rep.lambda2, 4)}. `
      + 'The same λ₂ reproduces M-RLSR only on Z₁: the equivalence is weak (data-dependent).';
    const b = $('eq-bars');
    const c = $('eq-curves');
    const dpr = sizeCanvas(b);
    sizeCanvas(c);
    page.drawEquivalence(b, c, dpr);
    clearError();
    bump('eqRuns');
    setStatus('equivalence experiment done');
  } catch (e) {
    showError(String(e.message ?? e));
    setStatus('equivalence experiment failed');
  } finally {
    $('eq-run').disabled = false;
  }
}

// ---- model selection (Table 1), spread over frames -----------------------------------------

function runSelection() {
  if (selection) return;
  let s;
  try {
    s = {
      data: { kind: 'friedman', n: readInt('sel-n', 'model selection n'), sigma: 1, seed: Number($('seed').value) || 1 },
      kernel: { kind: 'gaussian', bandwidth: 'heuristic' },
      folds: readInt('sel-folds', 'folds'),
    };
    selection = new MrlsrSelection(JSON.stringify(s));
  } catch (e) {
    showError(String(e.message ?? e));
    return;
  }
  clearError();
  $('sel-run').disabled = true;
  $('sel-table').hidden = true;
  body.dataset.selRunning = '1';
  const hm = $('heatmap');
  let lastDraw = 0;
  const frame = () => {
    let st;
    try {
      st = selection.runFor(FRAME_BUDGET_MS);
    } catch (e) {
      showError(String(e.message ?? e));
      selection.free();
      selection = null;
      $('sel-run').disabled = false;
      body.dataset.selRunning = '0';
      return;
    }
    $('sel-progress').textContent = `cross-validation: ${st.done} / ${st.total} steps (${(100 * st.done / st.total).toFixed(0)} %), ${(st.elapsed_ms / 1000).toFixed(1)} s of compute`;
    const now = performance.now();
    if (st.complete || now - lastDraw > 250) {
      lastDraw = now;
      try {
        selection.drawHeatmap(hm, sizeCanvas(hm));
      } catch (e) {
        showError(`drawing failed: ${e.message ?? e}`);
      }
    }
    if (!st.complete) {
      requestAnimationFrame(frame);
      return;
    }
    const r = st.result;
    $('sel-krr').textContent = r.krr_test_rmse.toExponential(3);
    $('sel-krr-p').textContent = `λ₂ = ${r.krr_cv.best_lambda.toExponential(1)}`;
    $('sel-mrlsr').textContent = r.mrlsr_test_rmse.toExponential(3);
    $('sel-mrlsr-p').textContent = `m = ${r.mrlsr_cv.best_m.toFixed(1)}, λ = ${r.mrlsr_cv.best_lambda.toExponential(1)}`;
    $('sel-table').hidden = false;
    $('sel-progress').textContent += ` — done (n_train = ${r.n_train}, n_test = ${r.n_test})`;
    selection.free();
    selection = null;
    $('sel-run').disabled = false;
    body.dataset.selRunning = '0';
    bump('selRuns');
  };
  requestAnimationFrame(frame);
}

// ---- wiring --------------------------------------------------------------------------------

function wire() {
  $('m').addEventListener('input', () => {
    $('m-out').textContent = readM().toFixed(2);
    scheduleRefit();
  });
  $('loglambda').addEventListener('input', () => {
    const v = 10 ** Number($('loglambda').value);
    const txt = v.toExponential(2);
    $('lambda').value = txt;
    $('lambda-out').textContent = txt;
    scheduleRefit();
  });
  $('lambda').addEventListener('change', () => {
    const v = Number($('lambda').value);
    if (Number.isFinite(v) && v > 0) {
      $('loglambda').value = String(Math.log10(v));
      $('lambda-out').textContent = v.toExponential(2);
    }
    scheduleRefit();
  });
  for (const id of ['data-kind', 'n', 'sigma', 'seed', 'kernel', 'mu-heuristic', 'mu', 'degree', 'offset']) {
    $(id).addEventListener('change', () => {
      syncVisibility();
      if (id === 'data-kind' && $('data-kind').value === 'friedman' && Number($('n').value) === 100) $('n').value = '500';
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
    resizeTimer = setTimeout(draw, 100);
  });
}

async function main() {
  await init();
  syncVisibility();
  wire();
  await build();
  body.dataset.ready = '1';
}

main().catch((e) => {
  showError(`failed to start: ${e.message ?? e}`);
});
