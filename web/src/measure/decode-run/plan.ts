// What one measured decode step runs: the weight matmuls of a catalog model, in the order a step
// runs them, as many of them as the run's weight budget holds, and the factor that scales the
// measured time to the whole model. Pure: the Worker (both backends) and the page share it.
//
// Per layer, as serving engines store a layer's weights (fused where they share an input):
//   qkv      [Nq + 2·Nkv, D]  reads h      writes qkv
//   o        [D, Nq]          reads qkv (its first Nq columns: attention's output stands in)  writes h
//   gate_up  [2F, D]          reads h      writes mlp        (a non-gated MLP: up [F, D])
//   down     [D, F]           reads mlp (its first F columns: SiLU·product stands in)  writes h
// then the unembedding [V, D], reading h, writing logits. Each weight is [N, K] ("out × in"): one
// output's K weights are contiguous. Attention over a KV cache, norms and the embedding lookup are
// left out (the engine is asked for context 0 and for these matmuls' parameters alone).

/** the dims of a dense catalog model that the run needs */
export interface ModelShape {
  id: string; name: string;
  L: number; D: number; F: number; N: number; K: number; H: number; V: number; gated: boolean;
}
export type Activation = 'h' | 'qkv' | 'mlp' | 'logits';
export type OpKind = 'qkv' | 'o' | 'gate_up' | 'up' | 'down' | 'head';

/** one matmul of the run: y[b, y0 + n] = scale · Σ_k x[b, k] · w[n, k] */
export interface Op {
  kind: OpKind;
  /** the layer (0-based), or null for the unembedding */
  layer: number | null;
  /** inner width (columns of x read, weights per output) */
  K: number;
  /** outputs of the whole matrix, and how many of them the run computes (its first rows) */
  N: number;
  rows: number;
  x: Activation; ldx: number;
  y: Activation; ldy: number;
  /** the weights' value stream (values.js) */
  seed: number;
  /** a power of two near 1/√(K/3): keeps the activations' spread from layer to layer */
  scale: number;
}
/** A block of an op's weight rows held in one buffer (a GPU binding has a size limit). */
export interface Chunk { op: number; row0: number; rows: number; bytes: number }

export interface Plan {
  model: ModelShape;
  /** bytes per stored weight and activation: 2 (float16) or 4 (float32) */
  elemBytes: number;
  ops: Op[];
  chunks: Chunk[];
  layersRun: number;
  /** share of each layer matmul's outputs the run computes (1: whole matrices) */
  columnShare: number;
  /** the unembedding's outputs the run computes */
  headRows: number;
  /** matmul parameters of the whole model and of the run */
  modelParams: number;
  runParams: number;
  /** measured step × scaleUp = the whole model's step (modelParams / runParams) */
  scaleUp: number;
  weightBytes: number;
  /** elements per sequence in each activation buffer */
  widths: Record<Activation, number>;
  /** the largest batch the activation buffers are made for */
  maxBatch: number;
}

export interface Budget {
  /** bytes of weights the run may hold in all */
  weightBytes: number;
  /** bytes one buffer may hold (weights chunk or activations at maxBatch) */
  bufferBytes: number;
  /** the largest batch wanted (the activations' size is capped by bufferBytes too) */
  maxBatch: number;
}

const ALIGN = 16; // rows and widths: whole 16-wide tiles, 4-wide vectors

/** Why this model cannot be run, or null: a dense transformer whose widths are whole tiles. */
export function refusal(m: Partial<ModelShape> & { E?: number; kv_lora_rank?: number | null }): string | null {
  if ((m.E ?? 1) > 1) return 'a mixture of experts: which experts a step reads depends on its tokens, so its step is not a fixed set of matmuls';
  if (m.kv_lora_rank) return 'latent attention (MLA): its projections are not the Q, K, V and O this run multiplies';
  for (const k of ['L', 'D', 'F', 'N', 'K', 'H', 'V'] as const) {
    if (!(Number.isInteger(m[k]) && (m[k] as number) > 0)) return `its ${k} is not a positive whole number`;
  }
  const widths = { D: m.D!, F: m.F!, 'N·H': m.N! * m.H!, 'K·H': m.K! * m.H! };
  for (const [k, v] of Object.entries(widths)) if (v % ALIGN) return `its ${k} (${v}) is not a multiple of ${ALIGN}`;
  return null;
}

const roundUp = (x: number, a: number) => Math.ceil(x / a) * a;

/** Matmul parameters of one layer and of the unembedding. */
export function layerParams(m: ModelShape): number {
  const nq = m.N * m.H, nkv = m.K * m.H;
  return m.D * (nq + 2 * nkv) + nq * m.D + (m.gated ? 3 : 2) * m.D * m.F;
}
export const headParams = (m: ModelShape) => m.V * m.D;
export const modelParams = (m: ModelShape) => m.L * layerParams(m) + headParams(m);

/** The op list for `layersRun` layers at `columnShare` of each matrix's outputs, and headRows of
 *  the unembedding's. */
