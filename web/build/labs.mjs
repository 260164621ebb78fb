// Registered labs. A lab listed here gets a full-page route /labs/<name>/ and can be placed
// in a chapter with ::lab{name="…"}. `element` is the custom element the lab module defines
// (web/src/labs/registry.ts maps the same name to its module). Labs not listed here render
// as a "coming soon" box where a chapter places them.
export const LABS = [
  { name: 'roofline', element: 'sl-roofline-lab', calc: 'roofline', chapter: 1,
    title: 'Roofline lab',
    summary: 'Drag a matmul\u2019s batch and widths and watch it cross from memory-bound to compute-bound.' },
  { name: 'compute-budget', element: 'sl-compute-budget-lab', calc: 'compute_budget', chapter: 0,
    title: 'Compute budget lab',
    summary: 'Trade parameters against tokens at a fixed 6ND budget: FLOPs, time, weight memory, MoE bytes, attention pairs, and a (clearly invented) loss curve.' },
  { name: 'memory-ladder', element: 'sl-memory-ladder-lab', calc: 'transfer', chapter: 2,
    title: 'Memory ladder lab',
    summary: 'Move one tensor over PCIe, HBM, VMEM, ICI and DCN (NVLink and InfiniBand on GPUs) and compare every rung on one log axis.' },
  { name: 'collectives', element: 'sl-collectives-lab', calc: 'collective', chapter: 3,
    title: 'Collectives lab',
    summary: 'AllGather, ReduceScatter, AllReduce and AllToAll over mesh axes: the time, the latency/bandwidth crossover, a ring hop by hop, and the GPU fabric levels.' },
  { name: 'sharded-matmul', element: 'sl-sharded-matmul-lab', calc: 'sharded_matmul', chapter: 3,
    title: 'Sharded matmul lab',
    summary: 'Type a sharded matmul in the book\u2019s notation and see its case, its collectives, comm against compute, local shapes and the JAX PartitionSpecs.' },
  { name: 'model', element: 'sl-model-lab', calc: 'transformer', chapter: 4,
    title: 'Model lab',
    summary: 'Pick a model or edit its dimensions (GQA, MoE, MLA): parameters by part, FLOPs per token, attention\u2019s share as T grows, and the KV cache.' },
  // issue 6: not an engine calculator (calc: null); its own module, web/src/matmul/.
  { name: 'matmul', element: 'sl-matmul-experiment', calc: null, chapter: 0,
    title: 'CPU vs WebGPU matmul',
    summary: 'Multiply two matrices in your browser, on the CPU in WebAssembly and optionally with a WebGPU compute shader, and check every element.' },
];
