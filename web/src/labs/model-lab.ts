// <sl-model-lab>: a Transformer's parameters by part, FLOPs per token, attention's share as the
// sequence grows, and the KV cache (chapter 4). Pick a catalog model or override its dims
// (GQA heads, MoE experts, MLA latent cache). Every number is the engine's `transformer`.
import { html, nothing, type TemplateResult } from 'lit';
import { NARROW_CHART_PX, Plot, SERIES, decadeTicks, tickRoom } from './plot';
import { defineLab, type OutputName, type LabResult, LabElement, type Control, type ControlSpec } from './lab-element';
import { MODEL_PICKER } from './model-picker';
import { forPeople } from './words';
import { isError, type Result } from '../engine';

/** the sentinel for "as the catalog model has it" in choice overrides */
const AS_MODEL = 'as in the model';
const DIMS = ['L', 'D', 'F', 'N', 'K', 'H', 'V', 'E', 'k', 'shared_experts', 'F_expert', 'attention', 'kv_lora_rank', 'qk_rope_head_dim'];
const PARTS: [string, string][] = [['params_embedding', 'embeddings'], ['params_attention', 'attention'], ['params_mlp', 'MLP'], ['params_norm', 'norms']];

export class ModelLab extends LabElement<'transformer'> {
  readonly usesChip = false;
  readonly controls: ControlSpec[] = [
    MODEL_PICKER,
    { path: 'T', main: true },
    { path: 'B', label: 'sequences in the batch' },
    { path: 'kv_dtype' },
    { path: 'weight_dtype' },
    ...DIMS.map((d) => ({ path: `model_overrides.${d}`, key: d })),
  ];
  readonly hint = "Try this: drag the sequence length up and watch attention's share of the training FLOPs grow.";
  protected readonly hasViz = true;
  private shareKey = '';
  private sharePts: { T: number; share: number }[] = [];
  private shareChart: (HTMLElement | SVGSVGElement) & { scale?: (n: string) => { apply: (v: number) => number } | undefined } | null = null;

  /** the model picker (the framework's, from model-picker.ts) lists the engine's catalog;
   *  override choices get an "as in the model" entry */
  protected adjustControl(c: Control): Control {
    if (c.schema.type === 'choice' && c.path.startsWith('model_overrides.')) c.schema = { ...c.schema, choices: [AS_MODEL, ...(c.schema.choices ?? [])], default: AS_MODEL };
    else if (c.path.startsWith('model_overrides.')) c.schema = { ...c.schema, default: null };
    return c;
  }
  private catalogModel(): Record<string, unknown> | undefined {
    return this.engine!.models.find((m) => m.id === this.values.get('model'));
  }
  protected renderControl(c: Control): TemplateResult {
    if (!c.path.startsWith('model_overrides.')) return super.renderControl(c);
    const m = this.catalogModel();
    const name = c.path.split('.')[1];
    // (an expert's MLP width is the model's MLP width where the catalog gives none)
    const own = m?.[name] ?? (name === 'F_expert' ? m?.F : undefined);
    // the model field's words: Plain drops the identifiers the catalog's doc carries ("(d_model)")
    // ("(default F)": the symbol a Plain reader was not given; the label says what empty keeps)
    const doc = this.technical ? String(c.schema.doc) : name === 'attention' ? 'attention: grouped-query (multi-head and multi-query too) or multi-head latent' : forPeople(String(c.schema.doc)).replace(/\s*\(default F\)/, '');
    // what an empty field keeps, said once after the words (a select says it in its first entry)
    const keeps = c.schema.type === 'choice' ? '' : own != null ? `; empty: the model’s ${typeof own === 'number' ? this.engine!.format(own, 'count') : this.choiceWords(name, own)}` : '; empty: as in the model';
    return super.renderControl({ ...c, label: `${doc}${keeps}` });
  }
  /** a model's choice field (attention gqa / mla) as the override menu titles it */
  private choiceWords(name: string, v: unknown): string {
    if (this.technical) return String(v);
    return ({ gqa: 'grouped-query', mla: 'multi-head latent' } as Record<string, string>)[String(v)] ?? String(v);
  }
  protected adjustParams(p: Record<string, unknown>) {
    const o = p.model_overrides as Record<string, unknown> | undefined;
    if (o) {
      for (const [k, v] of Object.entries(o)) if (v === '' || v == null || v === AS_MODEL) delete o[k];
      if (!Object.keys(o).length) delete p.model_overrides;
    }
  }

  /** an empty override's slider sits at the catalog model's own value */
  emptyValue(c: Control): unknown {
    if (!c.path.startsWith('model_overrides.')) return super.emptyValue(c);
    const m = this.catalogModel(), name = c.path.split('.')[1];
    return m?.[name] ?? (name === 'F_expert' ? m?.F : null) ?? null;
  }
  protected renderControlsIntro(): TemplateResult {
    // (Technical keeps the book's symbols; Plain says it with the fields' own words)
    return this.technical
      ? html`<p class="ml-note">Override any dimension below to build your own model: K &lt; N is grouped-query attention (K = 1: multi-query), E &gt; 1 with k active experts is a mixture of experts, multi-head latent attention (MLA) with a latent rank caches a compressed key/value.</p>`
      : html`<p class="ml-note">Override any dimension below to build your own model: fewer key/value heads than query heads is grouped-query attention (a single key/value head: multi-query); more than one expert, with a few active per token, is a mixture of experts; multi-head latent attention with a latent rank caches a compressed key and value.</p>`;
  }

