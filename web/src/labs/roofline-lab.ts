// <sl-roofline-lab>: a matmul [B, D] · [D, F] on a chip's roofline (chapter 1).
import { html, nothing, type TemplateResult } from 'lit';
import { ChartCache, NARROW_CHART_PX, Plot, labelMargin, showIn } from './plot';
import { runsCalibrating } from '../published-runs';
import { defineLab, type LabResult, LabElement, type Control, type ControlSpec, type OutputName, type OutputSpec } from './lab-element';
import { isError, type Result } from '../engine';
import { pathAbsent } from './words';

export class RooflineLab extends LabElement<'roofline'> {
  readonly controls: ControlSpec[] = [
    { path: 'matmul.B', label: 'batch: tokens per model replica', main: true },
    { path: 'matmul.D', label: 'contracted dimension (model width)' },
    { path: 'matmul.F', label: 'output dimension (MLP width)' },
    { path: 'activation_dtype' },
    { path: 'weight_dtype' },
    { path: 'output_dtype' },
    { path: 'compute_dtype' },
    { path: 'bandwidth' },
    { path: 'links', onlyWith: { bandwidth: 'ici' } },
  ];
  /** the link the hint moves to is one this chip has: ICI on a TPU, NVLink on a GPU node, PCIe on the reader's own device */
  protected hintText() {
    const kind = this.state?.chipFacts?.kind;
    const path = kind === 'tpu' || !kind ? 'ici' : !this.onOwnDevice() && this.state.chipFacts?.nodeGpus ? 'nvlink' : kind === 'unified-memory' ? null : 'pcie';
    // (a Mac's unified memory has no PCIe link to a host: the hint stops at the critical batch)
    if (path === null) return 'Try this: drag the batch down until the point crosses the dashed critical line and watch the matmul turn memory-bound.';
    return `Try this: drag the batch down until the point crosses the dashed critical line and watch the matmul turn memory-bound; then switch the bandwidth to ${this.choiceText('bandwidth', path)}.`;
  }
  // one crossover: the batch at which the point reaches the dashed line (every byte counted), in
  // whole tokens; the B ≈ intensity shortcut (critical_batch) stays in the derivation and the notes
  readonly outputs: OutputSpec<'roofline'>[] = [
    'flops', 'bytes', 'intensity', 'critical_intensity', 't_math_s', 't_comm_s', 't_lower_s', 't_upper_s',
    { name: 'crossover_batch', label: 'smallest compute-bound batch (the first whose intensity reaches the dashed critical line)' },
  ];
  /** a batch is a whole number of tokens: the smallest one at or past the exact crossover */
  protected valueCell(name: OutputName<'roofline'>): TemplateResult {
    if (name !== 'crossover_batch') return super.valueCell(name);
    const b = Number(this.result!.outputs.crossover_batch);
    return html`<dd class="nowrap">${this.engine!.format(Math.ceil(b - 1e-9), 'tokens')}</dd>`;
  }
  protected readonly hasViz = true;
  /** the ICI links setting on a TPU only: hidden on a chip without ICI (greyed out on a TPU while
   *  another bandwidth is chosen) */
  private offChip(path: string): boolean {
    const kind = this.state?.chipFacts?.kind;
    return path === 'links' && !!kind && kind !== 'tpu';
  }
  protected controlApplies(c: Control): boolean | undefined { return this.offChip(c.path) ? false : undefined; }
  /** the bandwidth menu lists the paths the chip is built with (no ICI on a GPU, no NVLink on a
   *  card or a Mac, no PCIe on a Mac's unified memory), and the one chosen */
  protected renderControl(c: Control): TemplateResult {
    if (this.offChip(c.path)) return html``;
    const kind = this.state?.chipFacts?.kind;
    if (c.path !== 'bandwidth' || !kind) return super.renderControl(c);
    const now = String(this.values.get(c.path));
    return super.renderControl({ ...c, schema: { ...c.schema, choices: (c.schema.choices ?? []).filter((p) => p === now || !pathAbsent(kind, this.onOwnDevice(), p)) } });
  }
  /** the operation is a matmul; its B, D, F come from the controls */
  protected baseParams() { return { matmul: {} }; }

