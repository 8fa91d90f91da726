// Ad-hoc driver for www/bench-mrlsr.html and the page's model selection (not a test).
import { serve, browser, openPage, text } from '/work/wt-ui-b/tests/e2e/harness.mjs';
const s = await serve(); const b = await browser();
const which = process.argv[2] || 'bench';
if (which === 'bench') {
  const ctx = await b.newContext();
  const page = await ctx.newPage();
  await page.goto(`${s.url}bench-mrlsr.html?n=${process.argv[3] || '500,1000'}&refit=500&reps=300`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 900000 });
  console.log(await page.evaluate(() => document.body.dataset.results), await page.locator('#error').textContent());
} else {
  const { page, errors } = await openPage(b, `${s.url}mrlsr.html`);
  await page.fill('#sel-n', process.argv[3] || '500');
  await page.fill('#sel-folds', process.argv[4] || '10');
  const t0 = Date.now();
  await page.click('#sel-run');
  await page.waitForFunction(() => Number(document.body.dataset.selRuns || 0) >= 1, null, { timeout: 1200000 });
  console.log('wall s', (Date.now() - t0) / 1000);
  for (const id of ['sel-progress', 'sel-krr', 'sel-krr-p', 'sel-mrlsr', 'sel-mrlsr-p']) console.log(id, await text(page, '#' + id));
  console.log('errors', errors);
}
await b.close(); await s.stop();
