// Messages between <sl-decode-run> (the page) and its Worker (worker.ts), the run's bounds, what a
// finished run reports, and the test hooks.
import type { Rate } from '../measure-protocol';
import type { ModelShape, Plan } from './plan';

/** Where a run stops, whatever the device offers. Stated on the page (view.ts, "How it is bounded"). */
export const BOUNDS = {
  /** share of the adapter's per-buffer limits (maxStorageBufferBindingSize, maxBufferSize) one buffer may take */
  bufferShare: 0.5,
  /** weights held at once on a GPU, and on a software adapter or the CPU */
  gpuWeightBytes: 1024 * 2 ** 20,
  softwareWeightBytes: 48 * 2 ** 20,
  cpuWeightBytes: 512 * 2 ** 20,
  /** the CPU path's weights never take more than this share of the memory the browser reports */
  cpuMemoryShare: 1 / 8,
  /** the largest batch: on a GPU, on a software adapter or the CPU */
  gpuMaxBatch: 2048,
  cpuMaxBatch: 512,
  /** the sweep goes this far past the engine's flip (then to a whole power of two) */
  pastFlip: 4,
  /** no step at the largest batch may be predicted to take longer than this (seconds) */
  maxStepS: 2,
  /** threads of the CPU path */
  maxThreads: 16,
  /** no message from the Worker for this long: it is stopped */
  watchdogMs: 120_000,
} as const;

export type Backend = 'gpu' | 'cpu';
export type Precision = 'f16' | 'f32';

export interface AdapterReport {
  vendor: string; architecture: string; device: string; description: string;
  /** null when the browser does not say */
  isFallbackAdapter: boolean | null;
  /** a fallback adapter, or one whose name says software (SwiftShader, llvmpipe, WARP) */
  software: boolean;
}

/** What ran, and why that and not the other. */
export interface DeviceReport {
  backend: Backend;
  precision: Precision;
  /** the adapter WebGPU offered (also when the CPU ran because of it) */
  adapter: AdapterReport | null;
  /** the name the measured chip carries ("NVIDIA GeForce RTX 4090", "CPU (WebAssembly SIMD, 8 threads)") */
  name: string;
  /** a sentence: which ran and why */
  why: string;
  /** how each step is timed */
  timer: 'timestamp-query' | 'readback' | 'wall-clock';
  threads: number;
  /** whether the page is cross-origin isolated (WebAssembly threads need it) */
  isolated: boolean;
}

/** the measured ceilings of the same device, the same precision and kernels: "This device (measured)" */
export interface Ceilings { bandwidth: Rate; flops: Rate }

/** one batch of the sweep */
export interface Point {
  batch: number;
  /** the whole model's step: the run's step × the plan's scaleUp (seconds) */
  stepS: number;
  /** the run's own step, median of `samples` timed groups of `reps` steps */
  runS: number;
  lowS: number; highS: number;
  samples: number; reps: number;
  verify: Verification;
}

/** A sample of one batch's outputs against the reference (verify.ts). */
export interface Verification {
  checked: number;
  mismatches: number;
  /** max |device − reference| / allowed, over the sample */
  worstShare: number;
  /** what was checked, in words */
  what: string;
}

/** The plan as the page needs it (the op list stays in the Worker). */
export type PlanSummary = Pick<Plan, 'layersRun' | 'columnShare' | 'headRows' | 'modelParams' | 'runParams' | 'scaleUp' | 'weightBytes' | 'maxBatch' | 'elemBytes'> & {
  chunks: number; ops: number;
};

export interface RunHooks {
  /** weights the run may hold (bytes), instead of BOUNDS' */
  weightBytes?: number;
  /** the batches to run, instead of the sweep the engine's flip sets */
  batches?: number[];
  /** the largest batch */
  maxBatch?: number;
  /** timed samples per batch and steps per sample */
  samples?: number; reps?: number;
  /** the ceilings' sizes: bytes copied or streamed, and the matmul's batch and width */
  ceilingBytes?: number; ceilingBatch?: number; ceilingWidth?: number;
  /** behave as if WebGPU were missing */
  hideWebGpu?: boolean;
  /** run the sweep on a software adapter (otherwise the CPU runs it) */
  softwareGpu?: boolean;
  /** CPU threads, instead of the browser's count */
  threads?: number;
  /** destroy the device after this many points (a stand-in for a lost device) */
  loseDeviceAfter?: number;
  /** pause this long (ms) after each point, so that a test can cancel mid-run */
  pointDelayMs?: number;
  /** add this to one output before the check (checks the check) */
  perturb?: number;
  /** the page's watchdog (ms) */
  watchdogMs?: number;
}

export type PageToWorker =
  | { type: 'start'; model: ModelShape; threads: number; isolated: boolean; memoryGb: number | null; seed: number; hooks: RunHooks }
  | { type: 'sweep'; batches: number[] }
  | { type: 'threads'; ports: MessagePort[] };

export type WorkerToPage =
  | { type: 'progress'; label: string; fraction: number | null }
  | { type: 'device'; device: DeviceReport }
  | { type: 'need-threads'; count: number }
  | { type: 'ceilings'; ceilings: Ceilings; plan: PlanSummary }
  | { type: 'point'; point: Point }
  | { type: 'done' }
  | { type: 'failed'; message: string };

/** Messages between the CPU path's coordinator (in the run's Worker) and each thread (cpu-thread.ts). */
export interface ThreadInit { type: 'init'; module: WebAssembly.Module; memory: WebAssembly.Memory; control: SharedArrayBuffer; index: number; count: number; stackTop: number }
