// Figures for chapters 11–12: the roofline regimes on one axis, and a GPU from the SM to the fat tree.
import { html, svg, type SVGTemplateResult } from 'lit';
import { FigureElement, t, rect, line, logX, textWidth, type Drawing } from './figure';

type Out = Record<string, unknown>;
const num = (o: Out, k: string) => o[k] as number;

// ---------------------------------------------------------------- ch 11: the regimes
const RUNGS = [
  { bw: 'hbm', name: 'HBM' }, { bw: 'ici', name: 'ICI (one link)' }, { bw: 'nvlink', name: 'NVLink' },
  { bw: 'ib', name: 'InfiniBand' }, { bw: 'dcn', name: 'DCN' },
];
export class RegimesFigure extends FigureElement {
  static override readonly calculators = ['roofline'];
  protected draw(): Drawing | null {
    // the critical intensity of each rung this chip has, from the engine's roofline
    const rungs = RUNGS.map((g) => {
      const r = this.evaluate('roofline', { chip: this.chip(), flops: 1e9, bytes: 1e6, bandwidth: g.bw }, true);
      return r ? { ...g, ic: num(r.outputs, 'critical_intensity') } : null;
    }).filter((g): g is { bw: string; name: string; ic: number } => g !== null).sort((a, b) => a.ic - b.ic);
    if (!rungs.length) { this.evaluate('roofline', { chip: this.chip(), flops: 1e9, bytes: 1e6 }); return null; }
    const lo = 10 ** Math.floor(Math.log10(rungs[0].ic / 10)), hi = 10 ** Math.ceil(Math.log10(rungs[rungs.length - 1].ic * 3));
    const values: number[] = []; for (let k = 0; k <= 8 * Math.log10(hi / lo); k++) values.push(Number((lo * 10 ** (k / 8)).toPrecision(2)));
    const I = this.inRange('I', 'intensity', lo, hi, values[Math.floor(values.length / 2)]);
    const X = (v: number) => logX(v, lo, hi, 20, 380);
    const f = (v: unknown, u: string) => this.fmt(v, u);
    const body: SVGTemplateResult[] = [];
    rungs.forEach((g, k) => {
      const y = 14 + k * 26;
      const ok = I >= g.ic;
      body.push(rect(20, y, X(g.ic) - 20, 18, 'warn'), rect(X(g.ic), y, 380 - X(g.ic), 18, 'ok'));
      const named = `${g.name}: bound by bytes`;
      body.push(t(24, y + 13, textWidth(named) <= X(g.ic) - 28 ? named : g.name, 'small rung-name'));
      // inside the compute-bound part of the bar: the most words that fit, at least the threshold
      const room = 376 - X(g.ic) - 4, at = f(g.ic, 'count');
      const words = [`compute-bound above ${at}`, `above ${at}`].find((w) => textWidth(w) <= room) ?? at;
      body.push(t(376, y + 13, words, `small ${ok ? 'bold' : ''} rung-threshold`, 'end'));
    });
    const yAxis = 14 + rungs.length * 26 + 6;
    body.push(line(20, yAxis, 380, yAxis));
    for (let v = lo; v <= hi; v *= 10) body.push(svg`${line(X(v), yAxis, X(v), yAxis + 4)}${t(X(v), yAxis + 15, f(v, 'count'), 'small muted', 'middle')}`);
    body.push(line(X(I), 8, X(I), yAxis, 'accent'));
    body.push(svg`<circle cx=${X(I)} cy=${yAxis} r="6" class="fig-dot operating-point"></circle>`);
    body.push(t(200, yAxis + 30, 'intensity, FLOPs per byte (log)', 'small muted', 'middle'));
    const above = rungs.filter((g) => I >= g.ic).map((g) => g.name), below = rungs.filter((g) => I < g.ic).map((g) => g.name);
    return {
      title: `Where the ${this.chipEntry().name} turns compute-bound, rung by rung`,
      viewBox: [400, yAxis + 38],
      readout: ['For a matmul with a small batch, the intensity is about the number of tokens per chip.'],
      body,
      controls: this.slider('I', 'Intensity', values, I, (v) => `${f(v, 'count')} FLOPs/byte`),
      alt: `Critical intensities of the ${this.chipEntry().name}: ${rungs.map((g) => `${g.name} ${f(g.ic, 'count')}`).join(', ')} FLOPs per byte. At ${f(I, 'count')} FLOPs per byte an operation is ${above.length ? `compute-bound against ${above.join(', ')}` : 'bound by bytes on every rung'}${below.length && above.length ? ` and bound by ${below.join(', ')}` : ''}.`,
    };
  }
}

