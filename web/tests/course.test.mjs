// The whole course, chapter by chapter (every web/content/NN-slug.md): every step renders by
// URL and by Next/→, show all, Plain vs Technical, live numbers against the engine for three
// chips, every check-yourself question (right answer computed here by the Node engine from the
// directive's params, wrong answer refused), axe-core, no NaN/undefined/Infinity/[object …] text,
// the 375 px phone layout, and the reader's place and progress after a reload.
// One browser and one page for the chapters; run alone with `node --test tests/course.test.mjs`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { startServer, launch, watchedPage, axe, WEB, ROOT } from './harness.mjs';
import { compareText, digitsText, isNumberList, numberListText, verdictText } from '../src/live-text.js';

const require = createRequire(import.meta.url);
const DEFAULT_CHIP = 'tpu-v5e';
const OTHER_CHIPS = ['tpu-v5p', 'h100']; // a TPU whose numbers differ, and a GPU (TPU-only calculators must show a placeholder)
const BAD_TEXT = /NaN|undefined|Infinity|\[object/;
const CONTENT = path.join(WEB, 'content');
const CHAPTERS = fs.readdirSync(CONTENT).filter((f) => /^\d\d-[a-z0-9-]+\.md$/.test(f)).sort()
  .map((f) => ({ key: f.replace(/\.md$/, ''), md: fs.readFileSync(path.join(CONTENT, f), 'utf8') }));

let server, browser, engine, chips, shared;
const derivationErrors = new Set(); // KaTeX errors in the engine's derivation steps (questions, labs)
before(async () => {
  const dir = path.resolve(ROOT, process.env.SCALELAB_WASM_DIR || 'build-wasm', 'node');
  engine = await require(path.join(dir, 'engine.cjs'))({ wasmBinary: fs.readFileSync(path.join(dir, 'engine.wasm')) });
  chips = JSON.parse(engine.chips());
  server = await startServer();
  browser = await launch();
  shared = await watchedPage(browser.context, server.url);
});
after(async () => { await browser?.close(); await server?.stop(); });

// ---------------------------------------------------------------- the engine, as the page uses it
const getPath = (o, dotted) => dotted.split('.').reduce((x, k) => (x == null ? undefined : x[k]), o);
const evaluate = (calc, params) => JSON.parse(engine.evaluate(calc, JSON.stringify(params)));
function paramsFor(d, chip) {
  const p = JSON.parse(d.params || '{}');
  if (d.chip !== 'fixed' && !('chip' in p)) p.chip = chip;
  return p;
}
function unitOf(r, out) {
  return engine.outputUnit(r.calculator, out);
}
function format(v, unit) {
  if (typeof v === 'string') return v;
  if (isNumberList(v)) return numberListText(v);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v !== 'number' || !Number.isFinite(v)) return '—';
  return engine.formatQuantity(v, unit);
}
/** A :verdict's or :compare's words for `chip` (null where the engine has no value), undefined for a plain number. */
function sentenceWords(d, chip) {
  if (d.kind === 'verdict') {
    const r = evaluate(d.calc, paramsFor(d, chip));
    return r.error ? null : verdictText(getPath(r.outputs, d.out), d.words);
  }
  if (d.kind === 'compare') {
    const a = evaluate(d.calc, paramsFor(d, chip)), b = evaluate(d.vsCalc, paramsFor({ ...d, params: d.vsParams }, chip));
    return a.error || b.error ? null : compareText(getPath(a.outputs, d.out), getPath(b.outputs, d.vsOut), d.form, d.words, d.unit ?? unitOf(a, d.out));
  }
  return undefined;
}
/** What a `.live` element must read for `chip` (src/chapter.ts valueText), or PLACEHOLDER where the engine has no number. */
const PLACEHOLDER = null;
const PLACEHOLDER_TEXT = /^(n\/a|—)$/;
function expectedLive(d, chip) {
  const words = sentenceWords(d, chip);
  if (words !== undefined) return words ?? d.none ?? PLACEHOLDER;
  const r = evaluate(d.calc, paramsFor(d, chip));
  if (r.error) return d.none ?? PLACEHOLDER;
  const v = getPath(r.outputs, d.out);
  if (v == null && d.none !== undefined) return d.none;
  if (v == null) return PLACEHOLDER; // not defined for this chip (a TPU-only figure on a GPU, …)
  const unit = d.unit ?? unitOf(r, d.out);
  // with more digits than the engine's three: the page's own rule (src/live-text.js digitsText): the
  // number, then its unit, none for a unit the engine writes bare, a share as a percentage
  if (d.digits && typeof v === 'number') return digitsText(v, unit, d.digits, format);
  return format(v, unit);
}
const chipName = (id) => chips.find((c) => c.id === id).name;

