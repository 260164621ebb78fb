// The lab framework: a calculator's schema → controls; URL state ↔ params; evaluation on
// input, coalesced per animation frame; outputs, verdict, derivation steps and warnings.
// A lab subclasses LabElement and says WHICH parameters to expose and how to draw its
// result; every range, default, unit, formula and number comes from the engine.
// See README.md in this folder.
import { LitElement, html, nothing, type TemplateResult } from 'lit';
import { unsafeHTML } from 'lit/directives/unsafe-html.js';
import { engineLoadProblem, getEngine, getPath, isError, type Engine, type ParamSchema, type Result } from '../engine';
import { chipParam, customChip, DEFAULT_CHIP, mode } from '../state';
import { fieldText, typedValue } from '../format';
import { groupChips } from '../chip-groups.js';
import { loadKatex, stepsHtml } from '../tex';
import { loadPlot } from './plot';
import { focusableOverflow } from '../overflow';
import { modelPicker } from './model-picker';
import './labs.css';

export interface ControlSpec {
  /** schema path: a parameter name or object.field, e.g. "matmul.B" */
  path: string;
  /** URL / state key; default: the last segment of path */
  key?: string;
  /** label shown to the reader; default: the schema's doc line */
  label?: string;
  /** only meaningful when other controls have these values (e.g. links only with bandwidth "ici"):
   *  otherwise the control is disabled and the parameter is not sent */
  onlyWith?: Record<string, unknown>;
  /** fields laid over the engine's schema for this control (e.g. a bool_or_list shown as one
   *  checkbox: { type: 'boolean' }); ranges and defaults still come from the engine */
  schema?: Partial<ParamSchema>;
  /** text shown for each choice of a select (default: the choice itself), e.g. a model's name */
  choiceLabels?: Record<string, string>;
  /** the lab's starting value where it differs from the engine's default: a teaching preset
   *  (the setting where the chapter's effect shows within one drag); the URL omits it */
  start?: unknown;
}
export interface OutputSpec { name: string; label: string }

export interface Control extends Omit<ControlSpec, 'schema'> { key: string; schema: ParamSchema; id: string }

let labCounter = 0;

/** "bytes_per_param" → "bytes per param": a name for people until the schema gives a label. */
export function humanise(name: string): string {
  return name.replace(/[_.]+/g, ' ').trim();
}

export abstract class LabElement extends LitElement {
  /** the engine calculator this lab runs */
  abstract readonly calculator: string;
  /** the parameters the reader controls, in order */
  abstract readonly controlSpecs: ControlSpec[];
  /** outputs to list (default: every number/string output, labelled by its name) */
  readonly outputSpecs: OutputSpec[] | null = null;
  /** a lab has a chip selector (overriding the global one) unless this is false */
  readonly usesChip: boolean = true;
  /** one line saying what to try first (shown above the settings) */
  readonly hint: string = '';

  protected engine: Engine | null = null;
  protected controls: Control[] = [];
  protected values = new Map<string, unknown>(); // path → value handed to the engine
  protected texts = new Map<string, string>(); // path → text in the numeric field
  protected errors = new Map<string, string>(); // path (or "" for general) → engine message
  protected chipOverride: string | null = null;
  protected result: Result | null = null;
  protected notice: string[] = [];
  /** why the engine could not be loaded, if it could not */
  private loadProblem = '';
  protected stepsMarkup = '';
  private frame = 0;
  private urlTimer = 0;
  private uid = `lab${++labCounter}`;
  /** counts evaluations rendered; the latency benchmark watches data-rendered */
  protected renders = 0;

  protected createRenderRoot() { return this; } // light DOM: global CSS and KaTeX fonts apply

  private started = false;
  connectedCallback() {
    if (!this.started) this.textContent = ''; // drop the pre-rendered fallback once
    super.connectedCallback();
    window.addEventListener('sl-chip-change', this.onGlobalChip);
    window.addEventListener('sl-mode-change', this.onMode);
    if (!this.started) { this.started = true; void this.start(); }
  }
  disconnectedCallback() {
    super.disconnectedCallback();
    window.removeEventListener('sl-chip-change', this.onGlobalChip);
    window.removeEventListener('sl-mode-change', this.onMode);
  }
  private onGlobalChip = () => { if (!this.chipOverride) this.schedule(); };
  private onMode = () => this.requestUpdate();
  /** Technical mode shows raw parameter names and opens the derivation; Plain shows labels. */
  protected get technical(): boolean { return mode() === 'technical'; }

