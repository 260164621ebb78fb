// The chip a measured device becomes (the browser's "Measure this device", measure/measure-protocol.ts):
// a custom chip with only what a probe measures — its fp32 rate (and an int8 rate where the CPU's
// dot product was measured), a memory bandwidth and the memory the browser reports. One shape for the page and for the course build's chip gate
// (build/chip-gate.mjs), which checks every chapter on such a chip.
export function probeChip({ adapter, vendor, kind, flops, int8, bytesPerS, bytes, sources, notes }) {
  const chip = {
    id: 'custom',
    name: `This device (measured): ${adapter}`,
    vendor: vendor || 'unknown',
    kind,
    flops_per_s: int8 === undefined ? { fp32: flops } : { fp32: flops, int8 },
    hbm_bytes: bytes,
    hbm_bytes_per_s: bytesPerS,
  };
  if (sources) chip.sources = sources;
  if (notes) chip.notes = notes;
  return chip;
}
