// The decode lab (chapter 7, 12): controls, the engine's numbers on screen, chips (catalog, H800
// without an HBM figure, a custom chip), URL state, bad input, keyboard, axe.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startServer, launch, watchedPage, axe } from './harness.mjs';
import { CHIPS, MODELS, engine, evaluate, expected, customChip, clean, labHelpers, shown, fieldNumber, asPlain } from './lab-helpers.mjs';

const EL = 'sl-decode-lab';
const LAB = '/labs/decode/';
let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });
/** a crossover batch as the lab names it: the whole batch nearest the engine's figure */
const wholeBatch = (params, name) => engine.formatQuantity(Math.max(1, Math.round(evaluate('decode', params).outputs[name])), 'sequences');
const { chartShown, ready, rendered, settle, out, field, modelSelect, type, choose, noNaN } = labHelpers({ element: EL });
/** the parameters the lab sends the engine now (its preset and the reader's changes) */
const labParams = (page) => page.evaluate((el) => document.querySelector(el).params(), EL);

test('loads with the engine numbers, plot and text alternative; batch and context change them', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  const base = await labParams(page);
  assert.equal(base.chip, 'tpu-v5e');
  assert.equal(await out(page, 'step_s'), expected('decode', base, 'step_s'));
  // one flip batch: the math's own crossover is the same number here, so it gets no row of its own
  assert.equal(await out(page, 'mlp_flip_batch'), wholeBatch(base, 'mlp_flip_batch'));
  assert.equal(await page.locator(`${EL} [data-out="critical_batch"]`).count(), 0, 'no second name for the flip batch');
  assert.equal(await out(page, 'max_batch'), expected('decode', base, 'max_batch'));
  await chartShown(page);
  const chart = page.locator(`${EL} .lab-viz svg[aria-label]`).first();
  assert.ok(await chart.count(), 'the plot is drawn');
  assert.match(await page.locator(`${EL} .lab-viz [aria-description]`).first().getAttribute('aria-description'), /flip from memory-bound/);
  // batch
  await type(page, 'batch', '256');
  assert.equal(await out(page, 'step_s'), expected('decode', { ...base, batch: 256 }, 'step_s'));
  assert.equal(await out(page, 'tokens_per_s'), expected('decode', { ...base, batch: 256 }, 'tokens_per_s'));
  const bound = evaluate('decode', { ...base, batch: 256 }).outputs.bound;
  assert.match(await page.locator(`${EL} .lab-verdict`).innerText(), new RegExp(`${bound}-bound`, 'i'));
  // context
  await type(page, 'context', '32768');
  const p = { ...base, batch: 256, context: 32768 };
  assert.equal(await out(page, 't_kv_s'), expected('decode', p, 't_kv_s'));
  assert.equal(await out(page, 'kv_bytes_per_sequence'), expected('decode', p, 'kv_bytes_per_sequence'));
  assert.equal(await out(page, 'max_batch'), expected('decode', p, 'max_batch'));
  // the bound flips at the critical batch: below and above it, with the engine's verdict
  await type(page, 'context', '0');
  const crit = evaluate('decode', { ...base, context: 0 }).outputs.critical_batch;
  for (const b of [Math.floor(crit / 4), Math.ceil(crit * 4)]) {
    await type(page, 'batch', String(b));
    const want = evaluate('decode', { ...base, context: 0, batch: b }).outputs.bound;
    assert.match(await page.locator(`${EL} .lab-verdict`).innerText(), new RegExp(`${want}-bound`, 'i'), `batch ${b}`);
  }
  await page.waitForFunction(() => /[?&]batch=\d+/.test(location.search) && /context=0/.test(location.search));
  await noNaN(page);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('keyboard: the batch slider moves with the arrow keys', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  const slider = page.locator(`${EL} .control[data-key="batch"] input[type=range]`);
  const start = (await labParams(page)).batch;
  await slider.focus();
  const r = await rendered(page);
  for (let i = 0; i < 40; i++) await page.keyboard.press('ArrowRight');
  await settle(page, r);
  const b = fieldNumber(await field(page, 'batch').inputValue());
  assert.ok(b > start, `batch grew from the preset ${start}, got ${b}`);
  // 40 presses queue several renders: wait until the last one shows the numbers of the last settings
  let shown, want;
  for (let tries = 0; tries < 50; tries++) {
    want = expected('decode', await labParams(page), 'step_s');
    shown = await out(page, 'step_s');
    if (shown === want) break;
    await page.waitForTimeout(100);
  }
  assert.equal(shown, want);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('a custom chip works', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/about/');
  const custom = customChip('h100', { hbm_bytes: 2e11, hbm_bytes_per_s: 5e12 });
  await page.evaluate((c) => { localStorage.setItem('scalelab.customChip', JSON.stringify(c)); localStorage.setItem('scalelab.chip', 'custom'); }, custom);
  try {
    await page.goto(server.url + LAB);
    await ready(page);
    const p = await labParams(page);
    assert.deepEqual(p.chip, custom);
    assert.equal(await out(page, 'step_s'), expected('decode', p, 'step_s'));
    assert.equal(await out(page, 'max_batch'), expected('decode', p, 'max_batch'));
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
  const err = page.locator(`${EL} .control[data-key="batch"] .field-error`);
  const preset = await labParams(page);
  for (const typed of ['abc', '0', '1.5', '1e99']) {
    await type(page, 'batch', typed);
    const want = evaluate('decode', { ...preset, batch: Number.isFinite(Number(typed)) ? Number(typed) : typed });
    assert.ok(want.error, typed);
    assert.equal(await err.innerText(), shown(typed, want.error, 'decode'), typed);
    assert.equal(await field(page, 'batch').getAttribute('aria-invalid'), 'true');
    await noNaN(page);
  }
  await type(page, 'batch', '48');
  assert.equal(await err.innerText(), '');
  await type(page, 'context', '-5');
  assert.equal(await page.locator(`${EL} .control[data-key="context"] .field-error`).innerText(), shown('-5', evaluate('decode', { ...preset, batch: 48, context: -5 }).error, 'decode'));
  await noNaN(page);
  await type(page, 'context', '8192');
  assert.equal(await out(page, 'step_s'), expected('decode', { ...preset, batch: 48, context: 8192 }, 'step_s'));
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('axe: the lab page, and the lab in chapters 7 and 12 (on an H100 there)', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  assert.deepEqual(await axe(page), []);
  for (const ch of ['07-inference', '12-gpus']) {
    await page.goto(server.url + `/chapters/${ch}/`);
    const step = await page.locator(`section.step:has(${EL})`).first().getAttribute('id');
    await page.goto(server.url + `/chapters/${ch}/#${step}`);
    await page.reload();
    await ready(page);
    assert.deepEqual(await axe(page), [], ch);
    if (ch === '12-gpus') {
      // the chapter's Try-it asks the critical batch: on this H100 node it is the flip batch, one row
      // (no second name for it), which the lab computes (textContent) and the Try-it veils until Check
      assert.equal(await page.locator(`${EL} [data-out="critical_batch"]`).count(), 0);
      const dd = page.locator(`${EL} [data-out="mlp_flip_batch"] dd`).first();
      assert.equal(await dd.textContent(), wholeBatch({ chip: 'h100' }, 'critical_batch'));
      assert.equal(await dd.innerText(), '', 'veiled until the Try-it is checked');
    }
  }
  // chapter 12 switched the page's chip to the H100 on entry: back to the default for the tests after this one
  await page.evaluate(() => localStorage.removeItem('scalelab.chip'));
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('model picker: labelled, keyboard, the catalog; each model gives the engine\u2019s numbers or says it does not fit; ?model= round-trips', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  const sel = modelSelect(page);
  assert.equal(await sel.inputValue(), 'llama3-8b', 'the lab\u2019s preset');
  const preset = await labParams(page);
  assert.deepEqual(await sel.locator('option').evaluateAll((os) => os.map((o) => [o.value, o.textContent.trim()])), MODELS.map((m) => [m.id, m.name]));
  assert.match(await page.locator(`${EL} label[for="${await sel.getAttribute('id')}"]`).innerText(), /model/);
  const before = await out(page, 'step_s');
  // keyboard: one step down from LLaMA-3 8B is LLaMA-3 70B
  await sel.focus();
  const r = await rendered(page);
  await page.keyboard.press('ArrowDown');
  await settle(page, r);
  assert.equal(await sel.inputValue(), 'llama3-70b');
  const p70 = { ...preset, model: 'llama3-70b' };
  assert.notEqual(expected('decode', p70, 'step_s'), before, 'the model changes the result');
  // (LLaMA-3 70B does not load on the preset's 4 v5e chips: no step time, the rest of the engine's figures)
  assert.equal(evaluate('decode', p70).outputs.max_batch, 0);
  assert.match(await page.locator(`${EL} .lab-verdict`).innerText(), /^It cannot load: /);
  for (const o of ['weight_bytes', 'kv_bytes_per_sequence', 'max_batch', 't_weights_s']) assert.equal(await out(page, o), expected('decode', p70, o), o);
  assert.equal(await out(page, 'mlp_flip_batch'), wholeBatch(p70, 'mlp_flip_batch'));
  await page.waitForFunction(() => new URLSearchParams(location.search).get('model') === 'llama3-70b');
  // every catalog model on the default chip; those whose weights exceed it say so (fits = false)
  let tooBig = 0;
  for (const m of MODELS) {
    if (m.id !== (await sel.inputValue())) await choose(page, 'model', m.id);
    const p = { ...preset, model: m.id };
    const want = evaluate('decode', p);
    assert.ok(!want.error, m.id);
    assert.equal(await out(page, 'weight_bytes'), expected('decode', p, 'weight_bytes'), m.id);
    const verdict = await page.locator(`${EL} .lab-verdict`).innerText();
    if (want.outputs.fits === false && want.outputs.max_batch === 0) {
      // a model these chips cannot hold gets no speed: it says so, how many chips the weights need, and what would load
      tooBig++;
      assert.match(verdict, /^It cannot load: /, m.id);
      assert.doesNotMatch(verdict, /tokens\/s/, m.id);
      assert.equal(await page.locator(`${EL} .lab-outputs [data-out="step_s"]`).count(), 0, m.id);
      if (want.outputs.free_hbm_bytes < 0) assert.ok(verdict.includes(expected('decode', p, 'min_chips')), m.id);
      const warns = await page.locator(`${EL} .lab-warnings li`).allInnerTexts();
      for (const w of want.warnings) assert.ok(warns.includes(asPlain(w)), `${m.id}: ${asPlain(w)}`);
    } else {
      assert.doesNotMatch(verdict, /cannot load/, m.id);
      assert.equal(await out(page, 'step_s'), expected('decode', p, 'step_s'), m.id);
    }
    await noNaN(page);
  }
  assert.ok(tooBig > 0, 'some catalog model does not fit on the preset\u2019s v5e chips');
  await choose(page, 'model', 'llama3-8b');
  await page.waitForFunction(() => !location.search.includes('model='));
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();

  // ?model=llama3-70b: the picker, the numbers, and the address keep it
  const { page: p2, problems: pr2 } = await watchedPage(browser.context, server.url);
  await p2.goto(server.url + LAB + '?model=llama3-70b');
  await ready(p2);
  assert.equal(await modelSelect(p2).inputValue(), 'llama3-70b');
  assert.equal(await out(p2, 'weight_bytes'), expected('decode', p70, 'weight_bytes'));
  await type(p2, 'batch', '128');
  await p2.waitForFunction(() => { const q = new URLSearchParams(location.search); return q.get('model') === 'llama3-70b' && q.get('batch') === '128'; });
  assert.equal(await out(p2, 't_kv_s'), expected('decode', { ...p70, batch: 128 }, 't_kv_s'));
  // an unknown model: the engine's message in a notice, the default model
  await p2.goto(server.url + LAB + '?model=gpt-9');
  await ready(p2);
  assert.ok((await p2.locator(`${EL} .lab-notice`).innerText()).includes(evaluate('decode', { model: 'gpt-9' }).error.message));
  assert.equal(await modelSelect(p2).inputValue(), 'llama3-8b');
  assert.deepEqual(pr2, { console: [], errors: [], thirdParty: [] });
  await p2.close();

  // a 16 GB Mac: LLaMA-3 8B in BF16 cannot load — no speed and no chart, no "2 devices"; the
  // settings that would load, each one the engine loads, and taking one gives its speed
  const { page: p3, problems: pr3 } = await watchedPage(browser.context, server.url);
  await p3.goto(server.url + LAB + '?chip=apple-m1');
  await ready(p3);
  const mac = await labParams(p3);
  assert.equal(evaluate('decode', mac).outputs.max_batch, 0, 'LLaMA-3 8B in BF16 holds no sequence on a 16 GB Mac');
  const said = await p3.locator(`${EL} .lab-verdict`).innerText();
  assert.match(said, /^It cannot load: LLaMA-3 8B in BF16 needs /);
  assert.ok(said.includes(expected('decode', mac, 'weight_bytes')), said);
  assert.doesNotMatch(said, /tokens\/s|0 sequences|2 devices/);
  assert.equal(await p3.locator(`${EL} .lab-outputs [data-out="tokens_per_s"]`).count(), 0, 'no speed row');
  assert.equal(await p3.locator(`${EL} .lab-viz svg`).count(), 0, 'no chart of step times');
  const offers = await p3.locator(`${EL} .lab-verdict button[data-fit]`).evaluateAll((bs) => bs.map((b) => JSON.parse(b.dataset.fit)));
  assert.ok(offers.length >= 2, 'settings that load are offered');
  for (const set of offers) assert.ok(evaluate('decode', { ...mac, ...set }).outputs.max_batch >= 1, JSON.stringify(set));
  const r3 = await rendered(p3);
  await p3.locator(`${EL} .lab-verdict button[data-fit]`).first().click();
  await settle(p3, r3);
  assert.equal(await out(p3, 'tokens_per_s'), expected('decode', { ...mac, ...offers[0] }, 'tokens_per_s'));
  assert.doesNotMatch(await p3.locator(`${EL} .lab-verdict`).innerText(), /cannot load/);
  assert.deepEqual(pr3, { console: [], errors: [], thirdParty: [] });
  await p3.close();
});

test('headline: dragging the batch up from 1 flips the weight matmuls, and the step, from memory- to compute-bound at the engine\u2019s flip batch; a long context keeps attention memory-bound', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  const preset = await labParams(page);
  assert.equal(preset.batch, 1, 'the lab opens at batch 1');
  const want = evaluate('decode', preset).outputs;
  assert.equal(want.mlp_bound_above_flip, 'compute', 'on the preset the matmuls flip to compute');
  const flip = want.mlp_flip_batch;
  const matmuls = page.locator(`${EL} .lab-verdict [data-part="matmuls"]`);
  const step = page.locator(`${EL} .lab-verdict .verdict`);
  assert.ok((await matmuls.innerText()).includes(wholeBatch(preset, 'mlp_flip_batch')), 'the flip batch is named');
  await chartShown(page);
  assert.ok(await page.locator(`${EL} .lab-viz .flip-batch`).count(), 'the flip batch is marked on the plot');
  const legend = await page.locator(`${EL} .lab-viz`).innerText();
  for (const term of ['weight load', 'KV-cache load', 'FLOPs', 'model-parallel comms', 'step time']) assert.ok(legend.includes(term), term);
  // drag: slider positions from the left; record the bound at each batch
  const slider = page.locator(`${EL} .control[data-key="batch"] input[type=range]`);
  let lastMemory = null, firstCompute = null;
  for (let pos = 0; pos <= 1000 && firstCompute === null; pos += 8) {
    const r = await rendered(page);
    await slider.fill(String(pos));
    if (pos > 0) await settle(page, r).catch(() => {});
    const b = fieldNumber(await field(page, 'batch').inputValue());
    const mb = await matmuls.getAttribute('data-bound');
    assert.equal(mb, evaluate('decode', { ...preset, batch: b }).outputs.mlp_bound, `batch ${b}`);
    if (mb === 'memory') { lastMemory = b; assert.equal(await step.getAttribute('data-bound'), 'memory', `step at batch ${b}`); }
    else { firstCompute = b; assert.equal(mb, 'compute'); assert.equal(await step.getAttribute('data-bound'), 'compute', `step at batch ${b}`); }
  }
  assert.ok(lastMemory !== null && firstCompute !== null, 'the verdict flipped');
  assert.ok(lastMemory <= flip && flip < firstCompute, `flip ${flip} between batch ${lastMemory} and ${firstCompute}`);
  // second lesson: at 8k context the KV reads take over; attention stays memory-bound at any batch
  await type(page, 'context', '8192');
  await type(page, 'batch', '1');
  const at8k = evaluate('decode', { ...preset, context: 8192, batch: 1 }).outputs;
  if (at8k.max_batch < at8k.mlp_flip_batch) assert.match(await matmuls.innerText(), /never gets there/, 'memory stops the batch short of the flip');
  const att = page.locator(`${EL} .lab-verdict [data-part="attention"]`);
  for (const b of [1, 16, 256, 4096]) {
    await type(page, 'batch', String(b));
    const o = evaluate('decode', { ...preset, context: 8192, batch: b }).outputs;
    assert.equal(await att.getAttribute('data-bound'), 'memory', `attention at batch ${b}`);
    assert.equal(o.attention_bound, 'memory');
    assert.equal(await step.getAttribute('data-bound'), o.bound, `step at batch ${b}`);
    if (b >= o.kv_crossover_batch) { assert.ok(o.t_kv_s >= o.t_weights_s); assert.equal(o.bound, 'memory', `KV reads bind at batch ${b}`); }
  }
  assert.ok((await att.innerText()).includes(expected('decode', { ...preset, context: 8192, batch: 4096 }, 'kv_crossover_batch')));
  await noNaN(page);
  assert.deepEqual(problems, clean);
  await page.close();
});

test('the expected range says "runs like this" only where the runs cover the setup, chip kind included; two RTX 4090s talk over PCIe; published runs of the setup sit on the chart', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  const line = async (query) => {
    await page.goto(server.url + LAB + query);
    await ready(page);
    return page.locator(`${EL} .lab-expected`).innerText();
  };
  // an A100 at one chip, batch 1 and context 1,024: within gpt-fast's runs
  const covered = await line('?chip=a100&model=llama3-8b&chips=1&batch=1&context=1024');
  assert.match(covered, /^Published runs like this reach/);
  assert.doesNotMatch(covered, /carried beyond/);
  // the same setup on an RTX 4090 takes the band of local runs on GPUs (llama.cpp and the like), not
  // gpt-fast's datacenter one: covered, and counted as the engine counts it
  const local = await line('?chip=rtx-4090&model=llama3-8b&chips=1&batch=1&context=1024');
  const p = { ...(await labParams(page)) };
  assert.equal(p.chip, 'rtx-4090');
  assert.match(local, /^Published runs like this reach/);
  const localRuns = evaluate('decode', p).outputs.expected_runs;
  assert.ok(local.includes(`(${localRuns} runs)`), local);
  assert.notEqual(localRuns, evaluate('decode', { chip: 'a100', model: 'llama3-8b', chips: 1, batch: 1, context: 1024 }).outputs.expected_runs);
  // a Mac's training run was measured nowhere like it: the line says the range is carried, in words
  assert.match(evaluate('training_run', { chip: 'apple-m2-max', model: 'gpt2-124m', chips: 1, tokens: 2.5e9 }).outputs.expected_outside,
    /this setup runs on a machine with unified memory/);
  // one card exchanges nothing: no comms time, and the row says so in words, not "0 s"
  assert.equal(evaluate('decode', p).outputs.t_comm_s, null);
  assert.match(await out(page, 't_comm_s'), /^none: one device has no model-parallel collectives$/);
  // issue 34: two cards without NVLink split the model over PCIe: the collectives are timed (the
  // engine's figure on screen), the verdict counts devices, and no warning says comms are missing
  await type(page, 'chips', '2');
  const two = { ...(await labParams(page)) };
  assert.equal(two.chips, 2);
  const r = evaluate('decode', two);
  assert.ok(r.outputs.t_comm_s > 0, 'PCIe priced');
  assert.ok(r.steps.some((x) => x.label.includes('over PCIe')), 'a step names PCIe');
  assert.match(await page.locator(`${EL} .lab-verdict .verdict`).innerText(), /over 2 devices/);
  assert.ok((await out(page, 't_comm_s')).includes(expected('decode', two, 't_comm_s')));
  assert.doesNotMatch(await page.locator(EL).innerText(), /not timed|comms figures|null/);

  // published runs on the chart (issue 37): JetStream's run of this very setup sits at its batch and
  // measured step (batch / tokens per second), linked to its source; at other settings the note names them
  const runs = JSON.parse(fs.readFileSync(new URL('../../data/measurements.json', import.meta.url))).runs;
  const setup = { chip: 'tpu-v5e', model: 'llama3-8b', chips: 8, context: 2048, weight_dtype: 'bf16', kv_dtype: 'bf16' };
  const mine = runs.filter((m) => m.calculator === 'decode' && Object.entries(setup).every(([k, v]) => m.inputs[k] === v));
  assert.equal(mine.length, 1, 'one published run of this setup in the catalog');
  await line(`?${new URLSearchParams({ ...setup, batch: 32 })}`);
  await chartShown(page);
  const note = page.locator(`${EL} .lab-published`);
  await page.waitForFunction((el) => document.querySelector(`${el} .decode-plot .published-run`) !== null, EL);
  assert.equal(await note.getAttribute('data-runs'), '1');
  assert.equal(await note.locator('a').getAttribute('href'), mine[0].source.url);
  // (the note names the run by its hardware; its date went with 62f9a09's reader words)
  assert.ok((await note.innerText()).includes(mine[0].hardware), await note.innerText());
  const dot = await page.evaluate((el) => {
    const described = document.querySelector(`${el} .decode-plot[aria-description], ${el} .decode-plot [aria-description]`);
    return { title: document.querySelector(`${el} .published-run title`)?.textContent ?? '', description: described?.getAttribute('aria-description') ?? '' };
  }, EL);
  assert.ok(dot.title.includes(mine[0].hardware) && dot.title.includes(mine[0].source.where), dot.title);
  assert.match(dot.description, /Published runs of this setup/);
  const near = runs.filter((m) => m.calculator === 'decode' && m.inputs.chip === 'tpu-v5e' && m.inputs.model === 'llama3-8b');
  await line('?chip=tpu-v5e&model=llama3-8b&chips=4&context=128');
  assert.equal(await note.getAttribute('data-near'), String(near.length));
  assert.match(await note.innerText(), /measured at other settings\. To see one on the chart, set chips: 8, context: 2,048[,;.]/);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});
