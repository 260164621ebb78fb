// Shared by the Node tests: paths, the native CLI, the WebAssembly engine, the data files.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const bin = path.resolve(root, process.env.SCALELAB_BIN || 'build/scalelab');
export const wasmDir = path.resolve(root, process.env.SCALELAB_WASM_DIR || 'build-wasm');

const require = createRequire(import.meta.url);

// The CommonJS build (build-wasm/node/engine.cjs), given its wasm bytes.
export async function loadEngine() {
  const js = path.join(wasmDir, 'node', 'engine.cjs');
  const wasm = path.join(wasmDir, 'node', 'engine.wasm');
  if (!fs.existsSync(js) || !fs.existsSync(wasm)) {
    throw new Error(`no WebAssembly build at ${wasmDir} (build it: emcmake cmake -S . -B build-wasm && cmake --build build-wasm)`);
  }
  const createEngine = require(js);
  return createEngine({ wasmBinary: fs.readFileSync(wasm) });
}

// Runs the native CLI; returns {status, stdout, stderr}.
export function cli(args, input) {
  if (!fs.existsSync(bin)) throw new Error(`no native build at ${bin}`);
  const r = spawnSync(bin, args, { input: input ?? '', encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  return r;
}

export function cases() {
  const dir = path.join(root, 'tests', 'cases');
  return fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
    .flatMap((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).map((c) => ({ ...c, file: f })));
}

export function badInputs() {
  const entries = JSON.parse(fs.readFileSync(path.join(root, 'tests', 'bad_inputs.json'), 'utf8'));
  return entries.map((e) => {
    if (!e.generate) return e;
    const g = e.generate;
    return { ...e, input: (g.prefix ?? '') + g.repeat.repeat(g.times) + (g.suffix ?? '') };
  });
}

export function nativeCalculators() {
  const r = cli(['list', '--json']);
  return new Set(JSON.parse(r.stdout).calculators.map((c) => c.name));
}

export function wasmCalculators(engine) {
  return new Set(JSON.parse(engine.calculators()).calculators.map((c) => c.name));
}
