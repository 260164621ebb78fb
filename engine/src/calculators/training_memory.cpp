// `training_memory` (ch 4–6): parameter, optimizer and activation bytes, per chip and total.
#include <cmath>

#include "calculators/calculators.hpp"
#include "core/output_rows.hpp"
#include "models/common.hpp"
#include "models/expected.hpp"
#include "models/training_memory_schema.hpp"
#include "models/layout_search.hpp"
#include "models/training_math.hpp"

namespace scalelab {
namespace {

// What training_memory works out, one member per output of a number, a flag or a literal word:
// write_members writes them all from the rows below, after the derivation's steps are recorded.
struct MemoryFigures {
  double params = 0, bytes_per_param = 0, params_bytes = 0, grads_bytes = 0, optimizer_bytes = 0, master_bytes = 0;
  std::optional<double> checkpoints_per_layer;
  double activations_bytes = 0, chips = 0, total_bytes = 0, bytes_per_chip = 0;
  double params_bytes_per_chip = 0, grads_bytes_per_chip = 0, optimizer_bytes_per_chip = 0, master_bytes_per_chip = 0,
         activations_bytes_per_chip = 0, logits_bytes_per_chip = 0, fsdp_buffers_bytes_per_chip = 0,
         workspace_bytes_per_chip = 0, allocator_reserve_bytes_per_chip = 0;
  double tensor_bytes_per_chip = 0, host_bytes_per_chip = 0;
  Word accounting;
  double micro_batches = 0, in_flight_micro_batches = 0, stage = 0;
  std::optional<double> hbm_bytes, total_hbm_bytes;
  std::optional<bool> fits;
  std::optional<double> min_chips, min_nodes, max_params, recompute_flops, measured_share_of_estimate;
};

// The per-chip member of each memory part, in Part's order (part_id(p) + "_bytes_per_chip").
constexpr double MemoryFigures::* kPartMembers[kParts] = {
    &MemoryFigures::params_bytes_per_chip,       &MemoryFigures::grads_bytes_per_chip,
    &MemoryFigures::optimizer_bytes_per_chip,    &MemoryFigures::master_bytes_per_chip,
    &MemoryFigures::activations_bytes_per_chip,  &MemoryFigures::logits_bytes_per_chip,
    &MemoryFigures::fsdp_buffers_bytes_per_chip, &MemoryFigures::workspace_bytes_per_chip,
    &MemoryFigures::allocator_reserve_bytes_per_chip};

// training_memory's outputs, in the order results list them (name, unit, label, doc, nullable, and the
// member of MemoryFigures it is read from); the rows without one (tables, texts made at run time, the
// expected range and the measured run) are written where they are made.
// clang-format off
constexpr OutputRow<MemoryFigures> kOutputs[] = {
    {"params", "params", "parameters", "parameters the state is sized for", false, &MemoryFigures::params},
    {"bytes_per_param", "bytes", "state bytes per parameter", "weight, gradient, optimizer and master bytes per parameter", false, &MemoryFigures::bytes_per_param},
    {"params_bytes", "bytes", "weight bytes", "bytes of the weights", false, &MemoryFigures::params_bytes},
    {"grads_bytes", "bytes", "gradient bytes", "bytes of the gradients", false, &MemoryFigures::grads_bytes},
    {"optimizer_bytes", "bytes", "optimizer bytes", "bytes of the optimizer state", false, &MemoryFigures::optimizer_bytes},
    {"master_bytes", "bytes", "master-weight bytes", "bytes of the fp32 master weights", false, &MemoryFigures::master_bytes},
    {"checkpoints_per_layer", "count", "saved tensors per layer", "tokens × D tensors the forward pass saves per layer (null when the policy saves no fixed count)", true, &MemoryFigures::checkpoints_per_layer},
    {"activations_bytes", "bytes", "activation bytes", "bytes of the saved activations", false, &MemoryFigures::activations_bytes},
    {"chips", "chips", "chips", "chips the state is spread over", false, &MemoryFigures::chips},
    {"degrees", "", "degrees", "the parallelism degrees dp, fsdp, tp, pp", false},
    {"total_bytes", "bytes", "total bytes", "state plus activations over all chips", false, &MemoryFigures::total_bytes},
    {"bytes_per_chip", "bytes", "bytes per chip", "what one chip holds", false, &MemoryFigures::bytes_per_chip},
    {"params_bytes_per_chip", "bytes", "weights per chip", "weight bytes one chip holds", false, &MemoryFigures::params_bytes_per_chip},
    {"grads_bytes_per_chip", "bytes", "gradients per chip", "gradient bytes one chip holds", false, &MemoryFigures::grads_bytes_per_chip},
    {"optimizer_bytes_per_chip", "bytes", "optimizer state per chip", "optimizer bytes one chip holds", false, &MemoryFigures::optimizer_bytes_per_chip},
    {"master_bytes_per_chip", "bytes", "master weights per chip", "master-weight bytes one chip holds", false, &MemoryFigures::master_bytes_per_chip},
    {"activations_bytes_per_chip", "bytes", "activations per chip", "saved-activation bytes one chip holds", false, &MemoryFigures::activations_bytes_per_chip},
    {"logits_bytes_per_chip", "bytes", "logits per chip", "fp32 logits and their gradient on the last stage (accounting practice; 0 with the book's)", false, &MemoryFigures::logits_bytes_per_chip},
    {"fsdp_buffers_bytes_per_chip", "bytes", "FSDP buffers per chip", "weights FSDP holds gathered and gradients before their reduce-scatter (accounting practice)", false, &MemoryFigures::fsdp_buffers_bytes_per_chip},
    {"workspace_bytes_per_chip", "bytes", "workspace per chip", "framework workspace beside the tensors (accounting practice, GPUs)", false, &MemoryFigures::workspace_bytes_per_chip},
    {"allocator_reserve_bytes_per_chip", "bytes", "allocator reserve per chip", "memory the caching allocator holds unused (accounting practice, GPUs)", false, &MemoryFigures::allocator_reserve_bytes_per_chip},
    {"tensor_bytes_per_chip", "bytes", "tensors per chip", "bytes per chip less workspace and allocator reserve: what torch.cuda.max_memory_allocated reports", false, &MemoryFigures::tensor_bytes_per_chip},
    {"host_bytes_per_chip", "bytes", "host memory per chip", "optimizer state kept in host memory (offload) or paged out to it", false, &MemoryFigures::host_bytes_per_chip},
    {"memory_parts", "", "memory parts", "each part on one chip of the largest stage: part, label, bytes and where its rule comes from", false},
    {"largest_part", "", "largest part", "the part that takes the most memory on the chip", false},
    {"accounting", "", "accounting", "book (the book's rules) or practice (as frameworks hold memory)", false, &MemoryFigures::accounting},
    {"micro_batches", "count", "micro-batches per step", "gradient-accumulation steps of each replica", false, &MemoryFigures::micro_batches},
    {"in_flight_micro_batches", "count", "micro-batches in flight", "micro-batches whose activations the largest stage holds at its peak", false, &MemoryFigures::in_flight_micro_batches},
    {"stage", "count", "largest stage", "the pipeline stage (1-based) whose chip holds the most", false, &MemoryFigures::stage},
    {"stage_layers", "", "layers per stage", "how the layers fall on the pipeline stages (null without a model)", true},
    {"comm_strategy", "", "strategy for these degrees", "the training_comm strategy that prices these degrees on this chip (null on one chip)", true},
    {"hbm_bytes", "bytes", "memory per chip", "the memory a job may use on one chip: its HBM, the GPU's default share of unified memory (null when the chip has no memory figure)", true, &MemoryFigures::hbm_bytes},
    {"total_hbm_bytes", "bytes", "memory in all", "device memory of all chips together (null when the chip has no memory figure)", true, &MemoryFigures::total_hbm_bytes},
    {"fits", "", "fits", "whether one chip's share fits in its memory (null when the chip has no memory figure)", true, &MemoryFigures::fits},
    {"min_chips", "chips", "fewest chips", "fewest chips whose memory holds the state and activations (null when the chip has no memory figure)", true, &MemoryFigures::min_chips},
    {"min_nodes", "count", "fewest nodes", "fewest GPU nodes (GPUs only)", true, &MemoryFigures::min_nodes},
    {"max_params", "params", "largest model", "parameters whose state fits on these chips (null when the chip has no memory figure)", true, &MemoryFigures::max_params},
    {"recompute_flops", "FLOPs", "recompute FLOPs", "FLOPs the backward pass repeats under checkpointing", true, &MemoryFigures::recompute_flops},
    {"expected_bytes_per_chip_low", "bytes", "expected peak per chip, low", "bytes per chip times the low end of the share published runs' measured peaks are of the estimate (null where no runs calibrate it)", true},
    {"expected_bytes_per_chip_high", "bytes", "expected peak per chip, high", "bytes per chip times the high end of that share (null where no runs calibrate it)", true},
    {"expected_runs", "count", "published runs behind the range", "how many published peak-memory figures the range is fitted to (null where no runs calibrate it)", true},
    {"expected_share_low", "ratio", "expected share, low", "the low end of measured peak / estimate over the published runs (null where no runs calibrate it)", true},
    {"expected_share_high", "ratio", "expected share, high", "the high end of measured peak / estimate over the published runs (null where no runs calibrate it)", true},
    {"expected_covered", "", "setup within the published runs", "whether the chip's kind, the chips and the sequence length lie within what the published runs took (null where no runs calibrate it)", true},
    {"expected_outside", "", "setup beyond the published runs", "a sentence naming the chip's kind or the settings that lie outside what the published runs took (null when none does, or where no runs calibrate it)", true},
    {"measured_share_of_estimate", "ratio", "your peak / the estimate", "measured_peak_bytes over bytes per chip (null without a measurement)", true, &MemoryFigures::measured_share_of_estimate},
    {"measured_runs_below", "count", "published runs below yours", "of the published peak-memory figures, how many were a smaller share of their estimate than yours (null without a measurement, or where no runs calibrate it)", true},
    {"measured_among", "", "your run among the published ones", "a sentence placing your measured share among the published runs' (null without a measurement, or where no runs calibrate it)", true},
};
// clang-format on
static_assert(well_formed(kOutputs));

void state_steps(const MemoryInputs& in, MemoryFigures& f, Result& r) {
  f.params = in.params;
  Expr b_w = r.sym("b_w", in.weight_bytes), b_g = r.sym("b_g", in.grad_bytes);
  Expr b_opt = r.sym("b_{opt}", in.optimizer_bytes), b_master = r.sym("b_{master}", in.master_bytes);
  f.bytes_per_param = r.step("Bytes per parameter", "b_P", b_w + b_g + b_opt + b_master, "bytes").value();
  Expr P = r.sym("P", in.params);
  f.params_bytes = r.step("Weights", "", P * b_w, "bytes").value();
  f.grads_bytes = r.step("Gradients", "", P * b_g, "bytes").value();
  f.optimizer_bytes = r.step("Optimizer state", "", P * b_opt, "bytes").value();
  f.master_bytes = r.step("Master weights", "", P * b_master, "bytes").value();
}

// The book's count, or each policy's tensors at their true widths.
Expr checkpoint_count(const MemoryInputs& in, const MemoryBreakdown& b, MemoryFigures& f, Result& r) {
  Expr c = r.sym(in.checkpointing == "custom" ? "c" : tex_text(in.checkpointing), b.checkpoints_per_layer.value_or(0));
  if (!b.checkpoints_per_layer) {
    f.checkpoints_per_layer.reset();
  } else if (in.model && in.checkpointing == "mlp_outputs") {
    const Model& m = *in.model;
    Expr D = r.sym("D", m.D), F = r.sym("F", m.F);
    c = r.step("Saved [tokens, D] tensors per layer", "c", (D + (m.gated ? 2 * F : F)) / D, "count");
    f.checkpoints_per_layer = c.value();
  } else {
    f.checkpoints_per_layer = *b.checkpoints_per_layer;
  }
  return c;
}

// With the book's defaults (the whole batch at once, no pipeline): A = b_a · tokens · D · L · c.
bool book_defaults(const MemoryInputs& in) {
  return in.accounting == Accounting::book && in.micro_batch <= 0 && in.degrees.pp == 1;
}

void activation_steps(const MemoryInputs& in, const MemoryBreakdown& b, MemoryFigures& f, Result& r) {
  Expr c = checkpoint_count(in, b, f, r);
  if (!in.model || (!b.checkpoints_per_layer && book_defaults(in))) {
    f.activations_bytes = 0;
    return;
  }
  const Model& m = *in.model;
  if (book_defaults(in)) {
    f.activations_bytes = r.step("Saved activations", "A",
                                 r.sym("b_a", in.act_bytes) * r.sym("\\text{tokens}", in.batch_tokens) * r.sym("D", m.D) *
                                     r.sym("L", m.L) * c,
                                 "bytes")
                              .value();
    return;
  }
  f.activations_bytes = r.step("Saved activations, all chips at the peak", "A",
                               r.sym("A_{chip}", b.per_chip.parts[int(Part::activations)]) * r.sym("n", in.chips), "bytes")
                            .value();
}

// The simple case: state spread evenly over fsdp·tp·pp and activations over every chip.
bool even_split(const MemoryInputs& in) {
  return book_defaults(in) && in.zero == 0 && in.cp == 1 && in.ep == 1 && in.offload == Offload::none;
}

void per_chip_outputs(const Args& args, const MemoryInputs& in, const MemoryBreakdown& b, MemoryFigures& f, Result& r) {
  const StepMemory& mem = b.per_chip;
  for (int i = 0; i < kParts; ++i) f.*kPartMembers[i] = mem.parts[i];
  f.tensor_bytes_per_chip = mem.total - mem.parts[int(Part::workspace)] - mem.parts[int(Part::reserve)];
  f.host_bytes_per_chip = mem.host_bytes;
  json parts = json::array();
  for (int i = 0; i < kParts; ++i) {
    if (mem.parts[i] <= 0) continue;
    parts.push_back({{"part", part_id(Part(i))}, {"label", part_label(Part(i))}, {"bytes", mem.parts[i]},
                     {"source", part_source(Part(i))}});
  }
  r.out("memory_parts", parts);
  r.out("largest_part", part_id(mem.largest));
  f.accounting = in.accounting == Accounting::practice ? Word("practice") : Word("book");
  f.micro_batches = mem.micro_batches;
  f.in_flight_micro_batches = mem.in_flight;
  f.stage = mem.stage + 1;
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

// Without a memory figure for the chip, hbm_bytes, total_hbm_bytes, fits, min_chips, min_nodes and
// max_params stay empty (null).
void fit_steps(const Args& args, const MemoryInputs& in, const MemoryBreakdown& b, MemoryFigures& f, Result& r) {
  const Degrees& d = in.degrees;
  const Chip& chip = args.chip();
  auto hbm = chip.hbm_bytes;
  if (!hbm) {
    r.warn(chip.name() + " has no hbm_bytes in the catalog: fits, min_chips and max_params are unknown "
                         "(give chip_overrides {\"hbm_bytes\": …}).");
    return;
  }
  hbm = usable_memory(chip, *hbm, r.log());
  f.hbm_bytes = *hbm;
  f.total_hbm_bytes = in.chips * *hbm;
  // it fits when all but the allocator's reserve does (under pressure the allocator frees its cache)
  double must_fit = b.per_chip.fit_bytes;
  f.fits = must_fit <= *hbm;
  Expr HBM = r.sym(chip.memory_symbol(), *hbm);
  double min_chips = r.step("Minimum chips (perfect sharding)", "",
                            ceil(r.sym("\\text{total}", b.total_bytes) / HBM), "count").value();
  f.min_chips = min_chips;
  if (auto node = chip.node_gpus; node && chip.is_gpu()) f.min_nodes = std::ceil(min_chips / *node);
  Expr XYZ = r.sym("X_{fsdp}", d.fsdp) * r.sym("Y_{tp}", d.tp) * r.sym("Z_{pp}", d.pp);
  f.max_params = r.step("Largest model whose state fits (activations ignored)", "P_{max}",
                        HBM * XYZ / r.sym("b_P", b.bytes_per_param), "count").value();
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

void per_chip_steps(const Args& args, const MemoryInputs& in, const MemoryBreakdown& b, MemoryFigures& f, Result& r) {
  const Degrees& d = in.degrees;
  f.chips = in.chips;
  r.out("degrees", json{{"dp", d.dp}, {"fsdp", d.fsdp}, {"tp", d.tp}, {"pp", d.pp}, {"cp", in.cp}, {"ep", in.ep}});
  Expr state = r.sym("P b_P", b.state_bytes), A = r.sym("A", b.activations_bytes);
  f.total_bytes = r.step("Total bytes", "\\text{total}", state + A, "bytes").value();
  if (even_split(in)) {
    Expr XYZ = r.sym("X_{fsdp}", d.fsdp) * r.sym("Y_{tp}", d.tp) * r.sym("Z_{pp}", d.pp);
    f.bytes_per_chip = r.step("Bytes per chip", "", state / XYZ + A / r.sym("n", in.chips), "bytes").value();
  } else {
    memory_part_steps(in.settings(args.chip(), 0), in.layout(), in.model ? in.model->V : 0, b.per_chip, r);
    f.bytes_per_chip = b.bytes_per_chip;
  }
  per_chip_outputs(args, in, b, f, r);
  fit_steps(args, in, b, f, r);
}

// The range published runs' peak memory per GPU falls in about this estimate (an estimate band: runs
// lie on both sides of it), and the reader's own peak against it and among those runs.
void expected_steps(const Args& args, const MemoryInputs& in, double bytes_per_chip, MemoryFigures& f, Result& r) {
  const ChipKind kind = args.chip().kind;
  const Band* band = band_for("training_memory", "bytes_per_chip", kind);
  out_expected(band, expected_output(kOutputs, "bytes_per_chip", "peak memory per chip"),
               bytes_per_chip, r);
  out_band(band, "training_memory", kind, {{"chips", in.chips}, {"T", in.T}}, r, band_outputs(kOutputs));
  if (!args.given("measured_peak_bytes")) {
    out_measured_among(nullptr, 0, r);
    return;
  }
  Expr share = r.step("Your measured peak as a share of the estimate", "s",
                      r.sym("\\text{measured}", args.num("measured_peak_bytes")) / r.sym("\\text{estimate}", bytes_per_chip),
                      "ratio");
  f.measured_share_of_estimate = share.value();
  out_measured_among(band, share.value(), r);
}

void compute(const Args& args, Result& r) {
  std::vector<std::string> warnings;
  MemoryInputs in = read_memory_inputs(args, warnings);
  for (const auto& w : warnings) r.warn(w);
  MemoryBreakdown b = training_memory_math(in, args.chip());
  MemoryFigures f;
  state_steps(in, f, r);
  activation_steps(in, b, f, r);
  per_chip_steps(args, in, b, f, r);
  f.recompute_flops = b.recompute_flops;
  expected_steps(args, in, b.bytes_per_chip, f, r);
  write_members<kOutputs>(f, r);
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
          compute,
          outputs_of(kOutputs)};
}

}  // namespace scalelab
