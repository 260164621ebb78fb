// <sl-memory-ladder-lab>: one tensor moved along every rung of the memory ladder (chapter 2):
// host↔HBM over PCIe, HBM, VMEM (SMEM/L2 on GPUs), ICI, DCN, NVLink, InfiniBand. Each rung's
// time is the engine's `transfer` calculator; a rung the chip has no figure for is shown as
// "not in the catalog" with the engine's message, never as an error.
import { html, nothing, type TemplateResult } from 'lit';
import { NARROW_CHART_PX, Plot, decadeTicks, moveBarsX, type Chart } from './plot';
import { defineLab, type LabResult, LabElement, type Control, type ControlSpec } from './lab-element';
import { isError, type EngineError, type Result } from '../engine';
import { pathAbsent } from './words';

/** reading order of the ladder, host first (presentation only; the paths come from the schema) */
const ORDER = ['pcie', 'hbm', 'vmem', 'ici', 'nvlink', 'dcn', 'ib'];
interface Rung { path: string; name: string; t?: number; bw?: number; missing?: string }

export class MemoryLadderLab extends LabElement<'transfer'> {
  readonly controls: ControlSpec[] = [
    { path: 'bytes', label: 'tensor size', main: true },
    { path: 'path', label: 'the rung whose derivation is shown below' },
    { path: 'chips' },
    { path: 'hops', label: 'ICI hops (for the ICI rung)' },
    { path: 'links', label: 'ICI links striped over (for the ICI rung)' },
  ];
  readonly hint = 'Try this: drag the tensor size up and down and compare the rungs: how many times longer than HBM does each network rung take?';
  /** the reader's one device has no network rung to compare: the hint sends them to a chip that has */
  protected hintText() {
    return this.onOwnDevice() ? 'Try this: drag the tensor size up and down and watch its time over the device\u2019s memory; then pick TPU v5e or H100 in the chip menu to see the network rungs beside it.' : this.hint;
  }
  protected readonly hasViz = true;
  rungs: Rung[] = [];
  private rungsFor: Result | null = null;

  /** The ICI settings on a TPU only; the number of chips not on the reader's one device: hidden
   *  where they do not apply to the chip (not greyed out, as where another setting turns them off). */
  private offChip(path: string): boolean {
    const kind = this.state?.chipFacts?.kind;
    return (['hops', 'links'].includes(path) && !!kind && kind !== 'tpu') || (path === 'chips' && this.onOwnDevice());
  }
  protected controlApplies(c: Control): boolean | undefined { return this.offChip(c.path) ? false : undefined; }
  protected renderControl(c: Control): TemplateResult {
    if (this.offChip(c.path)) return html``;
    // the rung menu lists the rungs this kind of chip has (the one chosen stays, as in the roofline lab)
    if (c.path === 'path') {
      const kind = this.state.chipFacts?.kind ?? '', now = this.values.get('path');
      return super.renderControl({ ...c, schema: { ...c.schema, choices: (c.schema.choices ?? []).filter((p) => p === now || !pathAbsent(kind, this.onOwnDevice(), p)) } });
    }
    return super.renderControl(c);
  }

  /** hops and links are ICI-only inputs: sent for the ici rung, left out elsewhere */
  protected adjustParams(p: Record<string, unknown>) {
    if (this.values.get('path') !== 'ici') {
      delete p.hops;
      delete p.links;
    }
  }

  private ladder(): Rung[] {
    const choices = this.builtControls.find((c) => c.path === 'path')!.schema.choices ?? [];
    const paths = [...ORDER.filter((p) => choices.includes(p)), ...choices.filter((p) => !ORDER.includes(p))];
    const base = this.params();
    // a rung the chip's kind does not have is left off, not listed as missing from the catalog: the
    // reader's one device has no link to another chip, a TPU no NVLink or InfiniBand, a GPU no ICI,
    // a Mac's unified memory no PCIe between host and chip
    const kind = this.state.chipFacts?.kind ?? '';
    const absent = (path: string) => pathAbsent(kind, this.onOwnDevice(), path);
    return paths.flatMap((path): Rung[] => {
      const q: Record<string, unknown> = { ...base, path };
      // hops and links are the ICI rung's alone: the base carries them when the reader's rung is ICI
      delete q.hops; delete q.links;
      // the ICI rung with the reader's hops and links (sent for that rung only)
      if (path === 'ici') for (const k of ['hops', 'links']) { const v = this.values.get(k); if (v !== this.control(k)?.schema.default) q[k] = v; }
      const r = this.engine!.evaluate('transfer', q, { steps: false });
      const name = this.choiceText('path', path); // the engine's title (the memory rung in this chip's words)
      if (isError(r)) return absent(path) ? [] : [{ path, name, missing: this.missing(r) }];
      return [{ path, name, t: r.outputs.t_s as number, bw: r.outputs.bytes_per_s as number }];
    });
  }