// ---------------------------------------------------------------- page helpers
const visibleSteps = (page) => page.$$eval('section.step', (ss) => ss.filter((s) => !s.hidden).map((s) => s.id));
const lives = (page) => page.$$eval('article.chapter .live', (els) => els.map((e) => ({
  calc: e.dataset.calc, out: e.dataset.out, params: e.dataset.params, chip: e.dataset.chip, unit: e.dataset.unit, digits: e.dataset.digits, text: e.textContent,
  kind: e.dataset.kind, words: e.dataset.words, form: e.dataset.form, vsCalc: e.dataset.vsCalc, vsOut: e.dataset.vsOut, vsParams: e.dataset.vsParams, none: e.dataset.none,
})));
/** Text anywhere in the document (hidden steps and folded blocks included) that reads NaN, undefined, … */
const badText = (page) => page.evaluate((re) => {
  const rx = new RegExp(re);
  const found = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (n.parentElement?.closest('script, style, annotation')) continue;
    if (rx.test(n.textContent)) found.push(`${n.parentElement?.className || n.parentElement?.localName}: ${n.textContent.trim().slice(0, 80)}`);
  }
  for (const el of document.querySelectorAll('input, [title], [aria-label]')) {
    for (const v of [el.value, el.getAttribute('title'), el.getAttribute('aria-label')]) if (v && rx.test(v)) found.push(`${el.localName} attribute: ${v.slice(0, 80)}`);
  }
  return found;
}, BAD_TEXT.source);
async function selectChip(page, id) {
  await page.selectOption('#chip-select', id);
  await page.waitForFunction((id) => localStorage.getItem('scalelab.chip') === id, id);
}
async function setMode(page, mode) {
  await page.click(`.mode-switch button[data-mode="${mode}"]`);
  await page.waitForFunction((m) => document.documentElement.classList.contains(`mode-${m}`), mode);
}
/** Waits until every live number reads what the engine says for `chip`; on timeout, reports the differences. */
async function checkLives(page, chip) {
  const want = (await lives(page)).map((d) => expectedLive(d, chip));
  try {
    await page.waitForFunction((want) => {
      const els = [...document.querySelectorAll('article.chapter .live')];
      return els.length === want.length && els.every((e, i) => (want[i] === null ? /^(n\/a|—)$/.test(e.textContent) : e.textContent === want[i]));
    }, want, { timeout: 5000 });
  } catch {
    const got = await lives(page);
    const diff = got.map((d, i) => (d.text === want[i] || (want[i] === PLACEHOLDER && PLACEHOLDER_TEXT.test(d.text)) ? null : `${d.calc}.${d.out} ${d.params}: page "${d.text}", engine "${want[i] ?? 'n/a or —'}"`)).filter(Boolean);
    assert.deepEqual(diff, [], `live numbers on ${chip}`);
  }
  return want;
}
/** Submits answers in the page, each as the form's own submit (what the button does), and
 *  returns each form's feedback once it shows the class it should: one round trip for them all.
 *  `items`: [{ index, value, cls }], in order. */
