// <sl-collectives-lab>: AllGather / ReduceScatter / AllReduce / AllToAll over mesh axes
// (chapter 3; chapter 12 places it with a GPU). Time, bandwidth- vs latency-bound crossover
// as the array shrinks (a plot of engine evaluations), a ring animating hop by hop, and on
// GPUs the NVLink / leaf / spine levels. Every number is the engine's `collective`.
import { html, nothing, render, svg, type TemplateResult } from 'lit';
import { ChartCache, DECADES, NARROW_CHART_PX, Plot, SERIES, decadeTicks, labelMargin, showIn } from './plot';
import { levelWords } from './words';
import { runsCalibrating } from '../published-runs';
import { ONE_DEVICE_KINDS, byChip, defineLab, type ChipFacts, type StartFn, type OutputName, type LabResult, LabElement, type Control, type ControlSpec } from './lab-element';
import { isError, type Result } from '../engine';

/** the sentinel for "let the engine choose the fabric from the chip" */
const AUTO = 'auto';
const AXES = 3;
const ICI_ONLY = ['wraparound', 'bidirectional'];
const GPU_ONLY = ['nodes', 'sharp'];
const RING_MAX = 16; // nodes drawn in the ring picture

/** axis X on the reader's own device: one device, said why (no pod or node to form a group from) */
const ONE_DEVICE: StartFn = Object.assign(byChip({ device: 1, tpu: null, gpu: null }), {
  why: (c: ChipFacts) => (ONE_DEVICE_KINDS.includes(c.kind) ? `The ${c.name} is one device, so the lab starts on one: a collective needs a group of devices joined by links.` : null),
});

type CoChart = (HTMLElement | SVGSVGElement) & { scale?: (n: string) => { apply: (v: number) => number } | undefined };

export class CollectivesLab extends LabElement<'collective'> {
  readonly controls: ControlSpec[] = [
    { path: 'op', label: 'the collective' },
    { path: 'bytes', label: 'array size V: the full gathered array, or the unreduced buffer', main: true },
    // on the reader's own device there is no pod or node to default to: one device (the lab then
    // says what it cannot show there: nothing travels, and the catalog gives the device no link)
    ...Array.from({ length: AXES }, (_, i) => ({ path: `axes.${i}`, key: `axis${i}`, label: `mesh axis ${'XYZ'[i]} size (empty: not used)`, ...(i === 0 ? { start: ONE_DEVICE } : {}) })),
    { path: 'wraparound', schema: { type: 'choice', choices: [AUTO, 'on', 'off'], default: AUTO }, choiceLabels: { [AUTO]: "as the chip's torus does", on: 'on: every axis a ring', off: 'off: every axis an open line' }, label: 'ICI: axes wrap around into rings' },
    { path: 'bidirectional', label: 'ICI: links carry data both ways' },
    // (the networks this kind of chip is built with: a TPU's torus and its pod's DCN, a GPU's NVLink
    // node and InfiniBand between nodes; "from the chip" and the one in use stay listed)
    { path: 'fabric', label: 'network', offers: (v, c) => v === AUTO || !c || (c.kind === 'tpu' ? ['ici', 'dcn'] : ['nvlink', 'ib_fat_tree']).includes(v) },
    { path: 'nodes', label: 'GPU nodes in the group (InfiniBand fat tree)' },
    { path: 'sharp', label: 'GPU: in-network reduction (SHARP)' },
  ];
  readonly hint = 'Try this: shrink the array size until the verdict turns latency-bound; then double an axis and see how the time changes.';
  /** where the fabric has no hop latency, no size turns the verdict latency-bound: say what to try there */
  protected hintText() {
    // the reader's one device, which the engine cannot price a collective on: the hint points to the chips it offers
    if (this.refusal?.field && this.onOwnDevice()) return 'Try this: see a collective on TPU v5e or H100 (the buttons above); on the TPU, shrink the array size until the verdict turns latency-bound (the catalog gives the H100’s links no hop latency).';
    if (!this.result || this.result.outputs.t_latency_s !== 0) return this.hint;
    // (a TPU's hops cost latency on its ICI torus; the catalog gives a GPU's NVLink and InfiniBand none)
    return this.state?.chipFacts?.kind === 'tpu'
      ? 'Try this: double an axis and see how the time changes; then switch the network to the ICI torus, whose hops cost latency, and shrink the array until the verdict turns latency-bound.'
      : 'Try this: double an axis and see how the time changes. The catalog gives this GPU’s NVLink and InfiniBand no hop latency, so no array size turns the collective latency-bound here; on a TPU’s ICI torus (the chip menu) one does.';
  }
  protected readonly hasViz = true;
  private hop = 0;
  private timer = 0;
  private playing = !matchMedia('(prefers-reduced-motion: reduce)').matches;

