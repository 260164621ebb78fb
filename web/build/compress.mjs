// Writes NAME.gz and NAME.br next to every compressible file in web/dist: the server
// (`scalelab serve`) and most static hosts serve these precompressed copies.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const COMPRESSIBLE = /\.(html|js|mjs|css|wasm|svg|json|txt|xml|map|ttf|woff)$/;
let n = 0, raw = 0, gz = 0;
function walk(dir) {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    let st;
    try { st = fs.statSync(p); } catch { continue; } // vanished (a concurrent build emptied dist)
    if (st.isDirectory()) { walk(p); continue; }
    if (!COMPRESSIBLE.test(name)) continue;
    const body = fs.readFileSync(p);
    const g = zlib.gzipSync(body, { level: 9 });
    const b = zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } });
    fs.writeFileSync(p + '.gz', g);
    fs.writeFileSync(p + '.br', b);
    n += 1; raw += body.length; gz += g.length;
  }
}
walk(dist);
console.log(`compress: ${n} files, ${(raw / 1024).toFixed(0)} KiB → ${(gz / 1024).toFixed(0)} KiB gzip`);
