// <sl-memory-budget-lab>: training memory per chip (chapter 5). The reader sets the DP / FSDP /
// TP / PP degrees, dtypes, optimizer bytes, the rematerialisation policy and the batch; the lab
// shows the bytes per chip as a stacked bar (weights, gradients, optimizer, master weights,
// activations) against the chip's HBM, and the comm-vs-compute roofline of that parallelism
// over the batch, with its critical batch, from the engine's training_comm calculator. Each part
// per chip and the strategy that prices the degrees are the engine's outputs.
import { html, nothing } from 'lit';
import { ChartCache, Plot, SERIES, reachOf } from './plot';
import { ONE_DEVICE_KINDS, byChip, chipCount, chipsNoun, emptyChips, defineLab, type Control, type LabResult, LabElement, type ControlSpec, type OutputSpec } from './lab-element';
import { MODEL_PICKER } from './model-picker';
import { layoutWords } from './words';
import { isError, type Result } from '../engine';
import { measuredLine, percent } from './measured';

type O = Record<string, unknown>;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const PARTS = ['weights', 'gradients', 'optimizer state', 'master weights', 'activations'] as const;
type Chart = ReturnType<typeof Plot.plot>;
/** the bar's reach: the next 1, 2 or 5 × 10^k at or above x (presentation: the axis stays put
 *  while the bar grows or shrinks within it) */
interface Comm { strategy: string; result: Result | null; error: string | null; query: O | null }
type CurvePoint = { batch: number; t_math_s: number; t_comm_s: number };

export class MemoryBudgetLab extends LabElement<'training_memory'> {
  readonly controls: ControlSpec[] = [
    // the point: on a slice, chips down until the state no longer fits; on one device, the batch up
    { path: 'chips', label: (c) => `${chipsNoun(c)} (empty: the product of the degrees, or ${emptyChips(c)})`, main: (c) => !ONE_DEVICE_KINDS.includes(c.kind), start: chipCount(256) },
    { ...MODEL_PICKER, start: byChip({ device: 'llama3.2-1b', tpu: 'llama3-70b', gpu: 'llama3-8b' }) },
    { path: 'dp', label: 'data parallel: replicas holding the whole state' },
    { path: 'fsdp', label: (c) => `FSDP: shards of the state (takes the ${c?.kind === 'datacenter-gpu' ? 'GPUs' : 'chips'} the others leave)` },
    { path: 'tp', label: 'tensor parallel degree' },
    { path: 'pp', label: 'pipeline stages' },
    { path: 'batch_tokens', label: 'global batch (tokens)', main: (c) => ONE_DEVICE_KINDS.includes(c.kind), start: byChip({ device: 16384, tpu: 1048576, gpu: 524288 }) },
    { path: 'T', label: 'sequence length' },
    // "format", as the inference labs name the same choice (dtype is a programmer's word)
    { path: 'weight_dtype' },
    { path: 'activation_dtype' },
    // the book leaves gradients out of its count; a reader asking whether training fits on a card
    // of their own meets bf16 gradients in practice, so there the lab opens on 2 bytes
    { path: 'grad_bytes_per_param', label: 'gradient bytes per parameter (0 as in the book, which leaves them out; 2 for bf16, 4 for fp32)', start: byChip({ device: 2, tpu: 0, gpu: 0 }) },
    { path: 'optimizer_bytes_per_param', label: 'optimizer bytes per parameter (Adam fp32: 8)' },
    { path: 'master_bytes_per_param', label: 'fp32 master-weight bytes per parameter' },
    { path: 'checkpointing', label: 'rematerialisation: what the forward pass saves', start: 'block' },
    { path: 'checkpoints_per_layer', onlyWith: { checkpointing: 'custom' } },
    // the step as it is run (issue 36): micro-batches, the schedule once there are pipeline
    // stages, ZeRO over data-parallel replicas, and where the optimizer state lives
    { path: 'micro_batch', label: 'sequences per micro-batch (empty: each replica’s whole batch at once)' },
    { path: 'schedule', label: 'pipeline schedule' },
    { path: 'virtual_stages', label: 'interleaved: model chunks per device' },
    { path: 'zero_stage', label: 'ZeRO stage over the data-parallel replicas (1: optimizer state sharded, 2: gradients too, 3: weights too)' },
    { path: 'optimizer_offload' },
    { path: 'measured_peak_bytes', label: (c) => `I measured: your run’s peak memory per ${chipsNoun(c).replace(/s$/, '')}, if you ran it` },
  ];
  /** The schedule matters with pipeline stages, virtual stages with the interleaved one, a ZeRO
   *  stage with data-parallel replicas to shard over. */
  protected controlApplies(c: Control): boolean | undefined {
    const above1 = (path: string) => Number(this.values.get(path) ?? 1) > 1;
    if (c.path === 'schedule') return above1('pp');
    if (c.path === 'virtual_stages') return above1('pp') && this.values.get('schedule') === 'interleaved';
    if (c.path === 'zero_stage') return above1('dp');
    return undefined;
  }
  protected hintText() {
    return this.ownWords(this.hintWords());
  }
  private hintWords() {
    return this.state.chipFacts && ONE_DEVICE_KINDS.includes(this.state.chipFacts.kind)
      ? 'Try this: drag the global batch up, or pick a larger model, until the bytes no longer fit in the device’s memory.'
      : `Try this: drag the chips down until the bytes per chip no longer fit in ${this.memoryName()} (FSDP takes the chips the other degrees leave).`;
  }
  readonly outputs: OutputSpec<'training_memory'>[] = [
    'bytes_per_chip', 'hbm_bytes', 'params_bytes', 'grads_bytes', 'optimizer_bytes', 'master_bytes',
    'activations_bytes', 'total_bytes', 'chips', 'min_chips', 'max_params', 'recompute_flops',
  ];
  protected readonly hasViz = true;
  private comm: Comm = { strategy: '', result: null, error: null, query: null };
  private curveKey = '';
  private curveCache = new Map<number, CurvePoint | null>();

