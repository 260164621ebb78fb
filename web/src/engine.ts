// The one engine (C++ → WebAssembly), loaded once on first use. Every number on the page
// comes through here; the web code holds no formula and no range.
import type { EngineModule } from 'scalelab-engine';
import type { CalculatorSchema, OutputSchema, ParamSchema, Schema } from './generated/schema';
import { CHIP_INDEX, CHIP_KIND_FIELD, MODEL_INDEX, type CatalogEntry } from './generated/catalog-index';
import { ENGINE_WASM, VARIANT_CALCULATORS } from './generated/engines';
import type { WarmUpRequest } from './engine-warmup';
import { sweepFromColumns } from './sweep-columns.js';

export interface Step { label: string; formula: string; substituted: string; value: number; unit: string }
export interface Result {
  calculator: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  steps: Step[];
  warnings: string[];
}
/** status: the caller's mistake (bad_input, unknown_calculator) or an engine fault (internal). */
/** `field`: the chip's figure a refusal needs, when that is why (a name among objectFields('chip')) */
export interface EngineError { error: { status?: 'bad_input' | 'unknown_calculator' | 'internal'; param: string | null; message: string; field?: string } }
export type Outcome = Result | EngineError;
export const isError = (r: Outcome | SweepOutcome): r is EngineError => 'error' in r;

/** evaluate's options: steps false is the numbers-only path (the result's steps is []). */
export interface EvaluateOptions { steps?: boolean }

/** One swept parameter: listed values, or a range (whole-number parameters are rounded to distinct values). */
export type SweepAxis =
  | { param: string; values: number[] }
  | { param: string; from: number; to: number; points: number; scale?: 'log' | 'linear' };
/** At most 4096 points in all; outputs default to every output that comes out as a number. */
export interface SweepSpec { x: SweepAxis; y?: SweepAxis; outputs?: string[] }
/** A point's refusal: what evaluate would have said for its parameters. */
export interface PointError { status: 'bad_input'; param: string | null; message: string; field?: string }
export interface SweepResult {
  calculator: string;
  /** the values actually used (after rounding and merging) */
  x: { param: string; values: number[] };
  y?: { param: string; values: number[] };
  /** one entry per point, row-major (x, then y); null where the point is refused or the output is null */
  outputs: Record<string, (number | string | boolean | null)[]>;
  errors: (PointError | null)[];
  warnings: string[];
}
export type SweepOutcome = SweepResult | EngineError;

// The schema's shape and each calculator's parameter and output types are generated from the
// engine's schema at build time (web/build/schema-types.mjs → src/generated/schema.ts).
export type { ParamSchema, OutputSchema, CalculatorSchema, Schema, CalculatorName, CalculatorParams, CalculatorOutputs } from './generated/schema';
export type { CatalogEntry } from './generated/catalog-index';
export type Chip = Record<string, unknown> & { id: string; name: string };

export interface EngineFormat { id: string; name: string; bits: number; uses: string[]; source: string }
/** A published run (data/measurements.json): the calculator and inputs that reproduce its setup,
 *  and the output its measured figure is compared with. */
