// <sl-decode-lab>: one decode step of a model on a slice (chapters 7, 12). The reader drags
// batch and context; the plot shows the engine's weight-load, KV-load, FLOP and comms times over
// a range of batches (one engine evaluation per point) on log axes, the current batch marked,
// and the batch where the weight matmuls flip. The verdict keeps the matmuls and attention
// apart. Every number is the engine's; this file only chooses which points to draw.
import { html, nothing } from 'lit';
import { ChartCache, Plot, SERIES, logLogFrame, moveMarker, timeAxisY } from './plot';
import { byChip, chipCount, defineLab, type Control, type LabResult, LabElement, type ControlSpec, type OutputName, type OutputSpec } from './lab-element';
import { MODEL_PICKER } from './model-picker';
import { MEASURED_CONTROL, measuredRateLine } from './measured';
import { PublishedRunsLayer } from './published-layer';
import { isError, type Result } from '../engine';
import { loads, whatFits, type FitChoice } from './own-fit';
// "Run it here" (issue 38): a 1 KB stub on the lab's own page; the run itself loads on its button
import '../measure/decode-run/index';

type O = Record<string, unknown>;
interface Pt { batch: number; t_kv_s: number; t_weights_s: number; t_math_s: number; t_comm_s: number; step_s: number }
const TERMS = [
  { key: 't_weights_s', label: 'weight load', stroke: SERIES.memory, dash: null },
  { key: 't_kv_s', label: 'KV-cache load', stroke: SERIES.kv, dash: null },
  { key: 't_math_s', label: 'FLOPs', stroke: SERIES.flops, dash: null },
  { key: 't_comm_s', label: 'model-parallel comms', stroke: 'var(--muted)', dash: '2 3' },
  { key: 'step_s', label: 'step time', stroke: 'currentColor', dash: '6 3' },
] as const;

/** the plot reaches past the KV crossover only up to this batch (tiny contexts put it at millions) */
const KV_REACH_CAP = 4096;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const cap = (s: string) => s[0].toUpperCase() + s.slice(1);
/** the smallest and largest positive value */
const extent = (vs: number[]): [number, number] => { const p = vs.filter((v) => v > 0); return [Math.min(...p), Math.max(...p)]; };

export class DecodeLab extends LabElement<'decode'> {
  // the preset: a model on a small slice (one device, four TPU chips, a GPU node) with short
  // contexts, where dragging the batch up from 1 flips the weight matmuls from memory- to
  // compute-bound on most chips
  readonly controls: ControlSpec[] = [
    { path: 'batch', start: 1, main: true },
    { ...MODEL_PICKER, start: byChip({ device: 'llama3-8b', tpu: 'llama3-8b', gpu: 'llama3-70b' }) },
    { path: 'context', start: 128 },
    { path: 'chips', start: chipCount(4) },
    // (the same words as Can I run it?: a format, not a "dtype")
    { path: 'weight_dtype' },
    { path: 'kv_dtype' },
    { path: 'compute_dtype' },
    { path: 'sharding' },
    MEASURED_CONTROL,
  ];
  readonly hint = 'Try this: drag the batch up from 1 and watch the weight matmuls flip at the marked batch; then raise the context to 8192 and watch the KV reads take over.';
  protected hintText() {
    if (this.result && this.cannotLoad(this.result)) return 'Try this: take one of the settings that load, above, then drag the batch up from 1 and watch the weight matmuls flip.';
    // (one card's memory may hold too few sequences of 8,192 tokens to reach the KV crossover: no promise there)
    return this.onOwnDevice() ? 'Try this: drag the batch up from 1 and watch the weight matmuls flip at the marked batch; then raise the context and watch the KV reads grow toward the weight reads, and the memory limit come down.' : this.hint;
  }
  /** the model-parallel sharding matters only over two or more chips */
  protected controlApplies(c: Control): boolean | undefined { return c.path === 'sharding' && this.values.get('chips') === 1 ? false : undefined; }
  /** a model that cannot load on the reader's own device has no speed: its speed rows are left out */
  private readonly noSpeed = (r: LabResult<'decode'>) => this.cannotLoad(r);
  readonly outputs: OutputSpec<'decode'>[] = [
    { name: 'step_s', hide: this.noSpeed }, { name: 'tokens_per_s', hide: this.noSpeed }, { name: 'tokens_per_s_per_chip', hide: this.noSpeed }, 't_weights_s', 't_kv_s', 't_math_s',
    // one device exchanges nothing: the engine gives no comms time there, and the row says so
    { name: 't_comm_s', none: (r) => (num(r.inputs.chips) === 1 ? `none: ${this.onOwnDevice() ? 'one device' : 'one chip'} has no model-parallel collectives` : null) },
    // one batch where the weight matmuls flip: the math's own crossover (critical_batch) is the
    // same number unless the comms overtake the weight reads first, and only then gets its row
    'mlp_flip_batch', { name: 'critical_batch', label: 'batch where the math alone would outlast the weight reads', hide: (r) => wholeBatch(r.outputs.critical_batch) === wholeBatch(r.outputs.mlp_flip_batch) },
    'kv_crossover_batch', 'max_batch', 'min_chips', 'weight_bytes',
    'kv_bytes_per_sequence', 'free_hbm_bytes', 'experts_read_share', 'all_experts_batch',
  ];
  protected readonly hasViz = true;
  /** a batch is a whole number of sequences: a crossover reads as the nearest one (as the
   *  engine's formatter writes a figure above 100, so a chapter's live figure and the lab agree) */
  protected fmt(name: OutputName<'decode'>): string {
    if (!WHOLE_BATCHES.includes(name)) return super.fmt(name);
    const b = wholeBatch(this.result!.outputs[name]);
    return b === null ? super.fmt(name) : this.ownWords(this.engine!.format(b, 'sequences'));
  }
  /** published decode runs of the reader's setup, at their batch (the schema's default where a run gives none) and measured step time (batch / tokens per second) */
  private readonly runs = new PublishedRunsLayer({ redrawCharts: () => this.redrawCharts(), engine: () => this.engine }, {
    calculator: 'decode', same: ['chip', 'model', 'chips', 'context', 'weight_dtype', 'kv_dtype'], near: ['chip', 'model'], settings: ['batch'],
    place: (m, input) => {
      const batch = Number(input('batch'));
      return m.measured.output === 'tokens_per_s' && m.measured.value > 0 ? { x: batch, y: batch / m.measured.value } : null;
    },
    placeWords: (at, e) => `${e.format(at.y, 's')} a step`,
  });
  readonly layers = [this.runs];

