import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage, axe } from './harness.mjs';
import { clean, evaluate, expectedQuantity as expected, storeCustomChip as customChip, forgetCustom, esc, waitText, labHelpers } from './lab-helpers.mjs';

const TAG = 'sl-memory-ladder-lab';
const LAB = '/labs/memory-ladder/';
let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });
const { ready, chartShown, field, change, waitOut, chapterAxe } = labHelpers({ element: TAG, session: () => ({ server, browser }) });

const rung = (page, p) => page.locator(`${TAG} tr[data-rung="${p}"]`).innerText();
const T = (params) => expected('transfer', params, 't_s');

test('size and chips move every rung; the chosen rung\'s derivation; missing rungs say so', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  const chip = 'tpu-v5e';
  assert.match(await rung(page, 'hbm'), new RegExp(esc(T({ chip, path: 'hbm' }))));
  assert.match(await rung(page, 'pcie'), new RegExp(esc(T({ chip, path: 'pcie' }))));
  // a TPU has no NVLink or InfiniBand at all: those rungs are left off, not "not in the catalog"
  assert.equal(await page.locator(`${TAG} tr[data-rung="nvlink"], ${TAG} tr[data-rung="ib"]`).count(), 0, 'no GPU links on a TPU');
  // each rung is named as the rung selector names it: the engine's title for the path
  const options = await page.locator(`${TAG} .control[data-key="path"] select option`).evaluateAll((os) => os.map((o) => [o.value, o.textContent.trim()]));
  // the rungs a TPU has, and only those (no NVLink or InfiniBand in its menu either)
  assert.ok(options.length >= 5, 'every rung a TPU has offered');
  assert.ok(!options.some(([p]) => ['nvlink', 'ib'].includes(p)), 'no GPU link offered on a TPU');
  for (const [path, title] of options.filter(([p]) => !['nvlink', 'ib'].includes(p))) {
    assert.equal(await page.locator(`${TAG} tr[data-rung="${path}"] th`).innerText(), title, `rung ${path}`);
  }
  await chartShown(page); // drawn once its box is near the viewport (framework.ts)
  assert.ok(await page.locator(`${TAG} svg.ml-plot`).count(), 'bar chart drawn');
  await change(page, () => field(page, 'bytes').fill('4e9'));
  await waitText(page, `${TAG} tr[data-rung="hbm"]`, new RegExp(esc(T({ chip, bytes: 4e9, path: 'hbm' }))));
  await change(page, () => field(page, 'chips').fill('4'));
  await waitText(page, `${TAG} tr[data-rung="dcn"]`, new RegExp(esc(T({ chip, bytes: 4e9, chips: 4, path: 'dcn' }))));
  // the chosen rung's range from published copies over HBM: the engine's, to the digit
  const copy = evaluate('transfer', { chip, bytes: 4e9, chips: 4, path: 'hbm' }).outputs;
  assert.equal(Number(await page.locator(`${TAG} .lab-expected`).getAttribute('data-low')), copy.expected_t_s_low);
  assert.equal(Number(await page.locator(`${TAG} .lab-expected`).getAttribute('data-high')), copy.expected_t_s_high);
  await change(page, () => page.selectOption(`${TAG} .control[data-key="path"] select`, 'ici'));
  await change(page, () => field(page, 'hops').fill('3'));
  await waitOut(page, 't_s', T({ chip, bytes: 4e9, chips: 4, path: 'ici', hops: 3 }));
  await waitText(page, `${TAG} tr[data-rung="ici"]`, new RegExp(esc(T({ chip, bytes: 4e9, chips: 4, path: 'ici', hops: 3 }))));
  // no published copy crossed ICI: said in words, and every other rung still priced with the ICI hops set
  await waitText(page, `${TAG} .lab-expected-none`, /No published runs/);
  assert.match(await rung(page, 'pcie'), new RegExp(esc(T({ chip, bytes: 4e9, chips: 4, path: 'pcie' }))));
  assert.deepEqual(problems, clean);
  await page.close();
});