function opsOf(m: ModelShape, layersRun: number, columnShare: number, headRows: number, runSeed: number): Op[] {
  const nq = m.N * m.H, nkv = m.K * m.H, mlpN = (m.gated ? 2 : 1) * m.F;
  const rowsOf = (n: number) => Math.min(n, Math.max(ALIGN, roundUp(n * columnShare, ALIGN)));
  const scaleOf = (k: number) => 2 ** -Math.round(Math.log2(Math.sqrt(k / 3)));
  const ops: Op[] = [];
  const add = (kind: OpKind, layer: number | null, K: number, N: number, x: Activation, ldx: number, y: Activation, ldy: number, rows: number) =>
    ops.push({ kind, layer, K, N, rows, x, ldx, y, ldy, seed: 0, scale: scaleOf(K) });
  for (let l = 0; l < layersRun; l++) {
    add('qkv', l, m.D, nq + 2 * nkv, 'h', m.D, 'qkv', nq + 2 * nkv, rowsOf(nq + 2 * nkv));
    add('o', l, nq, m.D, 'qkv', nq + 2 * nkv, 'h', m.D, rowsOf(m.D));
    add(m.gated ? 'gate_up' : 'up', l, m.D, mlpN, 'h', m.D, 'mlp', mlpN, rowsOf(mlpN));
    add('down', l, m.F, m.D, 'mlp', mlpN, 'h', m.D, rowsOf(m.D));
  }
  add('head', null, m.D, m.V, 'h', m.D, 'logits', 0, headRows);
  ops.forEach((op, i) => { op.seed = (runSeed ^ Math.imul(i + 1, 0x27d4eb2d)) >>> 0; });
  return ops;
}

/**
 * The run for a model, a precision and a budget: all of the model if its weights fit, else the
 * same share of every part of it (whole layers and that share of the unembedding's outputs; below
 * one layer, one layer's matrices on a share of their outputs), so that the run's mix of shapes is
 * the model's. The unembedding's outputs are split into chunks that fit a buffer; they are written
 * one after another over the same logits columns.
 */
export function makePlan(m: ModelShape, elemBytes: number, budget: Budget, runSeed = 0x5ca1ab1e): Plan {
  const why = refusal(m);
  if (why) throw new Error(`${m.name} cannot be run: ${why}`);
  const total = modelParams(m);
  const share = Math.min(1, budget.weightBytes / (total * elemBytes));
  let layersRun = m.L, columnShare = 1, headRows = m.V;
  if (share < 1) {
    layersRun = Math.max(1, Math.floor(share * m.L));
    columnShare = Math.min(1, (share * m.L) / layersRun);
    headRows = Math.min(m.V, Math.max(ALIGN, roundUp((m.V * share), ALIGN)));
  }
  const ops = opsOf(m, layersRun, columnShare, headRows, runSeed);
  // chunks: whole ops where they fit a buffer, else blocks of whole 16-row tiles
  const chunks: Chunk[] = [];
  ops.forEach((op, i) => {
    const rowBytes = op.K * elemBytes;
    const maxRows = Math.floor(budget.bufferBytes / rowBytes / ALIGN) * ALIGN;
    if (maxRows < ALIGN) throw new Error(`one tile of ${op.kind}'s weights (${ALIGN} × ${op.K}) is larger than a buffer may be here`);
    for (let r = 0; r < op.rows; r += maxRows) {
      const rows = Math.min(maxRows, op.rows - r);
      chunks.push({ op: i, row0: r, rows, bytes: rows * rowBytes });
    }
  });
  const head = ops[ops.length - 1];
  const headChunk = Math.max(...chunks.filter((c) => c.op === ops.length - 1).map((c) => c.rows));
  head.ldy = headChunk;
  const widths: Record<Activation, number> = {
    h: m.D, qkv: (m.N + 2 * m.K) * m.H, mlp: (m.gated ? 2 : 1) * m.F, logits: headChunk,
  };
  const widest = Math.max(...Object.values(widths));
  const maxBatch = Math.max(1, Math.min(budget.maxBatch, Math.floor(budget.bufferBytes / (widest * elemBytes))));
  const runParams = ops.reduce((s, op) => s + op.rows * op.K, 0);
  return {
    model: m, elemBytes, ops, chunks, layersRun, columnShare, headRows, modelParams: total, runParams,
    scaleUp: total / runParams, weightBytes: runParams * elemBytes, widths, maxBatch,
  };
}

/** Batches from 1 to `last`, two a doubling (1, 2, 3, 4, 6, 8, 11, 16, 23, 32, …), `last` included. */
export function batchesTo(last: number): number[] {
  const out: number[] = [];
  for (let e = 0; ; e += 0.5) {
    const b = Math.round(2 ** e);
    if (b >= last) break;
    if (b !== out[out.length - 1]) out.push(b);
  }
  out.push(last);
  return out;
}

/** FLOPs of one run step at batch B (2 per weight per sequence). */
export const runFlops = (p: Plan, batch: number) => 2 * p.runParams * batch;
