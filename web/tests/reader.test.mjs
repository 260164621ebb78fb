// What a reader sees on every chapter: tables rendered as tables (no raw `|---|`), no
// directive left as text (`:chipname`, `::question`), no unit written twice ("240 tokens
// tokens"), no C-style scientific notation in live numbers, the title and goals in view on
// open, the step heading below the sticky bar after Next on a 375 px phone, Tab order
// (skip link, then Prev/Next before the step list), axe-core. Also: home's "Start here",
// chapter 12 switching to the H100 and back, a pinned question saying so, and Plain vs
// Technical labels in a lab. Run alone with `node --test tests/reader.test.mjs`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, launch, watchedPage, axe, WEB } from './harness.mjs';

const CONTENT = path.join(WEB, 'content');
const CHAPTERS = fs.readdirSync(CONTENT).filter((f) => /^\d\d-[a-z0-9-]+\.md$/.test(f)).sort().map((f) => f.replace(/\.md$/, ''));
const UNIT_WORDS = 'tokens|token|sequences|chips|days|years|hours|seconds|bytes|FLOPs|params|requests|GPUs';
// ("4,096-token sequences" is English: a hyphenated word before is not a number's unit)
const REPEATED_UNIT = new RegExp(`(?<!-)\\b(${UNIT_WORDS})\\s+(${UNIT_WORDS})\\b`);
// every engine lab's own route (the matmul experiment measures the reader's device; it has no engine choices)
const LAB_ROUTES = fs.readdirSync(path.join(WEB, 'dist', 'labs'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'matmul').map((d) => d.name).sort();
const RAW_TABLE = /\|\s*:?-{3,}:?\s*\|/;
const DIRECTIVE_TEXT = /(?<![\w:/]):(live|chipname|lab|question|note|plain|technical|tryit)\b|(?<![\w:/])::+[a-z]/;
const SCIENTIFIC = /\d(\.\d+)?e[+-]?\d/i;

let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

/** The text a reader can meet on the page (every step, folded blocks included), outside code and formulas. */
const readerText = (page) => page.evaluate(() => {
  const out = [];
  const walk = (node) => {
    if (node.nodeType === Node.TEXT_NODE) { out.push(node.textContent); return; }
    if (node.nodeType !== Node.ELEMENT_NODE || node.matches('script, style')) return;
    if (node.matches('code, pre, .katex')) { out.push(' ◊ '); return; } // a formula or code stands in the sentence
    node.childNodes.forEach(walk);
  };
  walk(document.querySelector('article.chapter'));
  return out.join('').replace(/\s+/g, ' ');
});
const around = (text, m) => text.slice(Math.max(0, m.index - 50), m.index + m[0].length + 30);

for (const key of CHAPTERS) {
  test(`${key}: what the reader sees`, async () => {
    const { page, problems } = await watchedPage(browser.context, server.url);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/chapters/${key}/`);
    await page.waitForSelector('html.js-steps');

    // the title and the goals are in view on open, the page not scrolled past them
    assert.equal(await page.evaluate(() => window.scrollY), 0, 'opens at the top');
    const title = await page.locator('.chapter-head h1').boundingBox();
    assert.ok(title && title.y >= 0 && title.y + title.height <= 900, 'the title is in view');
    if (await page.locator('.goals').count()) assert.ok((await page.locator('.goals').boundingBox()).y < 900, 'the goals start in view');

    // every step's text at once (and once more after the live numbers settle for the chip)
    await page.goto(`${server.url}/chapters/${key}/#all`);
    await page.waitForFunction(() => document.querySelector('article.chapter').classList.contains('show-all'));
    await page.waitForTimeout(300);
    const text = await readerText(page);
    for (const [rx, what] of [[RAW_TABLE, 'raw Markdown table'], [DIRECTIVE_TEXT, 'directive as text'], [REPEATED_UNIT, 'unit written twice']]) {
      const m = rx.exec(text);
      assert.ok(!m, `${what}: “${m ? around(text, m) : ''}”`);
    }
    const md = fs.readFileSync(path.join(CONTENT, `${key}.md`), 'utf8');
    if (/^\|.*\|\s*$/m.test(md)) assert.ok(await page.locator('.steps table').count() > 0, 'its Markdown tables are tables');
    const sci = await page.$$eval('.live, .q-answer strong, .lab-outputs dd, .lab-verdict', (es) => es.map((e) => e.textContent.trim()));
    assert.deepEqual(sci.filter((t) => SCIENTIFIC.test(t)), [], 'no e+NN notation in numbers');

    // Tab order: the skip link, then (past the chapter head) Prev/Next before the step list
    // (a fresh load without #step-N: Chromium starts Tab navigation at a URL's target element)
    await page.goto('about:blank');
    await page.evaluate(() => 0);
    await page.goto(`${server.url}/chapters/${key}/`);
    await page.waitForSelector('html.js-steps');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.className || document.activeElement?.outerHTML.slice(0, 120)), 'skip', 'the first Tab stop is "Skip to content"');
    await page.keyboard.press('Enter');
    let first = '';
    for (let i = 0; i < 4 && !first.includes('next') && !first.includes('step-link'); i++) {
      await page.keyboard.press('Tab');
      first = await page.evaluate(() => { const a = document.activeElement; return `${a?.className ?? ''} ${a?.hasAttribute('data-step-link') ? 'step-link' : ''}`; });
    }
    assert.match(first, /next/, 'after the skip link, Tab reaches Next before any step-list link');

    // a phone: after Next, the new step's heading sits below the sticky bar
    await page.setViewportSize({ width: 375, height: 740 });
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.click('.stepper .next');
    await page.waitForFunction(() => location.hash === '#step-2');
    await page.waitForTimeout(100);
    const [bar, heading] = await page.evaluate(() => {
      const h = document.querySelector('section.step:not([hidden]) h2');
      return [document.querySelector('.stepper').getBoundingClientRect().bottom, h ? h.getBoundingClientRect().top : -1];
    });
    assert.ok(heading >= bar - 1 && heading < 740, `375 px: step 2's heading (top ${heading}) is below the sticky bar (bottom ${bar}) and in view`);

    assert.deepEqual(await axe(page), [], 'axe at 375 px');
    assert.deepEqual(problems.errors, [], 'no page errors');
    await page.close();
  });
}

