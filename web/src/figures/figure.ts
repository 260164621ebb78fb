// The figure framework: an explorable SVG drawn from the engine's numbers for the page's chip.
// A figure subclasses FigureElement and implements draw(): it returns the SVG body, its
// text alternative (a sentence with the numbers it shows) and optional controls. The
// framework loads the engine, redraws when the chip or a control changes, puts the text
// alternative on the <svg role="img"> and under it as a caption, and counts renders in
// data-rendered (tests wait on it). Light DOM, so the page's CSS variables apply.
// See README.md in this folder.
import { LitElement, html, svg, nothing, type TemplateResult, type SVGTemplateResult } from 'lit';
import { engineLoadProblem, getEngine, isError, type Engine, type Outcome, type Result, type Chip } from '../engine';
import { chipParam, DEFAULT_CHIP } from '../state';
import './figures.css';

export interface Drawing {
  /** SVG content, in the coordinates of `viewBox` */
  body: SVGTemplateResult | SVGTemplateResult[];
  viewBox: [number, number];
  /** what the figure shows, with its numbers: the aria-label and the caption */
  alt: string;
  /** controls shown above the drawing (steppers, sliders, selects) */
  controls?: TemplateResult | typeof nothing;
  /** a short title above the controls */
  title: string;
  /** lines of readout under the drawing, in HTML text (readable at any width) */
  readout?: string[];
}

let figureCounter = 0;

export abstract class FigureElement extends LitElement {
  /** The calculators this figure evaluates: the engine's warm-up compiles their first calls off the
   *  main thread (engine.ts). figures.test.mjs checks each list against the figure's evaluate calls. */
  static readonly calculators: readonly string[] = [];
  protected engine: Engine | null = null;
  protected state: Record<string, unknown> = {};
  protected problem = '';
  private loadProblem = '';
  protected readonly uid = `fig${++figureCounter}`;
  private renders = 0;
  private started = false;

  protected createRenderRoot() { return this; }

  connectedCallback() {
    if (!this.started) {
      this.started = true;
      this.state = this.parseState();
      this.textContent = ''; // drop the no-JavaScript caption before Lit renders here
      void getEngine((this.constructor as typeof FigureElement).calculators).then(
        (e) => { this.engine = e; this.requestUpdate(); },
        (e: unknown) => { this.loadProblem = engineLoadProblem(e); this.requestUpdate(); });
    }
    super.connectedCallback();
    window.addEventListener('sl-chip-change', this.onChip);
  }
  disconnectedCallback() {
    super.disconnectedCallback();
    window.removeEventListener('sl-chip-change', this.onChip);
  }
  private onChip = () => this.requestUpdate();

  private parseState(): Record<string, unknown> {
    if (!this.dataset.state) return {};
    try { const o = JSON.parse(this.dataset.state); return o && typeof o === 'object' ? o : {}; } catch { return {}; }
  }

  /** The chip for this figure: the page's chip, or the figure's own `chip` state. */
  protected chip(): string | Record<string, unknown> {
    return typeof this.state.chip === 'string' ? this.state.chip : chipParam() ?? DEFAULT_CHIP;
  }
  /** The chip's name and kind: from the catalog's index, or the custom chip object itself when one is chosen. */
  protected chipEntry(): { name: string; kind?: string } {
    const c = this.chip();
    if (typeof c !== 'string') return c as Chip;
    const index = this.engine!.chipIndex;
    return index.find((x) => x.id === c) ?? index.find((x) => x.id === DEFAULT_CHIP)!;
  }
  /** Evaluate, numbers only (a figure never shows a derivation); an engine refusal (unless quiet) becomes the
   * figure's visible problem and null. Cached per call. */
  private cache = new Map<string, Outcome>();
  protected evaluate(calc: string, params: Record<string, unknown>, quiet = false): Result | null {
    const key = calc + JSON.stringify(params);
    let r = this.cache.get(key);
    if (!r) {
      if (this.cache.size > 400) this.cache.clear();
      r = this.engine!.evaluate(calc, params, { steps: false });
      this.cache.set(key, r);
    }
    if (isError(r)) { if (quiet) { this.refusal = r.error.message; return null; } this.problem ||= `${calc}: ${r.error.param ?? ''} ${r.error.message}`; return null; }
    return r;
  }
  /** The engine's words for the last refusal a quiet evaluate() met (for a figure that draws on without it). */
  protected refusal = '';
  protected fmt(v: unknown, unit: string): string { return this.engine!.format(v, unit); }
  /** Set a piece of state and redraw. */
  protected set(key: string, value: unknown) { this.state = { ...this.state, [key]: value }; this.requestUpdate(); }

  protected abstract draw(): Drawing | null;

