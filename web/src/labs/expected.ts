// The expected range beside a bound (issue 37): what published runs like the reader's reach, shown
// under the bound in the decode and Can I run it? labs. The shares, the range, the count of runs
// and the sentence when the setup lies outside what they took are the engine's outputs
// (expected_share_low/high, expected_<bound>_low/high, expected_runs, expected_outside, from
// data/bands.json); this only lays them out, with the runs nearest the reader's setup where the
// lab's chart draws none.
import { html, nothing, type TemplateResult } from 'lit';
import type { Engine, PublishedRun, Result } from '../engine';
import { hardwareWords, publishedTitle, publishedWords, runsCalibrating } from '../published-runs';

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** "462–1,726 tokens/s": the unit once where both ends carry the same. */
function span(engine: Engine, low: number, high: number, unit: string): string {
  const a = engine.format(low, unit), b = engine.format(high, unit);
  const tail = (s: string) => s.slice(s.indexOf(' '));
  return a.includes(' ') && tail(a) === tail(b) ? `${a.slice(0, a.indexOf(' '))}–${b}` : `${a}–${b}`;
}

/** The range published runs reach beside the bound `boundOutput` (a rate or a time), or nothing where no runs
 * calibrate it; `bound` names it where the verdict above does not ("the throughput bound"); `band` is the
 * prefix of the band's own figures where a calculator has a second band ("expected_ttft_": the prefill
 * runs behind a time to first token). */
export function expectedLine(engine: Engine, r: Result, boundOutput: string, unit: string, bound = 'this bound',
  words: (text: string) => string = (t) => t, band = 'expected_'): TemplateResult | typeof nothing {
  const o = r.outputs;
  const low = num(o[`expected_${boundOutput}_low`]), high = num(o[`expected_${boundOutput}_high`]);
  const shareLow = num(o[`${band}share_low`]), shareHigh = num(o[`${band}share_high`]), runs = num(o[`${band}runs`]);
  if (low === null || high === null || shareLow === null || shareHigh === null || runs === null) {
    // a bound with no published runs behind it (another fabric, a CPU, a link of the reader's own): said, not left blank
    const bounded = num(o[boundOutput]);
    return bounded !== null && bounded > 0
      ? html`<p class="lab-expected-none">No published runs measured a setup like this one, so this is the bound alone, with no expected range beside it.</p>`
      : nothing;
  }
  const pct = (share: number) => engine.format(Math.round(share * 100), 'count');
  // the engine's sentence, in the lab's words for its chips ("took 1–4 GPUs … takes 8 GPUs" on an H100)
  const outside = typeof o[`${band}outside`] === 'string' ? String(o[`${band}outside`]) : null;
  // "like this" only where the setup lies within what the runs took; else the sentence says how it differs;
  // the range is a figure of the range's top (the bound itself where runs reach it): a Try-it asking for
  // the bound hides it until Check (hides="expected_<bound>_high", tryit.ts)
  return html`<p class="lab-expected" data-low=${low} data-high=${high}>Published runs ${outside ? '' : 'like this '}reach
    <span class="nowrap">${pct(shareLow)}–${pct(shareHigh)}\u00a0%</span> of ${words(bound)}: expect <strong><span class="fig" data-figure=${`expected_${boundOutput}_high`}>${span(engine, low, high, unit)}</span></strong>
    (${engine.format(runs, 'count')} runs).${outside ? html` <span class="lab-expected-outside">${words(outside)}</span>` : nothing}</p>`;
}

/** The reader's value of a run's input: the lab's own input, else the output of that name (roofline
 *  lab: its FLOPs and bytes come from the matmul's dimensions). */
function readerValue(r: Result, name: string): unknown {
  return r.inputs[name] ?? r.outputs[name];
}

/** How far a run's setup lies from the reader's: 0 for the same; another chip first of all (one of
 *  another kind further still: a Mac's nearest copies are other Macs'); then the orders of magnitude
 *  between numbers, and 1 for each choice that differs. */
function distance(run: PublishedRun, r: Result, chip: unknown, kindOf: (chip: unknown) => string | undefined): number {
  let d = run.inputs.chip === chip ? 0 : kindOf(run.inputs.chip) === kindOf(chip) ? 100 : 200;
  for (const [name, v] of Object.entries(run.inputs)) {
    if (name === 'chip') continue;
    const mine = readerValue(r, name);
    if (typeof v === 'number' && typeof mine === 'number' && v > 0 && mine > 0) d += Math.abs(Math.log10(v / mine));
    else if (typeof v === 'string' && typeof mine === 'string' && v !== mine) d += 1;
  }
  return d;
}

/** Each catalog chip's kind, built once per engine (not on every render of a lab). */
const KINDS = new WeakMap<Engine, Map<string, string>>();
function chipKinds(engine: Engine): Map<string, string> {
  let kinds = KINDS.get(engine);
  if (!kinds) KINDS.set(engine, (kinds = new Map(engine.chips.map((c) => [c.id, String(c.kind)]))));
  return kinds;
}

