// Benchmark (not a test): where a lab route's first load spends its main-thread time.
// Opens the route in headless Chromium with the CPU slowed down (CDP Emulation.setCPUThrottlingRate,
// default 4x, as Lighthouse's mobile profile simulates) and service workers blocked, records a
// performance trace and a sampled CPU profile from navigation until the lab shows its first result
// and the page has been quiet for a second, and prints:
//   - every long task (a main-thread task over 50 ms) with its start, length and what ran in it
//     (the CPU profile's samples inside the task, grouped into the phases below);
//   - the total blocking time (the sum over tasks of their length beyond 50 ms);
//   - the phases over the whole load: wasm compile and instantiate, engine catalogs parsed,
//     first evaluation, Lit's first render, first chart, other script, style/layout/paint.
// Needs `npm run build` and the server binary (build/scalelab or $SCALELAB_BIN).
//   node web/bench/first-load-trace.mjs [--route /labs/decode/] [--ready SELECTOR] [--cpu 4] [--runs 1] [--trace out.json] [--dist DIR]
// --dist serves another build (a copy of an older web/dist, say), for a comparison run by run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from '../tests/harness.mjs';

const arg = (name, dflt) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const route = arg('--route', '/labs/decode/');
const cpu = Number(arg('--cpu', '4'));
const runs = Number(arg('--runs', '1'));
const traceOut = arg('--trace', null);
// what "loaded" means: a lab's first result, or (--ready SELECTOR, e.g. on a chapter) that element
const ready = arg('--ready', null);
const dist = arg('--dist', undefined);

// A sample's phase: the innermost function on its stack that names one (order matters).
// Names are those of the built bundle's functions that survive minification (class methods,
// the engine glue's exports) and of V8's own frames.
const PHASES = [
  ['first chart', (f) => /^drawViz$|^plot$/.test(f.functionName)],
  ['catalogs parsed', (f) => f.functionName === 'Engine' || /^(calculators|chips|models|formats|measurements)$/.test(f.functionName)],
  ['evaluation (engine)', (f) => /^(evaluate|evaluateNumbers|sweep|formatQuantity)$/.test(f.functionName) || /^wasm-function|^\$/.test(f.functionName) || f.url === '' && /wasm/.test(f.functionName)],
  ['Lit render', (f) => /^(performUpdate|update|render|_\$AI|_\$AR)$/.test(f.functionName)],
  ['wasm instantiate', (f) => /instantiate|createWasm|receiveInstance|createEngine|__wasm_call_ctors|embind/i.test(f.functionName)],
];
const phaseOf = (stack) => {
  for (const [name, test] of PHASES) if (stack.some(test)) return name;
  const leaf = stack[0];
  if (!leaf) return 'idle';
  if (leaf.functionName === '(garbage collector)') return 'garbage collection';
  if (leaf.functionName === '(program)') return 'browser (style, layout, paint, parse)';
  if (leaf.functionName === '(idle)') return 'idle';
  return 'other script';
};

