// Issue 11 §5 in the Can-I-run-it lab: "I measured ___ tokens/s" gives the engine's share of the
// bound with the usual overheads named; the published runs of data/measurements.json for the
// same device, model and format appear beside the bound with the engine's ratio.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage } from './harness.mjs';
import { engine, evaluate, clean, labHelpers, PUBLISHED } from './lab-helpers.mjs';

const EL = 'sl-can-i-run-lab';
const LAB = '/labs/can-i-run/';
const CALC = 'local_inference';
let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });
const { ready, type, fieldError, noNaN } = labHelpers({ element: EL });
const fmt = (v, u) => engine.formatQuantity(v, u);
const CATALOG = PUBLISHED;

test('a measured speed becomes the engine\'s share of the bound, with the overheads named', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?chip=rtx-4090');
  await ready(page);
  assert.equal(await page.locator(`${EL} .cir-measured`).count(), 0, 'nothing before a measurement');
  await type(page, 'measured_tokens_per_s', '90');
  const want = evaluate(CALC, { chip: 'rtx-4090', measured_tokens_per_s: 90 }).outputs.measured_share_of_bound;
  assert.ok(want > 0 && want < 1);
  const text = await page.locator(`${EL} .cir-measured`).innerText();
  assert.ok(text.includes(`${fmt(want * 100, 'count')} %`), text);
  for (const re of [/kernel launches/, /dequantiz/, /attention over a long context/, /sampling/]) assert.match(text, re);
  // bad input in place, the parameter and its range in words; no NaN
  for (const bad of ['-5', '0', 'abc']) {
    await type(page, 'measured_tokens_per_s', bad);
    assert.match(await fieldError(page, 'measured_tokens_per_s'), /tokens|measured|number|greater|above|more than/i, bad);
    await noNaN(page);
  }
  await type(page, 'measured_tokens_per_s', '');
  assert.equal(await page.locator(`${EL} .cir-measured`).count(), 0);
  assert.deepEqual(problems, clean);
  await page.close();
});

test('published runs of the same device, model and format sit beside the bound with their ratio', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?chip=rtx-4090&model=llama3-8b');
  await ready(page);
  const mine = (format) => CATALOG.runs.filter((m) => m.calculator === CALC && m.measured.output === 'tokens_per_s' && m.inputs.chip === 'rtx-4090' && m.inputs.model === 'llama3-8b' && m.inputs.weight_format === format);
  const runs = mine('q4_k_m');
  assert.ok(runs.length > 0);
  await page.locator(`${EL} tr[data-measurement]`).first().waitFor();  // the runs are fetched after the first view
  for (const m of runs) {
    const o = evaluate(CALC, { ...m.inputs, measured_tokens_per_s: m.measured.value }).outputs;
    const row = await page.locator(`${EL} tr[data-measurement="${m.id}"] td`).allInnerTexts();
    assert.deepEqual(row, [fmt(m.inputs.context, 'count'), fmt(m.measured.value, 'tokens/s'), fmt(o.tokens_per_s, 'tokens/s'), `${fmt(o.measured_share_of_bound * 100, 'count')} %`]);
    assert.ok(o.measured_share_of_bound > 0 && o.measured_share_of_bound <= 1, m.id);
    assert.equal(await page.locator(`${EL} tr[data-measurement="${m.id}"] a`).getAttribute('href'), m.source.url);
  }
  // another format: only its own runs (fp16 has some on this card)
  await page.selectOption(`${EL} .control[data-key="weight_format"] select`, 'fp16');
  const fp16 = mine('fp16');
  await page.waitForFunction(([el, n]) => document.querySelectorAll(`${el} tr[data-measurement]`).length === n && [...document.querySelectorAll(`${el} tr[data-measurement]`)].every((r) => r.dataset.measurement.includes('fp16') || !r.dataset.measurement.includes('q4')), [EL, fp16.length]);
  await noNaN(page);
  assert.deepEqual(problems, clean);
  await page.close();
});
