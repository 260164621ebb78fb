// "Measure this device" (issue 11 §4): a dialog that runs measure-worker.ts and turns the median
// rates into a custom chip "This device (measured): <adapter>", kept like any custom chip
// (state.ts) and shareable as ?device=<chip> in the address.
import { getEngine, isError, type Engine } from '../engine';
import { setChip } from '../state';
import { esc } from '../tex';
import { CAVEATS, DEFAULT_SIZES, measuredChip, rate, summed, type CoreKernel, type CpuRates, type GpuMeasurement, type MeasureSizes, type Measurement, type Rate } from './measure-protocol';

interface MeasureHooks extends Partial<MeasureSizes> { hideWebGpu?: boolean; cores?: number }
const hooks = (): MeasureHooks => (window as unknown as { __slMeasureHooks?: MeasureHooks }).__slMeasureHooks ?? {};

const newWorker = () => new Worker(new URL('./measure-worker.ts', import.meta.url), { type: 'module', name: 'sl-measure' });

/** One request to a Worker, answered by its first reply that is not progress. */
function ask<T extends { type: string }>(worker: Worker, request: unknown, onProgress: (label: string) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<T | { type: 'progress'; label: string } | { type: 'fatal'; message: string }>) => {
      const m = e.data;
      if (m.type === 'progress') onProgress((m as { label: string }).label);
      else if (m.type === 'fatal') reject(new Error((m as { message: string }).message));
      else resolve(m as T);
    };
    worker.onerror = (e) => reject(new Error(e.message || 'the measuring Worker failed'));
    worker.postMessage(request);
  });
}

const CPU_KERNELS: { kernel: CoreKernel; label: string; unit: Rate['unit'] }[] = [
  { kernel: 'fma', label: 'fused multiply-adds', unit: 'FLOP/s' },
  { kernel: 'int8', label: 'an int8 dot product', unit: 'FLOP/s' },
  { kernel: 'matmul', label: 'a matmul', unit: 'FLOP/s' },
  { kernel: 'stream', label: 'streaming memory', unit: 'bytes/s' },
];

/** The CPU on every core at once: one Worker per core, each kernel started on all of them together. */
async function measureCpu(sizes: MeasureSizes, cores: number, onProgress: (label: string) => void): Promise<CpuRates> {
  const workers = Array.from({ length: cores }, newWorker);
  try {
    const rates: Partial<Record<CoreKernel, Rate>> = {};
    for (const { kernel, label, unit } of CPU_KERNELS) {
      onProgress(`CPU: ${label} on ${cores} ${cores === 1 ? 'core' : 'cores'} (WebAssembly)`);
      const replies = await Promise.all(workers.map((w) => ask<{ type: 'core-done'; samples: number[]; how: string }>(w, { type: 'core', kernel, sizes, cores }, onProgress)));
      rates[kernel] = rate(summed(replies.map((r) => r.samples)), unit, `${replies[0].how}; ${cores} ${cores === 1 ? 'Worker' : 'Workers at once, their rates added'}`);
    }
    return { cores, fma: rates.fma!, int8: rates.int8!, matmul: rates.matmul!, bandwidth: rates.stream! };
  } finally {
    workers.forEach((w) => w.terminate());
  }
}

