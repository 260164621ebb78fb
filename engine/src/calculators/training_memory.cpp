// `training_memory` (ch 4–6): parameter, optimizer and activation bytes, per chip and total.
#include <cmath>

#include "calculators.hpp"
#include "common.hpp"
#include "training_memory_schema.hpp"
#include "training_math.hpp"

namespace scalelab {
namespace {

std::string checkpoint_formula(const std::string& policy) {
  if (policy == "mlp_outputs") return "(D + 2F)/D";
  if (policy == "custom") return "c";
  return tex_text(policy);
}

void state_steps(const MemoryInputs& in, const MemoryBreakdown& b, Result& r) {
  r.out("params", in.params);
  r.out("bytes_per_param",
        r.step("Bytes per parameter", "b_w + b_g + b_{opt} + b_{master}",
               tex(in.weight_bytes) + " + " + tex(in.grad_bytes) + " + " + tex(in.optimizer_bytes) +
                   " + " + tex(in.master_bytes),
               b.bytes_per_param, "bytes"));
  auto part = [&](const char* name, const char* label, const char* sym, double per, double value) {
    r.out(name, r.step(label, std::string("P \\cdot ") + sym, tex(in.params) + " \\cdot " + tex(per),
                       value, "bytes"));
  };
  part("params_bytes", "Weights", "b_w", in.weight_bytes, b.params_bytes);
  part("grads_bytes", "Gradients", "b_g", in.grad_bytes, b.grads_bytes);
  part("optimizer_bytes", "Optimizer state", "b_{opt}", in.optimizer_bytes, b.optimizer_bytes);
  part("master_bytes", "Master weights", "b_{master}", in.master_bytes, b.master_bytes);
}

void activation_steps(const MemoryInputs& in, const MemoryBreakdown& b, Result& r) {
  if (!b.checkpoints_per_layer) {
    r.out_null("checkpoints_per_layer");
  } else if (in.model && in.checkpointing == "mlp_outputs") {
    const Model& m = *in.model;
    r.out("checkpoints_per_layer",
          r.step("Saved [tokens, D] tensors per layer", m.gated ? "(D + 2F)/D" : "(D + F)/D",
                 "(" + tex(m.D) + " + " + (m.gated ? "2 \\cdot " : "") + tex(m.F) + ") / " + tex(m.D),
                 *b.checkpoints_per_layer, "count"));
  } else {
    r.out("checkpoints_per_layer", *b.checkpoints_per_layer);
  }
  if (in.model && b.checkpoints_per_layer) {
    const Model& m = *in.model;
    r.out("activations_bytes",
          r.step("Saved activations", "b_a \\cdot \\text{tokens} \\cdot D \\cdot L \\cdot " +
                                          checkpoint_formula(in.checkpointing),
                 tex(in.act_bytes) + " \\cdot " + tex(in.batch_tokens) + " \\cdot " + tex(m.D) + " \\cdot " +
                     tex(m.L) + " \\cdot " + tex(*b.checkpoints_per_layer),
                 b.activations_bytes, "bytes"));
  } else {
    r.out("activations_bytes", 0);
  }
}

void per_chip_steps(const Args& args, const MemoryInputs& in, const MemoryBreakdown& b, Result& r) {
  const Degrees& d = in.degrees;
  r.out("chips", in.chips);
  r.out("degrees", json{{"dp", d.dp}, {"fsdp", d.fsdp}, {"tp", d.tp}, {"pp", d.pp}});
  r.out("total_bytes", r.step("Total bytes", "P \\cdot b_P + A", tex(b.state_bytes) + " + " +
                                                                     tex(b.activations_bytes),
                              b.total_bytes, "bytes"));
  r.out("bytes_per_chip",
        r.step("Bytes per chip", "P b_P / (X_{fsdp} Y_{tp} Z_{pp}) + A / n",
               tex(b.state_bytes) + " / " + tex(d.fsdp * d.tp * d.pp) + " + " + tex(b.activations_bytes) +
                   " / " + tex(in.chips),
               b.bytes_per_chip, "bytes"));
  const Chip& chip = args.chip();
  auto hbm = chip.hbm_bytes;
  if (!hbm) {
    for (const char* name : {"hbm_bytes", "total_hbm_bytes", "fits", "min_chips", "min_nodes", "max_params"}) {
      r.out_null(name);
    }
    r.warn(chip.name() + " has no hbm_bytes in the catalog: fits, min_chips and max_params are unknown "
                         "(give chip_overrides {\"hbm_bytes\": …}).");
    return;
  }
  r.out("hbm_bytes", *hbm);
  r.out("total_hbm_bytes", in.chips * *hbm);
  r.out("fits", b.bytes_per_chip <= *hbm);
  double min_chips = r.step("Minimum chips (perfect sharding)", "\\lceil \\text{total} / \\text{HBM} \\rceil",
                            "\\lceil " + tex(b.total_bytes) + " / " + tex(*hbm) + " \\rceil",
                            std::ceil(b.total_bytes / *hbm), "count");
  r.out("min_chips", min_chips);
  if (auto node = chip.node_gpus; node && chip.is_gpu()) {
    r.out("min_nodes", std::ceil(min_chips / *node));
  } else {
    r.out_null("min_nodes");
  }
  r.out("max_params",
        r.step("Largest model whose state fits (activations ignored)", "\\text{HBM} \\cdot X Y Z / b_P",
               tex(*hbm) + " \\cdot " + tex(d.fsdp * d.tp * d.pp) + " / " + tex(b.bytes_per_param),
               *hbm * d.fsdp * d.tp * d.pp / b.bytes_per_param, "count"));
  if (b.bytes_per_chip > *hbm) {
    bool state = b.state_bytes / (d.fsdp * d.tp * d.pp) > b.activations_bytes / in.chips;
    r.warn("Does not fit: " + format_quantity(b.bytes_per_chip, "bytes") + " per chip > " +
           format_quantity(*hbm, "bytes") + " of HBM; the larger term is " +
           (state ? "the parameter/optimizer state (shard it with fsdp, tp or pp)"
                  : "activations (use more chips or a stronger checkpointing policy)") + ".");
  }
}

void compute(const Args& args, Result& r) {
  std::vector<std::string> warnings;
  MemoryInputs in = read_memory_inputs(args, warnings);
  for (const auto& w : warnings) r.warn(w);
  MemoryBreakdown b = training_memory_math(in);
  state_steps(in, b, r);
  activation_steps(in, b, r);
  per_chip_steps(args, in, b, r);
  out_opt(r, "recompute_flops", b.recompute_flops);
  if (in.checkpointing == "none" && in.model) {
    r.warn("checkpointing \"none\" uses the book's rough count of 20 saved [tokens, D] tensors per layer.");
  }
}

}  // namespace

Calculator make_training_memory() {
  return {"training_memory", "Training memory", {4, 5, 6},
          "Bytes of weights, optimizer state and saved activations, per chip and in total.",
          training_memory_params(), compute};
}

}  // namespace scalelab
