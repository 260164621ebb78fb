// The outputs of every calculator, declared once: the unit, the label a reader sees, a one-line
// doc and whether the value may be null. Results are written from these (evaluate.cpp), the
// schema publishes them (scalelab list --json, GET /api/v1/calculators) and the web's types
// and unit look-ups are generated from them.
#include "schema/outputs.hpp"

#include <span>

#include "schema/object_fields.hpp"

namespace scalelab {
namespace {

// Constant data (no code runs to build it): one array per calculator, then the index of them.
// clang-format off
constexpr Output kRoofline[] = {
    {"flops", "FLOPs", "FLOPs", "floating-point operations of the operation", false},
    {"bytes", "bytes", "bytes moved", "bytes the operation reads and writes across the chosen bandwidth", false},
    {"intensity", "FLOPs/byte", "arithmetic intensity", "FLOPs per byte moved (null when no bytes move)", true},
    {"critical_intensity", "FLOPs/byte", "critical intensity", "the chip's FLOP/s divided by the bandwidth: the intensity needed to be compute-bound", false},
    {"t_math_s", "s", "math time", "FLOPs divided by the chip's FLOP/s at the compute dtype", false},
    {"t_comm_s", "s", "memory/comms time", "bytes divided by the bandwidth", false},
    {"t_lower_s", "s", "time with full overlap", "the larger of math and memory/comms time", false},
    {"t_upper_s", "s", "time with no overlap", "math time plus memory/comms time", false},
    {"bound", "", "bound", "what limits the operation: compute, memory or comms", false},
    {"crossover_batch", "tokens", "exact crossover batch", "batch at which math and byte time are equal with every byte counted (null if none, or not a matmul)", true},
    {"critical_batch", "tokens", "critical batch", "the B ≪ D, F shortcut for the crossover batch (matmul only)", true},
};

constexpr Output kTransfer[] = {
    {"t_s", "s", "transfer time", "bandwidth time plus latency", false},
    {"t_bandwidth_s", "s", "bandwidth time", "bytes per chip divided by the path's bandwidth", false},
    {"t_latency_s", "s", "latency", "hop latency along the path", false},
    {"bytes_per_s", "bytes/s", "effective rate", "bytes moved per second overall (null for an empty transfer)", true},
    {"bytes_per_chip", "bytes", "bytes per chip", "each chip's share of the bytes", false},
    {"path_bytes_per_s", "bytes/s", "path bandwidth", "bandwidth of the path for one chip", false},
};

constexpr Output kSharding[] = {
    {"local_shape", "", "local shape", "shape of the shard each device holds", false},
    {"local_bytes", "bytes", "bytes per device", "bytes of one device's shard", false},
    {"global_bytes", "bytes", "array bytes", "bytes of the whole array, one copy", false},
    {"replicas", "count", "replicas", "copies of each shard across the mesh", false},
    {"total_bytes", "bytes", "bytes over all devices", "bytes held by all devices together, every copy counted", false},
    {"shards", "", "shards per dimension", "how many pieces each dimension is cut into", false},
    {"local_elements", "count", "elements per device", "elements of one device's shard", false},
    {"global_elements", "count", "array elements", "elements of the whole array", false},
    {"devices", "count", "devices", "devices in the mesh", false},
    {"spec", "", "sharding", "the sharding as parsed, in the book's notation", false},
};

constexpr Output kCollective[] = {
    {"fabric", "", "fabric", "the network the collective runs on", false},
    {"axes", "", "axes", "sizes of the mesh axes the collective spans", false},
    {"t_s", "s", "collective time", "bandwidth time plus latency time", false},
    {"t_bandwidth_s", "s", "bandwidth time", "time to push the bytes through the links", false},
    {"t_latency_s", "s", "latency time", "hops times the per-hop latency", false},
    {"regime", "", "regime", "whether bandwidth or latency dominates", false},
    {"hops", "count", "hops", "sequential hops the collective takes", false},
    {"bytes_per_link", "bytes", "bytes per link", "bytes each link carries (null where links are not modelled)", true},
    {"latency_bound_below_bytes", "bytes", "latency-bound below", "chunk size under which one hop is latency-bound", true},
    {"effective_bytes_per_s", "bytes/s", "effective rate", "array bytes divided by the collective time (null when it takes no time)", true},
    {"bottleneck", "", "bottleneck", "the tier that limits a GPU collective: nvlink, leaf or spine", true},
    {"chunk_bytes", "bytes", "chunk per hop", "bytes one device passes on per hop", false},
    {"levels", "", "levels", "the collective's phases on a hierarchical fabric, each with its time", false},
    {"group_size", "count", "group size", "devices taking part", false},
    {"wraparound", "", "wraparound priced", "whether each axis was priced as a ring with wraparound (null off the ICI torus)", true},
};

constexpr Output kShardedMatmul[] = {
    {"case", "count", "case", "which of the book's four sharded-matmul cases applies (1 to 4)", false},
    {"valid", "", "valid", "false when the spec is invalid as written", false},
    {"error", "", "problem", "why the spec is invalid (null when valid)", true},
    {"collectives", "", "collectives", "the collectives the matmul needs, each with op, axes, bytes and time (null when the spec is invalid)", true},
    {"t_comm_s", "s", "comms time", "time of the collectives (null when the spec is invalid)", true},
    {"t_math_s", "s", "math time", "local FLOPs divided by the chip's FLOP/s (null when the spec is invalid)", true},
    {"t_s", "s", "total time", "comms and math time as the strategy overlaps them (null when the spec is invalid)", true},
    {"bound", "", "bound", "what limits the matmul: compute or comms (null when the spec is invalid)", true},
    {"local_flops", "FLOPs", "FLOPs per device", "FLOPs one device performs (null when the spec is invalid)", true},
    {"flops", "FLOPs", "total FLOPs", "FLOPs over all devices, replicated work counted (null when the spec is invalid)", true},
    {"output_spec", "", "output sharding", "sharding of the result (null when the spec is invalid)", true},
};

constexpr Output kPrefill[] = {
    {"flops", "FLOPs", "FLOPs", "FLOPs of the prefill over all prompt tokens", false},
    {"t_math_s", "s", "math time", "FLOPs divided by the slice's FLOP/s and the MFU", false},
    {"t_weights_s", "s", "weight-read time", "time to read the weights once from HBM", false},
    {"t_s", "s", "prefill time", "the larger of math and weight-read time", false},
    {"bound", "", "bound", "what limits the prefill: compute or memory", false},
    {"attention_critical_length", "tokens", "attention critical length", "sequence length above which attention FLOPs outweigh the parameter FLOPs", true},
    {"activation_bytes", "bytes", "activation bytes", "activations moved by the model-parallel collectives", true},
    {"expected_t_s_low", "s", "expected prefill time, short", "the prefill-time bound at full utilisation over the high end of the share published prefill runs on this kind of chip reach (null where no runs calibrate it)", true},
    {"expected_t_s_high", "s", "expected prefill time, long", "the prefill-time bound at full utilisation over the low end of the share published prefill runs on this kind of chip reach (null where no runs calibrate it)", true},
    {"expected_runs", "count", "published runs behind the range", "how many published prefill runs the expected range is fitted to (null where no runs calibrate it)", true},
    {"expected_share_low", "ratio", "expected share of the bound, low", "the low end of the share of the bound published runs reach (null where no runs calibrate it)", true},
    {"expected_share_high", "ratio", "expected share of the bound, high", "the high end of the share of the bound published runs reach (null where no runs calibrate it)", true},
    {"expected_covered", "", "setup within the published runs", "whether the chip's kind and the settings lie within what the published runs took (null where no runs calibrate it)", true},
    {"expected_outside", "", "setup beyond the published runs", "a sentence naming the chip's kind or the settings that lie outside what the published runs took, and what they took (null when none does, or where no runs calibrate it)", true},
};


constexpr Output kTransformer[] = {
    {"params_mlp", "params", "MLP parameters", "parameters of the MLP blocks", false},
    {"params_mlp_active", "params", "active MLP parameters", "MLP parameters one token uses", false},
    {"params_attention", "params", "attention parameters", "parameters of the attention blocks", false},
    {"params_embedding", "params", "embedding parameters", "parameters of the embedding and unembedding", false},
    {"params_norm", "params", "norm parameters", "parameters of the normalisation layers", false},
    {"params_total", "params", "parameters", "all parameters", false},
    {"params_active", "params", "active parameters", "parameters one token uses", false},
    {"attention_param_fraction", "share", "attention share of parameters", "attention parameters over all parameters", false},
    {"flops_fwd_per_token", "FLOPs", "forward FLOPs per token", "2 × active parameters", false},
    {"train_flops_per_token", "FLOPs", "training FLOPs per token", "6 × active parameters", false},
    {"attention_flops_fwd", "FLOPs", "attention forward FLOPs", "FLOPs of the attention dot products, forward pass", false},
    {"attention_flops_train", "FLOPs", "attention training FLOPs", "FLOPs of the attention dot products, forward and backward", false},
    {"train_flops", "FLOPs", "training FLOPs", "training FLOPs of the batch, attention included", false},
    {"attention_flop_fraction", "share", "attention share of FLOPs", "attention FLOPs over all training FLOPs", false},
    {"qkvo_crossover_T", "tokens", "QKVO crossover length", "sequence length above which attention FLOPs exceed the QKVO projections'", false},
    {"attention_crossover_T", "tokens", "attention crossover length", "sequence length above which attention FLOPs exceed the parameter FLOPs", false},
    {"kv_bytes_per_token", "bytes", "KV bytes per token", "cache bytes one token adds, all layers", false},
    {"kv_bytes_per_sequence", "bytes", "KV bytes per sequence", "cache bytes of one sequence of T tokens", false},
    {"weight_bytes", "bytes", "weight bytes", "bytes of the weights", false},
};

constexpr Output kTrainingMemory[] = {
    {"params", "params", "parameters", "parameters the state is sized for", false},
    {"bytes_per_param", "bytes", "state bytes per parameter", "weight, gradient, optimizer and master bytes per parameter", false},
    {"params_bytes", "bytes", "weight bytes", "bytes of the weights", false},
    {"grads_bytes", "bytes", "gradient bytes", "bytes of the gradients", false},
    {"optimizer_bytes", "bytes", "optimizer bytes", "bytes of the optimizer state", false},
    {"master_bytes", "bytes", "master-weight bytes", "bytes of the fp32 master weights", false},
    {"checkpoints_per_layer", "count", "saved tensors per layer", "tokens × D tensors the forward pass saves per layer (null when the policy saves no fixed count)", true},
    {"activations_bytes", "bytes", "activation bytes", "bytes of the saved activations", false},
    {"chips", "chips", "chips", "chips the state is spread over", false},
    {"degrees", "", "degrees", "the parallelism degrees dp, fsdp, tp, pp", false},
    {"total_bytes", "bytes", "total bytes", "state plus activations over all chips", false},
    {"bytes_per_chip", "bytes", "bytes per chip", "what one chip holds", false},
    {"params_bytes_per_chip", "bytes", "weights per chip", "weight bytes one chip holds", false},
    {"grads_bytes_per_chip", "bytes", "gradients per chip", "gradient bytes one chip holds", false},
    {"optimizer_bytes_per_chip", "bytes", "optimizer state per chip", "optimizer bytes one chip holds", false},
    {"master_bytes_per_chip", "bytes", "master weights per chip", "master-weight bytes one chip holds", false},
    {"activations_bytes_per_chip", "bytes", "activations per chip", "saved-activation bytes one chip holds", false},
    {"logits_bytes_per_chip", "bytes", "logits per chip", "fp32 logits and their gradient on the last stage (accounting practice; 0 with the book's)", false},
    {"fsdp_buffers_bytes_per_chip", "bytes", "FSDP buffers per chip", "weights FSDP holds gathered and gradients before their reduce-scatter (accounting practice)", false},
    {"workspace_bytes_per_chip", "bytes", "workspace per chip", "framework workspace beside the tensors (accounting practice, GPUs)", false},
    {"allocator_reserve_bytes_per_chip", "bytes", "allocator reserve per chip", "memory the caching allocator holds unused (accounting practice, GPUs)", false},
    {"tensor_bytes_per_chip", "bytes", "tensors per chip", "bytes per chip less workspace and allocator reserve: what torch.cuda.max_memory_allocated reports", false},
    {"host_bytes_per_chip", "bytes", "host memory per chip", "optimizer state kept in host memory (offload) or paged out to it", false},
    {"memory_parts", "", "memory parts", "each part on one chip of the largest stage: part, label, bytes and where its rule comes from", false},
    {"largest_part", "", "largest part", "the part that takes the most memory on the chip", false},
    {"accounting", "", "accounting", "book (the book's rules) or practice (as frameworks hold memory)", false},
    {"micro_batches", "count", "micro-batches per step", "gradient-accumulation steps of each replica", false},
    {"in_flight_micro_batches", "count", "micro-batches in flight", "micro-batches whose activations the largest stage holds at its peak", false},
    {"stage", "count", "largest stage", "the pipeline stage (1-based) whose chip holds the most", false},
    {"stage_layers", "", "layers per stage", "how the layers fall on the pipeline stages (null without a model)", true},
    {"comm_strategy", "", "strategy for these degrees", "the training_comm strategy that prices these degrees on this chip (null on one chip)", true},
    {"hbm_bytes", "bytes", "HBM per chip", "the chip's HBM (null when the chip has no HBM figure)", true},
    {"total_hbm_bytes", "bytes", "HBM in all", "HBM of all chips together (null when the chip has no HBM figure)", true},
    {"fits", "", "fits", "whether one chip's share fits in its HBM (null when the chip has no HBM figure)", true},
    {"min_chips", "chips", "fewest chips", "fewest chips whose HBM holds the state and activations (null when the chip has no HBM figure)", true},
    {"min_nodes", "count", "fewest nodes", "fewest GPU nodes (GPUs only)", true},
    {"max_params", "params", "largest model", "parameters whose state fits on these chips (null when the chip has no HBM figure)", true},
    {"recompute_flops", "FLOPs", "recompute FLOPs", "FLOPs the backward pass repeats under checkpointing", true},
};

constexpr Output kTrainingComm[] = {
    {"strategy", "", "strategy", "the parallelism strategy", false},
    {"fabric", "", "fabric", "the network the collectives run on (null on one chip: none run)", true},
    {"pass", "", "pass", "which pass the per-layer figures describe", false},
    {"chips", "chips", "chips", "chips in the configuration", false},
    {"degrees", "", "degrees", "the parallelism degrees", true},
    {"model_parallel", "count", "model-parallel degree", "tp × pp × ep", false},
    {"tokens_per_chip", "tokens", "tokens per chip", "global batch divided by the chips", false},
    {"tokens_per_replica", "tokens", "tokens per replica", "global batch divided by the data-parallel degree", false},
    {"collective_intensity", "FLOPs/byte", "collective intensity", "FLOPs per byte the collectives move (null on one chip)", true},
    {"dp_bytes_per_s", "bytes/s", "data-parallel bandwidth", "bandwidth the data-parallel collectives get", true},
    {"tp_bytes_per_s", "bytes/s", "tensor-parallel bandwidth", "bandwidth the tensor-parallel collectives get", true},
    {"ring_factor", "ratio", "ring factor", "the (N − 1)/N factor of the ring collectives (null on one chip)", true},
    {"axes_fsdp", "count", "FSDP torus axes", "torus axes the FSDP or DP collective spans, the book's M_X (null off ICI)", true},
    {"axes_tp", "count", "TP torus axes", "torus axes the tensor-parallel collective spans, the book's M_Y (null off ICI)", true},
    {"t_math_s", "s", "math time per layer", "time of one layer's matmuls", false},
    {"t_comm_s", "s", "comms time per layer", "time of one layer's collectives (0 on one chip)", false},
    {"bound", "", "bound", "what limits a layer: compute or comms", false},
    {"critical_tokens_per_chip", "tokens", "critical tokens per chip", "tokens per chip below which comms dominate", true},
    {"critical_tokens_per_replica", "tokens", "critical tokens per replica", "tokens per replica below which comms dominate", true},
    {"critical_batch_tokens", "tokens", "critical batch", "global batch below which comms dominate", true},
    {"max_chips", "chips", "most chips while compute-bound", "chips this batch can use before comms dominate", true},
    {"tp_limit", "count", "tensor-parallel limit", "largest tensor-parallel degree before comms dominate", true},
    {"max_tp", "count", "largest tensor parallelism", "largest tensor-parallel degree that stays compute-bound", true},
    {"critical_F", "count", "critical MLP width", "MLP width below which tensor parallelism is comms-bound", true},
    {"fsdp_opt", "count", "best FSDP degree", "the book's optimal FSDP degree", true},
    {"tp_opt", "count", "best TP degree", "the book's optimal tensor-parallel degree", true},
    {"fsdp_pow2", "count", "FSDP degree (power of two)", "the optimal FSDP degree rounded to a power of two", true},
    {"tp_pow2", "count", "TP degree (power of two)", "the optimal tensor-parallel degree rounded to a power of two", true},
    {"max_dp", "count", "most data-parallel replicas", "sequences in the batch", false},
};

constexpr Output kTrainingRun[] = {
    {"params", "params", "parameters", "parameters of the model", false},
    {"total_flops", "FLOPs", "training FLOPs", "FLOPs of the whole run, 6·P·D", false},
    {"total_flops_with_attention", "FLOPs", "training FLOPs with attention", "6·P·D plus attention's FLOPs as a causal model executes them, half the book's count (null with bare params)", true},
    {"mfu_convention", "", "MFU convention", "what the given MFU counts: 6pd or attention", false},
    {"chips", "chips", "chips", "chips the run uses", false},
    {"mfu", "ratio", "MFU", "model FLOPs utilisation counting 6·P·D (given, converted from the attention convention, or implied by chip_hours)", false},
    {"mfu_with_attention", "ratio", "MFU with attention", "the same run's utilisation counting attention's FLOPs too (null with bare params, or where that passes 1: a warning says so)", true},
    {"achieved_flops_per_s", "FLOP/s", "achieved FLOP/s", "FLOP/s the run sustains over all chips", false},
    {"peak_flops", "FLOP/s", "peak FLOP/s", "FLOP/s of all chips at their peak", false},
    {"t_s", "s", "run time", "wall-clock time of the run", false},
    {"days", "days", "days", "run time in days", false},
    {"years", "years", "years", "run time in years", false},
    {"chip_hours", "chip-hours", "chip-hours", "chips × hours", false},
    {"cost_usd", "usd", "cost", "chip-hours times the price (null without a price)", true},
    {"bytes_per_chip", "bytes", "bytes per chip", "training state and activations per chip", false},
    {"fits", "", "fits", "whether the state fits on these chips", true},
    {"min_chips_memory", "chips", "fewest chips for memory", "fewest chips whose HBM holds the training state", true},
    {"days_at_min_chips", "days", "days at fewest chips", "run time on the fewest chips that hold the state", true},
    {"recommended", "", "recommended layout", "the best layout found: fsdp, tp and what bounds it", true},
    {"layouts", "", "layouts", "ranked layouts that fit, best first", true},
    {"rejected", "", "rejected layouts", "sample layouts that fail, with the reason", true},
    {"rejected_counts", "", "rejections by reason", "how many layouts failed for each reason", true},
    {"rejected_reasons", "", "reasons in words", "each rejection reason's id and what it means", true},
    {"layouts_evaluated", "count", "layouts evaluated", "layouts the search tried", true},
    {"layouts_fitting", "count", "layouts that fit", "layouts that fit in HBM and run", true},
    {"nearest_memory_miss", "", "nearest miss", "of the layouts refused for memory, the one closest to fitting (null when none)", true},
    {"layout_check", "", "the named layout", "the layout given as layout: its memory parts, step time, MFUs and the reason it is refused (null without one)", true},
    {"expected_t_s_low", "s", "expected run time, short", "the run time at the chips' peak (MFU 1, 6·P·D) over the high end of the MFU published training runs on this kind of chip reached (null where no runs calibrate it)", true},
    {"expected_t_s_high", "s", "expected run time, long", "the run time at the chips' peak (MFU 1, 6·P·D) over the low end of the MFU published training runs on this kind of chip reached (null where no runs calibrate it)", true},
    {"expected_runs", "count", "published runs behind the range", "how many published training runs the expected range is fitted to (null where no runs calibrate it)", true},
    {"expected_share_low", "ratio", "expected MFU, low", "the low end of the MFU (share of the chips' peak, 6·P·D) published training runs reached (null where no runs calibrate it)", true},
    {"expected_share_high", "ratio", "expected MFU, high", "the high end of the MFU (share of the chips' peak, 6·P·D) published training runs reached (null where no runs calibrate it)", true},
    {"expected_covered", "", "setup within the published runs", "whether the chip's kind, the chips and the sequence length lie within what the published runs took (null where no runs calibrate it)", true},
    {"expected_outside", "", "setup beyond the published runs", "a sentence naming the chip's kind or the settings that lie outside what the published runs took, and what they took (null when none does, or where no runs calibrate it)", true},
};

constexpr Output kComputeBudget[] = {
    {"flops_per_param_per_token", "FLOPs", "FLOPs per parameter per token", "6 for training, 8 with block remat", false},
    {"train_flops", "FLOPs", "training FLOPs", "FLOPs per parameter per token × N × D", false},
    {"t_s", "s", "time at peak", "training FLOPs divided by the rate (null without one)", true},
    {"weight_bytes", "bytes", "weight bytes", "N × bytes per parameter", false},
    {"weight_read_s", "s", "weight-read time", "time to read the weights once (null without a bandwidth)", true},
    {"moe_total_bytes", "bytes", "MoE bytes in all", "bytes of all MoE parameters", true},
    {"moe_active_bytes", "bytes", "MoE active bytes", "bytes of the parameters one token uses", true},
    {"critical_batch_tokens", "tokens", "critical batch", "tokens per step above which the weight read is hidden under the FLOPs", true},
    {"attention_pairs_full", "count", "attention pairs (full)", "query–key pairs without a mask: L²", false},
    {"attention_pairs_causal", "count", "attention pairs (causal)", "query–key pairs under a causal mask: L(L+1)/2", false},
    {"attention_pairs_window", "count", "attention pairs (window)", "query–key pairs under a sliding window (null without one)", true},
    {"curve", "", "loss curve", "which loss curve the loss comes from", false},
    {"loss_constants", "", "loss constants", "the curve's constants E, A, B, alpha, beta", false},
    {"loss", "", "loss", "the curve's loss at N and D", false},
};

constexpr Output kChip[] = {
    {"critical_intensity", "FLOPs/byte", "critical intensity", "bf16 FLOP/s divided by HBM bandwidth", true},
    {"critical_intensity_int8", "FLOPs/byte", "critical intensity (int8)", "int8 FLOP/s divided by HBM bandwidth", true},
    {"critical_intensity_fp8", "FLOPs/byte", "critical intensity (fp8)", "fp8 FLOP/s divided by HBM bandwidth", true},
    {"ici_axis_bytes_per_s", "bytes/s", "ICI bandwidth per axis", "two links, both directions of one wrapped axis", true},
    {"ici_critical_intensity", "FLOPs/byte", "ICI critical intensity", "bf16 FLOP/s divided by the ICI axis bandwidth", true},
    {"ici_egress_bytes_per_s", "bytes/s", "ICI egress", "one link's bandwidth times the links per chip", true},
    {"pod_flops_per_s", "FLOP/s", "pod FLOP/s", "bf16 FLOP/s of a whole pod", true},
    {"pod_hbm_bytes", "bytes", "pod HBM", "HBM of a whole pod", true},
    {"pod_hosts", "count", "hosts per pod", "chips per pod divided by chips per host", true},
    {"pod_cores", "count", "cores per pod", "TensorCores of a whole pod", true},
    {"dcn_critical_tokens", "tokens", "DCN critical tokens", "bf16 FLOP/s divided by the DCN bandwidth", true},
    {"flops_per_s_per_core", "FLOP/s", "FLOP/s per core", "bf16 FLOP/s of one TensorCore", true},
    {"hbm_to_pcie_ratio", "ratio", "HBM to PCIe ratio", "how much faster HBM is than PCIe", true},
    {"vmem_to_hbm_ratio", "ratio", "VMEM to HBM ratio", "how much faster VMEM is than HBM", true},
    {"node_nvlink_bytes_per_s", "bytes/s", "node NVLink bandwidth", "NVLink bandwidth of all GPUs in a node", true},
    {"flops_per_usd", "FLOPs/usd", "FLOPs per dollar", "bf16 FLOPs bought per dollar at the catalog price", true},
    {"mxu_macs", "count", "MACs per MXU", "multiply-accumulate units in one MXU", true},
    {"mxu_flops_per_cycle", "FLOPs", "MXU FLOPs per cycle", "FLOPs one MXU does per clock cycle", true},
    {"mxu_flops_per_s", "FLOP/s", "MXU FLOP/s", "FLOP/s of one MXU", true},
    {"mxus", "count", "MXUs", "MXUs per chip", true},
    {"mxu_peak_flops_per_s", "FLOP/s", "MXU peak FLOP/s", "FLOP/s of all MXUs of the chip", true},
    {"vpu_alus_per_core", "count", "VPU ALUs per core", "vector ALUs of one core", true},
    {"vpu_flops_per_s_per_core", "FLOP/s", "VPU FLOP/s per core", "vector FLOP/s of one core", true},
    {"vreg_bytes_per_core", "bytes", "vector registers per core", "bytes of one core's vector registers", true},
    {"vreg_bytes", "bytes", "vector registers", "bytes of all vector registers of the chip", true},
    {"vector_alus", "count", "vector ALUs", "vector ALUs of the chip", true},
    {"vector_flops_per_s", "FLOP/s", "vector FLOP/s", "FLOP/s of the vector units, one op per ALU per cycle", true},
    {"vector_fma_flops_per_cycle", "FLOPs", "vector FMA FLOPs per cycle", "FLOPs per cycle counting a fused multiply-add as two", true},
    {"vector_fma_flops_per_s", "FLOP/s", "vector FMA FLOP/s", "vector FLOP/s counting a fused multiply-add as two", true},
    {"matrix_to_vector_ratio", "ratio", "matrix to vector ratio", "bf16 matrix FLOP/s over vector FLOP/s", true},
    {"implied_clock_hz", "Hz", "implied clock", "clock implied by the fp32 rate and the vector ALUs", true},
    {"tensor_cores", "count", "Tensor Cores", "Tensor Cores of the GPU", true},
    {"warp_schedulers", "count", "warp schedulers", "warp schedulers of the GPU", true},
    {"flops_per_s_per_sm", "FLOP/s", "FLOP/s per SM", "bf16 FLOP/s of one streaming multiprocessor", true},
    {"tensor_core_flops_per_cycle", "FLOPs", "FLOPs per Tensor Core per cycle", "bf16 FLOPs one Tensor Core does per clock cycle", true},
    {"register_bytes_per_sm", "bytes", "registers per SM", "register file bytes of one SM", true},
    {"register_bytes_total", "bytes", "registers in all", "register file bytes of the GPU", true},
    {"smem_bytes_total", "bytes", "shared memory in all", "SMEM bytes of the GPU", true},
    {"node_switch_bytes_per_s", "bytes/s", "NVSwitch bandwidth per node", "switch bandwidth of all NVSwitches of a node", true},
};

constexpr Output kLocalInference[] = {
    {"params", "params", "parameters", "parameters of the model, all experts counted", false},
    {"params_active", "params", "active parameters", "parameters one token passes through", false},
    {"experts_read_share", "ratio", "share of the experts read", "expected share of an MoE's routed experts one step of every user reads, 1 - (1 - k/E)^B (null for a dense model)", true},
    {"all_experts_batch", "count", "users that read every expert", "users from which fewer than one of a layer's experts is expected to go unread per step (null for a dense model)", true},
    {"weight_bits", "bits", "bits per weight", "effective bits per weight of the format, block scales included", false},
    {"weight_bytes", "bytes", "weight bytes", "bytes of the weights in this format", false},
    {"kv_bits", "bits", "bits per KV value", "effective bits per cached value of the KV format", false},
    {"kv_bytes_per_token", "bytes", "KV bytes per token", "cache bytes one token adds, all layers, K and V", false},
    {"kv_bytes", "bytes", "KV cache", "cache bytes of every user at this context", false},
    {"overhead_bytes", "bytes", "runtime overhead", "context buffers and runtime memory beside weights and cache", false},
    {"needed_bytes", "bytes", "memory needed", "weights plus KV cache plus overhead", false},
    {"usable_memory_share", "ratio", "usable share of memory", "the share of the device's memory the model may use", false},
    {"usable_bytes", "bytes", "usable memory", "device memory times the usable share", false},
    {"margin_bytes", "bytes", "memory margin", "usable memory minus memory needed: negative when it does not fit", false},
    {"free_bytes", "bytes", "free memory", "memory left over when it fits (0 when it does not)", false},
    {"shortfall_bytes", "bytes", "shortfall", "memory missing when it does not fit (0 when it fits)", false},
    {"fits", "", "fits", "whether weights, cache and overhead fit in usable memory", false},
    {"tiers", "", "memory tiers", "device memory, system RAM and SSD: bytes stored and read in each, and the time they take", false},
    {"device_stored_bytes", "bytes", "bytes in device memory", "bytes of weights and cache held in device memory", false},
    {"spilled_bytes", "bytes", "spilled bytes", "bytes held beyond device memory (system RAM or SSD)", false},
    {"read_bytes_per_step", "bytes", "bytes read per token", "bytes one decode step reads from all tiers", false},
    {"t_memory_s", "s", "memory time per token", "each tier's bytes divided by its bandwidth, added up", false},
    {"flops_per_step", "FLOPs", "FLOPs per token step", "FLOPs of one decode step for every user", false},
    {"compute_dtype", "", "arithmetic dtype", "the dtype whose FLOP/s rate the matmuls run at", false},
    {"flops_per_s", "FLOP/s", "arithmetic rate", "the device's FLOP/s at that dtype", false},
    {"t_math_s", "s", "math time per token", "FLOPs per step divided by the arithmetic rate", false},
    {"t_comm_s", "s", "exchange time per token", "a row split's activation exchanges between the devices per step, bandwidth only (null for one device or a layer split)", true},
    {"step_s", "s", "time per token step", "the larger of memory and math time, plus a row split's exchanges", false},
    {"tokens_per_s", "tokens/s", "tokens per second (all users)", "tokens the device emits per second at best", false},
    {"tokens_per_s_per_user", "tokens/s", "tokens per second per user", "one user's token rate at best", false},
    {"bound", "", "bound", "what limits a decode step: memory or compute", false},
    {"bound_tier", "", "binding memory tier", "the tier whose reads take longest (null when compute binds)", true},
    {"prompt_tokens", "tokens", "prompt tokens", "tokens of the prompt the first token waits for", false},
    {"ttft_math_s", "s", "prefill math time", "prefill FLOPs divided by the arithmetic rate", false},
    {"ttft_weights_s", "s", "prefill weight-read time", "time to read the weights once for the prefill", false},
    {"ttft_s", "s", "time to first token", "the larger of prefill math and weight-read time", false},
    {"ttft_bound", "", "prefill bound", "what limits the prefill: compute or memory", false},
    {"measured_share_of_bound", "ratio", "measured share of the bound", "the measured tokens/s divided by the bound (null without a measurement)", true},
    {"achieved_bytes_per_s", "bytes/s", "achieved bandwidth", "bytes per step times the measured tokens/s per user (null without a measurement)", true},
    {"suggestion_kind", "", "suggestion kind", "what the first suggested change is: format, context, devices, or none", false},
    {"suggestion", "", "suggestion", "the first change that would make it fit or run faster, in words", false},
    {"suggested_format", "", "suggested format", "a smaller weight format that fits (null if not the suggestion)", true},
    {"suggested_context", "tokens", "suggested context", "a context that fits (null if not the suggestion)", true},
    {"suggested_devices", "count", "suggested devices", "devices that would hold the model (null if not the suggestion)", true},
    {"expected_tokens_per_s_low", "tokens/s", "expected tokens per second, low", "the bound times the low end of the share published local runs on this kind of device reach (null where no runs calibrate it)", true},
    {"expected_tokens_per_s_high", "tokens/s", "expected tokens per second, high", "the bound times the high end of the share published local runs on this kind of device reach (null where no runs calibrate it)", true},
    {"expected_step_s_low", "s", "expected time per token step, short", "the step-time bound over the high end of the published runs' share (null where no runs calibrate it)", true},
    {"expected_step_s_high", "s", "expected time per token step, long", "the step-time bound over the low end of the published runs' share (null where no runs calibrate it)", true},
    {"expected_ttft_s_low", "s", "expected time to first token, short", "the time-to-first-token bound over the high end of the share published prefill runs reach (null where no runs calibrate it)", true},
    {"expected_ttft_s_high", "s", "expected time to first token, long", "the time-to-first-token bound over the low end of the share published prefill runs reach (null where no runs calibrate it)", true},
    {"expected_runs", "count", "published runs behind the range", "how many published runs the expected tokens/s range is fitted to (null where no runs calibrate it)", true},
    {"expected_share_low", "ratio", "expected share of the bound, low", "the low end of the share of the tokens/s bound published runs reach (null where no runs calibrate it)", true},
    {"expected_share_high", "ratio", "expected share of the bound, high", "the high end of the share of the tokens/s bound published runs reach (null where no runs calibrate it)", true},
    {"expected_covered", "", "setup within the published runs", "whether the device's kind, users and context lie within what the published runs took (null where no runs calibrate it)", true},
    {"expected_outside", "", "setup beyond the published runs", "a sentence naming the device's kind or the settings that lie outside what the published runs took, and what they took (null when none does, or where no runs calibrate it)", true},
};

constexpr Output kFinetune[] = {
    {"method", "", "method", "what is trained: full, lora, qlora or pretrain", false},
    {"params", "params", "parameters", "parameters of the model, all experts counted", false},
    {"params_active", "params", "active parameters", "parameters one token passes through", false},
    {"adapter_params", "params", "adapter parameters", "LoRA parameters beside the frozen weights (0 without adapters)", false},
    {"trainable_params", "params", "trained parameters", "parameters that get gradients and optimizer state", false},
    {"bytes_per_trainable_param", "bytes", "bytes per trained parameter", "weight, gradient, fp32 master copy and both Adam moments", false},
    {"weight_bits", "bits", "bits per stored weight", "16 (bf16), or under QLoRA the format's effective bits per projection weight, scales included", false},
    {"weights_bytes", "bytes", "weights", "bytes of the model's own weights (bf16, or the QLoRA format for the projections)", false},
    {"adapter_bytes", "bytes", "adapters", "bytes of the LoRA adapter weights (bf16)", false},
    {"grads_bytes", "bytes", "gradients", "bytes of the trained parameters' gradients (bf16)", false},
    {"master_bytes", "bytes", "fp32 master weights", "bytes of the fp32 copy of the trained parameters", false},
    {"optimizer_bytes", "bytes", "optimizer state", "bytes of both Adam moments of the trained parameters", false},
    {"activations_bytes", "bytes", "activations", "bytes the forward pass keeps for the backward pass", false},
    {"logits_bytes", "bytes", "logits", "bytes of the fp32 logits the loss is computed from (and their gradient, accounting practice)", false},
    {"allocator_reserve_bytes", "bytes", "allocator reserve", "memory the caching allocator holds unused (accounting practice, GPUs)", false},
    {"paged_bytes", "bytes", "paged to host", "optimizer state a paged optimizer moved to host memory (0 unless it had to)", false},
    {"tensor_bytes", "bytes", "tensors", "weights, adapters, gradients, optimizer state, activations and logits on the device: what torch.cuda.max_memory_allocated reports", false},
    {"overhead_bytes", "bytes", "runtime overhead", "CUDA context, library workspaces and allocator slack", false},
    {"needed_bytes", "bytes", "memory needed", "every term above added up", false},
    {"usable_bytes", "bytes", "usable memory", "device memory times the usable share", false},
    {"margin_bytes", "bytes", "memory margin", "usable memory minus memory needed: negative when it does not fit", false},
    {"free_bytes", "bytes", "free memory", "memory left over when it fits (0 when it does not)", false},
    {"shortfall_bytes", "bytes", "shortfall", "memory missing when it does not fit (0 when it fits)", false},
    {"fits", "", "fits", "whether the training state, activations and overhead fit in usable memory", false},
    {"largest_memory_term", "", "largest memory term", "weights, adapters, gradients, optimizer, activations or overhead", false},
    {"limit", "", "binding limit", "memory when it does not fit, else compute (the time is FLOPs over FLOP/s)", false},
    {"max_micro_batch", "sequences", "largest micro-batch that fits", "sequences per step that still fit (null when not even one does)", true},
    {"micro_steps", "count", "forward-backward passes", "passes of one micro-batch needed for the token budget", false},
    {"global_batch_sequences", "sequences", "sequences per optimizer step", "micro-batch × gradient-accumulation steps", false},
    {"optimizer_steps", "count", "optimizer steps", "optimizer steps for the token budget", false},
    {"accounting", "", "accounting", "book (the book's rules) or practice (as frameworks hold memory)", false},
    {"total_flops", "FLOPs", "training FLOPs", "FLOPs of the whole token budget", false},
    {"compute_dtype", "", "arithmetic dtype", "the dtype whose FLOP/s rate the matmuls run at", false},
    {"flops_per_s", "FLOP/s", "peak arithmetic rate", "the device's FLOP/s at that dtype", false},
    {"mfu", "ratio", "MFU", "share of the peak rate the run achieves", false},
    {"t_s", "s", "training time", "training FLOPs over the achieved FLOP/s", false},
    {"hours", "h", "training time in hours", "the training time in hours", false},
    {"days", "days", "training time in days", "the training time in days", false},
    {"tokens_per_s", "tokens/s", "tokens per second", "tokens trained per second at this MFU", false},
    {"suggestion_kind", "", "suggestion kind", "what the suggested change is: checkpointing, micro_batch, method, combined, more_memory or none", false},
    {"suggestion", "", "suggestion", "the first change that would make it fit, in words", false},
    {"suggested_method", "", "suggested method", "a lighter method that fits (null if not part of the suggestion)", true},
    {"suggested_checkpointing", "", "suggested checkpointing", "true when turning checkpointing on is part of the suggestion (else null)", true},
    {"suggested_micro_batch", "sequences", "suggested micro-batch", "a micro-batch that fits (null if not part of the suggestion)", true},
};

struct Table {
  std::string_view calculator;
  std::span<const Output> outputs;
};

// Each calculator's outputs, in the order results list them.
constexpr Table kTables[] = {
    {"roofline", kRoofline},
    {"transfer", kTransfer},
    {"sharding", kSharding},
    {"collective", kCollective},
    {"sharded_matmul", kShardedMatmul},
    {"prefill", kPrefill},
    {"decode", kDecodeOutputs},
    {"serving", kServingOutputs},
    {"transformer", kTransformer},
    {"training_memory", kTrainingMemory},
    {"training_comm", kTrainingComm},
    {"training_run", kTrainingRun},
    {"compute_budget", kComputeBudget},
    {"chip", kChip},
    {"local_inference", kLocalInference},
    {"finetune", kFinetune},
};
// clang-format on

// The chip calculator also returns the resolved chip: each chip field is an output, with the
// field's unit and doc; null where the catalog (or the chip object) leaves the field out.
std::vector<Output> chip_field_outputs() {
  std::vector<Output> out;
  for (const Param& f : chip_fields()) out.push_back({f.name, f.unit, f.label, f.doc, true});
  return out;
}

}  // namespace

std::vector<Output> declared_outputs(std::string_view name) {
  std::vector<Output> out;
  if (name == "chip") out = chip_field_outputs();
  for (const Table& t : kTables) {
    if (t.calculator == name) out.insert(out.end(), t.outputs.begin(), t.outputs.end());
  }
  return out;
}

}  // namespace scalelab
