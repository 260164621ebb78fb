// Home: per-chapter progress from localStorage.
import { progress } from './state';

export function initHome(root: HTMLElement) {
  root.querySelectorAll<HTMLElement>('.chapter-card[data-key]').forEach((card) => {
    const p = progress(card.dataset.key!);
    const out = card.querySelector<HTMLElement>('.progress-text');
    if (!p || !out) return;
    const total = Number(card.dataset.steps) || p.total;
    if (p.done) { card.classList.add('done'); out.textContent = ' · ✓ completed'; }
    else { card.classList.add('started'); out.textContent = ` · ${Math.min(p.visited.length, total)} of ${total} read, at step ${p.step}`; }
  });
}
