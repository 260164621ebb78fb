// CPU GFLOP/s of the WebAssembly SIMD matmul as the experiment measures it: in headless
// Chromium, in the lab's module Worker (/labs/matmul/), CPU only, several runs per size.
//
//   node bench/matmul/browser_bench.mjs [--sizes 256,512,1024] [--runs 5]
//
// Needs web/dist built and build/scalelab (web/tests/harness.mjs starts both). Each run is a
// fresh Worker: module load, an untimed warm-up (until the optimised kernel is in), then the
// timed multiply — the lab's "arithmetic only" timer, repeated 5 times for n <= 512. Prints
// the best and the median, over all runs, of each run's best multiply.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const { startServer, launch } = await import(pathToFileURL(path.resolve(here, '../../web/tests/harness.mjs')).href);
const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const sizes = opt('--sizes', '256,512,1024').split(',').map(Number);
const runs = Number(opt('--runs', '5'));

const server = await startServer();
const browser = await launch();
try {
  const page = await browser.context.newPage();
  await page.goto(`${server.url}/labs/matmul/?gpu=0`);
  const el = 'sl-matmul-experiment';
  await page.locator(`${el} select`).waitFor();
  console.log(`${(await browser.context.browser()?.version()) ?? 'chromium'}`);
  console.log('    n   best GF/s   median GF/s   (runs)');
  for (const n of sizes) {
    await page.locator(`${el} select`).selectOption(String(n));
    const g = [];
    for (let r = 0; r < runs; r++) {
      await page.locator(`${el} button.primary`).click();
      await page.waitForFunction((e) => document.querySelector(e).getAttribute('data-run-state') === 'done', el, { timeout: 120_000 });
      const c = await page.evaluate((e) => document.querySelector(e).cpu, el);
      g.push((2 * n ** 3) / (c.bestMs * 1e6));
    }
    g.sort((x, y) => y - x);
    console.log(`${String(n).padStart(5)} ${g[0].toFixed(2).padStart(11)} ${g[Math.floor(g.length / 2)].toFixed(2).padStart(13)}   (${runs})`);
  }
} finally {
  await browser.close();
  await server.stop();
}
