// The page shell: chip selector (catalog + custom chip), Plain/Technical switch, theme.
import { getEngine, isError, type ParamSchema } from './engine';
import { chipId, customChip, DEFAULT_CHIP, mode, setChip, setMode, setTheme, theme, type Mode, type Theme } from './state';
import { esc, } from './tex';
import { fieldText, typedValue } from './format';
import { chipFromAddress, openMeasureDialog } from './measure/measure-device';

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
interface Field { path: string; schema: ParamSchema }
function chipFormFields(fields: ParamSchema[]): Field[] {
  const out: Field[] = [];
  for (const f of fields) {
    if (f.name === 'name') out.push({ path: 'name', schema: f });
    else if (f.type === 'number' || f.type === 'integer') out.push({ path: f.name, schema: f });
    else if (f.type === 'object' && f.fields) {
      for (const g of f.fields) if (g.type === 'number' || g.type === 'integer') out.push({ path: `${f.name}.${g.name}`, schema: { ...g, doc: `${g.doc}` } });
    } else if (f.type === 'choice' && f.choices) out.push({ path: f.name, schema: f });
  }
  return out;
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

async function openCustomChip(select: HTMLSelectElement, previous: string) {
  const dialog = document.querySelector<HTMLDialogElement>('#custom-chip')!;
  const engine = await getEngine();
  const baseId = previous === 'custom' ? DEFAULT_CHIP : previous;
  const start = (customChip() ?? engine.chips.find((c) => c.id === baseId) ?? engine.chips[0]) as Record<string, unknown>;
  const fields = chipFormFields(engine.objectFields('chip'));
  dialog.innerHTML = `<form method="dialog" class="custom-chip-form" novalidate>
<h2 id="custom-chip-title">Custom chip</h2>
<p class="hint">Start from a catalog chip and change what you like. Leave a field empty if the chip lacks it. The engine checks every value.</p>
<label class="wide">Start from <select name="__base">${engine.chips.map((c) => `<option value="${esc(c.id)}"${c.id === (start.id ?? baseId) ? ' selected' : ''}>${esc(c.name)}</option>`).join('')}</select></label>
<div class="chip-fields">${fields.map((f, i) => `<div class="field" data-path="${esc(f.path)}">
<label for="cc-${i}">${esc(f.path)}${f.schema.unit ? ` <span class="unit">(${esc(f.schema.unit)})</span>` : ''}</label>
${f.schema.type === 'choice' ? `<select id="cc-${i}" name="${esc(f.path)}">${(f.schema.choices || []).map((c) => `<option>${esc(c)}</option>`).join('')}</select>`
    : `<input id="cc-${i}" name="${esc(f.path)}" type="text" inputmode="${f.path === 'name' ? 'text' : 'decimal'}" autocomplete="off" aria-describedby="cc-${i}-err cc-${i}-doc">`}
<small id="cc-${i}-doc">${esc(f.schema.doc)}</small><span class="field-error" id="cc-${i}-err" role="alert"></span></div>`).join('')}</div>
<p class="form-error" role="alert"></p>
<div class="actions"><button type="button" value="cancel" class="cancel">Cancel</button><button type="submit" value="ok" class="primary">Use this chip</button></div>
</form>`;
  const form = dialog.querySelector('form')!;
  const fill = (chip: Record<string, unknown>) => {
    for (const f of fields) {
      const el = form.elements.namedItem(f.path) as HTMLInputElement | HTMLSelectElement | null;
      if (!el) continue;
      const v = get(chip, f.path);
      el.value = f.path === 'name' && chip.id !== 'custom' ? `Custom (${String(chip.name)})` : fieldText(v);
    }
  };
  fill(start);
  (form.elements.namedItem('__base') as HTMLSelectElement).addEventListener('change', (e) => {
    const c = engine.chips.find((x) => x.id === (e.target as HTMLSelectElement).value);
    if (c) fill(c);
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
      if (t === '') { set(chip, f.path, undefined); continue; }
      set(chip, f.path, typedValue(t));
    }
    chip.id = 'custom';
    const clean = stripNulls(chip) as Record<string, unknown>;
    const r = engine.evaluate('chip', { chip: clean });
    if (isError(r)) {
      const p = (r.error.param || '').replace(/^chip\./, '');
      const field = form.querySelector<HTMLElement>(`.field[data-path="${CSS.escape(p)}"]`);
      if (field) {
        field.querySelector('.field-error')!.textContent = r.error.message;
        const input = field.querySelector<HTMLElement>('input,select')!;
        input.setAttribute('aria-invalid', 'true');
        input.focus();
      } else form.querySelector('.form-error')!.textContent = `${r.error.param ?? ''}: ${r.error.message}`;
      return;
    }
    customOption(select).textContent = customLabel(clean);
    select.value = 'custom';
    dialog.close();
    setChip('custom', clean);
  });
  dialog.showModal();
}
