// The inputs the engine benchmarks share in JavaScript: the params of the first case of each
// calculator in tests/cases (files in name order), as bench/bench_inputs.hpp has them natively.
import fs from 'node:fs';
import path from 'node:path';

export function firstInputs(root) {
  const dir = path.join(root, 'tests', 'cases');
  const out = new Map();
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    for (const c of JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'))) {
      if (!out.has(c.calculator)) out.set(c.calculator, JSON.stringify(c.params));
    }
  }
  return out;
}
