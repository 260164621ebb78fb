// Figures for chapters 7–10: the KV cache beside the weights, the serving frontier,
// an annotated profiler trace, a PartitionSpec's shards on a mesh.
import { html, svg, type SVGTemplateResult } from 'lit';
import { FigureElement, t, rect, line, pow2, logX, type Drawing } from './figure';
import { decodeSteps } from '../published-runs';

type Out = Record<string, unknown>;
const num = (o: Out, k: string) => o[k] as number;

// ---------------------------------------------------------------- ch 7: KV cache beside the weights
export class KvCacheFigure extends FigureElement {
  static override readonly calculators = ['chip', 'decode'];
  protected draw(): Drawing | null {
    const batch = Number(this.state.batch ?? 32), context = Number(this.state.context ?? 8192);
    // the engine's default count is one of the reader's own devices, the book's slice otherwise; on
    // one device the engine's default model (70B) would not fit at all, so an 8B model is drawn there
    const own = ['consumer-gpu', 'workstation-gpu', 'unified-memory', 'cpu'].includes(this.chipEntry().kind ?? '');
    const model = typeof this.state.model === 'string' ? { model: this.state.model } : own ? { model: 'llama3-8b' } : {};
    const r = this.evaluate('decode', { chip: this.chip(), ...model, batch, context });
    if (!r) return null;
    const o = r.outputs, inp = r.inputs as Record<string, unknown>;
    // the chip's memory in its own words (HBM, a card's GDDR6X, a Mac's unified memory)
    const memory = String(this.evaluate('chip', { chip: this.chip() })?.outputs.memory_name ?? 'HBM');
    const chips = Number(inp.chips), unit = own ? (chips === 1 ? 'device' : 'devices') : chips === 1 ? 'chip' : 'chips';
    const hbm = num(o, 'slice_hbm_bytes'), wts = num(o, 'weight_bytes'), kv = num(o, 'kv_bytes_total');
    const used = wts + kv, scale = Math.max(hbm, used);
    const X = (b: number) => 12 + 376 * b / scale;
    const body: SVGTemplateResult[] = [
      rect(12, 20, X(hbm) - 12, 44, 'none'),
      rect(12, 24, X(wts) - 12, 36, 'accent', 'weights'),
      rect(X(wts), 24, X(Math.min(used, hbm)) - X(wts), 36, 'solid-ok', 'kv'),
    ];
    if (used > hbm) body.push(rect(X(hbm), 24, X(used) - X(hbm), 36, 'solid-warn', 'overflow'));
    body.push(line(X(hbm), 14, X(hbm), 70, 'warn'));
    const f = (v: unknown, u: string) => this.fmt(v, u);
    body.push(t(Math.min(X(hbm), 388), 12, `${memory === 'HBM' ? 'HBM' : 'memory'} ${f(hbm, 'bytes')}`, 'small bold', X(hbm) > 300 ? 'end' : 'start'));
    body.push(t(16, 46, `weights ${f(wts, 'bytes')}`, 'small on-accent'));
    if (X(Math.min(used, hbm)) - X(wts) > 26) body.push(t(X(wts) + 4, 46, 'KV', 'small on-accent'));
    const maxB = num(o, 'max_batch');
    // a batch axis below: where the cache stops fitting at this context
    const bLo = 1, bHi = 4096;
    const bx = (b: number) => logX(Math.min(bHi, Math.max(bLo, b)), bLo, bHi, 20, 380);
    body.push(line(20, 116, 380, 116));
    for (const b of [1, 8, 64, 512, 4096]) body.push(svg`${line(bx(b), 113, bx(b), 119)}${t(bx(b), 131, String(b), 'small muted', 'middle')}`);
    if (maxB >= 1) {
      body.push(rect(bx(maxB), 108, 380 - bx(maxB), 16, 'warn'));
      body.push(t(bx(maxB), 104, `beyond ${f(maxB, 'count')} sequences it no longer fits`, 'small', bx(maxB) > 250 ? 'end' : 'start'));
    } else body.push(t(200, 104, wts > hbm ? 'the weights alone do not fit' : 'even one sequence does not fit beside the weights', 'small', 'middle'));
    body.push(svg`<circle cx=${bx(batch)} cy="116" r="6" class="fig-dot ${o.fits ? 'ok' : 'warn'}"></circle>`);
    body.push(t(200, 146, 'batch (sequences), log scale', 'small muted', 'middle'));
    const modelName = this.engine!.modelName(String(inp.model)) || String(inp.model);
    // how many fit, or by how much the weights alone overflow the memory
    const room = wts > hbm ? `the weights alone overflow the ${memory} by ${f(wts - hbm, 'bytes')}` : `at this context at most ${f(maxB, 'count')} sequences fit`;
    return {
      title: `${modelName} decoding on ${f(chips, 'count')} ${this.chipEntry().name} ${unit}: what fills ${memory}`,
      viewBox: [400, 154],
      readout: [`Weights ${f(wts, 'bytes')}; KV cache ${f(kv, 'bytes')} = ${f(batch, 'count')} sequences × ${f(context, 'count')} tokens × ${f(o.kv_bytes_per_token, 'bytes')}.`, o.fits ? `Fits, with ${f(o.free_hbm_bytes, 'bytes')} to spare.` : 'Does not fit.'],
      body,
      controls: html`${this.slider('batch', 'Batch', pow2(1, 4096), batch, (v) => f(v, 'count'))}
        ${this.slider('context', 'Context', pow2(512, 131072), context, (v) => `${f(v, 'count')} tokens`)}`,
      alt: `${modelName} on ${f(chips, 'count')} ${this.chipEntry().name} ${unit} with ${f(hbm, 'bytes')} of ${memory}: the weights take ${f(wts, 'bytes')} and the KV cache of ${f(batch, 'count')} sequences of ${f(context, 'count')} tokens takes ${f(kv, 'bytes')}, so it ${o.fits ? 'fits' : 'does not fit'}; ${room}.`,
    };
  }
}