  /** What a rung lacks: the chip's figure the engine names (its words from the chip schema, the
   *  engine's message being about chip_overrides, which this lab has no field for), else the refusal. */
  private missing(r: EngineError): string {
    const field = r.error.field && this.engine!.objectFields('chip').find((f) => f.name === r.error.field);
    if (field) return `no figure for ${field.doc}`;
    return r.error.param && r.error.param !== 'chip' ? `${r.error.param}: ${r.error.message}` : r.error.message;
  }

  protected renderVerdict(r: LabResult<'transfer'>) {
    if (this.rungsFor !== r) { this.rungs = this.ladder(); this.rungsFor = r; } // once per evaluation
    const have = this.rungs.filter((x) => x.t !== undefined && x.t > 0);
    if (!have.length) return html`<p class="verdict">Moving ${this.fig('bytes_per_chip')} per ${this.onOwnDevice() ? 'device' : 'chip'} takes no time on any rung.</p>`;
    const fast = have.reduce((a, b) => (b.t! < a.t! ? b : a)), slow = have.reduce((a, b) => (b.t! > a.t! ? b : a));
    const f = (v: unknown, u: string) => this.engine!.format(v, u);
    if (have.length === 1) return html`<p class="verdict">Moving ${f(r.inputs.bytes, 'bytes')} over <strong>${fast.name}</strong> takes ${f(fast.t, 's')}: ${this.onOwnDevice() ? 'this device has no other rung to compare it with — no link joins it to another device' : 'the catalog gives this chip no other rung to compare it with'}${this.state.chipFacts?.kind === 'unified-memory' ? ', and its processors share this one memory, with no PCIe between them' : ''}.</p>`;
    // (a rung's name may carry its own parenthesis, "VMEM (on-chip vector memory)": the time follows
    // after a comma, a number and its unit on one line)
    return html`<p class="verdict">Moving <span class="nowrap">${f(r.inputs.bytes, 'bytes')}</span>: fastest over <strong>${fast.name}</strong>, in <span class="nowrap">${f(fast.t, 's')}</span>;
      slowest over <strong>${slow.name}</strong>, in <span class="nowrap">${f(slow.t, 's')}</span>${fast.t! > 0 ? html`, <span class="ratio nowrap">${f(slow.t! / fast.t!, '')}×</span> longer` : nothing}.</p>`;
  }

  protected renderOutputs(r: LabResult<'transfer'>) {
    const f = (v: unknown, u: string) => this.engine!.format(v, u);
    return html`<table class="ml-table"><caption>Time per rung for ${f(r.inputs.bytes, 'bytes')}${this.onOwnDevice() ? nothing : html` (${f(r.outputs.bytes_per_chip, 'bytes')} per chip)`}</caption>
      <thead><tr><th scope="col">rung</th><th scope="col">time</th><th scope="col">effective bandwidth</th></tr></thead>
      <tbody>${this.rungs.map((x) => html`<tr data-rung=${x.path}><th scope="row">${x.name}</th>
        ${x.missing ? html`<td colspan="2" class="na">not in the catalog for this ${this.onOwnDevice() ? 'device' : 'chip'}: ${x.missing}</td>`
          : html`<td>${f(x.t, 's')}</td><td>${f(x.bw, 'bytes/s')}</td>`}</tr>`)}</tbody></table>
      <dl class="lab-outputs"><div data-out="t_s"><dt>Time on the ${this.choiceText('path', r.inputs.path)} rung</dt>${this.valueCell('t_s')}</div>
      <div data-out="t_latency_s"><dt>of which latency</dt>${this.valueCell('t_latency_s')}</div></dl>
      ${this.expected(r, 't_s', 's', 'the speed this rung’s bandwidth allows')}`;
  }

  /** The rung the chart measures the others against: HBM, the rung every chip has a figure for
   *  (else the fastest). In multiples of its time the bars stay put while a large tensor's size is
   *  dragged (each rung's time grows alike, by its bandwidth) and move where latency takes over. */
  private reference(have: Rung[]): Rung {
    return have.find((x) => x.path === 'hbm') ?? have.reduce((a, b) => (b.t! < a.t! ? b : a));
  }

