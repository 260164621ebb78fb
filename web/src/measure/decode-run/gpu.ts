// The WebGPU side of the measured decode run (in its Worker): the adapter, the ceilings, the weights
// filled on the GPU, one step's dispatches at a batch, its timing and the check of a sample.
//
// Timing: with `timestamp-query`, each sample is one compute pass holding `reps` steps, timed by
// the GPU between the pass's start and end (Chromium rounds timestamps to 100 µs, so a sample
// lasts tens of milliseconds); without it, the same steps are submitted and one small readback
// waited for, timed by the clock. Every await races the device being lost and a time limit.
import { rate } from '../measure-protocol';
import type { Chunk, Plan } from './plan';
import type { Rate } from '../measure-protocol';
import type { AdapterReport, DeviceReport, Precision, RunHooks, Verification } from './protocol';
import { BOUNDS } from './protocol';
import {
  COPY_WGSL, FILL_PARAMS_BYTES, PARAMS_BYTES, PARAMS_STRIDE, SKINNY_MAX_BATCH, SKINNY_ROWS, TILE_N,
  fillShader, skinnyShader, skinnyWidth, tiledShader, tileRows,
} from './shaders';
import { checkMatmul, halfToNumber, sampledOutputs, sampledRows, verification, type Tally } from './verify';

// GPUBufferUsage and GPUMapMode, as numbers (the globals are missing from some Workers' typings)
const MAP_READ = 0x01, COPY_SRC = 0x04, COPY_DST = 0x08, UNIFORM = 0x40, STORAGE = 0x80, QUERY_RESOLVE = 0x200;
const MIB = 2 ** 20;

export class LostError extends Error {}
class TimeoutError extends Error {}

/** Our reading of an adapter: what it says of itself, and whether it is software. */
export function adapterReport(adapter: GPUAdapter): AdapterReport {
  const i = (adapter.info ?? {}) as Partial<GPUAdapterInfo> & { isFallbackAdapter?: boolean };
  const legacy = (adapter as unknown as { isFallbackAdapter?: boolean }).isFallbackAdapter;
  const isFallbackAdapter = typeof i.isFallbackAdapter === 'boolean' ? i.isFallbackAdapter : typeof legacy === 'boolean' ? legacy : null;
  const r = { vendor: i.vendor ?? '', architecture: i.architecture ?? '', device: i.device ?? '', description: i.description ?? '' };
  const named = /swiftshader|llvmpipe|lavapipe|software|microsoft basic render|\bwarp\b/i.test(`${r.vendor} ${r.architecture} ${r.device} ${r.description}`);
  return { ...r, isFallbackAdapter, software: isFallbackAdapter === true || named };
}

/** A name for people: "NVIDIA GeForce RTX 4090", else vendor and architecture ("google swiftshader"). */
export function adapterName(a: AdapterReport): string {
  const name = a.description || [a.vendor, a.architecture].filter(Boolean).join(' ') || 'WebGPU adapter';
  return a.software ? `${name} (software adapter)` : name;
}

export type GpuOpening =
  | { kind: 'gpu'; run: GpuRun }
  | { kind: 'cpu'; why: string; adapter: AdapterReport | null };

/** Opens the adapter and a device, or says why the CPU should run instead. */
export async function openGpu(hooks: RunHooks): Promise<GpuOpening> {
  const gpu = hooks.hideWebGpu ? undefined : (navigator as Navigator & { gpu?: GPU }).gpu;
  if (!gpu) return { kind: 'cpu', adapter: null, why: 'This browser offers no WebGPU here, so the CPU runs the sweep in WebAssembly.' };
  const adapter = await withTimeout(gpu.requestAdapter({ powerPreference: 'high-performance' }), 10_000, 'requesting an adapter');
  if (!adapter) return { kind: 'cpu', adapter: null, why: 'This browser has WebGPU but gave no adapter (no usable GPU, or WebGPU is switched off), so the CPU runs the sweep in WebAssembly.' };
  const report = adapterReport(adapter);
  if (report.software && !hooks.softwareGpu) {
    return { kind: 'cpu', adapter: report, why: `WebGPU offers only a software adapter here (${adapterName(report)}): it runs on the CPU, so its figures would be the CPU's under another name. The CPU runs the sweep in WebAssembly instead.` };
  }
  const f16 = adapter.features.has('shader-f16');
  const timestamps = adapter.features.has('timestamp-query');
  const lim = adapter.limits;
  let device: GPUDevice;
  try {
    device = await withTimeout(adapter.requestDevice({
      requiredFeatures: [...(f16 ? ['shader-f16'] : []), ...(timestamps ? ['timestamp-query'] : [])] as GPUFeatureName[],
      requiredLimits: { maxStorageBufferBindingSize: lim.maxStorageBufferBindingSize, maxBufferSize: lim.maxBufferSize },
    }), 10_000, 'creating a device');
  } catch (e) {
    return { kind: 'cpu', adapter: report, why: `The GPU adapter could not make a device (${errorText(e)}), so the CPU runs the sweep in WebAssembly.` };
  }
  return { kind: 'gpu', run: new GpuRun(device, report, f16 ? 'f16' : 'f32', timestamps, hooks) };
}

