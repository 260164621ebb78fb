// <sl-matmul-experiment>: one matrix multiplication on the CPU (WebAssembly SIMD, the
// reference) and, if the reader asks and the browser offers it, on WebGPU — in a module
// Worker, with every timer's boundary stated and every GPU element checked against the CPU.
//
// Test hooks (used only by web/tests/matmul.test.mjs):
//   window.__slMatmulLiveWorkers  number of experiment Workers alive right now
//   window.__slMatmulTestHooks    FaultHooks passed to the next run (matmul-protocol.ts),
//                                 and PageHooks (watchdog limit, a size override)
import { LitElement, html, nothing, type TemplateResult } from 'lit';
import { matmulStyles } from './matmul-styles';
import { openMeasureDialog } from '../measure/measure-device';
import { MAX_N, SIZES, type CpuResult, type FaultHooks, type GpuResult, type PageHooks, type RunRequest, type WorkerMessage } from './matmul-protocol';

type RunState = 'idle' | 'running' | 'done' | 'cancelled' | 'failed';
type Hooks = FaultHooks & PageHooks;
declare global {
  interface Window { __slMatmulLiveWorkers?: number; __slMatmulTestHooks?: Hooks }
}

const WATCHDOG_MS = 180_000; // no message from the Worker for this long → it is stopped
const PROGRESS_DELAY_MS = 250; // runs shorter than this show no progress bar

const fmtMs = (ms: number) => (ms < 1 ? ms.toFixed(3) : ms < 100 ? ms.toFixed(2) : ms.toFixed(0));
const fmtE = (x: number) => (Number.isFinite(x) ? x.toExponential(2) : String(x));

export class MatmulExperiment extends LitElement {
  static styles = matmulStyles;
  static properties = {
    n: { type: Number, state: true },
    useGpu: { type: Boolean, state: true },
    runState: { type: String, reflect: true, attribute: 'data-run-state' },
    phaseLabel: { state: true },
    fraction: { state: true },
    showProgress: { state: true },
    cpu: { state: true },
    gpu: { state: true },
    failure: { state: true },
  };

  declare n: number;
  declare useGpu: boolean;
  declare runState: RunState;
  declare phaseLabel: string;
  declare fraction: number | null;
  declare showProgress: boolean;
  declare cpu: CpuResult | null;
  declare gpu: GpuResult | null;
  declare failure: string;

  private worker: Worker | null = null;
  private watchdog = 0;
  private progressTimer = 0;
  private runs = 0;
  private readonly hasWebGpu = typeof navigator !== 'undefined' && 'gpu' in navigator;

  constructor() {
    super();
    this.n = 256;
    this.useGpu = false;
    this.runState = 'idle';
    this.phaseLabel = '';
    this.fraction = null;
    this.showProgress = false;
    this.cpu = null;
    this.gpu = null;
    this.failure = '';
  }

  connectedCallback() {
    super.connectedCallback();
    window.addEventListener('pagehide', this.onPageHide);
    // Starting settings: the address bar on the lab's own page (data-url-state: ?n=512&gpu=1),
    // else a chapter placement's data-state ({"n": 512, "gpu": true}).
    let s: { n?: unknown; gpu?: unknown } = {};
    if (this.hasAttribute('data-url-state')) {
      const q = new URLSearchParams(location.search);
      s = { n: q.has('n') ? Number(q.get('n')) : undefined, gpu: q.has('gpu') ? q.get('gpu') === '1' : undefined };
    } else if (this.dataset.state) {
      try { s = JSON.parse(this.dataset.state); } catch { /* a malformed placement state: defaults */ }
    }
    if (SIZES.includes(s.n as (typeof SIZES)[number])) this.n = s.n as number;
    if (typeof s.gpu === 'boolean') this.useGpu = s.gpu;
  }

  /** On the lab's own page the settings live in the address bar. */
  private saveUrlState() {
    if (!this.hasAttribute('data-url-state')) return;
    const q = new URLSearchParams(location.search);
    q.set('n', String(this.n));
    q.set('gpu', this.useGpu ? '1' : '0');
    history.replaceState(history.state, '', `${location.pathname}?${q}${location.hash}`);
  }
  disconnectedCallback() {
    super.disconnectedCallback();
    window.removeEventListener('pagehide', this.onPageHide);
    this.stop();
  }
  private onPageHide = () => { if (this.worker) { this.stop(); this.runState = 'cancelled'; this.phaseLabel = ''; } };

  /** Terminates the Worker (if any) and clears the timers. */
  private stop() {
    clearTimeout(this.watchdog);
    clearTimeout(this.progressTimer);
    this.showProgress = false;
    if (this.worker) {
      this.worker.terminate();
      this.worker = null;
      window.__slMatmulLiveWorkers = Math.max(0, (window.__slMatmulLiveWorkers ?? 1) - 1);
    }
  }

