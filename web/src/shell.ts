// The page shell: chip selector (catalog + custom chip), Plain/Technical switch, theme.
import { getEngine, isError, type ParamSchema } from './engine';
import { chipId, customChip, DEFAULT_CHIP, linkedChipProblem, mode, setChip, setMode, setTheme, theme, type Mode, type Theme } from './state';
import { esc, } from './tex';
import { fieldText, typedValue, UNIT_WORDS } from './format';
import { chipFromAddress, openMeasureDialog } from './measure/measure-device';
import { fieldAmount, fieldProblem } from './labs/words';
import { groupChips } from './chip-groups.js';

export function applyMode(m: Mode = mode()) {
  const root = document.documentElement;
  root.classList.toggle('mode-technical', m === 'technical');
  root.classList.toggle('mode-plain', m !== 'technical');
  document.querySelectorAll<HTMLButtonElement>('.mode-switch button').forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.mode === m)));
  // Technical shows the blocks inline; Plain folds them again
  document.querySelectorAll<HTMLDetailsElement>('details.technical').forEach((d) => { d.open = m === 'technical'; });
  window.dispatchEvent(new CustomEvent('sl-mode-change', { detail: m })); // labs re-render their labels
}

function applyTheme(t: Theme = theme()) {
  const root = document.documentElement;
  if (t === 'auto') root.removeAttribute('data-theme'); else root.dataset.theme = t;
  const b = document.querySelector<HTMLButtonElement>('.theme-toggle');
  if (b) {
    b.setAttribute('aria-label', `Colour theme: ${t === 'auto' ? 'automatic' : t} (click to change)`);
    b.textContent = t === 'dark' ? '☾' : t === 'light' ? '☀' : '◐';
  }
}

export function initShell() {
  applyTheme();
  applyMode();
  document.querySelector('.theme-toggle')?.addEventListener('click', () => {
    const order: Theme[] = ['auto', 'light', 'dark'];
    const next = order[(order.indexOf(theme()) + 1) % order.length];
    setTheme(next);
    applyTheme(next);
  });
  document.querySelectorAll<HTMLButtonElement>('.mode-switch button').forEach((b) =>
    b.addEventListener('click', () => { const m = b.dataset.mode as Mode; setMode(m); applyMode(m); }));

  const select = document.querySelector<HTMLSelectElement>('#chip-select');
  if (!select) return;
  const current = chipId();
  const has = (id: string) => [...select.options].some((o) => o.value === id);
  if (current === 'custom' && customChip()) {
    select.value = 'custom';
    customOption(select).textContent = customLabel(customChip()!);
  } else select.value = has(current) ? current : DEFAULT_CHIP;
  let previous = select.value;
  if (linkedChipProblem) addressNotice(linkedChipProblem);
  void useAddressDevice(select);
  select.addEventListener('change', () => {
    if (select.value === 'custom') { void openCustomChip(select, previous); return; }
    if (select.value === 'measure') { void measureDevice(select, previous); return; }
    previous = select.value;
    setChip(select.value);
  });
  window.addEventListener('sl-chip-change', (e) => {
    // a chip chosen elsewhere (the measure dialog of chapter 0's experiment) shows here too
    if ((e as CustomEvent<{ id: string }>).detail?.id === 'custom' && customChip()) {
      customOption(select).textContent = customLabel(customChip()!);
      select.value = 'custom';
    }
    previous = select.value;
  });
}

/** A measured chip shows its own name ("This device (measured): …"); another custom chip "Custom: name". */
const customLabel = (chip: Record<string, unknown>) => {
  const name = String(chip.name || 'chip');
  return name.startsWith('This device (measured)') ? name : `Custom: ${name}`;
};
const customOption = (select: HTMLSelectElement) => select.querySelector<HTMLOptionElement>('option[value="custom"]')!;

