// <sl-training-pod-lab>: a whole training run (chapter 6). LLaMA-3 70B on 15T tokens by default
// (the engine's defaults); the reader picks the chip, chip count, MFU and price and sees the
// FLOPs, days, dollars, the smallest slice by memory, and the engine's layout search: the ranked
// layouts and, for a sample of rejected ones, the reason each fails. Every number is the engine's.
import { html, nothing } from 'lit';
import { ONE_DEVICE_KINDS, byChip, chipsNoun, emptyChips, defineLab, type StartFn, type LabResult, LabElement, type Control, type ControlSpec, type OutputSpec } from './lab-element';
import { MODEL_PICKER } from './model-picker';
import { layoutWords } from './words';
import { ChartCache, DECADES, Plot, moveMarker, powerOfTwoTicks, reachOf, showIn, type Chart } from './plot';
import { PublishedRunsLayer } from './published-layer';
import { isError, type CalculatorSchema, type Outcome, type Result } from '../engine';
import { measuredLine } from './measured';

type O = Record<string, unknown>;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The chips a run opens on: one device for the reader's own; a pod where it holds LLaMA-3 70B's
 *  training state (TPU pods from 1,024 chips, a GPU SuperPod), else 1,024 chips (several pods over
 *  the data-centre network, or GPUs without a pod in the catalog): the lab opens on a layout that fits. */
// (a pod's size as a figure, not an empty field: the slider the Try-this asks to drag shows it)
const podOrEnough: StartFn = (c) => (ONE_DEVICE_KINDS.includes(c.kind) ? 1 : c.podChips && c.podChips >= 1024 ? c.podChips : 1024);
podOrEnough.why = (c) => (ONE_DEVICE_KINDS.includes(c.kind) ? `The ${c.name} is one device: the lab starts on a small model it can train.`
  : c.podChips && c.podChips >= 1024 ? null
  : c.podChips ? `A ${c.name} pod (${c.podChips} chips) cannot hold this run's training state, so the lab starts on 1,024 chips, pods joined over the data-centre network.`
  : `The catalog gives the ${c.name} no pod size, so the lab starts on 1,024 GPUs.`);

/** What bounds a layout's step, in words (the engine's names for it: compute, data_parallel_comms,
 *  tp_comms, pp_comms, pipeline_bubble). */
const BOUND_WORDS: Record<string, string> = { compute: 'compute', data_parallel_comms: 'data-parallel communication', tp_comms: 'tensor-parallel communication', pp_comms: 'pipeline sends', pipeline_bubble: 'the pipeline bubble' };
const boundWords = (b: unknown) => BOUND_WORDS[String(b)] ?? String(b).replace(/_/g, ' ');
/** What each ZeRO stage shards across the data-parallel replicas (the engine's zero_stage). */
const ZERO_STAGES: Record<string, string> = { 0: '0: each replica holds the whole state', 1: '1: optimizer state sharded', 2: '2: gradients sharded too', 3: '3: weights sharded too (FSDP)' };
/** The days axis's ticks (values in days): round in the unit the engine writes them in — hours
 *  under two days, minutes under two hours, as DECADES of that unit — so a narrow axis reads
 *  "30 min, 1 h, 2 h", not "28.8 min, 43.2 min"; however wide the axis (as decades of days, a wide
 *  one read "14.4 min, 28.8 min, 1.2 h"). */
