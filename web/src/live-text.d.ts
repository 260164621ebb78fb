export function digitsText(value: number, unit: string, digits: string | number, format: (value: number, unit: string) => string): string;
export const VERDICT_WORDS: Record<string, string>;
export function verdictText(value: unknown, words?: string): string | null;
export function compareText(a: unknown, b: unknown, form?: string, words?: string, unit?: string): string | null;
export function isCounted(unit: unknown): boolean;
export function chipNeedsText(chip: string, labels: string[]): string;
export function chipNeedsShort(labels: string[]): string;
export function isNumberList(v: unknown): v is number[];
export function numberListText(v: number[]): string;
