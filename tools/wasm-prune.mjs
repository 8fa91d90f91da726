#!/usr/bin/env node
// Keep only some of a wasm module's exports (the rest of the module is left as it is; wasm-opt's
// remove-unused-module-elements then drops the code that only the removed exports reached).
// Usage: node tools/wasm-prune.mjs IN.wasm OUT.wasm NAME_RE...   (an export is kept when its name
// matches one of the regular expressions, anchored, or is wasm-bindgen's own: memory, __wbindgen_*,
// __externref_*, __wbg_*_free of a kept class, start, __abort_handler, __instance_terminated).
import fs from 'node:fs';

export function pruneExports(bytes, keep) {
  const u8 = new Uint8Array(bytes);
  let p = 8;
  const leb = () => { let r = 0, s = 0, b; do { b = u8[p++]; r |= (b & 0x7f) << s; s += 7; } while (b & 0x80); return r >>> 0; };
  const enc = (n) => { const o = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; o.push(b); } while (n); return o; };
  const parts = [u8.subarray(0, 8)];
  const kept = [];
  const dropped = [];
  while (p < u8.length) {
    const start = p;
    const id = u8[p++];
    const size = leb();
    const body = p;
    p += size;
    if (id !== 7) { parts.push(u8.subarray(start, p)); continue; }
    let q = body;
    const lebAt = () => { let r = 0, s = 0, b; do { b = u8[q++]; r |= (b & 0x7f) << s; s += 7; } while (b & 0x80); return r >>> 0; };
    const n = lebAt();
    const out = [];
    let count = 0;
    for (let i = 0; i < n; i++) {
      const e0 = q;
      const len = lebAt();
      const name = Buffer.from(u8.subarray(q, q + len)).toString('utf8');
      q += len;
      q += 1; // kind
      lebAt(); // index
      if (keep(name)) { out.push(...u8.subarray(e0, q)); count++; kept.push(name); } else dropped.push(name);
    }
    const sec = [...enc(count), ...out];
    parts.push(Uint8Array.from([7, ...enc(sec.length), ...sec]));
  }
  return { bytes: Buffer.concat(parts.map((x) => Buffer.from(x))), kept, dropped };
}

const OWN = /^(memory|start|__wbindgen_.*|__externref_.*|__abort_handler|__instance_terminated)$/;

/** `keep(name)` for the export names (wasm-bindgen's, as the glue calls them) a page uses. */
export function keeper(patterns) {
  const res = patterns.map((s) => new RegExp(`^(?:${s})$`));
  return (name) => OWN.test(name) || res.some((r) => r.test(name))
    || (/^__wbg_(.+)_free$/.test(name) && res.some((r) => r.test(`${name.match(/^__wbg_(.+)_free$/)[1]}_new`)));
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  const [inp, outp, ...pats] = process.argv.slice(2);
  const r = pruneExports(fs.readFileSync(inp), keeper(pats));
  fs.writeFileSync(outp, r.bytes);
  console.log(`kept ${r.kept.length}, dropped ${r.dropped.length}`);
}
