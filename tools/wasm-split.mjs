#!/usr/bin/env node
// `make build`, after wasm-opt: one wasm per page group, each with only the exports its scripts use
// (issue 22: "split so that the front page and each paper page load only what they use").
// The crate is built once; for each group this keeps the exports the group's scripts import from
// the glue (www/pkg/kernel_playground.js) and drops the others, then wasm-opt's
// remove-unused-module-elements drops the code only the dropped exports reached. The glue is the
// same for all: a page passes its wasm to `init()`. No Rust change, no second cargo build, and the
// hot loops are the same machine code as in the full module.
//  - a paper page and its workers share one wasm (one download, one HTTP cache entry): every
//    method of the classes they import;
//  - the front page and embed.html share one: only the methods front.js and embed.js call
//    (`.name(` in their text), which leaves out races, traces, exports, CSV, tensors.
// The full module (kernel_playground_bg.wasm) stays for the timing pages (bench*.html).
// Usage: node tools/wasm-split.mjs [--pkg www/pkg] [--wasm-opt PATH]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { pruneExports } from './wasm-prune.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def; };
const PKG = path.resolve(opt('--pkg', path.join(ROOT, 'www/pkg')));
const WWW = path.dirname(PKG);
const WASM_OPT = path.resolve(ROOT, opt('--wasm-opt', 'tests/e2e/node_modules/.bin/wasm-opt'));
const FEATURES = ['--enable-bulk-memory', '--enable-nontrapping-float-to-int', '--enable-sign-ext', '--enable-mutable-globals',
  '--enable-reference-types', '--enable-multivalue', '--enable-simd'];

/** Each group: the scripts that load its wasm, and whether to keep only the methods they call. */
export const GROUPS = {
  front: { files: ['front.js', 'embed.js'], calledOnly: true },
  lp: { files: ['lp.js', 'run-worker.js', 'tensor-worker.js', 'export.js', 'lesson.js'] },
  mrlsr: { files: ['mrlsr.js', 'mrlsr-worker.js', 'export.js', 'lesson.js'] },
  dinuzzo: { files: ['dinuzzo.js', 'export.js', 'lesson.js'] },
  perceptron: { files: ['perceptron.js', 'export.js', 'lesson.js'] },
};
const fail = (msg) => { console.error(`wasm-split: ${msg}`); process.exit(1); };
const full = fs.readFileSync(path.join(PKG, 'kernel_playground_bg.wasm'));
const exported = WebAssembly.Module.exports(new WebAssembly.Module(full)).map((e) => e.name);
const OWN = /^(memory|start|__wbindgen_.*|__externref_.*|__abort_handler|__instance_terminated)$/;

for (const [group, { files, calledOnly }] of Object.entries(GROUPS)) {
  const keep = new Set();
  const need = [];
  for (const f of files) {
    const text = fs.readFileSync(path.join(WWW, f), 'utf8');
    const m = text.match(/import\s+(?:init\s*,\s*)?\{([^}]*)\}\s*from\s*'\.\/pkg\/kernel_playground\.js'/);
    if (!m) fail(`${f} imports nothing from ./pkg/kernel_playground.js`);
    // The wasm a script loads must be its group's (a script in two groups is the shared export.js).
    const own = text.match(/\.\/pkg\/kernel_playground_([a-z]+)_bg\.wasm/);
    if (/\binit\b/.test(m[0]) && (!own || own[1] !== group)) fail(`${f} must call init() with ./pkg/kernel_playground_${group}_bg.wasm`);
    const called = new Set([...text.matchAll(/\.([A-Za-z_]\w*)\(/g)].map((x) => x[1]));
    for (const name of m[1].split(',').map((s) => s.trim()).filter(Boolean)) {
      if (/^[A-Z]/.test(name)) {
        const cls = name.toLowerCase();
        need.push(`${cls}_new`);
        for (const e of exported) {
          if (e === `__wbg_${cls}_free` || e === `${cls}_new`) keep.add(e);
          else if (e.startsWith(`${cls}_`) && (!calledOnly || called.has(e.slice(cls.length + 1)))) keep.add(e);
        }
      } else {
        need.push(name);
        keep.add(name);
      }
    }
  }
  for (const n of need) if (!exported.includes(n)) fail(`${group}: the wasm exports no ${n}`);
  const { bytes, dropped } = pruneExports(full, (name) => OWN.test(name) || keep.has(name));
  const tmp = path.join(PKG, `.${group}.pruned.wasm`);
  const out = path.join(PKG, `kernel_playground_${group}_bg.wasm`);
  fs.writeFileSync(tmp, bytes);
  execFileSync(WASM_OPT, ['--remove-unused-module-elements', ...FEATURES, tmp, '-o', out]);
  fs.rmSync(tmp);
  const w = fs.readFileSync(out);
  console.log(`wasm ${group}: ${w.length} bytes raw, ${zlib.gzipSync(w, { level: 9 }).length} gzipped (${exported.length - dropped.length} of ${exported.length} exports)`);
}
