// Lesson text (docs/lessons.md) to DOM nodes: a small Markdown-and-math subset, built with
// createElement / createTextNode only — nothing from a lesson file is ever parsed as HTML.
//
// Prose: paragraphs (a blank line), lists (every line of a paragraph starting with "- "),
// **bold**, *italic*, `code`, \x (a literal x), {=id} (the number a claim of the step states).
// Math: $…$ inline and $$…$$ as a paragraph of its own, a TeX subset turned into MathML
// elements: letters → <mi>, numbers → <mn>, other characters → <mo>, x_a, x^b, x_a^b, {groups},
// \frac{a}{b}, \sqrt{a}, \text{…}, \mathbb{K}, accents, \left( … \right) (the delimiters
// only), \{ \} \| \, and the named commands of www/tex-commands.js — generated from the Rust
// parser's one list (src/lesson/tex.rs), so a file `kplay lesson check` accepts renders here.
// Characters are read by code point, so a letter outside the BMP (𝕂) stays one letter.

import { TEX_WORDS, TEX_SYMBOLS, TEX_LETTERS, TEX_LARGE } from './tex-commands.js';

const MATHML = 'http://www.w3.org/1998/Math/MathML';
const mm = (tag, ...kids) => {
  const e = document.createElementNS(MATHML, tag);
  for (const k of kids) e.append(k);
  return e;
};
const tok = (tag, text) => {
  const e = document.createElementNS(MATHML, tag);
  e.textContent = text;
  return e;
};
// Words whose subscript goes under them in display math (max over i, lim, argmin).
const UNDER = new Set(['max', 'min', 'sup', 'inf', 'lim', 'argmin', 'argmax']);
const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const BB = { C: 'ℂ', H: 'ℍ', N: 'ℕ', P: 'ℙ', Q: 'ℚ', R: 'ℝ', Z: 'ℤ' };
/** The double-struck form of a Latin capital (𝕂 for K). */
const doubleStruck = (t) => [...t].map((c) => BB[c] ?? (/[A-Z]/.test(c) ? String.fromCodePoint(0x1d538 + c.charCodeAt(0) - 65) : c)).join('');

/** Parse TeX-subset `src` into a list of MathML nodes (`display`: limits under large operators). */
function parseMath(src, display = false) {
  let i = 0;
  const peek = () => src[i];
  function command() {
    let j = i;
    while (j < src.length && /[A-Za-z]/.test(src[j])) j++;
    const name = src.slice(i, j);
    i = j;
    return name;
  }
  function group() { // {…} → its nodes as one mrow; else one atom
    while (src[i] === ' ') i++;
    if (src[i] === '{') {
      i++;
      const kids = seq('}');
      i++;
      return kids.length === 1 ? kids[0] : mm('mrow', ...kids);
    }
    return atom() ?? mm('mrow');
  }
  function rawGroup() { // {text} → the text
    while (src[i] === ' ') i++;
    if (src[i] !== '{') return '';
    let depth = 0;
    const start = i + 1;
    for (; i < src.length; i++) {
      if (src[i] === '{') depth++;
      else if (src[i] === '}' && --depth === 0) break;
    }
    const t = src.slice(start, i);
    i++;
    return t;
  }
  function atom() {
    const c = peek();
    if (c === undefined) return null;
    if (c === '{') return group();
    if (c === '\\') {
      i++;
      if (!/[A-Za-z]/.test(src[i] ?? '')) { // \{ \} \| \, and friends
        const ch = src[i++] ?? '';
        return ch === ',' ? mm('mspace') : tok('mo', ch === '|' ? '‖' : ch);
      }
      const name = command();
      if (name === 'frac') { const a = group(); const b = group(); return mm('mfrac', a, b); }
      if (name === 'sqrt') return mm('msqrt', group());
      if (name === 'text' || name === 'mathrm' || name === 'operatorname') return tok('mtext', rawGroup());
      if (name === 'mathbb') return tok('mi', doubleStruck(rawGroup()));
      if (name === 'bar' || name === 'tilde' || name === 'hat') {
        const o = mm('mover', group(), tok('mo', { bar: '¯', tilde: '˜', hat: 'ˆ' }[name]));
        o.setAttribute('accent', 'true');
        return o;
      }
      if (name === 'quad') { const s = mm('mspace'); s.setAttribute('width', '1em'); return s; }
      if (name === 'left' || name === 'right') return atom();
      if (own(TEX_WORDS, name)) {
        const w = tok('mi', TEX_WORDS[name]);
        w.setAttribute('mathvariant', 'normal');
        if (UNDER.has(name)) w.dataset.limits = '1';
        return w;
      }
      if (own(TEX_LARGE, name)) {
        const o = tok('mo', TEX_LARGE[name]);
        o.setAttribute('largeop', 'true');
        o.dataset.limits = '1';
        return o;
      }
      if (own(TEX_SYMBOLS, name)) return tok('mo', TEX_SYMBOLS[name]);
      if (own(TEX_LETTERS, name)) return tok('mi', TEX_LETTERS[name]);
      return tok('mtext', `\\${name}`); // unknown: shown as text (the Rust parser rejects it)
    }
    if (/[0-9.]/.test(c)) {
      let j = i;
      while (j < src.length && /[0-9.]/.test(src[j])) j++;
      const t = src.slice(i, j);
      i = j;
      return tok('mn', t);
    }
    const ch = String.fromCodePoint(src.codePointAt(i)); // one code point, not half a surrogate pair
    i += ch.length;
    if (/\p{L}/u.test(ch)) return tok('mi', ch);
    if (ch === "'") return tok('mo', '′');
    return tok('mo', ch);
  }
  function seq(end) {
    const out = [];
    while (i < src.length && src[i] !== end) {
      if (src[i] === ' ') { i++; continue; }
      let base = atom();
      if (base === null) break;
      let sub = null;
      let sup = null;
      for (;;) {
        while (src[i] === ' ') i++;
        if (src[i] === '_' && !sub) { i++; sub = group(); } else if (src[i] === '^' && !sup) { i++; sup = group(); } else break;
      }
      const under = display && base.dataset?.limits === '1';
      if (sub && sup) base = mm(under ? 'munderover' : 'msubsup', base, sub, sup);
      else if (sub) base = mm(under ? 'munder' : 'msub', base, sub);
      else if (sup) base = mm(under ? 'mover' : 'msup', base, sup);
      out.push(base);
    }
    return out;
  }
  return seq(undefined);
}

