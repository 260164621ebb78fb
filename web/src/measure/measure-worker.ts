// The Workers of "Measure this device". A GPU worker ({type: 'measure'}) times the matmul
// experiment's WebGPU shader and a copy between two buffers; a CPU worker, one per core
// ({type: 'core'}), times one kernel at a time on its core while the others run theirs: fused
// multiply-adds and an int8 dot product in registers (cpu-kernels.ts), the matmul experiment's
// WebAssembly SIMD kernel, and a read of its own buffer far larger than the caches. Each rate:
// one untimed warm-up, then `runs` timed runs.
import createMatmul from 'scalelab-matmul';
import { MATMUL_WGSL, TILE } from '../matmul/matmul-shader';
import { fmaKernel, int8Kernel, streamReader, type CpuKernel } from './cpu-kernels';
import { rate, type CoreMessage, type CoreRequest, type GpuMeasurement, type MeasureMessage, type MeasureRequest, type MeasureSizes, type Rate } from './measure-protocol';

const post = (m: MeasureMessage | CoreMessage) => (self as unknown as Worker).postMessage(m);
const progress = (label: string) => post({ type: 'progress', label });

self.onmessage = async (e: MessageEvent<MeasureRequest | CoreRequest>) => {
  try {
    const req = e.data;
    if (req.type === 'core') post({ type: 'core-done', ...(await measureCore(req)) });
    else post({ type: 'done', result: await measureGpu(req.sizes) });
  } catch (err) {
    post({ type: 'fatal', message: String((err as Error)?.message ?? err) });
  }
};

// ------------------------------------------------------------------------------------ CPU
const now = () => performance.now() / 1e3;

/** Iterations of `kernel` that last about `seconds` (found by doubling; the doubling also warms it up). */
function iterationsFor(kernel: CpuKernel, seconds: number): number {
  for (let n = 1024; ; n *= 2) {
    const t = now();
    kernel.run(n);
    const s = Math.max(now() - t, 1e-6);
    if (s >= seconds / 8 || n >= 2 ** 30) return Math.max(1, Math.min(2 ** 31 - 1, Math.round(n * seconds / s)));
  }
}

function timedRuns(runs: number, once: () => number): number[] {
  once();
  return Array.from({ length: runs }, once);
}

async function measureCore({ kernel, sizes, cores }: CoreRequest): Promise<{ samples: number[]; how: string }> {
  if (kernel === 'fma' || kernel === 'int8') {
    const k = kernel === 'fma' ? fmaKernel() : int8Kernel();
    const n = iterationsFor(k, sizes.coreSeconds);
    return { samples: timedRuns(sizes.runs, () => { const t = now(); k.run(n); return k.opsPerIteration * n / Math.max(now() - t, 1e-6); }), how: k.how };
  }
  if (kernel === 'matmul') return cpuMatmul(sizes.n, sizes.runs);
  const reader = streamReader(Math.max(2 ** 20, sizes.streamBytes / cores));
  return {
    samples: timedRuns(sizes.runs, () => reader.bytes / reader.pass()),
    how: `reading ${(reader.bytes / 2 ** 20).toFixed(0)} MiB with WebAssembly SIMD loads on each core`,
  };
}

async function cpuMatmul(n: number, runs: number): Promise<{ samples: number[]; how: string }> {
  const mod = await createMatmul();
  const count = n * n;
  const pa = mod._sl_matmul_alloc(count), pb = mod._sl_matmul_alloc(count), pc = mod._sl_matmul_alloc(count);
  if (!pa || !pb || !pc) throw new Error(`could not allocate ${(3 * count * 4 / 2 ** 20).toFixed(0)} MiB in WebAssembly memory`);
  try {
    const heap = mod.HEAPF32;
    for (let i = 0; i < count; i++) { heap[(pa >> 2) + i] = (i % 7) / 7; heap[(pb >> 2) + i] = (i % 5) / 5; }
    const once = () => { const t = now(); mod._sl_matmul_rows(pa, pb, pc, n, n, n, 0, n); return 2 * n ** 3 / Math.max(now() - t, 1e-6); };
    once(); // a second warm-up: lets the browser swap in its optimised code (never inside a call)
    return { samples: timedRuns(runs, once), how: `${n}×${n} float32 matmul, the matmul experiment's WebAssembly SIMD kernel on each core` };
  } finally {
    mod._sl_matmul_free(pa); mod._sl_matmul_free(pb); mod._sl_matmul_free(pc);
  }
}

