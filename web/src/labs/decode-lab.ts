// <sl-decode-lab>: one decode step of a model on a slice (chapters 7, 12). The reader drags
// batch and context; the plot shows the engine's weight-load, KV-load and FLOP times over a
// range of batches (one engine evaluation per point), the current batch marked, and where the
// bound flips. Every number is the engine's; this file only chooses which points to draw.
import { html, nothing } from 'lit';
import * as Plot from '@observablehq/plot';
import { LabElement, type ControlSpec, type OutputSpec } from './framework';
import { MODEL_PICKER } from './model-picker';
import { isError, type Result } from '../engine';

type O = Record<string, unknown>;
interface Pt { batch: number; t_kv_s: number; t_weights_s: number; t_math_s: number; t_comm_s: number; step_s: number; bound: string }

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export class DecodeLab extends LabElement {
  readonly calculator = 'decode';
  readonly controlSpecs: ControlSpec[] = [
    MODEL_PICKER,
    { path: 'batch', label: 'batch: sequences decoded together' },
    { path: 'context', label: 'context: tokens in each KV cache' },
    { path: 'chips', label: 'chips the model is sharded over' },
    { path: 'weight_dtype' },
    { path: 'kv_dtype' },
    { path: 'compute_dtype' },
    { path: 'sharding' },
  ];
  readonly outputSpecs: OutputSpec[] = [
    { name: 'step_s', label: 'Step time' },
    { name: 'tokens_per_s', label: 'Tokens/s (slice)' },
    { name: 'tokens_per_s_per_chip', label: 'Tokens/s per chip' },
    { name: 't_weights_s', label: 'Weight load' },
    { name: 't_kv_s', label: 'KV-cache load' },
    { name: 't_math_s', label: 'FLOPs' },
    { name: 't_comm_s', label: 'Model-parallel comms' },
    { name: 'critical_batch', label: 'Critical batch (bound flips)' },
    { name: 'max_batch', label: 'Max batch by memory' },
    { name: 'min_chips', label: 'Min chips for the weights' },
    { name: 'weight_bytes', label: 'Weights' },
    { name: 'kv_bytes_per_sequence', label: 'KV cache per sequence' },
    { name: 'free_hbm_bytes', label: 'HBM left for KV caches' },
  ];
  protected readonly hasViz = true;

  // curve cache: the step over batch for everything but the batch (dragging batch re-uses it)
  private curveKey = '';
  private curve = new Map<number, Pt | null>();
  private chart: ReturnType<typeof Plot.plot> | null = null;
  private chartKey = '';

  private point(base: O, batch: number): Pt | null {
    if (this.curve.has(batch)) return this.curve.get(batch)!;
    const r = this.engine!.evaluate('decode', { ...base, batch });
    let p: Pt | null = null;
    if (!isError(r)) {
      const o = r.outputs;
      const t = ['t_kv_s', 't_weights_s', 't_math_s', 'step_s'].map((k) => num(o[k]));
      if (t.every((x) => x !== null)) {
        p = { batch, t_kv_s: t[0]!, t_weights_s: t[1]!, t_math_s: t[2]!, step_s: t[3]!, t_comm_s: num(o.t_comm_s) ?? 0, bound: String(o.bound) };
      }
    }
    this.curve.set(batch, p);
    return p;
  }

  protected renderVerdict(r: Result) {
    const o = r.outputs;
    const bound = String(o.bound);
    const b = num(r.inputs.batch);
    const crit = num(o.critical_batch);
    const fits = o.fits !== false;
    const what = bound === 'compute' ? 'the FLOPs' : bound === 'comms' ? 'the model-parallel collectives' : 'loading weights and KV caches from HBM';
    return html`<p class="verdict verdict-${bound}"><strong>${bound[0].toUpperCase() + bound.slice(1)}-bound</strong> at batch ${b ?? '—'}:
      ${what} set the step time, ${this.fmt('step_s')} (${this.fmt('tokens_per_s')} for the slice).
      ${crit !== null ? html`The MLP turns compute-bound above the critical batch, ${this.fmt('critical_batch')}.` : nothing}
      ${fits ? html`Memory holds up to ${this.fmt('max_batch')} of this context.`
        : num(o.max_batch) === 0 ? html`<strong class="lb-nofit">The weights alone do not fit</strong> on ${r.inputs.chips === 1 ? 'one chip' : `these ${this.engine!.format(r.inputs.chips, 'count')} chips`}: they need at least ${this.fmt('min_chips')}, so no batch fits.`
        : html`<strong class="lb-nofit">This batch does not fit</strong>: memory holds ${this.fmt('max_batch')} of this context.`}</p>`;
  }

  protected drawViz(r: Result, host: HTMLElement) {
    // the engine's resolved inputs of this result (defaults filled in), batch varied per point
    const base: O = structuredClone(r.inputs);
    delete base.batch;
    const key = JSON.stringify(base);
    if (key !== this.curveKey) { this.curveKey = key; this.curve.clear(); }
    const o = r.outputs;
    const b = num(r.inputs.batch) ?? 1;
    const crit = num(o.critical_batch);
    const maxB = num(o.max_batch);
    const top = this.findSchema('batch')?.max ?? b;
    // batches to draw: powers of two from 1 past the larger of the batch and the critical batch
    // the reach moves in powers of two only, so dragging the batch usually keeps the same curve
    const reach = Math.min(top, 2 ** Math.ceil(Math.log2(Math.max(b, crit ?? 1) * 4)));
    const xs: number[] = [];
    for (let x = 1; x <= reach; x *= Math.SQRT2) { const i = Math.round(x); if (xs[xs.length - 1] !== i) xs.push(i); }
    const pts = xs.map((x) => this.point(base, x)).filter((p): p is Pt => p !== null);
    const cur = { step_s: num(o.step_s) ?? 0, t_weights_s: num(o.t_weights_s) ?? 0, t_kv_s: num(o.t_kv_s) ?? 0, t_math_s: num(o.t_math_s) ?? 0 };
    const f = (v: number, u: string) => this.engine!.format(v, u);
    if (!pts.length) { host.replaceChildren(); this.chart = null; return; }
    // stacking (presentation): KV load at the bottom, the weight load and the FLOP time on top of it
    const kv = pts.map((p) => ({ x: p.batch, y1: 0, y2: p.t_kv_s }));
    const wt = pts.map((p) => ({ x: p.batch, y1: p.t_kv_s, y2: p.t_kv_s + p.t_weights_s }));
    const fl = pts.map((p) => ({ x: p.batch, y: p.t_kv_s + p.t_math_s }));
    const step = pts.map((p) => ({ x: p.batch, y: p.step_s }));
    const width = Math.max(300, Math.min(720, host.clientWidth || 640));
    const description = `Step time over batch (log axis). KV-cache load (bottom band) grows with the batch; the weight load on top of it is fixed; the FLOP time grows with the batch and overtakes the weight load at the critical batch ${crit !== null ? f(crit, 'count') : '(none)'}. At the chosen batch ${f(b, 'count')} the step takes ${f(cur.step_s, 's')}: weights ${f(cur.t_weights_s, 's')}, KV ${f(cur.t_kv_s, 's')}, FLOPs ${f(cur.t_math_s, 's')}; ${String(o.bound)}-bound.${maxB !== null ? ` Memory holds at most ${f(maxB, 'count')} sequences.` : ''}`;
    // same curve as the last drawing: move the marker only (the plot's own scales place it)
    const chartKey = `${key}|${xs.join(',')}|${width}`;
    if (this.chart && chartKey === this.chartKey && host.contains(this.chart)) {
      const x = this.chart.scale('x')!.apply(b), y = this.chart.scale('y')!.apply(cur.step_s);
      const dot = this.chart.querySelector('.operating-point circle');
      dot?.setAttribute('cx', String(x)); dot?.setAttribute('cy', String(y));
      this.chart.querySelectorAll('.batch-rule line').forEach((l) => { l.setAttribute('x1', String(x)); l.setAttribute('x2', String(x)); });
      this.chart.querySelector('[aria-description]')?.setAttribute('aria-description', description);
      return;
    }
    this.chartKey = chartKey;
    const chart = Plot.plot({
      width,
      height: Math.round(Math.min(340, width * 0.6)),
      marginLeft: 80,
      marginBottom: 42,
      ariaLabel: 'Decode step time against batch size, from the engine',
      ariaDescription: description,
      style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
      x: { type: 'log', label: 'Batch (sequences) →', tickFormat: (d: number) => f(d, 'count') },
      y: { label: '↑ Time per step', tickFormat: (d: number) => f(d, 's'), grid: true, ticks: 5 },
      color: { legend: true, domain: ['KV-cache load', 'weight load', 'FLOPs (overlap weights)', 'step time'], range: ['var(--warn)', 'var(--roof)', 'var(--ok)', 'currentColor'] },
      marks: [
        Plot.areaY(kv, { x: 'x', y1: 'y1', y2: 'y2', fill: () => 'KV-cache load', fillOpacity: 0.35, ariaHidden: 'true' }),
        Plot.areaY(wt, { x: 'x', y1: 'y1', y2: 'y2', fill: () => 'weight load', fillOpacity: 0.35, ariaHidden: 'true' }),
        Plot.line(fl, { x: 'x', y: 'y', stroke: () => 'FLOPs (overlap weights)', strokeWidth: 2, ariaHidden: 'true' }),
        Plot.line(step, { x: 'x', y: 'y', stroke: () => 'step time', strokeWidth: 1.5, strokeDasharray: '5 3', ariaHidden: 'true' }),
        crit !== null && crit <= xs[xs.length - 1] ? Plot.ruleX([crit], { stroke: 'var(--ok)', strokeDasharray: '4 3', ariaHidden: 'true', className: 'critical-batch' }) : null,
        crit !== null && crit <= xs[xs.length - 1] ? Plot.text([crit], { x: (d: number) => d, frameAnchor: 'top', text: () => `critical ${f(crit, 'count')}`, dx: -4, textAnchor: 'end', fill: 'currentColor', ariaHidden: 'true' }) : null,
        maxB !== null && maxB >= 1 && maxB <= xs[xs.length - 1] ? Plot.ruleX([maxB], { stroke: 'var(--warn)', strokeWidth: 2, ariaHidden: 'true' }) : null,
        maxB !== null && maxB >= 1 && maxB <= xs[xs.length - 1] ? Plot.text([maxB], { x: (d: number) => d, frameAnchor: 'bottom', dy: -14, text: () => `memory limit ${f(maxB, 'count')}`, dx: -4, textAnchor: 'end', fill: 'currentColor', ariaHidden: 'true' }) : null,
        Plot.ruleX([b], { stroke: 'currentColor', strokeOpacity: 0.5, ariaHidden: 'true', className: 'batch-rule' }),
        Plot.dot([{ x: b, y: cur.step_s }], { x: 'x', y: 'y', r: 6, fill: 'currentColor', stroke: 'var(--bg)', strokeWidth: 2, ariaHidden: 'true', className: 'operating-point' }),
      ],
    });
    chart.classList.add('decode-plot');
    host.replaceChildren(chart);
    this.chart = chart;
  }
}

customElements.define('sl-decode-lab', DecodeLab);
