// Issue 11 §5 in the Can-I-run-it lab: "I measured ___ tokens/s" gives the engine's share of the
// bound with the usual overheads named; the published runs of data/measurements.json for the
// same device, model and format appear beside the bound with the engine's ratio.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage } from './harness.mjs';
import { engine, evaluate, clean, labHelpers } from './lab-helpers.mjs';

const EL = 'sl-can-i-run-lab';
const LAB = '/labs/can-i-run/';
const CALC = 'local_inference';
let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });
const { ready, type, fieldError, noNaN } = labHelpers({ element: EL });
const fmt = (v, u) => engine.formatQuantity(v, u);
const CATALOG = JSON.parse(engine.measurements());

test('a measured speed becomes the engine\'s share of the bound, with the overheads named', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
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
  await page.goto(server.url + LAB + '?model=llama3-8b');
  await ready(page);
  const runs = CATALOG.measurements.filter((m) => m.chip === 'rtx-4090' && m.model === 'llama3-8b' && m.weight_format === 'q4_k_m');
  assert.ok(runs.length > 0);
  for (const m of runs) {
    const o = evaluate(CALC, { chip: m.chip, model: m.model, weight_format: m.weight_format, kv_format: m.kv_format, context: m.context, users: 1, measured_tokens_per_s: m.tokens_per_s }).outputs;
    const row = await page.locator(`${EL} tr[data-measurement="${m.id}"] td`).allInnerTexts();
    assert.deepEqual(row, [fmt(m.context, 'count'), fmt(m.tokens_per_s, 'tokens/s'), fmt(o.tokens_per_s, 'tokens/s'), `${fmt(o.measured_share_of_bound * 100, 'count')} %`]);
    assert.ok(o.measured_share_of_bound >= CATALOG.band.min && o.measured_share_of_bound <= CATALOG.band.max, m.id);
  }
  assert.match(await page.locator(`${EL} .cir-published`).innerText(), new RegExp(`${fmt(CATALOG.band.min * 100, 'count')} to ${fmt(CATALOG.band.max * 100, 'count')} %`));
  // another format: only its own runs (fp16 has some on this card)
  await page.selectOption(`${EL} .control[data-key="weight_format"] select`, 'fp16');
  const fp16 = CATALOG.measurements.filter((m) => m.chip === 'rtx-4090' && m.model === 'llama3-8b' && m.weight_format === 'fp16');
  await page.waitForFunction(([el, n]) => document.querySelectorAll(`${el} tr[data-measurement]`).length === n && [...document.querySelectorAll(`${el} tr[data-measurement]`)].every((r) => r.dataset.measurement.includes('fp16') || !r.dataset.measurement.includes('q4')), [EL, fp16.length]);
  await noNaN(page);
  assert.deepEqual(problems, clean);
  await page.close();
});
