// Shared by the lab browser tests (lab-*.test.mjs): the Node build of the engine (build-wasm/node,
// or $SCALELAB_WASM_DIR/node) that expected values come from, and page helpers bound to one lab's
// element by labHelpers(). Nothing here is built; the tests' own flow and assertions stay in them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { watchedPage, axe, ROOT } from './harness.mjs';

const require = createRequire(import.meta.url);
const WASM = path.resolve(ROOT, process.env.SCALELAB_WASM_DIR || 'build-wasm', 'node');
export const engine = await require(path.join(WASM, 'engine.cjs'))({ wasmBinary: fs.readFileSync(path.join(WASM, 'engine.wasm')) });
export const CHIPS = JSON.parse(engine.chips());
export const MODELS = JSON.parse(engine.models());
/** the published runs (data/measurements.json), the file the pages fetch */
export const PUBLISHED = JSON.parse(fs.readFileSync(path.join(ROOT, 'data', 'measurements.json'), 'utf8'));
export const evaluate = (calc, params) => JSON.parse(engine.evaluate(calc, JSON.stringify(params)));
const SCHEMA = JSON.parse(engine.calculators());
/** A choice value as the engine titles it for people (schema choice_titles): the words a lab shows. */
export function choiceTitle(calc, param, id) {
  const p = SCHEMA.calculators.find((c) => c.name === calc).params.find((x) => x.name === param);
  return p.choice_titles[p.choices.indexOf(id)];
}

/** what watchedPage reports for a page with no console messages, errors or third-party requests */
export const clean = { console: [], errors: [], thirdParty: [] };

function formatted(calc, params, out, { nonNumbers }) {
  const r = evaluate(calc, params);
  assert.ok(!r.error, JSON.stringify(r.error));
  const v = r.outputs[out];
  if (nonNumbers && typeof v !== 'number') return v == null ? '—' : typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v); // as the lab's engine.format
  const unit = engine.outputUnit(calc, out);
  if (unit === 'bytes' && typeof v === 'number' && v < 0) return `${engine.formatQuantity(-v, unit)} short`; // as the labs' fmt
  return engine.formatQuantity(v, unit);
}
/** the engine's value of one output, formatted as the lab formats it (null → '—', booleans → yes/no, other non-numbers as strings) */
export const expected = (calc, params, out) => formatted(calc, params, out, { nonNumbers: true });
/** as expected(), but every output goes through engine.formatQuantity, non-numbers included (no '—' / yes / no fallback) */
export const expectedQuantity = (calc, params, out) => formatted(calc, params, out, { nonNumbers: false });

/** a custom chip as the chip dialog stores it: a catalog chip without its null fields (undefined kept), with changes
 *  applied after stripping (unstripped), id and name last */
export function customChip(from, changes) {
  const strip = (o) => (o && typeof o === 'object' && !Array.isArray(o) ? Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null).map(([k, v]) => [k, strip(v)])) : o);
  const c = strip(structuredClone(CHIPS.find((x) => x.id === from)));
  delete c.sources; delete c.notes;
  return { ...c, ...changes, id: 'custom', name: 'My chip' };
}
/** a custom chip stored in the page's localStorage and picked; nulls and undefined dropped, the fields included,
 *  sources and notes left out; returns the chip stored */
export async function storeCustomChip(page, base, fields) {
  // as the chip dialog stores it: nulls dropped, sources and notes left out
  const strip = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v != null).map(([k, v]) => [k, v && typeof v === 'object' && !Array.isArray(v) ? strip(v) : v]));
  const { sources, notes, ...chip } = CHIPS.find((c) => c.id === base);
  const custom = strip({ ...chip, id: 'custom', name: 'My chip', ...fields });
  await page.evaluate((c) => { localStorage.setItem('scalelab.customChip', JSON.stringify(c)); localStorage.setItem('scalelab.chip', 'custom'); }, custom);
  return custom;
}
export async function forgetCustom(page) {
  await page.evaluate(() => { localStorage.removeItem('scalelab.customChip'); localStorage.removeItem('scalelab.chip'); });
}

