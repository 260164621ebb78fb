// The serving lab (chapter 8): the engine's sweep as a Pareto plot, the chosen point, the minimum
// topology; every chip and a custom one, URL state, bad input, keyboard, axe.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage, axe } from './harness.mjs';
import { engine, MODELS, evaluate, expected, customChip, labHelpers, asPlain, shown, PUBLISHED, publishedOnChart, placedAll } from './lab-helpers.mjs';

const EL = 'sl-serving-lab';
const CALC = 'serving';
const LAB = '/labs/serving/';
let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });
const { chartShown, ready, rendered, settle, out, field, fieldError, modelSelect, type, choose, noNaN } = labHelpers({ element: EL, calculator: CALC });

/** the sweep the lab sends: range ends, powers of two between; topologies ×¼…×4 (the chosen batch is evaluated alone) */
function sweepParams(p, lo, hi) {
  const chips = p.chips ?? 16;
  const b = [lo, hi];
  for (let x = 1; x <= hi; x *= 2) if (x > lo && x < hi) b.push(x);
  const c = [chips / 4, chips / 2, chips, chips * 2, chips * 4].filter((x) => Number.isInteger(x) && x >= 1 && x <= 100000);
  return { ...p, sweep: { batch: b, chips: c } };
}

/** The verdict's sentence on the smallest topology (decode's min_chips, min_chips_for_batch,
 *  min_slice_chips for the serving setup's model, batch and request length): the weights' chips of
 *  HBM, the batch's KV cache where it needs more, and the power-of-two slice where that is more. */
function minTopology(params) {
  const s = evaluate(CALC, params).inputs;
  const d = { batch: s.batch, context: s.prompt_tokens + s.decode_tokens };
  for (const k of ['model', 'chip', 'weight_dtype', 'kv_dtype', 'compute_dtype']) if (s[k] !== undefined) d[k] = s[k];
  const o = evaluate('decode', d).outputs;
  const q = (n) => engine.formatQuantity(n, 'count');
  // a slice is a TPU's; a GPU sweep takes GPUs in powers of two (and a datacenter GPU is counted in GPUs)
  const tpu = String(params.chip).startsWith('tpu');
  const noun = tpu ? 'chip' : 'GPU';
  const worth = (k) => (k === 1 ? `${q(1)} ${noun}’s` : `${q(k)} ${noun}s’`);
  const batch = o.min_chips_for_batch > o.min_chips ? o.min_chips_for_batch : null;
  const slice = o.min_slice_chips > (batch ?? o.min_chips) ? o.min_slice_chips : null;
  return `The weights need ${worth(o.min_chips)} worth of HBM${batch !== null ? `; with the KV cache of a batch of ${q(s.batch)} at ${q(d.context)} tokens, ${worth(batch)}` : ''}${slice === null ? ''
    : tpu ? `; a slice has a power of two chips, so the smallest that holds ${batch !== null ? 'both' : 'them'} has ${q(slice)} chip${slice === 1 ? '' : 's'}`
    : `; the sweep takes GPUs in powers of two, so the fewest that hold ${batch !== null ? 'both' : 'them'} are ${q(slice)} GPU${slice === 1 ? '' : 's'}`}.`;
}

