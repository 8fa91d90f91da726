#!/usr/bin/env node
// `make dist`: turn www/ (after `make build`) into dist/, a folder any static host serves as it is.
//  - scripts, styles and the wasm get content-hashed names (name.0123456789.js): a new version is
//    never mixed with a cached old one; every reference to them (html attributes, ES module
//    imports, `new URL('./x.js', import.meta.url)` workers, the glue's wasm URL, inline scripts of
//    the timing pages) is rewritten. A file's hash covers its rewritten text, so a change in a
//    dependency changes every importer's name too.
//  - every URL stays relative: the site works from a sub-path (/course/kplay/); an absolute
//    reference (src="/…", from '/…') stops the build.
//  - the build stamp (crate version, git commit) goes into build.js (exported JSON) and into each
//    page's `.build-stamp` element (the footer).
//  - sw.js gets the stamp and the list of files to precache: a new deploy is a new service worker.
//  - .gz and .br copies of every text file and the wasm, for hosts that serve pre-compressed files.
// Usage: node tools/dist.mjs [--www DIR] [--out DIR] [--stamp TEXT] [--no-compress]
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const WWW = path.resolve(opt('--www', path.join(ROOT, 'www')));
const OUT = path.resolve(opt('--out', path.join(ROOT, 'dist')));
const COMPRESS = !args.includes('--no-compress');

const fail = (msg) => { console.error(`dist: ${msg}`); process.exit(1); };
if (!fs.existsSync(path.join(WWW, 'pkg/kernel_playground_bg.wasm'))) fail(`${WWW}/pkg is missing: run make build first`);

// ---- the build stamp ------------------------------------------------------------------------------
const version = fs.readFileSync(path.join(ROOT, 'Cargo.toml'), 'utf8').match(/^version\s*=\s*"([^"]+)"/m)[1];
const git = (...a) => { try { return execFileSync('git', a, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim(); } catch { return ''; } };
let commit = git('rev-parse', '--short=12', 'HEAD') || 'unknown';
if (commit !== 'unknown' && git('status', '--porcelain', '--untracked-files=no') !== '') commit += '-dirty';
const stamp = opt('--stamp', `${version} (${commit})`);
const BUILD = { version, commit, stamp, built: new Date().toISOString() };

// ---- the files ------------------------------------------------------------------------------------
const walk = (dir, rel = '') => fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
  const r = rel ? `${rel}/${e.name}` : e.name;
  if (e.isDirectory()) return walk(dir, r);
  return [r];
});
// What www/ holds but a deployed site does not need (wasm-bindgen's package.json, type files).
const SKIP = (f) => /(^|\/)(package\.json|\.gitignore|README.*)$/.test(f) || f.endsWith('.d.ts');
const files = walk(WWW).filter((f) => !SKIP(f)).sort();
const HASHED = (f) => /\.(js|mjs|css|wasm)$/.test(f) && f !== 'sw.js';
const TEXT = (f) => /\.(html|js|mjs|css|svg|webmanifest|json|txt)$/.test(f);

const src = new Map(files.map((f) => [f, fs.readFileSync(path.join(WWW, f))]));
src.set('build.js', Buffer.from(`// Written by tools/dist.mjs: the build this site is.\nexport const BUILD = ${JSON.stringify({ ...BUILD, dist: true })};\n`));

