// Every derivation step the engine returns for the book's cases is valid TeX: KaTeX renders
// each formula and each substituted formula without an error (labs show them; a red KaTeX
// error box would be an engine bug). No browser needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ROOT } from './harness.mjs';

const require = createRequire(import.meta.url);
const katex = require('katex');
const wasmDir = path.resolve(ROOT, process.env.SCALELAB_WASM_DIR || 'build-wasm', 'node');
const createEngine = require(path.join(wasmDir, 'engine.cjs'));

const casesDir = path.join(ROOT, 'tests', 'cases');
const cases = fs.readdirSync(casesDir).filter((f) => f.endsWith('.json'))
  .flatMap((f) => JSON.parse(fs.readFileSync(path.join(casesDir, f), 'utf8')));

test('every step of every case renders with KaTeX', async () => {
  const engine = await createEngine({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'engine.wasm')) });
  const failures = [];
  let steps = 0;
  for (const c of cases) {
    const result = JSON.parse(engine.evaluate(c.calculator, JSON.stringify(c.params)));
    assert.ok(!result.error, `${c.id}: ${result.error?.message}`);
    for (const s of result.steps) {
      for (const tex of [s.formula, s.substituted]) {
        steps++;
        try {
          katex.renderToString(tex, { throwOnError: true, strict: 'ignore' });
        } catch (e) {
          failures.push(`${c.id} · ${s.label}: ${String(e.message).slice(0, 160)}\n    ${tex}`);
        }
      }
    }
  }
  assert.ok(steps > 500, `expected many steps, got ${steps}`);
  assert.deepEqual(failures, [], `${failures.length} formulas fail to render:\n${failures.join('\n')}`);
});
