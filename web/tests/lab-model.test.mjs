import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage, axe } from './harness.mjs';
import { clean, expectedQuantity as expected, labHelpers } from './lab-helpers.mjs';

const TAG = 'sl-model-lab';
const LAB = '/labs/model/';
let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });
const { ready, chartShown, out, field, change, waitOut, chapterAxe } = labHelpers({ element: TAG, session: () => ({ server, browser }) });

const M = (params, o) => expected('transformer', params, o);

test('model, T and dims overrides drive the engine values; the plots are drawn', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  assert.equal(await out(page, 'params_total'), M({}, 'params_total'));
  await chartShown(page);
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
  assert.match(await page.locator(`${TAG} .control[data-key="L"] .field-error`).innerText(), /^too small — at least \d/);
  assert.doesNotMatch(await page.locator(TAG).innerText(), /NaN|Infinity/);
  assert.deepEqual(problems, clean);
  await page.close();
});

test('the chip selector does not disturb a chip-free lab', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?model=llama3-8b&T=8192');
  await ready(page);
  await waitOut(page, 'train_flops', M({ model: 'llama3-8b', T: 8192 }, 'train_flops'));
  await change(page, () => field(page, 'B').fill('16'));
  await page.waitForFunction(() => location.search.includes('B=16') && location.search.includes('model=llama3-8b'));
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
