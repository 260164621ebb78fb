// The inputs training_memory and training_run share (api/training.md §2.1, §2.4).
#pragma once
#include <vector>

#include "models/training_math.hpp"
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
      choice("checkpointing", {"none", "block", "big_matmuls", "mlp_outputs", "custom", "selective", "full"}, "none",
             "what the forward pass saves for the backward pass: the book's policies (none, block, big_matmuls, "
             "mlp_outputs, custom) or the frameworks' (selective: torchtitan's op-level policy keeps attention's "
             "output and every other matmul's; full: Megatron-LM and torchtitan keep each layer's input and "
             "recompute the rest)",
             {"none: keep everything", "block: layer inputs", "big matmuls' outputs", "MLP outputs",
              "custom count per layer", "selective (matmul outputs kept)", "full (layer inputs kept)"}),
      number("checkpoints_per_layer", "count", 0, 1e4, nullptr,
             "[tokens, D]-sized tensors saved per layer (checkpointing custom)", Scale::linear),
      choice("accounting", {"book", "practice"}, "book",
             "how memory is counted: the book's rules (saved tensors as counts of [tokens, D], state spread "
             "evenly, nothing else), or as a framework holds it (saved tensors at their true widths, the "
             "embedding and output layer on the end stages, fp32 logits and their gradient, FSDP's gathered "
             "layers, framework workspace and the allocator's reserve)",
             {"the book's rules", "as frameworks run it"}),
      integer("micro_batch", "sequences", 1, 1e9, nullptr,
              "sequences per micro-batch (default: each replica's whole batch at once); global batch = "
              "micro-batch × gradient-accumulation steps × data-parallel degree"),
      choice("schedule", schedule_names(), "1f1b",
             "pipeline schedule (with pp > 1): it decides the micro-batches whose activations a stage holds "
             "and the bubble", schedule_titles()),
      integer("virtual_stages", "count", 1, 128, nullptr,
              "model chunks per device for the interleaved schedule (default 2 with it, else 1)", Scale::linear),
      integer("zero_stage", "count", 0, 3, 0,
              "ZeRO stage across the dp replicas: 1 shards the optimizer state, 2 the gradients too, 3 the "
              "weights too (the same as giving those replicas as fsdp)", Scale::linear),
      degree("cp", "context-parallel degree: each sequence split over cp chips (ring attention)"),
      degree("ep", "expert-parallel degree: the experts spread over ep of the data- and context-parallel ranks "
                   "(it takes no chips of its own)"),
      boolean("sequence_parallel", true,
              "with tp: shard the [tokens, D] tensors between the matmuls over the sequence as well "
              "(Megatron-LM's sequence parallelism); off, tp ranks hold them whole"),
      choice("optimizer_offload", {"none", "host", "paged"}, "none",
             "where the optimizer state and master weights live: in the device's own memory, in host memory "
             "(ZeRO-Offload), or paged to the host when device memory runs short (bitsandbytes' paged optimizers)",
             {"in device memory", "in host memory", "paged to host when short"}),
      number("workspace_bytes", "bytes", 0, 1e12, nullptr,
             "accounting practice: framework workspace beside the tensors (default 1 GiB on a GPU: CUDA context "
             "about 0.3-0.5 GiB, cuBLAS workspaces and NCCL buffers; 0 elsewhere)", Scale::linear),
  };
}

}  // namespace scalelab