  // curve cache: the step over batch for everything but the batch (dragging batch re-uses it)
  private curveKey = '';
  private curve = new Map<number, Pt | null>();
  // the charts drawn for this curve, by their reach and width (dragging back re-uses them)
  private charts = new ChartCache();

  /** The curve's points at these batches: the ones not cached yet come from one engine sweep. */
  private points(base: O, batches: number[]): Pt[] {
    const missing = batches.filter((b) => !this.curve.has(b));
    if (missing.length) {
      const s = this.engine!.sweep('decode', base, { x: { param: 'batch', values: missing }, outputs: ['t_kv_s', 't_weights_s', 't_math_s', 'step_s', 't_comm_s'] });
      const at = (k: string, i: number) => (isError(s) ? null : num(s.outputs[k]?.[i]));
      (isError(s) ? missing : s.x.values).forEach((batch, i) => {
        const t = ['t_kv_s', 't_weights_s', 't_math_s', 'step_s'].map((k) => at(k, i));
        this.curve.set(batch, t.every((x) => x !== null)
          ? { batch, t_kv_s: t[0]!, t_weights_s: t[1]!, t_math_s: t[2]!, step_s: t[3]!, t_comm_s: at('t_comm_s', i) ?? 0 } : null);
      });
      for (const b of missing) if (!this.curve.has(b)) this.curve.set(b, null);
    }
    return batches.map((b) => this.curve.get(b)).filter((p): p is Pt => p != null);
  }

  /** On the lab's own page, "Run it here" for the lab's catalog model (a custom model: the default). */
  protected renderAfterVerdict(r: LabResult<'decode'>) {
    if (!this.ownPage) return nothing;
    const model = typeof r.inputs.model === 'string' ? r.inputs.model : nothing;
    return html`<sl-decode-run model=${model}></sl-decode-run>`;
  }

