// One live plot alone, for an <iframe> in a course page, a learning-management system or an HTML
// slide deck: embed.html?plot=NAME#spec=… (the spec as the paper pages keep it in their link;
// without one, the paper's default). Play / Step / Reset and nothing else; the plot fills the
// frame. The export panel's "Copy embed code" writes the iframe tag (export.js). No network
// access beyond the site's own files; the pages' CSP.
import init, { Playground, defaultSpec, MrlsrPage, MrlsrAdopt, MrlsrGram, mrlsrWholeMatrixCalls, DinuzzoPlayground, dinuzzoDefaultSpec, PerceptronPlayground, perceptronDefaultSpec } from './pkg/kernel_playground.js';
import { $, sizeCanvas, clip } from './common.js';
import { queryParam, specText } from './url.js';

const MRLSR_DEFAULT = { data: { kind: 'sine', n: 40, sigma: 0.2, seed: 1 }, kernel: { kind: 'gaussian', bandwidth: 'heuristic' }, m: 1.5, lambda: 1e-3 };

/** Each embeddable plot: its page, the steps per second when playing, and how to make it. */
export const PLOTS = {
  'a-convergence': { page: 'lp.html', rate: 20, label: 'paper A: the duality gap and the objectives against the iteration', make: lp((pg, c) => pg.drawConvergence(c, sizeCanvas(c))) },
  'a-spikes': { page: 'lp.html', rate: 20, label: 'paper A: the recovered w against the true spikes', make: lp((pg, c) => pg.drawSpikes(c, sizeCanvas(c), 0.1)) },
  'b-fit': { page: 'mrlsr.html', rate: 12, label: 'paper B: the M-RLSR fit as λ sweeps', make: mrlsr },
  'c-map': { page: 'dinuzzo.html', rate: 8, label: 'paper C: the decision function, its margins and support vectors', make: dinuzzo((pg, c) => pg.drawMap(c, sizeCanvas(c))) },
  'c-convergence': { page: 'dinuzzo.html', rate: 8, label: 'paper C: convergence sweep by sweep', make: dinuzzo((pg, c) => pg.drawConvergence(c, sizeCanvas(c))) },
  'd-boundary': { page: 'perceptron.html', rate: 10, label: 'paper D: the perceptron\'s decision boundary', make: perceptron },
};
/** The paper page's main plot: what "Copy embed code" embeds. */
export const MAIN_PLOT = { 'paper-a': 'a-convergence', 'paper-b': 'b-fit', 'paper-c': 'c-map', 'paper-d': 'd-boundary' };

function lp(draw) {
  return (spec, c) => {
    const pg = new Playground(JSON.stringify(spec ?? JSON.parse(defaultSpec())));
    let s = pg.summary();
    return {
      step() { s = pg.step(); },
      draw: () => draw(pg, c),
      done: () => s.status !== 'running',
      reset() { pg.reset(); s = pg.summary(); },
      status: () => `iteration ${s.iter} · ${s.status}`,
    };
  };
}

/**
 * Paper B's eigendecomposition of `sp` in page B's worker (www/mrlsr-worker.js), while the Gram
 * matrix is built here in slices of a few ms per frame; then adopted as page B does
 * (MrlsrAdopt): K finished, the worker's Q copied in from its transferred buffer and checked,
 * the first fit, a few ms per frame. No main-thread task of the O(n³) step nor of the O(n²)
 * adoption (issue 36: 3.6 s at n = 2 000 in `new MrlsrPage`, then 0.2–0.4 s in
 * `MrlsrPage.fromEigenAndGram`). Rejects with the worker's or the core's message.
 */
async function mrlsrPageOffMain(sp) {
  const json = JSON.stringify(sp);
  const gram = new MrlsrGram(json); // the spec's checks (a message naming the field) and the data
  let done = false;
  const tick = () => {
    if (done) return;
    try {
      if (!gram.advance(8)) requestAnimationFrame(tick);
    } catch {
      // a non-finite kernel value: the adoption below finishes K and reports it
    }
  };
  requestAnimationFrame(tick);
  const worker = new Worker(new URL('./mrlsr-worker.js', import.meta.url), { type: 'module' });
  let job = null;
  try {
    const d = await new Promise((resolve, reject) => {
      worker.onmessage = (ev) => {
        const m = ev.data;
        if (m?.type === 'eigen') resolve(m);
        else if (m?.type === 'error') reject(new Error(String(m.message)));
      };
      worker.onerror = (ev) => { ev.preventDefault(); reject(new Error(`the background worker failed: ${ev.message || 'could not start'}`)); };
      worker.postMessage({ id: 1, type: 'eigen', spec: sp });
    });
    done = true;
    worker.terminate();
    job = new MrlsrAdopt(json, d.values, d.vectors, d.eigen_ms, gram);
    while (!job.advance(8)) await new Promise((r) => requestAnimationFrame(r));
    document.body.dataset.adoptSlices = String(job.slices());
    const page = job.finish();
    job = null;
    return page;
  } finally {
    done = true;
    worker.terminate();
    if (job) job.free();
    gram.free();
    document.body.dataset.mainEigen = JSON.stringify(mrlsrWholeMatrixCalls()); // tests: 0 here
  }
}