const answerInPage = (page, items) => page.evaluate(async (items) => {
  const forms = [...document.querySelectorAll('form.question')];
  const one = (f, value, cls) => new Promise((res) => {
    const fb = f.querySelector('.q-feedback');
    fb.className = 'q-feedback'; fb.textContent = '';
    const o = new MutationObserver(() => { if (fb.classList.contains(cls)) { o.disconnect(); clearTimeout(t); res({ ok: true, text: fb.innerText }); } });
    const t = setTimeout(() => { o.disconnect(); res({ ok: false, text: `"${fb.className}" ${fb.textContent}` }); }, 5000);
    o.observe(fb, { attributes: true, childList: true });
    f.querySelector('input[name=answer]').value = value;
    f.requestSubmit();
  });
  const out = [];
  for (const { index, value, cls } of items) out.push(await one(forms[index], value, cls));
  return out;
}, items);
/** Answers every question on the page for `chip`: the engine's answer is accepted, four times it is
 *  refused (`wrong`), and the derivation opened after is typeset. The first question is answered as a
 *  reader does (typed, then the button); the rest through the form's submit, in one round trip. */
async function checkQuestions(page, chip, { wrong = true } = {}) {
  const all = await page.$$eval('form.question', (fs) => fs.map((e, index) => ({ index, hidden: e.closest('.when[hidden]') !== null,
    calc: e.dataset.calc, out: e.dataset.out, params: e.dataset.params, chip: e.dataset.chip, tol: e.dataset.tol, prompt: e.querySelector('.q-prompt').textContent })));
  const items = [], asked = [];
  // a question inside a :::when block hidden on this chip is not asked here (the build's chip gate
  // checked that it has an answer wherever its block shows)
  for (const d of all.filter((q) => !q.hidden)) {
    const label = `question "${d.prompt.slice(0, 60)}…" on ${chip}`;
    const r = evaluate(d.calc, paramsFor(d, chip));
    const answer = r.error ? null : getPath(r.outputs, d.out);
    if (answer == null) {
      // the engine has no answer on this chip: the question says so instead of grading
      items.push({ index: d.index, value: '1', cls: 'refused', label });
      continue;
    }
    assert.equal(typeof answer, 'number', `${label}: ${d.calc}.${d.out} is a number`);
    assert.ok(Number.isFinite(answer), `${label}: finite answer`);
    items.push({ index: d.index, value: answer.toPrecision(8), cls: 'right', label });
    if (wrong) items.push({ index: d.index, value: String(answer === 0 ? 1 : answer * 4), cls: 'wrong', label });
    asked.push(d);
  }
  if (!items.length) return all.length;
  // the first, as a reader answers it
  const first = items.shift();
  const f = page.locator('form.question').nth(first.index);
  await f.locator('.q-feedback').evaluate((e) => { e.className = 'q-feedback'; e.textContent = ''; });
  await f.locator('input[name=answer]').fill(first.value);
  await f.locator('button[type=submit]').click();
  await page.waitForFunction(([e, cls]) => e.classList.contains(cls), [await f.locator('.q-feedback').elementHandle(), first.cls], { timeout: 5000 })
    .catch(() => assert.fail(`${first.label}: ${first.value}: no "${first.cls}" feedback`));
  const results = [{ ok: true, text: await f.locator('.q-feedback').innerText() }, ...await answerInPage(page, items)];
  [first, ...items].forEach((it, i) => {
    assert.ok(results[i].ok, `${it.label}: ${it.value}: no "${it.cls}" feedback: ${results[i].text}`);
    assert.doesNotMatch(results[i].text, BAD_TEXT, it.label);
    if (it.cls === 'wrong') assert.match(results[i].text, /Not yet/, it.label);
  });
  if (!wrong) return all.length;
  // the derivations are typeset when opened (chapter.ts): their steps, and the answer each ends on
  const opened = asked.map((d) => d.index);
  await page.evaluate((opened) => { const fs = document.querySelectorAll('form.question'); for (const i of opened) fs[i].querySelector('details.q-derivation').open = true; }, opened);
  await page.waitForFunction((opened) => { const fs = document.querySelectorAll('form.question'); return opened.every((i) => !!fs[i].dataset.stepsFor); }, opened, { timeout: 10000 })
    .catch(() => assert.fail(`on ${chip}: a derivation was not typeset once opened`));
  const typeset = await page.evaluate((opened) => { const fs = document.querySelectorAll('form.question');
    return opened.map((i) => ({ steps: fs[i].querySelectorAll('.q-steps ol.derivation li').length, text: fs[i].querySelector('.q-steps').textContent })); }, opened);
  typeset.forEach((t, k) => {
    const label = `question "${asked[k].prompt.slice(0, 60)}…" on ${chip}`;
    assert.ok(t.steps >= 1, `${label}: derivation steps`);
    assert.doesNotMatch(t.text, BAD_TEXT, `${label}: derivation`);
  });
  return all.length;
}
/** axe-core without KaTeX's visual half (.katex-html: aria-hidden, most of a chapter's nodes; the MathML
 *  that assistive technology reads stays): 1–2 s instead of 20 s a chapter. Leaves the page altered. */
