declare module 'scalelab-engine' {
  export interface EngineModule {
    evaluate(name: string, json: string): string;
    /** the result without derivation steps ("steps": []) */
    evaluateNumbers(name: string, json: string): string;
    sweep(name: string, paramsJson: string, specJson: string): string;
    calculators(): string;
    /** one calculator's schema (its entry in calculators()), "null" for an unknown name */
    calculator(name: string): string;
    /** the schema of a chip ("chip") or model ("model") object: calculators()'s chip_fields / model_fields */
    objectFields(kind: string): string;
    chips(): string;
    models(): string;
    formats(): string;
    measurements(): string;
    formatQuantity(value: number, unit: string): string;
    outputUnit(calculator: string, output: string): string;
  }
  const createEngine: (opts?: { locateFile?: (p: string) => string; wasmBinary?: ArrayBuffer }) => Promise<EngineModule>;
  export default createEngine;
}
// An engine variant (wasm/variants.json, aliased in vite.config.ts): the same module, fewer calculators.
declare module 'scalelab-engine-*' {
  import type createEngine from 'scalelab-engine';
  const create: typeof createEngine;
  export default create;
}
