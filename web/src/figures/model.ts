// Figures for chapters 4–6 and 12: a Transformer layer's shapes, the four parallelisms on a mesh,
// four pipeline schedules side by side with their bubbles, the LLaMA-3 70B training pod's layout.
import { html, svg, type SVGTemplateResult } from 'lit';
import { FigureElement, t, rect, line, type Drawing } from './figure';
import { percent } from '../format';

type Out = Record<string, unknown>;
const num = (o: Out, k: string) => o[k] as number;
// ---------------------------------------------------------------- ch 4: a Transformer layer
export class TransformerFigure extends FigureElement {
  static override readonly calculators = ['transformer'];
  protected draw(): Drawing | null {
    const models = this.engine!.models;
    const id = this.pick('model', 'model', models.map((x) => x.id), String(this.engine!.calculator('transformer')?.params.find((p) => p.name === 'model')?.default ?? models[0].id));
    const m = (models.find((x) => x.id === id) ?? models[0]) as Record<string, unknown> & { id: string; name: string };
    const r = this.evaluate('transformer', { model: m.id });
    if (!r) return null;
    const { T, B } = r.inputs as { T: number; B: number };
    const d = (k: string) => String(m[k]); // a shape is read exactly: 8192, not 8.19k
    const gated = m.gated !== false;
    const blocks = [
      { name: 'x', what: 'input activations', shape: `[B, T, D] = [${B}, ${T}, ${d('D')}]`, kind: 'act' },
      { name: 'W_Q', what: 'query projection', shape: `[D, N, H] = [${d('D')}, ${d('N')}, ${d('H')}]`, kind: 'w' },
      { name: 'W_K, W_V', what: 'key and value projections (K heads)', shape: `[D, K, H] = [${d('D')}, ${d('K')}, ${d('H')}] each`, kind: 'w' },
      // the scores' [B, N, T, T] is said in the step's words: the row holds the shape that leaves it
      { name: 'attention', what: 'scores [B, N, T, T], then weighted values per head', shape: `[B, T, N, H] = [${B}, ${T}, ${d('N')}, ${d('H')}]`, kind: 'act' },
      { name: 'W_O', what: 'output projection', shape: `[N, H, D] = [${d('N')}, ${d('H')}, ${d('D')}]`, kind: 'w' },
      { name: gated ? 'W_in, W_gate' : 'W_in', what: 'MLP up-projection', shape: `[D, F] = [${d('D')}, ${d('F')}]${gated ? ' each' : ''}`, kind: 'w' },
      { name: 'W_out', what: 'MLP down-projection', shape: `[F, D] = [${d('F')}, ${d('D')}]`, kind: 'w' },
      { name: 'x′', what: 'output activations (to the next layer)', shape: `[B, T, D] = [${B}, ${T}, ${d('D')}]`, kind: 'act' },
    ];
    const s = this.step('block', blocks.length);
    const rowH = 30, ox = 12, oy = 10;
    const body: SVGTemplateResult[] = [];
    blocks.forEach((b, i) => {
      const y = oy + i * rowH;
      const on = i === s;
      body.push(rect(ox, y, 376, rowH - 6, on ? 'accent' : b.kind === 'w' ? 'soft' : 'none', on ? 'current' : ''));
      body.push(t(ox + 8, y + 16, b.name, `bold ${on ? 'on-accent' : ''} block-name`));
      body.push(t(ox + 122, y + 16, b.shape, `small ${on ? 'on-accent' : ''} block-shape`)); // past "W_in, W_gate" at a phone's text size
      if (i < blocks.length - 1) body.push(line(ox + 40, y + rowH - 6, ox + 40, y + rowH));
    });
    const yEnd = oy + blocks.length * rowH + 12;
    const o = r.outputs;
    const cur = blocks[s];
    return {
      title: `One layer of ${m.name}, every shape`,
      viewBox: [400, yEnd - 12],
      readout: [`${cur.name}: ${cur.shape}.`, `All ${this.fmt(m.L, 'count')} layers together: ${this.fmt(o.params_attention, 'count')} attention and ${this.fmt(o.params_mlp, 'count')} MLP parameters.`],
      body,
      controls: html`${this.stepper('block', blocks.length, (k) => `${k + 1}/${blocks.length}: ${blocks[k].what}`)}
        ${this.choice('model', 'Model', models.map((x) => ({ value: x.id, text: x.name })), m.id)}`,
      alt: `One Transformer layer of ${m.name} (D ${d('D')}, F ${d('F')}, N ${d('N')} query heads, K ${d('K')} key/value heads, head size H ${d('H')}, for B ${B} sequence of T ${T} tokens). Shown: ${cur.name}, the ${cur.what}, shape ${cur.shape}. Over its ${this.fmt(m.L, 'count')} layers the model has ${this.fmt(o.params_attention, 'count')} attention and ${this.fmt(o.params_mlp, 'count')} MLP parameters.`,
    };
  }
}

