// <sl-serving-lab>: a serving setup (chapter 8). The reader picks the topology (chips per
// replica), a batch and a batch range; the engine's `sweep` returns one point per (chips, batch)
// and the Pareto frontier of step time against tokens/s per chip. The plot shows latency against
// throughput per chip (cost per million tokens in the table), the chosen point highlighted, and
// the smallest topology that holds the model (from the engine's decode calculator).
// This file only chooses which batches and topologies to ask for; every number is the engine's.
import { html, nothing, render, type TemplateResult } from 'lit';
import { DECADES, NARROW_CHART_PX, Plot, SERIES, roundTimeDomain, timeAxisY } from './plot';
import { ONE_DEVICE_KINDS, byChip, chipCount, chipsNoun, defineLab, type LabResult, LabElement, type Control, type ControlSpec, type OutputSpec } from './lab-element';
import { MODEL_PICKER } from './model-picker';
import { counted } from './words';

/** The topologies' colours: a categorical set without the fits / does-not-fit / highlight
 *  colours (green, red, orange), readable on both themes. */
const TOPOLOGY_COLOURS = [...SERIES.others];
import { MEASURED_CONTROL, MEASURED_TTFT_CONTROL, measuredRateLine, measuredTtftLine } from './measured';
import { PublishedRunsLayer } from './published-layer';
import { isError, type Result } from '../engine';
import { loads, whatFits, type FitChoice } from './own-fit';

type O = Record<string, unknown>;
interface SPoint { batch: number; chips: number; step_s: number; latency_s: number; time_to_first_token_s: number; throughput_tokens_per_s: number; tokens_per_s_per_chip: number; qps_per_chip: number; cost_per_million_tokens_usd: number | null; bound: string; fits: boolean; pareto?: boolean; chosen?: boolean }

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const FROM = 'sweep.batch.0', TO = 'sweep.batch.1';
/** the largest batch the sweep reaches when the reader gives none */
const BATCH_TO = 1024;