// A quoted string naming a file of the site, relative to the file that holds it.
const REF = /(["'])((?:\.\/|\.\.\/)*[A-Za-z0-9_\-./]+\.(?:js|mjs|css|wasm))\1/g;
const resolveRef = (from, ref) => {
  const r = path.posix.normalize(path.posix.join(path.posix.dirname(from), ref));
  return src.has(r) ? r : null;
};
const refsOf = (f) => {
  const out = new Set();
  for (const m of src.get(f).toString().matchAll(REF)) {
    const r = resolveRef(f, m[2]);
    if (r && HASHED(r) && r !== f) out.add(r);
  }
  return [...out];
};
const hashedName = new Map(); // www path → dist path
const rewrite = (f, text) => text.replace(REF, (all, q, ref) => {
  const r = resolveRef(f, ref);
  if (!r || !hashedName.has(r)) return all;
  return `${q}${ref.replace(/[^/]+$/, path.posix.basename(hashedName.get(r)))}${q}`;
});

// Hash in dependency order (a module's name depends on its imports' names).
const out = new Map(); // dist path → bytes
const state = new Map();
const visit = (f, stack) => {
  if (state.get(f) === 'done') return;
  if (state.get(f) === 'busy') fail(`import cycle: ${[...stack, f].join(' → ')}`);
  state.set(f, 'busy');
  for (const d of refsOf(f)) visit(d, [...stack, f]);
  const bytes = TEXT(f) ? Buffer.from(rewrite(f, src.get(f).toString())) : src.get(f);
  const h = createHash('sha256').update(bytes).digest('hex').slice(0, 10);
  const name = f.replace(/(\.[a-z]+)$/, `.${h}$1`);
  hashedName.set(f, name);
  out.set(name, bytes);
  state.set(f, 'done');
};
for (const f of src.keys()) if (HASHED(f)) visit(f, []);

// Pages: rewrite the references, write the stamp into `.build-stamp`.
const escapeHtml = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const PAGES = [];
for (const f of src.keys()) {
  if (HASHED(f) || f === 'sw.js') continue;
  if (!TEXT(f)) { out.set(f, src.get(f)); continue; }
  let text = rewrite(f, src.get(f).toString());
  if (f.endsWith('.html')) {
    const bench = /^bench/.test(f);
    const n = (text.match(/class="build-stamp">[^<]*</g) || []).length;
    if (!bench && n !== 1) fail(`${f}: expected one <span class="build-stamp">, found ${n}`);
    text = text.replace(/(class="build-stamp">)[^<]*</g, `$1${escapeHtml(stamp)}<`);
    if (!bench) PAGES.push(f);
  }
  out.set(f, Buffer.from(text));
}

// Every URL relative: no absolute path in an attribute, an import or a worker URL.
for (const [f, bytes] of out) {
  if (!TEXT(f)) continue;
  const t = bytes.toString();
  const bad = t.match(/\b(?:src|href|action)=["']\/(?!\/)[^"']*|\bfrom\s*["']\/[^"']*|\bimport\(\s*["']\/[^"']*|new (?:URL|Worker)\(\s*["']\/[^"']*/);
  if (bad) fail(`${f}: absolute URL ${bad[0]} (every URL must be relative, the site may live under a sub-path)`);
  // A page's reference to a file that is not in the site.
  if (f.endsWith('.html')) for (const m of t.matchAll(/\b(?:src|href)="([^"#?:]+)"/g)) {
    if (!out.has(path.posix.normalize(path.posix.join(path.posix.dirname(f), m[1]))) && !m[1].endsWith('/')) {
      if (!/\.(md|rs)$/.test(m[1])) fail(`${f}: ${m[1]} is not in dist/`);
    }
  }
}

// Host configuration, used where the host reads it and ignored elsewhere (docs/deploy.md):
// Apache's .htaccess (a university web space), Netlify / Cloudflare Pages' _headers, and
// .nojekyll (GitHub Pages serves the folder as it is).
const H = '[0-9a-f]{10}';
out.set('.htaccess', Buffer.from(`# Kernel Playground ${stamp}: written by tools/dist.mjs (docs/deploy.md)
AddType application/wasm .wasm
AddType text/javascript .js
AddType application/manifest+json .webmanifest
<IfModule mod_headers.c>
  # Hashed names never change: cache them for a year. Pages, the service worker and the manifest:
  # revalidate every time, so a new deploy is seen at once.
  <FilesMatch "\\.${H}\\.(js|css|wasm)(\\.gz|\\.br)?$">
    Header set Cache-Control "public, max-age=31536000, immutable"
  </FilesMatch>
  <FilesMatch "(\\.html|^sw\\.js|\\.webmanifest|\\.png|\\.svg)(\\.gz|\\.br)?$">
    Header set Cache-Control "no-cache"
  </FilesMatch>
</IfModule>
# The pre-compressed copies, when the browser accepts them (needs mod_rewrite and mod_headers).
<IfModule mod_rewrite.c>
  RewriteEngine On
  RewriteCond %{HTTP:Accept-Encoding} br
  RewriteCond %{REQUEST_FILENAME}.br -f
  RewriteRule ^(.+\\.(js|css|wasm|html|svg|webmanifest))$ $1.br [L]
  RewriteCond %{HTTP:Accept-Encoding} gzip
  RewriteCond %{REQUEST_FILENAME}.gz -f
  RewriteRule ^(.+\\.(js|css|wasm|html|svg|webmanifest))$ $1.gz [L]
  <FilesMatch "\\.js\\.(br|gz)$">
    ForceType text/javascript
  </FilesMatch>
  <FilesMatch "\\.css\\.(br|gz)$">
    ForceType text/css
  </FilesMatch>
  <FilesMatch "\\.wasm\\.(br|gz)$">
    ForceType application/wasm
  </FilesMatch>
  <FilesMatch "\\.html\\.(br|gz)$">
    ForceType "text/html; charset=utf-8"
  </FilesMatch>
  <FilesMatch "\\.svg\\.(br|gz)$">
    ForceType image/svg+xml
  </FilesMatch>
  <FilesMatch "\\.webmanifest\\.(br|gz)$">
    ForceType application/manifest+json
  </FilesMatch>
  <IfModule mod_headers.c>
    <FilesMatch "\\.br$">
      Header set Content-Encoding br
      Header append Vary Accept-Encoding
    </FilesMatch>
    <FilesMatch "\\.gz$">
      Header set Content-Encoding gzip
      Header append Vary Accept-Encoding
    </FilesMatch>
  </IfModule>
  # No second compression of a compressed copy.
  RewriteRule \\.(br|gz)$ - [E=no-gzip:1,E=no-brotli:1]
</IfModule>
`));
out.set('_headers', Buffer.from(`# Kernel Playground ${stamp}: Netlify / Cloudflare Pages headers (docs/deploy.md)
/*.wasm
  Content-Type: application/wasm
${[...hashedName.values()].map((f) => `/${f}\n  Cache-Control: public, max-age=31536000, immutable`).join('\n')}
/*.html
  Cache-Control: no-cache
/
  Cache-Control: no-cache
/sw.js
  Cache-Control: no-cache
/manifest.webmanifest
  Cache-Control: no-cache
`));
out.set('.nojekyll', Buffer.alloc(0));

// The service worker: the stamp and the files to precache (the pages and every file they use;
// the timing pages bench*.html are served but not precached).
// The full wasm (pkg/kernel_playground_bg.*.wasm) is the timing pages' and the lesson editor's
// worker's (www/lesson-worker.js, loaded when a lecturer opens the editor; the service worker
// caches it then): every page loads its own group's (tools/wasm-split.mjs). The threaded build (pkg-threads/, issue 21) is not
// precached either: only an isolated page's paper-B worker loads it, and the service worker
// caches it then (hashed: cache first); offline without it, the worker uses one thread.
const precache = ['./', ...PAGES, ...[...out.keys()].filter((f) => !f.endsWith('.html') && !/^(bench|\.|_headers$)/.test(f)
  && !/^pkg\/kernel_playground_bg\.[0-9a-f]{10}\.wasm$/.test(f) && !f.startsWith('pkg-threads/'))].sort();
let sw = src.get('sw.js').toString();
const swBuild = `const BUILD = ${JSON.stringify(stamp)};`;
const swList = `const PRECACHE = ${JSON.stringify(precache, null, 1).replace(/\n\s*/g, ' ')};`;
if (!/^const BUILD = .*;$/m.test(sw) || !/^const PRECACHE = \[\];$/m.test(sw)) fail('sw.js: no `const BUILD = …;` / `const PRECACHE = [];` line to fill');
sw = sw.replace(/^const BUILD = .*;$/m, swBuild).replace(/^const PRECACHE = \[\];$/m, swList);
out.set('sw.js', Buffer.from(sw));

// ---- write ----------------------------------------------------------------------------------------
fs.rmSync(OUT, { recursive: true, force: true });
let total = 0;
for (const [f, bytes] of out) {
  fs.mkdirSync(path.join(OUT, path.posix.dirname(f)), { recursive: true });
  fs.writeFileSync(path.join(OUT, f), bytes);
  total += bytes.length;
}
let compressed = 0;
if (COMPRESS) {
  for (const [f, bytes] of out) {
    if (!(TEXT(f) || f.endsWith('.wasm')) || bytes.length < 512) continue;
    const gz = zlib.gzipSync(bytes, { level: 9 });
    const br = zlib.brotliCompressSync(bytes, { params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      [zlib.constants.BROTLI_PARAM_MODE]: TEXT(f) ? zlib.constants.BROTLI_MODE_TEXT : zlib.constants.BROTLI_MODE_GENERIC,
    } });
    fs.writeFileSync(path.join(OUT, `${f}.gz`), gz);
    fs.writeFileSync(path.join(OUT, `${f}.br`), br);
    compressed += gz.length + br.length;
  }
}
const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
console.log(`dist: ${OUT} — build ${stamp}`);
console.log(`dist: ${out.size} files, ${kb(total)}${COMPRESS ? ` (+ ${kb(compressed)} of .gz/.br copies)` : ''}; ${precache.length} precached by sw.js`);
for (const wasm of [...out.keys()].filter((f) => f.endsWith('.wasm')).sort()) {
  const wb = out.get(wasm);
  console.log(`dist: ${wasm}: ${kb(wb.length)} raw, ${kb(zlib.gzipSync(wb, { level: 9 }).length)} gzip${COMPRESS ? `, ${kb(fs.statSync(path.join(OUT, `${wasm}.br`)).size)} brotli` : ''}`);
}
