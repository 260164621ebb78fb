// The base of every lab: a Lit element (light DOM) that declares what it teaches and leaves the
// generic work to its parts. A lab says which schema parameters become controls (`controls`),
// which outputs it lists (`outputs`), its verdict and its chart; its manifest
// (<name>.lab.json) says which calculator it runs. The parts:
//   lab-state.ts   controls, values, parameters for the engine, URL text (no DOM)
//   controls.ts    sliders, fields, selects, the chip menu
//   url-state.ts   the state from and to the address
//   derivation.ts  the engine's steps, typeset while open
//   chart.ts       the chart box: width, first drawing, redrawing; layers of marks
// Every range, default, unit, label, formula and number comes from the engine. README.md.
import { LitElement, html, nothing, type TemplateResult } from 'lit';
import { engineLoadProblem, getEngine, getPath, isError, type EngineError, type Outcome, type CalculatorName, type CalculatorOutputs, type Engine, type ParamSchema, type Result } from '../engine';
import { chipParam, customChip, mode } from '../state';
import { LAB_INFO, type LabCalculators } from '../generated/labs';
import { focusableOverflow } from '../overflow';
import { expectedLine, nearRunsLine } from './expected';
import { LabState, ONE_DEVICE_KINDS, deviceWords, type ChipFacts, type Control, type ControlSpec } from './lab-state';
import { ControlsController } from './controls';
import { UrlStateController } from './url-state';
import { DerivationController } from './derivation';
import { ChartController, nextTask, type ChartLayer, type LayerContext } from './chart';
import { fieldAmount, fieldProblem, forPeople, gpuWords } from './words';
import './labs.css';

export type { ControlSpec, Control, ChipFacts } from './lab-state';
export { ONE_DEVICE_KINDS, byChip, chipCount, chipsNoun, emptyChips } from './lab-state';
export type { StartFn } from './lab-state';
export type { ChartLayer, LayerContext } from './chart';
export { nextTask } from './chart';

/** An output of calculator C, by its declared name (checked against the engine's schema). */
export type OutputName<C extends CalculatorName> = Extract<keyof CalculatorOutputs[C], string>;
/** An output to list: its name (the engine's label is shown), or a name with what to say where
 *  the engine gives none (`missing`: why it is not available, in words; `none`: the words that
 *  stand in its place where the empty output is itself the answer, e.g. no comms on one device)
 *  and, rarely, other words than the engine's. */
export type OutputSpec<C extends CalculatorName> = OutputName<C> | { name: OutputName<C>; label?: string; missing?: string; none?: (r: LabResult<C>) => string | null; hide?: (r: LabResult<C>) => boolean; wide?: boolean };
/** A result of calculator C: its outputs typed by the engine's declarations. */
export type LabResult<C extends CalculatorName> = Omit<Result, 'outputs'> & { outputs: CalculatorOutputs[C] & Record<string, unknown> };

/** Registers a lab's element; its class must run the calculator its manifest names. */
export function defineLab<E extends keyof LabCalculators>(element: E, lab: new () => LabElement<LabCalculators[E]>) {
  customElements.define(element, lab);
}

export abstract class LabElement<C extends CalculatorName = CalculatorName> extends LitElement {
  // ------------------------------------------------------------ what a lab declares
  /** the parameters the reader controls, in order (`main: true` on the one its point turns on) */
  abstract readonly controls: ControlSpec[];
  /** outputs to list, in order (default: every number or word the result has) */
  readonly outputs: OutputSpec<C>[] | null = null;
  /** a lab has a chip menu (pinning it to a chip other than the page's) unless this is false */
  readonly usesChip: boolean = true;
  /** one line saying what to try first (shown above the settings) */
  readonly hint: string = '';
  /** the labs about the reader's own hardware list personal devices first */
  readonly devicesFirst: boolean = false;
  /** whether the lab draws a chart (drawViz) */
  protected readonly hasViz: boolean = false;
  /** layers of marks other parts add to this lab's charts (drawViz places them: layerMarks) */
  readonly layers: ChartLayer[] = [];

