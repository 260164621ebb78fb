// <sl-decode-run-view>: the measured decode run (issue 38). The reader presses Run; a Worker
// (worker.ts) runs one decode step's weight matmuls of a catalog model on this device — the GPU
// through WebGPU, else the CPU in WebAssembly — at batches from 1 to past the flip, and the page
// draws the measured step over the roofline of the same device: its measured bandwidth and FLOP
// rate as a chip ("This device (measured)"), whose bound and flip the engine computes. Loaded by
// <sl-decode-run> (index.ts) when the reader asks for it.
//
// Test hooks (web/tests/decode-run.test.mjs):
//   window.__slDecodeRunHooks        RunHooks for the next run (protocol.ts)
//   window.__slDecodeRunLiveWorkers  the run's Workers alive now (the run's own and its CPU threads)
import { LitElement, html, nothing, type TemplateResult } from 'lit';
import { getEngine, isError, type Engine } from '../../engine';
import { chipParam, chipId, setChip } from '../../state';
import { loadPlot, Plot, logLogFrame, timeAxisY } from '../../labs/plot';
import { deviceLink } from '../measure-device';
import { measuredChip, type Measurement } from '../measure-protocol';
import { batchesTo, refusal, type ModelShape } from './plan';
import { BOUNDS, type Ceilings, type DeviceReport, type PageToWorker, type PlanSummary, type Point, type RunHooks, type WorkerToPage } from './protocol';
import { encodeRun, keepRun, keptRun, runFromAddress, URL_PARAM, type KeptRun } from './store';
import { decodeRunStyles } from './styles';

type RunState = 'idle' | 'running' | 'done' | 'cancelled' | 'failed';
declare global {
  interface Window { __slDecodeRunHooks?: RunHooks; __slDecodeRunLiveWorkers?: number }
}

/** What the engine says for the measured device: its bound at each batch and where it flips. */
interface Prediction { flip: number | null; line: { batch: number; step: number }[]; at: Map<number, number> }

const memoryGb = () => (navigator as Navigator & { deviceMemory?: number }).deviceMemory ?? null;

export class DecodeRunView extends LitElement {
  static styles = decodeRunStyles;
  static properties = {
    model: { type: String },
    runState: { type: String, reflect: true, attribute: 'data-run-state' },
    label: { state: true }, fraction: { state: true },
    device: { state: true }, ceilings: { state: true }, plan: { state: true }, points: { state: true },
    prediction: { state: true }, chip: { state: true }, failure: { state: true }, notice: { state: true },
    kept: { state: true }, width: { state: true }, copied: { state: true },
  };
  declare model: string;
  declare runState: RunState;
  declare label: string;
  declare fraction: number | null;
  declare device: DeviceReport | null;
  declare ceilings: Ceilings | null;
  declare plan: PlanSummary | null;
  declare points: Point[];
  declare prediction: Prediction | null;
  declare chip: Record<string, unknown> | null;
  declare failure: string;
  declare notice: string;
  /** a run shown from the address or from storage, not measured in this page */
  declare kept: KeptRun | null;
  declare width: number;
  declare copied: boolean;

  private engine: Engine | null = null;
  private worker: Worker | null = null;
  private threads: Worker[] = [];
  private watchdog = 0;
  private resize: ResizeObserver | null = null;
  private precision: 'f16' | 'f32' = 'f32';

  constructor() {
    super();
    this.model = 'llama3-8b';
    this.runState = 'idle';
    this.label = ''; this.fraction = null;
    this.device = null; this.ceilings = null; this.plan = null; this.points = [];
    this.prediction = null; this.chip = null; this.failure = ''; this.notice = ''; this.kept = null;
    this.width = 640; this.copied = false;
  }

  connectedCallback() {
    super.connectedCallback();
    window.addEventListener('pagehide', this.onPageHide);
    window.addEventListener('sl-chip-change', this.onChip);
    this.resize = new ResizeObserver((e) => { const w = Math.round(e[0].contentRect.width); if (Math.abs(w - this.width) > 8) this.width = w; });
    this.resize.observe(this);
    void this.start();
  }
  disconnectedCallback() {
    super.disconnectedCallback();
    window.removeEventListener('pagehide', this.onPageHide);
    window.removeEventListener('sl-chip-change', this.onChip);
    this.resize?.disconnect();
    this.stop();
  }
  private onPageHide = () => { if (this.worker) { this.stop(); this.runState = 'cancelled'; } };
  private onChip = () => this.requestUpdate();

