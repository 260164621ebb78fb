// Benchmark (not a test): how fast every lab answers an input, in headless Chromium.
// For each lab route (the labs whose manifests, web/src/labs/*.lab.json, name a calculator) it
// drags the lab's main slider and reports p50/p95 of two figures:
//   work    the lab's own work per input: the slider's input handler, the evaluation(s), Lit's
//           render and the chart, called directly (lab.flush()), no frame wait; and how many of
//           those inputs drew a chart afresh rather than moving the marks of one already drawn;
//   painted input → painted: a real pointer drag (CDP mouse events, which Chromium delivers at the
//           start of an animation frame, as it does a reader's drag), from the slider's `input`
//           event to the end of the rendering of the frame that carries the lab's update (a
//           message task posted from the update runs after that frame's style, layout and paint).
//           ≤ 16.7 ms means the answer shows in the frame the input arrived in.
// Needs `npm run build` and the server binary (build/scalelab or $SCALELAB_BIN).
//   node bench/lab-latency.mjs [--lab NAME|all] [--n N] [--out FILE]   (Markdown table on stdout)
import fs from 'node:fs';
import path from 'node:path';
import { startServer, launch, watchedPage, WEB } from '../tests/harness.mjs';
import { LABS } from '../build/labs.mjs';

const arg = (name, dflt) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const only = arg('--lab', 'all');
const N = Number(arg('--n', '200'));
const outFile = arg('--out', null);

// The labs that evaluate the engine (the matmul experiment runs a measurement on a button press
// rather than evaluating on input: not timed here).
const engineLabs = LABS.filter((l) => l.calculator);
// The slider dragged in each lab (default: its main control's, else its first slider) and any
// starting state the drag needs.
const MAIN = {
  roofline: { key: 'B' },
  'compute-budget': { key: 'N' },
  'memory-ladder': { key: 'bytes' },
  collectives: { key: 'bytes' },
  'sharded-matmul': { key: 'J' },
  model: { key: 'T' },
  'memory-budget': { key: 'batch_tokens' },
  'training-pod': { key: 'mfu', query: '?chip=tpu-v5p' },
  decode: { key: 'batch' },
  serving: { key: 'batch' },
  'can-i-run': { key: 'context' },
  'training-comm': { key: 'batch_tokens' },
};
const labs = engineLabs.map((l) => ({ name: l.name, el: l.element }))
  .filter((l) => fs.existsSync(path.join(WEB, 'dist/labs', l.name, 'index.html')))
  .filter((l) => only === 'all' || only.split(',').includes(l.name))
  .map((l) => ({ ...l, key: null, query: '', ...MAIN[l.name] }));
if (!labs.length) throw new Error(`no lab called ${only}; the labs: ${engineLabs.map((l) => l.name).join(', ')}`);

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; };
const ms = (x) => `${x.toFixed(2)} ms`;

/** In the page: time every slider input of `el` to the end of the frame that paints its update. */
function instrument({ el }) {
  const lab = document.querySelector(el);
  const w = window;
  w.__painted = [];
  let t0 = null;
  const channel = new MessageChannel();
  channel.port1.onmessage = () => { if (t0 !== null) { w.__painted.push(performance.now() - t0); t0 = null; } };
  lab.addEventListener('input', (e) => { if (e.target.type === 'range' && t0 === null) t0 = performance.now(); }, true);
  new MutationObserver(() => { if (t0 !== null) channel.port2.postMessage(0); })
    .observe(lab, { attributes: true, attributeFilter: ['data-rendered'] });
}

/** In the page: the lab's own work for n slider positions, called directly (no frame wait). */
async function work({ el, key, n }) {
  const lab = document.querySelector(el);
  const range = lab.querySelector(`.control[data-key="${key}"] input[type=range]`);
  const out = [];
  // charts drawn afresh: chart elements never seen in the lab's chart box before (one kept and shown again is not)
  const seen = new WeakSet(lab.querySelectorAll('.lab-viz > *'));
  let drawn = 0;
  for (let i = 0; i < n; i++) {
    range.value = String(300 + ((i * 37) % 300)); // back and forth over the middle third
    const t0 = performance.now();
    range.dispatchEvent(new Event('input', { bubbles: true }));
    await lab.flush();
    out.push(performance.now() - t0);
    for (const chart of lab.querySelectorAll('.lab-viz > *')) if (!seen.has(chart)) { seen.add(chart); drawn++; }
  }
  return { times: out, drawn };
}

