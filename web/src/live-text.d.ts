export function digitsText(value: number, unit: string, digits: string | number, format: (value: number, unit: string) => string): string;
