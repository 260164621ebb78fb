// "Measure this device" (issue 11 §4): the chip selector's action measures FLOP/s and memory
// bandwidth in a Worker (SwiftShader's WebGPU adapter, or WebAssembly when WebGPU is off), the
// result becomes a selectable chip a lab computes with, kept in localStorage and shareable as
// ?device=. Small sizes through window.__slMeasureHooks keep the runs short.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage } from './harness.mjs';
import { clean, expected, labHelpers } from './lab-helpers.mjs';

const EL = 'sl-can-i-run-lab';
const LAB = '/labs/can-i-run/';
const CALC = 'local_inference';
const HOOKS = { n: 64, softwareN: 64, streamBytes: 4 * 2 ** 20, runs: 3, coreSeconds: 0.01, cores: 2 };
const { ready, waitOut } = labHelpers({ element: EL });

let server, withGpu, withoutGpu;
before(async () => { server = await startServer(); withGpu = await launch(['--enable-unsafe-webgpu']); withoutGpu = await launch([]); });
after(async () => { await withGpu?.close(); await withoutGpu?.close(); await server?.stop(); });

const rate = (text) => {
  const m = /^([\d.]+)\s*([kMGTP]?)/.exec(text);
  return m ? Number(m[1]) * 10 ** (3 * ' kMGTP'.indexOf(m[2] || ' ')) : NaN;
};

/** Measures through the page selector; returns the chip stored and the page. */
async function measureOn(browser, hooks) {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.addInitScript((h) => { window.__slMeasureHooks = h; }, hooks);
  await page.goto(server.url + LAB);
  await ready(page);
  await page.selectOption('#chip-select', 'measure');
  const dialog = page.locator('dialog.measure-device');
  await dialog.waitFor();
  const caveats = await dialog.locator('.measure-caveats').innerText();
  for (const re of [/browser adds overhead/, /SwiftShader/, /heat up/, /not the spec/]) assert.match(caveats, re);
  assert.ok(await dialog.locator('.measure-use').isDisabled(), 'nothing to use before a measurement');
  await dialog.locator('.measure-start').click();
  await dialog.locator('.measure-results').waitFor({ timeout: 120000 });
  const results = await dialog.locator('.measure-results').innerText();
  assert.doesNotMatch(results, /NaN|Infinity|undefined|—/);
  const flops = await dialog.locator('[data-rate="flops"] dd').first().innerText();
  const bw = await dialog.locator('[data-rate="bandwidth"] dd').first().innerText();
  assert.match(flops, /FLOP\/s \(median of 3;/);
  assert.match(bw, /B\/s \(median of 3;/);
  // the CPU on every core is measured either way: its int8 dot product and its matmul
  for (const key of ['int8', 'cpu-matmul']) assert.match(await dialog.locator(`[data-rate="${key}"] dd`).first().innerText(), /\(median of 3;/);
  assert.match(await dialog.locator('[data-rate="int8"] .how').innerText(), /2 Workers at once/);
  // bad memory in place, the parameter named with its range
  await dialog.locator('#measure-mem').fill('-3');
  await dialog.locator('.measure-use').click();
  assert.match(await dialog.locator('#measure-mem-err').innerText(), /positive number of gigabytes/);
  await dialog.locator('#measure-mem').fill('16');
  await dialog.locator('.measure-use').click();
  await dialog.waitFor({ state: 'detached' });
  const chip = await page.evaluate(() => JSON.parse(localStorage.getItem('scalelab.customChip')));
  assert.equal(await page.locator('#chip-select').inputValue(), 'custom');
  assert.equal(await page.locator('#chip-select option[value="custom"]').innerText(), chip.name);
  assert.match(chip.name, /^This device \(measured\): /);
  assert.ok(chip.flops_per_s.fp32 > 0 && chip.hbm_bytes_per_s > 0);
  assert.equal(chip.hbm_bytes, 16 * 2 ** 30);
  // the dialog showed the stored medians (to the formatter's rounding)
  assert.ok(Math.abs(rate(flops) / chip.flops_per_s.fp32 - 1) < 0.01, `${flops} vs ${chip.flops_per_s.fp32}`);
  assert.ok(Math.abs(rate(bw) / chip.hbm_bytes_per_s - 1) < 0.01, `${bw} vs ${chip.hbm_bytes_per_s}`);
  // the lab computes with it (this lab opens on its own chip: set it to follow the page)
  await page.selectOption(`${EL} .control[data-key="chip"] select`, '');
  await waitOut(page, 'tokens_per_s', expected(CALC, { chip }, 'tokens_per_s'));
  assert.equal(await page.locator(`${EL} [data-out="needed_bytes"] dd`).innerText(), expected(CALC, { chip }, 'needed_bytes'));
  assert.doesNotMatch(await page.locator(EL).innerText(), /NaN|Infinity|undefined/);
  return { page, problems, chip };
}

test('with the software WebGPU adapter: the measured chip names the adapter and a lab uses it', async () => {
  const { page, problems, chip } = await measureOn(withGpu, HOOKS);
  assert.match(chip.name, /software adapter/);
  assert.equal(chip.kind, 'consumer-gpu');
  assert.match(chip.sources.flops_per_s, /WebGPU/);
  assert.deepEqual(problems, clean);
  await page.close();
});

test('with WebGPU off: the CPU is measured in WebAssembly; the chip travels in the address', async () => {
  const { page, problems, chip } = await measureOn(withoutGpu, { ...HOOKS, hideWebGpu: true });
  assert.equal(chip.name, 'This device (measured): CPU (WebAssembly SIMD, 2 cores)');
  assert.equal(chip.kind, 'cpu');
  assert.ok(chip.flops_per_s.int8 > 0, 'the int8 dot product is a rate of the chip');
  assert.match(chip.sources.flops_per_s, /multiply-add|f32x4/);
  assert.match(chip.sources.matmul, /matmul/);
  assert.deepEqual(problems, clean);
  await page.close();
  // a fresh browser opens the shared address with the same chip
  const other = await launch([]);
  try {
    const b64 = Buffer.from(JSON.stringify(chip)).toString('base64url');
    const { page: p2, problems: pr2 } = await watchedPage(other.context, server.url);
    await p2.goto(`${server.url}${LAB}?device=${b64}`);
    await ready(p2);
    await p2.selectOption(`${EL} .control[data-key="chip"] select`, 'custom');
    await waitOut(p2, 'tokens_per_s', expected(CALC, { chip }, 'tokens_per_s'));
    assert.equal(await p2.locator('#chip-select').inputValue(), 'custom');
    assert.deepEqual(await p2.evaluate(() => JSON.parse(localStorage.getItem('scalelab.customChip'))), chip);
    // a damaged address is refused in words; the page keeps working
    await p2.goto(`${server.url}${LAB}?device=not-a-chip`);
    await ready(p2);
    assert.match(await p2.locator('.address-notice').innerText(), /not a readable chip/);
    await p2.goto(`${server.url}${LAB}?device=${Buffer.from(JSON.stringify({ ...chip, hbm_bytes_per_s: -1 })).toString('base64url')}`);
    assert.match(await p2.locator('.address-notice').innerText(), /refused: chip\.hbm_bytes_per_s|refused: hbm_bytes_per_s/);
    assert.deepEqual(pr2, clean);
    await p2.close();
  } finally { await other.close(); }
});