const server = await startServer(dist && path.resolve(dist));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scalelab-trace-'));
const context = await chromium.launchPersistentContext(dir, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, serviceWorkers: 'block',
  viewport: { width: 412, height: 823 },
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
});
const ms = (us) => (us / 1000).toFixed(0);
const summary = []; // per run: total blocking time and the longest task, µs
try {
  for (let run = 1; run <= runs; run++) {
    const page = await context.newPage();
    // the same origin first, so that the route loads in the renderer the profiler is attached to
    await page.goto(server.url + '/404.html').catch(() => {});
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpu });
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    const events = [];
    cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
    const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
    await cdp.send('Tracing.start', {
      transferMode: 'ReportEvents',
      traceConfig: { includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'v8.execute', 'v8.wasm', 'disabled-by-default-v8.wasm.detailed', 'blink.user_timing', 'loading'] },
    });
    await cdp.send('Profiler.start');
    await page.goto(server.url + route);
    if (ready) await page.waitForSelector(ready, { state: 'attached', timeout: 120000 });
    else await page.waitForFunction(() => { const l = document.querySelector('[data-rendered]'); return l && Number(l.dataset.rendered) > 0 && l.querySelector('.lab-verdict'); }, null, { timeout: 120000 });
    await page.waitForTimeout(1500);
    const { profile } = await cdp.send('Profiler.stop');
    await cdp.send('Tracing.end');
    await done;
    if (traceOut) fs.writeFileSync(traceOut, JSON.stringify({ traceEvents: events }));

    // the renderer's main thread, and its tasks
    const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain' &&
      events.some((x) => x.pid === e.pid && x.tid === e.tid && x.name === 'ParseHTML'));
    const nav = events.find((e) => e.pid === main.pid && (e.name === 'navigationStart' || e.name === 'markAsMainFrame')) ?? events.find((e) => e.pid === main.pid && e.name === 'ParseHTML');
    const tasks = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.name === 'RunTask' && e.ts >= nav.ts)
      .sort((a, b) => a.ts - b.ts);
    const long = tasks.filter((t) => t.dur > 50000);
    const tbt = long.reduce((s, t) => s + t.dur - 50000, 0);
    summary.push({ tbt, longest: Math.max(0, ...tasks.map((t) => t.dur)) });

    // the profile's samples with their stacks (trace clock and profile clock are both µs of the same monotonic clock)
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const samples = [];
    let t = profile.startTime;
    profile.samples.forEach((id, i) => {
      t += profile.timeDeltas[i];
      const stack = [];
      for (let n = id; n !== undefined; n = parent.get(n)) stack.push(byId.get(n).callFrame);
      samples.push({ t, dt: profile.timeDeltas[i + 1] ?? 0, phase: phaseOf(stack), stack });
    });
    const phasesIn = (a, b) => {
      const sums = {};
      for (const s of samples) if (s.t >= a && s.t < b && s.phase !== 'idle') sums[s.phase] = (sums[s.phase] ?? 0) + s.dt;
      return Object.entries(sums).sort((x, y) => y[1] - x[1]);
    };
    // --top N: the N functions with the most samples inside each long task, counted once per
    // sample wherever they are on its stack (so a caller includes its callees)
    const top = Number(arg('--top', '0'));
    const name = (f) => `${f.functionName || '(anonymous)'}@${path.basename(f.url || 'native')}:${f.lineNumber}`;
    const topIn = (a, b) => {
      const sums = new Map();
      for (const s of samples) {
        if (s.t < a || s.t >= b || s.phase === 'idle') continue;
        for (const n of new Set(s.stack.map(name))) sums.set(n, (sums.get(n) ?? 0) + s.dt);
      }
      return [...sums].sort((x, y) => y[1] - x[1]).slice(0, top);
    };
    // wasm compilation as V8 traces it (streaming compilation runs off the main thread)
    const wasmEvents = events.filter((e) => e.ph === 'X' && /wasm/i.test(e.name) && e.ts >= nav.ts);
    const wasmOnMain = wasmEvents.filter((e) => e.tid === main.tid && e.pid === main.pid);
    const sumBy = (es) => Object.entries(es.reduce((m, e) => ((m[e.name] = (m[e.name] ?? 0) + e.dur), m), {})).sort((a, b) => b[1] - a[1]);

    console.log(`\n## ${route}, CPU ${cpu}x slower, run ${run} of ${runs} (load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})\n`);
    console.log(`Total blocking time ${ms(tbt)} ms over ${long.length} long task(s); ${tasks.length} tasks in all.\n`);
    console.log('| long task | starts at | length | what ran in it (CPU profile) |\n|---:|---:|---:|---|');
    long.forEach((l, i) => {
      const what = phasesIn(l.ts, l.ts + l.dur).filter(([, us]) => us >= 2000).map(([p, us]) => `${p} ${ms(us)} ms`).join(', ');
      console.log(`| ${i + 1} | ${ms(l.ts - nav.ts)} ms | **${ms(l.dur)} ms** | ${what} |`);
      if (top) topIn(l.ts, l.ts + l.dur).forEach(([n, us]) => console.log(`|   |   |   | ${ms(us)} ms ${n} |`));
    });
    const last = tasks.length ? tasks[tasks.length - 1].ts + tasks[tasks.length - 1].dur : nav.ts;
    console.log('\nWhole load, main thread, by phase: ' + phasesIn(nav.ts, last).filter(([, us]) => us >= 2000).map(([p, us]) => `${p} ${ms(us)} ms`).join(', ') + '.');
    console.log('wasm trace events on the main thread: ' + (sumBy(wasmOnMain).map(([n, us]) => `${n} ${ms(us)} ms`).join(', ') || 'none') + '.');
    console.log('wasm trace events off the main thread: ' + (sumBy(wasmEvents.filter((e) => !wasmOnMain.includes(e))).slice(0, 6).map(([n, us]) => `${n} ${ms(us)} ms`).join(', ') || 'none') + '.');
    await page.close();
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  console.log(`\nsummary: ${route}, ${runs} run(s), CPU ${cpu}x: total blocking time ${summary.map((r) => ms(r.tbt)).join(', ')} ms (median ${ms(median(summary.map((r) => r.tbt)))} ms); longest task ${summary.map((r) => ms(r.longest)).join(', ')} ms (median ${ms(median(summary.map((r) => r.longest)))} ms); load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
} finally {
  await context.close();
  fs.rmSync(dir, { recursive: true, force: true });
  await server.stop();
}
