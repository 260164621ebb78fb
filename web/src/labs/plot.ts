// Observable Plot (with d3, ~80 KiB gzip) is fetched when a lab with a chart starts, in parallel
// with the engine, instead of being a static import of every lab module. The labs use the live
// binding `Plot` only in drawViz, which runs after start() has awaited loadPlot().
import type * as PlotMarks from './plot-marks';

export let Plot: typeof PlotMarks;
let loading: Promise<void> | null = null;

export function loadPlot(): Promise<void> {
  loading ??= import('./plot-marks').then((m) => { Plot = m; });
  return loading;
}

/** The frame both log–log lab charts share (decode, training comms): size, margins, a
 *  screen-reader label and description, logarithmic axes with the engine's formatter on the ticks. */
/** A log axis's ticks as a Plot interval: the whole decades within its domain, or 1, 2 and 5 of
 *  each decade where fewer than two decades fall inside, or every digit, or the domain's ends (a
 *  narrow domain keeps at least two labelled ticks, never a crowd of them). */
export const DECADES = {
  // Plot asks for range(min, offset(floor(max))): both the identity, so range sees the domain itself
  floor: (x: number) => x,
  offset: (x: number) => x,
  range(lo: number, hi: number): number[] {
    const [a, b] = lo <= hi ? [lo, hi] : [hi, lo];
    if (!(a > 0) || !Number.isFinite(b)) return [];
    const e0 = Math.floor(Math.log10(a) - 1e-9), e1 = Math.ceil(Math.log10(b) + 1e-9);
    const within = (v: number) => v >= a * (1 - 1e-9) && v <= b * (1 + 1e-9);
    const whole: number[] = [];
    for (let e = e0; e <= e1; e++) if (within(10 ** e)) whole.push(10 ** e);
    if (whole.length >= 3) return whole;
    const marks = (ms: number[]) => {
      const steps: number[] = [];
      for (let e = e0; e <= e1; e++) for (const m of ms) if (within(m * 10 ** e)) steps.push(m * 10 ** e);
      return steps;
    };
    // two decades inside: with 2 and 5 of each too where that stays few (a third of the axis
    // beyond the last decade read as empty); fewer: 1-2-5, every digit, or a finer round step
    const fives = marks([1, 2, 5]);
    if (whole.length === 2) return fives.length <= 7 ? fives : whole;
    for (const steps of [fives, marks([1, 2, 3, 4, 5, 6, 7, 8, 9]), marks([1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8])]) {
      if (steps.length >= 2) return steps;
    }
    return [a, b];
  },
};

/** A log time axis's ticks in seconds, each round in the unit the engine writes it in (`format`):
 *  1 s, 10 s, 1 min, 10 min, 1 h, 10 h… over a wide axis (never 100 s, "1.67 min"); 1-2-5 of the
 *  shown unit within a narrow one (1 min, 2 min, 5 min; 10 s, 20 s, 50 s), every digit or a finer
 *  round step where fewer fall inside. Plot's log axis blanks the labels of ticks off its own
 *  decades, so these ticks are labelled by timeAxisY's marks. */