  protected drawViz(r: LabResult<'transfer'>, host: HTMLElement) {
    const f = (v: number, u: string) => this.engine!.format(v, u);
    const have = this.rungs.filter((x) => x.t !== undefined && x.t > 0);
    const missing = this.rungs.filter((x) => x.missing);
    // one rung (a Mac's unified memory): nothing to compare it with, so no chart of it against
    // itself; the verdict says so, and the box keeps no room
    const alone = have.length < 2 && !missing.length;
    host.classList.toggle('lab-viz-none', alone || !have.length);
    if (!have.length || alone) { host.replaceChildren(); host.style.minHeight = ''; this.chart = null; this.chartKey = ''; return; }
    const ref = this.reference(have);
    const refName = ref.path === 'hbm' ? this.memoryName() : ref.name;
    const times = (x: Rung) => x.t! / ref.t!;
    const multiple = (v: number) => `${f(v, '')}×`;
    // whole decades around the multiples and 1× (the reference's own bar, a labelled tick)
    const ratios = have.map(times);
    const lo = 10 ** Math.floor(Math.log10(Math.min(1, ...ratios) / 3)), hi = 10 ** Math.ceil(Math.log10(Math.max(1, ...ratios) * 3));
    const names = this.rungs.map((x) => x.name);
    const width = this.vizWidth(320);
    const description = this.rungs.map((x) => `${x.name}: ${x.missing ? 'not in the catalog for this chip'
      : `${f(x.t!, 's')}, ${multiple(times(x))} the ${refName} time`}`).join('; ') + '.';
    const chartKey = JSON.stringify([names, have.map((x) => x.path), ref.path, String(r.inputs.path), lo, hi, width]);
    const bars = have.map((x) => ({ x1: lo, x2: times(x), label: f(x.t!, 's') }));
    if (this.chart && chartKey === this.chartKey && host.contains(this.chart) && moveBarsX(this.chart, bars, 'ml-bar', 'ml-label', description)) return;
    this.chartKey = chartKey;
    // On a narrow screen the rungs' names go above their bars, not in a 210 px margin that would
    // leave the bars a sixth of the width.
    const narrow = width < NARROW_CHART_PX;
    const row = narrow ? 54 : 36, marginLeft = narrow ? 20 : 210, marginRight = 64;  // 20: half the first tick's label
    // the box as tall as the chart (a card's two rungs left ~80 px empty under a 200 px box)
    host.style.minHeight = `${row * names.length + 50}px`;
    const chart = Plot.plot({
      width, height: row * names.length + 50, marginLeft, marginRight, marginBottom: 40, // room for the time beside the longest bar
      ariaLabel: `Time to move the tensor over each rung of the memory ladder, one horizontal bar per rung, as a multiple of the ${refName} time on a log axis`,
      ariaDescription: description,
      style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
      x: { type: 'log', domain: [lo, hi], label: narrow && ref.path === 'hbm' ? 'Time as a multiple of the memory’s (log) →' : `Time as a multiple of ${refName}'s (log scale) →`, tickFormat: multiple, ticks: decadeTicks(lo, hi, width - marginLeft - marginRight, multiple, 1), grid: true },
      y: narrow ? { domain: names, label: null, axis: null, padding: 0.45 } : { domain: names, label: null },
      marks: [
        ...(narrow ? [Plot.text(this.rungs, { y: 'name', x: lo, text: 'name', dy: -row * 0.4, textAnchor: 'start', fill: 'currentColor', ariaHidden: 'true', className: 'ml-name' })] : []),
        // the rung whose derivation is shown in the text colour (orange is kept for "does not fit")
        Plot.barX(have, { y: 'name', x1: lo, x2: times, fill: (d: Rung) => (d.path === r.inputs.path ? 'currentColor' : 'var(--roof)'), ariaHidden: 'true', className: 'ml-bar' }),
        Plot.text(have, { y: 'name', x: times, text: (d: Rung) => f(d.t!, 's'), dx: 4, textAnchor: 'start', fill: 'currentColor', ariaHidden: 'true', className: 'ml-label' }),
        Plot.text(missing, { y: 'name', x: lo, text: () => 'not in the catalog', dx: 4, textAnchor: 'start', fill: 'var(--muted)', fontStyle: 'italic', ariaHidden: 'true' }),
      ],
    });
    chart.classList.add('ml-plot');
    host.replaceChildren(chart);
    this.chart = chart;
  }
  private chart: Chart | null = null;
  private chartKey = '';
}

defineLab('sl-memory-ladder-lab', MemoryLadderLab);