async function mrlsr(spec, c) {
  const sp = spec ?? MRLSR_DEFAULT;
  const page = await mrlsrPageOffMain(sp);
  const m = sp.m ?? 1.5;
  const N = 60; // refits per sweep of log10 λ from −5 to 0 and back
  let k = 0;
  let lambda = sp.lambda ?? 1e-3;
  return {
    step() {
      const u = (k % (2 * N)) / N;
      lambda = 10 ** (-5 + 5 * (u <= 1 ? u : 2 - u));
      page.refit(m, lambda);
      k++;
    },
    draw: () => page.drawFit(c, sizeCanvas(c)),
    done: () => false,
    reset() { k = 0; lambda = sp.lambda ?? 1e-3; page.refit(m, lambda); },
    status: () => `λ = ${lambda.toExponential(1)}`,
  };
}

function dinuzzo(draw) {
  return (spec, c) => {
    const sp = spec ?? JSON.parse(dinuzzoDefaultSpec());
    sp.race = false;
    const pg = new DinuzzoPlayground(JSON.stringify(sp));
    let n = 0;
    return {
      step() { pg.step(); n++; },
      draw: () => draw(pg, c),
      done: () => !pg.running(),
      reset() { pg.reset(); n = 0; },
      status: () => `step ${n}${pg.running() ? '' : ' · done'}`,
    };
  };
}

function perceptron(spec, c) {
  const pg = new PerceptronPlayground(JSON.stringify(spec ?? JSON.parse(perceptronDefaultSpec())));
  let s = pg.summary();
  return {
    step() { s = pg.step(); },
    draw: () => pg.drawBoundary(c, sizeCanvas(c)),
    done: () => Boolean(s.finished),
    reset() { pg.reset(); s = pg.summary(); },
    status: () => `iteration ${s.iter ?? ''}${s.finished ? ' · done' : ''}`,
  };
}

function fail(msg) {
  $('error').textContent = msg;
  $('error').hidden = false;
  $('status').textContent = 'stopped';
  console.warn(msg);
}

async function main() {
  const name = queryParam('plot') || 'a-convergence';
  // Own properties only: `constructor`, `toString` or `__proto__` are names of every object's
  // prototype, not plots (issue 36: they said "plot.make is not a function").
  const plot = Object.hasOwn(PLOTS, name) ? PLOTS[name] : null;
  if (!plot) { fail(`embed.html?plot=: there is no plot “${clip(name)}”; the plots are ${Object.keys(PLOTS).join(', ')}`); return; }
  let spec = null;
  try {
    const text = specText();
    if (text !== null) spec = JSON.parse(text);
  } catch {
    fail('the spec in the link could not be read: the default is shown');
  }
  await init({ module_or_path: new URL('./pkg/kernel_playground_front_bg.wasm', import.meta.url) });
  const c = $('plot');
  c.setAttribute('aria-label', `live: ${plot.label}`);
  $('open').href = `${plot.page}${spec ? `#spec=${encodeURIComponent(JSON.stringify(spec))}` : ''}`;
  let k;
  try {
    k = await plot.make(spec, c);
  } catch (e) {
    fail(`this spec cannot be embedded: ${e.message ?? e} — the paper's default is shown`);
    k = await plot.make(null, c);
  }
  let playing = false;
  let steps = 0;
  let owed = 0;
  let last = 0;
  const show = () => {
    k.draw();
    $('status').textContent = k.status();
    document.body.dataset.steps = String(steps);
    document.body.dataset.done = k.done() ? '1' : '0';
  };
  const setPlaying = (on) => {
    playing = on && !k.done();
    $('play').textContent = playing ? 'Pause' : 'Play';
    document.body.dataset.playing = playing ? '1' : '0';
    last = 0;
  };
  const stepOnce = () => { if (!k.done()) { k.step(); steps++; } };
  const frame = (now) => {
    if (playing) {
      const dt = last ? Math.min(now - last, 250) : 0;
      last = now;
      owed = Math.min(owed + (plot.rate * dt) / 1000, 3);
      let moved = false;
      while (owed >= 1 && !k.done()) { stepOnce(); owed -= 1; moved = true; }
      if (moved) show();
      if (k.done()) setPlaying(false);
    }
    requestAnimationFrame(frame);
  };
  $('play').addEventListener('click', () => setPlaying(!playing));
  $('step').addEventListener('click', () => { setPlaying(false); stepOnce(); show(); });
  $('reset').addEventListener('click', () => { setPlaying(false); k.reset(); steps = 0; show(); });
  new ResizeObserver(() => k.draw()).observe(c);
  show();
  document.body.dataset.plot = name;
  document.body.dataset.ready = '1';
  // Autoplay unless the embedding page asks otherwise (?autoplay=0) or the reader prefers less motion.
  if (queryParam('autoplay') !== '0' && !window.matchMedia('(prefers-reduced-motion: reduce)').matches) setPlaying(true);
  requestAnimationFrame(frame);
}

main().catch((e) => fail(`The engine could not start: ${e.message ?? e}`));
