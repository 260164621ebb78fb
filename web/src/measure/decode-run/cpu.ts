// The CPU side of the measured decode run (in its Worker): the WebAssembly kernel
// (wasm/decode-kernel/) over one memory holding the weights and activations, on every core the page
// may use. With cross-origin isolation the memory is shared and each thread is a Worker of its own
// (cpu-thread.ts) that this Worker, the coordinator, commands through a control block; without it,
// one thread runs everything here. Timing is the clock around whole steps.
import kernelThreadsUrl from 'scalelab-decode-kernel-threads?url';
import kernelUrl from 'scalelab-decode-kernel?url';
import { rate, type Rate } from '../measure-protocol';
import { CMD, HEADER_WORDS, REGION_WORDS, SLOT, TABLE_WORDS, work, type KernelExports } from './cpu-work';
import type { Plan } from './plan';
import { BOUNDS, type AdapterReport, type DeviceReport, type RunHooks, type ThreadInit, type Verification } from './protocol';
import { checkMatmul, sampledOutputs, sampledRows, verification, type Tally } from './verify';

const MIB = 2 ** 20;
const STACK_BYTES = 64 * 1024;
const align = (x: number, a: number) => Math.ceil(x / a) * a;

/** seconds a step: the median, lowest and highest of the samples, and every sample */
interface Timed { runS: number; lowS: number; highS: number; samples: number; reps: number; times: number[] }

export class CpuRun {
  private memory: WebAssembly.Memory | null = null;
  private k: KernelExports | null = null;
  private ctl: Int32Array | null = null;
  private plan: Plan | null = null;
  private weightsAt = 0;
  private act: Record<string, number> = {};
  private constructor(private readonly module: WebAssembly.Module, readonly threads: number, readonly isolated: boolean,
    private readonly hooks: RunHooks, private readonly ports: () => Promise<MessagePort[]>) {}

  /** Compiles the kernel: the threaded build where the page is isolated, else the one-thread build. */
  static async open(threads: number, isolated: boolean, hooks: RunHooks, ports: (count: number) => Promise<MessagePort[]>): Promise<CpuRun> {
    const n = isolated ? Math.max(1, Math.min(BOUNDS.maxThreads, hooks.threads ?? threads)) : 1;
    const res = await fetch(n > 1 ? kernelThreadsUrl : kernelUrl);
    if (!res.ok) throw new Error(`the CPU kernel did not load (HTTP ${res.status})`);
    const module = await WebAssembly.compile(await res.arrayBuffer());
    return new CpuRun(module, n, isolated, hooks, () => ports(n - 1));
  }

  /** adapter: the one WebGPU offered, when the CPU ran because of it (a software adapter) */
  report(why: string, adapter: AdapterReport | null): DeviceReport {
    const threads = `${this.threads} thread${this.threads === 1 ? '' : 's'}`;
    return {
      backend: 'cpu', precision: 'f32', adapter, name: `CPU (WebAssembly SIMD, ${threads})`, why, timer: 'wall-clock',
      threads: this.threads, isolated: this.isolated,
    };
  }

  /** the run's weight budget on this machine: also at most a share of the memory the browser reports */
  budget(memoryGb: number | null) {
    const reported = (memoryGb ?? 8) * 2 ** 30 * BOUNDS.cpuMemoryShare;
    return {
      weightBytes: this.hooks.weightBytes ?? Math.min(BOUNDS.cpuWeightBytes, reported),
      bufferBytes: 1024 * MIB,
      maxBatch: this.hooks.maxBatch ?? BOUNDS.cpuMaxBatch,
    };
  }