  // ------------------------------------------------------------ hooks
  /** parameters always sent besides the controls (e.g. fixed choices) */
  protected baseParams(): Record<string, unknown> { return {}; }
  /** the parameters reshaped for the engine, after the controls are laid in */
  protected adjustParams(_p: Record<string, unknown>): void {}
  /** whether a control applies given the others (undefined: its onlyWith decides) */
  protected controlApplies(_c: Control): boolean | undefined { return undefined; }
  /** a control as built from the schema, changed for this lab */
  protected adjustControl(c: Control): Control { return c; }
  /** a URL key this lab keeps itself (not a control); true if taken */
  protected applyExtraState(_key: string, _value: string): boolean { return false; }
  /** URL pairs this lab keeps itself */
  protected extraQuery(): [string, string][] { return []; }
  /** after the reader changed a control (before the evaluation is scheduled) */
  protected controlChanged(_c: Control, _previous: unknown): void {}
  /** the verdict: what the numbers mean, first */
  protected renderVerdict(_r: LabResult<C>): TemplateResult | typeof nothing { return nothing; }
  /** the line saying what to try first, where it depends on the chip (default: `hint`) */
  protected hintText(): string { return this.hint; }
  /** a line at the top of the settings, before the controls it explains */
  protected renderControlsIntro(): TemplateResult | typeof nothing { return nothing; }
  /** a block right after the verdict, outside its live region (a run of the reader's own, with
   *  its own status line) */
  protected renderAfterVerdict(_r: LabResult<C>): TemplateResult | typeof nothing { return nothing; }
  /** lab-specific controls placed after the generated ones, inside the settings */
  protected renderExtraControls(): TemplateResult | typeof nothing { return nothing; }
  /** whether an engine warning is listed under the outputs (false: the verdict already says it) */
  protected warningShown(_w: string, _r: LabResult<C>): boolean { return true; }
  /** draw into `host` (a chart); called after each successful evaluation */
  protected drawViz(_r: LabResult<C>, _host: HTMLElement): void {}

  // ------------------------------------------------------------ the parts
  /** the calculator this lab runs and the others it evaluates, from its manifest */
  readonly calculator: C;
  protected readonly evaluates: readonly string[];
  protected engine: Engine | null = null;
  protected state!: LabState;
  /** the last result the engine gave (kept, dimmed, while a value is refused) */
  result: LabResult<C> | null = null;
  /** counts evaluations rendered; the latency benchmark and the tests watch data-rendered */
  renders = 0;
  private loadProblem = '';
  private controlsView!: ControlsController;
  private url!: UrlStateController;
  private derivation!: DerivationController;
  private chartBox = new ChartController(this);
  /** the engine's refusal of the current settings, if it refused them */
  protected refusal: EngineError['error'] | null = null;
  /** the parameters that gave this.result */
  private resultParams: Record<string, unknown> = {};
  private frame = 0;

  constructor() {
    super();
    const info = LAB_INFO[this.localName];
    if (!info) throw new Error(`no lab manifest names the element <${this.localName}>`);
    this.calculator = info.calculators[0] as C;
    this.evaluates = info.calculators.slice(1);
  }

  protected createRenderRoot() { return this; } // light DOM: global CSS and KaTeX fonts apply

  private started = false;
  connectedCallback() {
    if (!this.started) this.textContent = ''; // drop the pre-rendered fallback once
    super.connectedCallback();
    window.addEventListener('sl-chip-change', this.onPageChip);
    window.addEventListener('sl-mode-change', this.onMode);
    this.veilWatch.observe(this, { attributes: true, attributeFilter: ['data-veil'] });
    if (!this.started) { this.started = true; void this.start(); }
  }
  disconnectedCallback() {
    super.disconnectedCallback();
    window.removeEventListener('sl-chip-change', this.onPageChip);
    window.removeEventListener('sl-mode-change', this.onMode);
    this.veilWatch.disconnect();
  }
  private onPageChip = () => {
    if (!this.state || this.state.pin) return;
    this.state.followChip(this.chipFacts());
    this.schedule();
  };
  private onMode = () => this.requestUpdate();
  /** Whether a Try-it on the page hides this output of the lab until Check (tryit.ts sets
   *  data-veil): a chart's words for screen readers leave it out then, as its drawn label does. */
  protected veils(name: string): boolean {
    return (this.dataset.veil ?? '').split(' ').some((t) => t.endsWith(`:${name}`));
  }
  /** a Try-it veiled or unveiled an output: the chart, and its description, are drawn again */
  private veilWatch = new MutationObserver(() => {
    const box = this.querySelector<HTMLElement>('.lab-viz');
    if (box) delete box.dataset.renders;
    this.requestUpdate();
  });
  /** Technical mode shows parameter names and opens the derivation; Plain shows words. */
  get technical(): boolean { return mode() === 'technical'; }