test('loads with the engine numbers and the Pareto plot; topology, batch and range change them', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  let p = sweepParams({ chip: 'tpu-v5e', chips: 64 }, 1, 1024);
  for (const o of ['latency_s', 'tokens_per_s_per_chip', 'cost_per_million_tokens_usd', 'time_to_first_token_s']) assert.equal(await out(page, o), expected(CALC, p, o), o);
  await chartShown(page);
  assert.ok(await page.locator(`${EL} .serving-plot`).count(), 'the Pareto plot');
  assert.ok(await page.locator(`${EL} .operating-point`).count(), 'the chosen point is highlighted');
  // a TPU opens on a point of the frontier (64 chips at batch 32); the range reaches a batch of 1,024
  assert.match(await page.locator(`${EL} .lab-verdict`).innerText(), /It is on the Pareto frontier\./);
  assert.match(await field(page, 'batch_to').inputValue(), /^1,?024$/);
  const r0 = evaluate(CALC, p);
  assert.equal(await page.locator(`${EL} table.serving-points tbody tr`).count(), r0.outputs.points.length, 'every point in the table');
  assert.equal(await page.locator(`${EL} table.serving-points tbody tr:has-text("★")`).count(), r0.outputs.pareto.length, 'the engine\u2019s frontier');
  assert.match(await page.locator(`${EL} .lab-viz svg[aria-description]`).first().getAttribute('aria-description'), /Pareto frontier/);
  assert.ok((await page.locator(`${EL} .lab-verdict`).innerText()).includes(minTopology({ chip: 'tpu-v5e' })), 'minimum topology');
  assert.match(minTopology({ chip: 'tpu-v5e' }), /; a slice has a power of two chips, so the smallest that holds (both|them) has 16 chips/, 'a real slice beside the bare count (9 chips of HBM)');
  // topology
  await type(page, 'chips', '32');
  p = sweepParams({ chip: 'tpu-v5e', chips: 32 }, 1, 1024);
  assert.equal(await out(page, 'tokens_per_s_per_chip'), expected(CALC, p, 'tokens_per_s_per_chip'));
  assert.equal(await out(page, 'latency_s'), expected(CALC, p, 'latency_s'));
  // batch (the highlighted point)
  await type(page, 'batch', '64');
  p = sweepParams({ chip: 'tpu-v5e', chips: 32, batch: 64 }, 1, 1024);
  assert.equal(await out(page, 'cost_per_million_tokens_usd'), expected(CALC, p, 'cost_per_million_tokens_usd'));
  assert.ok(await page.locator(`${EL} table.serving-points tr.chosen:has-text("64")`).count());
  // batch range
  await type(page, 'batch_from', '8');
  await type(page, 'batch_to', '128');
  p = sweepParams({ chip: 'tpu-v5e', chips: 32, batch: 64 }, 8, 128);
  assert.equal(await page.locator(`${EL} table.serving-points tbody tr`).count(), evaluate(CALC, p).outputs.points.length);
  assert.equal(await page.locator(`${EL} table.serving-points tbody tr:has-text("★")`).count(), evaluate(CALC, p).outputs.pareto.length);
  await page.waitForFunction(() => /batch_from=8/.test(location.search) && /batch_to=128/.test(location.search) && /chips=32/.test(location.search));
  await noNaN(page);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();

  // a 16 GB Mac: LLaMA-3 8B in BF16 cannot load — no speed, latency or cost; what would load, each
  // one the engine loads, and taking one gives its numbers
  const { page: mac, problems: pm } = await watchedPage(browser.context, server.url);
  await mac.goto(server.url + LAB + '?chip=apple-m1');
  await ready(mac);
  const said = await mac.locator(`${EL} .lab-verdict`).innerText();
  assert.match(said, /^It cannot load: LLaMA-3 8B in BF16 needs \S+ GB for its weights/);
  assert.doesNotMatch(said, /tokens\/s|0 sequences|devices’ worth/);
  for (const o of ['latency_s', 'tokens_per_s_per_chip']) assert.equal(await mac.locator(`${EL} .lab-outputs [data-out="${o}"]`).count(), 0, o);
  const macParams = await mac.evaluate((e) => document.querySelector(e).params(), EL);
  const offers = await mac.locator(`${EL} .lab-verdict button[data-fit]`).evaluateAll((bs) => bs.map((b) => JSON.parse(b.dataset.fit)));
  assert.ok(offers.length >= 2, 'settings that load are offered');
  for (const set of offers) assert.ok(evaluate(CALC, { ...macParams, ...set }).outputs.max_batch >= 1, JSON.stringify(set));
  const rm = await rendered(mac);
  await mac.locator(`${EL} .lab-verdict button[data-fit]`).first().click();
  await settle(mac, rm);
  assert.equal(await out(mac, 'latency_s'), expected(CALC, { ...macParams, ...offers[0] }, 'latency_s'));
  assert.deepEqual(pm, { console: [], errors: [], thirdParty: [] });
  await mac.close();
});

