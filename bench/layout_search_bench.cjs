// Layout search throughput of training_run in the WebAssembly engine (issue 36's target: at least
// 100,000 layouts ranked in under a second). Each case is one whole evaluation (JSON in, search,
// JSON out); the figure is layouts_evaluated over its time. Usage:
//   node bench/layout_search_bench.cjs build-wasm/node
// (bench/layout_search_chromium.mjs runs the same cases in headless Chromium.)
const fs = require('fs');
const path = require('path');
const cases = require('./layout_search_cases.json');
const dir = path.resolve(process.argv[2] || 'build-wasm/node');
require(dir + '/engine.cjs')({ wasmBinary: fs.readFileSync(dir + '/engine.wasm') }).then((m) => {
  for (const { label, params } of cases) {
    const s = JSON.stringify(params);
    const r = JSON.parse(m.evaluate('training_run', s));
    if (r.error) { console.log(label, r.error); continue; }
    const n = r.outputs.layouts_evaluated;
    const times = [];
    const t0 = performance.now();
    while (performance.now() - t0 < 3000 || times.length < 5) {
      const a = performance.now();
      m.evaluate('training_run', s);
      times.push(performance.now() - a);
    }
    times.sort((x, y) => x - y);
    const median = times[times.length >> 1];
    console.log(`${label}: ${n} layouts (${r.outputs.layouts_fitting} fit), median ${median.toFixed(1)} ms per evaluation over ${times.length}, ${(n / median / 1e3).toFixed(2)}M layouts/s`);
  }
});
