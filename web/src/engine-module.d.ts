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
