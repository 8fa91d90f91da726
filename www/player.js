// One frame loop for every page, after TensorFlow Playground's Player: Play / Pause / Step /
// Reset, a speed in iterations (or sweeps) per second from 1/s to "max" (as many as fit in the
// per-frame time budget), and the keyboard (space = play/pause, → = step, r = reset).
//
// The rules, the same on every page:
// - Step pauses, then advances exactly one iteration; after the run has ended (converged, cap,
//   diverged, certificate…) it advances none and says so in the aria-live note.
// - Play after the end starts the run again from iteration 0.
// - Reset goes back to iteration 0 and keeps the play/pause state.
// The page supplies an engine; the player owns no mathematics.
import { $, isTypingField, spaceIsOwn } from './common.js';
import { queryParam, writeUrl } from './url.js';

/** The speed ladder (iterations per second); the last rung is "max". */
export const SPEEDS = [1, 2, 3, 5, 10, 15, 20, 30, 50, 100, 200, 500, 1000, 2000, Infinity];
/** Milliseconds of solver work per animation frame at most, so the page never freezes. */
export const FRAME_BUDGET_MS = 12;

const speedText = (r, unit) => (r === Infinity ? 'max' : `${r} ${unit}/s`);

/** `?speed=` from the URL: a number of iterations per second or "max"; null when absent. */
export function speedFromUrl() {
  const raw = queryParam('speed');
  if (raw === null) return null;
  if (raw === 'max') return Infinity;
  const v = Number(raw);
  return Number.isFinite(v) && v > 0 ? v : null;
}

export class Player {
  /**
   * `engine` is the page's run:
   *  - `step()`: one iteration, returns the summary;
   *  - `runFor(ms)`: as many iterations as fit in `ms`, returns the summary;
   *  - `ended()`: whether the run has ended; `endLabel()`: why (e.g. "converged");
   *  - `reset()`: back to iteration 0; `show(summary)`: readouts and plots after progress;
   *  - `ready()` (optional): false while the run cannot step (e.g. a Gram tensor not built);
   *  - `tick(ms)` (optional): other per-frame work (a race), run every frame.
   * `speed` is the page's default in iterations per second (a `?speed=` in the URL wins).
   */
  constructor(engine, { speed = 20, unit = 'iterations' } = {}) {
    this.engine = engine;
    this.unit = unit;
    this.playing = true;
    this.urlSpeed = speedFromUrl() !== null; // a link's speed wins over lessons' speeds
    this.rate = speedFromUrl() ?? speed;
    this.arrowsTaken = false; // a lesson uses ←/→ for its steps
    this.owed = 0;
    this.last = 0;
    this.frames = 0; // frames in which the player was playing a running run
    this.steps = 0; // iterations the player made (play and step)
    this.onReset = []; // called after Reset (a lesson hides the explanation of a run now gone)
    this.onPlaying = []; // called with the new state after play or pause
    this.wire();
    this.showSpeed();
    requestAnimationFrame((t) => this.frame(t));
  }

  wire() {
    $('play').addEventListener('click', () => this.toggle());
    $('step').addEventListener('click', () => this.stepOnce());
    $('reset').addEventListener('click', () => this.resetRun());
    const sp = $('speed');
    if (sp) {
      sp.max = String(SPEEDS.length - 1);
      sp.addEventListener('input', () => {
        this.setRate(SPEEDS[Number(sp.value)] ?? Infinity);
      });
    }
    document.addEventListener('keydown', (ev) => this.key(ev));
  }