  /** the parameters bar's place, under the verdict (drawViz draws it there) */
  protected renderAfterVerdict() { return html`<div class="md-bar-box"></div>`; }

  protected renderVerdict(r: LabResult<'transformer'>) {
    const o = r.outputs;
    const moe = (o.params_active as number) < (o.params_total as number);
    return html`<p class="verdict"><strong>${this.fig('params_total')}</strong>${moe ? html` (<strong>${this.fig('params_active')}</strong> active per token)` : nothing};
      ${this.fig('flops_fwd_per_token')} per token forward, ${this.fig('train_flops_per_token')} to train.
      At a sequence length of ${this.engine!.format(r.inputs.T, 'tokens')}, attention is <strong>${this.fig('attention_flop_fraction')}</strong> of the training FLOPs;
      the KV cache holds ${this.fig('kv_bytes_per_token')} per token, ${this.fig('kv_bytes_per_sequence')} per sequence.</p>`;
  }

  protected renderOutputs(r: LabResult<'transformer'>) {
    const rows: [OutputName<'transformer'>, string][] = [['params_total', 'Parameters, total'], ['params_active', 'Parameters, active per token'], ['params_embedding', 'Embeddings'],
      ['params_attention', 'Attention'], ['params_mlp', 'MLP'], ['params_mlp_active', 'MLP, active'], ['params_norm', 'Norms'],
      ['flops_fwd_per_token', 'FLOPs per token, forward'], ['train_flops_per_token', 'FLOPs per token, training'],
      ['attention_flops_train', 'Attention FLOPs, training (the whole batch)'], ['train_flops', 'Training FLOPs (the whole batch)'],
      ['attention_flop_fraction', 'Attention share of training FLOPs'], ['attention_crossover_T', 'Sequence length where attention equals the matmuls'],
      ['kv_bytes_per_token', 'KV cache per token'], ['kv_bytes_per_sequence', 'KV cache per sequence'], ['weight_bytes', 'Weight bytes']];
    return html`<dl class="lab-outputs">${rows.filter(([n]) => r.outputs[n] != null).map(([n, l]) => html`<div data-out=${n}><dt>${l}</dt>${this.valueCell(n)}</div>`)}</dl>`;
  }