export class ServingLab extends LabElement<'serving'> {
  readonly controls: ControlSpec[] = [
    { path: 'batch', label: 'batch to highlight', main: true, start: byChip({ device: 4, tpu: 32, gpu: 32 }) },
    { ...MODEL_PICKER, start: byChip({ device: 'llama3-8b', tpu: 'llama3-70b', gpu: 'llama3-70b' }) },
    // (a TPU opens on 64 chips: the sweep's topologies reach ×4, and on a TPU the engine gives a
    // bigger slice the same tokens per chip sooner, so a point of 16 chips opened off the frontier)
    { path: 'chips', label: (c) => `topology: ${chipsNoun(c)} per model replica`, start: chipCount(64) },
    { path: FROM, key: 'batch_from', label: 'batch range: smallest batch swept' },
    { path: TO, key: 'batch_to', label: 'batch range: largest batch swept' },
    { path: 'prompt_tokens' },
    { path: 'decode_tokens' },
    { path: 'weight_dtype' },
    { path: 'kv_dtype' },
    // (the label names its unit, so no "(US dollars)" follows it; an own device has no catalog price)
    { path: 'price_per_hour_usd', label: (c) => (c && ONE_DEVICE_KINDS.includes(c.kind) ? 'price per device-hour in US dollars; empty: no price, so no cost' : `price per ${c?.kind === 'datacenter-gpu' ? 'GPU' : 'chip'}-hour in US dollars; empty: the catalog’s price`) },
    { path: 'disaggregated', label: 'prefill on separate servers' },
    MEASURED_CONTROL,
    MEASURED_TTFT_CONTROL,
  ];
  readonly hint = 'Try this: drag the highlighted batch up and watch the cost per token fall while each response takes longer.';
  /** a device with no price shows no cost: the hint watches its tokens per second instead */
  protected hintText() {
    const o = this.result?.outputs as Record<string, unknown> | undefined;
    if (this.result && this.cannotLoad(this.result)) return 'Try this: take one of the settings that load, above, then drag the highlighted batch up and watch each response take longer.';
    return o && typeof o.cost_per_million_tokens_usd !== 'number'
      ? `Try this: drag the highlighted batch up and watch the tokens per second per ${this.noun()} rise while each response takes longer.` : this.hint;
  }
  /** a model that cannot load on the reader's own device has no speed, latency or cost: those rows are left out */
  private readonly noSpeed = (r: LabResult<'serving'>) => this.cannotLoad(r);
  readonly outputs: OutputSpec<'serving'>[] = [
    // (the response rate's "responses/min" held whole takes a row of its own: in a quarter-width
    // cell it ran into the next cell's label)
    ...(['step_s', 'latency_s', 'time_to_first_token_s', 'throughput_tokens_per_s', 'tokens_per_s_per_chip', 'qps_per_chip', 'cost_per_million_tokens_usd'] as const)
      .map((name) => ({ name, hide: this.noSpeed, wide: name === 'qps_per_chip' })),
    'total_chips', 'max_batch',
  ];
  /** On the reader's own device, a model that holds no sequence cannot load: no speed, and what would load instead. */
  protected cannotLoad(r: LabResult<'serving'>): boolean { return this.onOwnDevice() && !loads(r.outputs); }
  private fitsKey = '';
  private fits: FitChoice[] = [];
  private noLoadVerdict(r: LabResult<'serving'>) {
    const params = this.params();
    const key = JSON.stringify(params);
    if (key !== this.fitsKey) {
      this.fitsKey = key;
      this.fits = whatFits(this.engine!, 'serving', params, this.state.chipFacts?.weightFormats, (id) => this.choiceText('weight_dtype', id));
    }
    const model = typeof r.inputs.model === 'string' ? this.engine!.modelName(r.inputs.model) || r.inputs.model : 'This model';
    const m = this.minTopology, chip = this.state.chipFacts, b = (v: number) => this.engine!.format(v, 'bytes');
    const holds = m.holds_bytes == null ? '' : chip?.gpuShare && chip.gpuShare < 1 ? `the GPU of this ${chip.name} may use ${b(m.holds_bytes)} of its ${this.memoryName()}`
      : `this ${chip?.name ?? 'device'}’s ${this.memoryName()} holds ${b(m.holds_bytes)}`;
    const need = m.weight_bytes == null || m.holds_bytes == null ? html`holds no sequence in this ${chip?.name ?? 'device'}’s memory at this request’s length.`
      : m.weight_bytes > m.holds_bytes ? html`needs ${b(m.weight_bytes)} for its weights, and ${holds}.`
      : html`needs ${b(m.weight_bytes)} for its weights, and ${holds}: no room is left for one sequence’s KV cache at this request’s length.`;
    return html`<p class="verdict" data-part="cannot-load">${this.fitWords(false, '', 'It cannot load')}: ${model} in ${this.choiceText('weight_dtype', r.inputs.weight_dtype)} ${need}
      So it does not run on this device, and there is no speed, latency or cost to give.
      ${this.fits.length ? html`These would load: ${this.fits.map((c, i) => html`${i ? (i === this.fits.length - 1 ? ' or ' : ', ') : ''}<button type="button" class="lab-button" data-fit=${JSON.stringify(c.set)} @click=${() => this.useSetting(c.set)}>${c.words}</button>`)}.`
        : html`No weight format this device runs and no catalog model fits it at this length.`}</p>`;
  }
  private useSetting(set: Record<string, unknown>) {
    for (const [k, v] of Object.entries(set)) { const c = this.control(k); if (c) this.setValue(c, v); }
    this.schedule();
  }
  protected readonly hasViz = true;
  private minTopology: { min_chips: number | null; min_chips_for_batch: number | null; min_slice_chips: number | null; weight_bytes?: number | null; holds_bytes?: number | null; error: string | null } = { min_chips: null, min_chips_for_batch: null, min_slice_chips: null, error: null };
  private chart: ReturnType<typeof Plot.plot> | null = null;
  /** what the layers showed when the chart was drawn (a change draws it again) */
  private chartLayers = '';
  /** published serving runs of the reader's model, chip, formats and request shape, at their measured
   *  tokens/s per chip and the time their batch took (batch × output tokens / tokens per second: the
   *  latency of each response in a static batch, where all of them finish together) */
  private readonly runs = new PublishedRunsLayer({ redrawCharts: () => this.redrawCharts(), engine: () => this.engine }, {
    calculator: 'serving', same: ['chip', 'model', 'prompt_tokens', 'decode_tokens', 'weight_dtype', 'kv_dtype'], near: ['chip', 'model'], settings: ['chips', 'batch'],
    place: (m, input) => {
      const rate = m.measured.value, chips = Number(input('chips')), batch = Number(input('batch')), out = Number(input('decode_tokens'));
      return m.measured.output === 'throughput_tokens_per_s' && rate > 0 ? { x: rate / chips, y: (batch * out) / rate } : null;
    },
    placeWords: (at, e) => `${e.format(at.x, 'tokens/s')} per chip, ${e.format(at.y, 's')} a response`,
  });
  readonly layers = [this.runs];