// ---- a measured device: from the "Measure this device" dialog, or from ?device= in the address
async function measureDevice(select: HTMLSelectElement, previous: string) {
  const chip = await openMeasureDialog();
  if (!chip) { select.value = previous; return; }
  customOption(select).textContent = customLabel(chip);
  select.value = 'custom';
}
async function useAddressDevice(select: HTMLSelectElement) {
  const r = await chipFromAddress();
  if (!r) return;
  if ('error' in r) { addressNotice(r.error); return; }
  customOption(select).textContent = customLabel(r.chip);
  select.value = 'custom';
  setChip('custom', r.chip);
}
function addressNotice(text: string) {
  const p = document.createElement('p');
  p.className = 'address-notice';
  p.setAttribute('role', 'alert');
  p.textContent = text;
  document.querySelector('main')?.prepend(p);
}

// ---- custom chip form, built from the schema's chip_fields and validated by the engine
// Grouped as a chip is read: what it is, its compute, its memory, its links, its pod or node, its
// price, and (folded) the architecture details the book's deeper chapters use. Each field is
// labelled with the schema's words and unit; the group is presentation, the fields the engine's.
interface Field { path: string; schema: ParamSchema; label: string }
const CHIP_GROUPS: { title: string; fields: RegExp; folded?: boolean }[] = [
  { title: 'The chip', fields: /^(name|kind|vendor|generation)$/ },
  { title: 'Compute', fields: /^(flops_per_s\.|clock_hz$|cores_per_chip$)/ },
  { title: 'Memory', fields: /^(hbm_bytes|hbm_bytes_per_s|vmem_bytes|vmem_bytes_per_s|l2_bytes|smem_bytes_per_sm|gpu_memory_share)$/ },
  { title: 'Links', fields: /^(ici_link_bytes_per_s|ici_links|ici_hop_latency_s|pcie_bytes_per_s|dcn_bytes_per_s|nvlink_bytes_per_s|nvlink_link_bytes_per_s|ib_bytes_per_s|node_ib_bytes_per_s|beyond_pod)$/ },
  { title: 'Pod, node and host', fields: /^(pod_chips|wrap_axis_multiple|host_chips|node_gpus|nvswitches_per_node|nvswitch_ports|superpod\.)/ },
  { title: 'Price', fields: /^(price_per_hour_usd|price_usd)$/ },
  { title: 'Architecture details', fields: /./, folded: true },
];
/** The figures each kind of chip is described by (the rest wait behind "Show every figure"): a
 *  card or a Mac needs its compute, memory and host link; a TPU its ICI torus and pod; a
 *  datacenter GPU its NVLink node and InfiniBand. Presentation only: every field stays the engine's. */
const COMMON_FIELDS = /^(name|kind|flops_per_s\.|hbm_bytes|hbm_bytes_per_s|price_per_hour_usd|price_usd)$/;
const KIND_FIELDS: Record<string, RegExp> = {
  tpu: /^(ici_link_bytes_per_s|ici_links|ici_hop_latency_s|pod_chips|wrap_axis_multiple|host_chips|dcn_bytes_per_s|pcie_bytes_per_s|cores_per_chip|clock_hz|vmem_bytes|vmem_bytes_per_s|beyond_pod)$/,
  'datacenter-gpu': /^(nvlink_bytes_per_s|node_gpus|ib_bytes_per_s|node_ib_bytes_per_s|pcie_bytes_per_s|beyond_pod|sms|clock_hz|l2_bytes)$/,
  'workstation-gpu': /^(pcie_bytes_per_s|nvlink_bytes_per_s)$/,
  'consumer-gpu': /^(pcie_bytes_per_s)$/,
  'unified-memory': /^(gpu_memory_share)$/,
  cpu: /^$/,
};
export function fieldOfKind(path: string, kind: string): boolean {
  const k = kind === 'gpu' ? 'datacenter-gpu' : kind;
  return COMMON_FIELDS.test(path.replace(/^(flops_per_s\.).*/, '$1')) || (KIND_FIELDS[k]?.test(path) ?? false);
}
/** A number format's peak, named once with its unit: "BF16 peak" in FLOP/s, "INT8 peak" in OP/s. */
const PEAK = /^flops_per_s\.(\w+)$/;
function chipFormFields(fields: ParamSchema[]): Field[] {
  const out: Field[] = [];
  for (const f of fields) {
    if (f.name === 'name') out.push({ path: 'name', schema: f, label: f.label });
    else if (f.type === 'number' || f.type === 'integer') out.push({ path: f.name, schema: f, label: f.label });
    else if (f.type === 'object' && f.fields) {
      for (const g of f.fields) {
        if (g.type !== 'number' && g.type !== 'integer') continue;
        const path = `${f.name}.${g.name}`, peak = PEAK.exec(path);
        out.push(peak ? { path, schema: { ...g, unit: /^int/.test(peak[1]) ? 'OP/s' : 'FLOP/s' }, label: `${peak[1].toUpperCase()} peak` }
          : { path, schema: g, label: g.label && g.label !== g.name ? g.label : `${f.label}: ${g.name}` });
      }
    } else if (f.type === 'choice' && f.choices) out.push({ path: f.name, schema: f, label: f.label });
  }
  return out;
}
/** The engine's doc line under a field, where it says more than the label in a reader's words (a
 *  kind's identifiers, "HBM"/"TensorCores" said of every chip, "fp32 peak" beside "FP32 peak" and
 *  "price per chip-hour" under "Price per hour" on a card of the reader's own are not). */
