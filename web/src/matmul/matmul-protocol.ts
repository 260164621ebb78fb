// Messages between <sl-matmul-experiment> (main thread) and matmul-worker.ts (module Worker).

/** Sizes offered: n×n · n×n in float32. Bounded because a browser tab shares memory and time
 *  with everything else: at n = 2048 the three matrices are 48 MiB in WebAssembly memory, the
 *  same again in GPU buffers plus a 16 MiB readback copy, and 2·n³ ≈ 17 GFLOP on the CPU. */
export const SIZES = [64, 128, 256, 512, 1024, 2048] as const;
export const MAX_N = 2048;
/** Largest size sent to a fallback / software adapter: SwiftShader took ~40 s for the 1024
 *  dispatch on a busy 2-core machine, so 2048 (8× the work) would take minutes. */
export const SOFTWARE_MAX_N = 1024;

/** Test hooks (window.__slMatmulTestHooks): only the browser tests set them. */
export interface FaultHooks {
  /** call device.destroy() at this point of the GPU run, as a stand-in for a lost device */
  loseDeviceAt?: 'after-upload' | 'after-submit';
  /** make this await never settle, to exercise the timeouts */
  stallAt?: 'adapter' | 'device' | 'dispatch';
  /** replace every GPU timeout (milliseconds) */
  timeoutMs?: number;
  /** pause this many milliseconds between CPU chunks (so a test can cancel mid-run) */
  cpuChunkDelayMs?: number;
  /** one dispatch even on a software adapter (the hardware path) */
  singleDispatch?: boolean;
  /** behave as if the Worker had no navigator.gpu */
  hideWebGpu?: boolean;
  /** ask for a device with a limit beyond the adapter's, so that device creation really fails */
  failDevice?: boolean;
  /** add delta to one element of the GPU result before the comparison (checks the check) */
  perturbGpu?: { index: number; delta: number };
}

/** Hooks read by the page only (not sent to the Worker). */
export interface PageHooks {
  /** inactivity limit of the page's watchdog, milliseconds */
  watchdogMs?: number;
  /** run this size instead of the selected one (1…MAX_N; e.g. 100, not a multiple of 8 or 16) */
  n?: number;
}

export interface RunRequest {
  type: 'run';
  n: number;
  gpu: boolean;
  seed: number;
  faults?: FaultHooks;
}

export interface CpuResult {
  n: number;
  /** time inside the WebAssembly multiply calls only (including its packing of B): the
   *  median of `runs` timed multiplies */
  ms: number;
  bestMs: number;
  runs: number;
  /** from the median */
  gflops: number;
  simd: boolean;
  /** calls (chunks of rows) per multiply */
  chunks: number;
  /** fetching, compiling and instantiating the module: not part of ms */
  loadMs: number;
  /** untimed warm-up multiplications run before the timed one */
  warmup: string;
}

export interface AdapterReport {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** null when the browser does not say */
  isFallbackAdapter: boolean | null;
  /** our reading of the above: a fallback adapter, or a name that says "software" */
  software: boolean;
}

export interface Phase { name: string; label: string; ms: number; ok: boolean }

export interface CompareResult {
  elements: number;
  mismatches: number;
  allMatched: boolean;
  maxAbs: number;
  /** max |Δ| / |C_cpu| over elements with |C_cpu| ≥ relFloor */
  maxRel: number;
  relFloor: number;
  /** max |Δ| / bound: how much of its allowed error the worst element used */
  maxBoundRatio: number;
  /** the bound's factor 2·γ_K, γ_K = K·u / (1 − K·u), u = 2⁻²⁴ */
  gammaFactor: number;
  worst: { row: number; col: number; cpu: number; gpu: number; bound: number } | null;
}

export type GpuStatus =
  | 'ok' | 'skipped' | 'too-large' | 'unavailable' | 'no-adapter' | 'device-failed' | 'lost' | 'timeout' | 'error';

export interface GpuResult {
  status: GpuStatus;
  /** a sentence for the reader */
  message: string;
  adapter: AdapterReport | null;
  phases: Phase[];
  compare: CompareResult | null;
  workgroup: string;
  /** dispatches the compute work was split into (1 on a hardware adapter; 0 if none ran) */
  bands: number;
}

export type WorkerMessage =
  | { type: 'progress'; phase: string; label: string; fraction: number | null }
  | { type: 'cpu'; result: CpuResult }
  | { type: 'gpu'; result: GpuResult }
  | { type: 'done' }
  | { type: 'fatal'; message: string };