  // ------------------------------------------------------------ hooks for subclasses
  /** parameters always sent besides the controls (e.g. fixed choices) */
  protected baseParams(): Record<string, unknown> { return {}; }
  /** the verdict line(s) */
  protected renderVerdict(_r: Result): TemplateResult | typeof nothing { return nothing; }
  /** the other calculators this lab evaluates (the engine's warm-up makes their first calls off
   *  the main thread too); engine-variants.test.mjs checks the list against the lab's source */
  protected readonly alsoEvaluates: readonly string[] = [];
  /** draw into `host` (a chart); called after each successful evaluation */
  protected drawViz(_r: Result, _host: HTMLElement): void {}
  /** whether drawViz is used (a `.lab-viz` box is placed) */
  protected readonly hasViz: boolean = false;
  /** after the reader changed a control (before the evaluation is scheduled) */
  protected controlChanged(_c: Control, _previous: unknown): void {}
  /** a URL key this lab handles itself (not a control); return true if taken */
  protected applyExtraState(_key: string, _value: string): boolean { return false; }
  /** lab-specific controls placed after the generated ones, inside the settings */
  protected renderExtraControls(): TemplateResult | typeof nothing { return nothing; }

  // ------------------------------------------------------------ setup
  // The first load is cut into tasks (engine start; schema and controls; first numbers and
  // Lit's first render; first chart), none of them long enough to hold up a reader's input
  // for long: in one task they blocked the page for ~1 s on a slow phone (BENCHMARKS.md). The
  // chart, and Observable Plot with it, come when the chart's box nears the viewport.
  private async start() {
    let engine: Engine;
    try {
      engine = await getEngine([this.calculator, ...this.alsoEvaluates]);
    } catch (e) {
      this.loadProblem = engineLoadProblem(e);
      this.requestUpdate();
      return;
    }
    await nextTask();
    this.engine = engine;
    const calc = engine.calculator(this.calculator);
    if (!calc) { this.notice = [`This lab needs the engine's "${this.calculator}" calculator, which this build lacks.`]; this.requestUpdate(); return; }
    this.controls = this.controlSpecs.map((s) => this.buildControl(s));
    this.resetToDefaults();
    const fromUrl = this.hasAttribute('data-url-state') ? new URLSearchParams(location.search) : null;
    const fromAttr = this.dataset.state ? this.parseStateAttr(this.dataset.state) : null;
    const state = fromUrl ?? fromAttr;
    if (state && [...state.keys()].length) this.applyState(state);
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

  /** A bound the engine's schema declares for a parameter path: the web repeats no range. */
  protected bound(path: string, which: 'min' | 'max' | 'min_items' | 'max_items'): number {
    const v = this.findSchema(path)?.[which];
    if (typeof v !== 'number') throw new Error(`the engine's schema gives ${this.calculator}.${path} no ${which}`);
    return v;
  }

  /** The schema of a parameter path. An entry of a map or list parameter ("mesh.X", "axes.0")
   *  resolves to the container's item schema, with the container's default entry as default. */
  protected findSchema(path: string): ParamSchema | undefined {
    const calc = this.engine?.calculator(this.calculator);
    const [head, ...rest] = path.split('.');
    let p = calc?.params.find((x) => x.name === head);
    for (const r of rest) {
      if (p && (p.type === 'map' || p.type === 'list') && p.fields?.length) {
        const d = p.default as Record<string, unknown> | unknown[] | null;
        const def = d == null ? null : Array.isArray(d) ? d[Number(r)] : d[r];
        p = { ...p.fields[0], name: r, default: def ?? null };
      } else if (p && p.type === 'overrides') {
        const fields = (p as ParamSchema & { overrides_of?: string }).overrides_of === 'model' ? this.engine!.objectFields('model') : this.engine!.objectFields('chip');
        p = fields.find((x) => x.name === r);
      } else p = p?.fields?.find((x) => x.name === r);
    }
    return p;
  }
  /** A control for a spec (subclasses may add controls later, e.g. one per name in a spec string). */
  protected buildControl(s: ControlSpec): Control {
    const found = this.findSchema(s.path);
    if (!found) throw new Error(`${this.calculator} has no parameter ${s.path}`);
    // a `model` parameter (catalog id or model object) is offered as the engine's catalog
    const picked = found.type === 'model' ? modelPicker(found, this.engine!) : null;
    const base = picked?.schema ?? found;
    const schema = s.schema ? { ...base, ...s.schema } : base;
    return { choiceLabels: picked?.choiceLabels ?? choiceTitles(base), ...s, key: s.key ?? s.path.split('.').pop()!, schema, id: `${this.uid}-${s.path.replace(/\W/g, '-')}` };
  }

  private parseStateAttr(json: string): URLSearchParams | null {
    try {
      const o = JSON.parse(json);
      return new URLSearchParams(Object.entries(o).map(([k, v]) => [k, String(v)]));
    } catch { this.notice.push('This lab\u2019s starting state is not valid JSON; showing the defaults.'); return null; }
  }

  /** where a control starts: the lab's preset, else the engine's default */
  protected startOf(c: Control): unknown { return c.start !== undefined ? c.start : c.schema.default; }
  private resetToDefaults() {
    for (const c of this.controls) this.setValue(c, this.startOf(c));
  }
  protected setValue(c: Control, v: unknown, text?: string) {
    this.values.set(c.path, v);
    this.texts.set(c.path, text ?? fieldText(v));
  }

  /** State from a URL (or a placement's state attribute). Anything the engine refuses is dropped with a notice. */
  private applyState(state: URLSearchParams) {
    const given = new Map<string, string>();
    for (const [k, v] of state) {
      if (k === 'chip' && this.usesChip) {
        const known = this.engine!.chipIndex.some((c) => c.id === v) || (v === 'custom' && customChip());
        if (known) this.chipOverride = v;
        else this.notice.push(`Unknown chip “${v}” in the address; using the chip selector’s.`);
        continue;
      }
      if (this.applyExtraState(k, v)) continue;
      if (k === 'device') continue; // a measured chip for the whole page: the shell reads it (measure/measure-device.ts)
      const c = this.controls.find((x) => x.key === k);
      if (!c) { this.notice.push(`Ignored “${k}” in the address: this lab has no such setting.`); continue; }
      given.set(c.path, v);
      this.setValue(c, c.schema.type === 'choice' || c.schema.type === 'text' ? v : c.schema.type === 'boolean' ? (v === 'true' ? true : v === 'false' ? false : v) : typedValue(v), v);
    }
    const attempts = given.size + 1;
    for (let i = 0; i <= attempts; i++) {
      const r = this.engine!.evaluate(this.calculator, this.params(), { steps: false });
      if (!isError(r)) return;
      const bad = this.controls.find((c) => c.path === r.error.param && given.has(c.path));
      if (!bad) {
        if (r.error.param === 'chip' && this.chipOverride) {
          this.notice.push(`The address asked for chip “${this.chipOverride}”: ${r.error.message}. Using the defaults.`);
        } else this.notice.push(`The settings in the address were refused (${r.error.param ?? ''}: ${r.error.message}); showing the defaults.`);
        this.chipOverride = null;
        this.resetToDefaults();
        return;
      }
      this.notice.push(`${bad.key}=${given.get(bad.path)} was refused (${r.error.message}); using the default ${fieldText(this.startOf(bad))}.`);
      given.delete(bad.path);
      this.setValue(bad, this.startOf(bad));
    }
    this.chipOverride = null;
    this.resetToDefaults();
  }

  /** The chip this lab evaluates on (its own choice, else the page's), for a Try-it block beside it. */
  currentChip(): unknown { return this.usesChip ? this.chipValue() : chipParam(); }
  protected chipValue(): unknown {
    if (this.chipOverride === 'custom') return customChip() ?? DEFAULT_CHIP;
    return this.chipOverride ?? chipParam();
  }

  /** Whether a control applies with the current values of the others (see ControlSpec.onlyWith). */
  protected applies(c: ControlSpec): boolean {
    return !c.onlyWith || Object.entries(c.onlyWith).every(([path, v]) => this.values.get(path) === v);
  }

  /** The parameters as the engine receives them: values equal to the schema default are left
   *  out (the engine fills them in), as are controls that do not apply. */
  params(): Record<string, unknown> {
    const p: Record<string, unknown> = structuredClone(this.baseParams());
    if (this.usesChip) p.chip = this.chipValue();
    for (const c of this.controls) {
      if (!this.applies(c)) continue;
      // a default value is left to the engine, unless baseParams() set that path (then it must win)
      if (this.values.get(c.path) === c.schema.default && getPath(p, c.path) === undefined) continue;
      const ks = c.path.split('.');
      let o = p;
      for (const k of ks.slice(0, -1)) o = (o[k] ??= {}) as Record<string, unknown>;
      o[ks[ks.length - 1]] = this.values.get(c.path);
    }
    return p;
  }

  /** The current state as URL query text (non-default values only). */
  stateQuery(): string {
    const q = new URLSearchParams();
    if (this.chipOverride) q.set('chip', this.chipOverride);
    for (const c of this.controls) {
      const v = this.values.get(c.path);
      if (v !== this.startOf(c) && this.applies(c) && !this.errors.has(c.path)) q.set(c.key, String(v));
    }
    return q.toString();
  }

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

  /** the parameters that gave this.result: the derivation is evaluated from the same ones */
  private resultParams: Record<string, unknown> = {};
  protected evaluateNow() {
    if (!this.engine) return;
    // numbers only on the hot path: the derivation's steps are asked for when it is open (renderSteps)
    const params = this.params();
    const r = this.engine.evaluate(this.calculator, params, { steps: false });
    this.errors.clear();
    if (isError(r)) {
      const param = r.error.param?.replace(/\[(\d+)\]/g, '.$1') ?? null; // "axes[1]" → the control "axes.1"
      this.errors.set(this.controls.some((c) => c.path === param) ? param! : (param === 'chip' ? 'chip' : ''), r.error.message);
    } else {
      this.result = r;
      this.resultParams = params;
      this.renderStepsSoon(r);
    }
    this.renders++;
    this.requestUpdate();
    if (this.hasAttribute('data-url-state')) this.writeUrlSoon();
  }

  /** The derivation is typeset only while it is open (KaTeX and its fonts load on the first
   *  opening, not with the page), and re-typeset once input pauses (the costliest part of an update). */
  private stepsTimer = 0;
  // Technical readers see the derivation open; Plain readers open it (KaTeX loads only then).
  private stepsOpen = mode() === 'technical';
  private renderStepsSoon(r: Result) {
    clearTimeout(this.stepsTimer);
    if (!this.stepsOpen) { this.stepsMarkup = ''; return; }
    if (!this.stepsMarkup) { void this.renderSteps(r); return; }
    this.stepsTimer = window.setTimeout(() => void this.renderSteps(r), 120);
  }
  private async renderSteps(r: Result) {
    const katex = await loadKatex();
    if (r !== this.result) return;
    // the same parameters as the numbers shown, this time with the steps (the engine is deterministic)
    const full = this.engine!.evaluate(this.calculator, this.resultParams);
    this.stepsMarkup = isError(full) ? '' : stepsHtml(katex, full.steps, (v, u) => this.engine!.format(v, u));
    this.requestUpdate();
  }
  private onStepsToggle(e: Event) {
    this.stepsOpen = (e.currentTarget as HTMLDetailsElement).open;
    if (this.stepsOpen && this.result && !this.stepsMarkup) void this.renderSteps(this.result);
  }

  private writeUrlSoon() {
    clearTimeout(this.urlTimer);
    this.urlTimer = window.setTimeout(() => {
      const q = this.stateQuery();
      history.replaceState(history.state, '', `${location.pathname}${q ? '?' + q : ''}${location.hash}`);
    }, 250);
  }

  // ------------------------------------------------------------ controls
  private sliderRange(s: ParamSchema): [number, number, boolean] {
    const log = s.scale === 'log';
    let lo = s.min ?? 0, hi = s.max ?? 1;
    if (log && lo <= 0) lo = s.type === 'integer' ? 1 : Math.max(hi * 1e-12, 1e-12);
    return [lo, hi, log];
  }
  private toSlider(s: ParamSchema, v: unknown): number {
    const [lo, hi, log] = this.sliderRange(s);
    const x = typeof v === 'number' ? v : lo;
    const t = log ? (Math.log(Math.max(x, lo)) - Math.log(lo)) / (Math.log(hi) - Math.log(lo)) : (x - lo) / (hi - lo);
    return Math.round(Math.min(1, Math.max(0, t)) * 1000);
  }
  private fromSlider(s: ParamSchema, pos: number): number {
    const [lo, hi, log] = this.sliderRange(s);
    const t = pos / 1000;
    let v = log ? Math.exp(Math.log(lo) + t * (Math.log(hi) - Math.log(lo))) : lo + t * (hi - lo);
    if (log && v >= 100) v = Number(v.toPrecision(3)); // round to readable numbers while dragging
    if (s.type === 'integer') v = Math.round(v);
    return Math.min(hi, Math.max(lo, v));
  }

  private onSlider(c: Control, e: Event) {
    const prev = this.values.get(c.path);
    this.setValue(c, this.fromSlider(c.schema, Number((e.target as HTMLInputElement).value)));
    this.controlChanged(c, prev);
    this.schedule();
  }
  private onText(c: Control, e: Event) {
    const prev = this.values.get(c.path);
    const t = (e.target as HTMLInputElement).value;
    // an emptied field of an optional parameter (schema default null) means "leave it to the engine"
    this.values.set(c.path, c.schema.type === 'text' ? t : t.trim() === '' && c.schema.default === null ? null : typedValue(t));
    this.texts.set(c.path, t);
    this.controlChanged(c, prev);
    this.schedule();
  }
  private onChoice(c: Control, e: Event) {
    const prev = this.values.get(c.path);
    this.setValue(c, (e.target as HTMLSelectElement).value);
    this.controlChanged(c, prev);
    this.schedule();
  }
  private onCheck(c: Control, e: Event) {
    const prev = this.values.get(c.path);
    this.setValue(c, (e.target as HTMLInputElement).checked);
    this.controlChanged(c, prev);
    this.schedule();
  }
  private onChip(e: Event) {
    const v = (e.target as HTMLSelectElement).value;
    this.chipOverride = v === '' ? null : v;
    this.schedule();
  }

  /** The words a control is called by: the lab's own label, else the schema's, else its name made readable. */
  protected humanLabel(c: Control): string {
    return c.label ?? c.schema.label ?? humanise(c.key);
  }
  /** The unit written after a control's label, unless the label already names it
   *  ("global batch (tokens)", "gradient bytes per parameter"): a unit is never said twice. */
  private unitNote(c: Control): string | null {
    const key = `${c.path}|${this.technical}`;
    if (!this.unitNotes.has(key)) this.unitNotes.set(key, unitUnlessNamed(c.schema.unit, this.technical ? (c.label ?? c.schema.doc ?? '') : this.humanLabel(c)));
    return this.unitNotes.get(key)!;
  }
  /** per control and mode, worked out once: a label and its unit do not change as the reader drags */
  private unitNotes = new Map<string, string | null>();
  /** Plain: the human label. Technical: the parameter's name and its doc line. */
  private labelText(c: Control): TemplateResult {
    return this.technical
      ? html`<span class="c-name">${c.key}</span> ${c.label ?? c.schema.doc}`
      : html`${this.humanLabel(c)}`;
  }

  /** An option of a choice: its name for people; Technical adds the value the engine takes. */
  private optionText(c: Control, value: string): string {
    const title = c.choiceLabels?.[value];
    if (!title) return value;
    return this.technical && title.toLowerCase() !== value.toLowerCase() ? `${title} (${value})` : title;
  }

  /** A choice value as the reader reads it: the engine's title for it (schema choice_titles),
   *  e.g. an output that echoes a choice, fabric "ici" → "ICI torus (TPU)". `param` is a parameter
   *  of `calculator` (default: this lab's); a value the schema does not list stays as it is. */
  protected choiceText(param: string, value: unknown, calculator = this.calculator): string {
    const p = this.engine?.calculator(calculator)?.params.find((x) => x.name === param);
    return (p && choiceTitles(p)?.[String(value)]) ?? String(value);
  }

  protected renderControl(c: Control): TemplateResult {
    const s = c.schema;
    const err = this.errors.get(c.path);
    const off = !this.applies(c);
    const errId = `${c.id}-err`;
    if (s.type === 'choice') {
      return html`<div class="control" data-key=${c.key}>
        <label for=${c.id}>${this.labelText(c)}</label>
        <select id=${c.id} ?disabled=${off} .value=${String(this.values.get(c.path))} @change=${(e: Event) => this.onChoice(c, e)} aria-invalid=${err ? 'true' : 'false'} aria-describedby=${errId}>
          ${(s.choices ?? []).map((o) => html`<option value=${o} ?selected=${o === this.values.get(c.path)}>${this.optionText(c, o)}</option>`)}
        </select>
        <span class="field-error" id=${errId} role="alert">${err ?? ''}</span>
      </div>`;
    }
    if (s.type === 'boolean') {
      return html`<div class="control check" data-key=${c.key}>
        <input type="checkbox" id=${c.id} ?disabled=${off} .checked=${this.values.get(c.path) === true} @change=${(e: Event) => this.onCheck(c, e)} aria-invalid=${err ? 'true' : 'false'} aria-describedby=${errId}>
        <label for=${c.id}>${this.labelText(c)}</label>
        <span class="field-error" id=${errId} role="alert">${err ?? ''}</span>
      </div>`;
    }
    if (s.type === 'text') {
      return html`<div class="control text" data-key=${c.key}>
        <label for=${c.id}>${this.labelText(c)}</label>
        <input type="text" id=${c.id} ?disabled=${off} autocomplete="off" spellcheck="false" .value=${this.texts.get(c.path) ?? ''}
          aria-invalid=${err ? 'true' : 'false'} aria-describedby=${errId} @input=${(e: Event) => this.onText(c, e)}>
        <span class="field-error" id=${errId} role="alert">${err ?? ''}</span>
      </div>`;
    }
    const v = this.values.get(c.path), unit = this.unitNote(c);
    return html`<div class="control numeric" data-key=${c.key}>
      <label for=${c.id}>${this.labelText(c)}${unit ? html` <span class="unit">(${unit})</span>` : nothing}</label>
      <div class="c-inputs">
        <input type="range" min="0" max="1000" step="1" ?disabled=${off} .value=${String(this.toSlider(s, err ? this.result?.inputs ? getPath(this.result.inputs, c.path) : s.default : v))}
          aria-label=${`${this.humanLabel(c)} slider (${s.scale === 'log' ? 'log scale' : 'linear'}, ${fieldText(s.min)} to ${fieldText(s.max)})`}
          aria-valuetext=${this.texts.get(c.path) ?? ''}
          @input=${(e: Event) => this.onSlider(c, e)}>
        <input type="text" id=${c.id} ?disabled=${off} inputmode="decimal" autocomplete="off" spellcheck="false" .value=${this.texts.get(c.path) ?? ''}
          aria-invalid=${err ? 'true' : 'false'} aria-describedby=${errId} @input=${(e: Event) => this.onText(c, e)}>
      </div>
      <span class="field-error" id=${errId} role="alert">${err ?? ''}</span>
    </div>`;
  }

  protected renderChipControl(): TemplateResult | typeof nothing {
    if (!this.usesChip || !this.engine) return nothing;
    const globalName = (() => {
      const g = chipParam();
      return typeof g === 'string' ? this.engine!.chipName(g) || g : String(g.name ?? 'custom chip');
    })();
    const err = this.errors.get('chip');
    const custom = customChip();
    return html`<div class="control" data-key="chip">
      <label for=${`${this.uid}-chip`}>${this.technical ? html`<span class="c-name">chip</span> the chip (this lab only)` : 'Chip (this lab only)'}</label>
      <select id=${`${this.uid}-chip`} @change=${(e: Event) => this.onChip(e)} aria-invalid=${err ? 'true' : 'false'} aria-describedby=${`${this.uid}-chip-err`}>
        <option value="" ?selected=${!this.chipOverride}>Same as the page: ${globalName}</option>
        ${groupChips([...this.engine.chipIndex], [this.engine.chipKindField]).map((g) => html`<optgroup label=${g.title}>${g.chips.map((c) => html`<option value=${c.id} ?selected=${this.chipOverride === c.id}>${c.name}</option>`)}</optgroup>`)}
        ${custom ? html`<option value="custom" ?selected=${this.chipOverride === 'custom'}>Custom: ${String(custom.name ?? 'chip')}</option>` : nothing}
      </select>
      <span class="field-error" id=${`${this.uid}-chip-err`} role="alert">${err ?? ''}</span>
    </div>`;
  }

  // ------------------------------------------------------------ result
  protected fmt(name: string): string {
    const r = this.result!;
    const v = getPath(r.outputs, name), unit = this.engine!.unitOf(r, name);
    // A negative size is a shortfall (e.g. HBM left when the weights do not fit): say so in words.
    if (unit === 'bytes' && typeof v === 'number' && v < 0) return `${this.engine!.format(-v, unit)} short`;
    return this.engine!.format(v, unit);
  }
  protected renderOutputs(r: Result): TemplateResult {
    const declared = this.engine!.calculator(this.calculator)?.outputs ?? [];
    const specs = this.outputSpecs ?? Object.keys(r.outputs).filter((k) => ['number', 'string'].includes(typeof r.outputs[k]))
      .map((k) => ({ name: k, label: declared.find((o) => o.name === k)?.label ?? humanise(k) }));
    return html`<dl class="lab-outputs">${specs.map((s) => html`<div data-out=${s.name}><dt>${s.label}${this.technical ? html` <code class="o-name">${s.name}</code>` : nothing}</dt><dd>${this.fmt(s.name)}</dd></div>`)}</dl>`;
  }

  protected updated() {
    // only the derivation's formulas can overflow sideways: measured when it changes, not per input
    if (this.stepsMarkup !== this.overflowChecked) { this.overflowChecked = this.stepsMarkup; focusableOverflow(this); }
    if (this.result && this.hasViz) {
      const host = this.querySelector<HTMLElement>('.lab-viz');
      if (host && host !== this.vizBox) this.drawFirstChart(host);
      // data-rendered is set once the chart is drawn, or now if its box is away from the viewport
      if (this.firstChartPending && this.chartView !== 'far') return;
      if (this.firstChartPending) { this.dataset.rendered = String(this.renders); return; }
      if (host && host.dataset.renders !== String(this.renders)) this.drawChart(host);
    }
    this.dataset.rendered = String(this.renders);
  }
  private overflowChecked = '';
  private drawChart(host: HTMLElement) {
    host.dataset.renders = String(this.renders);
    this.drawViz(this.result!, host);
  }

  /** The chart box's width, kept by a ResizeObserver: drawViz reads no layout (a read after Lit's
   *  writes would force a layout of the whole page, on every input and at the first chart). */
  private vizBox: HTMLElement | null = null;
  private vizBoxWidth = 0;
  private vizObserver: ResizeObserver | null = null;
  private viewObserver: IntersectionObserver | null = null;
  private firstChartPending = false;
  /** where the chart box stands against the viewport until its first chart: not known yet, within
   *  half a screen of it (`near`), or further (`far`) */
  private chartView: 'unknown' | 'near' | 'far' = 'unknown';
  /** A new chart box. The chart is drawn, in a task of its own once the numbers are on screen, when
   *  both observers have reported: the ResizeObserver (after the page's layout) gives the box's
   *  width, and the IntersectionObserver says the box is within half a screen below the viewport.
   *  Observable Plot is loaded then, so a lab whose chart is below the fold (most, on a phone) does
   *  not fetch, run or draw it before the reader scrolls towards it. A box that is not laid out (a
   *  lab in a chapter step not shown yet) reports when it is shown. Until then data-rendered says
   *  the numbers are on screen; once drawn, the chart follows every input, seen or not. */
  private drawFirstChart(host: HTMLElement) {
    this.vizObserver?.disconnect();
    this.viewObserver?.disconnect();
    this.vizBox = host;
    this.firstChartPending = true;
    this.chartView = 'unknown';
    let reported = false;
    const drawWhenReady = () => {
      if (!reported || this.chartView !== 'near') return;
      void loadPlot().then(nextTask).then(() => {
        if (this.vizBox !== host || !this.firstChartPending) return;
        this.firstChartPending = false;
        // updated() draws it and marks the lab rendered (never in between an evaluation and its render)
        this.requestUpdate();
      });
    };
    this.vizObserver = new ResizeObserver(() => {
      const w = host.clientWidth; // layout is fresh when a ResizeObserver reports
      if (reported && w === this.vizBoxWidth) return;
      this.vizBoxWidth = w;
      if (reported) { if (this.result && !this.firstChartPending) this.drawChart(host); return; } // a wider or narrower page: redraw for it
      reported = true;
      drawWhenReady();
    });
    this.viewObserver = new IntersectionObserver((entries) => {
      if (this.vizBox !== host) return;
      if (!entries[entries.length - 1].isIntersecting) {
        this.chartView = 'far';
        // updated() marks the numbers rendered (not here: an evaluation may be waiting for its render)
        if (this.firstChartPending && this.result) this.requestUpdate();
        return;
      }
      this.chartView = 'near';
      this.viewObserver?.disconnect();
      drawWhenReady();
    }, { rootMargin: '0px 0px 50% 0px' });
    this.vizObserver.observe(host);
    this.viewObserver.observe(host);
  }
  /** the width a chart is drawn at: the box's, within [min, max] px */
  protected vizWidth(min = 300, max = 720): number {
    return Math.max(min, Math.min(max, this.vizBoxWidth || 640));
  }

  render() {
    if (!this.engine) {
      return this.loadProblem ? html`<p class="lab-notice" role="alert">${this.loadProblem}</p>` : html`<p class="lab-loading">Loading the engine…</p>`;
    }
    const r = this.result;
    const general = this.errors.get('');
    const stale = this.errors.size > 0;
    const q = this.stateQuery();
    return html`<div class="lab ${stale ? 'stale' : ''}">
      ${this.hint ? html`<p class="lab-hint">${this.hint}</p>` : nothing}
      ${this.notice.length ? html`<div class="lab-notice" role="alert"><strong>Note:</strong> ${this.notice.map((n) => html`<p>${n}</p>`)}</div>` : nothing}
      <fieldset class="lab-controls"><legend>Settings</legend>
        ${this.renderChipControl()}
        ${this.controls.map((c) => this.renderControl(c))}
        ${this.renderExtraControls()}
      </fieldset>
      ${general ? html`<p class="lab-error" role="alert">${general}</p>` : nothing}
      ${r ? html`
        <div class="lab-verdict" aria-live="polite">${this.renderVerdict(r)}</div>
        ${this.hasViz ? html`<div class="lab-viz"></div>` : nothing}
        ${this.renderOutputs(r)}
        ${r.warnings.length ? html`<ul class="lab-warnings">${r.warnings.map((w) => html`<li>${w}</li>`)}</ul>` : nothing}
        <details class="lab-steps" ?open=${this.stepsOpen || this.technical} @toggle=${this.onStepsToggle}><summary>Derivation for these numbers</summary>${this.stepsOpen && !this.stepsMarkup ? html`<p>Typesetting…</p>` : unsafeHTML(this.stepsMarkup)}</details>
      ` : nothing}
      ${this.hasAttribute('data-url-state') ? nothing : html`<p class="lab-link"><a href=${`/labs/${this.dataset.lab ?? this.calculator}/${q ? '?' + q : ''}`}>Open this lab on its own page</a> (the settings come along)</p>`}
    </div>`;
  }
}

/** Resolve in a new task (scheduler.yield where the browser has it), so that the work after it
 *  is not part of the task before: the page can paint and answer input in between. */
export function nextTask(): Promise<void> {
  const s = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (s?.yield) return s.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** `unit`, unless `label` already names it as a word ("global batch (tokens)"); none for counts. */
function unitUnlessNamed(unit: string | undefined, label: string): string | null {
  if (!unit || unit === 'count') return null;
  const word = new RegExp(`(^|[^\\w/])${unit.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w/])`);
  return word.test(label) ? null : UNIT_WORDS[unit] ?? unit;
}

/** Unit ids that are not words for people (the engine's schema says "usd" for a price). */
const UNIT_WORDS: Record<string, string> = { usd: 'US dollars' };

/** A choice's values with the engine's names for people (schema `choice_titles`: "GGUF Q4_K_M"
 *  for q4_k_m, "tensor parallel (1D)" for tp), by the parameter's own choices
 *  (a lab may offer a subset). */
function choiceTitles(schema: ParamSchema): Record<string, string> | undefined {
  const { choices, choice_titles: titles } = schema;
  if (!choices || !titles || titles.length !== choices.length) return undefined;
  return Object.fromEntries(choices.map((c, i) => [c, titles[i]]));
}
