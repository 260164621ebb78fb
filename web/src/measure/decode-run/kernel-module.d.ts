// The measured decode run's CPU kernel (wasm/decode-kernel/, built into build-wasm/web/), as URLs:
// vite.config.ts aliases these names to the two .wasm files. cpu.ts fetches and compiles one.
declare module 'scalelab-decode-kernel?url' {
  /** one thread: imports a plain memory */
  const url: string;
  export default url;
}
declare module 'scalelab-decode-kernel-threads?url' {
  /** threads: imports a shared memory */
  const url: string;
  export default url;
}
