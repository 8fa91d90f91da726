import { serve, browser, openPage } from './harness.mjs';
const server = await serve();
const b = await browser();
try {
  const { page, errors, ctx } = await openPage(b, `${server.url}dinuzzo.html${process.argv[2] || ''}`);
  const t0 = Date.now();
  await page.waitForFunction(() => document.body.dataset.status !== 'running', null, { timeout: 60000 }).catch(() => {});
  console.log('status', await page.evaluate(() => document.body.dataset.status), 'after', Date.now() - t0, 'ms');
  console.log(await page.locator('.readouts').innerText());
  console.log('error:', await page.locator('#error').innerText(), 'notice:', await page.locator('#notice').innerText());
  await page.screenshot({ path: '/tmp/uic/peek.png', fullPage: true });
  console.log('errors', errors);
  await ctx.close();
} finally { await b.close(); await server.stop(); }
