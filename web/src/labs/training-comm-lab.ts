// <sl-training-comm-lab>: the communication roofline of one parallelism strategy (chapters 5, 12).
// The reader picks DP, FSDP, TP, FSDP+TP, PP or EP, the model, the chip, the degree and the
// global batch; the plot shows the engine's per-layer FLOP time and communication time against
// the tokens each chip processes (one engine evaluation per point, log axes), the current batch
// marked and, where the strategy has one, the critical batch per chip where the comms stop
// binding. Every number is the engine's training_comm; this file only picks which points to draw.
import { html, nothing } from 'lit';
// Plot is fetched with the engine (./plot), not a static import: it stays off the first paint.
import { ChartCache, Plot, SERIES, logLogFrame, moveMarker, showIn, timeAxisY } from './plot';
import { ONE_DEVICE_KINDS, byChip, chipCount, chipsNoun, emptyChips, defineLab, type ChipFacts, type StartFn, type LabResult, LabElement, type Control, type ControlSpec, type OutputSpec, type OutputName } from './lab-element';
import { MODEL_PICKER } from './model-picker';
import { isError, type Result } from '../engine';

type O = Record<string, unknown>;
interface Pt { x: number; t_math_s: number; t_comm_s: number }
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const cap = (s: string) => s[0].toUpperCase() + s.slice(1);

/** what each strategy is called on screen, and what it sends over the network */
const STRATEGY: Record<string, { name: string; sends: string }> = {
  dp: { name: 'data parallelism', sends: 'the gradient AllReduce' },
  fsdp: { name: 'FSDP', sends: 'the weight AllGathers' },
  tp: { name: 'tensor parallelism', sends: 'the activation AllGathers and ReduceScatters' },
  fsdp_tp: { name: 'FSDP with tensor parallelism', sends: 'the weight and activation collectives' },
  pp: { name: 'pipelining', sends: 'the activations passed between stages' },
  ep: { name: 'expert parallelism', sends: 'the token AllToAlls' },
  dcn_dp: { name: 'data parallelism across pods (DCN)', sends: 'the gradient AllReduce over the data-centre network' },
};
/** The chips the lab opens on: a 256-chip slice on a TPU, a node of GPUs, one device of the
 *  reader's own (whose reason the model's opening value says, with the model). */
const chipsStart: StartFn = chipCount(256);
const ownDevice = (c: ChipFacts) => ONE_DEVICE_KINDS.includes(c.kind);
const chipsWhy = chipsStart.why!;
// a node of GPUs is said with the model it opens on (modelStart.why), in one sentence
chipsStart.why = (c) => (ownDevice(c) || (c.kind !== 'tpu' && c.nodeGpus) ? null : chipsWhy(c));
/** The model the lab opens on, one whose training state the opening chips hold, so the lab does not
 *  open on a run that cannot start: LLaMA-3 70B on a 256-chip TPU slice; LLaMA-3 8B on a node of 8
 *  GPUs (70B's state, about 16 bytes a parameter, is 140 GB a GPU even spread over all 8); on the
 *  reader's own device Llama 3.2 1B on a card of 20 GB or more, GPT-2 small below. */
const modelStart: StartFn = (c) =>
  ownDevice(c) ? ((c.memoryBytes ?? 0) >= 20e9 ? 'llama3.2-1b' : 'gpt2-124m') : c.kind === 'tpu' ? 'llama3-70b' : 'llama3-8b';
modelStart.why = (c) =>
  ownDevice(c) ? `The ${c.name} is one device: the lab starts on one, with a small model it can train.`
    : c.kind === 'tpu' ? null
    : c.nodeGpus ? `The lab starts on LLaMA-3 8B over one node of ${c.nodeGpus} ${c.name} GPUs: LLaMA-3 70B’s training state does not fit in one node.`
    : 'On one GPU the lab starts on LLaMA-3 8B: LLaMA-3 70B’s training state does not fit in one.';
