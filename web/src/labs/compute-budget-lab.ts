// <sl-compute-budget-lab>: trade parameters N against tokens D at a fixed training budget
// (chapter 0). Every number is the engine's `compute_budget` calculator; this file only
// chooses what to show. The one piece of arithmetic here is presentation: keeping the
// product N·D fixed when the reader moves one of them (the "fixed budget" line), with the
// per-token factor (6, or 8 with remat) read from the engine's own output.
import { html, nothing, type TemplateResult } from 'lit';
import { Plot, SERIES, decadeTicks } from './plot';
import { defineLab, type OutputSpec, type LabResult, LabElement, type Control, type ControlSpec } from './lab-element';
import { isError, type Result } from '../engine';

/** the seed's MoE example (chapter 0 text): 50B parameters stored, 20B used per token; every field it implies */
const MOE_EXAMPLE = { N: 2e10, total_params: 5e10, active_params: 2e10 }; // N: the active count, as the N control says
/** byte sizes the chapter compares (fp32, bf16, int8) */
const BYTE_SIZES = [4, 2, 1];

/** the outputs listed, and why one is missing where the engine leaves it empty */
const ROWS: OutputSpec<'compute_budget'>[] = [
  'train_flops',
  { name: 't_s', missing: 'the chip gives no compute rate' },
  'weight_bytes',
  { name: 'weight_read_s', missing: 'the chip gives no memory bandwidth' },
  // rows of a mixture of experts and of a sliding window: left out where the model has none (one
  // line under the table says when they appear), not a sentence squeezed into a number's cell
  { name: 'moe_total_bytes', hide: (r) => r.outputs.moe_total_bytes == null },
  { name: 'moe_active_bytes', hide: (r) => r.outputs.moe_active_bytes == null },
  { name: 'critical_batch_tokens', missing: 'the chip gives no compute rate or no memory bandwidth' },
  'attention_pairs_full', 'attention_pairs_causal',
  { name: 'attention_pairs_window', hide: (r) => r.outputs.attention_pairs_window == null },
  'loss',
];

export class ComputeBudgetLab extends LabElement<'compute_budget'> {
  readonly controls: ControlSpec[] = [
    { path: 'N', label: 'parameters (active, for an MoE)', main: true },
    { path: 'D', label: 'training tokens' },
    { path: 'bytes_per_param', label: 'bytes per stored parameter (4 fp32, 2 bf16, 1 int8)' },
    { path: 'checkpointing' },
    { path: 'total_params' },
    { path: 'active_params' },
    { path: 'L', label: 'context length' },
    { path: 'window' },
    { path: 'curve', label: 'loss curve (invented for teaching, or the published Chinchilla fit)' },
  ];
  readonly hint = 'Try this: drag N up with the budget fixed and watch, in the line above the chart, D shrink while the weights grow; then load the MoE example.';
  protected readonly hasViz = true;
  private sizes: { b: number; bytes: unknown }[] = [];
  private sizesFor: Result | null = null;
  /** keep N·D fixed when N or D moves */
  private fixedBudget = true;
  /** the product N·D that a drag along the fixed budget keeps: taken when N or D first moves, so
   *  that rounding the one that follows to readable digits does not drift the budget input by input
   *  (a drifting budget redrew the curves); let go when anything else changes */
  private product: number | null = null;

  protected applyExtraState(key: string, value: string): boolean {
    if (key !== 'budget') return false;
    this.fixedBudget = value !== 'free';
    this.product = null;
    return true;
  }
  protected extraQuery(): [string, string][] {
    return this.fixedBudget ? [] : [['budget', 'free']];
  }

  protected controlChanged(c: Control, previous: unknown) {
    if (!this.fixedBudget || (c.path !== 'N' && c.path !== 'D')) { this.product = null; return; }
    const other = this.builtControls.find((x) => x.path === (c.path === 'N' ? 'D' : 'N'))!;
    const now = this.values.get(c.path), o = this.values.get(other.path);
    if (typeof now !== 'number' || typeof previous !== 'number' || typeof o !== 'number' || now <= 0) { this.product = null; return; }
    // the product stays: other' = (other · previous) / now, rounded to readable digits
    this.product ??= o * previous;
    this.setValue(other, Number((this.product / now).toPrecision(4)));
  }