export function timeTicks(format: (v: number, unit: string) => string) {
  // the units a time is written in: seconds (ms, µs below), minutes, hours, days, years
  const UNITS = [1, 60, 3600, 86400, 31557600];
  /** whether v reads as a mantissa of `ms` in its unit ("1 min" yes, "1.67 min" no) */
  const roundAs = (v: number, ms: number[]) => {
    const n = Number((/^[\d.,]+/.exec(format(v, 's'))?.[0] ?? '').replace(/,/g, ''));
    if (!(n > 0)) return false;
    const mant = n / 10 ** Math.floor(Math.log10(n) + 1e-9);
    return ms.some((m) => Math.abs(m - mant) < 1e-6);
  };
  return {
    floor: (x: number) => x,
    offset: (x: number) => x,
    range(lo: number, hi: number): number[] {
      const [a, b] = lo <= hi ? [lo, hi] : [hi, lo];
      if (!(a > 0) || !Number.isFinite(b)) return [];
      const pick = (ms: number[]) => {
        const found = new Set<number>();
        for (const u of UNITS) {
          for (let e = Math.floor(Math.log10(a / u)) - 1; e <= Math.ceil(Math.log10(b / u)) + 1; e++) {
            for (const m of ms) {
              const v = Number((m * 10 ** e * u).toPrecision(12));
              if (v >= a * (1 - 1e-9) && v <= b * (1 + 1e-9) && roundAs(v, ms)) found.add(v);
            }
          }
        }
        // two ticks of different units side by side (50 s and 1 min) keep the larger unit's; ticks of
        // one unit keep their own steps (10 s, 12 s, 15 s)
        const unit = (v: number) => format(v, 's').replace(/^[\d.,\s]+/, '');
        const sorted = [...found].sort((x, y) => x - y), kept: number[] = [];
        for (const v of sorted) {
          const prev = kept[kept.length - 1];
          if (prev !== undefined && v / prev < 1.4 && unit(v) !== unit(prev)) kept.pop();
          kept.push(v);
        }
        return kept;
      };
      const whole = pick([1]);
      // a wide axis: its round decades, every second or third where more than eight fall inside
      if (whole.length >= 3) { const stride = Math.ceil(whole.length / 8); return whole.filter((_, i) => i % stride === 0); }
      const fives = pick([1, 2, 5]);
      if (whole.length === 2) return fives.length <= 7 ? fives : whole;
      for (const steps of [fives, pick([1, 2, 3, 4, 5, 6, 7, 8, 9]), pick([1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8])]) {
        if (steps.length >= 2) return steps;
      }
      return [a, b];
    },
  };
}

/** The old name of a time axis's ticks (a lab without the engine's formatter at hand): decades of
 *  seconds over a wide axis, round minutes or hours over a narrow one. */
export const TIME_DECADES = {
  floor: (x: number) => x,
  offset: (x: number) => x,
  range(lo: number, hi: number): number[] {
    const top = Math.max(lo, hi), bottom = Math.min(lo, hi);
    const unit = top >= 100 * bottom ? 1 : top >= 7200 ? 3600 : top >= 120 ? 60 : 1;
    return DECADES.range(lo / unit, hi / unit).map((v) => v * unit);
  },
};

/** A log time axis's ends widened to round times (timeTicks' own steps: 19.2 s → 20 s, 9.53 s →
 *  9 s), so the first and the last point sit inside a labelled tick, never above the top one. */
export function roundTimeDomain(lo: number, hi: number, format: (v: number, unit: string) => string): [number, number] {
  const t = timeTicks(format);
  const up = t.range(hi, hi * 2.5).find((v) => v >= hi * (1 - 1e-9)) ?? hi;
  const down = [...t.range(lo / 2.5, lo)].reverse().find((v) => v <= lo * (1 + 1e-9)) ?? lo;
  return [down, up];
}

/** A log time y axis with its gridlines, as marks, every tick labelled in the engine's words
 *  (timeTicks): for a chart whose y scale says `axis: null` (logLogFrame's does). */
export function timeAxisY(format: (v: number, unit: string) => string, label: string) {
  const ticks = timeTicks(format);
  return [
    Plot.gridY({ ticks }),
    Plot.axisY({ ticks, text: (d: number) => format(d, 's'), label, labelArrow: 'none' }),
  ];
}

/** A left margin that holds these y tick labels and no more (about 7 px a character of the
 *  charts' 12 px type, the tick and a gap): a phone's plot keeps the width the labels do not need. */
export function labelMargin(labels: string[], least = 36): number {
  return Math.max(least, Math.ceil(7 * Math.max(0, ...labels.map((l) => l.length))) + 14);
}

