// Cross-origin isolation (COOP + COEP), which WebAssembly threads need (SharedArrayBuffer): pages
// served by `scalelab serve` are isolated from the first load, shared memory exists, and nothing the
// course loads is blocked by require-corp. On a static host that sends no such headers, the
// course's service worker adds them, so a page is isolated once the worker controls it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { startServer, launch, watchedPage, WEB } from './harness.mjs';

let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

test('scalelab serve: a chapter and two labs are isolated, shared memory exists, nothing is blocked', async () => {
  for (const route of ['/chapters/07-inference/', '/labs/decode/', '/labs/matmul/']) {
    const { page, problems } = await watchedPage(browser.context, server.url);
    const failed = [];
    page.on('requestfailed', (r) => failed.push(`${r.url()}: ${r.failure()?.errorText}`));
    await page.goto(server.url + route);
    assert.equal(await page.evaluate(() => crossOriginIsolated), true, route);
    // shared memory exists: what the CPU path's threads share (decode-run.test.mjs runs them)
    assert.equal(await page.evaluate(() => new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer instanceof SharedArrayBuffer), true, route);
    await page.waitForLoadState('networkidle');
    assert.deepEqual(failed, [], route);
    assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] }, route);
    await page.close();
  }
});

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm',
  '.json': 'application/json', '.woff2': 'font/woff2', '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.webmanifest': 'application/manifest+json' };

/** A static host that sends no security headers at all: web/dist as files, nothing else. */
function plainHost() {
  const root = path.join(WEB, 'dist');
  const srv = http.createServer((req, res) => {
    let p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (p.endsWith('/')) p += 'index.html';
    const file = path.join(root, path.normalize(p));
    if (!file.startsWith(root) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      if (fs.existsSync(`${file}/index.html`)) { res.writeHead(301, { Location: `${p}/` }); res.end(); return; }
      res.writeHead(404); res.end(); return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${srv.address().port}`, stop: () => new Promise((r) => srv.close(r)) })));
}

test('a static host without the headers: the service worker adds them, so the second load is isolated', async () => {
  const host = await plainHost();
  try {
    const page = await browser.context.newPage();
    await page.goto(`${host.url}/labs/decode/`);
    assert.equal(await page.evaluate(() => crossOriginIsolated), false, 'the first load, before the worker is installed');
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller) await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
    });
    await page.reload();
    assert.equal(await page.evaluate(() => crossOriginIsolated), true, 'answered by the service worker');
    const res = await page.evaluate(async () => { const r = await fetch(location.href); return [r.headers.get('cross-origin-embedder-policy'), r.headers.get('cross-origin-opener-policy')]; });
    assert.deepEqual(res, ['require-corp', 'same-origin']);
    await page.close();
  } finally { await host.stop(); }
});
