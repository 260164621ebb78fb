// "I measured": the reader's own figure against the engine's. Every lab with an "I measured" control
// (decode, serving, Can I run it?, Can I fine-tune it?, memory-budget, training-pod) writes its line
// with measuredLine: the sentence is the lab's, the share, the achieved rates, what usually explains
// the gap and where the measurement stands among the published runs are the engine's outputs
// (measured_share_of_bound, achieved_bytes_per_s, measured_verdict, measured_among); this only lays
// them out.
import { html, nothing, type TemplateResult } from 'lit';
import type { ControlSpec } from './lab-state';
import type { Engine, Result } from '../engine';

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** One "I measured" paragraph: nothing until the engine gives the measurement's share (`share`);
 *  then the lab's sentence `body` and, after it, the engine's `among` sentence (measured_among). */
export function measuredLine(share: unknown, body: (share: number) => unknown, among: unknown,
  className = 'lab-measured', attribute = 'data-share'): TemplateResult | typeof nothing {
  if (!finite(share)) return nothing;
  const text = html`${body(share)} ${typeof among === 'string' ? among : nothing}`;
  // a static attribute name, as Lit needs: the two this file writes
  return attribute === 'data-ttft-share'
    ? html`<p class=${className} data-ttft-share=${share}>${text}</p>`
    : html`<p class=${className} data-share=${share}>${text}</p>`;
}

/** "62 %", strong: a share as the lines above write it. */
export const percent = (engine: Engine, share: number): TemplateResult =>
  html`<strong>${engine.format(share * 100, 'count')} %</strong>`;

export const MEASURED_CONTROL: ControlSpec = {
  path: 'measured_tokens_per_s',
  label: 'I measured: your own run, all sequences together, if you ran it',
};

/** The reader's tokens/s against the bound `boundOutput`: the rates the steps then reach, what
 *  usually explains the gap (measured_verdict). */
export function measuredRateLine(engine: Engine, r: Result, boundOutput: string): TemplateResult | typeof nothing {
  const o = r.outputs, f = (v: unknown, unit: string) => engine.format(v, unit);
  return measuredLine(o.measured_share_of_bound, (share) => html`Your ${f(r.inputs.measured_tokens_per_s, 'tokens/s')} is
    ${percent(engine, share)} of the ${f(o[boundOutput], 'tokens/s')} bound: the steps then read
    ${f(o.achieved_bytes_per_s, 'bytes/s')} and compute ${f(o.achieved_flops_per_s, 'FLOP/s')}.
    ${String(o.measured_verdict)}`, o.measured_among);
}

export const MEASURED_TTFT_CONTROL: ControlSpec = {
  path: 'measured_ttft_s',
  label: 'I measured: the time to first token of your own run, if you ran it',
};

/** The reader's own time to first token against its bound `boundOutput`. */
export function measuredTtftLine(engine: Engine, r: Result, boundOutput: string): TemplateResult | typeof nothing {
  const o = r.outputs, f = (v: unknown, unit: string) => engine.format(v, unit);
  return measuredLine(o.measured_ttft_share_of_bound, (share) => html`Your first token after ${f(r.inputs.measured_ttft_s, 's')}:
    the bound of ${f(o[boundOutput], 's')} is ${percent(engine, share)} of it.`, o.measured_ttft_among, 'lab-measured', 'data-ttft-share');
}