test('a custom chip works', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/about/');
  const custom = customChip('tpu-v5e', { hbm_bytes: 3.2e10, price_per_hour_usd: 2 });
  await page.evaluate((c) => { localStorage.setItem('scalelab.customChip', JSON.stringify(c)); localStorage.setItem('scalelab.chip', 'custom'); }, custom);
  try {
    await page.goto(server.url + LAB);
    await ready(page);
    const p = sweepParams({ chip: custom, chips: 64 }, 1, 1024);
    assert.equal(await out(page, 'cost_per_million_tokens_usd'), expected(CALC, p, 'cost_per_million_tokens_usd'));
    assert.equal(await out(page, 'max_batch'), expected(CALC, p, 'max_batch'));
    await noNaN(page);
  } finally {
    await page.evaluate(() => { localStorage.removeItem('scalelab.customChip'); localStorage.removeItem('scalelab.chip'); });
  }
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('bad typed values are refused in place with the engine message', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  for (const [key, typed, restore] of [['chips', '0', '16'], ['batch', 'abc', '32'], ['batch_from', '0', '1'], ['batch_to', '1e99', '1e6'], ['decode_tokens', '-3', '512']]) {
    await type(page, key, typed);
    const err = await fieldError(page, key);
    assert.ok(err.length > 3, `${key}=${typed}: ${err}`);
    assert.equal(await field(page, key).getAttribute('aria-invalid'), 'true');
    await noNaN(page);
    await type(page, key, restore);
    assert.equal(await fieldError(page, key), '', key);
  }
  // out of range: the fields' words for it (words.ts fieldProblem)
  await type(page, 'decode_tokens', '0');
  assert.equal(await fieldError(page, 'decode_tokens'), shown('0', evaluate(CALC, { chip: 'tpu-v5e', decode_tokens: 0 }).error, CALC));
  await type(page, 'batch_from', '0');
  await type(page, 'decode_tokens', '512');
  assert.equal(await fieldError(page, 'batch_from'), evaluate(CALC, { chip: 'tpu-v5e', sweep: { batch: [0] } }).error.message);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('axe: the lab page and the lab in chapter 8; keyboard reaches every control', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  assert.deepEqual(await axe(page), []);
  // Tab through the lab: every control gets focus
  const ids = await page.locator(`${EL} .lab-controls input:not([disabled]), ${EL} .lab-controls select:not([disabled])`).evaluateAll((els) => els.map((e) => e.id || e.getAttribute('aria-label')));
  await page.locator(`${EL} .control[data-key="chip"] select`).focus();
  const seen = new Set();
  for (let i = 0; i < ids.length + 5; i++) {
    seen.add(await page.evaluate(() => document.activeElement.id || document.activeElement.getAttribute('aria-label')));
    await page.keyboard.press('Tab');
  }
  for (const id of ids) assert.ok(seen.has(id), `focusable: ${id}`);
  await page.goto(server.url + '/chapters/08-serving-llama/');
  const step = await page.locator(`section.step:has(${EL})`).first().getAttribute('id');
  await page.goto(server.url + `/chapters/08-serving-llama/#${step}`);
  await page.reload();
  await ready(page);
  assert.deepEqual(await axe(page), []);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('model picker: labelled, keyboard, the catalog; each model gives the engine\u2019s numbers or says it does not fit; ?model= round-trips', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  const sel = modelSelect(page);
  assert.equal(await sel.inputValue(), 'llama3-70b', 'the schema default');
  assert.deepEqual(await sel.locator('option').evaluateAll((os) => os.map((o) => [o.value, o.textContent.trim()])), MODELS.map((m) => [m.id, m.name]));
  assert.match(await page.locator(`${EL} label[for="${await sel.getAttribute('id')}"]`).innerText(), /model/);
  const before = await out(page, 'latency_s');
  // keyboard: one step up from LLaMA-3 70B is LLaMA-3 8B
  await sel.focus();
  const r = await rendered(page);
  await page.keyboard.press('ArrowUp');
  await settle(page, r);
  assert.equal(await sel.inputValue(), 'llama3-8b');
  const p8 = { chip: 'tpu-v5e', chips: 64, model: 'llama3-8b' };
  assert.notEqual(expected(CALC, p8, 'latency_s'), before, 'the model changes the result');
  for (const o of ['latency_s', 'tokens_per_s_per_chip', 'cost_per_million_tokens_usd', 'max_batch']) assert.equal(await out(page, o), expected(CALC, p8, o), o);
  const sweep8 = evaluate(CALC, sweepParams(p8, 1, 1024));
  assert.equal(await page.locator(`${EL} table.serving-points tbody tr`).count(), sweep8.outputs.points.length, 'the sweep is the model\u2019s');
  assert.equal(await page.locator(`${EL} table.serving-points tbody tr:has-text("★")`).count(), sweep8.outputs.pareto.length);
  assert.ok((await page.locator(`${EL} .lab-verdict`).innerText()).includes(minTopology(p8)), 'the minimum topology is the model\u2019s');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('model') === 'llama3-8b');
  // every catalog model on the default chip; those the 64 chips cannot hold say so (fits = false)
  let tooBig = 0;
  for (const m of MODELS) {
    if (m.id !== (await sel.inputValue())) await choose(page, 'model', m.id);
    const p = { chip: 'tpu-v5e', chips: 64, model: m.id };
    const want = evaluate(CALC, p);
    assert.ok(!want.error, m.id);
    assert.equal(await out(page, 'latency_s'), expected(CALC, p, 'latency_s'), m.id);
    assert.equal(await out(page, 'max_batch'), expected(CALC, p, 'max_batch'), m.id);
    const verdict = await page.locator(`${EL} .lab-verdict`).innerText();
    if (want.outputs.fits === false) {
      tooBig++;
      assert.match(verdict, /does not fit in memory/, m.id);
      assert.ok(verdict.includes(minTopology(p)), m.id);
      const warns = await page.locator(`${EL} .lab-warnings li`).allInnerTexts();
      for (const w of want.warnings) assert.ok(warns.includes(asPlain(w)), `${m.id}: ${asPlain(w)}`);
    } else assert.doesNotMatch(verdict, /does not fit/, m.id);
    await noNaN(page);
  }
  assert.ok(tooBig > 0, 'some catalog model does not fit on 64 v5e chips');
  await choose(page, 'model', 'llama3-70b');
  await page.waitForFunction(() => !location.search.includes('model='));
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();

  // ?model=llama3-8b: the picker, the numbers, and the address keep it
  const { page: p2, problems: pr2 } = await watchedPage(browser.context, server.url);
  await p2.goto(server.url + LAB + '?model=llama3-8b');
  await ready(p2);
  assert.equal(await modelSelect(p2).inputValue(), 'llama3-8b');
  assert.equal(await out(p2, 'latency_s'), expected(CALC, p8, 'latency_s'));
  await type(p2, 'batch', '64');
  await p2.waitForFunction(() => { const q = new URLSearchParams(location.search); return q.get('model') === 'llama3-8b' && q.get('batch') === '64'; });
  assert.equal(await out(p2, 'latency_s'), expected(CALC, { ...p8, batch: 64 }, 'latency_s'));
  // an unknown model: the engine's message in a notice, the default model
  await p2.goto(server.url + LAB + '?model=gpt-9');
  await ready(p2);
  assert.ok((await p2.locator(`${EL} .lab-notice`).innerText()).includes(evaluate(CALC, { model: 'gpt-9' }).error.message));
  assert.equal(await modelSelect(p2).inputValue(), 'llama3-70b');
  assert.deepEqual(pr2, { console: [], errors: [], thirdParty: [] });
  await p2.close();
});

test('the expected throughput: what published serving runs reach, of the engine\u2019s bound, and where they ran', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  for (const chip of ['h100', 'tpu-v5e']) {
    await page.goto(server.url + LAB + '?chip=' + chip);
    await ready(page);
    const params = await page.evaluate((el) => document.querySelector(el).params(), EL);
    const o = evaluate(CALC, params).outputs;
    const line = page.locator(`${EL} .lab-expected`);
    assert.equal(Number(await line.getAttribute('data-low')), o.expected_throughput_tokens_per_s_low, chip);
    assert.equal(Number(await line.getAttribute('data-high')), o.expected_throughput_tokens_per_s_high, chip);
    const text = await line.innerText();
    assert.match(text, new RegExp(`of the server’s throughput bound: expect [\\d,.]+–[\\d,.]+ (k )?tokens/s \\(${o.expected_runs} runs\\)`), text);
    // (in the lab's words for its chips: GPUs on an H100, as words.ts gpuWords writes them)
    const said = chip === 'h100' ? o.expected_outside.replace(/(?<!custom )\b[Cc]hip(s?)\b(?! menu)/g, (_m, pl) => `GPU${pl}`) : o.expected_outside;
    assert.ok(text.includes(said), `${chip}: the sentence on what the runs took`);
    if (chip === 'h100') assert.doesNotMatch(text, /\bchips?\b/, 'one word for the H100s');
    if (chip === 'tpu-v5e') assert.match(text, /ran on datacenter GPU chips.*runs on a TPU/);
    // why the smallest slice holds more chips than the weights need (H100, Llama 3 70B: 2 for the weights, a slice of 4)
    assert.ok((await page.locator(`${EL} .lab-verdict`).innerText()).includes(minTopology(params)), `${chip}: the smallest topology, and why`);
  }
  // the reader's own card: one device, swept alone (no 2- or 4-card series it has no link for), in its words
  await page.goto(server.url + LAB + '?chip=rtx-4090');
  await ready(page);
  await chartShown(page);
  const cards = await page.locator(`${EL} table.serving-points tbody tr`).evaluateAll((rows) => [...new Set(rows.map((r) => r.dataset.point.split('x')[0]))]);
  assert.deepEqual(cards, ['1'], 'one topology on one card');
  const verdict = await page.locator(`${EL} .lab-verdict p.verdict`).first().innerText();
  assert.match(verdict, /^1 device, batch/, verdict);
  assert.match(verdict, /tokens\/s per device/, verdict);
  assert.doesNotMatch(verdict, /\bchips?\b/, verdict);
  assert.equal((await page.locator(`${EL} table.serving-points thead th`).first().textContent()).trim(), 'devices');
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('published serving runs of this setup sit on the chart at their tokens/s per chip and the time their batch took', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  const runs = PUBLISHED.runs.filter((m) => m.calculator === CALC);
  const setup = { chip: 'h100', model: 'llama2-7b', prompt_tokens: 128, decode_tokens: 128, weight_dtype: 'fp8', kv_dtype: 'fp8' };
  const mine = runs.filter((m) => Object.entries(setup).every(([k, v]) => m.inputs[k] === v));
  assert.equal(mine.length, 1, 'one published run of this setup in the catalog');
  await page.goto(server.url + LAB + '?' + new URLSearchParams({ ...setup, chips: 1, batch: 64 }));
  await ready(page);
  await chartShown(page);
  const note = page.locator(`${EL} .lab-published`);
  // its place: the measured rate per chip, and batch × output tokens / rate (a static batch finishes together)
  const at = await publishedOnChart(page, `${EL} .serving-plot`, mine,
    (m) => ({ x: m.measured.value / m.inputs.chips, y: (m.inputs.batch * m.inputs.decode_tokens) / m.measured.value }));
  assert.ok(placedAll(at), JSON.stringify(at));
  assert.ok(at.titles[0].includes(mine[0].published) && at.titles[0].includes(mine[0].source.where), at.titles[0]);
  assert.match(at.description, /Published runs of this setup/);
  assert.equal(await note.getAttribute('data-runs'), '1');
  assert.equal(await note.locator('a').getAttribute('href'), mine[0].source.url);
  // at other settings the note names what to set
  const near = runs.filter((r) => r.inputs.chip === 'h100' && r.inputs.model === 'llama2-7b');
  await page.goto(server.url + LAB + '?chip=h100&model=llama2-7b');
  await ready(page);
  await page.waitForFunction((el) => document.querySelector(`${el} .lab-published`) !== null, EL);
  assert.equal(await note.getAttribute('data-near'), String(near.length));
  assert.match(await note.innerText(), /measured at other settings\. To see one on the chart, set /);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});
