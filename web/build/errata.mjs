// The errata page (/errata/): every test vector marked `"disputed": true` in
// tests/cases/*.json (the single source; see tests/cases/FORMAT.md), grouped by chapter in
// the book's order. For each case the page shows where it is in the book, the book's printed
// value(s), the exact value(s) the engine computes, the relative difference and the reason.
//
// Every case is evaluated here with the engine's Node build, and the build FAILS when the
// engine's outputs no longer match the case's `expected` (or a `book_value` names an output
// the engine does not produce), so the page cannot drift from the engine.
//
//   import { errataBody } from './errata.mjs';
//   const html = errataBody({ engine, chapters });   // engine: the loaded Node wasm module
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CASES_DIR = path.join(ROOT, 'tests', 'cases');
const BOOK = 'https://jax-ml.github.io/scaling-book/';

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** All disputed cases, in file order (each file is an array of cases). */
export function loadDisputedCases(dir = CASES_DIR) {
  const out = [];
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.json')).sort()) {
    const cases = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
    if (!Array.isArray(cases)) throw new Error(`errata: ${f} is not an array of cases`);
    for (const c of cases) if (c.disputed === true) out.push({ ...c, file: f });
  }
  return out;
}

// ---------------------------------------------------------------- comparison (FORMAT.md rules)
// numbers within rel_tol (an expected 0 must be 0); strings case-insensitively; booleans
// exactly; lists element by element with the same length; an expected object is a subset.
function mismatches(expected, actual, tol, where = '', out = []) {
  if (typeof expected === 'number') {
    const ok = typeof actual === 'number' && Number.isFinite(actual) &&
      (expected === 0 ? actual === 0 : Math.abs(actual - expected) <= tol * Math.abs(expected));
    if (!ok) out.push(`${where || 'value'}: expected ${expected}, engine gives ${JSON.stringify(actual)}`);
  } else if (typeof expected === 'string') {
    if (typeof actual !== 'string' || actual.toLowerCase() !== expected.toLowerCase()) out.push(`${where}: expected "${expected}", engine gives ${JSON.stringify(actual)}`);
  } else if (typeof expected === 'boolean') {
    if (actual !== expected) out.push(`${where}: expected ${expected}, engine gives ${JSON.stringify(actual)}`);
  } else if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) out.push(`${where}: expected a list of ${expected.length}, engine gives ${JSON.stringify(actual)?.slice(0, 120)}`);
    else expected.forEach((e, i) => mismatches(e, actual[i], tol, `${where}[${i}]`, out));
  } else if (isObj(expected)) {
    if (!isObj(actual)) out.push(`${where}: expected an object, engine gives ${JSON.stringify(actual)?.slice(0, 120)}`);
    else for (const k of Object.keys(expected)) mismatches(expected[k], actual[k], tol, where ? `${where}.${k}` : k, out);
  } else if (expected === null) {
    if (actual !== null) out.push(`${where}: expected null, engine gives ${JSON.stringify(actual)}`);
  }
  return out;
}

/** Evaluates every disputed case; throws (failing the build) on any disagreement with `expected`. */
export function checkCases(engine, cases) {
  const failures = [];
  const results = new Map();
  for (const c of cases) {
    let r;
    try { r = JSON.parse(engine.evaluate(c.calculator, JSON.stringify(c.params))); } catch (e) {
      failures.push(`${c.id}: engine threw: ${e?.message ?? e}`);
      continue;
    }
    if (r.error) { failures.push(`${c.id}: engine error: ${r.error.param ?? ''}: ${r.error.message ?? JSON.stringify(r.error)}`); continue; }
    const bad = mismatches(c.expected, r.outputs, c.rel_tol ?? 1e-6);
    for (const b of bad) failures.push(`${c.id}: ${b}`);
    if (!c.book_value || !isObj(c.book_value)) failures.push(`${c.id}: disputed but has no book_value object`);
    else {
      for (const leaf of leaves(c.book_value, r.outputs)) {
        if (typeof leaf.book !== typeof leaf.exact) failures.push(`${c.id}: book_value.${leaf.path.join('.')} has no matching engine output`);
      }
    }
    results.set(c.id, r);
  }
  if (failures.length) {
    throw new Error(`errata: ${failures.length} disputed case(s) no longer match the engine ` +
      `(fix the engine or tests/cases, the page is built from both):\n  ${failures.join('\n  ')}`);
  }
  return results;
}

