export interface WhenCondition { kinds: string[] | null; notKinds: string[] | null; calc?: string; out?: string; params?: Record<string, unknown>; chip?: string; is?: string; not?: string; above?: string; below?: string; computes?: boolean; refused?: boolean }
export function whenCondition(attrs: Record<string, string>, params?: Record<string, unknown>): WhenCondition;
export function whenHolds(w: WhenCondition, at: { kind: string; value?: { value?: unknown; error?: unknown } }): boolean;
