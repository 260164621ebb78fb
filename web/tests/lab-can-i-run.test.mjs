// The Can-I-run-it lab (/labs/can-i-run/): every control changes the engine's numbers on screen,
// a model that does not fit shows its spill tiers, bad input is refused in place, axe is clean.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage, axe } from './harness.mjs';
import { engine, evaluate, expected, clean, labHelpers, shown, PUBLISHED, publishedOnChart, placedAll } from './lab-helpers.mjs';

const EL = 'sl-can-i-run-lab';
const LAB = '/labs/can-i-run/';
const CALC = 'local_inference';
let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });
const { ready, rendered, settle, out, field, fieldError, modelSelect, type, choose, noNaN } = labHelpers({ element: EL });
const verdict = (page) => page.locator(`${EL} .lab-verdict`).innerText();

test('opens on an RTX 4090 with the engine numbers; every control changes them', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?chip=rtx-4090');
  await ready(page);
  let p = { chip: 'rtx-4090' };
  for (const name of ['tokens_per_s', 'ttft_s', 'needed_bytes', 'free_bytes']) assert.equal(await out(page, name), expected(CALC, p, name), name);
  assert.match(await verdict(page), /It fits/);
  assert.equal(await page.locator(`${EL} .cir-suggestion`).getAttribute('data-kind'), evaluate(CALC, p).outputs.suggestion_kind);
  const steps = [
    ['weight_format', 'q8_0', 'weight_bytes'],
    ['kv_format', 'q8_0', 'kv_bytes'],
    ['arithmetic', 'native', 'ttft_s'],
    ['offload', 'stream', 'tokens_per_s'],
  ];
  for (const [key, value, shown] of steps) {
    const before = await out(page, shown);
    await choose(page, key, value);
    p = { ...p, [key]: value };
    assert.equal(await out(page, shown), expected(CALC, p, shown), key);
    if (key !== 'offload') assert.notEqual(await out(page, shown), before, `${key} changes ${shown}`);
  }
  await type(page, 'context', '32768');
  p = { ...p, context: 32768 };
  assert.equal(await out(page, 'kv_bytes'), expected(CALC, p, 'kv_bytes'));
  await type(page, 'users', '4');
  p = { ...p, users: 4 };
  assert.equal(await out(page, 'tokens_per_s'), expected(CALC, p, 'tokens_per_s'));
  const r = await rendered(page);
  await modelSelect(page).selectOption('qwen2.5-14b');
  await settle(page, r);
  p = { ...p, model: 'qwen2.5-14b' };
  assert.equal(await out(page, 'needed_bytes'), expected(CALC, p, 'needed_bytes'));
  await noNaN(page);
  assert.deepEqual(problems, clean);
  await page.close();
});

test('a model that does not fit shows the spill tiers, the shortfall and the first change', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?chip=rtx-4090&model=llama3-70b');
  await ready(page);
  const want = evaluate(CALC, { chip: 'rtx-4090', model: 'llama3-70b' }).outputs;
  assert.equal(want.fits, false);
  assert.match(await verdict(page), /does not fit/);
  const rows = page.locator(`${EL} .cir-tiers tbody tr`);
  assert.deepEqual(await rows.evaluateAll((trs) => trs.map((t) => t.dataset.tier)), want.tiers.filter((t) => t.stored_bytes > 0).map((t) => t.tier));
  assert.match(await page.locator(`${EL} .cir-tiers`).innerText(), /system RAM/);
  assert.equal(await out(page, 'spilled_bytes'), expected(CALC, { chip: 'rtx-4090', model: 'llama3-70b' }, 'spilled_bytes'));
  assert.equal(await out(page, 'shortfall_bytes'), expected(CALC, { chip: 'rtx-4090', model: 'llama3-70b' }, 'shortfall_bytes'));
  assert.match(await page.locator(`${EL} .cir-suggestion`).innerText(), new RegExp(want.suggestion.slice(0, 30).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  assert.match(await page.locator(`${EL} .cir-meter`).getAttribute('aria-label'), /more than the/);
  await noNaN(page);
  assert.deepEqual(problems, clean);
  await page.close();
});

test('bad typed values are refused in place with the engine message; a bad arithmetic choice names the reason', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?chip=rtx-4090');
  await ready(page);
  for (const typed of ['abc', '0', '-3', '1e99']) {
    await type(page, 'users', typed);
    const want = evaluate(CALC, { chip: 'rtx-4090', users: Number.isFinite(Number(typed)) ? Number(typed) : typed });
    assert.ok(want.error, typed);
    assert.equal(await fieldError(page, 'users'), shown(typed, want.error, CALC), typed);
    assert.equal(await field(page, 'users').getAttribute('aria-invalid'), 'true');
    await noNaN(page);
  }
  await type(page, 'users', '1');
  assert.equal(await fieldError(page, 'users'), '');
  await choose(page, 'arithmetic', 'native');  // Q4_K_M has no native rate
  const want = evaluate(CALC, { chip: 'rtx-4090', arithmetic: 'native' });
  assert.equal(await fieldError(page, 'arithmetic'), want.error.message);
  assert.match(want.error.message, /dequantize/);
  await noNaN(page);
  assert.deepEqual(problems, clean);
  await page.close();
});

