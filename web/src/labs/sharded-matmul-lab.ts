// <sl-sharded-matmul-lab>: a matmul of sharded arrays in the book's notation (chapters 3, 10):
// `A[I_X, J] * B[J, K_Y] -> C[I_X, K_Y]`. Which of the four cases, the collectives, comm vs
// compute (engine `sharded_matmul`), each array's local shape (engine `sharding`), and the
// equivalent JAX PartitionSpecs. The PartitionSpecs are a translation of the notation the
// reader typed (which axis names sit on which dimension), not a computation.
import { html, nothing, type TemplateResult } from 'lit';
import { Plot, moveBarsX, reachOf, type Chart, tickRoom } from './plot';
import { opWords } from './words';
import { ONE_DEVICE_KINDS, defineLab, type ChipFacts, type StartFn, type OutputName, type LabResult, LabElement, type Control, type ControlSpec } from './lab-element';
import { isError, type Result } from '../engine';

interface ArraySpec { name: string; dims: { dim: string; axes: string[] }[]; unreduced: string[] }

/** Read "A[I_X, J] * B[J, K_Y] -> C[I_X, K_Y]" into arrays, splitting each subscript into mesh
 *  axis names by greedy longest match (the engine's rule). Null where it does not parse: the
 *  engine then says why. */
export function parseSpec(spec: string, meshNames: string[]): ArraySpec[] | null {
  const out: ArraySpec[] = [];
  const re = /([A-Za-z][\w]*)\s*\[([^\]]*)\](\s*\{([^}]*)\})?/g;
  let m: RegExpExecArray | null;
  const names = [...meshNames].sort((a, b) => b.length - a.length);
  const split = (sub: string): string[] => {
    const axes: string[] = [];
    let rest = sub;
    while (rest) {
      const n = names.find((x) => rest.startsWith(x)) ?? rest[0];
      axes.push(n);
      rest = rest.slice(n.length);
    }
    return axes;
  };
  while ((m = re.exec(spec))) {
    const dims = m[2].split(',').map((d) => d.trim()).filter(Boolean).map((d) => {
      const i = d.indexOf('_');
      return i < 0 ? { dim: d, axes: [] } : { dim: d.slice(0, i), axes: split(d.slice(i + 1)) };
    });
    const unreduced = m[4] ? m[4].split(',').map((u) => u.trim().replace(/^U_/, '')).flatMap(split) : [];
    out.push({ name: m[1], dims, unreduced });
  }
  return out.length ? out : null;
}

/** A JAX PartitionSpec for one array: P('X', None), P(('X', 'Y'), None). */
export function partitionSpec(a: ArraySpec): string {
  return `P(${a.dims.map((d) => (d.axes.length === 0 ? 'None' : d.axes.length === 1 ? `'${d.axes[0]}'` : `(${d.axes.map((x) => `'${x}'`).join(', ')})`)).join(', ')})`;
}

const CASES: Record<number, string> = {
  1: 'neither input is sharded along the contracted dimension: each device multiplies its blocks, no communication needed for the product',
  2: 'one input is sharded along the contracted dimension: gather it first, or multiply the local slices and reduce the result',
  3: 'both inputs are sharded the same way along the contracted dimension: multiply locally, then reduce the partial sums',
  4: 'a mesh axis shards a free dimension of both inputs: one input must be gathered first',
};

/** A mesh axis's opening size: one on the reader's own device (the X axis says why), the engine's
 *  default elsewhere. */
function meshStart(path: string, engineDefault: unknown): StartFn {
  const one = (c: ChipFacts) => ONE_DEVICE_KINDS.includes(c.kind);
  return Object.assign((c: ChipFacts) => (one(c) ? 1 : engineDefault), {
    why: (c: ChipFacts) => (path === 'mesh.X' && one(c) ? `The ${c.name} is one device, so the mesh starts at 1 × 1: every array is whole on it and no case needs a collective. Write a sharding to see which case and collective it would need; pricing that collective needs devices joined by links, which the catalog does not give this one.` : null),
  });
}