/** The schema of a calculator's parameter path ("users", "sweep.batch"). */
export function paramSchema(calculator, dotted) {
  const [head, ...rest] = String(dotted ?? '').split('.');
  let p = JSON.parse(engine.calculator(calculator)).params.find((x) => x.name === head);
  for (const r of rest) p = p?.fields?.find((x) => x.name === r) ?? p?.fields?.[0];
  return p;
}
/** What a lab says under a number field for what was typed, where the engine refused it (`error`,
 *  of `calculator`): out of the schema's range or no number at all, the labs' own words (words.ts
 *  fieldProblem: the limit as the engine's formatter writes it, no "got", no e-notation), written
 *  again here from the schema; any other refusal, the engine's message. */
export function shown(typed, error, calculator) {
  const s = paramSchema(calculator, error.param);
  if (!s || !['number', 'integer'].includes(s.type)) return error.message;
  const amount = (x) => (s.unit === 'params' ? `${engine.formatQuantity(x, 'count')} parameters` : engine.formatQuantity(x, !s.unit || s.unit === 'ratio' ? 'count' : s.unit));
  const t = String(typed).trim(), v = Number(t);
  if (t === '') return 'enter a number';
  if (!Number.isFinite(v)) return /^[-+]?(\d|\.\d)/.test(t) && typeof s.max === 'number' && !Number.isNaN(v) ? `too large — at most ${amount(s.max)}` : 'enter a number, such as 512, 100M or 2.5B';
  if (typeof s.max === 'number' && v > s.max) return `too large — at most ${amount(s.max)}`;
  if (typeof s.min === 'number' && (s.min_exclusive ? v <= s.min : v < s.min)) return s.min_exclusive ? `too small — more than ${amount(s.min)}` : `too small — at least ${amount(s.min)}`;
  if (s.type === 'integer' && !Number.isInteger(v)) return `enter a whole number, such as ${amount(Math.max(s.min ?? 1, Math.round(v)))}`;
  return error.message;
}

/** A number field's text as a number: the labs write large ones as people do ("2.1M", "70B", "15T"). */
export function fieldNumber(text) {
  const m = /^([-+]?[\d.]+(?:e[-+]?\d+)?)([kMBT]?)$/.exec(text.trim());
  return m ? Number(m[1]) * ({ '': 1, k: 1e3, M: 1e6, B: 1e9, T: 1e12 })[m[2]] : NaN;
}

/** An engine message as Plain shows it: without the parentheses that name an identifier (words.ts forPeople). */
export const asPlain = (w) => w.replace(/\s*\(([^()]*)\)/g, (g, inner) => (/\b[a-z][a-z0-9]*(_[a-z0-9]+)+\b|\b[a-z_]+\.[a-z0-9_.]+\b/.test(inner) ? '' : g));
/** The published runs of a lab's chart (published-layer.ts), once drawn: each diamond's title and
 *  place, and where the chart's own scales put the (x, y) that `place(run)` gives (the test's
 *  reading of the run, to compare). */
export async function publishedOnChart(page, chartSel, runs, place) {
  await page.waitForFunction((sel) => document.querySelector(`${sel} .published-run`) !== null, chartSel);
  const want = runs.map((m) => ({ id: m.id, ...place(m) }));
  return page.evaluate(({ sel, want }) => {
    const chart = document.querySelector(sel);
    const dots = [...chart.querySelectorAll('.published-run path, .published-run circle')];
    return {
      titles: [...chart.querySelectorAll('.published-run title')].map((t) => t.textContent),
      drawn: dots.map((d) => (d.getAttribute('transform') ?? '').match(/translate\(([-\d.e]+),\s*([-\d.e]+)\)/).slice(1).map(Number)),
      expected: want.map((w) => [chart.scale('x').apply(w.x), chart.scale('y').apply(w.y)]),
      description: chart.getAttribute('aria-description') ?? chart.querySelector('[aria-description]')?.getAttribute('aria-description') ?? '',
    };
  }, { sel: chartSel, want });
}
/** every expected place has a drawn diamond within half a pixel */
export const placedAll = (at) => at.expected.every(([x, y]) => at.drawn.some(([dx, dy]) => Math.abs(dx - x) < 0.5 && Math.abs(dy - y) < 0.5));
export const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
export async function waitText(page, sel, re) {
  await page.waitForFunction(([s, src]) => new RegExp(src).test(document.querySelector(s)?.textContent ?? ''), [sel, re.source]);
}