export function errorText(e: unknown): string {
  const t = e instanceof Error ? e.message || e.name : String(e);
  return t.replace(/\s+/g, ' ').replace(/[\s.]+$/, '').trim();
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer = 0;
  const t = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new TimeoutError(`${what} did not finish within ${ms / 1000} s`)), ms) as unknown as number; });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** seconds a step: the median, lowest and highest of the samples, and every sample */
interface Timed { runS: number; lowS: number; highS: number; samples: number; reps: number; times: number[] }

export class GpuRun {
  readonly software: boolean;
  /** one buffer may hold this many bytes: a share of the adapter's limits */
  readonly bufferBytes: number;
  private readonly buffers: GPUBuffer[] = [];
  private lost: Promise<never>;
  private ownDestroy = false;
  private readonly pipelines = new Map<string, Promise<GPUComputePipeline>>();
  private layout: GPUBindGroupLayout;
  private plan: Plan | null = null;
  private act: Record<string, GPUBuffer> = {};
  private params: GPUBuffer | null = null;
  private bindings: GPUBindGroup[] = [];
  private readonly timeoutMs: number;
  private readonly probeSource: GPUBuffer;

  constructor(readonly device: GPUDevice, readonly adapter: AdapterReport, readonly precision: Precision,
    readonly timestamps: boolean, private readonly hooks: RunHooks) {
    this.software = adapter.software;
    const lim = device.limits;
    this.bufferBytes = Math.floor(Math.min(lim.maxStorageBufferBindingSize, lim.maxBufferSize) * BOUNDS.bufferShare / 16) * 16;
    this.timeoutMs = this.software ? 300_000 : 60_000;
    this.lost = new Promise<never>((_, reject) => {
      void device.lost.then((info) => {
        if (!this.ownDestroy) reject(new LostError(`the GPU device was lost (the browser gave the reason “${info.reason}”: ${errorText(info.message || 'no message')})`));
      });
    });
    this.lost.catch(() => {});
    const entry = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({ binding, visibility: 4 /* COMPUTE */, buffer: { type } });
    this.probeSource = this.buffer('readback source', 16, COPY_SRC);
    this.layout = device.createBindGroupLayout({ entries: [entry(0, 'read-only-storage'), entry(1, 'read-only-storage'), entry(2, 'storage'), entry(3, 'uniform')] });
  }

  get elemBytes() { return this.precision === 'f16' ? 2 : 4; }

  report(why: string): DeviceReport {
    return {
      backend: 'gpu', precision: this.precision, adapter: this.adapter, name: adapterName(this.adapter), why,
      timer: this.timestamps ? 'timestamp-query' : 'readback', threads: 0, isolated: self.crossOriginIsolated === true,
    };
  }

  /** the run's weight budget and batch cap on this adapter */
  budget() {
    return {
      weightBytes: this.hooks.weightBytes ?? (this.software ? BOUNDS.softwareWeightBytes : BOUNDS.gpuWeightBytes),
      bufferBytes: Math.min(this.bufferBytes, 256 * MIB),
      maxBatch: this.hooks.maxBatch ?? (this.software ? 64 : BOUNDS.gpuMaxBatch),
    };
  }

  private guard<T>(p: Promise<T>, what: string): Promise<T> {
    return Promise.race([withTimeout(p, this.timeoutMs, what), this.lost]);
  }

