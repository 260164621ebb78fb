// "Measure this device": messages between measure-device.ts (page) and measure-worker.ts (Worker),
// the sizes, and the chip the measurement becomes.
import { probeChip } from '../probe-chip.js';

/** Sizes of one measurement; the browser tests shrink them (window.__slMeasureHooks). */
export interface MeasureSizes {
  /** matmul size n (n×n · n×n float32) for the CPU and for a hardware GPU adapter */
  n: number;
  /** matmul size on a software adapter (SwiftShader: ~40 s at 1024 on a busy 2-core machine) */
  softwareN: number;
  /** bytes streamed per pass: far above any CPU's last-level cache (tens of MiB) */
  streamBytes: number;
  /** timed runs after the warm-up */
  runs: number;
  /** seconds one timed run of a CPU kernel lasts on each core (iterations are sized to it) */
  coreSeconds: number;
}
export const DEFAULT_SIZES: MeasureSizes = { n: 512, softwareN: 256, streamBytes: 256 * 2 ** 20, runs: 5, coreSeconds: 0.2 };

/** The GPU worker: WebGPU's matmul and copy rates. */
export interface MeasureRequest { type: 'measure'; sizes: MeasureSizes }
/** A CPU worker (one per core): one kernel's per-run rates on this core while the others run theirs. */
export type CoreKernel = 'fma' | 'int8' | 'matmul' | 'stream';
export interface CoreRequest { type: 'core'; kernel: CoreKernel; sizes: MeasureSizes; cores: number }
export type CoreMessage = { type: 'core-done'; samples: number[]; how: string } | { type: 'fatal'; message: string };

/** median and spread (lowest, highest) of the runs of one rate */
export interface Rate { median: number; low: number; high: number; runs: number; unit: 'FLOP/s' | 'bytes/s'; how: string }
/** The CPU measured on every core at once (one Worker each): the rates of the whole CPU. */
export interface CpuRates {
  cores: number;
  fma: Rate;
  int8: Rate;
  matmul: Rate;
  bandwidth: Rate;
}
export interface Measurement {
  /** what the chip is made from: a GPU adapter (WebGPU) or the CPU (WebAssembly SIMD, every core) */
  target: 'gpu' | 'cpu';
  adapter: string;
  software: boolean;
  vendor: string;
  /** the chip's fp32 rate and memory bandwidth (the GPU's, or the CPU's multiply-add rate and read bandwidth) */
  flops: Rate;
  bandwidth: Rate;
  /** the CPU on every core (the dialog always measures it; other producers may not) */
  cpu?: CpuRates;
  /** why WebGPU was not used, when it was asked for */
  gpuNote: string;
}
/** What the GPU worker measured. */
export interface GpuMeasurement { adapter: string; software: boolean; vendor: string; flops: Rate; bandwidth: Rate }
export type MeasureMessage =
  | { type: 'progress'; label: string }
  | { type: 'done'; result: GpuMeasurement }
  | { type: 'fatal'; message: string };

export function rate(samples: number[], unit: Rate['unit'], how: string): Rate {
  const s = [...samples].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], low: s[0], high: s[s.length - 1], runs: s.length, unit, how };
}

/** What a reader should know before trusting the figures (shown beside them). */
export const CAVEATS = [
  'A browser adds overhead of its own (its sandbox, its WebAssembly and WebGPU layers), so these rates are lower than what native code gets: WebAssembly has 4-lane vectors where the CPU may have 8 or 16, and no clock or feature list to compute a peak from (the command line’s scalelab probe measures both).',
  'A software adapter (such as SwiftShader, used when the browser has no GPU access) runs on the CPU: its figures say nothing about a graphics card.',
  'Laptops and small cases slow down when they heat up: a longer run can come out lower than a short one.',
  'A measured rate is not the spec: it is what one kernel reached here, once; the catalog lists vendors’ peak figures.',
  'Memory capacity is not measured: it comes from what the browser reports (navigator.deviceMemory, at most 8 GB) and can be edited as a custom chip.',
];

/** The chip a measurement becomes: a custom chip the engine validates like any other. */
export function measuredChip(m: Measurement, memoryGb: number): Record<string, unknown> {
  const cpu = m.target === 'cpu' ? m.cpu : undefined;
  const kind = m.target === 'cpu' ? 'cpu' : /apple/i.test(m.vendor) ? 'unified-memory' : 'consumer-gpu';
  const sources: Record<string, string> = {
    flops_per_s: `measured in this browser: ${m.flops.how}; median of ${m.flops.runs} runs` +
      (cpu ? `; int8: ${cpu.int8.how}, median of ${cpu.int8.runs} runs` : ''),
    hbm_bytes_per_s: `measured in this browser: ${m.bandwidth.how}; median of ${m.bandwidth.runs} runs`,
    hbm_bytes: 'navigator.deviceMemory as the browser reports it (rounded, at most 8 GB); not measured',
  };
  if (cpu) sources.matmul = `an fp32 matmul reached ${cpu.matmul.median.toPrecision(3)} FLOP/s (${cpu.matmul.how})`;
  return probeChip({
    adapter: m.adapter,
    vendor: m.vendor,
    kind,
    flops: m.flops.median,
    int8: cpu?.int8.median,
    bytes: memoryGb * 2 ** 30,
    bytesPerS: m.bandwidth.median,
    sources,
    notes: CAVEATS.join(' '),
  });
}

/** Per-run rates of the whole CPU: run r is the sum of every core's run r (they ran at once). */
export function summed(perCore: number[][]): number[] {
  const runs = Math.min(...perCore.map((s) => s.length));
  return Array.from({ length: runs }, (_, r) => perCore.reduce((sum, s) => sum + s[r], 0));
}