  /** The engine and Plot; then a run from the address or storage is shown, or a new one starts. */
  private async start() {
    this.engine = await getEngine(['decode', 'chip']);
    await loadPlot();
    if (this.hasAttribute('autostart')) { this.run(); return; }
    const kept = runFromAddress() ?? keptRun();
    if (kept && 'error' in kept) this.notice = kept.error;
    else if (kept) this.showKept(kept);
    this.requestUpdate();
  }

  // ------------------------------------------------------------------------------ the run
  private get models(): ModelShape[] {
    return (this.engine?.models ?? []).filter((m) => !refusal(m as Partial<ModelShape>))
      .map((m) => ({ ...(m as unknown as ModelShape), id: m.id, name: m.name }));
  }

  private stop() {
    clearTimeout(this.watchdog);
    const n = (this.worker ? 1 : 0) + this.threads.length;
    this.worker?.terminate();
    for (const t of this.threads.splice(0)) t.terminate();
    this.worker = null;
    if (n) window.__slDecodeRunLiveWorkers = Math.max(0, (window.__slDecodeRunLiveWorkers ?? n) - n);
  }

  /** Counts a Worker just made (the bundler sees `new Worker(new URL(…))` only where it is written out). */
  private counted(w: Worker): Worker {
    window.__slDecodeRunLiveWorkers = (window.__slDecodeRunLiveWorkers ?? 0) + 1;
    return w;
  }

  private arm(ms: number) {
    clearTimeout(this.watchdog);
    this.watchdog = window.setTimeout(() => this.fail(`The run's Worker sent nothing for ${Math.round(ms / 1000)} s, so it was stopped.`), ms);
  }

  private fail(message: string) {
    this.stop();
    this.runState = 'failed';
    this.failure = message;
    this.label = '';
  }

  /** Why the model asked for cannot run here (the run then offers the catalog's dense models), or ''. */
  private unrunnable(): string {
    if (!this.engine || this.models.some((m) => m.id === this.model)) return '';
    const m = this.engine.models.find((x) => x.id === this.model);
    return m ? `${m.name} cannot be run here: ${refusal(m as Partial<ModelShape>)}. Pick another model.`
      : 'A custom model cannot be run here: pick one of the catalog’s models.';
  }