  protected evaluateNow() {
    super.evaluateNow();
    if (!this.engine || !this.result) return;
    this.comm = this.evalComm(this.result);
  }

  /** What each chip holds of each part: the engine's per-chip outputs (they add up to bytes_per_chip). */
  private perChipParts(r: LabResult<'training_memory'>): { part: string; bytes: number }[] {
    const o = r.outputs;
    const vals = [o.params_bytes_per_chip, o.grads_bytes_per_chip, o.optimizer_bytes_per_chip, o.master_bytes_per_chip, o.activations_bytes_per_chip];
    return PARTS.map((part, i) => ({ part, bytes: Math.max(0, num(vals[i]) ?? 0) }));
  }

  /** training_comm for the chosen degrees, with the strategy the engine names for them on this
   *  chip (comm_strategy: none on one chip). */
  private evalComm(r: LabResult<'training_memory'>): Comm {
    const d = r.outputs.degrees as Record<string, number> | undefined;
    const strategy = typeof r.outputs.comm_strategy === 'string' ? r.outputs.comm_strategy : null;
    if (!d || !strategy) return { strategy: '', result: null, error: `One ${this.ownWords('chip')}: no parallelism, so nothing to communicate.`, query: null };
    const inp = r.inputs;
    const q: O = { strategy, chips: r.outputs.chips };
    for (const k of ['chip', 'chip_overrides', 'model', 'model_overrides', 'batch_tokens', 'T', 'weight_dtype', 'activation_dtype']) if (inp[k] !== undefined) q[k] = inp[k];
    for (const k of ['dp', 'fsdp', 'tp', 'pp'] as const) if (d[k] > 1) q[k] = d[k];
    if (num(q.batch_tokens) === 0) delete q.batch_tokens;
    const c = this.engine!.evaluate('training_comm', q, { steps: false });
    if (isError(c)) {
      // a link the catalog does not give this chip (a GeForce card's NVLink, a Mac's ICI): said in
      // words, not as the engine's figure name; the memory above stands without it
      const field = c.error.field ?? '';
      const name = this.state.chipFacts?.name ?? 'This chip';
      const words = /^(ici_|nvlink|node_gpus|ib_|node_ib|dcn_)/.test(field)
        ? `The ${name} has no link to another chip that the engine can price, so this lab shows no communication time for it; the memory above stands.`
        : c.error.message;
      return { strategy, result: null, error: words, query: null };
    }
    return { strategy, result: c, error: null, query: q };
  }

