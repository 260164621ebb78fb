// Wide formulas, code and tables scroll sideways. A scrollable region must be reachable by
// keyboard (axe: scrollable-region-focusable), and the reader is told that it scrolls (the
// class scrolls-x shows a hint, see styles.css). Only the ones that actually overflow get both.
const SCROLLERS = '.katex-display, .d-sub, pre, .table-scroll';
export function focusableOverflow(root: ParentNode = document) {
  // every width read first, then every write: one layout, not one per element
  const els = [...root.querySelectorAll<HTMLElement>(SCROLLERS)];
  const overflows = els.map((el) => el.scrollWidth > el.clientWidth + 1);
  els.forEach((el, i) => {
    el.classList.toggle('scrolls-x', overflows[i]);
    if (overflows[i]) el.tabIndex = 0; else el.removeAttribute('tabindex');
  });
}
