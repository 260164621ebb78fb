// The experiment's module Worker: one run per Worker (the page terminates it afterwards, on
// Cancel, and on pagehide). CPU first — the reference — then, if asked for, WebGPU.
//
// Timer boundaries (performance.now(), which browsers coarsen and jitter):
//   CPU   the WebAssembly multiply calls only (including the kernel's packing of B); not module
//         loading, input generation, copies into WebAssembly memory or progress messages.
//   GPU   each phase separately: adapter request · device creation · shader module + pipeline
//         creation · buffer creation + upload (until the queue reports the writes done) ·
//         dispatch (submit until the queue reports the work done) · readback (copy to a
//         mappable buffer, map, copy out) · cleanup (destroy buffers and device).
// Every await that could stall has a timeout and also ends when the device is lost.
import createMatmul from 'scalelab-matmul';
import { MATMUL_WGSL, TILE } from './matmul-shader';
import { compareResults } from './matmul-compare';
import type {
  AdapterReport, CpuResult, FaultHooks, GpuResult, GpuStatus, Phase, RunRequest, WorkerMessage,
} from './matmul-protocol';
import { MAX_N, SOFTWARE_MAX_N } from './matmul-protocol';

const scope = self as unknown as {
  postMessage(m: WorkerMessage): void;
  onmessage: ((e: MessageEvent) => void) | null;
  navigator: Navigator & { gpu?: GPU };
};
const post = (m: WorkerMessage) => scope.postMessage(m);
const progress = (phase: string, label: string, fraction: number | null = null) =>
  post({ type: 'progress', phase, label, fraction });
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

let busy = false;
scope.onmessage = (e: MessageEvent) => {
  const req = e.data as RunRequest;
  if (req?.type !== 'run' || busy) return;
  busy = true;
  run(req).catch((err) => post({ type: 'fatal', message: errorText(err) }));
};

/** One line: browsers' WebGPU messages can span several lines of validation context. */
function errorText(e: unknown): string {
  const t = e instanceof Error ? e.message || e.name : String(e);
  return t.replace(/\s+/g, ' ').replace(/[\s.]+$/, '').trim();
}

/** Uniform in [-1, 1), from xorshift32 — the same generator as bench/matmul/matmul_bench.cpp. */
function randomMatrix(count: number, seed: number): Float32Array {
  const out = new Float32Array(count);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < count; i++) {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    out[i] = (s >>> 8) / 8388608 - 1;
  }
  return out;
}

async function run(req: RunRequest) {
  const n = Math.floor(req.n);
  if (!(n >= 1 && n <= MAX_N)) throw new Error(`size ${req.n} is outside 1…${MAX_N}`);
  const faults = req.faults ?? {};
  progress('inputs', 'Generating the input matrices');
  const a = randomMatrix(n * n, req.seed ^ 0x9e3779b9);
  const b = randomMatrix(n * n, req.seed ^ 0x85ebca6b);

  const cpu = await runCpu(a, b, n, faults);
  post({ type: 'cpu', result: cpu.result });

  if (!req.gpu) {
    post({ type: 'gpu', result: { status: 'skipped', message: 'WebGPU was not requested: the CPU ran alone.', adapter: null, phases: [], compare: null, workgroup: '', bands: 0 } });
  } else {
    post({ type: 'gpu', result: await runGpu(a, b, cpu.c, n, faults) });
  }
  post({ type: 'done' });
}