  /** Keyboard shortcuts, whatever control has focus except a text or number field (and → when
   *  a lesson owns it); space stays a focused button's, box's or menu's own action. */
  key(ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented) return;
    const t = ev.target;
    if (isTypingField(t)) return;
    if (ev.key === ' ' || ev.code === 'Space') {
      if (spaceIsOwn(t)) return; // the focused control's own click
      ev.preventDefault();
      this.toggle();
    } else if (ev.key === 'ArrowRight' && !this.arrowsTaken) {
      ev.preventDefault();
      this.stepOnce();
    } else if (ev.key === 'r' || ev.key === 'R') {
      ev.preventDefault();
      this.resetRun();
    }
  }

  setRate(r, toUrl = true) {
    this.rate = r;
    this.owed = 0;
    this.showSpeed();
    if (!toUrl) return;
    writeUrl({ query: { speed: r === Infinity ? 'max' : String(r) } });
  }

  showSpeed() {
    const sp = $('speed');
    if (sp) {
      let i = SPEEDS.findIndex((s) => s >= this.rate);
      if (i < 0) i = SPEEDS.length - 1;
      sp.value = String(i);
      sp.setAttribute('aria-valuetext', speedText(this.rate, this.unit));
    }
    const out = $('speed-out');
    if (out) out.textContent = speedText(this.rate, this.unit);
    document.body.dataset.speed = this.rate === Infinity ? 'max' : String(this.rate);
  }

  note(msg) {
    const n = $('step-note');
    if (n) {
      n.textContent = msg;
      n.hidden = !msg;
    }
  }

  setPlaying(on) {
    this.playing = on;
    this.owed = 0;
    $('play').textContent = on ? 'Pause' : 'Play';
    document.body.dataset.playing = on ? '1' : '0';
    this.engine.playingChanged?.(on); // e.g. the status readout: "paused", not "running"
    for (const f of this.onPlaying) f(on);
  }

  count(k) {
    this.steps += k;
    document.body.dataset.playerSteps = String(this.steps);
  }

  toggle() {
    const restart = !this.playing && this.engine.ended();
    if (restart) {
      this.engine.reset();
      this.note('');
    }
    this.setPlaying(!this.playing);
    if (restart) for (const f of this.onReset) f();
  }

  /** Step: pause, then one iteration, or none after the end (and say so). */
  stepOnce() {
    this.setPlaying(false);
    if (this.engine.ready && !this.engine.ready()) return;
    if (this.engine.ended()) {
      this.note(`The run has ended (${this.engine.endLabel()}): Step advances no iteration — Reset starts it again.`);
      document.body.dataset.stepRefused = String(Number(document.body.dataset.stepRefused || 0) + 1);
      return;
    }
    try {
      const s = this.engine.step();
      this.count(1);
      this.engine.show(s, true);
      if (this.engine.ended()) this.note(`The run has ended (${this.engine.endLabel()}).`);
    } catch (e) {
      this.fail(e);
    }
  }

  resetRun() {
    try {
      this.engine.reset();
    } catch (e) {
      this.fail(e);
      return;
    }
    this.note('');
    this.owed = 0;
    for (const f of this.onReset) f();
  }

  /** A new run (a new spec): play it from the start. */
  restarted(play = true) {
    this.note('');
    this.setPlaying(play);
  }

  fail(e) {
    this.setPlaying(false);
    this.engine.error?.(e);
  }

  frame(now) {
    const dt = this.last ? Math.min(now - this.last, 250) : 0;
    this.last = now;
    const e = this.engine;
    try {
      e.tick?.(FRAME_BUDGET_MS);
      if (this.playing && (!e.ready || e.ready()) && !e.ended()) {
        this.frames++;
        document.body.dataset.playerFrames = String(this.frames);
        let s = null;
        if (this.rate === Infinity) {
          s = e.runFor(FRAME_BUDGET_MS);
          this.count(s.steps_this_call ?? 0);
        } else {
          // Iterations owed at this speed; at most one frame budget of work, the rest dropped.
          this.owed = Math.min(this.owed + (this.rate * dt) / 1000, Math.max(1, this.rate / 4));
          const t0 = performance.now();
          let k = 0;
          while (this.owed >= 1 && !e.ended() && performance.now() - t0 < FRAME_BUDGET_MS) {
            s = e.step();
            this.owed -= 1;
            k++;
          }
          this.count(k);
        }
        if (s) e.show(s, this.rate !== Infinity || e.ended());
        if (e.ended()) {
          this.setPlaying(false);
          this.note(`The run has ended (${e.endLabel()}).`);
        }
      }
    } catch (err) {
      this.fail(err);
    }
    requestAnimationFrame((t) => this.frame(t));
  }
}
