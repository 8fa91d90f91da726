#!/usr/bin/env node
// The app icons of the web app manifest (www/icon.svg, www/icon-192.png, www/icon-512.png):
// a falling convergence curve on the site's blue, drawn here without any image library (the PNG
// encoder is zlib + CRC-32). Run once after changing the design: node tools/icons.mjs
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const WWW = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../www');
// The design on a 64 × 64 grid.
const BG = [31, 78, 121];
const FG = [255, 255, 255];
const DOT = [246, 185, 59];
const curve = Array.from({ length: 41 }, (_, i) => {
  const t = i / 40;
  return [12 + 40 * t, 14 + 36 * (Math.exp(-4 * t) - Math.exp(-4)) / (1 - Math.exp(-4))];
});
const dots = [[16, 26], [30, 34], [46, 26]];
const R = 12; // corner radius

fs.writeFileSync(path.join(WWW, 'icon.svg'), `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">
<rect width="64" height="64" rx="${R}" fill="rgb(${BG})"/>
<polyline points="${curve.map(([x, y]) => `${x.toFixed(2)},${(64 - y).toFixed(2)}`).join(' ')}" fill="none" stroke="rgb(${FG})" stroke-width="5" stroke-linecap="round" stroke-linejoin="round"/>
${dots.map(([x, y]) => `<circle cx="${x}" cy="${64 - y}" r="4" fill="rgb(${DOT})"/>`).join('\n')}
</svg>
`);

const segDist = (px, py, [ax, ay], [bx, by]) => {
  const dx = bx - ax, dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - ax - t * dx, py - ay - t * dy);
};
const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc = (buf) => {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type), data]);
  const c = Buffer.alloc(4); c.writeUInt32BE(crc(td));
  return Buffer.concat([len, td, c]);
};

for (const size of [192, 512]) {
  const s = size / 64;
  const raw = Buffer.alloc(size * (1 + 4 * size));
  const SS = 3; // supersampling per axis
  for (let y = 0; y < size; y++) {
    raw[y * (1 + 4 * size)] = 0;
    for (let x = 0; x < size; x++) {
      const acc = [0, 0, 0, 0];
      for (let sy = 0; sy < SS; sy++) for (let sx = 0; sx < SS; sx++) {
        const gx = (x + (sx + 0.5) / SS) / s, gy = 64 - (y + (sy + 0.5) / SS) / s;
        const cx = Math.min(Math.max(gx, R), 64 - R), cy = Math.min(Math.max(gy, R), 64 - R);
        if (Math.hypot(gx - cx, gy - cy) > R) continue; // outside the rounded square
        let col = BG;
        let d = Infinity;
        for (let i = 1; i < curve.length; i++) d = Math.min(d, segDist(gx, gy, curve[i - 1], curve[i]));
        if (d <= 2.5) col = FG;
        if (dots.some(([dx, dy]) => Math.hypot(gx - dx, gy - dy) <= 4)) col = DOT;
        acc[0] += col[0]; acc[1] += col[1]; acc[2] += col[2]; acc[3] += 255;
      }
      const n = SS * SS, o = y * (1 + 4 * size) + 1 + 4 * x;
      const a = acc[3] / n;
      for (let k = 0; k < 3; k++) raw[o + k] = a ? Math.round(acc[k] / (acc[3] / 255)) : 0;
      raw[o + 3] = Math.round(a);
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0); ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; ihdr[9] = 6; // 8-bit RGBA
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
  fs.writeFileSync(path.join(WWW, `icon-${size}.png`), png);
}
console.log('icons: www/icon.svg, www/icon-192.png, www/icon-512.png');
