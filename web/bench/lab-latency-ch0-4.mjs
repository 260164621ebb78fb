// Benchmarks (not tests) for the chapter 0–4 labs: input→DOM latency while a slider is dragged
// (about 200 inputs per lab, in headless Chromium), and the bytes (gzip) each lab route ships.
// Needs `npm run build` and the server binary (build/scalelab or $SCALELAB_BIN).
//   node bench/lab-latency-ch0-4.mjs [--out FILE]   (Markdown; default labs_bench_A.md in the OS temp dir)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dragLatency } from './slider.mjs';
import { startServer, launch, watchedPage, WEB } from '../tests/harness.mjs';

const outFile = process.argv.includes('--out') ? process.argv[process.argv.indexOf('--out') + 1] : path.join(os.tmpdir(), 'labs_bench_A.md');
const N = 200;
/** lab, element, the slider dragged */
const LABS = [
  ['compute-budget', 'sl-compute-budget-lab', 'N'],
  ['memory-ladder', 'sl-memory-ladder-lab', 'bytes'],
  ['collectives', 'sl-collectives-lab', 'bytes'],
  ['sharded-matmul', 'sl-sharded-matmul-lab', 'J'],
  ['model', 'sl-model-lab', 'T'],
];
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
  let gz = 0, raw = 0;
  for (const p of paths) {
    let f = path.join(WEB, 'dist', p);
    if (p.endsWith('/')) f = path.join(f, 'index.html');
    if (!fs.existsSync(f)) continue;
    const size = fs.statSync(f).size;
    raw += size;
    gz += fs.existsSync(f + '.gz') ? fs.statSync(f + '.gz').size : size;
  }
  return { raw, gz, files: paths.size };
}

const rows = [];
try {
  for (const [name, tag, key] of LABS) {
    const { page, problems } = await watchedPage(browser.context, server.url);
    await page.goto(server.url + `/labs/${name}/`);
    await page.waitForSelector(`${tag} .lab-verdict .verdict`);
    await page.waitForTimeout(500);
    // a drag back and forth over a third of the slider
    const samples = await dragLatency(page, { el: tag, key, from: 300, to: 600, n: N });
    // evaluate + render without the animation-frame wait
    const work = await page.evaluate(async ([n, t, k]) => {
      const lab = document.querySelector(t);
      const c = lab.controls.find((x) => x.key === k);
      const out = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        const prev = lab.values.get(c.path);
        lab.setValue(c, lab.fromSlider(c.schema, 300 + ((i * 37) % 300)));
        lab.controlChanged(c, prev); // as the slider's input handler does (e.g. D follows N)
        lab.evaluateNow();
        await lab.updateComplete;
        out.push(performance.now() - t0);
      }
      return out;
    }, [N, tag, key]);
    await page.close();
    if (problems.errors.length || problems.console.length) console.warn(name, 'page problems:', problems);
    const bytes = await pageBytes(`/labs/${name}/`);
    rows.push({ name, key, samples, work, bytes });
    console.log(name, pct(samples, 50).toFixed(2), pct(samples, 95).toFixed(2), pct(work, 50).toFixed(2), pct(work, 95).toFixed(2), bytes.gz);
  }
  const kb = (b) => `${(b / 1024).toFixed(1)} KiB`;
  const md = `## Labs, chapters 0–4: input→DOM latency and bytes shipped

Measured by \`web/bench/lab-latency-ch0-4.mjs\` (headless Debian Chromium via playwright-core, served by
\`scalelab serve\` from web/dist), ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, on a 2-core machine shared with other builds
(load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} at the end of the run).

**Input → updated DOM** (${N} slider \`input\` events per lab, dragging back and forth over a third of the slider;
from the event to the lab's re-render, plots included. "incl. rAF" waits for the next animation frame, by design;
"no rAF" calls the evaluation directly and waits for Lit's update):

| lab | slider | p50 incl. rAF | p95 incl. rAF | max | p50 no rAF | p95 no rAF | route bytes (gzip) | raw | files |
|---|---|---|---|---|---|---|---|---|---|
${rows.map((r) => `| ${r.name} | ${r.key} | ${pct(r.samples, 50).toFixed(2)} ms | ${pct(r.samples, 95).toFixed(2)} ms | ${Math.max(...r.samples).toFixed(2)} ms | ${pct(r.work, 50).toFixed(2)} ms | ${pct(r.work, 95).toFixed(2)} ms | **${kb(r.bytes.gz)}** | ${kb(r.bytes.raw)} | ${r.bytes.files} |`).join('\n')}

Bytes: the sum of the precompressed .gz sizes of every file the first view of \`/labs/<name>/\` loaded
(HTML, CSS, JS chunks, the engine's wasm, fonts).

Rerun: \`npm --prefix web run build && node web/bench/lab-latency-ch0-4.mjs --out labs_bench_A.md\`.
`;
  fs.writeFileSync(outFile, md);
  console.log(md);
} finally {
  await browser.close();
  await server.stop();
}
