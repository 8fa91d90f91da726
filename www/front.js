// The front page: one live card per paper, each the real engine on a small spec, stepped a few
// iterations per second in one shared animation frame loop (no GIF, no recording). A finished run
// rests for a moment on its last picture, then starts again. No mathematics here.
import init, { Playground, MrlsrPage, DinuzzoPlayground, dinuzzoDefaultSpec, PerceptronPlayground, perceptronDefaultSpec } from './pkg/kernel_playground.js';
import { $, sizeCanvas } from './common.js';
import { queryParam, writeUrl } from './url.js';

const REST_MS = 1500; // the last picture of a finished run stays this long
let paused = false;

/** A card: `advance()` makes one iteration (or one refit) and draws it; `done()`; `restart()`. */
function card(id, rate, make) {
  const c = $(`live-${id}`);
  const art = $(`card-${id}`);
  // One iteration owed from the start: a card's first frame already draws a new iterate.
  const st = { id, c, art, rate, owed: 1, restAt: 0, frames: 0, ...make(c) };
  return st;
}

function cardA(c) {
  const spec = { data: { kind: 'sparse_regression', n: 40, d: 120, k: 5, sigma: 0.05, seed: 3 },
    model: { problem: 'lp_regression', p: 1.2, gamma: 10 }, solver: { tol: 1e-9 } };
  const pg = new Playground(JSON.stringify(spec));
  let s = pg.summary();
  return {
    advance() { s = pg.step(); pg.drawSpikes(c, sizeCanvas(c), 0.1); },
    draw() { pg.drawSpikes(c, sizeCanvas(c), 0.1); },
    done: () => s.status !== 'running',
    restart() { pg.reset(); s = pg.summary(); },
  };
}

function cardB(c) {
  const spec = { data: { kind: 'sine', n: 40, sigma: 0.2, seed: 1 }, kernel: { kind: 'gaussian', bandwidth: 'heuristic' }, m: 1.5, lambda: 1e-3 };
  const page = new MrlsrPage(JSON.stringify(spec));
  let k = 0;
  const N = 60; // refits per sweep of log10 λ from −5 to 0 and back
  return {
    advance() {
      const u = (k % (2 * N)) / N;
      const logl = -5 + 5 * (u <= 1 ? u : 2 - u);
      page.refit(1.5, 10 ** logl);
      page.drawFit(c, sizeCanvas(c));
      k++;
    },
    draw() { page.drawFit(c, sizeCanvas(c)); },
    done: () => false,
    restart() {},
  };
}

function cardC(c) {
  const spec = JSON.parse(dinuzzoDefaultSpec());
  if (spec.data && spec.data.n !== undefined) spec.data.n = 80;
  spec.race = false;
  const pg = new DinuzzoPlayground(JSON.stringify(spec));
  return {
    advance() { pg.step(); pg.drawMap(c, sizeCanvas(c)); },
    draw() { pg.drawMap(c, sizeCanvas(c)); },
    done: () => !pg.running(),
    restart() { pg.reset(); },
  };
}

function cardD(c) {
  const spec = JSON.parse(perceptronDefaultSpec());
  // A narrower gap than the page's default, so the boundary has to move a while to separate.
  if (spec.data && spec.data.set && spec.data.set.shape) spec.data.set.shape.margin = 0.02;
  const pg = new PerceptronPlayground(JSON.stringify(spec));
  let s = pg.summary();
  return {
    advance() { s = pg.step(); pg.drawBoundary(c, sizeCanvas(c)); },
    draw() { pg.drawBoundary(c, sizeCanvas(c)); },
    done: () => Boolean(s.finished),
    restart() { pg.reset(); s = pg.summary(); },
  };
}

const cards = [];
// Cards not built yet: the first card is built before the first frame, the others one per frame
// from the second on (each costs 20–100 ms to set up and draw), so the page moves as soon as the engine
// is up instead of after all four are ready. Then the page is ready (body.dataset.ready).
const pending = [['a', 8, cardA], ['b', 12, cardB], ['c', 6, cardC], ['d', 10, cardD]];
let last = 0;

