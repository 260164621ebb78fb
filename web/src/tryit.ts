// <sl-tryit>: a chapter's `:::tryit` block (web/build/tryit.mjs renders it; FORMAT.md has the
// syntax). Predict → do → check: the reader locks in a prediction, operates the paired lab (the
// nearest lab before the block in its step), then Check shows the engine's value for the lab's
// chip, the ratio prediction/answer and whether it is within the block's tolerance. The state
// is kept with the chapter's progress (state.ts), so a reload restores it.
import { LitElement, html, nothing } from 'lit';
import { unsafeHTML } from 'lit/directives/unsafe-html.js';
import { engineLoadProblem, getEngine, getPath, isError, type Engine, type Result } from './engine';
import { chipParam, saveTryit, tryitRecord, type TryitRecord } from './state';
import { parseNumber, percent } from './format';
import { loadKatex, stepsHtml } from './tex';
import './tryit.css';

interface Shown { answer: number; chipName: string; ratio: number; within: boolean; steps: string }
let counter = 0;

/** One rule per veiled output name: inside a lab whose data-veil lists a token ending in
 *  `:name`, that output's value and the figures of that name are hidden, with words in their place. */
const veilRules = new Set<string>();
function veilRule(name: string) {
  if (veilRules.has(name) || !/^[\w.]+$/.test(name)) return;
  veilRules.add(name);
  let sheet = document.getElementById('tryit-veil') as HTMLStyleElement | null;
  if (!sheet) { sheet = document.createElement('style'); sheet.id = 'tryit-veil'; document.head.append(sheet); }
  const lab = `[data-veil$=":${name}"], [data-veil*=":${name} "]`;
  sheet.sheet?.insertRule(`:is(${lab}) :is([data-out="${name}"] dd, [data-figure="${name}"]) { visibility: hidden; }`);
  sheet.sheet?.insertRule(`:is(${lab}) :is([data-out="${name}"] dd, [data-figure="${name}"])::before { visibility: visible; content: "hidden"; margin-inline-end: 0.5em; font-style: italic; color: var(--muted); }`);
  // a figure inside a sentence takes no room of its own: "Critical batch hidden (hidden per chip)"
  sheet.sheet?.insertRule(`:is(${lab}) span[data-figure="${name}"] { font-size: 0; }`);
  sheet.sheet?.insertRule(`:is(${lab}) span[data-figure="${name}"]::before { font-size: 1rem; margin-inline-end: 0; }`);
}

export class TryIt extends LitElement {
  private engine: Engine | null = null;
  private body: HTMLElement | null = null;
  private lab: HTMLElement | null = null;
  private rec!: TryitRecord;
  private refusal = '';
  /** why the engine could not be loaded, if it could not: said in place of every other status */
  private loadProblem = '';
  private shown: Shown | null = null;
  private uid = `tryit${++counter}`;

  protected createRenderRoot() { return this; } // light DOM: the chapter's CSS, KaTeX and :live refresh apply

  private get calc() { return this.dataset.calc ?? ''; }
  private get out() { return this.dataset.out ?? ''; }
  private get tol() { const t = Number(this.dataset.tol); return t > 0 ? t : 0.25; }
  private get unit() { return this.dataset.unit ?? ''; }
  private get chapterKey() { return this.closest<HTMLElement>('article.chapter')?.dataset.key ?? null; }
  private get blockId() { return this.dataset.tryit ?? this.uid; }
  /** the lab outputs that would give the answer away: this block's own, and any its `hides` names */
  private get veiled() { return [...new Set([this.out, ...(this.dataset.hides ?? '').split(/[\s,]+/)].filter(Boolean))]; }

  connectedCallback() {
    if (!this.body) {
      // the server-rendered instruction moves into the interactive block; the no-JS answer goes
      this.body = this.querySelector<HTMLElement>('.tryit-body');
      this.replaceChildren();
      const key = this.chapterKey;
      const saved = key ? tryitRecord(key, this.blockId) : null;
      this.rec = saved && saved.calc === this.calc && saved.out === this.out ? saved
        : { calc: this.calc, out: this.out, text: '', prediction: null, locked: false, operated: false };
      void getEngine().then((e) => { this.engine = e; this.refresh(); },
        (e: unknown) => { this.loadProblem = engineLoadProblem(e); this.requestUpdate(); });
    }
    super.connectedCallback();
    this.lab = this.pairedLab();
    this.veil();
    this.lab?.addEventListener('input', this.onLab);
    this.lab?.addEventListener('change', this.onLab);
    window.addEventListener('sl-chip-change', this.onChip);
  }
  disconnectedCallback() {
    super.disconnectedCallback();
    this.lab?.removeEventListener('input', this.onLab);
    this.lab?.removeEventListener('change', this.onLab);
    window.removeEventListener('sl-chip-change', this.onChip);
    this.veil(false);
  }

