// Export, shared by the pages: each plot as PNG at device resolution (the canvas's backing store
// is CSS size × devicePixelRatio), the spec as JSON with the `kplay run` command that reproduces
// the run, the run as JSON (spec + summary + trace + solution + the build), the trace and the data as CSV.
import { dataCsv } from './pkg/kernel_playground.js';
import { showError } from './common.js';
import { readUrl } from './url.js';
import { BUILD } from './build.js';
import { lessonEmbedCode } from './lesson-embed.js';

/** Offer `blob` as a download named `name`. */
export function download(name, blob) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60000);
}

const json = (o) => new Blob([JSON.stringify(o, null, 1)], { type: 'application/json' });

/** The records `[{…}, …]` as CSV: one column per key (nested values as JSON). */
export function toCsv(rows) {
  if (!Array.isArray(rows) || rows.length === 0) return '';
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v) => {
    if (v === null || v === undefined) return '';
    const t = typeof v === 'object' ? JSON.stringify(v) : String(v);
    return /[",\n]/.test(t) ? `"${t.replaceAll('"', '""')}"` : t;
  };
  return `${keys.join(',')}\n${rows.map((r) => keys.map((k) => cell(r[k])).join(',')).join('\n')}\n`;
}

// "Copy embed code": each paper page's main plot, alone in an <iframe> (embed.html, embed.js).
const EMBED = { 'lp.html': 'a-convergence', 'mrlsr.html': 'b-fit', 'dinuzzo.html': 'c-map', 'perceptron.html': 'd-boundary' };

/**
 * The iframe tag that embeds this page's main plot with `spec` (JSON text), or null; during a
 * lesson (`#lesson=a&step=3`), the lesson from that step with Prev / Next (lesson-embed.js).
 */
export function embedCode(spec) {
  const file = location.pathname.split('/').pop() || 'index.html';
  const plot = EMBED[file];
  if (!plot) return null;
  const attr = (s) => s.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
  const lesson = readUrl().hash.match(/^lesson=([a-z]+)(?:&step=(\d{1,3}))?$/);
  if (lesson) return lessonEmbedCode(lesson[1], Number(lesson[2] ?? 1), 'lesson');
  const src = new URL(`embed.html?plot=${plot}#spec=${encodeURIComponent(spec)}`, location.href).href;
  return `<iframe src="${attr(src)}" width="640" height="420" style="border:0;max-width:100%" title="Kernel Playground: live plot" loading="lazy"></iframe>`;
}

/**
 * Add the export controls to the page. `hooks.spec()` is the spec (JSON text) of the run shown;
 * `hooks.run()` the run as an object `{ spec, summary, trace, solution }` (omit both for a page
 * that only exports plots); `hooks.trace: false` for a page without iterations (no CSV).
 */
export function attachExport(hooks = {}) {
  for (const fig of document.querySelectorAll('.plots figure')) {
    const c = fig.querySelector('canvas');
    if (!c || !c.id) continue;
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'png';
    b.dataset.canvas = c.id;
    b.textContent = 'PNG';
    b.setAttribute('aria-label', `save the plot “${c.getAttribute('aria-label') || c.id}” as a PNG image`);
    b.addEventListener('click', () => c.toBlob((blob) => blob && download(`${c.id}.png`, blob), 'image/png'));
    // Beside the caption, not in it: some pages rewrite their captions.
    let tools = fig.querySelector('.fig-tools');
    if (!tools) {
      tools = document.createElement('div');
      tools.className = 'fig-tools';
      fig.appendChild(tools);
    }
    tools.appendChild(b);
  }
  if (!hooks.spec) return;
  const box = document.createElement('fieldset');
  box.className = 'export';
  box.innerHTML = `<legend>Export</legend>
    <div class="export-row"><button type="button" id="save-spec">Save spec</button>
      <span>then <code id="kplay-cmd">kplay run spec.json</code> reproduces the run on the command line</span></div>
    <div class="export-row"><button type="button" id="save-run">Save run (JSON)</button>
      ${hooks.trace === false ? '' : '<button type="button" id="save-trace">Save trace (CSV)</button>'}
      <button type="button" id="save-data">Save data (CSV)</button></div>
    ${embedCode('{}') ? `<div class="export-row"><button type="button" id="copy-embed">Copy embed code</button>
      <span>the live plot alone (in a lesson: the lesson from this step), for an iframe in a course page or slides</span>
      <textarea id="embed-code" readonly rows="3" aria-label="embed code" style="width:100%" hidden></textarea></div>` : ''}`;
  const anchor = document.querySelector('.controls .readouts');
  if (anchor) anchor.after(box); else document.querySelector('.controls')?.appendChild(box);
  // A form that does not read as a spec (a cleared number field, say) gives a message naming the
  // field, never an uncaught error.
  const guarded = (f) => () => {
    try {
      f();
    } catch (e) {
      showError(e.message ?? String(e));
    }
  };
  box.querySelector('#save-spec').addEventListener('click', guarded(() => {
    download('spec.json', new Blob([hooks.spec()], { type: 'application/json' }));
  }));
  box.querySelector('#save-run').addEventListener('click', guarded(() => download('run.json', json({ ...hooks.run(), build: BUILD }))));
  box.querySelector('#save-data').addEventListener('click', guarded(() => {
    download('data.csv', new Blob([dataCsv(hooks.spec())], { type: 'text/csv' }));
  }));
  box.querySelector('#copy-embed')?.addEventListener('click', async () => {
    let code;
    try {
      code = embedCode(hooks.spec());
    } catch (e) {
      showError(e.message ?? String(e));
      return;
    }
    const area = box.querySelector('#embed-code');
    area.value = code;
    area.hidden = false;
    area.select();
    try { await navigator.clipboard.writeText(code); } catch { /* the selected text stays for Ctrl-C */ }
  });
  box.querySelector('#save-trace')?.addEventListener('click', guarded(() => {
    download('trace.csv', new Blob([toCsv(hooks.run().trace)], { type: 'text/csv' }));
  }));
}
