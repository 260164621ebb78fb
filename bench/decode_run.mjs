// The measured decode run (issue 38) in headless Chromium, as a reader would press Run on
// /labs/decode-run/, and its figures as a table for BENCHMARKS.md: the device, its measured
// ceilings, every batch (measured step of the whole model, the engine's bound for the same device,
// their ratio, bandwidth and FLOP/s reached), the measured and predicted flips.
//
//   node bench/decode_run.mjs [--webgpu] [--software-gpu] [--model llama3-8b] [--hooks '{"weightBytes": …}']
//
// --webgpu starts Chromium with --enable-unsafe-webgpu (here: SwiftShader, so the CPU still runs the
// sweep, and says why); --software-gpu runs the sweep on that software adapter anyway. On a machine
// with a GPU, run it without --disable-gpu (CHROMIUM_GPU=1) to measure the GPU itself. Needs web/dist
// and build/scalelab, like the browser tests.
import { createRequire } from 'node:module';
import { startServer } from '../web/tests/harness.mjs';

const { chromium } = createRequire(new URL('../web/package.json', import.meta.url))('playwright-core');

const arg = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
const webgpu = process.argv.includes('--webgpu') || process.argv.includes('--software-gpu');
const hooks = { ...JSON.parse(arg('--hooks', '{}')), ...(process.argv.includes('--software-gpu') ? { softwareGpu: true } : {}) };
const model = arg('--model', 'llama3-8b');

const server = await startServer();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', ...(process.env.CHROMIUM_GPU ? [] : ['--disable-gpu']), ...(webgpu ? ['--enable-unsafe-webgpu'] : [])],
});
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}/labs/decode-run/`);
  await page.evaluate((h) => { window.__slDecodeRunHooks = h; }, hooks);
  await page.locator('sl-decode-run [data-run]').click();
  const view = page.locator('sl-decode-run-view');
  await view.waitFor();
  await page.evaluate((m) => { document.querySelector('sl-decode-run-view').model = m; }, model);
  const t0 = Date.now();
  await page.waitForFunction(() => { const s = document.querySelector('sl-decode-run-view')?.runState; return s && s !== 'running' && s !== 'idle'; }, null, { timeout: 1_800_000, polling: 1000 });
  const r = await page.evaluate(() => {
    const v = document.querySelector('sl-decode-run-view');
    const e = v.engine;
    const f = (x, u) => e.format(x, u);
    const bytesPer = v.device.precision === 'f16' ? 2 : 4;
    return {
      state: v.runState, failure: v.failure, device: v.device, plan: v.plan, ceilings: v.ceilings, flip: v.prediction?.flip,
      measuredFlip: v.measuredFlip(), sentence: v.shadowRoot.querySelector('[data-sentence]')?.textContent.replace(/\s+/g, ' ').trim(),
      rows: v.points.map((p) => {
        const bound = v.boundAt(p.batch);
        return [p.batch, f(p.stepS, 's'), f(bound, 's'), (p.stepS / bound).toFixed(2), f((v.plan.modelParams * bytesPer) / p.stepS, 'bytes/s'),
          f((2 * v.plan.modelParams * p.batch) / p.stepS, 'FLOP/s'), `${p.verify.checked - p.verify.mismatches}/${p.verify.checked}`, `${p.samples}×${p.reps}`];
      }),
      fmt: { bw: f(v.ceilings.bandwidth.median, 'bytes/s'), flops: f(v.ceilings.flops.median, 'FLOP/s'), weights: f(v.plan.weightBytes, 'bytes') },
    };
  });
  if (r.state !== 'done') throw new Error(`the run ended ${r.state}: ${r.failure}`);
  console.log(`${r.device.name} (${r.device.backend}, ${r.device.precision}, timer ${r.device.timer}, ${r.device.threads || '-'} threads, isolated ${r.device.isolated}); ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  console.log(r.device.why);
  console.log(`run: ${r.fmt.weights} of weights, ${r.plan.layersRun} layer(s) at ${(100 * r.plan.columnShare).toFixed(1)} % of their outputs, ${r.plan.headRows} unembedding outputs; × ${r.plan.scaleUp.toFixed(2)} to the whole model`);
  console.log(`ceilings: ${r.fmt.bw} (${r.ceilings.bandwidth.how}); ${r.fmt.flops} (${r.ceilings.flops.how})`);
  console.log(`flip: measured ${r.measuredFlip === null ? 'none' : r.measuredFlip.toFixed(1)}, engine ${r.flip?.toFixed(1)}`);
  console.log('| batch | measured step | engine bound | measured / bound | bandwidth | FLOP/s | checked | samples×reps |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of r.rows) console.log(`| ${row.join(' | ')} |`);
  console.log(r.sentence);
} finally {
  await browser.close();
  await server.stop();
}