  private armWatchdog(ms: number) {
    clearTimeout(this.watchdog);
    this.watchdog = window.setTimeout(() => {
      this.stop();
      this.runState = 'failed';
      this.failure = `The experiment's background run sent nothing for ${Math.round(ms / 1000)} s, so it was stopped. Try a smaller size.`;
    }, ms);
  }

  run() {
    if (this.runState === 'running') return;
    this.stop();
    const hooks: Hooks = window.__slMatmulTestHooks ?? {};
    const { watchdogMs, n: nOverride, ...faults } = hooks;
    const n = nOverride && nOverride >= 1 && nOverride <= MAX_N ? Math.floor(nOverride) : this.n;
    this.cpu = null;
    this.gpu = null;
    this.failure = '';
    this.fraction = null;
    this.phaseLabel = 'Starting the background run';
    this.runState = 'running';
    this.runs++;
    this.progressTimer = window.setTimeout(() => { this.showProgress = true; }, PROGRESS_DELAY_MS);
    let worker: Worker;
    try {
      worker = new Worker(new URL('./matmul-worker.ts', import.meta.url), { type: 'module', name: 'sl-matmul' });
    } catch (e) {
      this.runState = 'failed';
      this.failure = `Could not start the experiment's Worker: ${e instanceof Error ? e.message : String(e)}`;
      clearTimeout(this.progressTimer);
      return;
    }
    this.worker = worker;
    window.__slMatmulLiveWorkers = (window.__slMatmulLiveWorkers ?? 0) + 1;
    const limit = watchdogMs ?? WATCHDOG_MS;
    this.armWatchdog(limit);
    worker.onmessage = (e: MessageEvent<WorkerMessage>) => {
      if (this.worker !== worker) return;
      this.armWatchdog(limit);
      this.onMessage(e.data);
    };
    worker.onerror = (e: ErrorEvent) => {
      if (this.worker !== worker) return;
      e.preventDefault();
      this.stop();
      this.runState = 'failed';
      this.failure = `The experiment's Worker failed: ${e.message || 'it could not be loaded'}.`;
    };
    worker.onmessageerror = () => {
      if (this.worker !== worker) return;
      this.stop();
      this.runState = 'failed';
      this.failure = 'The experiment\u2019s Worker sent a message that could not be read.';
    };
    const req: RunRequest = { type: 'run', n, gpu: this.useGpu, seed: 0x5ca1ab1e + this.runs, faults };
    worker.postMessage(req);
  }

  cancel() {
    if (this.runState !== 'running') return;
    this.stop();
    this.runState = 'cancelled';
    this.phaseLabel = '';
  }

  private onMessage(m: WorkerMessage) {
    switch (m.type) {
      case 'progress': this.phaseLabel = m.label; this.fraction = m.fraction; break;
      case 'cpu': this.cpu = m.result; break;
      case 'gpu': this.gpu = m.result; break;
      case 'done': this.stop(); this.runState = 'done'; this.phaseLabel = ''; break;
      case 'fatal': this.stop(); this.runState = 'failed'; this.failure = `The run failed: ${m.message}.`; break;
    }
  }

  // ------------------------------------------------------------------------------ view
  render() {
    const running = this.runState === 'running';
    return html`
      <h3>One matrix multiplication: CPU (WebAssembly) and, optionally, WebGPU</h3>
      <p class="hint">Multiplies two random n×n matrices of 32-bit floats in the background, so the page stays responsive.
        The CPU result is the reference; a WebGPU result is checked against it element by element.</p>
      <div class="controls">
        <label>Matrix size n
          <select .value=${String(this.n)} ?disabled=${running}
            @change=${(e: Event) => { this.n = Number((e.target as HTMLSelectElement).value); this.saveUrlState(); }}>
            ${SIZES.map((s) => html`<option value=${s} ?selected=${s === this.n}>${s} × ${s}</option>`)}
          </select>
        </label>
        <label><input type="checkbox" .checked=${this.useGpu} ?disabled=${running}
            @change=${(e: Event) => { this.useGpu = (e.target as HTMLInputElement).checked; this.saveUrlState(); }}>
          Also run on the GPU through WebGPU</label>
        <button class="primary" type="button" ?disabled=${running} @click=${() => this.run()}>Run</button>
        <button type="button" ?disabled=${!running} @click=${() => this.cancel()}>Cancel</button>
      </div>
      ${this.useGpu && !this.hasWebGpu
        ? html`<p class="hint">This browser does not expose WebGPU; only the CPU will run.</p>` : nothing}
      <div class="status" role="status" aria-live="polite">${this.renderStatus()}</div>
      ${this.failure ? html`<p class="msg warn" data-failure>${this.failure}</p>` : nothing}
      ${this.cpu ? this.renderCpu(this.cpu) : nothing}
      ${this.gpu ? this.renderGpu(this.gpu) : nothing}
      ${this.renderNotes()}
      <p class="hint measure-this" data-measure>Want these rates as a chip for the labs?
        <button type="button" ?disabled=${running} @click=${() => void openMeasureDialog()}>Measure this device…</button>
        (FLOP/s and memory bandwidth, several runs, the same kernels.)</p>
    `;
  }

