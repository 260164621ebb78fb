// Figures for chapters 1–3: the roofline, a systolic array, the pod torus, a ring AllGather.
import { html, svg, nothing, type SVGTemplateResult } from 'lit';
import { FigureElement, t, rect, line, pow2, logX, textWidth, type Drawing } from './figure';

type Out = Record<string, unknown>;
const num = (o: Out, k: string) => o[k] as number;

// ---------------------------------------------------------------- ch 1: the roofline
export class RooflineFigure extends FigureElement {
  static override readonly calculators = ['chip', 'roofline'];
  private readonly W = 400; private readonly H = 250;
  // room left of the plot for the FLOP/s labels and the dot at its edge, right of it for half of "100,000"
  private readonly box = { x0: 92, x1: 370, y0: 18, y1: 208 }; // x0: room for "820 GFLOP/s" at a phone's text size
  private domain(ic: number): [number, number] {
    return [10 ** Math.floor(Math.log10(ic / 100)), 10 ** Math.ceil(Math.log10(ic * 100))];
  }
  /** attainable FLOP/s at an intensity, from the engine's roofline (raw flops/bytes form) */
  private attainable(i: number): { y: number; bound: string } | null {
    const bytes = 1e9;
    const r = this.evaluate('roofline', { chip: this.chip(), flops: i * bytes, bytes });
    return r ? { y: num(r.outputs, 'flops') / num(r.outputs, 't_lower_s'), bound: String(r.outputs.bound) } : null;
  }
  /** drag (or click) on the plot moves the operating point to that intensity */
  private dragTo(e: PointerEvent, svgEl: Element) {
    const rc = svgEl.getBoundingClientRect();
    const x = (e.clientX - rc.left) / rc.width * this.W;
    const chip = this.evaluate('chip', { chip: this.chip() });
    if (!chip) return;
    const [lo, hi] = this.domain(num(chip.outputs, 'critical_intensity'));
    const f = Math.min(1, Math.max(0, (x - this.box.x0) / (this.box.x1 - this.box.x0)));
    this.set('I', Number((10 ** (Math.log10(lo) + f * (Math.log10(hi) - Math.log10(lo)))).toPrecision(3)));
  }
  /** The point's value under the roof, clear of the line: beside the dot on the slope, below it on
   *  the flat part (to its right where it fits, else to its left). Where "value (bound)" does not fit,
   *  the value alone. */
  private pointLabel(value: string, bound: string, x: number, y: number) {
    const full = `${value} (${bound})`;
    const { x0, x1 } = this.box;
    const toRight = (s: string, from: number) => from + textWidth(s) <= x1;
    const toLeft = (s: string, from: number) => from - textWidth(s) >= x0;
    if (bound !== 'compute') return t(x + 12, y + 8, toRight(full, x + 12) ? full : value, 'small bold point-label');
    const s = toRight(full, x + 9) || toLeft(full, x - 9) ? full : value;
    const right = toRight(s, x + 9);
    return t(right ? x + 9 : x - 9, y + 18, s, 'small bold point-label', right ? 'start' : 'end');
  }
  protected firstUpdated() {
    const handler = (e: PointerEvent) => {
      const s = (e.target as Element).closest?.('svg.fig-svg');
      if (!s || (e.type === 'pointermove' && !(e.buttons & 1))) return;
      e.preventDefault();
      this.dragTo(e, s);
    };
    this.addEventListener('pointerdown', handler);
    this.addEventListener('pointermove', handler);
  }
  protected draw(): Drawing | null {
    const chip = this.evaluate('chip', { chip: this.chip() });
    if (!chip) return null;
    const o = chip.outputs;
    const ic = num(o, 'critical_intensity');
    const [lo, hi] = this.domain(ic);
    const values: number[] = []; for (let k = 0; k <= 8 * Math.log10(hi / lo); k++) values.push(Number((lo * 10 ** (k / 8)).toPrecision(2)));
    // the point starts on a slider position, a quarter of the ridge or the nearest below it
    const start = [...values].reverse().find((v) => v <= ic / 4) ?? values[0];
    const I = this.inRange('I', 'intensity', lo, hi, start);
    const roof = [lo, ic, hi].map((x) => ({ x, a: this.attainable(x) }));
    const pt = this.attainable(I);
    if (!pt || roof.some((p) => !p.a)) return null;
    const peak = roof[2].a!.y;
    const yLo = roof[0].a!.y / 4, yHi = peak * 3; // room below the lowest point for its label
    const { x0, x1, y0, y1 } = this.box;
    const X = (v: number) => logX(v, lo, hi, x0, x1);
    const Y = (v: number) => y1 - (logX(v, yLo, yHi, 0, y1 - y0));
    const decades: number[] = []; for (let v = lo; v <= hi; v *= 10) decades.push(v);
    const f = (v: number, u: string) => this.fmt(v, u);
    const pts = roof.map((p) => `${X(p.x)},${Y(p.a!.y)}`).join(' ');
    const body: SVGTemplateResult[] = [
      rect(x0, y0, x1 - x0, y1 - y0, 'none'),
      svg`<polygon points="${pts} ${X(hi)},${y1} ${X(lo)},${y1}" fill="var(--roof-fill)"></polygon>`,
      svg`<polyline points=${pts} class="fig-line roof"></polyline>`,
      ...decades.map((d) => svg`${line(X(d), y1, X(d), y1 + 4)}${t(X(d), y1 + 15, f(d, d >= 1000 ? 'count' : ''), 'small muted', 'middle')}`),
      t((x0 + x1) / 2, y1 + 32, 'arithmetic intensity (FLOPs per byte), log scale', 'small muted', 'middle'),
      t(x0 - 9, Y(peak) + 3, f(peak, 'FLOP/s'), 'small muted', 'end'),
      t(x0 - 9, Y(roof[0].a!.y) + 3, f(roof[0].a!.y, 'FLOP/s'), 'small muted', 'end'),
      line(X(ic), y0, X(ic), y1, 'dash'),
      // the region labels keep out of the area under the roof, where the point's label goes
      t(X(ic) + 4, y1 - 5, `ridge: ${f(ic, '')} FLOPs/byte`, 'small'),
      t(x0 + 6, y0 + 12, 'memory-bound: slope 1', 'small muted'),
      t(x1 - 6, Y(peak) - 6, 'compute-bound: flat at peak', 'small muted', 'end'),
      line(X(I), Y(pt.y), X(I), y1, 'accent dash'),
      svg`<circle cx=${X(I)} cy=${Y(pt.y)} r="7" class="fig-dot ${pt.bound === 'compute' ? 'ok' : 'warn'} operating-point"></circle>`,
      this.pointLabel(f(pt.y, 'FLOP/s'), pt.bound, X(I), Y(pt.y)),
    ];
    return {
      title: `The roofline of the ${this.chipEntry().name}`,
      viewBox: [this.W, this.H + 4],
      body,
      controls: this.slider('I', 'Operating point: intensity', values, I, (v) => `${f(v, '')} FLOPs/byte`),
      alt: `Roofline of the ${this.chipEntry().name}: attainable FLOP/s rise with intensity until the ridge at ${f(ic, '')} FLOPs per byte, then stay at the peak of ${f(peak, 'FLOP/s')}. The operating point at ${f(I, '')} FLOPs per byte reaches ${f(pt.y, 'FLOP/s')}: ${pt.bound}-bound.`,
    };
  }
}

