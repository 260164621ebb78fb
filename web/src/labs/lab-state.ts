// A lab's state, apart from any page: which controls it has (from the calculator's schema and
// the lab's declarations), their values and field texts, the parameters the engine receives,
// the state as URL query text and back (what the engine refuses is dropped, with a note saying
// why). No DOM, no Lit: the controllers (controls.ts, url-state.ts) and the element
// (lab-element.ts) read and write it; tests/node can drive it with the Node engine.
import { getPath, isError, type Engine, type Outcome, type ParamSchema } from '../engine';
import { fieldText, typedValue } from '../format';
import { modelPicker } from './model-picker';
import { fieldAmount, fieldProblem } from './words';

/** What a chip is, for a lab's opening values: one device, a TPU slice or a GPU node. */
export interface ChipFacts {
  /** the chip schema's kind: tpu, datacenter-gpu, consumer-gpu, workstation-gpu, unified-memory, cpu */
  kind: string;
  /** GPUs in one node, where the chip's catalog entry gives a node */
  nodeGpus: number | null;
  /** chips in one pod (a TPU pod, a GPU SuperPod), where the catalog gives one */
  podChips: number | null;
  /** the chip's memory in bytes (HBM, a card's memory, a Mac's unified memory), where known */
  memoryBytes: number | null;
  /** the catalog's kind of memory (HBM3, GDDR6X, LPDDR5, DDR5), where it gives one */
  memoryKind: string | null;
  /** the chip's memory as a reader names it, the engine's words (HBM, GDDR6X memory, unified
   *  LPDDR5 memory, DDR5 system RAM), and the same memory as the ladder's rung (the path hbm) */
  memoryName: string;
  memoryRung: string;
  /** unified memory: the share of it the GPU may use by default, where the catalog gives one */
  gpuShare: number | null;
  /** the chip's name, for a sentence */
  name: string;
  /** the weight and KV-cache formats some runtime runs on this chip, and those QLoRA trains
   *  adapters over (the engine's chip outputs, from data/formats.json runs_on); null when unknown */
  weightFormats?: string[] | null;
  kvFormats?: string[] | null;
  adapterFormats?: string[] | null;
}
/** Personal devices: a lab opens on one of them. */
export const ONE_DEVICE_KINDS = ['consumer-gpu', 'workstation-gpu', 'unified-memory', 'cpu'];

/** A label written for chips, as said of the reader's own device: "chips per model replica" →
 *  "devices per model replica", "price per chip-hour" → "price per device-hour". */
export function deviceWords(text: string): string {
  // the page's Chip menu keeps its name (it is labelled "Chip")
  return text.replace(/\b([Cc])hip(s?)\b(?! menu)/g, (_m, c: string, s: string) => `${c === 'C' ? 'D' : 'd'}evice${s}`);
}

/** An opening value that depends on the chip; `why` says, where it applies, what about the chip
 *  chose it (shown under the lab's hint, so a lab never changes its setting unexplained). */
export interface StartFn { (chip: ChipFacts): unknown; why?: (chip: ChipFacts) => string | null }
/** A lab's opening value for a control: one value, or one per kind of chip. */
export type Start = unknown | StartFn;

const isDevice = (c: ChipFacts) => ONE_DEVICE_KINDS.includes(c.kind);
/** An opening value by the kind of chip: the reader's own device (a GPU card, a Mac, a CPU), a
 *  TPU, or a datacenter GPU. */
export function byChip<T>(v: { device: T; tpu: T; gpu: T }): StartFn {
  return (c) => (isDevice(c) ? v.device : c.kind === 'tpu' ? v.tpu : v.gpu);
}
/** An opening chip count: one device for the reader's own, `tpu` chips for a TPU (a slice it
 *  forms), a node for a datacenter GPU (one GPU where the catalog gives the chip no node). */
