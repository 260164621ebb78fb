import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage, axe } from './harness.mjs';
import { engine, clean, expectedQuantity as expected, storeCustomChip as customChip, forgetCustom, waitText, labHelpers } from './lab-helpers.mjs';

const TAG = 'sl-sharded-matmul-lab';
const LAB = '/labs/sharded-matmul/';
let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });
const { ready, out, field, change, waitOut, chapterAxe } = labHelpers({ element: TAG, session: () => ({ server, browser }) });

// the lab follows the page's chip (tpu-v5e by default), not the calculator's own default
const S = (params, o) => expected('sharded_matmul', { chip: 'tpu-v5e', ...params }, o);
const specField = (page) => page.locator(`${TAG} .control[data-key="spec"] input[type=text]`);

test('the spec picks the case; mesh and dims move comm vs compute; local shapes and PartitionSpecs', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  assert.match(await page.locator(`${TAG} .lab-verdict`).innerText(), /Case 1/);
  assert.equal(await out(page, 't_math_s'), S({}, 't_math_s'));
  const a = await page.locator(`${TAG} tr[data-array="A"]`).innerText();
  const sh = JSON.parse(engine.evaluate('sharding', JSON.stringify({ spec: 'A[I_X, J]', dims: { I: 1024, J: 8192 }, mesh: { X: 4, Y: 2 } }))).outputs;
  assert.ok(a.includes(`[${sh.local_shape.join(', ')}]`), a);
  assert.ok(a.includes("P('X', None)"), a);
  const spec3 = 'A[I, J_X] * B[J_X, K] -> C[I, K]';
  await change(page, () => specField(page).fill(spec3));
  await waitText(page, `${TAG} .lab-verdict`, /Case 3/);
  await waitOut(page, 't_comm_s', S({ spec: spec3 }, 't_comm_s'));
  assert.match(await page.locator(`${TAG} [data-out="collectives"]`).innerText(), /AllReduce/);
  await change(page, () => field(page, 'X').fill('8'));
  await waitOut(page, 't_comm_s', S({ spec: spec3, mesh: { X: 8, Y: 2 } }, 't_comm_s'));
  await change(page, () => field(page, 'K').fill('65536'));
  await waitOut(page, 't_math_s', S({ spec: spec3, mesh: { X: 8, Y: 2 }, dims: { I: 1024, J: 8192, K: 65536 } }, 't_math_s'));
  // case 4 as written is invalid: the engine says why
  await change(page, () => specField(page).fill('A[I_X, J] * B[J, K_X]'));
  await waitText(page, `${TAG} .lab-verdict`, /Invalid as written/);
  // new names in the spec get their own fields
  await change(page, () => specField(page).fill('In[B_X, D] * W[D, F_Y] -> Out[B_X, F_Y]'));
  for (const [k, v] of [['B', '512'], ['D', '4096'], ['F', '16384']]) await change(page, () => field(page, k).fill(v));
  await waitOut(page, 't_math_s', S({ spec: 'In[B_X, D] * W[D, F_Y] -> Out[B_X, F_Y]', dims: { B: 512, D: 4096, F: 16384 }, mesh: { X: 8, Y: 2 } }, 't_math_s'));
  assert.ok((await page.locator(`${TAG} tr[data-array="W"]`).innerText()).includes("P(None, 'Y')"));
  // a spec that does not parse: refused in place with the engine's message
  await change(page, () => specField(page).fill('A[I_X'));
  assert.match(await page.locator(`${TAG} .control[data-key="spec"] .field-error`).innerText(), /\S/);
  assert.doesNotMatch(await page.locator(TAG).innerText(), /NaN|Infinity/);
  assert.deepEqual(problems, clean);
  await page.close();
});

test('the chip changes the times; a custom chip', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  const spec = 'A[I_X, J_Y] * B[J_Y, K] -> C[I_X, K]';
  await page.goto(server.url + LAB + '?spec=' + encodeURIComponent(spec) + '&X=2');
  await ready(page);
  await waitOut(page, 't_comm_s', S({ spec, mesh: { X: 2, Y: 2 } }, 't_comm_s'));
  await change(page, () => page.selectOption(`${TAG} .control[data-key="chip"] select`, 'h100'));
  await waitOut(page, 't_math_s', S({ chip: 'h100', spec, mesh: { X: 2, Y: 2 } }, 't_math_s'));
  await page.waitForFunction(() => location.search.includes('chip=h100') && location.search.includes('spec='));
  const custom = await customChip(page, 'tpu-v5p', { ici_link_bytes_per_s: 1e11 });
  await page.goto(server.url + LAB + '?spec=' + encodeURIComponent(spec));
  await ready(page);
  await waitOut(page, 't_comm_s', S({ chip: custom, spec }, 't_comm_s'));
  await forgetCustom(page);
  // the reader's own card: a mesh of one, and why; a reduction over a TPU v5p's 4 × 2 mesh names both
  // axes without wraparound (the opening case 1 has no collective, so no such note)
  await page.goto(server.url + LAB + '?chip=rtx-4090');
  await ready(page);
  assert.deepEqual(await page.evaluate((t) => document.querySelector(t).params().mesh, TAG), { X: 1, Y: 1 });
  assert.match(await page.locator(`${TAG} .lab-chip-note`).innerText(), /GeForce RTX 4090 is one device, so the mesh starts at 1 × 1/);
  // a typed case-3 sharding there: every table follows it (no case-1 'none' or C[I_X, K_Y] left over), times unpriced
  await page.goto(server.url + LAB + '?chip=rtx-4090&spec=' + encodeURIComponent('A[I, J_X] * B[J_X, K_Y] -> C[I, K_Y]'));
  await ready(page);
  assert.match(await page.locator(`${TAG} .lab-verdict`).innerText(), /^Case 3: .* It needs an AllReduce of C over X; its time cannot be priced on one device/s);
  assert.match(await page.locator(`${TAG} table[data-out="collectives"] tbody`).innerText(), /^AllReduce\s+C\s+X\s+\S+ MB\s+not priced/);
  assert.equal(await page.locator(`${TAG} [data-out="output_spec"] dd`).innerText(), 'C[I, K_Y]');
  assert.match(await page.locator(`${TAG} tr[data-array="C"]`).innerText(), /P\(None, 'Y'\)/);
  assert.equal(await page.locator(`${TAG} .lab.stale`).count(), 0, 'nothing greyed: nothing stale is shown');
  await page.goto(server.url + LAB + '?chip=tpu-v5p');
  await ready(page);
  assert.doesNotMatch(await page.locator(TAG).innerText(), /wraparound/);
  await page.goto(server.url + LAB + '?chip=tpu-v5p&spec=' + encodeURIComponent('A[I, J_XY] * B[J_XY, K] -> C[I, K]'));
  await ready(page);
  const warnings = await page.locator(`${TAG} .lab-warnings`).innerText();
  assert.match(warnings, /Mesh axis X \(4 chips\) has no wraparound/);
  assert.match(warnings, /Mesh axis Y \(2 chips\) has no wraparound either/);
  assert.deepEqual(problems, clean);
  await page.close();
});

test('lab page and chapter 3 placement pass axe', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  assert.deepEqual(await axe(page), []);
  await chapterAxe(page, '/chapters/03-sharded-matmuls/');
  assert.deepEqual(problems, clean);
  await page.close();
});