  protected renderExtraControls(): TemplateResult {
    return html`<div class="control check" data-key="budget">
      <input type="checkbox" id="cb-fixed" .checked=${this.fixedBudget} @change=${(e: Event) => { this.fixedBudget = (e.target as HTMLInputElement).checked; this.product = null; this.schedule(); }}>
      <label for="cb-fixed">Keep the budget fixed: moving N moves D the other way (and back)</label>
    </div>
    <div class="control" data-key="moe-example">
      <button type="button" class="lab-button" @click=${() => this.useMoeExample()}>Use the 50B-total / 20B-active MoE example</button>
    </div>`;
  }
  private useMoeExample() {
    // with the budget fixed, D moves the other way as N does (as when N is typed)
    const n0 = this.values.get('N'), d0 = this.values.get('D');
    if (this.fixedBudget && typeof n0 === 'number' && typeof d0 === 'number' && n0 > 0) {
      this.setValue(this.builtControls.find((x) => x.path === 'D')!, Number(((n0 * d0) / MOE_EXAMPLE.N).toPrecision(4)));
    }
    for (const [k, v] of Object.entries(MOE_EXAMPLE)) {
      const c = this.builtControls.find((x) => x.path === k)!;
      this.setValue(c, v);
    }
    this.product = null;
    this.schedule();
    // the button sits in the settings, under the verdict it changes: bring the result into view
    void this.updateComplete.then(() => this.querySelector('.cb-now, .lab-verdict')?.scrollIntoView({ block: 'nearest', behavior: 'smooth' }));
  }

  /** the weight memory at each byte size the chapter compares: one engine sweep; of a mixture of
   *  experts, the weights stored (all its parameters), the figure the verdict says they fill */
  private weightBytesBySize(moe: boolean): { b: number; bytes: unknown }[] {
    const out = moe ? 'moe_total_bytes' : 'weight_bytes';
    const s = this.engine!.sweep(this.calculator, this.params(), { x: { param: 'bytes_per_param', values: BYTE_SIZES }, outputs: [out] });
    return BYTE_SIZES.map((b, i) => ({ b, bytes: isError(s) ? null : s.outputs[out]?.[i] }));
  }
  /** a mixture of experts' weights are said once, stored and used per token: the table's
   *  weight bytes (of the N each token uses) would say the used figure a second time */
  protected renderOutputs(r: LabResult<'compute_budget'>) {
    const o = r.outputs, moe = o.moe_total_bytes != null, window = o.attention_pairs_window != null;
    const table = moe ? super.renderOutputs({ ...r, outputs: { ...o, weight_bytes: null } } as unknown as LabResult<'compute_budget'>) : super.renderOutputs(r);
    const absent = [moe ? null : 'the bytes of a mixture of experts (give its total and active parameters)', window ? null : 'the attention pairs within a sliding window (give a window)'].filter(Boolean);
    return html`${table}${absent.length ? html`<p class="cb-caption cb-absent">Shown once given: ${absent.join('; ')}.</p>` : nothing}`;
  }

  protected renderVerdict(r: LabResult<'compute_budget'>) {
    const o = r.outputs;
    const f = (v: unknown, u: string) => this.engine!.format(v, u);
    const moe = o.moe_total_bytes != null;
    if (this.sizesFor !== r) { this.sizes = this.weightBytesBySize(moe); this.sizesFor = r; }
    const sizes = this.sizes;
    return html`<p class="verdict">A budget of <strong>${this.fig('train_flops')}</strong>
      (${f(o.flops_per_param_per_token, '')} × N × D)
      ${o.t_s == null ? html`— the ${this.state.chipFacts?.name ?? 'chip'} has no bf16 rate in the catalog, so no time` : html`takes <strong>${this.fig('t_s')}</strong> on one ${this.state.chipFacts?.name ?? 'chip'} at its peak`}.
      ${o.moe_total_bytes != null
        ? html`The weights fill ${this.fig('moe_total_bytes')} stored, of which each token uses ${this.fig('moe_active_bytes')}${o.weight_read_s == null ? nothing : html`, read in ${this.fig('weight_read_s')}`}.`
        : html`The weights fill ${this.fig('weight_bytes')}${o.weight_read_s == null ? nothing : html` and take ${this.fig('weight_read_s')} to read once`}.`}</p>
      <p class="cb-sizes" data-out="weight_bytes_by_size">${moe ? 'Stored weight memory (all parameters)' : 'Weight memory'} at
        ${sizes.map((s, i) => html`${i ? ', ' : ''}${s.b} byte${s.b > 1 ? 's' : ''}/param: <strong>${f(s.bytes, 'bytes')}</strong>`)}.</p>
      ${this.expected(r, 't_s', 's', `one ${this.state.chipFacts?.kind === 'datacenter-gpu' ? 'GPU' : 'chip'}’s peak FLOP/s (MFU counted as 6·N·D)`)}`;
  }