  /** On the reader's own device, a model whose weights (or one sequence's KV cache besides them)
   *  do not fit cannot load: the lab gives it no speed and says what would load instead. */
  protected cannotLoad(r: LabResult<'decode'>): boolean { return !loads(r.outputs); }
  private fitsKey = '';
  private fits: FitChoice[] = [];
  private noLoadVerdict(r: LabResult<'decode'>) {
    const o = r.outputs, params = this.params();
    const key = JSON.stringify(params);
    if (key !== this.fitsKey) {
      this.fitsKey = key;
      // on a TPU or a GPU node: the chips the engine says would hold it (a TPU's slice a power of two)
      const n = this.state.chipFacts?.kind === 'tpu' ? num(o.min_slice_chips) : num(o.min_chips_for_batch) ?? num(o.min_chips);
      const more = !this.onOwnDevice() && n !== null && n > (num(r.inputs.chips) ?? 1) && n <= (this.findSchema('chips')?.max ?? Infinity)
        ? [{ set: { chips: n }, words: `${this.engine!.format(n, 'count')} ${this.chipNoun(n)}` }] : [];
      this.fits = whatFits(this.engine!, 'decode', params, this.state.chipFacts?.weightFormats, (id) => this.choiceText('weight_dtype', id), more);
    }
    const model = typeof r.inputs.model === 'string' ? this.engine!.modelName(r.inputs.model) || r.inputs.model : 'This model';
    const format = this.choiceText('weight_dtype', r.inputs.weight_dtype);
    const weightsFit = (num(o.free_hbm_bytes) ?? -1) >= 0;
    const chip = this.state.chipFacts, own = this.onOwnDevice();
    const chips = num(r.inputs.chips) ?? 1, these = `${this.engine!.format(chips, 'count')} ${this.chipNoun(chips)}`;
    const holds = !own ? html`${chips === 1 ? `this ${chip?.kind === 'tpu' ? 'chip' : 'GPU'}’s` : `these ${these}’`} ${this.memoryName()} holds ${this.fig('slice_hbm_bytes')}${weightsFit ? nothing : html`: the weights alone need at least ${this.fig('min_chips')}`}`
      : chip?.gpuShare && chip.gpuShare < 1 ? html`the GPU of this ${chip.name} may use ${this.fig('slice_hbm_bytes')} of its ${this.memoryName()}` : html`this ${chip?.name ?? 'device'}’s ${this.memoryName()} holds ${this.fig('slice_hbm_bytes')}`;
    return html`<p class="verdict verdict-nofit" data-part="cannot-load">${this.fitWords(false, '', 'It cannot load')}: ${model} in ${format} needs ${this.fig('weight_bytes')} for its weights${weightsFit
      ? html` and ${this.fig('kv_bytes_per_sequence')} for one sequence’s KV cache at this context` : nothing}, and ${holds}. So it does not run on ${own ? 'this device' : chips === 1 ? `one ${this.chipNoun(1)}` : `these ${these}`}, and there is no speed to give.
      ${this.fits.length ? html`These would load: ${this.fits.map((c, i) => html`${i ? (i === this.fits.length - 1 ? ' or ' : ', ') : ''}<button type="button" class="lab-button" data-fit=${JSON.stringify(c.set)} @click=${() => this.useSetting(c.set)}>${c.words}</button>`)}.`
        : html`No weight format this device runs and no catalog model fits it at this context.`}</p>`;
  }
  /** A setting offered in the verdict, taken: its controls move there. */
  private useSetting(set: Record<string, unknown>) {
    for (const [k, v] of Object.entries(set)) { const c = this.control(k); if (c) this.setValue(c, v); }
    this.schedule();
  }
  /** the engine's "they need at least N devices" is not the advice on the reader's one device:
   *  the verdict says what would load instead */
  protected warningShown(w: string, r: LabResult<'decode'>): boolean { return !(this.onOwnDevice() && this.cannotLoad(r) && /\bneed at least\b/.test(w)); }
  /** a count of this chip's kind: chips (a TPU), GPUs (a datacenter GPU), devices (the reader's own) */
  private chipNoun(n: number): string {
    const one = this.onOwnDevice() ? 'device' : this.state.chipFacts?.kind === 'tpu' ? 'chip' : 'GPU';
    return n === 1 ? one : `${one}s`;
  }

