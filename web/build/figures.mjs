// Registered figures (web/src/figures/). A chapter places one with ::figure{name="…"}
// (optional state='{…}'); `element` is the custom element its module defines (the module is
// mapped in web/src/figures/registry.ts). `fallback` is what a reader without JavaScript sees.
export const FIGURES = [
  { name: 'roofline', element: 'sl-fig-roofline', chapter: 1, fallback: 'The roofline of the selected chip: attainable FLOP/s rise with arithmetic intensity until the chip’s critical intensity, then stay flat at its peak; drag the operating point to move along it.' },
  { name: 'systolic', element: 'sl-fig-systolic', chapter: 2, fallback: 'A small systolic array: weights sit in the grid, inputs enter from the left one diagonal at a time and partial sums flow down; step through the cycles.' },
  { name: 'torus', element: 'sl-fig-torus', chapter: 2, fallback: 'The selected TPU’s pod as a grid of chips joined by ICI links, with and without the wraparound links that close each axis into a ring.' },
  { name: 'ring', element: 'sl-fig-ring', chapter: 3, fallback: 'A ring AllGather on a 2D mesh, hop by hop, first along one axis and then along the other, with the time of each hop.' },
  { name: 'transformer', element: 'sl-fig-transformer', chapter: 4, fallback: 'One Transformer layer with the shape of every weight and activation for the selected model.' },
  { name: 'parallelism', element: 'sl-fig-parallelism', chapter: 5, fallback: 'Data, fully-sharded data, tensor and pipeline parallelism drawn as which part of the weights and the batch each chip of a mesh holds.' },
  { name: 'pipeline', element: 'sl-fig-pipeline', chapter: 5, fallback: 'A pipeline schedule: stages against time, each microbatch’s forward and backward passes, and the idle bubble at the start and the end.' },
  { name: 'pipeline-schedules', element: 'sl-fig-pipeline-schedules', chapter: 12, fallback: 'Four pipeline schedules side by side — GPipe, 1F1B, interleaved 1F1B and zero-bubble — with each stage’s forward and backward passes against time, the idle bubble, and the micro-batches each keeps in flight.' },
  { name: 'training-pod', element: 'sl-fig-training-pod', chapter: 6, fallback: 'The LLaMA-3 70B training pod: the chips split into data-parallel and tensor-parallel axes for the best layouts the engine finds.' },
  { name: 'kv-cache', element: 'sl-fig-kv-cache', chapter: 7, fallback: 'HBM of a serving slice filled by the weights and by the KV cache, which grows with batch and context until it no longer fits.' },
  { name: 'measured-decode', element: 'sl-fig-measured-decode', chapter: 7, fallback: 'One decode step of LLaMA-3 8B timed on a real H200, batch by batch, beside the engine’s bound for the same batch and context.' },
  { name: 'serving', element: 'sl-fig-serving', chapter: 8, fallback: 'Latency against throughput per chip for a range of batch sizes: bigger batches raise throughput and latency together.' },
  { name: 'trace', element: 'sl-fig-trace', chapter: 9, fallback: 'A synthetic profiler trace: lanes for the matrix unit and the interconnect, named operations and notes on what to read in it.' },
  { name: 'partition', element: 'sl-fig-partition', chapter: 10, fallback: 'An array split over a 2D device mesh by a PartitionSpec: each block coloured by the device that holds it.' },
  { name: 'regimes', element: 'sl-fig-regimes', chapter: 11, fallback: 'The roofline regimes on one axis: the tokens per chip above which a matmul is compute-bound against HBM, ICI and DCN.' },
  { name: 'sm', element: 'sl-fig-sm', chapter: 12, fallback: 'One streaming multiprocessor: four subpartitions, each a warp scheduler, a register file, a strip of fp32 lanes (CUDA cores) and a Tensor Core, above the L1 and shared memory they share.' },
  { name: 'nvlink-node', element: 'sl-fig-nvlink-node', chapter: 12, fallback: 'An NVLink node: eight GPUs, each linked to every NVSwitch, so any GPU reaches any other in one hop; the GPUs’ links, not the switches, set the node’s bandwidth.' },
  { name: 'gpu', element: 'sl-fig-gpu', chapter: 12, fallback: 'A GPU from the inside out: one SM, an NVLink node of GPUs around its switches, and the InfiniBand fat tree above the nodes, with the bandwidth of each level.' },
];

/** The HTML node for ::figure{name="…" state='{…}'}: the figure's element holding its
 *  no-JavaScript caption (the element replaces it with the drawing). */
export function figureNode(file, node, a, { h, text, contentWarning }) {
  const fig = FIGURES.find((f) => f.name === a.name);
  if (!fig) {
    contentWarning(file, node, `unknown figure "${a.name ?? ''}" (known: ${FIGURES.map((f) => f.name).join(', ')})`);
    return h('p', { className: ['fig-fallback'] }, [text(`(figure “${a.name ?? ''}” is not available)`)]);
  }
  let state;
  if (a.state) { try { JSON.parse(a.state); state = a.state; } catch { contentWarning(file, node, `figure state is not JSON: ${a.state}`); } }
  return h(fig.element, { className: ['sl-figure-host'], dataFigure: fig.name, dataState: state }, [
    h('p', { className: ['fig-fallback'] }, [text(`Figure: ${fig.fallback} (The drawing needs JavaScript.)`)])]);
}
