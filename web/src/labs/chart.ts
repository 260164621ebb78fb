// A lab's chart box: its width (kept by a ResizeObserver, so drawing reads no layout), when its
// first chart is drawn (once the numbers are on screen, the box within half a screen of the
// viewport, and Observable Plot loaded), and redrawing on each new result or a new width. The lab
// draws; layers declared beside it add marks to its charts (see ChartLayer).
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { Engine, Result } from '../engine';
import { loadPlot, type Plot } from './plot';

type Mark = ReturnType<typeof Plot.dot>;

/** What a layer is given to draw on a chart: the result, the engine's formatter, the chart's width. */
export interface LayerContext {
  result: Result;
  engine: Engine;
  format(v: unknown, unit: string): string;
  width: number;
}
/** Marks added to one of a lab's charts (its main chart unless `chart` names another): an
 *  expected range, published runs, a measurement. `key` says what the layer shows for a result
 *  (the chart is drawn again when it changes; the lab's own marks keep their in-place moves). */
export interface ChartLayer {
  chart?: string;
  key(r: Result): string;
  marks(ctx: LayerContext): (Mark | null)[];
}

export interface ChartHost extends ReactiveControllerHost, HTMLElement {
  readonly result: Result | null;
  /** evaluations rendered so far */
  readonly renders: number;
  /** draw the chart for this result into the box */
  drawChart(r: Result, box: HTMLElement): void;
}

export class ChartController implements ReactiveController {
  private box: HTMLElement | null = null;
  private boxWidth = 0;
  private sizes: ResizeObserver | null = null;
  private view: IntersectionObserver | null = null;
  private firstPending = false;
  /** where the box stands against the viewport until its first chart: not known yet, within half
   *  a screen of it (`near`), or further (`far`) */
  private where: 'unknown' | 'near' | 'far' = 'unknown';

  constructor(private readonly host: ChartHost) { host.addController(this); }
  hostConnected() {}
  hostDisconnected() { this.sizes?.disconnect(); this.view?.disconnect(); }

  /** the width a chart is drawn at: the box's, within [min, max] px */
  width(min = 320, max = 720): number {
    return Math.max(min, Math.min(max, this.boxWidth || 640));
  }

  /** After the lab's render: draws the chart where it is due. True when the lab's result is on
   *  screen as far as it will be for now (its chart drawn, or its box away from the viewport). */
  settle(): boolean {
    const r = this.host.result;
    if (!r) return true;
    const box = this.host.querySelector<HTMLElement>('.lab-viz');
    if (box && box !== this.box) this.watch(box);
    if (this.firstPending) return this.where === 'far';
    if (box && box.dataset.renders !== String(this.host.renders)) this.draw(box);
    return true;
  }

  /** Draws the charts again at the next render, for the same result (a layer's data arrived). */
  redraw() {
    if (this.box) delete this.box.dataset.renders;
    this.host.requestUpdate();
  }

  private draw(box: HTMLElement) {
    box.dataset.renders = String(this.host.renders);
    this.host.drawChart(this.host.result!, box);
  }

  /** A new chart box. Its first chart is drawn, in a task of its own once the numbers are on
   *  screen, when both observers have reported: the ResizeObserver (after the page's layout) gives
   *  the box's width, and the IntersectionObserver says the box is within half a screen below the
   *  viewport. Plot is loaded then, so a lab whose chart is below the fold does not fetch, run or
   *  draw it before the reader scrolls towards it. A box that is not laid out (a lab in a chapter
   *  step not shown yet) reports when it is shown. Once drawn, the chart follows every input. */
  private watch(box: HTMLElement) {
    this.sizes?.disconnect();
    this.view?.disconnect();
    this.box = box;
    this.firstPending = true;
    this.where = 'unknown';
    let sized = false;
    const drawWhenReady = () => {
      if (!sized || this.where !== 'near') return;
      void loadPlot().then(nextTask).then(() => {
        if (this.box !== box || !this.firstPending) return;
        this.firstPending = false;
        // the lab's next update draws it and marks the lab rendered (never between an evaluation and its render)
        this.host.requestUpdate();
      });
    };
    this.sizes = new ResizeObserver(() => {
      const w = box.clientWidth; // layout is fresh when a ResizeObserver reports
      if (sized && w === this.boxWidth) return;
      this.boxWidth = w;
      if (sized) { if (this.host.result && !this.firstPending) this.draw(box); return; } // a wider or narrower page: redraw for it
      sized = true;
      drawWhenReady();
    });
    this.view = new IntersectionObserver((entries) => {
      if (this.box !== box) return;
      if (!entries[entries.length - 1].isIntersecting) {
        this.where = 'far';
        // the lab's update marks the numbers rendered (not here: an evaluation may await its render)
        if (this.firstPending && this.host.result) this.host.requestUpdate();
        return;
      }
      this.where = 'near';
      this.view?.disconnect();
      drawWhenReady();
    }, { rootMargin: '0px 0px 50% 0px' });
    this.sizes.observe(box);
    this.view.observe(box);
  }
}

/** Resolve in a new task (scheduler.yield where the browser has it), so that the work after it
 *  is not part of the task before: the page can paint and answer input in between. */
export function nextTask(): Promise<void> {
  const s = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (s?.yield) return s.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}