  protected renderVerdict(r: LabResult<'decode'>) {
    if (this.cannotLoad(r)) return this.noLoadVerdict(r);
    const o = r.outputs;
    const bound = String(o.bound);
    const b = this.engine!.format(r.inputs.batch, 'count');
    const fits = o.fits !== false;
    const chips = num(r.inputs.chips) ?? 1;
    const memory = this.memoryName();
    const what = bound === 'compute' ? 'the FLOPs set' : bound === 'comms' ? 'the model-parallel collectives set' : `reading ${memory} (weights and KV caches) sets`;
    const own = this.onOwnDevice(), n = this.engine!.format(chips, 'count');
    const tpu = this.state.chipFacts?.kind === 'tpu';
    const where = chips === 1 ? `on one ${own ? 'device' : tpu ? 'chip' : 'GPU'}` : own ? `over ${n} devices` : tpu ? `for the ${n}-chip slice` : `on the ${n} GPUs`;
    return html`<p class="verdict verdict-${bound}" data-bound=${bound}><strong>${cap(bound)}-bound step</strong> at batch ${b}:
      ${what} the step time, ${this.fig('step_s')} (${this.fig('tokens_per_s')} ${where}).
      ${fits ? html`Memory holds ${num(o.max_batch) === null ? 'any batch' : html`up to ${this.fig('max_batch')}`} at this context.`
        : num(o.max_batch) === 0 ? html`${this.fitWords(false, '', 'The weights alone do not fit')} on ${chips === 1 ? `one ${own ? 'device' : 'chip'}` : `these ${n} ${own ? 'devices' : 'chips'}`}: they need at least ${this.fig('min_chips')}, so no batch fits.`
        : html`${this.fitWords(false, '', 'This batch does not fit')}: memory holds ${this.fig('max_batch')} of this context.`}</p>
      ${this.expected(r, 'tokens_per_s', 'tokens/s')}
      ${this.runs.note(r, this.engine!)}
      ${this.matmulVerdict(r)}
      ${this.attentionVerdict(r)}
      ${measuredRateLine(this.engine!, r, 'tokens_per_s')}`;
  }

  /** the weight matmuls: their bound, and the batch where it flips */
  private matmulVerdict(r: LabResult<'decode'>) {
    const o = r.outputs;
    const mlp = String(o.mlp_bound);
    const flip = num(o.mlp_flip_batch);
    const above = o.mlp_bound_above_flip == null ? null : String(o.mlp_bound_above_flip);
    const comm = num(o.t_comm_s);
    const maxB = num(o.max_batch);
    const unreachable = flip !== null && maxB !== null && maxB < flip;
    const why = mlp === 'memory'
      ? html`reading the weights (${this.fig('t_weights_s')}) outlasts the FLOPs (${this.fig('t_math_s')})${comm ? html` and the collectives (${this.fig('t_comm_s')})` : nothing}.
        ${flip !== null && above ? html`They turn ${above}-bound past batch <strong class="flip">${this.fig('mlp_flip_batch')}</strong>, the flip marked on the plot${unreachable ? html`, but memory holds only ${this.fig('max_batch')} at this context, so ${this.state.chipFacts?.kind === 'tpu' ? 'this slice' : this.onOwnDevice() ? 'this device' : 'these GPUs'} never gets there` : nothing}.` : nothing}`
      : mlp === 'compute'
        ? html`the FLOPs (${this.fig('t_math_s')}) outlast reading the weights (${this.fig('t_weights_s')}): the batch is past the flip at <strong class="flip">${this.fig('mlp_flip_batch')}</strong>.`
        : html`the model-parallel collectives (${this.fig('t_comm_s')}) outlast reading the weights (${this.fig('t_weights_s')}) and the FLOPs (${this.fig('t_math_s')}): past the flip at <strong class="flip">${this.fig('mlp_flip_batch')}</strong> the comms, not the FLOPs, grow fastest on ${this.state.chipFacts?.kind === 'tpu' ? 'this slice' : 'these GPUs'}.`;
    return html`<p class="verdict-part verdict-${mlp}" data-part="matmuls" data-bound=${mlp}><strong>Weight matmuls: ${mlp}-bound</strong> — ${why}</p>`;
  }

  /** attention: its bound does not move with the batch; the KV reads' share of the step */
  private attentionVerdict(r: LabResult<'decode'>) {
    const o = r.outputs;
    if (num(o.kv_bytes_per_sequence) === 0) {
      return html`<p class="verdict-part" data-part="attention"><strong>Attention:</strong> no KV cache at context 0, so this is the weights-only floor.</p>`;
    }
    const att = o.attention_bound == null ? null : String(o.attention_bound);
    const kvx = num(o.kv_crossover_batch), maxB = num(o.max_batch);
    // a crossover past what memory holds is never reached at this context: say so
    const past = kvx !== null && maxB !== null && kvx > maxB;
    const reads = html`The KV reads take ${this.fig('t_kv_s')} of the step${kvx === null ? nothing : past
      ? html` and would equal the weight reads at batch <strong class="kv-crossover">${this.fig('kv_crossover_batch')}</strong>, past the ${this.fig('max_batch')} that memory holds at this context, so the weight reads stay the larger at any batch that fits`
      : html` and equal the weight reads at batch <strong class="kv-crossover">${this.fig('kv_crossover_batch')}</strong>`}.`;
    if (!att) return html`<p class="verdict-part" data-part="attention"><strong>Attention:</strong> ${reads}</p>`;
    return html`<p class="verdict-part verdict-${att}" data-part="attention" data-bound=${att}><strong>Attention: ${att}-bound at any batch</strong> —
      each sequence reads its own KV cache, so its intensity (${this.fig('attention_intensity')}) does not grow with the batch. ${reads}</p>`;
  }