export function logLogFrame(o: {
  width: number; ariaLabel: string; description: string; xLabel: string; yLabel: string;
  format: (v: number, unit: string) => string; color: { domain: string[]; range: string[] };
  /** the time axis's ends (the data's): on a phone the left margin then fits its tick labels */
  yExtent?: [number, number];
  /** the x axis's ends: its ticks then are whole decades, as many as their labels have room for */
  xDomain?: [number, number];
}) {
  return {
    width: o.width,
    // (a phone's plot at least 230 px tall, its left margin enough for "100 ms")
    // (at most 320 px: at a desk the verdict under it starts on the first screen)
    height: Math.round(Math.max(210, Math.min(320, o.width * 0.6))),
    marginLeft: o.width >= NARROW_CHART_PX ? 80 : o.yExtent ? labelMargin(timeTicks(o.format).range(...o.yExtent).map((v) => o.format(v, 's'))) : 62,
    marginBottom: 42,
    marginTop: 24,
    ariaLabel: o.ariaLabel,
    ariaDescription: o.description,
    style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
    x: { type: 'log' as const, label: o.xLabel, tickFormat: (d: number) => o.format(d, 'count'),
      ticks: o.xDomain ? decadeTicks(o.xDomain[0], o.xDomain[1], o.width - 100, (d) => o.format(d, 'count')) : DECADES },
    // its axis and gridlines are marks (timeAxisY: every tick labelled, round in its unit); the
    // caller puts ...timeAxisY(format, yLabel) among its marks
    y: { type: 'log' as const, axis: null },
    color: { legend: true, ...o.color },
  };
}

/** The charts' colours, one meaning each in every lab (styles.css defines them for both themes):
 *  memory reads and the weights blue, the KV cache and attention purple, FLOPs and "fits" green,
 *  "does not fit" orange, communication brown; a chart's other series (serving's topologies) take
 *  SERIES.others in order. */
export const SERIES = {
  memory: 'var(--roof)', kv: 'var(--kv)', flops: 'var(--ok)', fits: 'var(--ok)', noFit: 'var(--warn)', comms: 'var(--series-4)', muted: 'var(--muted)',
  others: ['var(--roof)', 'var(--kv)', 'var(--series-3)', 'var(--series-4)', 'var(--muted)'],
} as const;

/** A chart narrower than this is laid out for a phone: shorter labels, names above their bars. */
export const NARROW_CHART_PX = 480;

/** How many tick labels fit side by side on an axis plotWidth wide, each labelPx wide (64 px
 *  holds "100 MB" beside "1 GB" on a phone); at least `least`. */
export function tickRoom(plotWidth: number, least = 1, labelPx = 64): number {
  return Math.max(least, Math.floor(plotWidth / labelPx));
}

/** Whole decades from lo to hi as a log axis's ticks, every second or third one when the chart is
 *  too narrow for all their labels. With the axis's tick format, the room a label needs is measured
 *  from its longest text ("100,000 tokens" needs more than "1 GB"), at about 7 px a character in the
 *  charts' 12 px type. */
export function decadeTicks(lo: number, hi: number, plotWidth: number, format?: (d: number) => string, through?: number): number[] {
  const first = Math.ceil(Math.log10(lo) - 1e-9), last = Math.floor(Math.log10(hi) + 1e-9);
  let labelPx = 64;
  if (format) for (let k = first; k <= last; k++) labelPx = Math.max(labelPx, 7 * format(10 ** k).length + 14);
  const room = tickRoom(plotWidth, 1, labelPx);
  const stride = Math.max(1, Math.ceil((last - first + 1) / room));
  // `through`: a decade the ticks must include (a reference line's), the others a stride from it
  const anchor = through === undefined ? first : Math.round(Math.log10(through));
  const ticks: number[] = [];
  for (let k = first + ((((anchor - first) % stride) + stride) % stride); k <= last; k += stride) ticks.push(10 ** k);
  return ticks;
}

/** Powers of two from lo to hi as a log axis's ticks (contexts and chip counts are set in them),
 *  every second one or sparser as the axis narrows, labelPx a label; for an axis drawn with base 2,
 *  whose labels Plot then keeps (a base-10 log axis drops the labels of most powers of two). */
export function powerOfTwoTicks(lo: number, hi: number, plotWidth: number, labelPx = 60): number[] {
  const all: number[] = [];
  for (let x = 2 ** Math.ceil(Math.log2(lo)); x <= hi * (1 + 1e-9); x *= 2) all.push(x);
  const stride = Math.max(2, Math.ceil(all.length / tickRoom(plotWidth, 2, labelPx)));
  return all.filter((_, i) => i % stride === 0);
}