/** The data-centre network between pods is a TPU pod's: a GPU or a reader's device has no such choice. */
const offersStrategy = (v: string, c: ChipFacts | null) => v !== 'dcn_dp' || !c || c.kind === 'tpu';
/** a strategy that shards experts needs a mixture-of-experts model: switching to it picks this one */
const MOE_FOR_EP = 'deepseek-v3';

export class TrainingCommLab extends LabElement<'training_comm'> {
  // the preset: pure FSDP of LLaMA-3 70B over 256 chips (a TPU v5e pod; GPUs have no catalog pod
  // to fall back on) at a 4M-token batch; on the default chip that is above the critical batch, so
  // dragging the batch down flips it. A strategy's own degree shares the 256 chips with DP.
  readonly controls: ControlSpec[] = [
    { path: 'strategy', label: 'parallelism strategy', choiceLabels: Object.fromEntries(Object.entries(STRATEGY).map(([k, v]) => [k, cap(v.name)])), offers: offersStrategy },
    { ...MODEL_PICKER, start: modelStart },
    // one device opens on 16 sequences of 4,096 tokens a step, not a pod's 4M
    { path: 'batch_tokens', label: (c) => `global batch: tokens in one training step (per ${chipsNoun(c).replace(/s$/, '')} = this ÷ ${chipsNoun(c)})`, main: true, start: byChip({ device: 65536, tpu: 4194304, gpu: 4194304 }) },
    { path: 'chips', label: (c) => `${chipsNoun(c)} (empty: ${emptyChips(c)}, or the product of the degrees)`, start: chipsStart },
    { path: 'tp', label: 'tensor-parallel degree', onlyWith: { strategy: 'tp' }, start: 8 },
    { path: 'pp', label: 'pipeline stages', onlyWith: { strategy: 'pp' }, start: 8 },
    { path: 'ep', label: 'expert-parallel degree', onlyWith: { strategy: 'ep' }, start: 8 },
  ];
  readonly hint = 'Try this: drag the global batch down and watch the verdict turn comms-bound where the tokens per chip pass the marked critical batch; then switch the strategy to TP and see that the batch no longer moves the bound.';
  protected hintText() { return this.ownWords(this.hintWords()); }
  private hintWords() {
    if (this.state.chipFacts && ownDevice(this.state.chipFacts)) return 'Try this: drag the global batch and watch one device’s layer time grow with its tokens; then pick TPU v5e or H100 in the Chip menu at the top of the page: where hundreds of accelerators share the work and the network joins in.';
    // tensor, pipeline and expert parallelism send as much more as the batch adds FLOPs: their bound does not move with it
    const s = String(this.values.get('strategy'));
    if (s === 'tp') return 'Try this: drag the global batch and see both lines rise together (the batch does not move this bound); then change the tensor-parallel degree, which does.';
    if (s === 'pp' || s === 'ep') return `Try this: drag the global batch and see both lines rise together: the batch does not move this bound; then switch the strategy to FSDP, whose critical batch it crosses.`;
    return this.hint;
  }
  readonly outputs: OutputSpec<'training_comm'>[] = [
    'tokens_per_chip',
    't_math_s',
    't_comm_s',
    'critical_tokens_per_chip',
    'critical_batch_tokens',
    'max_chips',
    'chips',
    'fabric',
    'collective_intensity',
    { name: 'tp_limit', label: 'Tensor-parallel degree at which the collectives take as long as the matmuls' },
    { name: 'critical_F', label: 'Critical MLP width' },
  ];
  protected readonly hasViz = true;

  private curveKey = '';
  private curve = new Map<number, Pt | null>();


  /** A degree field the strategy does not use is left out, not shown greyed at 8 (it appears with
   *  its strategy); on the reader's one device there are no degrees to set. */
  protected renderControl(c: Control) {
    if (['tp', 'pp', 'ep'].includes(c.path) && !this.state.applies(c)) return html``;
    return super.renderControl(c);
  }

