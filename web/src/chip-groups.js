// The chip selectors' groups: one per chip `kind` of the catalog (data/chips.json), in this order,
// with the title the reader sees. Used by the page build (build/content.mjs) and the labs.
export const CHIP_GROUPS = [
  { kind: 'tpu', title: 'TPUs' },
  { kind: 'datacenter-gpu', title: 'Datacenter GPUs' },
  { kind: 'workstation-gpu', title: 'Workstation GPUs' },
  { kind: 'consumer-gpu', title: 'Consumer GPUs' },
  { kind: 'unified-memory', title: 'Unified memory (Apple, AMD, DGX Spark)' },
  { kind: 'cpu', title: 'CPUs' },
];

// The catalog's older kind "gpu" means a datacenter GPU (engine/src/catalog.hpp).
const ALIASES = { gpu: 'datacenter-gpu' };

/** The chips in groups, in the order above; a chip of an unknown kind falls into a last group "Other chips". */
export function groupChips(chips) {
  const groups = CHIP_GROUPS.map((g) => ({ ...g, chips: [] }));
  const other = { kind: 'other', title: 'Other chips', chips: [] };
  for (const c of chips) {
    const kind = ALIASES[c.kind] ?? c.kind;
    (groups.find((g) => g.kind === kind) ?? other).chips.push(c);
  }
  return [...groups, other].filter((g) => g.chips.length > 0);
}