// ---------------------------------------------------------------- ch 5: the four parallelisms
const STRATEGIES = [
  { id: 'dp', text: 'Data parallelism (DP)', weights: 'full', batch: 'split', note: 'every chip holds all the weights and a slice of the batch' },
  { id: 'fsdp', text: 'Fully sharded data parallelism (FSDP)', weights: 'rows', batch: 'split', note: 'weights and optimizer state are split across chips and gathered just in time; each chip has a slice of the batch' },
  { id: 'tp', text: 'Tensor parallelism (TP)', weights: 'cols', batch: 'full', note: 'each chip holds a slice of every matrix’s hidden dimension and sees the whole batch' },
  { id: 'pp', text: 'Pipeline parallelism (PP)', weights: 'layers', batch: 'full', note: 'each chip holds a run of whole layers; microbatches flow from chip to chip' },
] as const;
export class ParallelismFigure extends FigureElement {
  static override readonly calculators = ['chip', 'training_memory'];
  protected draw(): Drawing | null {
    const chips = 8;
    const st = STRATEGIES.find((x) => x.id === this.pick('strategy', 'parallelism', STRATEGIES.map((s) => s.id), 'dp'))!;
    const chip = typeof this.state.chip === 'string' ? this.state.chip : this.chip();
    const r = this.evaluate('training_memory', { chip, chips, [st.id]: chips });
    if (!r) return null;
    const o = r.outputs;
    const body: SVGTemplateResult[] = [];
    const cw = 92, chh = 84, ox = 14, oy = 12;
    for (let i = 0; i < chips; i++) {
      const cx = ox + (i % 4) * (cw + 4), cy = oy + Math.floor(i / 4) * (chh + 8);
      body.push(rect(cx, cy, cw, chh, 'none'));
      body.push(t(cx + 4, cy + 11, `chip ${i}`, 'small muted'));
      // weights: a square split 8 ways in the way this strategy splits it
      const wx = cx + 6, wy = cy + 16, ws = 46;
      body.push(rect(wx, wy, ws, ws, 'soft'));
      if (st.weights === 'full') body.push(rect(wx, wy, ws, ws, 'accent'));
      else if (st.weights === 'rows' || st.weights === 'layers') body.push(rect(wx, wy + i * ws / chips, ws, ws / chips, 'accent'));
      else body.push(rect(wx + i * ws / chips, wy, ws / chips, ws, 'accent'));
      body.push(t(wx + ws / 2, wy + ws + 11, st.weights === 'layers' ? 'layers' : 'weights', 'small', 'middle'));
      // the batch: a column of 8 rows
      const bx = cx + 60, bs = 22;
      body.push(rect(bx, wy, bs, ws, 'soft'));
      if (st.batch === 'full') body.push(rect(bx, wy, bs, ws, 'solid-ok'));
      else body.push(rect(bx, wy + i * ws / chips, bs, ws / chips, 'solid-ok'));
      body.push(t(bx + bs / 2, wy + ws + 11, 'batch', 'small', 'middle'));
    }
    const yEnd = oy + 2 * (chh + 8) + 8;
    const f = (v: unknown, u: string) => this.fmt(v, u);
    const name = this.engine!.chipName(String(chip)) || String(chip);
    const memory = String(this.evaluate('chip', { chip })?.outputs.memory_name ?? 'HBM'); // HBM, GDDR6X memory, …
    return {
      title: 'Four ways to split training over chips',
      viewBox: [400, yEnd - 8],
      readout: [`${st.note[0].toUpperCase()}${st.note.slice(1)}.`, `${f(o.bytes_per_chip, 'bytes')} per chip of ${f(o.hbm_bytes, 'bytes')} of ${memory}: ${o.fits ? 'fits' : 'does not fit'}.`],
      body,
      controls: this.choice('strategy', 'Parallelism', STRATEGIES.map((x) => ({ value: x.id, text: x.text })), st.id),
      alt: `${st.text} over ${chips} chips: ${st.note}. Training ${this.engine!.modelName(String(r.inputs.model)) || String(r.inputs.model)} this way on the ${name} needs ${f(o.bytes_per_chip, 'bytes')} per chip against ${f(o.hbm_bytes, 'bytes')} of ${memory}, so it ${o.fits ? 'fits' : 'does not fit'}.`,
    };
  }
}

