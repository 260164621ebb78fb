// Benchmarks (not tests) for the chapter 5–8 labs (memory-budget, training-pod, decode, serving):
// input→DOM latency while dragging a slider (~150 input events per lab, headless Chromium) and the
// bytes (gzip) each lab route transfers on a first view. Needs `npm run build` and the server binary.
//   node bench/lab-latency-ch5-8.mjs [--out FILE]     (writes Markdown; default /tmp/labs_bench_B.md)
import fs from 'node:fs';
import path from 'node:path';
import { dragLatency } from './slider.mjs';
import { startServer, launch, watchedPage, WEB } from '../tests/harness.mjs';

const outFile = process.argv.includes('--out') ? process.argv[process.argv.indexOf('--out') + 1] : '/tmp/labs_bench_B.md';
const N = 150;
const LABS = [
  { name: 'memory-budget', el: 'sl-memory-budget-lab', key: 'batch_tokens', from: 250, to: 650 },
  { name: 'training-pod', el: 'sl-training-pod-lab', key: 'mfu', from: 100, to: 900, query: '?chip=tpu-v5p' },
  { name: 'decode', el: 'sl-decode-lab', key: 'batch', from: 100, to: 500 },
  { name: 'serving', el: 'sl-serving-lab', key: 'batch', from: 100, to: 450 },
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
  let gz = 0, raw = 0, n = 0;
  for (const p of paths) {
    let f = path.join(WEB, 'dist', p);
    if (p.endsWith('/')) f = path.join(f, 'index.html');
    if (!fs.existsSync(f)) continue;
    const size = fs.statSync(f).size;
    raw += size; gz += fs.existsSync(f + '.gz') ? fs.statSync(f + '.gz').size : size; n++;
  }
  return { raw, gz, n };
}

const rows = [];
try {
  for (const lab of LABS) {
    const { page, problems } = await watchedPage(browser.context, server.url);
    await page.goto(server.url + `/labs/${lab.name}/` + (lab.query ?? ''));
    await page.waitForSelector(`${lab.el} .lab-verdict .verdict`);
    await page.waitForTimeout(500);
    // input event on the slider → the lab's data-rendered attribute changes (next animation frame)
    const samples = await dragLatency(page, { n: N, ...lab });
    // the same work without the animation-frame wait: evaluate (plus the lab's extra engine calls) + render
    const work = await page.evaluate(async ({ n, el, key, from, to }) => {
      const lab = document.querySelector(el);
      const range = lab.querySelector(`.control[data-key="${key}"] input[type=range]`);
      const c = lab.controls.find((x) => x.key === key);
      const out = [];
      for (let i = 0; i < n; i++) {
        range.value = String(from + ((i * 53) % (to - from)));
        const t0 = performance.now();
        lab.setValue(c, lab.fromSlider(c.schema, Number(range.value)));
        lab.evaluateNow();
        await lab.updateComplete;
        out.push(performance.now() - t0);
      }
      return out;
    }, { n: N, ...lab });
    await page.close();
    if (problems.errors.length || problems.console.length) console.warn(lab.name, 'page problems:', problems);
    const bytes = await pageBytes(`/labs/${lab.name}/`);
    rows.push({ ...lab, samples, work, bytes });
    console.log(lab.name, 'p50', pct(samples, 50).toFixed(2), 'p95', pct(samples, 95).toFixed(2), 'work p95', pct(work, 95).toFixed(2), 'gzip', bytes.gz);
  }
  const kb = (b) => `${(b / 1024).toFixed(1)} KiB`;
  const ms = (x) => `${x.toFixed(2)} ms`;
  const md = `## Labs of chapters 5–8: input→DOM latency and bytes shipped

Measured by \`web/bench/lab-latency-ch5-8.mjs\` (headless Debian Chromium via playwright-core, served by
\`scalelab serve\` from web/dist), ${new Date().toISOString().slice(0, 10)}, on this 2-core machine shared with other builds.

**Input → updated DOM while dragging a slider** (${N} \`input\` events per lab, 20 ms apart; from the event to
the lab's \`data-rendered\` change: engine evaluation(s), outputs, verdict, plot; the update waits for the next
animation frame by design). "work" is the same update called directly (no frame wait).

| lab | slider | input → DOM p50 | p95 | max | work p50 | work p95 |
|---|---|---|---|---|---|---|
${rows.map((r) => `| ${r.name} | ${r.key} | ${ms(pct(r.samples, 50))} | **${ms(pct(r.samples, 95))}** | ${ms(Math.max(...r.samples))} | ${ms(pct(r.work, 50))} | ${ms(pct(r.work, 95))} |`).join('\n')}

**Bytes transferred, first view of each lab route** (sum of the precompressed .gz sizes of every file the page
loaded: HTML, CSS, JS incl. the lab module, Plot and KaTeX runtime, the engine's wasm):

| route | files | raw | gzip |
|---|---|---|---|
${rows.map((r) => `| /labs/${r.name}/ | ${r.bytes.n} | ${kb(r.bytes.raw)} | **${kb(r.bytes.gz)}** |`).join('\n')}

Rerun: \`npm --prefix web run build && node web/bench/lab-latency-ch5-8.mjs --out lat.md\`.
`;
  fs.writeFileSync(outFile, md);
  console.log(md);
} finally {
  await browser.close();
  await server.stop();
}
