// Screenshots of the front page and a lesson at three sizes (desktop 1280×800, projector 1280×720
// in classroom mode, phone 390×844), written to docs/. Not a test: run by hand, then look at them.
//   node screenshots-teach.mjs
import path from 'node:path';
import { serve, browser, ROOT } from './harness.mjs';

const server = await serve();
const b = await browser();
const shots = [
  ['front-desktop', 'index.html', { width: 1280, height: 800 }, null],
  ['front-projector', 'index.html?classroom=1', { width: 1280, height: 720 }, null],
  ['front-phone', 'index.html', { width: 390, height: 844 }, null],
  ['lesson-a-desktop', 'lp.html#lesson=a&step=4', { width: 1280, height: 800 }, 'run'],
  ['lesson-a-projector', 'lp.html?classroom=1#lesson=a&step=4', { width: 1280, height: 720 }, 'run'],
  ['lesson-a-phone', 'lp.html#lesson=a&step=4', { width: 390, height: 844 }, 'run'],
];
try {
  for (const [name, url, viewport, mode] of shots) {
    const ctx = await b.newContext({ viewport, deviceScaleFactor: 1 });
    const page = await ctx.newPage();
    await page.goto(server.url + url);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
    if (mode === 'run') {
      await page.click('#lesson-run');
      await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 120000 });
    } else {
      await page.waitForFunction(() => [...document.querySelectorAll('.card')].every((c) => Number(c.dataset.frames) >= 10), null, { timeout: 60000 });
    }
    await page.screenshot({ path: path.join(ROOT, 'docs', `screenshot-${name}.png`) });
    console.log(name);
    await ctx.close();
  }
} finally {
  await b.close();
  await server.stop();
}