// ---------------------------------------------------------------- ch 2: a systolic array
export class SystolicFigure extends FigureElement {
  static override readonly calculators = ['chip'];
  private readonly n = 4; // the corner of the array drawn: the real array is far larger
  protected draw(): Drawing | null {
    const chip = this.evaluate('chip', { chip: this.chip() });
    if (!chip) return null;
    const n = this.n, cycles = 3 * n - 2;
    const c = this.step('cycle', cycles + 1);
    const cell = 48, ox = 130, oy = 14;
    const body: SVGTemplateResult[] = [];
    let busy = 0;
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
      const k = c - 1 - i - j; // the input row reaching cell (i, j) at this cycle
      const on = c > 0 && k >= 0 && k < n;
      if (on) busy++;
      body.push(rect(ox + j * cell, oy + i * cell, cell - 4, cell - 4, on ? 'accent' : 'soft', on ? 'busy' : ''));
      body.push(t(ox + j * cell + (cell - 4) / 2, oy + i * cell + 16, `w${i}${j}`, `small ${on ? 'on-accent' : 'muted'}`, 'middle'));
      if (on) body.push(t(ox + j * cell + (cell - 4) / 2, oy + i * cell + 31, `x${k}`, 'on-accent bold', 'middle'));
    }
    // inputs waiting on the left, partial sums leaving at the bottom
    for (let i = 0; i < n; i++) {
      const waiting = Array.from({ length: n }, (_, k) => k).filter((k) => k + i >= c);
      body.push(t(ox - 8, oy + i * cell + 24, waiting.map((k) => `x${k}`).reverse().join(' '), 'small', 'end'));
    }
    const done = Math.max(0, Math.min(n, c - (2 * n - 2)));
    
