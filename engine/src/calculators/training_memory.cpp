// `training_memory` (ch 4–6): parameter, optimizer and activation bytes, per chip and total.
#include <cmath>

#include "calculators/calculators.hpp"
#include "models/common.hpp"
#include "models/training_memory_schema.hpp"
#include "models/training_math.hpp"

namespace scalelab {
namespace {

void state_steps(const MemoryInputs& in, const MemoryBreakdown& b, Result& r) {
  r.out("params", in.params);
  Expr b_w = r.sym("b_w", in.weight_bytes), b_g = r.sym("b_g", in.grad_bytes);
  Expr b_opt = r.sym("b_{opt}", in.optimizer_bytes), b_master = r.sym("b_{master}", in.master_bytes);
  r.out("bytes_per_param", r.step("Bytes per parameter", "b_P", b_w + b_g + b_opt + b_master, "bytes"));
  Expr P = r.sym("P", in.params);
  r.out("params_bytes", r.step("Weights", "", P * b_w, "bytes"));
  r.out("grads_bytes", r.step("Gradients", "", P * b_g, "bytes"));
  r.out("optimizer_bytes", r.step("Optimizer state", "", P * b_opt, "bytes"));
  r.out("master_bytes", r.step("Master weights", "", P * b_master, "bytes"));
  (void)b;
}

void activation_steps(const MemoryInputs& in, const MemoryBreakdown& b, Result& r) {
  Expr c = r.sym(in.checkpointing == "custom" ? "c" : tex_text(in.checkpointing), b.checkpoints_per_layer.value_or(0));
  if (!b.checkpoints_per_layer) {
    r.out_null("checkpoints_per_layer");
  } else if (in.model && in.checkpointing == "mlp_outputs") {
    const Model& m = *in.model;
    Expr D = r.sym("D", m.D), F = r.sym("F", m.F);
    c = r.step("Saved [tokens, D] tensors per layer", "c", (D + (m.gated ? 2 * F : F)) / D, "count");
    r.out("checkpoints_per_layer", c);
  } else {
    r.out("checkpoints_per_layer", *b.checkpoints_per_layer);
  }
  if (in.model && b.checkpoints_per_layer) {
    const Model& m = *in.model;
    r.out("activations_bytes",
          r.step("Saved activations", "A",
                 r.sym("b_a", in.act_bytes) * r.sym("\\text{tokens}", in.batch_tokens) * r.sym("D", m.D) *
                     r.sym("L", m.L) * c,
                 "bytes"));
  } else {
    r.out("activations_bytes", 0);
  }
}

void per_chip_steps(const Args& args, const MemoryInputs& in, const MemoryBreakdown& b, Result& r) {
  const Degrees& d = in.degrees;
  r.out("chips", in.chips);
  r.out("degrees", json{{"dp", d.dp}, {"fsdp", d.fsdp}, {"tp", d.tp}, {"pp", d.pp}});
  Expr state = r.sym("P b_P", b.state_bytes), A = r.sym("A", b.activations_bytes);
  r.out("total_bytes", r.step("Total bytes", "\\text{total}", state + A, "bytes"));
  Expr XYZ = r.sym("X_{fsdp}", d.fsdp) * r.sym("Y_{tp}", d.tp) * r.sym("Z_{pp}", d.pp);
  r.out("bytes_per_chip", r.step("Bytes per chip", "", state / XYZ + A / r.sym("n", in.chips), "bytes"));
  double shards = d.fsdp * d.tp * d.pp;
  r.out("params_bytes_per_chip", b.params_bytes / shards);
  r.out("grads_bytes_per_chip", b.grads_bytes / shards);
  r.out("optimizer_bytes_per_chip", b.optimizer_bytes / shards);
  r.out("master_bytes_per_chip", b.master_bytes / shards);
  r.out("activations_bytes_per_chip", b.activations_bytes / in.chips);
  if (auto strategy = comm_strategy_for(d, args.chip())) {
    r.out("comm_strategy", strategy_name(*strategy));
  } else {
    r.out_null("comm_strategy");
  }
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
  Expr HBM = r.sym("\\text{HBM}", *hbm);
  double min_chips = r.step("Minimum chips (perfect sharding)", "",
                            ceil(r.sym("\\text{total}", b.total_bytes) / HBM), "count").value();
  r.out("min_chips", min_chips);
  if (auto node = chip.node_gpus; node && chip.is_gpu()) {
    r.out("min_nodes", std::ceil(min_chips / *node));
  } else {
    r.out_null("min_nodes");
  }
  r.out("max_params", r.step("Largest model whose state fits (activations ignored)", "P_{max}",
                             HBM * XYZ / r.sym("b_P", b.bytes_per_param), "count"));
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