/** Measures the CPU on every core, and the GPU through WebGPU when the browser offers it; onProgress gets a sentence per phase. */
export async function measure(onProgress: (label: string) => void): Promise<Measurement & { cpu: CpuRates }> {
  const { hideWebGpu, cores: coreHook, ...sizeHooks } = hooks();
  const sizes = { ...DEFAULT_SIZES, ...sizeHooks };
  const cores = Math.max(1, Math.min(64, coreHook ?? navigator.hardwareConcurrency ?? 1));
  const cpu = await measureCpu(sizes, cores, onProgress);
  let gpu: GpuMeasurement | null = null, gpuNote = 'not asked for';
  if (!hideWebGpu && 'gpu' in navigator) {
    const worker = newWorker();
    try {
      gpu = (await ask<{ type: 'done'; result: GpuMeasurement }>(worker, { type: 'measure', sizes }, onProgress)).result;
      gpuNote = '';
    } catch (err) {
      gpuNote = (err as Error).message;
    } finally { worker.terminate(); }
  } else if (!hideWebGpu) gpuNote = 'this browser offers no WebGPU';
  if (gpu) return { target: 'gpu', ...gpu, cpu, gpuNote };
  return {
    target: 'cpu', adapter: `CPU (WebAssembly SIMD, ${cores} ${cores === 1 ? 'core' : 'cores'})`, software: false, vendor: 'unknown',
    flops: cpu.fma, bandwidth: cpu.bandwidth, cpu, gpuNote,
  };
}

const rateText = (engine: Engine, r: Rate) =>
  `${engine.format(r.median, r.unit)} (median of ${r.runs}; ${engine.format(r.low, r.unit)} to ${engine.format(r.high, r.unit)})`;

const row = (engine: Engine, key: string, title: string, r: Rate) =>
  `<div data-rate="${key}"><dt>${esc(title)}</dt><dd>${esc(rateText(engine, r))}</dd><dd class="how">${esc(r.how)}</dd></div>`;

/** The chip's two figures first (what the chip is made from), then the CPU's other rates. */
function resultsHtml(engine: Engine, m: Measurement & { cpu: CpuRates }): string {
  const where = m.target === 'gpu' ? 'GPU' : 'CPU';
  const rows = [row(engine, 'flops', `${where}: arithmetic (float32)`, m.flops), row(engine, 'bandwidth', `${where}: memory bandwidth`, m.bandwidth)];
  if (m.target === 'gpu') {
    rows.push(row(engine, 'cpu-fma', 'CPU: arithmetic (float32)', m.cpu.fma), row(engine, 'cpu-bandwidth', 'CPU: memory bandwidth', m.cpu.bandwidth));
  }
  rows.push(row(engine, 'int8', 'CPU: int8 dot product', m.cpu.int8), row(engine, 'cpu-matmul', 'CPU: float32 matmul', m.cpu.matmul));
  return rows.join('\n');
}

