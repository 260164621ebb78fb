// <sl-can-i-fine-tune-lab>: training one model on the reader's own device (chapter 6, and
// /labs/can-i-fine-tune/). Device, model, method (full, LoRA, QLoRA, pre-training), rank,
// token budget, sequence, micro-batch, MFU and checkpointing go to the engine's finetune
// calculator; the lab shows its memory meter (weights, adapters, gradients, optimizer state,
// activations, overhead against usable memory), the training time, the binding limit and the
// engine's first change that would make it fit. Every number and sentence is the engine's.
import { html, nothing, type TemplateResult } from 'lit';
import { defineLab, type ChipFacts, type LabResult, LabElement, type Control, type ControlSpec, type OutputSpec } from './lab-element';
import { MODEL_PICKER } from './model-picker';
import { memoryMeter, num } from './memory-meter';
import type { Result } from '../engine';
import { measuredLine, percent } from './measured';

/** The frozen weights' format QLoRA opens on: NF4 where a runtime trains adapters over it on the
 *  chip (bitsandbytes on NVIDIA), else MXFP4 (MLX on a Mac), else the first the chip's runtimes
 *  take (the engine's adapter_formats, from data/formats.json runs_on). */
const quantStart = (c: ChipFacts) => {
  const runs = c.adapterFormats;
  return !runs || runs.includes('nf4') ? 'nf4' : runs.includes('mxfp4') ? 'mxfp4' : runs[0] ?? 'nf4';
};

export class CanIFineTuneLab extends LabElement<'finetune'> {
  readonly controls: ControlSpec[] = [
    MODEL_PICKER,
    { path: 'method', label: 'what to train' },
    { path: 'lora_rank', label: 'LoRA rank r (LoRA and QLoRA)' },
    { path: 'lora_targets', label: 'matrices with an adapter (LoRA and QLoRA)' },
    { path: 'quant_format', label: 'format of the frozen weights', onlyWith: { method: 'qlora' }, start: quantStart },
    { path: 'tokens', label: 'tokens to train on' },
    { path: 'sequence_length', label: 'tokens per sequence' },
    { path: 'micro_batch', label: 'sequences per forward-backward pass', main: true },
    { path: 'mfu', label: 'model FLOPs utilisation: the share of the 16-bit peak the run reaches' },
    { path: 'activation_checkpointing', label: 'activation checkpointing' },
    { path: 'optimizer', label: 'optimizer state' },
    { path: 'measured_tokens_per_s', label: 'I measured: the tokens per second your fine-tune trained at, if you ran it' },
  ];
  readonly outputs: OutputSpec<'finetune'>[] = [
    { name: 't_s', label: 'training time' }, 'tokens_per_s', 'total_flops', 'needed_bytes', 'usable_bytes', 'free_bytes',
    'shortfall_bytes', 'weights_bytes', 'adapter_bytes', 'grads_bytes', 'optimizer_bytes', { name: 'master_bytes', label: 'FP32 master weights' },
    'activations_bytes', 'logits_bytes', 'trainable_params', 'max_micro_batch',
  ];

  /** the reader's own devices first in the chip menu */
  readonly devicesFirst = true;

  /** the formats QLoRA trains over on this chip; empty where no runtime does (a TPU, a CPU) */
  private adapterFormats(): string[] | null { return this.state.chipFacts?.adapterFormats ?? null; }
  /** QLoRA where some runtime on the chip trains adapters over frozen quantized weights: elsewhere
   *  its method and the frozen weights' format are left out (unless chosen: the engine then warns) */
  protected renderControl(c: Control): TemplateResult {
    const runs = this.adapterFormats() ?? (c.path === 'quant_format' ? c.schema.choices ?? [] : null);
    if (!runs) return super.renderControl(c);
    const now = String(this.values.get(c.path));
    if (c.path === 'quant_format') {
      // only QLoRA stores the frozen weights quantized: under LoRA or a full update they are bf16,
      // and a greyed NF4 beside a 16-bit weight bar read as a contradiction
      if (this.values.get('method') !== 'qlora') return html``;
      return super.renderControl({ ...c, schema: { ...c.schema, choices: (c.schema.choices ?? []).filter((o) => runs.includes(o) || o === now) } });
    }
    if (c.path === 'method' && !runs.length && now !== 'qlora') {
      return super.renderControl({ ...c, schema: { ...c.schema, choices: (c.schema.choices ?? []).filter((o) => o !== 'qlora') } });
    }
    return super.renderControl(c);
  }

  private meter(r: LabResult<'finetune'>): TemplateResult {
    const o = r.outputs;
    return memoryMeter(r, [
      { key: 'weights', label: 'weights', bytes: num(o.weights_bytes) },
      { key: 'adapters', label: 'adapters', bytes: num(o.adapter_bytes) },
      { key: 'grads', label: 'gradients', bytes: num(o.grads_bytes) },
      { key: 'optimizer', label: 'optimizer and master copy', bytes: num(o.optimizer_bytes) + num(o.master_bytes) },
      { key: 'activations', label: 'activations and logits', bytes: num(o.activations_bytes) + num(o.logits_bytes) },
      { key: 'overhead', label: 'overhead', bytes: num(o.overhead_bytes) },
    ], (v) => this.engine!.format(v, 'bytes'));
  }

  /** The reader's own tokens per second against the device's peak: the MFU their run reached, and
   *  where it stands among the published fine-tunes (the engine's outputs). */
  private measured(r: LabResult<'finetune'>): TemplateResult | typeof nothing {
    const o = r.outputs, f = (v: unknown, unit: string) => this.engine!.format(v, unit);
    return measuredLine(o.measured_share_of_bound, (share) => html`Your ${f(r.inputs.measured_tokens_per_s, 'tokens/s')} is
      ${percent(this.engine!, share)} of the device’s peak (your MFU): the run computes ${this.fig('achieved_flops_per_s')}.`, o.measured_among);
  }

  /** the engine's "Does not fit: … short" is the verdict's first sentence: not listed again */
  protected warningShown(w: string, r: LabResult<'finetune'>): boolean { return !(r.outputs.fits === false && /^Does not fit\b/.test(w)); }

  protected renderVerdict(r: LabResult<'finetune'>) {
    const o = r.outputs;
    const on = this.state.chipFacts?.name ?? 'this device';
    return html`<p class="verdict" data-fits=${String(o.fits)} data-limit=${String(o.limit)}>
      ${o.fits ? html`${this.fitWords(true, 'It fits', '')} on the ${on}.` : html`${this.fitWords(false, '', 'It does not fit')} on the ${on}: ${this.fig('shortfall_bytes')} short, so memory is the binding limit.`}
      The token budget costs ${this.fig('total_flops')}; at ${this.fig('tokens_per_s')}${typeof o.mfu === 'number' ? html` (the model FLOPs utilisation set below, ${percent(this.engine!, o.mfu)} of the device’s 16-bit peak)` : nothing} that is ${this.fig('t_s')} of training${o.fits ? ', set by the arithmetic rate' : ' once it fits'}.</p>
      ${this.ownDeviceOffer()}
      ${this.expected(r, 't_s', 's', 'the device’s 16-bit peak', 'tokens_per_s')}
      ${this.measured(r)}
      ${this.meter(r)}
      <p class="cir-suggestion" data-kind=${String(o.suggestion_kind)}><strong>${o.fits ? 'Room to grow:' : 'First change to try:'}</strong> ${String(o.suggestion)}</p>`;
  }
}

defineLab('sl-can-i-fine-tune-lab', CanIFineTuneLab);
