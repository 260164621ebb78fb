// A lab's state in the address: read once when the lab starts (its own page's URL, or a chapter
// placement's state='{"B":64}'), written back (debounced, history.replaceState) after each
// evaluation on the lab's own page, so every setting is a link. On its own page a lab carries the
// chip it answers for (chip=): the page's chip (state.ts) or the one the lab is pinned to.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { chipFromLink, chipId, DEFAULT_CHIP } from '../state';
import type { LabState } from './lab-state';

export class UrlStateController implements ReactiveController {
  private timer = 0;
  constructor(private readonly host: ReactiveControllerHost & HTMLElement, private readonly state: LabState) {
    host.addController(this);
  }
  hostConnected() {}
  hostDisconnected() { clearTimeout(this.timer); }

  /** the lab is the page (a full-page lab, /labs/<name>/): the address is its state */
  get isPage(): boolean { return this.host.hasAttribute('data-url-state'); }

  /** Applies the state the lab starts from, if any. */
  read() {
    let state: URLSearchParams | null = null;
    if (this.isPage) state = new URLSearchParams(location.search);
    else if (this.host.dataset.state) {
      try {
        state = new URLSearchParams(Object.entries(JSON.parse(this.host.dataset.state) as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
      } catch { this.state.notices.push('This lab’s starting state is not valid JSON; it opens on its starting values.'); }
    }
    if (state && [...state.keys()].length) this.state.apply(state, !this.isPage);
  }

  /** The chip a link to this lab carries: its pin, else the page's where that is not the default. */
  private chip(): string | null {
    if (this.state.pin || !this.state.usesChip) return this.state.pin;
    const page = chipId();
    return page !== DEFAULT_CHIP || chipFromLink() ? page : null;
  }
  /** The lab's state as query text, for its own page. */
  query(): string { return this.state.query(this.chip()); }

  /** After an evaluation: the address follows (on the lab's own page). */
  written() {
    if (!this.isPage) return;
    clearTimeout(this.timer);
    this.timer = window.setTimeout(() => {
      const q = this.query();
      history.replaceState(history.state, '', `${location.pathname}${q ? '?' + q : ''}${location.hash}`);
    }, 250);
  }
}
