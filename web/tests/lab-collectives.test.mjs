import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage, axe } from './harness.mjs';
import { engine, evaluate, clean, expectedQuantity as expected, storeCustomChip as customChip, forgetCustom, esc, waitText, labHelpers, choiceTitle } from './lab-helpers.mjs';

const TAG = 'sl-collectives-lab';
const LAB = '/labs/collectives/';
let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });
const { ready, chartShown, out, field, change, waitOut, chapterAxe } = labHelpers({ element: TAG, session: () => ({ server, browser }) });

const C = (params, o = 't_s') => expected('collective', params, o);
// The fabric reads as the engine titles it (schema choice_titles), never as its id.
const fabricTitle = (id) => choiceTitle('collective', 'fabric', id);

test('op, size and axes drive the time; the regime flips as the array shrinks; the ring steps', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  const chip = 'tpu-v5e';
  assert.equal(await out(page, 't_s'), C({ chip }));
  assert.match(await page.locator(`${TAG} .lab-verdict`).innerText(), /Bandwidth-bound/);
  // the threshold is where the engine's two terms meet: on the 16 × 16 slice 11.25 kB a chunk, below
  // one link's 45 kB × 1 µs, and the lab says why
  assert.equal(await out(page, 'latency_bound_below_bytes'), C({ chip }, 'latency_bound_below_bytes'));
  assert.equal(C({ chip }, 'latency_bound_below_bytes'), engine.formatQuantity(11250, 'bytes'));
  assert.match(await page.locator(`${TAG} .co-explain`).innerText(), /below one link's bandwidth × one hop's latency .* because the 2 axes' hops add up while their bandwidths add too/);
  // the ring drawn (one axis of 16, both ways) counts its own 8 hops, and says why the verdict counts 16
  assert.match(await page.locator(`${TAG} .co-ring .co-hop-count`).textContent(), /^hop \d+ \/ 8$/);
  assert.match(await page.locator(`${TAG} .co-ring-note`).innerText(), /^The ring drawn takes 8 hops; the verdict counts 16 in all: a ring on each of the 2 axes in turn\.$/);
  // the verdict's first word in its term's legend colour: the bandwidth term's
  assert.equal(await page.locator(`${TAG} .lab-verdict .verdict.co-bw`).count(), 1);
  await chartShown(page); // drawn once its box is near the viewport (framework.ts)
  assert.ok(await page.locator(`${TAG} svg.co-plot, ${TAG} figure.co-plot`).count(), 'crossover plot drawn');
  await change(page, () => page.selectOption(`${TAG} .control[data-key="op"] select`, 'all_reduce'));
  await waitOut(page, 't_s', C({ chip, op: 'all_reduce' }));
  await change(page, () => field(page, 'axis0').fill('16'));
  await waitOut(page, 't_s', C({ chip, op: 'all_reduce', axes: [16] }));
  await waitOut(page, 'hops', C({ chip, op: 'all_reduce', axes: [16] }, 'hops'));
  await change(page, () => field(page, 'bytes').fill('1e4'));
  await waitOut(page, 't_s', C({ chip, op: 'all_reduce', axes: [16], bytes: 1e4 }));
  assert.match(await page.locator(`${TAG} .lab-verdict`).innerText(), /Latency-bound/);
  // the verdict names the size, and its regime is the engine's: whichever term is larger
  assert.equal(await page.locator(`${TAG} .lab-verdict .coll-size`).innerText(), engine.formatQuantity(1e4, 'bytes'));
  for (const bytes of [1e5, 1e6, 3e6, 1e8]) {
    await change(page, () => field(page, 'bytes').fill(String(bytes)));
    const o = evaluate('collective', { chip, op: 'all_reduce', axes: [16], bytes }).outputs;
    const regime = await page.locator(`${TAG} .lab-verdict .verdict`).getAttribute('data-regime');
    assert.equal(regime, o.t_latency_s > o.t_bandwidth_s ? 'latency' : 'bandwidth', `V = ${bytes}`);
    assert.match(await page.locator(`${TAG} .lab-verdict`).innerText(), regime === 'latency' ? /Latency-bound/ : /Bandwidth-bound/);
  }
  await change(page, () => field(page, 'bytes').fill('1e4'));
  // wraparound off: a one-way ring
  await change(page, () => page.selectOption(`${TAG} .control[data-key="wraparound"] select`, 'off'));
  await waitOut(page, 't_s', C({ chip, op: 'all_reduce', axes: [16], bytes: 1e4, wraparound: false }));
  // the ring: step it by hand
  await page.click(`${TAG} .co-ring-buttons button:nth-child(2)`);
  await waitText(page, `${TAG} .co-ring`, /hop \d+ \/ \d+/);
  assert.ok(await page.locator(`${TAG} .co-ring svg circle`).count() >= 2);
  assert.deepEqual(problems, clean);
  await page.close();
});

