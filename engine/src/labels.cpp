#include "labels.hpp"

#include <map>

namespace scalelab {
namespace {

using Table = std::map<std::string, std::string, std::less<>>;

// A parameter's name → its label. "scope:name" entries override the plain name in one scope.
const Table& labels() {
  static const Table table = {
      // shared inputs
      {"chip", "chip"}, {"chip_overrides", "chip changes"}, {"model", "model"},
      {"model_overrides", "model changes"}, {"params", "parameter count"},
      {"chips", "chips"}, {"batch", "batch (sequences)"}, {"batch_tokens", "global batch (tokens)"},
      {"tokens", "tokens"}, {"T", "sequence length"}, {"context", "context (tokens)"},
      {"activation_dtype", "activation dtype"}, {"weight_dtype", "weight dtype"},
      {"output_dtype", "output dtype"}, {"compute_dtype", "compute dtype"}, {"kv_dtype", "KV-cache dtype"},
      {"dtype", "element dtype"}, {"mfu", "MFU (FLOP utilisation)"}, {"prefill_mfu", "prefill MFU"},
      {"price_per_hour_usd", "price per chip-hour"},
      // roofline, transfer
      {"flops", "FLOPs"}, {"bytes", "bytes"}, {"matmul", "matmul"}, {"matmul.B", "batch (tokens)"},
      {"matmul.D", "contracted dimension"}, {"matmul.F", "output dimension"}, {"einsum", "einsum"},
      {"dims", "dimension sizes"}, {"bandwidth", "bandwidth"}, {"links", "ICI links"},
      {"path", "path"}, {"hops", "hops"},
      // sharding, collective, sharded_matmul
      {"shape", "array shape"}, {"spec", "sharding spec"}, {"mesh", "mesh"},
      {"op", "collective"}, {"axes", "axis sizes"}, {"wraparound", "wraparound"},
      {"bidirectional", "bidirectional links"}, {"hop_latency_s", "latency per hop"},
      {"link_bytes_per_s", "link bandwidth"}, {"fabric", "network fabric"},
      {"gpus_per_node", "GPUs per node"}, {"nodes", "nodes"}, {"nodes_per_su", "nodes per scalable unit"},
      {"inner_axis_size", "inner axis size"}, {"sharp", "in-network reduction (SHARP)"},
      {"exact_ring", "exact ring factor"}, {"ragged_k", "non-empty destinations"},
      {"strategy", "strategy"}, {"sharded_matmul:strategy", "case-2 strategy"},
      // inference
      {"kv_bytes_per_token", "KV bytes per token"}, {"sharding", "MLP sharding"},
      {"axes_tp", "model-parallel mesh axes"}, {"prompt_tokens", "prompt length"},
      {"decode_tokens", "response length"}, {"cached_prefix_tokens", "cached prompt tokens"},
      {"disaggregated", "separate prefill servers"}, {"sweep", "sweep"},
      {"sweep.batch", "batch sizes to sweep"}, {"sweep.chips", "chip counts to sweep"},
      // training
      {"dp", "data parallelism"}, {"fsdp", "FSDP degree"}, {"tp", "tensor parallelism"},
      {"pp", "pipeline stages"}, {"ep", "expert parallelism"}, {"microbatches", "microbatches"},
      {"axes_fsdp", "FSDP mesh axes"}, {"training_comm:axes_tp", "tensor-parallel mesh axes"},
      {"grad_bytes_per_param", "gradient bytes per parameter"},
      {"optimizer_bytes_per_param", "optimizer bytes per parameter"},
      {"master_bytes_per_param", "master-weight bytes per parameter"},
      {"checkpointing", "activation checkpointing"}, {"checkpoints_per_layer", "saved tensors per layer"},
      {"chip_hours", "chip-hours"}, {"top_n", "layouts to list"}, {"rejected_samples", "rejected layouts to show"},
      {"training_comm:D", "model width"}, {"training_comm:F", "MLP width"},
      {"transformer:B", "sequences"},
      // compute_budget
      {"compute_budget:N", "parameters"}, {"compute_budget:D", "training tokens"},
      {"compute_budget:L", "context length"}, {"flops_per_s", "FLOP/s"},
      {"bandwidth_bytes_per_s", "memory bandwidth"}, {"bytes_per_param", "bytes per parameter"},
      {"total_params", "total parameters"}, {"active_params", "active parameters"},
      {"window", "sliding window"}, {"curve", "loss curve"}, {"loss_constants", "loss-curve constants"},
      {"loss_constants.E", "irreducible loss E"}, {"loss_constants.A", "parameter coefficient A"},
      {"loss_constants.B", "data coefficient B"}, {"loss_constants.alpha", "parameter exponent α"},
      {"loss_constants.beta", "data exponent β"},
      // chip fields
      {"chip:id", "catalog id"}, {"chip:name", "name"}, {"chip:vendor", "maker"}, {"chip:kind", "kind"},
      {"chip:generation", "generation"}, {"chip:flops_per_s", "peak FLOP/s"},
      {"chip:flops_per_s.fp32", "fp32 FLOP/s"}, {"chip:flops_per_s.bf16", "bf16 FLOP/s"},
      {"chip:flops_per_s.fp8", "fp8 FLOP/s"}, {"chip:flops_per_s.int8", "int8 OP/s"},
      {"chip:flops_per_s.int4", "int4 OP/s"}, {"chip:flops_per_s.fp4", "fp4 FLOP/s"},
      {"chip:hbm_bytes", "HBM capacity"}, {"chip:hbm_bytes_per_s", "HBM bandwidth"},
      {"chip:vmem_bytes", "VMEM capacity"}, {"chip:vmem_bytes_per_s", "VMEM bandwidth"},
      {"chip:smem_bytes_per_sm", "shared memory per SM"}, {"chip:l2_bytes", "L2 cache"},
      {"chip:cores_per_chip", "cores per chip"}, {"chip:clock_hz", "clock"},
      {"chip:ici_link_bytes_per_s", "ICI link bandwidth"}, {"chip:ici_links", "ICI links"},
      {"chip:ici_hop_latency_s", "ICI hop latency"}, {"chip:pod_shape", "pod shape"},
      {"chip:pod_chips", "chips per pod"}, {"chip:host_chips", "chips per host"},
      {"chip:pcie_bytes_per_s", "PCIe bandwidth"}, {"chip:dcn_bytes_per_s", "DCN bandwidth"},
      {"chip:nvlink_bytes_per_s", "NVLink bandwidth"}, {"chip:node_gpus", "GPUs per node"},
      {"chip:ib_bytes_per_s", "InfiniBand per GPU"}, {"chip:node_ib_bytes_per_s", "InfiniBand per node"},
      {"chip:price_per_hour_usd", "price per hour"}, {"chip:superpod", "SuperPod"},
      {"chip:superpod.gpus", "GPUs per SuperPod"}, {"chip:superpod.nodes", "nodes per SuperPod"},
      {"chip:superpod.gpus_per_su", "GPUs per scalable unit"}, {"chip:superpod.leaf_switches", "leaf switches"},
      {"chip:superpod.spine_switches", "spine switches"}, {"chip:superpod.ib_switch_ports", "ports per IB switch"},
      {"chip:superpod.ib_port_one_way_bytes_per_s", "IB port bandwidth"},
      {"chip:mxu_dim", "MXU size"}, {"chip:mxus_per_core", "MXUs per core"}, {"chip:vpu_shape", "VPU shape"},
      {"chip:vpu_alus_per_lane", "ALUs per VPU lane"}, {"chip:vregs_per_core", "vector registers per core"},
      {"chip:sms", "SMs"}, {"chip:subpartitions_per_sm", "subpartitions per SM"},
      {"chip:tensor_cores_per_sm", "Tensor Cores per SM"},
      {"chip:fp32_cores_per_subpartition", "fp32 cores per subpartition"},
      {"chip:registers_per_subpartition", "registers per subpartition"},
      {"chip:nvswitches_per_node", "NVSwitches per node"}, {"chip:nvswitch_ports", "ports per NVSwitch"},
      {"chip:nvlink_link_bytes_per_s", "NVLink link bandwidth"}, {"chip:sources", "sources"},
      {"chip:notes", "notes"},
      // model fields
      {"model:id", "catalog id"}, {"model:name", "name"}, {"model:source", "source"},
      {"model:sources", "sources"}, {"model:notes", "notes"},
      {"model:L", "layers"}, {"model:D", "model width"}, {"model:F", "MLP width"},
      {"model:N", "query heads"}, {"model:K", "key/value heads"}, {"model:H", "head dimension"},
      {"model:V", "vocabulary size"}, {"model:gated", "gated MLP"}, {"model:E", "experts"},
      {"model:k", "active experts"}, {"model:shared_experts", "shared experts"},
      {"model:F_expert", "expert MLP width"}, {"model:dense_layers", "leading dense layers"},
      {"model:tied_embeddings", "tied embeddings"}, {"model:attention", "attention kind"},
      {"model:q_lora_rank", "query low-rank dimension"}, {"model:kv_lora_rank", "latent KV dimension"},
      {"model:qk_rope_head_dim", "rotary head dimension"}, {"model:qk_nope_head_dim", "non-rotary head dimension"},
      {"model:v_head_dim", "value head dimension"}, {"model:reported_params_total", "published total parameters"},
      {"model:reported_params_active", "published active parameters"},
      // local_inference
      {"users", "concurrent users"}, {"weight_format", "weight format"}, {"kv_format", "KV-cache format"},
      {"arithmetic", "matmul arithmetic"}, {"overhead_bytes", "runtime overhead"},
      {"usable_memory_share", "usable share of memory"}, {"system_ram_bytes", "system RAM"},
      {"system_ram_bytes_per_s", "system RAM bandwidth"}, {"offload", "how spilled weights are used"},
      {"measured_tokens_per_s", "measured tokens per second"}, {"ssd_bytes_per_s", "SSD bandwidth"},
      // finetune
      {"method", "training method"}, {"lora_rank", "LoRA rank"}, {"lora_targets", "matrices with adapters"},
      {"quant_format", "QLoRA weight format"}, {"finetune:tokens", "tokens trained"},
      {"sequence_length", "sequence length"}, {"micro_batch", "micro-batch (sequences)"},
      {"activation_checkpointing", "activation checkpointing"}, {"optimizer", "optimizer"},
      // chip fields added with the local devices and the topology facts
      {"chip:flops_per_s.fp16", "fp16 FLOP/s"}, {"chip:wrap_axis_multiple", "axis length that wraps"},
      {"chip:wrap_whole_cubes", "wraps only in whole cubes"}, {"chip:beyond_pod", "network beyond the pod"},
      {"chip:host_link", "host link"}, {"chip:price_usd", "purchase price"},
      {"chip:gpu_memory_share", "GPU share of unified memory"}, {"chip:topology", "topology"},
      {"chip:topology.kind", "kind"}, {"chip:topology.scale_up", "scale-up network"},
      {"chip:topology.pod_shape", "pod shape"}, {"chip:topology.pod_axes", "pod axes"},
      {"chip:topology.pod_chips", "chips per pod"}, {"chip:topology.ici_links", "ICI links per chip"},
      {"chip:topology.wrap_axis_multiple", "axis length that wraps"},
      {"chip:topology.wraparound_rule", "wraparound rule"},
      {"chip:topology.nvlink_domain_gpus", "GPUs per NVLink domain"},
      {"chip:topology.beyond_pod", "network beyond the pod"},
  };
  return table;
}

}  // namespace

std::string param_label(std::string_view scope, std::string_view path) {
  std::string scoped = std::string(scope) + ":" + std::string(path);
  if (auto it = labels().find(scoped); it != labels().end()) return it->second;
  if (auto it = labels().find(path); it != labels().end()) return it->second;
  return "";
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
