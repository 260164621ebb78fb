// The Worker of "Measure this device": FLOP/s from the matmul experiment's kernels (WebGPU when
// asked for and present, else the WebAssembly SIMD kernel) and memory bandwidth from a streaming
// loop (a WebGPU copy kernel, or a WebAssembly SIMD read loop over a buffer far larger than the
// CPU's caches). Each rate: one untimed warm-up, then `runs` timed runs.
import createMatmul from 'scalelab-matmul';
import { MATMUL_WGSL, TILE } from '../matmul/matmul-shader';
import { rate, type MeasureMessage, type MeasureRequest, type MeasureSizes, type Measurement, type Rate } from './measure-protocol';

const post = (m: MeasureMessage) => (self as unknown as Worker).postMessage(m);
const progress = (label: string) => post({ type: 'progress', label });

self.onmessage = async (e: MessageEvent<MeasureRequest>) => {
  try {
    const { sizes, gpu } = e.data;
    const viaGpu = gpu ? await measureGpu(sizes).catch((err: unknown) => String((err as Error)?.message ?? err)) : 'not asked for';
    post({ type: 'done', result: typeof viaGpu === 'string' ? { ...(await measureCpu(sizes)), gpuNote: viaGpu } : viaGpu });
  } catch (err) {
    post({ type: 'fatal', message: String((err as Error)?.message ?? err) });
  }
};

// ------------------------------------------------------------------------------------ CPU
async function measureCpu(sizes: MeasureSizes): Promise<Measurement> {
  progress('CPU: multiplying matrices in WebAssembly');
  const flops = await cpuFlops(sizes.n, sizes.runs);
  progress('CPU: streaming memory in WebAssembly');
  const bandwidth = cpuBandwidth(sizes.streamBytes, sizes.runs);
  return { target: 'cpu', adapter: 'CPU (WebAssembly SIMD)', software: false, vendor: 'unknown', flops, bandwidth, gpuNote: '' };
}

async function cpuFlops(n: number, runs: number): Promise<Rate> {
  const mod = await createMatmul();
  const count = n * n;
  const pa = mod._sl_matmul_alloc(count), pb = mod._sl_matmul_alloc(count), pc = mod._sl_matmul_alloc(count);
  if (!pa || !pb || !pc) throw new Error(`could not allocate ${(3 * count * 4 / 2 ** 20).toFixed(0)} MiB in WebAssembly memory`);
  try {
    const heap = mod.HEAPF32;
    for (let i = 0; i < count; i++) { heap[(pa >> 2) + i] = (i % 7) / 7; heap[(pb >> 2) + i] = (i % 5) / 5; }
    const once = () => { const t = performance.now(); mod._sl_matmul_rows(pa, pb, pc, n, n, n, 0, n); return performance.now() - t; };
    once(); once(); // warm-up: lets the browser swap in its optimised code (never inside a call)
    const samples = Array.from({ length: runs }, () => (2 * n ** 3) / (Math.max(once(), 0.001) / 1e3));
    return rate(samples, 'FLOP/s', `${n}×${n} float32 matmul, WebAssembly SIMD, one thread`);
  } finally {
    mod._sl_matmul_free(pa); mod._sl_matmul_free(pb); mod._sl_matmul_free(pc);
  }
}

// A hand-assembled WebAssembly module: sum(begin, end) reads [begin, end) with 16-byte SIMD
// loads into four accumulators (64 bytes per iteration) and returns one lane of their sum, so
// that nothing can be skipped. Its memory is imported, sized for the buffer.
function streamModule(): Uint8Array {
  const uleb = (n: number) => { const out = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n); return out; };
  const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
  const load = (acc: number, offset: number) => [0x20, acc, 0x20, 0, 0xfd, 0x00, 4, offset, 0xfd, 0xe4, 0x01, 0x21, acc];
  const code = [
    0x01, 0x04, 0x7b, // four v128 locals (2..5)
    0x02, 0x40, 0x03, 0x40, // block, loop
    0x20, 0, 0x20, 1, 0x4f, 0x0d, 1, // if begin >= end: leave
    ...load(2, 0), ...load(3, 16), ...load(4, 32), ...load(5, 48),
    0x20, 0, 0x41, 0xc0, 0x00, 0x6a, 0x21, 0, // begin += 64
    0x0c, 0, 0x0b, 0x0b, // continue; end loop, end block
    0x20, 2, 0x20, 3, 0xfd, 0xe4, 0x01, 0x20, 4, 0xfd, 0xe4, 0x01, 0x20, 5, 0xfd, 0xe4, 0x01, 0xfd, 0x1f, 0,
    0x0b,
  ];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 2, 0x7f, 0x7f, 1, 0x7d]),
    ...section(2, [1, 1, 0x6d, 3, 0x6d, 0x65, 0x6d, 0x02, 0x00, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, 3, 0x73, 0x75, 0x6d, 0x00, 0]),
    ...section(10, [1, ...uleb(code.length), ...code]),
  ]);
}

function cpuBandwidth(bytes: number, runs: number): Rate {
  const size = Math.ceil(bytes / 65536) * 65536;
  const memory = new WebAssembly.Memory({ initial: size / 65536 });
  new Float32Array(memory.buffer).fill(1); // touch every page before timing
  const { sum } = new WebAssembly.Instance(new WebAssembly.Module(streamModule() as BufferSource), { m: { mem: memory } }).exports as { sum: (b: number, e: number) => number };
  const once = () => { const t = performance.now(); sum(0, size); return performance.now() - t; };
  once();
  const samples = Array.from({ length: runs }, () => size / (Math.max(once(), 0.001) / 1e3));
  return rate(samples, 'bytes/s', `reading ${(size / 2 ** 20).toFixed(0)} MiB with WebAssembly SIMD loads, one thread`);
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

async function measureGpu(sizes: MeasureSizes): Promise<Measurement> {
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
    return { target: 'gpu', adapter: software ? `${name} (software adapter)` : name, software, vendor: info.vendor || 'unknown', flops, bandwidth, gpuNote: '' };
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
