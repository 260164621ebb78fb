// Chapter 1: steps, keys, URLs, show all, live numbers, questions, accessibility.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage, axe, pageWithoutScripts } from './harness.mjs';

let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });
const CH = '/chapters/01-rooflines/';
const visibleSteps = (page) => page.$$eval('section.step', (ss) => ss.filter((s) => !s.hidden).map((s) => s.id));

test('click through every step with Next; Previous; progress; no console errors', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + CH);
  const n = Number(await page.locator('article.chapter').getAttribute('data-steps'));
  assert.ok(n >= 8 && n <= 12, `8–12 steps, got ${n}`);
  assert.deepEqual(await visibleSteps(page), ['step-1']);
  for (let k = 2; k <= n; k++) {
    await page.click('.stepper .next');
    assert.deepEqual(await visibleSteps(page), [`step-${k}`]);
    assert.equal(new URL(page.url()).hash, `#step-${k}`);
    assert.equal(await page.locator('.step-status').innerText(), `Step ${k} of ${n}`);
  }
  assert.equal(await page.locator('.stepper .next').isDisabled(), true);
  assert.equal(await page.locator('article.chapter').evaluate((a) => a.classList.contains('done')), true, 'completed');
  await page.click('.stepper .prev');
  assert.deepEqual(await visibleSteps(page), [`step-${n - 1}`]);
  await page.goBack();
  assert.deepEqual(await visibleSteps(page), [`step-${n}`]);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('arrow keys, #step-N URLs, remembered place, show all', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + CH + '#step-3');
  assert.deepEqual(await visibleSteps(page), ['step-3']);
  await page.locator('body').click({ position: { x: 2, y: 300 } });
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await visibleSteps(page), ['step-4']);
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  assert.deepEqual(await visibleSteps(page), ['step-2']);
  // keys typed in a field do not turn the page
  await page.goto(server.url + CH + '#step-5');
  await page.locator('#step-5 form.question input').first().focus();
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await visibleSteps(page), ['step-5']);
  // the reader's place is remembered
  await page.goto(server.url + CH);
  assert.deepEqual(await visibleSteps(page), ['step-5']);
  await page.check('.show-all input');
  const n = Number(await page.locator('article.chapter').getAttribute('data-steps'));
  assert.equal((await visibleSteps(page)).length, n);
  assert.equal(new URL(page.url()).hash, '#all');
  assert.deepEqual(await axe(page), [], 'axe on the whole chapter');
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('switching the chip recomputes live numbers', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + CH + '#all');
  const ci = page.locator('.live[data-calc="chip"][data-out="critical_intensity"]').first();
  const cb = page.locator('.live[data-out="critical_batch"]').first();
  assert.equal(await ci.innerText(), '240 FLOPs/byte');
  const cbBefore = await cb.innerText();
  assert.match(await page.locator('.chipname').first().innerText(), /TPU v5e/);
  await page.selectOption('#chip-select', 'h100');
  await page.waitForFunction(() => document.querySelector('.chipname').textContent === 'H100');
  assert.notEqual(await ci.innerText(), '240 FLOPs/byte');
  assert.match(await ci.innerText(), /^\d+ FLOPs\/byte$/);
  assert.notEqual(await cb.innerText(), cbBefore);
  await page.reload(); // the choice is remembered
  await page.waitForFunction(() => document.querySelector('.chipname').textContent === 'H100');
  await page.selectOption('#chip-select', 'tpu-v5e');
  await page.waitForFunction(() => document.querySelector('.chipname').textContent === 'TPU v5e');
  assert.equal(await ci.innerText(), '240 FLOPs/byte');
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('a chip change evaluates each distinct live number once (chapter 12: many numbers, fewer evaluations)', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/chapters/12-gpus/#all');
  await page.selectOption('#chip-select', 'tpu-v5p');
  await page.waitForFunction(() => document.querySelector('.chipname').textContent === 'TPU v5p');
  await page.waitForFunction(() => document.querySelector('article.chapter').dataset.liveEvaluations);
  const { count, distinct, evaluations, na } = await page.evaluate(() => {
    // the same parameters however their keys are ordered; the page's chip added where the number follows it
    const sorted = (v) => (Array.isArray(v) ? v.map(sorted) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : v);
    const live = [...document.querySelectorAll('article.chapter .live')];
    const keys = new Set(live.map((el) => {
      const p = JSON.parse(el.dataset.params || '{}');
      if (el.dataset.chip !== 'fixed' && !('chip' in p)) p.chip = 'tpu-v5p';
      return `${el.dataset.calc} ${JSON.stringify(sorted(p))}`;
    }));
    return { count: live.length, distinct: keys.size, evaluations: Number(document.querySelector('article.chapter').dataset.liveEvaluations), na: live.filter((el) => /NaN|undefined/.test(el.textContent)).length };
  });
  assert.ok(count > distinct, `chapter 12 repeats evaluations (${count} live numbers, ${distinct} distinct)`);
  assert.equal(evaluations, distinct, `one evaluation per distinct calculator and parameters (${count} live numbers)`);
  assert.equal(na, 0);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.evaluate(() => localStorage.clear()); // the next tests start on the course's default chip
  await page.close();
});

