// <sl-training-pod-lab>: a whole training run (chapter 6). LLaMA-3 70B on 15T tokens by default
// (the engine's defaults); the reader picks the chip, chip count, MFU and price and sees the
// FLOPs, days, dollars, the smallest slice by memory, and the engine's layout search: the ranked
// layouts and, for a sample of rejected ones, the reason each fails. Every number is the engine's.
import { html, nothing } from 'lit';
import { LabElement, humanise, type ControlSpec, type OutputSpec } from './framework';
import { MODEL_PICKER } from './model-picker';
import type { Result } from '../engine';

type O = Record<string, unknown>;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export class TrainingPodLab extends LabElement {
  readonly calculator = 'training_run';
  readonly controlSpecs: ControlSpec[] = [
    MODEL_PICKER,
    { path: 'chips', label: 'chips (empty: a full pod)' },
    { path: 'mfu', label: 'model FLOPs utilisation' },
    { path: 'price_per_hour_usd', label: 'price per chip-hour (empty: the chip’s catalog price)' },
    { path: 'tokens', label: 'training tokens' },
    { path: 'batch_tokens', label: 'global batch (tokens)' },
    { path: 'compute_dtype' },
    { path: 'checkpointing', label: 'rematerialisation policy' },
  ];
  readonly hint = 'Try this: halve the chips and watch the days double while the fastest layout changes; then lower the MFU.';
  readonly outputSpecs: OutputSpec[] = [
    { name: 'total_flops', label: 'Training FLOPs (6ND)' },
    { name: 'achieved_flops_per_s', label: 'Achieved FLOP/s' },
    { name: 'days', label: 'Days' },
    { name: 'chip_hours', label: 'Chip-hours' },
    { name: 'cost_usd', label: 'Cost' },
    { name: 'min_chips_memory', label: 'Min chips by memory' },
    { name: 'days_at_min_chips', label: 'Days on the minimum slice' },
    { name: 'bytes_per_chip', label: 'Bytes per chip (pure FSDP)' },
    { name: 'layouts_evaluated', label: 'Layouts searched' },
    { name: 'layouts_fitting', label: 'Layouts that fit' },
  ];

  /** units the engine's naming convention does not carry (the values are the engine's) */
  private static UNITS: Record<string, string> = { days: 'days', days_at_min_chips: 'days', chip_hours: 'h', bytes_per_chip: 'bytes', min_chips_memory: 'count', layouts_evaluated: 'count', layouts_fitting: 'count', chips: 'count' };
  protected fmt(name: string): string {
    const u = TrainingPodLab.UNITS[name];
    return u ? this.engine!.format(this.result!.outputs[name], u) : super.fmt(name);
  }

  protected renderVerdict(r: Result) {
    const o = r.outputs;
    const rec = o.recommended as O | null;
    const best = (Array.isArray(o.layouts) ? o.layouts[0] : null) as O | null;
    const f = (v: unknown, u: string) => this.engine!.format(v, u);
    return html`<p class="verdict verdict-${o.fits === false ? 'memory' : 'compute'}"><strong>${this.fmt('days')}</strong> on ${this.fmt('chips')} at ${f(o.mfu, 'ratio')} MFU:
      ${this.fmt('total_flops')}, ${num(o.cost_usd) !== null ? html`${this.fmt('cost_usd')}` : html`cost unknown (this chip has no price: type one)`}.
      The state needs at least ${this.fmt('min_chips_memory')} (${this.fmt('days_at_min_chips')} on them).
      ${o.fits === false ? html`<strong>These chips cannot hold the state and activations.</strong>` : nothing}
      ${best ? html`Fastest layout found (the table's first row): <strong class="best-layout">dp ${String(best.dp)} × fsdp ${String(best.fsdp)} × tp ${String(best.tp)} × pp ${String(best.pp)}</strong>, ${f(best.step_s, 's')} per step (${String(best.bound)}-bound).` : nothing}
      ${rec ? html`The book's rule of thumb would start from fsdp ${String(rec.fsdp)} × tp ${String(rec.tp)}.` : nothing}</p>`;
  }

  protected renderOutputs(r: Result) {
    const base = super.renderOutputs(r);
    const o = r.outputs;
    const f = (v: unknown, u: string) => this.engine!.format(v, u);
    const layouts = (Array.isArray(o.layouts) ? o.layouts : []) as O[];
    const rejected = (Array.isArray(o.rejected) ? o.rejected : []) as O[];
    const counts = (o.rejected_counts && typeof o.rejected_counts === 'object' ? o.rejected_counts : {}) as Record<string, number>;
    const shown = layouts.slice(0, 10);
    return html`${base}
      <div class="lb-scroll"><table class="lb-table layouts">
        <caption>Layout search: the ${shown.length} fastest of ${f(o.layouts_fitting, 'count')} layouts that fit (engine-ranked by step time)</caption>
        <thead><tr><th scope="col">rank</th><th scope="col">dp</th><th scope="col">fsdp</th><th scope="col">tp</th><th scope="col">pp</th><th scope="col">step</th><th scope="col">MFU</th><th scope="col">bound</th><th scope="col">bytes/chip</th></tr></thead>
        <tbody>${shown.length ? shown.map((l, i) => html`<tr><td>${i + 1}</td><td>${l.dp}</td><td>${l.fsdp}</td><td>${l.tp}</td><td>${l.pp}</td><td>${f(l.step_s, 's')}</td><td>${f(l.mfu, 'ratio')}</td><td>${String(l.bound)}</td><td>${f(l.bytes_per_chip, 'bytes')}</td></tr>`)
          : html`<tr><td colspan="9">No layout fits on these chips.</td></tr>`}</tbody>
      </table></div>
      <div class="lb-scroll"><table class="lb-table rejected">
        <caption>Rejected layouts (a sample) and why each fails</caption>
        <thead><tr><th scope="col">dp</th><th scope="col">fsdp</th><th scope="col">tp</th><th scope="col">pp</th><th scope="col">reason</th></tr></thead>
        <tbody>${rejected.map((l) => html`<tr><td>${l.dp}</td><td>${l.fsdp}</td><td>${l.tp}</td><td>${l.pp}</td><td>${String(l.message ?? l.reason)}</td></tr>`)}</tbody>
      </table></div>
      ${Object.keys(counts).length ? html`<p class="rejected-counts">Rejected in all: ${Object.entries(counts).map(([k, v], i) => html`${i ? ', ' : ''}${f(v, 'count')} × ${this.technical ? html`<code>${k}</code>` : humanise(k)}`)}.</p>` : nothing}`;
  }
}

customElements.define('sl-training-pod-lab', TrainingPodLab);
