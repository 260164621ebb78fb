// "Run it here" (issue 38): the measured decode run, /labs/decode-run/ and inside the decode lab.
// Two browsers: one with --enable-unsafe-webgpu (SwiftShader, a software adapter), one without
// (no adapter). Small runs through window.__slDecodeRunHooks (web/src/measure/decode-run/protocol.ts):
// a few MiB of weights and a few batches, so that each run takes seconds on a busy 2-core machine.
// Needs web/dist built and build/scalelab, like the other browser tests.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage, axe, launchWithoutServiceWorkers } from './harness.mjs';

const PAGE = '/labs/decode-run/';
const VIEW = 'sl-decode-run-view';
const MIB = 2 ** 20;
const CPU_RUN = { weightBytes: 16 * MIB, batches: [1, 2, 4, 8, 16, 32], samples: 3, reps: 1, ceilingBatch: 32 };
const GPU_RUN = { softwareGpu: true, weightBytes: 4 * MIB, batches: [1, 4, 9, 20, 40], samples: 2, reps: 1, ceilingBytes: 4 * MIB, ceilingBatch: 32 };


let server, withGpu, withoutGpu;
before(async () => {
  server = await startServer();
  withGpu = await launch(['--enable-unsafe-webgpu']);
  withoutGpu = await launch([]);
});
after(async () => { await withGpu?.close(); await withoutGpu?.close(); await server?.stop(); });

/** Opens a page, sets the hooks, presses Run; the page and its problem log. */
async function start(browser, hooks, url = PAGE) {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + url);
  await page.evaluate((h) => { window.__slDecodeRunHooks = h; }, hooks);
  // its own page opens on the panel (model menu and Run); a placement, on the stub's button
  await page.locator(url.startsWith(PAGE) ? `${VIEW} button.primary` : 'sl-decode-run [data-run]').click();
  await page.waitForFunction((el) => document.querySelector(el)?.runState === 'running', VIEW);
  return { page, problems };
}
async function finish(page, timeout = 240_000) {
  await page.waitForFunction((el) => { const s = document.querySelector(el)?.runState; return s && s !== 'running' && s !== 'idle'; }, VIEW, { timeout });
  return page.evaluate((el) => {
    const v = document.querySelector(el);
    return { state: v.runState, failure: v.failure, device: v.device, points: v.points, flip: v.prediction?.flip, plan: v.plan, live: window.__slDecodeRunLiveWorkers };
  }, VIEW);
}
const shown = (page, sel) => page.locator(`${VIEW} ${sel}`);
const text = (page) => page.evaluate((el) => document.querySelector(el).shadowRoot.textContent.replace(/\s+/g, ' '), VIEW);
async function settledWorkers(page) {
  for (let i = 0; i < 50 && page.workers().length; i++) await page.waitForTimeout(100);
  return page.workers().length;
}

/** The curve drawn: one dot per batch, the engine's line and flip, every point checked. */
async function assertCurve(page, r, batches) {
  assert.equal(r.state, 'done', r.failure);
  assert.deepEqual(r.points.map((p) => p.batch), batches);
  for (const p of r.points) {
    assert.ok(p.stepS > 0 && Number.isFinite(p.stepS) && p.runS > 0, `batch ${p.batch}: ${p.stepS}`);
    assert.ok(Math.abs(p.stepS / p.runS - r.plan.scaleUp) < 1e-9 * r.plan.scaleUp, 'the whole model\'s step is the run\'s × scaleUp');
    assert.ok(p.verify.checked >= 16 && p.verify.mismatches === 0, `batch ${p.batch}: ${p.verify.mismatches} of ${p.verify.checked} outputs wrong`);
    assert.ok(p.verify.worstShare < 1);
  }
  assert.ok(r.flip > 0, 'the engine\'s flip for the measured device');
  assert.equal(await shown(page, '.measured-dot circle').count(), batches.length);
  assert.equal(await shown(page, '[data-verified]').getAttribute('data-verified'), 'true');
  assert.match(await shown(page, '[data-sentence]').innerText(), /reads the weights at [\d.,]+ [kMGT]?B\/s at batch 1 — [\d,]+ % of what it (copies|streams) at;.*the bound predicted for this device (turns at batch [\d,]+|is compute-bound from batch 1)\./s);
  assert.equal(r.live, 0, 'no Worker of the run alive');
  assert.equal(await settledWorkers(page), 0);
}