const unitOf = (days: number) => (days >= 1 ? 1 : days >= 1 / 24 ? 1 / 24 : 1 / 1440);
const DAY_DECADES = {
  floor: (x: number) => x,
  offset: (x: number) => x,
  range(lo: number, hi: number): number[] {
    const [a, b] = [Math.min(lo, hi), Math.max(lo, hi)];
    // each stretch of the axis in its own unit: minutes below an hour, hours below a day, days
    const ticks: number[] = [];
    for (const [from, to, u] of [[a, Math.min(b, 1 / 24), 1 / 1440], [Math.max(a, 1 / 24), Math.min(b, 1), 1 / 24], [Math.max(a, 1), b, 1]]) {
      if (to > from * (1 + 1e-9)) ticks.push(...DECADES.range(from / u, to / u).map((v) => v * u));
    }
    // where two stretches meet, a tick a hair from the next unit's first goes ("20 h" under "1 day")
    const sorted = [...new Set(ticks.map((t) => Number(t.toPrecision(9))))].sort((x, y) => x - y)
      .filter((t, i, all) => i === all.length - 1 || all[i + 1] > t * 1.3);
    return sorted.length > 8 ? sorted.filter((_, i) => i % 2 === 0) : sorted;
  },
};
/** The days axis's ends: every point drawn, out to the 1-2-5 values around them, which are its
 *  first and last ticks (no point above the top tick with nothing labelled above it). */
function dayDomain(days: number[]): [number, number] {
  const ds = days.filter((d) => d > 0 && Number.isFinite(d));
  // each end in the unit its tick is read in (hours below a day, minutes below an hour)
  const top = Math.max(...ds), bottom = Math.min(...ds), ut = unitOf(top), ub = unitOf(bottom);
  const lo = bottom / ub, e = 10 ** Math.floor(Math.log10(lo) + 1e-9);
  return [([5, 2, 1].map((m) => m * e).find((v) => v <= lo * (1 + 1e-9)) ?? e) * ub, reachOf(top / ut) * ut];
}
/** one chip count of the chart: days at the reader's MFU, and the range published runs reach */
interface DPt { chips: number; days: number; low: number | null; high: number | null }

/** What the engine's schema says of training_run's layout search (`layout_search` marks): the
 *  parameters it does not read, which set the run's time, cost and range only (the tokens, the MFU
 *  or a measured rate, the price; and the run's own ep, which the search tries itself), and the
 *  outputs it makes (its ranked and refused layouts, their counts, the named layout's check). A
 *  ctest moves each unmarked parameter and finds the marked outputs unchanged
 *  (TrainingRun.LayoutSearchMarksAreWhatTheSearchReadsAndMakes). */
interface SearchFacts { runOnly: Set<string>; outputs: string[] }
function searchFacts(schema: CalculatorSchema): SearchFacts {
  return {
    runOnly: new Set(schema.params.filter((p) => !p.layout_search).map((p) => p.name)),
    outputs: schema.outputs.filter((o) => o.layout_search).map((o) => o.name),
  };
}
/** A layout search's part of a result: its outputs, the warnings it added (after every other) and
 *  the search input as echoed; `key`, the parameters it read. */
interface KeptSearch { key: string; outputs: Record<string, unknown>; warnings: string[]; search: unknown }
/** the parameters the search reads (any the schema does not list counts as read) */
const searchKey = (facts: SearchFacts, params: Record<string, unknown>) => JSON.stringify(Object.entries(params).filter(([k]) => !facts.runOnly.has(k)));
/** The result without the search (`search: false`) given a kept search's part: what the engine
 *  answers with the search, when the search read the same parameters. */
function withSearch(facts: SearchFacts, bare: Result, kept: KeptSearch): Result {
  const outputs = { ...bare.outputs };
  for (const k of facts.outputs) outputs[k] = kept.outputs[k];
  return { ...bare, inputs: { ...bare.inputs, search: kept.search }, outputs, warnings: [...bare.warnings, ...kept.warnings] };
}