export class ShardedMatmulLab extends LabElement<'sharded_matmul'> {
  readonly controls: ControlSpec[] = [
    // the lab's point: the notation is its main control, on its own full row right above the bars
    { path: 'spec', label: 'the matmul in the book\u2019s notation', main: true },
    { path: 'dims.I' }, { path: 'dims.J' }, { path: 'dims.K' },
    // the reader's one device: a mesh of one (no link joins it to another); the lab says what that leaves
    { path: 'mesh.X' }, { path: 'mesh.Y' },
    { path: 'strategy' },
    { path: 'activation_dtype' }, { path: 'weight_dtype' }, { path: 'output_dtype' }, { path: 'compute_dtype' },
  ];
  readonly hint = 'Try this: move the X from I to the contracting J on both sides (A[I, J_X] * B[J_X, K_Y] -> C[I, K_Y]) and watch the case and its collective change.';
  protected readonly hasViz = true;
  private pending = new Map<string, string>();

  protected adjustControl(c: Control): Control {
    if (c.path === 'mesh.X' || c.path === 'mesh.Y') c.start = meshStart(c.path, c.schema.default);
    return c;
  }

  private specText(): string { return String(this.values.get('spec') ?? ''); }
  private meshNames(): string[] {
    const def = Object.keys((this.findSchema('mesh')?.default ?? {}) as object);
    const fromControls = this.builtControls.filter((c) => c.path.startsWith('mesh.')).map((c) => c.key);
    return [...new Set([...def, ...fromControls])];
  }
  /** dims and mesh axes the spec names (single-letter axes when the mesh does not know them yet) */
  private named(): { dims: string[]; axes: string[] } {
    const arrays = parseSpec(this.specText(), this.meshNames()) ?? [];
    const dims = [...new Set(arrays.flatMap((a) => a.dims.map((d) => d.dim)))];
    const axes = [...new Set(arrays.flatMap((a) => [...a.dims.flatMap((d) => d.axes), ...a.unreduced]))];
    return { dims, axes };
  }
  /** add a control for every dimension and mesh axis the spec names that has none yet */
  private syncControls() {
    const { dims, axes } = this.named();
    const add = (path: string) => {
      if (this.builtControls.some((c) => c.path === path)) return;
      const c = this.state.buildControl({ path, key: this.builtControls.some((x) => x.key === path.split('.')[1]) ? path.replace('.', '_') : undefined });
      this.builtControls.push(c);
      this.setValue(c, c.schema.default);
      const k = this.pending.get(c.key);
      if (k !== undefined) { this.setValue(c, Number(k), k); this.pending.delete(c.key); }
    };
    dims.forEach((d) => add(`dims.${d}`));
    axes.forEach((a) => add(`mesh.${a}`));
  }
  protected controlChanged(c: Control) { if (c.path === 'spec') this.syncControls(); }
  protected applyExtraState(key: string, value: string): boolean {
    if (key === 'spec') {
      const c = this.builtControls.find((x) => x.path === 'spec')!;
      this.setValue(c, value, value);
      this.syncControls();
      return true;
    }
    if (this.builtControls.some((x) => x.key === key)) {
      if (this.pending.size) this.syncControls();
      return false;
    }
    if (/^[A-Za-z]\w*$/.test(key) && !['chip'].includes(key)) { this.pending.set(key, value); this.syncControls(); return true; }
    return false;
  }

  /** dims: exactly the spec's; mesh: the default axes plus the spec's, every entry sent */
  protected adjustParams(p: Record<string, unknown>) {
    const { dims, axes } = this.named();
    const d: Record<string, unknown> = {}, m: Record<string, unknown> = {};
    for (const c of this.builtControls) {
      const [head, name] = c.path.split('.');
      const v = this.values.get(c.path);
      if (head === 'dims' && dims.includes(name)) d[name] = v ?? null;
      if (head === 'mesh' && (axes.includes(name) || c.schema.default != null)) m[name] = v ?? null;
    }
    if (Object.keys(d).length) p.dims = d;
    if (Object.keys(m).length) p.mesh = m;
  }
  protected renderControl(c: Control): TemplateResult {
    const [head, name] = c.path.split('.');
    if (head === 'dims' || head === 'mesh') {
      const { dims, axes } = this.named();
      const used = head === 'dims' ? dims.includes(name) : axes.includes(name) || c.schema.default != null;
      if (!used) return html``;
      return super.renderControl({ ...c, label: head === 'dims' ? `size of dimension ${name}` : `devices along mesh axis ${name}` });
    }
    return super.renderControl(c);
  }