const server = await startServer();
const browser = await launch();
const rows = [];
try {
  for (const lab of labs) {
    const { page, problems } = await watchedPage(browser.context, server.url);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/labs/${lab.name}/${lab.query}`);
    await page.waitForSelector(`${lab.el} .lab-verdict .verdict, ${lab.el} .lab-verdict`);
    await page.waitForFunction((el) => document.querySelector(el)?.dataset.rendered, lab.el);
    // the chart is drawn once its box nears the viewport, and follows every input after that
    await page.locator(`${lab.el} .lab-viz`).first().scrollIntoViewIfNeeded().catch(() => {});
    await page.waitForFunction((el) => { const v = document.querySelector(`${el} .lab-viz`); return !v || v.dataset.renders; }, lab.el);
    lab.key ??= await page.$eval(`${lab.el} .lab-main .control.numeric, ${lab.el} .control.numeric`, (c) => c.dataset.key);
    const slider = page.locator(`${lab.el} .control[data-key="${lab.key}"] input[type=range]`);
    await slider.scrollIntoViewIfNeeded();
    await page.waitForTimeout(300);
    await page.evaluate(instrument, lab);
    // a real drag back and forth over the middle third of the track, one input per position
    const box = await slider.boundingBox();
    const y = box.y + box.height / 2;
    const xAt = (t) => box.x + box.width * (1 / 3 + t / 3);
    await page.mouse.move(xAt(0), y);
    await page.mouse.down();
    let painted = [];
    for (let i = 0; painted.length < N && i < N * 3; i++) {
      const phase = (i % 80) / 40; // 0 → 2 → 0: 40 steps each way
      await page.mouse.move(xAt(phase <= 1 ? phase : 2 - phase), y);
      // wait for this input's paint (a position that keeps the slider's value sends no input)
      await page.evaluate(async (count) => {
        const t = performance.now();
        while (window.__painted.length <= count && performance.now() - t < 100) await new Promise((r) => setTimeout(r, 2));
      }, painted.length);
      await page.waitForTimeout(5 + (i % 7) * 3); // inputs at different points of the frame
      painted = await page.evaluate(() => window.__painted);
    }
    await page.mouse.up();
    const { times: worked, drawn } = await page.evaluate(work, { el: lab.el, key: lab.key, n: N });
    await page.close();
    if (problems.errors.length || problems.console.length) console.warn(lab.name, 'page problems:', problems);
    rows.push({ ...lab, painted, worked, drawn });
    console.error(lab.name, lab.key, 'work p95', ms(pct(worked, 95)), 'painted p95', ms(pct(painted, 95)), `(${painted.length} inputs)`);
  }
} finally {
  await browser.close();
  await server.stop();
}

const ok = (r) => pct(r.worked, 95) <= 4 && pct(r.painted, 95) <= 1000 / 60;
const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const md = `| lab | slider | work p50 | work p95 | charts drawn afresh in the work loop | input → painted p50 | input → painted p95 | inputs | within a frame |
|---|---|---:|---:|---:|---:|---:|---:|:-:|
${rows.map((r) => `| ${r.name} | ${r.key} | ${ms(pct(r.worked, 50))} | **${ms(pct(r.worked, 95))}** | ${r.drawn} of ${N} | ${ms(pct(r.painted, 50))} | **${ms(pct(r.painted, 95))}** | ${r.painted.length} | ${ok(r) ? 'yes' : 'no'} |`).join('\n')}

${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, load average ${load} (1/5/15 min) at the end of the run.
`;
if (outFile) fs.writeFileSync(outFile, md);
console.log(md);