export interface PublishedRun {
  id: string; regime: string; calculator: string; inputs: Record<string, unknown>;
  measured: { output: string; value: number }; published: string; software: string; hardware: string;
  source: { url: string; where: string; commit?: string }; notes?: string; uncertain?: string; exceeds_bound?: string;
  /** its share of the engine's bound for its own setup (data/bands.json; measured / bound for a rate, bound / measured for a time) */
  share?: number;
}
/** Our own timings of one decode step on a real GPU: rows of [batch, seconds] (bench/device/decode_step.py) */
export interface DecodeStepRun {
  id: string; chip: string; model: string; weight_format: string; compute_dtype: string; chips: number; context: number;
  hardware: string; software: string; what: string; source: string; rows: [number, number][];
}
export class Engine {
  // The schema and the catalogs are parsed on first use, once per page: building the schema of
  // every calculator and parsing it is most of an engine start's work (BENCHMARKS.md, "Where a
  // lab's first load goes"), and a page asks only for what it shows.
  private parsed = new Map<string, unknown>();
  private once<T>(name: 'calculators' | 'chips' | 'models' | 'formats'): T {
    if (!this.parsed.has(name)) this.parsed.set(name, JSON.parse(this.m[name]()));
    return this.parsed.get(name) as T;
  }
  /** every calculator's schema (units, defaults, ranges, docs) */
  get schema(): Schema { return this.once('calculators'); }
  /** the chip catalog (data/chips.json), every field of every chip */
  get chips(): Chip[] { return this.once('chips'); }
  /** the model catalog (data/models.json), every field of every model */
  get models(): Chip[] { return this.once('models'); }
  /** What a chip picker lists, in the catalog's order (id, name, kind), and the chip schema's
   *  `kind` field that names its groups: written from this engine's catalog and schema when the
   *  page was built (web/build/schema-types.mjs), so a picker costs no listing at load. */
  get chipIndex(): readonly CatalogEntry[] { return CHIP_INDEX; }
  get chipKindField(): ParamSchema { return CHIP_KIND_FIELD; }
  /** What a model picker lists, in the catalog's order (id, name). */
  get modelIndex(): readonly CatalogEntry[] { return MODEL_INDEX; }
  /** A catalog chip's or model's name, from the index ('' where the id is not in the catalog). */
  chipName(id: string): string { return CHIP_INDEX.find((c) => c.id === id)?.name ?? ''; }
  modelName(id: string): string { return MODEL_INDEX.find((m) => m.id === id)?.name ?? ''; }
  /** weight and KV-cache formats (data/formats.json): id, display name, bits per value, source */
  get formats(): EngineFormat[] { return this.once('formats'); }
  /** variant: the engine build this is (a lab group, named by the labs' manifests), 'full' for the one with every calculator */
  constructor(private readonly m: EngineModule, readonly variant = 'full') {}
  /** A lab group's engine holds only its labs' calculators. Asked for another (a page that loads
   *  the wrong build) it fails loudly: evaluate and sweep throw, calculator() reports it and
   *  answers undefined (a lab then shows that its build lacks the calculator); never an answer
   *  as if the calculator were unknown. */
  private lacks(name: string): string | null {
    const held = VARIANT_CALCULATORS[this.variant];
    if (!held || held.includes(name)) return null;
    const fault = `the "${this.variant}" engine has no calculator "${name}" (it holds ${held.join(', ')}): name it in the lab's manifest (web/src/labs/<name>.lab.json, "evaluates")`;
    console.error(fault);
    return fault;
  }
  private holds(name: string) {
    const fault = this.lacks(name);
    if (fault) throw new Error(fault);
  }
  evaluate(name: string, params: unknown, options: EvaluateOptions = {}): Outcome {
    this.holds(name);
    const input = JSON.stringify(params);
    const text = options.steps === false ? this.m.evaluateNumbers(name, input) : this.m.evaluate(name, input);
    return this.reported(name, JSON.parse(text), params);
  }
  /** The calculator at every point of one or two swept parameters, numbers only, outputs as arrays.
   *  The columns of numbers come from the engine as doubles, not as JSON text (sweep-columns.js);
   *  the result is what the engine's JSON sweep gives. */
  sweep(name: string, params: unknown, spec: SweepSpec): SweepOutcome {
    this.holds(name);
    const header = this.m.sweepColumns(name, JSON.stringify(params), JSON.stringify(spec));
    return this.reported(name, sweepFromColumns(header, this.m.sweepValues()) as SweepOutcome, params);
  }
  private reported<T extends Outcome | SweepOutcome>(name: string, r: T, params: unknown): T {
    if (isError(r) && r.error.status === 'internal') console.error(`engine fault in ${name}:`, r.error.message, params);
    return r;
  }
  /** One calculator's schema: from the whole schema where that is parsed already, else the
   *  engine builds this one alone (a lab needs only its own). */
  calculator(name: string): CalculatorSchema | undefined {
    if (this.lacks(name)) return undefined;
    if (!this.schemas.has(name)) {
      const all = this.parsed.get('calculators') as Schema | undefined;
      this.schemas.set(name, all ? all.calculators.find((c) => c.name === name) : JSON.parse(this.m.calculator(name)) ?? undefined);
    }
    return this.schemas.get(name);
  }
  private schemas = new Map<string, CalculatorSchema | undefined>();
  /** The fields of a chip or model object (the custom chip, chip_overrides, model_overrides):
   *  from the whole schema where that is parsed already, else built alone. */
  objectFields(kind: 'chip' | 'model'): ParamSchema[] {
    if (!this.fields.has(kind)) {
      const all = this.parsed.get('calculators') as Schema | undefined;
      this.fields.set(kind, all ? all[`${kind}_fields`] : JSON.parse(this.m.objectFields(kind)));
    }
    return this.fields.get(kind)!;
  }
  private fields = new Map<string, ParamSchema[]>();
  format(value: unknown, unit: string): string {
    if (typeof value === 'string') return value;
    if (typeof value === 'boolean') return value ? 'yes' : 'no';
    if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
    return this.m.formatQuantity(value, unit);
  }
  /** The declared output `out` ("flops_per_s.bf16" is declared as flops_per_s) of a calculator. */
  output(calculator: string, out: string): OutputSchema | undefined {
    const top = out.split(/[.[]/)[0];
    return this.calculator(calculator)?.outputs.find((o) => o.name === top);
  }
  /** The unit of an output, as the engine's schema declares it ('' for words and plain numbers). */
  unitOf(result: Result, out: string): string {
    return this.output(result.calculator, out)?.unit ?? '';
  }
}

export function getPath(obj: unknown, dotted: string): unknown {
  return dotted.split('.').reduce<unknown>((o, k) => (o == null ? undefined : (o as Record<string, unknown>)[k]), obj);
}

// ---------------------------------------------------------------- loading
// V8 compiles a WebAssembly function on its first call, on the thread that calls it: a lab's
// first schema, numbers and sweep compiled ~950 of the engine's functions on the main thread,
// ~240 ms of blocked page at 4x CPU (BENCHMARKS.md, "The engine's first calls off the main
// thread"). So the page compiles the module once, a short-lived Worker makes the first calls the
// page is about to make (engine-warmup.ts), and only then does the page instantiate the same
// module: the compiled code belongs to the module and is shared, so the page's own first calls
// find it compiled. Without Workers, or should the Worker fail or take longer than
// WARM_UP_LIMIT_MS, the page goes on without it (the first calls compile on the main thread).

const WARM_UP_LIMIT_MS = 3000;
let loading: Promise<Engine> | null = null;
const toWarm = new Set<string>();

/** The page's one engine. `warm`: the calculators this caller will evaluate first (a lab's own),
 *  whose first calls the warm-up Worker makes; names given after the module has compiled come too late to help. */
export function getEngine(warm: readonly string[] = []): Promise<Engine> {
  for (const name of warm) toWarm.add(name);
  // a load that failed (the network, the server) is not kept: the next caller tries again
  loading ??= load().catch((e: unknown) => { loading = null; throw e; });
  return loading;
}

/** What the reader is told where the engine could not be loaded: the cause, and what to do. */
export function engineLoadProblem(e: unknown): string {
  const why = e instanceof Error ? e.message : String(e);
  return `The engine could not be loaded (${why}), so nothing here can be computed. Check the connection and reload the page.`;
}

// The build a page loads: the one its <html data-engine> names (a lab route's lab group,
// named by its labs' manifests: the same glue, a .wasm with only that group's calculators), else the full one.
async function load(): Promise<Engine> {
  const variant = document.documentElement.dataset.engine ?? 'full';
  const wasmUrl = ENGINE_WASM[variant];
  if (!wasmUrl) throw new Error(`this page asks for an engine build "${variant}" that does not exist (no lab manifest names it)`);
  const [{ default: createEngine, glueUrl }, module] = await Promise.all([import('./engine-glue'), compileEngine(wasmUrl)]);
  await warmUp(module, glueUrl, [...toWarm]);
  return new Engine(await createEngine({
    instantiateWasm: (imports, done) => { void WebAssembly.instantiate(module, imports).then((i) => done(i, module)); return {}; },
  }), variant);
}

/** The engine's module, compiled while it downloads (or from its bytes where the server's type is not application/wasm). */
function compileEngine(wasmUrl: string): Promise<WebAssembly.Module> {
  return WebAssembly.compileStreaming(fetch(wasmUrl))
    .catch(() => fetch(wasmUrl).then((r) => r.arrayBuffer()).then((bytes) => WebAssembly.compile(bytes)));
}

function warmUp(module: WebAssembly.Module, glueUrl: string, calculators: string[]): Promise<void> {
  if (typeof Worker === 'undefined') return Promise.resolve();
  return new Promise((resolve) => {
    let worker: Worker | undefined;
    const done = () => { clearTimeout(timer); worker?.terminate(); resolve(); };
    const timer = setTimeout(done, WARM_UP_LIMIT_MS);
    try {
      worker = new Worker(new URL('./engine-warmup.ts', import.meta.url), { type: 'module', name: 'sl-engine-warmup' });
      worker.onmessage = done;
      worker.onerror = done;
      worker.postMessage({ module, glueUrl, calculators } satisfies WarmUpRequest);
    } catch {
      done();
    }
  });
}