test('home: a clear Start here, first in the content', async () => {
  const { page } = await watchedPage(browser.context, server.url);
  await page.goto(`${server.url}/`);
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  const start = page.locator('main .start-link');
  assert.ok(await start.isVisible(), 'Start here is shown');
  assert.match(await start.innerText(), /Start here/i);
  assert.match(await start.getAttribute('href'), new RegExp(`/chapters/${CHAPTERS[0]}/$`));
  assert.equal(await page.evaluate(() => document.querySelector('main a') === document.querySelector('.start-link')), true, 'the first link of the content');
  // with a chapter begun, it offers to continue there
  const second = CHAPTERS[1];
  await page.evaluate((k) => localStorage.setItem(`scalelab.progress.${k}`, JSON.stringify({ step: 3, visited: [1, 2, 3], total: 9, done: false })), second);
  await page.reload();
  assert.match(await start.innerText(), /Continue[\s\S]*step 3/i);
  assert.match(await start.getAttribute('href'), new RegExp(`/chapters/${second}/#step-3$`));
  await page.evaluate(() => localStorage.clear());
  await page.close();
});

test('chapter 12 switches the chip to the H100 on entry, says so, and switches back', async () => {
  const ch12 = CHAPTERS.find((k) => k.startsWith('12-'));
  assert.ok(ch12, 'chapter 12 exists');
  const { page } = await watchedPage(browser.context, server.url);
  await page.goto(`${server.url}/`);
  await page.evaluate(() => { localStorage.clear(); localStorage.setItem('scalelab.chip', 'tpu-v5p'); });
  await page.goto(`${server.url}/chapters/${ch12}/`);
  await page.waitForFunction(() => localStorage.getItem('scalelab.chip') === 'h100');
  assert.equal(await page.inputValue('#chip-select'), 'h100');
  const note = page.locator('.chapter-chip');
  assert.match(await note.innerText(), /H100/);
  assert.match(await note.innerText(), /you had the TPU v5p/);
  await page.waitForFunction(() => [...document.querySelectorAll('.chipname')].every((e) => e.textContent === 'H100'));
  await note.locator('button.chip-back').click();
  assert.equal(await page.evaluate(() => localStorage.getItem('scalelab.chip')), 'tpu-v5p');
  assert.equal(await page.inputValue('#chip-select'), 'tpu-v5p');
  await page.waitForFunction(() => [...document.querySelectorAll('.chipname')].every((e) => e.textContent === 'TPU v5p'));
  // once the reader went back, coming in again does not switch
  await page.reload();
  await page.waitForSelector('html.js-steps');
  assert.equal(await page.evaluate(() => localStorage.getItem('scalelab.chip')), 'tpu-v5p');
  assert.equal(await page.locator('.chapter-chip button.chip-back').count(), 0);
  await page.evaluate(() => localStorage.clear());
  await page.close();
});