  // ------------------------------------------------------------ start
  // The first load is cut into tasks (engine start; schema and controls; first numbers and
  // Lit's first render; first chart), none long enough to hold up a reader's input for long
  // (in one task they blocked the page for ~1 s on a slow phone: BENCHMARKS.md).
  private async start() {
    let engine: Engine;
    try {
      // the chip calculator too: a lab reads its chip's kind, node and pod from it (chipFacts)
      engine = await getEngine([this.calculator, ...this.evaluates, ...(this.usesChip ? ['chip'] : [])]);
    } catch (e) {
      this.loadProblem = engineLoadProblem(e);
      this.requestUpdate();
      return;
    }
    await nextTask();
    this.engine = engine;
    this.state = new LabState(engine, this.calculator, this.usesChip, chipParam, customChip, {
      baseParams: () => this.baseParams(),
      adjustParams: (p) => this.adjustParams(p),
      applies: (c) => this.controlApplies(c),
      adjustControl: (c) => this.adjustControl(c),
      applyExtraState: (k, v) => this.applyExtraState(k, v),
      extraQuery: () => this.extraQuery(),
    });
    this.controlsView = new ControlsController(this, this.state, () => this.engine);
    this.url = new UrlStateController(this, this.state);
    this.derivation = new DerivationController(this, () => this.engine, this.calculator);
    if (!engine.calculator(this.calculator)) {
      this.state.notices.push(`This lab needs the engine's "${this.calculator}" calculator, which this build lacks.`);
      this.requestUpdate();
      return;
    }
    this.state.chipFacts = this.chipFacts();
    this.state.build(this.controls);
    this.url.read();
    if (this.state.pin) this.state.followChip(this.chipFacts());
    await nextTask();
    this.renderInNewTask = true;
    this.evaluateNow();
  }
  /** the first numbers' render (every control, the chip list) in a task after their evaluation */
  private renderInNewTask = false;
  protected override async scheduleUpdate() {
    if (this.renderInNewTask) { this.renderInNewTask = false; await nextTask(); }
    super.scheduleUpdate();
  }