  private buffer(label: string, size: number, usage: number): GPUBuffer {
    const b = this.device.createBuffer({ label, size: Math.max(16, Math.ceil(size / 4) * 4), usage });
    this.buffers.push(b);
    return b;
  }
  private drop(...bs: GPUBuffer[]) {
    for (const b of bs) { b.destroy(); const i = this.buffers.indexOf(b); if (i >= 0) this.buffers.splice(i, 1); }
  }

  private pipeline(key: string, code: string, layout: GPUPipelineLayout | 'auto'): Promise<GPUComputePipeline> {
    let p = this.pipelines.get(key);
    if (!p) {
      p = (async () => {
        this.device.pushErrorScope('validation');
        const module = this.device.createShaderModule({ label: key, code });
        const info = await this.guard(module.getCompilationInfo(), 'compiling a shader');
        const errors = info.messages.filter((m) => m.type === 'error');
        const pipe = await this.guard(this.device.createComputePipelineAsync({ label: key, layout, compute: { module, entryPoint: 'main' } }), 'creating a pipeline');
        const err = await this.device.popErrorScope();
        if (errors.length || err) throw new Error(`the ${key} shader: ${errors.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join('; ') || err?.message}`);
        return pipe;
      })();
      this.pipelines.set(key, p);
    }
    return p;
  }
  private matmulPipeline(batch: number) {
    const layout = this.device.createPipelineLayout({ bindGroupLayouts: [this.layout] });
    return batch <= SKINNY_MAX_BATCH
      ? this.pipeline(`skinny-${skinnyWidth(batch)}`, skinnyShader(this.precision, skinnyWidth(batch)), layout)
      : this.pipeline(`tiled-${tileRows(batch)}`, tiledShader(this.precision, tileRows(batch)), layout);
  }

  /** Runs `encode` once per step, `reps` steps a sample, `samples` samples; the median a step. */
  private async time(encode: (pass: GPUComputePassEncoder) => void, samples: number, targetS: number): Promise<Timed> {
    const once = async (reps: number): Promise<number[]> => {
      const enc = this.device.createCommandEncoder({ label: 'timed steps' });
      const query = this.timestamps ? this.device.createQuerySet({ type: 'timestamp', count: 2 * samples }) : null;
      const wall: number[] = [];
      if (query) {
        for (let s = 0; s < samples; s++) {
          const pass = enc.beginComputePass({ timestampWrites: { querySet: query, beginningOfPassWriteIndex: 2 * s, endOfPassWriteIndex: 2 * s + 1 } });
          for (let r = 0; r < reps; r++) encode(pass);
          pass.end();
        }
        const resolve = this.buffer('timestamps', 16 * samples, QUERY_RESOLVE | COPY_SRC);
        const read = this.buffer('timestamps read', 16 * samples, MAP_READ | COPY_DST);
        enc.resolveQuerySet(query, 0, 2 * samples, resolve, 0);
        enc.copyBufferToBuffer(resolve, 0, read, 0, 16 * samples);
        this.device.queue.submit([enc.finish()]);
        await this.guard(read.mapAsync(1), 'timing steps');
        const t = new BigUint64Array(read.getMappedRange().slice(0));
        read.unmap();
        this.drop(resolve, read);
        query.destroy();
        const out = Array.from({ length: samples }, (_, s) => Number(t[2 * s + 1] - t[2 * s]) / 1e9 / reps);
        if (out.every((x) => x > 0)) return out;
        // rounded to nothing, or a clock that did not advance: time by readback instead
      }
      const probe = this.buffer('readback', 16, MAP_READ | COPY_DST);
      for (let s = 0; s < samples; s++) {
        const e = this.device.createCommandEncoder({ label: 'timed steps' });
        const pass = e.beginComputePass();
        for (let r = 0; r < reps; r++) encode(pass);
        pass.end();
        e.copyBufferToBuffer(this.probeSource, 0, probe, 0, 16);
        const t0 = performance.now();
        this.device.queue.submit([e.finish()]);
        await this.guard(probe.mapAsync(1), 'timing steps');
        wall.push((performance.now() - t0) / 1e3 / reps);
        probe.unmap();
      }
      this.drop(probe);
      return wall;
    };
    // warm-up, which also sizes a sample: `reps` steps last about targetS
    const first = Math.min(...(await once(1)));
    const reps = this.hooks.reps ?? Math.max(1, Math.min(4096, Math.ceil(targetS / Math.max(first, 1e-7))));
    const times = (await once(reps)).sort((a, b) => a - b);
    return { runS: times[Math.floor(times.length / 2)], lowS: times[0], highS: times[times.length - 1], samples: times.length, reps, times };
  }

