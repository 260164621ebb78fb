import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { startServer, launch, watchedPage, axe, ROOT } from './harness.mjs';

const require = createRequire(import.meta.url);
const WASM = path.resolve(ROOT, process.env.SCALELAB_WASM_DIR || 'build-wasm', 'node');
const engine = await require(path.join(WASM, 'engine.cjs'))({ wasmBinary: fs.readFileSync(path.join(WASM, 'engine.wasm')) });
/** the engine's value of one output, formatted as the lab formats it */
function expected(calc, params, out) {
  const r = JSON.parse(engine.evaluate(calc, JSON.stringify(params)));
  assert.ok(!r.error, JSON.stringify(r.error));
  const v = r.outputs[out];
  const unit = engine.outputUnit(out) || [...r.steps].reverse().find((s) => s.value === v)?.unit || '';
  return engine.formatQuantity(v, unit);
}
const CHIPS = JSON.parse(engine.chips());

const TAG = 'sl-model-lab';
const LAB = '/labs/model/';
let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });
const ready = (page) => page.waitForSelector(`${TAG} .lab-verdict .verdict`);
const out = (page, name) => page.locator(`${TAG} [data-out="${name}"] dd`).innerText();
const field = (page, key) => page.locator(`${TAG} .control[data-key="${key}"] input[type=text]`);
async function change(page, fn) {
  const before = await page.locator(TAG).getAttribute('data-rendered');
  await fn();
  await page.waitForFunction(([t, b]) => document.querySelector(t).dataset.rendered !== b, [TAG, before]);
}
async function waitText(page, sel, re) {
  await page.waitForFunction(([s, src]) => new RegExp(src).test(document.querySelector(s)?.textContent ?? ''), [sel, re.source]);
}
async function waitOut(page, name, text) {
  await page.waitForFunction(([t, n, x]) => document.querySelector(`${t} [data-out="${n}"] dd`)?.textContent.trim() === x, [TAG, name, text]);
}
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const clean = { console: [], errors: [], thirdParty: [] };
async function allChips(page) {
  for (const c of CHIPS) {
    await change(page, () => page.selectOption(`${TAG} .control[data-key="chip"] select`, c.id));
    assert.doesNotMatch(await page.locator(TAG).innerText(), /NaN|Infinity|undefined/, c.id);
  }
}
async function customChip(page, base, fields) {
  // as the chip dialog stores it: nulls dropped, sources and notes left out
  const strip = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v != null).map(([k, v]) => [k, v && typeof v === 'object' && !Array.isArray(v) ? strip(v) : v]));
  const { sources, notes, ...chip } = CHIPS.find((c) => c.id === base);
  const custom = strip({ ...chip, id: 'custom', name: 'My chip', ...fields });
  await page.evaluate((c) => { localStorage.setItem('scalelab.customChip', JSON.stringify(c)); localStorage.setItem('scalelab.chip', 'custom'); }, custom);
  return custom;
}
async function forgetCustom(page) {
  await page.evaluate(() => { localStorage.removeItem('scalelab.customChip'); localStorage.removeItem('scalelab.chip'); });
}
async function roundTrip(page, sel) {
  const url = page.url();
  const text = await page.locator(sel).innerText();
  const { page: p2, problems } = await watchedPage(browser.context, server.url);
  await p2.goto(url);
  await ready(p2);
  assert.equal(await p2.locator(sel).innerText(), text, 'same state from the URL');
  assert.deepEqual(problems, clean);
  await p2.close();
}
async function chapterAxe(page, chapter) {
  await page.goto(server.url + chapter);
  const step = await page.locator(`section.step:has(${TAG})`).first().getAttribute('id');
  await page.goto(server.url + chapter + '#' + step);
  await ready(page);
  assert.deepEqual(await axe(page), []);
}

const M = (params, o) => expected('transformer', params, o);

test('model, T and dims overrides drive the engine values; the plots are drawn', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  assert.equal(await out(page, 'params_total'), M({}, 'params_total'));
  assert.ok(await page.locator(`${TAG} .md-bar`).count() && await page.locator(`${TAG} .md-share`).count(), 'both plots drawn');
  await change(page, () => page.selectOption(`${TAG} .control[data-key="model"] select`, 'mixtral-8x7b'));
  await waitOut(page, 'params_active', M({ model: 'mixtral-8x7b' }, 'params_active'));
  await waitOut(page, 'params_total', M({ model: 'mixtral-8x7b' }, 'params_total'));
  await change(page, () => field(page, 'T').fill('32768'));
  await waitOut(page, 'attention_flop_fraction', M({ model: 'mixtral-8x7b', T: 32768 }, 'attention_flop_fraction'));
  await waitOut(page, 'kv_bytes_per_sequence', M({ model: 'mixtral-8x7b', T: 32768 }, 'kv_bytes_per_sequence'));
  // GQA: fewer KV heads, smaller cache
  await change(page, () => field(page, 'K').fill('4'));
  await waitOut(page, 'kv_bytes_per_token', M({ model: 'mixtral-8x7b', T: 32768, model_overrides: { K: 4 } }, 'kv_bytes_per_token'));
  // MLA with a latent cache on DeepSeek-V3
  await change(page, () => field(page, 'K').fill(''));
  await change(page, () => page.selectOption(`${TAG} .control[data-key="model"] select`, 'deepseek-v3'));
  await waitOut(page, 'kv_bytes_per_token', M({ model: 'deepseek-v3', T: 32768 }, 'kv_bytes_per_token'));
  await change(page, () => field(page, 'kv_lora_rank').fill('256'));
  await waitOut(page, 'kv_bytes_per_token', M({ model: 'deepseek-v3', T: 32768, model_overrides: { kv_lora_rank: 256 } }, 'kv_bytes_per_token'));
  // bad value refused in place
  await change(page, () => field(page, 'L').fill('0'));
  assert.match(await page.locator(`${TAG} .control[data-key="L"] .field-error`).innerText(), /must be/);
  assert.doesNotMatch(await page.locator(TAG).innerText(), /NaN|Infinity/);
  assert.deepEqual(problems, clean);
  await page.close();
});

test('URL round trip; the chip selector does not disturb a chip-free lab', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?model=llama3-8b&T=8192');
  await ready(page);
  await waitOut(page, 'train_flops', M({ model: 'llama3-8b', T: 8192 }, 'train_flops'));
  await change(page, () => field(page, 'B').fill('16'));
  await page.waitForFunction(() => location.search.includes('B=16') && location.search.includes('model=llama3-8b'));
  await roundTrip(page, `${TAG} .lab-outputs`);
  const text = await page.locator(`${TAG} .lab-outputs`).innerText();
  await page.selectOption('#chip-select', 'h100');
  await page.waitForTimeout(200);
  assert.equal(await page.locator(`${TAG} .lab-outputs`).innerText(), text, 'the transformer count does not depend on the chip');
  await page.selectOption('#chip-select', 'tpu-v5e');
  assert.deepEqual(problems, clean);
  await page.close();
});

test('lab page and chapter 4 placement pass axe', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  assert.deepEqual(await axe(page), []);
  await chapterAxe(page, '/chapters/04-transformer-math/');
  assert.deepEqual(problems, clean);
  await page.close();
});