export function chipCount(tpu: number): StartFn {
  const f: StartFn = (c) => (isDevice(c) ? 1 : c.kind === 'tpu' ? tpu : c.nodeGpus ?? 1);
  f.why = (c) => (isDevice(c) ? `The ${c.name} is one device, so the lab starts on one.`
    : c.kind === 'tpu' ? null
    : c.nodeGpus ? `The lab starts on one node of ${c.nodeGpus} ${c.name} GPUs.`
    : `The catalog gives the ${c.name} no node size, so the lab starts on one GPU.`);
  return f;
}

/** What a count of chips is called on this chip: devices (the reader's own), GPUs (a datacenter
 *  GPU), chips (a TPU). */
export function chipsNoun(c: ChipFacts | null): string {
  return !c ? 'chips' : isDevice(c) ? 'devices' : c.kind === 'tpu' ? 'chips' : 'GPUs';
}
/** What an empty chip count stands for on this chip, in its own words: a TPU pod, a GPU
 *  SuperPod, else one chip (the engine's default where the catalog gives no pod). */
export function emptyChips(c: ChipFacts | null): string {
  if (!c) return 'a pod';
  if (isDevice(c)) return 'one device';
  const n = c.podChips ? c.podChips.toLocaleString('en-US') : null;
  if (c.kind === 'tpu') return n ? `a full pod, ${n} chips` : 'one chip';
  return n ? `a full SuperPod, ${n} GPUs` : 'one GPU';
}

export interface ControlSpec {
  /** schema path: a parameter name or object.field, e.g. "matmul.B" */
  path: string;
  /** URL / state key; default: the last segment of path */
  key?: string;
  /** words for the reader where the engine's label does not fit this lab (prefer the engine's:
   *  change its label instead, so the API says the same); words that depend on the kind of chip
   *  (a pod of TPUs, a node of GPUs, one device) as a function of it */
  label?: string | ((chip: ChipFacts | null) => string);
  /** the choices of a select offered on this chip (default: all; the value in use stays listed) */
  offers?: (value: string, chip: ChipFacts | null) => boolean;
  /** only meaningful when other controls have these values (e.g. links only with bandwidth "ici"):
   *  otherwise the control is disabled and the parameter is not sent */
  onlyWith?: Record<string, unknown>;
  /** fields laid over the engine's schema for this control (e.g. a bool_or_list shown as one
   *  checkbox: { type: 'boolean' }); ranges and defaults still come from the engine */
  schema?: Partial<ParamSchema>;
  /** text shown for each choice of a select (default: the engine's choice titles) */
  choiceLabels?: Record<string, string>;
  /** the lab's opening value where it differs from the engine's default: a teaching preset, or
   *  one per kind of chip (see Start); the URL omits it */
  start?: Start;
  /** the control the lab's point turns on: placed right beside the result it moves (it may depend
   *  on the chip: the chips on a slice, the batch on one device) */
  main?: boolean | ((chip: ChipFacts) => boolean);
}

export interface Control extends Omit<ControlSpec, 'schema'> {
  key: string; schema: ParamSchema; id: string;
  /** the engine searches this parameter when it is omitted (schema `searched`): the control offers
   *  "any" (null, left out of the parameters) beside the values that narrow the search */
  any?: boolean;
  /** a whole number of a few values (a ZeRO stage, 0–3), offered as a choice of them */
  steps?: number[];
}

/** The choice that leaves a searched parameter to the engine's search (the value null). */
export const ANY_WORDS = 'any (the search picks)';
/** The most values a searched whole number is offered as a choice of. */
const MAX_STEPS = 8;

/** What a lab adds to the generic state: all optional. */
export interface LabStateHooks {
  /** parameters always sent besides the controls (e.g. { matmul: {} }) */
  baseParams?(): Record<string, unknown>;
  /** the parameters reshaped for the engine after the controls are laid in */
  adjustParams?(p: Record<string, unknown>): void;
  /** whether a control applies with the others' values (default: its onlyWith) */
  applies?(c: Control, state: LabState): boolean | undefined;
  /** a control as built from the schema, changed for this lab (an "auto" entry, a range) */
  adjustControl?(c: Control): Control;
  /** a URL key this lab keeps itself (not a control); true if taken */
  applyExtraState?(key: string, value: string): boolean;
  /** URL pairs this lab keeps itself, written after the controls' */
  extraQuery?(): [string, string][];
}