// ---------------------------------------------------------------- ch 8: the latency/throughput frontier
export class ServingFigure extends FigureElement {
  static override readonly calculators = ['serving'];
  protected draw(): Drawing | null {
    const batches = pow2(1, 512);
    const pts = batches.map((b) => ({ b, r: this.evaluate('serving', { chip: this.chip(), batch: b }, true) }))
      .filter((p) => p.r).map((p) => ({ b: p.b, lat: num(p.r!.outputs, 'step_s'), thr: num(p.r!.outputs, 'tokens_per_s_per_chip'), fits: p.r!.outputs.fits === true, cost: num(p.r!.outputs, 'cost_per_million_tokens_usd'), inputs: p.r!.inputs as Record<string, unknown> }));
    if (!pts.length) { this.evaluate('serving', { chip: this.chip() }); return null; } // (the non-quiet call names the problem)
    const want = Number(this.state.batch ?? 32);
    const cur = pts.find((p) => p.b >= want) ?? pts[pts.length - 1];
    const lats = pts.map((p) => p.lat), thrs = pts.map((p) => p.thr);
    const [l0, l1] = [Math.min(...lats) / 1.3, Math.max(...lats) * 1.3], [r0, r1] = [Math.min(...thrs) / 1.3, Math.max(...thrs) * 1.3];
    const X = (v: number) => logX(v, l0, l1, 60, 388), Y = (v: number) => 200 - logX(v, r0, r1, 0, 180);
    const f = (v: unknown, u: string) => this.fmt(v, u);
    const body: SVGTemplateResult[] = [
      rect(60, 20, 328, 180, 'none'),
      svg`<polyline points=${pts.map((p) => `${X(p.lat)},${Y(p.thr)}`).join(' ')} class="fig-line roof"></polyline>`,
      ...pts.map((p) => svg`<circle cx=${X(p.lat)} cy=${Y(p.thr)} r=${p === cur ? 7 : 3.5} class="fig-dot ${p.fits ? '' : 'warn'} ${p === cur ? 'operating-point' : ''}"></circle>`),
      ...pts.filter((_, i) => i % 3 === 0).map((p) => t(X(p.lat) + 6, Y(p.thr) + 12, `B ${p.b}`, 'small muted')),
      t(224, 218, 'time per generated token (per step), log →', 'small muted', 'middle'),
      t(56, 30, f(r1, ''), 'small muted', 'end'), t(56, 200, f(r0, ''), 'small muted', 'end'),
      t(64, 14, '↑ tokens/s per chip, log', 'small muted'),
    ];
    const model = this.engine!.modelName(String(cur.inputs.model)) || String(cur.inputs.model);
    return {
      title: `Serving ${model} on ${f(cur.inputs.chips, 'count')} ${this.chipEntry().name} chips: latency against throughput`,
      viewBox: [400, 226],
      readout: [`Batch ${cur.b}: ${f(cur.thr, 'count')} tokens/s per chip, ${f(cur.lat, 's')} per step, ${f(cur.cost, 'USD')} per million tokens${cur.fits ? '' : ' (does not fit)'}.`],
      body,
      controls: this.slider('batch', 'Batch', pts.map((p) => p.b), cur.b, (v) => f(v, 'count')),
      alt: `Each point is a batch size from ${pts[0].b} to ${pts[pts.length - 1].b} serving ${model} on ${f(cur.inputs.chips, 'count')} ${this.chipEntry().name} chips; larger batches buy throughput with latency. At batch ${cur.b} a step takes ${f(cur.lat, 's')}, each chip makes ${f(cur.thr, 'count')} tokens per second, a million tokens cost ${f(cur.cost, 'USD')}, and the cache ${cur.fits ? 'fits' : 'does not fit'} (orange points do not fit).`,
    };
  }
}

