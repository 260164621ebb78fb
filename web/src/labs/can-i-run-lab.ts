// <sl-can-i-run-lab>: one model on the reader's own device (chapter 0 or 7, and /labs/can-i-run/).
// Device, model, weight and KV format, context and users go to the engine's local_inference
// calculator; the lab shows its memory meter (weights, KV cache, overhead against usable
// memory), the spill tiers when the model does not fit, the tokens/s and time-to-first-token
// bounds with the binding term, and the engine's first suggested change. Every number and every
// sentence of advice is the engine's; this file only lays them out.
import { html, nothing, type TemplateResult } from 'lit';
import { ONE_DEVICE_KINDS, defineLab, type ChipFacts, type LabResult, LabElement, type Control, type ControlSpec, type OutputSpec, type StartFn } from './lab-element';
import { MODEL_PICKER } from './model-picker';
import { memoryMeter, meterOf, num } from './memory-meter';
import { article } from './words';
import { isError, type PublishedRun, type Result } from '../engine';
import { publishedRuns } from '../published-runs';
import { MEASURED_TTFT_CONTROL, measuredLine, measuredTtftLine, percent } from './measured';
import { ChartCache, NARROW_CHART_PX, Plot, moveMarker, powerOfTwoTicks } from './plot';
import { PublishedRunsLayer } from './published-layer';