  /** On the reader's one device a sharding that needs a collective is refused (no link to price it
   *  over): its case, collectives, output sharding and FLOPs still follow from the notation, read as
   *  on a chip with links (an H100's, the mesh as written); only the times are left unpriced. Every
   *  table then follows that reading, so none keeps the last priced sharding's figures. */
  private typedOnOneDevice(): LabResult<'sharded_matmul'> | null {
    if (!this.refusal?.field || !this.onOwnDevice()) return null;
    const params = { ...this.params(), chip: 'h100' };
    const key = JSON.stringify(params);
    if (key !== this.typedKey) {
      this.typedKey = key;
      const e = this.engine!.evaluate('sharded_matmul', params, { steps: false });
      this.typed = isError(e) ? null : e as LabResult<'sharded_matmul'>;
    }
    return this.typed;
  }
  private typed: LabResult<'sharded_matmul'> | null = null;
  private typedKey = '';

  /** the typed sharding, read on one device, is what the lab shows (also when the page opens on
   *  it, with no priced result before): nothing of a last priced result stays on screen, so
   *  nothing is greyed */
  protected evaluateNow() {
    super.evaluateNow();
    const t = this.typedOnOneDevice();
    if (t) { this.state.errors.clear(); this.result = t; }
  }
  /** the H100's notes are not this device's: none beside the typed reading */
  protected warningShown(): boolean { return !this.typedOnOneDevice(); }

  private caseOnOneDevice(): TemplateResult | null {
    const t = this.typedOnOneDevice();
    if (!t) return null;
    const o = t.outputs;
    if (o.valid === false) return html`<p class="verdict verdict-invalid"><strong>Invalid as written</strong> (case ${String(o.case)}): ${String(o.error)}</p>`;
    const colls = ((o.collectives ?? []) as Record<string, unknown>[]).map((c) => `${/^[AE]/.test(opWords(c.op)) ? 'an' : 'a'} ${opWords(c.op)} of ${String(c.array ?? '')} over ${(c.axes as string[]).join(' and ')}`);
    return html`<p class="verdict verdict-comms"><strong>Case ${String(o.case)}</strong>: ${CASES[o.case as number] ?? ''}; output ${String(o.output_spec)}.
      ${colls.length ? html`It needs ${colls.join(', then ')}; its time cannot be priced on one device, which no link joins to another.` : nothing}</p>`;
  }

  protected renderVerdict(r: LabResult<'sharded_matmul'>) {
    const one = this.caseOnOneDevice();
    if (one) return one;
    const o = r.outputs;
    if (o.valid === false) {
      return html`<p class="verdict verdict-invalid"><strong>Invalid as written</strong> (case ${String(o.case)}): ${String(o.error)}</p>`;
    }
    const bound = String(o.bound);
    // with nothing to communicate, no contest between math and links: the math alone
    const none = Number(o.t_comm_s) === 0 && !((o.collectives ?? []) as unknown[]).length;
    // a mesh of one device: it holds every array whole, it has no blocks to speak of
    const devices = Object.values((r.inputs.mesh ?? {}) as Record<string, number>).reduce((a, b) => a * (Number(b) || 1), 1);
    const words = devices === 1 && Number(o.case) === 1 ? 'one device holds both inputs whole and multiplies them, no communication needed for the product' : CASES[o.case as number] ?? '';
    return html`<p class="verdict verdict-${bound === 'compute' ? 'compute' : 'comms'}"><strong>Case ${String(o.case)}</strong>: ${words}.
      ${none ? html`<strong>No communication</strong>: the math alone, ${this.fig('t_math_s')}; output ${String(o.output_spec)}.`
        : html`<strong>${bound === 'compute' ? 'Compute-bound' : 'Comms-bound'}</strong>: math ${this.fig('t_math_s')}, communication ${this.fig('t_comm_s')}; output ${String(o.output_spec)}.`}</p>
      ${bound === 'compute' ? this.expected(r, 't_s', 's', 'the chips’ peak math speed (large matmuls)', 't_math_s')
        : this.expected(r, 't_s', 's', 'the links’ speed (collectives over ICI)', 't_comm_s')}`;
  }