// ---------------------------------------------------------------- ch 5 and 12: four pipeline schedules
// Each schedule's order of work per stage (its definition, not a formula): the drawing places
// every pass where its inputs are ready, in units of one forward pass; the numbers beside it
// (bubble, micro-batches in flight, step time) are the engine's for the reader's model and chip.
type Pass = { k: 'F' | 'B' | 'W'; m: number; c: number; start: number; end: number };
const SCHEDULES = ['gpipe', '1f1b', 'interleaved', 'zero_bubble'] as const;
type ScheduleId = typeof SCHEDULES[number];
type Op = { k: 'F' | 'B' | 'W'; m: number; c: number };

function scheduleOrder(kind: ScheduleId, P: number, M: number, V: number, s: number): Op[] {
  const o: Op[] = [];
  if (kind === 'gpipe') {
    for (let m = 0; m < M; m++) o.push({ k: 'F', m, c: 0 });
    for (let m = 0; m < M; m++) o.push({ k: 'B', m, c: 0 });
  } else if (kind === '1f1b') {
    const w = Math.min(P - s - 1, M); // warm-up forwards, then one forward, one backward
    for (let m = 0; m < w; m++) o.push({ k: 'F', m, c: 0 });
    for (let i = 0; i < M - w; i++) o.push({ k: 'F', m: w + i, c: 0 }, { k: 'B', m: i, c: 0 });
    for (let m = M - w; m < M; m++) o.push({ k: 'B', m, c: 0 });
  } else if (kind === 'zero_bubble') {
    // ZB-H1 (Qi et al. 2023, "Zero Bubble Pipeline Parallelism", section 2.1): 1F1B's order with the
    // backward pass split into B (the input's gradient, which the stage before waits for) and W (the
    // weights' gradient, which nobody waits for). Stage s holds back its first s weight passes, so
    // that every stage keeps the same micro-batches in flight as the first, and runs them in the
    // idle time at the end of the step, where 1F1B's stages wait for the gradients to come back.
    const w = Math.min(P - s - 1, M);
    let nw = 0;
    for (let m = 0; m < w; m++) o.push({ k: 'F', m, c: 0 });
    for (let i = 0; i < M - w; i++) {
      o.push({ k: 'F', m: w + i, c: 0 }, { k: 'B', m: i, c: 0 });
      if (i >= s) o.push({ k: 'W', m: nw++, c: 0 });
    }
    for (let i = M - w; i < M; i++) {
      o.push({ k: 'B', m: i, c: 0 });
      if (i >= s && nw <= i) o.push({ k: 'W', m: nw++, c: 0 });
    }
    while (nw < M) o.push({ k: 'W', m: nw++, c: 0 });
  } else { // interleaved: micro-batches in groups of P, each group through every chunk in turn
    const fwd: Op[] = [], bwd: Op[] = [];
    for (let g = 0; g < M / P; g++) for (let c = 0; c < V; c++) for (let i = 0; i < P; i++) {
      fwd.push({ k: 'F', m: g * P + i, c }); bwd.push({ k: 'B', m: g * P + i, c: V - 1 - c });
    }
    const n = M * V, w = Math.min(2 * (P - s - 1) + (V - 1) * P, n);
    let f = 0, b = 0;
    for (; f < w; f++) o.push(fwd[f]);
    while (f < n) o.push(fwd[f++], bwd[b++]);
    while (b < n) o.push(bwd[b++]);
  }
  return o;
}

/** Every stage's passes for one schedule, each placed as soon as its stage is free and its inputs
 *  are ready: a forward waits for the stage before it, a backward for the stage after it (and its
 *  own forward), a weight-gradient pass for its own stage's backward. Time is in forward passes: a
 *  backward takes two, or one each for zero-bubble's B and W. */