    const o = chip.outputs;
    const flops = (o.flops_per_s as Record<string, number | null>).bf16;
    const clock = o.clock_hz as number | null;
    const rate = `The ${this.chipEntry().name} does ${this.fmt(flops, 'FLOP/s')} in bf16${clock ? ` at ${this.fmt(clock, 'Hz')}` : ''}, because its arrays keep every cell this busy on every cycle.`;
    return {
      title: 'A systolic array, one cycle at a time',
      viewBox: [400, oy + n * cell],
      readout: ['Weights stay put; inputs flow right and partial sums flow down.', `Results finished: ${done} of ${n} rows.`],
      body,
      controls: this.stepper('cycle', cycles + 1, (k) => (k === 0 ? 'Before the first cycle' : `Cycle ${k} of ${cycles}`)),
      alt: `A ${n}×${n} corner of a systolic array at ${c === 0 ? 'the start' : `cycle ${c} of ${cycles}`}: ${busy} of ${n * n} cells multiply an input by their stored weight and pass the sum on; ${done} of ${n} output rows are finished. ${rate}`,
    };
  }
}

// ---------------------------------------------------------------- ch 2: the pod torus
export class TorusFigure extends FigureElement {
  static override readonly calculators = ['chip', 'collective'];
  protected draw(): Drawing | null {
    const chip = this.evaluate('chip', { chip: this.chip() });
    if (!chip) return null;
    const name = this.chipEntry().name;
    const pod = chip.outputs.pod_shape as number[] | null;
    if (!pod || !chip.outputs.ici_link_bytes_per_s) {
      return {
        title: `The ${name} has no ICI torus`, viewBox: [400, 60],
        // a datacenter GPU's node shares NVLink switches; a card, a Mac or a CPU has no link the catalog gives
        ...(typeof chip.outputs.node_gpus === 'number' && chip.outputs.node_gpus > 1
          ? { body: [t(200, 34, 'GPUs connect through NVLink switches instead: see chapter 12.', '', 'middle')],
            alt: `The ${name} is not joined into an ICI torus; its node of ${this.fmt(chip.outputs.node_gpus, 'count')} GPUs shares NVLink switches (chapter 12).` }
          : { body: [t(200, 34, 'No link to another device in the catalog: see chapter 12.', '', 'middle')],
            alt: `The ${name} is not joined into an ICI torus, and the catalog gives it no link of its own to another device: several cards in one machine talk through the host over PCIe (chapter 12 shows how GPU clusters are wired).` }),
      };
    }
    const dims = pod.length;
    const sizes = pod.map((p, a) => {
      const opts = [...new Set([...pow2(2, p), p])].sort((x, y) => x - y);
      const want = Number(this.state[`a${a}`] ?? (dims === 2 ? p : 4));
      return { opts, v: opts.includes(want) ? want : opts[opts.length - 1] };
    });
    const wrap = this.state.wrap !== false && this.state.wrap !== 'no';
    const [nx, ny] = [sizes[0].v, sizes[1].v];
    const gap = Math.min(26, 330 / Math.max(nx, ny));
    const ox = 20 + (360 - gap * (nx - 1)) / 2, oy = 30;
    const body: SVGTemplateResult[] = [];
    const layers = dims > 2 ? Math.min(3, sizes[2].v) - 1 : 0;
    for (let l = layers; l >= 1; l--) body.push(rect(ox - 6 + l * 8, oy - 6 - l * 8, gap * (nx - 1) + 12, gap * (ny - 1) + 12, 'none'));
    for (let y = 0; y < ny; y++) body.push(line(ox, oy + y * gap, ox + (nx - 1) * gap, oy + y * gap));
    for (let x = 0; x < nx; x++) body.push(line(ox + x * gap, oy, ox + x * gap, oy + (ny - 1) * gap));
    if (wrap) {
      // a wraparound link joins the two ends of a row or column: drawn as a stub leaving each end
      const stub = Math.max(10, gap * 0.85);
      for (let y = 0; y < ny; y++) body.push(line(ox - stub, oy + y * gap, ox, oy + y * gap, 'wrap'), line(ox + (nx - 1) * gap, oy + y * gap, ox + (nx - 1) * gap + stub, oy + y * gap, 'wrap'));
      for (let x = 0; x < nx; x++) body.push(line(ox + x * gap, oy - stub, ox + x * gap, oy, 'wrap'), line(ox + x * gap, oy + (ny - 1) * gap, ox + x * gap, oy + (ny - 1) * gap + stub, 'wrap'));
    }
    const r = Math.max(2.5, Math.min(6, gap / 3.2));
    for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) body.push(svg`<circle cx=${ox + x * gap} cy=${oy + y * gap} r=${r} class="fig-dot"></circle>`);
    const yEnd = oy + (ny - 1) * gap + 30;
    const gb = 2 ** 30;
    const ag = (w: boolean) => this.evaluate('collective', { chip: this.chip(), op: 'all_gather', bytes: gb, axes: [nx], wraparound: w });
    const withW = ag(true), without = ag(false);
    if (!withW || !without) return null;
    const tw = this.fmt(withW.outputs.t_s, 's'), tn = this.fmt(without.outputs.t_s, 's');
    const slice = sizes.map((s) => s.v).join('×');
    const axisNames = ['X', 'Y', 'Z'];
    return {
      title: `The ${name} pod: chips on a ${dims}D grid of ICI links`,
      viewBox: [400, yEnd - 6],
      readout: [`Slice ${slice} of the pod’s ${pod.join('×')}${dims > 2 ? ` (the ${sizes[2].v} layers along Z sit behind this face)` : ''}.`,
        `AllGather of 1 GiB along X: ${tw} with wraparound, ${tn} without.`,
        ...(wrap ? ['Dashed stubs: the wraparound link from each end of a row or column to its far end.'] : [])],
      body,
      controls: html`${sizes.map((s, a) => this.choice(`a${a}`, `${axisNames[a]} chips`, s.opts.map((v) => ({ value: v, text: String(v) })), s.v))}
        ${this.choice('wrap', 'Wraparound links', [{ value: 'yes', text: 'with wraparound' }, { value: 'no', text: 'without' }], wrap ? 'yes' : 'no')}`,
      alt: `A ${slice} slice of the ${name} pod (${pod.join('×')} chips in all), each chip linked to its neighbours at ${this.fmt(chip.outputs.ici_link_bytes_per_s, 'bytes/s')} per link one way, ${wrap ? 'with' : 'without'} wraparound links closing each axis into a ring. An AllGather of 1 GiB along X takes ${tw} with wraparound and ${tn} without.`,
    };
  }
}

