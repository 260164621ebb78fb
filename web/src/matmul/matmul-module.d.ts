// The experiment's WebAssembly module (matmul/, built by wasm/CMakeLists.txt as
// build-wasm/web/matmul.js + matmul.wasm); vite.config.ts aliases 'scalelab-matmul' to it.
declare module 'scalelab-matmul' {
  export interface MatmulModule {
    HEAPF32: Float32Array;
    _sl_matmul_alloc(count: number): number;
    _sl_matmul_free(ptr: number): void;
    _sl_matmul_rows(a: number, b: number, c: number, m: number, n: number, k: number, rowBegin: number, rowEnd: number): void;
    _sl_matmul_simd(): number;
  }
  const createMatmul: (opts?: { locateFile?: (p: string) => string; wasmBinary?: ArrayBuffer }) => Promise<MatmulModule>;
  export default createMatmul;
}