  private localShapes(r: LabResult<'sharded_matmul'>): { name: string; spec: string; pspec: string; local?: string; bytes?: string; err?: string }[] {
    const mesh = (r.inputs.mesh ?? {}) as Record<string, number>;
    const dims = (r.inputs.dims ?? {}) as Record<string, number>;
    const text = this.specText().split('->')[0] + (r.outputs.output_spec ? ` -> ${String(r.outputs.output_spec)}` : '');
    const arrays = parseSpec(text, Object.keys(mesh)) ?? [];
    const dtypeOf = ['activation_dtype', 'weight_dtype', 'output_dtype'];
    return arrays.map((a, i) => {
      const spec = `${a.name}[${a.dims.map((d) => d.dim + (d.axes.length ? '_' + d.axes.join('') : '')).join(', ')}]`;
      const e = this.engine!.evaluate('sharding', { spec, dims: Object.fromEntries(a.dims.map((d) => [d.dim, dims[d.dim]])), mesh, dtype: r.inputs[dtypeOf[i]] ?? 'bf16' }, { steps: false });
      const base = { name: a.name, spec, pspec: partitionSpec(a) + (a.unreduced.length ? `  # unreduced over ${a.unreduced.join(', ')}` : '') };
      if (isError(e)) return { ...base, err: e.error.message };
      return { ...base, local: `[${(e.outputs.local_shape as number[]).join(', ')}]`, bytes: this.engine!.format(e.outputs.local_bytes, 'bytes') };
    });
  }

  protected renderOutputs(r: LabResult<'sharded_matmul'>) {
    // on one device, a sharding that needs a collective: the typed reading, its times unpriced
    const typed = this.typedOnOneDevice();
    const src = typed ?? r;
    const o = src.outputs;
    const f = (v: unknown, u: string) => this.engine!.format(v, u);
    const colls = (o.collectives ?? []) as Record<string, unknown>[];
    const arrays = o.valid === false ? [] : this.localShapes(src);
    const mesh = Object.keys((src.inputs.mesh ?? {}) as object);
    const unpriced = 'not priced: no link joins this device to another';
    const rows = ([['case', 'Case'], ['t_math_s', 'Math time'], ['t_comm_s', 'Communication time'], ['t_s', 'Time (max)'], ['local_flops', 'FLOPs per device'], ['flops', 'FLOPs, all devices'], ['output_spec', 'Output sharding']] as [OutputName<'sharded_matmul'>, string][])
      .filter(([n]) => !typed || !['t_math_s', 't_s'].includes(n));
    const cell = (n: OutputName<'sharded_matmul'>) => (!typed ? this.fmt(n)
      : n === 't_comm_s' ? (colls.length ? unpriced : 'none: the product needs no communication')
      : n === 'case' || n === 'output_spec' ? String(o[n])
      : this.ownWords(f(o[n], 'FLOPs')));
    return html`${o.valid === false ? nothing : html`<dl class="lab-outputs">
        ${rows.map(([n, l]) => html`<div data-out=${n} class=${typed && n === 't_comm_s' ? 'wide' : ''}><dt>${l}</dt><dd class=${n === 'output_spec' ? '' : 'nowrap'}>${cell(n)}</dd></div>`)}</dl>`}
      <div class="table-scroll"><table class="sm-table" data-out="collectives"><caption>Collectives</caption>
        <thead><tr><th scope="col">collective</th><th scope="col">array</th><th scope="col">over</th><th scope="col">bytes</th><th scope="col">time</th></tr></thead>
        <tbody>${colls.length ? colls.map((c) => html`<tr><th scope="row">${opWords(c.op)}</th><td>${String(c.array ?? '')}</td><td>${(c.axes as string[]).join(', ')}</td><td class="nowrap">${f(c.bytes, 'bytes')}</td><td class=${typed ? '' : 'nowrap'}>${typed ? unpriced : f(c.t_s, 's')}</td></tr>`)
          : html`<tr><td colspan="5">none: the product needs no communication</td></tr>`}</tbody></table></div>
      ${arrays.length ? html`<div class="table-scroll"><table class="sm-table" data-out="arrays"><caption>Each array, per device, and in JAX (<code>mesh = Mesh(devices, (${mesh.map((m) => `'${m}'`).join(', ')}))</code>)</caption>
        <thead><tr><th scope="col">array</th><th scope="col">local shape</th><th scope="col">bytes per device</th><th scope="col">PartitionSpec</th></tr></thead>
        <tbody>${arrays.map((a) => html`<tr data-array=${a.name}><th scope="row"><code>${a.spec}</code></th>${a.err ? html`<td colspan="2">${a.err}</td>` : html`<td>${a.local}</td><td>${a.bytes}</td>`}<td><code>${a.pspec}</code></td></tr>`)}</tbody></table></div>` : nothing}`;
  }