export class TrainingPodLab extends LabElement<'training_run'> {
  readonly controls: ControlSpec[] = [
    { path: 'chips', label: (c) => `${chipsNoun(c)} (empty: ${emptyChips(c)})`, main: (c) => !ONE_DEVICE_KINDS.includes(c.kind), start: podOrEnough },
    { ...MODEL_PICKER, start: byChip({ device: 'gpt2-124m', tpu: 'llama3-70b', gpu: 'llama3-70b' }) },
    { path: 'mfu', label: 'model FLOPs utilisation' },
    { path: 'price_per_hour_usd', label: (c) => (c && ONE_DEVICE_KINDS.includes(c.kind) ? 'price per device-hour, empty for none (a device of your own)' : `price per ${chipsNoun(c).replace(/s$/, '')}-hour, empty for the catalog’s price`) },
    { path: 'tokens', label: 'training tokens', main: (c) => ONE_DEVICE_KINDS.includes(c.kind), start: byChip({ device: 2.5e9, tpu: 1.5e13, gpu: 1.5e13 }) },
    { path: 'batch_tokens', label: 'global batch (tokens)', start: byChip({ device: 16384, tpu: 4194304, gpu: 4194304 }) },
    { path: 'compute_dtype' },
    // the settings of a step the layout search tries: "any" leaves each to it, a value narrows it
    { path: 'micro_batch', label: 'sequences per micro-batch' },
    { path: 'zero_stage', label: 'ZeRO stage over the data-parallel replicas', choiceLabels: ZERO_STAGES },
    { path: 'schedule', label: 'pipeline schedule (with pipeline stages)' },
    { path: 'virtual_stages', label: 'interleaved: model chunks per device', onlyWith: { schedule: 'interleaved' } },
    { path: 'checkpointing', label: 'rematerialisation policy', start: 'block' },
    { path: 'accounting' },
    { path: 'optimizer_offload' },
    // one parenthesis: the unit's, which the control adds
    { path: 'measured_tokens_per_s', label: (c) => (c && ONE_DEVICE_KINDS.includes(c.kind) ? 'I measured: training tokens per second of your run; the MFU follows from it' : `I measured: training tokens per second of your run, all ${chipsNoun(c)} together; the MFU follows from it`) },
  ];
  readonly hint = 'Try this: halve the chips and watch the days double while the fastest layout changes; then lower the MFU.';
  protected hintText() {
    return this.onOwnDevice() ? 'Try this: raise the training tokens and watch the time grow; then pick a larger model until the training state no longer fits in memory.' : this.ownWords(this.hint);
  }
  protected readonly hasViz = true;
  /** published whole runs of this model on this chip and token count, at their chips and the days
   *  their chip-hours come to (chip-hours / chips / 24: as if every chip ran the whole time) */
  private readonly runs = new PublishedRunsLayer({ redrawCharts: () => this.redrawCharts(), engine: () => this.engine }, {
    calculator: 'training_run', same: ['chip', 'model', 'tokens'], near: ['chip', 'model'], settings: ['chips'],
    place: (m, input) => {
      const chips = Number(input('chips'));
      return m.measured.output === 'chip_hours' && chips > 0 ? { x: chips, y: m.measured.value / chips / 24 } : null;
    },
    placeWords: (at, e) => `${e.format(at.y, 'days')} on them`,
    chipsWord: () => chipsNoun(this.state.chipFacts),
  });
  readonly layers = [this.runs];
  private curveKey = '';
  private curve: DPt[] = [];
  /** the last layout search, kept while only the run's time and cost change (evaluateNumbers) */
  private search: KeptSearch | null = null;
  /** what the schema says the search reads and makes, read once */
  private facts: SearchFacts | null = null;
  /** days charts drawn, by their frame: an input that keeps the frame moves the line and the dot */
  private readonly charts = new ChartCache(8);

  readonly outputs: OutputSpec<'training_run'>[] = ((lab: TrainingPodLab) => [
    // the unit says chip-hours (device-hours, GPU-hours): the label does not say it again
    'total_flops', 'achieved_flops_per_s', 'days', { name: 'chip_hours', label: 'Compute time, summed over the run' }, 'cost_usd', 'min_chips_memory',
    // the engine's bytes per chip are the run's own layout (FSDP over every chip) with the whole
    // batch in one pass; each searched layout below holds its own (its micro-batches, its degrees):
    // two figures, two meanings, each said
    { name: 'bytes_per_chip', get label() { return lab.onOwnDevice() ? 'Bytes on the device, the whole batch in one pass' : `Bytes per ${lab.chipWord()}, the state spread evenly and the whole batch in one pass`; } },
    'days_at_min_chips', 'layouts_evaluated', 'layouts_fitting',
  ] as OutputSpec<'training_run'>[])(this);
  /** "chip", or "GPU" on a datacenter GPU (the word the lab's chips field uses) */
  private chipWord(): string { return chipsNoun(this.state.chipFacts).replace(/s$/, ''); }

