import { css } from 'lit';

// The run's own look, in its shadow root; the course's colour variables pierce it (with fallbacks).
export const decodeRunStyles = css`
  :host { display: block; font-family: var(--sans, system-ui, sans-serif); color: var(--fg, #1d1f24);
    border: 1px solid var(--line, #dcd8cf); border-radius: 10px; padding: 1rem 1.2rem; margin: 1.2rem 0;
    background: var(--bg, #fdfcf9); }
  h3 { font-size: 1.1rem; margin: 0.2rem 0 0.6rem; line-height: 1.3; }
  p { margin: 0.5rem 0; }
  .controls, .actions { display: flex; flex-wrap: wrap; gap: 0.6rem 1rem; align-items: center; margin: 0.6rem 0; }
  label { display: inline-flex; gap: 0.4rem; align-items: center; flex-wrap: wrap; }
  select, button { font: inherit; font-size: 0.95rem; min-height: 2.2rem; padding: 0.2rem 0.7rem; max-width: 100%;
    border: 1px solid var(--line, #dcd8cf); border-radius: 6px; background: var(--panel, #f3f1ec); color: inherit; }
  button { cursor: pointer; }
  button:disabled { opacity: 0.45; cursor: default; }
  button.primary { background: var(--accent, #1f5fbf); color: var(--accent-fg, #fff); border-color: var(--accent, #1f5fbf); }
  :focus-visible { outline: 3px solid var(--accent, #1f5fbf); outline-offset: 2px; }
  .hint { color: var(--muted, #5b6270); font-size: 0.9rem; }
  .status { min-height: 1.6rem; }
  progress { width: min(16rem, 60%); height: 0.9rem; vertical-align: middle; margin-right: 0.5rem; }
  .msg { border-radius: 8px; padding: 0.5rem 0.9rem; background: var(--panel, #f3f1ec); }
  .msg.warn, .check.warn { background: var(--warn-bg, #fdf0e6); border-radius: 8px; padding: 0.5rem 0.9rem; }
  .check.ok { color: var(--muted, #5b6270); font-size: 0.9rem; }
  .verdict { font-size: 1.02rem; line-height: 1.5; }
  .chart { overflow: hidden; }
  .chart svg { display: block; max-width: 100%; height: auto; }
  .table-wrap { overflow-x: auto; }
  table { border-collapse: collapse; font-size: 0.88rem; margin: 0.4rem 0; }
  th, td { text-align: left; padding: 0.2rem 0.7rem 0.2rem 0; border-bottom: 1px dotted var(--line, #dcd8cf); white-space: nowrap; }
  td.num { text-align: right; font-variant-numeric: tabular-nums; }
  details { margin-top: 0.8rem; font-size: 0.93rem; }
  summary { cursor: pointer; font-weight: 600; }
  code { font-family: var(--mono, monospace); font-size: 0.85em; overflow-wrap: anywhere; }
`;