  connectedCallback() {
    super.connectedCallback();
    this.timer = window.setInterval(() => { if (this.playing && this.result) { this.hop++; this.drawRing(); } }, 700);
  }
  disconnectedCallback() { super.disconnectedCallback(); clearInterval(this.timer); }

  /** an axis field says what all-empty axes stand for on this chip: its whole pod (a TPU), one
   *  node (a datacenter GPU) */
  protected renderControl(c: Control): TemplateResult {
    // the reader's one device, refused for want of a link: no network settings for links it lacks
    if (this.refusal?.field && this.onOwnDevice() && ['wraparound', 'bidirectional', 'fabric', 'nodes', 'sharp'].includes(c.path)) return html``;
    // a TPU's torus settings on a TPU only, a GPU fabric's on a GPU only (the one chosen stays)
    if (this.otherKindsSetting(c.path)) return html``;
    if (!c.path.startsWith('axes.')) return super.renderControl(c);
    const kind = this.state.chipFacts?.kind;
    const all = kind === 'tpu' ? 'the whole pod' : kind === 'datacenter-gpu' ? 'one node' : null;
    return super.renderControl(all ? { ...c, label: `${c.label} (empty: not used; all empty: ${all})`.replace(' (empty: not used) (', ' (') } : c);
  }

  /** the fabric choice gets an "auto" entry: the engine's default for the chip */
  protected adjustControl(c: Control): Control {
    if (c.path === 'fabric') {
      c.schema = { ...c.schema, choices: [AUTO, ...(c.schema.choices ?? [])], default: AUTO };
      c.choiceLabels = { [AUTO]: 'from the chip', ...c.choiceLabels };
    }
    return c;
  }

  /** the chip's kind (tpu / gpu) from the catalog or the custom chip object */
  private chipKind(): string {
    const v = this.chipValue();
    const c = typeof v === 'string' ? this.engine?.chipIndex.find((x) => x.id === v) : (v as Record<string, unknown>);
    return String(c?.kind ?? (c && 'ici_link_bytes_per_s' in c && c.ici_link_bytes_per_s != null ? 'tpu' : 'gpu'));
  }
  private onIci(): boolean {
    const f = this.values.get('fabric');
    return f === 'ici' || (f === AUTO && this.chipKind() === 'tpu');
  }
  /** a setting of the other kind of chip's network: ICI's on a GPU (whose menu offers no ICI),
   *  a GPU fabric's on a TPU */
  private otherKindsSetting(path: string): boolean {
    const tpu = this.chipKind() === 'tpu', fabric = this.values.get('fabric');
    if (ICI_ONLY.includes(path)) return !tpu && fabric !== 'ici';
    if (GPU_ONLY.includes(path)) return tpu && fabric !== 'nvlink' && fabric !== 'ib_fat_tree';
    return false;
  }
  protected controlApplies(c: Control): boolean | undefined {
    // the reader's one device, refused for want of a link: the collective, its size and its axes
    // move nothing there (greyed, under the words that say why)
    if (this.refusal?.field && this.onOwnDevice() && (c.path === 'op' || c.path === 'bytes' || c.path.startsWith('axes.'))) return false;
    if (ICI_ONLY.includes(c.path)) return this.onIci();
    if (GPU_ONLY.includes(c.path)) return !this.onIci() && this.values.get('fabric') !== 'dcn';
    return undefined;
  }

  protected adjustParams(p: Record<string, unknown>) {
    delete p.axes;
    if (p.fabric === AUTO) delete p.fabric;
    if (p.wraparound === AUTO) delete p.wraparound;
    else if (p.wraparound != null) p.wraparound = p.wraparound === 'on';
    const raw = Array.from({ length: AXES }, (_, i) => this.values.get(`axes.${i}`));
    const empty = (v: unknown) => v == null || v === '';
    let last = -1;
    raw.forEach((v, i) => { if (!empty(v)) last = i; });
    if (last >= 0) p.axes = raw.slice(0, last + 1).map((v) => (empty(v) ? null : v));
  }