  /** The batch-range controls take their bounds from the schema of one swept batch size: the
   *  default range is that schema's whole range. */
  protected adjustControl(c: Control): Control {
    if (c.path === FROM) c.schema = { ...c.schema, default: c.schema.min ?? null };
    // (the sweep reaches a batch of 1,024 sequences by default, past what fits in most setups; the
    // schema's million is reachable by typing it)
    if (c.path === TO) c.schema = { ...c.schema, default: Math.min(c.schema.max ?? BATCH_TO, BATCH_TO) };
    return c;
  }

  /** The topologies swept: the chosen one and its neighbours by factors of two (presentation). */
  private topologies(chips: number): number[] {
    // the reader's own device: the one setup chosen (no node or pod of them to compare)
    if (this.onOwnDevice()) return [chips];
    const top = this.findSchema('chips')?.max ?? chips;
    return [chips / 4, chips / 2, chips, chips * 2, chips * 4].filter((c) => Number.isInteger(c) && c >= 1 && c <= top);
  }

  /** The main evaluation is the chosen configuration alone (the range controls are not sent). */
  protected adjustParams(p: Record<string, unknown>) {
    delete p.sweep;
  }

  /** The sweep asked of the engine: range ends first (so the engine's message for a bad end lands
   *  on its field), then the powers of two between them; topologies ×¼ … ×4 of the chosen one. */
  private sweepParams(): Record<string, unknown> {
    const p = this.params();
    delete p.batch;
    const lo = this.values.get(FROM), hi = this.values.get(TO), chips = this.values.get('chips');
    const batches: unknown[] = [lo, hi];
    const room = this.bound('sweep.batch', 'max_items') - 2;
    if (typeof lo === 'number' && typeof hi === 'number' && lo >= 1) {
      const [a, b] = lo <= hi ? [lo, hi] : [hi, lo];
      const between: number[] = [];
      for (let x = 1; x <= b && between.length <= room; x *= 2) if (x > a && x < b) between.push(x);
      // more than the sweep may hold (an end out of range): send the ends alone, the engine names the bad one
      if (between.length <= room) batches.push(...between);
    }
    const chipList = typeof chips === 'number' ? this.topologies(chips) : [];
    p.sweep = chipList.length ? { batch: batches, chips: chipList } : { batch: batches };
    return p;
  }

  private sweepKey = '';
  private sweep: { points: SPoint[]; error: [string, string] | null } = { points: [], error: null };
  private minKey = '';