  readonly outputs = ROWS;

  /** what the two curves are, under the verdict (above it, it pushed the verdict under a phone's fold) */
  protected renderAfterVerdict() {
    return html`<p class="cb-caption">The invented curve is made up to show the shape of the trade-off; it predicts nothing. The Chinchilla line is the published parametric fit of Hoffmann et al. (2022), “Training Compute-Optimal Large Language Models”, for their models and data.</p>`;
  }

  /** the curve is redrawn only when the budget (or the N range) changes; dragging N along a
   *  fixed budget only moves the marker */
  private curveKey = '';
  private chart: (HTMLElement | SVGSVGElement) & { scale?: (n: string) => { apply: (v: number) => number } | undefined } | null = null;

  protected drawViz(r: LabResult<'compute_budget'>, host: HTMLElement) {
    const o = r.outputs;
    const budget = o.train_flops as number, per = o.flops_per_param_per_token as number;
    const Nc = r.inputs.N as number;
    const f = (v: number, u: string) => this.engine!.format(v, u);
    const here = { N: Nc, loss: o.loss as number };
    // N range: three decades either side of the curves' minima (found once per budget), widened
    // to the decade of the current N; a drag inside it keeps the curves and moves the marker
    const bkey = JSON.stringify([budget.toPrecision(3), per, r.inputs.checkpointing]); // D follows N rounded to 4 digits
    if (bkey !== this.optKey) { this.opt = this.optima(budget, per, r.inputs.checkpointing); this.optKey = bkey; }
    // on the same budget the range only widens: an N that left it and came back redraws nothing
    const drawn = this.range?.bkey === bkey ? this.range : null;
    const d0 = Math.min(Math.floor(Math.log10(this.opt[0])) - 3, Math.floor(Math.log10(Nc)), drawn?.d0 ?? Infinity);
    const d1 = Math.max(Math.ceil(Math.log10(this.opt[1])) + 3, Math.ceil(Math.log10(Nc)), drawn?.d1 ?? -Infinity);
    this.range = { bkey, d0, d1 };
    const key = JSON.stringify([bkey, d0, d1]);
    const describe = (bi: number, bc: number) => `At this budget (${f(budget, 'FLOPs')}) the invented curve is lowest near N = ${f(bi, 'count')}, the Chinchilla fit near N = ${f(bc, 'count')}. This configuration, N = ${f(Nc, 'count')}, gives loss ${this.veils('loss') ? '(hidden until you check your prediction)' : f(here.loss, '')} on the ${String(o.curve)} curve. The invented curve's constants are made up for teaching.`;
    // what the hint asks the reader to watch, beside the chart the slider moves (the verdict and
    // the table are below the fold on a phone): N, the D the fixed budget leaves, the weights
    const nowText = `N = ${f(Nc, 'count')}, D = ${f(r.inputs.D as number, 'tokens')}; weights ${this.engine!.format(o.moe_total_bytes ?? o.weight_bytes, 'bytes')}${o.moe_total_bytes != null ? ' stored' : ''}`;
    const nowLine = host.querySelector('.cb-now');
    if (nowLine) nowLine.textContent = nowText;
    if (key === this.curveKey && this.chart && host.contains(this.chart) && this.moveMarker(here)) {
      const svg = this.chart instanceof SVGSVGElement ? this.chart : this.chart.querySelector('svg');
      svg?.setAttribute('aria-description', describe(Number(svg.dataset.bi), Number(svg.dataset.bc)));
      return;
    }
    const curves = this.builtControls.find((c) => c.path === 'curve')!.schema.choices ?? [];
    const base: Record<string, unknown> = { checkpointing: r.inputs.checkpointing };
    const pts: { N: number; D: number; loss: number; curve: string }[] = [];
    const K = 25;
    for (const curve of curves) {
      for (let i = 0; i < K; i++) {
        const N = 10 ** (d0 + ((d1 - d0) * i) / (K - 1));
        const D = budget / (per * N); // the fixed-budget line N·D = budget / per
        const e = this.engine!.evaluate(this.calculator, { ...base, N, D, curve }, { steps: false });
        if (!isError(e)) pts.push({ N, D, loss: e.outputs.loss as number, curve: curve === 'invented' ? 'invented curve (not a measurement)' : 'Chinchilla fit (Hoffmann et al. 2022)' });
      }
    }
    const best = (name: string) => pts.filter((p) => p.curve.startsWith(name)).reduce((a, b) => (b.loss < a.loss ? b : a), { loss: Infinity, N: 0, D: 0, curve: '' });
    const bi = best('invented'), bc = best('Chinchilla');
    const width = this.vizWidth();
    const chart = Plot.plot({
      width, height: Math.round(Math.min(320, width * 0.55)), marginLeft: 56, marginBottom: 42,
      ariaLabel: 'Loss against parameter count N along the fixed-budget line (N·D constant), log x axis',
      ariaDescription: describe(bi.N, bc.N),
      style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
      color: { legend: true, domain: ['invented curve (not a measurement)', 'Chinchilla fit (Hoffmann et al. 2022)'], range: [SERIES.others[2], SERIES.memory] },
      x: { type: 'log', label: 'Parameters N (D = budget ÷ (6 or 8 · N)) →', tickFormat: (d: number) => f(d, 'count'), ticks: decadeTicks(10 ** d0, 10 ** d1, width - 76, (d) => f(d, 'count')) },
      y: { label: '↑ Loss', grid: true },
      marks: [
        Plot.line(pts, { x: 'N', y: 'loss', stroke: 'curve', strokeWidth: 2, ariaHidden: 'true' }),
        Plot.dot([here], { x: 'N', y: 'loss', r: 6, fill: 'currentColor', ariaHidden: 'true', className: 'cb-point' }),
      ],
    });
    chart.classList.add('cb-plot');
    const svg = chart instanceof SVGSVGElement ? chart : chart.querySelector('svg');
    if (svg) { svg.dataset.bi = String(bi.N); svg.dataset.bc = String(bc.N); }
    const line = host.ownerDocument.createElement('p');
    line.className = 'cb-now';
    line.textContent = nowText;
    host.replaceChildren(line, chart);
    this.chart = chart as typeof this.chart;
    this.curveKey = key;
  }

