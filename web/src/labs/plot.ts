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
export function logLogFrame(o: {
  width: number; ariaLabel: string; description: string; xLabel: string; yLabel: string;
  format: (v: number, unit: string) => string; color: { domain: string[]; range: string[] };
}) {
  return {
    width: o.width,
    height: Math.round(Math.min(360, o.width * 0.65)),
    marginLeft: 80,
    marginBottom: 42,
    marginTop: 24,
    ariaLabel: o.ariaLabel,
    ariaDescription: o.description,
    style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
    x: { type: 'log' as const, label: o.xLabel, tickFormat: (d: number) => o.format(d, 'count') },
    y: { type: 'log' as const, label: o.yLabel, tickFormat: (d: number) => o.format(d, 's'), grid: true, ticks: 5 },
    color: { legend: true, ...o.color },
  };
}
