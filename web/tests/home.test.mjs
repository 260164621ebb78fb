// Home page, shell (mode, theme, chip, custom chip), static pages, no-JS pre-rendering.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage, axe } from './harness.mjs';

let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

test('home lists 13 chapters, marks missing ones, has credits, passes axe', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/');
  const cards = page.locator('.chapter-card');
  assert.equal(await cards.count(), 13);
  assert.match(await cards.nth(1).innerText(), /Rooflines/);
  assert.ok(await page.locator('.chapter-card a[href="/chapters/01-rooflines/"]').count());
  for (const el of await page.locator('.chapter-card.soon').all()) assert.match(await el.innerText(), /Coming soon/);
  assert.match(await page.locator('.credits').innerText(), /Based on How to Scale Your Model by Austin et al\., Google DeepMind, 2025/);
  assert.deepEqual(await axe(page), []);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('pages are pre-rendered: chapter HTML carries live numbers without JavaScript', async () => {
  const res = await fetch(server.url + '/chapters/01-rooflines/');
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.match(html, /class="live"[^>]*>240 FLOPs\/byte</);
  assert.match(html, /<section class="step" id="step-1"/);
  assert.match(html, /class="katex"/);
  assert.match(html, /class="katex-display"/);
  assert.doesNotMatch(html, />[^<]*\\(frac|text)\{/, 'no untypeset TeX in the page');
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline scripts (strict CSP)');
  for (const p of ['/', '/labs/roofline/', '/about/', '/errata/']) assert.equal((await fetch(server.url + p)).status, 200, p);
  const missing = await fetch(server.url + '/no/such/page/');
  assert.equal(missing.status, 404);
  assert.match(await missing.text(), /Page not found/);
});

test('mode switch and theme are remembered; progress shows on home', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/chapters/01-rooflines/#step-5');
  await page.click('.mode-switch button[data-mode="technical"]');
  assert.equal(await page.locator('details.technical').first().evaluate((d) => d.open), true);
  await page.reload();
  assert.equal(await page.locator('html').evaluate((h) => h.classList.contains('mode-technical')), true);
  assert.equal(await page.locator('.mode-switch button[data-mode="technical"]').getAttribute('aria-pressed'), 'true');
  await page.click('.mode-switch button[data-mode="plain"]');
  await page.click('.theme-toggle');
  const t1 = await page.locator('html').getAttribute('data-theme');
  assert.ok(t1 === 'light' || t1 === 'dark');
  await page.goto(server.url + '/');
  assert.equal(await page.locator('html').getAttribute('data-theme'), t1);
  assert.match(await page.locator('.chapter-card[data-key="01-rooflines"] .progress-text').innerText(), /read, at step 5/);
  await page.click('.theme-toggle'); await page.click('.theme-toggle'); // back to automatic
  assert.equal(await page.locator('html').getAttribute('data-theme'), null);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('custom chip: the engine refuses a bad value in place, accepts a good one', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/chapters/01-rooflines/#step-5');
  const live = page.locator('#step-5 .live[data-out="critical_intensity"]').first();
  assert.equal(await live.innerText(), '240 FLOPs/byte');
  await page.selectOption('#chip-select', 'custom');
  const dialog = page.locator('dialog#custom-chip');
  await dialog.locator('.field[data-path="hbm_bytes_per_s"] input').waitFor();
  // every figure in the reader's units, as it can be typed back (TPU v5e: no e-notation, no raw bytes/s)
  const field = (p) => dialog.locator(`.field[data-path="${p}"] input`).inputValue();
  assert.equal(await field('ici_hop_latency_s'), '1 µs');
  assert.equal(await field('clock_hz'), '1.5 GHz');
  assert.equal(await field('hbm_bytes_per_s'), '820 GB/s');
  assert.equal(await field('flops_per_s.bf16'), '197 TFLOP/s');
  await dialog.locator('.field[data-path="hbm_bytes_per_s"] input').fill('-1');
  await dialog.locator('button[type=submit]').click();
  assert.match(await dialog.locator('.field[data-path="hbm_bytes_per_s"] .field-error').innerText(), /^too small — more than 0\b|^too small — at least/);
  assert.equal(await dialog.evaluate((d) => d.open), true);
  await dialog.locator('.field[data-path="hbm_bytes_per_s"] input').fill('1.64e12');
  await dialog.locator('button[type=submit]').click();
  assert.equal(await dialog.evaluate((d) => d.open), false);
  await page.waitForFunction(() => document.querySelector('#step-5 .live[data-out="critical_intensity"]').textContent === '120 FLOPs/byte');
  assert.match(await page.locator('#chip-select option:checked').innerText(), /Custom/);
  await page.selectOption('#chip-select', 'tpu-v5e');
  await page.waitForFunction(() => document.querySelector('#step-5 .live[data-out="critical_intensity"]').textContent === '240 FLOPs/byte');
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});
