// <sl-decode-run>: "Run it here" (issue 38) where the decode lab and chapter 7 place it. This file is
// all a page loads up front: a sentence and a button. The run itself (view.ts, its Worker, its
// kernels, Plot) loads when the reader presses it, or at once when the address carries a shared run
// (?decoderun=…). Attributes: model (a catalog id; the default LLaMA-3 8B), or a placement's
// data-state ({"model": "llama3-8b"}).
const SHARED = 'decoderun';
const KEPT = 'scalelab.decodeRun';

export class DecodeRun extends HTMLElement {
  private opened = false;

  connectedCallback() {
    if (this.opened) return; // (a page's "needs JavaScript" fallback inside is replaced)
    let kept = false;
    try { kept = localStorage.getItem(KEPT) !== null; } catch { /* private mode */ }
    // its own page exists for the run: the panel (the model menu, what it will do, Run) is its first view
    if (location.pathname.startsWith('/labs/decode-run/') && !this.closest('[data-rendered]:not(sl-decode-run)')) {
      this.dataset.rendered = '1';
      void this.open(false);
      return;
    }
    this.innerHTML = `<p class="decode-run-intro">Does your own device flip where this page predicts it will?
<button type="button" class="lab-button" data-run>Run it here</button>${kept ? ' <button type="button" class="lab-button" data-show>Show your last run</button>' : ''}
<span class="hint">It times one decode step of ${this.modelName()} on your GPU (or CPU) batch by batch, in this browser.</span></p>`;
    this.querySelector('[data-run]')!.addEventListener('click', () => void this.open(true));
    this.querySelector('[data-show]')?.addEventListener('click', () => void this.open(false));
    // The stub is this block's whole first view: it is rendered (pages and tests wait on data-rendered).
    this.dataset.rendered = '1';
    if (new URLSearchParams(location.search).has(SHARED)) void this.open(false);
  }

  /** the model's name for the stub's sentence (the catalog is not loaded yet: the placement's model, in words) */
  private modelName(): string {
    const id = this.model();
    return id === 'llama3-8b' ? 'LLaMA-3 8B' : id === 'llama3-70b' ? 'LLaMA-3 70B' : 'the lab’s model';
  }

  private model(): string {
    let state: { model?: unknown } = {};
    try { state = JSON.parse(this.dataset.state ?? '{}'); } catch { /* a malformed placement: the default */ }
    const m = this.getAttribute('model') ?? state.model;
    return typeof m === 'string' && m ? m : 'llama3-8b';
  }

  /** Loads the run and puts it here; `run`: start measuring at once. */
  private async open(run: boolean) {
    if (this.opened) return;
    this.opened = true;
    this.setAttribute('aria-busy', 'true');
    await import('./view');
    const view = document.createElement('sl-decode-run-view');
    view.model = this.model();
    if (run) view.setAttribute('autostart', '');
    this.replaceChildren(view);
    this.removeAttribute('aria-busy');
  }

  // The model follows the attribute (the decode lab passes its own) until a run starts.
  static observedAttributes = ['model'];
  attributeChangedCallback() {
    // (the stub's sentence names the lab's model as it changes)
    const hint = this.opened ? null : this.querySelector('.decode-run-intro .hint');
    if (hint) hint.textContent = `It times one decode step of ${this.modelName()} on your GPU (or CPU) batch by batch, in this browser.`;
    const view = this.querySelector('sl-decode-run-view');
    if (view && view.runState !== 'running') view.model = this.model();
  }
}

if (!customElements.get('sl-decode-run')) customElements.define('sl-decode-run', DecodeRun);
declare global {
  interface HTMLElementTagNameMap { 'sl-decode-run': DecodeRun }
}