/** What a listed run is held against, after a dash (a source's figure often ends in its own
 *  parenthesis): a rate or a time, its share of its own bound, and where that
 *  share falls outside the range above, said (a listed run may lie beyond the band's prediction
 *  interval); a memory figure, how far it lies from the page's own count for that setup (a count is
 *  not a bound a run falls short of). `unit`: the unit of the runs' figure, as the lab's output that
 *  they calibrate declares it (a run may be evaluated by a calculator this lab's engine lacks). */
function againstBound(engine: Engine, share: number | undefined, unit: string, low: number | null, high: number | null): string {
  if (typeof share !== 'number' || !(share > 0)) return '';
  const pct = (v: number) => `${engine.format(Math.round(v * 100), 'count')}\u00a0%`;
  if (unit === 'bytes') {
    // the page's count for the run's own setup, which the line does not show: said, so it is not read as the count above
    return Math.abs(share - 1) < 0.005 ? " \u2014 within 1\u00a0% of this page's count for that run's own setup"
      : ` \u2014 ${pct(Math.abs(share - 1))} ${share > 1 ? 'above' : 'below'} this page's count for that run's own setup`;
  }
  // beyond the range as the range reads (whole per cents): a run at 73.39 % is not below a range from 73.41 %
  const at = Math.round(share * 100);
  const beyond = high !== null && at > Math.round(high * 100) ? ', above the range' : low !== null && at < Math.round(low * 100) ? ', below the range' : '';
  return ` \u2014 ${pct(share)} of its bound${beyond}`;
}

/** The switches and choices a listed run of this lab's calculator set otherwise than the reader (at
 *  most two, in the engine's words): a run without activation checkpointing does a third less work a
 *  token than this setup with it, and its speed is read with that in mind. */
function otherwise(engine: Engine, m: PublishedRun, r: Result, calculator: string): string {
  if (m.calculator !== calculator) return '';
  const params = engine.calculator(calculator)?.params ?? [];
  const said: string[] = [];
  for (const [name, v] of Object.entries(m.inputs)) {
    const p = params.find((x) => x.name === name), mine = readerValue(r, name);
    if (!p || mine === undefined || mine === null || v === mine) continue;
    if (p.type === 'boolean' && typeof v === 'boolean') said.push(`${p.label} ${v ? 'on' : 'off'}`);
    else if (p.type === 'choice' && typeof v === 'string' && p.choices?.includes(v)) said.push(`${p.label}: ${p.choice_titles?.[p.choices.indexOf(v)] ?? v}`);
  }
  return said.length ? `; unlike this setup: ${said.slice(0, 2).join(', ')}` : '';
}

/** Under the range: the published runs behind it nearest the reader's setup (on the reader's chip
 *  first), at most three, each linked to its source with the share of its own bound it reached. For
 *  the labs whose chart draws no runs of its own. Nothing until the runs arrive, or where none
 *  calibrate this bound. */
export function nearRunsLine(engine: Engine, r: Result, calculator: string, boundOutput: string, chip: unknown,
  host: { requestUpdate(): void }, runsOf = boundOutput, band = 'expected_'): TemplateResult | typeof nothing {
  if (num(r.outputs[`expected_${boundOutput}_low`]) === null) return nothing;
  const runs = runsCalibrating(host, calculator, runsOf, (name) => readerValue(r, name));
  if (!runs?.length) return nothing;
  const kinds = chipKinds(engine), unit = engine.unitOf(r, runsOf);
  const kindOf = (c: unknown) => (typeof c === 'string' ? kinds.get(c) : typeof c === 'object' && c ? String((c as { kind?: unknown }).kind) : undefined);
  const near = runs.map((run) => ({ run, d: distance(run, r, chip, kindOf) })).sort((a, b) => a.d - b.d).slice(0, 3);
  const here = near.filter((n) => n.run.inputs.chip === chip).length;
  const lead = here === near.length ? 'The published runs nearest this setup, on this chip'
    : here ? 'The published runs nearest this setup' : 'No published run of this kind used this chip; the nearest';
  // the run's model where the lab's calculator takes one and the run's figure does not name it
  const model = (m: PublishedRun) => {
    const given = m.inputs.model as unknown;
    const name = typeof given === 'string' ? engine.modelName(given) || given
      : given && typeof given === 'object' && typeof (given as { name?: unknown }).name === 'string' ? (given as { name: string }).name
      : typeof m.inputs.params === 'number' ? engine.format(m.inputs.params, 'params') : '';
    return name && !m.published.includes(name) ? `${name}, ` : '';
  };
  const item = (m: PublishedRun) => html`<a href=${m.source.url} title=${publishedTitle(m)}>${hardwareWords(m.hardware)}: ${model(m)}${publishedWords(m.published)}</a>${
    againstBound(engine, m.share, unit, num(r.outputs[`${band}share_low`]), num(r.outputs[`${band}share_high`]))}${otherwise(engine, m, r, calculator)}`;
  return html`<p class="lab-near-runs" data-runs=${near.length} data-on-chip=${here}>${lead}:
    ${near.map((n, i) => html`${i ? '; ' : ''}${item(n.run)}`)}.</p>`;
}
