// The training pod lab (chapter 6): training_run's FLOPs, days, dollars, minimum slice and layout
// search; every chip and a custom one, URL state, bad input, axe.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage, axe } from './harness.mjs';
import { engine, MODELS, evaluate, expected, customChip, labHelpers, shown, PUBLISHED, publishedOnChart, placedAll } from './lab-helpers.mjs';

const EL = 'sl-training-pod-lab';
const CALC = 'training_run';
const LAB = '/labs/training-pod/';
let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });
const { ready, rendered, settle, out, fieldError, modelSelect, type, choose, noNaN } = labHelpers({ element: EL, calculator: CALC });

const want = (params, o) => expected(CALC, params, o);

test('loads with LLaMA-3 70B on 15T tokens: FLOPs, days, dollars, minimum slice, ranked and rejected layouts', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?chip=tpu-v5p');
  await ready(page);
  // the lab opens on the engine's run (LLaMA-3 70B, 15T tokens, a full pod) with block rematerialisation
  const base = await page.evaluate((el) => document.querySelector(el).params(), EL);
  assert.equal(base.checkpointing, 'block');
  for (const o of ['total_flops', 'days', 'cost_usd', 'chip_hours', 'min_chips_memory', 'days_at_min_chips', 'layouts_evaluated']) assert.equal(await out(page, o), want(base, o), o);
  const r = evaluate(CALC, base);
  assert.equal(r.inputs.model, 'llama3-70b');
  assert.equal(r.inputs.tokens, 15e12);
  const rows = page.locator(`${EL} table.layouts tbody tr`);
  assert.equal(await rows.count(), Math.min(10, r.outputs.layouts.length));
  const first = r.outputs.layouts[0];
  assert.match(await rows.first().innerText(), new RegExp(`^1\\s+${first.dp}\\s+${first.fsdp}\\s+${first.tp}\\s+${first.pp}\\s`));
  // the verdict's layout is the table's first row, every degree said: their product is the chips
  const degrees = [['dp', 'data parallel'], ['fsdp', 'FSDP'], ['tp', 'tensor parallel'], ['pp', 'pipeline'], ['cp', 'context parallel'], ['ep', 'expert parallel']];
  assert.equal(degrees.reduce((n, [k]) => n * first[k], 1), r.outputs.chips);
  const words = degrees.filter(([k]) => first[k] > 1).map(([k, w]) => `${first[k]}-way ${w}`).join(' × ');
  assert.equal(await page.locator(`${EL} .lab-verdict .best-layout`).innerText(), words);
  assert.doesNotMatch(await page.locator(`${EL} .lab-verdict`).innerText(), /Recommended/);
  // the set-up column tells layouts of the same degrees apart: micro-batches and remat policy
  const setup = await rows.first().locator('td.lb-setup').innerText();
  if (first.micro_batch) assert.match(setup, new RegExp(`(micro-batch|micro-batches of) ${first.micro_batch}\\b`));
  assert.match(setup, new RegExp(`remat ${first.checkpointing}\\b`));
  const rej = page.locator(`${EL} table.rejected tbody tr`);
  const rejTexts = await rej.allInnerTexts();
  assert.ok(rejTexts.length >= 1 && rejTexts.length <= r.outputs.rejected.length);
  assert.equal(new Set(rejTexts).size, rejTexts.length, 'no two rejected rows read the same');
  assert.ok(rejTexts[0].includes(r.outputs.rejected[0].message));
  // chips
  await type(page, 'chips', '4096');
  let p = { ...base, chips: 4096 };
  for (const o of ['days', 'cost_usd', 'layouts_fitting']) assert.equal(await out(page, o), want(p, o), o);
  // MFU
  await type(page, 'mfu', '0.5');
  p = { ...p, mfu: 0.5 };
  assert.equal(await out(page, 'days'), want(p, 'days'));
  // the layout search reads no MFU: the lab kept the one it ran for 4,096 chips and evaluated the run
  // without it, and its result is still the engine's whole answer for these parameters
  const [kept, shownResult, params] = await page.evaluate((el) => { const lab = document.querySelector(el); return [lab.search?.outputs.layouts_evaluated, JSON.stringify(lab.result), lab.params()]; }, EL);
  assert.ok(kept > 0, 'the search is kept');
  // what it keeps and what may move beside it are the engine's schema marks (layout_search), not lists of the lab's
  const schema = JSON.parse(engine.calculator(CALC));
  const facts = await page.evaluate((el) => { const f = document.querySelector(el).facts; return { runOnly: [...f.runOnly], outputs: f.outputs }; }, EL);
  assert.deepEqual(facts.outputs, schema.outputs.filter((o) => o.layout_search).map((o) => o.name));
  assert.deepEqual(facts.runOnly, schema.params.filter((q) => !q.layout_search).map((q) => q.name));
  assert.ok(facts.runOnly.includes('mfu') && facts.runOnly.includes('price_per_hour_usd') && facts.outputs.includes('layouts'));
  assert.equal(shownResult, JSON.stringify(JSON.parse(engine.evaluateNumbers(CALC, JSON.stringify(params)))));
  assert.equal(await out(page, 'achieved_flops_per_s'), want(p, 'achieved_flops_per_s'));
  // price
  await type(page, 'price_per_hour_usd', '1.5');
  p = { ...p, price_per_hour_usd: 1.5 };
  assert.equal(await out(page, 'cost_usd'), want(p, 'cost_usd'));
  await page.waitForFunction(() => /chips=4096/.test(location.search) && /mfu=0.5/.test(location.search) && /price_per_hour_usd=1.5/.test(location.search));
  // the settings the search tries (the engine's schema marks them searched): "any" leaves each to it,
  // a value narrows it, the engine's default included (1F1B given is 1F1B only)
  const options = (key) => page.locator(`${EL} .control[data-key="${key}"] select option`).evaluateAll((os) => os.map((o) => [o.value, o.textContent.trim()]));
  assert.deepEqual((await options('schedule'))[0], ['', 'any (the search picks)']);
  assert.deepEqual((await options('zero_stage')).map(([v]) => v), ['', '0', '1', '2', '3']);
  assert.equal(p.schedule, undefined, 'any: the schedule is left out');
  await choose(page, 'schedule', '1f1b');
  await choose(page, 'zero_stage', '1');
  p = { ...p, schedule: '1f1b', zero_stage: 1 };
  assert.deepEqual(await page.evaluate((el) => document.querySelector(el).params(), EL), p);
  const narrowed = evaluate(CALC, p).outputs;
  assert.ok(narrowed.layouts.length && narrowed.layouts.every((l) => (l.pp === 1 || l.schedule === '1f1b') && l.zero_stage === 1), 'every ranked layout has the given schedule and ZeRO stage');
  assert.equal(await out(page, 'layouts_evaluated'), want(p, 'layouts_evaluated'));
  await page.waitForFunction(() => { const q = new URLSearchParams(location.search); return q.get('schedule') === '1f1b' && q.get('zero_stage') === '1'; });
  await choose(page, 'schedule', '');
  assert.equal((await page.evaluate((el) => document.querySelector(el).params(), EL)).schedule, undefined, 'any again: the search tries every schedule');
  await noNaN(page);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('chips left empty on a GPU without a pod size: one chip, and a warning says so', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?chip=b200');
  await ready(page);
  await type(page, 'chips', '');
  await page.waitForFunction((el) => /B200 has no pod size: one GPU is assumed/.test(document.querySelector(`${el} .lab-warnings`)?.textContent ?? ''), EL);
  const params = await page.evaluate((el) => document.querySelector(el).params(), EL);
  assert.equal(params.chips, undefined, 'no chips given');
  const r = evaluate(CALC, params);
  assert.equal(r.outputs.chips, 1);
  // a datacenter GPU's chip-hours read as GPU-hours, as its chips field says GPUs
  for (const o of ['days', 'chip_hours']) assert.equal(await out(page, o), expected(CALC, params, o).replace('chip-hours', 'GPU-hours'), o);
  await noNaN(page);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('a custom chip works', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/about/');
  const custom = customChip('tpu-v5p', { price_per_hour_usd: 3 });
  await page.evaluate((c) => { localStorage.setItem('scalelab.customChip', JSON.stringify(c)); localStorage.setItem('scalelab.chip', 'custom'); }, custom);
  try {
    await page.goto(server.url + LAB);
    await ready(page);
    const params = await page.evaluate((el) => document.querySelector(el).params(), EL);
    assert.deepEqual(params.chip, custom, 'the page\'s custom chip');
    assert.equal(await out(page, 'cost_usd'), want(params, 'cost_usd'));
    assert.equal(await out(page, 'days'), want(params, 'days'));
    await noNaN(page);
  } finally {
    await page.evaluate(() => { localStorage.removeItem('scalelab.customChip'); localStorage.removeItem('scalelab.chip'); });
  }
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('bad typed values are refused in place with the engine message', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?chip=tpu-v5p');
  await ready(page);
  for (const [key, typed, restore] of [['mfu', '0', '0.4'], ['mfu', '1.5', '0.4'], ['chips', 'abc', ''], ['tokens', '-1', '1.5e13'], ['price_per_hour_usd', '-2', '']]) {
    await type(page, key, typed);
    const v = Number.isFinite(Number(typed)) ? Number(typed) : typed;
    const w = evaluate(CALC, { chip: 'tpu-v5p', [key]: v });
    assert.ok(w.error, `${key}=${typed}`);
    assert.equal(await fieldError(page, key), shown(typed, w.error, CALC), `${key}=${typed}`);
    await noNaN(page);
    await type(page, key, restore);
    assert.equal(await fieldError(page, key), '', key);
  }
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('axe: the lab page and the lab in chapter 6', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  assert.deepEqual(await axe(page), []);
  await page.goto(server.url + '/chapters/06-training-llama/');
  const step = await page.locator(`section.step:has(${EL})`).first().getAttribute('id');
  await page.goto(server.url + `/chapters/06-training-llama/#${step}`);
  await page.reload();
  await ready(page);
  assert.deepEqual(await axe(page), []);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('model picker: labelled, keyboard, the catalog; each model gives the engine\u2019s numbers or says it does not fit; ?model= round-trips', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?chip=tpu-v5p');
  await ready(page);
  const sel = modelSelect(page);
  assert.equal(await sel.inputValue(), 'llama3-70b', 'the schema default');
  const base = await page.evaluate((el) => document.querySelector(el).params(), EL);
  assert.deepEqual(await sel.locator('option').evaluateAll((os) => os.map((o) => [o.value, o.textContent.trim()])), MODELS.map((m) => [m.id, m.name]));
  assert.match(await page.locator(`${EL} label[for="${await sel.getAttribute('id')}"]`).innerText(), /model/);
  const before = await out(page, 'total_flops');
  // keyboard: one step up from LLaMA-3 70B is LLaMA-3 8B
  await sel.focus();
  const r = await rendered(page);
  await page.keyboard.press('ArrowUp');
  await settle(page, r);
  assert.equal(await sel.inputValue(), 'llama3-8b');
  const p8 = { ...base, model: 'llama3-8b' };
  assert.notEqual(want(p8, 'total_flops'), before, 'the model changes the result');
  for (const o of ['total_flops', 'days', 'cost_usd', 'min_chips_memory', 'bytes_per_chip', 'layouts_fitting']) assert.equal(await out(page, o), want(p8, o), o);
  const first = evaluate(CALC, p8).outputs.layouts[0];
  assert.match(await page.locator(`${EL} table.layouts tbody tr`).first().innerText(), new RegExp(`^1\\s+${first.dp}\\s+${first.fsdp}\\s+${first.tp}\\s+${first.pp}\\s`));
  await page.waitForFunction(() => new URLSearchParams(location.search).get('model') === 'llama3-8b');
  // every catalog model
  for (const m of MODELS) {
    if (m.id !== (await sel.inputValue())) await choose(page, 'model', m.id);
    const p = { ...base, model: m.id };
    assert.equal(await out(page, 'total_flops'), want(p, 'total_flops'), m.id);
    assert.equal(await out(page, 'days'), want(p, 'days'), m.id);
    assert.equal(await out(page, 'min_chips_memory'), want(p, 'min_chips_memory'), m.id);
    await noNaN(page);
  }
  // a chip that cannot hold it: the engine's fits = false, said plainly
  await choose(page, 'chip', 'tpu-v5e');
  await type(page, 'chips', '256');
  if ((await sel.inputValue()) !== 'deepseek-v3') await choose(page, 'model', 'deepseek-v3');
  const p = { ...base, chip: 'tpu-v5e', chips: 256, model: 'deepseek-v3' };
  assert.equal(evaluate(CALC, p).outputs.fits, false);
  assert.match(await page.locator(`${EL} .lab-verdict`).innerText(), /cannot hold the state/);
  assert.equal(await out(page, 'min_chips_memory'), want(p, 'min_chips_memory'));
  assert.equal(await out(page, 'bytes_per_chip'), want(p, 'bytes_per_chip'));
  await noNaN(page);
  await choose(page, 'model', 'llama3-70b');
  await page.waitForFunction(() => !location.search.includes('model='));
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();

  // ?model=llama3-8b: the picker, the numbers, and the address keep it
  const { page: p2, problems: pr2 } = await watchedPage(browser.context, server.url);
  await p2.goto(server.url + LAB + '?chip=tpu-v5p&model=llama3-8b');
  await ready(p2);
  assert.equal(await modelSelect(p2).inputValue(), 'llama3-8b');
  assert.equal(await out(p2, 'total_flops'), want(p8, 'total_flops'));
  await type(p2, 'mfu', '0.5');
  await p2.waitForFunction(() => { const q = new URLSearchParams(location.search); return q.get('model') === 'llama3-8b' && q.get('mfu') === '0.5'; });
  assert.equal(await out(p2, 'days'), want({ ...p8, mfu: 0.5 }, 'days'));
  // an unknown model: the engine's message in a notice, the default model
  await p2.goto(server.url + LAB + '?model=gpt-9');
  await ready(p2);
  assert.ok((await p2.locator(`${EL} .lab-notice`).innerText()).includes(evaluate(CALC, { model: 'gpt-9' }).error.message));
  assert.equal(await modelSelect(p2).inputValue(), 'llama3-70b');
  assert.deepEqual(pr2, { console: [], errors: [], thirdParty: [] });
  await p2.close();
});

test('the expected run time: the MFUs published runs reached, of the chips\u2019 peak, whatever MFU is typed', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  const line = page.locator(`${EL} .lab-expected`);
  const params = await page.evaluate((el) => document.querySelector(el).params(), EL);
  const o = evaluate(CALC, params).outputs;
  assert.equal(Number(await line.getAttribute('data-low')), o.expected_t_s_low);
  assert.equal(Number(await line.getAttribute('data-high')), o.expected_t_s_high);
  // the shares and the count are the band's (data/bands.json), read from the engine, not written here
  const pct = (x) => Math.round(x * 100);
  assert.match(await line.innerText(), new RegExp(`^Published runs like this reach ${pct(o.expected_share_low)}–${pct(o.expected_share_high)}\\s% of the chips’ peak FLOP/s: expect [\\d.,]+( days| years)?–[\\d.,]+ (days|years) \\(${o.expected_runs} runs\\)\\.$`));
  const before = await line.innerText();
  await type(page, 'mfu', '0.25');
  assert.equal(await line.innerText(), before, 'the range is the runs\u2019, not the typed MFU\u2019s');
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('the chart: days against chips at the typed MFU, the expected band, and a published whole run of this model', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  const setup = { chip: 'h100', model: 'llama3-70b', tokens: 15e12 };
  const mine = PUBLISHED.runs.filter((m) => m.calculator === CALC && m.measured.output === 'chip_hours'
    && Object.entries(setup).every(([k, v]) => m.inputs[k] === v));
  assert.equal(mine.length, 1, 'Meta\u2019s Llama 3 70B GPU-hours');
  await page.goto(server.url + LAB + '?' + new URLSearchParams({ ...setup, chips: 2048 }));
  await ready(page);
  // as if every chip ran the whole time: chip-hours / chips / 24 days
  const at = await publishedOnChart(page, `${EL} .pod-plot`, mine, (m) => ({ x: m.inputs.chips, y: m.measured.value / m.inputs.chips / 24 }));
  assert.ok(placedAll(at), JSON.stringify(at));
  assert.ok(at.titles[0].includes(mine[0].published), at.titles[0]);
  assert.ok(at.description.includes(`On the chosen 2,048 GPUs: ${expected(CALC, { ...setup, chips: 2048 }, 'days')}`), at.description);
  assert.ok(await page.locator(`${EL} .pod-plot .expected-band`).count() > 0, 'the range published runs reach is shaded');
  assert.equal(await page.locator(`${EL} .lab-published`).getAttribute('data-runs'), '1');
  // another MFU moves the days line and the dot of the chart drawn (a frame kept: no new chart), to
  // where a chart drawn afresh for that MFU puts them
  const points = (el) => { const c = document.querySelector(`${el} .pod-plot`); c.dataset.seen = '1'; return (c.querySelector('.days-line path').getAttribute('d').match(/-?[\d.]+(e-?\d+)?/g) ?? []).map(Number); };
  const before = await page.evaluate(points, EL);
  await type(page, 'mfu', '0.45');
  const said = (days) => `On the chosen 2,048 GPUs: ${days}`;
  const days45 = expected(CALC, { ...setup, chips: 2048, mfu: 0.45 }, 'days');
  await page.waitForFunction(([el, text]) => document.querySelector(`${el} .pod-plot [aria-description]`)?.getAttribute('aria-description').includes(text), [EL, said(days45)]);
  const moved = await page.evaluate(points, EL);
  assert.equal(await page.locator(`${EL} .pod-plot[data-seen]`).count(), 1, 'the same chart, its line moved');
  const fresh = await watchedPage(browser.context, server.url);
  await fresh.page.goto(server.url + LAB + '?' + new URLSearchParams({ ...setup, chips: 2048, mfu: 0.45 }));
  await ready(fresh.page);
  await fresh.page.locator(`${EL} .pod-plot`).scrollIntoViewIfNeeded();
  const drawn = await fresh.page.evaluate(points, EL);
  await fresh.page.close();
  assert.equal(moved.length, drawn.length);
  assert.ok(moved.every((v, i) => Math.abs(v - drawn[i]) < 0.01) && moved.some((v, i) => v !== before[i]), JSON.stringify({ before, moved, drawn }));
  // I measured: a rate gives the MFU, the run at that pace and its place among published steady-state steps
  await type(page, 'measured_tokens_per_s', '2000000');
  const o = evaluate(CALC, { ...setup, chips: 2048, measured_tokens_per_s: 2e6 }).outputs;
  const line = page.locator(`${EL} .lab-measured`);
  assert.equal(Number(await line.getAttribute('data-share')), o.mfu);
  const text = await line.innerText();
  assert.ok(text.includes(o.measured_among) && text.includes(expected(CALC, { ...setup, chips: 2048, measured_tokens_per_s: 2e6 }, 'days')), text);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});
