// Lighthouse on a sample chapter: serves web/dist (built beforehand with `npm --prefix web run
// build`) with the native server and prints the four category scores as Markdown, plus any
// accessibility/SEO audit that is not passed.
//
//   npm --prefix bench/lighthouse ci                    (once; lighthouse 12.8.2, pinned)
//   node bench/lighthouse/run.mjs [/chapters/01-rooflines/] [--json out.json]
//
// Environment: CHROME_PATH (default /usr/bin/chromium), SCALELAB_BIN (default build/scalelab).
import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const jsonOut = jsonAt >= 0 ? args.splice(jsonAt, 2)[1] : null;
// --dist DIR: serve another build (a copy of an older web/dist), for a run-by-run comparison
const distAt = args.indexOf('--dist');
const distArg = distAt >= 0 ? path.resolve(args.splice(distAt, 2)[1]) : null;
// --devtools: throttle the real run (Lighthouse's --throttling-method=devtools) instead of simulating it
const devtoolsAt = args.indexOf('--devtools');
const throttling = devtoolsAt >= 0 ? (args.splice(devtoolsAt, 1), ['--throttling-method=devtools']) : [];
const route = args[0] || '/chapters/01-rooflines/';
const CHROME_FLAGS = '--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync --no-first-run';

function serve() {
  const bin = path.resolve(ROOT, process.env.SCALELAB_BIN || 'build/scalelab');
  const dist = distArg ?? path.join(ROOT, 'web', 'dist');
  if (!fs.existsSync(bin)) throw new Error(`no server binary at ${path.relative(ROOT, bin)}: cmake --build build -j2`);
  if (!fs.existsSync(path.join(dist, 'index.html'))) throw new Error(`${path.relative(ROOT, dist)} is not built: npm --prefix web run build`);
  const proc = spawn(bin, ['serve', '--port', '0', '--root', dist], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 10000);
    const onData = (d) => {
      out += d;
      const m = /serving .* on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) { clearTimeout(timer); resolve({ url: m[1], stop: () => proc.kill('SIGTERM') }); }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited (${code}): ${out}`)); });
  });
}

const lighthouseBin = path.join(HERE, 'node_modules', '.bin', 'lighthouse');
if (!fs.existsSync(lighthouseBin)) {
  console.error('lighthouse is not installed here: npm --prefix bench/lighthouse ci');
  process.exit(1);
}
const server = await serve();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'scalelab-lighthouse-'));
const report = path.join(tmp, 'report.json');
try {
  const url = server.url + route;
  await new Promise((resolve, reject) => execFile(lighthouseBin, [
    url, '--quiet', '--output=json', `--output-path=${report}`, `--chrome-flags=${CHROME_FLAGS}`,
    '--only-categories=performance,accessibility,best-practices,seo', ...throttling,
  ], { env: { ...process.env, CHROME_PATH: process.env.CHROME_PATH || '/usr/bin/chromium' }, maxBuffer: 1 << 26 },
  (err, stdout, stderr) => (err ? reject(new Error(`lighthouse failed: ${err.message}\n${stderr}`)) : resolve())));
  const lhr = JSON.parse(fs.readFileSync(report, 'utf8'));
  if (jsonOut) fs.copyFileSync(report, jsonOut);
  const cats = ['performance', 'accessibility', 'best-practices', 'seo'];
  console.log(`Lighthouse ${lhr.lighthouseVersion} on \`${route}\` (${lhr.configSettings.formFactor}, ${lhr.environment?.hostUserAgent?.match(/Chrome\/[\d.]+/)?.[0] ?? 'Chromium'})\n`);
  console.log('| category | score |\n|---|---|');
  for (const c of cats) console.log(`| ${lhr.categories[c].title} | ${Math.round(lhr.categories[c].score * 100)} |`);
  // the performance metrics behind the score, one line for a table per route
  const m = (id) => lhr.audits[id]?.displayValue ?? '';
  console.log(`\nrow: | ${route} | ${Math.round(lhr.categories.performance.score * 100)} | ${m('first-contentful-paint')} | ${m('largest-contentful-paint')} | ${m('total-blocking-time')} | ${m('cumulative-layout-shift')} |`);
  for (const c of ['accessibility', 'seo']) {
    const failing = lhr.categories[c].auditRefs
      .map((r) => lhr.audits[r.id])
      .filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode !== 'notApplicable' && a.scoreDisplayMode !== 'informative' && a.scoreDisplayMode !== 'manual');
    for (const a of failing) console.log(`\n${c}: ${a.id}: ${a.title}${a.details?.items?.length ? ` (${a.details.items.slice(0, 3).map((i) => i.node?.selector || i.source?.url || '').join(' | ')})` : ''}`);
  }
} finally {
  server.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