  /** A stepper: ‹ Step k of n › buttons. */
  protected stepper(key: string, n: number, label: (k: number) => string): TemplateResult {
    const k = this.step(key, n);
    return html`<div class="fig-stepper" role="group" aria-label="Steps">
      <button type="button" class="fig-prev" ?disabled=${k <= 0} @click=${() => this.set(key, k - 1)}>← Back</button>
      <span class="fig-step-label" aria-live="polite">${label(k)}</span>
      <button type="button" class="fig-next" ?disabled=${k >= n - 1} @click=${() => this.set(key, k + 1)}>Next →</button>
    </div>`;
  }
  /** A setting that must be one of `options` (from the placement's state or a control); any other
   *  value is refused with a visible note naming the setting and what it allows. */
  protected pick<T extends string | number>(key: string, label: string, options: T[], fallback: T): T {
    const v = this.state[key];
    if (v === undefined) return fallback;
    const hit = options.find((o) => String(o) === String(v));
    if (hit !== undefined) return hit;
    this.notes.add(`The ${label} “${String(v)}” is not offered here (allowed: ${options.join(', ')}); showing ${fallback}.`);
    return fallback;
  }
  /** A number setting that must lie in [lo, hi]; anything else is refused with a visible note. */
  protected inRange(key: string, label: string, lo: number, hi: number, fallback: number, show: (v: number) => string = String): number {
    const v = this.state[key];
    if (v === undefined) return fallback;
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
    if (Number.isFinite(n) && n >= lo && n <= hi) return n;
    this.notes.add(`The ${label} “${String(v)}” is refused: it must be a number from ${show(lo)} to ${show(hi)}; showing ${show(fallback)}.`);
    return fallback;
  }
  private notes = new Set<string>();
  protected step(key: string, n: number): number {
    const k = Number(this.state[key] ?? 0);
    return Number.isInteger(k) ? Math.max(0, Math.min(n - 1, k)) : 0;
  }
  /** A labelled <select>. */
  protected choice<T extends string | number>(key: string, label: string, options: { value: T; text: string }[], current: T): TemplateResult {
    const id = `${this.uid}-${key}`;
    return html`<label class="fig-field" for=${id}><span>${label}</span>
      <select id=${id} @change=${(e: Event) => {
        const v = (e.target as HTMLSelectElement).value;
        this.set(key, typeof current === 'number' ? Number(v) : v);
      }}>${options.map((o) => html`<option value=${o.value} ?selected=${o.value === current}>${o.text}</option>`)}</select></label>`;
  }
  /** A labelled range slider over integer positions 0..n-1 that map to `values`. */
  protected slider(key: string, label: string, values: number[], current: number, show: (v: number) => string): TemplateResult {
    const id = `${this.uid}-${key}`;
    // the position nearest the current value (on a log scale: the values may span decades)
    const dist = (v: number) => Math.abs(Math.log(Math.max(v, 1e-300)) - Math.log(Math.max(current, 1e-300)));
    const i = values.reduce((best, v, k) => (dist(v) < dist(values[best]) ? k : best), 0);
    return html`<label class="fig-field fig-slider" for=${id}><span>${label}: <output>${show(values[i])}</output></span>
      <input id=${id} type="range" min="0" max=${values.length - 1} step="1" .value=${String(i)}
        aria-valuetext=${show(values[i])}
        @input=${(e: Event) => this.set(key, values[Number((e.target as HTMLInputElement).value)])}></label>`;
  }

  /** Set by draw() while data it needs is still on its way (the published runs): the figure says
   *  so instead of reporting a problem, and draws when the data arrives. */
  protected waiting = '';

  protected updated() { this.dataset.rendered = String(this.renders); }

  render() {
    if (!this.engine) {
      return this.loadProblem ? html`<p class="fig-problem" role="alert">${this.loadProblem}</p>` : html`<p class="fig-loading">Loading the engine…</p>`;
    }
    this.problem = '';
    this.waiting = '';
    this.notes.clear();
    const d = this.draw();
    this.renders += 1;
    if (!d && this.waiting) return html`<p class="fig-loading">Loading ${this.waiting}…</p>`;
    if (!d) return html`<p class="fig-problem" role="alert">This figure cannot be drawn for this chip: ${this.problem || 'the engine gave no result'}.</p>`;
    const [w, h] = d.viewBox;
    return html`<figure class="sl-figure">
      <p class="fig-title">${d.title}</p>
      ${d.controls ? html`<div class="fig-controls">${d.controls}</div>` : nothing}
      ${this.notes.size ? html`<p class="fig-problem" role="status">${[...this.notes].join(' ')}</p>` : nothing}
      <svg class="fig-svg" viewBox="0 0 ${w} ${h}" role="img" aria-label=${d.alt} style="max-width:${Math.round(w * 1.6)}px">${d.body}</svg>
      ${d.readout?.length ? html`<div class="fig-readout">${d.readout.map((r) => html`<p>${r}</p>`)}</div>` : nothing}
      <figcaption class="fig-alt">${d.alt}</figcaption>
      ${this.problem ? html`<p class="fig-problem" role="alert">${this.problem}</p>` : nothing}
    </figure>`;
  }
}

// ---------------------------------------------------------------- small SVG helpers
export const t = (x: number, y: number, s: string, cls = '', anchor: 'start' | 'middle' | 'end' = 'start') =>
  svg`<text x=${x} y=${y} class="fig-text ${cls}" text-anchor=${anchor}>${s}</text>`;
export const rect = (x: number, y: number, w: number, h: number, cls = '', extra = '') =>
  svg`<rect x=${x} y=${y} width=${Math.max(0, w)} height=${Math.max(0, h)} class="fig-rect ${cls}" data-what=${extra || nothing}></rect>`;
export const line = (x1: number, y1: number, x2: number, y2: number, cls = '') =>
  svg`<line x1=${x1} y1=${y1} x2=${x2} y2=${y2} class="fig-line ${cls}"></line>`;
/** A label's width in viewBox units, estimated (no layout read) at a phone's larger figure text
 *  (figures.css: 11.5–13.5 px): about 7 units a character. For choosing where a label fits. */
export const textWidth = (s: string) => s.length * 7;
/** Powers of two from a to b inclusive. */
export const pow2 = (a: number, b: number) => { const out: number[] = []; for (let v = a; v <= b; v *= 2) out.push(v); return out; };
/** Log-scale position of v in [lo, hi] mapped to [x0, x1]. */
export const logX = (v: number, lo: number, hi: number, x0: number, x1: number) =>
  x0 + (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) * (x1 - x0);
