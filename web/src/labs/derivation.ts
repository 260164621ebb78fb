// The derivation under a lab's result: the engine's steps for these very numbers, typeset with
// KaTeX only while the block is open (KaTeX and its fonts load on the first opening), and again
// once input pauses, from the same parameters as the numbers shown (evaluated with steps).
import { html, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import { unsafeHTML } from 'lit/directives/unsafe-html.js';
import { isError, type Engine, type Result } from '../engine';
import { loadKatex, stepsHtml } from '../tex';
import { mode } from '../state';

export class DerivationController implements ReactiveController {
  /** Technical readers see the derivation open; Plain readers open it (KaTeX loads only then). */
  private open = mode() === 'technical';
  private markup = '';
  private timer = 0;
  private shown: Result | null = null;
  private params: Record<string, unknown> = {};

  constructor(private readonly host: ReactiveControllerHost, private readonly engine: () => Engine | null, private readonly calculator: string) {
    host.addController(this);
  }
  hostConnected() {}
  hostDisconnected() { clearTimeout(this.timer); }

  /** A new result on screen, from these parameters. */
  follow(r: Result, params: Record<string, unknown>) {
    this.shown = r;
    this.params = params;
    clearTimeout(this.timer);
    if (!this.open) { this.markup = ''; return; }
    if (!this.markup) { void this.typeset(r); return; }
    this.timer = window.setTimeout(() => void this.typeset(r), 120);
  }
  private async typeset(r: Result) {
    const katex = await loadKatex();
    const engine = this.engine();
    if (r !== this.shown || !engine) return;
    // the same parameters as the numbers shown, this time with the steps (the engine is deterministic)
    const full = engine.evaluate(this.calculator, this.params);
    this.markup = isError(full) ? '' : stepsHtml(katex, full.steps, (v, u) => engine.format(v, u));
    this.host.requestUpdate();
  }
  private onToggle = (e: Event) => {
    this.open = (e.currentTarget as HTMLDetailsElement).open;
    if (this.open && this.shown && !this.markup) void this.typeset(this.shown);
  };
  /** the markup typeset last (the lab re-measures overflow when it changes) */
  get text(): string { return this.markup; }

  render(technical: boolean): TemplateResult {
    return html`<details class="lab-steps" ?open=${this.open || technical} @toggle=${this.onToggle}><summary>Derivation for these numbers</summary>${this.open && !this.markup ? html`<p>Typesetting…</p>` : unsafeHTML(this.markup)}</details>`;
  }
}