function layOut(kind: ScheduleId, P: number, M: number, V: number): Pass[][] {
  const rows: Pass[][] = Array.from({ length: P }, () => []);
  const v = kind === 'interleaved' ? V : 1;
  const dur = kind === 'zero_bubble' ? { F: 1, B: 1, W: 1 } : { F: 1 / v, B: 2 / v, W: 0 };
  const orders = Array.from({ length: P }, (_, s) => scheduleOrder(kind, P, M, v, s));
  const done = new Map<string, number>();
  const last = P * v - 1;
  const pos = Array(P).fill(0), free = Array(P).fill(0);
  const needs = (op: Op, vs: number) => op.k === 'F' ? (vs > 0 ? [`F${op.m}:${vs - 1}`] : [])
    : op.k === 'B' ? [`F${op.m}:${vs}`, ...(vs < last ? [`B${op.m}:${vs + 1}`] : [])]
    : [`B${op.m}:${vs}`];
  for (let moved = true; moved;) {
    moved = false;
    for (let s = 0; s < P; s++) {
      for (; pos[s] < orders[s].length; pos[s]++) {
        const op = orders[s][pos[s]], vs = op.c * P + s;
        const deps = needs(op, vs);
        if (deps.some((d) => !done.has(d))) break;
        const start = Math.max(free[s], ...deps.map((d) => done.get(d)!));
        free[s] = start + dur[op.k];
        done.set(`${op.k}${op.m}:${vs}`, free[s]);
        rows[s].push({ ...op, start, end: free[s] });
        moved = true;
      }
    }
  }
  return rows;
}

export class PipelineSchedulesFigure extends FigureElement {
  static override readonly calculators = ['training_run', 'training_memory'];
  protected draw(): Drawing | null {
    const engine = this.engine!;
    const P = this.pick('stages', 'stage count', [2, 4, 8], 4);
    const mOptions = [1, 2, 3, 4].map((k) => k * P);
    const M = this.pick('microbatches', 'micro-batch count', mOptions, 2 * P);
    const models = ['llama3-8b', 'llama2-13b', 'llama3-70b'].filter((id) => engine.models.some((x) => x.id === id));
    const model = this.pick('model', 'model', models, 'llama3-8b');
    const dp = this.pick('dp', 'data-parallel degree', [1, 2, 4, 8, 16], 8);
    const tp = this.pick('tp', 'tensor-parallel degree', [1, 2, 4, 8], 1);
    const T = 4096;
    const chip = this.chip();
    const chips = P * dp * tp;
    const V = 2;
    const sched = engine.calculator('training_run')?.params.find((p) => p.name === 'schedule');
    const title = (id: string) => String(sched?.choice_titles?.[sched.choices!.indexOf(id)] ?? id);
    const base = { chip, model, T, chips, batch_tokens: M * dp * T };
    const layout = (schedule: string) => ({ tp, pp: P, dp, zero_stage: 1, micro_batch: 1, checkpointing: 'full', schedule, ...(schedule === 'interleaved' ? { virtual_stages: V } : {}) });
    const f = (v: unknown, u: string) => this.fmt(v, u);
    // the engine's figures per schedule: time where it prices this chip's links, memory everywhere
    const rows = SCHEDULES.map((id) => {
      this.refusal = '';
      const r = this.evaluate('training_run', { ...base, search: false, layout: layout(id) }, true);
      const why = this.refusal;
      const run = r ? (r.outputs.layout_check as Record<string, unknown>) : null;
      const mem = this.evaluate('training_memory', { ...base, ...layout(id) });
      return { id, name: title(id).split(':')[0].replace(' (virtual stages)', '').replace(' (ZB-H1)', ''), run, why, mem };
    });
    if (rows.some((r) => !r.mem)) return null;
    const drawn = SCHEDULES.map((id) => layOut(id, P, M, V));
    const span = Math.max(...drawn.map((rs) => Math.max(...rs.map((r) => r.at(-1)?.end ?? 0))));
    const ox = 88, width = 306, unit = width / span, rh = Math.max(4, Math.min(9, 40 / P)), gap = 22;
    const body: SVGTemplateResult[] = [];
    let y = 4;
    drawn.forEach((rs, i) => {
      const row = rows[i];
      body.push(t(4, y + 10, row.id === 'interleaved' ? 'interleaved' : row.name, 'small bold'));
      body.push(t(4, y + 22, `${f(row.mem!.outputs.in_flight_micro_batches, 'count')} in flight`, 'small muted'));
      if (row.run && typeof row.run.bubble_fraction === 'number') body.push(t(4, y + 34, `bubble ${percent(row.run.bubble_fraction as number)}`, 'small muted'));
      rs.forEach((passes, s) => {
        body.push(rect(ox, y + s * rh, span * unit, rh - 1, 'none'));
        for (const p of passes) body.push(rect(ox + p.start * unit, y + s * rh, (p.end - p.start) * unit - 0.4, rh - 1, p.k === 'F' ? (p.c ? 'soft' : 'accent') : p.k === 'B' ? 'solid-ok' : 'solid-warn', p.k));
      });
      y += Math.max(P * rh, 38) + gap - 8; // room for the three lines beside a short row
    });
    body.push(t(ox, y - 6, 'time →', 'small muted'));
    const share = (r: typeof rows[number]) => (r.run && typeof r.run.bubble_fraction === 'number' ? `bubble ${percent(r.run.bubble_fraction as number)} of the step` : '');
    const chipName = this.chipEntry().name;
    const modelName = engine.modelName(model) || model;
    const setup = `${modelName} in ${P} pipeline stages × ${dp} data-parallel replicas${tp > 1 ? ` × ${tp}-way tensor parallelism` : ''} (${f(chips, 'count')} ${chipName} chips), ${M} micro-batches of one ${f(T, 'count')}-token sequence per replica, full rematerialisation, ZeRO-1`;
    const timed = rows.every((r) => r.run && typeof r.run.step_s === 'number');
    const lines = rows.map((r) => {
      const held = `${f(r.mem!.outputs.in_flight_micro_batches, 'count')} micro-batches in flight on the first stage (${f(r.mem!.outputs.activations_bytes_per_chip, 'bytes')} of activations)`;
      if (r.run && typeof r.run.step_s === 'number') return `${r.name}: step ${f(r.run.step_s, 's')}, ${share(r)}; ${held}.`;
      return `${r.name}: ${held}.`;
    });
    // one line a reader compares across the four: the engine's step time and its bubble share
    const steps = timed ? `Step time: ${rows.map((r) => `${r.name} ${f(r.run!.step_s, 's')} (${share(r).replace(' of the step', '')})`).join(', ')}.` : '';
    const why = rows.find((r) => !(r.run && typeof r.run.step_s === 'number'));
    const untimed = why ? (why.run ? `The engine does not time it: ${String(why.run.message || 'the layout does not fit')}.` : `The engine does not time it on the ${chipName}: ${why.why}.`) : '';
    return {
      title: `Four pipeline schedules, ${P} stages, ${M} micro-batches`,
      viewBox: [400, y + 2],
      readout: ['Blue: forward passes (light blue: the second chunk of an interleaved stage); green: backward passes; orange: zero-bubble’s weight-gradient passes, held back to fill the idle time at the end of the step (ZB-H1, Qi et al. 2023); empty: the bubble. Beside each: the micro-batches the first stage holds at its peak and the engine’s bubble share.', timed ? steps : untimed],
      body,
      controls: html`${this.choice('model', 'Model', models.map((id) => ({ value: id, text: engine.modelName(id) || id })), model)}
        ${this.choice('stages', 'Stages', [2, 4, 8].map((v) => ({ value: v, text: String(v) })), P)}
        ${this.choice('microbatches', 'Micro-batches', mOptions.map((v) => ({ value: v, text: String(v) })), M)}`,
      alt: `${setup}. ${lines.join(' ')}${timed ? '' : ` ${untimed}`}`,
    };
  }
}