  protected controlChanged(c: Control) {
    if (c.path === 'op' || c.path === 'bytes' || c.path.startsWith('axes')) this.hop = 0;
  }

  protected renderVerdict(r: LabResult<'collective'>) {
    const o = r.outputs;
    // the engine's regime: latency-bound exactly when its latency term exceeds its bandwidth term
    const lat = o.regime === 'latency';
    const f = (v: unknown, u: string) => this.engine!.format(v, u);
    const hops = html`${this.fig('hops')} ${o.hops === 1 ? 'hop' : 'hops'}`;
    if (!(Number(o.group_size) > 1)) {
      return html`<p class="verdict" data-regime=${String(o.regime)}><strong>One device, nothing moves</strong>: a collective over a group of one takes no time.
        Set mesh axis X to 2 or more to price one over the ${this.choiceText('fabric', o.fabric)}.</p>`;
    }
    // (the verdict's first word in its term's colour in the chart's legend: bandwidth, latency)
    return html`<p class="verdict co-verdict ${lat ? 'co-lat' : 'co-bw'}" data-regime=${String(o.regime)}><strong>${lat ? 'Latency-bound' : 'Bandwidth-bound'}</strong>:
      ${this.choiceText('op', r.inputs.op)} of <strong class="coll-size">${f(r.inputs.bytes, 'bytes')}</strong> over ${Array.isArray(o.axes) ? (o.axes as number[]).join(' × ') : '—'} devices on the ${this.choiceText('fabric', o.fabric)}
      takes <strong>${this.fig('t_s')}</strong>: ${lat ? html`the hop latencies (${this.fig('t_latency_s')}) outweigh the bandwidth term (${this.fig('t_bandwidth_s')}) over ${hops}`
        : o.t_latency_s === 0 ? html`all of it is the bandwidth term over ${hops}; the catalog gives this fabric no hop latency, so no size makes it latency-bound here`
        : html`the bandwidth term (${this.fig('t_bandwidth_s')}) outweighs the hop latencies (${this.fig('t_latency_s')}) over ${hops}`}.
      ${o.bottleneck ? html`The slowest level is <strong>${levelWords(o.bottleneck)}</strong>.` : nothing}</p>
      ${this.expected(r, 't_s', 's', 'the bound’s speed')}`;
  }

  protected renderOutputs(r: LabResult<'collective'>): TemplateResult {
    const rows: [OutputName<'collective'>, string][] = [['t_s', 'Time'], ['t_bandwidth_s', 'Bandwidth term'], ['t_latency_s', 'Latency term'], ['regime', 'Regime'], ['hops', 'Hops'],
      ['group_size', 'Devices in the group'], ['chunk_bytes', 'Chunk per device (V ÷ N)'], ['latency_bound_below_bytes', 'Latency-bound below a chunk of'],
      ['bytes_per_link', 'Bytes per link'], ['effective_bytes_per_s', 'Effective bandwidth'], ['fabric', 'Fabric'], ['bottleneck', 'Bottleneck level']];
    const levels = (r.outputs.levels ?? []) as Record<string, unknown>[];
    const f = (v: unknown, u: string) => this.engine!.format(v, u);
    const o = r.outputs;
    // no threshold where no hop latency is priced (a GPU fabric's default): say so in its row
    // (the row spans the table's width, so the words stay on a line or two)
    const none = (n: string) => (n === 'latency_bound_below_bytes' && o.latency_bound_below_bytes == null && o.t_latency_s === 0 && Number(o.group_size) > 1
      ? 'none: no hop latency is priced on this network' : null);
    return html`<dl class="lab-outputs">${rows.filter(([n]) => o[n] != null || none(n)).map(([n, l]) => html`<div data-out=${n} class=${none(n) ? 'wide' : ''}><dt>${l}</dt>${none(n) ? html`<dd><span class="none">${none(n)}</span></dd>` : n === 'fabric' ? html`<dd>${this.choiceText('fabric', o.fabric)}</dd>` : n === 'bottleneck' ? html`<dd>${levelWords(o.bottleneck)}</dd>` : this.valueCell(n)}</div>`)}</dl>
      ${this.explainRates(r)}
      ${levels.length ? html`<div class="table-scroll"><table class="co-levels"><caption>The GPU network’s levels this group crosses; the slowest sets the time</caption>
        <thead><tr><th scope="col">level</th><th scope="col">degree</th><th scope="col">GPUs</th><th scope="col">uplink</th><th scope="col">effective</th><th scope="col">time</th></tr></thead>
        <tbody>${levels.map((l) => html`<tr data-level=${String(l.level)} class=${l.level === r.outputs.bottleneck ? 'bottleneck' : ''}><th scope="row">${levelWords(l.level)}</th>
          <td>${f(l.degree, 'count')}</td><td>${f(l.gpus, 'count')}</td><td>${f(l.uplink_bytes_per_s, 'bytes/s')}</td><td>${f(l.effective_bytes_per_s, 'bytes/s')}</td><td>${f(l.t_s, 's')}</td></tr>`)}</tbody></table></div>` : nothing}
      <div class="co-ring-box">
        <div class="co-ring" role="img" aria-label=${this.ringLabel(r)}></div>
        <div class="co-ring-buttons">
          <button type="button" class="lab-button" @click=${() => { this.playing = !this.playing; this.requestUpdate(); }} aria-pressed=${this.playing ? 'true' : 'false'}>${this.playing ? 'Pause' : 'Play'} the ring</button>
          <button type="button" class="lab-button" @click=${() => { this.playing = false; this.hop++; this.drawRing(); this.requestUpdate(); }}>Next hop</button>
        </div>
        ${this.hopsWords(r) ? html`<p class="co-ring-note">${this.hopsWords(r)}</p>` : nothing}
      </div>`;
  }

