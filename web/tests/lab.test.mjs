// The roofline lab: controls from the schema, plot, verdict, chip, URL state, bad input.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage, axe } from './harness.mjs';
import { engine, evaluate, fieldNumber } from './lab-helpers.mjs';

let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });
const LAB = '/labs/roofline/';
const ready = (page) => page.waitForSelector('sl-roofline-lab[data-rendered] .lab-verdict .verdict'); // the numbers (the chart comes when near)
const point = (page) => page.locator('sl-roofline-lab .operating-point circle').first().evaluate((c) => `${c.getAttribute('cx')},${c.getAttribute('cy')}`);
const rendered = (page) => page.locator('sl-roofline-lab').first().getAttribute('data-rendered');
// a new render, and then any evaluation still scheduled run and rendered (as lab-helpers' settle): the
// render seen may be the chart's own, drawn once Plot has loaded, before the input's evaluation
async function settle(page, before) {
  await page.waitForFunction((b) => document.querySelector('sl-roofline-lab').dataset.rendered !== b, before);
  await page.evaluate(() => document.querySelector('sl-roofline-lab').flush());
}

test('dragging the B slider moves the point and flips the verdict', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  assert.match(await page.locator('.lab-verdict').innerText(), /Compute-bound/);
  await page.locator('sl-roofline-lab svg.roofline-plot').waitFor(); // drawn once its box is near the viewport
  const p0 = await point(page);
  const slider = page.locator('.control[data-key="B"] input[type=range]');
  const box = await slider.boundingBox();
  const r0 = await rendered(page);
  await page.mouse.move(box.x + box.width * 0.31, box.y + box.height / 2);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(box.x + box.width * (0.31 - i * 0.02), box.y + box.height / 2);
  await page.mouse.up();
  await settle(page, r0);
  await page.waitForFunction(() => /Memory-bound/.test(document.querySelector('.lab-verdict').textContent));
  assert.notEqual(await point(page), p0, 'the operating point moved');
  const b = fieldNumber(await page.locator('.control[data-key="B"] input[type=text]').inputValue());
  assert.ok(b < 240, `B dragged below the critical batch, got ${b}`);
  await page.waitForFunction(() => /[?&]B=\d+/.test(location.search));
  assert.equal(await page.locator('.lab-steps .katex').count(), 0, 'the derivation is typeset only once opened');
  await page.locator('.lab-steps summary').click();
  await page.waitForSelector('.lab-steps .katex');
  assert.ok(await page.locator('.lab-steps .katex').count() > 3, 'derivation rendered with KaTeX when opened');
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('the derivation opened after a drag is that of the numbers shown (numbers-only while dragging)', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  const slider = page.locator('.control[data-key="B"] input[type=range]');
  const box = await slider.boundingBox();
  const r0 = await rendered(page);
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2);
  await page.mouse.down();
  for (let i = 1; i <= 8; i++) await page.mouse.move(box.x + box.width * (0.5 + i * 0.03), box.y + box.height / 2);
  await page.mouse.up();
  await settle(page, r0);
  await page.locator('.lab-steps summary').click();
  await page.waitForSelector('.lab-steps .katex');
  const { params, subs, shown } = await page.evaluate(() => {
    const lab = document.querySelector('sl-roofline-lab');
    return { params: lab.params(), subs: [...lab.querySelectorAll('.lab-steps .d-sub')].map((e) => e.textContent), shown: lab.querySelector('[data-out="t_lower_s"] dd').textContent };
  });
  const full = evaluate('roofline', params); // with steps, in Node, for the lab's current parameters
  assert.ok(full.steps.length > 3);
  assert.equal(subs.length, full.steps.length, 'one line per step');
  full.steps.forEach((st, i) => assert.ok(subs[i].endsWith(`= ${engine.formatQuantity(st.value, st.unit)}`), `step ${i} (${st.label}): ${subs[i]}`));
  assert.equal(shown, engine.formatQuantity(full.outputs.t_lower_s, 's'), 'the numbers shown are the same evaluation');
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('bad typed values are refused in place with the engine message; never NaN', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  const field = page.locator('.control[data-key="B"] input[type=text]');
  const err = page.locator('.control[data-key="B"] .field-error');
  for (const [typed, msg] of [['abc', /^enter a number, such as 512, 100M or 2\.5B$/], ['0', /^too small — at least 1\b/], ['1.5', /^enter a whole number/], ['1e99', /^too large — at most 1B tokens$/]]) {
    const r = await rendered(page);
    await field.fill(typed);
    await settle(page, r);
    assert.match(await err.innerText(), msg, typed);
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    assert.doesNotMatch(await page.locator('sl-roofline-lab').innerText(), /NaN|Infinity/);
  }
  const r = await rendered(page);
  await field.fill('2048');
  await settle(page, r);
  assert.equal(await err.innerText(), '');
  assert.match(await page.locator('.lab-verdict').innerText(), /Compute-bound/);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('a malformed URL state gives the defaults and a visible notice', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?B=abc&D=-5&weight_dtype=int3&zzz=1&chip=nope');
  await ready(page);
  const notice = page.locator('.lab-notice');
  assert.equal(await notice.isVisible(), true);
  const t = await notice.innerText();
  for (const word of ['zzz', 'B=abc', 'D=-5', 'weight_dtype=int3']) assert.ok(t.includes(word), `notice mentions ${word}: ${t}`);
  // chip= on a lab's own page is the page's chip: the page says it knows no such chip
  assert.match(await page.locator('.address-notice').innerText(), /“nope” that is not in the catalog/);
  assert.equal(await page.locator('.control[data-key="B"] input[type=text]').inputValue(), '512');
  assert.equal(await page.locator('.control[data-key="D"] input[type=text]').inputValue(), '8,192');
  assert.match(await page.locator('.lab-verdict').innerText(), /Compute-bound/);
  assert.deepEqual(problems.errors, []);
  assert.deepEqual(problems.thirdParty, []);
  await page.close();
});

test('lab in chapter 1 and the full page pass axe', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  assert.deepEqual(await axe(page), []);
  await page.goto(server.url + '/chapters/01-rooflines/');
  const step = await page.locator('section.step:has(sl-roofline-lab)').first().getAttribute('id'); // the first of its placements
  await page.goto(server.url + '/chapters/01-rooflines/#' + step);
  await ready(page);
  assert.deepEqual(await axe(page), []);
  const r = await rendered(page);
  await page.selectOption('#chip-select', 'h100');
  await settle(page, r);
  assert.match(await page.locator('sl-roofline-lab .control[data-key="chip"] option').first().innerText(), /H100/);
  await page.selectOption('#chip-select', 'tpu-v5e');
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

// The point's label and the critical label: inside the plot and apart, from batch 1 to 16,384, on a
// phone and on a desktop, whether the chart was drawn afresh or its point moved in place.
test('the roofline chart\u2019s labels stay inside the plot, apart and clear of the point, on a phone and a desktop', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto(server.url + LAB);
    await ready(page);
    await page.locator('sl-roofline-lab .lab-viz').scrollIntoViewIfNeeded();
    await page.waitForSelector('sl-roofline-lab svg.roofline-plot');
    for (const B of [1, 16, 64, 200, 240, 300, 475, 2048, 16384]) {
      const r0 = await rendered(page);
      await page.locator('.control[data-key="B"] input[type=text]').fill(String(B));
      await page.locator('.control[data-key="B"] input[type=text]').press('Enter');
      await settle(page, r0);
      await page.waitForFunction(() => document.querySelector('sl-roofline-lab .lab-viz').dataset.renders === document.querySelector('sl-roofline-lab').dataset.rendered);
      const boxes = await page.evaluate(() => {
        const chart = document.querySelector('sl-roofline-lab svg.roofline-plot');
        const box = (el) => { const r = el.getBoundingClientRect(); return { l: r.left, r: r.right, t: r.top, b: r.bottom }; };
        return { svg: box(chart), point: box(chart.querySelector('.operating-label text')), critical: box(chart.querySelector('.critical-label text')), dot: box(chart.querySelector('.operating-point circle')), axis: box(chart.querySelector('[aria-label="y-axis tick label"]')) };
      });
      const at = `at ${width} px, batch ${B}`;
      assert.ok(boxes.point.l >= boxes.axis.r && boxes.point.r <= boxes.svg.r, `${at}: the point's label is inside the plot (${JSON.stringify(boxes)})`);
      const apart = (a, b) => a.r <= b.l || b.r <= a.l || a.b <= b.t || b.b <= a.t;
      assert.ok(apart(boxes.point, boxes.critical), `${at}: the two labels do not overlap (${JSON.stringify(boxes)})`);
      assert.ok(apart(boxes.dot, boxes.critical), `${at}: the critical label is clear of the point (${JSON.stringify(boxes)})`);
    }
  }
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('the hint sends the reader to a link the chip has: ICI on a TPU, NVLink on an H100, PCIe on an RTX 4090', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  for (const [chip, link] of [['tpu-v5e', 'ICI'], ['h100', 'NVLink'], ['rtx-4090', 'PCIe']]) {
    await page.goto(server.url + LAB + '?chip=' + chip);
    await ready(page);
    const named = /switch the bandwidth to (.+)\.$/.exec(await page.locator('sl-roofline-lab .lab-hint').innerText())?.[1];
    assert.ok(named?.startsWith(link), `${chip}: the hint names ${link} (${named})`);
    // … in the words of the bandwidth menu's own option on this chip
    const options = await page.locator('sl-roofline-lab .control[data-key="bandwidth"] option').allInnerTexts();
    assert.ok(options.map((o) => o.trim()).includes(named), `${chip}: "${named}" is one of ${options.join(' | ')}`);
  }
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});