  protected evaluateNow() {
    super.evaluateNow();
    if (!this.engine || !this.result) return;
    // the sweep does not depend on the highlighted batch: evaluated when anything else changes
    const q = this.sweepParams();
    const key = JSON.stringify(q);
    if (key !== this.sweepKey) {
      this.sweepKey = key;
      const r = this.engine.evaluate('serving', q, { steps: false });
      if (isError(r)) {
        const param = (r.error.param ?? '').replace(/\[(\d+)\]/g, '.$1');
        this.sweep = { points: [], error: [param === FROM || param === TO ? param : '', r.error.message] };
      } else {
        const par = new Set((Array.isArray(r.outputs.pareto) ? r.outputs.pareto : []) as number[]);
        const pts = (Array.isArray(r.outputs.points) ? r.outputs.points : []) as SPoint[];
        this.sweep = { points: pts.map((pt, i) => ({ ...pt, pareto: par.has(i) })), error: null };
      }
      this.chart = null;
    }
    if (this.sweep.error && !this.errors.size) this.errors.set(this.sweep.error[0], this.sweep.error[1]);
    // the smallest topology whose HBM holds the weights, from the decode calculator
    const inp = this.result.inputs;
    const d: O = {};
    for (const k of ['model', 'chip', 'chip_overrides', 'model_overrides', 'weight_dtype', 'kv_dtype', 'compute_dtype', 'batch']) if (inp[k] !== undefined) d[k] = inp[k];
    // the cache of this batch at this request's length (prompt and output)
    if (typeof inp.prompt_tokens === 'number' && typeof inp.decode_tokens === 'number') d.context = inp.prompt_tokens + inp.decode_tokens;
    const dk = JSON.stringify(d);
    if (dk !== this.minKey) {
      this.minKey = dk;
      const r = this.engine.evaluate('decode', d, { steps: false });
      this.minTopology = isError(r) ? { min_chips: null, min_chips_for_batch: null, min_slice_chips: null, error: r.error.message }
        : { min_chips: num(r.outputs.min_chips), min_chips_for_batch: num(r.outputs.min_chips_for_batch), min_slice_chips: num(r.outputs.min_slice_chips),
          weight_bytes: num(r.outputs.weight_bytes), holds_bytes: num(r.outputs.slice_hbm_bytes), error: null };
    }
  }

  /** the swept points, the chosen configuration marked (it is in the sweep when its batch is) */
  private points(r: LabResult<'serving'>): SPoint[] {
    const b = r.inputs.batch, c = r.inputs.chips;
    return this.sweep.points.map((p) => ({ ...p, chosen: p.batch === b && p.chips === c }));
  }

  /** "chip" on a datacenter part, "device" on the reader's own */
  private noun(): string { return this.onOwnDevice() ? 'device' : this.state.chipFacts?.kind === 'tpu' || !this.state.chipFacts ? 'chip' : 'GPU'; }
  private chipsWord(c: number): string { return counted(c, this.noun(), (v) => this.engine!.format(v, 'count')); }

  /** Why the smallest slice can hold more chips than the weights need: the batch's KV cache, and
   *  a slice's size being a power of two (the engine's min_chips, min_chips_for_batch, min_slice_chips). */
  private topologyWords(r: LabResult<'serving'>): TemplateResult | typeof nothing {
    const m = this.minTopology;
    const n = (v: number) => this.engine!.format(v, 'count');
    if (m.error) return html`<span class="lb-msg">${this.words(m.error)}</span>`;
    if (m.min_chips === null) return nothing;
    const worth = (k: number) => (k === 1 ? `${n(1)} ${this.noun()}’s` : `${n(k)} ${this.noun()}s’`);
    const batch = m.min_chips_for_batch !== null && m.min_chips_for_batch > m.min_chips ? m.min_chips_for_batch : null;
    const slice = !this.onOwnDevice() && m.min_slice_chips !== null && m.min_slice_chips > (batch ?? m.min_chips) ? m.min_slice_chips : null;
    return html`The weights need ${worth(m.min_chips)} worth of ${this.memoryName()}${batch !== null ? html`; with the KV cache of a batch of ${n(Number(r.inputs.batch))} at ${n(Number(r.inputs.prompt_tokens) + Number(r.inputs.decode_tokens))} tokens, ${worth(batch)}` : nothing}${slice !== null
      ? this.state.chipFacts?.kind === 'tpu'
        ? html`; a slice has a power of two chips, so the smallest that holds ${batch !== null ? 'both' : 'them'} has ${counted(slice, 'chip', n)}`
        : html`; the sweep takes GPUs in powers of two, so the fewest that hold ${batch !== null ? 'both' : 'them'} are ${counted(slice, 'GPU', n)}` : nothing}.`;
  }

