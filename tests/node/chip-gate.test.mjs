// The course build's chip gate (web/build/chip-gate.mjs) and the sentence directives it checks
// (web/src/live-text.js: :verdict, :compare; web/src/when.js: :::when), on the real engine and
// catalog: the gate's chips are the catalog's plus a measured device, a hole is found where the
// engine gives no number, and exemptions (pinned, :::when, none="…") hold only where they should.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadEngine } from './lib.mjs';
import { gateChips, runGate } from '../../web/build/chip-gate.mjs';
import { compareText, verdictText } from '../../web/src/live-text.js';
import { whenCondition, whenHolds } from '../../web/src/when.js';

const engine = await loadEngine();
const chips = JSON.parse(engine.chips());
const evaluateOn = (calc, params, out, chip) => {
  const p = 'chip' in params || chip === null ? params : { ...params, chip };
  const r = JSON.parse(engine.evaluateNumbers(calc, JSON.stringify(p)));
  return r.error ? { error: r.error } : { value: out.split('.').reduce((o, k) => o?.[k], r.outputs) };
};
const live = (calc, out, params, extra = {}) => ({ kind: 'live', line: 1, label: `:live ${calc}.${out}`, when: [], extraChips: [], ...extra,
  evaluate: (on, chip) => on(calc, chip === null || 'chip' in params ? params : { ...params, chip }, out, null) });

test('the gate checks every catalog chip, every kind of the selector, and a measured device', () => {
  const gate = gateChips(chips);
  assert.equal(gate.length, chips.length + 1);
  for (const kind of new Set(chips.map((c) => c.kind))) assert.ok(gate.some((g) => g.kind === kind), kind);
  const measured = gate.at(-1);
  assert.equal(measured.kind, 'measured');
  assert.deepEqual(Object.keys(measured.param.flops_per_s), ['fp32']);
  assert.ok(!JSON.parse(engine.evaluateNumbers('chip', JSON.stringify({ chip: measured.param }))).error, 'the engine takes the measured chip');
});

test('a TPU-only figure is a hole on every chip without ICI, and none="…" or a :::when{kind} block closes it', () => {
  const bare = runGate({ key: 't', records: [live('chip', 'ici_links', {})], chips, evaluateOn, relFile: 'x.md' });
  const noIci = chips.filter((c) => !(evaluateOn('chip', {}, 'ici_links', c.id).value > 0));
  assert.ok(noIci.some((c) => c.kind === 'datacenter-gpu') && noIci.some((c) => c.kind === 'cpu'));
  assert.equal(bare.holes.length, noIci.length + 1, bare.holes.join('\n')); // + the measured device
  assert.match(bare.holes[0], /x\.md:1: :live chip\.ici_links on .*: no number/);
  assert.equal(runGate({ key: 't', records: [live('chip', 'ici_links', {}, { none: 'none' })], chips, evaluateOn, relFile: 'x.md' }).holes.length, 0);
  const inTpuBlock = live('chip', 'ici_links', {}, { when: [whenCondition({ kind: 'tpu' })] });
  const gated = runGate({ key: 't', records: [inTpuBlock], chips, evaluateOn, relFile: 'x.md' });
  const tpusWithout = noIci.filter((c) => c.kind === 'tpu').map((c) => c.name);
  assert.deepEqual(gated.holes.map((h) => /on (.*): no number/.exec(h)[1]), tpusWithout, 'only TPUs whose catalog entry lacks the figure');
  assert.match(gated.line, /1 shown for some chips only\)/);
});

test('a block keyed on an engine output: computes / refused split the chips between them', () => {
  // over ICI: a TPU prices it, a chip without ICI links refuses it (every catalog chip now has a
  // float rate to fall back on, so the compute side no longer splits them)
  const matmul = { matmul: { B: 64, D: 4096, F: 4096 }, bandwidth: 'ici' };
  const computes = whenCondition({ calc: 'roofline', out: 'critical_intensity', computes: '' }, matmul);
  const refused = whenCondition({ calc: 'roofline', out: 'critical_intensity', refused: '' }, matmul);
  for (const c of chips) {
    const value = evaluateOn('roofline', matmul, 'critical_intensity', c.id);
    assert.notEqual(whenHolds(computes, { kind: c.kind, value }), whenHolds(refused, { kind: c.kind, value }), c.id);
  }
  const inside = live('roofline', 't_lower_s', matmul, { when: [computes] });
  assert.deepEqual(runGate({ key: 't', records: [inside], chips, evaluateOn, relFile: 'x.md' }).holes, []);
  assert.ok(runGate({ key: 't', records: [{ ...inside, when: [] }], chips, evaluateOn, relFile: 'x.md' }).holes.length > 0, 'without the block, chips without ICI links are holes');
});

