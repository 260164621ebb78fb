import { defineConfig } from 'vite';
import { resolve, relative } from 'node:path';
import { readdirSync, statSync } from 'node:fs';

// The pages are generated into .site/ by build/content.mjs; Vite builds them as a
// multi-page app into dist/. The engine comes from the wasm build (../build-wasm/web).
const site = resolve(__dirname, '.site');
function htmlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = resolve(dir, name);
    return statSync(p).isDirectory() ? htmlFiles(p) : name.endsWith('.html') ? [p] : [];
  });
}
const wasmDir = resolve(__dirname, '..', process.env.SCALELAB_WASM_DIR || 'build-wasm', 'web');

// Cross-origin isolation for `vite dev` / `vite preview`, as `scalelab serve` and the service
// worker give it (WebAssembly threads need it; README, "Serving the course elsewhere").
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export default defineConfig({
  root: site,
  server: { headers: isolation },
  preview: { headers: isolation },
  base: '/',
  publicDir: false,
  resolve: {
    alias: [
      // the engine's .wasm as a URL (`scalelab-engine-wasm?url`): the page compiles it once (src/engine.ts)
      { find: /^scalelab-engine-wasm\?url$/, replacement: `${resolve(wasmDir, 'engine.wasm')}?url` },
      // a lab group's engine (its labs' manifests, src/labs/*.lab.json) as a URL (`scalelab-engine-<variant>-wasm?url`):
      // the same glue as the full engine, its own .wasm
      { find: /^scalelab-engine-([a-z]+)-wasm\?url$/, replacement: `${resolve(wasmDir, 'engine-$1.wasm')}?url` },
      { find: /^scalelab-engine$/, replacement: resolve(wasmDir, 'engine.js') },
      { find: /^scalelab-matmul$/, replacement: resolve(wasmDir, 'matmul.js') },
      // the measured decode run's CPU kernel (wasm/decode-kernel/): its .wasm as a URL, threads or one thread
      { find: /^scalelab-decode-kernel\?url$/, replacement: `${resolve(wasmDir, 'decode_kernel.wasm')}?url` },
      { find: /^scalelab-decode-kernel-threads\?url$/, replacement: `${resolve(wasmDir, 'decode_kernel_threads.wasm')}?url` },
    ],
  },
  build: {
    outDir: resolve(__dirname, 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    rollupOptions: {
      input: Object.fromEntries(htmlFiles(site).map((f) => [relative(site, f).replace(/\.html$/, '').replace(/[\\/]/g, '_'), f])),
    },
  },
});