test('GPU: NVLink vs fat-tree levels; a custom chip', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?chip=h100');
  await ready(page);
  assert.equal(await out(page, 't_s'), C({ chip: 'h100' }));
  // no hop latency in the catalog for NVLink: the verdict says so rather than weigh a 0 s term
  assert.equal(C({ chip: 'h100' }, 't_latency_s'), engine.formatQuantity(0, 's'));
  assert.match(await page.locator(`${TAG} .lab-verdict`).innerText(), /no hop latency, so no size makes it latency-bound/);
  // no threshold without hop latency, said in words; an effective bandwidth above the 450 GB/s link, explained
  assert.match(await page.locator(`${TAG} [data-out="latency_bound_below_bytes"] dd`).innerText(), /^none: no hop latency is priced/);
  assert.match(await page.locator(`${TAG} .co-explain`).innerText(), /only the 7 chunks of 8 it lacks through its own link, so V ÷ T is 8\/7 of the link's speed/);
  // a TPU torus's settings are not offered on a GPU at all (nor a GPU network's on a TPU, below)
  assert.equal(await page.locator(`${TAG} .control[data-key="wraparound"], ${TAG} .control[data-key="bidirectional"]`).count(), 0, 'no ICI-only setting on a GPU');
  await change(page, () => field(page, 'nodes').fill('4'));
  await waitOut(page, 't_s', C({ chip: 'h100', nodes: 4 }));
  assert.equal(await page.locator(`${TAG} .co-levels tr[data-level]`).count(), 2);
  assert.match(await page.locator(`${TAG} .co-levels tr[data-level="leaf"]`).innerText(), new RegExp(esc(engine.formatQuantity(JSON.parse(engine.evaluate('collective', JSON.stringify({ chip: 'h100', nodes: 4 }))).outputs.levels[1].t_s, 's'))));
  await page.waitForFunction(() => location.search.includes('chip=h100') && location.search.includes('nodes=4'));
  await change(page, () => page.selectOption(`${TAG} .control[data-key="chip"] select`, 'tpu-v5p'));
  await waitOut(page, 'fabric', fabricTitle('ici'));
  assert.match(await page.locator(`${TAG} .verdict`).innerText(), new RegExp(`devices on the ${esc(fabricTitle('ici'))} takes`), 'the verdict names the fabric in words');
  assert.equal(await page.locator(`${TAG} .control[data-key="nodes"], ${TAG} .control[data-key="sharp"]`).count(), 0, 'no GPU-only setting on a TPU');
  const custom = await customChip(page, 'tpu-v5e', { ici_link_bytes_per_s: 9e10 });
  await page.goto(server.url + LAB);
  await ready(page);
  await waitOut(page, 't_s', C({ chip: custom }));
  await forgetCustom(page);
  await change(page, () => field(page, 'axis0').fill('0'));
  assert.match(await page.locator(`${TAG} .control[data-key="axis0"] .field-error`).innerText(), /^too small — at least \d/);
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