// ---------------------------------------------------------------- ch 12: SM, NVLink node, fat tree
const LEVELS = ['one GPU and its SMs', 'an NVLink node', 'the InfiniBand fat tree'];
export class GpuFigure extends FigureElement {
  static override readonly calculators = ['chip'];
  /** the page's chip if it is a GPU, else the H100 the chapter uses */
  protected chip() {
    const c = super.chip();
    const entry = typeof c === 'string' ? this.engine!.chipIndex.find((x) => x.id === c) : c;
    return entry && (entry.kind === 'datacenter-gpu' || entry.kind === 'gpu') ? c : 'h100'; // NVLink-node GPUs ('gpu' is the old name)
  }
  protected chipEntry() {
    const c = this.chip();
    return typeof c === 'string' ? this.engine!.chipIndex.find((x) => x.id === c)! : super.chipEntry();
  }
  protected draw(): Drawing | null {
    const r = this.evaluate('chip', { chip: this.chip() });
    if (!r) return null;
    const o = r.outputs;
    const f = (v: unknown, u: string) => (v == null ? 'not in the catalog' : this.fmt(v, u));
    const k = this.step('level', LEVELS.length);
    const cls = (i: number) => (i === k ? 'soft' : 'none');
    const body: SVGTemplateResult[] = [];
    // level 0: the GPU
    body.push(rect(8, 8, 120, 150, cls(0), 'gpu'));
    body.push(t(68, 22, this.chipEntry().name, 'small bold', 'middle'));
    for (let i = 0; i < 4; i++) for (let j = 0; j < 3; j++) body.push(rect(16 + j * 36, 30 + i * 22, 32, 18, 'accent'));
    body.push(t(68, 43, 'SM', 'small on-accent', 'middle'));
    body.push(rect(16, 120, 104, 14, 'ok'), t(68, 131, 'L2', 'small', 'middle'));
    body.push(t(68, 150, `HBM ${f(o.hbm_bytes_per_s, 'bytes/s')}`, 'small', 'middle'));
    // level 1: the node
    const ng = Number(o.node_gpus ?? 8);
    body.push(rect(140, 8, 120, 150, cls(1), 'node'));
    body.push(t(200, 22, `node of ${f(o.node_gpus, 'count')} GPUs`, 'small bold', 'middle'));
    body.push(rect(170, 74, 60, 18, 'ok'), t(200, 87, 'NVSwitch', 'small', 'middle'));
    for (let i = 0; i < ng; i++) {
      const gx = 150 + (i % 4) * 26, gy = i < 4 ? 34 : 114;
      body.push(rect(gx, gy, 20, 16, 'accent'), line(gx + 10, gy < 74 ? gy + 16 : gy, 200, gy < 74 ? 74 : 92, 'accent'));
    }
    body.push(t(200, 146, `${f(o.nvlink_bytes_per_s, 'bytes/s')} per GPU`, 'small', 'middle'));
    // level 2: the fat tree
    const sp = (o.superpod ?? {}) as Record<string, number>;
    body.push(rect(272, 8, 120, 150, cls(2), 'tree'));
    body.push(t(332, 22, 'fat tree', 'small bold', 'middle'));
    for (let i = 0; i < 3; i++) body.push(rect(284 + i * 24, 30, 18, 12, 'ok'));
    for (let i = 0; i < 4; i++) { body.push(rect(280 + i * 19, 70, 15, 12, 'ok')); for (let j = 0; j < 3; j++) body.push(line(287 + i * 19, 70, 293 + j * 24, 42)); }
    for (let i = 0; i < 8; i++) { body.push(rect(278 + i * 9.5, 108, 7, 14, 'accent')); body.push(line(281.5 + i * 9.5, 108, 287 + Math.floor(i / 2) * 19, 82)); }
    body.push(t(388, 40, 'spine', 'small muted', 'end'), t(388, 80, 'leaf', 'small muted', 'end'), t(388, 119, 'nodes', 'small muted', 'end'));
    body.push(t(332, 150, `${f(o.node_ib_bytes_per_s, 'bytes/s')} per node`, 'small', 'middle'));
    const sentences = [
      `One ${this.chipEntry().name}: its SMs (each with ${f(o.smem_bytes_per_sm, 'bytes')} of shared memory) share an L2 of ${f(o.l2_bytes, 'bytes')} and read HBM at ${f(o.hbm_bytes_per_s, 'bytes/s')}.`,
      `A node of ${f(o.node_gpus, 'count')} GPUs joined through NVSwitches: each GPU sends ${f(o.nvlink_bytes_per_s, 'bytes/s')} over NVLink, ${f(o.node_nvlink_bytes_per_s, 'bytes/s')} for the node.`,
      `Beyond the node, InfiniBand: ${f(o.ib_bytes_per_s, 'bytes/s')} per GPU, ${f(o.node_ib_bytes_per_s, 'bytes/s')} per node, through leaf and spine switches${sp.gpus ? ` (the reference SuperPod: ${f(sp.gpus, 'count')} GPUs in ${f(sp.nodes, 'count')} nodes, ${f(sp.leaf_switches, 'count')} leaf and ${f(sp.spine_switches, 'count')} spine switches)` : ''}.`,
    ];
    return {
      title: `The ${this.chipEntry().name} from the inside out`,
      viewBox: [400, 166],
      body,
      controls: this.stepper('level', LEVELS.length, (i) => `Level ${i + 1}: ${LEVELS[i]}`),
      alt: `Level ${k + 1} of 3, ${LEVELS[k]}. ${sentences[k]}`,
    };
  }
}

