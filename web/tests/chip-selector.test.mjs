// The chip selectors (the page's and a lab's) group the catalog by kind, and format choices show
// the formats' names from the engine's catalog (data/formats.json), not their ids.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage } from './harness.mjs';
import { CHIPS, engine, clean, labHelpers } from './lab-helpers.mjs';
import { sortChips } from '../src/chip-groups.js';

const EL = 'sl-can-i-run-lab';
let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });
const { ready } = labHelpers({ element: EL });

// The groups come from the engine's chip schema: the kind field's choices, in order, titled as the
// engine titles them (first letter a capital).
const KIND = JSON.parse(engine.calculators()).chip_fields.find((f) => f.name === 'kind');
const GROUPS = KIND.choices.map((kind, i) => ({ kind, title: KIND.choice_titles[i][0].toUpperCase() + KIND.choice_titles[i].slice(1) }));
const kindOf = (c) => c.kind;
/** the groups a select shows: [{ title, ids }] */
const groupsOf = (page, sel) => page.$$eval(`${sel} optgroup`, (gs) => gs.map((g) => ({ title: g.label, ids: [...g.querySelectorAll('option')].map((o) => o.value) })));

/** the reader's own kinds of device, listed first by the labs about the reader's hardware */
const OWN = ['workstation-gpu', 'consumer-gpu', 'unified-memory', 'cpu'];
function assertGrouped(groups, ownFirst = false) {
  // within a group, the menus' one order (by vendor, generation, model number and tier, memory)
  let want = GROUPS.map((g) => ({ kind: g.kind, title: g.title, ids: sortChips(CHIPS).filter((c) => kindOf(c) === g.kind).map((c) => c.id) })).filter((g) => g.ids.length);
  if (ownFirst) want = [...want.filter((g) => OWN.includes(g.kind)), ...want.filter((g) => !OWN.includes(g.kind))];
  assert.deepEqual(groups, want.map(({ title, ids }) => ({ title, ids })));
  assert.equal(groups.flatMap((g) => g.ids).length, CHIPS.length, 'every catalog chip once');
  // as a reader hunts a card or a Mac: NVIDIA's by generation and model, then AMD's; a Mac's sizes in order
  const ids = groups.flatMap((g) => g.ids), at = (id) => ids.indexOf(id);
  for (const [a, b] of [['rtx-3090', 'rtx-4070'], ['rtx-4070', 'rtx-4070-ti'], ['rtx-4070-ti', 'rtx-4070-ti-super'], ['rtx-4090', 'rtx-5070'], ['rtx-5090', 'rx-7900-xtx'],
    ['apple-m2-16gb', 'apple-m2'], ['apple-m2', 'apple-m2-pro'], ['apple-m2-pro', 'apple-m2-max'], ['apple-m2-ultra', 'apple-m3-16gb'], ['apple-m4-max', 'ryzen-ai-max-395']]) {
    assert.ok(at(a) >= 0 && at(a) < at(b), `${a} before ${b}`);
  }
  for (const kind of ['tpu', 'datacenter-gpu', 'workstation-gpu', 'consumer-gpu', 'unified-memory', 'cpu'])
    assert.ok(CHIPS.some((c) => kindOf(c) === kind), `the catalog has a ${kind}`);
}

test('the page chip selector groups the catalog by kind, then the custom chip and Measure this device', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/');
  assertGrouped(await groupsOf(page, '#chip-select'));
  assert.deepEqual(await page.$$eval('#chip-select > option', (os) => os.map((o) => o.value)), ['custom', 'measure'], 'custom chip and measuring come after the groups');
  assert.deepEqual(problems, clean);
  await page.close();
});

test('a lab chip selector groups by kind (the hardware labs the reader\'s own devices first); format choices show the catalog names', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/labs/decode/');
  await page.waitForSelector('sl-decode-lab[data-rendered] .lab-verdict');
  assertGrouped(await groupsOf(page, 'sl-decode-lab .control[data-key="chip"] select'));
  await page.goto(server.url + '/labs/can-i-run/');
  await ready(page);
  assertGrouped(await groupsOf(page, `${EL} .control[data-key="chip"] select`), true);
  // the names come from the page's build-time index of the catalog: they must be the engine's
  const names = await page.$$eval(`${EL} .control[data-key="chip"] select optgroup option`, (os) => os.map((o) => [o.value, o.textContent.trim()]));
  assert.deepEqual(names, names.map(([id]) => [id, CHIPS.find((c) => c.id === id)?.name]));
  const formats = JSON.parse(engine.formats());
  for (const key of ['weight_format', 'kv_format']) {
    const shown = await page.$$eval(`${EL} .control[data-key="${key}"] select option`, (os) => os.map((o) => [o.value, o.textContent.trim()]));
    assert.ok(shown.length > 3, key);
    for (const [id, text] of shown) assert.equal(text, formats.find((f) => f.id === id)?.name, `${key} ${id}`);
  }
  // the formats follow the chip's runtimes: no llama.cpp format on the page's TPU, GGUF on a reader's own card
  const weightFormats = () => page.locator(`${EL} .control[data-key="weight_format"] select`).innerText();
  assert.ok(!(await weightFormats()).includes('GGUF'), 'a TPU runs no GGUF format');
  await page.goto(server.url + '/labs/can-i-run/?chip=rtx-4090');
  await ready(page);
  assert.ok((await weightFormats()).includes('GGUF Q4_K_M'));
  assert.deepEqual(problems, clean);
  await page.close();
});

test('a lab model picker lists the engine model catalog by name, in its order', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/labs/decode/');
  await page.waitForSelector('sl-decode-lab .control[data-key="model"] select option', { state: 'attached' });
  const shown = await page.$$eval('sl-decode-lab .control[data-key="model"] select option', (os) => os.map((o) => [o.value, o.textContent.trim()]));
  assert.deepEqual(shown, JSON.parse(engine.models()).map((m) => [m.id, m.name]));
  assert.deepEqual(problems, clean);
  await page.close();
});

