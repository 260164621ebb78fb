// The CPU-vs-WebGPU matmul experiment (<sl-matmul-experiment>, /labs/matmul/) in headless
// Chromium. Two browsers: one with --enable-unsafe-webgpu (a SwiftShader fallback adapter
// exists; see TOOLCHAIN notes), one without (no adapter: the CPU fallback path).
//
// Needs web/dist built (npm --prefix web run build) and build/scalelab, like the other tests.
// MATMUL_TEST_ROOT=<dist dir> and MATMUL_TEST_PATH=<page path> point it at another build
// (development only).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { startServer, launch, watchedPage, axe, ROOT } from './harness.mjs';

const PAGE = process.env.MATMUL_TEST_PATH || '/labs/matmul/';
const EL = 'sl-matmul-experiment';

async function startMatmulServer() {
  const root = process.env.MATMUL_TEST_ROOT;
  if (!root) return startServer();
  const bin = path.resolve(ROOT, process.env.SCALELAB_BIN || 'build/scalelab');
  const proc = spawn(bin, ['serve', '--port', '0', '--root', root], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const onData = (d) => { out += d; const m = /serving .* on (http:\/\/[\d.]+:\d+)/.exec(out); if (m) resolve(m[1]); };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
  return { url, stop: async () => { proc.kill('SIGTERM'); } };
}


let server, withGpu, withoutGpu;
before(async () => {
  server = await startMatmulServer();
  withGpu = await launch(['--enable-unsafe-webgpu']);
  withoutGpu = await launch([]);
});
after(async () => { await withGpu?.close(); await withoutGpu?.close(); await server?.stop(); });

/** Opens the lab, sets hooks, size and GPU choice; returns the page and its problem log. */
async function openLab(browser, { n = 256, gpu = true, hooks = null } = {}) {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + PAGE);
  await page.locator(`${EL} select`).waitFor();
  if (hooks) await page.evaluate((h) => { window.__slMatmulTestHooks = h; }, hooks);
  await page.locator(`${EL} select`).selectOption(String(n));
  const box = page.locator(`${EL} input[type=checkbox]`);
  if (gpu) await box.check(); else await box.uncheck();
  return { page, problems };
}

async function runToEnd(page, timeout = 120_000) {
  await page.locator(`${EL} button.primary`).click();
  await page.waitForFunction((el) => {
    const s = document.querySelector(el)?.getAttribute('data-run-state');
    return s && s !== 'running';
  }, EL, { timeout });
  return page.evaluate((el) => {
    const e = document.querySelector(el);
    return { state: e.runState, cpu: e.cpu, gpu: e.gpu, failure: e.failure, live: window.__slMatmulLiveWorkers };
  }, EL);
}

/** Chromium's dedicated workers for this page, as Playwright sees them (independent of our hook). */
async function settledWorkers(page) {
  for (let i = 0; i < 50 && page.workers().length; i++) await page.waitForTimeout(100);
  return page.workers().length;
}

/** What the reader sees: the text of the element's shadow root. */
const shownText = (page) => page.evaluate((el) =>
  [...document.querySelector(el).shadowRoot.children].map((c) => c.innerText ?? c.textContent).join('\n'), EL);

function assertCpu(cpu, n) {
  assert.ok(cpu, 'a CPU result');
  assert.equal(cpu.n, n);
  assert.equal(cpu.simd, true, 'WebAssembly SIMD build');
  assert.ok(cpu.ms > 0 && Number.isFinite(cpu.gflops) && cpu.gflops > 0, `CPU timing ${cpu.ms} ms`);
}

