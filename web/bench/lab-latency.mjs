// Benchmarks (not tests): roofline lab input→DOM latency over ~200 slider inputs in headless
// Chromium, and the bytes (gzip) a first view of chapter 1 and of the lab page transfers.
// Needs `npm run build` and the server binary (build/scalelab or $SCALELAB_BIN).
//   node bench/lab-latency.mjs [--out FILE]     (prints Markdown; --out also writes it to FILE)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dragLatency } from './slider.mjs';
import { startServer, launch, watchedPage, WEB } from '../tests/harness.mjs';

const outFile = process.argv.includes('--out') ? process.argv[process.argv.indexOf('--out') + 1] : null;
const N = 200;
const server = await startServer();
const browser = await launch();
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; };

async function pageBytes(urlPath, settleMs = 1500) {
  const { page } = await watchedPage(browser.context, server.url);
  const paths = new Set();
  page.on('response', (r) => { const u = new URL(r.url()); if (u.origin === server.url) paths.add(u.pathname); });
  await page.goto(server.url + urlPath, { waitUntil: 'networkidle' });
  await page.waitForTimeout(settleMs);
  await page.close();
  let gz = 0, br = 0, raw = 0;
  const rows = [];
  for (const p of paths) {
    let f = path.join(WEB, 'dist', p);
    if (p.endsWith('/')) f = path.join(f, 'index.html');
    if (!fs.existsSync(f)) continue;
    const size = fs.statSync(f).size;
    const g = fs.existsSync(f + '.gz') ? fs.statSync(f + '.gz').size : size;
    const b = fs.existsSync(f + '.br') ? fs.statSync(f + '.br').size : size;
    raw += size; gz += g; br += b;
    rows.push([p, size, g]);
  }
  return { raw, gz, br, rows };
}

try {
  // ---- latency
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/labs/roofline/');
  await page.waitForSelector('sl-roofline-lab .lab-verdict .verdict');
  await page.waitForTimeout(500);
  const samples = await dragLatency(page, { el: 'sl-roofline-lab', key: 'B', from: 150, to: 450, n: N }); // B ~20 → ~4000
  // the same without waiting for the next animation frame: pure evaluate + render cost
  const work = await page.evaluate(async (n) => {
    const lab = document.querySelector('sl-roofline-lab');
    const out = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      lab.setValue(lab.controls[0], 20 + ((i * 97) % 4000));
      lab.evaluateNow();
      await lab.updateComplete;
      out.push(performance.now() - t0);
    }
    return out;
  }, N);
  await page.close();
  if (problems.errors.length || problems.console.length) console.warn('page problems:', problems);

  const ch = await pageBytes('/chapters/01-rooflines/');
  const lab = await pageBytes('/labs/roofline/');
  const kb = (b) => `${(b / 1024).toFixed(1)} KiB`;
  const md = `## Web: roofline lab latency and bytes shipped

Measured by \`web/bench/lab-latency.mjs\` (headless Debian Chromium via playwright-core, served by
\`scalelab serve\` from web/dist), ${new Date().toISOString().slice(0, 10)}, on ${os.cpus().length} CPU cores with
load average ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} (1/5/15 min) at the end of the run: a shared, busy
machine, so treat these as upper bounds.

**Roofline lab, input → updated DOM** (${N} slider inputs on B; from the \`input\` event to the lab's
re-render, plot and verdict included; the update waits for the next animation frame by design):

| | p50 | p95 | max |
|---|---|---|---|
| input → DOM (incl. rAF wait) | ${pct(samples, 50).toFixed(2)} ms | ${pct(samples, 95).toFixed(2)} ms | ${Math.max(...samples).toFixed(2)} ms |
| evaluate + render only (no rAF) | ${pct(work, 50).toFixed(2)} ms | ${pct(work, 95).toFixed(2)} ms | ${Math.max(...work).toFixed(2)} ms |

**Bytes transferred, first view** (sum of the precompressed .gz sizes of every file the page loaded;
brotli in brackets):

| page | files | raw | gzip | (brotli) |
|---|---|---|---|---|
| /chapters/01-rooflines/ (step 1; the lab and Plot load when their step is shown) | ${ch.rows.length} | ${kb(ch.raw)} | **${kb(ch.gz)}** | ${kb(ch.br)} |
| /labs/roofline/ (engine, lab, Plot, KaTeX runtime) | ${lab.rows.length} | ${kb(lab.raw)} | **${kb(lab.gz)}** | ${kb(lab.br)} |

Chapter 1 first view, per file: ${ch.rows.map(([p, r, g]) => `\`${p}\` ${kb(g)}`).join(', ')}.

Rerun: \`npm --prefix web run build && node web/bench/lab-latency.mjs --out web_bench.md\`.
`;
  if (outFile) fs.writeFileSync(outFile, md);
  console.log(md);
} finally {
  await browser.close();
  await server.stop();
}
