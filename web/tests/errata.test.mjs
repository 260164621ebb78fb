// The errata page (built from the disputed cases in tests/cases by build/errata.mjs) and the
// about page (web/content/about.md): content, credits, console, axe.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, launch, watchedPage, axe, ROOT } from './harness.mjs';

const BOOK = 'https://jax-ml.github.io/scaling-book/';
const casesDir = path.join(ROOT, 'tests', 'cases');
const disputed = fs.readdirSync(casesDir).filter((f) => f.endsWith('.json'))
  .flatMap((f) => JSON.parse(fs.readFileSync(path.join(casesDir, f), 'utf8')))
  .filter((c) => c.disputed === true);

let server, browser;
before(async () => { server = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.stop(); });

async function head(page) {
  return {
    title: await page.title(),
    description: await page.locator('meta[name="description"]').getAttribute('content'),
  };
}

test('errata lists every disputed case with book and exact values, passes axe', async () => {
  assert.ok(disputed.length > 0, 'tests/cases has disputed cases');
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/errata/');
  const { title, description } = await head(page);
  assert.match(title, /Errata/);
  assert.ok(description && description.length > 40, 'meta description');
  assert.equal(await page.locator('h1').count(), 1);

  const entries = page.locator('.erratum');
  assert.equal(await entries.count(), disputed.length, 'one entry per disputed case');
  const ids = await entries.evaluateAll((els) => els.map((e) => e.id));
  assert.deepEqual([...ids].sort(), disputed.map((c) => c.id).sort());

  // grouped by chapter, in the book's order
  const groups = await page.locator('.errata-chapter h2').evaluateAll((hs) => hs.map((h) => Number(h.id.replace('chapter-', ''))));
  assert.deepEqual(groups, [...new Set(disputed.map((c) => Number(c.chapter)))].sort((a, b) => a - b));

  for (const c of disputed) {
    const e = page.locator(`.erratum[data-case="${c.id}"]`);
    const text = await e.innerText();
    const book = await e.locator('td.book-value').allInnerTexts();
    const exact = await e.locator('td.exact-value').allInnerTexts();
    assert.ok(book.length >= 1 && book.length === exact.length, `${c.id}: book and exact values`);
    for (const t of [...book, ...exact]) assert.ok(t.trim() && !/^[—-]$/.test(t.trim()), `${c.id}: empty value`);
    assert.ok(text.includes(c.summary), `${c.id}: summary`);
    assert.ok(await e.locator('.erratum-why').count(), `${c.id}: reason`);
    assert.ok(await e.locator(`a[href^="${BOOK}"]`).count(), `${c.id}: link to the original`);
    assert.ok(await e.locator('a[href^="/chapters/"]').count(), `${c.id}: link to the course chapter`);
  }
  const all = await page.locator('main').innerText();
  assert.doesNotMatch(all, /\bNaN\b|\bundefined\b|\bInfinity\b|\[object Object\]/);
  assert.ok(await page.locator(`footer .credits a[href="${BOOK}"]`).count(), 'credits link the book');
  assert.deepEqual(await axe(page), []);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('errata reads on a 375 px phone without sideways scrolling of the page', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(server.url + '/errata/');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `page is ${overflow}px wider than the phone`);
  assert.deepEqual(await axe(page), []);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});

test('about shows the credits, citation and licence as one page, passes axe', async () => {
  const { page, problems } = await watchedPage(browser.context, server.url);
  await page.goto(server.url + '/about/');
  const { title, description } = await head(page);
  assert.match(title, /About/);
  assert.ok(description && description.length > 40, 'meta description');
  const text = await page.locator('main').innerText();
  assert.match(text, /Austin et al\., .How to Scale Your Model., Google DeepMind, online, 2025/);
  assert.match(text, /MIT licen[cs]e/);
  assert.match(text, /Jacob Austin/);
  assert.equal(await page.locator('main section.step').count(), 0, 'a single page, not steps');
  assert.ok(await page.locator(`main a[href="${BOOK}"]`).count(), 'links the book');
  assert.ok(await page.locator('main a[href="/errata/"]').count(), 'links the errata');
  assert.ok(await page.locator(`footer .credits a[href="${BOOK}"]`).count(), 'credits link the book');
  assert.doesNotMatch(text, /\bNaN\b|\bundefined\b/);
  assert.deepEqual(await axe(page), []);
  assert.deepEqual(problems, { console: [], errors: [], thirdParty: [] });
  await page.close();
});
