// `training_memory` (ch 4–6): parameter, optimizer and activation bytes, per chip and total.
#include <cmath>

#include "calculators/calculators.hpp"
#include "models/common.hpp"
#include "models/expected.hpp"
#include "models/training_memory_schema.hpp"
#include "models/layout_search.hpp"
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

// The book's count, or each policy's tensors at their true widths.
Expr checkpoint_count(const MemoryInputs& in, const MemoryBreakdown& b, Result& r) {
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
  return c;
}

// With the book's defaults (the whole batch at once, no pipeline): A = b_a · tokens · D · L · c.
bool book_defaults(const MemoryInputs& in) {
  return in.accounting == Accounting::book && in.micro_batch <= 0 && in.degrees.pp == 1;
}

void activation_steps(const MemoryInputs& in, const MemoryBreakdown& b, Result& r) {
  Expr c = checkpoint_count(in, b, r);
  if (!in.model || (!b.checkpoints_per_layer && book_defaults(in))) {
    r.out("activations_bytes", 0);
    return;
  }
  const Model& m = *in.model;
  if (book_defaults(in)) {
    r.out("activations_bytes",
          r.step("Saved activations", "A",
                 r.sym("b_a", in.act_bytes) * r.sym("\\text{tokens}", in.batch_tokens) * r.sym("D", m.D) *
                     r.sym("L", m.L) * c,
                 "bytes"));
    return;
  }
  r.out("activations_bytes", r.step("Saved activations, all chips at the peak", "A",
                                    r.sym("A_{chip}", b.per_chip.parts[int(Part::activations)]) *
                                        r.sym("n", in.chips),
                                    "bytes"));
}

// The simple case: state spread evenly over fsdp·tp·pp and activations over every chip.
bool even_split(const MemoryInputs& in) {
  return book_defaults(in) && in.zero == 0 && in.cp == 1 && in.ep == 1 && in.offload == Offload::none;
}

void per_chip_outputs(const Args& args, const MemoryInputs& in, const MemoryBreakdown& b, Result& r) {
  const StepMemory& mem = b.per_chip;
  for (int i = 0; i < kParts; ++i) r.out(std::string(part_id(Part(i))) + "_bytes_per_chip", mem.parts[i]);
  double tensors = mem.total - mem.parts[int(Part::workspace)] - mem.parts[int(Part::reserve)];
  r.out("tensor_bytes_per_chip", tensors);
  r.out("host_bytes_per_chip", mem.host_bytes);
  json parts = json::array();
  for (int i = 0; i < kParts; ++i) {
    if (mem.parts[i] <= 0) continue;
    parts.push_back({{"part", part_id(Part(i))}, {"label", part_label(Part(i))}, {"bytes", mem.parts[i]},
                     {"source", part_source(Part(i))}});
  }
  r.out("memory_parts", parts);
  r.out("largest_part", part_id(mem.largest));
  r.out("accounting", in.accounting == Accounting::practice ? "practice" : "book");
  r.out("micro_batches", mem.micro_batches);
  r.out("in_flight_micro_batches", mem.in_flight);
  r.out("stage", mem.stage + 1);
  if (in.model) {
    r.out("stage_layers", stage_layers_text(in.model->L, in.degrees.pp, in.virtual_stages));
  } else {
    r.out_null("stage_layers");
  }
  if (auto strategy = comm_strategy_for(in.degrees, args.chip())) {
    r.out("comm_strategy", strategy_name(*strategy));
  } else {
    r.out_null("comm_strategy");
  }
}

void fit_steps(const Args& args, const MemoryInputs& in, const MemoryBreakdown& b, Result& r) {
  const Degrees& d = in.degrees;
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
  hbm = usable_memory(chip, *hbm, r.log());
  r.out("hbm_bytes", *hbm);
  r.out("total_hbm_bytes", in.chips * *hbm);
  // it fits when all but the allocator's reserve does (under pressure the allocator frees its cache)
  double must_fit = b.per_chip.fit_bytes;
  r.out("fits", must_fit <= *hbm);
  Expr HBM = r.sym(chip.memory_symbol(), *hbm);
  double min_chips = r.step("Minimum chips (perfect sharding)", "",
                            ceil(r.sym("\\text{total}", b.total_bytes) / HBM), "count").value();
  r.out("min_chips", min_chips);
  if (auto node = chip.node_gpus; node && chip.is_gpu()) {
    r.out("min_nodes", std::ceil(min_chips / *node));
  } else {
    r.out_null("min_nodes");
  }
  Expr XYZ = r.sym("X_{fsdp}", d.fsdp) * r.sym("Y_{tp}", d.tp) * r.sym("Z_{pp}", d.pp);
  r.out("max_params", r.step("Largest model whose state fits (activations ignored)", "P_{max}",
                             HBM * XYZ / r.sym("b_P", b.bytes_per_param), "count"));
  if (must_fit <= *hbm && b.bytes_per_chip > *hbm) {
    r.warn("Tight: it fits only if the allocator gives up most of its usual reserve (" +
           format_quantity(b.per_chip.parts[int(Part::reserve)], "bytes") + "); fragmentation can still run it out of memory.");
  }
  if (must_fit > *hbm) {
    const StepMemory& mem = b.per_chip;
    r.warn("Does not fit: " + format_quantity(must_fit, "bytes") + " per chip > " +
           format_quantity(*hbm, "bytes") + " of " + chip.memory_name() + ", " + format_quantity(must_fit - *hbm, "bytes") +
           " over; the largest part is " + part_label(mem.largest) + " (" +
           format_quantity(mem.parts[int(mem.largest)], "bytes") + ")" +
           (mem.largest == Part::activations ? ": a smaller micro-batch, a stronger checkpointing policy or "
                                               "more chips would shrink it."
                                             : ": shard it further (fsdp, zero_stage, tp, pp) or offload it."));
  }
}