test('a pinned question needs why="…", and is checked on its own chip only', () => {
  const q = { ...live('chip', 'ici_links', { chip: 'tpu-v5p' }), kind: 'question', label: '::question chip.ici_links', pinnedChip: 'tpu-v5p', pinnedByParams: true };
  assert.match(runGate({ key: 't', records: [q], chips, evaluateOn, relFile: 'x.md' }).holes.join(), /without why/);
  assert.deepEqual(runGate({ key: 't', records: [{ ...q, why: 'the book asks it of v5p' }], chips, evaluateOn, relFile: 'x.md' }).holes, []);
  const onGpu = { ...q, why: 'w', pinnedChip: 'h100', evaluate: (on) => on('chip', { chip: 'h100' }, 'ici_links', null) };
  assert.match(runGate({ key: 't', records: [onGpu], chips, evaluateOn, relFile: 'x.md' }).holes.join(), /on its pinned chip: no number/);
});

test('verdict words follow the engine: decode is memory-bound at batch 1 and not at a huge batch on a v5e', () => {
  const at = (batch) => JSON.parse(engine.evaluateNumbers('decode', JSON.stringify({ model: 'llama3-8b', chip: 'tpu-v5e', batch, context: 1024 }))).outputs.bound;
  assert.equal(verdictText(at(1)), 'memory-bound');
  assert.equal(verdictText(at(1), 'memory:waits on HBM|compute:keeps the MXUs busy'), 'waits on HBM');
  assert.equal(verdictText(true), 'fits');
  assert.equal(verdictText(false, 'fits on the chip|does not fit on the chip'), 'does not fit on the chip');
  assert.equal(verdictText(null), null);
});

test('comparison words: multiples, fractions, near-equality and the author\'s own three words', () => {
  assert.equal(compareText(2.04, 1), 'about twice');
  assert.equal(compareText(0.26, 1), 'about a quarter');
  assert.equal(compareText(1.01, 1), 'about the same as');
  assert.equal(compareText(1.62, 1), '1.6×');
  assert.equal(compareText(24.4, 1), '24×');
  assert.equal(compareText(1.62, 1, 'more'), '1.6× more');
  assert.equal(compareText(0.4, 1, 'more'), '2.5× less');
  assert.equal(compareText(963, 811, undefined, 'lower|the same|higher'), 'higher');
  assert.equal(compareText(811, 811.5, undefined, 'lower|the same|higher'), 'the same');
  assert.equal(compareText(1, 0), null);
  assert.equal(compareText(null, 1), null);
  // on the engine: a v5e decode step at batch 64 against batch 4 (same weights read, more KV)
  const step = (chip, batch) => JSON.parse(engine.evaluateNumbers('decode', JSON.stringify({ model: 'llama3-8b', chip, batch, context: 1024 }))).outputs.step_s;
  assert.match(compareText(step('tpu-v5e', 64), step('tpu-v5e', 4), 'ratio'), /^\d+(\.\d+)?×$/);
});

test(':::when refuses a condition that states nothing or a threshold that is not a number', () => {
  assert.throws(() => whenCondition({}), /needs kind/);
  assert.throws(() => whenCondition({ calc: 'decode', out: 'bound' }), /needs one of/);
  assert.throws(() => whenCondition({ calc: 'decode', out: 'x', above: 'ten' }), /not a number/);
  assert.equal(whenHolds(whenCondition({ 'not-kind': 'tpu' }), { kind: 'tpu' }), false);
  assert.equal(whenHolds(whenCondition({ calc: 'decode', out: 'bound', is: 'memory' }), { kind: 'tpu', value: { value: 'memory' } }), true);
  assert.equal(whenHolds(whenCondition({ calc: 'decode', out: 'bound', is: 'memory' }), { kind: 'tpu', value: { error: {} } }), false);
});