let labCounter = 0;

export class LabState {
  readonly controls: Control[] = [];
  /** path → value handed to the engine */
  readonly values = new Map<string, unknown>();
  /** path → text in the control's field */
  readonly texts = new Map<string, string>();
  /** path (or "" for general, "chip" for the chip) → the engine's message for the value shown */
  readonly errors = new Map<string, string>();
  /** notes for the reader: why a state from the address was not taken as given */
  readonly notices: string[] = [];
  /** the chip this lab is pinned to (a catalog id or "custom"), else it follows the page's */
  pin: string | null = null;
  /** the facts of the chip the opening values were chosen for */
  chipFacts: ChipFacts | null = null;
  /** a prefix for this lab's element ids */
  readonly uid = `lab${++labCounter}`;

  constructor(
    readonly engine: Engine,
    readonly calculator: string,
    readonly usesChip: boolean,
    /** the chip the page has chosen (a catalog id or a custom chip object) */
    private readonly pageChip: () => unknown,
    /** the custom chip kept in this browser, if any */
    private readonly customChip: () => Record<string, unknown> | null,
    private readonly hooks: LabStateHooks = {},
  ) {}

  /** Builds the controls of the declarations and sets their opening values. */
  build(specs: ControlSpec[]) {
    this.controls.length = 0;
    for (const s of specs) this.controls.push(this.buildControl(s));
    this.resetToStart();
  }

  /** The schema of a parameter path. An entry of a map or list parameter ("mesh.X", "axes.0")
   *  resolves to the container's item schema, with the container's default entry as default. */
  findSchema(path: string): ParamSchema | undefined {
    const calc = this.engine.calculator(this.calculator);
    const [head, ...rest] = path.split('.');
    let p = calc?.params.find((x) => x.name === head);
    for (const r of rest) {
      if (p && (p.type === 'map' || p.type === 'list') && p.fields?.length) {
        const d = p.default as Record<string, unknown> | unknown[] | null;
        const def = d == null ? null : Array.isArray(d) ? d[Number(r)] : d[r];
        p = { ...p.fields[0], name: r, default: def ?? null };
      } else if (p && p.type === 'overrides') {
        p = this.engine.objectFields(p.overrides_of === 'model' ? 'model' : 'chip').find((x) => x.name === r);
      } else p = p?.fields?.find((x) => x.name === r);
    }
    return p;
  }

  /** A bound the engine's schema declares for a parameter path: the web repeats no range. */
  bound(path: string, which: 'min' | 'max' | 'min_items' | 'max_items'): number {
    const v = this.findSchema(path)?.[which];
    if (typeof v !== 'number') throw new Error(`the engine's schema gives ${this.calculator}.${path} no ${which}`);
    return v;
  }

  /** A control for a declaration (a lab may add controls later, e.g. one per name in a spec string). */
  buildControl(s: ControlSpec): Control {
    const found = this.findSchema(s.path);
    if (!found) throw new Error(`${this.calculator} has no parameter ${s.path}`);
    // a `model` parameter (catalog id or model object) is offered as the engine's catalog
    const picked = found.type === 'model' ? modelPicker(found, this.engine) : null;
    const base = picked?.schema ?? found;
    const schema = s.schema ? { ...base, ...s.schema } : base;
    const c: Control = { choiceLabels: picked?.choiceLabels ?? choiceTitles(base), ...s, key: s.key ?? s.path.split('.').pop()!, schema, id: `${this.uid}-${s.path.replace(/\W/g, '-')}` };
    if (schema.searched) {
      // omitted, the engine searches it: "any" is its default, a value narrows the search to it
      c.any = true;
      const lo = schema.min ?? 0, hi = schema.max ?? Infinity;
      if (schema.type === 'integer' && schema.scale !== 'log' && hi - lo < MAX_STEPS) c.steps = Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
    }
    return this.hooks.adjustControl?.(c) ?? c;
  }
  control(path: string): Control | undefined { return this.controls.find((c) => c.path === path); }

