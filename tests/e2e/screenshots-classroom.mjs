// Screenshots of every step of every lesson in classroom mode at 1280 × 720 (a projector), each
// before its run and after its explanation, walked as a lecturer's clicker would (PageDown and
// space, classroom-walk.mjs): docs/classroom/<lesson>-<step>-before.png and <lesson>-<step>.png
// (after), shrunk with pngquant (256 colours) when it is installed. Prints the walk's figures per
// screen and how many screens pass each check. Not a test: run by hand, then look.
//   node screenshots-classroom.mjs [a b c d]
import path from 'node:path';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { serve, browser, ROOT } from './harness.mjs';
import { LESSONS } from './lesson-files.mjs';
import { walk, tally } from './classroom-walk.mjs';

const OUT = path.join(ROOT, 'docs', 'classroom');
mkdirSync(OUT, { recursive: true });
const which = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(LESSONS);
let pngquant = true;
try { execFileSync('pngquant', ['--version']); } catch { pngquant = false; }

const server = await serve();
const b = await browser();
const all = [];
try {
  for (const id of which) {
    const { rows, errors } = await walk(b, server.url, id, { shots: OUT, log: (l) => console.log(l) });
    for (const e of errors) console.error(`page error: ${e}`);
    console.log(`lesson ${id}: ${JSON.stringify(tally(rows))}`);
    all.push(...rows);
  }
} finally {
  await b.close();
  await server.stop();
}
let total = 0;
for (const f of readdirSync(OUT).filter((f) => which.some((id) => f.startsWith(`${id}-`)))) {
  const file = path.join(OUT, f);
  if (pngquant) execFileSync('pngquant', ['--force', '--skip-if-larger', '--quality', '40-80', '--speed', '3', '--output', file, '256', file]);
  total += statSync(file).size;
}
console.log(`all: ${JSON.stringify(tally(all))}; ${(total / 1048576).toFixed(2)} MB`);
