// Wide formulas, code and tables scroll sideways. A scrollable region must be reachable by
// keyboard (axe: scrollable-region-focusable), and the reader is told that it scrolls (the
// class scrolls-x shows a hint, see styles.css). Only the ones that actually overflow get both.
const SCROLLERS = '.katex-display, .d-sub, pre, .table-scroll';
export function focusableOverflow(root: ParentNode = document) {
  root.querySelectorAll<HTMLElement>(SCROLLERS).forEach((el) => {
    const overflows = el.scrollWidth > el.clientWidth + 1;
    el.classList.toggle('scrolls-x', overflows);
    if (overflows) el.tabIndex = 0; else el.removeAttribute('tabindex');
  });
}