test('axe: the lab page', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?chip=rtx-4090&model=llama3-70b');
  await ready(page);
  const violations = await axe(page);
  assert.deepEqual(violations, [], JSON.stringify(violations, null, 1));
  assert.deepEqual(problems, clean);
  await page.close();
});

test('two GPUs hold what one cannot, split by layers or rows; an MoE spills its experts first', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?chip=rtx-3090&model=llama3-70b&weight_format=q4_k_m');
  await ready(page);
  let p = { chip: 'rtx-3090', model: 'llama3-70b', weight_format: 'q4_k_m' };
  assert.match(await verdict(page), /does not fit on the GeForce RTX 3090/);
  await type(page, 'devices', '2');
  p = { ...p, devices: 2 };
  assert.match(await verdict(page), /It fits on 2 × GeForce RTX 3090/);
  for (const name of ['tokens_per_s', 'usable_bytes', 'needed_bytes']) assert.equal(await out(page, name), expected(CALC, p, name), name);
  await choose(page, 'split', 'row');
  p = { ...p, split: 'row' };
  for (const name of ['tokens_per_s', 't_comm_s']) assert.equal(await out(page, name), expected(CALC, p, name), name);
  // a 4090 beside a 3090 (issue 35): layers by memory, a meter per card, the stages added up
  await page.goto(server.url + LAB + '?chip=rtx-4090&model=llama3-70b&weight_format=q4_k_m&with=rtx-3090');
  await ready(page);
  p = { chip: 'rtx-4090', model: 'llama3-70b', weight_format: 'q4_k_m', other_devices: ['rtx-3090'] };
  const mixed = evaluate(CALC, p).outputs;
  assert.match(await verdict(page), /It fits on GeForce RTX 4090 \+ GeForce RTX 3090/);
  assert.equal(await out(page, 'tokens_per_s'), expected(CALC, p, 'tokens_per_s'));
  const cards = page.locator(`${EL} .cir-device`);
  assert.deepEqual(await cards.evaluateAll((d) => d.map((x) => x.dataset.chip)), ['rtx-4090', 'rtx-3090']);
  assert.match(await cards.nth(1).locator('.cir-meter').getAttribute('aria-label'), /^Device 2, GeForce RTX 3090: weights /);
  assert.ok((await page.locator(`${EL} .cir-stages`).innerText()).includes(engine.formatQuantity(mixed.step_s, 's')));
  // a row split over the two kinds (issue 35 §3): both read at once, the slower card's share sets the pace
  await choose(page, 'split', 'row');
  assert.equal(await out(page, 'tokens_per_s'), expected(CALC, { ...p, split: 'row' }, 'tokens_per_s'));
  assert.match(await page.locator(`${EL} .cir-stages`).innerText(), /as long as the slowest of them/);
  await choose(page, 'split', 'layer');
  // eight users pipeline through the two cards: the pipelined step is named beside the stages
  await type(page, 'context', '1024');
  await type(page, 'users', '8');
  const piped = evaluate(CALC, { ...p, context: 1024, users: 8 }).outputs;
  assert.ok(piped.pipeline_step_s > 0);
  assert.ok((await page.locator(`${EL} .cir-stages`).innerText()).includes(`pipeline ${piped.pipeline_microbatches} micro-batches`));
  assert.ok((await page.locator(`${EL} .cir-stages`).innerText()).includes(engine.formatQuantity(piped.pipeline_step_s, 's')));
  // (the next render, not the current count: the choice schedules an evaluation)
  const lastRender = await rendered(page);
  await page.locator(`${EL} [data-key="other_devices"] select`).selectOption('');
  await settle(page, lastRender);
  assert.match(await verdict(page), /does not fit on the GeForce RTX 4090/);
  // gpt-oss-120b beside one 24 GB card: its experts in system RAM read faster than whole layers there
  await page.goto(server.url + LAB + '?chip=rtx-3090&model=gpt-oss-120b&weight_format=mxfp4');
  await ready(page);
  p = { chip: 'rtx-3090', model: 'gpt-oss-120b', weight_format: 'mxfp4' };
  const layers = await out(page, 'tokens_per_s');
  assert.equal(await out(page, 'experts_read_share'), expected(CALC, p, 'experts_read_share'));
  await choose(page, 'expert_placement', 'experts_last');
  p = { ...p, expert_placement: 'experts_last' };
  assert.equal(await out(page, 'tokens_per_s'), expected(CALC, p, 'tokens_per_s'));
  assert.notEqual(await out(page, 'tokens_per_s'), layers);
  // a Mac is one device: the engine's refusal under the control
  await page.goto(server.url + LAB + '?chip=apple-m3-ultra&devices=2');
  await ready(page);
  assert.match(await page.locator(`${EL} .lab-notice`).innerText(), /devices=2/);
  await noNaN(page);
  assert.deepEqual(problems, clean);
  await page.close();
});