  protected renderVerdict(r: LabResult<'roofline'>) {
    const o = r.outputs as Record<string, number | string>;
    const bound = String(o.bound);
    const tm = o.t_math_s as number, tc = o.t_comm_s as number;
    const what = bound === 'compute' ? 'the math' : bound === 'memory' ? 'moving bytes to and from memory' : 'moving bytes over the network';
    const other = bound === 'compute' ? 'moving the bytes' : 'the math';
    const ratio = bound === 'compute' ? tm / tc : tc / tm;
    return html`<p class="verdict verdict-${bound}"><strong>${bound[0].toUpperCase() + bound.slice(1)}-bound</strong>:
      ${what} takes <span class="nowrap">${this.engine!.format(bound === 'compute' ? tm : tc, 's')}</span>, ${Number.isFinite(ratio) ? html`<span class="ratio nowrap">${ratio.toPrecision(3)}×</span> as long as ${other}` : nothing}
      (<span class="nowrap">${this.engine!.format(bound === 'compute' ? tc : tm, 's')}</span>).
      Intensity ${this.fig('intensity')} against the ${this.state.chipFacts?.name ?? 'chip'}'s ${this.fig('critical_intensity')}.</p>
      ${this.expected(r, 't_lower_s', 's', 'the speed of the full-overlap bound')}`;
  }

  /** Attainable FLOP/s at a given intensity, from the engine (raw flops/bytes mode).
   *  Cached per roof (chip, compute dtype, bandwidth, links) and intensity. */
  private roofCache = new Map<string, number | null>();
  private attainable(intensity: number): number | null {
    const p = this.params();
    const bytes = 1e9;
    const q: Record<string, unknown> = { chip: p.chip, flops: intensity * bytes, bytes };
    for (const k of ['compute_dtype', 'bandwidth', 'links', 'chip_overrides']) if (p[k] !== undefined) q[k] = p[k];
    const key = JSON.stringify(q);
    if (!this.roofCache.has(key)) {
      if (this.roofCache.size > 500) this.roofCache.clear();
      const r = this.engine!.evaluate('roofline', q, { steps: false });
      this.roofCache.set(key, isError(r) ? null : (r.outputs.flops as number) / (r.outputs.t_lower_s as number));
    }
    return this.roofCache.get(key)!;
  }

