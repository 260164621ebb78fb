// Renders the course's static pages into web/.site/ (the Vite root): every page is a real
// HTML file that reads without JavaScript. Chapter Markdown (web/content/NN-slug.md, see
// web/content/FORMAT.md) goes through unified/remark/rehype; `:live` numbers and question
// answers are computed here, for the default chip, by the engine's Node build.
//
//   node build/content.mjs            (run from web/; `npm run build` does it)
//   SCALELAB_WASM_DIR=… overrides the engine build folder (default ../build-wasm).
//   SCALELAB_STRICT_CONTENT=1 turns content warnings (bad directives) into errors.
//   A directive that would reach the reader as text (":chipname", "::question") always fails
//   the build, strict or not.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkDirective from 'remark-directive';
import remarkMath from 'remark-math';
import remarkGfm from 'remark-gfm';
import remarkRehype from 'remark-rehype';
import rehypeKatex from 'rehype-katex';
import rehypeStringify from 'rehype-stringify';
import { visit } from 'unist-util-visit';
import YAML from 'yaml';
import { CHAPTERS, pad2 } from './chapters.mjs';
import { LABS } from './labs.mjs';
import { variantOfLab } from './engine-variants.mjs';
import { tryitNode } from './tryit.mjs';
import { figureNode } from './figures.mjs';
import { groupChips } from '../src/chip-groups.js';
import { digitsText, verdictText, compareText, chipNeedsText, isNumberList, numberListText } from '../src/live-text.js';
import { whenCondition, whenHolds } from '../src/when.js';
import { runGate, missingNeeds } from './chip-gate.mjs';

const require = createRequire(import.meta.url);
const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = path.resolve(WEB, '..');
const WASM_DIR = path.resolve(ROOT, process.env.SCALELAB_WASM_DIR || 'build-wasm');
const OUT = path.join(WEB, '.site');
const CONTENT = path.join(WEB, 'content');
const STRICT = process.env.SCALELAB_STRICT_CONTENT === '1';
export const DEFAULT_CHIP = 'tpu-v5e';

// ---------------------------------------------------------------- engine
async function loadEngine() {
  const js = path.join(WASM_DIR, 'node', 'engine.cjs');
  if (!fs.existsSync(js)) {
    throw new Error(`engine not built: ${path.relative(ROOT, js)} is missing. Build it with ` +
      '`emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release && cmake --build build-wasm -j2`');
  }
  const factory = require(js);
  return factory({ wasmBinary: fs.readFileSync(path.join(WASM_DIR, 'node', 'engine.wasm')) });
}
let engine;
try {
  engine = await loadEngine();
} catch (e) {
  // (printed short: Node would otherwise echo the whole minified Emscripten glue line)
  console.error(`content: cannot load the engine from ${path.relative(ROOT, WASM_DIR)}/node: ${String(e?.message ?? e).slice(0, 300)}\n` +
    'content: is build-wasm complete and up to date (engine.cjs and engine.wasm from the same build)?');
  process.exit(1);
}
const chips = JSON.parse(engine.chips());
const schema = JSON.parse(engine.calculators());
const chipName = (id) => chips.find((c) => c.id === id)?.name ?? id;

