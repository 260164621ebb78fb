// Chapter sources (web/content/NN-*.md), read without a browser: the questions test understanding
// rather than lookup, and every lab a chapter places is paired with a Try-it in its step
// (issue 10 §2, §3). Run: node --test web/tests/content-questions.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LABS } from '../build/labs.mjs';

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** labs with an engine calculator: a Try-it beside them can check a prediction */
const CHECKABLE = new Set(LABS.filter((l) => l.calc).map((l) => l.name));

const CONTENT = path.join(WEB, 'content');
const CHAPTERS = fs.readdirSync(CONTENT).filter((f) => /^\d\d-[a-z0-9-]+\.md$/.test(f)).sort()
  .map((f) => ({ key: f.replace(/\.md$/, ''), md: fs.readFileSync(path.join(CONTENT, f), 'utf8') }));
/** at most this share of a chapter's questions may ask for a number a live figure on the page shows */
const MAX_LOOKUP_SHARE = 0.25;
const MIN_QUESTIONS = 3;

/** The chapter body without front matter and code blocks (directives there are examples). */
const body = (md) => md.replace(/^---[\s\S]*?\n---/, '').replace(/```[\s\S]*?```/g, '');

/** The `{…}` attribute text that starts at `open` (a '{'), quotes respected. */
function attrText(s, open) {
  let quote = null;
  for (let j = open + 1; j < s.length; j++) {
    const c = s[j];
    if (quote) { if (c === quote) quote = null; } else if (c === '"' || c === "'") quote = c; else if (c === '}') return s.slice(open + 1, j);
  }
  throw new Error(`unclosed attributes at ${s.slice(open, open + 60)}`);
}
const attrs = (text) => Object.fromEntries([...text.matchAll(/(\w+)=(?:"([^"]*)"|'([^']*)')/g)].map((m) => [m[1], m[2] ?? m[3]]));
/** Sorted-key JSON, so that the same parameters written in another order compare equal. */
const canonical = (v) => (Array.isArray(v) ? `[${v.map(canonical).join(',')}]`
  : v && typeof v === 'object' ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}` : JSON.stringify(v));
/** What a directive asks the engine for: calculator, output, parameters and whether the chip is pinned. */
const ask = (a) => `${a.calc}|${a.out}|${canonical(JSON.parse(a.params ?? '{}'))}|${a.chip ?? ''}`;

function directives(md, re) {
  const s = body(md);
  return [...s.matchAll(re)].map((m) => attrs(attrText(s, m.index + m[0].length - 1)));
}
const lives = (md) => directives(md, /:live\{/g);
const questions = (md) => directives(md, /^::question\[.*?\]\{/gm);

/** Steps as lists of their lines (text before the first `## ` is the opening). */
const steps = (md) => body(md).split(/^## .*$/m).map((t) => t.split('\n'));

for (const { key, md } of CHAPTERS) {
  test(`${key}: questions test understanding, not lookup`, () => {
    const qs = questions(md);
    if (!qs.length) return; // a chapter without questions (none today) has nothing to test
    assert.ok(qs.length >= MIN_QUESTIONS, `at least ${MIN_QUESTIONS} questions, got ${qs.length}`);
    const shown = new Set(lives(md).map(ask));
    const lookups = qs.filter((q) => shown.has(ask(q)));
    assert.ok(lookups.length <= MAX_LOOKUP_SHARE * qs.length,
      `${lookups.length} of ${qs.length} questions ask for a number a live figure on the page already shows: ${lookups.map((q) => `${q.calc}.${q.out}`).join(', ')}`);
  });

  test(`${key}: every placed lab has a Try-it in its step, and every Try-it a lab before it`, () => {
    for (const [i, lines] of steps(md).entries()) {
      let lab = null;
      for (const line of lines) {
        const l = line.match(/^::lab\{(.*)\}\s*$/);
        if (l) {
          if (lab && !lab.paired && lab.calc) assert.fail(`step ${i}: lab "${lab.name}" has no Try-it before the next lab`);
          const a = attrs(l[1]);
          lab = { name: a.name, paired: false, calc: CHECKABLE.has(a.name) };
          continue;
        }
        if (/^:::tryit\{/.test(line)) {
          assert.ok(lab, `step ${i}: a Try-it with no lab before it in its step`);
          lab.paired = true;
        }
      }
      if (lab && !lab.paired && lab.calc) assert.fail(`step ${i}: lab "${lab.name}" has no Try-it`);
    }
  });
}

// Steps are numbered by their `## ` headings, so splitting a step renumbers every later one: each
// link to /chapters/NN-slug/#step-N must still land on a step that exists.
test('every link to a chapter step points at a step that exists', () => {
  const steps = new Map(CHAPTERS.map((c) => [c.key, (body(c.md).match(/^## /gm) || []).length]));
  const broken = [];
  for (const c of CHAPTERS) {
    for (const m of body(c.md).matchAll(/\/chapters\/(\d\d-[a-z0-9-]+)\/#step-(\d+)/g)) {
      const count = steps.get(m[1]);
      if (count === undefined || Number(m[2]) < 1 || Number(m[2]) > count) broken.push(`${c.key}: ${m[0]} (${count ?? 'no such chapter'} steps)`);
    }
  }
  assert.deepEqual(broken, []);
});