// ---------------------------------------------------------------- ch 6: the LLaMA-3 70B training pod
export class TrainingPodFigure extends FigureElement {
  static override readonly calculators = ['chip', 'training_run'];
  protected draw(): Drawing | null {
    const chip = typeof this.state.chip === 'string' ? this.state.chip : this.chip();
    // the page may start it on the run it sets beside it (chapter 6: 8,960 chips)
    const given = Number(this.state.chips) > 0 ? Number(this.state.chips) : null;
    const base = this.evaluate('training_run', { chip, model: 'llama3-70b', top_n: 5 });
    const chipInfo = this.evaluate('chip', { chip });
    if (!base || !chipInfo) return null;
    // chip counts offered: the engine's default for this chip and whole pods of it
    const podChips = Number(chipInfo.outputs.pod_chips) || 1;
    const defaultChips = Number(base.outputs.chips);
    const options = [...new Set([defaultChips, ...(given ? [given] : []), ...[1, 2, 4, 8, 16, 32, 64].map((k) => k * podChips)])].sort((a, b) => a - b);
    const run = (n: number) => (n === defaultChips ? base : this.evaluate('training_run', { chip, model: 'llama3-70b', top_n: 5, chips: n }, true));
    const fitsAt = (n: number) => ((run(n)?.outputs.layouts as unknown[] | undefined)?.length ?? 0) > 0;
    // start at the engine's default count, or the smallest offered one where some layout fits
    const start = fitsAt(defaultChips) ? defaultChips : options.find(fitsAt) ?? defaultChips;
    const chips = options.includes(Number(this.state.chips)) ? Number(this.state.chips) : start;
    const r = chips === defaultChips ? base : this.evaluate('training_run', { chip, model: 'llama3-70b', top_n: 5, chips });
    if (!r) return null;
    const chipsControl = this.choice('chips', 'Chips', options.map((v) => ({ value: v, text: this.fmt(v, 'count') })), chips);
    const layouts = (r.outputs.layouts as Record<string, number | string>[]) ?? [];
    if (!layouts.length) {
      const why = `No layout of ${this.fmt(chips, 'count')} chips fits LLaMA-3 70B: the engine needs at least ${this.fmt(r.outputs.min_chips_memory, 'count')} of these chips for memory.`;
      return { title: 'No layout fits', viewBox: [400, 40], body: [t(200, 24, `Needs ≥ ${this.fmt(r.outputs.min_chips_memory, 'count')} chips: pick more.`, '', 'middle')], controls: chipsControl, alt: why };
    }
    const k = this.step('layout', layouts.length);
    const L = layouts[k];
    // every degree the engine's layout search sets (their product is the number of chips); expert
    // parallelism only where the layout uses it (a dense model has none to leave unused)
    const axes = (['dp', 'fsdp', 'tp', 'pp', 'cp', 'ep'] as const).map((a) => ({ a, n: Number(L[a] ?? 1) })).filter((x) => x.a !== 'ep' || x.n > 1);
    const used = axes.filter((x) => x.n > 1);
    const logs = used.map((x) => Math.log2(x.n));
    const total = logs.reduce((p, q) => p + q, 0);
    const body: SVGTemplateResult[] = [];
    let x = 12;
    const names: Record<string, string> = { dp: 'data', fsdp: 'FSDP', tp: 'tensor', pp: 'pipeline', cp: 'context', ep: 'expert' };
    used.forEach((ax, i) => {
      const w = 376 * logs[i] / total;
      body.push(rect(x, 16, w - 3, 40, 'accent', ax.a));
      body.push(t(x + (w - 3) / 2, 33, names[ax.a], 'small on-accent', 'middle'));
      body.push(t(x + (w - 3) / 2, 48, `× ${this.fmt(ax.n, 'count')}`, 'bold on-accent', 'middle'));
      x += w;
    });
    const unused = axes.filter((a) => a.n === 1).map((a) => names[a.a]);
    body.push(t(12, 72, `widths: log of each degree${unused.length ? `; unused: ${unused.join(', ')}` : ''}`, 'small muted'));
    // one tensor-parallel group drawn chip by chip
    const tp = Number(L.tp);
    const cell = Math.min(32, 360 / tp);
    for (let i = 0; i < tp; i++) body.push(rect(12 + i * cell, 86, cell - 3, cell - 3, 'soft'));
    const f = (v: unknown, u: string) => this.fmt(v, u);
    const o = r.outputs;
    const yEnd = 86 + cell + 4;
    const name = this.engine!.chipName(String(chip)) || String(chip);
    return {
      title: `LLaMA-3 70B on ${f(o.chips, 'count')} ${name} chips: how the pod is split`,
      viewBox: [400, yEnd],
      readout: [`Below: one tensor-parallel group, ${tp} chips sharing each matmul over fast links.`, `Step ${f(L.step_s, 's')}, ${L.bound}-bound; ${f(L.bytes_per_chip, 'bytes')} per chip; the run takes ${f(o.days, 'count')} days.`],
      body,
      controls: html`${this.stepper('layout', layouts.length, (i) => `Layout ${i + 1} of the ${layouts.length} fastest`)} ${chipsControl}`,
      alt: `Layout ${k + 1} of the fastest ${layouts.length} the engine ranks for training LLaMA-3 70B on ${f(o.chips, 'count')} ${name} chips: ${axes.map((x) => `${names[x.a]} ${x.n}`).join(' × ')}. A step takes ${f(L.step_s, 's')} (${L.bound}-bound), each chip holds ${f(L.bytes_per_chip, 'bytes')}, and the 15T-token run takes ${f(o.days, 'count')} days.`,
    };
  }
}

customElements.define('sl-fig-transformer', TransformerFigure);
customElements.define('sl-fig-parallelism', ParallelismFigure);
customElements.define('sl-fig-training-pod', TrainingPodFigure);
customElements.define('sl-fig-pipeline-schedules', PipelineSchedulesFigure);
void svg;
