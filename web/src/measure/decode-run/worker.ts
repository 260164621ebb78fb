// The measured decode run's Worker: one run per Worker (the page terminates it when the run ends,
// on Cancel and when the page is left). It picks the device (a hardware WebGPU adapter, else the
// CPU in WebAssembly), lays out the run (plan.ts), measures the device's ceilings, reports them,
// and runs the batches the page answers with (the page asks the engine where the flip is), one
// point at a time, each timed and a sample of its outputs checked.
import { CpuRun } from './cpu';
import { GpuRun, LostError, errorText, openGpu } from './gpu';
import { makePlan, type Plan } from './plan';
import type { AdapterReport, Ceilings, PageToWorker, PlanSummary, WorkerToPage } from './protocol';

const post = (m: WorkerToPage) => (self as unknown as Worker).postMessage(m);
const progress = (label: string, fraction: number | null = null) => post({ type: 'progress', label, fraction });
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// what the page answers: the batches to run, and (CPU path) the ports to the threads it started
let answer: ((m: PageToWorker) => void) | null = null;
const next = <T extends PageToWorker['type']>(type: T) => new Promise<Extract<PageToWorker, { type: T }>>((resolve) => {
  answer = (m) => { if (m.type === type) { answer = null; resolve(m as Extract<PageToWorker, { type: T }>); } };
});

let started = false;
self.onmessage = (e: MessageEvent<PageToWorker>) => {
  const m = e.data;
  if (m.type === 'start' && !started) { started = true; run(m).catch((err) => post({ type: 'failed', message: errorText(err) })); }
  else answer?.(m);
};

const summary = (p: Plan): PlanSummary => ({
  layersRun: p.layersRun, columnShare: p.columnShare, headRows: p.headRows, modelParams: p.modelParams, runParams: p.runParams,
  scaleUp: p.scaleUp, weightBytes: p.weightBytes, maxBatch: p.maxBatch, elemBytes: p.elemBytes, chunks: p.chunks.length, ops: p.ops.length,
});

async function run(req: Extract<PageToWorker, { type: 'start' }>) {
  const { hooks } = req;
  progress('Looking for a GPU');
  const opened = await openGpu(hooks);
  if (opened.kind === 'gpu') await runGpu(opened.run, req);
  else await runCpu(req, opened.why, opened.adapter);
}

async function runGpu(gpu: GpuRun, req: Extract<PageToWorker, { type: 'start' }>) {
  const { hooks } = req;
  const why = gpu.software
    ? 'You asked for the software adapter: its “GPU” runs on the CPU, so these are not a graphics card’s figures.'
    : `WebGPU offered a hardware adapter, so the GPU runs the sweep${gpu.precision === 'f16' ? ' in float16 (it has shader-f16)' : ' in float32 (it has no shader-f16)'}.`;
  post({ type: 'device', device: gpu.report(why) });
  try {
    const plan = makePlan(req.model, gpu.elemBytes, gpu.budget(), req.seed);
    const bandwidth = await gpu.bandwidthCeiling(progress);
    await gpu.prepare(plan, progress);
    const flops = await gpu.flopCeiling(progress);
    const { batches } = await report(plan, { bandwidth, flops });
    for (const [i, batch] of batches.entries()) {
      if (hooks.loseDeviceAfter === i) gpu.loseDevice();
      progress(`GPU: batch ${batch}`, i / batches.length);
      const t = await gpu.measure(batch);
      const verify = await gpu.check(batch, hooks.perturb);
      post({ type: 'point', point: { batch, stepS: t.runS * plan.scaleUp, runS: t.runS, lowS: t.lowS, highS: t.highS, samples: t.samples, reps: t.reps, verify } });
      if (hooks.pointDelayMs) await sleep(hooks.pointDelayMs);
    }
    gpu.release();
    post({ type: 'done' });
  } catch (e) {
    gpu.release();
    if (e instanceof LostError) post({ type: 'failed', message: `${e.message}. The run was abandoned and its buffers released; the points measured before stand` });
    else throw e;
  }
}

async function runCpu(req: Extract<PageToWorker, { type: 'start' }>, why: string, adapter: AdapterReport | null) {
  const { hooks } = req;
  progress('Loading the CPU kernel');
  const cpu = await CpuRun.open(req.threads, req.isolated, hooks, async (count) => {
    post({ type: 'need-threads', count });
    return (await next('threads')).ports;
  });
  const threads = cpu.threads > 1 ? '' : req.isolated
    ? ' It ran on one thread (the browser reports one core).'
    : ' It ran on one thread: this page is not cross-origin isolated (its host does not send the COOP and COEP headers), and WebAssembly threads need that.';
  post({ type: 'device', device: cpu.report(`${why}${threads}`, adapter) });
  const plan = makePlan(req.model, 4, cpu.budget(req.memoryGb), req.seed);
  await cpu.prepare(plan, progress);
  progress('CPU: reading the weights for its bandwidth');
  await sleep(0);
  const bandwidth = cpu.bandwidthCeiling();
  progress('CPU: multiplying for its FLOP rate');
  await sleep(0);
  const flops = cpu.flopCeiling();
  const { batches } = await report(plan, { bandwidth, flops });
  for (const [i, batch] of batches.entries()) {
    progress(`CPU: batch ${batch}`, i / batches.length);
    await sleep(0);
    const t = cpu.measure(batch);
    const verify = cpu.check(batch, hooks.perturb);
    post({ type: 'point', point: { batch, stepS: t.runS * plan.scaleUp, runS: t.runS, lowS: t.lowS, highS: t.highS, samples: t.samples, reps: t.reps, verify } });
    if (hooks.pointDelayMs) await sleep(hooks.pointDelayMs);
  }
  cpu.release();
  post({ type: 'done' });
}

/** Sends the ceilings and the plan; the page answers with the batches (hooks may fix them). */
async function report(plan: Plan, ceilings: Ceilings) {
  post({ type: 'ceilings', ceilings, plan: summary(plan) });
  return next('sweep');
}