  /** Until Check, the paired lab does not show the number this block asks for (issue 33 §4): its
   *  output row (data-out) and any figure in its sentences (data-figure) of that name read "hidden"
   *  until Check. The lab element carries the names (data-veil); one stylesheet rule per name
   *  (veilRule) hides them, so the lab's own re-renders keep them hidden. */
  private veil(on = !this.rec?.check) {
    if (!this.lab) return;
    const names = new Set((this.lab.dataset.veil ?? '').split(' ').filter(Boolean));
    for (const name of this.veiled) {
      const token = `${this.blockId}:${name}`;
      if (on) { names.add(token); veilRule(name); } else names.delete(token);
    }
    if (names.size) this.lab.dataset.veil = [...names].join(' ');
    else delete this.lab.dataset.veil;
  }

  /** The nearest element of the paired lab before this block, in the same step. */
  private pairedLab(): HTMLElement | null {
    const name = this.dataset.pairs;
    if (!name) return null;
    const scope = this.closest('section.step') ?? document;
    const before = [...scope.querySelectorAll<HTMLElement>(`[data-lab="${CSS.escape(name)}"]`)]
      .filter((el) => el.compareDocumentPosition(this) & Node.DOCUMENT_POSITION_FOLLOWING);
    return before[before.length - 1] ?? null;
  }

  private onLab = () => {
    if (this.rec.locked && !this.rec.operated) { this.rec.operated = true; this.save(); this.requestUpdate(); }
    if (this.rec.check) this.refresh();
  };
  private onChip = () => { if (this.rec.check) this.refresh(); };

  private save() {
    const key = this.chapterKey;
    if (key) saveTryit(key, this.blockId, this.rec);
  }

  // ------------------------------------------------------------ the engine's answer
  /** The chip the answer is for: the paired lab's own choice if it has one, else the page's. */
  private chip(): unknown {
    const lab = this.lab as (HTMLElement & { currentChip?: () => unknown }) | null;
    return typeof lab?.currentChip === 'function' ? lab.currentChip() : chipParam();
  }
  private params(): Record<string, unknown> | null {
    let p: Record<string, unknown>;
    try { p = JSON.parse(this.dataset.params || '{}'); } catch { return null; }
    const takesChip = this.engine?.calculator(this.calc)?.params.some((x) => x.name === 'chip');
    if (takesChip && this.dataset.chip !== 'fixed' && !('chip' in p)) p.chip = this.chip();
    return p;
  }
  private chipName(r: Result): string {
    const c = r.inputs.chip;
    if (typeof c === 'object' && c) return String((c as Record<string, unknown>).name ?? 'your custom chip');
    return this.engine!.chipName(String(c)) || 'this setting';
  }

  /** Re-evaluates the answer (after a check, for the chip in use now) and records it. */
  private refresh() {
    if (!this.engine || !this.rec.check || this.rec.prediction === null) { this.shown = null; this.requestUpdate(); return; }
    const params = this.params();
    const r = params ? this.engine.evaluate(this.calc, params) : null;
    const answer = r && !isError(r) ? getPath(r.outputs, this.out) : undefined;
    if (!r || isError(r) || typeof answer !== 'number' || !Number.isFinite(answer)) {
      this.shown = null;
      this.refusal = !params ? 'This block\u2019s settings are not valid JSON, so there is nothing to check against.'
        : r && isError(r) ? `The engine cannot answer this for the chosen chip: ${r.error.message}` : 'The engine has no number for this on the chosen chip. Try another chip.';
      this.requestUpdate();
      return;
    }
    const ratio = answer === 0 ? Number.NaN : this.rec.prediction / answer;
    const within = answer === 0 ? Math.abs(this.rec.prediction) <= this.tol : Math.abs(ratio - 1) <= this.tol;
    const chipName = this.chipName(r);
    this.rec.check = { answer, chip: chipName, ratio, within };
    this.save();
    this.veil();
    this.shown = { answer, chipName, ratio, within, steps: this.shown?.steps ?? '' };
    this.refusal = '';
    this.requestUpdate();
    void loadKatex().then((k) => {
      if (!this.shown || this.shown.answer !== answer) return;
      this.shown.steps = stepsHtml(k, r.steps, (v, u) => this.engine!.format(v, u));
      this.requestUpdate();
    });
  }

