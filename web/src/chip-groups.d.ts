export interface ChipGroup<C> { kind: string; title: string; chips: C[] }
export const CHIP_GROUPS: { kind: string; title: string }[];
export function groupChips<C extends object>(chips: C[]): ChipGroup<C>[];
