// The chip selectors' groups: one per chip kind, in the order and with the titles of the engine's
// chip schema (the `kind` field's choices and choice_titles), so that a kind is named in one place.
// Used by the page build (build/content.mjs) and the labs.

/** The groups the schema's chip fields define: [{ kind, title }], titles starting with a capital. */
export function chipGroups(chipFields) {
  const kind = chipFields.find((f) => f.name === 'kind');
  if (!kind?.choices) throw new Error('the engine schema has no chip field "kind" with choices');
  const titles = kind.choice_titles ?? kind.choices;
  return kind.choices.map((k, i) => ({ kind: k, title: titles[i].charAt(0).toUpperCase() + titles[i].slice(1) }));
}

/** The chips in groups, in the schema's order; a chip of a kind the schema does not list falls into a last group "Other chips".
 *  Within a group the chips keep the order they come in (sortChips's, where they carry their vendor). */
export function groupChips(chips, chipFields) {
  const groups = chipGroups(chipFields).map((g) => ({ ...g, chips: [] }));
  const other = { kind: 'other', title: 'Other chips', chips: [] };
  for (const c of sortChips(chips)) (groups.find((g) => g.kind === c.kind) ?? other).chips.push(c);
  return [...groups, other].filter((g) => g.chips.length > 0);
}

// The one order of chips in every menu (the page's, a lab's, the custom chip's "Start from"): by
// vendor, then generation, then model number and tier, then memory — "RTX 4070, 4070 Ti, 4070 Ti
// SUPER, 4080", "M2 (16 GB), M2 (24 GB), M2 Pro, M2 Max, M2 Ultra".
const VENDORS = ['google', 'nvidia', 'apple', 'amd', 'intel', 'generic'];
const GENERATIONS = ['volta', 'turing', 'ampere', 'ada', 'hopper', 'blackwell', 'm1', 'm2', 'm3', 'm4', 'rdna3', 'rdna3.5', 'cdna3', 'xe-hpg', 'xe2', 'zen4', 'laptop'];
const TIERS = { ti: 1, super: 1, pro: 1, max: 2, ultra: 3, nvl: 1 };
function chipKey(c) {
  const vendor = VENDORS.indexOf(String(c.vendor ?? '').toLowerCase());
  const gen = String(c.generation ?? '').toLowerCase().split(/[\s(]/)[0];
  // a TPU's generation is its number (v3 … v7); others by the list above
  const tpu = /^v(\d+)/.exec(gen);
  const generation = tpu ? Number(tpu[1]) : GENERATIONS.includes(gen) ? GENERATIONS.indexOf(gen) : GENERATIONS.length;
  const name = String(c.name ?? '');
  const model = Number(/(\d{3,4})(?!\s*GB)/.exec(name.replace(/\(.*?\)/g, ''))?.[1] ?? 0);
  const tier = name.toLowerCase().split(/[\s()]+/).reduce((t, w) => t + (TIERS[w] ?? 0), 0);
  return [vendor < 0 ? VENDORS.length : vendor, generation, model, tier, Number(c.hbm_bytes ?? 0)];
}
/** Chips in the menus' one order; chips without a vendor (an index of ids and names) keep theirs. */
export function sortChips(chips) {
  if (!chips.every((c) => 'vendor' in c)) return [...chips];
  const keys = new Map(chips.map((c) => [c, chipKey(c)]));
  return [...chips].sort((a, b) => {
    const x = keys.get(a), y = keys.get(b);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] - y[i];
    return String(a.name).localeCompare(String(b.name), 'en', { numeric: true });
  });
}
