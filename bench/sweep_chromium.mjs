#!/usr/bin/env node
// The 2,048-point numbers-only decode sweep (bench_evaluate.cpp's sweep/decode_2048) timed in
// Debian's Chromium, in the browser build of the engine (build-wasm/web/engine.{js,wasm}, the
// module the course ships), plus decode numbers-only and with steps for scale. The engine is
// served to the page through Playwright's request routing, so neither web/dist nor a server is
// needed.
//
//   node bench/sweep_chromium.mjs [--wasm-dir build-wasm] [--variant inference] [--runs 30]
//
// Prints the median and p95 of one sweep over --runs runs (after 3 warm-up runs), and
// evaluations/s of single decode evaluations. The sweep is timed three ways, alternately run by
// run: as the course calls it (engine.ts's sweep: sweepColumns, then sweepValues' doubles put
// back into the result by web/src/sweep-columns.js, the same module), as the JSON export parsed
// (what engine.ts did before), and the JSON export alone (its text, not parsed). --variant loads
// a lab group's engine (build-wasm/web/engine-<variant>.js, named by the lab manifests; /labs/decode/
// loads "inference") instead of the full one.
//
//   node bench/sweep_chromium.mjs --native build/scalelab_bench [--rounds 10]
//
// adds Chromium against native in the same minutes: --rounds rounds, each a short native run
// (numbers-only decode and serving, the sweep as columns; wall time) and then the same three in the
// page, so both meet the same load. Prints each round's wasm/native ratios and their medians.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { firstInputs } from './case_inputs.mjs';
import { inRounds } from './native_rates.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'web', 'package.json'));
const { chromium } = require('playwright-core');

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const wasmDir = path.resolve(root, opt('--wasm-dir', process.env.SCALELAB_WASM_DIR || 'build-wasm'), 'web');
const runs = Number(opt('--runs', '30'));
const variant = opt('--variant', '');
const nativeBin = opt('--native', null);
const rounds = Number(opt('--rounds', '10'));
const engineFile = variant ? `engine-${variant}.js` : 'engine.js';
const sweepColumnsFile = path.join(root, 'web', 'src', 'sweep-columns.js');
// the first case of each calculator in tests/cases, as bench_evaluate.cpp has them, and the
// 2,048-point sweep of bench_inputs.hpp (kSweepParams, kSweepSpec)
const inputs = firstInputs(root);
const SWEEP_PARAMS = JSON.stringify({ model: 'llama3-70b', chip: 'tpu-v5e', chips: 16, batch: 32 });
const SWEEP_SPEC = JSON.stringify({ x: { param: 'context', from: 0, to: 131072, points: 2048, scale: 'linear' } });

const ORIGIN = 'http://bench.invalid';
const page_html = `<!doctype html><meta charset="utf-8"><title>sweep bench</title>
<script type="module">
import createEngine from './${engineFile}';
import { sweepFromColumns } from './sweep-columns.js';
window.engine = await createEngine();
window.sweepFromColumns = sweepFromColumns;
window.ready = true;
</script>`;

