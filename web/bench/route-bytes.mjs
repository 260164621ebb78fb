// Benchmark (not a test): the bytes each route transfers on a first view, from web/dist.
// Every route (home, each chapter, each lab) opens in a fresh browser context with service workers
// blocked, so the service worker's background precache is not counted (it runs after the first view
// and only on a visit that registers it). A lab route's first view ends when the lab shows its first
// result (its verdict) and the network is idle; a chapter's when the network is idle.
// Sizes are those of the precompressed files the server sends (.gz, .br beside each file in dist).
// A lab route is also opened on a phone's screen (412 × 823, Lighthouse's), where its chart is
// below the fold and drawn, with Observable Plot, only when the reader scrolls towards it.
//   node bench/route-bytes.mjs [--out FILE] [--only SUBSTRING] [--files]
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startServer, WEB } from '../tests/harness.mjs';

const arg = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : null);
const outFile = arg('--out');
const only = arg('--only');
const listFiles = process.argv.includes('--files');
const BUDGET = 300 * 1024;

const DIST = path.join(WEB, 'dist');
const dirs = (sub) => fs.readdirSync(path.join(DIST, sub)).filter((d) => fs.existsSync(path.join(DIST, sub, d, 'index.html'))).sort();
const routes = ['/', ...dirs('chapters').map((d) => `/chapters/${d}/`), ...dirs('labs').map((d) => `/labs/${d}/`)]
  .filter((r) => !only || r.includes(only));

function sizes(urlPath) {
  let f = path.join(DIST, decodeURIComponent(urlPath));
  if (urlPath.endsWith('/')) f = path.join(f, 'index.html');
  if (!fs.existsSync(f) || !fs.statSync(f).isFile()) return null;
  const size = (p) => (fs.existsSync(p) ? fs.statSync(p).size : null);
  const raw = size(f);
  return { raw, gz: size(f + '.gz') ?? raw, br: size(f + '.br') ?? size(f + '.gz') ?? raw };
}

async function measure(browser, base, route, viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ serviceWorkers: 'block', viewport });
  const page = await context.newPage();
  const fetched = new Set();
  page.on('response', (r) => { const u = new URL(r.url()); if (u.origin === base) fetched.add(u.pathname); });
  await page.goto(base + route, { waitUntil: 'load' });
  if (route.startsWith('/labs/') && !route.includes('matmul')) {
    // a lab's verdict; the decode run's page, its panel ready to run (it has no verdict before a run)
    await page.waitForSelector('.lab-verdict .verdict, sl-decode-run-view button.primary:enabled', { timeout: 30000 });
  }
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(500);
  // resources whose fetch began before the first contentful paint (the document itself included)
  const early = await page.evaluate(() => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Infinity;
    return performance.getEntriesByType('resource').filter((e) => e.startTime < fcp).map((e) => new URL(e.name).pathname);
  });
  await context.close();
  const sum = (paths) => {
    const t = { n: 0, raw: 0, gz: 0, br: 0, files: [] };
    for (const p of paths) {
      const s = sizes(p);
      if (!s) continue;
      t.n++; t.raw += s.raw; t.gz += s.gz; t.br += s.br; t.files.push([p, s.gz]);
    }
    return t;
  };
  return { route, all: sum(fetched), early: sum(new Set([route, ...early])) };
}

const kb = (b) => `${(b / 1024).toFixed(1)} KiB`;
const server = await startServer();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
});
const rows = [];
try {
  for (const route of routes) {
    const r = await measure(browser, server.url, route);
    if (route.startsWith('/labs/')) r.phone = (await measure(browser, server.url, route, { width: 412, height: 823 })).all;
    rows.push(r);
    console.error(route, kb(r.all.gz));
  }
} finally {
  await browser.close();
  await server.stop();
}
const lines = [
  '| route | files | before first paint (gzip) | first view (gzip) | brotli | raw | ≤ 300 KiB | first view on a phone (gzip) |',
  '|---|---:|---:|---:|---:|---:|:-:|---:|',
  ...rows.map((r) => `| ${r.route} | ${r.all.n} | ${kb(r.early.gz)} | **${kb(r.all.gz)}** | ${kb(r.all.br)} | ${kb(r.all.raw)} | ${r.all.gz <= BUDGET ? 'yes' : 'no'} | ${r.phone ? kb(r.phone.gz) : '—'} |`),
];
if (listFiles) {
  for (const r of rows) {
    lines.push('', `${r.route}: ${r.all.files.sort((a, b) => b[1] - a[1]).map(([p, g]) => `${p} ${kb(g)}`).join(', ')}`);
  }
}
const md = lines.join('\n') + '\n';
if (outFile) fs.writeFileSync(outFile, md);
console.log(md);