  // ------------------------------------------------------------ the reader's moves
  private lock(e: Event) {
    e.preventDefault();
    const input = this.querySelector<HTMLInputElement>(`#${this.uid}-in`)!;
    const v = parseNumber(input.value);
    if (v === null) {
      this.refusal = input.value.trim() ? `“${input.value.trim()}” is not a number I can read. Try 240, 2.4e11 or 1.4 ms.` : 'Type a number first.';
      this.requestUpdate();
      return;
    }
    this.refusal = '';
    this.rec = { ...this.rec, text: input.value.trim(), prediction: v, locked: true, operated: !this.lab, check: undefined };
    this.save();
    this.requestUpdate();
  }
  private unlock() {
    this.rec = { ...this.rec, locked: false, operated: false, check: undefined };
    this.shown = null;
    this.save();
    this.veil();
    this.requestUpdate();
    void this.updateComplete.then(() => this.querySelector<HTMLInputElement>(`#${this.uid}-in`)?.focus());
  }
  private check() {
    this.rec.check = { answer: Number.NaN, chip: '', ratio: Number.NaN, within: false };
    this.refresh();
  }

  // ------------------------------------------------------------ view
  private fmt(v: number) { return this.engine ? this.engine.format(v, this.unit) : String(v); }
  private status(): string {
    if (this.loadProblem) return this.loadProblem;
    if (this.refusal) return this.refusal;
    const r = this.rec;
    if (!r.locked) return `Write down your prediction and lock it in, then do it in the ${this.lab ? 'lab above' : 'page above'}.`;
    if (!r.operated) return `Locked in: ${this.fmt(r.prediction!)}. Now do it in the lab above; Check opens once you have moved one of its settings.`;
    if (!r.check) return `Locked in: ${this.fmt(r.prediction!)}. Done? Check it against the engine.`;
    return '';
  }
  private verdict(s: Shown) {
    const said = this.fmt(this.rec.prediction!), ans = this.fmt(s.answer);
    if (!Number.isFinite(s.ratio)) return `The engine gives ${ans} on ${s.chipName}; you said ${said}.`;
    const how = `you said ${said}, ${s.ratio.toPrecision(2)}× the answer`;
    if (s.within) return `Within ±${percent(this.tol)}: the engine gives ${ans} on ${s.chipName}; ${how}.`;
    if (s.ratio <= 0) return `The other side of zero: the engine gives ${ans} on ${s.chipName}; ${how}.`;
    const off = Math.max(s.ratio, 1 / s.ratio);
    return `Off by ×${off.toPrecision(2)} (too ${s.ratio > 1 ? 'high' : 'low'}): the engine gives ${ans} on ${s.chipName}; ${how}. The derivation shows where the difference comes from.`;
  }

  render() {
    const r = this.rec, s = this.shown, id = this.uid;
    return html`<p class="tryit-kicker">Try it</p>
      ${this.body ?? nothing}
      <form class="tryit-form" @submit=${(e: Event) => this.lock(e)}>
        <div class="tryit-row">
          <label for=${`${id}-in`}>Your prediction</label>
          <input id=${`${id}-in`} name="prediction" type="text" inputmode="decimal" autocomplete="off" spellcheck="false"
            .value=${r.text} ?readonly=${r.locked} aria-invalid=${this.refusal && !r.locked ? 'true' : 'false'} aria-describedby=${`${id}-status`}>
          ${this.unit ? html`<span class="tryit-unit">${this.unit}</span>` : nothing}
          ${r.locked
            ? html`<button type="button" class="tryit-change" @click=${() => this.unlock()}>Change</button>`
            : html`<button type="submit" class="tryit-lock">Lock in</button>`}
          ${r.locked && r.operated ? html`<button type="button" class="tryit-check" @click=${() => this.check()}>Check</button>` : nothing}
        </div>
        <p class="tryit-status" id=${`${id}-status`} role="status" aria-live="polite">${this.status()}</p>
      </form>
      ${s ? html`<p class="tryit-result ${s.within ? 'right' : 'off'}" data-answer=${String(s.answer)} data-ratio=${String(s.ratio)}>${this.verdict(s)}</p>
        <details class="tryit-derivation"><summary>How the engine gets ${this.fmt(s.answer)}</summary>${unsafeHTML(s.steps)}</details>` : nothing}`;
  }
}

customElements.define('sl-tryit', TryIt);