// ---------------------------------------------------------------------------------- CPU
async function runCpu(a: Float32Array, b: Float32Array, n: number, faults: FaultHooks) {
  progress('cpu-load', 'Loading the WebAssembly module');
  const t0 = performance.now();
  const mod = await createMatmul();
  const loadMs = performance.now() - t0;
  const count = n * n;
  const pa = mod._sl_matmul_alloc(count), pb = mod._sl_matmul_alloc(count), pc = mod._sl_matmul_alloc(count);
  if (!pa || !pb || !pc) throw new Error(`could not allocate ${(3 * count * 4 / 2 ** 20).toFixed(0)} MiB in WebAssembly memory`);
  try {
    mod.HEAPF32.set(a, pa >> 2); // after all allocations: memory growth replaces HEAPF32
    mod.HEAPF32.set(b, pb >> 2);
    // Untimed warm-up. Browsers first run WebAssembly with a quick baseline compiler and swap
    // in optimised code for hot functions later, in the background — but never inside a call
    // that is already running. So: small multiplies until one is clearly faster than the
    // first (the optimised kernel is in) twice in a row, or 400 ms have passed.
    const w = Math.min(n, 256);
    const tw = performance.now();
    let first = 0, fast = 0, iters = 0;
    for (;;) {
      const t = performance.now();
      mod._sl_matmul_rows(pa, pb, pc, w, w, w, 0, w);
      const dt = performance.now() - t;
      if (++iters === 1) first = dt;
      else fast = dt < first / 2 ? fast + 1 : 0;
      if (fast >= 2 || performance.now() - tw > 400) break;
      await sleep(1);
    }
    const warmup = `${iters} × ${w}³ in ${(performance.now() - tw).toFixed(0)} ms`;

    // The timed multiply: in chunks of rows (progress, and a chance to cancel between calls),
    // repeated up to 5 times for n <= 512 (a few milliseconds each, so one preempted run would
    // otherwise decide the figure); the page shows the median and the best.
    const rows = n <= 256 ? n : 64;
    const reps = n <= 512 ? 5 : 1;
    const chunksPerRep = Math.ceil(n / rows);
    const times: number[] = [];
    let done = 0;
    const label = `CPU: multiplying ${n}×${n} matrices in WebAssembly`;
    progress('cpu', label, 0);
    for (let rep = 0; rep < reps; rep++) {
      let ms = 0;
      for (let r0 = 0; r0 < n; r0 += rows) {
        const r1 = Math.min(n, r0 + rows);
        const t = performance.now();
        mod._sl_matmul_rows(pa, pb, pc, n, n, n, r0, r1);
        ms += performance.now() - t;
        progress('cpu', label, ++done / (reps * chunksPerRep));
        if (faults.cpuChunkDelayMs) await sleep(faults.cpuChunkDelayMs);
      }
      times.push(ms);
    }
    const sorted = [...times].sort((x, y) => x - y);
    const ms = sorted[Math.floor(sorted.length / 2)];
    const c = mod.HEAPF32.slice(pc >> 2, (pc >> 2) + count);
    const result: CpuResult = { n, ms, bestMs: sorted[0], runs: reps, gflops: (2 * n ** 3) / (ms * 1e6),
      simd: mod._sl_matmul_simd() === 1, chunks: chunksPerRep, loadMs, warmup };
    return { result, c };
  } finally {
    mod._sl_matmul_free(pa); mod._sl_matmul_free(pb); mod._sl_matmul_free(pc);
  }
}

// ---------------------------------------------------------------------------------- GPU
class TimeoutError extends Error {}
class LostError extends Error {
  constructor(readonly reason: string, message: string) { super(message); }
}

const PHASES = {
  adapter: 'Adapter request',
  device: 'Device creation',
  pipeline: 'Shader module + pipeline creation',
  upload: 'Buffer creation + upload',
  dispatch: 'Dispatch (until the queue reports the work done)',
  readback: 'Readback (copy, map, copy out)',
  cleanup: 'Cleanup (destroy buffers and device)',
} as const;
type PhaseName = keyof typeof PHASES;

const DEFAULT_TIMEOUT_MS: Record<PhaseName, number> = {
  adapter: 10_000, device: 10_000, pipeline: 30_000, upload: 30_000,
  dispatch: 120_000, readback: 60_000, cleanup: 10_000,
};

const never = <T>() => new Promise<T>(() => {});