const DOC_HIDDEN = /^(kind|hbm_bytes|hbm_bytes_per_s|cores_per_chip|price_per_hour_usd|flops_per_s\..*)$/;
function grouped(fields: Field[]): { title: string; folded: boolean; fields: Field[] }[] {
  const left = new Set(fields);
  return CHIP_GROUPS.map((g) => {
    const mine = [...left].filter((f) => g.fields.test(f.path));
    mine.forEach((f) => left.delete(f));
    return { title: g.title, folded: !!g.folded, fields: mine };
  }).filter((g) => g.fields.length);
}
function get(obj: Record<string, unknown>, p: string): unknown {
  return p.split('.').reduce<unknown>((o, k) => (o == null ? undefined : (o as Record<string, unknown>)[k]), obj);
}
function set(obj: Record<string, unknown>, p: string, v: unknown) {
  const ks = p.split('.');
  let o = obj;
  for (const k of ks.slice(0, -1)) o = (o[k] ??= {}) as Record<string, unknown>;
  o[ks[ks.length - 1]] = v;
}
function stripNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v;
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined) o[k] = stripNulls(x);
    return o;
  }
  return v;
}

/** The units a field's figure is written in (format.ts fieldText), each with an example for an empty field. */
const SAYS_UNIT: Record<string, string> = { bytes: 'such as 24 GB', 'bytes/s': 'such as 1 TB/s', 'FLOP/s': 'such as 200 TFLOP/s', 'OP/s': 'such as 400 TOP/s', Hz: 'such as 1.5 GHz', s: 'such as 1 µs' };

