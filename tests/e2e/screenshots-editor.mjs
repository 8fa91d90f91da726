// Screenshots of the lesson editor for docs/teaching.md ("How to write a lesson in the page"):
// page C, a two-step lesson built through the editor (lesson-editor-flow.mjs, the gestures the
// e2e test makes), then played with Try it in classroom mode. docs/editor/editor-step.png (a step
// with its texts and their preview), editor-claim.png (a claim against step 1, evaluated),
// editor-try.png (Try it on a 1280 × 720 projector). Not a test: run by hand, then look.
//   node screenshots-editor.mjs
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { serve, browser, openPage, ROOT } from './harness.mjs';
import { openEditor, setControl, waitRun, addStep, pickClaim } from './lesson-editor-flow.mjs';

const OUT = path.join(ROOT, 'docs', 'editor');
mkdirSync(OUT, { recursive: true });
let pngquant = true;
try { execFileSync('pngquant', ['--version']); } catch { pngquant = false; }
const shot = async (page, name) => {
  const file = path.join(OUT, name);
  await page.screenshot({ path: file });
  if (pngquant) execFileSync('pngquant', ['--force', '--skip-if-larger', '--quality', '40-80', '--output', file, '256', file]);
  console.log(file);
};

const server = await serve();
const b = await browser();
try {
  const { page, ctx } = await openPage(b, `${server.url}dinuzzo.html`, { viewport: { width: 1280, height: 800 } });
  await waitRun(page);
  await openEditor(page);
  await page.fill('#le-title', 'Lesson · coordinate descent as λ changes');
  await setControl(page, 'n', '80');
  await addStep(page, {
    title: 'Coordinate descent on 80 points',
    look: 'The map shows $f(x) = \\sum_i c_i k(x_i, x)$; the sweep count is on the left.',
    predict: '**Predict:** how many sweeps to reach $\\delta = 10^{-8}$?',
    explain: 'Coordinate descent updates one $c_i$ at a time (Algorithm 1).',
    reference: 'Algorithm 1',
  });
  await pickClaim(page, { readout: 'r-status', rel: '==', value: 'converged' });
  await page.waitForFunction(() => /valid/.test(document.getElementById('le-msg').textContent));
  await page.evaluate(() => { document.getElementById('lesson-editor').scrollTop = 0; window.scrollTo(0, 0); });
  await shot(page, 'editor-step.png');
  await setControl(page, 'lambda', '1');
  await addStep(page, {
    title: 'A larger λ',
    look: 'Only $\\lambda$ has changed.',
    predict: '**Predict:** more sweeps than step 1, or fewer?',
    explain: 'The claim compares the sweep counts.',
    reference: 'ours',
  });
  await pickClaim(page, { readout: 'r-sweep', rel: '<', against: 1, otherwise: '>=' });
  await page.waitForFunction(() => /valid/.test(document.getElementById('le-msg').textContent));
  await page.evaluate(() => {
    window.scrollTo(0, 0);
    const p = document.getElementById('lesson-editor');
    p.scrollTop = p.scrollHeight;
  });
  await shot(page, 'editor-claim.png');
  // Try it, then classroom mode on a projector: the lesson as the students will see it.
  await page.click('#le-try');
  await page.waitForFunction(() => document.body.dataset.lesson === 'own');
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.click('#classroom-toggle');
  await page.keyboard.press('PageDown');
  await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 60000 });
  // The plots redraw at their classroom size (ResizeObserver): wait for every shown canvas's
  // backing store to take its box's aspect, a state, not a time.
  await page.waitForFunction(() => [...document.querySelectorAll('canvas')].every((c) => c.getClientRects().length === 0
    || !c.clientWidth || !c.clientHeight || Math.abs((c.height / c.width) / (c.clientHeight / c.clientWidth) - 1) <= 0.02), null, { timeout: 10000 });
  await shot(page, 'editor-try.png');
  await ctx.close();
} finally {
  await b.close();
  await server.stop();
}
