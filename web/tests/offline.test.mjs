// Offline: once a page of the course has loaded, its service worker (/sw.js) has precached the
// whole build; with the server gone, other chapters and labs still open and the engine still runs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, launch, watchedPage, WEB } from './harness.mjs';

let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

test('sw.js precaches every page, the engine and the fonts of this build, and is never cached by HTTP', async () => {
  const res = await fetch(server.url + '/sw.js');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /javascript/);
  assert.equal(res.headers.get('cache-control'), 'no-cache');
  const source = await res.text();
  const precache = JSON.parse(/const PRECACHE = (\[.*\]);/.exec(source)[1]);
  const chapters = fs.readdirSync(path.join(WEB, 'dist', 'chapters'));
  const labs = fs.readdirSync(path.join(WEB, 'dist', 'labs'));
  assert.ok(chapters.length >= 13 && labs.length >= 11);
  for (const c of chapters) assert.ok(precache.includes(`/chapters/${c}/`), c);
  for (const l of labs) assert.ok(precache.includes(`/labs/${l}/`), l);
  for (const p of ['/', '/about/', '/errata/', '/404.html']) assert.ok(precache.includes(p), p);
  assert.ok(precache.some((u) => /^\/assets\/.*\.wasm$/.test(u)), 'the engine');
  assert.ok(precache.some((u) => /^\/assets\/KaTeX_Main-Regular.*\.woff2$/.test(u)), 'the fonts');
  assert.ok(!precache.some((u) => /\.(gz|br|ttf|woff)$/.test(u)), 'no precompressed copies or legacy fonts');
  for (const u of precache) assert.equal((await fetch(server.url + u)).status, 200, u);
});

test('with the server stopped, another chapter and a lab open and compute', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/chapters/01-rooflines/');
  await page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready; // resolves once installed (all precached) and active
    if (!navigator.serviceWorker.controller) await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
    return reg.active.state;
  });
  await server.stop();
  server = null;
  assert.equal((await fetch(page.url()).catch(() => null)), null, 'the server is really gone');

  await page.goto(page.url().replace('/chapters/01-rooflines/', '/chapters/07-inference/'));
  assert.match(await page.locator('h1').first().innerText(), /Inference/i);
  assert.ok(await page.locator('.live').count() > 0, 'live numbers on the page');

  await page.goto(page.url().replace('/chapters/07-inference/', '/labs/roofline/?B=64'));
  await page.waitForSelector('sl-roofline-lab .lab-verdict .verdict');
  assert.match(await page.locator('.lab-verdict').innerText(), /Memory-bound/, 'the engine ran offline at B = 64');
  assert.deepEqual(problems.errors, []);
  assert.deepEqual(problems.thirdParty, []);
  await page.close();
});