test('WebGPU off: the CPU runs the sweep on every thread, the curve appears, outputs verified', async () => {
  const { page, problems } = await start(withoutGpu, CPU_RUN);
  const r = await finish(page);
  await assertCurve(page, r, CPU_RUN.batches);
  assert.equal(r.device.backend, 'cpu');
  assert.equal(r.device.isolated, true, 'scalelab serve sends COOP and COEP');
  assert.equal(r.device.threads, await page.evaluate(() => Math.min(16, navigator.hardwareConcurrency)));
  assert.match(r.device.why, /gave no adapter|offers no WebGPU/);
  assert.match(await text(page), /CPU \(WebAssembly SIMD, \d+ threads?\)\./);
  assert.match(await shown(page, '[data-sentence]').innerText(), /^Your CPU reads the weights/);
  await shown(page, 'details.points summary').click();
  assert.equal(await shown(page, '[data-points-table] tbody tr').count(), CPU_RUN.batches.length);
  await shown(page, 'details.notes summary').click();
  assert.match(await shown(page, '[data-plan]').innerText(), /matmul parameters/);
  assert.deepEqual(await axe(page), [], 'axe after a CPU run');
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('SwiftShader: the software adapter is named, and the CPU runs the sweep instead', async () => {
  const { page, problems } = await start(withGpu, CPU_RUN);
  const r = await finish(page);
  await assertCurve(page, r, CPU_RUN.batches);
  assert.equal(r.device.backend, 'cpu');
  assert.equal(r.device.adapter.software, true);
  assert.match(r.device.why, /only a software adapter here \(.*swiftshader.*\).*The CPU runs the sweep/i);
  assert.equal(await shown(page, '.device').getAttribute('data-software'), 'true');
  assert.match(await shown(page, '[data-software-note]').innerText(), /software implementation/);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('SwiftShader on request: every WebGPU kernel runs and is verified, its figures labelled as the software adapter\'s', async () => {
  const { page, problems } = await start(withGpu, GPU_RUN);
  const r = await finish(page);
  await assertCurve(page, r, GPU_RUN.batches);
  assert.equal(r.device.backend, 'gpu');
  assert.equal(r.device.precision, 'f32', 'SwiftShader has no shader-f16');
  assert.equal(r.device.timer, 'timestamp-query');
  assert.equal(r.device.adapter.software, true);
  assert.match(r.device.name, /swiftshader.*\(software adapter\)/i);
  assert.match(await shown(page, '[data-sentence]').innerText(), /^The software adapter reads the weights/);
  assert.match(await shown(page, '[data-software-note]').innerText(), /not a graphics card’s/);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('a wrong output is caught: the check says the figures are not trustworthy', async () => {
  const { page } = await start(withoutGpu, { ...CPU_RUN, batches: [1, 2, 4], perturb: 0.5 });
  const r = await finish(page);
  assert.equal(r.state, 'done');
  assert.ok(r.points.every((p) => p.verify.mismatches === 1));
  assert.equal(await shown(page, '[data-verified]').getAttribute('data-verified'), 'false');
  assert.match(await shown(page, '[data-verified]').innerText(), /not trustworthy/);
  await page.close();
});

test('a lost device abandons the run cleanly: the points before stand, everything is released', async () => {
  const { page } = await start(withGpu, { ...GPU_RUN, batches: [1, 2, 4], loseDeviceAfter: 1 });
  const r = await finish(page);
  assert.equal(r.state, 'failed');
  assert.match(r.failure, /device was lost.*abandoned and its buffers released/);
  assert.equal(r.points.length, 1);
  assert.equal(r.live, 0);
  assert.equal(await settledWorkers(page), 0);
  await page.close();
});

test('Cancel stops the run mid-sweep: its Worker and threads are gone, the points so far are kept', async () => {
  const { page } = await start(withoutGpu, { ...CPU_RUN, pointDelayMs: 60_000 });
  await page.waitForFunction((el) => document.querySelector(el).points.length >= 1, VIEW, { timeout: 120_000 });
  assert.ok(await page.evaluate(() => window.__slDecodeRunLiveWorkers) >= 2, 'the run\'s Worker and its CPU threads');
  await shown(page, 'button:has-text("Cancel")').click();
  const r = await finish(page);
  assert.equal(r.state, 'cancelled');
  assert.equal(r.live, 0);
  assert.equal(await settledWorkers(page), 0);
  assert.match(await shown(page, '.status').innerText(), /Cancelled: its Workers were stopped/);
  await page.close();
});

test('leaving the page stops a running sweep', async () => {
  const { page } = await start(withoutGpu, { ...CPU_RUN, pointDelayMs: 60_000 });
  await page.waitForFunction(() => window.__slDecodeRunLiveWorkers >= 2);
  await page.evaluate(() => window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true })));
  assert.equal(await page.evaluate(() => window.__slDecodeRunLiveWorkers), 0);
  assert.equal(await settledWorkers(page), 0);
  await page.close();
});

test('a finished run is kept, shared by its link, and its device can become the page\'s chip', async () => {
  const { page } = await start(withoutGpu, { ...CPU_RUN, batches: [1, 4, 16] });
  assert.equal((await finish(page)).state, 'done');
  await shown(page, '[data-share]').click();
  const link = await shown(page, '[data-share-url] a').getAttribute('href');
  assert.match(link, /[?&]device=[\w-]+.*[?&]decoderun=[\w-]+/);
  await shown(page, '[data-use-chip]').click();
  assert.match(await page.locator('#chip-select option[value="custom"]').innerText(), /^This device \(measured\): CPU \(WebAssembly SIMD/);
  // the same browser, later: its page opens on the kept run
  await page.goto(server.url + PAGE);
  await shown(page, '[data-kept]').waitFor();
  assert.match(await shown(page, '[data-kept]').innerText(), /^Your last run: LLaMA-3 8B on CPU/);
  assert.equal(await shown(page, '.measured-dot circle').count(), 3);
  await page.close();
  // another browser opens the link: the curve is drawn from the address, nothing runs
  const { page: other, problems } = await watchedPage(withGpu.context, server.url);
  await other.goto(link);
  await other.locator(`${VIEW} [data-kept]`).waitFor();
  assert.match(await other.locator(`${VIEW} [data-kept]`).innerText(), /^A shared run/);
  assert.equal(await other.locator(`${VIEW} .measured-dot circle`).count(), 3);
  assert.equal(await other.evaluate(() => window.__slDecodeRunLiveWorkers ?? 0), 0);
  assert.match(await other.locator('#chip-select option[value="custom"]').innerText(), /^This device \(measured\)/);
  assert.deepEqual(problems.errors, []);
  // a damaged link is refused with a notice, not shown half-read
  await other.goto(`${server.url}${PAGE}?decoderun=bm90LWpzb24`);
  await other.locator(`${VIEW} [data-notice]`).waitFor();
  assert.match(await other.locator(`${VIEW} [data-notice]`).innerText(), /decoderun=…\) is not readable/);
  await other.close();
});

test('a page that is not cross-origin isolated runs on one thread and says why', async () => {
  const b = await launchWithoutServiceWorkers();
  try {
    const page = await b.context.newPage();
    await page.route('**/*', async (route) => {
      const res = await route.fetch();
      const headers = { ...res.headers() };
      delete headers['cross-origin-embedder-policy'];
      delete headers['cross-origin-opener-policy'];
      await route.fulfill({ response: res, headers });
    });
    await page.goto(server.url + PAGE);
    assert.equal(await page.evaluate(() => crossOriginIsolated), false);
    await page.evaluate((h) => { window.__slDecodeRunHooks = h; }, { ...CPU_RUN, batches: [1, 4] });
    await page.locator(`${VIEW} button.primary`).click();
    const r = await finish(page);
    assert.equal(r.state, 'done', r.failure);
    assert.equal(r.device.threads, 1);
    assert.match(r.device.why, /one thread: this page is not cross-origin isolated/);
  } finally { await b.close(); }
});

test('chapter 7 places the run after the H200 figure, loading nothing of it until asked', async () => {
  const { page, problems } = await watchedPage(withoutGpu.context, server.url);
  const requested = [];
  page.on('request', (r) => requested.push(r.url()));
  await page.goto(`${server.url}/chapters/07-inference/#all`);
  const stub = page.locator('sl-decode-run');
  await stub.scrollIntoViewIfNeeded();
  await stub.locator('[data-run]').waitFor();
  assert.ok(!requested.some((u) => /\/(view|worker|cpu-thread)-[\w-]+\.js|decode_kernel/.test(u)), 'the run\'s code waits for the button');
  await page.evaluate((h) => { window.__slDecodeRunHooks = h; }, { ...CPU_RUN, batches: [1, 2] });
  await stub.locator('[data-run]').click();
  const r = await finish(page);
  assert.equal(r.state, 'done', r.failure);
  assert.equal(await page.evaluate((el) => document.querySelector(el).model, VIEW), 'llama3-8b');
  assert.deepEqual(problems.errors, []);
  await page.close();
});

test('the decode lab\'s own page places the run after its verdict, outside the live region, for the lab\'s model', async () => {
  const { page, problems } = await watchedPage(withoutGpu.context, server.url);
  const requested = [];
  page.on('request', (r) => requested.push(r.url()));
  await page.goto(`${server.url}/labs/decode/?model=llama3-70b`);
  await page.waitForFunction(() => Number(document.querySelector('sl-decode-lab')?.dataset.rendered) >= 1);
  const stub = page.locator('sl-decode-lab sl-decode-run');
  await stub.locator('[data-run]').waitFor();
  assert.equal(await stub.getAttribute('model'), 'llama3-70b');
  assert.equal(await page.locator('sl-decode-lab [aria-live] sl-decode-run').count(), 0, 'its progress is not announced by the verdict');
  assert.ok(await stub.evaluate((el) => el.previousElementSibling?.classList.contains('lab-verdict')), 'right after the verdict');
  assert.ok(!requested.some((u) => /\/(view|worker|cpu-thread)-[\w-]+\.js|decode_kernel/.test(u)), 'the run\'s code waits for the button');
  await page.evaluate((h) => { window.__slDecodeRunHooks = h; }, { ...CPU_RUN, batches: [1, 2] });
  await stub.locator('[data-run]').click();
  const r = await finish(page);
  assert.equal(r.state, 'done', r.failure);
  assert.equal(await page.evaluate((el) => document.querySelector(el).model, VIEW), 'llama3-70b');
  assert.deepEqual(problems.errors, []);
  await page.close();
});