  /** switching to EP with a dense model would only earn a refusal: offer the catalog's MoE model */
  protected controlChanged(c: Control) {
    if (c.path !== 'strategy' || this.values.get('strategy') !== 'ep') return;
    const model = this.engine!.models.find((m) => m.id === this.values.get('model'));
    const experts = num((model as O | undefined)?.E) ?? 1;
    const picker = this.builtControls.find((x) => x.path === 'model');
    if (experts <= 1 && picker) this.setValue(picker, MOE_FOR_EP);
  }

  /** The curve at these tokens per chip: the points not cached yet come from one engine sweep of the global batch. */
  private points(base: O, chips: number, xs: number[]): Pt[] {
    const missing = xs.filter((x) => !this.curve.has(x));
    if (missing.length) {
      const s = this.engine!.sweep('training_comm', { ...base, batch_tokens: missing[0] * chips }, { x: { param: 'batch_tokens', values: missing.map((x) => x * chips) }, outputs: ['t_math_s', 't_comm_s'] });
      if (!isError(s)) {
        s.x.values.forEach((b, i) => {
          const tm = num(s.outputs.t_math_s?.[i]), tc = num(s.outputs.t_comm_s?.[i]);
          this.curve.set(b / chips, tm !== null && tc !== null ? { x: b / chips, t_math_s: tm, t_comm_s: tc } : null);
        });
      }
      for (const x of missing) if (!this.curve.has(x)) this.curve.set(x, null);
    }
    return xs.map((x) => this.curve.get(x)).filter((p): p is Pt => p != null);
  }

  /** the fabric in the engine's words for it (its choice title), not its identifier; the
   *  tensor-parallel limit as a bare number (a degree is a count of ways, "13.1 ways" is not one) */
  protected fmt(name: OutputName<'training_comm'>): string {
    const v = this.result?.outputs[name];
    if (name === 'tp_limit' && typeof v === 'number') return this.count(v);
    return name === 'fabric' && typeof v === 'string' ? this.choiceText('fabric', v) : super.fmt(name);
  }

  /** whether the model's training state overflows the memory of one device, or of each of several
   *  chips with the state spread evenly over them (the engine's training_memory, with one sequence's
   *  activations each: the least a step holds), so the verdict does not quote a time or a range for
   *  a run that cannot start there as if it could */
  private weightsKey = '';
  private weights: { bytes: number; memory: number; weights: number } | null = null;
  private weightsOverflow(r: LabResult<'training_comm'>, chips = 1): { bytes: number; memory: number; weights: number } | null {
    // over several chips: the state spread evenly over all of them (FSDP), one sequence each
    // (with block rematerialisation, as a run this large is trained: without it the activations alone overflow)
    const q: Record<string, unknown> = { chips, checkpointing: 'block' };
    for (const k of ['chip', 'chip_overrides', 'model', 'model_overrides', 'weight_dtype', 'T']) if (r.inputs[k] !== undefined) q[k] = r.inputs[k];
    const key = JSON.stringify(q);
    if (key !== this.weightsKey) {
      this.weightsKey = key;
      const T = num(q.T);
      const m = this.engine!.evaluate('training_memory', { ...q, batch_tokens: T !== null ? T * chips : undefined }, { steps: false });
      const o = isError(m) ? null : m.outputs;
      const bytes = num(o?.bytes_per_chip), memory = num(o?.hbm_bytes), weights = num(o?.params_bytes_per_chip);
      this.weights = bytes !== null && memory !== null && weights !== null && o?.fits === false ? { bytes, memory, weights } : null;
    }
    return this.weights;
  }

  /** on one device the verdict says there is nothing to communicate: the engine's note is not listed again */
  protected warningShown(w: string, r: LabResult<'training_comm'>): boolean { return !(this.alone(r) && /^One (device|chip)\b/.test(w)); }

  /** one chip: nothing crosses a network; the layer is its matmuls */
  private alone(r: LabResult<'training_comm'>): boolean {
    return num(r.outputs.chips) === 1 && !num(r.outputs.t_comm_s);
  }