  /** The comm roofline's curve for the chart (computed when it is drawn, not for the numbers). */
  private commCurve({ result: c, query: q }: Comm): CurvePoint[] {
    if (!c || !q) return [];
    // the curve over the global batch: powers of two around the batch and the critical batch,
    // evaluated once per setting of everything but the batch (dragging the batch re-uses them)
    const b = num(c.inputs.batch_tokens) ?? 1;
    const crit = num(c.outputs.critical_batch_tokens);
    // (the ends snap to powers of 16, so the chart's axes stay put over most of a drag of the batch)
    const lo = 16 ** Math.floor(Math.log2(Math.max(1, Math.min(b, crit ?? b) / 64)) / 4), hi = 16 ** Math.ceil(Math.log2(Math.max(b, crit ?? b) * 64) / 4);
    const top = this.findSchema('batch_tokens')?.max ?? hi;
    const key = JSON.stringify({ ...q, batch_tokens: 0 });
    if (key !== this.curveKey) { this.curveKey = key; this.curveCache.clear(); this.commCharts.clear(); }
    const xs: number[] = [];
    for (let x = lo; x <= Math.min(hi, top); x *= 2) xs.push(x);
    // the points not cached yet: one engine sweep of the batch
    const missing = xs.filter((x) => !this.curveCache.has(x));
    if (missing.length) {
      const s = this.engine!.sweep('training_comm', { ...q, batch_tokens: missing[0] }, { x: { param: 'batch_tokens', values: missing }, outputs: ['t_math_s', 't_comm_s'] });
      if (!isError(s)) {
        s.x.values.forEach((x, i) => {
          const tm = num(s.outputs.t_math_s?.[i]), tc = num(s.outputs.t_comm_s?.[i]);
          this.curveCache.set(x, tm !== null && tc !== null && tm > 0 && tc > 0 ? { batch: x, t_math_s: tm, t_comm_s: tc } : null);
        });
      }
      for (const x of missing) if (!this.curveCache.has(x)) this.curveCache.set(x, null);
    }
    return xs.map((x) => this.curveCache.get(x)).filter((p): p is CurvePoint => p != null);
  }

  protected renderVerdict(r: LabResult<'training_memory'>) {
    const o = r.outputs;
    const fits = o.fits;
    const d = o.degrees as Record<string, number> | undefined;
    const hbm = this.memoryName();
    const one = this.ownWords('chip');
    return html`<p class="verdict" data-fits=${String(fits)}>
      ${fits === true ? html`${this.fitWords(true, 'Fits', '')}: ${this.fig('bytes_per_chip')} per ${one} of ${this.fig('hbm_bytes')} ${hbm}.`
        : fits === false ? html`${this.fitWords(false, '', 'Does not fit')}: ${this.fig('bytes_per_chip')} per ${one} against ${this.fig('hbm_bytes')} ${hbm}; ${this.onOwnDevice() ? this.ownFixes(r) : html`perfectly sharded it needs at least ${this.fig('min_chips')}.`}`
        : html`<strong>Unknown fit</strong>: ${this.fig('bytes_per_chip')} per ${one}, and this ${one} has no memory figure (see the warning; give one with a custom chip).`}
      ${d ? html`Layout: ${layoutWords(d, this.technical, this.count, one)}${Number(r.outputs.chips) > 1 ? html` on ${this.fig('chips')}` : nothing}.` : nothing}</p>
      ${this.expected(r, 'bytes_per_chip', 'bytes', 'this estimate')}
      ${this.measured(r)}`;
  }

