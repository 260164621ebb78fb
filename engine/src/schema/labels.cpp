#include "schema/labels.hpp"

#include <algorithm>
#include <iterator>

namespace scalelab {
namespace {

struct Label {
  std::string_view name;   // a parameter's path ("matmul.B"), or "scope:path" for one scope only
  std::string_view label;  // for people
};

// A parameter's name → its label; "scope:name" entries override the plain name in one scope.
// Constant data, sorted by name (byte order) for a binary search: keep it sorted when adding a row
// (the static_assert below says where it is not).
// clang-format off
constexpr Label kLabels[] = {
    {"T", "sequence length"},
    {"accounting", "memory counted as"},
    {"activation_checkpointing", "activation checkpointing"},
    {"activation_dtype", "activation format"},
    {"active_params", "active parameters"},
    {"arithmetic", "matmul arithmetic"},
    {"axes", "axis sizes"},
    {"axes_fsdp", "FSDP mesh axes"},
    {"axes_tp", "model-parallel mesh axes"},
    {"bandwidth", "bandwidth"},
    {"bandwidth_bytes_per_s", "memory bandwidth"},
    {"batch", "batch (sequences)"},
    {"batch_tokens", "global batch (tokens)"},
    {"bidirectional", "bidirectional links"},
    {"bytes", "bytes"},
    {"bytes_per_param", "bytes per parameter"},
    {"cached_prefix_tokens", "cached prompt tokens"},
    {"checkpointing", "activation checkpointing"},
    {"checkpoints_per_layer", "saved tensors per layer"},
    {"chip", "chip"},
    {"chip:beyond_pod", "network beyond the pod"},
    {"chip:clock_hz", "clock"},
    {"chip:cores_per_chip", "cores per chip"},
    {"chip:dcn_bytes_per_s", "DCN bandwidth"},
    {"chip:flops_per_s", "peak FLOP/s"},
    {"chip:flops_per_s.bf16", "bf16 FLOP/s"},
    {"chip:flops_per_s.fp16", "fp16 FLOP/s"},
    {"chip:flops_per_s.fp32", "fp32 FLOP/s"},
    {"chip:flops_per_s.fp4", "fp4 FLOP/s"},
    {"chip:flops_per_s.fp8", "fp8 FLOP/s"},
    {"chip:flops_per_s.int4", "int4 OP/s"},
    {"chip:flops_per_s.int8", "int8 OP/s"},
    {"chip:fp32_cores_per_subpartition", "fp32 cores per subpartition"},
    {"chip:generation", "generation"},
    {"chip:gpu_memory_share", "GPU share of unified memory"},
    {"chip:hbm_bytes", "memory capacity"},
    {"chip:hbm_bytes_per_s", "memory bandwidth"},
    {"chip:host_chips", "chips per host"},
    {"chip:host_link", "host link"},
    {"chip:ib_bytes_per_s", "InfiniBand per GPU"},
    {"chip:ici_hop_latency_s", "ICI hop latency"},
    {"chip:ici_link_bytes_per_s", "ICI link bandwidth"},
    {"chip:ici_links", "ICI links"},
    {"chip:id", "catalog id"},
    {"chip:kind", "kind"},
    {"chip:l2_bytes", "L2 cache"},
    {"chip:memory_kind", "memory type"},
    {"chip:mxu_dim", "MXU size"},
    {"chip:mxus_per_core", "MXUs per core"},
    {"chip:name", "name"},
    {"chip:node_gpus", "GPUs per node"},
    {"chip:node_ib_bytes_per_s", "InfiniBand per node"},
    {"chip:notes", "notes"},
    {"chip:nvlink_bytes_per_s", "NVLink bandwidth"},
    {"chip:nvlink_link_bytes_per_s", "NVLink link bandwidth"},
    {"chip:nvswitch_ports", "ports per NVSwitch"},
    {"chip:nvswitches_per_node", "NVSwitches per node"},
    {"chip:pcie_bytes_per_s", "PCIe bandwidth"},
    {"chip:pod_chips", "chips per pod"},
    {"chip:pod_shape", "pod shape"},
    {"chip:price_per_hour_usd", "price per hour"},
    {"chip:price_usd", "purchase price"},
    {"chip:registers_per_subpartition", "registers per subpartition"},
    {"chip:smem_bytes_per_sm", "shared memory per SM"},
    {"chip:sms", "SMs"},
    {"chip:sources", "sources"},
    {"chip:subpartitions_per_sm", "subpartitions per SM"},
    {"chip:superpod", "SuperPod"},
    {"chip:superpod.gpus", "GPUs per SuperPod"},
    {"chip:superpod.gpus_per_su", "GPUs per scalable unit"},
    {"chip:superpod.ib_port_one_way_bytes_per_s", "IB port bandwidth"},
    {"chip:superpod.ib_switch_ports", "ports per IB switch"},
    {"chip:superpod.leaf_switches", "leaf switches"},
    {"chip:superpod.nodes", "nodes per SuperPod"},
    {"chip:superpod.spine_switches", "spine switches"},
    {"chip:tensor_cores_per_sm", "Tensor Cores per SM"},
    {"chip:topology", "topology"},
    {"chip:topology.beyond_pod", "network beyond the pod"},
    {"chip:topology.ici_links", "ICI links per chip"},
    {"chip:topology.kind", "kind"},
    {"chip:topology.nvlink_domain_gpus", "GPUs per NVLink domain"},
    {"chip:topology.pod_axes", "pod axes"},
    {"chip:topology.pod_chips", "chips per pod"},
    {"chip:topology.pod_shape", "pod shape"},
    {"chip:topology.scale_up", "scale-up network"},
    {"chip:topology.wrap_axis_multiple", "axis length that wraps"},
    {"chip:topology.wraparound_rule", "wraparound rule"},
    {"chip:vendor", "maker"},
    {"chip:vmem_bytes", "VMEM capacity"},
    {"chip:vmem_bytes_per_s", "VMEM bandwidth"},
    {"chip:vpu_alus_per_lane", "ALUs per VPU lane"},
    {"chip:vpu_shape", "VPU shape"},
    {"chip:vregs_per_core", "vector registers per core"},
    {"chip:wrap_axis_multiple", "axis length that wraps"},
    {"chip:wrap_whole_cubes", "wraps only in whole cubes"},
    {"chip_hours", "chip-hours"},
    {"chip_overrides", "chip changes"},
    {"chips", "chips"},
    {"compute_budget:D", "training tokens"},
    {"compute_budget:L", "context length"},
    {"compute_budget:N", "parameters"},
    {"compute_dtype", "matmul arithmetic format"},
    {"context", "context (tokens)"},
    {"cp", "context parallelism"},
    {"curve", "loss curve"},
    {"decode_tokens", "response length"},
    {"devices", "GPUs the model is split over"},
    {"dims", "dimension sizes"},
    {"disaggregated", "separate prefill servers"},
    {"dp", "data parallelism"},
    {"dtype", "element format"},
    {"einsum", "einsum"},
    {"ep", "expert parallelism"},
    {"exact_ring", "exact ring factor"},
    {"expert_placement", "what an MoE spills first"},
    {"fabric", "network fabric"},
    {"finetune:tokens", "tokens trained"},
    {"flops", "FLOPs"},
    {"flops_per_s", "FLOP/s"},
    {"fsdp", "FSDP degree"},
    {"gpus_per_node", "GPUs per node"},
    {"grad_bytes_per_param", "gradient bytes per parameter"},
    {"gradient_accumulation", "gradient-accumulation steps"},
    {"hop_latency_s", "latency per hop"},
    {"hops", "hops"},
    {"inner_axis_size", "inner axis size"},
    {"kv_bytes_per_token", "KV bytes per token"},
    {"kv_dtype", "KV-cache format"},
    {"kv_format", "KV-cache format"},
    {"layer_shares", "share of the layers on each GPU"},
    {"layout", "layout to check"},
    {"layout.checkpointing", "its rematerialisation"},
    {"layout.cp", "its context parallelism"},
    {"layout.dp", "its data parallelism"},
    {"layout.ep", "its expert parallelism"},
    {"layout.micro_batch", "its micro-batch"},
    {"layout.pp", "its pipeline stages"},
    {"layout.schedule", "its pipeline schedule"},
    {"layout.tp", "its tensor parallelism"},
    {"layout.virtual_stages", "its virtual stages"},
    {"layout.zero_stage", "its ZeRO stage"},
    {"link_bytes_per_s", "link bandwidth"},
    {"links", "ICI links"},
    {"lora_dropout", "LoRA dropout"},
    {"lora_rank", "LoRA rank"},
    {"lora_targets", "matrices with adapters"},
    {"loss_constants", "loss-curve constants"},
    {"loss_constants.A", "parameter coefficient A"},
    {"loss_constants.B", "data coefficient B"},
    {"loss_constants.E", "irreducible loss E"},
    {"loss_constants.alpha", "parameter exponent α"},
    {"loss_constants.beta", "data exponent β"},
    {"master_bytes_per_param", "master-weight bytes per parameter"},
    {"matmul", "matmul"},
    {"matmul.B", "batch (tokens)"},
    {"matmul.D", "contracted dimension"},
    {"matmul.F", "output dimension"},
    {"max_bubble", "largest pipeline bubble"},
    {"max_comm_ratio", "largest communication-to-compute ratio"},
    {"measured_peak_bytes", "measured peak memory per chip"},
    {"measured_t_s", "measured time"},
    {"measured_tokens_per_s", "measured tokens per second"},
    {"measured_ttft_s", "measured time to first token"},
    {"mesh", "mesh"},
    {"method", "training method"},
    {"mfu", "MFU (FLOP utilisation)"},
    {"mfu_convention", "MFU counts"},
    {"micro_batch", "micro-batch (sequences)"},
    {"microbatches", "microbatches"},
    {"model", "model"},
    {"model:D", "model width"},
    {"model:E", "experts"},
    {"model:F", "MLP width"},
    {"model:F_expert", "expert MLP width"},
    {"model:H", "head dimension"},
    {"model:K", "key/value heads"},
    {"model:L", "layers"},
    {"model:N", "query heads"},
    {"model:V", "vocabulary size"},
    {"model:attention", "attention kind"},
    {"model:dense_layers", "dense layers"},
    {"model:gated", "gated MLP"},
    {"model:id", "catalog id"},
    {"model:k", "active experts"},
    {"model:kv_lora_rank", "latent KV dimension"},
    {"model:local_layers", "sliding-window layers"},
    {"model:name", "name"},
    {"model:notes", "notes"},
    {"model:q_lora_rank", "query low-rank dimension"},
    {"model:qk_nope_head_dim", "non-rotary head dimension"},
    {"model:qk_rope_head_dim", "rotary head dimension"},
    {"model:reported_params_active", "published active parameters"},
    {"model:reported_params_total", "published total parameters"},
    {"model:shared_experts", "shared experts"},
    {"model:sink_tokens", "attention-sink tokens"},
    {"model:sliding_window", "sliding window"},
    {"model:source", "source"},
    {"model:sources", "sources"},
    {"model:tied_embeddings", "tied embeddings"},
    {"model:v_head_dim", "value head dimension"},
    {"model_overrides", "model changes"},
    {"nodes", "nodes"},
    {"nodes_per_su", "nodes per scalable unit"},
    {"offload", "how spilled weights are used"},
    {"op", "collective"},
    {"optimizer", "optimizer"},
    {"optimizer_bytes_per_param", "optimizer bytes per parameter"},
    {"optimizer_offload", "optimizer state kept"},
    {"other_devices", "GPUs of other kinds beside them"},
    {"output_dtype", "output format"},
    {"overhead_bytes", "runtime overhead"},
    {"params", "parameter count"},
    {"path", "path"},
    {"pp", "pipeline stages"},
    {"prefill_mfu", "prefill MFU"},
    {"price_per_hour_usd", "price per chip-hour"},
    {"prompt_tokens", "prompt length"},
    {"quant_format", "QLoRA weight format"},
    {"ragged_k", "non-empty destinations"},
    {"rejected_samples", "rejected layouts to show"},
    {"schedule", "pipeline schedule"},
    {"search", "search every layout"},
    {"sequence_length", "sequence length"},
    {"sequence_parallel", "sequence parallelism"},
    {"shape", "array shape"},
    {"sharded_matmul:strategy", "case-2 strategy"},
    {"sharding", "MLP sharding"},
    {"sharp", "in-network reduction (SHARP)"},
    {"spec", "sharding spec"},
    {"split", "how the GPUs share the model"},
    {"ssd_bytes_per_s", "SSD bandwidth"},
    {"strategy", "strategy"},
    {"sweep", "sweep"},
    {"sweep.batch", "batch sizes to sweep"},
    {"sweep.chips", "chip counts to sweep"},
    {"system_ram_bytes", "system RAM"},
    {"system_ram_bytes_per_s", "system RAM bandwidth"},
    {"tokens", "tokens"},
    {"top_n", "layouts to list"},
    {"total_params", "total parameters"},
    {"tp", "tensor parallelism"},
    {"training_comm:D", "model width"},
    {"training_comm:F", "MLP width"},
    {"training_comm:axes_tp", "tensor-parallel mesh axes"},
    {"transformer:B", "sequences"},
    {"usable_memory_share", "usable share of memory"},
    {"users", "concurrent users"},
    {"virtual_stages", "virtual stages per device"},
    {"weight_dtype", "weight format"},
    {"weight_format", "weight format"},
    {"window", "sliding window"},
    {"workspace_bytes", "framework workspace"},
    {"wraparound", "wraparound"},
    {"zero_stage", "ZeRO stage"},
};
// clang-format on

constexpr bool sorted_and_unique() {
  for (std::size_t i = 1; i < std::size(kLabels); ++i) {
    if (!(kLabels[i - 1].name < kLabels[i].name)) return false;
  }
  return true;
}
static_assert(sorted_and_unique(), "kLabels must be sorted by name, each name once");

std::string_view find_label(std::string_view name) {
  auto it = std::lower_bound(std::begin(kLabels), std::end(kLabels), name,
                             [](const Label& l, std::string_view n) { return l.name < n; });
  return it != std::end(kLabels) && it->name == name ? it->label : std::string_view();
}

}  // namespace

// Count nouns, for the settings whose label is not a noun (labels.hpp). "scope:path" as in kLabels.
struct Noun {
  std::string_view name;
  CountNoun noun;
};
constexpr Noun kNouns[] = {
    {"local_inference:devices", {"device", "devices"}},
    {"prompt_tokens", {"prompt token", "prompt tokens"}},
};

CountNoun param_noun(std::string_view scope, std::string_view path) {
  const std::string scoped = std::string(scope) + ":" + std::string(path);
  for (const Noun& n : kNouns) {
    if (n.name == scoped || n.name == path) return n.noun;
  }
  return {};
}

std::string_view param_label(std::string_view scope, std::string_view path) {
  std::string scoped = std::string(scope) + ":" + std::string(path);
  if (std::string_view label = find_label(scoped); !label.empty()) return label;
  return find_label(path);
}

void label_params(std::vector<Param>& params, std::string_view scope, const std::string& prefix) {
  for (Param& p : params) {
    std::string path = prefix + p.name;
    if (p.label.empty()) p.label = param_label(scope, path);
    // An object's fields are parameters of their own; a map's or list's entry describes values.
    if (p.type == Type::object) label_params(p.fields, scope, path + ".");
  }
}

}  // namespace scalelab