test('the chip switch gives GPU rungs; a custom chip', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?bytes=2e9');
  await ready(page);
  await change(page, () => page.selectOption(`${TAG} .control[data-key="chip"] select`, 'h100'));
  await waitText(page, `${TAG} tr[data-rung="nvlink"]`, new RegExp(esc(T({ chip: 'h100', bytes: 2e9, path: 'nvlink' }))));
  assert.match(await rung(page, 'ib'), new RegExp(esc(T({ chip: 'h100', bytes: 2e9, path: 'ib' }))));
  // a GPU has no ICI: left off; SMEM/L2 it has, but the catalog gives no figure: said so, in words
  assert.equal(await page.locator(`${TAG} tr[data-rung="ici"]`).count(), 0, 'no ICI rung on a GPU');
  // VMEM is a TPU's on-chip memory and DCN joins TPU pods: an H100 has neither, so no row for them
  assert.equal(await page.locator(`${TAG} tr[data-rung="vmem"], ${TAG} tr[data-rung="dcn"]`).count(), 0, 'no VMEM or DCN rung on a GPU');
  // the ICI settings are not offered on a chip without ICI
  assert.equal(await page.locator(`${TAG} .control[data-key="hops"], ${TAG} .control[data-key="links"]`).count(), 0, 'no ICI settings on an H100');
  // the host link from NVIDIA's datasheet (PCIe Gen5 x16), no longer a missing rung
  assert.match(await rung(page, 'pcie'), new RegExp(esc(T({ chip: 'h100', bytes: 2e9, path: 'pcie' }))));
  // the published copies under the HBM range say what each benchmark did, not only its name
  const near = await page.locator(`${TAG} .lab-near-runs`).innerText();
  assert.match(near, /streaming through memory \(BabelStream (Copy|Triad)\)/, near);
  assert.doesNotMatch(near, /GB\/s on the diagonal/, near);
  await page.waitForFunction(() => location.search.includes('chip=h100') && location.search.includes('bytes=2000000000'));
  const custom = await customChip(page, 'tpu-v5e', { pcie_bytes_per_s: 3.2e10 });
  await page.goto(server.url + LAB);
  await ready(page);
  await waitText(page, `${TAG} tr[data-rung="pcie"]`, new RegExp(esc(T({ chip: custom, path: 'pcie' }))));
  await forgetCustom(page);
  // bad input refused in place
  await change(page, () => field(page, 'bytes').fill('-5'));
  assert.match(await page.locator(`${TAG} .control[data-key="bytes"] .field-error`).innerText(), /^too small — at least 0\b/);
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

// On a phone the rungs' names stand above their bars (no 210 px name margin): every name and time
// label inside the drawing, the bars given most of the width, and more than one decade labelled.
test('on a 375 px screen the chart keeps its names above the bars and its labels inside the drawing', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(server.url + LAB);
  await ready(page);
  await chartShown(page);
  const layout = await page.locator(`${TAG} svg.ml-plot`).evaluate((svg) => {
    const box = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('.ml-name text, .ml-label text, [aria-label="x-axis tick label"] text')];
    const outside = texts.filter((t) => {
      const r = t.getBoundingClientRect();
      return r.left < box.left - 0.5 || r.right > box.right + 0.5;
    }).map((t) => t.textContent);
    const bars = [...svg.querySelectorAll('.ml-bar rect')].map((r) => r.getBoundingClientRect());
    return {
      names: svg.querySelectorAll('.ml-name text').length,
      rungs: svg.closest('sl-memory-ladder-lab').querySelectorAll('tr[data-rung]').length,
      ticks: svg.querySelectorAll('[aria-label="x-axis tick label"] text').length,
      widest: Math.max(...bars.map((r) => r.width)) / box.width,
      outside,
    };
  });
  // every rung a TPU has (no NVLink or InfiniBand): a name above each
  assert.equal(layout.names, layout.rungs, 'a name above every rung');
  assert.equal(layout.rungs, 5);
  assert.ok(layout.ticks >= 2, `${layout.ticks} x tick labels`);
  assert.ok(layout.widest > 0.5, `the longest bar spans ${Math.round(layout.widest * 100)} % of the chart`);
  assert.deepEqual(layout.outside, [], 'labels outside the drawing');
  assert.deepEqual(problems, clean);
  await page.close();
});

