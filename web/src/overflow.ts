// Wide formulas scroll sideways; a scrollable region must be reachable by keyboard (axe:
// scrollable-region-focusable). Only the ones that actually overflow get a tab stop.
export function focusableOverflow(root: ParentNode = document) {
  root.querySelectorAll<HTMLElement>('.katex-display, .d-sub, pre, .steps table').forEach((el) => {
    if (el.scrollWidth > el.clientWidth + 1) el.tabIndex = 0; else el.removeAttribute('tabindex');
  });
}