async function axeQuick(page) {
  await page.evaluate(() => document.querySelectorAll('.katex-html').forEach((e) => e.remove()));
  return axe(page);
}
const clean = (problems) => { problems.console.length = 0; problems.errors.length = 0; problems.thirdParty.length = 0; };

// ---------------------------------------------------------------- every chapter
for (const { key, md } of CHAPTERS) {
  test(`chapter ${key}`, async () => {
    const { page, problems } = shared;
    clean(problems);
    const CH = `${server.url}/chapters/${key}/`;
    await page.goto(CH);
    await page.evaluate(() => localStorage.clear());
    await page.goto(CH + '#step-1');
    await page.reload();
    const n = Number(await page.locator('article.chapter').getAttribute('data-steps'));
    const headings = md.replace(/^---[\s\S]*?\n---/, '').replace(/```[\s\S]*?```/g, '').split('\n').filter((l) => /^## /.test(l)).length;
    assert.equal(n, Math.max(1, headings), 'one step per ## heading');
    assert.equal(await page.locator('section.step').count(), n);

    // every step by its URL: the address's fragment set in the page, each step read after the
    // page has handled it (one round trip for them all; Next and → below go through the UI)
    const byUrl = await page.evaluate(async (n) => {
      const out = [];
      for (let k = 1; k <= n; k++) {
        if (location.hash !== `#step-${k}`) {
          const changed = new Promise((res) => addEventListener('hashchange', res, { once: true }));
          location.hash = `#step-${k}`;
          await changed;
        }
        await new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0)));
        const s = document.getElementById(`step-${k}`);
        out.push({ visible: [...document.querySelectorAll('section.step')].filter((e) => !e.hidden).map((e) => e.id),
          status: document.querySelector('.step-status').innerText, text: s.innerText.trim().length, height: s.getBoundingClientRect().height });
      }
      return out;
    }, n);
    byUrl.forEach((got, i) => {
      const k = i + 1;
      assert.deepEqual(got.visible, [`step-${k}`], `#step-${k}`);
      assert.equal(got.status, `Step ${k} of ${n}`);
      assert.ok(got.text > 40, `step ${k} has text`);
      assert.ok(got.height > 40, `step ${k} is laid out`);
    });
    // … and by Next and →, from the first
    await page.goto(`${CH}#step-1`);
    for (let k = 2; k <= n; k++) {
      if (k % 2) { await page.locator('.stepper .step-status').click(); await page.keyboard.press('ArrowRight'); }
      else await page.click('.stepper .next');
      assert.deepEqual(await visibleSteps(page), [`step-${k}`], `Next/→ to step ${k}`);
      assert.equal(new URL(page.url()).hash, `#step-${k}`);
    }
    assert.equal(await page.locator('.stepper .next').isDisabled(), true, 'Next is disabled on the last step');
    assert.equal(await page.locator('article.chapter').evaluate((a) => a.classList.contains('done')), true, 'chapter completed');

    // show all
    await page.check('.show-all input');
    assert.equal((await visibleSteps(page)).length, n, 'show all');
    assert.equal(new URL(page.url()).hash, '#all');
    await page.goto(CH + '#step-2');
    await page.goto(CH + '#all');
    assert.equal((await visibleSteps(page)).length, n, '#all URL shows every step');

    // math typeset at build time: no KaTeX errors in the prose, no stray $$ fences
    assert.deepEqual(await page.$$eval('.steps .katex-error', (es) => es.filter((e) => !e.closest('.q-derivation, [data-lab]')).map((e) => e.title.slice(0, 100))), [], 'KaTeX errors');
    assert.deepEqual(await page.$$eval('.steps p, .steps li, .steps span:not(.katex *)', (es) => es.filter((e) => !e.closest('code, pre, .katex') && [...e.childNodes].some((c) => c.nodeType === 3 && c.textContent.includes('$$'))).map((e) => e.textContent.slice(0, 80))), [], 'no raw $$ in the text');
    // links to steps land on steps that exist
    const links = await page.$$eval('.steps a[href*="#step-"]', (as) => as.map((a) => a.getAttribute('href')));
    for (const href of links) {
      const m = /^(?:\/chapters\/([^/#]+)\/)?#step-(\d+)$/.exec(href);
      assert.ok(m, `link ${href}`);
      const target = CHAPTERS.find((c) => c.key === (m[1] || key));
      assert.ok(target, `link ${href}: chapter exists`);
      const steps = target.md.replace(/^---[\s\S]*?\n---/, '').replace(/```[\s\S]*?```/g, '').split('\n').filter((l) => /^## /.test(l)).length;
      assert.ok(Number(m[2]) >= 1 && Number(m[2]) <= steps, `link ${href}: step exists (of ${steps})`);
    }

    // Plain vs Technical
    const technical = page.locator('details.technical');
    const nt = await technical.count();
    assert.ok(nt > 0, 'at least one technical block, so that Plain and Technical differ');
    const state = () => page.$$eval('details.technical', (ds) => ds.map((d) => `${d.open}/${getComputedStyle(d.querySelector('summary')).display !== 'none'}`));
    assert.deepEqual(await state(), Array(nt).fill('false/true'), 'Plain: technical blocks folded, summary shown');
    await setMode(page, 'technical');
    assert.deepEqual(await state(), Array(nt).fill('true/false'), 'Technical: technical blocks inline');
    if (nt) assert.equal(await technical.first().locator('.technical-body').isVisible(), true);
    assert.equal(await page.locator('.plain-only').evaluateAll((es) => es.filter((e) => e.offsetParent !== null).length), 0, 'Technical hides plain-only text');
    await setMode(page, 'plain');
    assert.deepEqual(await state(), Array(nt).fill('false/true'), 'back in Plain: folded again');
    assert.equal(await page.locator('.plain-only').evaluateAll((es) => es.filter((e) => e.offsetParent === null).length), 0, 'Plain shows plain-only text');

    // live numbers: pre-rendered for the chapter's chip (chapter 12: the H100, which it
    // switches to on entry) or the default chip, recomputed for the others
    const own = (await page.locator('article.chapter').getAttribute('data-chip')) ?? DEFAULT_CHIP;
    const onDefault = await checkLives(page, own);
    let changed = false;
    const liveData = await lives(page);
    const chipDependent = liveData.filter((d) => d.chip !== 'fixed' && !('chip' in JSON.parse(d.params || '{}')));
    for (const chip of [DEFAULT_CHIP, ...OTHER_CHIPS].filter((c) => c !== own)) {
      await selectChip(page, chip);
      if (await page.locator('.chipname').count()) {
        await page.waitForFunction((name) => [...document.querySelectorAll('.chipname')].every((e) => e.textContent === name), chipName(chip));
      }
      const now = await checkLives(page, chip);
      if (now.some((t, i) => t !== onDefault[i] && t !== PLACEHOLDER)) changed = true;
      assert.deepEqual(await badText(page), [], `no NaN/undefined on ${chip}`);
      await checkQuestions(page, chip, { wrong: false });
    }
    if (chipDependent.length) assert.ok(changed, `some of the ${chipDependent.length} chip-dependent live numbers change with the chip`);
    await selectChip(page, DEFAULT_CHIP);
    await checkLives(page, DEFAULT_CHIP);
    const nq = await checkQuestions(page, DEFAULT_CHIP);
    assert.ok(nq >= 3, `at least three questions (got ${nq})`);

    // labs placed in the chapter come up; then nothing on the page reads NaN/undefined; axe
    for (const lab of await page.locator('.steps [data-lab]').all()) {
      await lab.scrollIntoViewIfNeeded();
      const tag = await lab.evaluate((e) => e.localName);
      assert.notEqual(tag, 'div', `lab "${await lab.getAttribute('data-lab')}" is registered (not "coming soon")`);
      if (tag !== 'sl-matmul-experiment') await page.waitForFunction((e) => Number(e.dataset.rendered) > 0, await lab.elementHandle(), { timeout: 10000 });
    }
    assert.deepEqual(await badText(page), [], 'no NaN/undefined/Infinity/[object] text');
    for (const e of await page.$$eval('.q-derivation .katex-error, [data-lab] .katex-error', (es) => es.map((e) => e.title.slice(0, 90)))) derivationErrors.add(`${key}: ${e}`);
    assert.deepEqual(await axeQuick(page), [], 'axe (show all, Plain)');
    await page.goto(CH + '#step-1');
    assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  });
}

// ---------------------------------------------------------------- other pages, phone, memory
test('home, errata, about (and a chapter in the dark theme): axe, no NaN/undefined', async () => {
  const { page, problems } = shared;
  clean(problems);
  for (const p of ['/', '/errata/', '/about/']) {
    await page.goto(server.url + p);
    assert.deepEqual(await axe(page), [], `axe on ${p}`);
    assert.deepEqual(await badText(page), [], p);
    assert.ok((await page.title()).length > 5, `${p} has a title`);
  }
  // dark theme: contrast on a chapter with technical blocks, a question and a lab
  await page.goto(`${server.url}/chapters/01-rooflines/#all`);
  await page.evaluate(() => { localStorage.setItem('scalelab.theme', 'dark'); localStorage.setItem('scalelab.mode', 'technical'); });
  await page.reload();
  assert.equal(await page.locator('html').getAttribute('data-theme'), 'dark');
  await page.locator('.steps [data-lab]').first().scrollIntoViewIfNeeded();
  await page.waitForFunction(() => Number(document.querySelector('.steps [data-lab]').dataset.rendered) > 0);
  assert.deepEqual(await axeQuick(page), [], 'axe, dark theme, Technical');
  await page.evaluate(() => { localStorage.removeItem('scalelab.theme'); localStorage.removeItem('scalelab.mode'); });
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
});

test('375 px wide: no horizontal overflow (every chapter, steps and show all, both modes)', async () => {
  const { page, problems } = shared;
  clean(problems);
  await page.setViewportSize({ width: 375, height: 740 });
  // Every lab on the page shown: a lab loads and answers when it nears the viewport, and its
  // tables (the widest things a step holds) come with its first answer.
  const labsRendered = async (p) => {
    const count = await p.evaluate(() => [...document.querySelectorAll('main *')]
      .filter((e) => /^sl-[\w-]+-lab$/.test(e.localName) && e.getClientRects().length)
      .map((e, i) => e.setAttribute('data-probe', String(i))).length);
    for (let i = 0; i < count; i++) {
      const lab = p.locator(`main [data-probe="${i}"]`);
      await lab.scrollIntoViewIfNeeded();
      await p.waitForFunction((at) => document.querySelector(`main [data-probe="${at}"]`)?.hasAttribute('data-rendered'), i);
    }
  };
  const overflow = () => page.evaluate(() => {
    const w = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('main *')].filter((e) => {
      const r = e.getBoundingClientRect();
      if (!r.width || r.right <= w + 1) return false;
      // inside a box that scrolls sideways on purpose (display math, code, tables, plots)
      for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (/(auto|scroll|hidden|clip)/.test(s.overflowX) && a.getBoundingClientRect().right <= w + 1) return false;
      }
      return true;
    }).slice(0, 3).map((e) => `${e.localName}.${e.className}`);
    return { scroll: document.documentElement.scrollWidth, w, wide };
  });
  try {
    for (const { key } of CHAPTERS) {
      for (const [hash, mode] of [['#step-1', 'plain'], ['#all', 'technical']]) {
        await page.goto(`${server.url}/chapters/${key}/${hash}`);
        await setMode(page, mode);
        await labsRendered(page); // a lab's tables come with its first answer, after the engine loads
        const o = await overflow();
        assert.ok(o.scroll <= o.w && o.wide.length === 0, `${key}${hash} (${mode}) overflows: ${JSON.stringify(o)}`);
      }
    }
    await setMode(page, 'plain');
    for (const p of ['/', '/errata/', '/about/']) {
      await page.goto(server.url + p);
      const o = await overflow();
      assert.ok(o.scroll <= o.w, `${p} overflows: ${JSON.stringify(o)}`);
    }
  } finally {
    await page.setViewportSize({ width: 1280, height: 720 });
  }
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
});