/**
 * Page helpers bound to one lab.
 * element: the lab's custom element name (e.g. 'sl-decode-lab').
 * session: () => ({ server, browser }) of the test file (only needed for chapterAxe).
 * (Every lab on every chip, and its URL round trip: labs-contract.test.mjs.)
 */
export function labHelpers({ element: EL, session } = {}) {
  // the lab's first result on screen: data-rendered is set once the first chart is drawn, or at
  // once if the chart's box is more than half a screen below the viewport (drawn when scrolled to)
  const ready = (page) => page.waitForSelector(`${EL}[data-rendered] .lab-verdict .verdict`);
  // the lab's chart scrolled to and drawn for its current result
  const chartShown = async (page) => {
    await ready(page);
    await page.locator(`${EL} .lab-viz`).first().scrollIntoViewIfNeeded();
    await page.waitForFunction((el) => document.querySelector(`${el} .lab-viz`)?.dataset.renders === document.querySelector(el).dataset.rendered, EL);
  };
  const rendered = (page) => page.locator(EL).getAttribute('data-rendered');
  // a new render, and then any evaluation still scheduled run and rendered (lab.flush()), so that
  // what is read next is the answer to the last input
  const flushed = (page) => page.evaluate((el) => document.querySelector(el).flush().then(() => true), EL);
  const settle = async (page, b) => {
    await page.waitForFunction(([el, b]) => document.querySelector(el).dataset.rendered !== b, [EL, b]);
    await flushed(page);
  };
  const out = (page, name) => page.locator(`${EL} [data-out="${name}"] dd`).innerText();
  const field = (page, key) => page.locator(`${EL} .control[data-key="${key}"] input[type=text]`);
  const fieldError = (page, key) => page.locator(`${EL} .control[data-key="${key}"] .field-error`).innerText();
  const modelSelect = (page) => page.locator(`${EL} .control[data-key="model"] select`);
  async function type(page, key, text) {
    const r = await rendered(page);
    await field(page, key).fill(text);
    await settle(page, r);
  }
  async function choose(page, key, value) {
    const r = await rendered(page);
    await page.selectOption(`${EL} .control[data-key="${key}"] select`, value);
    await settle(page, r);
  }
  /** no NaN / Infinity / undefined anywhere in the lab, no negative size, no unit written twice */
  async function noNaN(page) {
    const t = await page.locator(EL).innerText();
    assert.doesNotMatch(t, /NaN|Infinity|undefined/);
    assert.doesNotMatch(t, /(^|\s)-\d[\d.]*\s?[kMGTP]?B\b/, 'no negative size');
    assert.doesNotMatch(t, /\b(chips|tokens|sequences|days|FLOPs|bytes|GPUs) \1\b/, 'no unit written twice');
  }
  /** run fn and wait until the lab renders again */
  async function change(page, fn) {
    const before = await page.locator(EL).getAttribute('data-rendered');
    await fn();
    await page.waitForFunction(([t, b]) => document.querySelector(t).dataset.rendered !== b, [EL, before]);
    await flushed(page);
  }
  async function waitOut(page, name, text) {
    await page.waitForFunction(([t, n, x]) => document.querySelector(`${t} [data-out="${n}"] dd`)?.textContent.trim() === x, [EL, name, text]);
  }
  /** the lab in its place in a chapter passes axe */
  async function chapterAxe(page, chapter) {
    const { server } = session();
    await page.goto(server.url + chapter);
    const step = await page.locator(`section.step:has(${EL})`).first().getAttribute('id');
    await page.goto(server.url + chapter + '#' + step);
    await ready(page);
    assert.deepEqual(await axe(page), []);
  }
  return { ready, chartShown, rendered, settle, out, field, fieldError, modelSelect, type, choose, noNaN, change, waitOut, chapterAxe };
}
