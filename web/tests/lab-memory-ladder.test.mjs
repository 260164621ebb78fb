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

const TAG = 'sl-memory-ladder-lab';
const LAB = '/labs/memory-ladder/';
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

const rung = (page, p) => page.locator(`${TAG} tr[data-rung="${p}"]`).innerText();
const T = (params) => expected('transfer', params, 't_s');

test('size and chips move every rung; the chosen rung\'s derivation; missing rungs say so', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  const chip = 'tpu-v5e';
  assert.match(await rung(page, 'hbm'), new RegExp(esc(T({ chip, path: 'hbm' }))));
  assert.match(await rung(page, 'pcie'), new RegExp(esc(T({ chip, path: 'pcie' }))));
  assert.match(await rung(page, 'nvlink'), /not in the catalog/);
  assert.ok(await page.locator(`${TAG} svg.ml-plot`).count(), 'bar chart drawn');
  await change(page, () => field(page, 'bytes').fill('4e9'));
  await waitText(page, `${TAG} tr[data-rung="hbm"]`, new RegExp(esc(T({ chip, bytes: 4e9, path: 'hbm' }))));
  await change(page, () => field(page, 'chips').fill('4'));
  await waitText(page, `${TAG} tr[data-rung="dcn"]`, new RegExp(esc(T({ chip, bytes: 4e9, chips: 4, path: 'dcn' }))));
  await change(page, () => page.selectOption(`${TAG} .control[data-key="path"] select`, 'ici'));
  await change(page, () => field(page, 'hops').fill('3'));
  await waitOut(page, 't_s', T({ chip, bytes: 4e9, chips: 4, path: 'ici', hops: 3 }));
  await waitText(page, `${TAG} tr[data-rung="ici"]`, new RegExp(esc(T({ chip, bytes: 4e9, chips: 4, path: 'ici', hops: 3 }))));
  assert.deepEqual(problems, clean);
  await page.close();
});

test('the chip switch gives GPU rungs; URL round trip; every chip and a custom one', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?bytes=2e9');
  await ready(page);
  await change(page, () => page.selectOption(`${TAG} .control[data-key="chip"] select`, 'h100'));
  await waitText(page, `${TAG} tr[data-rung="nvlink"]`, new RegExp(esc(T({ chip: 'h100', bytes: 2e9, path: 'nvlink' }))));
  assert.match(await rung(page, 'ib'), new RegExp(esc(T({ chip: 'h100', bytes: 2e9, path: 'ib' }))));
  assert.match(await rung(page, 'ici'), /not in the catalog/);
  await page.waitForFunction(() => location.search.includes('chip=h100') && location.search.includes('bytes=2000000000'));
  await roundTrip(page, `${TAG} .ml-table`);
  await allChips(page);
  const custom = await customChip(page, 'tpu-v5e', { pcie_bytes_per_s: 3.2e10 });
  await page.goto(server.url + LAB);
  await ready(page);
  await waitText(page, `${TAG} tr[data-rung="pcie"]`, new RegExp(esc(T({ chip: custom, path: 'pcie' }))));
  await forgetCustom(page);
  // bad input refused in place
  await change(page, () => field(page, 'bytes').fill('-5'));
  assert.match(await page.locator(`${TAG} .control[data-key="bytes"] .field-error`).innerText(), /must be ≥ 0/);
  assert.doesNotMatch(await page.locator(TAG).innerText(), /NaN|Infinity/);
  assert.deepEqual(problems, clean);
  await page.close();
});

test('lab page and chapter 2 placement pass axe', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  assert.deepEqual(await axe(page), []);
  await chapterAxe(page, '/chapters/02-tpus/');
  assert.deepEqual(problems, clean);
  await page.close();
});
