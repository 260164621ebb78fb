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