test('a question pinned to one chip says which', async () => {
  const { page } = await watchedPage(browser.context, server.url);
  const ch1 = CHAPTERS.find((k) => k.startsWith('01-'));
  await page.goto(`${server.url}/chapters/${ch1}/#all`);
  const pinned = page.locator('form.question', { has: page.locator('.q-pinned') });
  assert.ok(await pinned.count() > 0, 'chapter 1 has a pinned question');
  // the note names the chip the question's own parameters pin
  const chipId = await pinned.first().getAttribute('data-params').then((p) => JSON.parse(p).chip);
  const names = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('#chip-select option')].map((o) => [o.value, o.textContent.trim()])));
  assert.ok(names[chipId], `a catalog chip: ${chipId}`);
  assert.ok((await pinned.first().locator('.q-pinned').innerText()).startsWith(`Pinned to the ${names[chipId]}`));
  await page.close();
});

test('labs: Plain shows human labels, Technical the parameter names and the derivation', async () => {
  const { page } = await watchedPage(browser.context, server.url);
  await page.goto(`${server.url}/labs/decode/`);
  await page.waitForFunction(() => Number(document.querySelector('[data-lab]')?.dataset.rendered) > 0);
  // the main control sits above the result (.lab-main), the rest in the settings (.lab-controls)
  const labels = () => page.$$eval('.lab-main label, .lab-controls label', (ls) => ls.map((l) => l.innerText.trim()));
  for (const l of await labels()) assert.doesNotMatch(l, /\b[a-z]+_[a-z_]+\b/, `Plain label without code identifiers: “${l}”`);
  assert.equal(await page.locator('[data-lab] .c-name').count(), 0, 'no raw names in Plain');
  assert.equal(await page.locator('details.lab-steps').evaluate((d) => d.open), false, 'Plain folds the derivation');
  await page.click('.mode-switch button[data-mode="technical"]');
  await page.waitForFunction(() => document.querySelector('[data-lab] .c-name') !== null);
  assert.equal(await page.locator('details.lab-steps').evaluate((d) => d.open), true, 'Technical opens the derivation');
  assert.ok((await page.$$eval('[data-lab] .c-name', (es) => es.map((e) => e.textContent))).includes('batch'), 'Technical names the parameters');
  await page.click('.mode-switch button[data-mode="plain"]');
  await page.close();
});

test('labs: a unit said once and in words (not "(tokens) (tokens)" or "(usd)"); every choice in words in Plain, its value in Technical', async () => {
  const { page } = await watchedPage(browser.context, server.url);
  const escRe = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const options = () => page.$$eval('.lab-controls select option', (os) => os.filter((o) => o.value !== '').map((o) => [o.value, o.textContent.trim()]));
  let units = 0;
  for (const lab of LAB_ROUTES) {
    await page.goto(`${server.url}/labs/${lab}/`);
    await page.waitForFunction(() => Number(document.querySelector('[data-lab]')?.dataset.rendered) > 0);
    // (a value that is already words, such as "as in the model", may show as it is)
    for (const [value, text] of await options()) if (!value.includes(' ')) assert.notEqual(text, value, `${lab}: the option ${value} shows its raw value`);
    const labels = await page.$$eval('.lab-controls label', (ls) => ls.map((l) => ({
      text: l.textContent.replace(/\s+/g, ' ').trim(), unit: l.querySelector('.unit')?.textContent.trim().replace(/^\((.*)\)$/, '$1') ?? null })));
    units += labels.filter((l) => l.unit).length;
    for (const { text, unit } of labels) {
      if (!unit) continue;
      const note = text.lastIndexOf(`(${unit})`);
      const rest = text.slice(0, note) + text.slice(note + unit.length + 2);
      assert.ok(!new RegExp(`(^|[^\\w/])${escRe(unit)}($|[^\\w/])`).test(rest), `${lab}: "${text}" says ${unit} twice`);
      assert.notEqual(unit.toLowerCase(), 'usd', `${lab}: "${text}" shows the schema's unit id, not words`);
    }
  }
  assert.ok(units > 10, `the labs show units where a label does not name them (${units})`);
  await page.goto(`${server.url}/labs/decode/`);
  await page.waitForFunction(() => Number(document.querySelector('[data-lab]')?.dataset.rendered) > 0);
  await page.click('.mode-switch button[data-mode="technical"]');
  await page.waitForFunction(() => document.querySelector('.lab-controls .c-name') !== null);
  const tp = (await options()).find(([v]) => v === 'tp');
  assert.ok(tp && tp[1].includes('(tp)'), `Technical shows the value the engine takes: ${tp}`);
  await page.click('.mode-switch button[data-mode="plain"]');
  await page.close();
});