  // ------------------------------------------------------------ the state, for the lab's own code
  protected get values() { return this.state.values; }
  protected get errors() { return this.state.errors; }
  protected get builtControls(): Control[] { return this.state.controls; }
  protected control(path: string): Control | undefined { return this.state.control(path); }
  protected setValue(c: Control, v: unknown, text?: string) { this.state.setValue(c, v, text); }
  protected findSchema(path: string): ParamSchema | undefined { return this.state.findSchema(path); }
  /** An input of these inputs (the reader's or a published run's), or this lab's schema default where they do not give it. */
  protected inputOr(inputs: Record<string, unknown>, name: string): unknown { return inputs[name] ?? this.findSchema(name)?.default ?? null; }
  protected bound(path: string, which: 'min' | 'max' | 'min_items' | 'max_items'): number { return this.state.bound(path, which); }
  /** An engine message for this reader: Technical as the engine wrote it, Plain without the
   *  identifiers the engine puts in parentheses. */
  protected words(message: string): string { return this.technical ? message : this.ownWords(forPeople(message)); }
  /** The chip's memory as a reader names it, the engine's words from the catalog's memory kind:
   *  "HBM" on HBM parts, "GDDR6X memory" on a card, "unified LPDDR5 memory" on a Mac, "DDR5 system
   *  RAM" on a CPU ("HBM" before the chip is read). */
  memoryName(): string { return this.state?.chipFacts?.memoryName ?? 'HBM'; }
  /** Whether the lab is its page (/labs/<name>/) rather than placed in a chapter. */
  protected get ownPage(): boolean { return this.url?.isPage ?? false; }
  /** The parameters the engine receives. */
  params(): Record<string, unknown> { return this.state.params(); }
  /** The state as URL query text (what a link to this lab carries). */
  stateQuery(): string { return this.url.query(); }
  /** The chip this lab evaluates on (its pin, else the page's); a Try-it block beside the lab checks its answer for it. */
  currentChip(): unknown { return this.usesChip && this.state ? this.state.chipValue() : chipParam(); }
  protected chipValue(): unknown { return this.state.chipValue(); }
  /** The chip this lab evaluates on, as the engine's chip calculator reads it: kind, node, name. */
  protected chipFacts(): ChipFacts | null {
    if (!this.usesChip || !this.engine) return null;
    const chip = this.state?.chipValue() ?? chipParam();
    const r = this.engine.evaluate('chip', { chip }, { steps: false });
    if (isError(r)) return null;
    const o = r.outputs;
    const count = (v: unknown) => (typeof v === 'number' && v > 0 ? v : null);
    const ids = (v: unknown) => (Array.isArray(v) ? v.map(String) : null);
    return {
      kind: String(o.kind), nodeGpus: count(o.node_gpus), podChips: count(o.pod_chips), memoryBytes: count(o.hbm_bytes),
      memoryKind: typeof o.memory_kind === 'string' && o.memory_kind ? o.memory_kind : null,
      memoryName: String(o.memory_name), memoryRung: String(o.memory_rung), gpuShare: count(o.gpu_memory_share), name: String(o.name),
      weightFormats: ids(o.weight_formats), kvFormats: ids(o.kv_formats), adapterFormats: ids(o.adapter_formats),
    };
  }
  /** For the labs about the reader's own hardware on a datacenter chip: a sentence saying so, and
   *  the reader's own kinds of device offered first (a measured one where the page has it). */
  protected ownDeviceOffer(): TemplateResult | typeof nothing {
    const f = this.state.chipFacts;
    if (!f || this.onOwnDevice()) return nothing;
    const custom = customChip();
    const measured = custom && String(custom.name ?? '').startsWith('This device (measured)');
    const offers = OWN_DEVICES.filter((id) => this.engine!.chipName(id));
    return html`<p class="lab-own-device">The ${this.state.pin ? 'chip chosen here' : 'page’s chip'}, the ${f.name}, is a ${f.kind === 'tpu' ? 'TPU, a datacenter part' : 'datacenter GPU'}: the answer above is for it. For your own computer:
      ${measured ? html`<button type="button" class="lab-button" @click=${() => this.pinned('custom')}>${String(custom!.name)}</button> ` : nothing}${offers.map((id) => html`<button type="button" class="lab-button" @click=${() => this.pinned(id)}>${this.engine!.chipName(id)}</button> `)}
      or measure this device with the chip menu at the top of the page.</p>`;
  }
  /** Whether the lab's chip is the reader's own kind of device (a GPU card, a Mac, a CPU). */
  protected onOwnDevice(): boolean { return ONE_DEVICE_KINDS.includes(this.state.chipFacts?.kind ?? ''); }