// The chart measures every rung in multiples of HBM's time: a large tensor's size dragged moves
// the time labels, not the bars or the axis (each rung's time grows alike, by its bandwidth), so
// the drawing is kept and its labels rewritten; a tensor small enough for latency to rule moves them.
test('the chart in multiples of HBM: the size dragged keeps the drawing; latency moves the bars', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?bytes=4e12');
  await ready(page);
  await chartShown(page);
  const chip = 'tpu-v5e';
  const read = () => page.locator(`${TAG} svg.ml-plot`).evaluate((svg) => {
    svg.dataset.seen ??= String(Math.random());
    return {
      id: svg.dataset.seen,
      ticks: [...svg.querySelectorAll('[aria-label="x-axis tick label"] text')].map((t) => t.textContent),
      widths: [...svg.querySelectorAll('.ml-bar rect')].map((r) => Number(r.getAttribute('width')).toFixed(1)),
      labels: [...svg.querySelectorAll('.ml-label text')].map((t) => t.textContent),
    };
  });
  const before = await read();
  assert.ok(before.ticks.includes('1×'), `1× among the ticks: ${before.ticks}`);
  assert.ok(before.labels.includes(T({ chip, bytes: 4e12, path: 'hbm' })), `HBM's time among the labels: ${before.labels}`);
  await change(page, () => field(page, 'bytes').fill('4e14'));
  await waitText(page, `${TAG} tr[data-rung="hbm"]`, new RegExp(esc(T({ chip, bytes: 4e14, path: 'hbm' }))));
  const after = await read();
  assert.equal(after.id, before.id, 'the same drawing, its marks moved in place');
  assert.deepEqual(after.widths, before.widths, 'bandwidth rules: the multiples stay');
  assert.ok(after.labels.includes(T({ chip, bytes: 4e14, path: 'hbm' })), `labels rewritten: ${after.labels}`);
  await change(page, () => field(page, 'bytes').fill('1000'));
  await waitText(page, `${TAG} tr[data-rung="hbm"]`, new RegExp(esc(T({ chip, bytes: 1000, path: 'hbm' }))));
  assert.notDeepEqual((await read()).widths, before.widths, 'latency rules a 1 KB tensor: the multiples move');
  assert.deepEqual(problems, clean);
  await page.close();
});

// Issue 34: the memory rung and its menu say the chip's own memory, in the engine's words (the
// chip calculator's memory_rung): HBM on a TPU, the card's GDDR6X on an RTX 4090, the Mac's unified
// LPDDR5; no "HBM" anywhere on a chip without it.
test('the memory rung names the chip\'s own memory, in the menu and the ladder', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  for (const [chip, title] of [['tpu-v5e', 'HBM (off-chip memory)'], ['rtx-4090', 'GDDR6X memory'], ['apple-m2-max', 'unified LPDDR5 memory']]) {
    await page.goto(`${server.url}${LAB}?chip=${chip}`);
    await ready(page);
    const option = await page.locator(`${TAG} .control[data-key="path"] select option[value="hbm"]`).innerText();
    assert.equal(option.trim(), title, `${chip}: the menu's memory rung`);
    assert.equal(await page.locator(`${TAG} tr[data-rung="hbm"] th`).innerText(), title, `${chip}: the ladder's memory rung`);
    if (chip !== 'tpu-v5e') assert.doesNotMatch(await page.locator(TAG).innerText(), /\bHBM\b/, `${chip}: HBM named on a chip without it`);
  }
  assert.deepEqual(problems, clean);
});