  private get timerWords() { return this.timestamps ? 'timed on the GPU with timestamp queries' : 'timed from submit to a readback'; }
  private get samples() { return this.hooks.samples ?? (this.software ? 3 : 5); }
  private get targetS() { return this.software ? 0 : 0.02; }

  /** The bandwidth ceiling: one buffer copied to another (before the weights take their memory). */
  async bandwidthCeiling(progress: (label: string) => void): Promise<Rate> {
    const bytes = Math.floor(Math.min(this.hooks.ceilingBytes ?? (this.software ? 32 * MIB : 256 * MIB), this.bufferBytes) / 16) * 16;
    progress('GPU: copying memory for its bandwidth');
    const src = this.buffer('copy source', bytes, STORAGE), dst = this.buffer('copy target', bytes, STORAGE);
    const copy = await this.pipeline('copy', COPY_WGSL, 'auto');
    const bind = this.device.createBindGroup({ layout: copy.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: src } }, { binding: 1, resource: { buffer: dst } }] });
    const groups = Math.min(this.device.limits.maxComputeWorkgroupsPerDimension, Math.ceil(bytes / 16 / 256));
    const c = await this.time((p) => { p.setPipeline(copy); p.setBindGroup(0, bind); p.dispatchWorkgroups(groups); }, this.samples, this.targetS);
    this.drop(src, dst);
    return rate(c.times.map((t) => (2 * bytes) / t), 'bytes/s',
      `copying ${Math.round(bytes / 1e6)} MB between two WebGPU buffers (read + write counted), ${c.reps} cop${c.reps === 1 ? 'y' : 'ies'} a sample, ${this.timerWords}`);
  }

  /** The FLOP ceiling: the run's first matrix (layer 1's QKV) at a large batch, the tiled kernel. */
  async flopCeiling(progress: (label: string) => void): Promise<Rate> {
    const plan = this.plan!;
    const batch = Math.min(plan.maxBatch, this.hooks.ceilingBatch ?? (this.software ? 64 : 1024));
    progress(`GPU: multiplying at batch ${batch} for its FLOP rate`);
    const chunk = plan.chunks[0];
    this.writeParams(batch, [chunk]);
    const pipe = await this.matmulPipeline(batch);
    const b0 = this.bindings[0];
    const dims = this.dispatchSize(batch, chunk.rows);
    const m = await this.time((p) => { p.setPipeline(pipe); p.setBindGroup(0, b0); p.dispatchWorkgroups(...dims); }, this.samples, this.targetS);
    const op = plan.ops[chunk.op];
    const flop = 2 * batch * chunk.rows * op.K;
    return rate(m.times.map((t) => flop / t), 'FLOP/s',
      `a ${batch} × ${op.K} by ${op.K} × ${chunk.rows} matmul (the step's first matrix at batch ${batch}; ${this.precision === 'f16' ? 'float16 storage, float32 arithmetic' : 'float32'}; the tiled kernel), ${m.reps} a sample, ${this.timerWords}`);
  }

  private dispatchSize(batch: number, rows: number): [number, number, number] {
    return batch <= SKINNY_MAX_BATCH ? [Math.ceil(rows / SKINNY_ROWS), 1, 1] : [Math.ceil(rows / TILE_N), Math.ceil(batch / tileRows(batch)), 1];
  }

  /** Allocates the weights and activations and fills them on the GPU. */
  async prepare(plan: Plan, progress: (label: string, fraction: number) => void): Promise<void> {
    await this.allocate(plan);
    const fill = await this.pipeline(`fill-${this.precision}`, fillShader(this.precision), 'auto');
    const uniform = this.buffer('fill params', FILL_PARAMS_BYTES * 1, UNIFORM | COPY_DST);
    for (let i = 0; i < this.weights.length; i++) {
      const c = plan.chunks[i], op = plan.ops[c.op];
      await this.fill(fill, uniform, this.weights[i], c.rows * op.K, op.seed, c.row0 * op.K);
      progress(`GPU: making ${Math.round(plan.weightBytes / 1e6)} MB of weights (a share of the model's, timed and scaled up to the whole step)`, (i + 1) / this.weights.length);
    }
    this.drop(uniform);
  }

  private weights: GPUBuffer[] = [];
  private async allocate(plan: Plan) {
    this.plan = plan;
    this.device.pushErrorScope('out-of-memory');
    for (const [name, width] of Object.entries(plan.widths)) this.act[name] = this.buffer(name, plan.maxBatch * width * this.elemBytes, STORAGE | COPY_SRC | COPY_DST);
    this.weights = plan.chunks.map((c, i) => this.buffer(`weights ${i}`, c.bytes, STORAGE));
    this.params = this.buffer('params', PARAMS_STRIDE * plan.chunks.length, UNIFORM | COPY_DST);
    const oom = await this.guard(this.device.popErrorScope(), 'allocating buffers');
    if (oom) throw new Error(`the GPU could not hold the run's ${Math.round(plan.weightBytes / 1e6)} MB of weights (${oom.message})`);
    this.bindings = plan.chunks.map((c, i) => {
      const op = plan.ops[c.op];
      return this.device.createBindGroup({ layout: this.layout, entries: [
        { binding: 0, resource: { buffer: this.weights[i] } },
        { binding: 1, resource: { buffer: this.act[op.x] } },
        { binding: 2, resource: { buffer: this.act[op.y] } },
        { binding: 3, resource: { buffer: this.params!, offset: i * PARAMS_STRIDE, size: PARAMS_BYTES } },
      ] });
    });
    // the activations start as values of their own streams, so that every input is a number
    const fill = await this.pipeline(`fill-${this.precision}`, fillShader(this.precision), 'auto');
    const uniform = this.buffer('fill params', FILL_PARAMS_BYTES, UNIFORM | COPY_DST);
    for (const [i, name] of Object.keys(plan.widths).entries()) {
      await this.fill(fill, uniform, this.act[name], plan.maxBatch * plan.widths[name as keyof Plan['widths']], 0x1234567 + i, 0);
    }
    this.drop(uniform);
  }

  private async fill(pipe: GPUComputePipeline, uniform: GPUBuffer, target: GPUBuffer, count: number, seed: number, first: number) {
    this.device.queue.writeBuffer(uniform, 0, new Uint32Array([count, seed, first >>> 0, 0]));
    const bind = this.device.createBindGroup({ layout: pipe.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: target } }, { binding: 1, resource: { buffer: uniform } }] });
    const enc = this.device.createCommandEncoder({ label: 'fill' });
    const pass = enc.beginComputePass();
    pass.setPipeline(pipe); pass.setBindGroup(0, bind);
    pass.dispatchWorkgroups(Math.min(4096, Math.ceil(count / 256)));
    pass.end();
    this.device.queue.submit([enc.finish()]);
    await this.guard(this.device.queue.onSubmittedWorkDone(), 'filling buffers');
  }

  /** Each chunk's uniform block for this batch. */
  private writeParams(batch: number, chunks: Chunk[] = this.plan!.chunks) {
    const data = new ArrayBuffer(PARAMS_STRIDE * chunks.length);
    chunks.forEach((c, i) => {
      const op = this.plan!.ops[c.op];
      const u = new Uint32Array(data, i * PARAMS_STRIDE, 8), f = new Float32Array(data, i * PARAMS_STRIDE, 8);
      u.set([batch, op.K, c.rows, op.ldx, op.ldy, op.kind === 'head' ? 0 : c.row0]);
      f[6] = op.scale;
    });
    this.device.queue.writeBuffer(this.params!, 0, data);
  }

  /** One step at `batch`, timed; the whole model's step is this × plan.scaleUp. */
  async measure(batch: number): Promise<Timed> {
    const plan = this.plan!;
    this.writeParams(batch);
    const pipe = await this.matmulPipeline(batch);
    const dims = plan.chunks.map((c) => this.dispatchSize(batch, c.rows));
    return this.time((pass) => {
      pass.setPipeline(pipe);
      for (let i = 0; i < plan.chunks.length; i++) { pass.setBindGroup(0, this.bindings[i]); pass.dispatchWorkgroups(...dims[i]); }
    }, this.samples, this.targetS);
  }

  /** Layer 1's four matmuls and the unembedding's first chunk, each on the device's own input, a
   *  sample of outputs at three sequences checked (verify.ts). */
  async check(batch: number, perturb = 0): Promise<Verification> {
    const plan = this.plan!;
    const ops = [0, 1, 2, 3, plan.ops.length - 1];
    const rows = sampledRows(batch);
    const rowBytes = (w: number) => w * this.elemBytes;
    const inputWidth = (i: number) => plan.ops[i].K;
    // staging: for each checked op, its input rows (first K values) and its output rows (ldy wide)
    let size = 0;
    const at = ops.map((i) => { const op = plan.ops[i]; const o = { input: size, output: size + rows.length * rowBytes(op.K) }; size = o.output + rows.length * rowBytes(op.ldy); return o; });
    const staging = this.buffer('check', size, MAP_READ | COPY_DST);
    this.writeParams(batch);
    const pipe = await this.matmulPipeline(batch);
    const enc = this.device.createCommandEncoder({ label: 'check' });
    const width = (name: string) => plan.widths[name as keyof Plan['widths']];
    ops.forEach((i, j) => {
      const op = plan.ops[i];
      rows.forEach((b, r) => enc.copyBufferToBuffer(this.act[op.x], rowBytes(b * width(op.x)), staging, at[j].input + r * rowBytes(inputWidth(i)), rowBytes(op.K)));
      const pass = enc.beginComputePass();
      pass.setPipeline(pipe);
      plan.chunks.forEach((c, ci) => {
        if (c.op !== i || (op.kind === 'head' && c.row0 > 0)) return;
        pass.setBindGroup(0, this.bindings[ci]); pass.dispatchWorkgroups(...this.dispatchSize(batch, c.rows));
      });
      pass.end();
      rows.forEach((b, r) => enc.copyBufferToBuffer(this.act[op.y], rowBytes(b * width(op.y)), staging, at[j].output + r * rowBytes(op.ldy), rowBytes(op.ldy)));
    });
    this.device.queue.submit([enc.finish()]);
    await this.guard(staging.mapAsync(1), 'reading outputs back');
    const data = staging.getMappedRange().slice(0);
    staging.unmap();
    this.drop(staging);
    const read = (offset: number, count: number): ArrayLike<number> => {
      if (this.precision === 'f32') return new Float32Array(data, offset, count);
      const h = new Uint16Array(data, offset, count), out = new Float64Array(count);
      for (let i = 0; i < count; i++) out[i] = halfToNumber(h[i]);
      return out;
    };
    const t: Tally = { checked: 0, mismatches: 0, worstShare: 0 };
    ops.forEach((i, j) => {
      const op = plan.ops[i];
      const headRows = op.kind === 'head' ? Math.min(op.rows, op.ldy) : op.rows;
      checkMatmul({
        op, y0: 0, outputs: sampledOutputs(headRows, op.seed ^ batch),
        rows: rows.map((_, r) => ({ input: read(at[j].input + r * rowBytes(op.K), op.K), output: read(at[j].output + r * rowBytes(op.ldy), op.ldy) })),
      }, this.precision === 'f16', t, j === 0 ? perturb : 0);
    });
    return verification(t, `layer 1's QKV, O, ${plan.ops[2].kind === 'gate_up' ? 'gate-and-up' : 'up'} and down matmuls and the unembedding's first outputs, each on the GPU's own input: ${t.checked / (ops.length * rows.length)} outputs of ${rows.length} sequence${rows.length === 1 ? '' : 's'} each, against sums worked in double precision`);
  }

  /** Destroys every buffer and the device. */
  release() {
    this.ownDestroy = true;
    for (const b of this.buffers.splice(0)) { try { b.destroy(); } catch { /* already gone */ } }
    try { this.device.destroy(); } catch { /* already gone */ }
  }

  /** for the device-loss test */
  loseDevice() { this.device.destroy(); }
}

