// Writes web/dist/sw.js: the service worker of web/src/offline/service-worker.js with this build's
// VERSION (a hash of every precached file) and PRECACHE list (every page, script, style, wasm
// engine and woff2 font). Runs after `vite build`, before compression.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(WEB, 'dist');
// .ttf and .woff are KaTeX's fallbacks for browsers without woff2, which have no service worker.
const PRECACHED = /\.(html|js|css|wasm|woff2|svg|json|webmanifest|ico|png)$/;

function files(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : PRECACHED.test(e.name) && e.name !== 'sw.js' ? [p] : [];
  });
}

// dist/chapters/01-rooflines/index.html → /chapters/01-rooflines/ (the URL a reader opens)
const urlOf = (file) => '/' + path.relative(dist, file).split(path.sep).join('/').replace(/(^|\/)index\.html$/, '$1');

const list = files(dist).sort();
const hash = crypto.createHash('sha256');
for (const f of list) hash.update(urlOf(f)).update(fs.readFileSync(f));
const version = hash.digest('hex').slice(0, 16);
const precache = list.map(urlOf);
const source = fs.readFileSync(path.join(WEB, 'src', 'offline', 'service-worker.js'), 'utf8');
fs.writeFileSync(path.join(dist, 'sw.js'),
  `const VERSION = ${JSON.stringify(version)};\nconst PRECACHE = ${JSON.stringify(precache, null, 0)};\n${source}`);
const bytes = list.reduce((n, f) => n + fs.statSync(f).size, 0);
console.log(`service worker: build ${version}, ${precache.length} files (${(bytes / 1024).toFixed(0)} KiB) precached`);