async function openCustomChip(select: HTMLSelectElement, previous: string) {
  const dialog = document.querySelector<HTMLDialogElement>('#custom-chip')!;
  const engine = await getEngine();
  const baseId = previous === 'custom' ? DEFAULT_CHIP : previous;
  const start = (customChip() ?? engine.chips.find((c) => c.id === baseId) ?? engine.chips[0]) as Record<string, unknown>;
  const fields = chipFormFields(engine.objectFields('chip'));
  const technical = mode() === 'technical';
  // the unit once: not where the label already names it ("FLOP/s (FLOP/s)")
  // a field whose figure carries its unit ("24 GiB", "1.008 TB/s", "197 TFLOP/s", "1.5 GHz") names
  // it in its figure, and an empty one in its example, not again beside the label
  const unitOf = (f: Field) => { const u = UNIT_WORDS[f.schema.unit] ?? f.schema.unit; return u && !f.label.includes(u) && !SAYS_UNIT[f.schema.unit] ? u : ''; };
  // a kind by its title; the engine's old name "gpu" for a datacenter GPU is not offered again
  const choices = (f: Field) => (f.schema.choices || []).map((c, k) => [c, f.schema.choice_titles?.[k] ?? c]).filter(([c]) => !(f.path === 'kind' && c === 'gpu'));
  const doc = (f: Field) => (technical ? `${f.schema.doc} (${f.path})` : DOC_HIDDEN.test(f.path) ? '' : f.schema.doc);
  const fieldHtml = (f: Field, i: number) => `<div class="field" data-path="${esc(f.path)}">
<label for="cc-${i}">${esc(f.label.charAt(0).toUpperCase() + f.label.slice(1))}${unitOf(f) ? ` <span class="unit">(${esc(unitOf(f))})</span>` : ''}</label>
${f.schema.type === 'choice' ? `<select id="cc-${i}" name="${esc(f.path)}">${choices(f).map(([c, t]) => `<option value="${esc(c)}">${esc(t)}</option>`).join('')}</select>`
    : `<input id="cc-${i}" name="${esc(f.path)}" type="text" inputmode="${f.path === 'name' ? 'text' : 'decimal'}" autocomplete="off"${SAYS_UNIT[f.schema.unit] ? ` placeholder="${esc(SAYS_UNIT[f.schema.unit])}"` : ''} aria-describedby="cc-${i}-err cc-${i}-doc">`}
<small id="cc-${i}-doc">${esc(doc(f))}</small><span class="field-error" id="cc-${i}-err" role="alert"></span></div>`;
  let n = 0;
  const groupsHtml = grouped(fields).map((g) => {
    const body = `<div class="chip-fields">${g.fields.map((f) => fieldHtml(f, n++)).join('')}</div>`;
    return g.folded ? `<details class="chip-group"><summary>${esc(g.title)}</summary>${body}</details>`
      : `<fieldset class="chip-group"><legend>${esc(g.title)}</legend>${body}</fieldset>`;
  }).join('');
  const baseName = (id: string) => engine.chips.find((c) => c.id === id)?.name ?? id;
  const startId = String(start.id === 'custom' ? baseId : start.id ?? baseId);
  dialog.innerHTML = `<form method="dialog" class="custom-chip-form" novalidate>
<h2 id="custom-chip-title">Custom chip, starting from the <span class="cc-base-name">${esc(baseName(startId))}</span></h2>
<p class="hint">Every field starts at that chip's catalog figure: change what you like, or start from another chip. Only the figures of its kind of chip are shown; leave a field empty if the chip lacks it. Numbers read as you write them (100M, 3.35T, 24 GB, 24 GiB, 400 GB/s); memory is in bytes, 1 GB = 10⁹ bytes and 1 GiB = 2³⁰. Each value is checked when you press “Use this chip”.</p>
<label class="wide cc-base">Start from <select name="__base">${groupChips([...engine.chips], [engine.chipKindField]).map((g) => `<optgroup label="${esc(g.title)}">${g.chips.map((c) => `<option value="${esc(c.id)}"${c.id === startId ? ' selected' : ''}>${esc(c.name)}</option>`).join('')}</optgroup>`).join('')}</select></label>
${groupsHtml}
<label class="check cc-all"><input type="checkbox" name="__all"> Show every figure (other kinds of chip, architecture details)</label>
<p class="form-error" role="alert"></p>
<div class="actions"><button type="button" value="cancel" class="cancel">Cancel</button><button type="submit" value="ok" class="primary">Use this chip</button></div>
</form>`;
  const form = dialog.querySelector('form')!;
  // each field as shown and the figure it stands for: a field left as shown keeps the catalog's exact
  // figure ("31.51 GB/s" shown, 31,507,692,307.7 bytes/s kept)
  const shown = new Map<string, { text: string; value: unknown }>();
  const fill = (chip: Record<string, unknown>) => {
    shown.clear();
    for (const f of fields) {
      const el = form.elements.namedItem(f.path) as HTMLInputElement | HTMLSelectElement | null;
      if (!el) continue;
      const v = get(chip, f.path);
      el.value = f.path === 'name' && chip.id !== 'custom' ? `Custom ${String(chip.name)}` : fieldText(v, f.schema.unit);
      if (typeof v === 'number') shown.set(f.path, { text: el.value, value: v });
    }
  };
  // the figures of the chosen kind, the rest behind "Show every figure" (their values kept)
  const kindSelect = form.elements.namedItem('kind') as HTMLSelectElement | null;
  const all = form.elements.namedItem('__all') as HTMLInputElement;
  const arrange = () => {
    const kind = kindSelect?.value ?? '';
    form.querySelectorAll<HTMLElement>('.field[data-path]').forEach((el) => { el.hidden = !all.checked && !fieldOfKind(el.dataset.path!, kind); });
    form.querySelectorAll<HTMLElement>('.chip-group').forEach((g) => { g.hidden = ![...g.querySelectorAll<HTMLElement>('.field')].some((el) => !el.hidden); });
  };
  fill(start);
  if (kindSelect && kindSelect.value === '' && start.kind === 'gpu') kindSelect.value = 'datacenter-gpu';
  arrange();
  kindSelect?.addEventListener('change', arrange);
  all.addEventListener('change', arrange);
  (form.elements.namedItem('__base') as HTMLSelectElement).addEventListener('change', (e) => {
    const c = engine.chips.find((x) => x.id === (e.target as HTMLSelectElement).value);
    if (c) { fill(c); form.querySelector('.cc-base-name')!.textContent = c.name; arrange(); }
  });
  const close = (ok: boolean) => {
    dialog.close();
    if (!ok) select.value = previous;
  };
  form.querySelector('.cancel')!.addEventListener('click', () => close(false));
  dialog.addEventListener('cancel', () => { select.value = previous; }, { once: true });
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    form.querySelectorAll('.field-error').forEach((e) => (e.textContent = ''));
    form.querySelectorAll('[aria-invalid]').forEach((e) => e.removeAttribute('aria-invalid'));
    form.querySelector('.form-error')!.textContent = '';
    const base = engine.chips.find((c) => c.id === (form.elements.namedItem('__base') as HTMLSelectElement).value) ?? {};
    const chip = stripNulls(structuredClone(base)) as Record<string, unknown>;
    delete chip.sources; delete chip.notes;
    for (const f of fields) {
      const el = form.elements.namedItem(f.path) as HTMLInputElement | HTMLSelectElement;
      const t = el.value.trim();
      if (f.path === 'name' || f.schema.type === 'choice') { if (t) set(chip, f.path, t); continue; }
      if (f.path.startsWith('__')) continue;
      if (t === '') { set(chip, f.path, undefined); continue; }
      const was = shown.get(f.path);
      set(chip, f.path, was && was.text.trim() === t ? was.value : typedValue(t));
    }
    chip.id = 'custom';
    const clean = stripNulls(chip) as Record<string, unknown>;
    const r = engine.evaluate('chip', { chip: clean });
    if (isError(r)) {
      const p = (r.error.param || '').replace(/^chip\./, '');
      const field = form.querySelector<HTMLElement>(`.field[data-path="${CSS.escape(p)}"]`);
      const f = fields.find((x) => x.path === p);
      const el = f ? form.elements.namedItem(f.path) as HTMLInputElement | null : null;
      // a number out of its range or text that reads as none, in words (labs/words.ts fieldProblem)
      const words = (f && el && fieldProblem(f.schema, typedValue(el.value), fieldAmount((v, u) => engine.format(v, u), f.schema.unit))) || r.error.message;
      if (field) {
        field.querySelector('.field-error')!.textContent = words;
        const input = field.querySelector<HTMLElement>('input,select')!;
        input.setAttribute('aria-invalid', 'true');
        input.focus();
      } else form.querySelector('.form-error')!.textContent = `${f?.label ?? 'This chip'}: ${words}`;
      return;
    }
    customOption(select).textContent = customLabel(clean);
    select.value = 'custom';
    dialog.close();
    setChip('custom', clean);
  });
  dialog.showModal();
}