  protected drawViz(r: LabResult<'sharded_matmul'>, host: HTMLElement) {
    const o = r.outputs;
    // no times to draw: an invalid sharding, or one device asked for a collective it cannot price
    const none = o.valid === false || o.t_math_s == null || !!this.typedOnOneDevice();
    host.classList.toggle('lab-viz-none', none); // (no chart: the box keeps no room)
    if (none) { host.replaceChildren(); this.chart = null; return; }
    const f = (v: number, u: string) => this.engine!.format(v, u);
    const data = [{ what: 'math', t: o.t_math_s as number }, ...((o.collectives ?? []) as Record<string, unknown>[]).map((c) => ({ what: `${opWords(c.op)} ${String(c.array ?? '')}`, t: c.t_s as number }))];
    const width = this.vizWidth();
    const description = data.map((d) => `${d.what}: ${f(d.t, 's')}`).join('; ') + `. ${String(o.bound)}-bound.`;
    // the time axis ends in 1-2-5 steps: while the bars stay below its end they move in place
    const reach = reachOf(Math.max(...data.map((d) => d.t)) * 1.25); // room for the labels
    const chartKey = JSON.stringify([data.map((d) => d.what), reach, width]);
    const bars = data.map((d) => ({ x1: 0, x2: d.t, label: f(d.t, 's') }));
    if (this.chart && chartKey === this.chartKey && host.contains(this.chart) && moveBarsX(this.chart, bars, 'sm-bar', 'sm-label', description)) return;
    this.chartKey = chartKey;
    const chart = Plot.plot({
      // room on the right for half the last tick's label ("100 ms"), which sits at the axis's end
      width, height: 40 * data.length + 50, marginLeft: 150, marginRight: 32, marginBottom: 40,
      ariaLabel: 'Math time against each collective\u2019s time, horizontal bars',
      ariaDescription: description,
      style: { background: 'transparent', color: 'currentColor', fontSize: '12px' },
      x: { label: 'Time →', domain: [0, reach], tickFormat: (d: number) => f(d, 's'), ticks: tickRoom(width - 170, 2, 72), grid: true },
      y: { label: null, domain: data.map((d) => d.what) },
      marks: [
        Plot.barX(data, { y: 'what', x: 't', fill: (d: { what: string }) => (d.what === 'math' ? 'var(--ok)' : 'var(--warn)'), ariaHidden: 'true', className: 'sm-bar' }),
        Plot.text(data, { y: 'what', x: 't', text: (d: { t: number }) => f(d.t, 's'), dx: 4, textAnchor: 'start', fill: 'currentColor', ariaHidden: 'true', className: 'sm-label' }),
      ],
    });
    chart.classList.add('sm-plot');
    host.replaceChildren(chart);
    this.chart = chart;
  }
  private chart: Chart | null = null;
  private chartKey = '';
}

defineLab('sl-sharded-matmul-lab', ShardedMatmulLab);