void per_chip_steps(const Args& args, const MemoryInputs& in, const MemoryBreakdown& b, Result& r) {
  const Degrees& d = in.degrees;
  r.out("chips", in.chips);
  r.out("degrees", json{{"dp", d.dp}, {"fsdp", d.fsdp}, {"tp", d.tp}, {"pp", d.pp}, {"cp", in.cp}, {"ep", in.ep}});
  Expr state = r.sym("P b_P", b.state_bytes), A = r.sym("A", b.activations_bytes);
  r.out("total_bytes", r.step("Total bytes", "\\text{total}", state + A, "bytes"));
  if (even_split(in)) {
    Expr XYZ = r.sym("X_{fsdp}", d.fsdp) * r.sym("Y_{tp}", d.tp) * r.sym("Z_{pp}", d.pp);
    r.out("bytes_per_chip", r.step("Bytes per chip", "", state / XYZ + A / r.sym("n", in.chips), "bytes"));
  } else {
    memory_part_steps(in.settings(args.chip(), 0), in.layout(), in.model ? in.model->V : 0, b.per_chip, r);
    r.out("bytes_per_chip", b.bytes_per_chip);
  }
  per_chip_outputs(args, in, b, r);
  fit_steps(args, in, b, r);
}

// The range published runs' peak memory per GPU falls in about this estimate (an estimate band: runs
// lie on both sides of it), and the reader's own peak against it and among those runs.
void expected_steps(const Args& args, const MemoryInputs& in, double bytes_per_chip, Result& r) {
  const ChipKind kind = args.chip().kind;
  const Band* band = band_for("training_memory", "bytes_per_chip", kind);
  out_expected(band, {"bytes_per_chip", "expected_bytes_per_chip_low", "expected_bytes_per_chip_high", "bytes",
                      "peak memory per chip"},
               bytes_per_chip, r);
  out_band(band, "training_memory", kind, {{"chips", in.chips}, {"T", in.T}}, r);
  if (!args.given("measured_peak_bytes")) {
    r.out_null("measured_share_of_estimate");
    out_measured_among(nullptr, 0, r);
    return;
  }
  Expr share = r.step("Your measured peak as a share of the estimate", "s",
                      r.sym("\\text{measured}", args.num("measured_peak_bytes")) / r.sym("\\text{estimate}", bytes_per_chip),
                      "ratio");
  r.out("measured_share_of_estimate", share);
  out_measured_among(band, share.value(), r);
}

void compute(const Args& args, Result& r) {
  std::vector<std::string> warnings;
  MemoryInputs in = read_memory_inputs(args, warnings);
  for (const auto& w : warnings) r.warn(w);
  MemoryBreakdown b = training_memory_math(in, args.chip());
  state_steps(in, b, r);
  activation_steps(in, b, r);
  per_chip_steps(args, in, b, r);
  out_opt(r, "recompute_flops", b.recompute_flops);
  expected_steps(args, in, b.bytes_per_chip, r);
  if (in.checkpointing == "none" && in.model && in.accounting == Accounting::book) {
    r.warn("checkpointing \"none\" uses the book's rough count of 20 saved [tokens, D] tensors per layer "
           "(accounting \"practice\" counts each at its width).");
  }
}

}  // namespace

Calculator make_training_memory() {
  return {"training_memory", "Training memory", {4, 5, 6},
          "Bytes of weights, optimizer state and saved activations, per chip and in total.",
          [] {
            std::vector<Param> ps = training_memory_params();
            ps.push_back(params::positive("measured_peak_bytes", "bytes", 1e15, nullptr,
                                          "I measured: your run's peak memory per chip (PyTorch's "
                                          "torch.cuda.max_memory_reserved, or nvidia-smi): its share of this estimate and "
                                          "where it stands among published runs"));
            return ps;
          }(),
          compute};
}

}  // namespace scalelab
