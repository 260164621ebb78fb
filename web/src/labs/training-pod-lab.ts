// <sl-training-pod-lab>: a whole training run (chapter 6). LLaMA-3 70B on 15T tokens by default
// (the engine's defaults); the reader picks the chip, chip count, MFU and price and sees the
// FLOPs, days, dollars, the smallest slice by memory, and the engine's layout search: the ranked
// layouts and, for a sample of rejected ones, the reason each fails. Every number is the engine's.
import { html, nothing } from 'lit';
import { ONE_DEVICE_KINDS, byChip, defineLab, type StartFn, type LabResult, LabElement, type ControlSpec, type OutputSpec } from './lab-element';
import { MODEL_PICKER } from './model-picker';
import { layoutWords } from './words';
import { expectedLine } from './expected';
import type { Result } from '../engine';

type O = Record<string, unknown>;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The chips a run opens on: one device for the reader's own; a pod where it holds LLaMA-3 70B's
 *  training state (TPU pods from 1,024 chips, a GPU SuperPod), else 1,024 chips (several pods over
 *  the data-centre network, or GPUs without a pod in the catalog): the lab opens on a layout that fits. */
const podOrEnough: StartFn = (c) => (ONE_DEVICE_KINDS.includes(c.kind) ? 1 : c.podChips && c.podChips >= 1024 ? null : 1024);
podOrEnough.why = (c) => (ONE_DEVICE_KINDS.includes(c.kind) ? `The ${c.name} is one device: the lab starts on a small model it can train.`
  : c.podChips && c.podChips >= 1024 ? null
  : c.podChips ? `A ${c.name} pod (${c.podChips} chips) cannot hold this run's training state, so the lab starts on 1,024 chips, pods joined over the data-centre network.`
  : `The catalog gives the ${c.name} no pod size, so the lab starts on 1,024 GPUs.`);

/** What bounds a layout's step, in words (the engine's names for it: compute, data_parallel_comms,
 *  tp_comms, pp_comms, pipeline_bubble). */
const BOUND_WORDS: Record<string, string> = { compute: 'compute', data_parallel_comms: 'data-parallel communication', tp_comms: 'tensor-parallel communication', pp_comms: 'pipeline sends', pipeline_bubble: 'the pipeline bubble' };
const boundWords = (b: unknown) => BOUND_WORDS[String(b)] ?? String(b).replace(/_/g, ' ');

export class TrainingPodLab extends LabElement<'training_run'> {
  readonly controls: ControlSpec[] = [
    { path: 'chips', label: 'chips (empty: a full pod)', main: (c) => !ONE_DEVICE_KINDS.includes(c.kind), start: podOrEnough },
    { ...MODEL_PICKER, start: byChip({ device: 'gpt2-124m', tpu: 'llama3-70b', gpu: 'llama3-70b' }) },
    { path: 'mfu', label: 'model FLOPs utilisation' },
    { path: 'price_per_hour_usd', label: 'price per chip-hour (empty: the chip’s catalog price)' },
    { path: 'tokens', label: 'training tokens', main: (c) => ONE_DEVICE_KINDS.includes(c.kind), start: byChip({ device: 2.5e9, tpu: 1.5e13, gpu: 1.5e13 }) },
    { path: 'batch_tokens', label: 'global batch (tokens)', start: byChip({ device: 16384, tpu: 4194304, gpu: 4194304 }) },
    { path: 'compute_dtype' },
    { path: 'checkpointing', label: 'rematerialisation policy', start: 'block' },
  ];
  readonly hint = 'Try this: halve the chips and watch the days double while the fastest layout changes; then lower the MFU.';
  protected hintText() {
    return this.onOwnDevice() ? 'Try this: raise the training tokens and watch the days grow; then pick a larger model until the training state no longer fits in memory.' : this.hint;
  }
  readonly outputs: OutputSpec<'training_run'>[] = [
    'total_flops', 'achieved_flops_per_s', 'days', 'chip_hours', 'cost_usd', 'min_chips_memory',
    'days_at_min_chips', 'bytes_per_chip', 'layouts_evaluated', 'layouts_fitting',
  ];

