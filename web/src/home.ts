// Home: per-chapter progress from localStorage.
import { progress } from './state';

export function initHome(root: HTMLElement) {
  showProgress(root);
  continueWhereLeft(root);
}

function showProgress(root: HTMLElement) {
  root.querySelectorAll<HTMLElement>('.chapter-card[data-key]').forEach((card) => {
    const p = progress(card.dataset.key!);
    const out = card.querySelector<HTMLElement>('.progress-text');
    if (!p || !out) return;
    const total = Number(card.dataset.steps) || p.total;
    if (p.done) { card.classList.add('done'); out.textContent = ' · ✓ completed'; }
    else { card.classList.add('started'); out.textContent = ` · ${Math.min(p.visited.length, total)} of ${total} read, at step ${p.step}`; }
  });
}

// "Start here" becomes "Continue" at the first chapter begun and not finished.
function continueWhereLeft(root: HTMLElement) {
  const link = root.querySelector<HTMLAnchorElement>('.start-link');
  if (!link) return;
  const card = [...root.querySelectorAll<HTMLElement>('.chapter-card[data-key]')].find((c) => { const p = progress(c.dataset.key!); return p && !p.done; });
  const title = card?.querySelector('h2 a');
  if (!card || !title) return;
  const p = progress(card.dataset.key!)!;
  link.href = `/chapters/${card.dataset.key}/#step-${p.step}`;
  link.innerHTML = '';
  const kicker = document.createElement('span');
  kicker.className = 'start-kicker';
  kicker.textContent = 'Continue';
  link.append(kicker, ` ${card.querySelector('.card-num')?.textContent ?? ''}. ${title.textContent}, step ${p.step} →`);
}