  private renderStatus(): TemplateResult | typeof nothing {
    if (this.runState === 'running') {
      const pct = this.fraction == null ? null : Math.round(this.fraction * 100);
      const bar = pct == null
        ? html`<progress aria-label="Progress of the run"></progress> `
        : html`<progress max="100" .value=${pct} aria-label="Progress of the run"></progress> `;
      return html`${this.showProgress ? bar : nothing}
        <span data-phase>${this.phaseLabel}${pct == null ? '…' : ` (${pct}%)`}</span>`;
    }
    if (this.runState === 'cancelled') return html`<span>Cancelled: the background run was stopped and nothing is running.</span>`;
    if (this.runState === 'done') return html`<span>Done.</span>`;
    return nothing;
  }

  private renderCpu(c: CpuResult) {
    return html`<section data-cpu aria-label="CPU result">
      <h4>CPU: WebAssembly${c.simd ? ' SIMD' : ''} (the reference)</h4>
      <table>
        <tbody>
          <tr><th scope="row">Multiply (arithmetic only)${c.runs > 1 ? `, median of ${c.runs}` : ''}</th>
            <td class="num" data-cpu-ms>${fmtMs(c.ms)} ms${c.runs > 1 ? ` (best ${fmtMs(c.bestMs)} ms)` : ''}</td></tr>
          <tr><th scope="row">Rate</th><td class="num">${c.gflops.toPrecision(3)} GFLOP/s (2·n³ = ${flopCount(2 * c.n ** 3)})</td></tr>
          <tr><th scope="row">Module load (not included)</th><td class="num">${fmtMs(c.loadMs)} ms</td></tr>
        </tbody>
      </table>
      <p class="hint">Timed: only the WebAssembly multiply calls (${c.chunks} call${c.chunks === 1 ? '' : 's'} per multiply, by rows, including the
        time it takes to lay the second matrix out for the kernel), after an untimed warm-up (${c.warmup}) that gives the browser time to optimise the
        kernel. Not timed: loading the module, the warm-up, making the inputs, copying them in, progress messages.</p>
    </section>`;
  }

  private renderGpu(g: GpuResult) {
    const ok = g.status === 'ok' && g.compare?.allMatched;
    const total = g.phases.reduce((s, p) => s + p.ms, 0);
    return html`<section data-gpu data-gpu-status=${g.status} aria-label="WebGPU result">
      <h4>WebGPU</h4>
      <p class="msg ${ok || g.status === 'skipped' ? 'ok' : 'warn'}" data-gpu-message>${g.message}</p>
      ${g.adapter ? this.renderAdapter(g) : nothing}
      ${g.phases.length ? html`<table data-gpu-phases>
        <thead><tr><th scope="col">Phase</th><th scope="col">Time</th></tr></thead>
        <tbody>${g.phases.map((p) => html`<tr class=${p.ok ? '' : 'failed'}><td>${p.label}${p.ok ? '' : ' (did not complete)'}</td>
          <td class="num">${fmtMs(p.ms)} ms</td></tr>`)}</tbody>
        <tfoot><tr><th scope="row">All phases (setup through cleanup)</th><td class="num">${fmtMs(total)} ms</td></tr></tfoot>
      </table>` : nothing}
      ${g.compare ? this.renderCompare(g) : nothing}
    </section>`;
  }

  private renderAdapter(g: GpuResult) {
    const a = g.adapter!;
    const said = (s: string) => (s ? s : html`<span class="hint">(not reported)</span>`);
    return html`<div data-adapter data-fallback=${String(a.isFallbackAdapter)} data-software=${String(a.software)}>
      <p>${a.software
        ? html`<strong>This is a fallback / software adapter</strong>: the “GPU” work ran on the CPU through a software
            implementation of WebGPU, so its timings say nothing about graphics hardware.`
        : a.isFallbackAdapter === null
          ? html`The browser does not say whether this adapter is a fallback (software) adapter.`
          : html`The browser reports a hardware adapter (not a fallback adapter).`}</p>
      <dl>
        <dt>Vendor</dt><dd>${said(a.vendor)}</dd>
        <dt>Architecture</dt><dd>${said(a.architecture)}</dd>
        <dt>Device</dt><dd>${said(a.device)}</dd>
        <dt>Description</dt><dd>${said(a.description)}</dd>
        <dt>isFallbackAdapter</dt><dd>${a.isFallbackAdapter === null ? 'not reported' : String(a.isFallbackAdapter)}</dd>
        <dt>Shader</dt><dd>${g.workgroup}</dd>
        ${g.bands > 1 ? html`<dt>Dispatch</dt><dd>in ${g.bands} bands of rows, one after another (software adapter:
          lets progress show and Cancel take effect between bands)</dd>` : nothing}
      </dl>
    </div>`;
  }

