// Words for people (issue 34): every sentence the engine writes — warnings, refusals, suggestions,
// verdicts, rejected layouts — and every label of the schema reads as people write, on the book's
// cases and on every catalog chip. A sentence fails on an identifier outside parentheses
// ("reduce_after would be faster"), null/undefined/JSON, a count of 1,000 or more without digit
// grouping ("1024 chips"), a fractional count of whole things ("976.5625 sequences"), two
// parenthesised groups in a row, a doubled word ("chips chips") or e-notation; a label also fails on
// "dtype". Technical readers get identifiers in parentheses, which the rules allow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine, cases } from './lib.mjs';

const engine = await loadEngine();
const chips = JSON.parse(engine.chips());
const models = JSON.parse(engine.models());
const calculators = JSON.parse(engine.calculators()).calculators;

// Catalog names are proper names ("GeForce RTX 4090", "Apple M4 Max (128 GB)"): not checked.
const names = [...new Set([...chips.map((c) => c.name), ...(Array.isArray(models) ? models : models.models ?? []).map((m) => m.name)])]
  .filter(Boolean).sort((a, b) => b.length - a.length);
const COUNT = '(?:sequences?|tokens?|chips?|GPUs?|devices?|layers?|users?|replicas?|pods?|nodes?|stages?|micro-batch(?:es)?|experts?|heads?|slices?|chunks?|requests?|responses?)';

/** The text with parenthesised groups blanked (identifiers may stand there, for Technical readers). */
function outsideParens(s) {
  let depth = 0, out = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else { out += depth ? ' ' : ch; continue; }
    out += ' ';
  }
  return out;
}

