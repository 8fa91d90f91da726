#!/usr/bin/env node
// `make build`, after wasm-opt: one wasm per page group, each with only the exports its scripts use
// (issue 22: "split so that the front page and each paper page load only what they use").
// The crate is compiled once. For each group this keeps the exports the group's scripts import
// from the glue (www/pkg/kernel_playground.js) and drops the others:
//  - by linking again (the usual way, `--link DIR`): tools/wasm-link/wasm-ld keeps the crate
//    cdylib's LTO object and link arguments; rust-lld links it once more with only the group's
//    exports, then wasm-bindgen and wasm-opt -O2 run on that module. The linker sees which
//    vtables, strings and functions each export reaches (its relocations), so another paper's
//    solvers, reached only through a `dyn` table entry, go too. Measured (issue 22 item 4): this
//    is what brings every group under 450 KB gzip; pruning after wasm-bindgen could not drop a
//    function once it sat in the function table, nor any data.
//  - without `--link` (no kept link): pruning the exports of the optimized full module and
//    wasm-opt's remove-unused-module-elements (larger: table entries and data stay).
// Either way the machine code of what is kept is the same LTO output (no opt-level change), and
// the glue is the same for all: a page passes its wasm to `init()`; the build checks that every
// import a group's wasm asks for is one the shared glue provides.
//  - a paper page and its workers share one wasm (one download, one HTTP cache entry): every
//    method of the classes they import;
//  - the front page and embed.html share one: only the methods front.js and embed.js call
//    (`.name(` in their text), which leaves out races, traces, exports, CSV, tensors.
// The full module (kernel_playground_bg.wasm) stays for the timing pages (bench*.html).
// Usage: node tools/wasm-split.mjs [--pkg www/pkg] [--wasm-opt PATH] [--link DIR] [--wasm-bindgen PATH]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import os from 'node:os';
import { pruneExports } from './wasm-prune.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def; };
const PKG = path.resolve(opt('--pkg', path.join(ROOT, 'www/pkg')));
const WWW = path.dirname(PKG);
const WASM_OPT = path.resolve(ROOT, opt('--wasm-opt', 'tests/e2e/node_modules/.bin/wasm-opt'));
const LINK = opt('--link', null);
const WASM_BINDGEN = opt('--wasm-bindgen', 'wasm-bindgen');
const FEATURES = ['--enable-bulk-memory', '--enable-nontrapping-float-to-int', '--enable-sign-ext', '--enable-mutable-globals',
  '--enable-reference-types', '--enable-multivalue', '--enable-simd'];

/** Each group: the scripts that load its wasm, and whether to keep only the methods they call. */
export const GROUPS = {
  front: { files: ['front.js', 'embed.js'], calledOnly: true },
  lp: { files: ['lp.js', 'run-worker.js', 'tensor-worker.js', 'export.js', 'lesson.js'] },
  mrlsr: { files: ['mrlsr.js', 'mrlsr-view.js', 'mrlsr-worker.js', 'export.js', 'lesson.js'] },
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
  const out = path.join(PKG, `kernel_playground_${group}_bg.wasm`);
  if (LINK) relink(group, keep, out);
  else {
    const { bytes } = pruneExports(full, (name) => OWN.test(name) || keep.has(name));
    const tmp = path.join(PKG, `.${group}.pruned.wasm`);
    fs.writeFileSync(tmp, bytes);
    execFileSync(WASM_OPT, ['--remove-unused-module-elements', ...FEATURES, tmp, '-o', out]);
    fs.rmSync(tmp);
  }
  const w = fs.readFileSync(out);
  const kept = WebAssembly.Module.exports(new WebAssembly.Module(w)).filter((e) => exported.includes(e.name)).length;
  console.log(`wasm ${group}: ${w.length} bytes raw, ${zlib.gzipSync(w, { level: 9 }).length} gzipped (${kept} of ${exported.length} exports${LINK ? ', linked alone' : ''})`);
}

