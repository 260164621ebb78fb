// The compute-budget lab: N against D at a fixed budget, engine values on screen, chip, URL, axe.
// Expected values come from the Node build of the same engine (build-wasm/node), not from here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage, axe } from './harness.mjs';
import { CHIPS, clean, expectedQuantity as expected, labHelpers } from './lab-helpers.mjs';

const TAG = 'sl-compute-budget-lab';
const LAB = '/labs/compute-budget/';
let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });
const { ready, chartShown, out, field, change, waitOut } = labHelpers({ element: TAG });

test('N, D, bytes and the curve drive the engine values; the budget stays fixed when N moves', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  const chip = 'tpu-v5e';
  assert.equal(await out(page, 'train_flops'), expected('compute_budget', { chip }, 'train_flops'));
  assert.equal(await out(page, 't_s'), expected('compute_budget', { chip }, 't_s'));
  await chartShown(page); // drawn once its box is near the viewport (framework.ts)
  assert.ok(await page.locator(`${TAG} svg.cb-plot, ${TAG} figure.cb-plot`).count(), 'loss plot drawn');
  assert.match(await page.locator(`${TAG} .lab-viz`).innerText(), /invented/i);
  // N doubles: D halves (fixed budget), FLOPs stay, weight memory doubles
  await change(page, () => field(page, 'N').fill('2e9'));
  await waitOut(page, 'weight_bytes', expected('compute_budget', { chip, N: 2e9, D: 5e10 }, 'weight_bytes'));
  assert.equal(await field(page, 'D').inputValue(), '50B');
  assert.equal(await out(page, 'train_flops'), expected('compute_budget', { chip }, 'train_flops'));
  // bytes per parameter: int8
  await change(page, () => field(page, 'bytes_per_param').fill('1'));
  await waitOut(page, 'weight_read_s', expected('compute_budget', { chip, N: 2e9, D: 5e10, bytes_per_param: 1 }, 'weight_read_s'));
  // the Chinchilla fit instead of the invented curve
  await change(page, () => page.selectOption(`${TAG} .control[data-key="curve"] select`, 'chinchilla'));
  await waitOut(page, 'loss', expected('compute_budget', { chip, N: 2e9, D: 5e10, bytes_per_param: 1, curve: 'chinchilla' }, 'loss'));
  // the seed's MoE example
  await change(page, () => page.click(`${TAG} [data-key="moe-example"] button`));
  await waitOut(page, 'moe_total_bytes', expected('compute_budget', { chip, bytes_per_param: 1, total_params: 5e10, active_params: 2e10 }, 'moe_total_bytes'));
  await waitOut(page, 'critical_batch_tokens', expected('compute_budget', { chip, bytes_per_param: 1, total_params: 5e10, active_params: 2e10 }, 'critical_batch_tokens'));
  // the example sets every field it implies: N is the active count
  assert.equal(await field(page, 'N').inputValue(), '20B');
  assert.equal(await field(page, 'active_params').inputValue(), '20B');
  assert.equal(await field(page, 'total_params').inputValue(), '50B');
  // the attention window
  await change(page, () => field(page, 'window').fill('1024'));
  await waitOut(page, 'attention_pairs_window', expected('compute_budget', { L: 4096, window: 1024 }, 'attention_pairs_window'));
  assert.deepEqual(problems, clean);
  await page.close();
});

test('a chip without a bf16 rate says why there is no time; a custom chip; bad input refused in place', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  const rateless = CHIPS.find((c) => c.flops_per_s?.bf16 == null);
  await page.goto(server.url + LAB + '?chip=' + rateless.id);
  await ready(page);
  assert.match(await out(page, 't_s'), /not available: the chip gives no compute rate/);
  // a custom chip (the chip dialog stores it in this browser)
  const strip = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v != null).map(([k, v]) => [k, v && typeof v === 'object' && !Array.isArray(v) ? strip(v) : v]));
  const { sources, notes, ...base } = CHIPS.find((c) => c.id === 'tpu-v5e');
  const custom = strip({ ...base, id: 'custom', name: 'My chip', hbm_bytes_per_s: 1.64e12 });
  await page.evaluate((c) => { localStorage.setItem('scalelab.customChip', JSON.stringify(c)); localStorage.setItem('scalelab.chip', 'custom'); }, custom);
  await page.goto(server.url + LAB); // (the address still names the last chip picked above)
  await ready(page);
  await waitOut(page, 'weight_read_s', expected('compute_budget', { chip: custom }, 'weight_read_s'));
  await page.evaluate(() => { localStorage.removeItem('scalelab.customChip'); localStorage.removeItem('scalelab.chip'); });
  await page.goto(server.url + LAB);
  await ready(page);
  for (const [typed, msg] of [['abc', /^enter a number/], ['0', /^too small — at least 1\b/], ['1e99', /^too large — at most 10¹⁶ parameters$/]]) {
    await change(page, () => field(page, 'N').fill(typed));
    assert.match(await page.locator(`${TAG} .control[data-key="N"] .field-error`).innerText(), msg, typed);
    assert.equal(await field(page, 'N').getAttribute('aria-invalid'), 'true');
    assert.doesNotMatch(await page.locator(TAG).innerText(), /NaN|Infinity/);
  }
  assert.deepEqual(problems, clean);
  await page.close();
});

test('lab page and chapter 0 placement pass axe; keyboard reaches the controls', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  assert.deepEqual(await axe(page), []);
  await field(page, 'N').focus();
  await page.keyboard.press('Shift+Tab'); // the N slider
  const before = await field(page, 'N').inputValue();
  await change(page, () => page.keyboard.press('ArrowRight'));
  assert.notEqual(await field(page, 'N').inputValue(), before, 'arrow key moves the slider');
  await page.goto(server.url + '/chapters/00-introduction/');
  const step = await page.locator(`section.step:has(${TAG})`).first().getAttribute('id'); // the first of its placements
  await page.goto(server.url + '/chapters/00-introduction/#' + step);
  await ready(page);
  assert.deepEqual(await axe(page), []);
  assert.deepEqual(problems, clean);
  await page.close();
});
