// dist/ as a host publishes it (issue 22): served from a sub-path (/course/kplay/), every page
// loads and runs with every request under that path; offline after the first visit (the service
// worker precaches the site: cut the network, stop the server, reload, run a page and a lesson);
// a new dist/ (another build stamp) replaces the cached one after a reload.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { serve, browser, openPage, frameWith, DIST, ROOT, WWW } from './harness.mjs';

const PREFIX = 'course/kplay/';
const PAGES = ['index.html', 'lp.html', 'mrlsr.html', 'dinuzzo.html', 'perceptron.html'];
/** The build stamp dist.mjs wrote into a dist/'s service worker. */
const stampOf = (dir) => JSON.parse(readFileSync(path.join(dir, 'sw.js'), 'utf8').match(/^const BUILD = (".*");$/m)[1]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let b;
before(async () => { b = await browser(); });
after(async () => { await b?.close(); });

/** The page has run: the front page's cards move, a paper page's player stepped (B: it drew a fit). */
async function runs(page, file) {
  if (file === 'index.html') {
    await page.waitForFunction(() => [...document.querySelectorAll('.card')].every((c) => Number(c.dataset.frames) >= 2), null, { timeout: 60000 });
  } else if (file === 'mrlsr.html') {
    await page.waitForFunction(() => Number(document.body.dataset.draws) > 0, null, { timeout: 60000 });
  } else {
    await page.waitForFunction(() => Number(document.body.dataset.playerSteps) > 0, null, { timeout: 60000 });
  }
}

/** Wait until a service worker controls the page and its precache is complete. */
async function controlled(page) {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
  });
  return page.evaluate(async () => (await caches.keys()).filter((k) => k.startsWith('kplay-')));
}

test('dist/ served from a sub-path: every page loads and runs, every request stays under the path, the footer shows the build', async () => {
  const server = await serve({ prefix: PREFIX });
  const stamp = stampOf(DIST);
  assert.ok(stamp && stamp !== 'dev', `dist/sw.js has a build stamp: ${stamp}`);
  try {
    for (const file of PAGES) {
      const { page, errors, ctx } = await openPage(b, `${server.url}${file}`, { speed: file === 'index.html' ? null : 'max' });
      await runs(page, file);
      assert.equal(await page.locator('.build-stamp').innerText(), stamp, `${file}: footer stamp`);
      if (file === 'lp.html') {
        // Save run (JSON) carries the build.
        const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#save-run')]);
        const run = JSON.parse(readFileSync(await dl.path(), 'utf8'));
        assert.equal(run.build.stamp, stamp);
        assert.equal(run.build.dist, true);
        assert.match(run.build.commit, /^[0-9a-f]{12}(-dirty)?$/);
      }
      await controlled(page); // the service worker registers from the sub-path and precaches it
      const all = await page.evaluate(() => performance.getEntriesByType('resource')
        .map((e) => ({ url: e.name, status: e.responseStatus })).concat([{ url: location.href, status: 200 }]));
      assert.ok(all.some((r) => /\.wasm$/.test(r.url)), `${file}: loaded the wasm`);
      // tools/serve.py sent dist/'s brotli copy of the wasm (Chromium accepts br over http from loopback).
      const wasm = await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.wasm'))
        .map((e) => ({ encoded: e.encodedBodySize, decoded: e.decodedBodySize }))[0]);
      assert.ok(wasm.encoded > 0 && wasm.encoded < wasm.decoded / 3, `${file}: wasm ${JSON.stringify(wasm)} not compressed`);
      for (const { url, status } of all) {
        if (url.startsWith('data:') || url.startsWith('blob:')) continue;
        assert.ok(new URL(url).pathname.startsWith(`/${PREFIX}`), `${file}: ${url} outside /${PREFIX}`);
        assert.ok(!(status >= 400), `${file}: ${url} answered ${status}`);
      }
      assert.deepEqual(errors, [], file);
      await ctx.close();
    }
  } finally {
    await server.stop();
  }
});