  protected renderVerdict(r: LabResult<'training_comm'>) {
    const o = r.outputs;
    const bound = String(o.bound);
    if (this.alone(r)) {
      const one = this.onOwnDevice() ? 'device' : 'chip';
      const over = this.weightsOverflow(r);
      const f = (v: number) => this.engine!.format(v, 'bytes');
      // a run that cannot start here gets no time: what does not fit, and what would
      if (over) {
        return html`<p class="verdict" data-bound=${bound} data-fits="false">${this.fitWords(false, '', 'It does not fit')} on one ${one}: training this model takes at least ${f(over.bytes)}
          (the weights alone ${f(over.weights)}, then the optimizer state and one sequence's activations), more than the ${f(over.memory)} of ${this.memoryName()}, so no time is given for it.
          Pick a smaller model, or ${this.onOwnDevice() ? 'TPU v5e or H100 in the Chip menu at the top of the page, where the model is split over many of them' : this.ownWords('more chips')}.</p>`;
      }
      return html`<p class="verdict" data-bound=${bound}><strong>One ${one}, no communication</strong>: with nothing to share between ${one}s, every layer is its matmuls (${this.fig('t_math_s')} per layer in the ${String(o.pass)} pass at ${this.fig('tokens_per_chip')}).
        Pick TPU v5e or H100 in the Chip menu at the top of the page to see the network's share.</p>
        ${this.expected(r, 't_layer_s', 's', 'the speed of the layer-time bound')}`;
    }
    const s = STRATEGY[String(o.strategy)] ?? { name: String(o.strategy), sends: 'the collectives' };
    // a state these chips cannot hold even spread evenly: said first, and no published range for a run that cannot start
    const chips = num(o.chips) ?? 1;
    const over = this.weightsOverflow(r, chips);
    const b = (v: number) => this.engine!.format(v, 'bytes');
    const one = this.ownWords('chip');
    const noFit = over ? html`<p class="verdict-part" data-part="fit" data-fits="false">${this.fitWords(false, '', 'It does not fit')} on these ${this.fig('chips')}: even spread evenly over all of them, training this model takes ${b(over.bytes)} per ${one}
      (the weights alone ${b(over.weights)}, then the optimizer state and one sequence's activations), more than the ${b(over.memory)} of ${this.memoryName()}. The times below are the arithmetic of a run that cannot start here: pick a smaller model or more ${this.ownWords('chips')}.</p>` : nothing;
    const perLayer = `per layer in the ${String(o.pass)} pass`; // the pass the engine's per-layer figures describe
    const lead = bound === 'compute'
      ? html`the matmuls (${this.fig('t_math_s')} ${perLayer}) outlast ${s.sends} (${this.fig('t_comm_s')}), so the network hides under the FLOPs.`
      : html`${s.sends} (${this.fig('t_comm_s')} ${perLayer}) outlast the matmuls (${this.fig('t_math_s')}), so the ${this.ownWords('chips')} wait on the network.`;
    return html`${noFit}<p class="verdict verdict-${bound}" data-bound=${bound}><strong>${cap(bound)}-bound</strong> ${s.name} at ${this.fig('tokens_per_chip')} per ${this.ownWords('chip')}: ${lead}</p>
      ${this.criticalVerdict(r, bound)}
      ${over ? nothing : this.expected(r, 't_layer_s', 's', 'the speed of the layer-time bound (math and communication overlapped)')}`;
  }

