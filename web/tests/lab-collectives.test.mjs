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

const TAG = 'sl-collectives-lab';
const LAB = '/labs/collectives/';
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

const C = (params, o = 't_s') => expected('collective', params, o);

test('op, size and axes drive the time; the regime flips as the array shrinks; the ring steps', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  const chip = 'tpu-v5e';
  assert.equal(await out(page, 't_s'), C({ chip }));
  assert.match(await page.locator(`${TAG} .lab-verdict`).innerText(), /Bandwidth-bound/);
  assert.ok(await page.locator(`${TAG} svg.co-plot, ${TAG} figure.co-plot`).count(), 'crossover plot drawn');
  await change(page, () => page.selectOption(`${TAG} .control[data-key="op"] select`, 'all_reduce'));
  await waitOut(page, 't_s', C({ chip, op: 'all_reduce' }));
  await change(page, () => field(page, 'axis0').fill('16'));
  await waitOut(page, 't_s', C({ chip, op: 'all_reduce', axes: [16] }));
  await waitOut(page, 'hops', C({ chip, op: 'all_reduce', axes: [16] }, 'hops'));
  await change(page, () => field(page, 'bytes').fill('1e4'));
  await waitOut(page, 't_s', C({ chip, op: 'all_reduce', axes: [16], bytes: 1e4 }));
  assert.match(await page.locator(`${TAG} .lab-verdict`).innerText(), /Latency-bound/);
  // wraparound off: a one-way ring
  await change(page, () => page.click(`${TAG} .control[data-key="wraparound"] input[type=checkbox]`));
  await waitOut(page, 't_s', C({ chip, op: 'all_reduce', axes: [16], bytes: 1e4, wraparound: false }));
  // the ring: step it by hand
  await page.click(`${TAG} .co-ring-buttons button:nth-child(2)`);
  await waitText(page, `${TAG} .co-ring`, /hop \d+ \/ \d+/);
  assert.ok(await page.locator(`${TAG} .co-ring svg circle`).count() >= 2);
  assert.deepEqual(problems, clean);
  await page.close();
});

test('GPU: NVLink vs fat-tree levels; URL round trip; every chip and a custom one', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?chip=h100');
  await ready(page);
  assert.equal(await out(page, 't_s'), C({ chip: 'h100' }));
  assert.equal(await page.locator(`${TAG} .control[data-key="wraparound"] input`).isDisabled(), true, 'ICI-only setting off on a GPU');
  await change(page, () => field(page, 'nodes').fill('4'));
  await waitOut(page, 't_s', C({ chip: 'h100', nodes: 4 }));
  assert.equal(await page.locator(`${TAG} .co-levels tr[data-level]`).count(), 2);
  assert.match(await page.locator(`${TAG} .co-levels tr[data-level="leaf"]`).innerText(), new RegExp(esc(engine.formatQuantity(JSON.parse(engine.evaluate('collective', JSON.stringify({ chip: 'h100', nodes: 4 }))).outputs.levels[1].t_s, 's'))));
  await page.waitForFunction(() => location.search.includes('chip=h100') && location.search.includes('nodes=4'));
  await roundTrip(page, `${TAG} .lab-outputs`);
  await change(page, () => page.selectOption(`${TAG} .control[data-key="chip"] select`, 'tpu-v5p'));
  await waitOut(page, 'fabric', 'ici');
  await allChips(page);
  const custom = await customChip(page, 'tpu-v5e', { ici_link_bytes_per_s: 9e10 });
  await page.goto(server.url + LAB);
  await ready(page);
  await waitOut(page, 't_s', C({ chip: custom }));
  await forgetCustom(page);
  await change(page, () => field(page, 'axis0').fill('0'));
  assert.match(await page.locator(`${TAG} .control[data-key="axis0"] .field-error`).innerText(), /must be/);
  assert.doesNotMatch(await page.locator(TAG).innerText(), /NaN|Infinity/);
  assert.deepEqual(problems, clean);
  await page.close();
});

test('lab page and chapter 3 placement pass axe', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(server.url + LAB);
  await ready(page);
  assert.match(await page.locator(`${TAG} .co-ring-buttons button`).first().innerText(), /Play/, 'reduced motion: the ring waits');
  assert.deepEqual(await axe(page), []);
  await chapterAxe(page, '/chapters/03-sharded-matmuls/');
  assert.deepEqual(problems, clean);
  await page.close();
});
