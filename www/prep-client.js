// The page's side of a large problem's O(n²) preparation in a module Worker on every core (issue
// 21 §3), shared by the pages of papers C and D: www/prep-worker.js loads the threaded build and
// computes what the page would otherwise compute in slices on its own thread; the page checks
// what comes back against its own spec and adopts it (the wasm `adoptPrepared`). Here: whether
// a worker may be used, one request at a time, stale answers ignored, a timeout, and the
// fallback to the page's slices on any failure (a worker that cannot start, an error, no answer,
// a refusal). The page never waits on the worker to stay usable. No mathematics here.
//
// `document.body.dataset.prepWorker` says what happened, for the e2e tests: 'running', then the
// number of threads once adopted, or 'slices' (the worker gave up) or 'refused' (the page refused
// its values).

/** Give up on a worker that has not answered by then: the page prepares in slices. */
export const PREP_TIMEOUT_MS = 120000;

/** Whether a worker can prepare on threads here: isolated, shared memory, 2 cores or more. */
export const threadsHere = () => self.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function' && (navigator.hardwareConcurrency || 1) >= 2;

export class PrepWorker {
  /**
   * @param {object} o
   * @param {string} o.paper  the worker's preparation: 'dinuzzo' or 'perceptron'
   * @param {string} o.what   what it computes, for the readouts ("the kernel matrix")
   * @param {(text: string|undefined) => void} o.note  say `text` where the page shows its
   *   progress (`undefined`: back to the page's own)
   * @param {() => void} o.started  the worker has started on its threads (redraw the note)
   * @param {(d: object) => void} o.adopt  hand the answer to the page; throws when refused
   * @param {() => void} o.adopted  after a successful adoption
   * @param {HTMLElement} o.status  where the timing of an adopted preparation is said
   */
  constructor(o) {
    this.o = o;
    this.worker = null; // { worker, busy }
    this.job = null; // the current problem's request: { id, t0, threads, timer }
    this.seq = 0;
    this.shown = 0; // when the progress was last shown
  }

  /** In the page's per-frame tick while a request is under way (the page must not prepare in
   *  slices meanwhile): calls `show` (the page's readout of `text()`) a few times a second.
   *  Returns whether a request is under way. */
  tick(show) {
    if (!this.job) return false;
    if (performance.now() - this.shown > 250) {
      this.shown = performance.now();
      show();
    }
    return true;
  }

  /** Whether a request is under way (the page shows `text()` instead of its own progress). */
  get running() {
    return this.job !== null;
  }

  /** The progress readout while the worker computes. */
  text() {
    const secs = ((performance.now() - this.job.t0) / 1000).toFixed(1);
    const on = this.job.threads ? `on ${this.job.threads} threads` : 'on every core';
    return `computing ${this.o.what} ${on} in a worker: ${secs} s`;
  }

  /** Forget the request, if any; a worker still busy on it is terminated (its answer never
   *  comes), an idle one is kept warm for the next problem (no new start-up: module, wasm,
   *  thread pool). */
  stop() {
    if (!this.job) return;
    clearTimeout(this.job.timer);
    if (this.worker?.busy) {
      this.worker.worker.terminate();
      this.worker = null;
    }
    this.job = null;
    this.o.note(undefined);
  }

  /** A new problem: prepare it in a worker on threads when `offloadable` (the page has a whole
   *  kernel matrix ahead) and the page allows threads; otherwise the page's slices do it. */
  start(specJson, offloadable) {
    this.stop();
    this.o.status.hidden = true;
    if (!offloadable || !threadsHere()) return;
    const id = ++this.seq;
    if (!this.worker) {
      try {
        this.worker = { worker: new Worker(new URL('./prep-worker.js', import.meta.url), { type: 'module' }), busy: false };
      } catch (e) {
        console.warn(`no preparation worker, preparing in slices: ${e.message ?? e}`);
        return;
      }
    }
    const { worker } = this.worker;
    this.worker.busy = true;
    const job = { id, t0: performance.now(), threads: 0, timer: 0 };
    this.job = job;
    document.body.dataset.prepWorker = 'running';
    this.o.note(`computing ${this.o.what} in a worker…`);
    const fallBack = (why) => {
      if (this.job !== job) return;
      console.warn(`the preparation worker gave up (${why}): preparing in slices`);
      this.stop();
      document.body.dataset.prepWorker = 'slices';
    };
    job.timer = setTimeout(() => fallBack(`no answer in ${PREP_TIMEOUT_MS / 1000} s`), PREP_TIMEOUT_MS);
    worker.onmessage = (ev) => {
      const d = ev.data ?? {};
      if (this.job !== job || d.id !== id) return; // a stale answer
      if (d.type === 'started') {
        job.threads = d.threads;
        this.o.note(`computing ${this.o.what} on ${d.threads} threads in a worker…`);
        this.o.started();
      } else if (d.type === 'prepared') this.take(job, d);
      else fallBack(d.type === 'error' ? d.message : `unexpected message ${d.type}`);
    };
    worker.onerror = (ev) => {
      ev.preventDefault?.();
      fallBack(ev.message || 'the worker could not start');
    };
    worker.postMessage({ id, type: 'prepare', paper: this.o.paper, spec: specJson });
  }

  /** The worker's answer: the page checks it against its own spec and adopts it. */
  take(job, d) {
    this.worker.busy = false;
    this.stop();
    const t0 = performance.now();
    try {
      this.o.adopt(d);
    } catch (e) {
      // What was refused is prepared in slices from where it is.
      console.warn(`the worker's preparation was refused (${e.message ?? e}): preparing in slices`);
      document.body.dataset.prepWorker = 'refused';
      return;
    }
    const ms = performance.now() - t0;
    document.body.dataset.prepWorker = String(d.threads);
    const total = ((performance.now() - job.t0) / 1000).toFixed(2);
    this.o.status.textContent = `Prepared in a worker on ${d.threads} threads: ${total} s from the new problem to ${this.o.what} in the page (${(d.ms / 1000).toFixed(2)} s computing, adopted and checked in ${ms.toFixed(0)} ms).`;
    this.o.status.hidden = false;
    this.o.adopted();
  }
}