  /** The engine's answer, its layout search (the most of an evaluation: 48,765 layouts and more on
   *  a pod) kept while only the MFU, the tokens, the price or a measured rate move, which the search
   *  does not read: the run is then evaluated without it and the kept search put in. A search is
   *  kept only where putting it into the run without it gives the engine's whole answer byte for
   *  byte (so not beside a named layout, whose check reads the search's fastest step). */
  protected evaluateNumbers(params: Record<string, unknown>): Outcome {
    const e = this.engine!, schema = e.calculator(this.calculator);
    if (!schema) return e.evaluate(this.calculator, params, { steps: false });
    this.facts ??= searchFacts(schema);
    const facts = this.facts, key = searchKey(facts, params), kept = this.search;
    if (kept && kept.key === key) {
      const bare = e.evaluate(this.calculator, { ...params, search: false }, { steps: false });
      return isError(bare) ? bare : withSearch(facts, bare, kept);
    }
    this.search = null;
    const full = e.evaluate(this.calculator, params, { steps: false });
    if (isError(full) || params.search === false) return full;
    const bare = e.evaluate(this.calculator, { ...params, search: false }, { steps: false });
    if (isError(bare) || full.warnings.length < bare.warnings.length) return full;
    const part: KeptSearch = { key, outputs: full.outputs, warnings: full.warnings.slice(bare.warnings.length), search: full.inputs.search };
    if (JSON.stringify(withSearch(facts, bare, part)) === JSON.stringify(full)) this.search = part;
    return full;
  }

  /** A measured rate sets the MFU: the typed MFU is not asked for beside it. */
  protected controlApplies(c: Control): boolean | undefined {
    if (c.path === 'mfu') return this.values.get('measured_tokens_per_s') == null;
    return undefined;
  }

  /** The reader's measured rate: the MFU it implies, the run at that pace, and where it stands among published runs. */
  private measured(r: LabResult<'training_run'>) {
    const o = r.outputs, f = (v: unknown, u: string) => this.engine!.format(v, u);
    return measuredLine(r.inputs.measured_tokens_per_s == null ? null : o.mfu, () => html`At your
      ${f(r.inputs.measured_tokens_per_s, 'tokens/s')} the chips reach <strong>${f(o.mfu, 'ratio')} MFU</strong> (6·P·D), so the whole run takes ${this.fig('days')}.`,
      o.measured_among);
  }