test('check-yourself: accepts a right answer, refuses a wrong one, reveals the derivation', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + CH + '#all');
  const forms = page.locator('form.question');
  assert.ok(await forms.count() >= 3);
  // the exact crossover of a bf16 [B, 4096] x [4096, 4096] matmul on TPU v5e (it follows the chip):
  // B = DF/W / (DF/C - (D + F)/W) with C = 1.97e14, W = 8.2e11 -> 272.2 tokens
  const q = page.locator('form.question[data-out="crossover_batch"]').first();
  const input = q.locator('input[name=answer]');
  const fb = q.locator('.q-feedback');
  await input.fill('272');
  await q.locator('button[type=submit]').click();
  await page.waitForFunction((el) => el.textContent.length > 0, await fb.elementHandle());
  assert.match(await fb.getAttribute('class'), /right/);
  await input.fill('500');
  await q.locator('button[type=submit]').click();
  await page.waitForFunction((el) => el.classList.contains('wrong'), await fb.elementHandle());
  assert.match(await fb.innerText(), /Not yet/);
  await input.fill('lots');
  await q.locator('button[type=submit]').click();
  assert.match(await fb.getAttribute('class'), /refused/);
  // the time question takes units: 1e10 bytes / 8.2e11 B/s = 12.2 ms outlasts 1e12 FLOPs / 1.97e14 FLOP/s
  const tq = page.locator('form.question[data-out="t_lower_s"]').first();
  await tq.locator('input').fill('12.2 ms');
  await tq.locator('button[type=submit]').click();
  await page.waitForFunction((el) => el.classList.contains('right'), await tq.locator('.q-feedback').elementHandle());
  // derivation: typeset with KaTeX only once opened (the page carries just the answer)
  assert.equal(await q.locator('.q-derivation .katex').count(), 0, 'not typeset before it is opened');
  await q.locator('.q-derivation summary').click();
  await page.waitForFunction((el) => el.querySelectorAll('.katex').length > 0, await q.locator('.q-derivation').elementHandle());
  const v5eAnswer = await q.locator('.q-answer strong').innerText();
  // the answer follows the chip, and the open derivation is typeset again for it
  await page.selectOption('#chip-select', 'h100');
  await page.waitForFunction(() => document.querySelector('.chipname').textContent === 'H100');
  await page.waitForFunction(([el, before]) => el.querySelector('.q-answer strong')?.textContent !== before && el.querySelectorAll('.katex').length > 0,
    [await q.locator('.q-derivation').elementHandle(), v5eAnswer]);
  await input.fill('272');
  await q.locator('button[type=submit]').click();
  await page.waitForFunction((el) => el.classList.contains('wrong'), await fb.elementHandle());
  await page.selectOption('#chip-select', 'tpu-v5e');
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('Plain mode folds technical blocks; Technical shows them; axe on step 1', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + CH + '#step-3');
  const d = page.locator('#step-3 details.technical').first();
  assert.equal(await d.evaluate((x) => x.open), false);
  assert.equal(await d.locator('summary').isVisible(), true);
  await page.click('.mode-switch button[data-mode="technical"]');
  assert.equal(await d.evaluate((x) => x.open), true);
  assert.equal(await d.locator('summary').isVisible(), false);
  await page.click('.mode-switch button[data-mode="plain"]');
  await page.goto(server.url + CH + '#step-1');
  assert.deepEqual(await axe(page), []);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('nothing on a chapter moves when its script starts (every chapter, phone width); no stepper without JavaScript', async () => {
  const keys = (await (await fetch(server.url + '/')).text()).match(/\/chapters\/\d\d-[a-z-]+\//g);
  assert.ok(new Set(keys).size >= 13, `the home page links every chapter: ${keys}`);
  const LANDMARKS = ['.chapter-head', '.stepper', '.step-list', '.steps'];
  const tops = (page) => page.evaluate((sels) => sels.map((s) => Math.round(document.querySelector(s).getBoundingClientRect().top)), LANDMARKS);
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 375, height: 800 });
  for (const route of new Set(keys)) {
    let release;
    const held = new Promise((r) => { release = r; });
    await page.route(/\.js$/, async (r) => { await held; await r.continue(); });
    await page.goto(server.url + route, { waitUntil: 'commit' });
    await page.waitForSelector('footer', { state: 'attached' });
    const before = await tops(page);
    release();
    await page.waitForSelector('html.js-steps');
    await page.evaluate(() => window.scrollTo(0, 0));
    assert.deepEqual(await tops(page), before, `${route}: tops of ${LANDMARKS.join(', ')} before and after the script`);
    await page.unroute(/\.js$/);
  }
  await page.close();
  const { page: still, close } = await pageWithoutScripts();
  try {
    await still.goto(server.url + CH);
    assert.equal(await still.locator('.stepper').isVisible(), false, 'without a script the stepper, which could not step, is not shown');
    assert.equal(await still.locator('.step-list').isVisible(), true);
  } finally { await close(); }
});