  /** The communication half, under the memory verdict: its roofline (drawn by drawViz into this
   *  box) and what it says. The memory bar and its verdict come first, so on a phone the slider,
   *  the bar it moves and the verdict's first line share one screen (issue 34 §3). */
  protected renderAfterVerdict(_r: LabResult<'training_memory'>) {
    const f = (v: unknown, u: string) => this.engine!.format(v, u);
    const c = this.comm.result?.outputs;
    const one = this.ownWords('chip');
    return html`<div class="lab-viz comm-viz"></div>
      <div class="lab-comm" aria-live="polite">
      ${c ? html`<p class="verdict verdict-${String(c.bound)} comm-verdict"><strong>${String(c.bound) === 'compute' ? 'Compute-bound' : 'Comms-bound'}</strong>: with ${this.choiceText('strategy', this.comm.strategy, 'training_comm')} over the ${this.choiceText('fabric', c.fabric, 'training_comm')},
        per layer the math takes ${f(c.t_math_s, 's')}, communication ${f(c.t_comm_s, 's')}${this.layerModel() ? html` <span class="comm-caveat">(${this.layerModel()})</span>` : nothing}.
        ${num(c.critical_batch_tokens) !== null ? html`Critical batch <span class="fig" data-figure="critical_batch_tokens">${f(c.critical_batch_tokens, 'tokens')}</span> (<span class="fig" data-figure="critical_tokens_per_chip">${f(c.critical_tokens_per_chip, 'tokens')}</span> per ${one}).` : html`This strategy's communication does not shrink with the batch: no critical batch.`}</p>`
        : html`<p class="lb-msg comm-verdict">${this.comm.error}</p>`}
      </div>`;
  }

  /** on the reader's own device the verdict says what would fit: the engine's "Does not fit … shard
   *  it further" (more chips) is not listed under it */
  protected warningShown(w: string, r: LabResult<'training_memory'>): boolean { return !(this.onOwnDevice() && r.outputs.fits === false && /^Does not fit\b/.test(w)); }

  /** On the reader's own device, what would fit instead of a second device: 8-bit optimizer
   *  moments, a smaller global batch, a smaller model, each a setting the engine was asked about
   *  (training_memory at that setting), as Can I fine-tune it? offers its first change to try. */
  private fixesKey = '';
  private fixes: string[] = [];
  private ownFixes(r: LabResult<'training_memory'>) {
    const base = this.params();
    const key = JSON.stringify(base);
    if (key !== this.fixesKey) {
      this.fixesKey = key;
      const f = (v: unknown, u: string) => this.engine!.format(v, u);
      const at = (change: Record<string, unknown>) => {
        const m = this.engine!.evaluate('training_memory', { ...base, ...change }, { steps: false });
        return isError(m) || m.outputs.fits !== true ? null : num(m.outputs.bytes_per_chip);
      };
      const fixes: string[] = [];
      const opt = num(r.inputs.optimizer_bytes_per_param) ?? 0;
      const eight = opt > 2 ? at({ optimizer_bytes_per_param: 2 }) : null;
      if (eight !== null) fixes.push(`8-bit optimizer moments, 2 bytes per parameter instead of ${f(opt, 'count')} (${f(eight, 'bytes')})`);
      // the largest global batch that fits, halving down to one sequence
      const T = num(r.inputs.T) ?? 1;
      for (let b = (num(r.inputs.batch_tokens) ?? T) / 2; b >= T; b /= 2) {
        const bytes = at({ batch_tokens: Math.round(b) });
        if (bytes !== null) { fixes.push(`a global batch of ${f(Math.round(b), 'tokens')} (${f(bytes, 'bytes')})`); break; }
      }
      const most = num(r.outputs.max_params);
      if (most !== null && most > 0) fixes.push(`a model of at most ${f(most, 'params')}`);
      this.fixes = fixes;
    }
    return this.fixes.length
      ? html`<span data-part="own-fixes">on this one device, any of these would fit: ${this.fixes.join('; ')}.</span>`
      : html`<span data-part="own-fixes">on this one device, a smaller model is the change that fits.</span>`;
  }