/** Link the kept LTO object again with only `keep`'s exports; wasm-bindgen, wasm-opt -O2 into `out`. */
function relink(group, keep, out) {
  const dir = path.resolve(LINK);
  if (!fs.existsSync(path.join(dir, 'args'))) fail(`${dir}/args is missing: build with tools/wasm-link/wasm-ld as the linker (.cargo/config.toml)`);
  const args = fs.readFileSync(path.join(dir, 'args'), 'utf8').split('\0').filter((a) => a !== '');
  const user = new Set(exported.filter((e) => !OWN.test(e)));
  // A link-time export name is the wasm one, or wasm-bindgen's with a crate-hash suffix.
  const wanted = (sym) => {
    const base = sym.replace(/_[0-9a-f]{16}$/, '');
    const d = base.match(/^__wbindgen_describe_(.*)$/);
    const name = d ? d[1] : base;
    return !user.has(name) || keep.has(name);
  };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `kplay-${group}-`));
  const linked = path.join(tmp, 'kernel_playground.wasm');
  const a2 = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--export') { if (wanted(args[i + 1])) a2.push(a, args[i + 1]); i++; }
    else if (a.startsWith('--export=')) { if (wanted(a.slice(9))) a2.push(a); }
    else if (a === '-o') { a2.push(a, linked); i++; }
    else a2.push(a);
  }
  const sysroot = execFileSync('rustc', ['--print', 'sysroot'], { encoding: 'utf8' }).trim();
  const host = execFileSync('rustc', ['-vV'], { encoding: 'utf8' }).match(/^host: (.*)$/m)[1];
  execFileSync(path.join(sysroot, 'lib/rustlib', host, 'bin/rust-lld'), a2, { stdio: ['ignore', 'inherit', 'inherit'] });
  execFileSync(WASM_BINDGEN, ['--target', 'web', '--out-dir', tmp, '--no-typescript', linked]);
  // wasm-bindgen numbers some imports in order of use (`__wbindgen_generic_0000000000000003`
  // is a cast whose meaning depends on the module): give each of the group's imports the shared
  // glue's name for the same JavaScript, and fail if the glue has none.
  const ours = importBodies(fs.readFileSync(path.join(tmp, 'kernel_playground.js'), 'utf8'));
  const shared = importBodies(fs.readFileSync(path.join(PKG, 'kernel_playground.js'), 'utf8'));
  const byBody = new Map([...shared].map(([name, body]) => [body, name]));
  const rename = new Map();
  for (const name of WebAssembly.Module.imports(new WebAssembly.Module(fs.readFileSync(path.join(tmp, 'kernel_playground_bg.wasm')))).map((i) => i.name)) {
    const body = ours.get(name);
    if (body === undefined) fail(`${group}: no JavaScript for its import ${name} in its own glue`);
    if (shared.get(name) === body) continue;
    if (!byBody.has(body)) fail(`${group}: its import ${name} does what no import of the shared glue does`);
    rename.set(name, byBody.get(body));
  }
  const renamed = path.join(tmp, 'renamed.wasm');
  fs.writeFileSync(renamed, renameImports(fs.readFileSync(path.join(tmp, 'kernel_playground_bg.wasm')), rename));
  // Functions with one caller are inlined only up to 100 instructions (binaryen's default: any
  // size). A group has fewer callers per function than the full module, so -O2 alone merged far
  // more into its hot functions, and V8 ran them slower: paper B's n = 2000 eigendecomposition
  // in Node took 4.6–4.9 s in B's group against 3.5 s in the full module, 3.6–3.8 s with this
  // limit (in Chromium's one-thread worker 7.7–8.5 s against 5.1–6.6 s); the same size gzipped.
  execFileSync(WASM_OPT, ['-O2', ...FEATURES, '--one-caller-inline-max-function-size', '100', renamed, '-o', out]);
  fs.rmSync(tmp, { recursive: true, force: true });
}

/** The JavaScript of each import in a wasm-bindgen glue's `__wbg_get_imports`: name → source. */
function importBodies(glue) {
  const out = new Map();
  for (const m of glue.matchAll(/^ {8}([A-Za-z_$][\w$]*): (function\b[^\n]*\n[\s\S]*?\n {8}\}[^\n]*?),?$/gm)) out.set(m[1], m[2]);
  if (out.size === 0) fail('no imports found in a wasm-bindgen glue (has its layout changed?)');
  return out;
}

/** `bytes` with the imports named in `rename` (old field name → new) renamed; the rest as it is. */
function renameImports(bytes, rename) {
  if (rename.size === 0) return bytes;
  const u8 = new Uint8Array(bytes);
  let p = 8;
  const leb = () => { let r = 0, s = 0, b; do { b = u8[p++]; r |= (b & 0x7f) << s; s += 7; } while (b & 0x80); return r >>> 0; };
  const enc = (n) => { const o = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; o.push(b); } while (n); return o; };
  const str = (t) => { const b = Buffer.from(t, 'utf8'); return [...enc(b.length), ...b]; };
  const parts = [u8.subarray(0, 8)];
  while (p < u8.length) {
    const start = p;
    const id = u8[p++];
    const size = leb();
    const end = p + size;
    if (id !== 2) { p = end; parts.push(u8.subarray(start, end)); continue; }
    const n = leb();
    const body = [...enc(n)];
    for (let i = 0; i < n; i++) {
      const ml = leb(); const mod = u8.subarray(p, p + ml); p += ml;
      const fl = leb(); const field = Buffer.from(u8.subarray(p, p + fl)).toString('utf8'); p += fl;
      const d0 = p;
      const kind = u8[p++];
      const limits = () => { const flag = leb(); leb(); if (flag & 1) leb(); };
      if (kind === 0) leb();
      else if (kind === 1) { p++; limits(); }
      else if (kind === 2) limits();
      else if (kind === 3) p += 2;
      else if (kind === 4) { p++; leb(); }
      else fail(`import of unknown kind ${kind}`);
      body.push(...enc(mod.length), ...mod, ...str(rename.get(field) ?? field), ...u8.subarray(d0, p));
    }
    if (p !== end) fail('the import section did not parse to its end');
    parts.push(Uint8Array.from([2, ...enc(body.length), ...body]));
  }
  return Buffer.concat(parts);
}
