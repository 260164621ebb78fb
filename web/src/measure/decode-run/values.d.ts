/** lowbias32, on 32-bit unsigned integers */
export function mix(x: number): number;
/** The value at index i of the stream `seed`: an odd multiple of 1/2048 in (−1, 1). */
export function value(seed: number, i: number): number;
/** count values of the stream from index first */
export function values(seed: number, first: number, count: number): Float64Array;