test('offline after the first visit: the network cut and the server gone, every page reloads and runs, and a lesson runs', async () => {
  const server = await serve({ prefix: PREFIX });
  const { page, errors, ctx } = await openPage(b, `${server.url}lp.html`);
  const caches = await controlled(page);
  assert.deepEqual(caches, [`kplay-${stampOf(DIST)}`]);
  await ctx.setOffline(true);
  await server.stop(); // not only emulated: nothing answers on that port any more
  try {
    await page.reload();
    await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
    await runs(page, 'lp.html');
    for (const file of PAGES) {
      await page.goto(`${server.url}${file}${file === 'index.html' ? '' : '?speed=max'}`);
      await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
      await runs(page, file);
    }
    // Lesson A, step 1: predict → Run it → the explanation, offline.
    await page.goto(`${server.url}lp.html?speed=max#lesson=a&step=1`);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
    assert.equal(await page.evaluate(() => document.body.dataset.lessonStep), '1');
    await page.click('#lesson-run');
    await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 120000 });
    assert.equal(await page.locator('#r-status').innerText(), 'converged');
    // A lesson step's embed (lesson-embed.js) offline too.
    await page.goto(`${server.url}lp.html?embed=step&speed=max#lesson=a&step=2`);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
    assert.equal(await page.evaluate(() => document.body.dataset.embed), 'step');
    await page.click('#lesson-run');
    await page.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 120000 });
    assert.deepEqual(errors, []);
  } finally {
    await ctx.close();
  }
});

