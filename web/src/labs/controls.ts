// The controls of a lab, drawn from its state (lab-state.ts): a slider with a number field for a
// number, a select for a choice, a checkbox, a text field, and the chip menu. Ranges, defaults,
// units and words come from the engine's schema; a refused value's message sits under its field.
import { html, nothing, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import { getPath, type Engine, type ParamSchema } from '../engine';
import { customChip, chipParam } from '../state';
import { fieldText, typedValue, UNIT_WORDS } from '../format';
import { groupChips } from '../chip-groups.js';
import { ANY_WORDS, ONE_DEVICE_KINDS, chipsNoun, deviceWords, type Control, type LabState } from './lab-state';
import { forPeople } from './words';

/** What the controls ask of the lab they sit in. */
export interface ControlsHost extends ReactiveControllerHost {
  readonly technical: boolean;
  /** the inputs of the last good result: a refused field's slider stays where that result was */
  lastInputs(): Record<string, unknown> | null;
  /** a control moved (before the evaluation is scheduled) */
  changed(c: Control, previous: unknown): void;
  /** the reader pinned this lab to a chip, or let it follow the page's again (null) */
  pinned(chip: string | null): void;
  /** personal devices first in the chip menu (the labs about the reader's own hardware) */
  readonly devicesFirst: boolean;
  /** where an empty field's slider sits: the value the engine will use for it (the model's own
   *  width for an empty override), else the schema's default */
  emptyValue(c: Control): unknown;
}

// ---- slider maths: a position 0…1000 along the schema's range, logarithmic where it says so
const STEPS = 1000;
function sliderRange(s: ParamSchema): [number, number, boolean] {
  const log = s.scale === 'log';
  let lo = s.min ?? 0;
  const hi = s.max ?? 1;
  if (log && lo <= 0) lo = s.type === 'integer' ? 1 : Math.max(hi * 1e-12, 1e-12);
  return [lo, hi, log];
}
export function sliderPosition(s: ParamSchema, v: unknown): number {
  const [lo, hi, log] = sliderRange(s);
  const x = typeof v === 'number' ? v : lo;
  const t = log ? (Math.log(Math.max(x, lo)) - Math.log(lo)) / (Math.log(hi) - Math.log(lo)) : (x - lo) / (hi - lo);
  return Math.round(Math.min(1, Math.max(0, t)) * STEPS);
}
export function sliderValue(s: ParamSchema, pos: number): number {
  const [lo, hi, log] = sliderRange(s);
  const t = pos / STEPS;
  let v = log ? Math.exp(Math.log(lo) + t * (Math.log(hi) - Math.log(lo))) : lo + t * (hi - lo);
  if (log && v >= 100) v = Number(v.toPrecision(3)); // round to readable numbers while dragging
  if (s.type === 'integer') v = Math.round(v);
  return Math.min(hi, Math.max(lo, v));
}

/** `unit`, unless `label` already names it as a word ("global batch (tokens)"); none for counts. */
function unitUnlessNamed(unit: string | undefined, label: string): string | null {
  if (!unit || unit === 'count') return null;
  const named = (w: string) => new RegExp(`(^|[^\\w/])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w/])`).test(label);
  return named(unit) || (UNIT_WORDS[unit] !== undefined && named(UNIT_WORDS[unit])) ? null : UNIT_WORDS[unit] ?? unit;
}

export class ControlsController implements ReactiveController {
  constructor(private readonly host: ControlsHost, private readonly state: LabState, private readonly engine: () => Engine | null) {
    host.addController(this);
  }
  hostConnected() {}

  /** per control and mode, worked out once: a label and its unit do not change as the reader drags */
  /** a refusal for this reader: Plain leaves out the identifiers the engine puts in parentheses */
  private words(message: string): string { return this.host.technical ? message : forPeople(message); }
  private unitNotes = new Map<string, string | null>();
  private unitNote(c: Control): string | null {
    // on the reader's own device a count of chips is a count of devices, as its label says
    const own = ONE_DEVICE_KINDS.includes(this.state.chipFacts?.kind ?? '');
    const key = `${c.path}|${this.host.technical}|${this.state.chipFacts?.kind ?? ''}`;
    // a count of chips in this chip's words (GPUs on a datacenter GPU), as the label says them
    const unit = c.schema.unit === 'chips' ? chipsNoun(this.state.chipFacts) : own && c.schema.unit ? deviceWords(c.schema.unit) : c.schema.unit;
    if (!this.unitNotes.has(key)) this.unitNotes.set(key, unitUnlessNamed(unit, this.host.technical ? `${this.state.labelOf(c)} ${c.schema.doc ?? ''}` : this.state.labelOf(c)));
    return this.unitNotes.get(key)!;
  }
  /** Plain: the words. Technical: the words, the parameter's name in parentheses, and its doc line. */
  private labelText(c: Control): TemplateResult {
    // a range in the doc line as people write numbers: "(1 to 1e16)" → "(1 to 10¹⁶)", the engine's formatter
    const engine = this.engine();
    const doc = c.schema.doc && engine ? c.schema.doc.replace(/\b\d+(?:\.\d+)?e[-+]?\d+\b/g, (t) => engine.format(Number(t), 'count')) : c.schema.doc;
    return this.host.technical
      ? html`${this.state.labelOf(c)} (<span class="c-name">${c.key}</span>)${doc && doc !== this.state.labelOf(c) ? html`<span class="c-doc">: ${doc}</span>` : nothing}`
      : html`${this.state.labelOf(c)}`;
  }
  /** An option of a choice: its name for people; Technical adds the value the engine takes. */
  private optionText(c: Control, value: string): string {
    // the memory rung (a bandwidth path's "hbm") in the words of the chip's own memory, the engine's
    const title = value === 'hbm' && this.state.chipFacts ? this.state.chipFacts.memoryRung : c.choiceLabels?.[value];
    if (!title) return value;
    return this.host.technical && title.toLowerCase() !== value.toLowerCase() ? `${title} (${value})` : title;
  }

  private set(c: Control, v: unknown, text?: string) {
    const prev = this.state.values.get(c.path);
    if (text === undefined) this.state.setValue(c, v);
    else { this.state.values.set(c.path, v); this.state.texts.set(c.path, text); }
    this.host.changed(c, prev);
  }
  private onText(c: Control, e: Event) {
    const t = (e.target as HTMLInputElement).value;
    // an emptied field of an optional parameter (schema default null) means "leave it to the engine"
    this.set(c, c.schema.type === 'text' ? t : t.trim() === '' && c.schema.default === null ? null : typedValue(t), t);
  }

  /** One control, by its schema's type. */
  render(c: Control): TemplateResult {
    const s = c.schema;
    const st = this.state;
    const err = st.errors.get(c.path);
    const off = !st.applies(c);
    const errId = `${c.id}-err`;
    const invalid = err ? 'true' : 'false';
    const error = html`<span class="field-error" id=${errId} role="alert">${err ? this.words(err) : ''}</span>`;
    if (s.type === 'choice' || c.steps) {
      // a searched parameter's "any" is the value null, the option ''; a whole number's steps are numbers
      const v = st.values.get(c.path), current = v == null ? '' : String(v);
      const options: [string, string][] = [...(c.any ? [['', ANY_WORDS] as [string, string]] : []),
        ...(c.steps ? c.steps.map((n): [string, string] => [String(n), this.optionText(c, String(n))])
          // the choices this chip offers (a pod's data-centre network only on a TPU); the one in use stays
          : (s.choices ?? []).filter((o) => o === current || !c.offers || c.offers(o, st.chipFacts)).map((o): [string, string] => [o, this.optionText(c, o)]))];
      const pick = (t: string) => this.set(c, t === '' && c.any ? null : c.steps ? Number(t) : t);
      return html`<div class="control" data-key=${c.key}>
        <label for=${c.id}>${this.labelText(c)}</label>
        <select id=${c.id} ?disabled=${off} .value=${current} @change=${(e: Event) => pick((e.target as HTMLSelectElement).value)} aria-invalid=${invalid} aria-describedby=${errId}>
          ${options.map(([o, text]) => html`<option value=${o} ?selected=${o === current}>${text}</option>`)}
        </select>${error}
      </div>`;
    }
    if (s.type === 'boolean') {
      return html`<div class="control check" data-key=${c.key}>
        <input type="checkbox" id=${c.id} ?disabled=${off} .checked=${st.values.get(c.path) === true} @change=${(e: Event) => this.set(c, (e.target as HTMLInputElement).checked)} aria-invalid=${invalid} aria-describedby=${errId}>
        <label for=${c.id}>${this.labelText(c)}</label>${error}
      </div>`;
    }
    if (s.type === 'text') {
      return html`<div class="control text" data-key=${c.key}>
        <label for=${c.id}>${this.labelText(c)}</label>
        <input type="text" id=${c.id} ?disabled=${off} autocomplete="off" spellcheck="false" .value=${st.texts.get(c.path) ?? ''}
          aria-invalid=${invalid} aria-describedby=${errId} @input=${(e: Event) => this.onText(c, e)}>${error}
      </div>`;
    }
    const v = st.values.get(c.path), unit = this.unitNote(c);
    const inputs = this.host.lastInputs();
    const shown = err ? (inputs ? getPath(inputs, c.path) : s.default) : v == null || v === '' ? this.host.emptyValue(c) : v;
    // an empty field leaves the value to the engine: its slider is greyed, not resting at a
    // figure the reader did not choose (dragging it gives the field a value again)
    const empty = !err && (v == null || v === '');
    return html`<div class="control numeric" data-key=${c.key}>
      <label for=${c.id}>${this.labelText(c)}${unit ? html` <span class="unit">(${unit})</span>` : nothing}</label>
      <div class="c-inputs">
        <input type="range" class=${empty ? 'slider-empty' : ''} min="0" max=${STEPS} step="1" ?disabled=${off} .value=${String(sliderPosition(s, shown))}
          aria-label=${`${st.labelOf(c)} slider (${s.scale === 'log' ? 'log scale' : 'linear'}, ${fieldText(s.min)} to ${fieldText(s.max)})`}
          aria-valuetext=${st.texts.get(c.path) ?? ''}
          @input=${(e: Event) => this.set(c, sliderValue(s, Number((e.target as HTMLInputElement).value)))}>
        <input type="text" id=${c.id} ?disabled=${off} inputmode="decimal" autocomplete="off" spellcheck="false" .value=${st.texts.get(c.path) ?? ''}
          aria-invalid=${invalid} aria-describedby=${errId} @input=${(e: Event) => this.onText(c, e)}>
      </div>${error}
    </div>`;
  }

  /** The chip menu: "Same as the page (…)" or a chip this lab is pinned to. */
  renderChip(): TemplateResult | typeof nothing {
    const engine = this.engine();
    if (!this.state.usesChip || !engine) return nothing;
    const g = chipParam();
    const pageName = typeof g === 'string' ? engine.chipName(g) || g : String(g.name ?? 'custom chip');
    const err = this.state.errors.get('chip');
    const custom = customChip();
    const id = `${this.state.uid}-chip`;
    let groups = groupChips([...engine.chipIndex], [engine.chipKindField]);
    if (this.host.devicesFirst) groups = [...groups.filter((x) => ONE_DEVICE_KINDS.includes(x.kind)), ...groups.filter((x) => !ONE_DEVICE_KINDS.includes(x.kind))];
    const pin = this.state.pin;
    return html`<div class="control" data-key="chip">
      <label for=${id}>Chip for this lab${this.host.technical ? html` (<span class="c-name">chip</span>)` : nothing}</label>
      <select id=${id} @change=${(e: Event) => { const v = (e.target as HTMLSelectElement).value; this.host.pinned(v === '' ? null : v); }} aria-invalid=${err ? 'true' : 'false'} aria-describedby=${`${id}-err`}>
        <option value="" ?selected=${!pin}>The page’s chip: ${pageName}</option>
        ${groups.map((grp) => html`<optgroup label=${grp.title}>${grp.chips.map((c) => html`<option value=${c.id} ?selected=${pin === c.id}>${c.name}</option>`)}</optgroup>`)}
        ${custom ? html`<option value="custom" ?selected=${pin === 'custom'}>Custom: ${String(custom.name ?? 'chip')}</option>` : nothing}
      </select>
      <span class="field-error" id=${`${id}-err`} role="alert">${err ? this.words(err) : ''}</span>
    </div>`;
  }
}
