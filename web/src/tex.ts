// KaTeX at run time, loaded only when a derivation must be re-rendered in the browser
// (labs, or questions after the chip changes). Build-time pages already carry rendered math.
import type { Step } from './engine';

type Katex = typeof import('katex').default;
let katexP: Promise<Katex> | null = null;
export function loadKatex(): Promise<Katex> {
  if (!katexP) katexP = import('katex').then((m) => m.default);
  return katexP;
}
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function stepsHtml(katex: Katex, steps: Step[], fmt: (v: number, unit: string) => string): string {
  const t = (s: string) => katex.renderToString(s, { throwOnError: false, output: 'html' });
  return `<ol class="derivation">${steps.map((s) => `<li><span class="d-label">${esc(s.label)}</span>
<span class="d-formula">${t(s.formula)}</span><span class="d-sub">${t(s.substituted)} = ${esc(fmt(s.value, s.unit))}</span></li>`).join('')}</ol>`;
}
export { esc };