  protected drawViz(r: LabResult<'roofline'>, host: HTMLElement) {
    const o = r.outputs as Record<string, number | string>;
    const I = o.intensity as number, Ic = o.critical_intensity as number;
    // whole decades around the point and the knee: stable axes while dragging
    const lo = 10 ** Math.floor(Math.log10(Math.min(I, Ic) / 5)), hi = 10 ** Math.ceil(Math.log10(Math.max(I, Ic) * 5));
    const xs = [lo, Ic, hi];
    const roof = xs.map((x) => ({ x, y: this.attainable(x) })).filter((d) => d.y !== null) as { x: number; y: number }[];
    const point = { x: I, y: (o.flops as number) / (o.t_lower_s as number) };
    const f = (v: number, u: string) => this.engine!.format(v, u);
    const bound = String(o.bound);
    const width = this.vizWidth();
    const dotFill = bound === 'compute' ? 'var(--ok)' : 'var(--warn)';
    // on a phone's narrow plot the dot says "this matmul" by itself; the number is enough beside it
    const label = width < NARROW_CHART_PX ? f(point.y, 'FLOP/s') : `this matmul: ${f(point.y, 'FLOP/s')}`;
    const description = `The roof rises with slope one until the critical intensity ${f(Ic, 'FLOPs/byte')}, then stays flat at the chip's peak. This matmul sits at intensity ${f(I, 'FLOPs/byte')} and reaches ${f(point.y, 'FLOP/s')}: ${bound}-bound.`;
    // room above the roof for the point's label, clear of the published runs drawn just under it
    const yDomain: [number, number] | undefined = roof.length ? [roof[0].y / 4, 2 * Math.max(...roof.map((d) => d.y))] : undefined;
    const runs = this.publishedOnChart(r, [lo, hi], yDomain);
    const runsWords = runs.length ? ` Published matmuls on this chip, marked as diamonds: ${runs.map((d) => d.words).join('; ')}.` : '';
    // same roof, axes, runs and width as the last drawing: move the point and its label only
    const chartKey = JSON.stringify([roof, lo, hi, width, runs.map((d) => d.words)]);
    this.chart = this.charts.get(chartKey) ?? null;
    if (this.chart && this.movePoint(point, dotFill, label, description + runsWords)) return showIn(host, this.chart);
    // on a phone the unit once in the axis title (TFLOP/s, or GFLOP/s on a chip below one TFLOP/s),
    // plain numbers in it on the ticks ("300", "0.3": no SI letter to read as bytes or billions),
    // and a margin that holds them: the plot keeps the width
    const narrow = width < NARROW_CHART_PX;
    const yTicks = yDomain ? oneAndThree(yDomain) : null;
    const scale = yTicks && Math.max(...yTicks) < 1e12 ? { by: 1e9, unit: 'GFLOP/s' } : { by: 1e12, unit: 'TFLOP/s' };
    const yText = (d: number) => (narrow ? f(d / scale.by, 'count') : f(d, 'FLOP/s'));
    const chart = Plot.plot({
      width,
      height: Math.round(Math.min(340, width * 0.6)),
      marginLeft: narrow && yTicks ? labelMargin(yTicks.map(yText)) : 92,
      marginRight: 28, // the last tick's label (10,000), whole
      marginBottom: 42,
      ariaLabel: 'Roofline plot: attainable FLOP/s against arithmetic intensity, log–log',
      ariaDescription: description + runsWords,
      style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
      x: { type: 'log', label: 'Arithmetic intensity (FLOPs/byte) →', domain: [lo, hi], tickFormat: (d: number) => f(d, d >= 1000 ? 'count' : '') },
      // the y axis spans the roof and room above it (the point lies on the roof), so moving the point keeps the scales
      y: { type: 'log', domain: yDomain, label: narrow ? `↑ Attainable ${scale.unit}` : '↑ Attainable FLOP/s', tickFormat: yText, ticks: yTicks ?? 4, grid: true },
      marks: [
        Plot.areaY(roof, { x: 'x', y: 'y', y1: yDomain ? yDomain[0] : 1, fill: 'var(--roof-fill)', ariaHidden: 'true' }),
        Plot.line(roof, { x: 'x', y: 'y', stroke: 'var(--roof)', strokeWidth: 2.5, ariaHidden: 'true' }),
        Plot.ruleX([Ic], { stroke: 'var(--muted)', strokeDasharray: '4 3', ariaHidden: 'true' }),
        // at the foot of the dashed rule: the point is always on the roof, never down there
        Plot.text([{ x: Ic, y: yDomain ? yDomain[0] : 1 }], { x: 'x', y: 'y', text: () => `critical ${f(Ic, '')}`, dy: -6, dx: 4, textAnchor: 'start', fill: 'currentColor', ariaHidden: 'true', className: 'critical-label' }),
        Plot.dot(runs, { x: 'x', y: 'y', r: 5.5, symbol: 'diamond', fill: 'var(--accent)', stroke: 'var(--bg)', strokeWidth: 1.5, title: 'words', className: 'published-run' }),
        Plot.dot([point], { x: 'x', y: 'y', r: 7, fill: dotFill, stroke: 'var(--bg)', strokeWidth: 2, ariaHidden: 'true', className: 'operating-point' }),
        // (a halo: the dashed critical line runs behind the label, not through it, when the point is near it)
        Plot.text([point], { x: 'x', y: 'y', text: () => label, dy: -14, fill: 'currentColor', stroke: 'var(--bg)', strokeWidth: 4, paintOrder: 'stroke', ariaHidden: 'true', className: 'operating-label' }),
      ],
    });
    chart.classList.add('roofline-plot');
    this.placeLabel(chart);
    host.replaceChildren(chart);
    this.chart = this.charts.put(chartKey, chart);
  }
  /** The published large matmuls on the reader's chip and compute type (the runs behind the range)
   *  inside the chart's axes, at their intensity and the FLOP/s they reached. */
  private publishedOnChart(r: LabResult<'roofline'>, [lo, hi]: [number, number], y: [number, number] | undefined) {
    const chip = this.chipValue(), dtype = this.inputOr(r.inputs, 'compute_dtype');
    const f = (v: number, u: string) => this.engine!.format(v, u);
    return (runsCalibrating({ requestUpdate: () => this.redrawCharts() }, this.calculator, 't_lower_s') ?? [])
      .filter((m) => m.inputs.chip === chip && this.inputOr(m.inputs, 'compute_dtype') === dtype)
      .map((m) => {
        const flops = Number(m.inputs.flops), x = flops / Number(m.inputs.bytes), rate = flops / m.measured.value;
        return { x, y: rate, words: `${m.hardware}, ${m.published}: ${f(rate, 'FLOP/s')} at ${f(x, 'FLOPs/byte')} (${m.source.where})` };
      })
      .filter((d) => d.x >= lo && d.x <= hi && (!y || (d.y >= y[0] && d.y <= y[1])));
  }
  // the chart shown, and those drawn, by their roof, axes and width (dragging back re-uses them)
  private chart: ReturnType<typeof Plot.plot> | null = null;
  private charts = new ChartCache();