  /** where the bound flips: the critical batch per chip, or what moves it when the batch cannot */
  private criticalVerdict(r: Result, bound: string) {
    const o = r.outputs;
    if (num(o.critical_tokens_per_chip) !== null) {
      const then = bound === 'compute' ? 'drag the batch below it and the verdict flips to comms-bound' : 'raise the batch above it and the verdict flips to compute-bound';
      // the collective intensity is per axis's bandwidth; FSDP and DP gather over every axis they
      // span at once, whose bandwidths add: the critical batch is the intensity ÷ those axes
      const axes = num(o.axes_fsdp), alpha = num(o.collective_intensity), crit = num(o.critical_tokens_per_chip)!;
      const split = axes !== null && axes > 1 && alpha !== null && Math.abs(alpha / axes - crit) <= 1e-6 * crit;
      return html`<p class="verdict-part" data-part="critical">Comms stop binding above the <strong>critical batch of <span class="critical">${this.fig('critical_tokens_per_chip')}</span> per ${this.ownWords('chip')}</strong>
        (${this.fig('critical_batch_tokens')} in all on these ${this.fig('chips')}): ${then}.</p>
        ${split ? html`<p class="verdict-part" data-part="intensity">The collective intensity, ${this.fig('collective_intensity')}, divides the chip's FLOP/s by one ICI axis's bandwidth; ${STRATEGY[String(o.strategy)]?.name ?? 'the strategy'} gathers over all ${this.count(axes)} axes it spans at once, whose bandwidths add, so the critical batch is that intensity ÷ ${this.count(axes)}.</p>` : nothing}`;
    }
    const why = this.ownWords('The batch does not move this bound: what crosses the network grows with the tokens per chip just as the FLOPs do, so both lines on the plot rise together.');
    const strategy = String(o.strategy);
    if (strategy === 'tp' && num(o.tp_limit) !== null) {
      return html`<p class="verdict-part" data-part="critical">${why} The degree moves it: tensor parallelism stays compute-bound up to ${this.count(Math.floor(num(o.tp_limit)!))}-way for this model (the matmuls and the collectives take equal time at a degree of ${this.fig('tp_limit')})${num(o.critical_F) !== null ? html`, or, at this degree, while the MLP is at least ${this.fig('critical_F')} wide` : nothing}.</p>`;
    }
    if (strategy === 'ep' && num(o.critical_F) !== null) {
      return html`<p class="verdict-part" data-part="critical">${why} The expert width moves it: at this degree the experts stay compute-bound when each is at least ${this.fig('critical_F')} wide.</p>`;
    }
    return html`<p class="verdict-part" data-part="critical">${why}</p>`;
  }

