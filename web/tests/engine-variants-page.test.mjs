// A lab route loads its lab group's engine (named by its manifest, web/src/labs/<name>.lab.json), not the full one; and a page that
// names a build without its lab's calculator says so, in the lab and in the console, instead of
// showing numbers. Needs web/dist (npm --prefix web run build).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, watchedPage, launchWithoutServiceWorkers } from './harness.mjs';
import { variantOfLab } from '../build/engine-variants.mjs';

// Service workers blocked: page.route cannot rewrite a page the service worker serves from its cache.
let server, browser;
before(async () => { server = await startServer(); browser = await launchWithoutServiceWorkers(); });
after(async () => { await browser?.close(); await server?.stop(); });

const wasmOf = (urls) => urls.filter((u) => u.endsWith('.wasm')).map((u) => new URL(u).pathname.split('/').pop());

test('the decode lab\'s route loads the inference engine only, and shows its numbers', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/labs/decode/');
  await page.waitForSelector('sl-decode-lab .lab-verdict .verdict');
  const fetched = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
  const variant = variantOfLab('decode');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.engine), variant);
  const wasm = wasmOf(fetched);
  assert.equal(wasm.length, 1, `one engine fetched: ${wasm}`);
  assert.match(wasm[0], new RegExp(`^engine-${variant}-`));
  const logged = problems.console.filter((m) => !/Service Worker registration blocked/.test(m)); // (blocked here on purpose)
  assert.deepEqual({ ...problems, console: logged }, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('a route whose engine lacks its lab\'s calculator says so and shows no numbers', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  // the roofline lab's page, asking for the decode group's engine (which has no roofline)
  await page.route('**/labs/roofline/', async (route) => {
    const r = await route.fetch();
    const body = (await r.text()).replace(`data-engine="${variantOfLab('roofline')}"`, `data-engine="${variantOfLab('decode')}"`);
    await route.fulfill({ response: r, body });
  });
  await page.goto(server.url + '/labs/roofline/');
  await page.waitForFunction(() => /which this build lacks/.test(document.querySelector('sl-roofline-lab')?.textContent ?? ''));
  assert.equal(await page.locator('sl-roofline-lab .lab-verdict .verdict').count(), 0, 'no verdict from a build without the calculator');
  assert.ok(problems.console.some((m) => m.includes(`the "${variantOfLab('decode')}" engine has no calculator "roofline"`)), JSON.stringify(problems.console));
  await page.close();
});
