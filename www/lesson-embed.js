// A lesson in an <iframe> (issue 22), the way embed.html shows one plot: a paper page opened as
// `lp.html?embed=step#lesson=a&step=3` shows that one step (its question, Run it, the explanation)
// and `?embed=lesson` the lesson from that step with its Prev / Next; either way only the lesson
// panel and what the step uses, in classroom mode's one-screen layout, without the page's header,
// footer, export panel or Leave button. The lesson player's "Copy embed code" writes the iframe tag.
// Everything here works from the lesson's id and step number (lesson.js's `#lesson=<id>&step=<k>`),
// never from the lesson's content; no URL text is put into the page as markup.
import { $ } from './common.js';
import { queryParam } from './url.js';
import { attachPhone } from './phone.js';

const KINDS = ['step', 'lesson'];

/** 'step' or 'lesson' from `?embed=`, else null. */
export function lessonEmbedKind() {
  const k = queryParam('embed');
  return KINDS.includes(k) ? k : null;
}

/** The `<iframe>` tag embedding lesson `id` from step `step` of this page; `kind` 'step' (that
 *  step alone) or 'lesson' (with Prev / Next). The URL is absolute: the tag goes into another site. */
export function lessonEmbedCode(id, step, kind, data) {
  if (!/^[a-z]+$/.test(id) || !Number.isInteger(step) || step < 1 || !KINDS.includes(kind)) return null;
  // A lecturer's own lesson travels in the link itself (lesson.js's `#lesson-data=`).
  if (data !== undefined && !/^[jz][A-Za-z0-9_-]+$/.test(data)) return null;
  const which = data !== undefined ? `lesson-data=${data}` : `lesson=${id}`;
  const file = location.pathname.split('/').pop() || 'index.html';
  const src = new URL(`${file}?embed=${kind}#${which}&step=${step}`, location.href).href;
  const attr = (s) => s.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
  const name = data !== undefined ? 'a lecturer\'s lesson' : `lesson ${id}`;
  const title = kind === 'step' ? `Kernel Playground: ${name}, step ${step}` : `Kernel Playground: ${name}`;
  return `<iframe src="${attr(src)}" width="1280" height="720" style="border:0;max-width:100%" title="${attr(title)}" loading="lazy"></iframe>`;
}

/** The lesson panel's embed row (hidden in classroom mode and in an embed). */
export const lessonEmbedMarkup = `
    <div class="lesson-embed-row"><button id="lesson-embed-copy" type="button">Copy embed code</button>
      <label>of <select id="lesson-embed-kind" aria-label="what to embed"><option value="step">this step alone</option><option value="lesson">the lesson from this step (Prev / Next)</option></select></label>
      <textarea id="lesson-embed-code" readonly rows="3" aria-label="lesson embed code" hidden></textarea></div>`;

/**
 * Wire the embed row of the lesson panel (`current()` → `{ id, step }` or null) and, on a page
 * opened with `?embed=`, the embed layout: body classes `lesson-embed` and `embed-step` /
 * `embed-lesson` when `inLesson` (the link names a lesson of this page; without one the page shows
 * as usual); for one step, ←/→ do not leave it. Call after the panel's markup is in place.
 */
export function attachLessonEmbed(current, inLesson) {
  attachPhone();
  $('lesson-embed-copy')?.addEventListener('click', async () => {
    const cur = current();
    const code = cur && lessonEmbedCode(cur.id, cur.step, $('lesson-embed-kind').value, cur.data);
    if (!code) return;
    const area = $('lesson-embed-code');
    area.value = code;
    area.hidden = false;
    area.select();
    try { await navigator.clipboard.writeText(code); } catch { /* the selected text stays for Ctrl-C */ }
  });
  const kind = lessonEmbedKind();
  if (!kind || !inLesson) return;
  document.body.classList.add('lesson-embed', `embed-${kind}`);
  document.body.dataset.embed = kind;
  if (kind === 'step') {
    // Before lesson.js's own handler (document, capture): the arrows stay on this step.
    window.addEventListener('keydown', (ev) => {
      if (current() && (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight')) ev.stopImmediatePropagation();
    }, true);
  }
}