// ---------------------------------------------------------------- values
// The leaves of book_value, each paired with the engine's value at the same place.
function leaves(book, exact, p = [], labels = [], out = []) {
  if (Array.isArray(book) || isObj(book)) {
    for (const k of Object.keys(book)) {
      const i = Array.isArray(book) ? Number(k) : k;
      const e = exact == null ? undefined : exact[i];
      // A list item is named by its first string field (levels[nvlink]) rather than its index.
      let label = Array.isArray(book) ? `[${k}]` : (labels.length ? `.${k}` : k);
      if (Array.isArray(book) && isObj(book[i])) {
        const id = Object.keys(book[i]).find((f) => typeof book[i][f] === 'string' && isObj(e) && e[f] === book[i][f]);
        if (id) label = `[${book[i][id]}]`;
      }
      leaves(book[i], e, [...p, i], [...labels, label], out);
    }
    return out;
  }
  out.push({ path: p, label: labels.join(''), book, exact });
  return out;
}

// The unit of an output, as the engine's schema declares it. A leaf inside a list of objects
// (collectives[0].t_s) has no declaration of its own yet: it takes the unit of the derivation
// step that produced the same value.
function unitFor(engine, result, leaf) {
  const u = engine.outputUnit(result.calculator, leaf.path.join('.'));
  if (u || leaf.path.length === 1) return u;
  const step = [...(result.steps || [])].reverse().find((s) => s.value === leaf.exact);
  return step ? step.unit || '' : '';
}

function fmt(engine, v, unit) {
  if (typeof v === 'number') return engine.formatQuantity(v, unit);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
}

function relDiff(book, exact) {
  if (typeof book !== 'number' || typeof exact !== 'number') {
    return String(book).toLowerCase() === String(exact).toLowerCase() ? 'same' : 'a different answer';
  }
  if (exact === 0) return book === 0 ? 'none' : 'not defined (exact value is 0)';
  const pct = ((book - exact) / Math.abs(exact)) * 100;
  const a = Math.abs(pct);
  const s = a >= 10 ? a.toFixed(0) : a >= 1 ? a.toFixed(1) : Number(a.toPrecision(2)).toString();
  if (Number(s) === 0) return 'less than 0.01%';
  return `${pct > 0 ? '+' : '−'}${s}%`;
}

// Light typographic edits for reading; the notes' wording and meaning are untouched:
// multiplication signs written as "x" or "*" become ×, "us" after a number becomes µs
// and "->" becomes →.
export function readable(notes) {
  return String(notes)
    .replace(/(?<=[\w)\]]) x (?=[\w(~])/g, ' × ')
    .replace(/(?<=[\w)])\*(?=[\w(])/g, '×')
    .replace(/(?<=\d) us\b/g, ' µs')
    .replace(/ -> /g, ' → ');
}

// ---------------------------------------------------------------- page
const INTRO = `<p class="lede">The book does its arithmetic the way a good engineer does on a whiteboard:
it rounds 1,048,576 to a million, calls a 19.47 ms step "19 ms", and once in a while a digit slips.
For estimates that is exactly the right habit, and it rarely changes a conclusion. This course works
differently: every number you see is computed by one engine, with no rounding along the way.</p>
<p>So here, a case is <strong>disputed</strong> when the figure printed in the book and the exact result
for the same inputs do not agree: usually because the book rounded a step of the calculation, sometimes
because of a slip or a looser assumption. Elsewhere in the course we show the exact value. This page
lists every such place, with both numbers, how far apart they are and why, so you can check
our reading against the original. Where a difference changes the book's conclusion, the reason says so.</p>
<p>The list is generated from the course's test vectors each time the site is built, and the build stops if
the engine's answer to any of them changes, so what you read here is what the engine computes.</p>`;