function evaluate(calc, params) {
  return JSON.parse(engine.evaluate(calc, JSON.stringify(params)));
}
// The gate evaluates each directive on every chip; many share calculator, parameters and chip.
const gateMemo = new Map();
function evaluateOn(calc, params, out, chip) {
  const p = 'chip' in params || chip === null ? params : { ...params, chip };
  const key = `${calc} ${JSON.stringify(p)}`;
  let r = gateMemo.get(key);
  if (!r) { r = JSON.parse(engine.evaluateNumbers(calc, JSON.stringify(p))); gateMemo.set(key, r); }
  return r.error ? { error: r.error } : { value: getPath(r.outputs, out) };
}
function getPath(obj, dotted) {
  return dotted.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);
}
// The unit of an output, as the engine's schema declares it (as src/engine.ts unitOf: a field
// inside a list output has no declaration of its own, so a directive on one names its unit="…").
function unitOf(result, out) {
  return engine.outputUnit(result.calculator, out);
}
/** Whether a live value reaches the reader as a number or words (not "—"). */
const isShown = (v) => (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string' || typeof v === 'boolean' || isNumberList(v);
export function formatValue(value, unit, digits) {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (isNumberList(value)) return numberListText(value);
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  if (digits) return digitsText(value, unit, digits, (v, u) => engine.formatQuantity(v, u || ''));
  return engine.formatQuantity(value, unit || '');
}

// ---------------------------------------------------------------- helpers
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const warnings = [];
// Line numbers in messages are the file's: the chapter body starts after its front matter.
let bodyFirstLine = 1, bodyStart = 0;
const lineOf = (node) => (node?.position?.start?.line ? node.position.start.line + bodyFirstLine - 1 : '?');
// The chip the chapter being rendered is pre-rendered for: a directive inside a `:::when` block
// hidden on it is not seen there, so what it cannot compute on that chip is no warning (the chip
// gate checks it on the chips where it shows).
let renderChip = DEFAULT_CHIP;
function hiddenOnRenderChip(node) {
  const kind = chips.find((c) => c.id === renderChip)?.kind;
  return (node?.data?.slWhen ?? []).some((w) => !whenHolds(w, { kind, value: w.calc ? evaluateOn(w.calc, w.params, w.out, w.chip === 'fixed' ? null : renderChip) : undefined }));
}
function contentWarning(file, node, message) {
  if (hiddenOnRenderChip(node)) return;
  const where = `${path.relative(ROOT, file)}:${lineOf(node)}`;
  if (STRICT) throw new Error(`${where}: ${message}`);
  warnings.push(`${where}: ${message}`);
}
function parseParams(file, node, attrs) {
  if (!attrs.params) return {};
  try { return JSON.parse(attrs.params); } catch (e) {
    contentWarning(file, node, `params is not JSON: ${attrs.params}`);
    return null;
  }
}
function withChip(params, attrs, chip) {
  if (attrs.chip === 'fixed' || 'chip' in params) return params;
  return { ...params, chip };
}
const h = (hName, hProperties, children = []) => ({ type: 'slNode', data: { hName, hProperties }, children });
const text = (value) => ({ type: 'text', value });
const raw = (value) => ({ type: 'html', value });

// ---------------------------------------------------------------- Markdown → HTML
// `$$…$$` written on one line alone in a paragraph is display math (remark-math would
// read it as inline math).
function displayMathPlugin(source) {
  return () => (tree) => {
    visit(tree, 'paragraph', (node, index, parent) => {
      const kids = node.children.filter((c) => !(c.type === 'text' && !c.value.trim()));
      if (kids.length !== 1 || kids[0].type !== 'inlineMath') return;
      const start = kids[0].position?.start?.offset;
      if (start === undefined || !source.startsWith('$$', start)) return;
      const value = kids[0].value;
      parent.children[index] = {
        type: 'math', value, position: node.position,
        // what mdast-util-math gives a block `$$`, so rehype-katex typesets it in display mode
        data: { hName: 'pre', hChildren: [{ type: 'element', tagName: 'code', properties: { className: ['language-math', 'math-display'] }, children: [{ type: 'text', value }] }] },
      };
    });
  };
}

// Directives that take no attributes may be followed by any punctuation: micromark-extension-directive
// does not read `:chipname:` (a name followed by a colon) as a directive, so text nodes are
// scanned for them again here.
const BARE_DIRECTIVES = ['chipname'];
const BARE_RE = new RegExp(`(?<![\\w:]):(${BARE_DIRECTIVES.join('|')})(?![\\w-])`, 'g');
function bareDirectivesPlugin() {
  return () => (tree) => {
    visit(tree, 'text', (node, index, parent) => {
      const parts = node.value.split(BARE_RE); // [text, name, text, name, …, text]
      if (parts.length === 1) return;
      const nodes = parts.map((part, i) => (i % 2 ? { type: 'textDirective', name: part, attributes: {}, children: [] } : { type: 'text', value: part }))
        .filter((n) => n.type !== 'text' || n.value);
      parent.children.splice(index, 1, ...nodes);
      return index + nodes.length;
    });
  };
}

// The text directives content may use (see web/content/FORMAT.md).
const TEXT_DIRECTIVES = new Set(['live', 'chipname', 'verdict', 'compare']);
// Text the reader would see as markup: ":live{", ":chipname", "::question", ":::note".
const LEAK_RE = /(?<![\w:/]):{1,3}([a-z][\w-]*)/g;
function leakedDirectives(textValue) {
  return [...textValue.matchAll(LEAK_RE)].filter((m) => m[0].startsWith('::') || TEXT_DIRECTIVES.has(m[1])).map((m) => m[0]);
}
// After Markdown → HTML: no directive of ours may be left in the text outside code and math.
function leakCheckPlugin(file) {
  const isCodeOrMath = (node) => ['code', 'pre', 'math'].includes(node.tagName) || (node.properties?.className || []).includes('katex');
  const walk = (node) => {
    if (node.type === 'element' && isCodeOrMath(node)) return;
    if (node.type === 'text') {
      // a container's closing fence left as text (an inner :::tryit closed by the outer :::when's
      // fence: nested containers need more colons outside than inside)
      if (/^\s*:{3,}\s*$/.test(node.value) && node.value.trim()) throw new Error(`${path.relative(ROOT, file)}:${lineOf(node)}: a closing fence "${node.value.trim()}" would show as text: give the outer container more colons than the one inside it`);
      const leaks = leakedDirectives(node.value);
      if (leaks.length) throw new Error(`${path.relative(ROOT, file)}:${lineOf(node)}: directive ${leaks[0]} would show as text: “${node.value.trim().slice(0, 80)}”`);
    }
    (node.children || []).forEach(walk);
  };
  return () => walk;
}

// Tables scroll sideways inside their own box on narrow screens (the client adds a hint
// when one actually overflows, see src/overflow.ts).
function tableScrollPlugin() {
  return () => (tree) => {
    visit(tree, 'element', (node, index, parent) => {
      if (node.tagName !== 'table' || !parent || parent.properties?.className?.includes('table-scroll')) return;
      parent.children[index] = { type: 'element', tagName: 'div', properties: { className: ['table-scroll'] }, children: [node] };
    });
  };
}

// A live number already carries its unit ("240 tokens", "104 days"): the text after it must
// not repeat one ("240 tokens tokens", "240 sequences tokens"). Collected, and the build fails
// at the end listing every place.
const UNIT_WORDS = new Set(['tokens', 'token', 'sequences', 'chips', 'days', 'years', 'hours', 'seconds', 'bytes', 'FLOPs', 'params', 'parameters', 'requests', 'GPUs']);
const unitRepeats = [];
function checkUnitAfter(file, node, shown, next) {
  const own = /([A-Za-z][\w/-]*)$/.exec(shown)?.[1];
  const following = next?.type === 'text' ? /^\s+([A-Za-z][\w/-]*)/.exec(next.value) : null;
  if (!own || !following) return;
  const word = following[1];
  const sameStem = word !== own && word.length > 2 && own.toLowerCase().startsWith(word.toLowerCase()); // "FLOPs/byte FLOP per byte"
  if (word === own || sameStem || (UNIT_WORDS.has(own) && UNIT_WORDS.has(word))) {
    unitRepeats.push(`${path.relative(ROOT, file)}:${lineOf(node)}: “${shown} ${word}”: the live number already says “${own}”; drop the word after it, or give the directive unit="…"`);
    unitFixes.push({ file, at: bodyStart + node.position.end.offset, word, own, sameStem, hasUnit: 'unit' in (node.attributes || {}) });
  }
}
// SCALELAB_FIX_UNITS=1 rewrites the chapters instead of failing: "240 FLOPs/byte FLOPs per byte"
// gets unit="" (the prose names the unit); otherwise the repeated word goes and the directive
// keeps the unit it showed (unit="…"), so a later change of unit guessing cannot drop it.
const FIX_UNITS = process.env.SCALELAB_FIX_UNITS === '1';
const unitFixes = [];
function fixUnits() {
  const byFile = new Map();
  for (const f of unitFixes) byFile.set(f.file, [...(byFile.get(f.file) || []), f]);
  for (const [file, fixes] of byFile) {
    let src = fs.readFileSync(file, 'utf8');
    for (const f of fixes.sort((a, b) => b.at - a.at)) {
      if (src[f.at - 1] !== '}') continue;
      const addUnit = (u) => { if (!f.hasUnit) src = `${src.slice(0, f.at - 1)} unit="${u}"${src.slice(f.at - 1)}`; };
      if (f.sameStem) { addUnit(''); continue; }
      const m = new RegExp(`^(\\s+)${f.word.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\b( ?)`).exec(src.slice(f.at));
      if (!m) continue;
      const after = src.slice(f.at + m[0].length);
      const keepBreak = m[1].includes('\n') && m[2] && after && !/^\s/.test(after); // "}\ntokens for" → "}\nfor"
      src = src.slice(0, f.at) + (keepBreak ? m[1] + after : src.slice(f.at + m[0].length - m[2].length));
      addUnit(f.own);
    }
    fs.writeFileSync(file, src);
    console.log(`content: ${path.relative(ROOT, file)}: ${fixes.length} unit(s) no longer written twice`);
  }
}

// A question pinned to one chip ("chip" in its params) says so, with the reason if the
// directive gives one (why="…"): the chip selector does not change it.
function pinnedNote(params, attrs) {
  const pinned = params && attrs.chip !== 'fixed' ? params.chip : undefined;
  if (pinned === undefined) return [];
  const name = typeof pinned === 'string' ? chipName(pinned) : String(pinned?.name ?? 'a custom chip');
  return [h('p', { className: ['q-pinned'] }, [text(`Pinned to the ${name}: the chip selector does not change this ${attrs.kindWord ?? 'question'}${attrs.why ? `, because ${attrs.why}` : ''}.`)])];
}

// What the chip gate needs of a directive (build/chip-gate.mjs): where it is, what it asks the
// engine, on which chips the reader can see it (the `:::when` blocks around it) and its pin.
function gateRecord(ctx, node, kind, a, params, evaluate) {
  if (!params || !a.calc || !a.out) return;
  const pinnedByParams = 'chip' in params;
  const rec = { kind, line: lineOf(node), none: a.none, label: `${kind === 'question' ? '::question' : kind === 'tryit' ? ':::tryit' : `:${kind}`} ${a.calc}.${a.out}`,
    when: node.data?.slWhen ?? [], extraChips: [], why: a.why, pinnedByParams, evaluate };
  if (pinnedByParams) rec.pinnedChip = params.chip;
  else if (a.chip === 'fixed') rec.pinnedChip = null;
  ctx.gate.push(rec);
  return rec;
}
const plainEvaluate = (a, params) => (on, chip) => on(a.calc, chip === null ? params : withChip(params, a, chip), a.out, null);
// A `:compare` directive's second output: vs-out (default: out) of vs-calc (default: calc) with
// vs-params (default: params).
function compareSides(a, params) {
  let vsParams = params;
  if (a['vs-params']) vsParams = JSON.parse(a['vs-params']);
  return { calc: a['vs-calc'] || a.calc, out: a['vs-out'] || a.out, params: vsParams };
}
function liveProps(a, className) {
  const props = { className, dataCalc: a.calc, dataOut: a.out, dataParams: a.params || '{}' };
  if (a.chip === 'fixed') props.dataChip = 'fixed';
  return props;
}

function directivesPlugin(file, ctx) {
  return () => (tree) => {
    visit(tree, (node, index, parent) => {
      if (!['textDirective', 'leafDirective', 'containerDirective'].includes(node.type)) return;
      const a = node.attributes || {};
      const replace = (n) => { parent.children[index] = n; };
      switch (node.name) {
        case 'live': {
          const params = parseParams(file, node, a);
          const props = { className: ['live'], dataCalc: a.calc, dataOut: a.out, dataParams: a.params || '{}' };
          if (a.chip === 'fixed') props.dataChip = 'fixed';
          if (a.unit !== undefined) props.dataUnit = a.unit; // unit="": the number alone, the text names the unit
          if (a.digits) props.dataDigits = a.digits;
          if (a.none !== undefined) props.dataNone = a.none; // what the reader reads where the chip has no such figure
          let shown = '?';
          if (params && a.calc && a.out) {
            const r = evaluate(a.calc, withChip(params, a, ctx.chip));
            gateRecord(ctx, node, 'live', a, params, plainEvaluate(a, params));
            const missing = r.error || !isShown(getPath(r.outputs, a.out));
            if (missing && a.none !== undefined) shown = a.none;
            else if (r.error) contentWarning(file, node, `:live ${a.calc}.${a.out}: ${r.error.param}: ${r.error.message}`);
            else if (getPath(r.outputs, a.out) === undefined) contentWarning(file, node, `:live: ${a.calc} has no output ${a.out}`);
            else shown = formatValue(getPath(r.outputs, a.out), a.unit ?? unitOf(r, a.out), a.digits);
          } else if (params) contentWarning(file, node, ':live needs calc and out');
          checkUnitAfter(file, node, shown, parent.children[index + 1]);
          replace(h('span', props, [text(shown)]));
          return;
        }
        case 'verdict': {
          const params = parseParams(file, node, a);
          const props = { ...liveProps(a, ['live', 'live-verdict']), dataKind: 'verdict' };
          if (a.words) props.dataWords = a.words;
          let shown = '?';
          if (params && a.calc && a.out) {
            const r = evaluate(a.calc, withChip(params, a, ctx.chip));
            if (r.error) contentWarning(file, node, `:verdict ${a.calc}.${a.out}: ${r.error.param}: ${r.error.message}`);
            else shown = verdictText(getPath(r.outputs, a.out), a.words) ?? '?';
            gateRecord(ctx, node, 'verdict', a, params, (on, chip) => {
              const v = plainEvaluate(a, params)(on, chip);
              return v.error ? v : { value: verdictText(v.value, a.words) ?? v.value };
            });
          } else contentWarning(file, node, ':verdict needs calc, out and params');
          if (shown === '?' && a.none !== undefined) { shown = a.none; props.dataNone = a.none; }
          else if (a.none !== undefined) props.dataNone = a.none;
          replace(h('span', props, [text(shown)]));
          return;
        }
        case 'compare': {
          const params = parseParams(file, node, a);
          let vs;
          try { vs = params && compareSides(a, params); } catch { contentWarning(file, node, `vs-params is not JSON: ${a['vs-params']}`); }
          const props = { ...liveProps(a, ['live', 'live-compare']), dataKind: 'compare', dataVsCalc: vs?.calc, dataVsOut: vs?.out, dataVsParams: JSON.stringify(vs?.params ?? {}) };
          if (a.form) props.dataForm = a.form;
          if (a.words) props.dataWords = a.words;
          let shown = '?';
          if (vs && a.calc && a.out) {
            const one = evaluate(a.calc, withChip(params, a, ctx.chip)), two = evaluate(vs.calc, withChip(vs.params, a, ctx.chip));
            const err = one.error ?? two.error;
            if (err) contentWarning(file, node, `:compare ${a.calc}.${a.out}: ${err.param}: ${err.message}`);
            else shown = compareText(getPath(one.outputs, a.out), getPath(two.outputs, vs.out), a.form, a.words, a.unit ?? unitOf(one, a.out)) ?? '?';
            gateRecord(ctx, node, 'compare', a, params, (on, chip) => {
              const x = plainEvaluate(a, params)(on, chip);
              const y = on(vs.calc, chip === null ? vs.params : withChip(vs.params, a, chip), vs.out, null);
              if (x.error || y.error) return x.error ? x : y;
              return { value: compareText(x.value, y.value, a.form, a.words, a.unit ?? engine.outputUnit(a.calc, a.out)) };
            });
          } else contentWarning(file, node, ':compare needs calc, out and params');
          if (a.none !== undefined) props.dataNone = a.none;
          if (shown === '?' && a.none !== undefined) shown = a.none;
          replace(h('span', props, [text(shown)]));
          return;
        }
        case 'when': {
          let cond;
          const params = a.params ? parseParams(file, node, a) : {};
          try { cond = whenCondition(a, params ?? {}); } catch (e) { throw new Error(`${path.relative(ROOT, file)}:${lineOf(node)}: ${e.message}`); }
          const outer = node.data?.slWhen ?? [];
          const mark = (n) => { for (const c of n.children || []) { c.data = { ...(c.data || {}), slWhen: [...outer, cond] }; mark(c); } };
          mark(node);
          node.data = { ...(node.data || {}), slOuter: { parent, index } }; // where a Try-it inside looks for its lab
          const chipObj = chips.find((c) => c.id === ctx.chip);
          const value = cond.calc ? evaluateOn(cond.calc, cond.params, cond.out, cond.chip === 'fixed' ? null : ctx.chip) : undefined;
          const shown = whenHolds(cond, { kind: chipObj?.kind, value });
          const props = { className: ['when'], dataWhen: JSON.stringify(cond) };
          if (!shown) props.hidden = true;
          replace(h('div', props, node.children));
          return;
        }
        case 'chipname':
          replace(h('span', { className: ['chipname'] }, [text(chipName(ctx.chip))]));
          return;
        case 'technical':
          replace(h('details', { className: ['technical'] }, [
            h('summary', {}, [text('Technical reference')]),
            h('div', { className: ['technical-body'] }, node.children)]));
          return;
        case 'plain':
          replace(h('div', { className: ['plain-only'] }, node.children));
          return;
        case 'note':
          replace(h('aside', { className: ['note'] }, node.children));
          return;
        case 'lab': {
          const lab = LABS.find((l) => l.name === a.name);
          ctx.labs.add(a.name);
          if (!lab) {
            replace(h('div', { className: ['lab-soon'], dataLab: a.name || '' }, [
              h('p', {}, [text(`The ${a.name || 'unnamed'} lab is coming soon.`)])]));
            return;
          }
          let state = '';
          if (a.state) { try { JSON.parse(a.state); state = a.state; } catch { contentWarning(file, node, `lab state is not JSON: ${a.state}`); } }
          replace(h(lab.element, { dataState: state || undefined, dataLab: lab.name }, [
            h('p', { className: ['lab-fallback'] }, [
              text(`${lab.title}: ${lab.summary} It runs in your browser with JavaScript; `),
              h('a', { href: `/labs/${lab.name}/` }, [text('open it on its own page')]), text('.')])]));
          return;
        }
        case 'question': {
          ctx.questions += 1;
          const params = parseParams(file, node, a);
          const qid = `q-${ctx.questions}`;
          let unit = a.unit || '', derivation = '<p>—</p>';
          if (params && a.calc && a.out) {
            const r = evaluate(a.calc, withChip(params, a, ctx.chip));
            gateRecord(ctx, node, 'question', a, params, plainEvaluate(a, params));
            if (r.error) contentWarning(file, node, `::question ${a.calc}.${a.out}: ${r.error.param}: ${r.error.message}`);
            else if (typeof getPath(r.outputs, a.out) !== 'number') contentWarning(file, node, `::question: ${a.calc}.${a.out} is not a number`);
            else {
              unit = a.unit ?? unitOf(r, a.out);
              // the steps are typeset in the page when the reader opens them (chapter.ts): KaTeX's
              // markup for every question was most of a chapter's HTML
              derivation = `<p class="q-steps-later">The steps are typeset here when JavaScript runs.</p><p class="q-answer">Answer: <strong>${esc(formatValue(getPath(r.outputs, a.out), unit))}</strong></p>`;
            }
          } else contentWarning(file, node, '::question needs calc, out and params');
          const props = { className: ['question'], dataCalc: a.calc, dataOut: a.out, dataParams: a.params || '{}', dataTol: a.tol || '0.05', dataUnit: unit, ariaLabelledby: `${qid}-prompt` };
          if (a.chip === 'fixed') props.dataChip = 'fixed';
          replace(h('form', props, [
            h('p', { className: ['q-kicker'] }, [text('Check yourself')]),
            h('p', { id: `${qid}-prompt`, className: ['q-prompt'] }, node.children),
            ...pinnedNote(params, a),
            h('div', { className: ['q-row'] }, [
              h('label', { htmlFor: `${qid}-input` }, [text('Your answer')]),
              h('input', { id: `${qid}-input`, name: 'answer', type: 'text', inputMode: 'decimal', autocomplete: 'off', spellCheck: 'false' }),
              h('span', { className: ['q-unit'] }, [text(unit)]),
              h('button', { type: 'submit' }, [text('Check')])]),
            h('p', { className: ['q-feedback'], role: 'status', ariaLive: 'polite' }),
            h('details', { className: ['q-derivation'] }, [
              h('summary', {}, [text('Show the derivation')]),
              h('div', { className: ['q-steps'] }, [raw(derivation)])])]));
          return;
        }
        case 'figure':
          replace(figureNode(file, node, a, { h, text, contentWarning }));
          return;
        case 'tryit':
          replace(tryitNode({ file, node, index, parent, ctx, t: { gateRecord: (kind, params, extraChips) => { const rec = gateRecord(ctx, node, kind, a, params, plainEvaluate(a, params)); if (rec) rec.extraChips.push(...extraChips); }, evaluate, pinnedNote, parseParams, withChip, contentWarning, unitOf, formatValue, getPath, esc, h, text, raw, DEFAULT_CHIP: ctx.chip, defaultChipName: chipName(ctx.chip) } }));
          return;
        default:
          // Not one of ours (e.g. "ratio 3:1" or "12:30"): put the text back as written —
          // unless it carries attributes or a label, which is a misspelt directive.
          if (node.type === 'textDirective' && Object.keys(a).length) {
            throw new Error(`${path.relative(ROOT, file)}:${lineOf(node)}: unknown directive :${node.name}{…}`);
          }
          if (node.type === 'textDirective') {
            replace({ type: 'text', value: `:${node.name}${(node.children || []).length ? '' : ''}` });
            if ((node.children || []).length) parent.children.splice(index + 1, 0, { type: 'text', value: '[' }, ...node.children, { type: 'text', value: ']' });
            return;
          }
          throw new Error(`${path.relative(ROOT, file)}:${lineOf(node)}: unknown directive ${node.type === 'leafDirective' ? '::' : ':::'}${node.name}`);
      }
    });
  };
}

// Splits the document at each `## Heading` into <section class="step" id="step-N">.
function stepsPlugin(ctx) {
  return () => (tree) => {
    const intro = [], steps = [];
    for (const node of tree.children) {
      if (node.type === 'heading' && node.depth === 2) steps.push({ heading: node, body: [] });
      else if (steps.length) steps[steps.length - 1].body.push(node);
      else intro.push(node);
    }
    if (!steps.length) steps.push({ heading: null, body: [] });
    ctx.stepTitles = steps.map((s) => (s.heading ? s.heading.children.map((c) => c.value ?? (c.children || []).map((d) => d.value).join('')).join('') : 'Chapter'));
    tree.children = steps.map((s, i) => h('section', { className: ['step'], id: `step-${i + 1}`, dataStep: String(i + 1), ariaLabel: `Step ${i + 1}: ${ctx.stepTitles[i]}` }, [
      ...(i === 0 ? [h('div', { className: ['chapter-intro'] }, intro)] : []),
      ...(s.heading ? [s.heading] : []),
      ...s.body]));
  };
}

async function renderMarkdown(file, md, options = {}) {
  try {
    return await renderMarkdownOrThrow(file, md, options);
  } catch (e) {
    // said here, short: a throw would reach the Emscripten glue's handler, which prints its whole source line
    console.error(`content: ${e?.message ?? e}`);
    process.exit(1);
  }
}
async function renderMarkdownOrThrow(file, md, { steps = true, chip = DEFAULT_CHIP } = {}) {
  const ctx = { labs: new Set(), questions: 0, stepTitles: [], chip, gate: [] };
  renderChip = chip;
  const out = await unified()
    .use(remarkParse)
    .use(remarkGfm, { singleTilde: false }) // tables; "~33×" stays text
    .use(remarkDirective)
    .use(remarkMath)
    .use(displayMathPlugin(md))
    .use(bareDirectivesPlugin())
    .use(directivesPlugin(file, ctx))
    .use(steps ? stepsPlugin(ctx) : () => {})
    .use(remarkRehype, { allowDangerousHtml: true })
    .use(rehypeKatex, { output: 'html', throwOnError: false })
    .use(tableScrollPlugin())
    .use(leakCheckPlugin(file))
    .use(rehypeStringify, { allowDangerousHtml: true })
    .process(md);
  return { html: String(out), ...ctx };
}

function readChapter(file) {
  const src = fs.readFileSync(file, 'utf8');
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(src);
  if (!m) throw new Error(`${path.relative(ROOT, file)}: no front matter (see web/content/FORMAT.md)`);
  bodyFirstLine = m[0].split('\n').length; // the line the body starts on
  bodyStart = m[0].length;
  return { meta: YAML.parse(m[1]) || {}, body: src.slice(m[0].length) };
}

/** A chip field's words from the engine's schema ("flops_per_s.bf16" → "bf16 FLOP/s"). */
function chipFieldLabel(dotted) {
  let fields = schema.chip_fields, field;
  for (const part of dotted.split('.')) { field = (fields || []).find((f) => f.name === part); fields = field?.fields; }
  return field?.label;
}
/** The note a chapter with chip_needs shows on a chip that lacks one of those figures. */
function needsNote(entry) {
  if (!entry.needs?.length) return '';
  const labels = Object.fromEntries(entry.needs.map((f) => [f, chipFieldLabel(f)]));
  const chip = chips.find((c) => c.id === (entry.chip ?? DEFAULT_CHIP));
  const missing = missingNeeds(chip, entry.needs);
  return `<p class="chapter-needs lab-notice" role="status" data-needs="${esc(JSON.stringify(labels))}"${missing.length ? '' : ' hidden'}>${missing.length ? esc(chipNeedsText(chip.name, missing.map((f) => labels[f]))) : ''}</p>`;
}

// ---------------------------------------------------------------- page shell
const CREDIT = 'Based on <a href="https://jax-ml.github.io/scaling-book/"><cite>How to Scale Your Model</cite></a> by Austin et al., Google DeepMind, 2025';
function chipOptions(selected = DEFAULT_CHIP) {
  return groupChips(chips, schema.chip_fields).map((g) => `<optgroup label="${esc(g.title)}">${g.chips.map((c) =>
    `<option value="${esc(c.id)}"${c.id === selected ? ' selected' : ''}>${esc(c.name)}</option>`).join('')}</optgroup>`).join('') +
    '<option value="custom">Custom chip…</option><option value="measure">Measure this device…</option>';
}
// engine: the engine build the page loads (a lab group's, named by the lab's manifest); none: the full one.
// The footer's link to the book: the whole book from the home page, else the page's chapter.
const ORIGINAL_LINK_TEXT = { home: 'Read the book online', chapter: 'Read this chapter in the original', lab: "Read this lab's chapter in the original" };

function page({ title, description, body, original, kind, depth, chip, engine }) {
  const up = '../'.repeat(depth);
  return `<!doctype html>
<html lang="en" data-page="${kind}"${engine ? ` data-engine="${esc(engine)}"` : ''}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<meta name="description" content="${esc(description || 'An interactive course on How to Scale Your Model.')}">
<link rel="icon" href="data:,">
<script type="module" src="${up}../src/main.ts"></script>
<noscript><style>.stepper { display: none !important; }</style></noscript>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site-header">
  <a class="brand" href="/">scalelab<span class="brand-sub"> · How to Scale Your Model, as a course</span></a>
  <div class="controls">
    <label class="chip-control"><span>Chip</span> <select id="chip-select" name="chip">${chipOptions(chip)}</select></label>
    <div class="mode-switch" role="group" aria-label="Reading mode">
      <button type="button" data-mode="plain" aria-pressed="true">Plain</button><button type="button" data-mode="technical" aria-pressed="false">Technical</button>
    </div>
    <button type="button" class="theme-toggle" aria-label="Colour theme: automatic">◐</button>
  </div>
</header>
<dialog id="custom-chip" aria-labelledby="custom-chip-title"></dialog>
<main id="main">
${body}
</main>
<footer class="site-footer">
  <p class="credits">${CREDIT}${original ? ` · <a class="original-link" href="${esc(original)}">${ORIGINAL_LINK_TEXT[kind]}</a>` : ''}. The book is MIT-licensed; our explanations are our own words.</p>
  <p><a href="/">Home</a> · <a href="/labs/roofline/">Roofline lab</a> · <a href="/errata/">Errata</a> · <a href="/about/">About &amp; credits</a></p>
</footer>
</body>
</html>
`;
}

function write(rel, html) {
  const file = path.join(OUT, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, html);
}

// ---------------------------------------------------------------- build
fs.rmSync(OUT, { recursive: true, force: true });
const files = fs.existsSync(CONTENT) ? fs.readdirSync(CONTENT).filter((f) => /^\d\d-[a-z0-9-]+\.md$/.test(f)).sort() : [];
const chapters = CHAPTERS.map((c) => ({ ...c, key: `${pad2(c.chapter)}-${c.slug}`, ready: false }));
const rendered = [];
// The chip gate (build/chip-gate.mjs) fails the build on a hole; SCALELAB_CHIP_GATE=report, or a
// chapter's `chip_gate: report` front matter, lists them without failing.
const GATE_MODE = process.env.SCALELAB_CHIP_GATE || 'strict';
const gateHoles = [], gateReported = [];
for (const f of files) {
  const file = path.join(CONTENT, f);
  const { meta, body } = readChapter(file);
  const key = f.replace(/\.md$/, '');
  const num = Number(key.slice(0, 2));
  let entry = chapters.find((c) => c.chapter === num);
  if (!entry) { entry = { chapter: num, slug: key.slice(3) }; chapters.push(entry); }
  Object.assign(entry, { title: meta.title ?? entry.title, summary: meta.summary ?? entry.summary, original: meta.original ?? entry.original, goals: meta.goals || [], lab: meta.lab, key, ready: true,
    chip: meta.chip ?? entry.chip, chipWhy: meta.chip_why ?? entry.chipWhy });
  if (entry.chip && !chips.some((c) => c.id === entry.chip)) throw new Error(`${path.relative(ROOT, file)}: chip "${entry.chip}" is not in the chip catalog`);
  const r = await renderMarkdown(file, body, { chip: entry.chip ?? DEFAULT_CHIP });
  entry.steps = r.stepTitles.length;
  entry.needs = meta.chip_needs || [];
  for (const f of entry.needs) if (!chipFieldLabel(f)) throw new Error(`${path.relative(ROOT, file)}: chip_needs names "${f}", not a chip field of the engine's schema`);
  const gate = runGate({ key, records: r.gate, chips, evaluateOn, relFile: path.relative(ROOT, file), needs: entry.needs });
  // a chapter still being rewritten for every chip says `chip_gate: report` in its front matter
  const reportOnly = GATE_MODE === 'report' || meta.chip_gate === 'report';
  console.log(`content: ${gate.line}${reportOnly && gate.holes.length ? ' (chip_gate: report, not failing)' : ''}`);
  (reportOnly ? gateReported : gateHoles).push(...gate.holes);
  if (r.questions < 3) contentWarning(file, null, `has ${r.questions} ::question (FORMAT.md asks for at least 3)`);
  rendered.push({ entry, r });
}
if (gateReported.length) {
  console.warn(`content: the chip gate reports ${gateReported.length} hole(s) in chapters marked chip_gate: report${process.env.SCALELAB_CONTENT_VERBOSE === '1' ? ':' : ' (SCALELAB_CONTENT_VERBOSE=1 lists them)'}`);
  if (process.env.SCALELAB_CONTENT_VERBOSE === '1') for (const hole of gateReported) console.warn(`  ${hole}`);
}
if (gateHoles.length) {
  const verbose = process.env.SCALELAB_CONTENT_VERBOSE === '1';
  const say = console.error;
  say(`content: the chip gate found ${gateHoles.length} place(s) a reader would see no number on some chip:`);
  for (const hole of verbose ? gateHoles : gateHoles.slice(0, 40)) say(`  ${hole}`);
  if (!verbose && gateHoles.length > 40) say(`  … and ${gateHoles.length - 40} more (SCALELAB_CONTENT_VERBOSE=1 lists all)`);
  {
    say('content: pin such a directive to a chip (params "chip", with why="…"), or put it in a :::when block for the chips where it computes, with a sentence of its own for the others (web/content/FORMAT.md)');
    process.exit(1);
  }
}
chapters.sort((a, b) => a.chapter - b.chapter);
const ready = chapters.filter((c) => c.ready);

for (const { entry, r } of rendered) {
  const i = ready.indexOf(entry);
  const prev = ready[i - 1], next = ready[i + 1];
  const goals = entry.goals.length ? `<div class="goals"><p>By the end of this chapter you can work out:</p><ul>${entry.goals.map((g) => `<li>${esc(g)}</li>`).join('')}</ul></div>` : '';
  const toc = `<nav class="step-list" aria-label="Steps"><ol>${r.stepTitles.map((t, k) => `<li><a href="#step-${k + 1}" data-step-link="${k + 1}">${esc(t)}</a></li>`).join('')}</ol></nav>`;
  const chipNote = entry.chip ? `<p class="chapter-chip" data-chip="${esc(entry.chip)}">${esc(entry.chipWhy || `This chapter is worked on the ${chipName(entry.chip)}.`)} <span class="chapter-chip-how">The chip selector at the top of the page switches every number to another chip.</span></p>` : '';
  const body = `<article class="chapter" data-chapter="${entry.chapter}" data-key="${entry.key}" data-steps="${r.stepTitles.length}"${entry.chip ? ` data-chip="${esc(entry.chip)}"` : ''}>
<header class="chapter-head">
  <p class="chapter-num">Chapter ${entry.chapter}</p>
  <h1>${esc(entry.title)}</h1>
  <p class="chapter-summary">${esc(entry.summary || '')}</p>
  ${goals}
  ${chipNote}
  ${needsNote(entry)}
</header>
<nav class="stepper" aria-label="Chapter steps">
  <button type="button" class="prev">← Previous</button>
  <span class="step-status" aria-live="polite">Step 1 of ${r.stepTitles.length}</span>
  <button type="button" class="next">Next →</button>
  <label class="show-all"><input type="checkbox"> Show all</label>
  <div class="step-progress" aria-hidden="true"><div></div></div>
</nav>
${toc}
<div class="steps">
${r.html}
</div>
<nav class="chapter-nav" aria-label="Chapters">
  ${prev ? `<a class="prev-chapter" href="/chapters/${prev.key}/">← ${esc(prev.title)}</a>` : '<span></span>'}
  ${next ? `<a class="next-chapter" href="/chapters/${next.key}/">${esc(next.title)} →</a>` : '<span></span>'}
</nav>
</article>`;
  write(`chapters/${entry.key}/index.html`, page({ title: `${entry.chapter}. ${entry.title} — scalelab`, description: entry.summary, body, original: entry.original, kind: 'chapter', depth: 2, chip: entry.chip }));
}

// Home. "Start here" opens the first chapter (the client turns it into "Continue" once the
// reader has progress, see src/home.ts).
function startHere(readyChapters) {
  const first = readyChapters[0];
  if (!first) return '';
  return `<p class="start-here"><a class="start-link" href="/chapters/${first.key}/" data-first-key="${first.key}"><span class="start-kicker">Start here</span> Chapter ${first.chapter}: ${esc(first.title)} →</a>
<span class="start-note">Read the chapters in order, one step at a time; this browser keeps your place.</span></p>`;
}
const home = `<section class="home">
<h1>How to Scale Your Model, as a course</h1>
${startHere(ready)}
<p class="lede">Thirteen chapters in the order of the book by Austin et al. Read them one step at a time,
check yourself as you go, and open the labs to move the numbers: change the batch, change the chip,
and watch the book's arithmetic follow. Every number is computed in your browser by one engine.</p>
<ol class="chapter-list">
${chapters.map((c) => `<li class="chapter-card${c.ready ? '' : ' soon'}" data-key="${c.key}" data-steps="${c.steps || 0}">
  <span class="card-num">${c.chapter}</span>
  <div class="card-body">
    <h2>${c.ready ? `<a href="/chapters/${c.key}/">${esc(c.title)}</a>` : esc(c.title)}</h2>
    <p>${esc(c.summary || '')}</p>
    <p class="card-status">${c.ready ? `${c.steps} steps<span class="progress-text"></span>` : 'Coming soon'}</p>
  </div>
</li>`).join('\n')}
</ol>
<h2 class="labs-title">Labs</h2>
<ul class="lab-list">${LABS.map((l) => `<li><a href="/labs/${l.name}/">${esc(l.title)}</a> — ${esc(l.summary)}</li>`).join('')}</ul>
</section>`;
write('index.html', page({ title: 'scalelab — How to Scale Your Model, as a course', body: home, kind: 'home', depth: 0, original: 'https://jax-ml.github.io/scaling-book/' }));

// Labs
for (const lab of LABS) {
  const ch = chapters.find((c) => c.chapter === lab.chapter);
  const body = `<section class="lab-page">
<p class="chapter-num">Lab${ch ? ` · Chapter ${ch.chapter}: ${ch.ready ? `<a href="/chapters/${ch.key}/">${esc(ch.title)}</a>` : esc(ch.title)}` : ''}</p>
<h1>${esc(lab.title)}</h1>
<p class="lede">${esc(lab.summary)}</p>
<${lab.element} data-lab="${lab.name}" data-url-state><p class="lab-fallback">This lab runs in your browser and needs JavaScript.</p></${lab.element}>
<p class="lab-share">The settings live in the address bar, so you can share any configuration as a link.</p>
</section>`;
  const engine = lab.calc ? variantOfLab(lab.name) : undefined; // the matmul experiment loads no engine
  write(`labs/${lab.name}/index.html`, page({ title: `${lab.title} — scalelab`, description: lab.summary, body, original: ch?.original, kind: 'lab', depth: 2, engine }));
}

// About (web/content/about.md, one page without steps) and errata (built from the disputed
// cases in tests/cases by build/errata.mjs, which fails the build if the engine disagrees).
const aboutFile = path.join(CONTENT, 'about.md');
const about = readChapter(aboutFile);
write('about/index.html', page({ title: 'About & credits — scalelab', description: about.meta.summary, kind: 'about', depth: 1, body: `<article class="prose about">
<h1>${esc(about.meta.title || 'About scalelab')}</h1>
${(await renderMarkdown(aboutFile, about.body, { steps: false })).html.replace(/<pre>/g, '<pre tabindex="0">')}
</article>` }));
const { errataBody } = await import('./errata.mjs');
write('errata/index.html', page({ title: 'Errata: the book\'s numbers vs exact arithmetic — scalelab', kind: 'errata', depth: 1,
  description: 'Every place where a number printed in How to Scale Your Model differs from exact arithmetic: the book\'s value, the exact value from the engine, the difference and why.',
  body: errataBody({ engine, chapters }) }));
write('404.html', page({ title: 'Not found — scalelab', kind: '404', depth: 0, body: `<section class="prose">
<h1>Page not found</h1>
<p>There is nothing at this address. Try the <a href="/">list of chapters</a>.</p>
</section>` }));

if (unitRepeats.length && FIX_UNITS) {
  fixUnits();
  console.log('content: chapters rewritten; build again to check them');
  process.exit(0);
}
if (unitRepeats.length) {
  console.error(`content: ${unitRepeats.length} unit(s) written twice (SCALELAB_FIX_UNITS=1 rewrites them):\n${unitRepeats.map((u) => `  ${u}`).join('\n')}`);
  process.exit(1);
}

// Data the client needs at start (chapter list for progress) goes in the page itself via
// data attributes; nothing else is generated.
// Warnings, grouped per file (chapters may use calculators the engine does not have yet).
const byFile = new Map();
for (const w of warnings) { const f = w.split(':')[0]; byFile.set(f, [...(byFile.get(f) || []), w]); }
const verbose = process.env.SCALELAB_CONTENT_VERBOSE === '1';
for (const [f, ws] of byFile) {
  for (const w of verbose ? ws : ws.slice(0, 3)) console.warn(`content: ${w}`);
  if (!verbose && ws.length > 3) console.warn(`content: ${f}: … and ${ws.length - 3} more (SCALELAB_CONTENT_VERBOSE=1 lists all)`);
}
console.log(`content: ${rendered.length} chapter(s) rendered (${rendered.map((x) => x.entry.key).join(', ') || 'none'}), ${LABS.length} lab page(s), into ${path.relative(WEB, OUT)}/`);