  protected drawViz(r: LabResult<'decode'>, host: HTMLElement) {
    host.classList.toggle('lab-viz-none', this.cannotLoad(r)); // (no chart: the box keeps no room)
    // the engine's resolved inputs of this result (defaults filled in), batch varied per point
    const base: O = structuredClone(r.inputs);
    delete base.batch;
    const key = JSON.stringify(base);
    if (key !== this.curveKey) { this.curveKey = key; this.curve.clear(); this.charts.clear(); }
    const o = r.outputs;
    const b = num(r.inputs.batch) ?? 1;
    const flip = num(o.mlp_flip_batch);
    const kvx = num(o.kv_crossover_batch);
    const maxB = num(o.max_batch);
    const top = this.findSchema('batch')?.max ?? b;
    // batches to draw: from 1 past the flip and the KV crossover (in powers of two), and past the
    // batch in powers of 16, so that dragging the batch moves the axis seldom
    const landmarks = 2 ** Math.ceil(Math.log2(Math.max(flip ?? 1, Math.min(kvx ?? 1, KV_REACH_CAP)) * 4));
    // (and past the published runs drawn on it)
    const runsReach = Math.max(1, ...this.runs.points(r).map((p) => 2 ** Math.ceil(Math.log2(p.x))));
    // (and past the memory limit the verdict names, so that its line is drawn inside the plot)
    const limitReach = maxB !== null && maxB >= 1 ? 2 ** Math.ceil(Math.log2(maxB * 2)) : 1;
    const reach = Math.min(top, Math.max(landmarks, runsReach, limitReach, 16 ** Math.ceil(Math.log2(b * 4) / 4)));
    const xs: number[] = [];
    for (let x = 1; x <= reach; x *= Math.SQRT2) { const i = Math.round(x); if (xs[xs.length - 1] !== i) xs.push(i); }
    const pts = this.points(base, xs);
    const f = (v: number, u: string) => this.engine!.format(v, u);
    // (a model that cannot load on this device has no step time to draw)
    if (!pts.length || this.cannotLoad(r)) { host.replaceChildren(); return; }
    // one line per term that can bind, on log axes (a flat weight load and a rising FLOP time
    // cross visibly there); a term that is zero everywhere (no comms on one chip) is not drawn
    const terms = TERMS.filter((t) => pts.some((p) => p[t.key] > 0));
    const rows = terms.flatMap((t) => pts.filter((p) => p[t.key] > 0).map((p) => ({ x: p.batch, y: p[t.key], term: t.label })));
    const stepNow = num(o.step_s) ?? 0;
    const width = this.vizWidth();
    const now = (k: string) => f(num(o[k]) ?? 0, 's');
    const description = `Time per decode step against batch, both axes logarithmic. The weight load stays flat at ${now('t_weights_s')}; the FLOP time${num(o.t_comm_s) ? ', the comms' : ''} and the KV-cache load grow with the batch. ` +
      `${flip !== null ? `The weight matmuls flip from memory-bound to ${String(o.mlp_bound_above_flip)}-bound at batch ${f(wholeBatch(flip)!, 'count')}. ` : ''}` +
      `${kvx !== null ? `The KV reads equal the weight reads at batch ${f(kvx, 'count')}. ` : ''}` +
      `At the chosen batch ${f(b, 'count')} the step takes ${f(stepNow, 's')}: weights ${now('t_weights_s')}, KV ${now('t_kv_s')}, FLOPs ${now('t_math_s')}${num(o.t_comm_s) ? `, comms ${now('t_comm_s')}` : ''}; ${String(o.bound)}-bound.${maxB !== null ? ` Memory holds at most ${f(maxB, 'count')} sequences.` : ''}` +
      this.runs.describe(r, this.engine!);
    // a chart of this curve already drawn to this reach: move its marker only (its own scales place it)
    const chartKey = `${reach}|${width}|${this.layerKey(r)}`;
    const drawn = this.charts.get(chartKey);
    if (drawn && moveMarker(drawn, b, stepNow, description)) {
      if (host.firstChild !== drawn || host.childNodes.length !== 1) host.replaceChildren(drawn);
      return;
    }
    const last = xs[xs.length - 1];
    const flipShown = flip !== null && flip >= 1 && flip <= last;
    const chart = Plot.plot({
      ...logLogFrame({ width, description, format: f, yExtent: extent([...rows.map((d) => d.y), stepNow, ...this.runs.points(r).map((p) => p.y)]), ariaLabel: 'Decode step time and its terms against batch size, from the engine',
        xLabel: 'Batch (sequences) →', yLabel: '↑ Time per step', color: { domain: terms.map((t) => t.label), range: terms.map((t) => t.stroke) } }),
      marks: [
        ...timeAxisY(f, '↑ Time per step'),
        ...terms.map((t) => Plot.line(rows.filter((d) => d.term === t.label), { x: 'x', y: 'y', stroke: 'term', strokeWidth: t.key === 'step_s' ? 1.5 : 2.2, strokeDasharray: t.dash ?? undefined, ariaHidden: 'true' })),
        flipShown ? Plot.ruleX([flip], { stroke: 'var(--ok)', strokeDasharray: '4 3', ariaHidden: 'true', className: 'flip-batch' }) : null,
        flipShown ? Plot.text([flip], { x: (d: number) => d, text: () => `matmuls flip at ${f(wholeBatch(flip)!, 'count')}`, ...flipLabelSide(flip, last), fill: 'currentColor', stroke: 'var(--bg)', strokeWidth: 4, paintOrder: 'stroke', ariaHidden: 'true', className: 'flip-label' }) : null,
        // the memory limit: a solid rule, its label running up along it (never across the flip's line)
        maxB !== null && maxB >= 1 && maxB <= last ? Plot.ruleX([maxB], { stroke: 'currentColor', strokeWidth: 2, ariaHidden: 'true', className: 'memory-limit' }) : null,
        // (level at the plot's foot, beside the rule on the side with room: the lines rise away from there)
        maxB !== null && maxB >= 1 && maxB <= last ? Plot.text([maxB], { x: (d: number) => d, frameAnchor: 'bottom', dy: -6, dx: maxB > Math.sqrt(last) ? -6 : 6, textAnchor: maxB > Math.sqrt(last) ? 'end' : 'start', text: () => `memory limit ${f(maxB, 'count')}`, fill: 'currentColor', stroke: 'var(--bg)', strokeWidth: 4, paintOrder: 'stroke', ariaHidden: 'true', className: 'memory-limit' }) : null,
        Plot.ruleX([b], { stroke: 'currentColor', strokeOpacity: 0.5, ariaHidden: 'true', className: 'batch-rule' }),
        ...this.layerMarks(r, width),
        Plot.dot([{ x: b, y: stepNow }], { x: 'x', y: 'y', r: 6, fill: 'currentColor', stroke: 'var(--bg)', strokeWidth: 2, ariaHidden: 'true', className: 'operating-point' }),
      ],
    });
    chart.classList.add('decode-plot');
    host.replaceChildren(this.charts.put(chartKey, chart));
  }
}

defineLab('sl-decode-lab', DecodeLab);

/** the batches the lab names in whole sequences */
const WHOLE_BATCHES: string[] = ['mlp_flip_batch', 'critical_batch', 'kv_crossover_batch'];
/** the whole batch nearest a crossover (null where there is none) */
function wholeBatch(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? Math.max(1, Math.round(v)) : null;
}
/** the flip's label inside the plot's top edge, on the side of its rule with room: to the right
 *  of a flip in the left half of the (log) batch axis, to the left of one in the right half, so it
 *  never reaches the y axis's title above the plot or runs off the right */
function flipLabelSide(flip: number, last: number): { frameAnchor: 'top'; dy: number; dx: number; textAnchor: 'start' | 'end' } {
  const right = Math.log(Math.max(flip, 1)) / Math.log(Math.max(last, 2)) > 0.5;
  return { frameAnchor: 'top', dy: 10, dx: right ? -5 : 5, textAnchor: right ? 'end' : 'start' };
}