function math(src, display) {
  const m = mm('math', mm('mrow', ...parseMath(src, display)));
  if (display) m.setAttribute('display', 'block');
  return m;
}

/** A number as the text quotes it: 10⁻⁸ for a power of ten, 45 150 with thin groups. */
export function quoteNumber(x) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return String(x);
  const e = Math.log10(Math.abs(x));
  const sup = (s) => s.replace(/[-0-9]/g, (c) => '⁻⁰¹²³⁴⁵⁶⁷⁸⁹'['-0123456789'.indexOf(c)]);
  if (x > 0 && Number.isInteger(Math.round(e)) && Math.abs(e - Math.round(e)) < 1e-12 && Math.abs(e) >= 3) {
    return `10${sup(String(Math.round(e)))}`;
  }
  if (Number.isInteger(x) && Math.abs(x) >= 10000) return String(x).replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f').replace(/^-/, '−');
  return String(x).replace(/^-/, '−'); // a typeset minus, as the page's numbers (common.js num)
}

/** Inline prose with markers to nodes appended to `parent`. */
function inline(parent, s, quote) {
  let text = '';
  const flush = () => { if (text) { parent.append(document.createTextNode(text)); text = ''; } };
  for (let i = 0; i < s.length;) {
    const c = s[i];
    if (c === '\\' && i + 1 < s.length) { text += s[i + 1]; i += 2; continue; }
    if (c === '$') {
      const j = s.indexOf('$', i + 1);
      if (j > i) { flush(); parent.append(math(s.slice(i + 1, j), false)); i = j + 1; continue; }
    }
    if (c === '`') {
      const j = s.indexOf('`', i + 1);
      if (j > i) { flush(); const e = document.createElement('code'); e.textContent = s.slice(i + 1, j); parent.append(e); i = j + 1; continue; }
    }
    if (s.startsWith('{=', i)) {
      const j = s.indexOf('}', i);
      if (j > i) {
        flush();
        const e = document.createElement('span');
        e.className = 'claim-value';
        e.dataset.claim = s.slice(i + 2, j);
        e.textContent = quote(s.slice(i + 2, j));
        parent.append(e);
        i = j + 1;
        continue;
      }
    }
    if (s.startsWith('**', i)) {
      const j = findClose(s, '**', i + 2);
      if (j > 0) { flush(); const e = document.createElement('b'); inline(e, s.slice(i + 2, j), quote); parent.append(e); i = j + 2; continue; }
    }
    if (c === '*') {
      const j = findClose(s, '*', i + 1);
      if (j > 0) { flush(); const e = document.createElement('i'); inline(e, s.slice(i + 1, j), quote); parent.append(e); i = j + 1; continue; }
    }
    text += c;
    i++;
  }
  flush();
}

/** The closing marker's index (skipping escapes and math), or -1. */
function findClose(s, mark, from) {
  for (let i = from; i < s.length; i++) {
    if (s[i] === '\\') { i++; continue; }
    if (s[i] === '$') { const j = s.indexOf('$', i + 1); if (j < 0) return -1; i = j; continue; }
    if (s.startsWith(mark, i) && (mark === '**' || !s.startsWith('**', i))) return i;
  }
  return -1;
}

/**
 * Replace `el`'s content by lesson text rendered as nodes. `quote(id)` gives the text of the
 * number claim `id` states.
 */
export function renderText(el, text, quote = (id) => `{${id}}`) {
  el.replaceChildren();
  for (const para of String(text).split(/\n\s*\n/)) {
    const p = para.trim();
    if (!p) continue;
    if (p.startsWith('$$') && p.endsWith('$$') && p.length >= 4) {
      el.append(math(p.slice(2, -2), true));
      continue;
    }
    const lines = p.split('\n');
    if (lines.every((l) => l.startsWith('- '))) {
      const ul = document.createElement('ul');
      for (const l of lines) { const li = document.createElement('li'); inline(li, l.slice(2), quote); ul.append(li); }
      el.append(ul);
      continue;
    }
    const e = document.createElement('p');
    inline(e, lines.join(' '), quote);
    el.append(e);
  }
}
