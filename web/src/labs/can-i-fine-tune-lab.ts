// <sl-can-i-fine-tune-lab>: training one model on the reader's own device (chapter 6, and
// /labs/can-i-fine-tune/). Device, model, method (full, LoRA, QLoRA, pre-training), rank,
// token budget, sequence, micro-batch, MFU and checkpointing go to the engine's finetune
// calculator; the lab shows its memory meter (weights, adapters, gradients, optimizer state,
// activations, overhead against usable memory), the training time, the binding limit and the
// engine's first change that would make it fit. Every number and sentence is the engine's.
import { html, type TemplateResult } from 'lit';
import { LabElement, type ControlSpec, type OutputSpec } from './framework';
import { MODEL_PICKER } from './model-picker';
import { memoryMeter, num } from './memory-meter';
import type { Result } from '../engine';


export class CanIFineTuneLab extends LabElement {
  readonly calculator = 'finetune';
  readonly controlSpecs: ControlSpec[] = [
    MODEL_PICKER,
    { path: 'method', label: 'what to train' },
    { path: 'lora_rank', label: 'LoRA rank r (LoRA and QLoRA)' },
    { path: 'lora_targets', label: 'matrices with an adapter (LoRA and QLoRA)' },
    { path: 'quant_format', label: 'format of the frozen weights', onlyWith: { method: 'qlora' } },
    { path: 'tokens', label: 'tokens to train on' },
    { path: 'sequence_length', label: 'tokens per sequence' },
    { path: 'micro_batch', label: 'sequences per forward-backward pass' },
    { path: 'mfu', label: 'MFU: share of the 16-bit peak the run reaches' },
    { path: 'activation_checkpointing', label: 'activation checkpointing' },
    { path: 'optimizer', label: 'optimizer state' },
  ];
  readonly outputSpecs: OutputSpec[] = [
    { name: 'hours', label: 'Training time' },
    { name: 'days', label: 'Training time (days)' },
    { name: 'tokens_per_s', label: 'Tokens/s at this MFU' },
    { name: 'total_flops', label: 'Training FLOPs' },
    { name: 'needed_bytes', label: 'Memory needed' },
    { name: 'usable_bytes', label: 'Usable device memory' },
    { name: 'free_bytes', label: 'Free memory' },
    { name: 'shortfall_bytes', label: 'Short by' },
    { name: 'weights_bytes', label: 'Weights' },
    { name: 'adapter_bytes', label: 'Adapters' },
    { name: 'grads_bytes', label: 'Gradients' },
    { name: 'optimizer_bytes', label: 'Optimizer state (Adam)' },
    { name: 'master_bytes', label: 'fp32 master weights' },
    { name: 'activations_bytes', label: 'Activations' },
    { name: 'logits_bytes', label: 'Logits' },
    { name: 'trainable_params', label: 'Parameters trained' },
    { name: 'max_micro_batch', label: 'Largest micro-batch that fits' },
  ];

  constructor() {
    super();
    this.chipOverride = 'rtx-4090';
  }

  private meter(r: Result): TemplateResult {
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

  protected renderVerdict(r: Result) {
    const o = r.outputs;
    const time = num(o.days) >= 2 ? this.fmt('days') : this.fmt('hours');
    return html`<p class="verdict verdict-${o.fits ? 'compute' : 'memory'}" data-limit=${String(o.limit)}>
      ${o.fits ? html`<strong>It fits</strong> on this device.` : html`<strong class="lb-nofit">It does not fit</strong>: ${this.fmt('shortfall_bytes')} short, so memory is the binding limit.`}
      The token budget costs ${this.fmt('total_flops')}; at ${this.fmt('tokens_per_s')} that is ${time} of training${o.fits ? ', set by the arithmetic rate' : ' once it fits'}.</p>
      ${this.meter(r)}
      <p class="cir-suggestion" data-kind=${String(o.suggestion_kind)}><strong>${o.fits ? 'Room to grow:' : 'First change to try:'}</strong> ${String(o.suggestion)}</p>`;
  }
}

customElements.define('sl-can-i-fine-tune-lab', CanIFineTuneLab);
