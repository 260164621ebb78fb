declare module 'scalelab-engine' {
  export interface EngineModule {
    evaluate(name: string, json: string): string;
    /** the result without derivation steps ("steps": []) */
    evaluateNumbers(name: string, json: string): string;
    sweep(name: string, paramsJson: string, specJson: string): string;
    /** sweep's JSON with each output of numbers as a column number into sweepValues() (web/src/sweep-columns.js) */
    sweepColumns(name: string, paramsJson: string, specJson: string): string;
    /** the last sweepColumns call's doubles, a view of the module's memory: read it before the next call */
    sweepValues(): Float64Array;
    calculators(): string;
    /** one calculator's schema (its entry in calculators()), "null" for an unknown name */
    calculator(name: string): string;
    /** the schema of a chip ("chip") or model ("model") object: calculators()'s chip_fields / model_fields */
    objectFields(kind: string): string;
    chips(): string;
    models(): string;
    formats(): string;
    formatQuantity(value: number, unit: string): string;
    outputUnit(calculator: string, output: string): string;
  }
  /** Emscripten's hook: instantiate the module yourself (here: from a module compiled once) and hand the instance back. */
  type InstantiateWasm = (imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => object;
  const createEngine: (opts?: { locateFile?: (p: string) => string; wasmBinary?: ArrayBuffer; instantiateWasm?: InstantiateWasm }) => Promise<EngineModule>;
  export default createEngine;
}
declare module 'scalelab-engine-wasm?url' {
  /** the URL of the engine's .wasm in the build (the file the glue itself would fetch) */
  const url: string;
  export default url;
}
// A lab group's engine (the lab manifests' variant, aliased in vite.config.ts): the URL of its .wasm.
declare module 'scalelab-engine-*-wasm?url' {
  const url: string;
  export default url;
}