test('WebGPU on: the GPU path runs, reports a fallback adapter, and matches the CPU', async () => {
  const { page, problems } = await openLab(withGpu, { n: 256, gpu: true });
  const r = await runToEnd(page);
  assert.equal(r.state, 'done', r.failure);
  assertCpu(r.cpu, 256);
  assert.equal(r.gpu.status, 'ok', r.gpu.message);
  assert.equal(r.gpu.adapter.isFallbackAdapter, true);
  assert.equal(r.gpu.adapter.software, true);
  assert.match(r.gpu.adapter.architecture, /swiftshader/i);
  assert.deepEqual(r.gpu.phases.map((p) => p.name), ['adapter', 'device', 'pipeline', 'upload', 'dispatch', 'readback', 'cleanup']);
  assert.ok(r.gpu.phases.every((p) => p.ok && p.ms >= 0));
  assert.equal(r.gpu.bands, 16, 'a software adapter gets one dispatch per 16-row band');
  assert.equal(r.gpu.compare.elements, 256 * 256);
  assert.equal(r.gpu.compare.mismatches, 0);
  assert.equal(r.gpu.compare.allMatched, true);
  assert.ok(r.gpu.compare.maxAbs < 1e-3, `max abs error ${r.gpu.compare.maxAbs}`);
  // what the reader sees
  const text = await shownText(page);
  assert.match(text, /fallback \/ software adapter/);
  assert.match(text, /All 65,536 elements of the WebGPU result match the CPU reference/);
  assert.match(text, /Max \|GPU − CPU\|/);
  for (const label of ['Adapter request', 'Device creation', 'Shader module + pipeline creation', 'Buffer creation + upload',
    'Dispatch', 'Readback', 'Cleanup']) assert.ok(text.includes(label), label);
  assert.equal(await page.locator(`${EL} [data-compare]`).getAttribute('data-all-matched'), 'true');
  // the run's Worker is gone
  assert.equal(r.live, 0);
  assert.equal(await settledWorkers(page), 0);
  await page.locator(`${EL} details summary`).click();
  assert.deepEqual(await axe(page), [], 'axe on the lab after a GPU run');
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.deepEqual(await axe(page), [], 'axe in the dark theme');
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('edges: n = 100 (not a multiple of the CPU 4×8 kernel or the 16×16 shader tiles) also matches', async () => {
  const { page, problems } = await openLab(withGpu, { n: 64, gpu: true, hooks: { n: 100 } });
  const r = await runToEnd(page);
  assert.equal(r.cpu.n, 100);
  assert.equal(r.gpu.status, 'ok', r.gpu.message);
  assert.equal(r.gpu.compare.elements, 100 * 100);
  assert.equal(r.gpu.compare.allMatched, true);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('the single-dispatch path (as on a hardware adapter) matches too', async () => {
  const { page } = await openLab(withGpu, { n: 256, gpu: true, hooks: { singleDispatch: true } });
  const r = await runToEnd(page);
  assert.equal(r.gpu.status, 'ok', r.gpu.message);
  assert.equal(r.gpu.bands, 1);
  assert.equal(r.gpu.compare.allMatched, true);
  await page.close();
});

test('the check catches a wrong element, and tolerates a rounding-sized difference', async () => {
  const { page } = await openLab(withGpu, { n: 128, gpu: true, hooks: { perturbGpu: { index: 128 * 5 + 7, delta: 0.01 } } });
  const r = await runToEnd(page);
  assert.equal(r.gpu.status, 'ok');
  assert.equal(r.gpu.compare.mismatches, 1);
  assert.equal(r.gpu.compare.allMatched, false);
  assert.deepEqual([r.gpu.compare.worst.row, r.gpu.compare.worst.col], [5, 7]);
  assert.match(await shownText(page), /1 of 16,384 elements of the WebGPU result differ from the CPU reference/);
  assert.equal(await page.locator(`${EL} [data-compare]`).getAttribute('data-all-matched'), 'false');
  // a few units in the last place: rounding, within the tolerance
  await page.evaluate(() => { window.__slMatmulTestHooks = { perturbGpu: { index: 0, delta: 1e-6 } }; });
  const r2 = await runToEnd(page);
  assert.equal(r2.gpu.compare.allMatched, true);
  assert.ok(r2.gpu.compare.maxAbs > 0 && r2.gpu.compare.maxBoundRatio < 1);
  await page.close();
});

test('WebGPU off: the CPU result comes with a clear message', async () => {
  const { page, problems } = await openLab(withoutGpu, { n: 128, gpu: true });
  const r = await runToEnd(page);
  assert.equal(r.state, 'done', r.failure);
  assertCpu(r.cpu, 128);
  assert.ok(['no-adapter', 'unavailable'].includes(r.gpu.status), r.gpu.status);
  assert.match(r.gpu.message, /only the CPU ran/);
  assert.equal(r.gpu.compare, null);
  const text = await shownText(page);
  assert.match(text, /CPU: WebAssembly SIMD \(the reference\)/);
  assert.match(text, /only the CPU ran/);
  assert.equal(r.live, 0);
  assert.equal(await settledWorkers(page), 0);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('no navigator.gpu in the Worker: the CPU result with a clear message', async () => {
  const { page } = await openLab(withGpu, { n: 128, gpu: true, hooks: { hideWebGpu: true } });
  const r = await runToEnd(page);
  assert.equal(r.state, 'done', r.failure);
  assertCpu(r.cpu, 128);
  assert.equal(r.gpu.status, 'unavailable');
  assert.match(await shownText(page), /does not offer WebGPU here \(navigator\.gpu is missing in the Worker\), so only the CPU ran/);
  assert.equal(r.live, 0);
  await page.close();
});

test('device creation fails: the CPU result with a clear message', async () => {
  const { page, problems } = await openLab(withGpu, { n: 128, gpu: true, hooks: { failDevice: true } });
  const r = await runToEnd(page);
  assert.equal(r.state, 'done', r.failure);
  assertCpu(r.cpu, 128);
  assert.equal(r.gpu.status, 'device-failed', r.gpu.message);
  assert.match(r.gpu.message, /could not create a device .*only the CPU ran/);
  assert.equal(r.gpu.adapter.isFallbackAdapter, true, 'the adapter is still reported');
  assert.equal(r.live, 0);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('n = 2048 is not sent to a software adapter (it would take minutes)', async () => {
  const { page } = await openLab(withGpu, { n: 2048, gpu: true });
  const r = await runToEnd(page, 240_000);
  assert.equal(r.state, 'done', r.failure);
  assertCpu(r.cpu, 2048);
  assert.ok(r.cpu.chunks > 1);
  assert.equal(r.gpu.status, 'too-large', r.gpu.message);
  assert.equal(r.gpu.adapter.software, true);
  assert.deepEqual(r.gpu.phases.map((p) => p.name), ['adapter']);
  await page.close();
});

test('CPU only when the reader leaves WebGPU unticked', async () => {
  const { page } = await openLab(withGpu, { n: 128, gpu: false });
  const r = await runToEnd(page);
  assert.equal(r.gpu.status, 'skipped');
  assertCpu(r.cpu, 128);
  await page.close();
});

test('Cancel mid-run terminates the Worker; progress was shown', async () => {
  const { page, problems } = await openLab(withGpu, { n: 1024, gpu: true, hooks: { cpuChunkDelayMs: 250 } });
  await page.locator(`${EL} button.primary`).click();
  await page.locator(`${EL} progress`).waitFor({ timeout: 10_000 });
  await page.waitForFunction((el) => /\(\d+%\)/.test(document.querySelector(el).shadowRoot.querySelector('[data-phase]')?.textContent ?? ''), EL);
  assert.equal(page.workers().length, 1, 'one Worker while running');
  assert.equal(await page.evaluate(() => window.__slMatmulLiveWorkers), 1);
  await page.locator(`${EL} button`, { hasText: 'Cancel' }).click();
  assert.equal(await page.locator(EL).getAttribute('data-run-state'), 'cancelled');
  assert.equal(await page.evaluate(() => window.__slMatmulLiveWorkers), 0);
  assert.equal(await settledWorkers(page), 0, 'Chromium reports no Worker left');
  assert.match(await shownText(page), /Cancelled: the background run was stopped/);
  // and a new run works afterwards
  await page.evaluate(() => { window.__slMatmulTestHooks = {}; });
  await page.locator(`${EL} select`).selectOption('128');
  const r = await runToEnd(page);
  assert.equal(r.state, 'done');
  assert.equal(r.gpu.status, 'ok');
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('Cancel during the GPU dispatch terminates the Worker (and its device with it); the next run works', async () => {
  const { page, problems } = await openLab(withGpu, { n: 1024, gpu: true });
  await page.locator(`${EL} button.primary`).click();
  await page.waitForFunction((el) => /running the compute shader/.test(
    document.querySelector(el).shadowRoot.querySelector('[data-phase]')?.textContent ?? ''), EL, { timeout: 60_000 });
  await page.locator(`${EL} button`, { hasText: 'Cancel' }).click();
  assert.equal(await page.locator(EL).getAttribute('data-run-state'), 'cancelled');
  assert.equal(await page.evaluate(() => window.__slMatmulLiveWorkers), 0);
  assert.equal(await settledWorkers(page), 0);
  await page.locator(`${EL} select`).selectOption('64');
  const r = await runToEnd(page);
  assert.equal(r.gpu.status, 'ok', r.gpu.message);
  assert.equal(r.gpu.compare.allMatched, true);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('pagehide terminates a running Worker', async () => {
  const { page } = await openLab(withGpu, { n: 1024, gpu: false, hooks: { cpuChunkDelayMs: 250 } });
  await page.locator(`${EL} button.primary`).click();
  await page.waitForFunction(() => window.__slMatmulLiveWorkers === 1);
  await page.evaluate(() => window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true })));
  assert.equal(await page.evaluate(() => window.__slMatmulLiveWorkers), 0);
  assert.equal(await settledWorkers(page), 0);
  await page.close();
});

for (const at of ['after-submit', 'after-upload']) {
  test(`device lost mid-run (${at}) falls back to the CPU result`, async () => {
    const { page, problems } = await openLab(withGpu, { n: 256, gpu: true, hooks: { loseDeviceAt: at } });
    const r = await runToEnd(page, 60_000);
    assert.equal(r.state, 'done', r.failure);
    assertCpu(r.cpu, 256);
    assert.equal(r.gpu.status, 'lost', r.gpu.message);
    assert.match(r.gpu.message, /device was lost/);
    assert.match(r.gpu.message, /CPU result stands/);
    assert.equal(r.gpu.compare, null);
    assert.equal(r.gpu.adapter.isFallbackAdapter, true);
    assert.ok(r.gpu.phases.some((p) => !p.ok), 'the interrupted phase is marked');
    assert.equal(r.gpu.phases.at(-1).name, 'cleanup');
    assert.equal(r.live, 0);
    assert.match(await shownText(page), /device was lost/);
    assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
    await page.close();
  });
}

for (const at of ['adapter', 'dispatch']) {
  test(`a stalled ${at} await times out; nothing hangs`, async () => {
    const { page } = await openLab(withGpu, { n: 128, gpu: true, hooks: { stallAt: at, timeoutMs: 700 } });
    const t0 = Date.now();
    const r = await runToEnd(page, 30_000);
    assert.ok(Date.now() - t0 < 20_000);
    assert.equal(r.state, 'done', r.failure);
    assertCpu(r.cpu, 128);
    assert.equal(r.gpu.status, 'timeout', r.gpu.message);
    assert.match(r.gpu.message, /did not finish within 0\.7 s/);
    assert.equal(r.live, 0);
    await page.close();
  });
}

test('a silent Worker is stopped by the page watchdog', async () => {
  const { page } = await openLab(withGpu, { n: 1024, gpu: false, hooks: { cpuChunkDelayMs: 3000, watchdogMs: 1000 } });
  const r = await runToEnd(page, 30_000);
  assert.equal(r.state, 'failed');
  assert.match(r.failure, /sent nothing for 1 s/);
  assert.equal(r.live, 0);
  assert.equal(await settledWorkers(page), 0);
  await page.close();
});

test('placed in chapter 0 (::lab{name="matmul"}): it loads in its step, runs, and passes axe', async () => {
  if (process.env.MATMUL_TEST_ROOT) return; // a development build has no chapters
  const { page, problems } = await watchedPage(withGpu.context, server.url);
  const CH = '/chapters/00-introduction/';
  await page.goto(server.url + CH);
  const step = await page.locator(`section.step:has(${EL})`).getAttribute('id');
  assert.ok(step, 'a step holds the experiment');
  await page.goto(server.url + CH + '#' + step);
  await page.locator(`${EL} button.primary`).waitFor();
  await page.locator(`${EL} select`).selectOption('128');
  await page.locator(`${EL} input[type=checkbox]`).check();
  const r = await runToEnd(page);
  assert.equal(r.state, 'done', r.failure);
  assert.equal(r.gpu.status, 'ok', r.gpu.message);
  assert.equal(r.gpu.compare.allMatched, true);
  assert.deepEqual(await axe(page), []);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('on its own page the settings live in the address bar', async () => {
  if (process.env.MATMUL_TEST_ROOT) return;
  const { page } = await watchedPage(withGpu.context, server.url);
  await page.goto(server.url + '/labs/matmul/?n=512&gpu=1');
  await page.locator(`${EL} select`).waitFor();
  assert.equal(await page.locator(`${EL} select`).inputValue(), '512');
  assert.equal(await page.locator(`${EL} input[type=checkbox]`).isChecked(), true);
  await page.locator(`${EL} select`).selectOption('1024');
  await page.locator(`${EL} input[type=checkbox]`).uncheck();
  const q = new URL(page.url()).searchParams;
  assert.equal(q.get('n'), '1024');
  assert.equal(q.get('gpu'), '0');
  // a size outside the offered ones is ignored
  await page.goto(server.url + '/labs/matmul/?n=4096');
  await page.locator(`${EL} select`).waitFor();
  assert.equal(await page.locator(`${EL} select`).inputValue(), '256');
  await page.close();
});