  /** What the per-layer times count, as the engine's training_comm says it (the book's layer of two
   *  MLP matrices: a gated MLP's third matmul and attention left out), lower-cased for a parenthesis. */
  private layerModel(): string | null {
    const w = this.comm.result?.warnings.find((x) => /layer model/.test(x));
    return w ? this.words(w).replace(/\.$/, '').replace(/^The/, 'the') : null;
  }

  /** The reader's own peak against the estimate, and where it stands among the published runs'. */
  private measured(r: LabResult<'training_memory'>) {
    const o = r.outputs, f = (v: unknown, u: string) => this.engine!.format(v, u);
    return measuredLine(o.measured_share_of_estimate, (share) => html`Your ${f(r.inputs.measured_peak_bytes, 'bytes')} is
      ${percent(this.engine!, share)} of the ${this.fig('bytes_per_chip')} estimated here.`, o.measured_among);
  }

  // the drawn charts and what each shows beyond its current point (see drawViz)
  // (kept by what they show beyond the current point: dragging back to a reach or a curve already
  // drawn re-uses its chart)
  private bar: Chart | null = null;
  private bars = new ChartCache();
  private commChart: Chart | null = null;
  private commCharts = new ChartCache();

  /** Each chart is drawn again only when what it shows beyond the current point changes, as in
   *  the decode lab: the bar when its parts, the HBM line or its reach change (the reach moves in
   *  1-2-5 steps), the roofline when its curve changes (everything but the batch, see evalComm).
   *  Otherwise the bar's segments and the operating points move in place, by each chart's scales. */
  protected drawViz(r: LabResult<'training_memory'>, host: HTMLElement) {
    const f = (v: unknown, u: string) => this.engine!.format(v, u);
    const hbm = num(r.outputs.hbm_bytes);
    const width = this.vizWidth();
    // the parts and the roofline's curve are the chart's: evaluated when it is drawn
    const allParts = this.perChipParts(r);
    const parts = allParts.filter((p) => p.bytes > 0);
    const barDescription = `Per chip: ${allParts.map((p) => `${p.part} ${f(p.bytes, 'bytes')}`).join(', ')}; total ${f(r.outputs.bytes_per_chip, 'bytes')}${hbm !== null ? ` against ${f(hbm, 'bytes')} of ${this.memoryName()}` : ' (the chip\u2019s memory unknown)'}.`;
    const reach = reachOf(Math.max(parts.reduce((s, p) => s + p.bytes, 0), num(r.outputs.bytes_per_chip) ?? 0, hbm ?? 0));
    const barKey = JSON.stringify([parts.map((p) => p.part), hbm, reach, width]);
    this.bar = this.bars.get(barKey) ?? null;
    let bar = this.bar && this.moveBar(parts, barDescription) ? this.bar : null;
    if (!bar) {
      bar = Plot.plot({
        width,
        height: 130,
        marginTop: 22, // the memory line's label sits above the bar, whole
        marginLeft: 20,
        marginRight: 24, // the last tick's label, whole
        marginBottom: 40,
        ariaLabel: 'Bytes per chip by part, against the chip\u2019s memory',
        ariaDescription: barDescription,
        style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
        x: { domain: [0, reach], label: `Bytes per ${this.ownWords('chip')} →`, tickFormat: (d: number) => f(d, 'bytes'), grid: true, ticks: 5 },
        y: { axis: null },
        color: { legend: true, domain: [...PARTS], range: ['var(--mem-weights)', 'var(--mem-grads)', 'var(--mem-optimizer)', 'var(--mem-master)', 'var(--mem-activations)'] },
        marks: [
          Plot.barX(parts, Plot.stackX({ x: 'bytes', fill: 'part', y: () => 'chip', ariaHidden: 'true', insetTop: 8, insetBottom: 8, className: 'memory-parts' })),
          hbm !== null ? Plot.ruleX([hbm], { stroke: 'currentColor', strokeWidth: 2.5, ariaHidden: 'true', className: 'hbm-line' }) : null,
          hbm !== null ? Plot.text([hbm], { x: (d: number) => d, frameAnchor: 'top', lineAnchor: 'bottom', dy: -3, text: () => `${this.memoryName() === 'HBM' ? 'HBM' : 'memory'} ${f(hbm, 'bytes')}`, dx: -4, textAnchor: 'end', fill: 'currentColor', ariaHidden: 'true' }) : null,
        ],
      });
      bar.classList.add('memory-bar');
      this.bar = this.bars.put(barKey, bar);
    }

    let comm: Chart | null = null;
    const c = this.comm;
    const curve = this.commCurve(c);
    if (c.result && curve.length > 1) {
      const crit = num(c.result.outputs.critical_batch_tokens);
      const b = num(c.result.inputs.batch_tokens);
      const o = c.result.outputs;
      const rows = curve.flatMap((p) => [{ x: p.batch, y: p.t_math_s, what: 'math per layer' }, { x: p.batch, y: p.t_comm_s, what: 'communication per layer' }]);
      const here = b !== null ? [{ x: b, y: num(o.t_math_s) }, { x: b, y: num(o.t_comm_s) }].filter((p): p is { x: number; y: number } => p.y !== null && p.y > 0) : [];
      const description = `For ${this.choiceText('strategy', c.strategy, 'training_comm')} over the ${this.choiceText('fabric', o.fabric, 'training_comm')}, math time per layer grows with the batch; ${crit !== null ? `communication ${c.strategy === 'tp' || c.strategy === 'pp' ? 'grows too' : 'stays flat'}, and they cross at the critical batch${this.veils('critical_batch_tokens') ? ' (hidden until you check your prediction)' : ` ${f(crit, 'tokens')}`}` : 'communication grows with it, so there is no critical batch'}. At the chosen batch ${f(b, 'tokens')}: math ${f(o.t_math_s, 's')}, communication ${f(o.t_comm_s, 's')}, ${String(o.bound)}-bound.`;
      // the scales span the curve alone (fixed while only the batch moves along it)
      const ys = rows.map((p) => p.y);
      // the label of the critical batch goes where no line runs: left of its rule at the top (there
      // the math line is still under the flat communication line), unless the rule is too near the
      // left edge for it; then right of the rule at the bottom (there the math line is above it)
      const critFrac = crit === null ? 0 : Math.log(crit / curve[0].batch) / Math.log(curve[curve.length - 1].batch / curve[0].batch);
      const critLeft = crit !== null && critFrac * (width - 100) >= 7 * Math.max(8, f(crit, 'tokens').length) + 8;
      const commKey = JSON.stringify([this.curveKey, curve.map((p) => p.batch), crit, here.length, width]);
      this.commChart = this.commCharts.get(commKey) ?? null;
      comm = this.commChart && this.moveDots(here, description) ? this.commChart : null;
      if (!comm) {
        comm = Plot.plot({
          width,
          height: Math.round(Math.min(320, width * 0.55)),
          marginLeft: 80,
          marginBottom: 42,
          ariaLabel: `Communication against compute per layer over the global batch, ${this.choiceText('strategy', c.strategy, 'training_comm')}`,
          ariaDescription: description,
          style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
          x: { type: 'log', domain: [curve[0].batch, curve[curve.length - 1].batch], label: 'Global batch (tokens) →', tickFormat: (d: number) => f(d, 'count') },
          y: { type: 'log', domain: [Math.min(...ys), Math.max(...ys)], label: '↑ Time per layer', tickFormat: (d: number) => f(d, 's'), grid: true, ticks: 4 },
          color: { legend: true, domain: ['math per layer', 'communication per layer'], range: [SERIES.flops, SERIES.comms] },
          marks: [
            Plot.line(rows, { x: 'x', y: 'y', stroke: 'what', strokeWidth: 2, ariaHidden: 'true' }),
            crit !== null ? Plot.ruleX([crit], { stroke: 'currentColor', strokeDasharray: '4 3', ariaHidden: 'true', className: 'critical-batch' }) : null,
            // beside its rule on the side with room, in two short lines, haloed: the math line rises
            // through the top right where one long label ran into it on a phone
            crit !== null ? Plot.text([crit], { x: (d: number) => d, frameAnchor: critLeft ? 'top' : 'bottom', dy: critLeft ? 6 : -6, lineAnchor: critLeft ? 'top' : 'bottom', text: () => `critical\n${f(crit, 'tokens')}`,
              dx: critLeft ? -4 : 4, textAnchor: critLeft ? 'end' : 'start', fill: 'currentColor', stroke: 'var(--bg)', strokeWidth: 4, paintOrder: 'stroke', ariaHidden: 'true', className: 'critical-batch' }) : null,
            Plot.dot(here, { x: 'x', y: 'y', r: 5, fill: 'currentColor', ariaHidden: 'true', className: 'operating-point' }),
          ],
        });
        comm.classList.add('comm-plot');
        // the critical batch's rule and label are its figure: a Try-it asking for it hides them (tryit.ts)
        for (const g of comm.querySelectorAll('.critical-batch')) g.setAttribute('data-figure', 'critical_batch_tokens');
        this.commChart = this.commCharts.put(commKey, comm);
      }
    } else {
      this.commChart = null;
    }
    if (host.firstElementChild !== bar || host.children.length !== 1) host.replaceChildren(bar);
    // the roofline under the memory verdict (renderAfterVerdict's box)
    const commBox = this.querySelector<HTMLElement>('.comm-viz');
    if (commBox && (commBox.firstElementChild !== comm || commBox.children.length !== (comm ? 1 : 0))) commBox.replaceChildren(...(comm ? [comm] : []));
    // no roofline (one device: nothing to communicate): its box keeps no empty band
    commBox?.classList.toggle('lab-viz-none', !comm);
  }

