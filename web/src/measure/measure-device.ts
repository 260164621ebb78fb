// "Measure this device" (issue 11 §4): a dialog that runs measure-worker.ts and turns the median
// rates into a custom chip "This device (measured): <adapter>", kept like any custom chip
// (state.ts) and shareable as ?device=<chip> in the address.
import { getEngine, isError, type Engine } from '../engine';
import { setChip } from '../state';
import { esc } from '../tex';
import { CAVEATS, DEFAULT_SIZES, measuredChip, type MeasureMessage, type MeasureSizes, type Measurement, type Rate } from './measure-protocol';

interface MeasureHooks extends Partial<MeasureSizes> { hideWebGpu?: boolean }
const hooks = (): MeasureHooks => (window as unknown as { __slMeasureHooks?: MeasureHooks }).__slMeasureHooks ?? {};

/** Runs the measurement in a Worker; onProgress gets a sentence per phase. */
export function measure(onProgress: (label: string) => void): Promise<Measurement> {
  const { hideWebGpu, ...sizes } = hooks();
  const worker = new Worker(new URL('./measure-worker.ts', import.meta.url), { type: 'module', name: 'sl-measure' });
  return new Promise<Measurement>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<MeasureMessage>) => {
      const m = e.data;
      if (m.type === 'progress') onProgress(m.label);
      else { worker.terminate(); if (m.type === 'done') resolve(m.result); else reject(new Error(m.message)); }
    };
    worker.onerror = (e) => { worker.terminate(); reject(new Error(e.message || 'the measuring Worker failed')); };
    worker.postMessage({ type: 'measure', sizes: { ...DEFAULT_SIZES, ...sizes }, gpu: !hideWebGpu && 'gpu' in navigator });
  });
}

const rateText = (engine: Engine, r: Rate) =>
  `${engine.format(r.median, r.unit)} (median of ${r.runs}; ${engine.format(r.low, r.unit)} to ${engine.format(r.high, r.unit)})`;

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
<p class="hint">A Worker multiplies matrices (for FLOP/s) and streams a large buffer (for memory bandwidth) on your GPU through WebGPU when the browser offers it, else on the CPU through WebAssembly: a warm-up, then ${DEFAULT_SIZES.runs} timed runs of each. The medians become a chip you can use in every lab and chapter.</p>
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
  let result: Measurement | null = null;
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
        dl.innerHTML = `<div data-rate="flops"><dt>Arithmetic (float32)</dt><dd>${esc(rateText(engine, result.flops))}</dd><dd class="how">${esc(result.flops.how)}</dd></div>
<div data-rate="bandwidth"><dt>Memory bandwidth</dt><dd>${esc(rateText(engine, result.bandwidth))}</dd><dd class="how">${esc(result.bandwidth.how)}</dd></div>`;
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
