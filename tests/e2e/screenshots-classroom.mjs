// Screenshots of every step of every lesson in classroom mode at 1280 × 720 (a projector), each
// after its run, at the lesson's own speed; written to docs/classroom/<lesson>-<step>.png and
// shrunk with pngquant (256 colours) when it is installed. Prints how long each run took from
// "Run it" to its explanation and the page's scroll height. Not a test: run by hand, then look.
//   node screenshots-classroom.mjs [a b c d]
import path from 'node:path';
import { mkdirSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { serve, browser, ROOT } from './harness.mjs';
import { LESSONS } from './lesson-files.mjs';

const PAGE = { a: 'lp.html', b: 'mrlsr.html', c: 'dinuzzo.html', d: 'perceptron.html' };
const OUT = path.join(ROOT, 'docs', 'classroom');
mkdirSync(OUT, { recursive: true });
const which = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(LESSONS);
let pngquant = true;
try { execFileSync('pngquant', ['--version']); } catch { pngquant = false; }

const server = await serve();
const b = await browser();
let total = 0;
try {
  for (const id of which) {
    const L = LESSONS[id];
    const ctx = await b.newContext({ viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1 });
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(`page error: ${e}`));
    await page.goto(`${server.url}${PAGE[id]}?classroom=1#lesson=${id}&step=1`);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
    for (let k = 1; k <= L.steps.length; k++) {
      await page.waitForFunction((k) => document.body.dataset.lessonStep === String(k) && document.body.dataset.lessonPhase === 'predict', k);
      const t0 = Date.now();
      await page.click('#lesson-run');
      await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 300000 });
      const secs = (Date.now() - t0) / 1000;
      const sh = await page.evaluate(() => document.scrollingElement.scrollHeight);
      const file = path.join(OUT, `${id}-${k}.png`);
      await page.screenshot({ path: file });
      if (pngquant) execFileSync('pngquant', ['--force', '--skip-if-larger', '--quality', '40-80', '--speed', '3', '--output', file, '256', file]);
      const bytes = statSync(file).size;
      total += bytes;
      console.log(`${id} step ${k}: speed ${L.steps[k - 1].speed ?? '(page)'}, run ${secs.toFixed(1)} s, scrollHeight ${sh}, ${(bytes / 1024).toFixed(0)} KB`);
      if (k < L.steps.length) await page.click('#lesson-next');
    }
    await ctx.close();
  }
} finally {
  await b.close();
  await server.stop();
}
console.log(`total ${(total / 1048576).toFixed(2)} MB`);
