// Shared by the browser tests and the benchmark: start `scalelab serve` on web/dist (built
// beforehand by `npm run build`; nothing is built here) and Debian's Chromium via playwright-core.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const require = createRequire(import.meta.url);
export const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = path.resolve(WEB, '..');

/** `scalelab serve` on a free loopback port, serving `dist` (the build in web/dist by default). */
export async function startServer(dist = path.join(WEB, 'dist')) {
  const bin = path.resolve(ROOT, process.env.SCALELAB_BIN || 'build/scalelab');
  if (!fs.existsSync(bin)) throw new Error(`no server binary at ${bin}: build it (cmake --preset release && cmake --build build -j2) or set SCALELAB_BIN`);
  if (!fs.existsSync(path.join(dist, 'index.html'))) throw new Error(`${path.relative(ROOT, dist)} is not built: run \`npm --prefix web run build\` first`);
  const proc = spawn(bin, ['serve', '--port', '0', '--root', dist], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 10000);
    const onData = (d) => {
      out += d;
      const m = /serving .* on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited (${code}): ${out}`)); });
  });
  return { url, stop: () => new Promise((r) => { proc.once('exit', r); proc.kill('SIGTERM'); setTimeout(() => { proc.kill('SIGKILL'); r(); }, 3000); }) };
}

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

/** Chromium with a fresh user-data-dir; `extra`: more arguments (e.g. --enable-unsafe-webgpu). */
export async function launch(extra = []) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scalelab-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [...CHROMIUM_ARGS, ...extra],
  });
  return { context, close: async () => { await context.close(); fs.rmSync(dir, { recursive: true, force: true }); } };
}

/** A browser whose context blocks service workers, for tests that rewrite or refuse requests with
 * page.route (a request the service worker answers from its cache never reaches the route). */
export async function launchWithoutServiceWorkers() {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  return { context: await browser.newContext({ serviceWorkers: 'block' }), close: () => browser.close() };
}

/** A page of a browser with JavaScript turned off (a context of its own: the persistent context
 * of launch() cannot make one), for what a reader without scripts sees. */
export async function pageWithoutScripts() {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  const page = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
  return { page, close: () => browser.close() };
}

/** Scrolls `host` into view until `target` (inside it) is visible, for at most `ms`; returns whether it
 * came. What loads near the viewport (a figure's module, a lab's chart) can be pushed out of reach by
 * what draws above it before the observer looks, as a reader's next scroll would bring it back. */
export async function scrollUntilVisible(page, host, target, ms = 20000) {
  for (const end = Date.now() + ms; !(await target.isVisible()) && Date.now() < end;) {
    await host.scrollIntoViewIfNeeded();
    await page.waitForTimeout(250);
  }
  return target.isVisible();
}

/** A page that records console errors, page errors and requests to other origins. */
export async function watchedPage(context, base) {
  const page = await context.newPage();
  const problems = { console: [], errors: [], thirdParty: [] };
  const origin = new URL(base).origin;
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.console.push(`${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.errors.push(String(e)));
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:')) problems.thirdParty.push(u);
  });
  return { page, problems };
}

export async function axe(page) {
  // Evaluated through the DevTools protocol: the page's CSP forbids inline <script> tags.
  if (!(await page.evaluate(() => !!window.axe))) await page.evaluate(fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const r = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}
