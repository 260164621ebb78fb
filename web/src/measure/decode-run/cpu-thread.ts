// One thread of the CPU path: a Worker with its own instance of the kernel over the run's shared
// memory. The page starts it and hands it a port to the run's Worker, which sends ThreadInit; from
// then on it waits for commands in the control block (cpu-work.ts) and never returns to its event
// loop. The page terminates it when the run ends, is cancelled, or the page is left.
import { SLOT, work, type KernelExports } from './cpu-work';
import type { ThreadInit } from './protocol';

self.onmessage = (e: MessageEvent<{ port: MessagePort }>) => {
  const port = e.data.port;
  port.onmessage = (m: MessageEvent<ThreadInit>) => {
    const { module, memory, control, index, count, stackTop } = m.data;
    const k = new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as KernelExports;
    if (k.__stack_pointer) k.__stack_pointer.value = stackTop;
    const ctl = new Int32Array(control);
    // read before saying ready: the coordinator's first command may come at once, and a thread that
    // read its number after that would wait for the one after it (and the barrier for this thread)
    let seen = Atomics.load(ctl, SLOT.seq);
    port.postMessage({ type: 'ready', index });
    for (;;) {
      Atomics.wait(ctl, SLOT.seq, seen);
      seen = Atomics.load(ctl, SLOT.seq);
      work(k, ctl, index, count);
      Atomics.add(ctl, SLOT.done, 1);
      Atomics.notify(ctl, SLOT.done);
    }
  };
};