// ---------------------------------------------------------------- ch 9: an annotated profiler trace
const NOTES = [
  'Each box is one operation the compiler emitted, named as a profiler would show it: fusions on the matrix unit, all-gathers on the interconnect.',
  'The all-gather of the next layer’s weights runs while the current matmul computes: that overlap is what FSDP relies on.',
  'Gaps in the compute lane are time the matrix unit waits for weights: when they appear, the step is communication-bound.',
  'The step ends with the last operation: its length is what the roofline predicts, the larger of compute and communication per layer, times the layers.',
];
export class TraceFigure extends FigureElement {
  static override readonly calculators = ['collective', 'roofline', 'sharding'];
  protected draw(): Drawing | null {
    const chips = 8, layers = 4;
    const tokens = Number(this.state.tokens ?? 2048);
    const model = this.engine!.models.find((m) => m.id === 'llama3-70b') as Record<string, unknown> | undefined;
    if (!model) return null;
    const D = Number(model.D), F = Number(model.F); // one LLaMA-3 70B MLP matrix [D, F]
    const w = this.evaluate('sharding', { shape: [D, F], spec: 'W[D_X, F]', mesh: { X: chips } });
    if (!w) return null;
    // eight of the reader's chips must have a link the engine prices (a GeForce card, a Mac or a CPU
    // has none): where they do not, the trace is a TPU v5e's, said so
    const mine = this.evaluate('collective', { chip: this.chip(), op: 'all_gather', bytes: num(w.outputs, 'global_bytes'), axes: [chips] }, true);
    const chip = mine ? this.chip() : 'tpu-v5e';
    const chipName = mine ? this.chipEntry().name : this.engine!.chipName('tpu-v5e');
    const stand = mine ? '' : `The catalog gives the ${this.chipEntry().name} no link to another device that the engine prices, so this trace is a TPU v5e's.`;
    const mm = this.evaluate('roofline', { chip, matmul: { B: tokens, D, F } });
    const ag = mine ?? this.evaluate('collective', { chip, op: 'all_gather', bytes: num(w.outputs, 'global_bytes'), axes: [chips] });
    if (!mm || !ag) return null;
    const tm = num(mm.outputs, 't_lower_s'), tc = num(ag.outputs, 't_s');
    // schedule: gathers back to back on the interconnect; each matmul waits for its gather and the previous matmul
    const ops: { lane: number; name: string; s: number; e: number }[] = [];
    let agEnd = 0, mmEnd = 0;
    for (let l = 0; l < layers; l++) {
      const a = { lane: 1, name: `all-gather.${l}`, s: agEnd, e: agEnd + tc };
      agEnd = a.e;
      const start = Math.max(a.e, mmEnd);
      const m = { lane: 0, name: `fusion.dot.${l}`, s: start, e: start + tm };
      mmEnd = m.e;
      ops.push(a, m);
    }
    const total = mmEnd, idle = total - layers * tm;
    const X = (v: number) => 70 + 318 * v / total;
    const k = this.step('note', NOTES.length);
    const body: SVGTemplateResult[] = [
      t(64, 38, 'MXU / SMs', 'small', 'end'), t(64, 78, 'ICI', 'small', 'end'),
      line(70, 54, 388, 54), line(70, 94, 388, 94),
    ];
    for (const op of ops) {
      const y = op.lane === 0 ? 24 : 64;
      const hi = (k === 0) || (k === 1 && op.lane === 1) || (k === 3 && op.e === total);
      body.push(rect(X(op.s), y, Math.max(1, X(op.e) - X(op.s) - 1), 26, op.lane === 0 ? (hi ? 'accent' : 'soft') : (hi ? 'solid-ok' : 'ok'), op.name));
      // the name, clipped to its box (a nested <svg> clips what it holds)
      if (X(op.e) - X(op.s) > 30) body.push(svg`<svg x=${X(op.s)} y=${y} width=${X(op.e) - X(op.s) - 1} height="26">${t(3, 16, op.name, `small ${hi ? 'on-accent' : ''}`)}</svg>`);
    }
    if (k === 2) {
      for (let i = 1; i < ops.length; i += 2) {
        const prevEnd = i >= 3 ? ops[i - 2].e : 0;
        if (ops[i].s - prevEnd > total * 0.002) body.push(rect(X(prevEnd), 22, X(ops[i].s) - X(prevEnd), 30, 'warn', 'gap'));
      }
    }
    if (k === 3) body.push(line(X(total), 16, X(total), 100, 'warn'));
    const f = (v: unknown, u: string) => this.fmt(v, u);
    body.push(t(70, 112, '0', 'small muted'), t(388, 112, f(total, 's'), 'small muted', 'end'));
    return {
      title: `A synthetic trace: ${layers} FSDP layers of a [${D}, ${F}] matmul on ${chips} ${chipName} chips`,
      viewBox: [400, 118],
      readout: [...(stand ? [stand] : []), `Matmul ${f(tm, 's')} each, all-gather ${f(tc, 's')} each; the matrix unit sits idle for ${f(idle, 's')} of ${f(total, 's')}.`],
      body,
      controls: html`${this.stepper('note', NOTES.length, (i) => `Note ${i + 1} of ${NOTES.length}`)}
        ${this.slider('tokens', 'Tokens per chip', pow2(64, 32768), tokens, (v) => f(v, 'count'))}
        <p class="fig-note" aria-live="polite">${NOTES[k]}</p>`,
      alt: `${stand ? `${stand} ` : ""}A made-up profile of ${layers} layers, not a real trace: on the ${chipName} each matmul of ${f(tokens, 'count')} tokens takes ${f(tm, 's')} and each all-gather of its ${f(w.outputs.global_bytes, 'bytes')} of weights over ${chips} chips ${f(tc, 's')}, so the step takes ${f(total, 's')} and the matrix unit waits ${f(idle, 's')}. ${NOTES[k]}`,
    };
  }
}