  /** the bar's segments stacked anew in the drawn bar's own x scale; false if it cannot */
  private moveBar(parts: { part: string; bytes: number }[], description: string): boolean {
    const x = this.bar?.scale('x');
    const rects = this.bar?.querySelectorAll('.memory-parts rect');
    if (!x || !rects || rects.length !== parts.length) return false;
    const at: [number, number][] = [];
    let sum = 0;
    for (const p of parts) {
      const a = x.apply(sum), b = x.apply((sum += p.bytes));
      if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
      at.push([a, b]);
    }
    rects.forEach((rect, i) => {
      rect.setAttribute('x', String(Math.min(...at[i])));
      rect.setAttribute('width', String(Math.abs(at[i][1] - at[i][0])));
    });
    this.bar!.querySelector('[aria-description]')?.setAttribute('aria-description', description);
    return true;
  }

  /** the operating points moved in the drawn roofline's own scales; false if it cannot */
  private moveDots(here: { x: number; y: number }[], description: string): boolean {
    const x = this.commChart?.scale('x'), y = this.commChart?.scale('y');
    const dots = this.commChart?.querySelectorAll('.operating-point circle');
    if (!x || !y || !dots || dots.length !== here.length) return false;
    const at = here.map((p) => [x.apply(p.x), y.apply(p.y)]);
    if (!at.every(([cx, cy]) => Number.isFinite(cx) && Number.isFinite(cy))) return false;
    dots.forEach((dot, i) => {
      dot.setAttribute('cx', String(at[i][0]));
      dot.setAttribute('cy', String(at[i][1]));
      dot.removeAttribute('transform');
    });
    this.commChart!.querySelector('[aria-description]')?.setAttribute('aria-description', description);
    return true;
  }
}

defineLab('sl-memory-budget-lab', MemoryBudgetLab);
