// `training_run` (ch 6): time, chip-hours and cost of a whole training run, its memory, the
// book's recommended sharding, and a ranked search over every dp × fsdp × tp × pp layout.
#include <cmath>

#include "calculators/calculators.hpp"
#include "core/format_words.hpp"
#include "core/output_rows.hpp"
#include "models/common.hpp"
#include "models/expected.hpp"
#include "models/layout_search.hpp"
#include "models/topology.hpp"
#include "models/training_math.hpp"
#include "models/training_memory_schema.hpp"

namespace scalelab {
namespace {

// What training_run works out, one member per output of a number, a flag or a literal word:
// write_members writes them all from the rows below, after the derivation's steps are recorded. An
// empty optional is null (bare params, no price, no memory figure, no layout search).
struct RunFigures {
  double params = 0, total_flops = 0;
  std::optional<double> total_flops_with_attention;
  Word mfu_convention;
  double chips = 1, mfu = 0;
  std::optional<double> mfu_with_attention;
  double achieved_flops_per_s = 0, flops_at_peak = 0, peak_flops = 0, t_s = 0, days = 0, years = 0, chip_hours = 0;
  std::optional<double> cost_usd;
  double bytes_per_chip = 0;
  std::optional<bool> fits;
  std::optional<double> min_chips_memory, days_at_min_chips;
  std::optional<double> layouts_evaluated, layouts_fitting;
};

// training_run's outputs, in the order results list them (name, unit, label, doc, nullable, and the
// member of RunFigures it is read from); the rows without one (the recommended layout, the layout
// search's tables, the named layout, the expected range and the measured run) are written where
// they are made. The rows made by the layout search end with kByLayoutSearch: its ranked and
// refused layouts and their counts, and the named layout's check (a search of its completions that
// reads the fastest step). Each reads only the parameters marked layout_search (make_training_run).
// clang-format off
constexpr OutputRow<RunFigures> kOutputs[] = {
    {"params", "params", "parameters", "parameters of the model", false, &RunFigures::params},
    {"total_flops", "FLOPs", "training FLOPs", "FLOPs of the whole run, 6·P·D", false, &RunFigures::total_flops},
    {"total_flops_with_attention", "FLOPs", "training FLOPs with attention", "6·P·D plus attention's FLOPs as a causal model executes them, half the book's count (null with bare params)", true, &RunFigures::total_flops_with_attention},
    {"mfu_convention", "", "MFU convention", "what the given MFU counts: 6pd or attention", false, &RunFigures::mfu_convention},
    {"chips", "chips", "chips", "chips the run uses", false, &RunFigures::chips},
    {"mfu", "ratio", "MFU", "model FLOPs utilisation counting 6·P·D (given, converted from the attention convention, or implied by chip_hours)", false, &RunFigures::mfu},
    {"mfu_with_attention", "ratio", "MFU with attention", "the same run's utilisation counting attention's FLOPs too (null with bare params, or where that passes 1: a warning says so)", true, &RunFigures::mfu_with_attention},
    {"achieved_flops_per_s", "FLOP/s", "achieved FLOP/s", "FLOP/s the run sustains over all chips", false, &RunFigures::achieved_flops_per_s},
    {"flops_at_peak", "FLOPs", "FLOPs at peak", "FLOPs all chips could do at their peak over the run time (chips × time × peak FLOP/s): a count, not a rate", false, &RunFigures::flops_at_peak},
    {"peak_flops", "FLOPs", "FLOPs at peak (older name)", "the same count as flops_at_peak, kept under its first name so API callers that read it still work; it was always a count, once mislabelled FLOP/s", false, &RunFigures::peak_flops},
    {"t_s", "s", "run time", "wall-clock time of the run", false, &RunFigures::t_s},
    {"days", "days", "time to train", "run time in days (under a day, in its own unit)", false, &RunFigures::days},
    {"years", "years", "years", "run time in years", false, &RunFigures::years},
    {"chip_hours", "chip-hours", "chip-hours", "chips × hours", false, &RunFigures::chip_hours},
    {"cost_usd", "usd", "cost", "chip-hours times the price (null without a price)", true, &RunFigures::cost_usd},
    {"bytes_per_chip", "bytes", "bytes per chip", "training state and activations per chip", false, &RunFigures::bytes_per_chip},
    {"fits", "", "fits", "whether the state fits on these chips", true, &RunFigures::fits},
    {"min_chips_memory", "chips", "fewest chips for memory", "fewest chips whose memory holds the training state", true, &RunFigures::min_chips_memory},
    {"days_at_min_chips", "days", "time to train on the fewest chips", "run time on the fewest chips that hold the state", true, &RunFigures::days_at_min_chips},
    {"recommended", "", "recommended layout", "the best layout found: fsdp, tp and what bounds it", true},
    {"layouts", "", "layouts", "ranked layouts that fit, best first", true, {}, kByLayoutSearch},
    {"rejected", "", "rejected layouts", "sample layouts that fail, with the reason", true, {}, kByLayoutSearch},
    {"rejected_counts", "", "rejections by reason", "how many layouts failed for each reason", true, {}, kByLayoutSearch},
    {"rejected_reasons", "", "reasons in words", "each rejection reason's id and what it means", true, {}, kByLayoutSearch},
    {"layouts_evaluated", "count", "layouts evaluated", "layouts the search tried", true, &RunFigures::layouts_evaluated, kByLayoutSearch},
    {"layouts_fitting", "count", "layouts that fit", "layouts that fit in device memory and run", true, &RunFigures::layouts_fitting, kByLayoutSearch},
    {"nearest_memory_miss", "", "nearest miss", "of the layouts refused for memory, the one closest to fitting (null when none)", true, {}, kByLayoutSearch},
    {"layout_check", "", "the named layout", "the layout given as layout: its memory parts, step time, MFUs and the reason it is refused (null without one)", true, {}, kByLayoutSearch},
    {"expected_t_s_low", "s", "expected run time, short", "the run time at the chips' peak (MFU 1, 6·P·D) over the high end of the MFU published training runs on this kind of chip reached (null where no runs calibrate it)", true},
    {"expected_t_s_high", "s", "expected run time, long", "the run time at the chips' peak (MFU 1, 6·P·D) over the low end of the MFU published training runs on this kind of chip reached (null where no runs calibrate it)", true},
    {"expected_days_low", "days", "expected days to train, few", "expected_t_s_low in days (null where no runs calibrate it)", true},
    {"expected_days_high", "days", "expected days to train, many", "expected_t_s_high in days (null where no runs calibrate it)", true},
    {"expected_runs", "count", "published runs behind the range", "how many published training runs the expected range is fitted to (null where no runs calibrate it)", true},
    {"expected_share_low", "ratio", "expected MFU, low", "the low end of the MFU (share of the chips' peak, 6·P·D) published training runs reached (null where no runs calibrate it)", true},
    {"expected_share_high", "ratio", "expected MFU, high", "the high end of the MFU (share of the chips' peak, 6·P·D) published training runs reached (null where no runs calibrate it)", true},
    {"expected_covered", "", "setup within the published runs", "whether the chip's kind, the chips and the sequence length lie within what the published runs took (null where no runs calibrate it)", true},
    {"expected_outside", "", "setup beyond the published runs", "a sentence naming the chip's kind or the settings that lie outside what the published runs took, and what they took (null when none does, or where no runs calibrate it)", true},
    {"measured_runs_below", "count", "published runs below yours", "of the published runs of this kind (whole runs for chip_hours, steady-state steps for measured_tokens_per_s), how many reached a smaller MFU than the one measured (null without a measurement, or where no runs calibrate it)", true},
    {"measured_among", "", "your run among the published ones", "a sentence placing the measured MFU among the published runs' (null without a measurement, or where no runs calibrate it)", true},
};
// clang-format on
static_assert(well_formed(kOutputs));

struct RunTimes {
  double C = 0, chips = 1, total_flops = 0, t_s = 0, mfu = 0;
};

// Attention's FLOPs over the whole run as a causal model executes them: the book's 2·T·N·(H_qk + H_v)
// a token per layer forward, halved by the causal mask (the book's note on causal masking: a token
// attends to the tokens before it, which a flash-attention kernel skips the rest of), three times
// that with the backward pass. The layout's step time counts attention so too, so that no MFU
// counted with attention exceeds 1 at the bound.
std::optional<Expr> attention_flops(const MemoryInputs& mem, double tokens, Result& r) {
  if (!mem.model) return std::nullopt;
  const Model& m = *mem.model;
  return r.step("Attention FLOPs (forward and backward, causal: half the dot products)", "F_{attn}",
                3 * 2 * r.sym("T", mem.T) * r.sym("N", m.N) * r.sym("(H_{qk} + H_v)", head_dim_qk(m) + head_dim_v(m)) *
                    r.sym("L", m.L) * r.sym("D", tokens) / 2,
                "FLOPs");
}

RunTimes time_steps(const Args& args, const MemoryInputs& mem, RunFigures& f, Result& r) {
  RunTimes t;
  t.C = compute_flops(args, r);
  t.chips = mem.chips;
  double tokens = args.num("tokens");
  f.params = mem.params_active;
  Expr flops = r.step("Training FLOPs (6·P·D)", "\\text{FLOPs}", 6 * r.sym("P_{act}", mem.params_active) * r.sym("D", tokens),
                      "FLOPs");
  t.total_flops = flops.value();
  f.total_flops = t.total_flops;
  std::optional<Expr> attention = attention_flops(mem, tokens, r);
  std::optional<Expr> with_attention;
  if (attention) {
    with_attention = r.step("Training FLOPs with attention", "\\text{FLOPs}_{attn}", flops + *attention, "FLOPs");
    f.total_flops_with_attention = with_attention->value();
  }
  bool attention_convention = args.str("mfu_convention") == "attention";
  if (attention_convention && !with_attention) {
    throw InputError("mfu_convention", "\"attention\" needs a model's attention shape (bare params count 6·P·D only)");
  }
  f.mfu_convention = attention_convention ? Word("attention") : Word("6pd");
  Expr counted = attention_convention ? *with_attention : flops;
  f.chips = t.chips;
  Expr n = r.sym("n", t.chips), C = r.sym("C", t.C);
  double mfu_attention = 0;
  if (args.given("chip_hours") && args.given("measured_tokens_per_s")) {
    throw InputError("measured_tokens_per_s", "give either chip_hours or a measured rate, not both");
  }
  const char* measured = args.given("chip_hours")              ? "chip_hours"
                         : args.given("measured_tokens_per_s") ? "measured_tokens_per_s"
                                                               : nullptr;
  if (measured) {
    if (args.given("mfu")) throw InputError(measured, std::string("give either mfu or ") + measured + ", not both");
    // the longest run chip_hours allows (10^15 chip-hours on one chip) bounds a measured rate from below
    constexpr double kLongest_s = 1e15 * 3600;
    if (!args.given("chip_hours") && tokens / args.num("measured_tokens_per_s") > kLongest_s) {
      throw InputError("measured_tokens_per_s", "must be at least " + plain(tokens / kLongest_s) +
                                                    " for these tokens: a slower rate takes longer than 10^15 hours, got " +
                                                    plain(args.num("measured_tokens_per_s")));
    }
    Expr time = args.given("chip_hours")
                    ? r.step("Wall time from chip-hours", "t", r.sym("\\text{chip-hours}", args.num("chip_hours")) * 3600 / n, "s")
                    : r.step("Wall time at the measured rate", "t",
                             r.sym("D", tokens) / r.sym("\\text{tokens/s}", args.num("measured_tokens_per_s")), "s");
    Expr peak = r.step("Peak FLOPs in that time", "\\text{peak}", n * time * C, "FLOPs");
    t.t_s = time.value();
    if (flops.value() > peak.value()) {
      const double at_peak = flops.value() / (t.chips * t.C);  // seconds at the chips' peak
      throw InputError(measured, args.given("chip_hours")
          ? "must be at least " + plain(at_peak * t.chips / 3600) +
                ": fewer chip-hours than 6·P·D needs at the chips' peak (an MFU above 1), got " + plain(args.num("chip_hours"))
          : "must be at most " + plain(tokens / at_peak) +
                ": faster than 6·P·D allows at the chips' peak (an MFU above 1), got " +
                plain(args.num("measured_tokens_per_s")));
    }
    t.mfu = r.step("Implied MFU (6·P·D convention)", "\\text{MFU}", flops / peak, "ratio").value();
    if (with_attention) {
      mfu_attention = r.step("Implied MFU with attention", "\\text{MFU}_{attn}", *with_attention / peak, "ratio").value();
    }
  } else {
    double given = args.num("mfu");
    Expr rate = r.step(attention_convention ? StepText("Achieved FLOP/s (MFU counted with attention)") : StepText("Achieved FLOP/s"),
                       "R", n * C * r.sym("\\text{MFU}", given), "FLOP/s");
    t.t_s = r.step("Wall time", "t", counted / rate, "s").value();
    // the same FLOP/s counted the other way: the MFUs differ by the ratio of the FLOP counts
    Expr mfu = r.sym("\\text{MFU}", given);
    if (attention_convention) {
      t.mfu = r.step("MFU in the 6·P·D convention", "\\text{MFU}_{6PD}", mfu * flops / *with_attention, "ratio").value();
      mfu_attention = given;
    } else {
      t.mfu = given;
      if (with_attention) {
        mfu_attention = r.step("The same run's MFU counted with attention", "\\text{MFU}_{attn}",
                               mfu * *with_attention / flops, "ratio").value();
      }
    }
  }
  f.mfu = t.mfu;
  if (with_attention && mfu_attention > 1) {
    // an MFU counted as 6·P·D leaves attention's FLOPs no time when it is near 1: no run is that fast
    r.warn("At an MFU of " + plain(t.mfu) + " counted as 6·P·D the chips would run attention's FLOPs too, at " +
           plain(mfu_attention) + " of their peak, which no run reaches: the highest MFU counted as 6·P·D is " +
           plain(flops.value() / with_attention->value()) + " here, and this time is below any real run's.");
  } else if (with_attention) {
    f.mfu_with_attention = mfu_attention;
  }
  f.achieved_flops_per_s = t.chips * t.C * t.mfu;
  // a count (FLOPs over the run time at peak), not a rate: peak_flops keeps the same value for API callers
  const double at_peak = t.chips * t.t_s * t.C;
  f.flops_at_peak = f.peak_flops = at_peak;
  f.t_s = t.t_s;
  f.days = t.t_s / kSecondsPerDay;
  f.years = t.t_s / kSecondsPerDay / 365;
  return t;
}

void cost_steps(const Args& args, const RunTimes& t, RunFigures& f, Result& r) {
  Expr chip_hours = r.step("Chip-hours", "\\text{chip-hours}", r.sym("n", t.chips) * r.sym("t", t.t_s) / 3600, "chip-hours");
  f.chip_hours = chip_hours.value();
  std::optional<double> price = args.num_if("price_per_hour_usd");
  if (!price) price = args.chip().price_per_hour_usd;
  if (!price) return;  // no price: no cost
  f.cost_usd = r.step("Cost", "", chip_hours * r.sym("\\text{price}", *price), "USD").value();
}

// The range of run times published training runs on this kind of chip reach: the band holds their
// MFUs, shares of the time at the chips' peak (6·P·D), so the range is that time over the band, whatever
// MFU the reader gave (their own guess at the same gap).
void expected_steps(const Args& args, const MemoryInputs& mem, const RunTimes& t, Result& r) {
  const ChipKind kind = args.chip().kind;
  const Band* band = band_for("training_run", "t_s", kind);
  const double at_peak = t.total_flops / (t.chips * t.C);
  out_expected(band, expected_output(kOutputs, "t_s", "run time"), at_peak, r);
  out_expected(band, expected_output(kOutputs, "days", "days to train"), at_peak / kSecondsPerDay, r);
  out_band(band, "training_run", kind, {{"chips", t.chips}, {"T", mem.T}}, r, band_outputs(kOutputs));
  // a measured run among the published ones: whole runs (chip-hours) among whole runs, a rate
  // among steady-state steps; their shares are MFUs counted as 6·P·D, as t.mfu is
  const bool hours = args.given("chip_hours"), step = args.given("measured_tokens_per_s");
  out_measured_among(hours || step ? band_for("training_run", hours ? "t_s" : "mfu", kind) : nullptr, t.mfu, r);
}

void memory_steps(const Args& args, const MemoryInputs& mem, const RunTimes& t, RunFigures& f, Result& r) {
  MemoryBreakdown b = training_memory_math(mem, args.chip());
  f.bytes_per_chip = b.bytes_per_chip;
  auto hbm = args.chip().hbm_bytes;
  if (!hbm) {  // fits, min_chips_memory and days_at_min_chips stay null
    r.warn(args.chip().name() + " has no hbm_bytes: memory fit is unknown (chip_overrides {\"hbm_bytes\": …}).");
    return;
  }
  hbm = usable_memory(args.chip(), *hbm, r.log());
  f.fits = b.per_chip.fit_bytes <= *hbm;
  double min_chips = r.step("Minimum chips to hold the training state", "",
                            // at least one chip, however small the model
                            max(Expr(1), ceil(r.sym("\\text{total}", b.total_bytes) / r.sym(args.chip().memory_symbol(), *hbm))),
                            "count").value();
  f.min_chips_memory = min_chips;
  f.days_at_min_chips = t.t_s * t.chips / min_chips / kSecondsPerDay;
}

const char* bound_of(const CommNumbers& n) { return n.t_math >= n.t_comm ? "compute" : "comms"; }

// Several chips' collectives are priced over a TPU pod's links or GPUs' NVLink and InfiniBand. A
// reader's own devices have neither (a gaming card without an NVLink bridge, a Mac, a CPU): one of
// them communicates nothing (one_chip); for several, the sharding and the layout search are refused
// in words (PCIe between cards is not priced here), while the run's time and memory still stand.
void refuse_own_devices_link(const Chip& chip, double chips) {
  if (chips <= 1 || chip.is_tpu() || chip.kind == ChipKind::datacenter_gpu) return;
  if (chip.is_gpu() && chip.nvlink_bytes_per_s && chip.node_gpus) return;  // cards with an NVLink bridge
  std::string why =
      chip.is_gpu()
          ? chip.name() + " has no NVLink, and several would talk over " +
                (chip.pcie_bytes_per_s ? "PCIe (" + format_quantity(*chip.pcie_bytes_per_s, "bytes/s") + " each way)"
                                       : "the host") +
                ", which this model does not price (it prices collectives over NVLink and InfiniBand, or a TPU "
                "pod's links)"
          : chip.name() + " is one " + (chip.kind == ChipKind::cpu ? "CPU" : "unified-memory machine") +
                ", with no link to another that this model prices";
  throw InputError("chips", why);
}

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
    throw InputError("chips", format_quantity(chips, "chips") + " are not a whole number of " + grouped(span.pod_chips) + "-chip pods of " +
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
  if (one_chip(s)) return {{"fsdp", 1}, {"tp", 1}, {"bound", "compute"}};  // nothing to communicate
  refuse_own_devices_link(chip, mem.chips);
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

// What the inputs fix for the search; the rest it tries.
SearchSpace search_space(const Args& args, const MemoryInputs& mem) {
  SearchSpace s;
  if (args.given("checkpointing")) {
    s.remat_fixed = true;
    s.remat = mem.remat;
  }
  if (args.given("schedule")) {
    s.schedule_fixed = true;
    s.schedule = mem.schedule;
    s.virtual_stages = args.num_if("virtual_stages").value_or(0);
  }
  if (args.given("micro_batch")) s.micro_batch = args.num("micro_batch");
  if (args.given("zero_stage")) s.zero = int(args.num("zero_stage"));
  s.sequence_parallel = mem.sequence_parallel;
  s.offload = mem.offload;
  return s;
}

LayoutProblem layout_problem(const Args& args, const MemoryInputs& mem, double C) {
  const Chip& chip = args.chip();
  refuse_own_devices_link(chip, mem.chips);
  LayoutProblem p;
  p.chips = mem.chips;
  p.model = step_model(mem);
  p.settings = mem.settings(chip, C);
  p.settings.max_bubble = args.num("max_bubble");
  p.settings.max_comm_ratio = args.num_if("max_comm_ratio").value_or(0);
  p.network = step_network(chip, mem.chips);
  if (mem.chips > 1 && chip.is_gpu()) {
    // inside one NVLink domain nothing else is needed; beyond it, InfiniBand
    p.network.node_gpus = chip.need(&Chip::node_gpus, "it sets how many GPUs share one NVLink domain");
    p.network.nvlink = chip.need(&Chip::nvlink_bytes_per_s, "collectives inside an NVLink domain are priced at it");
    if (mem.chips > p.network.node_gpus) {
      p.network.ib = chip.need(&Chip::ib_bytes_per_s, "collectives beyond one NVLink domain cross InfiniBand at it");
    }
  } else if (mem.chips > 1) {
    p.network.ici_link = chip.need(&Chip::ici_link_bytes_per_s, "ICI collectives are priced at one link's bandwidth");
    if (p.network.pod_chips > 0) {
      p.network.dcn = chip.need(&Chip::dcn_bytes_per_s, "the data-parallel collectives between pods cross it");
    }
  }
  p.space = search_space(args, mem);
  p.top_n = int(args.num("top_n"));
  p.rejected_samples = int(args.num("rejected_samples"));
  return p;
}

json parts_json(const StepMemory& mem) {
  json parts = json::object();
  for (int i = 0; i < kParts; ++i) parts[part_id(Part(i))] = mem.parts[i];
  return parts;
}

// One layout: the keys the book's search had (dp, fsdp, tp, pp, microbatches, step_s, mfu, bound,
// t_*_s, bubble_fraction, bytes_per_chip) and the axes and figures of a step as it is run.
json layout_json(const LayoutProblem& p, const StepEval& e) {
  const StepLayout& l = e.layout;
  const StepTime& t = e.time;
  const StepMemory& mem = e.memory;
  json j = {{"dp", l.dp}, {"fsdp", l.fsdp}, {"tp", l.tp}, {"pp", l.pp}, {"cp", l.cp}, {"ep", l.ep},
            {"zero_stage", l.fsdp > 1 ? 3 : l.zero}, {"micro_batch", l.micro_batch > 0 ? json(l.micro_batch) : json()},
            {"microbatches", mem.micro_batches}, {"checkpointing", remat_id(l.remat)},
            {"schedule", l.pp > 1 ? json(schedule_id(l.schedule)) : json()}, {"virtual_stages", l.virtual_stages},
            {"bytes_per_chip", mem.total}, {"largest_part", part_id(mem.largest)},
            {"in_flight_micro_batches", mem.in_flight},
            {"stage_layers", stage_layers_text(p.model.layers, l.pp, l.virtual_stages)}};
  if (e.reason == Reject::memory || t.step_s <= 0) return j;
  j.update({{"step_s", t.step_s}, {"mfu", t.mfu_6pd}, {"mfu_with_attention", t.mfu_attention},
            {"bound", term_name(t.dominant)}, {"t_math_s", t.compute_s}, {"t_data_parallel_s", t.dp_s},
            {"t_exposed_data_parallel_s", t.exposed_dp_s}, {"t_dcn_s", t.dcn_s}, {"t_tp_s", t.tp_s},
            {"t_cp_s", t.cp_s}, {"t_ep_s", t.ep_s}, {"t_pp_s", t.pp_s}, {"t_bubble_s", t.bubble_s},
            {"bubble_fraction", t.bubble_fraction}});
  return j;
}

json rejected_json(const LayoutProblem& p, const StepEval& e) {
  json j = layout_json(p, e);
  j["reason"] = reject_id(e.reason);
  j["message"] = reject_message(p, e);
  return j;
}

// The fastest layout's step, written out: its micro-batches' passes, the bubble, and the
// data-parallel traffic the last backward pass cannot hide.
void best_step(const StepEval& best, Result& r, const std::string& what) {
  const StepTime& t = best.time;
  const StepLayout& l = best.layout;
  std::string title = what + " (tp " + plain(l.tp) + ", pp " + plain(l.pp) + ", cp " + plain(l.cp) +
                      ", dp " + plain(l.dp * l.fsdp) + (l.fsdp > 1 ? " FSDP" : " ZeRO-" + plain(l.zero)) + ", " +
                      plain(best.memory.micro_batches) + " micro-batches" +
                      (l.pp > 1 ? std::string(", ") + schedule_title(l.schedule) : std::string()) + ")";
  Expr mb = r.sym("m", best.memory.micro_batches);
  Expr pass = r.sym("T_F", t.t_fwd_mb) + r.sym("T_B", t.t_bwd_mb);
  Expr step = mb * pass + r.sym("T_{bubble}", t.bubble_s) + r.sym("T_{dp,exposed}", t.exposed_dp_s);
  if (t.offload_s > 0) step = step + r.sym("T_{offload}", t.offload_s);
  r.step(title, "T_{step}", step, "s");
  r.step("Its MFU, 6·P·D convention", "\\text{MFU}",
         r.sym("6 P B", t.flops_6pd) / (r.sym("n", l.chips()) * r.sym("C", t.flops_per_s) * r.sym("T_{step}", t.step_s)),
         "ratio");
}

std::optional<double> search_steps(const LayoutProblem& p, RunFigures& f, Result& r) {
  LayoutSearchResult found = search_layouts(p);
  json ranked = json::array(), rejected = json::array(), counts = json::object(), reasons = json::object();
  for (const StepEval& e : found.ranked) ranked.push_back(layout_json(p, e));
  for (const StepEval& e : found.rejected_sample) rejected.push_back(rejected_json(p, e));
  for (int i = 1; i < kRejects; ++i) {
    if (!found.rejected_by_reason[i]) continue;
    counts[reject_id(Reject(i))] = found.rejected_by_reason[i];
    reasons[reject_id(Reject(i))] = reject_title(Reject(i), p.network.gpu);
  }
  r.out("layouts", ranked);
  r.out("rejected", rejected);
  r.out("rejected_counts", counts);
  r.out("rejected_reasons", reasons);
  f.layouts_evaluated = double(found.evaluated);
  f.layouts_fitting = double(found.fitting);
  if (found.any_memory_miss) {
    r.out("nearest_memory_miss", rejected_json(p, found.nearest_memory_miss));
  } else {
    r.out_null("nearest_memory_miss");
  }
  if (found.ranked.empty()) {
    r.warn("No layout of " + format_quantity(p.chips, "chips") + " fits in memory and divides the model" +
           (found.any_memory_miss ? "; the nearest " + reject_message(p, found.nearest_memory_miss) : std::string()) + ".");
    return std::nullopt;
  }
  if (r.record_steps) best_step(found.ranked.front(), r, "Fastest layout's step");
  return found.ranked.front().time.step_s;
}

void warn_pod_boundary(const Chip& chip, double chips, Result& r) {
  PodSpan span = tpu_pod_span(chip, chips);
  if (!span.beyond) return;
  r.warn(pod_boundary_warning(chip, span, "the layouts price data parallelism between pods at DCN bandwidth "
                                          "(t_dcn_s) and keep tensor and pipeline parallelism inside a pod."));
}

// The layout search's tables, null where no search runs (its counts, members of RunFigures, stay
// empty there).
const char* const kSearchTables[] = {"layouts", "rejected", "rejected_counts", "rejected_reasons",
                                     "nearest_memory_miss"};

void null_search(Result& r) {
  for (const char* name : kSearchTables) r.out_null(name);
}

// "Why not this layout?": the layout the reader names, its unnamed axes filled by the search's best
// choice; its memory parts, step time and, if it is refused, why.
void layout_check(const Args& args, LayoutProblem p, const MemoryInputs& mem, std::optional<double> fastest, Result& r) {
  const json& named = args.raw("layout");
  auto axis = [&](const char* key) { return named.contains(key) ? named[key].get<double>() : 0.0; };
  p.space.tp = axis("tp");
  p.space.pp = axis("pp");
  p.space.cp = axis("cp");
  p.space.ep = axis("ep");
  p.space.data = axis("dp");
  double product = std::max(1.0, p.space.tp) * std::max(1.0, p.space.pp) * std::max(1.0, p.space.cp) *
                   std::max(1.0, p.space.data);
  bool all_given = p.space.tp > 0 && p.space.pp > 0 && p.space.data > 0;
  if (all_given && p.space.cp == 0) p.space.cp = 1;
  if (all_given ? product != mem.chips : std::fmod(mem.chips, product) != 0) {
    throw InputError("layout", "tp · pp · cp · dp = " + plain(product) + " must " + (all_given ? "equal" : "divide") +
                                   " the " + plain(mem.chips) + " chips");
  }
  if (named.contains("zero_stage")) p.space.zero = int(named["zero_stage"].get<double>());
  if (named.contains("micro_batch")) p.space.micro_batch = named["micro_batch"].get<double>();
  if (named.contains("checkpointing")) {
    p.space.remat_fixed = true;
    p.space.remat = parse_remat(named["checkpointing"].get<std::string>());
  }
  if (named.contains("schedule")) {
    p.space.schedule_fixed = true;
    p.space.schedule = parse_schedule(named["schedule"].get<std::string>());
    p.space.virtual_stages = named.contains("virtual_stages") ? named["virtual_stages"].get<double>() : 0;
  }
  p.top_n = 1;
  p.rejected_samples = 1;
  LayoutSearchResult found = search_layouts(p);
  json check;
  const StepEval* shown = nullptr;
  if (!found.ranked.empty()) {
    shown = &found.ranked.front();
    check = layout_json(p, *shown);
    check["fits"] = true;
    check["reason"] = "none";
    check["message"] = "";
  } else {
    shown = found.any_memory_miss ? &found.nearest_memory_miss
                                  : found.rejected_sample.empty() ? nullptr : &found.rejected_sample.front();
    if (!shown) throw InputError("layout", "names no layout of these chips");
    check = rejected_json(p, *shown);
    check["fits"] = false;
  }
  check["parts"] = parts_json(shown->memory);
  check["host_bytes"] = shown->memory.host_bytes;
  check["completions_evaluated"] = double(found.evaluated);
  check["completions_fitting"] = double(found.fitting);
  check["fastest_step_s"] = fastest ? json(*fastest) : json();
  r.out("layout_check", check);
  if (!r.record_steps || shown->memory.stage_params <= 0) return;
  memory_part_steps(p.settings, shown->layout, p.model.vocab, shown->memory, r);
  if (shown->time.step_s > 0) best_step(*shown, r, "The named layout's step");
}

void run_steps(const Args& args, RunFigures& f, Result& r) {
  std::vector<std::string> warnings;
  MemoryInputs mem = read_memory_inputs(args, warnings, true);
  for (const auto& w : warnings) r.warn(w);
  RunTimes t = time_steps(args, mem, f, r);
  warn_pod_boundary(args.chip(), mem.chips, r);
  cost_steps(args, t, f, r);
  expected_steps(args, mem, t, r);
  memory_steps(args, mem, t, f, r);
  bool named = args.given("layout");
  if (!mem.model) {
    if (named) throw InputError("layout", "needs a model: bare params give no layers, heads or widths to lay out");
    r.out_null("recommended");
    null_search(r);
    r.out_null("layout_check");
    return;
  }
  try {
    r.out("recommended", recommend(args, *mem.model, mem, t.C));
  } catch (const InputError& e) {
    r.out_null("recommended");
    r.warn(std::string("No recommended sharding: ") + e.what());
  }
  if (mem.batch_tokens <= 0) {
    if (named) throw InputError("batch_tokens", "must be positive to time the named layout's step");
    null_search(r);
    r.out_null("layout_check");
    r.warn("batch_tokens is 0: the layout search needs a batch to time a step.");
    return;
  }
  std::optional<LayoutProblem> problem;
  try {
    problem = layout_problem(args, mem, t.C);
  } catch (const InputError& e) {
    if (named) throw;
    null_search(r);
    r.out_null("layout_check");
    r.warn(std::string("No layout search: ") + e.what());
    return;
  }
  std::optional<double> fastest;
  if (args.flag("search")) {
    fastest = search_steps(*problem, f, r);
  } else {
    null_search(r);
  }
  if (named) {
    layout_check(args, *problem, mem, fastest, r);
  } else {
    r.out_null("layout_check");
  }
}

void compute(const Args& args, Result& r) {
  RunFigures f;
  run_steps(args, f, r);
  write_members<kOutputs>(f, r);
}

}  // namespace

// The settings of a step the layout search tries when they are omitted: given, each narrows the
// search to its value (and sets the run's own layout's memory); omitted, the search picks.
void mark_searched(std::vector<Param>& ps) {
  static const std::pair<const char*, const char*> kSearched[] = {
      {"micro_batch", "omitted: the layout search tries 1, 2, 4 … 32 and the whole replica batch"},
      {"zero_stage", "omitted: the layout search tries 0–3"},
      {"checkpointing", "omitted: the layout search tries none, selective and full (the run's own memory counts none)"},
      {"schedule", "omitted: the layout search tries each (the run's own layout counts 1F1B)"},
  };
  for (const auto& [name, omitted] : kSearched) {
    for (Param& p : ps) {
      if (p.name != name) continue;
      p.searched = true;
      p.default_value = nullptr;
      p.doc += std::string("; ") + omitted;
    }
  }
}

// A parameter the layout search reads (Param::layout_search): the chip, the model, the memory
// settings, the chips and the degrees that set them, the compute format and the search's own
// settings. The tokens, the MFU or a measured rate, the price and the MFU's convention set the run's
// time, cost and expected range only: time_steps, cost_steps and expected_steps read them, and
// layout_problem does not; nor does it read ep (below). TrainingRun.LayoutSearchMarksAreWhatTheSearch-
// ReadsAndMakes moves each parameter and compares the search's outputs.
namespace {
Param read_by_search(Param p) {
  p.layout_search = true;
  return p;
}
}  // namespace

Calculator make_training_run() {
  using namespace params;
  std::vector<Param> ps = training_memory_params();
  // all of the memory settings but ep: the search tries every expert-parallel degree itself (ep sets
  // the run's own layout only)
  for (Param& p : ps) p.layout_search = p.name != "ep";
  mark_searched(ps);
  ps.push_back(positive("tokens", "tokens", 1e18, 1.5e13, "training tokens (D in 6ND)"));
  ps.push_back(utilisation("mfu", 0.4, "model FLOPs utilisation"));
  ps.push_back(number("chip_hours", "chip-hours", 1e-3, 1e15, nullptr,
                      "measured chip-hours (instead of mfu); at least 0.001 (3.6 chip-seconds): "
                      "a shorter run is no training run and would imply an MFU far above 1"));
  ps.push_back(measured_tokens_per_s(
      "I measured: training tokens per second over all the chips, from your run's log (instead of mfu): the MFU "
      "it implies, the run's time at that pace and where it stands among published runs"));
  ps.push_back(number("price_per_hour_usd", "usd", 0, 1e6, nullptr, "price per chip-hour (default: the chip's)"));
  ps.push_back(read_by_search(dtype("compute_dtype", "dtype of the arithmetic: picks the FLOP/s rate")));
  ps.push_back(read_by_search(integer("top_n", "count", 0, 1000, 20, "ranked layouts to return", Scale::linear)));
  ps.push_back(read_by_search(
      integer("rejected_samples", "count", 0, 100, 12, "rejected layouts to show with reasons", Scale::linear)));
  ps.push_back(choice("mfu_convention", {"6pd", "attention"}, "6pd",
                      "what the MFU counts: 6·P·D (the book's, PaLM's 'without self-attention') or those FLOPs "
                      "plus attention's (PaLM's and Llama 3's published MFUs)",
                      {"6·P·D", "6·P·D plus attention"}));
  ps.push_back(read_by_search(number("max_bubble", "ratio", 0, 1, 0.5,
                                     "the search refuses a layout whose pipeline bubble takes more than this share of "
                                     "the step",
                                     Scale::linear)));
  ps.push_back(read_by_search(number("max_comm_ratio", "ratio", 0.01, 1000, nullptr,
                                     "the search refuses a layout whose slowest collective takes more than this many "
                                     "times its compute (default: no such limit)")));
  ps.push_back(read_by_search(boolean("search", true, "rank every layout of the chips (false: only the named layout)")));
  ps.push_back(read_by_search(object("layout",
                      {integer("tp", "count", 1, 1e7, nullptr, "tensor-parallel degree"),
                       integer("pp", "count", 1, 1e7, nullptr, "pipeline stages"),
                       integer("cp", "count", 1, 1e7, nullptr, "context-parallel degree"),
                       integer("ep", "count", 1, 1e7, nullptr, "expert-parallel degree"),
                       integer("dp", "count", 1, 1e7, nullptr, "data-parallel degree"),
                       integer("zero_stage", "count", 0, 3, nullptr, "ZeRO stage over dp (3: FSDP)", Scale::linear),
                       integer("micro_batch", "sequences", 1, 1e9, nullptr, "sequences per micro-batch"),
                       choice("checkpointing", {"none", "block", "big_matmuls", "mlp_outputs", "custom", "selective", "full"},
                              nullptr, "rematerialisation policy",
                              {"none: keep everything", "block: layer inputs", "big matmuls' outputs", "MLP outputs",
                               "custom count per layer", "selective (matmul outputs kept)", "full (layer inputs kept)"}),
                       choice("schedule", schedule_names(), nullptr, "pipeline schedule", schedule_titles()),
                       integer("virtual_stages", "count", 1, 128, nullptr, "interleaved: chunks per device",
                               Scale::linear)},
                      "a layout to check (\"why not this layout?\"): its memory parts, step time and the reason it "
                      "is refused; axes left out are chosen by the search")));
  return {"training_run", "Training run", {6, 12},
          "Time, chip-hours and cost of a training run, its memory per chip, the book's recommended sharding, "
          "and every tp × pp × cp × dp (ZeRO stage or FSDP) × ep layout with its micro-batch, rematerialisation "
          "and pipeline schedule ranked by step time, each refusal with its reason.",
          std::move(ps), compute,
          outputs_of(kOutputs)};
}

}  // namespace scalelab
