// The inputs training_memory and training_run share (api/training.md §2.1, §2.4).
#pragma once
#include <vector>

#include "schema/params.hpp"

namespace scalelab {

inline std::vector<Param> training_memory_params() {
  using namespace params;
  auto degree = [](const char* name, const char* doc) {
    return integer(name, "count", 1, 1e7, nullptr, doc);
  };
  return {
      chip("tpu-v5p"), chip_overrides(), model("llama3-70b"), model_overrides(),
      param_count("params", nullptr, "bare parameter count instead of a model"),
      batch_tokens(4194304, "global batch in tokens (1024 × 4096 by default)", true),
      integer("T", "tokens", 1, 1e8, 4096, "sequence length"),
      chips(nullptr, "chips (default: product of the degrees, or a pod)"),
      degree("dp", "data-parallel replicas (state replicated)"),
      degree("fsdp", "FSDP/ZeRO-3 degree (absorbs the chips the others leave)"),
      degree("tp", "tensor-parallel degree"), degree("pp", "pipeline stages"),
      dtype("weight_dtype", "dtype of the weights"),
      dtype("activation_dtype", "dtype of a saved activation"),
      number("grad_bytes_per_param", "bytes", 0, 16, 0, "gradient bytes per parameter (book: 0)",
             Scale::linear),
      number("optimizer_bytes_per_param", "bytes", 0, 32, 8, "optimizer bytes per parameter (Adam fp32: 8)",
             Scale::linear),
      number("master_bytes_per_param", "bytes", 0, 16, 0, "fp32 master-weight bytes per parameter",
             Scale::linear),
      choice("checkpointing", {"none", "block", "big_matmuls", "mlp_outputs", "custom"}, "none",
             "what the forward pass saves for the backward pass",
             {"none: keep everything", "block: layer inputs", "big matmuls' outputs", "MLP outputs",
              "custom count per layer"}),
      number("checkpoints_per_layer", "count", 0, 1e4, nullptr,
             "[tokens, D]-sized tensors saved per layer (checkpointing custom)", Scale::linear),
  };
}

}  // namespace scalelab