// ------------------------------------------------------------------------------------ GPU
// GPUBufferUsage flags (WebGPU spec), as numbers: the global is missing from some Workers' typings
const STORAGE = 0x80, COPY_DST = 0x08, UNIFORM = 0x40;

const STREAM_WGSL = /* wgsl */ `
@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let stride = groups.x * 256u;
  for (var i = gid.x; i < arrayLength(&src); i = i + stride) { dst[i] = src[i]; }
}`;

async function measureGpu(sizes: MeasureSizes): Promise<GpuMeasurement> {
  const gpu = (navigator as Navigator & { gpu?: GPU }).gpu;
  if (!gpu) throw new Error('this browser offers no WebGPU');
  progress('GPU: requesting an adapter');
  const adapter = await gpu.requestAdapter();
  if (!adapter) throw new Error('WebGPU gave no adapter');
  const info = adapter.info ?? ({} as GPUAdapterInfo);
  const software = (adapter as GPUAdapter & { isFallbackAdapter?: boolean }).isFallbackAdapter === true || /swiftshader|software|llvmpipe/i.test(`${info.vendor} ${info.architecture} ${info.description} ${info.device}`);
  const name = [info.description, info.vendor, info.architecture].filter(Boolean).join(', ') || 'WebGPU adapter';
  const device = await adapter.requestDevice();
  try {
    progress(`GPU: multiplying matrices (${name})`);
    const flops = await gpuFlops(device, software ? sizes.softwareN : sizes.n, sizes.runs);
    progress(`GPU: streaming memory (${name})`);
    const bandwidth = await gpuBandwidth(device, Math.min(sizes.streamBytes / 2, device.limits.maxStorageBufferBindingSize), sizes.runs);
    return { adapter: software ? `${name} (software adapter)` : name, software, vendor: info.vendor || 'unknown', flops, bandwidth };
  } finally {
    device.destroy();
  }
}

async function timedDispatch(device: GPUDevice, encode: (pass: GPUComputePassEncoder) => void): Promise<number> {
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  encode(pass);
  pass.end();
  const t = performance.now();
  device.queue.submit([enc.finish()]);
  await device.queue.onSubmittedWorkDone();
  return Math.max(performance.now() - t, 0.001) / 1e3;
}

async function gpuFlops(device: GPUDevice, n: number, runs: number): Promise<Rate> {
  const bytes = n * n * 4;
  const buf = (usage: number) => device.createBuffer({ size: bytes, usage });
  const a = buf(STORAGE | COPY_DST), b = buf(STORAGE | COPY_DST), c = buf(STORAGE);
  const dims = device.createBuffer({ size: 16, usage: UNIFORM | COPY_DST });
  const data = Float32Array.from({ length: n * n }, (_, i) => (i % 7) / 7);
  device.queue.writeBuffer(a, 0, data); device.queue.writeBuffer(b, 0, data);
  device.queue.writeBuffer(dims, 0, new Uint32Array([n, n, n, 0]));
  const pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module: device.createShaderModule({ code: MATMUL_WGSL }), entryPoint: 'main' } });
  const bind = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [a, b, c, dims].map((buffer, binding) => ({ binding, resource: { buffer } })) });
  const tiles = Math.ceil(n / TILE);
  const once = () => timedDispatch(device, (p) => { p.setPipeline(pipeline); p.setBindGroup(0, bind); p.dispatchWorkgroups(tiles, tiles); });
  await once();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push((2 * n ** 3) / (await once()));
  [a, b, c, dims].forEach((x) => x.destroy());
  return rate(samples, 'FLOP/s', `${n}×${n} float32 matmul in a WebGPU compute shader (16×16 tiles), submit to done`);
}

async function gpuBandwidth(device: GPUDevice, bytes: number, runs: number): Promise<Rate> {
  const size = Math.floor(bytes / 16) * 16;
  const src = device.createBuffer({ size, usage: STORAGE });
  const dst = device.createBuffer({ size, usage: STORAGE });
  const pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module: device.createShaderModule({ code: STREAM_WGSL }), entryPoint: 'main' } });
  const bind = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [src, dst].map((buffer, binding) => ({ binding, resource: { buffer } })) });
  const groups = Math.min(4096, Math.ceil(size / 16 / 256));
  const once = () => timedDispatch(device, (p) => { p.setPipeline(pipeline); p.setBindGroup(0, bind); p.dispatchWorkgroups(groups); });
  await once();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push((2 * size) / (await once())); // each byte read once and written once
  src.destroy(); dst.destroy();
  return rate(samples, 'bytes/s', `copying ${(size / 2 ** 20).toFixed(0)} MiB between two WebGPU buffers (read + write counted)`);
}