/** ?device=<base64url of the chip JSON>: the measured chip of a shared link. */
export function deviceLink(chip: Record<string, unknown>): string {
  const b64 = btoa(String.fromCodePoint(...new TextEncoder().encode(JSON.stringify(chip)))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const u = new URL(location.href);
  u.search = ''; u.hash = '';
  u.searchParams.set('device', b64);
  return u.toString();
}
/** Reads ?device= and, when the engine accepts the chip, makes it the page's chip; else says why. */
export async function chipFromAddress(): Promise<{ chip: Record<string, unknown> } | { error: string } | null> {
  const v = new URLSearchParams(location.search).get('device');
  if (v === null) return null;
  let chip: unknown;
  try {
    const bytes = Uint8Array.from(atob(v.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.codePointAt(0)!);
    chip = JSON.parse(new TextDecoder().decode(bytes));
  } catch { return { error: 'The address’s measured device (device=…) is not a readable chip; keeping the chip you had.' }; }
  if (!chip || typeof chip !== 'object' || Array.isArray(chip)) return { error: 'The address’s measured device (device=…) is not a chip object; keeping the chip you had.' };
  const engine = await getEngine();
  const r = engine.evaluate('chip', { chip: { ...(chip as object), id: 'custom' } });
  if (isError(r)) return { error: `The address’s measured device was refused: ${r.error.param ?? 'chip'}: ${r.error.message}` };
  return { chip: { ...(chip as Record<string, unknown>), id: 'custom' } };
}

/** Opens the dialog; resolves with the chip taken into use, or null when the reader cancels. */
export async function openMeasureDialog(): Promise<Record<string, unknown> | null> {
  const engine = await getEngine();
  const dialog = document.createElement('dialog');
  dialog.className = 'measure-device';
  dialog.setAttribute('aria-labelledby', 'measure-title');
  const memGb = (navigator as Navigator & { deviceMemory?: number }).deviceMemory ?? 8;
  dialog.innerHTML = `<form method="dialog" novalidate>
<h2 id="measure-title">Measure this device</h2>
<p class="hint">One Worker per core runs fused multiply-adds, an int8 dot product, a matmul and a stream through a large buffer on your CPU (WebAssembly), all cores at once; when the browser offers WebGPU, a shader multiplies matrices and copies a buffer on your GPU too: a warm-up, then ${DEFAULT_SIZES.runs} timed runs of each. The medians become a chip you can use in every lab and chapter: the GPU's when there is one, else the CPU's.</p>
<ul class="measure-caveats">${CAVEATS.map((c) => `<li>${esc(c)}</li>`).join('')}</ul>
<p><button type="button" class="primary measure-start">Start measuring</button></p>
<p class="measure-progress" role="status" aria-live="polite"></p>
<dl class="measure-results" hidden></dl>
<div class="field measure-memory" hidden><label for="measure-mem">Memory the model may use <span class="unit">(GB)</span></label>
<input id="measure-mem" type="text" inputmode="decimal" value="${memGb}" aria-describedby="measure-mem-err measure-mem-doc">
<small id="measure-mem-doc">Not measured: the browser says about ${memGb} GB (it reports at most 8). For a graphics card, give its own memory.</small>
<span class="field-error" id="measure-mem-err" role="alert"></span></div>
<p class="form-error" role="alert"></p>
<div class="actions"><button type="button" class="cancel">Cancel</button><button type="submit" class="primary measure-use" disabled>Use this chip</button></div>
</form>`;
  document.body.append(dialog);
  const q = <T extends Element>(s: string) => dialog.querySelector<T>(s)!;
  let result: (Measurement & { cpu: CpuRates }) | null = null;
  return new Promise((resolve) => {
    const finish = (chip: Record<string, unknown> | null) => { dialog.close(); dialog.remove(); resolve(chip); };
    q('.cancel').addEventListener('click', () => finish(null));
    dialog.addEventListener('cancel', () => finish(null));
    q<HTMLButtonElement>('.measure-start').addEventListener('click', async (ev) => {
      const start = ev.currentTarget as HTMLButtonElement;
      start.disabled = true;
      q('.form-error').textContent = '';
      try {
        result = await measure((label) => { q('.measure-progress').textContent = `${label}…`; });
        q('.measure-progress').textContent = `Measured on ${result.adapter}.${result.gpuNote && result.gpuNote !== 'not asked for' ? ` WebGPU was not used: ${result.gpuNote}.` : ''}`;
        const dl = q<HTMLElement>('.measure-results');
        dl.innerHTML = resultsHtml(engine, result);
        dl.hidden = false;
        q<HTMLElement>('.measure-memory').hidden = false;
        q<HTMLButtonElement>('.measure-use').disabled = false;
      } catch (err) {
        q('.form-error').textContent = `The measurement failed: ${(err as Error).message}`;
      } finally { start.disabled = false; }
    });
    q('form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      if (!result) return;
      const input = q<HTMLInputElement>('#measure-mem');
      const gb = Number(input.value.trim());
      const chip = measuredChip(result, gb);
      const r = engine.evaluate('chip', { chip });
      const err = input.value.trim() === '' || !Number.isFinite(gb) || gb <= 0
        ? 'Give the memory as a positive number of gigabytes (e.g. 16).'
        : isError(r) ? `${r.error.param ?? 'chip'}: ${r.error.message}` : '';
      q('#measure-mem-err').textContent = err;
      input.setAttribute('aria-invalid', String(Boolean(err)));
      if (err) { input.focus(); return; }
      setChip('custom', chip);
      finish(chip);
    });
    dialog.showModal();
  });
}