function chapterLinks(c, ch) {
  const parts = [];
  if (ch?.ready && ch.key) parts.push(`<a href="/chapters/${esc(ch.key)}/">In the course: chapter ${ch.chapter}, ${esc(ch.title)}</a>`);
  const original = ch?.original || BOOK;
  parts.push(`<a class="original-link" href="${esc(original)}">In the original book${ch ? `: ${esc(ch.title)}` : ''}</a>`);
  return parts.join(' · ');
}

/** The page body HTML (the part inside <main>). `chapters`: [{chapter, key, title, original, ready}]. */
export function errataBody({ engine, chapters = [], casesDir = CASES_DIR }) {
  const cases = loadDisputedCases(casesDir);
  const results = checkCases(engine, cases);
  const byChapter = new Map();
  for (const c of cases) {
    const n = Number(c.chapter);
    if (!byChapter.has(n)) byChapter.set(n, []);
    byChapter.get(n).push(c);
  }
  const order = [...byChapter.keys()].sort((a, b) => a - b);
  const chapterOf = (n) => chapters.find((ch) => ch.chapter === n);
  const titleOf = (n) => chapterOf(n)?.title ?? `Chapter ${n}`;

  const toc = `<nav class="errata-toc" aria-label="Errata by chapter"><ul>${order.map((n) =>
    `<li><a href="#chapter-${n}">Chapter ${n}: ${esc(titleOf(n))}</a> (${byChapter.get(n).length})</li>`).join('')}</ul></nav>`;

  const sections = order.map((n) => {
    const ch = chapterOf(n);
    const items = byChapter.get(n).map((c) => {
      const r = results.get(c.id);
      const rows = leaves(c.book_value, r.outputs)
        // an item's naming field (levels[nvlink]) is an identifier, not a disputed value
        .filter((l) => !(typeof l.book === 'string' && l.path.some((k) => typeof k === 'number') && l.book === l.exact))
        .map((l) => {
          const unit = unitFor(engine, r, l);
          const raw = (v) => (typeof v === 'number' ? `<br><small class="raw">(${esc(String(v))})</small>` : '');
          return `<tr><th scope="row"><code>${esc(l.label)}</code></th>
<td class="book-value">${esc(fmt(engine, l.book, unit))}${raw(l.book)}</td>
<td class="exact-value">${esc(fmt(engine, l.exact, unit))}${raw(l.exact)}</td>
<td class="rel-diff">${relDiff(l.book, l.exact)}</td></tr>`;
        }).join('\n');
      const source = String(c.source || '').split(/\s+>\s+/).map(esc).join(' › ');
      return `<article class="erratum" id="${esc(c.id)}" data-case="${esc(c.id)}">
<h3>${esc(c.summary)}</h3>
<p class="erratum-source">Where: <cite>${source}</cite><br>${chapterLinks(c, ch)}</p>
<div class="lb-scroll" role="region" aria-label="Values for ${esc(c.id)}" tabindex="0">
<table class="lb-table errata-table">
<caption>Book and exact values</caption>
<thead><tr><th scope="col">Output</th><th scope="col">Book prints</th><th scope="col">Exact (engine)</th><th scope="col">Book vs exact</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</div>
<p class="erratum-why"><strong>Why they differ.</strong> ${esc(readable(c.notes || ''))}</p>
<p class="erratum-call"><small>Engine call: <code>${esc(c.calculator)}</code> with <code>${esc(JSON.stringify(c.params)).replace(/,/g, ',<wbr>')}</code> · case <code>${esc(c.id)}</code></small></p>
</article>`;
    }).join('\n');
    return `<section class="errata-chapter" aria-labelledby="chapter-${n}">
<h2 id="chapter-${n}">Chapter ${n}: ${esc(titleOf(n))}</h2>
${items}
</section>`;
  }).join('\n');

  return `<section class="prose errata" data-count="${cases.length}">
<h1>Errata: where the book's numbers and exact arithmetic differ</h1>
${INTRO}
<p>${cases.length} places in ${order.length} chapters of <a href="${BOOK}"><cite>How to Scale Your Model</cite></a>
(Austin et al., Google DeepMind, 2025). "Book vs exact" is how far the book's value lies above (+) or below (−) the exact one.
Formatted values are rounded for reading; the raw value is in brackets.</p>
${toc}
${sections}
</section>`;
}