test('the chart: tokens/s against context, the expected band, the reader\u2019s measurement and published runs of this setup', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  const setup = { chip: 'rtx-4090', model: 'llama3-8b', weight_format: 'q4_k_m', kv_format: 'fp16' };
  const mine = PUBLISHED.runs.filter((m) => m.calculator === CALC && m.measured.output === 'tokens_per_s'
    && Object.entries(setup).every(([k, v]) => m.inputs[k] === v) && (m.inputs.users ?? 1) === 1);
  assert.ok(mine.length >= 2, 'published llama.cpp runs of this setup at two contexts');
  await page.goto(server.url + LAB + '?' + new URLSearchParams({ ...setup, context: 4096, measured_tokens_per_s: 95 }));
  await ready(page);
  const at = await publishedOnChart(page, `${EL} .cir-plot`, mine, (m) => ({ x: m.inputs.context, y: m.measured.value }));
  assert.ok(placedAll(at), JSON.stringify(at));
  assert.equal(at.titles.length, mine.length);
  const o = evaluate(CALC, { ...setup, context: 4096 }).outputs;
  const chart = await page.evaluate((el) => {
    const c = document.querySelector(`${el} .cir-plot`);
    const dot = (sel) => { const d = c.querySelector(`${sel} circle`); return d && [Number(d.getAttribute('cx')), Number(d.getAttribute('cy'))]; };
    return { band: c.querySelector('.expected-band') !== null, now: dot('.operating-point'), measured: dot('.measured-point') };
  }, EL);
  assert.ok(chart.band, 'the range published runs reach is shaded');
  assert.ok(chart.now && chart.measured, 'the bound at the reader\u2019s context and the measurement are marked');
  assert.ok(at.description.includes(`the bound is ${expected(CALC, { ...setup, context: 4096 }, 'tokens_per_s')}`), at.description);
  assert.ok(chart.measured[1] > chart.now[1], `the measured ${95} tokens/s sits below the bound ${o.tokens_per_s}`);
  const among = evaluate(CALC, { ...setup, context: 4096, measured_tokens_per_s: 95 }).outputs.measured_among;
  assert.match(among, /^Of the \d+ published runs of /);
  assert.ok((await page.locator(`${EL} .cir-measured`).innerText()).includes(among), 'the measurement among the published runs');
  const note = page.locator(`${EL} .lab-published`);
  assert.equal(await note.getAttribute('data-runs'), String(mine.length));
  assert.deepEqual(problems, clean);
  await page.close();
});