// ---------------------------------------------------------------- ch 12: one SM, one NVLink node
// What the chip catalog lacks of an SM's or a node's layout (subpartitions, lanes, Tensor Cores,
// registers; switches and their ports) the placement gives as chip_overrides (the book's H100
// figures, as the chapter's text does), and the engine's chip calculator turns it into the numbers
// the drawing and its text carry. Both step through levels, each with its own sentence.
abstract class ChipPartFigure extends FigureElement {
  static override readonly calculators = ['chip'];
  /** the chip calculator's outputs for the placement's chip (the H100 by default) and overrides */
  protected partOutputs(): Out | null {
    const chip = typeof this.state.chip === 'string' ? this.state.chip : 'h100';
    const r = this.evaluate('chip', { chip, chip_overrides: (this.state.chip_overrides ?? {}) as Record<string, unknown> });
    return r ? r.outputs : null;
  }
  protected f(v: unknown, u: string) { return v == null ? 'not in the catalog' : this.fmt(v, u); }
  /** the drawing at level k of `levels`, its text the level's sentence */
  protected atLevel(title: string, viewBox: [number, number], body: SVGTemplateResult[], levels: string[], k: number, sentence: string): Drawing {
    return {
      title, viewBox, body,
      controls: this.stepper('level', levels.length, (i) => `Level ${i + 1}: ${levels[i]}`),
      alt: `Level ${k + 1} of ${levels.length}, ${levels[k]}. ${sentence}`,
    };
  }
}

const SM_LEVELS = ['one subpartition', 'the whole SM'];
export class SmFigure extends ChipPartFigure {
  protected draw(): Drawing | null {
    const o = this.partOutputs();
    if (!o) return null;
    const f = (v: unknown, u: string) => this.f(v, u);
    const name = String(o.name);
    const parts = Number(o.subpartitions_per_sm ?? 4);
    const k = this.step('level', SM_LEVELS.length);
    const body: SVGTemplateResult[] = [];
    // On a phone four subpartitions side by side leave labels of about 7 px: there they go two by
    // two in a narrower drawing, which the page scales up (issue 33, shots33 at 375 px).
    const narrow = typeof window !== 'undefined' && window.matchMedia?.('(max-width: 600px)').matches;
    const VW = narrow ? 240 : 400, cols = narrow ? Math.min(2, parts) : parts, rows = Math.ceil(parts / cols);
    const w = (VW - 20) / cols, ph = 128, gap = 6;
    const smemY = 30 + rows * (ph + gap) - gap + 8;
    body.push(rect(6, 6, VW - 12, smemY + 42, 'none', 'sm'));
    body.push(t(VW / 2, 22, `one SM of the ${name} (${f(o.sms, 'count')} in all)`, 'small bold', 'middle'));
    for (let i = 0; i < parts; i++) {
      const x = 10 + (i % cols) * w, y = 30 + Math.floor(i / cols) * (ph + gap), on = k === 1 || i === 0;
      body.push(rect(x, y, w - 6, ph, on ? 'soft' : 'none', 'subpartition'));
      body.push(t(x + (w - 6) / 2, y + 14, 'scheduler', 'small muted', 'middle'));
      body.push(rect(x + 4, y + 20, w - 14, 22, 'ok'), t(x + (w - 6) / 2, y + 35, 'registers', 'small', 'middle'));
      // the CUDA cores: a strip of lanes
      const lanes = Number(o.fp32_cores_per_subpartition ?? 32), lw = (w - 14) / lanes;
      for (let j = 0; j < lanes; j++) body.push(rect(x + 4 + j * lw, y + 48, Math.max(0.6, lw - 0.6), 22, 'warn'));
      body.push(t(x + (w - 6) / 2, y + 83, 'CUDA cores', 'small', 'middle'));
      body.push(rect(x + 4, y + 90, w - 14, 30, 'accent', 'tensor-core'), t(x + (w - 6) / 2, y + 109, 'Tensor Core', 'small on-accent', 'middle'));
    }
    body.push(rect(10, smemY, VW - 26, 22, 'ok', 'smem'), t(VW / 2 - 3, smemY + 15, `L1 and shared memory, ${f(o.smem_bytes_per_sm, 'bytes')}`, 'small', 'middle'));
    body.push(t(VW / 2, smemY + 40, 'to L2 and HBM, shared by every SM', 'small muted', 'middle'));
    const sentences = [
      `One of the ${f(o.subpartitions_per_sm, 'count')} subpartitions of an SM of the ${name}: a warp scheduler drives ${f(o.fp32_cores_per_subpartition, 'count')} fp32 lanes (CUDA cores) and one Tensor Core, which does about ${f(o.tensor_core_flops_per_cycle, 'count')} bf16 FLOPs a cycle, beside a register file of ${f(o.registers_per_subpartition, 'count')} 32-bit words.`,
      `The whole SM: ${f(o.subpartitions_per_sm, 'count')} subpartitions, ${f(o.tensor_cores_per_sm, 'count')} Tensor Cores and ${f(Number(o.subpartitions_per_sm) * Number(o.fp32_cores_per_subpartition), 'count')} fp32 lanes, sharing ${f(o.smem_bytes_per_sm, 'bytes')} of L1 and shared memory; at the bf16 peak one SM does ${f(o.flops_per_s_per_sm, 'FLOP/s')}, and the ${f(o.sms, 'count')} SMs share the L2 and HBM.`,
    ];
    return this.atLevel(`Inside one SM of the ${name}`, [VW, smemY + 52], body, SM_LEVELS, k, sentences[k]);
  }
}

