// "I measured ___ tokens/s" and "I measured ___ s to the first token": the control specs and the verdict lines shared by the decode,
// serving and Can I run it? labs. The share of the bound, the bandwidth it implies and the sentence on what
// usually explains the gap and where the measurement stands among the published runs are the
// engine's outputs (measured_share_of_bound, achieved_bytes_per_s, measured_verdict,
// measured_among); this only lays them out.
import { html, nothing, type TemplateResult } from 'lit';
import type { ControlSpec } from './lab-state';
import type { Engine, Result } from '../engine';

export const MEASURED_CONTROL: ControlSpec = {
  path: 'measured_tokens_per_s',
  label: 'I measured: your own run, all sequences together, if you ran it',
};

/** The reader's measurement against the bound `boundOutput`, or nothing without one. */
export function measuredLine(engine: Engine, r: Result, boundOutput: string): TemplateResult | typeof nothing {
  const o = r.outputs;
  const share = o.measured_share_of_bound;
  if (typeof share !== 'number' || !Number.isFinite(share)) return nothing;
  const f = (v: unknown, unit: string) => engine.format(v, unit);
  return html`<p class="lab-measured" data-share=${share}>Your ${f(r.inputs.measured_tokens_per_s, 'tokens/s')} is
    <strong>${f(share * 100, 'count')} %</strong> of the ${f(o[boundOutput], 'tokens/s')} bound: the steps then read
    ${f(o.achieved_bytes_per_s, 'bytes/s')} and compute ${f(o.achieved_flops_per_s, 'FLOP/s')}.
    ${String(o.measured_verdict)} ${typeof o.measured_among === 'string' ? o.measured_among : nothing}</p>`;
}

export const MEASURED_TTFT_CONTROL: ControlSpec = {
  path: 'measured_ttft_s',
  label: 'I measured: the time to first token of your own run, if you ran it',
};

/** The reader's own time to first token against its bound `boundOutput`, or nothing without one. */
export function measuredTtftLine(engine: Engine, r: Result, boundOutput: string): TemplateResult | typeof nothing {
  const o = r.outputs;
  const share = o.measured_ttft_share_of_bound;
  if (typeof share !== 'number' || !Number.isFinite(share)) return nothing;
  const f = (v: unknown, unit: string) => engine.format(v, unit);
  return html`<p class="lab-measured" data-ttft-share=${share}>Your first token after ${f(r.inputs.measured_ttft_s, 's')}:
    the bound of ${f(o[boundOutput], 's')} is <strong>${f(share * 100, 'count')} %</strong> of it.
    ${typeof o.measured_ttft_among === 'string' ? o.measured_ttft_among : nothing}</p>`;
}