  /** where a control starts: the lab's preset (for this chip), else the engine's default */
  startOf(c: Control): unknown {
    if (c.start === undefined) return c.schema.default;
    return typeof c.start === 'function' ? (this.chipFacts ? (c.start as StartFn)(this.chipFacts) : c.schema.default) : c.start;
  }
  /** Whether a control is the lab's main one, for this chip. */
  isMain(c: Control): boolean {
    return typeof c.main === 'function' ? (this.chipFacts ? c.main(this.chipFacts) : false) : !!c.main;
  }
  /** What about the chip chose the opening values still in use, in sentences. */
  startNotes(): string[] {
    const f = this.chipFacts;
    if (!f) return [];
    return [...new Set(this.controls.filter((c) => typeof c.start === 'function' && (c.start as StartFn).why && this.values.get(c.path) === this.startOf(c))
      .map((c) => (c.start as StartFn).why!(f)).filter((s): s is string => !!s))];
  }
  setValue(c: Control, v: unknown, text?: string) {
    this.values.set(c.path, v);
    this.texts.set(c.path, text ?? fieldText(v, c.schema.unit));
  }
  resetToStart() { for (const c of this.controls) this.setValue(c, this.startOf(c)); }

  /** A new chip's facts: every control still at its opening value for the old chip moves to the
   *  new chip's (the reader's own settings stay). True if a value moved. */
  followChip(facts: ChipFacts | null): boolean {
    const before = this.controls.map((c) => this.startOf(c));
    this.chipFacts = facts;
    let moved = false;
    this.controls.forEach((c, i) => {
      if (typeof c.start !== 'function' || this.values.get(c.path) !== before[i]) return;
      const now = this.startOf(c);
      if (now !== before[i]) { this.setValue(c, now); moved = true; }
    });
    return moved;
  }

  /** The chip this lab evaluates on: its pin, else the page's. */
  chipValue(): unknown {
    if (this.pin === 'custom') return this.customChip() ?? this.pageChip();
    return this.pin ?? this.pageChip();
  }

  /** Whether a control applies with the current values of the others (see ControlSpec.onlyWith). */
  applies(c: Control): boolean {
    const own = this.hooks.applies?.(c, this);
    if (own !== undefined) return own;
    return !c.onlyWith || Object.entries(c.onlyWith).every(([path, v]) => this.values.get(path) === v);
  }

  /** The parameters as the engine receives them: values equal to the schema default are left
   *  out (the engine fills them in), as are controls that do not apply. */
  params(): Record<string, unknown> {
    const p: Record<string, unknown> = structuredClone(this.hooks.baseParams?.() ?? {});
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
    this.hooks.adjustParams?.(p);
    return p;
  }

  /** The state as URL query text: values that differ from where they start, the chip when pinned
   *  or (`chip`) the page's chip to carry. */
  query(chip: string | null = this.pin): string {
    const q = new URLSearchParams();
    if (chip) q.set('chip', chip);
    for (const c of this.controls) {
      const v = this.values.get(c.path);
      if (v !== this.startOf(c) && this.applies(c) && !this.errors.has(c.path)) q.set(c.key, v == null ? '' : String(v));
    }
    for (const [k, v] of this.hooks.extraQuery?.() ?? []) q.set(k, v);
    return q.toString();
  }