const types = { '.js': 'text/javascript', '.wasm': 'application/wasm' };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scalelab-sweep-bench-'));
const context = await chromium.launchPersistentContext(dir, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run', '--disable-quic'],
});
try {
  await context.route(`${ORIGIN}/**`, (route) => {
    const name = new URL(route.request().url()).pathname.slice(1);
    if (name === '' || name === 'index.html') return route.fulfill({ body: page_html, contentType: 'text/html' });
    const file = name === 'sweep-columns.js' ? sweepColumnsFile : path.join(wasmDir, path.basename(name));
    if (!fs.existsSync(file)) return route.fulfill({ status: 404, body: 'not found' });
    return route.fulfill({ body: fs.readFileSync(file), contentType: types[path.extname(file)] ?? 'application/octet-stream' });
  });
  const page = await context.newPage();
  await page.goto(`${ORIGIN}/`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 30000 });
  const result = await page.evaluate(({ runs, decode, params, spec }) => {
    const m = window.engine;
    // engine.ts's sweep, as the labs call it (less its variant check and fault report)
    const typed = () => window.sweepFromColumns(m.sweepColumns('decode', params, spec), m.sweepValues());
    const parsed = () => JSON.parse(m.sweep('decode', params, spec));
    const text = () => m.sweep('decode', params, spec);
    // An engine from before sweepColumns (main's, for a comparison): the JSON ways only.
    const ways = m.sweepColumns ? { typed, parsed, text } : { parsed, text };
    const check = parsed();
    if (check.error || check.x.values.length !== 2048) throw new Error(`the sweep failed: ${JSON.stringify(check).slice(0, 300)}`);
    if (ways.typed && JSON.stringify(typed()) !== JSON.stringify(check)) throw new Error('the typed sweep differs from the JSON sweep');
    const times = { typed: [], parsed: [], text: [] };
    for (let i = 0; i < 3; i++) for (const f of Object.values(ways)) f();
    for (let i = 0; i < runs; i++) {
      for (const [name, f] of Object.entries(ways)) {
        const t0 = performance.now();
        f();
        times[name].push(performance.now() - t0);
      }
    }
    const stats = (t) => {
      t.sort((a, b) => a - b);
      return { median: t[Math.floor(t.length / 2)], p95: t[Math.min(t.length - 1, Math.ceil(t.length * 0.95) - 1)] };
    };
    const rate = (call) => {
      for (let i = 0; i < 200; i++) call();
      const t0 = performance.now();
      let n = 0;
      while (performance.now() - t0 < 1000) { for (let i = 0; i < 50; i++) call(); n += 50; }
      return n / ((performance.now() - t0) / 1000);
    };
    const input = decode;
    return {
      typed: ways.typed ? stats(times.typed) : null, parsed: stats(times.parsed), text: stats(times.text),
      numbers: rate(() => window.engine.evaluateNumbers('decode', input)),
      steps: rate(() => window.engine.evaluate('decode', input)),
      agent: navigator.userAgent,
    };
  }, { runs, decode: inputs.get('decode'), params: SWEEP_PARAMS, spec: SWEEP_SPEC });
  console.log(`Chromium: ${result.agent.match(/Chrome\/[\d.]+/)?.[0] ?? result.agent}; ${path.relative(root, wasmDir)}/${engineFile}; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const line = (what, r) => console.log(`decode sweep, 2,048 points, ${what}: median ${r.median.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms (${runs} runs)`);
  if (result.typed) line('as the course calls it (typed columns)', result.typed);
  line('JSON export, parsed', result.parsed);
  line('JSON export, its text only', result.text);
  console.log(`decode numbers-only: ${Math.round(result.numbers)} evaluations/s; with steps: ${Math.round(result.steps)}/s`);
  if (nativeBin) await againstNative(page);
} finally {
  await context.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

// Chromium and native alternated, round by round (see the header).
async function againstNative(page) {
  await inRounds(nativeBin, {
    root, rounds, label: 'Chromium',
    measure: () => page.evaluate(({ decode, serving, params, spec }) => {
      const m = window.engine;
      const rate = (call, ms, per = 1) => {
        for (let i = 0; i < 20; i++) call();
        const t0 = performance.now();
        let n = 0;
        while (performance.now() - t0 < ms) { call(); n += per; }
        return n / ((performance.now() - t0) / 1000);
      };
      return {
        'numbers/decode': rate(() => m.evaluateNumbers('decode', decode), 300),
        'numbers/serving': rate(() => m.evaluateNumbers('serving', serving), 300),
        'sweep/decode_2048_columns': rate(() => window.sweepFromColumns(m.sweepColumns('decode', params, spec), m.sweepValues()), 300, 2048),
      };
    }, { decode: inputs.get('decode'), serving: inputs.get('serving'), params: SWEEP_PARAMS, spec: SWEEP_SPEC }),
  });
}