function adapterReport(adapter: GPUAdapter, info: GPUAdapterInfo | null): AdapterReport {
  const i = (info ?? {}) as Partial<GPUAdapterInfo> & { isFallbackAdapter?: boolean };
  const legacy = (adapter as unknown as { isFallbackAdapter?: boolean }).isFallbackAdapter;
  const isFallbackAdapter = typeof i.isFallbackAdapter === 'boolean' ? i.isFallbackAdapter
    : typeof legacy === 'boolean' ? legacy : null;
  const r = { vendor: i.vendor ?? '', architecture: i.architecture ?? '', device: i.device ?? '', description: i.description ?? '' };
  const named = /swiftshader|llvmpipe|lavapipe|software|microsoft basic render|\bwarp\b/i
    .test(`${r.vendor} ${r.architecture} ${r.device} ${r.description}`);
  return { ...r, isFallbackAdapter, software: isFallbackAdapter === true || named };
}

async function runGpu(a: Float32Array, b: Float32Array, cpuC: Float32Array, n: number, faults: FaultHooks): Promise<GpuResult> {
  const phases: Phase[] = [];
  let adapterInfo: AdapterReport | null = null;
  const workgroup = `${TILE}×${TILE} invocations, one output element each, ${TILE}×${TILE} tiles of A and B in workgroup memory`;
  const result = (status: GpuStatus, message: string, compare: GpuResult['compare'] = null): GpuResult =>
    ({ status, message, adapter: adapterInfo, phases, compare, workgroup, bands });
  const timeoutOf = (p: PhaseName) => faults.timeoutMs ?? DEFAULT_TIMEOUT_MS[p];
  const stall = <T>(at: FaultHooks['stallAt'], p: Promise<T>): Promise<T> => (faults.stallAt === at ? never<T>() : p);

  let device: GPUDevice | null = null;
  let ownDestroy = false;
  let lostSignal: Promise<never> = never();
  const buffers: GPUBuffer[] = [];
  let current: PhaseName = 'adapter';
  let bands = 0;

  /** Races p against the phase's timeout and against the device being lost. */
  const guard = <T>(p: Promise<T>, phase: PhaseName): Promise<T> => {
    let timer = 0;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimeoutError(`${PHASES[phase]} did not finish within ${(timeoutOf(phase) / 1000).toFixed(1)} s`)),
        timeoutOf(phase)) as unknown as number;
    });
    return Promise.race([p, timeout, lostSignal]).finally(() => clearTimeout(timer));
  };
  /** Times one phase; records it whether it succeeds or fails. */
  const timed = async <T>(phase: PhaseName, label: string, body: () => Promise<T>): Promise<T> => {
    current = phase;
    progress(`gpu-${phase}`, `GPU: ${label}`);
    const t = performance.now();
    try {
      const v = await body();
      phases.push({ name: phase, label: PHASES[phase], ms: performance.now() - t, ok: true });
      return v;
    } catch (e) {
      phases.push({ name: phase, label: PHASES[phase], ms: performance.now() - t, ok: false });
      throw e;
    }
  };
  const validationScope = async (phase: PhaseName, dev: GPUDevice) => {
    const err = await guard(dev.popErrorScope(), phase);
    if (err) throw new Error(err.message);
  };

  const gpu = faults.hideWebGpu ? undefined : scope.navigator.gpu;
  if (!gpu) {
    return result('unavailable', 'This browser does not offer WebGPU here (navigator.gpu is missing in the Worker), so only the CPU ran. The CPU result stands on its own.');
  }
  try {
    const adapter = await timed('adapter', 'requesting an adapter', () => guard(stall('adapter', gpu.requestAdapter()), 'adapter'));
    if (!adapter) {
      return result('no-adapter', 'The browser offers WebGPU but returned no adapter (no usable GPU, or WebGPU is disabled or blocked here), so only the CPU ran. The CPU result stands on its own.');
    }
    const legacyInfo = (adapter as unknown as { requestAdapterInfo?: () => Promise<GPUAdapterInfo> }).requestAdapterInfo;
    const info = adapter.info ?? (legacyInfo ? await guard(legacyInfo.call(adapter), 'adapter').catch(() => null) : null);
    adapterInfo = adapterReport(adapter, info);

    if (adapterInfo.software && n > SOFTWARE_MAX_N) {
      return result('too-large', `This is a fallback / software adapter: at n = ${n} its dispatch would take minutes, so the GPU run was skipped (it runs up to n = ${SOFTWARE_MAX_N} here). The CPU result stands on its own.`);
    }
    const bytes = n * n * 4;
    if (bytes > adapter.limits.maxStorageBufferBindingSize || bytes > adapter.limits.maxBufferSize) {
      return result('device-failed', `This adapter cannot hold a ${n}×${n} matrix in one buffer (limit ${adapter.limits.maxStorageBufferBindingSize} bytes); try a smaller size. The CPU result stands.`);
    }
    try {
      const descriptor: GPUDeviceDescriptor = faults.failDevice
        ? { requiredLimits: { maxComputeWorkgroupStorageSize: adapter.limits.maxComputeWorkgroupStorageSize * 1024 } } : {};
      device = await timed('device', 'creating a device', () => guard(stall('device', adapter.requestDevice(descriptor)), 'device'));
    } catch (e) {
      if (e instanceof TimeoutError) throw e;
      return result('device-failed', `The adapter could not create a device (${errorText(e)}), so only the CPU ran. The CPU result stands on its own.`);
    }
    const dev = device;
    lostSignal = new Promise<never>((_, reject) => {
      void dev.lost.then((info) => {
        if (!ownDestroy) reject(new LostError(info.reason, info.message || 'no message'));
      });
    });
    lostSignal.catch(() => {}); // observed through guard()

    const pipeline = await timed('pipeline', 'compiling the shader and creating the pipeline', async () => {
      dev.pushErrorScope('validation');
      const module = dev.createShaderModule({ label: 'matmul', code: MATMUL_WGSL });
      const compilation = await guard(module.getCompilationInfo(), 'pipeline');
      const errors = compilation.messages.filter((m) => m.type === 'error');
      const p = await guard(dev.createComputePipelineAsync({ label: 'matmul', layout: 'auto', compute: { module, entryPoint: 'main' } }), 'pipeline');
      await validationScope('pipeline', dev);
      if (errors.length) throw new Error(`shader compilation: ${errors.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join('; ')}`);
      return p;
    });

    const STORAGE = 0x80, COPY_SRC = 0x04, COPY_DST = 0x08, UNIFORM = 0x40, MAP_READ = 0x01;
    const { bufC, bind, dims } = await timed('upload', 'creating buffers and uploading A and B', async () => {
      dev.pushErrorScope('out-of-memory');
      dev.pushErrorScope('validation');
      const mk = (label: string, size: number, usage: number) => { const x = dev.createBuffer({ label, size, usage }); buffers.push(x); return x; };
      const bufA = mk('A', bytes, STORAGE | COPY_DST);
      const bufB = mk('B', bytes, STORAGE | COPY_DST);
      const bufC = mk('C', bytes, STORAGE | COPY_SRC);
      const dims = mk('dims', 16, UNIFORM | COPY_DST);
      dev.queue.writeBuffer(bufA, 0, a);
      dev.queue.writeBuffer(bufB, 0, b);
      dev.queue.writeBuffer(dims, 0, new Uint32Array([n, n, n, 0]));  // m, n, k, first row
      const bind = dev.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [
        { binding: 0, resource: { buffer: bufA } }, { binding: 1, resource: { buffer: bufB } },
        { binding: 2, resource: { buffer: bufC } }, { binding: 3, resource: { buffer: dims } }] });
      await validationScope('upload', dev);
      await validationScope('upload', dev);
      await guard(dev.queue.onSubmittedWorkDone(), 'upload');
      return { bufC, bind, dims };
    });
    if (faults.loseDeviceAt === 'after-upload') dev.destroy();

    // One dispatch on a hardware adapter. A software adapter computes on the CPU, slowly, and a
    // dispatch once submitted cannot be interrupted (terminating the Worker does not stop it),
    // so there it runs in bands of one tile row, each submitted and awaited in turn: progress
    // can be shown and Cancel waits for one band at most.
    const tileRows = Math.ceil(n / TILE);
    const bandRows = adapterInfo.software && !faults.singleDispatch ? 1 : tileRows;
    bands = Math.ceil(tileRows / bandRows);
    await timed('dispatch', 'running the compute shader', async () => {
      for (let band = 0; band < bands; band++) {
        if (band > 0) dev.queue.writeBuffer(dims, 12, new Uint32Array([band * bandRows * TILE]));
        const enc = dev.createCommandEncoder({ label: 'matmul' });
        const pass = enc.beginComputePass();
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, bind);
        pass.dispatchWorkgroups(tileRows, Math.min(bandRows, tileRows - band * bandRows));
        pass.end();
        dev.queue.submit([enc.finish()]);
        if (faults.loseDeviceAt === 'after-submit' && band === 0) dev.destroy();
        await guard(stall('dispatch', dev.queue.onSubmittedWorkDone()), 'dispatch');
        if (bands > 1) progress('gpu-dispatch', 'GPU: running the compute shader', (band + 1) / bands);
      }
    });

    const gpuC = await timed('readback', 'reading the result back', async () => {
      const staging = dev.createBuffer({ label: 'readback', size: bytes, usage: MAP_READ | COPY_DST });
      buffers.push(staging);
      const enc = dev.createCommandEncoder({ label: 'readback' });
      enc.copyBufferToBuffer(bufC, 0, staging, 0, bytes);
      dev.queue.submit([enc.finish()]);
      await guard(staging.mapAsync(MAP_READ), 'readback');
      const out = new Float32Array(staging.getMappedRange().slice(0));
      staging.unmap();
      return out;
    });

    await timed('cleanup', 'releasing buffers and the device', async () => {
      ownDestroy = true;
      for (const x of buffers.splice(0)) x.destroy();
      dev.destroy();
      device = null;
    });

    if (faults.perturbGpu && faults.perturbGpu.index < gpuC.length) gpuC[faults.perturbGpu.index] += faults.perturbGpu.delta;
    progress('compare', 'Comparing every element with the CPU reference');
    const compare = compareResults(a, b, cpuC, gpuC, n, n, n);
    const message = compare.allMatched
      ? `All ${compare.elements.toLocaleString('en')} elements of the WebGPU result match the CPU reference within the stated tolerance.`
      : `${compare.mismatches.toLocaleString('en')} of ${compare.elements.toLocaleString('en')} elements of the WebGPU result differ from the CPU reference by more than rounding can explain: the GPU result is wrong. The CPU result stands.`;
    return result('ok', message, compare);
  } catch (e) {
    if (e instanceof LostError) {
      const said = e.message.replace(/[.\s]+$/, '');
      return result('lost', `The GPU device was lost during “${PHASES[current]}” (the browser gave the reason “${e.reason}”: ${said}). Nothing from the GPU run is used; the CPU result stands on its own.`);
    }
    if (e instanceof TimeoutError) {
      return result('timeout', `${e.message}, so the GPU run was abandoned and its resources released. The CPU result stands on its own.`);
    }
    return result('error', `The GPU run failed during “${PHASES[current]}”: ${errorText(e)}. The CPU result stands on its own.`);
  } finally {
    if (device || buffers.length) {
      ownDestroy = true;
      const t = performance.now();
      for (const x of buffers.splice(0)) { try { x.destroy(); } catch { /* already gone */ } }
      try { device?.destroy(); } catch { /* already gone */ }
      device = null;
      phases.push({ name: 'cleanup', label: PHASES.cleanup, ms: performance.now() - t, ok: true });
    }
  }
}