  run() {
    if (this.runState === 'running' || !this.engine) return;
    this.stop();
    const shape = this.models.find((m) => m.id === this.model);
    if (!shape) { this.notice = this.unrunnable(); this.runState = 'idle'; return; }
    const hooks = window.__slDecodeRunHooks ?? {};
    Object.assign(this, { device: null, ceilings: null, plan: null, points: [], prediction: null, chip: null, failure: '', notice: '', kept: null, copied: false, shareUrl: '' });
    this.runState = 'running';
    this.label = 'Starting the Worker';
    this.fraction = null;
    let worker: Worker;
    try {
      worker = this.counted(new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'sl-decode-run' }));
    } catch (e) { this.fail(`Could not start the run's Worker: ${e instanceof Error ? e.message : String(e)}`); return; }
    this.worker = worker;
    const limit = hooks.watchdogMs ?? BOUNDS.watchdogMs;
    this.arm(limit);
    worker.onmessage = (e: MessageEvent<WorkerToPage>) => { if (this.worker === worker) { this.arm(limit); this.onMessage(e.data, hooks); } };
    worker.onerror = (e) => { if (this.worker === worker) { e.preventDefault(); this.fail(`The run's Worker failed: ${e.message || 'it could not be loaded'}.`); } };
    const start: PageToWorker = {
      type: 'start', model: shape, threads: navigator.hardwareConcurrency || 1, isolated: window.crossOriginIsolated === true,
      memoryGb: memoryGb(), seed: (Math.random() * 2 ** 32) >>> 0, hooks,
    };
    worker.postMessage(start);
  }

  cancel() {
    if (this.runState !== 'running') return;
    this.stop();
    this.runState = 'cancelled';
    this.label = '';
  }

  private onMessage(m: WorkerToPage, hooks: RunHooks) {
    switch (m.type) {
      case 'progress': this.label = m.label; this.fraction = m.fraction; break;
      case 'device': this.device = m.device; this.precision = m.device.precision; break;
      case 'need-threads': this.startThreads(m.count); break;
      case 'ceilings': this.onCeilings(m.ceilings, m.plan, hooks); break;
      case 'point': this.points = [...this.points, m.point]; break;
      case 'done': this.finish(); break;
      case 'failed': this.fail(`The run stopped: ${m.message}.`); break;
    }
  }

  /** The CPU path's other threads: Workers of this page, each given a port to the run's Worker. */
  private startThreads(count: number) {
    const ports: MessagePort[] = [];
    for (let i = 0; i < count; i++) {
      const t = this.counted(new Worker(new URL('./cpu-thread.ts', import.meta.url), { type: 'module', name: `sl-decode-run-thread-${i + 1}` }));
      this.threads.push(t);
      const channel = new MessageChannel();
      t.postMessage({ port: channel.port1 }, [channel.port1]);
      ports.push(channel.port2);
    }
    this.worker?.postMessage({ type: 'threads', ports } satisfies PageToWorker, ports);
  }

  /** The engine's parameters for the run's model on a chip: the run's matmuls, context 0, one chip. */
  private decodeParams(chip: unknown, params: number, precision = this.precision) {
    return { chip, model: this.model, params, chips: 1, context: 0, batch: 1,
      weight_dtype: precision === 'f16' ? 'fp16' : 'fp32', compute_dtype: 'fp32' };
  }

  private onCeilings(ceilings: Ceilings, plan: PlanSummary, hooks: RunHooks) {
    const engine = this.engine!, device = this.device!;
    this.ceilings = ceilings;
    this.plan = plan;
    const m: Measurement = {
      target: device.backend, adapter: device.name, software: device.backend === 'gpu' && device.adapter?.software === true,
      vendor: device.backend === 'gpu' ? device.adapter?.vendor || 'unknown' : 'unknown', flops: ceilings.flops, bandwidth: ceilings.bandwidth, gpuNote: '',
    };
    const chip = measuredChip(m, memoryGb() ?? 8);
    const checked = engine.evaluate('chip', { chip });
    if (isError(checked)) { this.fail(`The measured device was refused by the engine: ${checked.error.param ?? 'chip'}: ${checked.error.message}`); return; }
    this.chip = chip;
    const prediction = this.predict(chip, plan.modelParams, plan.maxBatch * 4);
    if (!prediction) return;
    this.prediction = prediction;
    // from 1 to past the flip, within the plan's batch cap and the time one step may take
    const byTime = Math.floor((BOUNDS.maxStepS * ceilings.flops.median) / (2 * plan.runParams));
    const past = 2 ** Math.ceil(Math.log2(Math.max(16, BOUNDS.pastFlip * (prediction.flip ?? 4))));
    const last = Math.max(2, Math.min(plan.maxBatch, byTime, past));
    const batches = hooks.batches ?? batchesTo(last);
    this.worker?.postMessage({ type: 'sweep', batches } satisfies PageToWorker);
  }

  /** The engine's bound for the measured chip at every batch to `to`, and its flip. */
  private predict(chip: Record<string, unknown>, params: number, to: number, precision = this.precision): Prediction | null {
    const engine = this.engine!;
    const base = this.decodeParams(chip, params, precision);
    const one = engine.evaluate('decode', base, { steps: false });
    const s = engine.sweep('decode', base, { x: { param: 'batch', from: 1, to: Math.max(2, to), points: 64, scale: 'log' }, outputs: ['step_s'] });
    if (isError(one) || isError(s)) { this.fail(`The engine refused the measured device: ${isError(one) ? one.error.message : isError(s) ? s.error.message : ''}`); return null; }
    const flip = typeof one.outputs.mlp_flip_batch === 'number' ? one.outputs.mlp_flip_batch : null;
    const line = s.x.values.map((batch, i) => ({ batch, step: s.outputs.step_s[i] as number })).filter((p) => Number.isFinite(p.step));
    return { flip, line, at: new Map(line.map((p) => [p.batch, p.step])) };
  }

  /** The engine's bound at one batch for the measured chip (a point off the drawn line's grid). */
  private boundAt(batch: number): number | null {
    const chip = this.chip ?? this.kept?.chip;
    const params = this.plan?.modelParams ?? this.kept?.params;
    if (!chip || !params || !this.engine) return null;
    const r = this.engine.evaluate('decode', { ...this.decodeParams(chip, params), batch }, { steps: false });
    return isError(r) ? null : (r.outputs.step_s as number);
  }

  private finish() {
    this.stop();
    this.runState = 'done';
    this.label = '';
    if (this.chip && this.points.length >= 2) {
      keepRun({
        v: 1, chip: this.chip, model: this.model, backend: this.device!.backend, precision: this.precision,
        software: this.device!.backend === 'gpu' && this.device!.adapter?.software === true, device: this.device!.name,
        params: this.plan!.modelParams, batches: this.points.map((p) => p.batch), stepS: this.points.map((p) => p.stepS),
        verified: this.points.every((p) => p.verify.mismatches === 0), when: new Date().toISOString().slice(0, 10),
      });
    }
  }

  /** Shows a kept or shared run; false when the engine refuses its chip (a notice says so). */
  private showKept(r: KeptRun): boolean {
    const checked = this.engine!.evaluate('chip', { chip: r.chip });
    if (isError(checked)) { this.notice = `The kept decode run's device was refused: ${checked.error.message}`; return false; }
    this.precision = r.precision;
    this.model = r.model;
    this.kept = r;
    this.chip = r.chip;
    const p = this.predict(r.chip, r.params, r.batches[r.batches.length - 1] * 4);
    if (!p) return false;
    this.prediction = p;
    this.points = r.batches.map((batch, i) => ({ batch, stepS: r.stepS[i], runS: NaN, lowS: NaN, highS: NaN, samples: 0, reps: 0, verify: { checked: 0, mismatches: r.verified ? 0 : 1, worstShare: 0, what: '' } }));
    this.runState = 'done';
    return true;
  }

  private useChip() {
    if (!this.chip) return;
    setChip('custom', this.chip);
  }

  private async copyLink() {
    const r = this.kept ?? keptRun();
    if (!r || 'error' in r || !this.chip) return;
    const url = new URL(deviceLink(this.chip));
    url.pathname = location.pathname;
    url.searchParams.set(URL_PARAM, encodeRun(r));
    this.shareUrl = url.toString();
    try { await navigator.clipboard.writeText(this.shareUrl); this.copied = true; } catch { this.copied = false; }
    this.requestUpdate();
  }
  private shareUrl = '';

  // ------------------------------------------------------------------------------ what it shows
  private f = (v: number, unit: string) => this.engine!.format(v, unit);

  /** Where the two measured regimes meet: the batch-1 step carried flat, and the largest batch's
   *  step per sequence carried down; null until the step has clearly grown. */
  private measuredFlip(): number | null {
    const ps = this.points;
    if (ps.length < 3) return null;
    const first = ps[0], last = ps[ps.length - 1];
    if (last.stepS < 1.5 * first.stepS) return null;
    // the time a sequence costs at large batch: the median over the last three batches
    const per = ps.slice(-3).map((p) => p.stepS / p.batch).sort((a, b) => a - b)[1];
    return first.stepS / per;
  }

  render() {
    const running = this.runState === 'running';
    return html`
      <h3>Run it here: this device's decode step, measured</h3>
      <p class="hint">Run times one decode step's weight matmuls of the chosen model on this device, in the background —
        its GPU through WebGPU, else its CPU in WebAssembly — from batch 1 to past the flip, and draws the time beside the
        bound this page predicts for the same device. Nothing leaves this browser.${this.pageChipElsewhere()}</p>
      <div class="controls">
        <label>Model
          <select ?disabled=${running} @change=${(e: Event) => { this.model = (e.target as HTMLSelectElement).value; this.notice = ''; }}>
            ${this.unrunnable() ? html`<option value="" selected disabled>Pick a model</option>` : nothing}
            ${this.models.map((m) => html`<option value=${m.id} ?selected=${m.id === this.model}>${m.name}</option>`)}
          </select>
        </label>
        <button class="primary" type="button" ?disabled=${running || !this.engine || !!this.unrunnable()} @click=${() => this.run()}>${this.points.length ? 'Run again' : 'Run'}</button>
        <button type="button" ?disabled=${!running} @click=${() => this.cancel()}>Cancel</button>
      </div>
      ${this.notice || this.unrunnable() ? html`<p class="msg warn" role="alert" data-notice>${this.notice || this.unrunnable()}</p>` : nothing}
      <div class="status" role="status" aria-live="polite">${this.renderStatus()}</div>
      ${this.failure ? html`<p class="msg warn" data-failure>${this.failure}</p>` : nothing}
      ${this.kept ? this.renderKeptNote(this.kept) : nothing}
      ${this.device ? this.renderDevice(this.device) : nothing}
      ${this.prediction && this.points.length ? this.renderResult() : nothing}
      ${this.renderNotes()}
    `;
  }

  private renderStatus() {
    if (this.runState === 'running') {
      const pct = this.fraction == null ? null : Math.round(this.fraction * 100);
      return html`${pct == null ? html`<progress aria-label="Progress of the run"></progress>` : html`<progress max="100" .value=${pct} aria-label="Progress of the run"></progress>`}
        <span data-phase>${this.label}…</span>`;
    }
    if (this.runState === 'cancelled') return html`<span>Cancelled: its Workers were stopped and its memory released${this.points.length ? '; the batches measured so far are shown' : ''}.</span>`;
    if (this.runState === 'done' && !this.kept) return html`<span>Done: its Workers, buffers and device are released.</span>`;
    return nothing;
  }

  private renderKeptNote(r: KeptRun) {
    return html`<p class="msg" data-kept>${runFromAddress() ? 'A shared run' : 'Your last run'}: ${this.modelName(r.model)} on ${r.device}, measured ${r.when}${r.verified ? ', every checked output right' : ''}.
      ${r.software ? html`<strong>A software adapter</strong>: these are the CPU's figures, not a graphics card's.` : nothing}
      Press Run to measure this device now.</p>`;
  }

  private modelName(id: string) { return this.engine?.modelName(id) || id; }

  private renderDevice(d: DeviceReport) {
    const a = d.adapter;
    return html`<div class="device" data-backend=${d.backend} data-precision=${d.precision} data-software=${String(a?.software === true)}>
      <p data-why><strong>${d.backend === 'gpu' ? `${a?.software ? 'Software adapter' : 'GPU'}: ${d.name}` : d.name}.</strong> ${d.why}</p>
      ${a?.software ? html`<p class="msg warn" data-software-note>The adapter WebGPU offered, ${a.description || `${a.vendor} ${a.architecture}`.trim()}, is a software
        implementation: it draws and computes on the CPU. ${d.backend === 'gpu' ? 'Its figures below are the CPU’s under WebGPU, not a graphics card’s.' : ''}</p>` : nothing}
    </div>`;
  }

  private renderResult(): TemplateResult {
    const ps = this.points, pred = this.prediction!, first = ps[0], last = ps[ps.length - 1];
    const f = this.f;
    const kept = this.kept;
    const params = this.plan?.modelParams ?? kept!.params;
    const bytes = params * (this.precision === 'f16' ? 2 : 4);
    const chip = this.chip!;
    const bw = chip.hbm_bytes_per_s as number, peak = (chip.flops_per_s as Record<string, number>).fp32;
    const readBw = bytes / first.stepS, flopRate = (2 * params * last.batch) / last.stepS;
    const flip = this.measuredFlip();
    const backend = kept?.backend ?? this.device?.backend;
    const software = kept?.software ?? this.device?.adapter?.software === true;
    const who = backend === 'gpu' ? (software ? 'The software adapter' : 'Your GPU') : 'Your CPU';
    const copyWord = backend === 'gpu' ? 'copies' : 'streams';
    const done = this.runState === 'done';
    const mismatched = ps.filter((p) => p.verify.mismatches > 0).length;
    return html`<section class="result" aria-label="The measured decode step">
      <p class="verdict" data-sentence>${who} reads the weights at <strong data-read-bw>${f(readBw, 'bytes/s')}</strong> at batch 1 —
        <span data-read-share>${f(Math.round((100 * readBw) / bw), 'count')} %</span> of what it ${copyWord} at;
        ${flip !== null && flip < 1.5
          ? html`it is <span data-measured-flip=${flip}>compute-bound already at batch 1</span>`
          : flip !== null
          ? html`it turns compute-bound near batch <strong data-measured-flip=${flip}>${f(Math.round(flip), 'count')}</strong>`
          : html`<span data-measured-flip="none">${done ? html`it had not turned compute-bound by batch ${f(last.batch, 'count')}` : 'the flip shows once the step grows'}</span>`}${pred.flip === null ? nothing
          : pred.flip < 1.5 ? html`; the bound predicted for this device is <span data-engine-flip=${pred.flip}>compute-bound from batch 1</span>`
          : html`; the bound predicted for this device turns at batch <strong data-engine-flip=${pred.flip}>${f(Math.round(pred.flip), 'count')}</strong>`}.
        ${ps.length > 1 ? html`At batch ${f(last.batch, 'count')} it computes at ${f(flopRate, 'FLOP/s')}, ${f(Math.round((100 * flopRate) / peak), 'count')} % of its measured FLOP rate.` : nothing}</p>
      ${this.renderChart(flip)}
      ${this.renderCompare(params)}
      <p class="check ${mismatched ? 'warn' : 'ok'}" data-verified=${String(!mismatched)} data-mismatches=${mismatched}>${mismatched
        ? html`At ${mismatched} of ${ps.length} batches a checked output differed from the reference by more than rounding can explain: those figures are not trustworthy.`
        : kept ? html`Every checked output matched its reference when it ran.`
        : html`At every batch, ${ps[0].verify.checked} outputs were checked against the same sums worked in double precision (${ps[0].verify.what}); all matched within rounding.`}</p>
      ${done ? html`<p class="actions">
        <button type="button" data-use-chip ?disabled=${chipId() === 'custom' && JSON.stringify(chipParam()) === JSON.stringify(chip)} @click=${() => this.useChip()}>Use this device as the page's chip</button>
        <button type="button" data-share @click=${() => void this.copyLink()}>Copy a link to this run</button>
        ${this.shareUrl ? html`<span class="hint" data-share-url>${this.copied ? 'Copied to the clipboard: ' : ''}<a href=${this.shareUrl}>this run's link</a>
          (it carries the device and the curve in the address itself; opening it sends nothing anywhere).</span>` : nothing}
      </p>` : nothing}
      ${this.renderTable(params)}
    </section>`;
  }

  /** On a page set to a datacenter chip: the run measures the reader's own computer, not that chip. */
  private pageChipElsewhere(): string {
    const id = chipId();
    const kind = id === 'custom' ? null : this.engine?.chipIndex.find((c) => c.id === id)?.kind;
    if (kind !== 'tpu' && kind !== 'datacenter-gpu') return '';
    return ` It measures the computer you are reading this on, not the page's chip, the ${this.engine!.chipName(id) || id}, which the rest of this page describes.`;
  }

  /** The same model's flip on the page's chip, from the engine, for scale. */
  private renderCompare(params: number) {
    if (chipId() === 'custom') return nothing;
    const engine = this.engine!;
    const r = engine.evaluate('decode', { ...this.decodeParams(chipParam(), params), weight_dtype: 'bf16', compute_dtype: 'bf16' }, { steps: false });
    if (isError(r) || typeof r.outputs.mlp_flip_batch !== 'number') return nothing;
    return html`<p class="hint" data-page-chip>For scale: on the page's chip, ${engine.chipName(chipId()) || chipId()}, the bound predicts the flip of the same
      matmuls in bfloat16 at batch ${this.f(Math.round(r.outputs.mlp_flip_batch), 'count')}.</p>`;
  }

  private renderChart(flip: number | null) {
    const ps = this.points, pred = this.prediction!;
    const f = this.f;
    const lastBatch = ps[ps.length - 1].batch;
    const width = Math.max(280, Math.min(this.width - 4, 760));
    const key = `${ps.map((p) => `${p.batch}:${p.stepS}`).join(',')}|${width}|${flip}|${pred.flip}`;
    if (this.chart?.key === key) return this.chart.template;
    const line = pred.line.filter((p) => p.batch <= Math.max(lastBatch, 2) * 1.0001);
    const measured = 'measured on this device', bound = 'predicted bound, this device';
    const narrow = width < 480;
    const rows = [...line.map((p) => ({ x: p.batch, y: p.step, series: bound })), ...ps.map((p) => ({ x: p.batch, y: p.stepS, series: measured }))];
    const description = `Time of one decode step against batch, both axes logarithmic: dots measured on this device, from ${f(ps[0].stepS, 's')} at batch 1 to ${f(ps[ps.length - 1].stepS, 's')} at batch ${f(lastBatch, 'count')}; the line is the engine's bound for the same device's measured bandwidth and FLOP rate${pred.flip !== null ? `, flipping at batch ${f(Math.round(pred.flip), 'count')}` : ''}.${flip !== null ? ` The measured regimes meet near batch ${f(Math.round(flip), 'count')}.` : ''}`;
    const marks = [
      Plot.line(rows.filter((d) => d.series === bound), { x: 'x', y: 'y', stroke: 'series', strokeWidth: 2, ariaHidden: 'true' }),
      Plot.line(rows.filter((d) => d.series === measured), { x: 'x', y: 'y', stroke: 'series', strokeWidth: 1.2, strokeOpacity: 0.6, ariaHidden: 'true' }),
      Plot.dot(rows.filter((d) => d.series === measured), { x: 'x', y: 'y', fill: 'series', r: 3.5, ariaHidden: 'true', className: 'measured-dot' }),
    ];
    if (pred.flip !== null && pred.flip >= 1 && pred.flip <= lastBatch) {
      marks.push(Plot.ruleX([pred.flip], { stroke: 'var(--roof)', strokeDasharray: '4 3', ariaHidden: 'true', className: 'engine-flip' }),
        Plot.text([pred.flip], { x: (d: number) => d, frameAnchor: 'top', dy: 8, dx: 4, text: () => `${narrow ? '' : 'predicted flip '}${f(Math.round(pred.flip!), 'count')}`, textAnchor: 'start', fill: 'currentColor', ariaHidden: 'true' }));
    }
    if (flip !== null && flip >= 1 && flip <= lastBatch) {
      marks.push(Plot.ruleX([flip], { stroke: 'var(--ok)', strokeDasharray: '2 3', ariaHidden: 'true', className: 'measured-flip' }),
        Plot.text([flip], { x: (d: number) => d, frameAnchor: 'bottom', dy: -8, dx: 4, text: () => `${narrow ? '' : 'measured flip '}${f(Math.round(flip), 'count')}`, textAnchor: 'start', fill: 'currentColor', ariaHidden: 'true' }));
    }
    const chart = Plot.plot({
      ...logLogFrame({ width, description, format: f, ariaLabel: 'Measured decode step time against batch on this device, with the engine’s bound',
        xLabel: 'Batch (sequences) →', yLabel: narrow ? '↑ Time per step' : '↑ Time per step (whole model)', color: { domain: [measured, bound], range: ['currentColor', 'var(--roof)'] } }),
      marks: [...timeAxisY(f, narrow ? '↑ Time per step' : '↑ Time per step (whole model)'), ...marks],
    });
    chart.classList.add('decode-run-plot');
    const template = html`<div class="chart" data-points=${ps.length}>${chart}</div>`;
    this.chart = { key, template };
    return template;
  }
  /** the chart last drawn, by what it shows: a status line's update does not draw it again */
  private chart: { key: string; template: TemplateResult } | null = null;

  private renderTable(params: number) {
    const f = this.f, bytesPer = this.precision === 'f16' ? 2 : 4;
    return html`<details class="points">
      <summary>Every batch: measured, the predicted bound, and what the step reached</summary>
      <div class="table-wrap"><table data-points-table>
        <thead><tr><th scope="col">Batch</th><th scope="col">Measured step</th><th scope="col">Engine's bound</th><th scope="col">Measured ÷ bound</th><th scope="col">Bandwidth</th><th scope="col">FLOP/s</th><th scope="col">Checked</th></tr></thead>
        <tbody>${this.points.map((p) => {
          const b = this.prediction?.at.get(p.batch) ?? this.boundAt(p.batch);
          return html`<tr><td class="num">${f(p.batch, 'count')}</td><td class="num">${f(p.stepS, 's')}</td><td class="num">${b ? f(b, 's') : '—'}</td>
            <td class="num">${b ? (p.stepS / b).toFixed(2) : '—'}</td><td class="num">${f((params * bytesPer) / p.stepS, 'bytes/s')}</td>
            <td class="num">${f((2 * params * p.batch) / p.stepS, 'FLOP/s')}</td><td>${p.verify.checked ? (p.verify.mismatches ? `${p.verify.mismatches} wrong` : `${p.verify.checked} right`) : this.kept ? (p.verify.mismatches ? 'not all right' : 'right') : '—'}</td></tr>`;
        })}</tbody>
      </table></div>
    </details>`;
  }

  private renderNotes() {
    const p = this.plan, f = this.engine ? this.f : null;
    const c = this.ceilings;
    return html`<details class="notes">
      <summary>How this run works, what it leaves out, and how it is bounded</summary>
      ${p && f ? html`<p data-plan>The run held ${f(p.weightBytes, 'bytes')} of weights: ${p.layersRun === 1 && p.columnShare < 1
        ? `one layer's matrices on ${f(Math.round(p.columnShare * 100), 'count')} % of their outputs`
        : `${f(p.layersRun, 'count')} of the model's layers`}, and ${f(p.headRows, 'count')} of the unembedding's outputs — ${f(p.runParams, 'count')} of the
        model's ${f(p.modelParams, 'count')} matmul parameters. Every step time shown is the run's step × ${p.scaleUp.toFixed(2)}, the whole model's.</p>` : nothing}
      ${c && f ? html`<p data-ceilings>This device's ceilings, measured in the same run and the same precision: bandwidth ${f(c.bandwidth.median, 'bytes/s')}
        (${c.bandwidth.how}); FLOP rate ${f(c.flops.median, 'FLOP/s')} (${c.flops.how}). They become the chip “This device (measured)”, whose bound and flip the engine computes.</p>` : nothing}
      <p>Each step multiplies, layer after layer, the fused QKV matrix, the attention output matrix, the fused gate-and-up matrix (or the up matrix) and
        the down matrix, then the unembedding, each matmul reading the previous one's output. Weights are stored in float16 on a GPU with
        shader-f16, else in float32; every product and sum is float32. Left out: attention over a KV cache (the engine is asked for context 0),
        norms, activations and the embedding lookup; the engine is asked for these matmuls' parameters alone. The engine's line is a bound: real
        kernels reach part of each ceiling, so the dots sit above it.</p>
      <p>On a GPU, a batch of up to 8 runs a streaming kernel (each weight row read once by 32 lanes, every sequence's sum kept in registers);
        larger batches a tiled matmul (64 outputs × up to 64 sequences a workgroup). Steps are timed on the GPU with timestamp queries where the
        adapter has them (many steps a sample, since browsers round timestamps to 100 µs), else by the clock from submit to one readback. On the
        CPU, a WebAssembly SIMD kernel runs on every core the page may use (WebAssembly threads need a cross-origin isolated page), timed by the
        clock. Each batch: a warm-up, then the median of several samples.</p>
      <p>Bounded: no buffer takes more than ${Math.round(BOUNDS.bufferShare * 100)} % of the adapter's per-buffer limits; the weights take at most
        ${BOUNDS.gpuWeightBytes / 2 ** 20} MiB on a GPU, ${BOUNDS.softwareWeightBytes / 2 ** 20} MiB on a software adapter and ${BOUNDS.cpuWeightBytes / 2 ** 20} MiB
        (and at most ${Math.round(BOUNDS.cpuMemoryShare * 100)} % of the memory the browser reports) on the CPU — far more than any cache, so a batch-1 step
        streams from memory; batches stop at ${BOUNDS.gpuMaxBatch} on a GPU and ${BOUNDS.cpuMaxBatch} on the CPU, and where one step would take over
        ${BOUNDS.maxStepS} s. Every GPU wait has a time limit and ends if the device is lost; Cancel, the end of the run and leaving the page stop its
        Workers and release its buffers and device.</p>
    </details>`;
  }
}

if (!customElements.get('sl-decode-run-view')) customElements.define('sl-decode-run-view', DecodeRunView);
declare global {
  interface HTMLElementTagNameMap { 'sl-decode-run-view': DecodeRunView }
}