  private range: { bkey: string; d0: number; d1: number } | null = null;
  private optKey = '';
  private opt: [number, number] = [1, 1];
  /** the smallest and largest N at which the two curves bottom out on this budget line (coarse scan) */
  private optima(budget: number, per: number, checkpointing: unknown): [number, number] {
    const nS = this.builtControls.find((c) => c.path === 'N')!.schema;
    const lo = Math.max(this.bound('N', 'min'), budget / (per * this.bound('D', 'max'))), hi = Math.min(this.bound('N', 'max'), budget / per);
    const mins: number[] = [];
    for (const curve of nS && this.builtControls.find((c) => c.path === 'curve')!.schema.choices || []) {
      let best = { N: lo, loss: Infinity };
      for (let i = 0; i <= 28; i++) {
        const N = lo * (hi / lo) ** (i / 28);
        const e = this.engine!.evaluate(this.calculator, { checkpointing, N, D: budget / (per * N), curve }, { steps: false });
        if (!isError(e) && (e.outputs.loss as number) < best.loss) best = { N, loss: e.outputs.loss as number };
      }
      mins.push(best.N);
    }
    return mins.length ? [Math.min(...mins), Math.max(...mins)] : [lo, hi];
  }

  /** move the current-point marker using the chart's own scales; false if it cannot */
  private moveMarker(p: { N: number; loss: number }): boolean {
    const x = this.chart?.scale?.('x'), y = this.chart?.scale?.('y');
    const dot = this.chart?.querySelector('.cb-point circle');
    if (!x || !y || !dot) return false;
    const cx = x.apply(p.N), cy = y.apply(p.loss);
    if (!Number.isFinite(cx) || !Number.isFinite(cy)) return false;
    dot.setAttribute('cx', String(cx));
    dot.setAttribute('cy', String(cy));
    dot.removeAttribute('transform');
    return true;
  }
}

defineLab('sl-compute-budget-lab', ComputeBudgetLab);