  /** The value a URL's text stands for, by the control's type. */
  private fromText(c: Control, text: string): unknown {
    const t = c.schema.type;
    if (c.any && text.trim() === '') return null; // "any": left to the engine's search
    if (t === 'choice' || t === 'text') return text;
    if (t === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
    if (text.trim() === '' && c.schema.default === null) return null; // empty: left to the engine
    return typedValue(text);
  }

  /** State from a URL (or a placement's state attribute). `pins`: whether chip= pins this lab (a
   *  placement's state; on a lab's own page chip= is the page's chip, state.ts). What the engine
   *  refuses is dropped with a note saying which value, why, and what is used instead. */
  apply(state: URLSearchParams, pins: boolean) {
    const given = new Map<string, string>();
    for (const [k, v] of state) {
      if (k === 'chip') {
        if (!this.usesChip || !pins) continue;
        const known = this.engine.chipIndex.some((c) => c.id === v) || (v === 'custom' && this.customChip());
        if (known) this.pin = v;
        else this.notices.push(`This lab’s setting asks for a chip “${v}” that is not in the catalog; it follows the page’s chip.`);
        continue;
      }
      if (this.hooks.applyExtraState?.(k, v)) continue;
      if (k === 'device') continue; // a measured chip for the whole page: the shell reads it (measure/measure-device.ts)
      const c = this.controls.find((x) => x.key === k);
      if (!c) { this.notices.push(`The address’s “${k}” was left out: this lab has no such setting.`); continue; }
      given.set(c.path, v);
      this.setValue(c, this.fromText(c, v), v);
    }
    if (!given.size && !this.pin) return; // nothing from the address to check: the lab's own evaluation says what is refused
    for (let i = 0; i <= given.size + 1; i++) {
      const r: Outcome = this.engine.evaluate(this.calculator, this.params(), { steps: false });
      if (!isError(r)) return;
      const bad = this.controls.find((c) => c.path === r.error.param && given.has(c.path));
      // a refusal of the page's chip is not the address's doing: the lab says it beside its result
      if (!bad && r.error.param === 'chip' && !this.pin) return;
      if (!bad) {
        this.notices.push(r.error.param === 'chip' && this.pin
          ? `This lab’s chip was refused (${r.error.message}); it follows the page’s chip and opens on its starting values.`
          : `The settings in the address were refused (${r.error.message}); the lab opens on its starting values.`);
        this.pin = null;
        this.resetToStart();
        return;
      }
      // a choice's allowed values in words too: Plain leaves out a message that names identifiers
      const titles = choiceTitles(bad.schema);
      const allowed = titles ? ` It takes one of: ${Object.values(titles).join(', ')}.` : '';
      // a number out of range or no number at all, in the fields' words (words.ts fieldProblem)
      const why = fieldProblem(bad.schema, this.values.get(bad.path), fieldAmount((v, u) => this.engine.format(v, u), bad.schema.unit)) ?? r.error.message;
      this.notices.push(`The address’s ${bad.key}=${given.get(bad.path)} (${this.labelOf(bad)}) was refused (${why}); it starts at ${fieldText(this.startOf(bad), bad.schema.unit)} instead.${allowed}`);
      given.delete(bad.path);
      this.setValue(bad, this.startOf(bad));
    }
    this.pin = null;
    this.resetToStart();
  }

  /** A control's words: the lab's own label, else the engine's. */
  labelOf(c: Control): string {
    const own = typeof c.label === 'function' ? c.label(this.chipFacts) : c.label;
    let label = own ?? c.schema.label ?? c.key.replace(/[_.]+/g, ' ');
    // a searched number typed in a field: its empty field is the choice "any"
    if (c.any && !c.steps && c.schema.type !== 'choice' && !/\bempty\b/.test(label)) label += ' (empty: the search picks)';
    return this.chipFacts && ONE_DEVICE_KINDS.includes(this.chipFacts.kind) ? deviceWords(label) : label;
  }
}

/** A choice's values with the engine's names for people (schema `choice_titles`: "GGUF Q4_K_M"
 *  for q4_k_m, "tensor parallel (1D)" for tp), by the parameter's own choices
 *  (a lab may offer a subset). */
export function choiceTitles(schema: ParamSchema): Record<string, string> | undefined {
  const { choices, choice_titles: titles } = schema;
  if (!choices || !titles || titles.length !== choices.length) return undefined;
  return Object.fromEntries(choices.map((c, i) => [c, titles[i]]));
}
