export interface ProbeReading { adapter: string; vendor: string; kind: string; flops: number; int8?: number; bytesPerS: number; bytes: number; sources?: Record<string, string>; notes?: string }
export function probeChip(reading: ProbeReading): Record<string, unknown>;