  protected drawViz(r: LabResult<'transformer'>, host: HTMLElement) {
    const o = r.outputs;
    const f = (v: number, u: string) => this.engine!.format(v, u);
    const base = this.params();
    const T0 = r.inputs.T as number;
    // T over the schema's whole range (from 16 tokens): dragging T keeps both charts and moves the marker
    const lo = Math.max(this.bound('T', 'min'), Math.min(16, T0)), hi = this.bound('T', 'max');
    const key = JSON.stringify([{ ...base, T: null }, lo, hi]);
    const here = { T: T0, share: o.attention_flop_fraction as number };
    const cross = o.attention_crossover_T as number | null;
    const pct = (x: number) => `${(100 * x).toPrecision(3)}%`;
    const describe = (pts: { T: number; share: number }[]) => `The share grows from ${pct(pts[0]?.share ?? 0)} at a sequence length of ${f(pts[0]?.T ?? lo, 'tokens')} to ${pct(pts[pts.length - 1]?.share ?? 0)} at ${f(pts[pts.length - 1]?.T ?? hi, 'tokens')}; at ${f(T0, 'tokens')} it is ${pct(here.share)}.${cross ? ` Attention equals the matmuls at about ${f(cross, 'tokens')}.` : ''}`;
    if (key === this.shareKey && this.shareChart && host.contains(this.shareChart) && this.querySelector('.md-bar-box')?.firstChild && this.moveMarker(here)) {
      this.shareChart.setAttribute('aria-description', describe(this.sharePts));
      return;
    }
    const parts = PARTS.map(([k, label]) => ({ part: label, n: o[k] as number, row: 'all parameters' }));
    if ((o.params_active as number) < (o.params_total as number)) {
      parts.push(...PARTS.map(([k, label]) => ({ part: label, n: (k === 'params_mlp' ? o.params_mlp_active : o[k]) as number, row: 'active per token' })));
    }
    const width = this.vizWidth();
    // on a phone: a dense model's one bar needs no row label, a mixture's two short ones ("all",
    // "active"), so the parameters' axis has room for four ticks
    const narrow = width < NARROW_CHART_PX, rows = parts.length > 4;
    const rowWords = (row: string) => (narrow ? (row === 'all parameters' ? 'all' : 'active') : row);
    const left = !narrow ? 110 : rows ? 52 : 14;
    const bar = Plot.plot({
      width, height: rows ? 130 : 100, marginLeft: left, marginRight: narrow ? 24 : 20, marginBottom: 36,
      ariaLabel: 'Parameters by part, stacked horizontal bar',
      ariaDescription: PARTS.map(([k, l]) => `${l}: ${f(o[k] as number, 'count')}`).join('; ') + '.',
      style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
      color: { legend: true, domain: PARTS.map((p) => p[1]), range: [SERIES.muted, SERIES.kv, SERIES.memory, SERIES.others[2]] },
      x: { label: 'Parameters →', tickFormat: (d: number) => f(d, 'count'), ticks: tickRoom(width - left - 20, 2) },
      y: { label: null, axis: narrow && !rows ? null : 'left', tickFormat: rowWords },
      marks: [Plot.barX(parts, Plot.stackX({ y: 'row', x: 'n', fill: 'part', ariaHidden: 'true' }))],
    });
    // attention's share of training FLOPs as T grows: one engine evaluation per point
    const pts: { T: number; share: number }[] = [];
    const K = 29;
    for (let i = 0; i < K; i++) {
      const T = Math.round(lo * (hi / lo) ** (i / (K - 1)));
      const e = this.engine!.evaluate('transformer', { ...base, T }, { steps: false });
      if (!isError(e)) pts.push({ T, share: e.outputs.attention_flop_fraction as number });
    }
    const share = Plot.plot({
      // (on a phone the unit once in the axis title and bare counts on the ticks: four of them fit)
      width, height: Math.round(Math.max(190, Math.min(240, width * 0.45))), marginLeft: narrow ? 44 : 56, marginRight: narrow ? 24 : 40, marginBottom: 42,
      ariaLabel: 'Attention share of training FLOPs against sequence length T, log T axis',
      ariaDescription: describe(pts),
      style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
      x: { type: 'log', label: narrow ? 'Sequence length (tokens) →' : 'Sequence length →', domain: [lo, hi], tickFormat: (d: number) => f(d, narrow ? 'count' : 'tokens'),
        // (a bare count's label, "100,000", is narrower than the 64 px decadeTicks allows each: the room of four)
        ticks: decadeTicks(lo, hi, width - (narrow ? 52 : 96), (d) => f(d, narrow ? 'count' : 'tokens')) },
      y: { label: '↑ Attention share of training FLOPs', domain: [0, 1], tickFormat: (d: number) => `${Math.round(d * 100)}%`, grid: true },
      marks: [
        Plot.line(pts, { x: 'T', y: 'share', stroke: SERIES.kv, strokeWidth: 2.5, ariaHidden: 'true' }),
        ...(cross && cross >= lo && cross <= hi ? [Plot.ruleX([cross], { stroke: 'var(--muted)', strokeDasharray: '4 3', ariaHidden: 'true' }),
          // what the dashed line marks, said on it (it was only in the table)
          Plot.text([cross], { x: (d: number) => d, frameAnchor: 'top', dy: 6, lineAnchor: 'top', dx: cross > Math.sqrt(lo * hi) ? -6 : 6, textAnchor: cross > Math.sqrt(lo * hi) ? 'end' : 'start', text: () => (width < NARROW_CHART_PX ? `attention =\nmatmuls at\n${f(cross, 'tokens')}` : `attention = matmuls at ${f(cross, 'tokens')}`), fill: 'currentColor', stroke: 'var(--bg)', strokeWidth: 4, paintOrder: 'stroke', ariaHidden: 'true' })] : []),
        Plot.dot([here], { x: 'T', y: 'share', r: 6, fill: 'currentColor', stroke: 'var(--bg)', strokeWidth: 2, ariaHidden: 'true', className: 'md-point' }),
      ],
    });
    bar.classList.add('md-bar');
    share.classList.add('md-share');
    // the chart the sequence-length slider moves right under it, the verdict next; the parameters
    // (which the slider does not move) after the verdict
    host.replaceChildren(share);
    const barBox = this.querySelector<HTMLElement>('.md-bar-box');
    if (barBox) barBox.replaceChildren(bar); else host.append(bar);
    this.shareKey = key;
    this.sharePts = pts;
    this.shareChart = share as typeof this.shareChart;
  }

  /** move the current-T marker using the chart's own scales; false if it cannot */
  private moveMarker(p: { T: number; share: number }): boolean {
    const x = this.shareChart?.scale?.('x'), y = this.shareChart?.scale?.('y');
    const dot = this.shareChart?.querySelector('.md-point circle');
    if (!x || !y || !dot) return false;
    const cx = x.apply(p.T), cy = y.apply(p.share);
    if (!Number.isFinite(cx) || !Number.isFinite(cy)) return false;
    dot.setAttribute('cx', String(cx));
    dot.setAttribute('cy', String(cy));
    dot.removeAttribute('transform');
    return true;
  }
}

defineLab('sl-model-lab', ModelLab);
