// The engine's warm-up Worker (see getEngine in engine.ts). V8 compiles a WebAssembly function
// the first time it is called, on the thread that calls it, and the compiled code belongs to the
// module, shared by every instance of it. This Worker instantiates the page's compiled module and
// makes the calls a page's first load makes (a calculator's schema, its numbers at the defaults,
// a one-point sweep, a formatted quantity, the chip fields), so that their code is compiled here,
// off the page's main thread, before the page instantiates the same module. It answers 'warm'
// once done; what it computes is thrown away. It imports the glue the page loaded (engine-glue.ts,
// from the URL the page sends), not a copy of its own.
type Glue = typeof import('./engine-glue');

export interface WarmUpRequest { module: WebAssembly.Module; glueUrl: string; calculators: string[] }

self.onmessage = async (e: MessageEvent<WarmUpRequest>) => {
  const { module, glueUrl, calculators } = e.data;
  try {
    const { default: createEngine } = (await import(/* @vite-ignore */ glueUrl)) as Glue;
    const engine = await createEngine({
      instantiateWasm: (imports, done) => { void WebAssembly.instantiate(module, imports).then((i) => done(i, module)); return {}; },
    });
    engine.formatQuantity(1e9, 'bytes');
    engine.objectFields('chip');
    for (const name of calculators) warm(engine, name);
  } finally {
    (self as unknown as Worker).postMessage('warm');
  }
};

type EngineModule = Awaited<ReturnType<Glue['default']>>;
function warm(engine: EngineModule, name: string) {
  const schema = JSON.parse(engine.calculator(name)) as { params: { name: string; type: string; default: unknown }[] } | null;
  if (!schema) return;
  engine.evaluateNumbers(name, '{}');
  const swept = schema.params.find((p) => (p.type === 'number' || p.type === 'integer') && typeof p.default === 'number');
  if (!swept) return;
  engine.sweepColumns(name, '{}', JSON.stringify({ x: { param: swept.name, values: [swept.default] } }));
  engine.sweepValues();
}