  protected drawViz(r: LabResult<'training_comm'>, host: HTMLElement) {
    const o = r.outputs;
    const chips = num(o.chips);
    const now = num(o.tokens_per_chip);
    if (chips === null || now === null || (this.alone(r) && this.weightsOverflow(r))) { host.replaceChildren(); return; }
    // the lab's own parameters, the batch varied per point (chips are fixed by the degrees or the pod)
    const base: O = this.params();
    delete base.batch_tokens;
    const key = JSON.stringify(base);
    if (key !== this.curveKey) { this.curveKey = key; this.curve.clear(); this.charts.clear(); }
    const crit = num(o.critical_tokens_per_chip);
    const top = (this.findSchema('batch_tokens')?.max ?? now * chips) / chips;
    // tokens per chip to draw: powers of √2 spanning the current batch and the critical batch,
    // with a margin of 2^5 each side; the ends move in powers of two so a drag re-uses the points
    // (the ends snap to powers of 16, so the axes and the curve stay put over most of a drag)
    const lo = Math.max(1, 16 ** Math.floor((Math.log2(Math.min(now, crit ?? now)) - 5) / 4));
    const hi = Math.min(top, 16 ** Math.ceil((Math.log2(Math.max(now, crit ?? now)) + 5) / 4));
    const xs: number[] = [];
    for (let x = lo; x <= hi; x *= Math.SQRT2) { const i = Math.round(x); if (xs[xs.length - 1] !== i) xs.push(i); }
    const pts = this.points(base, chips, xs);
    if (!pts.length) { host.replaceChildren(); return; }
    const f = (v: number, u: string) => this.engine!.format(v, u);
    const rows = pts.flatMap((p) => [
      ...(p.t_math_s > 0 ? [{ x: p.x, y: p.t_math_s, term: 'FLOPs (matmuls)' }] : []),
      ...(p.t_comm_s > 0 ? [{ x: p.x, y: p.t_comm_s, term: 'communication' }] : []),
    ]);
    const tNow = Math.max(num(o.t_math_s) ?? 0, num(o.t_comm_s) ?? 0);
    const critShown = crit !== null && crit >= xs[0] && crit <= xs[xs.length - 1];
    // the rule in the right half of the log axis: its label goes to its left
    const critRight = critShown && Math.log(crit / xs[0]) > 0.5 * Math.log(xs[xs.length - 1] / xs[0]);
    const width = this.vizWidth();
    const description = this.ownWords(`Per-layer time against tokens per chip, both axes logarithmic, for ${STRATEGY[String(o.strategy)]?.name ?? String(o.strategy)}. ` +
      `${crit !== null ? `The communication line crosses the FLOP line at the critical batch, ${this.veils('critical_tokens_per_chip') || this.veils('critical_batch_tokens') ? 'hidden until you check your prediction' : `${f(crit, 'tokens')} per chip`}; below it the layer is comms-bound. ` : 'The two lines run parallel: the batch does not change which one binds. '}` +
      `At ${f(now, 'tokens')} per chip the FLOPs take ${this.fmt('t_math_s')} and the communication ${this.fmt('t_comm_s')}: ${String(o.bound)}-bound.`);
    // same curve as the last drawing: move the batch marker only (the plot's own scales place it)
    const chartKey = JSON.stringify([key, xs, crit, width]);
    const drawn = this.charts.get(chartKey);
    if (drawn && moveMarker(drawn, now, tNow, description)) return showIn(host, drawn);
    const chart = Plot.plot({
      ...logLogFrame({ width, description, format: f, ariaLabel: 'Per-layer FLOP time and communication time against tokens per chip, from the engine',
        xLabel: `Tokens per ${chipsNoun(this.state.chipFacts).replace(/s$/, '')} →`, yLabel: '↑ Time per layer', xDomain: [xs[0], xs[xs.length - 1]], color: this.alone(r) ? { domain: ['FLOPs (matmuls)'], range: [SERIES.flops] } : { domain: ['FLOPs (matmuls)', 'communication'], range: [SERIES.flops, SERIES.comms] } }),
      marks: [
        ...timeAxisY(f, '↑ Time per layer'),
        // the comm line dashed: for TP, PP and EP the two lines run parallel and may nearly coincide
        Plot.line(rows.filter((d) => d.term !== 'communication'), { x: 'x', y: 'y', stroke: 'term', strokeWidth: 2.2, ariaHidden: 'true' }),
        Plot.line(rows.filter((d) => d.term === 'communication'), { x: 'x', y: 'y', stroke: 'term', strokeWidth: 2.2, strokeDasharray: '7 4', ariaHidden: 'true' }),
        critShown ? Plot.ruleX([crit], { stroke: 'currentColor', strokeDasharray: '4 3', ariaHidden: 'true', className: 'critical-batch' }) : null,
        // inside the frame, beside its rule, on the side with room, in two short lines (one line ran
        // past the frame's edge on a phone; above the frame it met the y axis's title)
        critShown ? Plot.text([crit], { x: (d: number) => d, frameAnchor: 'top', dy: 10, dx: critRight ? -5 : 5, text: () => `critical batch\n${f(crit, 'tokens')}`, lineAnchor: 'top', textAnchor: critRight ? 'end' : 'start', fill: 'currentColor', stroke: 'var(--bg)', strokeWidth: 4, paintOrder: 'stroke', ariaHidden: 'true', className: 'critical-batch' }) : null,
        Plot.ruleX([now], { stroke: 'currentColor', strokeOpacity: 0.5, ariaHidden: 'true', className: 'batch-rule' }),
        Plot.dot([{ x: now, y: tNow }], { x: 'x', y: 'y', r: 6, fill: 'currentColor', stroke: 'var(--bg)', strokeWidth: 2, ariaHidden: 'true', className: 'operating-point' }),
      ],
    });
    chart.classList.add('training-comm-plot');
    // the critical batch's rule and label are its figure: a Try-it asking for it hides them (tryit.ts)
    for (const g of chart.querySelectorAll('.critical-batch')) g.setAttribute('data-figure', 'critical_tokens_per_chip');
    host.replaceChildren(this.charts.put(chartKey, chart));
  }
  // the charts drawn, by their curve, axes and width (dragging back re-uses them)
  private charts = new ChartCache();
}

defineLab('sl-training-comm-lab', TrainingCommLab);
