// `training_run` (ch 6): time, chip-hours and cost of a whole training run, its memory, the
// book's recommended sharding, and a ranked search over every dp × fsdp × tp × pp layout.
#include <cmath>

#include "calculators/calculators.hpp"
#include "models/common.hpp"
#include "models/layout_search.hpp"
#include "models/topology.hpp"
#include "models/training_math.hpp"
#include "models/training_memory_schema.hpp"

namespace scalelab {
namespace {

struct RunTimes {
  double C = 0, chips = 1, total_flops = 0, t_s = 0, mfu = 0;
};

RunTimes time_steps(const Args& args, const MemoryInputs& mem, Result& r) {
  RunTimes t;
  t.C = compute_flops(args, r);
  t.chips = mem.chips;
  double tokens = args.num("tokens");
  r.out("params", mem.params_active);
  Expr flops = r.step("Training FLOPs", "\\text{FLOPs}", 6 * r.sym("P_{act}", mem.params_active) * r.sym("D", tokens),
                       "FLOPs");
  t.total_flops = flops.value();
  r.out("total_flops", t.total_flops);
  r.out("chips", t.chips);
  Expr n = r.sym("n", t.chips), C = r.sym("C", t.C);
  if (args.given("chip_hours")) {
    if (args.given("mfu")) throw InputError("chip_hours", "give either mfu or chip_hours, not both");
    Expr time = r.step("Wall time from chip-hours", "t", r.sym("\\text{chip-hours}", args.num("chip_hours")) * 3600 / n, "s");
    Expr peak = r.step("Peak FLOPs in that time", "\\text{peak}", n * time * C, "FLOPs");
    t.t_s = time.value();
    t.mfu = r.step("Implied MFU", "\\text{MFU}", flops / peak, "ratio").value();
  } else {
    t.mfu = args.num("mfu");
    Expr rate = r.step("Achieved FLOP/s", "R", n * C * r.sym("\\text{MFU}", t.mfu), "FLOP/s");
    t.t_s = r.step("Wall time", "t", flops / rate, "s").value();
  }
  r.out("mfu", t.mfu);
  r.out("achieved_flops_per_s", t.chips * t.C * t.mfu);
  r.out("peak_flops", t.chips * t.t_s * t.C);
  r.out("t_s", t.t_s);
  r.out("days", t.t_s / 86400);
  r.out("years", t.t_s / 86400 / 365);
  return t;
}

void cost_steps(const Args& args, const RunTimes& t, Result& r) {
  Expr chip_hours = r.step("Chip-hours", "\\text{chip-hours}", r.sym("n", t.chips) * r.sym("t", t.t_s) / 3600, "h");
  r.out("chip_hours", chip_hours);
  std::optional<double> price = args.num_if("price_per_hour_usd");
  if (!price) price = args.chip().price_per_hour_usd;
  if (!price) {
    r.out_null("cost_usd");
    return;
  }
  r.out("cost_usd", r.step("Cost", "", chip_hours * r.sym("\\text{price}", *price), "USD"));
}

void memory_steps(const Args& args, const MemoryInputs& mem, const RunTimes& t, Result& r) {
  MemoryBreakdown b = training_memory_math(mem);
  r.out("bytes_per_chip", b.bytes_per_chip);
  auto hbm = args.chip().hbm_bytes;
  if (!hbm) {
    for (const char* name : {"fits", "min_chips_memory", "days_at_min_chips"}) r.out_null(name);
    r.warn(args.chip().name() + " has no hbm_bytes: memory fit is unknown (chip_overrides {\"hbm_bytes\": …}).");
    return;
  }
  r.out("fits", b.bytes_per_chip <= *hbm);
  double min_chips = r.step("Minimum chips to hold the training state", "",
                            // at least one chip, however small the model
                            max(Expr(1), ceil(r.sym("\\text{total}", b.total_bytes) / r.sym("\\text{HBM}", *hbm))),
                            "count").value();
  r.out("min_chips_memory", min_chips);
  r.out("days_at_min_chips", t.t_s * t.chips / min_chips / 86400);
}

const char* bound_of(const CommNumbers& n) { return n.t_math >= n.t_comm ? "compute" : "comms"; }

// The book's TPU recipe inside one pod: pure FSDP while it is compute-bound, else FSDP × TP.
json recommend_in_pod(const Chip& chip, CommSetup s) {
  double axes = std::max(1.0, double(chip.pod_shape().size()));
  s.ici_link = chip.need(&Chip::ici_link_bytes_per_s, "ICI collectives are priced at one link's bandwidth");
  s.strategy = Strategy::fsdp;
  s.deg.fsdp = s.N;
  s.axes_fsdp = axes;
  CommNumbers pure = analyse_comm(s);
  if (pure.t_math >= pure.t_comm) return {{"fsdp", s.N}, {"tp", 1}, {"bound", "compute"}};
  s.strategy = Strategy::fsdp_tp;
  s.axes_fsdp = std::max(1.0, axes - 1);
  s.axes_tp = 1;
  s.at_optimum = true;
  CommNumbers split = analyse_comm(s);
  s.at_optimum = false;
  s.deg.fsdp = *split.fsdp_pow2;
  s.deg.tp = *split.tp_pow2;
  s.N = s.deg.fsdp * s.deg.tp;
  return {{"fsdp", s.deg.fsdp}, {"tp", s.deg.tp}, {"bound", bound_of(analyse_comm(s))}};
}

// More chips than a pod: the recipe inside each pod, and data parallelism across the pods over
// DCN (training_comm's dcn_dp), bound by the slower of the two.
json recommend_tpu(const Chip& chip, CommSetup s, double chips) {
  PodSpan span = tpu_pod_span(chip, chips);
  if (!span.beyond) return recommend_in_pod(chip, s);
  if (std::fmod(chips, span.pod_chips) != 0) {
    throw InputError("chips", plain(chips) + " is not a whole number of " + plain(span.pod_chips) + "-chip pods of " +
                                  chip.name() + ", so pods cannot hold equal data-parallel replicas");
  }
  CommSetup pod = s;
  pod.N = span.pod_chips;
  pod.B = s.B / span.pods;
  json in_pod = recommend_in_pod(chip, pod);
  s.strategy = Strategy::dcn_dp;
  s.fabric = Fabric::dcn;
  s.dcn = chip.need(&Chip::dcn_bytes_per_s, "traffic between pods crosses the data-centre network at it");
  s.deg = Degrees{};
  s.deg.dp = span.pods;
  s.deg.fsdp = span.pod_chips;
  const char* across = bound_of(analyse_comm(s));
  in_pod["dcn_dp"] = span.pods;
  if (std::string(across) == "comms") in_pod["bound"] = "comms";
  return in_pod;
}

// §2.5 "recommended": the book's recipe, evaluated with training_comm's formulas.
json recommend(const Args& args, const Model& m, const MemoryInputs& mem, double C) {
  const Chip& chip = args.chip();
  CommSetup s;
  s.C = C;
  s.w = mem.weight_bytes;
  s.a = mem.act_bytes;
  s.D = m.D;
  s.L = m.L;
  s.F_w = m.is_moe() ? (m.E + m.shared_experts) * m.F_expert : m.F;
  s.F_a = m.is_moe() ? (m.k + m.shared_experts) * m.F_expert : m.F;
  s.F_unit = m.is_moe() ? m.F_expert : m.F;
  s.B = std::max(1.0, mem.batch_tokens);
  s.N = mem.chips;
  if (!chip.is_gpu()) return recommend_tpu(chip, s, mem.chips);
  double G = chip.need(&Chip::node_gpus, "it sets how many GPUs share one NVLink domain");
  s.nvlink = chip.need(&Chip::nvlink_bytes_per_s, "collectives inside an NVLink domain are priced at it");
  double tp_limit = 2 * s.F_a * s.nvlink / (s.a * C);
  double tp = largest_pow2_at_most(std::min(G, std::max(1.0, tp_limit)));
  while (tp > 1 && std::fmod(s.N, tp) != 0) tp /= 2;
  s.strategy = Strategy::fsdp;
  s.deg.tp = tp;
  s.deg.fsdp = s.N / tp;
  if (s.N > G) {
    s.fabric = Fabric::ib_fat_tree;
    s.ib = chip.need(&Chip::ib_bytes_per_s, "collectives beyond one NVLink domain cross InfiniBand at it");
    s.node_gpus = G;
  } else {
    s.fabric = Fabric::nvlink;
  }
  return {{"fsdp", s.deg.fsdp}, {"tp", tp}, {"bound", bound_of(analyse_comm(s))}};
}

LayoutProblem layout_problem(const Args& args, const Model& m, const MemoryInputs& mem, double C) {
  const Chip& chip = args.chip();
  MemoryBreakdown b = training_memory_math(mem);
  LayoutProblem p;
  p.chips = mem.chips;
  p.params_total = mem.params;
  p.params_active = mem.params_active;
  p.layers = m.L;
  p.d_model = m.D;
  p.heads = m.N;
  p.attention_flops_fwd = 2 * mem.batch_tokens * mem.T * m.N * (head_dim_qk(m) + head_dim_v(m)) * m.L;
  p.recompute_flops = b.recompute_flops.value_or(0);
  p.batch_tokens = mem.batch_tokens;
  p.seq_len = mem.T;
  p.state_bytes = b.state_bytes;
  p.activation_bytes = b.activations_bytes;
  p.hbm_bytes = chip.hbm_bytes.value_or(0);
  p.weight_bytes = mem.weight_bytes;
  p.act_bytes = mem.act_bytes;
  p.flops_per_s = C;
  p.gpu = chip.is_gpu();
  if (p.gpu) {
    p.nvlink_bytes_per_s = chip.need(&Chip::nvlink_bytes_per_s, "collectives inside an NVLink domain are priced at it");
    p.ib_bytes_per_s = chip.need(&Chip::ib_bytes_per_s, "collectives beyond one NVLink domain cross InfiniBand at it");
    p.node_gpus = chip.need(&Chip::node_gpus, "it sets how many GPUs share one NVLink domain");
  } else {
    p.ici_link_bytes_per_s = chip.need(&Chip::ici_link_bytes_per_s, "ICI collectives are priced at one link's bandwidth");
    p.torus_axes = std::max(1.0, double(chip.pod_shape().size()));
    PodSpan span = tpu_pod_span(chip, p.chips);
    if (span.beyond) {
      p.pod_chips = span.pod_chips;
      p.dcn_bytes_per_s = chip.need(&Chip::dcn_bytes_per_s, "the data-parallel collectives between pods cross it");
    }
  }
  p.top_n = int(args.num("top_n"));
  p.rejected_samples = int(args.num("rejected_samples"));
  return p;
}

json layout_json(const LayoutEval& e) {
  return {{"dp", e.dp}, {"fsdp", e.fsdp}, {"tp", e.tp}, {"pp", e.pp}, {"microbatches", e.microbatches},
          {"step_s", e.step_s}, {"mfu", e.step_s > 0 ? e.t_math_s / e.step_s : 0},
          {"bound", term_name(e.dominant)}, {"t_math_s", e.t_math_s},
          {"t_data_parallel_s", e.t_data_parallel_s}, {"t_dcn_s", e.t_dcn_s}, {"t_tp_s", e.t_tp_s}, {"t_pp_s", e.t_pp_s},
          {"bubble_fraction", e.bubble_fraction}, {"bytes_per_chip", e.bytes_per_chip}};
}

void search_steps(const LayoutProblem& p, Result& r) {
  LayoutSearchResult found = search_layouts(p);
  json ranked = json::array(), rejected = json::array(), counts = json::object();
  for (const LayoutEval& e : found.ranked) ranked.push_back(layout_json(e));
  for (const LayoutEval& e : found.rejected_sample) {
    rejected.push_back({{"dp", e.dp}, {"fsdp", e.fsdp}, {"tp", e.tp}, {"pp", e.pp},
                        {"reason", reject_reason_name(e.reason)}, {"message", reject_message(p, e)},
                        {"bytes_per_chip", e.bytes_per_chip}});
  }
  for (int i = 1; i < kRejectReasons; ++i) {
    if (found.rejected_by_reason[i]) counts[reject_reason_name(RejectReason(i))] = found.rejected_by_reason[i];
  }
  r.out("layouts", ranked);
  r.out("rejected", rejected);
  r.out("rejected_counts", counts);
  r.out("layouts_evaluated", double(found.evaluated));
  r.out("layouts_fitting", double(found.fitting));
  if (found.ranked.empty()) {
    r.warn("No dp × fsdp × tp × pp layout of " + plain(p.chips) + " chips fits in memory and divides the model.");
    return;
  }
  const LayoutEval& best = found.ranked.front();
  if (!r.record_steps) return;
  Expr tp = r.sym("T_{tp}", best.tp_pass_s), pp = r.sym("T_{pp}", best.pp_pass_s);
  Expr N_MB = r.sym("N_{MB}", best.microbatches);
  Expr fwd = max(r.sym("T^{fwd}_{math}", best.fwd_math_s), r.sym("T^{fwd}_{fsdp}", best.fwd_gather_s), tp, pp);
  Expr bwd = max(r.sym("T^{bwd}_{math}", best.bwd_math_s), r.sym("T^{bwd}_{dp}", best.bwd_gather_s), tp, pp);
  r.step("Fastest layout's step time (dp " + plain(best.dp) + ", fsdp " + plain(best.fsdp) + ", tp " +
             plain(best.tp) + ", pp " + plain(best.pp) + ")",
         "T_{step}", (fwd + bwd) * (N_MB + r.sym("P", best.pp) - 1) / N_MB, "s");
}

void warn_pod_boundary(const Chip& chip, double chips, Result& r) {
  PodSpan span = tpu_pod_span(chip, chips);
  if (!span.beyond) return;
  r.warn(pod_boundary_warning(chip, span, "the layouts price data parallelism between pods at DCN bandwidth "
                                          "(t_dcn_s) and keep tensor and pipeline parallelism inside a pod."));
}

void compute(const Args& args, Result& r) {
  std::vector<std::string> warnings;
  MemoryInputs mem = read_memory_inputs(args, warnings);
  for (const auto& w : warnings) r.warn(w);
  RunTimes t = time_steps(args, mem, r);
  warn_pod_boundary(args.chip(), mem.chips, r);
  cost_steps(args, t, r);
  memory_steps(args, mem, t, r);
  if (!mem.model) {
    for (const char* name : {"recommended", "layouts", "rejected", "rejected_counts", "layouts_evaluated",
                             "layouts_fitting"}) {
      r.out_null(name);
    }
    return;
  }
  try {
    r.out("recommended", recommend(args, *mem.model, mem, t.C));
  } catch (const InputError& e) {
    r.out_null("recommended");
    r.warn(std::string("No recommended sharding: ") + e.what());
  }
  if (mem.batch_tokens <= 0) {
    for (const char* name : {"layouts", "rejected", "rejected_counts", "layouts_evaluated", "layouts_fitting"}) {
      r.out_null(name);
    }
    r.warn("batch_tokens is 0: the layout search needs a batch to time a step.");
    return;
  }
  std::optional<LayoutProblem> problem;
  try {
    problem = layout_problem(args, *mem.model, mem, t.C);
  } catch (const InputError& e) {
    for (const char* name : {"layouts", "rejected", "rejected_counts", "layouts_evaluated", "layouts_fitting"}) {
      r.out_null(name);
    }
    r.warn(std::string("No layout search: ") + e.what());
    return;
  }
  search_steps(*problem, r);
}

}  // namespace

Calculator make_training_run() {
  using namespace params;
  std::vector<Param> ps = training_memory_params();
  ps.push_back(positive("tokens", "tokens", 1e18, 1.5e13, "training tokens (D in 6ND)"));
  ps.push_back(utilisation("mfu", 0.4, "model FLOPs utilisation"));
  ps.push_back(number("chip_hours", "h", 1e-3, 1e15, nullptr,
                      "measured chip-hours (instead of mfu); at least 0.001 (3.6 chip-seconds): "
                      "a shorter run is no training run and would imply an MFU far above 1"));
  ps.push_back(number("price_per_hour_usd", "usd", 0, 1e6, nullptr, "price per chip-hour (default: the chip's)"));
  ps.push_back(dtype("compute_dtype", "dtype of the arithmetic: picks the FLOP/s rate"));
  ps.push_back(integer("top_n", "count", 0, 1000, 20, "ranked layouts to return", Scale::linear));
  ps.push_back(integer("rejected_samples", "count", 0, 100, 12, "rejected layouts to show with reasons",
                       Scale::linear));
  return {"training_run", "Training run", {6, 12},
          "Time, chip-hours and cost of a training run, its memory per chip, the book's recommended sharding, "
          "and every dp × fsdp × tp × pp layout ranked by step time.",
          std::move(ps), compute};
}

}  // namespace scalelab