  /** Lays the plan out in one memory, starts the other threads and fills the weights. */
  async prepare(plan: Plan, progress: (label: string, fraction: number | null) => void): Promise<void> {
    this.plan = plan;
    const probe = new WebAssembly.Instance(this.module, { env: { memory: this.makeMemory(2 * 65536) } }).exports as unknown as KernelExports;
    let at = align(probe.__heap_base.value as number, 16);
    const stacks = Array.from({ length: this.threads }, () => (at += STACK_BYTES));
    this.weightsAt = at;
    const chunkAt = plan.chunks.map((c) => { const p = at; at = align(at + c.bytes, 16); return p; });
    for (const [name, width] of Object.entries(plan.widths)) { this.act[name] = at; at = align(at + plan.maxBatch * width * 4, 16); }
    if (at > 4 * 2 ** 30 - 65536) throw new Error(`the run needs ${Math.round(at / 1e6)} MB, more than WebAssembly's 4 GiB`);
    progress(`CPU: reserving ${Math.round(at / 1e6)} MB`, null);
    this.memory = this.makeMemory(at);
    this.k = new WebAssembly.Instance(this.module, { env: { memory: this.memory } }).exports as unknown as KernelExports;
    if (this.k.__stack_pointer) this.k.__stack_pointer.value = stacks[0];
    const regions = plan.chunks.length + Object.keys(plan.widths).length;
    const words = HEADER_WORDS + plan.chunks.length * TABLE_WORDS + regions * REGION_WORDS;
    const control = this.threads > 1 ? new SharedArrayBuffer(4 * words) : new ArrayBuffer(4 * words);
    this.ctl = new Int32Array(control);
    const f32 = new Float32Array(control);
    plan.chunks.forEach((c, i) => {
      const op = plan.ops[c.op], row = HEADER_WORDS + i * TABLE_WORDS;
      const y0 = op.kind === 'head' ? 0 : c.row0;
      this.ctl!.set([this.act[op.x], op.ldx, chunkAt[i], op.K, this.act[op.y] + 4 * y0, op.ldy, c.rows], row);
      f32[row + 7] = op.scale;
    });
    const regionAt = HEADER_WORDS + plan.chunks.length * TABLE_WORDS;
    plan.chunks.forEach((c, i) => { const op = plan.ops[c.op]; this.ctl!.set([chunkAt[i], c.rows * op.K, op.seed, c.row0 * op.K], regionAt + i * REGION_WORDS); });
    Object.entries(plan.widths).forEach(([name, width], j) => this.ctl!.set([this.act[name], plan.maxBatch * width, 0x1234567 + j, 0], regionAt + (plan.chunks.length + j) * REGION_WORDS));
    if (this.threads > 1) await this.startThreads(stacks);
    progress(`CPU: making ${Math.round(plan.weightBytes / 1e6)} MB of weights (a share of the model's, timed and scaled up to the whole step)`, null);
    this.command(CMD.fill, { first: 0, last: regions, ptr: regionAt });
  }