  protected renderVerdict(r: LabResult<'training_run'>) {
    const o = r.outputs;
    const rec = o.recommended as O | null;
    const best = (Array.isArray(o.layouts) ? o.layouts[0] : null) as O | null;
    const f = (v: unknown, u: string) => this.engine!.format(v, u);
    return html`<p class="verdict" data-fits=${String(o.fits)}><strong>${this.fig('days')}</strong> on ${this.fig('chips')} at ${f(o.mfu, 'ratio')} MFU:
      ${this.fig('total_flops')}, ${num(o.cost_usd) !== null ? html`${this.fig('cost_usd')}` : html`cost unknown (this chip has no price: type one)`}.
      ${Number(o.min_chips_memory) <= 1 && Number(o.chips) === 1
        ? html`The training state fits in the ${this.state.chipFacts?.name ?? 'device'}’s memory.`
        : html`The state needs at least ${this.fig('min_chips_memory')} (${this.fig('days_at_min_chips')} on them).`}
      ${o.fits === false ? this.fitWords(false, '', 'These chips cannot hold the state and activations.') : nothing}
      ${best ? html`Fastest layout found (the table's first row): <strong class="best-layout">${layoutWords(best, this.technical, this.count)}</strong>, ${f(best.step_s, 's')} per step (${boundWords(best.bound)}).` : nothing}
      ${rec ? html`The book's rule of thumb would start from ${layoutWords({ dp: 1, pp: 1, ...rec }, this.technical, this.count)}.` : nothing}</p>
      ${expectedLine(this.engine!, r, 't_s', 's', 'the chips’ peak FLOP/s')}`;
  }

  /** The degrees' column heads: words in Plain, the book's names in Technical. */
  private degreeHeads() {
    const heads = this.technical ? ['dp', 'fsdp', 'tp', 'pp'] : ['data', 'FSDP', 'tensor', 'pipeline'];
    return heads.map((h) => html`<th scope="col">${h}</th>`);
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
    return html`${base}
      <div class="lb-scroll"><table class="lb-table layouts">
        <caption>${shown.length ? `Layout search: the ${shown.length === layouts.length ? '' : `${shown.length} `}fastest of the ${f(o.layouts_fitting, 'count')} layouts that fit, by step time` : 'Layout search: no layout fits on these chips'}</caption>
        <thead><tr><th scope="col">rank</th>${this.degreeHeads()}<th scope="col">step</th><th scope="col" title="the MFU this layout reaches at its step's bound: 6·P·D over the chips' peak for that time, below 1 by attention, recomputation, the bubble and communication it cannot hide; the run as a whole is at the MFU above">best MFU</th><th scope="col">bound by</th><th scope="col">bytes per chip</th></tr></thead>
        <tbody>${shown.length ? shown.map((l, i) => html`<tr><td>${i + 1}</td><td>${this.count(l.dp)}</td><td>${this.count(l.fsdp)}</td><td>${this.count(l.tp)}</td><td>${this.count(l.pp)}</td><td>${f(l.step_s, 's')}</td><td>${f(l.mfu, 'ratio')}</td><td>${boundWords(l.bound)}</td><td>${f(l.bytes_per_chip, 'bytes')}</td></tr>`)
          : html`<tr><td colspan="9">No layout fits on these chips.</td></tr>`}</tbody>
      </table></div>
      <div class="lb-scroll"><table class="lb-table rejected">
        <caption>Rejected layouts (a sample) and why each fails</caption>
        <thead><tr>${this.degreeHeads()}<th scope="col">reason</th></tr></thead>
        <tbody>${rejected.map((l) => html`<tr><td>${this.count(l.dp)}</td><td>${this.count(l.fsdp)}</td><td>${this.count(l.tp)}</td><td>${this.count(l.pp)}</td><td>${this.words(String(l.message ?? l.reason))}</td></tr>`)}</tbody>
      </table></div>
      ${Object.keys(counts).length ? html`<p class="rejected-counts">Rejected in all: ${Object.entries(counts).map(([k, v], i) => html`${i ? ', ' : ''}${f(v, 'count')} × ${this.technical ? html`<code>${k}</code>` : this.words(reasons[k] ?? k.replace(/_/g, ' '))}`)}.</p>` : nothing}`;
  }
}

defineLab('sl-training-pod-lab', TrainingPodLab);
