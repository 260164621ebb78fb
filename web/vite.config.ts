import { defineConfig } from 'vite';
import { resolve, relative } from 'node:path';
import { readdirSync, readFileSync, statSync } from 'node:fs';

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
// The lab groups' engines (../wasm/variants.json): scalelab-engine-<variant> → engine-<variant>.js.
const variants: { name: string }[] = JSON.parse(readFileSync(resolve(__dirname, '..', 'wasm', 'variants.json'), 'utf8')).variants;
const variantAliases = Object.fromEntries(variants.map((v) => [`scalelab-engine-${v.name}`, resolve(wasmDir, `engine-${v.name}.js`)]));

export default defineConfig({
  root: site,
  base: '/',
  publicDir: false,
  resolve: { alias: { ...variantAliases, 'scalelab-engine': resolve(wasmDir, 'engine.js'), 'scalelab-matmul': resolve(wasmDir, 'matmul.js') } },
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