  /** the point's label, under the dot, runs to its right where it fits inside the plot, else to its
   *  left, else from the plot's left edge; its width estimated from its length (no layout read) */
  private placeLabel(chart: ReturnType<typeof Plot.plot>) {
    const text = chart.querySelector('.operating-label text');
    const dot = chart.querySelector('.operating-point circle');
    if (!text || !dot) return;
    const [left, right] = chart.scale('x')!.range as [number, number];
    const cx = Number(dot.getAttribute('cx')), w = (text.textContent ?? '').length * 6.6;
    let anchor = 'start', dx = -4;
    if (cx + dx + w > right) {
      anchor = 'end'; dx = 4;
      if (cx + dx - w < left) { anchor = 'start'; dx = left - cx; }
    }
    text.setAttribute('text-anchor', anchor);
    text.setAttribute('dx', String(dx));
  }
  /** the operating point and its label moved in the drawn chart's own scales; false if it cannot */
  private movePoint(point: { x: number; y: number }, fill: string, label: string, description: string): boolean {
    const cx = this.chart!.scale('x')!.apply(point.x), cy = this.chart!.scale('y')!.apply(point.y);
    const dot = this.chart!.querySelector('.operating-point circle');
    const text = this.chart!.querySelector('.operating-label text');
    if (!dot || !text || !Number.isFinite(cx) || !Number.isFinite(cy)) return false;
    dot.setAttribute('cx', String(cx)); dot.setAttribute('cy', String(cy)); dot.setAttribute('fill', fill);
    text.setAttribute('transform', `translate(${cx},${cy})`);
    text.textContent = label;
    this.placeLabel(this.chart!);
    this.chart!.querySelector('[aria-description]')?.setAttribute('aria-description', description);
    return true;
  }
}

defineLab('sl-roofline-lab', RooflineLab);

/** Log ticks at 1× and 3× each power of ten inside [lo, hi]: few enough to read on a phone. */
function oneAndThree([lo, hi]: [number, number]): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); 10 ** e <= hi; e++) for (const k of [1, 3]) if (k * 10 ** e >= lo && k * 10 ** e <= hi) ticks.push(k * 10 ** e);
  return ticks;
}