test('the site is installable (web app manifest, icons, service worker): Chromium reports no installability error', async () => {
  // A persistent profile: Playwright's ordinary contexts are incognito, which is never installable.
  const server = await serve({ prefix: PREFIX });
  const profile = mkdtempSync(path.join(os.tmpdir(), 'kplay-profile-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROME || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  try {
    const page = await ctx.newPage();
    await page.goto(`${server.url}index.html`);
    await controlled(page);
    const cdp = await ctx.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    assert.deepEqual(installabilityErrors, []);
    const m = await cdp.send('Page.getAppManifest');
    assert.equal(m.url, `${server.url}manifest.webmanifest`);
    assert.deepEqual(m.errors, []);
  } finally {
    await ctx.close();
    await server.stop();
    rmSync(profile, { recursive: true, force: true });
  }
});

test('a new dist/ (another build stamp) replaces the cached one after a reload, and is what works offline next', async () => {
  // Two builds of the same www/ with different stamps, served in turn at the same sub-path.
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'kplay-dist2-'));
  const next = path.join(tmp, 'dist');
  const newStamp = `${stampOf(DIST)} + redeployed ${Date.now()}`;
  execFileSync(process.execPath, [path.join(ROOT, 'tools/dist.mjs'), '--www', WWW, '--out', next, '--stamp', newStamp, '--no-compress'], { stdio: 'ignore' });
  const server = await serve({ prefix: PREFIX });
  const link = path.join(server.root, PREFIX);
  const { page, errors, ctx } = await openPage(b, `${server.url}lp.html`);
  try {
    assert.deepEqual(await controlled(page), [`kplay-${stampOf(DIST)}`]);
    assert.equal(await page.locator('.build-stamp').innerText(), stampOf(DIST));
    // Deploy: the sub-path now points at the new build (an atomic rename, as an rsync --delay-updates would).
    symlinkSync(next, `${link.replace(/\/$/, '')}.new`);
    renameSync(`${link.replace(/\/$/, '')}.new`, link.replace(/\/$/, ''));
    await page.reload();
    await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
    assert.equal(await page.locator('.build-stamp').innerText(), newStamp, 'the reload shows the new build');
    await runs(page, 'lp.html');
    // The new service worker takes over and deletes the old cache.
    const want = [`kplay-${newStamp}`];
    let keys = [];
    for (let t0 = Date.now(); Date.now() - t0 < 60000; await sleep(250)) {
      keys = await page.evaluate(async () => (await caches.keys()).filter((k) => k.startsWith('kplay-')));
      if (JSON.stringify(keys) === JSON.stringify(want)) break;
    }
    assert.deepEqual(keys, want, 'the new service worker replaced the old cache');
    assert.ok(await page.evaluate(() => navigator.serviceWorker.controller !== null));
    await ctx.setOffline(true);
    await server.stop();
    await page.reload();
    await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
    assert.equal(await page.locator('.build-stamp').innerText(), newStamp, 'offline: the new build');
    await runs(page, 'lp.html');
    assert.deepEqual(errors, []);
  } finally {
    await ctx.close();
    await server.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('embeds: "Copy embed code" gives an iframe of the page\'s main plot (in a lesson: the lesson from that step); each paper\'s plot plays, steps and resets in an iframe of a course page, and the lesson runs there', async () => {
  const server = await serve({ prefix: PREFIX });
  try {
    // The code from paper C's export panel, with the page's current spec.
    const { page, errors, ctx } = await openPage(b, `${server.url}dinuzzo.html`);
    await page.click('#copy-embed');
    const code = await page.locator('#embed-code').inputValue();
    assert.match(code, /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/course\/kplay\/embed\.html\?plot=c-map#spec=%7B[^"]+" width="640" height="420" [^>]*title="[^"]+"[^>]*><\/iframe>$/);
    const spec = JSON.parse(decodeURIComponent(code.match(/#spec=([^"]+)"/)[1]));
    assert.equal(spec.paper, 'dinuzzo');
    assert.deepEqual(errors, []);
    await ctx.close();
    // During a lesson, the export panel's code embeds the lesson from the current step (Prev / Next);
    // the lesson player's own "Copy embed code" embeds this step alone or the lesson from it.
    const les = await openPage(b, `${server.url}lp.html#lesson=a&step=2`);
    await les.page.click('#copy-embed');
    const lessonCode = await les.page.locator('#embed-code').inputValue();
    assert.match(lessonCode, /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/course\/kplay\/lp\.html\?embed=lesson#lesson=a&amp;step=2" width="1280" height="720" [^>]*title="Kernel Playground: lesson a"[^>]*><\/iframe>$/);
    await les.page.click('#lesson-embed-copy'); // "this step alone" is the default
    const stepCode = await les.page.locator('#lesson-embed-code').inputValue();
    assert.match(stepCode, /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/course\/kplay\/lp\.html\?embed=step#lesson=a&amp;step=2" width="1280" height="720" [^>]*title="Kernel Playground: lesson a, step 2"[^>]*><\/iframe>$/);
    await les.page.selectOption('#lesson-embed-kind', 'lesson');
    await les.page.click('#lesson-embed-copy');
    assert.equal(await les.page.locator('#lesson-embed-code').inputValue(), lessonCode);
    assert.deepEqual(les.errors, []);
    await les.ctx.close();
    // A course page (outside the site's folder) with those iframes and one for each other paper.
    const frames = [code.replace('width="640" height="420"', 'width="480" height="320"'),
      lessonCode.replace('?embed=lesson#', '?embed=lesson&amp;speed=max#'),
      stepCode.replace('?embed=step#', '?embed=step&amp;speed=max#').replace('width="1280" height="720"', 'width="960" height="600"')];
    for (const plot of ['a-convergence', 'b-fit', 'd-boundary']) {
      frames.push(`<iframe src="kplay/embed.html?plot=${plot}" width="480" height="320" style="border:0" title="${plot}"></iframe>`);
    }
    writeFileSync(path.join(server.root, 'course/index.html'), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>Course</title><h1>Week 3</h1>\n${frames.join('\n')}\n`);
    const c2 = await b.newContext({ viewport: { width: 1280, height: 900 } });
    const host = await c2.newPage();
    const errs = [];
    host.on('console', (m) => { if (m.type() === 'error') errs.push(m.text()); });
    host.on('pageerror', (e) => errs.push(String(e)));
    await host.goto(`${server.url.replace(/kplay\/$/, '')}index.html`);
    // The iframes are lazy: goto's load does not wait for them; wait for each to navigate.
    const embedFrames = () => host.frames().filter((f) => /embed\.html/.test(f.url()));
    while (embedFrames().length < 4) await host.waitForEvent('framenavigated', { timeout: 60000 });
    const embeds = embedFrames();
    assert.equal(embeds.length, 4);
    // The lesson: step 2 in classroom mode without the page around it; Run it explains, Next goes on to step 3.
    const lf = await frameWith(host, /lp\.html\?embed=lesson/);
    await lf.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
    assert.equal(await lf.evaluate(() => document.body.dataset.lessonStep), '2');
    assert.equal(await lf.evaluate(() => document.body.dataset.classroom), '1');
    assert.equal(await lf.evaluate(() => document.body.dataset.embed), 'lesson');
    for (const sel of ['body > header', 'body > footer', '#lesson-exit', '.export', '#lesson-embed-copy']) assert.equal(await lf.locator(sel).isVisible(), false, sel);
    await lf.click('#lesson-run');
    await lf.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 120000 });
    await lf.click('#lesson-next');
    await lf.waitForFunction(() => document.body.dataset.lessonStep === '3');
    // One step alone: no Prev / Next (and → stays on it); Run it plays it to its explanation.
    const sf = await frameWith(host, /lp\.html\?embed=step/);
    await sf.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
    await (await sf.frameElement()).scrollIntoViewIfNeeded(); // the panel is fixed in its frame: bring the frame in view
    assert.equal(await sf.evaluate(() => document.body.dataset.embed), 'step');
    assert.equal(await sf.evaluate(() => document.body.dataset.lessonStep), '2');
    for (const sel of ['body > header', '#lesson-prev', '#lesson-next', '#lesson-exit']) assert.equal(await sf.locator(sel).isVisible(), false, sel);
    assert.ok(await sf.locator('#lesson-run').isVisible());
    await sf.locator('#lesson-step-title').press('ArrowRight');
    assert.equal(await sf.evaluate(() => document.body.dataset.lessonStep), '2');
    await sf.click('#lesson-run');
    await sf.waitForFunction(() => document.body.dataset.lessonPhase === 'explained', null, { timeout: 120000 });
    assert.equal(await sf.evaluate(() => document.body.dataset.lessonStep), '2');
    await host.screenshot({ path: path.join(ROOT, 'tests/e2e/test-results/embed-course.png'), fullPage: true });
    for (const f of embeds) {
      await f.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
      const plot = await f.evaluate(() => document.body.dataset.plot);
      // It plays by itself…
      await f.waitForFunction(() => Number(document.body.dataset.steps) >= 2, null, { timeout: 60000 });
      // …the canvas fills the frame's width and most of its height…
      const box = await f.evaluate(() => ({ w: document.getElementById('plot').clientWidth, h: document.getElementById('plot').clientHeight, iw: innerWidth, ih: innerHeight }));
      assert.equal(box.w, box.iw, `${plot}: canvas width`);
      assert.ok(box.h >= box.ih * 0.6 && box.h < box.ih, `${plot}: canvas height ${box.h} of ${box.ih}`);
      // …Pause, Step (one step, a new picture), Reset (back to step 0).
      await f.click('#play');
      await f.waitForFunction(() => document.body.dataset.playing === '0');
      const n = Number(await f.evaluate(() => document.body.dataset.steps));
      const before = await f.evaluate(() => document.getElementById('plot').toDataURL());
      if (await f.evaluate(() => document.body.dataset.done) === '1') {
        await f.click('#reset');
        await f.click('#step');
        assert.equal(await f.evaluate(() => document.body.dataset.steps), '1', plot);
      } else {
        await f.click('#step');
        assert.equal(await f.evaluate(() => document.body.dataset.steps), String(n + 1), plot);
        assert.notEqual(await f.evaluate(() => document.getElementById('plot').toDataURL()), before, `${plot}: Step drew`);
      }
      await f.click('#reset');
      assert.equal(await f.evaluate(() => document.body.dataset.steps), '0', plot);
      assert.equal(await f.locator('button').count(), 3, `${plot}: Play, Step, Reset and nothing else`);
    }
    // Nothing outside the site's own folder was fetched by the embeds.
    for (const f of embeds) {
      const urls = await f.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
      for (const u of urls) assert.ok(u.startsWith(`${server.url}`) || /^(data|blob):/.test(u), u);
    }
    assert.deepEqual(errs, []);
    await c2.close();
  } finally {
    await server.stop();
  }
});