/** Build the next pending card (its first picture drawn); the last one marks the page ready. */
function buildNext() {
  const [id, rate, make] = pending.shift();
  try {
    const k = card(id, rate, make);
    k.draw();
    cards.push(k);
  } catch (e) {
    $(`card-${id}`).dataset.error = String(e.message ?? e);
    console.error(`card ${id}: ${e.message ?? e}`);
  }
  if (!pending.length) {
    performance.mark('kplay:cards');
    document.body.dataset.ready = '1';
  }
}

function frame(now) {
  const dt = last ? Math.min(now - last, 250) : 0;
  // One more card per frame after the first (whose frame is the first card's first move).
  if (pending.length && last) buildNext();
  last = now;
  if (!paused) {
    for (const k of cards) {
      try {
        if (k.done()) {
          if (!k.restAt) k.restAt = now;
          if (now - k.restAt < REST_MS) continue;
          k.restAt = 0;
          k.restart();
        }
        k.owed = Math.min(k.owed + (k.rate * dt) / 1000, 2);
        while (k.owed >= 1 && !k.done()) {
          k.advance();
          k.owed -= 1;
          k.frames++;
          k.art.dataset.frames = String(k.frames);
        }
      } catch (e) {
        k.art.dataset.error = String(e.message ?? e);
        console.error(`card ${k.id}: ${e.message ?? e}`);
        cards.splice(cards.indexOf(k), 1);
      }
    }
    if (!document.body.dataset.firstMoveMs && cards.some((k) => k.frames > 0)) {
      document.body.dataset.firstMoveMs = performance.now().toFixed(0); // since navigation start
    }
  }
  requestAnimationFrame(frame);
}

async function main() {
  // Compiled during parsing by wasm-early.js when it could; else fetched and compiled here.
  const compiled = self.kplayWasm ? await self.kplayWasm.catch(() => null) : null;
  await init({ module_or_path: compiled ?? new URL('./pkg/kernel_playground_front_bg.wasm', import.meta.url) });
  performance.mark('kplay:init');
  buildNext();
  // Classroom mode for the links: ?classroom=1 on every Explore and Lesson link (and in this URL).
  const links = [...document.querySelectorAll('.card .go a')];
  const base = links.map((a) => a.getAttribute('href'));
  const setClassroom = (on) => {
    links.forEach((a, i) => {
      const [path, hash] = base[i].split('#');
      a.setAttribute('href', `${path}${on ? '?classroom=1' : ''}${hash ? `#${hash}` : ''}`);
    });
    writeUrl({ query: { classroom: on ? '1' : null } });
    document.body.dataset.classroom = on ? '1' : '0';
  };
  $('front-classroom').checked = queryParam('classroom') === '1';
  setClassroom($('front-classroom').checked);
  $('front-classroom').addEventListener('change', () => setClassroom($('front-classroom').checked));
  // Moving pictures wait for a click when the system asks for reduced motion.
  if (window.matchMedia('(prefers-reduced-motion: reduce)').matches) {
    paused = true;
    $('pause-all').textContent = 'Play the animations';
  }
  $('pause-all').addEventListener('click', () => {
    paused = !paused;
    $('pause-all').textContent = paused ? 'Play the animations' : 'Pause the animations';
    $('front-status').textContent = paused ? 'Animations paused.' : 'The four solvers are running live.';
  });
  $('front-status').textContent = paused ? 'Animations paused (reduced motion): Play starts them.' : 'The four solvers are running live.';
  window.addEventListener('resize', () => { for (const k of cards) k.draw(); });
  requestAnimationFrame(frame);
}

main().catch((e) => {
  $('front-status').textContent = `The engine could not start: ${e.message ?? e}`;
  console.error(e);
});