/** one context of the chart's curve: the bound and the range published runs reach */
interface CPt { context: number; bound: number; low: number | null; high: number | null }
const CURVE_OUTPUTS = ['tokens_per_s', 'expected_tokens_per_s_low', 'expected_tokens_per_s_high'];
/** a finite number, or null (memory-meter's num reads a missing figure as 0, which a chart would draw) */
const figure = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** one device of the split, as the engine lists it (its outputs' `devices`) */
interface Device { chip: string; name: string; layer_share: number; usable_bytes: number; weight_bytes: number; kv_bytes: number; overhead_bytes: number; needed_bytes: number; margin_bytes: number; fits: boolean; t_s: number; bytes_per_s: number }
/** the kinds of chip a card of another kind joins in this lab: a reader's own cards, each with its
 *  own memory (the engine takes any discrete GPU; a desktop mixes these) */
const CARD_KINDS = ['consumer-gpu', 'workstation-gpu'];
interface Tier { tier: string; label: string; capacity_bytes: number | null; bytes_per_s: number; stored_bytes: number; stored_share: number; read_bytes: number; t_s: number }

let tiersCounter = 0;

/** `want` where the chip's runtimes run it, else BF16, else the first format they run (the
 *  engine's list from data/formats.json runs_on; unknown: `want`). */
const runnable = (runs: string[] | null | undefined, want: string) =>
  !runs || runs.includes(want) ? want : runs.includes('bf16') ? 'bf16' : runs[0] ?? want;
const own = (c: ChipFacts) => ONE_DEVICE_KINDS.includes(c.kind);
/** The weights a lab opens on: GGUF Q4_K_M on the reader's own device (llama.cpp), INT8 on a TPU
 *  (as vLLM's TPU backend and MaxText quantize: an 8B model then fits a TPU v5e's 16 GB), BF16 on
 *  a datacenter GPU (as vLLM serves a checkpoint), and never a format the chip's runtimes do not run. */
const WEIGHTS_START: StartFn = Object.assign((c: ChipFacts) => runnable(c.weightFormats, own(c) ? 'q4_k_m' : c.kind === 'tpu' ? 'int8' : 'bf16'), {
  why: (c: ChipFacts) => (own(c) ? null : c.kind === 'tpu'
    ? `A TPU runs a model through JAX/XLA, not llama.cpp: the lab opens on INT8 weights, as vLLM's TPU backend and MaxText quantize them, and a BF16 KV cache; its format menus list only what the ${c.name}'s runtimes run.`
    : `On a datacenter GPU the lab opens on BF16 weights and KV cache, as vLLM serves a checkpoint; llama.cpp's GGUF formats run on the ${c.name} too.`),
});
const KV_START: StartFn = (c) => runnable(c.kvFormats, own(c) ? 'fp16' : 'bf16');

export class CanIRunLab extends LabElement<'local_inference'> {
  readonly controls: ControlSpec[] = [
    MODEL_PICKER,
    { path: 'weight_format', label: 'weight format (bits per weight, scales included)', start: WEIGHTS_START },
    { path: 'kv_format', label: 'KV-cache format', start: KV_START },
    { path: 'context', label: 'context: tokens each user keeps', main: true },
    { path: 'users', label: 'concurrent users' },
    { path: 'arithmetic', label: 'matmul arithmetic' },
    { path: 'offload', label: 'layers that do not fit' },
    { path: 'devices', label: 'devices of this kind the model is split over' },
    { path: 'split', label: 'how the devices share the model' },
    { path: 'expert_placement', label: 'what an MoE model spills first' },
    { path: 'measured_tokens_per_s', label: 'I measured: your own decode speed, all users together, if you ran it' },
    MEASURED_TTFT_CONTROL,
  ];
  readonly outputs: OutputSpec<'local_inference'>[] = [
    'tokens_per_s', 'tokens_per_s_per_user', 'ttft_s', 'needed_bytes', 'usable_bytes', 'free_bytes',
    'shortfall_bytes', 'weight_bytes', 'kv_bytes', 'overhead_bytes', 'spilled_bytes', 'read_bytes_per_step',
    'flops_per_s', 't_comm_s', 'experts_read_share', 'all_experts_batch',
  ];

  private readonly tiersId = `cir-tiers-${++tiersCounter}`;
  /** a card of another kind beside the chip's (the engine's other_devices), kept in the URL as `with` */
  private other: string | null = null;

  protected applyExtraState(key: string, value: string): boolean {
    if (key !== 'with') return false;
    this.other = value || null;
    return true;
  }
  protected extraQuery(): [string, string][] { return this.other && this.takesOther() ? [['with', this.other]] : []; }
  /** a card of another kind joins a GPU, split by layers or by rows */
  private takesOther(): boolean { return CARD_KINDS.includes(this.state?.chipFacts?.kind ?? ''); }
  protected adjustParams(p: Record<string, unknown>) {
    if (this.other && this.takesOther()) p.other_devices = [this.other];
  }
  protected renderExtraControls(): TemplateResult | typeof nothing {
    if (!this.engine || !this.takesOther()) return nothing;
    const cards = this.engine.chips.filter((c) => CARD_KINDS.includes(String(c.kind)));
    const id = `${this.tiersId}-with`;
    return html`<div class="control" data-key="other_devices">
      <label for=${id}>a card of another kind beside it (each card holds a share in proportion to its memory)</label>
      <select id=${id} @change=${(e: Event) => { this.other = (e.target as HTMLSelectElement).value || null; this.schedule(); }}>
        <option value="" ?selected=${!this.other}>none</option>
        ${cards.map((c) => html`<option value=${c.id} ?selected=${this.other === c.id}>${c.name}</option>`)}
      </select>
    </div>`;
  }
  protected readonly hasViz = true;
  /** published runs of this device, model, formats and users, at their context and measured tokens/s */
  private readonly runs = new PublishedRunsLayer({ redrawCharts: () => this.redrawCharts(), engine: () => this.engine }, {
    calculator: 'local_inference', same: ['chip', 'model', 'weight_format', 'kv_format', 'users', 'devices', 'other_devices'], near: ['chip', 'model'], settings: ['context'],
    place: (m, input) => (m.measured.output === 'tokens_per_s' && m.measured.value > 0 ? { x: Number(input('context')), y: m.measured.value } : null),
    placeWords: (at, e) => e.format(at.y, 'tokens/s'),
  });
  readonly layers = [this.runs];
  // the curve over context for everything but the context (dragging the context re-uses it)
  private curveKey = '';
  private curve = new Map<number, CPt | null>();
  private charts = new ChartCache();

  /** a TPU has no host memory a model spills to: the spill settings apply to GPUs, Macs and CPUs */
  protected controlApplies(c: Control): boolean | undefined {
    if (c.path === 'offload' || c.path === 'expert_placement') return this.state?.chipFacts?.kind !== 'tpu';
    return undefined;
  }

  /** the reader's own devices first in the chip menu */
  readonly devicesFirst = true;

  /** The format menus list what the chip's runtimes run (and the format chosen, if another: the
   *  engine then says so in a warning). */
  protected renderControl(c: Control): TemplateResult {
    const f = this.state.chipFacts;
    // a TPU has no host memory a model spills to: its spill settings are left out, not greyed
    if (this.controlApplies(c) === false) return html``;
    const runs = c.path === 'weight_format' ? f?.weightFormats : c.path === 'kv_format' ? f?.kvFormats : null;
    if (!runs) return super.renderControl(c);
    const now = String(this.values.get(c.path));
    return super.renderControl({ ...c, schema: { ...c.schema, choices: (c.schema.choices ?? []).filter((o) => runs.includes(o) || o === now) } });
  }

  private meter(r: LabResult<'local_inference'>): TemplateResult {
    const o = r.outputs;
    const devices = (Array.isArray(o.devices) ? o.devices : []) as Device[];
    if (devices.length > 1) return this.deviceMeters(r, devices);
    return memoryMeter(r, [
      { key: 'weights', label: 'weights', bytes: num(o.weight_bytes) },
      { key: 'kv', label: 'KV cache', bytes: num(o.kv_bytes) },
      { key: 'overhead', label: 'overhead', bytes: num(o.overhead_bytes) },
    ], (v) => this.engine!.format(v, 'bytes'));
  }

  /** One meter per device of a split: its share of the weights and KV cache and its own overhead
   *  against its usable memory, and its stage of the token step (the stages add up at batch 1). */
  private deviceMeters(r: LabResult<'local_inference'>, devices: Device[]): TemplateResult {
    const f = (v: number, u: string) => this.engine!.format(v, u);
    const row = r.inputs.split === 'row';
    const o = r.outputs;
    const pipe = typeof o.pipeline_step_s === 'number' && typeof o.pipeline_microbatches === 'number'
      ? html` At ${f(Number(r.inputs.users), 'count')} users they pipeline ${f(o.pipeline_microbatches, 'count')} micro-batches, each device on a different one: a token for every user takes <span class="nowrap">${f(o.pipeline_step_s, 's')}</span>${o.pipeline_step_s <= o.step_s ? ' (the slowest device\'s round), faster than the stages in turn' : ', no faster than the stages in turn'}.`
      : nothing;
    const stages = row ? html`The devices read their rows of every layer at once, so a token step takes as long as the slowest of them: <span class="nowrap">${f(Math.max(...devices.map((d) => d.t_s)), 's')}</span>.`
      : html`The devices run their layers in turn, so a token step reads for the sum of their stages: ${devices.map((d, i) => html`${i ? ' + ' : ''}<span class="nowrap">${f(d.t_s, 's')}</span>`)} = <span class="nowrap">${f(devices.reduce((t, d) => t + d.t_s, 0), 's')}</span>.${pipe}`;
    return html`<p class="cir-stages">${stages}</p><div class="cir-devices">${devices.map((d, i) => html`<div class="cir-device" data-device=${i} data-chip=${d.chip} data-fits=${String(d.fits)}>
      <p class="cir-device-title"><strong>Device ${i + 1}: ${d.name}</strong> — <span class="nowrap">${f(d.layer_share * 100, 'count')} %</span> of ${row ? 'every layer\'s rows' : 'the layers'}; its stage of each token step reads them in <span class="nowrap">${f(d.t_s, 's')}</span> at <span class="nowrap">${f(d.bytes_per_s, 'bytes/s')}</span>.</p>
      ${meterOf(d, [
        { key: 'weights', label: 'weights', bytes: d.weight_bytes },
        { key: 'kv', label: 'KV cache', bytes: d.kv_bytes },
        { key: 'overhead', label: 'overhead', bytes: d.overhead_bytes },
      ], (v) => f(v, 'bytes'), `Device ${i + 1}, ${d.name}`)}</div>`)}</div>`;
  }

  private tiers(r: LabResult<'local_inference'>): TemplateResult | typeof nothing {
    const tiers = (Array.isArray(r.outputs.tiers) ? r.outputs.tiers : []) as Tier[];
    const used = tiers.filter((t) => t.stored_bytes > 0);
    if (used.length < 2) return nothing;
    const f = (v: number, u: string) => this.engine!.format(v, u);
    return html`<p class="cir-tiers-title" id=${this.tiersId}>Where the model lives, and what each place costs per token step</p>
      <div class="cir-tiers-wrap" role="region" aria-labelledby=${this.tiersId} tabindex="0"><table class="cir-tiers cir-stack">
      <thead><tr><th scope="col">tier</th><th scope="col">holds</th><th scope="col">share</th><th scope="col">bandwidth</th><th scope="col">time per step</th></tr></thead>
      <tbody>${used.map((t) => html`<tr data-tier=${t.tier}><th scope="row">${t.label}</th><td data-label="holds">${f(t.stored_bytes, 'bytes')}</td><td data-label="share">${f(t.stored_share * 100, 'count')} %</td><td data-label="bandwidth">${f(t.bytes_per_s, 'bytes/s')}</td><td data-label="time per step">${f(t.t_s, 's')}</td></tr>`)}</tbody>
    </table></div>`;
  }

  /** The reader's own tokens/s as a share of the bound (the engine's measured_share_of_bound). */
  private measuredAgainstBound(r: LabResult<'local_inference'>): TemplateResult | typeof nothing {
    const f = (v: number, u: string) => this.engine!.format(v, u);
    return measuredLine(r.outputs.measured_share_of_bound, (share) => html`Your ${f(num(r.inputs.measured_tokens_per_s), 'tokens/s')} is
      ${percent(this.engine!, share)} of the ${this.fmt('tokens_per_s')} bound.
      ${share > 1 ? html`Above the bound: check the device, model and format chosen here match your run (a faster format, a smaller model?).`
        : html`The gap is usually kernel launches and synchronisation between them, dequantizing the weights, attention over a long context, and sampling each token.`}`,
      r.outputs.measured_among, 'cir-measured');
  }

  /** Published runs (data/measurements.json) of this device, model and weight format, each beside
   *  the engine's bound for its own setup, with the engine's ratio. */
  private published(): TemplateResult | typeof nothing {
    const e = this.engine!;
    const chip = this.chipValue(), model = this.values.get('model'), format = this.values.get('weight_format');
    const catalog = publishedRuns(this, this.calculator);
    if (!catalog) return nothing;
    // the devices a setup takes: the chip's devices and the cards of other kinds beside them
    const devicesOf = (i: Record<string, unknown>) => Number(i.devices ?? 1) + (Array.isArray(i.other_devices) ? i.other_devices.length : 0);
    const mine = devicesOf({ devices: this.values.get('devices'), other_devices: this.other && this.takesOther() ? [this.other] : undefined });
    const runs = catalog.filter((m) => m.measured.output === 'tokens_per_s'
      && m.inputs.chip === chip && m.inputs.model === model && m.inputs.weight_format === format
      && devicesOf(m.inputs as Record<string, unknown>) === mine);
    if (runs.length === 0) return nothing;
    const rows = runs.map((m: PublishedRun) => {
      const r = e.evaluate(this.calculator, { ...m.inputs, measured_tokens_per_s: m.measured.value }, { steps: false });
      return { m, r: isError(r) ? null : r };
    }).filter((x): x is { m: PublishedRun; r: Result } => x.r !== null);
    return html`<div class="cir-published"><p><strong>Published measurements</strong> of this device, model and format, beside the bound:</p>
      <div class="cir-tiers-wrap" role="region" aria-label="Published measurements" tabindex="0"><table class="cir-tiers cir-stack">
      <thead><tr><th scope="col">run</th><th scope="col">context</th><th scope="col">measured</th><th scope="col">bound</th><th scope="col">measured / bound</th></tr></thead>
      <tbody>${rows.map(({ m, r }) => html`<tr data-measurement=${m.id}><th scope="row"><a href=${m.source.url} title=${`${m.software}; ${m.source.where}`}>${m.hardware}</a></th>
        <td data-label="context">${e.format(num(m.inputs.context), 'count')}</td><td data-label="measured">${e.format(m.measured.value, 'tokens/s')}</td>
        <td data-label="bound">${e.format(num(r.outputs.tokens_per_s), 'tokens/s')}</td><td data-label="measured / bound">${e.format(num(r.outputs.measured_share_of_bound) * 100, 'count')} %</td></tr>`)}</tbody>
      </table></div></div>`;
  }

  protected renderVerdict(r: LabResult<'local_inference'>) {
    const o = r.outputs;
    const bound = String(o.bound);
    const tier = typeof o.bound_tier === 'string' ? (o.tiers as Tier[]).find((t) => t.tier === o.bound_tier)?.label : null;
    const what = bound === 'compute' ? 'the arithmetic' : `reading ${tier ?? 'memory'}`;
    const devices = num(r.inputs.devices) || 1;
    const name = this.state.chipFacts?.name ?? 'this device';
    const split = (Array.isArray(o.devices) ? o.devices : []) as Device[];
    const mixed = Array.isArray(r.inputs.other_devices) && split.length > 1;
    const on = mixed ? split.map((d) => d.name).join(' + ') : devices > 1 ? `${this.engine!.format(devices, 'count')} × ${name}` : `the ${name}`;
    return html`<p class="verdict verdict-${bound}" data-fits=${String(o.fits)}>
      ${o.fits ? html`${this.fitWords(true, 'It fits', '')} on ${on}.` : html`${this.fitWords(false, '', 'It does not fit')} on ${on}: ${this.state.chipFacts?.kind === 'tpu' ? 'a TPU has no slower memory to spill the rest to, so the times below are what a step would take if it fit' : 'the rest spills to slower memory'}.`}
      At most ${this.fig('tokens_per_s')}, ${bound}-bound (${what} sets the pace);
      the first token after ${article(this.engine!.format(num(o.prompt_tokens), 'count'))} ${this.engine!.format(num(o.prompt_tokens), 'count')}-token prompt takes at least ${this.fig('ttft_s')}.</p>
      ${this.ownDeviceOffer()}
      ${this.expected(r, 'tokens_per_s', 'tokens/s')}
      ${this.expected(r, 'ttft_s', 's', 'the first-token bound', 'ttft_s', 'expected_ttft_')}
      ${this.meter(r)}
      ${this.tiers(r)}
      ${this.measuredAgainstBound(r)}
      ${measuredTtftLine(this.engine!, r, 'ttft_s')}
      ${this.runs.note(r, this.engine!)}
      ${this.published()}
      <p class="cir-suggestion" data-kind=${String(o.suggestion_kind)}><strong>${o.suggestion_kind === 'none' ? 'To go faster:' : 'First change to try:'}</strong> ${String(o.suggestion)}</p>`;
  }

  /** The curve's points at these contexts: the ones not cached yet come from one engine sweep. */
  private points(base: Record<string, unknown>, contexts: number[]): CPt[] {
    const missing = contexts.filter((c) => !this.curve.has(c));
    if (missing.length) {
      const s = this.engine!.sweep(this.calculator, base, { x: { param: 'context', values: missing }, outputs: CURVE_OUTPUTS });
      const at = (k: string, i: number) => (isError(s) ? null : figure(s.outputs[k]?.[i]));
      missing.forEach((context, i) => {
        const bound = at('tokens_per_s', i);
        this.curve.set(context, bound !== null && bound > 0 ? { context, bound, low: at('expected_tokens_per_s_low', i), high: at('expected_tokens_per_s_high', i) } : null);
      });
    }
    return contexts.map((c) => this.curve.get(c)).filter((p): p is CPt => p != null);
  }

  /** Tokens/s against context: the engine's bound, the range published runs reach, the reader's
   *  context and measurement, and published runs of this setup. */
  protected drawViz(r: LabResult<'local_inference'>, host: HTMLElement) {
    // what the lab asks (not the resolved inputs: the engine fills in defaults, such as a TPU's
    // system RAM, that it refuses when given), every context but the reader's
    const base: Record<string, unknown> = this.params();
    delete base.context; delete base.prompt_tokens; delete base.measured_tokens_per_s; delete base.measured_ttft_s;
    const key = JSON.stringify(base);
    if (key !== this.curveKey) { this.curveKey = key; this.curve.clear(); this.charts.clear(); }
    const o = r.outputs, e = this.engine!;
    const f = (v: number, u: string) => e.format(v, u);
    const context = figure(r.inputs.context), now = figure(o.tokens_per_s);
    if (context === null || now === null) { host.replaceChildren(); return; }
    // contexts from 128 past four times the reader's (and the published runs'), in half-octaves,
    // at least to 32,768: the axis moves seldom while the context is dragged
    const top = this.findSchema('context')?.max ?? context;
    const runsReach = Math.max(1, ...this.runs.points(r).map((p) => p.x));
    const reach = Math.min(top, 2 ** Math.ceil(Math.log2(Math.max(32768, context * 4, runsReach * 2))));
    const xs: number[] = [];
    for (let k = 0; 128 * 2 ** (k / 2) <= reach; k++) xs.push(Math.round(128 * 2 ** (k / 2)));
    const pts = this.points(base, xs);
    if (!pts.length) { host.replaceChildren(); return; }
    const band = pts.filter((p) => p.low !== null && p.high !== null);
    const measured = figure(r.inputs.measured_tokens_per_s);
    const description = `The engine's bound on tokens per second against the context each user keeps, the context axis logarithmic: from ${f(pts[0].bound, 'tokens/s')} at ${f(pts[0].context, 'count')} tokens to ${f(pts[pts.length - 1].bound, 'tokens/s')} at ${f(pts[pts.length - 1].context, 'count')}.` +
      `${band.length ? ` The shaded band is the range published runs like this reach.` : ''} At the chosen context, ${f(context, 'count')} tokens, the bound is ${f(now, 'tokens/s')}.` +
      `${measured !== null ? ` Your measurement, ${f(measured, 'tokens/s')}, is the ring.` : ''}` + this.runs.describe(r, e);
    const width = this.vizWidth();
    // (a measurement is drawn at the reader's context: that chart is drawn again when either moves)
    const chartKey = `${reach}|${width}|${measured === null ? '' : `${measured}@${context}`}|${this.layerKey(r)}`;
    const drawn = this.charts.get(chartKey);
    if (drawn && moveMarker(drawn, context, now, description)) {
      if (host.firstChild !== drawn || host.childNodes.length !== 1) host.replaceChildren(drawn);
      return;
    }
    // (the band in the accent blue: green is "it fits" in this lab's verdict)
    const terms = ['upper bound (this model)', ...(band.length ? ['published runs reach'] : [])];
    const chart = Plot.plot({
      // (room on the right for the last context's label, which sits on the axis's end)
      // (on a phone: a narrower left margin, the y axis's labels being short counts, and a plot
      // at least 220 px tall)
      width, height: Math.round(Math.max(220, Math.min(320, width * 0.6))), marginLeft: width < NARROW_CHART_PX ? 48 : 70, marginRight: 36, marginBottom: 42, marginTop: 24,
      ariaLabel: 'Tokens per second against context on this device, from the engine', ariaDescription: description,
      style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
      x: { type: 'log', base: 2, label: 'Context per user (tokens) →', tickFormat: (d: number) => f(d, 'count'), ticks: powerOfTwoTicks(128, reach, width - 106) },
      y: { label: '↑ Tokens per second', zero: true, grid: true, ticks: width < NARROW_CHART_PX ? 4 : 5, tickFormat: (d: number) => f(d, 'count') },
      color: { legend: true, domain: terms, range: ['currentColor', 'var(--accent)'] },
      marks: [
        band.length ? Plot.areaY(band, { x: 'context', y1: 'low', y2: 'high', fill: 'var(--accent)', fillOpacity: 0.24, ariaHidden: 'true', className: 'expected-band' }) : null,
        Plot.line(pts, { x: 'context', y: 'bound', stroke: 'currentColor', strokeWidth: 2, ariaHidden: 'true', className: 'bound-line' }),
        Plot.ruleX([context], { stroke: 'currentColor', strokeOpacity: 0.5, ariaHidden: 'true', className: 'batch-rule' }),
        ...this.layerMarks(r, width),
        measured !== null ? Plot.dot([{ x: context, y: measured }], { x: 'x', y: 'y', r: 7, stroke: 'var(--warn)', strokeWidth: 2.5, fill: 'none', ariaHidden: 'true', className: 'measured-point' }) : null,
        Plot.dot([{ x: context, y: now }], { x: 'x', y: 'y', r: 6, fill: 'currentColor', stroke: 'var(--bg)', strokeWidth: 2, ariaHidden: 'true', className: 'operating-point' }),
      ],
    });
    chart.classList.add('cir-plot');
    host.replaceChildren(this.charts.put(chartKey, chart));
  }
}

defineLab('sl-can-i-run-lab', CanIRunLab);