  // ------------------------------------------------------------ evaluation
  /** Ask for an evaluation on the next animation frame (many inputs → one evaluation). */
  protected schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.evaluateNow(); });
  }
  /** Run a scheduled evaluation now instead of on the next frame, and resolve when the lab has
   *  re-rendered (the latency benchmark times a lab's own work this way, without the frame wait). */
  flush(): Promise<boolean> {
    if (this.frame) { cancelAnimationFrame(this.frame); this.frame = 0; this.evaluateNow(); }
    return this.updateComplete;
  }
  protected evaluateNow() {
    if (!this.engine) return;
    // numbers only on the hot path: the derivation's steps are asked for when it is open
    const params = this.params();
    const r = this.evaluateNumbers(params);
    const errors = this.state.errors;
    errors.clear();
    this.refusal = isError(r) ? r.error : null;
    if (isError(r)) {
      const param = r.error.param?.replace(/\[(\d+)\]/g, '.$1') ?? null; // "axes[1]" → the control "axes.1"
      const c = this.state.controls.find((x) => x.path === param);
      // a figure the chip lacks is said in words beside the result (renderMissingFigure); a field
      // that does not read as a number says so in words
      errors.set(c ? param! : (param === 'chip' ? 'chip' : ''), r.error.field ? '' : (c && this.unreadable(c)) || r.error.message);
    } else {
      this.result = r as LabResult<C>;
      this.resultParams = params;
      this.derivation.follow(r, params);
    }
    this.renders++;
    this.requestUpdate();
    this.url.written();
  }

  /** The numbers-only evaluation of the lab's parameters, the same outcome as the engine's for them:
   *  a lab may answer it in part from work done before (training-pod keeps its layout search). */
  protected evaluateNumbers(params: Record<string, unknown>): Outcome {
    return this.engine!.evaluate(this.calculator, params, { steps: false });
  }

  /** What is wrong with a number field, in words (words.ts fieldProblem: every lab's input
   *  errors come from there); null where the number is in range. */
  private unreadable(c: Control): string | null {
    const s = c.schema;
    const amount = fieldAmount((v, u) => this.engine!.format(v, u), s.unit);
    return fieldProblem(s, this.state.values.get(c.path), (x) => this.ownWords(amount(x)));
  }

  // ------------------------------------------------------------ what the controls report
  lastInputs(): Record<string, unknown> | null { return this.result?.inputs ?? null; }
  /** Where an empty field's slider sits: the figure the engine used for it where it reports one
   *  under the same name (training-pod's empty chips: the pod it took), or the default it echoes
   *  among its inputs (decode's chips: 16 on a TPU, one on a card), else the schema's default. */
  emptyValue(c: Control): unknown {
    const used = (this.result?.outputs as Record<string, unknown> | undefined)?.[c.path];
    if (typeof used === 'number') return used;
    const echoed = this.result?.inputs ? getPath(this.result.inputs, c.path) : undefined;
    return typeof echoed === 'number' ? echoed : c.schema.default;
  }
  changed(c: Control, previous: unknown) { this.controlChanged(c, previous); this.schedule(); }
  pinned(chip: string | null) {
    this.state.pin = chip;
    this.state.followChip(this.chipFacts());
    this.schedule();
  }

  // ------------------------------------------------------------ words and figures
  /** A count as the engine writes it: "1,120" (a layout's degree, read from its JSON). */
  protected count = (n: unknown): string => this.engine!.format(n, 'count');
  /** An output as the engine formats it ("1.39 ms", "140 GB"); a negative size is a shortfall. */
  protected fmt(name: OutputName<C>): string {
    const r = this.result!;
    const v = getPath(r.outputs, name), unit = this.engine!.unitOf(r, name);
    if (unit === 'bytes' && typeof v === 'number' && v < 0) return `${this.engine!.format(-v, unit)} short`;
    return this.ownWords(this.engine!.format(v, unit)); // "1 device", "7.79 device-hours" on a reader's own device
  }
  /** The range published runs reach beside the bound `boundOutput` (expected.ts), in this lab's
   *  words for its chips; `runsOf`: the output whose published runs give that range, where another
   *  (a sharded matmul's time takes its bounding term's); `band`: the prefix of a second band's
   *  figures ("expected_ttft_", expected.ts). */
  protected expected(r: Result, boundOutput: string, unit: string, bound?: string, runsOf = boundOutput, band?: string): TemplateResult | typeof nothing {
    const line = expectedLine(this.engine!, r, boundOutput, unit, bound, (t) => this.ownWords(t), band);
    // the runs behind the range, nearest the reader's setup, where no chart layer draws them (published-layer.ts)
    const drawn = this.layers.some((l) => 'note' in l);
    return line === nothing || drawn ? line : html`${line}${nearRunsLine(this.engine!, r, this.calculator, boundOutput, this.chipValue(), this, runsOf, band)}`;
  }
  /** Words written for chips (the engine's labels, units and sentences), as each lab says its
   *  chips: of the reader's own device "device" ("bytes per chip" → "bytes per device", "1 chip" →
   *  "1 device"), of a datacenter GPU "GPU" ("8 chips" → "8 GPUs", "price per chip-hour" → "per
   *  GPU-hour"); a TPU's as they are. */
  protected ownWords(text: string): string {
    if (!this.state) return text;
    if (this.onOwnDevice()) return deviceWords(text);
    return this.state.chipFacts?.kind === 'datacenter-gpu' ? gpuWords(text) : text;
  }
  /** An output named in a sentence: the figure as fmt() writes it, marked with the output it is
   *  (the lab contract test holds every such figure against the outputs' table). */
  protected fig(name: OutputName<C>): TemplateResult {
    return html`<span class="fig" data-figure=${name}>${this.fmt(name)}</span>`;
  }
  /** The engine's label of one of this lab's outputs (or of `calculator`'s). */
  protected outputLabel(name: string, calculator: string = this.calculator): string {
    return this.ownWords(this.engine!.output(calculator, name)?.label ?? name.replace(/_/g, ' '));
  }
  /** A choice value as the reader reads it: the engine's title for it (schema choice_titles),
   *  e.g. fabric "ici" → "ICI torus (TPU)". `param` is a parameter of `calculator` (default: this
   *  lab's); a value the schema does not list stays as it is. */
  protected choiceText(param: string, value: unknown, calculator: string = this.calculator): string {
    const p = this.engine?.calculator(calculator)?.params.find((x) => x.name === param);
    if (value === 'hbm' && this.state?.chipFacts) return this.state.chipFacts.memoryRung; // the memory rung, in this chip's words
    const titles = p?.choices && p.choice_titles && p.choices.length === p.choice_titles.length ? p.choice_titles[p.choices.indexOf(String(value))] : undefined;
    return titles ?? String(value);
  }
  /** Words that say whether something fits, in the colours every lab uses for it. */
  protected fitWords(fits: boolean, yes: string | TemplateResult, no: string | TemplateResult): TemplateResult {
    return fits ? html`<strong class="fits-yes">${yes}</strong>` : html`<strong class="fits-no lb-nofit">${no}</strong>`;
  }

  // ------------------------------------------------------------ charts
  /** the width a chart is drawn at: the box's, within [min, max] px */
  protected vizWidth(min = 320, max = 720): number { return this.chartBox.width(min, max); }
  drawChart(r: Result, box: HTMLElement) { this.drawViz(r as LabResult<C>, box); }
  /** Draws this lab's charts again for the same result (a layer's data arrived). */
  redrawCharts() { this.chartBox.redraw(); }
  /** The declared layers' marks for one of this lab's charts. */
  protected layerMarks(r: Result, width: number, chart = 'main') {
    const ctx: LayerContext = { result: r, engine: this.engine!, format: (v, u) => this.engine!.format(v, u), width };
    return this.layers.filter((l) => (l.chart ?? 'main') === chart).flatMap((l) => l.marks(ctx));
  }
  /** What the declared layers show for a result: part of a chart's cache key. */
  protected layerKey(r: Result, chart = 'main'): string {
    return this.layers.filter((l) => (l.chart ?? 'main') === chart).map((l) => l.key(r)).join('|');
  }

  // ------------------------------------------------------------ render
  /** The chip lacks a figure this calculator needs (an NVLink bandwidth on a consumer card): say
   *  so in the chip schema's words, and offer chips that have it. */
  protected renderMissingFigure(field: string): TemplateResult {
    const words = this.engine!.objectFields('chip').find((f) => f.name === field)?.label ?? field.replace(/_/g, ' ');
    const name = this.state.chipFacts?.name ?? 'This chip';
    const others = ['tpu-v5e', 'h100'].filter((id) => {
      const r = this.engine!.evaluate(this.calculator, { ...this.params(), chip: id }, { steps: false });
      return !isError(r);
    });
    // a link between chips on the reader's one device: no such link, named in its own words (a Mac has no ICI)
    const link = /^(ici_|nvlink|node_gpus|ib_|node_ib|dcn_)/.test(field) && this.onOwnDevice();
    const what = link ? html`The ${name} is one device: the catalog gives it no link to another device${this.technical ? html` (<code>${field}</code>)` : nothing}, and this lab prices what travels between devices${this.state.chipFacts?.kind === 'consumer-gpu' ? ' (two cards joined over PCIe are not modelled here)' : ''}.`
      : html`The catalog gives the ${name} no ${words}${this.technical ? html` (<code>${field}</code>)` : nothing}, and this lab needs it to price what it shows.`;
    return html`<div class="lab-error lab-missing" role="alert" data-field=${field}><p>${what}
      ${others.length ? html`See it on` : nothing} ${others.map((id, i) => html`${i ? ' or ' : ''}<button type="button" class="lab-button" @click=${() => this.pinned(id)}>${this.engine!.chipName(id)}</button>`)}${others.length ? ',' : ''}
      or give the figure in a custom chip (the chip menu at the top of the page).</p></div>`;
  }
  /** Why the lab opened where it did on this chip (one device, a node). */
  protected renderChipNote(): TemplateResult | typeof nothing {
    const notes = this.state.startNotes();
    return notes.length ? html`<p class="lab-chip-note">${notes.join(' ')}</p>` : nothing;
  }
  protected renderControl(c: Control): TemplateResult { return this.controlsView.render(c); }
  /** The outputs' table: the declared outputs (or every one), each under the engine's label; an
   *  output the engine leaves empty is left out, or says why where the lab can. */
  protected renderOutputs(r: LabResult<C>): TemplateResult {
    const specs = (this.outputs ?? Object.keys(r.outputs).filter((k) => ['number', 'string'].includes(typeof r.outputs[k])) as OutputName<C>[])
      .map((s) => (typeof s === 'string' ? { name: s } : s) as { name: OutputName<C>; label?: string; missing?: string; none?: (r: LabResult<C>) => string | null; hide?: (r: LabResult<C>) => boolean; wide?: boolean })
      // (a row the lab hides for this result: a speed of a model that cannot load)
      .filter((s) => !s.hide?.(r))
      .map((s) => ({ ...s, noneText: r.outputs[s.name] == null && s.none ? s.none(r) : null }))
      .filter((s) => r.outputs[s.name] != null || s.missing || s.noneText);
    const bytes = specs.some((s) => this.engine!.unitOf(r, s.name) === 'bytes');
    const empty = (s: { missing?: string; noneText: string | null }) => (s.noneText ? html`<span class="none">${s.noneText}</span>` : html`<span class="na">not available: ${s.missing}</span>`);
    return html`<dl class="lab-outputs">${specs.map((s) => html`<div data-out=${s.name} class=${s.noneText || s.wide ? 'wide' : ''}><dt>${cap(s.label ?? this.outputLabel(s.name))}${this.technical ? html` <code class="o-name">(${s.name})</code>` : nothing}</dt>${r.outputs[s.name] == null ? html`<dd>${empty(s)}</dd>` : this.valueCell(s.name)}</div>`)}</dl>
      ${bytes ? this.renderMemoryUnits() : nothing}`;
  }
  /** A table value: a number and its unit never break apart ("5.93 GB", "6 × 10²⁰ FLOPs"); a
   *  value in words (a layout, a sentence) wraps as text does. */
  protected valueCell(name: OutputName<C>): TemplateResult {
    const text = this.fmt(name);
    if (text.length > 28) return html`<dd>${text}</dd>`;
    // "22.4 million chip-hours" in a quarter-width cell: the number and its first word hold together,
    // the unit may take the next line (held whole it ran past the card's edge)
    const second = text.indexOf(' ', text.indexOf(' ') + 1);
    if (second > 0 && !text.includes('×')) return html`<dd><span class="nowrap">${text.slice(0, second)}</span>${text.slice(second)}</dd>`;
    return html`<dd class="nowrap">${text}</dd>`;
  }
  /** Memory is shown in decimal units, said once in words: with the chip's own memory where that
   *  is a whole number of GiB (a "24 GB" card holds 24 GiB, 25.8 GB). */
  protected renderMemoryUnits(): TemplateResult {
    const m = this.state.chipFacts?.memoryBytes;
    const gib = m && m % 2 ** 30 === 0 ? m / 2 ** 30 : null;
    const share = this.state.chipFacts?.gpuShare;
    // one rule for every chip: the catalog's memory in bytes, shown in GB of 10⁹; a part sold in
    // GiB reads larger in GB, a part whose figure is given in GB reads as that figure
    const name = this.state.chipFacts?.name;
    return html`<p class="lab-units">Memory here is in decimal units: 1 GB is 10⁹ bytes, a GiB 2³⁰${gib ? html`, so the ${name}'s memory, sold as ${this.engine!.format(gib, 'count')} GB and in fact ${this.engine!.format(gib, 'count')} GiB, reads as ${this.engine!.format(m, 'bytes')} here`
      : m && name ? html`; the catalog counts the ${name}'s memory as ${this.engine!.format(m, 'bytes')}, ${this.engine!.format(m / 1e9, 'count')} × 10⁹ bytes` : nothing}.${m && share && share < 1
      ? html` Its GPU may use ${this.engine!.format(share * 100, 'count')} % of that memory by default, ${this.engine!.format(m * share, 'bytes')}: the rest stays with the system.` : nothing}</p>`;
  }

  protected updated() {
    // only the derivation's formulas can overflow sideways: measured when it changes, not per input
    if (this.derivation && this.derivation.text !== this.overflowChecked) { this.overflowChecked = this.derivation.text; focusableOverflow(this); }
    if (this.hasViz && !this.chartBox.settle()) return;
    this.dataset.rendered = String(this.renders);
  }
  private overflowChecked = '';

  render() {
    if (!this.engine || !this.state) {
      return this.loadProblem ? html`<p class="lab-notice" role="alert">${this.loadProblem}</p>` : html`<p class="lab-loading">Loading the engine…</p>`;
    }
    const r = this.result;
    const st = this.state;
    const general = st.errors.get('');
    const stale = st.errors.size > 0;
    const q = this.stateQuery();
    const main = st.controls.filter((c) => st.isMain(c));
    const rest = st.controls.filter((c) => !st.isMain(c));
    return html`<div class="lab ${stale ? 'stale' : ''}">
      ${st.notices.length ? html`<div class="lab-notice" role="alert"><strong>Note:</strong> ${st.notices.map((n) => html`<p>${this.words(n)}</p>`)}</div>` : nothing}
      ${main.length ? html`<div class="lab-main">${main.map((c) => this.renderControl(c))}</div>` : nothing}
      ${this.refusal?.field ? this.renderMissingFigure(this.refusal.field) : general ? html`<p class="lab-error" role="alert">${this.words(general)}</p>` : nothing}
      ${r ? html`
        ${this.hasViz ? html`<div class="lab-viz"></div>` : nothing}
        <div class="lab-verdict" aria-live="polite">${this.renderVerdict(r)}</div>
        ${this.renderAfterVerdict(r)}` : nothing}
      ${this.hintText() ? html`<p class="lab-hint">${this.hintText()}</p>` : nothing}
      <fieldset class="lab-controls"><legend>Settings</legend>
        ${this.renderChipNote()}
        ${this.renderControlsIntro()}
        ${this.controlsView.renderChip()}
        ${rest.map((c) => this.renderControl(c))}
        ${this.renderExtraControls()}
      </fieldset>
      ${r ? html`
        ${this.renderOutputs(r)}
        ${r.warnings.some((w) => this.warningShown(w, r)) ? html`<ul class="lab-warnings" data-figure="notes">${r.warnings.filter((w) => this.warningShown(w, r)).map((w) => html`<li>${this.words(w)}</li>`)}</ul>` : nothing}
        ${this.derivation.render(this.technical)}` : nothing}
      ${this.url.isPage ? nothing : html`<p class="lab-link"><a href=${`/labs/${LAB_INFO[this.localName]?.name ?? this.calculator}/${q ? '?' + q : ''}`}>Open this lab on its own page</a> (the settings come along)</p>`}
    </div>`;
  }
}

/** The reader's own kinds of device a hardware lab offers on a datacenter chip: a gaming card, a
 *  Mac, a desktop CPU. */
const OWN_DEVICES = ['rtx-4090', 'apple-m2-max', 'desktop-ddr5'];

const cap = (s: string) => (s ? s[0].toUpperCase() + s.slice(1) : s);