const NODE_LEVELS = ['what each GPU can send', 'what the switches could carry'];
export class NvlinkNodeFigure extends ChipPartFigure {
  protected draw(): Drawing | null {
    const o = this.partOutputs();
    if (!o) return null;
    const f = (v: unknown, u: string) => this.f(v, u);
    const name = String(o.name);
    const gpus = Math.min(16, Number(o.node_gpus ?? 8)), switches = Math.min(8, Number(o.nvswitches_per_node ?? 4));
    const k = this.step('level', NODE_LEVELS.length);
    const body: SVGTemplateResult[] = [];
    body.push(rect(6, 6, 388, 196, 'none', 'node'));
    body.push(t(200, 22, `a node of ${f(o.node_gpus, 'count')} ${name} GPUs`, 'small bold', 'middle'));
    const gx = (i: number) => 14 + (i % (gpus / 2)) * (372 / (gpus / 2)), gw = 372 / (gpus / 2) - 8;
    const sx = (j: number) => 40 + j * (320 / switches), sw = 320 / switches - 16;
    for (let j = 0; j < switches; j++) body.push(rect(sx(j), 92, sw, 26, k === 1 ? 'accent' : 'ok', 'nvswitch'), t(sx(j) + sw / 2, 109, 'NVSwitch', `small ${k === 1 ? 'on-accent' : ''}`, 'middle'));
    for (let i = 0; i < gpus; i++) {
      const top = i < gpus / 2, y = top ? 32 : 158;
      body.push(rect(gx(i), y, gw, 22, k === 0 ? 'accent' : 'soft', 'gpu'), t(gx(i) + gw / 2, y + 15, 'GPU', `small ${k === 0 ? 'on-accent' : ''}`, 'middle'));
      for (let j = 0; j < switches; j++) body.push(line(gx(i) + gw / 2, top ? y + 22 : y, sx(j) + sw / 2, top ? 92 : 118, k === 0 ? 'accent' : ''));
    }
    body.push(t(200, 196, k === 0 ? `${f(o.nvlink_bytes_per_s, 'bytes/s')} out of each GPU, ${f(o.node_nvlink_bytes_per_s, 'bytes/s')} in all` : `${f(o.node_switch_bytes_per_s, 'bytes/s')} of switch ports`, 'small', 'middle'));
    const sentences = [
      `A node of ${f(o.node_gpus, 'count')} ${name} GPUs, each one hop from every other through ${f(o.nvswitches_per_node, 'count')} NVSwitches. Each GPU sends ${f(o.nvlink_bytes_per_s, 'bytes/s')} over its NVLinks, so the node's GPUs together inject ${f(o.node_nvlink_bytes_per_s, 'bytes/s')}.`,
      `The ${f(o.nvswitches_per_node, 'count')} NVSwitches have ${f(o.nvswitch_ports, 'count')} ports each, ${f(o.node_switch_bytes_per_s, 'bytes/s')} in all, more than the ${f(o.node_nvlink_bytes_per_s, 'bytes/s')} the GPUs can inject: the GPUs' links, not the switches, set the node's bandwidth.`,
    ];
    return this.atLevel(`The NVLink node of the ${name}`, [400, 206], body, NODE_LEVELS, k, sentences[k]);
  }
}

customElements.define('sl-fig-regimes', RegimesFigure);
customElements.define('sl-fig-gpu', GpuFigure);
customElements.define('sl-fig-sm', SmFigure);
customElements.define('sl-fig-nvlink-node', NvlinkNodeFigure);
void html;
