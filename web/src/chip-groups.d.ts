export interface ChipGroup<C> { kind: string; title: string; chips: C[] }
interface KindField { name: string; choices?: string[]; choice_titles?: string[] }
export function chipGroups(chipFields: KindField[]): { kind: string; title: string }[];
export function groupChips<C extends object>(chips: C[], chipFields: KindField[]): ChipGroup<C>[];
export function sortChips<C extends object>(chips: C[]): C[];