  private makeMemory(bytes: number) {
    const pages = Math.ceil(bytes / 65536);
    return this.threads > 1 ? new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true }) : new WebAssembly.Memory({ initial: pages });
  }

  private async startThreads(stacks: number[]) {
    const ports = await this.ports();
    await Promise.all(ports.map((port, i) => new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('a CPU thread did not start within 20 s')), 20_000);
      port.onmessage = () => { clearTimeout(timer); resolve(); };
      const init: ThreadInit = { type: 'init', module: this.module, memory: this.memory!, control: this.ctl!.buffer as SharedArrayBuffer, index: i + 1, count: this.threads, stackTop: stacks[i + 1] };
      port.postMessage(init);
    })));
  }

  /** Runs one command on every thread (this one is thread 0) and waits for all of them. */
  private command(cmd: number, args: Partial<Record<keyof typeof SLOT, number>>): void {
    const ctl = this.ctl!;
    for (const [k, v] of Object.entries(args)) ctl[SLOT[k as keyof typeof SLOT]] = v!;
    ctl[SLOT.cmd] = cmd;
    Atomics.store(ctl, SLOT.done, 0);
    if (this.threads > 1) { Atomics.add(ctl, SLOT.seq, 1); Atomics.notify(ctl, SLOT.seq); }
    work(this.k!, ctl, 0, this.threads);
    for (let d; (d = Atomics.load(ctl, SLOT.done)) < this.threads - 1;) Atomics.wait(ctl, SLOT.done, d);
  }

  private time(run: (reps: number) => void, targetS = 0.1): Timed {
    const clock = (reps: number) => { const t = performance.now(); run(reps); return (performance.now() - t) / 1e3 / reps; };
    const first = clock(1); // warm-up: lets the browser swap in its optimised code (never inside a call)
    const reps = this.hooks.reps ?? Math.max(1, Math.min(1000, Math.round(targetS / Math.max(first, 1e-6))));
    const samples = this.hooks.samples ?? 5;
    const times = Array.from({ length: samples }, () => clock(reps)).sort((a, b) => a - b);
    return { runS: times[Math.floor(samples / 2)], lowS: times[0], highS: times[samples - 1], samples, reps, times };
  }

  private get threadWords() { return `${this.threads} thread${this.threads === 1 ? '' : 's'}`; }

  /** Bandwidth: all threads read the run's weights (each its share), WebAssembly SIMD loads. */
  bandwidthCeiling(): Rate {
    const plan = this.plan!;
    const count = Math.floor(plan.weightBytes / 4 / 16) * 16;
    const t = this.time((reps) => this.command(CMD.stream, { ptr: this.weightsAt, count, reps }));
    return rate(t.times.map((s) => (4 * count) / s), 'bytes/s',
      `reading the run's ${Math.round(4 * count / 1e6)} MB of weights with WebAssembly SIMD loads, ${this.threadWords}, ${t.reps} read${t.reps === 1 ? '' : 's'} a sample`);
  }

  /** FLOP/s: the step's first matrix at a large batch. */
  flopCeiling(): Rate {
    const plan = this.plan!;
    const batch = Math.min(plan.maxBatch, this.hooks.ceilingBatch ?? 128);
    const c = plan.chunks[0], op = plan.ops[c.op];
    const t = this.time((reps) => this.command(CMD.step, { batch, reps, first: 0, last: 1 }));
    return rate(t.times.map((s) => (2 * batch * c.rows * op.K) / s), 'FLOP/s',
      `a ${batch} × ${op.K} by ${op.K} × ${c.rows} float32 matmul (the step's first matrix at batch ${batch}), WebAssembly SIMD, ${this.threadWords}, ${t.reps} a sample`);
  }

  measure(batch: number): Timed {
    const last = this.plan!.chunks.length;
    return this.time((reps) => this.command(CMD.step, { batch, reps, first: 0, last }));
  }

  /** Layer 1's four matmuls and the unembedding's first chunk, one at a time, on their own inputs. */
  check(batch: number, perturb = 0): Verification {
    const plan = this.plan!;
    const rows = sampledRows(batch);
    const heap = () => new Float32Array(this.memory!.buffer);
    const t: Tally = { checked: 0, mismatches: 0, worstShare: 0 };
    const ops = [0, 1, 2, 3, plan.ops.length - 1];
    ops.forEach((i, j) => {
      const op = plan.ops[i];
      const rowOf = (buf: string, b: number, width: number) => heap().slice(this.act[buf] / 4 + b * plan.widths[buf as keyof Plan['widths']], this.act[buf] / 4 + b * plan.widths[buf as keyof Plan['widths']] + width);
      const inputs = rows.map((b) => rowOf(op.x, b, op.K));
      const first = plan.chunks.findIndex((c) => c.op === i);
      const last = op.kind === 'head' ? first + 1 : first + plan.chunks.filter((c) => c.op === i).length;
      this.command(CMD.step, { batch, reps: 1, first, last });
      const headRows = op.kind === 'head' ? Math.min(op.rows, op.ldy) : op.rows;
      checkMatmul({ op, y0: 0, outputs: sampledOutputs(headRows, op.seed ^ batch), rows: rows.map((b, r) => ({ input: inputs[r], output: rowOf(op.y, b, op.ldy) })) },
        false, t, j === 0 ? perturb : 0);
    });
    return verification(t, `layer 1's QKV, O, ${plan.ops[2].kind === 'gate_up' ? 'gate-and-up' : 'up'} and down matmuls and the unembedding's first outputs, each on its own input: ${t.checked / (ops.length * rows.length)} outputs of ${rows.length} sequence${rows.length === 1 ? '' : 's'} each, against sums worked in double precision`);
  }

  release() { this.memory = null; this.k = null; this.ctl = null; }
}
