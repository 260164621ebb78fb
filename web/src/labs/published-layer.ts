// Published runs on a lab's chart (issue 37): the runs in data/measurements.json of the lab's
// calculator whose setup is the reader's in every input the curve depends on, drawn at their
// measured figure beside the engine's curve, each with its source on hover, as a link under the
// chart (for focus and for a screen reader) and in the chart's description. Where runs of this
// chip and model were measured at other settings, the note under the chart says which settings.
// The runs' figures and sources are the catalog's; this file only picks the runs and places them.
import { html, nothing, type TemplateResult } from 'lit';
import { Plot } from './plot';
import type { ChartLayer, LayerContext } from './chart';
import { hardwareWords, publishedRuns, publishedTitle, publishedWords } from '../published-runs';
import type { Engine, PublishedRun, Result } from '../engine';

export interface RunsOnChart {
  calculator: string;
  /** inputs a run must share with the reader's setup to be drawn */
  same: string[];
  /** the inputs that make runs "of this setup" worth naming when the others differ (chip, model) */
  near: string[];
  /** the run's inputs the chart spreads runs over, named in its label ("batch 8") */
  settings: string[];
  /** where the run sits on the chart, from its inputs (`input`: the schema's default where the run
   *  gives none) and its measured figure; null: not on this chart */
  place(run: PublishedRun, input: (name: string) => unknown): { x: number; y: number } | null;
  /** the run's place on the chart in words, for its label ("12.3 ms a step") */
  placeWords(at: { x: number; y: number }, engine: Engine): string;
  /** what the lab calls a count of chips ("GPUs" on a datacenter GPU, "devices" on the reader's own): "on 16,384 GPUs" */
  chipsWord?: () => string;
}

/** the lab: its charts drawn again when the runs arrive, and its engine (for the calculator's defaults and labels) */
export interface RunsHost { redrawCharts(): void; engine(): Engine | null }
export interface Point { run: PublishedRun; x: number; y: number }

export class PublishedRunsLayer implements ChartLayer {
  constructor(private readonly host: RunsHost, private readonly spec: RunsOnChart) {}

  /** the catalog's runs of this calculator, or null until it has arrived (the charts are then drawn again) */
  private runs(): PublishedRun[] | null {
    return publishedRuns({ requestUpdate: () => this.host.redrawCharts() }, this.spec.calculator);
  }

  /** a run's input, or the calculator's default where the run does not give it */
  private input(run: PublishedRun, name: string): unknown {
    if (name in run.inputs) return run.inputs[name];
    return this.host.engine()?.calculator(this.spec.calculator)?.params.find((p) => p.name === name)?.default;
  }

  private differing(run: PublishedRun, r: Result, names: string[]): string[] {
    // an input left out and one whose default is null are the same setting (other_devices: none)
    return names.filter((k) => JSON.stringify(this.input(run, k) ?? null) !== JSON.stringify(r.inputs[k] ?? null));
  }

  /** the runs on this result's curve, as points */
  points(r: Result): Point[] {
    return (this.runs() ?? []).filter((m) => this.differing(m, r, this.spec.same).length === 0).flatMap((run) => {
      const at = this.spec.place(run, (name) => this.input(run, name));
      return at && Number.isFinite(at.x) && Number.isFinite(at.y) ? [{ run, ...at }] : [];
    });
  }

  key(r: Result): string {
    return this.runs() === null ? 'loading' : this.points(r).map((p) => p.run.id).join(',');
  }

  /** the run's settings the chart spreads over, in words after its figure: "on 4 chips at batch 8" */
  private settingsWords(run: PublishedRun, engine: Engine): string {
    return this.spec.settings.map((k) => {
      const value = this.valueText(k, this.input(run, k), engine);
      return k === 'chips' ? `on ${value} ${this.spec.chipsWord?.() ?? 'chips'}` : `at ${this.paramLabel(k)} ${value}`;
    }).join(' ');
  }

  private label(p: Point, engine: Engine): string {
    return `${hardwareWords(p.run.hardware)}, ${p.run.software.split(/[(;,]/)[0].trim()}: ${publishedWords(p.run.published)} ${this.settingsWords(p.run, engine)}` +
      ` (${this.spec.placeWords(p, engine)}); source: ${p.run.source.where}`;
  }

  marks(ctx: LayerContext) {
    const pts = this.points(ctx.result);
    if (!pts.length) return [];
    return [Plot.dot(pts, { x: 'x', y: 'y', r: 5.5, symbol: 'diamond', fill: 'var(--accent)', stroke: 'var(--bg)', strokeWidth: 1.5,
      title: (p: Point) => this.label(p, ctx.engine), className: 'published-run' })];
  }

  /** the runs on the chart, in words, for the chart's description */
  describe(r: Result, engine: Engine): string {
    const pts = this.points(r);
    return pts.length ? ` Published runs of this setup, marked as diamonds: ${pts.map((p) => this.label(p, engine)).join('; ')}.` : '';
  }

  /** Under the chart: the runs on it, each linked to its source; else the settings at which runs
   *  of this chip and model were measured. Nothing where there are none. */
  note(r: Result, engine: Engine): TemplateResult | typeof nothing {
    const runs = this.runs();
    if (!runs) return nothing;
    const on = this.points(r);
    if (on.length) {
      return html`<p class="lab-published" data-runs=${on.length}><span class="lab-published-mark" aria-hidden="true">◆</span> Published runs of this setup (the diamonds on the chart):
        ${on.map((p, i) => html`${i ? '; ' : ''}<a href=${p.run.source.url} title=${publishedTitle(p.run)}>${hardwareWords(p.run.hardware)}, ${publishedWords(p.run.published)} ${this.settingsWords(p.run, engine)}</a>`)}.</p>`;
    }
    const near = runs.filter((m) => this.differing(m, r, this.spec.near).length === 0);
    if (!near.length) return nothing;
    // each run's settings that differ from the reader's, in words ("chips: 8, context: 2,048")
    const settings = [...new Set(near.map((m) => this.differing(m, r, this.spec.same)
      .map((k) => `${this.paramLabel(k)}: ${this.valueText(k, this.input(m, k), engine)}`).join(', ')))];
    const one = near.length === 1;
    return html`<p class="lab-published" data-runs="0" data-near=${near.length}>${engine.format(near.length, 'count')} published
      ${one ? 'run' : 'runs'} of this model on this chip ${one ? 'was' : 'were'} measured at other settings. To see ${one ? 'it' : 'one'}
      on the chart, set ${settings.join('; or ')}.</p>`;
  }

  private paramLabel(name: string): string {
    const p = this.host.engine()?.calculator(this.spec.calculator)?.params.find((x) => x.name === name);
    return (p?.label ?? name.replace(/_/g, ' ')).replace(/\s*\([^)]*\)$/, ''); // its unit is in the value
  }

  private valueText(name: string, value: unknown, engine: Engine): string {
    if (typeof value === 'number') return engine.format(value, 'count');
    const p = this.host.engine()?.calculator(this.spec.calculator)?.params.find((x) => x.name === name);
    const i = p?.choices?.indexOf(String(value)) ?? -1;
    return i >= 0 && p?.choice_titles ? p.choice_titles[i] : String(value);
  }
}