/** What is wrong with a sentence for people: a list of short findings (empty: fine). */
export function wordProblems(text, { label = false } = {}) {
  let s = text;
  for (const n of names) s = s.split(n).join('NAME');
  const out = outsideParens(s);
  const found = [];
  for (const m of out.matchAll(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g)) found.push(`identifier ${m[0]}`);
  if (/\b(null|undefined|NaN)\b/.test(s)) found.push('null/undefined');
  if (/\{"|":|"\}/.test(s)) found.push('JSON');
  // (a year such as 2022 is written without a comma)
  for (const m of s.matchAll(/(?<![\d.,\w])\d{4,}(?![\d.])/g)) if (!/^(19|20)\d\d$/.test(m[0])) found.push(`no digit grouping: ${m[0]}`);
  for (const m of s.matchAll(new RegExp(`\\d+\\.\\d+ ${COUNT}\\b(?![/-]| per)`, 'g'))) found.push(`fractional count: ${m[0]}`);
  if (/\)\s*\(/.test(s)) found.push('two parenthesised groups in a row');
  for (const m of s.matchAll(/\b([A-Za-z]{2,}) \1\b/g)) found.push(`doubled word: ${m[0]}`);
  if (/\d(?:\.\d+)?e[-+]?\d/.test(s)) found.push('e-notation');
  if (label && /dtype/.test(out)) found.push('"dtype" in a label');
  return found;
}

// Fields of an output that hold catalog or notation text, not sentences.
const NOT_SENTENCES = /(^|\.)(notes|name|source|sources\.\w+|spec|output_spec|repo|id|stage_layers)$/;
function* sentences(value, path) {
  if (typeof value === 'string') {
    if (value.includes(' ') && !NOT_SENTENCES.test(path)) yield [path, value];
  } else if (Array.isArray(value)) {
    for (const v of value) yield* sentences(v, path);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) yield* sentences(v, path ? `${path}.${k}` : k);
  }
}
// An input error of the schema (type, range, unknown key) names the API's parameter: the labs say it
// in their own words (words.ts fieldProblem). A calculator's refusal is a sentence: checked.
const SCHEMA_ERROR = /^(must be |unknown (parameter|chip|model)|malformed JSON|is required|a number in the input|must not|is not a parameter)/;

/** Every sentence of one answer, each with where it came from. */
function answerSentences(calc, params) {
  const r = JSON.parse(engine.evaluate(calc, JSON.stringify(params)));
  const where = `${calc} ${JSON.stringify(params).slice(0, 160)}`;
  if (r.error) return SCHEMA_ERROR.test(r.error.message) ? [] : [[`${where} refusal`, r.error.message]];
  return [...(r.warnings ?? []).map((w) => [`${where} warning`, w]),
    ...[...sentences(r.outputs, '')].map(([p, s]) => [`${where} ${p}`, s])];
}

// The book's cases, each on one chip of every kind, and every catalog chip at the defaults.
const kinds = [...new Map(chips.map((c) => [c.kind, c.id])).values()];
const withChip = calculators.filter((c) => c.params.some((p) => p.name === 'chip')).map((c) => c.name);
function requests() {
  const list = [];
  for (const c of cases()) {
    list.push([c.calculator, c.params]);
    if (withChip.includes(c.calculator) && typeof (c.params.chip ?? '') === 'string') {
      for (const id of kinds) {
        const { chip_overrides: _, ...p } = c.params;
        list.push([c.calculator, { ...p, chip: id }]);
      }
    }
  }
  for (const calc of withChip) for (const c of chips) list.push([calc, { chip: c.id }]);
  return list;
}

test('the word rules catch what they are for, and pass what people write', () => {
  assert.deepEqual(wordProblems('Strategy reduce_after would be faster'), ['identifier reduce_after']);
  assert.deepEqual(wordProblems('another format can be chosen (compute_dtype)'), []);
  assert.deepEqual(wordProblems('1024 chips of TPU v5e'), ['no digit grouping: 1024']);
  assert.deepEqual(wordProblems('1,024 chips of GeForce RTX 4090'), []);
  assert.deepEqual(wordProblems('the 976.5625 sequences'), ['fractional count: 976.5625 sequences']);
  assert.deepEqual(wordProblems('about 142 tokens/s, 38.1 tokens per second'), []);
  assert.deepEqual(wordProblems('INT4 (no scales) (4 bits per weight)'), ['two parenthesised groups in a row']);
  assert.deepEqual(wordProblems('26 chips chips'), ['doubled word: chips chips']);
  assert.deepEqual(wordProblems('Chinchilla fit (2022), 16,384 chips'), []);
  assert.deepEqual(wordProblems('weight dtype', { label: true }), ['"dtype" in a label']);
  assert.deepEqual(wordProblems('at most 1e16 params'), ['e-notation']);
  assert.deepEqual(wordProblems('the value is null'), ['null/undefined']);
});

test('every warning, refusal, suggestion and verdict the engine writes reads as people write', () => {
  const bad = new Map();
  let count = 0;
  for (const [calc, params] of requests()) {
    for (const [where, s] of answerSentences(calc, params)) {
      count++;
      const p = wordProblems(s);
      // one line per distinct wording (numbers aside)
      const key = s.replace(/\d[\d.,]*/g, '#');
      if (p.length && !bad.has(key)) bad.set(key, `${where}: ${p.join('; ')}\n    ${s}`);
    }
  }
  assert.ok(count > 2000, `${count} sentences checked`);
  assert.equal(bad.size, 0, [...bad.values()].join('\n'));
});

test('every label of the schema (parameters, choices, outputs) is in words, and no doc line uses e-notation', () => {
  const bad = [];
  const walk = (calc, params, prefix) => {
    for (const p of params) {
      const path = `${calc}.${prefix}${p.name}`;
      for (const f of wordProblems(p.label ?? '', { label: true })) bad.push(`${path} label "${p.label}": ${f}`);
      for (const t of p.choice_titles ?? []) {
        for (const f of wordProblems(t, { label: true })) bad.push(`${path} choice "${t}": ${f}`);
      }
      if (/\d(?:\.\d+)?e[-+]?\d/.test(p.doc ?? '')) bad.push(`${path} doc "${p.doc}": e-notation`);
      if (p.fields) walk(calc, p.fields, `${prefix}${p.name}.`);
    }
  };
  for (const c of calculators) {
    walk(c.name, c.params, '');
    for (const o of c.outputs) {
      for (const f of wordProblems(o.label ?? '', { label: true })) bad.push(`${c.name} output ${o.name} label "${o.label}": ${f}`);
      if (/\d(?:\.\d+)?e[-+]?\d/.test(o.doc ?? '')) bad.push(`${c.name} output ${o.name} doc "${o.doc}": e-notation`);
    }
  }
  assert.equal(bad.length, 0, bad.join('\n'));
});
