#!/usr/bin/env node
// The layout search timed in Debian's Chromium, in the browser build of the engine
// (build-wasm/web/engine.{js,wasm}, the module the course ships): each case of
// bench/layout_search_cases.json evaluated as training_run with its steps (the lab's call), the
// median over --runs runs after 2 warm-up runs. Issue 36's target: at least 100,000 layouts ranked
// in under a second.
//
//   node bench/layout_search_chromium.mjs [--wasm-dir build-wasm] [--runs 15]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'web', 'package.json'));
const { chromium } = require('playwright-core');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const wasmDir = path.resolve(root, opt('--wasm-dir', process.env.SCALELAB_WASM_DIR || 'build-wasm'), 'web');
const runs = Number(opt('--runs', '15'));
const cases = JSON.parse(fs.readFileSync(path.join(root, 'bench', 'layout_search_cases.json'), 'utf8'));
const ORIGIN = 'http://bench.invalid';
const html = `<!doctype html><meta charset="utf-8"><title>layout search bench</title>
<script type="module">
import createEngine from './engine.js';
window.engine = await createEngine();
window.ready = true;
</script>`;
const types = { '.js': 'text/javascript', '.wasm': 'application/wasm' };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scalelab-layout-bench-'));
const context = await chromium.launchPersistentContext(dir, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run', '--disable-quic'],
});
try {
  await context.route(`${ORIGIN}/**`, (route) => {
    const name = new URL(route.request().url()).pathname.slice(1);
    if (name === '' || name === 'index.html') return route.fulfill({ body: html, contentType: 'text/html' });
    const file = path.join(wasmDir, path.basename(name));
    if (!fs.existsSync(file)) return route.fulfill({ status: 404, body: 'not found' });
    return route.fulfill({ body: fs.readFileSync(file), contentType: types[path.extname(file)] ?? 'application/octet-stream' });
  });
  const page = await context.newPage();
  await page.goto(`${ORIGIN}/`);
  await page.waitForFunction(() => window.ready === true);
  for (const { label, params } of cases) {
    const out = await page.evaluate(({ params, runs }) => {
      const input = JSON.stringify(params);
      const first = JSON.parse(window.engine.evaluate('training_run', input));
      if (first.error) return { error: first.error };
      const times = [];
      for (let i = 0; i < runs + 2; i++) {
        const t0 = performance.now();
        window.engine.evaluate('training_run', input);
        if (i >= 2) times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      const counts = first.outputs.rejected_counts;
      const bulk = ['tp_does_not_divide_heads', 'tp_beyond_fast_domain', 'cp_does_not_split_sequence',
        'ep_does_not_divide_experts', 'ep_does_not_divide_data_ranks', 'model_parallel_beyond_pod']
        .reduce((s, k) => s + (counts[k] ?? 0), 0);
      return { n: first.outputs.layouts_evaluated, fit: first.outputs.layouts_fitting, bulk, median: times[times.length >> 1], p95: times[Math.floor(times.length * 0.95)] };
    }, { params, runs });
    if (out.error) { console.log(label, JSON.stringify(out.error)); continue; }
    console.log(`${label}: ${out.n} layouts (${out.n - out.bulk} priced one by one, ${out.fit} fit), median ${out.median.toFixed(1)} ms, p95 ${out.p95.toFixed(1)} ms per evaluation; ${(out.n / out.median / 1e3).toFixed(2)}M layouts/s`);
  }
} finally {
  await context.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
