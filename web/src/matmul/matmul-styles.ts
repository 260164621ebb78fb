import { css } from 'lit';

// Uses the course's colour variables when present (they pierce the shadow root), with fallbacks.
export const matmulStyles = css`
  :host { display: block; font-family: var(--sans, system-ui, sans-serif); color: var(--fg, #1d1f24);
    border: 1px solid var(--line, #dcd8cf); border-radius: 10px; padding: 1rem 1.2rem; margin: 1.2rem 0;
    background: var(--bg, #fdfcf9); }
  h3, h4 { margin: 0.2rem 0 0.6rem; line-height: 1.3; }
  h3 { font-size: 1.1rem; }
  h4 { font-size: 1rem; margin-top: 1.1rem; }
  p { margin: 0.4rem 0; }
  .controls { display: flex; flex-wrap: wrap; gap: 0.6rem 1.2rem; align-items: center; margin: 0.6rem 0; }
  label { display: inline-flex; gap: 0.4rem; align-items: center; }
  select, button { font: inherit; font-size: 0.95rem; min-height: 2.2rem; padding: 0.2rem 0.7rem;
    border: 1px solid var(--line, #dcd8cf); border-radius: 6px; background: var(--panel, #f3f1ec); color: inherit; }
  button { cursor: pointer; }
  button:disabled { opacity: 0.45; cursor: default; }
  button.primary { background: var(--accent, #1f5fbf); color: var(--accent-fg, #fff); border-color: var(--accent, #1f5fbf); }
  :focus-visible { outline: 3px solid var(--accent, #1f5fbf); outline-offset: 2px; }
  .hint { color: var(--muted, #5b6270); font-size: 0.9rem; }
  .status { min-height: 1.6rem; }
  progress { width: min(24rem, 100%); height: 0.9rem; vertical-align: middle; }
  .msg { border-radius: 8px; padding: 0.5rem 0.9rem; margin: 0.6rem 0; }
  .msg.ok { background: var(--ok-bg, #e6f4ec); }
  .msg.warn { background: var(--warn-bg, #fdf0e6); }
  table { border-collapse: collapse; font-size: 0.92rem; margin: 0.4rem 0; }
  th, td { text-align: left; padding: 0.2rem 0.8rem 0.2rem 0; border-bottom: 1px dotted var(--line, #dcd8cf); vertical-align: top; }
  td.num { text-align: right; font-variant-numeric: tabular-nums; font-family: var(--mono, monospace); }
  tr.failed td { color: var(--warn, #b4430d); }
  tfoot td, tfoot th { font-weight: 700; border-bottom: 0; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.15rem 1rem; margin: 0.4rem 0; font-size: 0.92rem; }
  dt { color: var(--muted, #5b6270); }
  dd { margin: 0; font-family: var(--mono, monospace); overflow-wrap: anywhere; }
  details { margin-top: 1rem; font-size: 0.95rem; }
  summary { cursor: pointer; font-weight: 600; }
  code { font-family: var(--mono, monospace); font-size: 0.9em; }
`;