// ---------------------------------------------------------------- ch 3: a ring AllGather on every axis
export class RingFigure extends FigureElement {
  static override readonly calculators = ['collective'];
  /** The hops of a torus: on a chip that has none (a GPU, a Mac, a CPU) the drawing is a TPU v5p's, said so. */
  private stand = '';
  protected override chip(): string | Record<string, unknown> {
    const c = super.chip();
    if (typeof this.state.chip === 'string' || !this.engine) return c;
    const kind = typeof c === 'string' ? this.engine.chipIndex.find((x) => x.id === c)?.kind : (c as { kind?: string }).kind;
    const name = typeof c === 'string' ? this.engine.chipName(c) : String((c as { name?: string }).name ?? 'this chip');
    this.stand = kind === 'tpu' ? '' : `The ${name} has no ICI torus, so the hops drawn are a TPU v5p's.`;
    return kind === 'tpu' ? c : 'tpu-v5p';
  }
  protected draw(): Drawing | null {
    const nx = this.pick('X', 'X chips', [2, 4, 8], 4), ny = this.pick('Y', 'Y chips', [2, 4, 8], 4);
    const V = Number(this.state.bytes ?? 2 ** 27);
    const phase = (axis: number, bytes: number) => this.evaluate('collective', { chip: this.chip(), op: 'all_gather', bytes, axes: [axis] });
    // Phase X gathers each row's shards (V / ny per chip at its end), then phase Y gathers the rows.
    const px = phase(nx, V / ny), py = phase(ny, V);
    const whole = this.evaluate('collective', { chip: this.chip(), op: 'all_gather', bytes: V, axes: [nx, ny] });
    if (!px || !py || !whole) return null;
    const hx = num(px.outputs, 'hops'), hy = num(py.outputs, 'hops');
    const n = 1 + hx + hy;
    const s = this.step('hop', n);
    const inX = s >= 1 && s <= hx, inY = s > hx;
    const h = inX ? s : inY ? s - hx : 0;
    const held = (size: number, hops: number) => Math.min(size, 1 + 2 * hops); // a bidirectional ring: one new shard from each side per hop
    const shards = s === 0 ? 1 : inX ? held(nx, h) : nx * held(ny, h);
    const hopTime = inX ? num(px.outputs, 't_s') / hx : inY ? num(py.outputs, 't_s') / hy : 0;
    const elapsed = inX ? hopTime * h : inY ? num(px.outputs, 't_s') + hopTime * h : 0;
    const gap = 300 / Math.max(nx, ny), ox = 60 + gap / 2, oy = 24 + gap / 2;
    const body: SVGTemplateResult[] = [];
    for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) {
      const cx = ox + x * gap, cy = oy + y * gap;
      if (x < nx - 1) body.push(line(cx, cy, cx + gap, cy, inX ? 'accent' : ''));
      if (y < ny - 1) body.push(line(cx, cy, cx, cy + gap, inY ? 'accent' : ''));
    }
    for (let y = 0; y < ny; y++) for (let x = 0; x < nx; x++) {
      const cx = ox + x * gap, cy = oy + y * gap, w = gap * 0.62;
      body.push(rect(cx - w / 2, cy - w / 2, w, w, 'soft'));
      body.push(rect(cx - w / 2, cy + w / 2 - w * shards / (nx * ny), w, w * shards / (nx * ny), 'accent'));
      body.push(t(cx, cy + 4, `${shards}/${nx * ny}`, 'small bold', 'middle'));
    }
    const yEnd = oy + (ny - 0.5) * gap + 16;
    const f = (v: unknown, u: string) => this.fmt(v, u);
    const where = s === 0 ? 'Before the first hop: each chip holds its own shard' : `${inX ? 'Axis X' : 'Axis Y'}, hop ${h} of ${inX ? hx : hy}: each chip holds ${shards} of ${nx * ny} shards`;
    return {
      title: `A ring AllGather over a ${nx}×${ny} mesh, hop by hop`,
      viewBox: [400, yEnd - 8],
      readout: [...(this.stand ? [this.stand] : []), `${where}.`, s === 0 ? `Gathering ${f(V, 'bytes')} in all.` : `This hop ${f(hopTime, 's')}, elapsed ${f(elapsed, 's')}.`],
      body,
      controls: html`${this.stepper('hop', n, (k) => (k === 0 ? 'Start' : k <= hx ? `X hop ${k}/${hx}` : `Y hop ${k - hx}/${hy}`))}
        ${this.choice('X', 'X chips', [2, 4, 8].map((v) => ({ value: v, text: String(v) })), nx)}
        ${this.choice('Y', 'Y chips', [2, 4, 8].map((v) => ({ value: v, text: String(v) })), ny)}`,
      alt: `${where}. On the ${this.chipEntry().name} a hop along ${inY ? 'Y' : 'X'} moves its chunk in ${f(inY ? num(py.outputs, 't_s') / hy : num(px.outputs, 't_s') / hx, 's')}; axis X takes ${hx} hops (${f(px.outputs.t_s, 's')}), axis Y ${hy} hops (${f(py.outputs.t_s, 's')}). Done over both axes at once, with every link busy, the whole AllGather of ${f(V, 'bytes')} takes ${f(whole.outputs.t_s, 's')}.`,
    };
  }
}

customElements.define('sl-fig-roofline', RooflineFigure);
customElements.define('sl-fig-systolic', SystolicFigure);
customElements.define('sl-fig-torus', TorusFigure);
customElements.define('sl-fig-ring', RingFigure);
void nothing;
