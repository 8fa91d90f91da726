// The four papers this site teaches: one catalogue, read by the front page (a line under each
// card) and by each paper page (a line under its header). Authors and titles are printed in the
// paper texts the project works from (/work/shared/papers/, see docs/design.md); a year, venue or
// address comes from the text itself (B) or from a stored public page matched by title and authors
// (C, D: below). Where neither gives one, the entry has none (null) and the page says so; nothing
// here is filled in from memory.
//
//  - A: title page of salzo-suykens-rosasco-lp-tensor-kernels.txt (no date, venue or identifier;
//    the arXiv number in its references, 1603.05876, is another paper's).
//  - B: the HAL cover page of audiffren-kadri-equivalence-mrlsr.txt ("Preprint submitted on
//    10 Jun 2014", "HAL Id: hal-01003191 https://hal.science/hal-01003191").
//  - C: title page of dinuzzo-fixed-point-coordinate-descent.txt (dated "July 2, 2018"; no venue).
//  - D: title page of ramdas-pena-smoothed-kernel-perceptrons.txt (no date, venue or identifier).
//
// Two public versions are added from outside the paper texts, each matched by title and authors
// against a stored copy of the public page (the project's search library, 2026-11-28), never
// from memory:
//  - C: arXiv 1008.5090, "Fixed-point and coordinate descent algorithms for regularized kernel
//    methods", Francesco Dinuzzo (ar5iv.labs.arxiv.org/html/1008.5090, math-arch.org's listing
//    with link http://arxiv.org/abs/1008.5090). The date our text prints (2 July 2018) is also
//    printed by a stored copy of that entry's PDF: probably a build date, not a later version.
//  - D: Proceedings of the 31st International Conference on Machine Learning (ICML), Beijing,
//    2014, PMLR 32(1):244–252 (proceedings.mlr.press/v32/ramdas14.html; the same page header
//    "Proceedings of the 31st International Conference on Machine Learning, Beijing, China, 2014.
//    JMLR: W&CP volume 32" in the stored PDF text). Our text has other affiliations and no
//    proceedings header: probably the arXiv version, 1505.04123 (same title, authors, abstract).
//  - A: no stored public page was found for its title; it keeps no address.

/** id → { page, authors, title, year, venue, url, dated }: `year`, `venue`, `url` null where
 *  neither the text nor a matched public page gives one; `dated` the date the text carries when it is not a publication year. */
export const PAPERS = Object.freeze({
  a: Object.freeze({
    page: 'lp.html',
    authors: ['Saverio Salzo', 'Johan A. K. Suykens', 'Lorenzo Rosasco'],
    title: 'Solving ℓp-norm regularization with tensor kernels',
    year: null,
    venue: null,
    url: null,
    dated: null,
  }),
  b: Object.freeze({
    page: 'mrlsr.html',
    authors: ['Julien Audiffren', 'Hachem Kadri'],
    title: 'Equivalence of Learning Algorithms',
    year: 2014,
    venue: 'HAL preprint hal-01003191, submitted 10 June 2014',
    url: 'https://hal.science/hal-01003191',
    dated: null,
  }),
  c: Object.freeze({
    page: 'dinuzzo.html',
    authors: ['Francesco Dinuzzo'],
    title: 'Fixed-point and coordinate descent algorithms for regularized kernel methods',
    year: null,
    venue: 'arXiv:1008.5090',
    url: 'https://arxiv.org/abs/1008.5090',
    dated: 'the version we use is dated 2 July 2018',
  }),
  d: Object.freeze({
    page: 'perceptron.html',
    authors: ['Aaditya Ramdas', 'Javier Peña'],
    title: 'Margins, Kernels and Non-linear Smoothed Perceptrons',
    year: 2014,
    venue: 'ICML, PMLR 32:244–252; our text is probably arXiv:1505.04123',
    url: 'https://proceedings.mlr.press/v32/ramdas14.html',
    dated: null,
  }),
});

/** "A, B and C". */
const names = (list) => (list.length < 2 ? list.join('') : `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`);

/**
 * Fill `el` with paper `id`'s reference, built as DOM nodes: "Paper: authors, *title* (year,
 * venue) — read it at <address>", or, where the text prints no address, a note that it does not.
 */
export function renderPaperRef(el, id) {
  const p = PAPERS[id];
  if (!p) return;
  el.replaceChildren();
  el.dataset.paperFilled = id;
  const add = (node) => el.append(node);
  const label = document.createElement('span');
  label.className = 'paper-ref-label';
  label.textContent = 'Paper: ';
  add(label);
  add(document.createTextNode(`${names(p.authors)}, `));
  const t = document.createElement('cite');
  t.textContent = p.title;
  add(t);
  const facts = [p.year, p.venue, p.dated].filter((x) => x !== null && x !== undefined);
  if (facts.length) add(document.createTextNode(` (${facts.join(', ')})`));
  add(document.createTextNode('. '));
  if (p.url) {
    const a = document.createElement('a');
    a.className = 'paper-link';
    a.href = p.url;
    a.rel = 'noopener';
    a.textContent = `Read it at ${new URL(p.url).host}`;
    add(a);
  } else {
    const n = document.createElement('span');
    n.className = 'paper-nolink';
    const missing = [p.year === null && p.dated === null ? 'year' : null, p.venue === null ? 'venue' : null, 'public address'].filter(Boolean);
    n.textContent = `The text we work from prints no ${names(missing).replace(' and ', ' or ')}: look it up by its title.`;
    add(n);
  }
}

/** Every `[data-paper-ref]` element of the page gets its paper's reference. */
export function fillPaperRefs(root = document) {
  for (const el of root.querySelectorAll('[data-paper-ref]')) renderPaperRef(el, el.dataset.paperRef);
}

if (typeof document !== 'undefined') fillPaperRefs();
