export function digitsText(value: number, unit: string, digits: string | number): string;