test('the reader\'s place, progress, chip and mode survive a reload', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  const [a, b] = CHAPTERS.slice(1, 3).map((c) => c.key);
  await page.goto(`${server.url}/`);
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${server.url}/chapters/${a}/#step-3`);
  await page.reload();
  await page.click('.stepper .next');
  assert.deepEqual(await visibleSteps(page), ['step-4']);
  await selectChip(page, 'tpu-v5p');
  await setMode(page, 'technical');
  // back to the chapter's bare address: the place is remembered
  await page.goto(`${server.url}/chapters/${a}/`);
  assert.deepEqual(await visibleSteps(page), ['step-4']);
  await page.reload();
  assert.deepEqual(await visibleSteps(page), ['step-4']);
  assert.equal(await page.locator('#chip-select').inputValue(), 'tpu-v5p');
  assert.equal(await page.locator('html').evaluate((h) => h.classList.contains('mode-technical')), true);
  // a chapter read to the end is marked completed; the started one shows its place
  await page.goto(`${server.url}/chapters/${b}/#step-1`);
  const n = Number(await page.locator('article.chapter').getAttribute('data-steps'));
  for (let k = 2; k <= n; k++) await page.click('.stepper .next');
  await page.goto(server.url + '/');
  await page.reload();
  assert.match(await page.locator(`.chapter-card[data-key="${a}"] .progress-text`).innerText(), /2 of \d+ read, at step 4/);
  assert.match(await page.locator(`.chapter-card[data-key="${b}"] .progress-text`).innerText(), /completed/);
  await page.evaluate(() => localStorage.clear());
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

// The derivation steps are the engine's TeX (engine/src/calculators/*): reported here, not in
// the chapter tests, since the web cannot fix them.
test('the engine\'s derivation steps typeset without KaTeX errors', () => {
  assert.deepEqual([...derivationErrors], []);
});