  /** What the threshold and the effective bandwidth mean, from the engine's own terms: the
   *  threshold is where the hops' latency equals the bandwidth term (sharding.md's
   *  T = max(T_min·Σ|X_i|/2, V/(W·N_axes))), which on several axes is below one link's W × t_hop;
   *  the effective bandwidth is V ÷ T, which a ring's every device and direction can lift above one
   *  link's speed. */
  private explainRates(r: LabResult<'collective'>): TemplateResult | typeof nothing {
    const o = r.outputs;
    if (!(Number(o.group_size) > 1)) return nothing;
    const axes = ((o.axes ?? []) as number[]).filter((n) => n > 1);
    const lat = o.latency_bound_below_bytes != null;
    const ici = o.fabric === 'ici';
    const op = r.inputs.op;
    const gather = op === 'all_gather' || op === 'reduce_scatter';
    return html`<p class="co-explain">${lat ? html`The collective turns latency-bound where its ${this.fig('hops')} hops take as long as the bandwidth term: for chunks under ${this.fig('latency_bound_below_bytes')} a device.
        ${ici && axes.length > 1 ? html`That is below one link's bandwidth × one hop's latency (the book's rule for a single ring), because the ${axes.length} axes' hops add up while their bandwidths add too.` : nothing} ` : nothing}
      The effective bandwidth, ${this.fig('effective_bytes_per_s')}, is the array's size over the time (V ÷ T), not one link's speed:
      ${o.regime === 'latency' ? html`here the hops' latency sets the time, so it says little about the links.`
        : ici ? html`every device sends on each of its axes at once (both ways round a ring that wraps), so it can exceed what one link carries.`
        : gather ? html`each device takes in only the ${this.count(Number(o.group_size) - 1)} chunks of ${this.count(o.group_size)} it lacks through its own link, so V ÷ T is ${this.count(o.group_size)}/${this.count(Number(o.group_size) - 1)} of the link's speed.`
        : op === 'all_reduce' ? html`an AllReduce passes the data twice (a ReduceScatter, then an AllGather), so V ÷ T is below the link's speed.`
        : html`an AllToAll keeps one chunk of each device's array at home.`}</p>`;
  }

  private ringNodes(r: LabResult<'collective'>): number {
    const axes = (r.outputs.axes ?? []) as number[];
    const first = axes.find((n) => n > 1) ?? Number(r.outputs.group_size ?? 1);
    return Math.max(1, first);
  }
  /** whether the drawn ring (the first axis of more than one device) is priced with wraparound, both ways */
  private ringBothWays(r: LabResult<'collective'>): boolean {
    const axes = (r.outputs.axes ?? []) as number[];
    const wrap = (r.outputs.wraparound ?? []) as boolean[];
    const first = axes.findIndex((n) => n > 1);
    return this.onIci() && (first < 0 || wrap[first] !== false) && r.inputs.bidirectional !== false;
  }
  /** the hops the drawn ring takes to pass every chunk round once: half the ring both ways, one
   *  short of it one way (the engine's ring rule, collective_model.cpp ring_hops) */
  private ringHops(r: LabResult<'collective'>): number {
    const n = this.ringNodes(r);
    return n <= 1 ? 1 : this.ringBothWays(r) ? Math.floor(n / 2) : n - 1;
  }
  /** why the engine's hops differ from the drawn ring's: the other axes' rings, an AllReduce's two
   *  passes; null where they agree */
  private hopsWords(r: LabResult<'collective'>): string | null {
    const total = Number(r.outputs.hops ?? 0), ring = this.ringHops(r);
    if (!(total > 0) || total === ring) return null;
    const axes = ((r.outputs.axes ?? []) as number[]).filter((n) => n > 1).length;
    const direct = total < ring; // a switched GPU network: direct sends, or SHARP's trip to the switch and back
    const why = direct ? [r.inputs.op === 'all_to_all' ? 'an AllToAll sends each chunk straight to its device' : 'the switch reduces in the network (SHARP): up to it and back']
      : [axes > 1 ? `a ring on each of the ${this.count(axes)} axes in turn` : '', r.inputs.op === 'all_reduce' ? 'an AllReduce goes round twice (a ReduceScatter, then an AllGather)' : ''].filter(Boolean);
    return `The ring drawn takes ${this.count(ring)} ${ring === 1 ? 'hop' : 'hops'}; the verdict counts ${this.fmt('hops')} in all${why.length ? `: ${why.join(', and ')}` : ''}.`;
  }
  private ringLabel(r: LabResult<'collective'>): string {
    const n = this.ringNodes(r);
    const both = this.ringBothWays(r);
    return `A ring of ${n} devices${n > RING_MAX ? ` (${RING_MAX} drawn)` : ''}: each hop, every device passes one chunk of ${this.fmt('chunk_bytes')} to its neighbour${both ? ' in both directions' : ''}; it holds every chunk after ${this.count(this.ringHops(r))} hops.${this.hopsWords(r) ? ' ' + this.hopsWords(r) : ''}`;
  }

  /** draw the ring at the current hop (presentation only: positions on a circle) */
  private drawRing() {
    const r = this.result;
    const host = this.querySelector<HTMLElement>('.co-ring');
    if (!r || !host) return;
    // the drawn ring's own hops (the verdict's count covers every axis and pass: hopsWords says so)
    const N = this.ringNodes(r), n = Math.min(N, RING_MAX);
    const hops = this.ringHops(r);
    const k = this.hop % (hops + 1);
    const both = this.ringBothWays(r);
    const R = 80, cx = 110, cy = 100;
    const pos = (i: number) => [cx + R * Math.cos((2 * Math.PI * i) / n - Math.PI / 2), cy + R * Math.sin((2 * Math.PI * i) / n - Math.PI / 2)];
    // a device has received the chunks of the k neighbours behind it (and ahead, on a bidirectional ring)
    const filled = Math.min(n, Math.round((n * (1 + k * (both ? 2 : 1))) / N));
    const nodes = Array.from({ length: n }, (_, i) => {
      const [x, y] = pos(i);
      return svg`<circle cx=${x} cy=${y} r="11" class="co-node"></circle>
        <path d=${`M ${x} ${y} L ${x} ${y - 11} A 11 11 0 ${filled / n > 0.5 ? 1 : 0} 1 ${x + 11 * Math.sin((2 * Math.PI * filled) / n)} ${y - 11 * Math.cos((2 * Math.PI * filled) / n)} Z`} class="co-fill"></path>`;
    });
    const moving = k > 0 && k <= hops ? Array.from({ length: n }, (_, i) => {
      const [x1, y1] = pos(i), [x2, y2] = pos((i + 1) % n), [x3, y3] = pos((i - 1 + n) % n);
      return svg`<line x1=${x1} y1=${y1} x2=${x2} y2=${y2} class="co-hop"></line>${both ? svg`<line x1=${x1} y1=${y1} x2=${x3} y2=${y3} class="co-hop back"></line>` : nothing}`;
    }) : [];
    const tpl = svg`<svg viewBox="0 0 220 210" width="220" height="210" aria-hidden="true" class="co-ring-svg">${moving}${nodes}
      <text x=${cx} y=${cy} text-anchor="middle" class="co-hop-count">hop ${Math.min(k, hops)} / ${hops}</text></svg>`;
    render(tpl, host);
  }

  // the chart shown and its latency/bandwidth flip; those drawn, by their curve and decades
  // (dragging back re-uses them)
  private chart: CoChart | null = null;
  private flip: number | null = null;
  private charts = new ChartCache<{ chart: CoChart; flip: number | null }>();

  protected drawViz(r: LabResult<'collective'>, host: HTMLElement) {
    this.drawRing();
    const f = (v: number, u: string) => this.engine!.format(v, u);
    const V = r.inputs.bytes as number;
    const cross = r.outputs.latency_bound_below_bytes as number | null;
    const group = Number(r.outputs.group_size ?? 1);
    const center = cross ? cross * group : V;
    // whole decades around the crossover and V: a drag of V inside them keeps the curves
    const d0 = Math.floor(Math.log10(Math.max(1, Math.min(V, center / 1e3)))), d1 = Math.ceil(Math.log10(Math.max(V, center * 1e3, 10)));
    const lo = 10 ** d0, hi = 10 ** d1;
    const base = this.params();
    const runs = this.publishedOnChart(r, group, [lo, hi]);
    const key = JSON.stringify([{ ...base, bytes: null }, d0, d1, runs.map((d) => d.words)]);
    const here = { bytes: V, t: r.outputs.t_s as number };
    const runsWords = runs.length ? ` Published runs of this collective on this chip, marked as diamonds: ${runs.map((d) => d.words).join('; ')}.` : '';
    const describe = () => `${this.flip ? `Below about ${f(this.flip, 'bytes')} the collective is latency-bound; above it, bandwidth-bound.` : 'Over this range the regime does not change.'} This array, ${f(V, 'bytes')}, takes ${f(here.t, 's')} (${String(r.outputs.regime)}-bound).${runsWords}`;
    if (!(here.t > 0)) { host.replaceChildren(); return; }
    const drawn = this.charts.get(key);
    if (drawn) {
      this.chart = drawn.chart;
      this.flip = drawn.flip;
      if (this.moveMarker(here)) {
        (this.chart instanceof SVGSVGElement ? this.chart : this.chart.querySelector('svg'))?.setAttribute('aria-description', describe());
        return showIn(host, this.chart);
      }
    }
    const pts: { bytes: number; t: number; term: string }[] = [];
    let flip: number | null = null, prev: string | null = null;
    // the curve: one engine sweep of 25 sizes, evenly spaced on the log axis
    const s = this.engine!.sweep('collective', { ...base, bytes: V }, { x: { param: 'bytes', from: lo, to: hi, points: 25, scale: 'log' }, outputs: ['t_s', 't_bandwidth_s', 't_latency_s', 'regime'] });
    (isError(s) ? [] : s.x.values).forEach((b, i) => {
      if (isError(s) || s.errors[i]) return;
      const o = Object.fromEntries(Object.entries(s.outputs).map(([k, v]) => [k, v[i]]));
      if ((o.t_s as number) > 0) pts.push({ bytes: b, t: o.t_s as number, term: 'time' });
      if ((o.t_bandwidth_s as number) > 0) pts.push({ bytes: b, t: o.t_bandwidth_s as number, term: 'bandwidth term' });
      if ((o.t_latency_s as number) > 0) pts.push({ bytes: b, t: o.t_latency_s as number, term: 'latency term' });
      if (prev === 'latency' && o.regime === 'bandwidth') flip = b;
      prev = String(o.regime);
    });
    this.flip = flip;
    const width = this.vizWidth();
    // on a phone, a left margin that holds the time labels of the decades drawn, no more
    const ts = pts.map((p) => p.t).filter((t) => t > 0);
    const left = width < NARROW_CHART_PX && ts.length ? labelMargin(DECADES.range(Math.min(...ts), Math.max(...ts)).map((d) => f(d, 's'))) : 70;
    const chart = Plot.plot({
      width, height: Math.round(Math.min(320, width * 0.55)), marginLeft: left, marginRight: 28, marginBottom: 42, // room for the last tick's label
      ariaLabel: 'Collective time against array size, log–log: the bandwidth term, the latency term and the time',
      ariaDescription: describe(),
      style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
      // the legend names the lines drawn (no latency term where the fabric has no hop latency)
      color: { legend: true, ...((terms) => ({ domain: terms.map((t) => t[0]), range: terms.map((t) => t[1]) }))(([['time', 'currentColor'], ['bandwidth term', SERIES.memory], ['latency term', SERIES.comms]] as [string, string][]).filter(([t]) => pts.some((p) => p.term === t))) },
      x: { type: 'log', domain: [lo, hi], label: 'Array size V (bytes) →', tickFormat: (d: number) => f(d, 'bytes'), ticks: decadeTicks(lo, hi, width - 90, (d) => f(d, 'bytes')) },
      y: { type: 'log', label: '↑ Time', tickFormat: (d: number) => f(d, 's'), ticks: 4, grid: true },
      marks: [
        Plot.line(pts.filter((d) => d.term !== 'time'), { x: 'bytes', y: 't', stroke: 'term', strokeWidth: 1.5, strokeDasharray: '5 3', ariaHidden: 'true' }),
        Plot.line(pts.filter((d) => d.term === 'time'), { x: 'bytes', y: 't', stroke: 'term', strokeWidth: 3, ariaHidden: 'true' }),
        ...(flip ? [Plot.ruleX([flip], { stroke: 'var(--muted)', strokeDasharray: '2 3', ariaHidden: 'true' }),
          Plot.text([flip], { x: (d: number) => d, frameAnchor: 'top', text: () => 'latency | bandwidth', dy: 8, fill: 'currentColor', ariaHidden: 'true' })] : []),
        Plot.dot(runs, { x: 'bytes', y: 't', r: 5.5, symbol: 'diamond', fill: 'var(--accent)', stroke: 'var(--bg)', strokeWidth: 1.5, title: 'words', className: 'published-run' }),
        // the current size on the time line it lies on, in the time line's colour (not a term's)
        Plot.dot([here], { x: 'bytes', y: 't', r: 6, fill: 'currentColor', stroke: 'var(--bg)', strokeWidth: 2, ariaHidden: 'true', className: 'co-point' }),
      ],
    });
    chart.classList.add('co-plot');
    host.replaceChildren(chart);
    this.chart = chart as CoChart;
    this.charts.put(key, { chart: this.chart, flip });
  }

  /** The published runs of this collective (the runs behind the range) on the reader's chip, over a
   *  group of the same size and the same in-network reduction, inside the chart's sizes: at their
   *  array size and measured time. */
  private publishedOnChart(r: LabResult<'collective'>, group: number, [lo, hi]: [number, number]) {
    const chip = this.chipValue(), op = this.inputOr(r.inputs, 'op'), sharp = Boolean(this.inputOr(r.inputs, 'sharp'));
    const size = (axes: unknown) => (Array.isArray(axes) ? axes.reduce((a: number, b) => a * Number(b), 1) : null);
    const f = (v: number, u: string) => this.engine!.format(v, u);
    return (runsCalibrating({ requestUpdate: () => this.redrawCharts() }, this.calculator, 't_s', (name) => r.inputs[name] ?? r.outputs[name]) ?? [])
      .filter((m) => m.inputs.chip === chip && this.inputOr(m.inputs, 'op') === op && size(m.inputs.axes) === group && Boolean(this.inputOr(m.inputs, 'sharp')) === sharp)
      .map((m) => ({ bytes: Number(m.inputs.bytes), t: m.measured.value, words: `${m.hardware}, ${m.published}: ${f(m.measured.value, 's')} for ${f(Number(m.inputs.bytes), 'bytes')} (${m.source.where})` }))
      .filter((d) => d.bytes >= lo && d.bytes <= hi);
  }

  /** move the current-size marker using the chart's own scales; false if it cannot */
  private moveMarker(p: { bytes: number; t: number }): boolean {
    const x = this.chart?.scale?.('x'), y = this.chart?.scale?.('y');
    const dot = this.chart?.querySelector('.co-point circle');
    if (!x || !y || !dot) return false;
    const cx = x.apply(p.bytes), cy = y.apply(p.t);
    if (!Number.isFinite(cx) || !Number.isFinite(cy)) return false;
    dot.setAttribute('cx', String(cx));
    dot.setAttribute('cy', String(cy));
    dot.removeAttribute('transform');
    return true;
  }
}

defineLab('sl-collectives-lab', CollectivesLab);