export type Chart = ReturnType<typeof PlotMarks.plot>;

/** The marker of the current setting on a drawn chart moved in place, by the chart's own scales:
 *  the dot (class operating-point) to (x, y) and the vertical rule (class batch-rule) to x, with
 *  the chart's description for screen readers. False if the chart cannot place it (then redraw). */
export function moveMarker(chart: Chart, x: number, y: number, description: string): boolean {
  const cx = chart.scale('x')?.apply(x), cy = chart.scale('y')?.apply(y);
  if (typeof cx !== 'number' || typeof cy !== 'number' || !Number.isFinite(cx) || !Number.isFinite(cy)) return false;
  const dot = chart.querySelector('.operating-point circle');
  dot?.setAttribute('cx', String(cx)); dot?.setAttribute('cy', String(cy));
  chart.querySelectorAll('.batch-rule line').forEach((l) => { l.setAttribute('x1', String(cx)); l.setAttribute('x2', String(cx)); });
  chart.querySelector('[aria-description]')?.setAttribute('aria-description', description);
  return true;
}

/** Drawn charts kept by what they show beyond the current point (their key), newest last: dragging
 *  back to a setting already drawn moves that chart's marks in place instead of drawing it again.
 *  A few are kept; the oldest is dropped. */
export class ChartCache<T = Chart> {
  private readonly charts = new Map<string, T>();
  constructor(private readonly size = 24) {}

  get(key: string): T | undefined {
    const chart = this.charts.get(key);
    if (chart) { this.charts.delete(key); this.charts.set(key, chart); }
    return chart;
  }

  put(key: string, chart: T): T {
    this.charts.delete(key);
    this.charts.set(key, chart);
    for (const oldest of this.charts.keys()) { if (this.charts.size <= this.size) break; this.charts.delete(oldest); }
    return chart;
  }

  clear(): void { this.charts.clear(); }
}

/** host's children made these elements, in order, touching the DOM only if they differ */
export function showIn(host: HTMLElement, ...elements: Element[]): void {
  if (host.children.length !== elements.length || elements.some((el, i) => host.children[i] !== el)) host.replaceChildren(...elements);
}

/** The end of a linear axis that holds x, in 1-2-5 steps: the axis stays put while x moves inside a step. */
export const reachOf = (x: number): number => {
  if (!(x > 0) || !Number.isFinite(x)) return 1;
  const e = 10 ** Math.floor(Math.log10(x));
  return [1, 2, 5, 10].map((m) => m * e).find((v) => v >= x * (1 - 1e-12))!;
};

/** Horizontal bars (barX, one rect per bar from x1 to x2) and their value labels (text marks at
 *  x2) moved in place by the chart's x scale, label words replaced; false if the drawn chart has
 *  other bars or cannot place them (then redraw). */
export function moveBarsX(chart: Chart, bars: { x1: number; x2: number; label: string }[], barClass: string, labelClass: string, description: string): boolean {
  const x = chart.scale('x');
  const rects = chart.querySelectorAll(`.${barClass} rect`), texts = chart.querySelectorAll(`.${labelClass} text`);
  if (!x || rects.length !== bars.length || texts.length !== bars.length) return false;
  const at = bars.map((b) => [x.apply(b.x1), x.apply(b.x2)] as [number, number]);
  if (!at.every(([a, b]) => Number.isFinite(a) && Number.isFinite(b))) return false;
  rects.forEach((rect, i) => {
    rect.setAttribute('x', String(Math.min(...at[i])));
    rect.setAttribute('width', String(Math.abs(at[i][1] - at[i][0])));
  });
  texts.forEach((t, i) => {
    t.setAttribute('transform', (t.getAttribute('transform') ?? '').replace(/translate\(([^,]+),/, `translate(${at[i][1]},`));
    t.textContent = bars[i].label;
  });
  chart.querySelector('[aria-description]')?.setAttribute('aria-description', description);
  return true;
}
