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
}
export const DEFAULT_SIZES: MeasureSizes = { n: 512, softwareN: 256, streamBytes: 256 * 2 ** 20, runs: 5 };

export interface MeasureRequest { type: 'measure'; sizes: MeasureSizes; gpu: boolean }

/** median and spread (lowest, highest) of the runs of one rate */
export interface Rate { median: number; low: number; high: number; runs: number; unit: 'FLOP/s' | 'bytes/s'; how: string }
export interface Measurement {
  /** what ran: a GPU adapter (WebGPU) or the CPU (WebAssembly SIMD) */
  target: 'gpu' | 'cpu';
  adapter: string;
  software: boolean;
  vendor: string;
  flops: Rate;
  bandwidth: Rate;
  /** why WebGPU was not used, when it was asked for */
  gpuNote: string;
}
export type MeasureMessage =
  | { type: 'progress'; label: string }
  | { type: 'done'; result: Measurement }
  | { type: 'fatal'; message: string };

export function rate(samples: number[], unit: Rate['unit'], how: string): Rate {
  const s = [...samples].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], low: s[0], high: s[s.length - 1], runs: s.length, unit, how };
}

/** What a reader should know before trusting the figures (shown beside them). */
export const CAVEATS = [
  'A browser adds overhead of its own (its sandbox, its WebAssembly and WebGPU layers), so these rates are lower than what native code gets.',
  'A software adapter (such as SwiftShader, used when the browser has no GPU access) runs on the CPU: its figures say nothing about a graphics card.',
  'Laptops and small cases slow down when they heat up: a longer run can come out lower than a short one.',
  'A measured rate is not the spec: it is what one kernel reached here, once; the catalog lists vendors’ peak figures.',
  'Memory capacity is not measured: it comes from what the browser reports (navigator.deviceMemory, at most 8 GB) and can be edited as a custom chip.',
];

/** The chip a measurement becomes: a custom chip the engine validates like any other. */
export function measuredChip(m: Measurement, memoryGb: number): Record<string, unknown> {
  const kind = m.target === 'cpu' ? 'cpu' : /apple/i.test(m.vendor) ? 'unified-memory' : 'consumer-gpu';
  return probeChip({
    adapter: m.adapter,
    vendor: m.vendor,
    kind,
    flops: m.flops.median,
    bytes: memoryGb * 2 ** 30,
    bytesPerS: m.bandwidth.median,
    sources: {
      flops_per_s: `measured in this browser: ${m.flops.how}; median of ${m.flops.runs} runs`,
      hbm_bytes_per_s: `measured in this browser: ${m.bandwidth.how}; median of ${m.bandwidth.runs} runs`,
      hbm_bytes: 'navigator.deviceMemory as the browser reports it (rounded, at most 8 GB); not measured',
    },
    notes: CAVEATS.join(' '),
  });
}