  /** the swept points' table, after the verdict (drawViz fills it) */
  protected renderAfterVerdict() { return html`<div class="sv-table-slot"></div>`; }

  protected renderVerdict(r: LabResult<'serving'>) {
    if (this.cannotLoad(r)) return this.noLoadVerdict(r);
    const o = r.outputs;
    const chosen = this.points(r).find((p) => p.chosen);
    const n = (v: number) => this.engine!.format(v, 'count');
    // the headline in the text's colour: colour says fits / does not fit, as in every lab
    return html`<p class="verdict"><strong>${this.chipsWord(Number(r.inputs.chips))}, batch ${n(Number(r.inputs.batch))}</strong>:
      each response takes ${this.fig('latency_s')} (first token after ${this.fig('time_to_first_token_s')}), ${this.fig('tokens_per_s_per_chip')} per ${this.noun()},
      ${num(o.cost_per_million_tokens_usd) !== null ? html`${this.fig('cost_per_million_tokens_usd')} per million tokens` : html`cost unknown (this ${this.noun()} has no price: type one)`}.
      ${o.fits === false ? html`${this.fitWords(false, '', 'It does not fit in memory')} (at most ${this.fig('max_batch')}).` : chosen ? (chosen.pareto ? html`It is on the Pareto frontier.` : html`It is <em>not</em> on the Pareto frontier: another point is both faster and gives more tokens per second per ${this.noun()}.`) : nothing}
      ${this.topologyWords(r)}</p>
      ${measuredRateLine(this.engine!, r, 'throughput_tokens_per_s')}
      ${measuredTtftLine(this.engine!, r, 'time_to_first_token_s')}
      ${this.expected(r, 'throughput_tokens_per_s', 'tokens/s', 'the server’s throughput bound')}
      ${this.runs.note(r, this.engine!)}`;
  }

