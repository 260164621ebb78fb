// The roofline lab: controls from the schema, plot, verdict, chip, URL state, bad input.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage, axe } from './harness.mjs';
import { engine, evaluate } from './lab-helpers.mjs';

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
  const b = Number(await page.locator('.control[data-key="B"] input[type=text]').inputValue());
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

test('the global chip and the lab chip change the result; state goes in the URL and comes back', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB + '?B=64');
  await ready(page);
  const crit = page.locator('[data-out="critical_intensity"] dd');
  assert.equal(await crit.innerText(), '240 FLOPs/byte');
  await page.selectOption('#chip-select', 'tpu-v6e');
  await page.waitForFunction(() => document.querySelector('[data-out="critical_intensity"] dd').textContent !== '240 FLOPs/byte');
  await page.selectOption('#chip-select', 'tpu-v5e');
  await page.waitForFunction(() => document.querySelector('[data-out="critical_intensity"] dd').textContent === '240 FLOPs/byte');
  await page.selectOption('.control[data-key="chip"] select', 'h100');
  await page.waitForFunction(() => document.querySelector('[data-out="critical_intensity"] dd').textContent !== '240 FLOPs/byte');
  await page.selectOption('.control[data-key="weight_dtype"] select', 'int8');
  await page.waitForFunction(() => location.search.includes('weight_dtype=int8') && location.search.includes('chip=h100'));
  const url = page.url();
  const text = await page.locator('.lab-outputs').innerText();
  const { page: p2 } = await watchedPage(browser.context, server.url);
  await p2.goto(url);
  await ready(p2);
  assert.equal(await p2.locator('.lab-outputs').innerText(), text, 'same state from the URL');
  assert.equal(await p2.locator('.control[data-key="B"] input[type=text]').inputValue(), '64');
  // the bandwidth choice changes the roof; links only applies to ici
  assert.equal(await p2.locator('.control[data-key="links"] input[type=text]').isDisabled(), true);
  await p2.selectOption('#chip-select', 'tpu-v5e');
  await p2.selectOption('.control[data-key="chip"] select', '');
  await p2.selectOption('.control[data-key="bandwidth"] select', 'ici');
  await p2.waitForFunction(() => /Comms-bound/.test(document.querySelector('.lab-verdict').textContent));
  assert.equal(await p2.locator('.control[data-key="links"] input[type=text]').isDisabled(), false);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await p2.close();
  await page.close();
});

test('bad typed values are refused in place with the engine message; never NaN', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + LAB);
  await ready(page);
  const field = page.locator('.control[data-key="B"] input[type=text]');
  const err = page.locator('.control[data-key="B"] .field-error');
  for (const [typed, msg] of [['abc', /must be/], ['0', /must be ≥ 1/], ['1.5', /whole number/], ['1e99', /≤ 1e9/]]) {
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
  for (const word of ['zzz', 'nope', 'B=abc', 'D=-5', 'weight_dtype=int3']) assert.ok(t.includes(word), `notice mentions ${word}: ${t}`);
  assert.equal(await page.locator('.control[data-key="B"] input[type=text]').inputValue(), '512');
  assert.equal(await page.locator('.control[data-key="D"] input[type=text]').inputValue(), '8192');
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

// A chart below the fold is drawn, and Observable Plot fetched, only when its box nears the
// viewport (Lighthouse's phone screen shows none of a lab's chart): the numbers come first.
test('on a phone the chart and Plot wait until the reader scrolls towards the chart', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.setViewportSize({ width: 412, height: 823 });
  const plot = [];
  page.on('request', (r) => { if (/\/plot-marks-[\w-]+\.js$/.test(r.url())) plot.push(r.url()); });
  await page.goto(server.url + LAB);
  await ready(page);
  assert.match(await page.locator('.lab-verdict').innerText(), /Compute-bound/, 'the numbers are on screen');
  const top = await page.locator('sl-roofline-lab .lab-viz').evaluate((v) => v.getBoundingClientRect().top);
  assert.ok(top > 823 * 1.5, `the chart's box starts below the fold and the margin (at ${top} px)`);
  await page.waitForTimeout(300);
  assert.equal(await page.locator('sl-roofline-lab svg.roofline-plot').count(), 0, 'no chart drawn yet');
  assert.deepEqual(plot, [], 'Plot not fetched yet');
  await page.locator('sl-roofline-lab .lab-viz').scrollIntoViewIfNeeded();
  await page.waitForSelector('sl-roofline-lab svg.roofline-plot');
  assert.equal(plot.length, 1, 'Plot fetched once, when the chart neared');
  // drawn, the chart follows every input, in view or not
  await page.evaluate(() => window.scrollTo(0, 0));
  const p0 = await point(page);
  const r0 = await rendered(page);
  await page.locator('.control[data-key="B"] input[type=text]').fill('64');
  await page.locator('.control[data-key="B"] input[type=text]').press('Enter');
  await settle(page, r0);
  assert.notEqual(await point(page), p0, 'the operating point moved off screen');
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
