// The one engine (C++ → WebAssembly), loaded once on first use. Every number on the page
// comes through here; the web code holds no formula and no range.
import type { EngineModule } from 'scalelab-engine';

export interface Step { label: string; formula: string; substituted: string; value: number; unit: string }
export interface Result {
  calculator: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  steps: Step[];
  warnings: string[];
}
export interface EngineError { error: { param: string | null; message: string } }
export type Outcome = Result | EngineError;
export const isError = (r: Outcome): r is EngineError => 'error' in r;

export interface ParamSchema {
  name: string;
  type: 'number' | 'integer' | 'choice' | 'text' | 'object' | 'map' | 'list' | 'chip' | 'model' | 'overrides' | 'bool' | string;
  unit: string;
  default: unknown;
  min?: number;
  max?: number;
  min_exclusive?: boolean;
  scale: 'linear' | 'log' | 'choice';
  choices?: string[];
  doc: string;
  /** the human label for Plain mode ("bytes per parameter"), where the schema has one */
  label?: string;
  required?: boolean;
  fields?: ParamSchema[];
}
/** an output as the schema declares it (where it does: older engines list none) */
export interface OutputSchema { name: string; unit?: string; label?: string; doc?: string }
export interface CalculatorSchema { name: string; title: string; chapters: number[]; doc: string; params: ParamSchema[]; outputs?: OutputSchema[] }
export interface Schema { version: number; calculators: CalculatorSchema[]; chip_fields: ParamSchema[]; model_fields: ParamSchema[] }
export type Chip = Record<string, unknown> & { id: string; name: string };

export interface EngineFormat { id: string; name: string; bits: number; uses: string[]; source: string }
export interface Measurement {
  id: string; chip: string; model: string; weight_format: string; kv_format: string; context: number;
  tokens_per_s: number; software: string; hardware: string; source: string; notes?: string;
}
export interface MeasurementCatalog { about: string; band: { min: number; max: number; why: string }; measurements: Measurement[] }
export class Engine {
  readonly schema: Schema;
  readonly chips: Chip[];
  /** the model catalog (data/models.json), for labs that pick a model */
  readonly models: Chip[];
  /** weight and KV-cache formats (data/formats.json): id, display name, bits per value, source */
  readonly formats: EngineFormat[];
  /** published decode speeds (data/measurements.json): the band measured/bound should lie in, and the runs */
  readonly measurements: MeasurementCatalog;
  constructor(private readonly m: EngineModule) {
    this.schema = JSON.parse(m.calculators());
    this.chips = JSON.parse(m.chips());
    this.models = JSON.parse(m.models());
    this.formats = JSON.parse(m.formats());
    this.measurements = JSON.parse(m.measurements());
  }
  evaluate(name: string, params: unknown): Outcome {
    return JSON.parse(this.m.evaluate(name, JSON.stringify(params)));
  }
  calculator(name: string): CalculatorSchema | undefined {
    return this.schema.calculators.find((c) => c.name === name);
  }
  format(value: unknown, unit: string): string {
    if (typeof value === 'string') return value;
    if (typeof value === 'boolean') return value ? 'yes' : 'no';
    if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
    return this.m.formatQuantity(value, unit);
  }
  /** The unit of an output: from the engine's naming convention, else from the step that produced it. */
  unitOf(result: Result, out: string): string {
    const u = this.m.outputUnit(out);
    if (u) return u;
    const v = getPath(result.outputs, out);
    // the unit of the step(s) that came to this value, unless they disagree (zeros: "Max batch by memory 0 s")
    const units = new Set(result.steps.filter((s) => s.value === v).map((s) => s.unit));
    return units.size === 1 ? [...units][0] : '';
  }
}

export function getPath(obj: unknown, dotted: string): unknown {
  return dotted.split('.').reduce<unknown>((o, k) => (o == null ? undefined : (o as Record<string, unknown>)[k]), obj);
}

let loading: Promise<Engine> | null = null;
export function getEngine(): Promise<Engine> {
  if (!loading) {
    loading = import('scalelab-engine').then(async ({ default: createEngine }) => new Engine(await createEngine()));
  }
  return loading;
}