// ---------------------------------------------------------------- ch 10: a PartitionSpec on a mesh
const SPECS = [
  { spec: 'A[I_X, J_Y]', jax: "P('x', 'y')" },
  { spec: 'A[I_X, J]', jax: "P('x', None)" },
  { spec: 'A[I, J_Y]', jax: "P(None, 'y')" },
  { spec: 'A[I_XY, J]', jax: "P(('x', 'y'), None)" },
  { spec: 'A[I_Y, J_X]', jax: "P('y', 'x')" },
  { spec: 'A[I, J]', jax: 'P(None, None)' },
];
/** the mesh axes named in one dimension of a spec in the book's notation: "I_XY" → ["X", "Y"] */
const axesOf = (dim: string) => (dim.split('_')[1] ?? '').split('');
export class PartitionFigure extends FigureElement {
  static override readonly calculators = ['sharding'];
  protected draw(): Drawing | null {
    const sp = SPECS.find((s) => s.spec === this.pick('spec', 'PartitionSpec', SPECS.map((x) => x.spec), SPECS[0].spec))!;
    const mesh = { X: this.pick('X', 'x device count', [1, 2, 4], 2), Y: this.pick('Y', 'y device count', [1, 2, 4], 4) };
    const shape = [1024, 4096];
    const r = this.evaluate('sharding', { shape, spec: sp.spec, mesh });
    if (!r) return null;
    const o = r.outputs;
    const [si, sj] = o.shards as number[];
    const dims = sp.spec.slice(2, -1).split(',').map((d) => axesOf(d.trim()));
    // which block a device holds: its coordinates along the axes that shard each dimension
    const coord = (axes: string[], d: Record<string, number>) => axes.reduce((acc, a) => acc * mesh[a as 'X' | 'Y'] + d[a], 0);
    const blockOf = (x: number, y: number) => ({ i: coord(dims[0], { X: x, Y: y }), j: coord(dims[1], { X: x, Y: y }) });
    const colour = (i: number, j: number) => `fig-c${(i * sj + j) % 8}`;
    const body: SVGTemplateResult[] = [];
    const aw = 180, ah = 120, ax = 10, ay = 24;
    body.push(t(ax, 14, `the array A, ${shape.join(' × ')}`, 'small'));
    for (let i = 0; i < si; i++) for (let j = 0; j < sj; j++) {
      body.push(svg`<rect x=${ax + j * aw / sj} y=${ay + i * ah / si} width=${aw / sj - 1} height=${ah / si - 1} class="${colour(i, j)}" data-what="block"></rect>`);
      if (aw / sj > 26 && ah / si > 12) body.push(t(ax + (j + 0.5) * aw / sj, ay + (i + 0.5) * ah / si + 3, `${i},${j}`, 'small bold on-block', 'middle'));
    }
    const mx = 214, cell = Math.min(44, 176 / Math.max(mesh.X, mesh.Y));
    body.push(t(mx, 14, `the ${mesh.X}×${mesh.Y} device mesh`, 'small'));
    for (let x = 0; x < mesh.X; x++) for (let y = 0; y < mesh.Y; y++) {
      const b = blockOf(x, y);
      body.push(svg`<rect x=${mx + y * cell} y=${ay + x * cell} width=${cell - 3} height=${cell - 3} rx="4" class="${colour(b.i, b.j)}" data-what="device"></rect>`);
      body.push(t(mx + y * cell + (cell - 3) / 2, ay + x * cell + cell / 2 + 2, `${b.i},${b.j}`, 'small bold on-block', 'middle'));
    }
    const f = (v: unknown, u: string) => this.fmt(v, u);
    const yEnd = ay + Math.max(ah, mesh.X * cell) + 18;
    return {
      title: `${sp.jax} in JAX, ${sp.spec} in the book: who holds what`,
      viewBox: [400, yEnd - 8],
      readout: [`Mesh rows are x, columns y; a device shows the block it holds, in the block’s colour.`, `Each device holds ${(o.local_shape as number[]).join(' × ')} (${f(o.local_bytes, 'bytes')}); ${f(o.replicas, 'count')} cop${o.replicas === 1 ? 'y' : 'ies'} of each block.`],
      body,
      controls: html`${this.choice('spec', 'PartitionSpec', SPECS.map((s) => ({ value: s.spec, text: `${s.jax} — ${s.spec}` })), sp.spec)}
        ${this.choice('X', 'x devices', [1, 2, 4].map((v) => ({ value: v, text: String(v) })), mesh.X)}
        ${this.choice('Y', 'y devices', [1, 2, 4].map((v) => ({ value: v, text: String(v) })), mesh.Y)}`,
      alt: `${sp.jax} (${sp.spec}) over a ${mesh.X}×${mesh.Y} mesh splits the ${shape.join(' × ')} array into ${si}×${sj} blocks; each device holds a ${(o.local_shape as number[]).join(' × ')} block of ${f(o.local_bytes, 'bytes')}, and each block is held by ${f(o.replicas, 'count')} device${o.replicas === 1 ? '' : 's'}. Colours match each device to its block.`,
    };
  }
}

