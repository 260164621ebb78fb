// How the page loads the engine (src/engine.ts): the module is compiled once, a warm-up Worker
// makes a lab's first calls so that V8 compiles their code off the main thread, and the page
// instantiates the same module. Counted, not timed: the trace's lazy-compile events by thread.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, launchWithoutServiceWorkers, watchedPage, scrollUntilVisible } from './harness.mjs';
import { clean } from './lab-helpers.mjs';

let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

const rendered = (page) => page.waitForFunction(() => {
  const lab = document.querySelector('sl-decode-lab');
  return lab && Number(lab.dataset.rendered) > 0 && lab.querySelector('.lab-verdict');
}, null, { timeout: 60000 });

test('a lab\'s first engine calls find their code compiled off the main thread', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/404.html').catch(() => {}); // the same origin first: the renderer the trace follows
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.start', { transferMode: 'ReportEvents', traceConfig: { includedCategories: ['devtools.timeline', 'v8.wasm', 'disabled-by-default-v8.wasm.detailed'] } });
  await page.goto(server.url + '/labs/decode/');
  await rendered(page);
  await cdp.send('Tracing.end');
  await done;
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain' &&
    events.some((x) => x.pid === e.pid && x.tid === e.tid && x.name === 'ParseHTML'));
  assert.ok(main, 'the trace has the page\'s main thread');
  const lazy = events.filter((e) => e.name === 'wasm.CompileLazy');
  const onMain = lazy.filter((e) => e.pid === main.pid && e.tid === main.tid).length;
  assert.ok(lazy.length - onMain > 100, `the warm-up Worker compiled the first calls' functions (${lazy.length - onMain} off the main thread)`);
  assert.ok(onMain <= (lazy.length - onMain) / 10, `at most a tenth compiled on the main thread: ${onMain} of ${lazy.length}`);
  assert.deepEqual(problems, clean);
  await page.close();
});

test('a lab works when the warm-up Worker cannot load', async () => {
  const plain = await launchWithoutServiceWorkers(); // so that the refused request is not served from the cache
  const { page, problems } = await watchedPage(plain.context, server.url);
  let refused = 0;
  await page.route(/engine-warmup-[^/]*\.js$/, (route) => { refused++; return route.abort(); });
  await page.goto(server.url + '/labs/decode/');
  await rendered(page);
  assert.ok(refused > 0, 'the page asked for the warm-up Worker\'s script (and was refused it)');
  assert.match(await page.locator('sl-decode-lab .lab-verdict').innerText(), /bound/);
  assert.deepEqual(problems.errors, []);
  assert.ok(problems.console.every((m) => /Failed to load resource|Service Worker registration blocked/.test(m)), problems.console.join('\n'));
  await plain.close();
});

test('where the engine cannot load, the lab, the figures, a try-it block and the chapter say so (no endless "Loading")', async () => {
  const plain = await launchWithoutServiceWorkers();
  const { page, problems } = await watchedPage(plain.context, server.url);
  let refused = 0;
  await page.route(/\.wasm(\?|$)/, (route) => { refused++; return route.abort(); });
  const problem = /The engine could not be loaded \(.+\), so nothing here can be computed\. Check the connection and reload the page\./;

  await page.goto(server.url + '/labs/decode/');
  await page.locator('sl-decode-lab .lab-notice[role=alert]').waitFor({ timeout: 30000 });
  assert.match(await page.locator('sl-decode-lab').innerText(), problem);
  assert.equal(await page.locator('sl-decode-lab .lab-loading').count(), 0, 'the lab no longer says it is loading');

  // chapter 1 on a chip other than the one it was written for: the live numbers cannot follow it
  await page.evaluate(() => localStorage.setItem('scalelab.chip', 'tpu-v5p'));
  await page.goto(server.url + '/chapters/01-rooflines/#all');
  const note = page.locator('article .engine-problem[role=alert]');
  await note.waitFor({ timeout: 30000 });
  assert.match(await note.innerText(), problem);
  assert.match(await note.innerText(), /numbers in the text are for the TPU v5e, the chip this page was written for/);
  const fig = page.locator('[data-figure="roofline"] .fig-problem[role=alert]');
  assert.ok(await scrollUntilVisible(page, page.locator('[data-figure="roofline"]'), fig), 'the roofline figure says why it cannot be drawn'); // its module loads near the viewport
  assert.match(await fig.innerText(), problem);
  const tryit = page.locator('sl-tryit .tryit-status').first();
  await page.waitForFunction(() => /could not be loaded/.test(document.querySelector('sl-tryit .tryit-status')?.textContent ?? ''), null, { timeout: 30000 });
  assert.match(await tryit.innerText(), problem, 'the try-it block says the engine is missing');
  assert.ok(refused > 0, 'the pages asked for the engine (and were refused it)');
  assert.deepEqual(problems.errors, [], 'no unhandled error on the page');
  await plain.close();
});
