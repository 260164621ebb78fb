/** The sweep result of sweepColumns' header and sweepValues' doubles: what JSON.parse of sweep() gives. */
export function sweepFromColumns(headerText: string, values: Float64Array): unknown;