  protected renderVerdict(r: LabResult<'training_run'>) {
    const o = r.outputs;
    const rec = o.recommended as O | null;
    const best = (Array.isArray(o.layouts) ? o.layouts[0] : null) as O | null;
    const f = (v: unknown, u: string) => this.engine!.format(v, u);
    return html`<p class="verdict" data-fits=${String(o.fits)}><strong>${this.fig('days')}</strong> on ${this.onOwnDevice() ? this.devices(o.chips) : this.fig('chips')} at ${f(o.mfu, 'ratio')} MFU:
      ${this.fig('total_flops')}, ${num(o.cost_usd) !== null ? html`${this.fig('cost_usd')}` : html`cost unknown (${this.ownWords('this chip has no price')}: type one)`}.
      ${Number(o.min_chips_memory) <= 1 && Number(o.chips) === 1
        ? html`The training state fits in the ${this.state.chipFacts?.name ?? 'device'}’s memory.`
        : html`The state needs at least ${this.onOwnDevice() ? this.devices(o.min_chips_memory) : this.fig('min_chips_memory')} (${this.fig('days_at_min_chips')} on them).`}
      ${o.fits === false ? this.fitWords(false, '', 'These chips cannot hold the state and activations.') : nothing}
      ${best ? html`Fastest layout found (the table's first row${this.tied(o) ? `, tied with ${this.tied(o)} at the same step time` : ''}): <strong class="best-layout">${layoutWords(best, this.technical, this.count, this.ownWords('chip'))}</strong>, ${f(best.step_s, 's')} per step (${boundWords(best.bound)}) at the best MFU that layout can reach, ${f(best.mfu, 'ratio')}; the time above is at ${f(o.mfu, 'ratio')}.` : nothing}
      ${rec ? html`The book's rule of thumb would start from ${layoutWords({ dp: 1, pp: 1, ...rec }, this.technical, this.count, this.ownWords('chip'))}.` : nothing}</p>
      ${this.expected(r, 't_s', 's', Number(o.chips) === 1 ? 'the chip’s peak FLOP/s' : 'the chips’ peak FLOP/s')}
      ${this.measured(r)}
      ${this.runs.note(r, this.engine!)}`;
  }

  /** Days against chips, one engine sweep (the named layout alone: no search per point) from a
   *  sixteenth to sixteen times the reader's chips, past the published runs drawn. */
  private days(r: LabResult<'training_run'>): DPt[] {
    const chips = num(r.outputs.chips) ?? 1; // the chips the run uses (a full pod where the field is empty)
    const top = this.findSchema('chips')?.max ?? chips;
    const reach = Math.max(chips * 16, ...this.runs.points(r).map((p) => p.x * 2));
    const xs: number[] = [];
    for (let c = Math.max(1, chips / 16); c <= Math.min(top, reach); c *= 2) xs.push(Math.round(c));
    // what the lab asks (not the resolved inputs, whose defaults the engine may refuse when given)
    const base: Record<string, unknown> = { ...this.params(), search: false };
    delete base.chips;
    // a measured rate is of these chips: the curve runs at the MFU it implies
    if (base.measured_tokens_per_s != null) { delete base.measured_tokens_per_s; base.mfu = r.outputs.mfu; }
    const key = JSON.stringify([base, xs]);
    if (key === this.curveKey) return this.curve;
    this.curveKey = key;
    const s = this.engine!.sweep('training_run', base, { x: { param: 'chips', values: xs }, outputs: ['days', 'expected_days_low', 'expected_days_high'] });
    const at = (k: string, i: number) => (isError(s) ? null : num(s.outputs[k]?.[i]));
    this.curve = xs.flatMap((c, i) => {
      const days = at('days', i);
      return days !== null && days > 0 ? [{ chips: c, days, low: at('expected_days_low', i), high: at('expected_days_high', i) }] : [];
    });
    return this.curve;
  }

  protected drawViz(r: LabResult<'training_run'>, host: HTMLElement) {
    const pts = this.days(r);
    const e = this.engine!, f = (v: number, u: string) => e.format(v, u);
    const o = r.outputs, chips = num(o.chips), now = num(o.days);
    if (!pts.length || chips === null || now === null) { host.replaceChildren(); return; }
    const band = pts.filter((p) => p.low !== null && p.high !== null);
    const width = this.vizWidth();
    const units = chipsNoun(this.state.chipFacts);
    const description = `Days to train against ${units}, both axes logarithmic, at ${f(num(o.mfu) ?? 0, 'ratio')} MFU: from ${f(pts[0].days, 'days')} on ${f(pts[0].chips, 'count')} ${units} to ${f(pts[pts.length - 1].days, 'days')} on ${f(pts[pts.length - 1].chips, 'count')}.` +
      `${band.length ? ' The shaded band is the range published whole runs reach.' : ''} On the chosen ${f(chips, 'count')} ${units}: ${f(now, 'days')}.` + this.runs.describe(r, e);
    const terms = ['at the MFU set here', ...(band.length ? ['published runs reach'] : [])];
    const domain = dayDomain([now, ...pts.map((p) => p.days), ...band.flatMap((p) => [p.low!, p.high!]), ...this.runs.points(r).map((p) => p.y)]);
    // a chart of this frame already drawn (the MFU moves the days line alone): its line and dot moved in place
    const chartKey = JSON.stringify([width, units, domain, pts.map((p) => p.chips), band.map((p) => [p.chips, p.low, p.high]), this.layerKey(r)]);
    const drawn = this.charts.get(chartKey);
    if (drawn && moveDays(drawn, pts) && moveMarker(drawn, chips, now, description)) { showIn(host, drawn); return; }
    const height = Math.round(Math.min(320, width * 0.6));
    const yTicks = DAY_DECADES.range(domain[0], domain[1]);
    const chart = Plot.plot({
      // (room for "10,000 days" on the left and the last chip count's label on the right)
      width, height, marginLeft: 100, marginRight: 30, marginBottom: 42, marginTop: 24,
      ariaLabel: `Days to train against the number of ${chipsNoun(this.state.chipFacts)}, from the engine`, ariaDescription: description,
      style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
      x: { type: 'log', base: 2, label: `${chipsNoun(this.state.chipFacts).replace(/^./, (c) => c.toUpperCase())} →`, tickFormat: (d: number) => f(d, 'count'), ticks: powerOfTwoTicks(pts[0].chips, pts[pts.length - 1].chips, width - 130) },
      // a tick every 64 px or so: on a phone the days may span less than a decade, whose 1-2-3 ticks crowd
      // the y domain takes in every point drawn (the marker was above the top tick on a Mac)
      // (the axis as a mark with its text: a log scale's own tick format leaves ticks whose leading
      // digit is large unlabelled, "2 h" and "20 h" among them)
      y: { type: 'log', axis: null, domain },
      // the published runs' band in the accent, as in Can I run it?: green is "fits" in every lab
      color: { legend: true, domain: terms, range: ['currentColor', 'var(--accent)'] },
      marks: [
        Plot.gridY({ ticks: yTicks }),
        Plot.axisY({ ticks: yTicks, text: (d: number) => f(d, 'days'), label: '↑ Time to train', labelArrow: 'none' }),
        band.length ? Plot.areaY(band, { x: 'chips', y1: 'low', y2: 'high', fill: 'var(--accent)', fillOpacity: 0.24, ariaHidden: 'true', className: 'expected-band' }) : null,
        Plot.line(pts, { x: 'chips', y: 'days', stroke: 'currentColor', strokeWidth: 2, ariaHidden: 'true', className: 'days-line' }),
        ...this.layerMarks(r, width),
        Plot.dot([{ x: chips, y: now }], { x: 'x', y: 'y', r: 6, fill: 'currentColor', stroke: 'var(--bg)', strokeWidth: 2, ariaHidden: 'true', className: 'operating-point' }),
      ],
    });
    chart.classList.add('pod-plot');
    host.replaceChildren(this.charts.put(chartKey, chart));
  }

  /** How many more of the ranked layouts take the fastest one's step time (a tie is said as one). */
  private tied(o: Record<string, unknown>): string | null {
    const ls = (Array.isArray(o.layouts) ? o.layouts : []) as O[];
    const t = num(ls[0]?.step_s);
    const n = t === null ? 0 : ls.slice(1).filter((l) => Math.abs((num(l.step_s) ?? Infinity) - t) <= 1e-9 * t).length;
    return !n ? null : n === 1 ? 'one other' : `${this.count(n)}${n === ls.length - 1 && ls.length >= 20 ? ' or more' : ''} others`;
  }

  /** The degrees a table shows: data, FSDP, tensor and pipeline always; context and expert
   *  parallelism where one of its layouts uses them (else every row would multiply to the chips
   *  without them). */
  private degrees(rows: O[]): string[] {
    return ['dp', 'fsdp', 'tp', 'pp', ...['cp', 'ep'].filter((k) => rows.some((l) => Number(l[k] ?? 1) > 1))];
  }

  /** The degrees' column heads: words in Plain, the book's names in Technical. */
  private degreeHeads(degrees: string[]) {
    const words: Record<string, string> = { dp: 'data', fsdp: 'FSDP', tp: 'tensor', pp: 'pipeline', cp: 'context', ep: 'expert' };
    return degrees.map((k) => html`<th scope="col" class="lb-deg">${this.technical ? k : words[k]}</th>`);
  }

  private degreeCells(l: O, degrees: string[]) {
    return degrees.map((k) => html`<td class="lb-deg">${this.count(l[k] ?? 1)}</td>`);
  }

  /** A count of the reader's own devices in words: "1 device", "4 devices". */
  private devices(n: unknown): string {
    return `${this.count(n)} ${Number(n) === 1 ? 'device' : 'devices'}`;
  }

  /** What tells two layouts of the same degrees apart: the ZeRO stage (1 or 2), the micro-batches, the
   *  rematerialisation policy and, with pipeline stages, the schedule — in the engine's words for
   *  each choice, cut to their names ("1F1B: one forward, one backward" → "1F1B"). */
  private setupWords(l: O): string {
    const name = (param: string, v: unknown) => this.choiceText(param, v).split(/[:(]/)[0].trim();
    const parts: string[] = [];
    // ZeRO-3 is FSDP, which the degrees already show; stages 1 and 2 shard less of the state
    const zero = Number(l.zero_stage ?? 0);
    if (zero === 1 || zero === 2) parts.push(`ZeRO-${zero}`);
    const mb = num(l.micro_batch), n = num(l.microbatches) ?? 1;
    if (mb !== null) parts.push(n > 1 ? `${this.count(n)} micro-batches of ${this.count(mb)}` : `micro-batch ${this.count(mb)}`);
    parts.push(`remat ${name('checkpointing', l.checkpointing ?? 'none')}`);
    if (Number(l.pp ?? 1) > 1 && l.schedule) parts.push(name('schedule', l.schedule));
    return parts.join(' · ');
  }

  /** Rows that read the same in the table (the engine's sample may hold layouts that differ only in
   *  what the table does not show) appear once. */
  private distinct(rows: O[], degrees: string[], text: (l: O) => string): O[] {
    const seen = new Set<string>();
    return rows.filter((l) => {
      const key = JSON.stringify([degrees.map((k) => l[k] ?? 1), this.setupWords(l), text(l)]);
      return !seen.has(key) && (seen.add(key), true);
    });
  }

  /** On a phone the degrees' columns give way to one cell: the layout in words, its set-up under
   *  it (the table's point — step, MFU, bytes — then fits the screen beside it). */
  private layoutCell(l: O) {
    return html`<td class="lb-layout">${layoutWords(l, this.technical, this.count, this.ownWords('chip'))}<span class="lb-layout-setup">${this.setupWords(l)}</span></td>`;
  }

  protected renderOutputs(r: LabResult<'training_run'>) {
    const base = super.renderOutputs(r);
    const o = r.outputs;
    const f = (v: unknown, u: string) => this.engine!.format(v, u);
    const layouts = (Array.isArray(o.layouts) ? o.layouts : []) as O[];
    const rejected = (Array.isArray(o.rejected) ? o.rejected : []) as O[];
    const counts = (o.rejected_counts && typeof o.rejected_counts === 'object' ? o.rejected_counts : {}) as Record<string, number>;
    const reasons = (o.rejected_reasons && typeof o.rejected_reasons === 'object' ? o.rejected_reasons : {}) as Record<string, string>;
    const shown = layouts.slice(0, 10);
    // no search on this chip (the engine's warning says why): no tables claiming that nothing fits
    if (!Array.isArray(o.layouts)) return html`${base}<p class="no-search">No layout search on this chip: see the note below.</p>`;
    const ranked = this.degrees(shown), refused = this.degrees(rejected);
    const why = (l: O) => String(l.message ?? l.reason);
    return html`${base}
      <div class="lb-scroll" role="region" aria-label="Layouts that fit" tabindex="0"><table class="lb-table layouts">
        <caption>${shown.length ? `Layout search: the ${shown.length === layouts.length ? '' : `${shown.length} `}fastest of the ${f(o.layouts_fitting, 'count')} layouts that fit, by step time` : 'Layout search: no layout fits on these chips'}</caption>
        <thead><tr><th scope="col">rank</th>${this.degreeHeads(ranked)}<th scope="col" class="lb-layout">layout</th><th scope="col" class="lb-setup">set-up</th><th scope="col">step</th><th scope="col" title=${this.ownWords("the MFU this layout reaches at its step's bound: 6·P·D over the chips' peak for that time, below 1 by attention, recomputation, the bubble and communication it cannot hide; the run as a whole is at the MFU above")}>best MFU</th><th scope="col">${this.onOwnDevice() ? 'bytes on the device' : `bytes per ${this.chipWord()}`} in this layout</th><th scope="col" class="lb-bound">bound by</th></tr></thead>
        <tbody>${shown.length ? shown.map((l, i) => html`<tr><td>${i + 1}</td>${this.degreeCells(l, ranked)}${this.layoutCell(l)}<td class="lb-setup">${this.setupWords(l)}</td><td>${f(l.step_s, 's')}</td><td>${f(l.mfu, 'ratio')}</td><td>${f(l.bytes_per_chip, 'bytes')}</td><td class="lb-bound">${boundWords(l.bound)}</td></tr>`)
          : html`<tr><td colspan=${ranked.length + 7}>${this.ownWords('No layout fits on these chips.')}</td></tr>`}</tbody>
      </table></div>
      ${rejected.length ? html`<div class="lb-scroll" role="region" aria-label="Rejected layouts" tabindex="0"><table class="lb-table rejected">
        <caption>Rejected layouts (a sample) and why each fails</caption>
        <thead><tr>${this.degreeHeads(refused)}<th scope="col" class="lb-layout">layout</th><th scope="col" class="lb-setup">set-up</th><th scope="col">reason</th></tr></thead>
        <tbody>${this.distinct(rejected, refused, why).map((l) => html`<tr>${this.degreeCells(l, refused)}${this.layoutCell(l)}<td class="lb-setup">${this.setupWords(l)}</td><td>${this.words(why(l))}</td></tr>`)}</tbody>
      </table></div>` : html`<p class="rejected-none">No layout ${this.onOwnDevice() ? "of this device" : "of these chips"} was rejected.</p>`}
      ${Object.keys(counts).length ? html`<p class="rejected-counts">Rejected in all: ${Object.entries(counts).map(([k, v], i) => html`${i ? '; ' : ''}${f(v, 'count')} ${v === 1 ? 'layout' : 'layouts'} because ${this.technical ? html`<code>${k}</code>` : this.words(reasons[k] ?? k.replace(/_/g, ' '))}`)}.</p>` : nothing}`;
  }
}

/** The days line of a drawn chart moved to `pts` by the chart's own scales (its chips as drawn);
 *  false if the chart cannot place them (then it is drawn again). */
function moveDays(chart: Chart, pts: DPt[]): boolean {
  const x = chart.scale('x'), y = chart.scale('y'), path = chart.querySelector('.days-line path');
  if (!x || !y || !path) return false;
  const at = pts.map((p) => [x.apply(p.chips), y.apply(p.days)]);
  if (!at.every(([a, b]) => Number.isFinite(a) && Number.isFinite(b))) return false;
  path.setAttribute('d', `M${at.map(([a, b]) => `${a},${b}`).join('L')}`);
  return true;
}

defineLab('sl-training-pod-lab', TrainingPodLab);