// ---------------------------------------------------------------- ch 7: a decode step timed on a real GPU
/** Our own timings of one decode step's matmuls (data/measurements.json, decode_steps; measured
 *  with bench/device/decode_step.py) beside the engine's bound for the same chip, batch by batch. */
/** Batch ticks: powers of four within [b0, b1], and b1 itself where it is not one of them and stands
 *  clear of the last (96 after 64). */
const ticks = (b0: number, b1: number) => {
  const out = [1, 4, 16, 64, 256, 1024].filter((b) => b >= b0 && b <= b1);
  if (!out.includes(b1) && b1 >= 1.4 * out[out.length - 1]) out.push(b1);
  return out;
};
export class MeasuredDecodeFigure extends FigureElement {
  static override readonly calculators = ['decode'];
  protected draw(): Drawing | null {
    const f = (v: unknown, u: string) => this.fmt(v, u);
    const runs = decodeSteps(this);
    if (!runs) {
      this.waiting = 'the measured runs';
      return null;
    }
    if (!runs.length) return null;
    const id = this.pick('run', 'measured run', runs.map((r) => r.id), runs[0].id);
    const run = runs.find((r) => r.id === id)!;
    const pts = run.rows.map(([b, measured]) => {
      const r = this.evaluate('decode', { chip: run.chip, model: run.model, chips: run.chips, batch: b, context: run.context, weight_dtype: run.weight_format, compute_dtype: run.compute_dtype });
      return r ? { b, measured, bound: num(r.outputs, 'step_s'), crit: num(r.outputs, 'critical_batch'), kvPerSeq: num(r.outputs, 'kv_bytes_per_sequence') } : null;
    });
    if (pts.some((p) => !p)) return null;
    const ps = pts as { b: number; measured: number; bound: number; crit: number; kvPerSeq: number }[];
    const first = ps[0], last = ps[ps.length - 1];
    const b0 = first.b, b1 = last.b;
    const times = ps.flatMap((p) => [p.measured, p.bound]);
    const y0 = Math.min(...times) / 1.4, y1 = Math.max(...times) * 1.4;
    const X = (b: number) => logX(b, b0, b1, 60, 388), Y = (v: number) => 200 - logX(v, y0, y1, 0, 180);
    // the measured batch nearest the placement's or the slider's (a batch outside the run is refused with a note)
    const want = this.inRange('batch', 'batch', b0, b1, b0, (v) => f(v, 'count'));
    const cur = ps.reduce((best, p) => (Math.abs(Math.log(p.b / want)) < Math.abs(Math.log(best.b / want)) ? p : best), first);
    const chipName = this.engine!.chipIndex.find((c) => c.id === run.chip)?.name ?? run.chip;
    const model = this.engine!.modelName(run.model) || run.model;
    const body: SVGTemplateResult[] = [rect(60, 20, 328, 180, 'none')];
    let shape: string, sentence: string;
    if (run.context === 0) {
      // the measured regimes carried on: the batch-1 time, and the largest batch's time per sequence
      const perSeq = last.measured / last.b, knee = first.measured / perSeq;
      const from = Math.max(b0, knee / 4, y0 / perSeq);
      body.push(line(X(b0), Y(first.measured), X(Math.min(b1, knee * 2)), Y(first.measured), 'dash'),
        line(X(from), Y(perSeq * from), X(b1), Y(last.measured), 'dash'));
      shape = `The dashed lines carry the two measured regimes on; they meet near batch ${f(knee, 'count')}, the engine's critical batch is ${f(first.crit, 'count')}.`;
      sentence = `it stays near ${f(first.measured, 's')} while the weights' bytes dominate and grows about in proportion to the batch at large batches (${f(last.measured, 's')} at ${f(b1, 'count')}). At batch ${f(cur.b, 'count')} it takes ${f(cur.measured, 's')} against the engine's bound of ${f(cur.bound, 's')}. The two measured regimes meet near batch ${f(knee, 'count')}; the engine's critical batch is ${f(first.crit, 'count')}.`;
    } else {
      shape = `Each sequence brings ${f(first.kvPerSeq, 'bytes')} of cache to read every step, so the step grows with the batch long before the matmuls' critical batch (${f(first.crit, 'count')}).`;
      sentence = `it grows with the batch from the start, from ${f(first.measured, 's')} at batch ${f(b0, 'count')} to ${f(last.measured, 's')} at ${f(b1, 'count')}, as the engine's bound does (${f(first.bound, 's')} to ${f(last.bound, 's')}). At batch ${f(cur.b, 'count')} it takes ${f(cur.measured, 's')} against the engine's bound of ${f(cur.bound, 's')}.`;
    }
    if (first.crit <= b1) {
      body.push(line(X(first.crit), 20, X(first.crit), 200, 'warn dash'),
        t(X(first.crit) - 4, 32, `engine flips at ${f(first.crit, 'count')}`, 'small', 'end'));
    }
    body.push(
      svg`<polyline points=${ps.map((p) => `${X(p.b)},${Y(p.bound)}`).join(' ')} class="fig-line roof" fill="none"></polyline>`,
      ...ps.map((p) => svg`<circle cx=${X(p.b)} cy=${Y(p.measured)} r=${p === cur ? 7 : 3.5} class="fig-dot ${p === cur ? 'operating-point' : ''}"></circle>`),
      ...ticks(b0, b1).map((b) => t(X(b), 212, String(b), 'small muted', b === b1 ? 'end' : b === b0 ? 'start' : 'middle')),
      t(224, 226, 'batch (sequences), log →', 'small muted', 'middle'),
      t(56, 30, f(y1, 's'), 'small muted', 'end'), t(56, 200, f(y0, 's'), 'small muted', 'end'),
      t(64, 14, '↑ one decode step, log', 'small muted'),
      t(X(b0) + 14, Y(first.measured) - 9, 'measured', 'small'),
      t(X(b0) + 14, Y(first.bound) + 16, 'engine’s bound', 'small'),
    );
    const what = run.context === 0 ? `${model}'s matmuls` : `${model} with ${f(run.context, 'count')}-token caches`;
    return {
      title: `${what} on one ${chipName}, measured: one decode step against the batch`,
      viewBox: [400, 232],
      readout: [
        `Batch ${f(cur.b, 'count')}: measured ${f(cur.measured, 's')}, the engine's bound ${f(cur.bound, 's')} (the kernels reach ${f(Math.round(100 * cur.bound / cur.measured), 'count')} % of it).`,
        `Dots: measured; line: the engine's bound. ${shape}`,
        `Measured with ${run.software} on ${run.hardware}. ${run.what}`,
      ],
      body,
      controls: this.slider('batch', 'Batch', ps.map((p) => p.b), cur.b, (v) => f(v, 'count')),
      alt: `A decode step of ${what} timed on one ${chipName} at batches ${f(b0, 'count')} to ${f(b1, 'count')}: ${sentence}`,
    };
  }
}

customElements.define('sl-fig-kv-cache', KvCacheFigure);
customElements.define('sl-fig-serving', ServingFigure);
customElements.define('sl-fig-trace', TraceFigure);
customElements.define('sl-fig-partition', PartitionFigure);
customElements.define('sl-fig-measured-decode', MeasuredDecodeFigure);
