// What every thread of the CPU path does with one command (cpu.ts posts it, cpu-thread.ts and, on
// one thread, the coordinator itself run it): its share of a fill, a stream, or the step's matmuls,
// with a barrier between one matmul and the next as a real step has (each reads the last's output).
//
// The control block is an Int32Array over shared memory: the command and its arguments at fixed
// slots, then one row per weight chunk (TABLE_WORDS words), then one per fill region (REGION_WORDS).
// Float arguments are stored as their bits.

export const SLOT = { seq: 0, cmd: 1, batch: 2, reps: 3, done: 4, barrierCount: 5, barrierGeneration: 6, first: 7, last: 8, ptr: 9, count: 10 } as const;
export const CMD = { fill: 1, step: 2, stream: 3 } as const;
/** control words before the tables; then one table row per chunk, then one per fill region */
export const HEADER_WORDS = 32;
/** per chunk: x, ldx, w, K, y (the chunk's first output column), ldy, rows, scale bits */
export const TABLE_WORDS = 8;
/** per fill region: pointer, count, seed, first index */
export const REGION_WORDS = 4;
/** per thread (at most 16): the stream's sum, kept so that no load can be left out */
export const SINK_SLOT = 16;

export interface KernelExports {
  sl_fill(dst: number, count: number, seed: number, first: number): void;
  sl_matmul_nt(x: number, ldx: number, w: number, K: number, y: number, ldy: number, batch: number, n0: number, n1: number, scale: number): void;
  sl_stream(p: number, count: number): number;
  __heap_base: WebAssembly.Global;
  __stack_pointer?: WebAssembly.Global;
}

/** [begin, end) of `total` for thread `index` of `count`, in whole multiples of `align` */
export function share(total: number, index: number, count: number, align: number): [number, number] {
  const per = Math.ceil(total / count / align) * align;
  const begin = Math.min(total, index * per);
  return [begin, Math.min(total, begin + per)];
}

function barrier(ctl: Int32Array, count: number) {
  if (count === 1) return;
  const generation = Atomics.load(ctl, SLOT.barrierGeneration);
  if (Atomics.add(ctl, SLOT.barrierCount, 1) === count - 1) {
    Atomics.store(ctl, SLOT.barrierCount, 0);
    Atomics.add(ctl, SLOT.barrierGeneration, 1);
    Atomics.notify(ctl, SLOT.barrierGeneration);
    return;
  }
  // a short spin first: the others usually arrive within microseconds, and waking from a wait costs more
  for (let spin = 0; spin < 20_000 && Atomics.load(ctl, SLOT.barrierGeneration) === generation; spin++);
  while (Atomics.load(ctl, SLOT.barrierGeneration) === generation) Atomics.wait(ctl, SLOT.barrierGeneration, generation);
}

/** Thread `index` of `count` runs its share of the command in `ctl`. */
export function work(k: KernelExports, ctl: Int32Array, index: number, count: number): void {
  const f32 = new Float32Array(ctl.buffer, ctl.byteOffset, ctl.length);
  const cmd = ctl[SLOT.cmd];
  if (cmd === CMD.fill) {
    // the region table starts at word SLOT.ptr
    for (let r = ctl[SLOT.first]; r < ctl[SLOT.last]; r++) {
      const row = ctl[SLOT.ptr] + r * REGION_WORDS;
      const [a, b] = share(ctl[row + 1] >>> 0, index, count, 16);
      if (b > a) k.sl_fill(ctl[row] + 4 * a, b - a, ctl[row + 2] >>> 0, ((ctl[row + 3] >>> 0) + a) >>> 0);
    }
  } else if (cmd === CMD.stream) {
    const [a, b] = share(ctl[SLOT.count] >>> 0, index, count, 16);
    let sum = 0;
    for (let r = 0; r < ctl[SLOT.reps]; r++) if (b > a) sum += k.sl_stream(ctl[SLOT.ptr] + 4 * a, b - a);
    f32[SINK_SLOT + index] = sum;
  } else if (cmd === CMD.step) {
    const batch = ctl[SLOT.batch];
    for (let r = 0; r < ctl[SLOT.reps]; r++) {
      for (let c = ctl[SLOT.first]; c < ctl[SLOT.last]; c++) {
        const row = HEADER_WORDS + c * TABLE_WORDS;
        const [n0, n1] = share(ctl[row + 6], index, count, 4);
        if (n1 > n0) k.sl_matmul_nt(ctl[row], ctl[row + 1], ctl[row + 2], ctl[row + 3], ctl[row + 4], ctl[row + 5], batch, n0, n1, f32[row + 7]);
        barrier(ctl, count);
      }
    }
  }
}