  protected drawViz(r: LabResult<'serving'>, host: HTMLElement) {
    host.classList.toggle('lab-viz-none', this.cannotLoad(r)); // (no chart: the box keeps no room)
    const pts = this.points(r);
    const f = (v: unknown, u: string) => this.engine!.format(v, u);
    const fit = pts.filter((p) => p.fits && p.latency_s > 0 && p.tokens_per_s_per_chip > 0);
    const o = r.outputs;
    const chosen = { batch: r.inputs.batch as number, chips: r.inputs.chips as number, latency_s: num(o.latency_s) ?? 0, tokens_per_s_per_chip: num(o.tokens_per_s_per_chip) ?? 0, cost_per_million_tokens_usd: num(o.cost_per_million_tokens_usd), fits: o.fits !== false, pareto: pts.find((p) => p.chosen)?.pareto ?? false };
    const frontier = fit.filter((p) => p.pareto).sort((a, b) => a.step_s - b.step_s);
    const width = this.vizWidth();
    const rows = [...pts].sort((a, b) => a.chips - b.chips || a.batch - b.batch);
    // the table is written once per sweep; moving the highlighted batch re-marks its row only
    const table = () => html`<details class="lb-points"><summary>Every swept configuration (${pts.length}) as a table</summary><div class="lb-scroll"><table class="lb-table serving-points">
      <caption>★ on the Pareto frontier; bold: the chosen configuration</caption>
      <thead><tr><th scope="col">${this.noun()}s</th><th scope="col">batch</th><th scope="col">latency</th><th scope="col">tokens/s per ${this.noun()}</th><th scope="col">cost / M tokens</th><th scope="col">bound</th><th scope="col">fits</th></tr></thead>
      <tbody>${rows.map((p) => html`<tr class=${p.chosen ? 'chosen' : ''} data-point=${`${p.chips}x${p.batch}`}><td>${p.chips}</td><td>${p.batch}${p.pareto ? ' ★' : ''}</td><td>${f(p.latency_s, 's')}</td><td>${f(p.tokens_per_s_per_chip, 'tokens/s')}</td><td>${f(p.cost_per_million_tokens_usd, 'usd')}</td><td>${p.bound}</td><td>${p.fits ? 'yes' : 'no'}</td></tr>`)}</tbody></table></div></details>`;
    const markChosen = (box: HTMLElement) => {
      const want = `${chosen.chips}x${chosen.batch}`;
      box.querySelectorAll<HTMLElement>('tr.chosen').forEach((tr) => { if (tr.dataset.point !== want) tr.classList.remove('chosen'); });
      box.querySelector<HTMLElement>(`tr[data-point="${want}"]`)?.classList.add('chosen');
    };
    const description = `${fit.length} configurations that fit in memory, over ${new Set(pts.map((p) => p.chips)).size} topologies. The Pareto frontier (lower step time, more tokens per chip) has ${frontier.length} points${frontier.length ? `, from ${f(frontier[0].tokens_per_s_per_chip, 'tokens/s')} per chip at ${f(frontier[0].latency_s, 's')} to ${f(frontier[frontier.length - 1].tokens_per_s_per_chip, 'tokens/s')} per chip at ${f(frontier[frontier.length - 1].latency_s, 's')}` : ''}. The chosen point, ${this.chipsWord(chosen.chips)} at batch ${chosen.batch}: ${f(chosen.latency_s, 's')} per response, ${f(chosen.tokens_per_s_per_chip, 'tokens/s')} per chip, ${f(chosen.cost_per_million_tokens_usd, 'usd')} per million tokens${chosen.fits ? '' : ' (does not fit)'}. The table below lists every point.${this.runs.describe(r, this.engine!)}`;
    // same sweep as the last drawing: move the highlight ring and re-mark the table row only
    // (a chosen point that does not fit, or has no time, is not drawn: the ring is hidden)
    const shown = chosen.fits && chosen.latency_s > 0 && chosen.tokens_per_s_per_chip > 0;
    const ring = this.chart?.querySelector('.operating-point circle');
    const layers = this.layerKey(r);
    if (this.chart && host.contains(this.chart) && ring && layers === this.chartLayers) {
      if (shown) {
        ring.setAttribute('cx', String(this.chart.scale('x')!.apply(chosen.tokens_per_s_per_chip)));
        ring.setAttribute('cy', String(this.chart.scale('y')!.apply(chosen.latency_s)));
        ring.removeAttribute('visibility');
      } else ring.setAttribute('visibility', 'hidden');
      this.chart.querySelector('[aria-description]')?.setAttribute('aria-description', description);
      const box = this.querySelector<HTMLElement>('.lb-table-box');
      if (box) markChosen(box);
      return;
    }
    host.replaceChildren();
    this.querySelector<HTMLElement>('.sv-table-slot')?.replaceChildren();
    this.chart = null;
    this.chartLayers = layers;
    if (this.cannotLoad(r)) return; // (a model that cannot load: no point to draw, the verdict says what would load)
    if (fit.length) {
      // on a phone: the legend's topologies as bare counts under one title (one row), y labels in
      // a narrower margin, a smaller ring (the neighbouring topologies' points stay visible)
      const narrow = width < NARROW_CHART_PX;
      const key = (c: number) => (narrow ? this.engine!.format(c, 'count') : this.chipsWord(c));
      // (the published runs drawn on it inside the axis too)
      const lat = [...fit.map((p) => p.latency_s), ...this.runs.points(r).map((p) => p.y).filter((y) => y > 0)];
      const chart = Plot.plot({
        width,
        // (short enough that the batch slider above and the plot's x axis share a phone's screen)
        height: Math.round(Math.max(190, Math.min(320, width * 0.55))),
        marginLeft: narrow ? 50 : 70,
        marginBottom: 42,
        // (room above the plot for the y axis's title, clear of its top tick's label)
        marginTop: 28,
        ariaLabel: 'Serving Pareto plot: latency per response against tokens per second per chip, from the engine sweep',
        ariaDescription: description,
        style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
        // whole decades, or 1-2-5 within a narrow range (one device's few points): labels apart
        x: { type: 'log', label: `Tokens/s per ${this.noun()} →`, tickFormat: (d: number) => f(d, 'count'), ticks: DECADES },
        // (ends at round times: the top point under a labelled tick)
        y: { type: 'log', axis: null, domain: roundTimeDomain(Math.min(...lat, shown ? chosen.latency_s : Infinity), Math.max(...lat, shown ? chosen.latency_s : 0), f) },
        // the legend lists the topologies drawn (those with a point that fits), in a categorical scheme readable on both themes
        color: { legend: true, type: 'ordinal', range: TOPOLOGY_COLOURS, domain: [...new Set(fit.map((p) => p.chips))].sort((a, b) => a - b).map(key) },
        marks: [
          ...timeAxisY(f, '↑ Latency per response'),
          Plot.line(frontier, { x: 'tokens_per_s_per_chip', y: 'latency_s', stroke: 'currentColor', strokeOpacity: 0.6, strokeWidth: 1.5, ariaHidden: 'true' }),
          // the line named where it starts (its fastest point): the filled points on it are the frontier
          Plot.dot(fit.filter((d) => !d.pareto), { x: 'tokens_per_s_per_chip', y: 'latency_s', stroke: (d: SPoint) => key(d.chips), fill: 'var(--bg)', r: 4, ariaHidden: 'true' }),
          Plot.dot(frontier, { x: 'tokens_per_s_per_chip', y: 'latency_s', fill: (d: SPoint) => key(d.chips), r: 4.5, ariaHidden: 'true', className: 'pareto-point' }),
          // the chosen point (from the main evaluation): a ring, moved in place while the sweep is unchanged
          // (drawn at the first point and hidden when the chosen one is not shown, so it can move in later)
          Plot.dot([shown ? chosen : fit[0]], { x: 'tokens_per_s_per_chip', y: 'latency_s', r: narrow ? 7 : 9, stroke: 'currentColor', strokeWidth: narrow ? 2 : 2.5, fill: 'none', ariaHidden: 'true', className: 'operating-point' }),
          ...this.layerMarks(r, width),
        ],
      });
      if (!shown) chart.querySelector('.operating-point circle')?.setAttribute('visibility', 'hidden');
      // the bare counts' title, first in the legend's row
      const swatches = narrow ? chart.querySelector('[class$="-swatches"], [class*="-swatches "]') : null;
      if (swatches) { const t = document.createElement('span'); t.className = 'legend-title'; t.textContent = `${this.noun()}s:`; swatches.prepend(t); }
      // what the filled points and their line are: said in the legend's row, not drawn over the data
      const row = chart.querySelector('[class$="-swatches"], [class*="-swatches "]');
      if (row && frontier.length > 1) { const t = document.createElement('span'); t.className = 'legend-note frontier-label'; t.textContent = '(filled, joined by the line: the Pareto frontier)'; row.append(t); }
      chart.classList.add('serving-plot');
      host.append(chart);
      this.chart = chart;
    } else {
      const p = document.createElement('p');
      p.className = 'lb-msg';
      p.textContent = 'No swept configuration fits in memory: add chips or shrink the batch.';
      host.append(p);
    }
    const box = document.createElement('div');
    box.className = 'lb-table-box';
    // (after the verdict: on a phone the verdict follows the chart at once)
    (this.querySelector<HTMLElement>('.sv-table-slot') ?? host).append(box);
    render(table(), box); // the table is the plot's full text alternative
  }
}

defineLab('sl-serving-lab', ServingLab);
