// The lab groups' engines (issue 12 §4; the groups are named by the labs' manifests,
// src/labs/<name>.lab.json): every lab with a calculator is in exactly one variant, each variant
// names calculators the engine has, and each lab's variant holds every calculator the lab's page
// can call: those its module (and what it imports) names, and the page shell's (the chip selector
// checks a custom chip with `chip`). Node only, no browser; the
// lab browser tests then run each lab on its variant (its route's <html data-engine>).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { LABS } from '../build/labs.mjs';
import { VARIANTS, variantOfLab } from '../build/engine-variants.mjs';
import { WEB, ROOT } from './harness.mjs';

const require = createRequire(import.meta.url);
const dir = path.resolve(ROOT, process.env.SCALELAB_WASM_DIR || 'build-wasm', 'node');
const engine = await require(path.join(dir, 'engine.cjs'))({ wasmBinary: fs.readFileSync(path.join(dir, 'engine.wasm')) });
const CALCULATORS = JSON.parse(engine.calculators()).calculators.map((c) => c.name);
const SRC = path.join(WEB, 'src');

// A module and every module it imports statically (import … from './x'), as source files; the
// dynamic imports (a chapter's figures, Plot) are other pages' code or hold no calculator name.
function closure(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = fs.readFileSync(file, 'utf8');
  for (const [, spec] of text.matchAll(/^import\s[^;]*?from\s+'(\.{1,2}\/[^']+)'/gms)) {
    const base = path.resolve(path.dirname(file), spec);
    const found = [base, `${base}.ts`, `${base}.js`].find((f) => fs.existsSync(f) && fs.statSync(f).isFile() && /\.[jt]s$/.test(f));
    if (found) closure(found, seen);
  }
  return seen;
}
// The calculators a set of modules can call: the names they pass to the engine (evaluate,
// sweep, calculator, output), give a lab (LabElement<'…'>) or ask a choice's title of
// (choiceText(param, value, '…')).
const CALLS = [
  /\b(?:evaluate|sweep|calculator|output)\(\s*'([a-z_]+)'/g,
  /\bLabElement<'([a-z_]+)'>/g,
  /\bchoiceText\([^()]*,\s*'([a-z_]+)'\s*\)/g,
];
function calculatorsNamedIn(files) {
  const named = new Set();
  for (const f of files) {
    const text = fs.readFileSync(f, 'utf8');
    for (const re of CALLS) for (const [, name] of text.matchAll(re)) named.add(name);
  }
  return named;
}
const SHELL = calculatorsNamedIn(closure(path.join(SRC, 'shell.ts')));
const labModule = (lab) => `${path.join(SRC, 'labs', lab.module)}.ts`;

test('every lab with a calculator is in exactly one variant, and every variant lab is registered', () => {
  for (const lab of LABS.filter((l) => l.calc)) assert.ok(variantOfLab(lab.name), lab.name);
  const registered = new Set(LABS.filter((l) => l.calc).map((l) => l.name));
  for (const v of VARIANTS) for (const lab of v.labs) assert.ok(registered.has(lab), `variant ${v.name}: "${lab}" is not a registered lab with a calculator`);
  assert.equal(new Set(VARIANTS.map((v) => v.name)).size, VARIANTS.length, 'variant names are unique');
  assert.ok(!VARIANTS.some((v) => v.name === 'full'), '"full" is the full engine, not a variant');
});

// A page runs every variant's .wasm with the full engine's glue (web/src/engine.ts): the glue the
// build writes for each variant must be the full engine's, but for the name of its .wasm.
test('each variant\'s glue is the full engine\'s (the page runs every variant with that glue)', () => {
  const web = path.resolve(ROOT, process.env.SCALELAB_WASM_DIR || 'build-wasm', 'web');
  const full = fs.readFileSync(path.join(web, 'engine.js'), 'utf8');
  for (const v of VARIANTS) {
    const glue = fs.readFileSync(path.join(web, `engine-${v.name}.js`), 'utf8').replaceAll(`engine-${v.name}.wasm`, 'engine.wasm');
    assert.ok(glue === full, `build-wasm/web/engine-${v.name}.js differs from engine.js: its .wasm imports or exports something else`);
  }
});

test('every variant names calculators the engine has, and holds chip', () => {
  for (const v of VARIANTS) {
    for (const c of v.calculators) assert.ok(CALCULATORS.includes(c), `variant ${v.name}: no calculator "${c}"`);
    assert.ok(v.calculators.includes('chip'), `variant ${v.name} lacks chip (the page shell checks a custom chip with it)`);
  }
});

// A lab's manifest names the other calculators its own module evaluates or sweeps ("evaluates"),
// for its engine build and the engine's warm-up: the list must be exactly those, read from its
// source; its class runs the calculator the manifest names (LabElement<'…'>, defineLab checks it).
test('every lab\'s manifest names the calculators its module evaluates', () => {
  for (const lab of LABS.filter((l) => l.calc)) {
    const text = fs.readFileSync(labModule(lab), 'utf8');
    const called = new Set([...text.matchAll(/\b(?:evaluate|sweep)\(\s*'([a-z_]+)'/g)].map((m) => m[1]).filter((c) => c !== lab.calc && c !== 'chip'));
    assert.deepEqual([...(lab.evaluates ?? [])].sort(), [...called].sort(), `${lab.name}: its manifest's "evaluates" must list the other calculators its module evaluates`);
    assert.match(text, new RegExp(`LabElement<'${lab.calc}'>`), `${lab.name}: its class runs ${lab.calc}`);
  }
});

test('each lab\'s variant holds every calculator its page can call', () => {
  assert.ok(SHELL.has('chip'), 'the shell checks a custom chip with the chip calculator');
  for (const lab of LABS.filter((l) => l.calc)) {
    const file = labModule(lab);
    assert.ok(fs.existsSync(file), `${lab.name}: no module ${path.relative(ROOT, file)}`);
    const called = new Set([lab.calc, ...calculatorsNamedIn(closure(file)), ...SHELL]);
    for (const c of called) assert.ok(CALCULATORS.includes(c), `lab ${lab.name} names "${c}", which is no calculator of the engine`);
    const variant = VARIANTS.find((v) => v.name === variantOfLab(lab.name));
    const missing = [...called].filter((c) => !variant.calculators.includes(c));
    assert.deepEqual(missing, [], `lab ${lab.name} calls ${missing.join(', ')}, which its variant "${variant.name}" lacks`);
  }
});
