// The expected range beside a bound (issue 37): what published runs like the reader's reach, shown
// under the bound in the decode and Can I run it? labs. The shares, the range, the count of runs
// and the sentence when the setup lies outside what they took are the engine's outputs
// (expected_share_low/high, expected_<bound>_low/high, expected_runs, expected_outside, from
// data/bands.json); this only lays them out.
import { html, nothing, type TemplateResult } from 'lit';
import type { Engine, Result } from '../engine';

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** "462–1,726 tokens/s": the unit once where both ends carry the same. */
function span(engine: Engine, low: number, high: number, unit: string): string {
  const a = engine.format(low, unit), b = engine.format(high, unit);
  const tail = (s: string) => s.slice(s.indexOf(' '));
  return a.includes(' ') && tail(a) === tail(b) ? `${a.slice(0, a.indexOf(' '))}–${b}` : `${a}–${b}`;
}

/** The range published runs reach beside the bound `boundOutput` (a rate), or nothing where no runs calibrate it;
 * `bound` names it where the verdict above does not ("the throughput bound"). */
export function expectedLine(engine: Engine, r: Result, boundOutput: string, unit: string, bound = 'this bound', words: (text: string) => string = (t) => t): TemplateResult | typeof nothing {
  const o = r.outputs;
  const low = num(o[`expected_${boundOutput}_low`]), high = num(o[`expected_${boundOutput}_high`]);
  const shareLow = num(o.expected_share_low), shareHigh = num(o.expected_share_high), runs = num(o.expected_runs);
  if (low === null || high === null || shareLow === null || shareHigh === null || runs === null) return nothing;
  const pct = (share: number) => engine.format(Math.round(share * 100), 'count');
  // the engine's sentence as it is: it names the published runs' chips as well as the reader's
  const outside = typeof o.expected_outside === 'string' ? o.expected_outside : null;
  // "like this" only where the setup lies within what the runs took; else the sentence says how it differs;
  // the range is a figure of the range's top (the bound itself where runs reach it): a Try-it asking for
  // the bound hides it until Check (hides="expected_<bound>_high", tryit.ts)
  return html`<p class="lab-expected" data-low=${low} data-high=${high}>Published runs ${outside ? '' : 'like this '}reach
    ${pct(shareLow)}–${pct(shareHigh)}\u00a0% of ${words(bound)}: expect <strong><span class="fig" data-figure=${`expected_${boundOutput}_high`}>${span(engine, low, high, unit)}</span></strong>
    (${engine.format(runs, 'count')} runs).${outside ? html` <span class="lab-expected-outside">${outside}</span>` : nothing}</p>`;
}