  private renderCompare(g: GpuResult) {
    const c = g.compare!;
    const dispatch = g.phases.find((p) => p.name === 'dispatch');
    return html`<div data-compare data-all-matched=${String(c.allMatched)} data-mismatches=${c.mismatches}>
      <table>
        <tbody>
          <tr><th scope="row">Elements compared</th><td class="num">${c.elements.toLocaleString('en')}</td></tr>
          <tr><th scope="row">Outside the tolerance</th><td class="num" data-mismatch-count>${c.mismatches.toLocaleString('en')}</td></tr>
          <tr><th scope="row">Max |GPU − CPU|</th><td class="num" data-max-abs>${fmtE(c.maxAbs)}</td></tr>
          <tr><th scope="row">Max relative error (|CPU| ≥ ${c.relFloor})</th><td class="num" data-max-rel>${fmtE(c.maxRel)}</td></tr>
          <tr><th scope="row">Worst element, share of its tolerance</th><td class="num">${(c.maxBoundRatio * 100).toPrecision(2)} %</td></tr>
          ${dispatch?.ok ? html`<tr><th scope="row">Dispatch rate (dispatch phase only)</th>
            <td class="num">${(2 * Math.sqrt(c.elements) ** 3 / (dispatch.ms * 1e6)).toFixed(2)} GFLOP/s</td></tr>` : nothing}
        </tbody>
      </table>
      <p class="hint">Tolerance, per element: |GPU − CPU| ≤ 2γ<sub>K</sub>·‖row i of A‖₂·‖column j of B‖₂ with
        γ<sub>K</sub> = K·u/(1 − K·u), u = 2<sup>−24</sup> (float32 unit roundoff), K = n. Both sides add the same
        K products in float32. The CPU kernel adds them in k order, rounding every product and every sum (WebAssembly
        SIMD has no fused multiply-add); a GPU may fuse multiply-adds and its compiler may reorder the sums, so the two
        results can differ by rounding — identical results are possible too — but never by more than this bound,
        which holds for any order of summation. Anything beyond it is an error, not rounding.</p>
    </div>`;
  }

  private renderNotes() {
    return html`<details>
      <summary>What these timings show, and what they do not</summary>
      <p>The CPU timer covers only the arithmetic of one multiplication in WebAssembly. The GPU timers cover each
        phase separately, from asking for an adapter through reading the result back and releasing the device.
        For small matrices the GPU's setup, shader compilation and transfers can take longer than the CPU's whole
        multiplication.</p>
      <p>They do not predict how long it takes to train or run a large model, do not show which kind of hardware is
        faster in general, and are not a comparison of optimised libraries: this is one simple shader and one
        small kernel, in a browser tab, on whatever this machine is doing right now. Browsers coarsen and jitter
        their timers, and a second run can differ from the first (the browser may still be optimising code or
        warming caches). A WebGPU adapter may be a software implementation running on the CPU; the adapter report
        says so when the browser admits it.</p>
      <p>Sizes stop at 2048 × 2048 because this runs inside your browser tab: three 2048² float32 matrices take
        48 MiB in WebAssembly memory, the same again in GPU buffers plus a 16 MiB readback copy, and the CPU needs
        about 17 billion floating-point operations — seconds here. A software adapter is slower still, so it is
        given at most 1024 × 1024. Each GPU step has a time limit (10 seconds to 2 minutes) and ends early if the
        device is lost, so nothing waits forever. Each run uses a fresh Worker and a fresh GPU device, releases
        its buffers and device at the end, and Cancel or leaving the page stops the Worker at once.</p>
    </details>`;
  }
}

if (!customElements.get('sl-matmul-experiment')) customElements.define('sl-matmul-experiment', MatmulExperiment);

declare global {
  interface HTMLElementTagNameMap { 'sl-matmul-experiment': MatmulExperiment }
}

/** A count of FLOPs as the site writes one: three significant digits and a prefix ("33.6 MFLOPs"). */
function flopCount(n: number): string {
  const [div, prefix] = n >= 1e12 ? [1e12, 'T'] : n >= 1e9 ? [1e9, 'G'] : n >= 1e6 ? [1e6, 'M'] : n >= 1e3 ? [1e3, 'k'] : [1, ''];
  return `${Number((n / div).toPrecision(3))} ${prefix}FLOPs`;
}
