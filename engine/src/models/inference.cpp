// Shared inference math: the served model, the fabric, one prefill step, one decode step.
// The formulas are api/inference.md's "How the engine computes each output".
#include "models/inference.hpp"
#include "core/format_words.hpp"

#include "models/expected.hpp"
#include "models/topology.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "schema/params.hpp"
#include "models/common.hpp"
#include "models/model_math.hpp"

namespace scalelab {
namespace {

std::optional<double> served_kv_bytes_per_token(const Args& args, const Model* dims, double kv_dtype_bytes) {
  if (args.has("kv_bytes_per_token")) return args.num("kv_bytes_per_token");
  if (dims) return kv_bytes_per_token(*dims, kv_dtype_bytes);
  return std::nullopt;
}

ServedModel read_served_model(const Args& args, double kv_dtype_bytes) {
  ServedModel m;
  bool bare = args.given("params") && !args.given("model");
  if (bare) {
    refuse_if_given(args, "model_overrides",
                    "needs a model: a bare params count has no dimensions to override");
    m.params_total = m.params_active = args.num("params");
  } else {
    std::shared_ptr<const Model> held = args.model_handle();
    const Model& model = *held;
    if (args.given("params") && model.is_moe()) {
      throw InputError("params", "cannot replace the count of an MoE model (" + model.name +
                                     "): its total and active counts differ; give the model "
                                     "alone, or a bare params count without a model");
    }
    ParamCounts counts = count_params(model);
    m.params_total = args.given("params") ? args.num("params") : counts.total();
    m.params_active = args.given("params") ? args.num("params") : counts.active();
    m.params_routed = counts.mlp_routed;
    m.dims = std::move(held);
  }
  m.kv_given = args.has("kv_bytes_per_token");
  m.kv_bytes_per_token = served_kv_bytes_per_token(args, m.dims.get(), kv_dtype_bytes);
  return m;
}

// "memory" | "compute" | "comms": the largest of the three, ties in that order.
Word largest_term(double t_weights, double t_math, std::optional<double> t_comm) {
  Word bound = "memory";
  double best = t_weights;
  if (t_math > best) {
    bound = "compute";
    best = t_math;
  }
  if (t_comm && *t_comm > best) bound = "comms";
  return bound;
}

std::string chips_text(double n) { return plain(n) + (n == 1 ? " chip" : " chips"); }
std::string devices_text(double n) { return plain(n) + (n == 1 ? " device" : " devices"); }
// "a" or "an" before a number as it is written: "an 8-chip slice", "an 11-chip", "a 16-chip".
std::string article_for(double n) {
  std::string w = plain(n);
  return w[0] == '8' || w == "11" || w == "18" || w.rfind("11,", 0) == 0 || w.rfind("18,", 0) == 0 ? "an" : "a";
}

// A step's label naming the fabric: "... over ici" (made only when steps are recorded).
std::string over(std::string_view label, const ParallelFabric& fabric) {
  return std::string(label).append(fabric.name);
}

void decode_bytes(const InferenceSetup& s, DecodeFigures& f, const Steps& log) {
  const ServedModel& m = s.model;
  Expr b_w = log.sym("b_w", s.w);
  Expr weights = log.step("Weight bytes", "\\text{bytes}_w", log.sym("P", m.params_total) * b_w, "bytes");
  f.weight_bytes = weights.value();
  Expr read = weights;
  if (m.dims && m.dims->is_moe()) {
    read = log.step("Weight bytes a step reads (the experts its batch routes to)", "\\text{bytes}_{w,read}",
                    params_read(*m.dims, m.params_total, m.params_routed, f.batch, log) * b_w, "bytes");
    f.experts_read_share = experts_read_share(*m.dims, f.batch, Steps()).value();
    f.all_experts_batch = all_experts_batch(*m.dims, log).value();
  }
  f.weight_bytes_read = read.value();
  if (f.context > 0 && !m.kv_bytes_per_token) {
    throw InputError("kv_bytes_per_token",
                     "is required with a bare params count when context > 0 (KV-cache bytes per "
                     "token, all layers, K and V); or give a model");
  }
  f.kv_bytes_per_token = m.kv_bytes_per_token;
  Expr per_token = log.sym("\\text{KV}_{tok}", m.kv_bytes_per_token.value_or(0));
  if (m.kv_bytes_per_token && !m.kv_given && m.dims) {
    const Model& d = *m.dims;
    Expr L = log.sym("L", d.L), b_kv = log.sym("b_{kv}", s.kv);
    Expr kv = d.is_mla() ? L * (log.sym("r_{kv}", d.kv_lora_rank) + log.sym("d_{rope}", d.qk_rope_head_dim)) * b_kv
                         : 2 * L * log.sym("K", d.K) * log.sym("H", d.H) * b_kv;
    // The figure itself comes from model_math (one source); the step shows its formula.
    per_token = log.step(d.is_mla() ? StepText("KV bytes per token (MLA latent)") : StepText("KV bytes per token"),
                         "\\text{KV}_{tok}", kv, "bytes");
  }
  Expr per_seq = log.step("KV bytes per sequence", "\\text{KV}_{seq}", per_token * log.sym("S", f.context), "bytes");
  f.kv_bytes_per_sequence = per_seq.value();
  Expr batch = log.sym("B", f.batch);
  Expr kv_total = log.step("KV bytes of the batch", "\\text{KV}", batch * per_seq, "bytes");
  f.kv_bytes_total = kv_total.value();
  f.total_bytes = log.step("Bytes read per step", "\\text{bytes}", read + kv_total, "bytes").value();
  f.held_bytes = f.weight_bytes_read == f.weight_bytes
                     ? f.total_bytes
                     : log.step("Bytes held: every weight + KV", "\\text{bytes}_{held}", weights + kv_total, "bytes").value();
  f.flops = log.step("FLOPs per step (attention FLOPs ignored)", "\\text{FLOPs}",
                     2 * log.sym("P_{active}", m.params_active) * batch, "FLOPs").value();
}

void decode_times(const InferenceSetup& s, DecodeFigures& f, const Steps& log) {
  Expr n = log.sym("n", f.chips), W = log.sym(s.W_symbol, s.W);
  Expr read = f.weight_bytes_read == f.weight_bytes ? log.sym("\\text{bytes}_w", f.weight_bytes)
                                                     : log.sym("\\text{bytes}_{w,read}", f.weight_bytes_read);
  f.t_weights_s = log.step("Weight load time", "T_w", read / (n * W), "s").value();
  f.t_kv_s = log.step("KV load time", "T_{kv}", log.sym("\\text{KV}", f.kv_bytes_total) / (n * W), "s").value();
  f.t_math_s = log.step("Math time", "T_{math}", log.sym("\\text{FLOPs}", f.flops) / (n * log.sym("C", s.C)), "s").value();
}

void ws2d_split(const InferenceSetup& s, DecodeFigures& f, const Steps& log) {
  const Model& d = *s.model.dims;
  Expr N = log.sym("N", f.chips);
  Expr x = log.step("2D weight-stationary X (optimum, clamped to [1, N])", "X",
                    min(max(sqrt(N * log.sym("D", d.D) / (2 * log.sym("F", s.model.mlp_width()))), 1), N), "chips");
  f.ws2d_x = x.value();
  f.ws2d_yz = log.step("2D weight-stationary YZ", "YZ", N / x, "chips").value();
}

void mlp_comm(const InferenceSetup& s, DecodeFigures& f, const ParallelFabric& fabric, const Steps& log) {
  const Model& d = *s.model.dims;
  Expr B = log.sym("B", f.batch), D = log.sym("D", d.D), F = log.sym("F", s.model.mlp_width());
  Expr b_a = log.sym("b_a", s.a), W = log.sym(fabric.symbol, fabric.bytes_per_s);
  Expr mlp = 0;
  if (s.ws2d) {
    Expr x = log.sym("X", *f.ws2d_x), yz = log.sym("YZ", *f.ws2d_yz);
    mlp = log.step(log.on() ? over("MLP collectives, 2D weight-stationary, over ", fabric) : std::string(), "T_{comm}^{MLP}",
                   b_a * B * D / (x * W) + 2 * b_a * B * F / (yz * W), "s");
  } else {
    mlp = log.step(log.on() ? over("MLP collectives (AllGather + ReduceScatter) over ", fabric) : std::string(),
                   "T_{comm}^{MLP}", 2 * b_a * B * D / (log.sym("M", s.axes_tp) * W), "s");
  }
  f.mlp_t_comm_s = mlp.value();
  f.t_comm_s = log.step("Comms time per step (attention's collectives ≈ the MLP's)", "T_{comm}",
                        2 * log.sym("L", d.L) * mlp, "s").value();
}

// The warnings a sweep meets at many points are kept as their numbers (Warning); these write
// their text from them when it is written.
void latency_bound_warning(const Warning::Numbers& n, std::string_view, std::string& t) {
  t += "The model-parallel collectives are latency-bound: each moves ";
  append_quantity(n[0], "bytes", t);
  t += ", under ";
  append_quantity(n[1], "bytes", t);
  t += ", so the per-hop latency, not bandwidth, sets their time (the comms time shown is a bandwidth lower bound).";
}

void comm_latency(DecodeFigures& f, const ParallelFabric& fabric, const Steps& log) {
  if (f.chips == 1 || !fabric.hop_latency_s) return;
  double threshold = log.step("Latency-bound below (whole activation buffer)", "V_{lat}",
                              log.sym("n", f.chips) * log.sym("W_{link}", fabric.link_bytes_per_s) *
                                  log.sym("t_{hop}", *fabric.hop_latency_s),
                              "bytes").value();
  f.comm_latency_bound_below_bytes = threshold;
  f.comm_regime = *f.activation_bytes < threshold ? Word("latency") : Word("bandwidth");
  if (*f.comm_regime == "latency") log.warn(Warning(latency_bound_warning, {*f.activation_bytes, threshold}));
}

void decode_comm(const InferenceSetup& s, DecodeFigures& f, const std::optional<ParallelFabric>& fabric,
                 const Steps& log) {
  if (!s.model.dims) return;
  const Model& d = *s.model.dims;
  Expr D = log.sym("D", d.D);
  f.activation_bytes = log.step("Activation buffer of one collective", "V",
                                log.sym("B", f.batch) * D * log.sym("b_a", s.a), "bytes").value();
  f.ws2d_crossover_chips = log.step("Chips above which 2D weight-stationary beats 1D", "N_{2D}",
                                    2 * log.sym("F", s.model.mlp_width()) * pow(log.sym("M", s.axes_tp), 2) / D,
                                    "chips").value();
  if (s.ws2d) ws2d_split(s, f, log);
  // One chip exchanges nothing: no collective, so no comms time (null, not a zero time).
  if (f.chips == 1) return;
  if (!fabric) {
    if (f.chips > 1) {
      log.warn(s.chip->name() +
               " has no link between chips that this prices (a TPU's ICI, NVLink, InfiniBand, or a card's "
               "PCIe), so the model-parallel collectives are not timed: the comms times are left out. Give "
               "a link's bandwidth among the chip's figures to time them (chip_overrides: "
               "ici_link_bytes_per_s, nvlink_bytes_per_s, ib_bytes_per_s or, on a card, pcie_bytes_per_s).");
    }
    return;
  }
  mlp_comm(s, f, *fabric, log);
  comm_latency(f, *fabric, log);
}

// The book's slice (a TPU's, a datacenter GPU's node) or the reader's own devices.
bool is_slice(const Chip& chip) { return chip.is_tpu() || chip.kind == ChipKind::datacenter_gpu; }

void decode_step_time(const InferenceSetup& s, DecodeFigures& f, const Steps& log) {
  Expr t_math = log.sym("T_{math}", f.t_math_s), t_w = log.sym("T_w", f.t_weights_s);
  Expr t_comm = log.sym("T_{comm}", f.t_comm_s.value_or(0)), t_kv = log.sym("T_{kv}", f.t_kv_s);
  Expr mlp = max(t_math, t_w, t_comm);
  Expr step = log.step("Step time", "T_{step}", t_kv + mlp, "s");
  f.step_s = step.value();
  f.mlp_bound = largest_term(f.t_weights_s, f.t_math_s, f.t_comm_s);
  f.bound = f.mlp_bound == "memory" || f.t_kv_s >= mlp.value() ? "memory" : f.mlp_bound;
  Expr per_s = log.step(is_slice(*s.chip) ? StepText("Tokens per second (the slice)")
                        : f.chips == 1        ? StepText("Tokens per second (the device)")
                                              : StepText("Tokens per second (the devices together)"),
                        "",
                        log.sym("B", f.batch) / step, "tokens/s");
  f.tokens_per_s = per_s.value();
  f.tokens_per_s_per_chip = log.step("Tokens per second per chip", "", per_s / log.sym("n", f.chips), "tokens/s").value();
}

// numbers: weight bytes, chips, slice memory bytes, min chips, free memory bytes (negative);
// argument: the chip's memory (Chip::memory_name).
// Slice: the book's chips of a slice (a TPU, a datacenter GPU); else the reader's own devices.
template <bool Slice>
void weights_exceed_memory_warning(const Warning::Numbers& n, std::string_view memory, std::string& t) {
  t += "The weights alone (";
  append_quantity(n[0], "bytes", t);
  t += ") exceed the ";
  t += memory;
  t += " of ";
  t += Slice ? chips_text(n[1]) : devices_text(n[1]);
  t += " (";
  append_quantity(n[2], "bytes", t);
  t += "): they need at least ";
  append_quantity(n[3], Slice ? "chips" : "devices", t);
  t += ". They overflow it by ";
  append_quantity(-n[4], "bytes", t);
  t += ", so no room is left for a KV cache and nothing fits.";
}

// numbers: batch, total bytes, slice memory bytes, chips, min chips for the batch, min slice chips,
// whether there is a max batch (1 or 0), the max batch, context, KV bytes per sequence; argument:
// the chip's memory (Chip::memory_name).
template <bool Slice>
void does_not_fit_warning(const Warning::Numbers& n, std::string_view memory, std::string& t) {
  bool has_max = n[6] != 0;
  double max_batch = n[7], context = n[8];
  t += "Does not fit: weights + KV for batch ";
  append_quantity(n[0], "count", t);
  t += " need ";
  append_quantity(n[1], "bytes", t);
  t += ", more than the ";
  append_quantity(n[2], "bytes", t);
  t += " of ";
  t += memory;
  t += " on ";
  t += Slice ? chips_text(n[3]) : devices_text(n[3]);
  t += "; ";
  if (has_max && max_batch == 0) {
    t += "not even one sequence of ";
    append_quantity(context, "tokens", t);
    t += " fits (its KV cache is ";
    append_quantity(n[9], "bytes", t);
    t += ")";
  } else if (has_max) {
    t += "at most ";
    append_quantity(max_batch, max_batch == 1 ? "sequence" : "sequences", t);
    t += " of ";
    append_quantity(context, "tokens", t);
    t += max_batch == 1 ? " fits" : " fit";
  } else {
    t += "the KV caches do not fit";
  }
  t += ". This batch needs ";
  append_quantity(n[4], Slice ? "chips" : "devices", t);
  if (Slice) {
    t += " (" + article_for(n[5]) + " ";
    t += grouped(n[5]);
    t += "-chip slice)";
  }
  t += ". The times are what the step would take if it fit.";
}

void decode_fit_warnings(const DecodeFigures& f, double free_raw, const Chip& chip, const Steps& log) {
  if (free_raw <= 0) {
    log.warn(Warning(is_slice(chip) ? weights_exceed_memory_warning<true> : weights_exceed_memory_warning<false>, {f.weight_bytes, f.chips, f.slice_hbm_bytes, f.min_chips, free_raw},
                     chip.memory_name()));
    return;
  }
  if (f.fits) return;
  log.warn(Warning(is_slice(chip) ? does_not_fit_warning<true> : does_not_fit_warning<false>,
                   {f.batch, f.held_bytes, f.slice_hbm_bytes, f.chips, f.min_chips_for_batch, f.min_slice_chips,
                    f.max_batch ? 1.0 : 0.0, f.max_batch.value_or(0), f.context, f.kv_bytes_per_sequence},
                   chip.memory_name()));
}

// The words decode's fit steps name the chip's memory with: the book's "HBM of the slice" on a TPU
// or a datacenter GPU; a reader's own devices' memory in their words ("GDDR6X memory of the devices
// together"), its symbol "mem" where the memory is not HBM.
// Empty when steps are not recorded (nothing is made per sweep point).
struct MemoryWords {
  std::string symbol, symbol_all, of_all, bandwidth_of_all, flops_of_all, left, smallest_group;
};
MemoryWords memory_words(const Chip& chip) {
  MemoryWords w;
  std::string name = chip.memory_name();
  w.symbol = chip.memory_symbol();
  w.symbol_all = w.symbol + (chip.has_hbm() ? "_{slice}" : "_{all}");
  bool slice = is_slice(chip);
  std::string all = slice ? " of the slice" : " of the devices together";
  w.smallest_group = slice ? "Smallest power-of-two slice that holds them"
                           : "Smallest power-of-two number of devices that holds them";
  std::string capital = name;
  capital[0] = char(std::toupper(static_cast<unsigned char>(capital[0])));
  w.of_all = capital + all;
  w.bandwidth_of_all = capital + " bandwidth" + all;
  w.flops_of_all = "FLOP/s" + all;
  w.left = capital + " left for KV caches";
  return w;
}

void decode_fit(const InferenceSetup& s, DecodeFigures& f, const Steps& log) {
  static const std::string why = "the weights and the KV cache must fit in it";  // made once, not per point
  double hbm_per_chip = usable_memory(*s.chip, s.chip->need(&Chip::hbm_bytes, why), log);
  const MemoryWords words = log.on() ? memory_words(*s.chip) : MemoryWords();
  Expr n = log.sym("n", f.chips), hbm = log.sym(words.symbol, hbm_per_chip);
  Expr slice = log.step(words.of_all, words.symbol_all, n * hbm, "bytes");
  f.slice_hbm_bytes = slice.value();
  f.slice_hbm_bytes_per_s = log.step(words.bandwidth_of_all, "", n * log.sym(s.W_symbol, s.W), "bytes/s").value();
  f.slice_flops_per_s = log.step(words.flops_of_all, "", n * log.sym("C", s.C), "FLOP/s").value();
  // Negative when the weights alone do not fit: the margin says by how much (fits is false).
  Expr weights = log.sym("\\text{bytes}_w", f.weight_bytes);
  Expr free = log.step(words.left, "\\text{free}", slice - weights, "bytes");
  f.free_hbm_bytes = free.value();
  if (f.context > 0 && f.kv_bytes_per_sequence > 0) {
    f.max_batch = free.value() <= 0 ? 0
                                    : log.step("Largest batch that fits", "B_{max}",
                                               floor(free / log.sym("\\text{KV}_{seq}", f.kv_bytes_per_sequence)),
                                               "sequences").value();
  }
  Expr for_weights = log.step("Chips to hold the weights", "n_w", weights / hbm, "chips");
  f.chips_for_weights = for_weights.value();
  f.min_chips = log.step("Whole chips to hold the weights", "", ceil(for_weights), "chips").value();
  Expr for_batch = log.step("Chips to hold weights + this batch's KV", "n_{w+kv}",
                            log.sym(f.held_bytes == f.total_bytes ? StepText("\\text{bytes}") : StepText("\\text{bytes}_{held}"),
                                    f.held_bytes) / hbm, "chips");
  f.chips_for_batch = for_batch.value();
  Expr whole = log.step("Whole chips to hold weights + KV", "", ceil(for_batch), "chips");
  f.min_chips_for_batch = whole.value();
  f.min_slice_chips = log.step(words.smallest_group, "",
                               pow(2, ceil(log2(whole))), "chips").value();
  f.fits = f.held_bytes <= f.slice_hbm_bytes * (1 + 1e-12);
  decode_fit_warnings(f, free.value(), *s.chip, log);
}

void decode_matmul(const InferenceSetup& s, DecodeFigures& f, const std::optional<ParallelFabric>& fabric,
                   const Steps& log) {
  if (!s.model.dims) return;
  Expr D = log.sym("D", s.model.dims->D), F = log.sym("F", s.model.mlp_width()), n = log.sym("n", f.chips);
  Expr B = log.sym("B", f.batch), C = log.sym("C", s.C), W = log.sym(s.W_symbol, s.W);
  Expr b_w = log.sym("b_w", s.w), b_a = log.sym("b_a", s.a);
  f.matmul_t_math_s = log.step("One D×F matmul: math", "", 2 * B * D * F / (n * C), "s").value();
  f.matmul_t_weights_s = log.step("One D×F matmul: weight load", "", b_w * D * F / (n * W), "s").value();
  if (fabric) {
    Expr M = log.sym("M", s.axes_tp), W_ici = log.sym(fabric->symbol, fabric->bytes_per_s);
    if (f.chips > 1) {
      f.matmul_t_comm_s = log.step(log.on() ? over("One D×F matmul: activation collective over ", *fabric) : std::string(), "",
                                   log.sym("V", *f.activation_bytes) / (M * W_ici), "s").value();
    }
    f.max_model_parallelism =
        log.step(log.on() ? over("Model-parallel width before the collectives over ", *fabric) + " outlast the matmul"
                          : std::string(), "",
                 M * F * max(frac(2 * W_ici, b_a * C), frac(b_w * W_ici, b_a * B * W)), "chips").value();
  }
  f.matmul_bound = largest_term(*f.matmul_t_weights_s, *f.matmul_t_math_s, f.matmul_t_comm_s);
}

void decode_limits(const InferenceSetup& s, DecodeFigures& f, const Steps& log) {
  double ratio = s.model.experts_per_active();
  Expr B = frac(log.sym("C", s.C) * log.sym("b_w", s.w), 2 * log.sym(s.W_symbol, s.W));
  if (ratio != 1) B = B * frac(log.sym("E", s.model.dims->E), log.sym("k", s.model.dims->k));
  f.critical_batch = log.step("Critical batch (B ≪ D, F)", "B^*", B, "sequences").value();
}

// Weight bytes a step of `batch` sequences reads: all of them for a dense model; an MoE's
// always-active weights and the share 1 - (1 - k/E)^B of its routed experts.
double weight_bytes_read_at(const InferenceSetup& s, double batch) {
  const ServedModel& m = s.model;
  if (!m.dims || !m.dims->is_moe()) return m.params_total * s.w;
  double share = experts_read_share(*m.dims, batch, Steps()).value();
  return (m.params_total - m.params_routed + m.params_routed * share) * s.w;
}

// The batch where bytes that grow as `per_batch` · B meet the weight read. A dense model's read
// is flat: weight bytes / per_batch. An MoE's grows with B (concave, from its always-active
// weights up to all of them), so the one crossing is found by bisection, to the last bits.
double meeting_batch(const InferenceSetup& s, double per_batch) {
  double all = s.model.params_total * s.w;
  if (weight_bytes_read_at(s, 1) == all) return all / per_batch;
  double lo = 0, hi = all / per_batch;  // the read never passes `all`: it crosses by hi
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    double mid = (lo + hi) / 2;
    (weight_bytes_read_at(s, mid) > per_batch * mid ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// The batches where the verdict of the weight matmuls and of the reads change. The math and the
// comms grow in proportion to the batch; the weight load does not (a dense model) or more slowly
// (an MoE, as more experts are read), so each crosses it once; the first to cross binds the
// matmuls above that batch (exact for the engine's own terms, where critical_batch is the
// B << D, F shorthand). The KV reads grow with the batch too and equal the weight reads at
// bytes_w / KV_seq (an MoE: at the batch where its read weights equal the batch's KV).
void decode_flips(const InferenceSetup& s, DecodeFigures& f, const Steps& log) {
  bool moe = s.model.dims && s.model.dims->is_moe();
  double comm = f.t_comm_s.value_or(0);
  bool comms_first = comm > f.t_math_s;
  double rising = comms_first ? comm : f.t_math_s;
  if (rising > 0) {
    StepText label = comms_first ? StepText("Batch where the comms overtake the weight load (matmuls turn comms-bound)")
                                 : StepText("Batch where the math overtakes the weight load (matmuls turn compute-bound)");
    Expr B = log.sym("B", f.batch);
    Expr T = log.sym(comms_first ? StepText("T_{comm}") : StepText("T_{math}"), rising);
    if (!moe) {
      f.mlp_flip_batch = log.step(label, "B_{flip}", log.sym("T_w", f.t_weights_s) * B / T, "sequences").value();
    } else {
      // T grows as T/B per sequence; the weight load at the flip is its own batch's
      double per_batch = rising / f.batch * f.chips * s.W;
      double flip = meeting_batch(s, per_batch);
      Expr T_w = log.sym("T_w(B_{flip})", weight_bytes_read_at(s, flip) / (f.chips * s.W));
      f.mlp_flip_batch = log.step(label, "B_{flip}", T_w * B / T, "sequences").value();
    }
    f.mlp_bound_above_flip = comms_first ? Word("comms") : Word("compute");
  }
  if (f.kv_bytes_per_sequence > 0) {
    Expr kv_seq = log.sym("\\text{KV}_{seq}", f.kv_bytes_per_sequence);
    Expr read = moe ? log.sym("\\text{bytes}_{w,read}(B_{kv})", weight_bytes_read_at(s, meeting_batch(s, f.kv_bytes_per_sequence)))
                    : log.sym("\\text{bytes}_w", f.weight_bytes);
    f.kv_crossover_batch = log.step("Batch where the KV reads equal the weight reads", "B_{kv}", read / kv_seq,
                                    "sequences").value();
  }
}

void decode_attention(const InferenceSetup& s, DecodeFigures& f, const Steps& log) {
  const ServedModel& m = s.model;
  if (!m.dims || m.dims->is_mla() || !m.kv_bytes_per_token) return;
  const Model& d = *m.dims;
  Expr S = log.sym("S", f.context), NH = log.sym("N", d.N) * log.sym("H", d.H);
  Expr kv_layer = log.sym("\\text{KV}_{tok}", *m.kv_bytes_per_token) / log.sym("L", d.L);
  f.attention_intensity = log.step("Decode attention intensity (fused, per layer)", "",
                                   frac(4 * S * NH, S * kv_layer + 2 * log.sym("b_a", s.a) * NH), "FLOPs/byte")
                              .value();
  f.attention_bound = *f.attention_intensity >= s.C / s.W ? Word("compute") : Word("memory");
}

void decode_sharding_warnings(const InferenceSetup& s, const DecodeFigures& f, const Steps& log) {
  if (!s.model.dims) return;
  const Model& d = *s.model.dims;
  if (f.context > 0 && !d.is_mla() && f.chips > d.K * f.batch) {
    log.warn("KV caches split over K = " + grouped(d.K) + " heads × batch " + grouped(f.batch) + " cover only " +
             grouped(d.K * f.batch) + " of the " + format_quantity(f.chips, "chips") +
             ": the step assumes them evenly spread, which needs sequence sharding.");
  }
  if (f.mlp_bound == "comms") {
    log.warn(
        "Model-parallel collectives outlast both the weight load and the math: the step is "
        "comms-bound; use fewer chips per replica (see max_model_parallelism) or, on a TPU, "
        "spread the model dimension over more mesh axes (axes_tp).");
  }
}

}  // namespace

std::optional<ParallelFabric> model_parallel_fabric(const Chip& chip, double chips) {
  if (chip.is_tpu()) {
    if (tpu_pod_span(chip, chips).beyond && chip.dcn_bytes_per_s) {
      return ParallelFabric{"DCN", "W_{dcn}", *chip.dcn_bytes_per_s, *chip.dcn_bytes_per_s, std::nullopt};
    }
    auto link = chip.ici_link_bytes_per_s;
    if (!link) return std::nullopt;
    return ParallelFabric{"ICI", "W_{ici}", 2 * *link, *link, chip.ici_hop_latency_s};
  }
  auto nvlink = chip.nvlink_bytes_per_s, node = chip.node_gpus, ib = chip.ib_bytes_per_s;
  if (nvlink && (!node || chips <= *node)) return ParallelFabric{"NVLink", "W_{nvlink}", *nvlink, *nvlink, std::nullopt};
  if (ib) return ParallelFabric{"InfiniBand", "W_{ib}", *ib, *ib, std::nullopt};
  // Workstation and consumer cards with no NVLink (or more of them than a bridge joins) reach each
  // other over PCIe: each card's own link, both ways at once, is what a ring of them can use.
  bool card = chip.kind == ChipKind::workstation_gpu || chip.kind == ChipKind::consumer_gpu;
  if (card && chip.pcie_bytes_per_s) {
    return ParallelFabric{"PCIe (each card's link, one way)", "W_{pcie}", *chip.pcie_bytes_per_s, *chip.pcie_bytes_per_s,
                          std::nullopt};
  }
  return std::nullopt;
}

namespace {

InferenceSetup read_inference_setup(const Args& args) {
  InferenceSetup s;
  s.chip = &args.chip();
  s.w = args.dtype("weight_dtype");
  s.a = args.dtype("activation_dtype");
  s.kv = args.dtype("kv_dtype");
  s.compute = compute_rate(args, *s.chip);
  s.C = s.compute.flops_per_s;
  s.W = s.chip->need(&Chip::hbm_bytes_per_s, "reading weights and the KV cache is priced at it");
  if (!s.chip->has_hbm()) s.W_symbol = "W_{mem}";
  s.ws2d = args.has("sharding") && args.str("sharding") == "2d_weight_stationary";
  s.axes_tp = args.has("axes_tp") ? args.num("axes_tp") : 1;
  s.model = read_served_model(args, s.kv);
  if (s.ws2d && !s.model.dims) {
    throw InputError("sharding",
                     "\"2d_weight_stationary\" needs the model's D and F: give a model, "
                     "not a bare params count");
  }
  return s;
}

}  // namespace

const InferenceSetup& inference_setup(const Args& args) {
  static const char tag = 0;
  return args.kept<InferenceSetup>(&tag, [&] { return read_inference_setup(args); });
}

namespace {

// Which given inputs have no effect: a pure function of what was given, kept per Args (a sweep
// asks once, not at every point).
struct IgnoredInputs {
  bool kv_dtype = false, axes_tp = false;
};

IgnoredInputs ignored_inputs(const Args& args) {
  return {args.given("kv_bytes_per_token") && args.given("kv_dtype"),
          args.given("params") && !args.given("model") && args.given("axes_tp")};
}

}  // namespace

void warn_ignored_inputs(const Args& args, Result& r) {
  static const char tag = 0;
  const IgnoredInputs& ignored = args.kept<IgnoredInputs>(&tag, [&] { return ignored_inputs(args); });
  if (const auto& note = inference_setup(args).compute.note) r.warn(*note);
  if (ignored.kv_dtype) r.warn("kv_dtype is ignored: kv_bytes_per_token already fixes the KV-cache bytes.");
  if (ignored.axes_tp) {
    r.warn("axes_tp is ignored: a bare params count has no dimensions, so no collectives are modelled.");
  }
}

void check_slice_topology(const InferenceSetup& s, double chips, Result& r) {
  check_torus_axes(*s.chip, s.axes_tp, "axes_tp");
  PodSpan span = tpu_pod_span(*s.chip, chips);
  if (span.beyond) {
    r.warn(pod_boundary_warning(*s.chip, span, "the model-parallel collectives are priced at DCN bandwidth."));
  }
}

void check_axes_tp(const InferenceSetup& s, double chips, const std::string& param) {
  if (s.axes_tp <= chips) return;
  std::string why = "each model-parallel mesh axis spans at least one chip";
  if (param == "axes_tp") {
    throw InputError(param, "must be ≤ chips (" + plain(chips) + "): " + why + ", got " + plain(s.axes_tp));
  }
  throw InputError(param, "must be ≥ axes_tp (" + plain(s.axes_tp) + "): " + why + ", got " + plain(chips));
}

PrefillFigures prefill_step(const InferenceSetup& s, double tokens, double chips, double mfu,
                            const Steps& log) {
  const ServedModel& m = s.model;
  PrefillFigures f;
  f.tokens = tokens;
  Expr T = log.sym("T", tokens), n = log.sym("n", chips), C = log.sym("C", s.C), W = log.sym(s.W_symbol, s.W);
  Expr flops = log.step("Prefill FLOPs (attention FLOPs ignored)", "\\text{FLOPs}",
                        2 * log.sym("P_{active}", m.params_active) * T, "FLOPs");
  f.flops = flops.value();
  Expr t_math = log.step("Prefill math time", "T_{math}", flops / (n * C * log.sym("\\text{MFU}", mfu)), "s");
  Expr t_w = log.step("Prefill weight load time", "T_w", log.sym("P", m.params_total) * log.sym("b_w", s.w) / (n * W), "s");
  f.t_math_s = t_math.value();
  f.t_weights_s = t_w.value();
  f.t_s = log.step("Prefill time", "T", max(t_math, t_w), "s").value();
  f.bound = f.t_math_s >= f.t_weights_s ? Word("compute") : Word("memory");
  if (!m.dims) return f;
  const Model& d = *m.dims;
  Expr b_a = log.sym("b_a", s.a);
  f.activation_bytes = log.step("One residual activation", "", T * log.sym("D", d.D) * b_a, "bytes").value();
  if (d.is_mla() || !m.kv_bytes_per_token) return f;
  Expr NH = log.sym("N", d.N) * log.sym("H", d.H);
  Expr kv_layer = log.sym("\\text{KV}_{tok}", *m.kv_bytes_per_token) / log.sym("L", d.L);
  f.attention_critical_length = log.step("Prompt length where self-attention turns compute-bound", "",
                                         frac(C, W) * frac(2 * b_a * NH + kv_layer, 4 * NH), "tokens")
                                    .value();
  return f;
}

DecodeFigures decode_step(const InferenceSetup& s, double batch, double chips, double context,
                          const Steps& log) {
  DecodeFigures f;
  f.batch = batch;
  f.chips = chips;
  f.context = context;
  decode_bytes(s, f, log);
  decode_times(s, f, log);
  // The fabric the model-parallel collectives cross, for the comms and the matmul figures.
  std::optional<ParallelFabric> fabric = model_parallel_fabric(*s.chip, chips);
  decode_comm(s, f, fabric, log);
  decode_step_time(s, f, log);
  decode_limits(s, f, log);
  decode_flips(s, f, log);
  decode_fit(s, f, log);
  decode_matmul(s, f, fabric, log);
  decode_attention(s, f, log);
  decode_sharding_warnings(s, f, log);
  return f;
}

namespace {

std::string measured_verdict(double share) {
  if (share > 1) {
    return "Faster than the bound: the run cannot match these inputs (a smaller weight format, a shorter context "
           "or more sequences per step than entered would explain it), or the device beats its catalog figures.";
  }
  if (share >= 0.8) {
    return "Close to the bound: what is left is mostly the gaps between kernel launches and attention kernels "
           "that read the KV cache a little below peak bandwidth.";
  }
  if (share >= 0.5) {
    return "A usual share for a tuned runtime: launch gaps between the many small kernels of a decode step, "
           "attention kernels below peak bandwidth and unpacking quantized weights take the rest.";
  }
  return "Far below the bound: framework overhead (Python, scheduling, many small kernels), dequantisation that "
         "is not fused into the matmul, or a batch too small to hide launch latency usually explain a gap this "
         "large.";
}

}  // namespace

void output_measured(const Args& args, const DecodeFigures& d, double bound_tokens_per_s, const BandRow* band, Result& r) {
  // Without a measurement the four outputs are left unset, which every writer writes as null
  // (Outputs): no names looked up at each point of a sweep.
  if (!args.given("measured_tokens_per_s")) return;
  Expr share = r.step("Share of the bound you measured", "s",
                      r.sym("\\text{measured}", args.num("measured_tokens_per_s")) /
                          r.sym("\\text{bound}", bound_tokens_per_s),
                      "ratio");
  Expr step = r.sym("T_{step}", d.step_s);
  r.out("measured_share_of_bound", share);
  r.out("achieved_bytes_per_s", r.step("Bandwidth the decode steps then reach", "",
                                       share * r.sym("\\text{bytes}_{step}", d.total_bytes) / step, "bytes/s"));
  r.out("achieved_flops_per_s", r.step("FLOP/s the decode steps then reach", "",
                                       share * r.sym("\\text{FLOPs}_{step}", d.flops) / step, "FLOP/s"));
  r.out("measured_verdict", measured_verdict(share.value()));
  out_measured_among(band, share.value(), r);
  if (share.value() > 1) {
    r.warn("The measured speed is above the bound: check that the model, formats, batch and context match the run.");
  }
}

Param served_chips(std::string_view doc) {
  // The book's 16-chip slice on a TPU or a datacenter GPU (its node and fabric); one device on a
  // reader's own (a card, a Mac, a CPU), where a model is first run on one.
  Param p = params::chips(nullptr, std::string(doc) +
                                       "; default 16 on a TPU or a datacenter GPU (the book's slice), 1 on "
                                       "a workstation or consumer GPU, a unified-memory machine or a CPU");
  p.default_by_chip_kind = {{"tpu", 16},         {"datacenter-gpu", 16}, {"workstation-gpu", 1},
                            {"consumer-gpu", 1}, {"unified-memory", 1},  {"cpu", 1}};
  return p;
}

std::vector<Param> served_model_params() {
  using namespace params;
  return {model("llama3-70b"),
          param_count("params", nullptr,
                   "parameter count: alone (a bare count, no model: comms, activation and "
                   "attention figures are null), or replacing a dense model's count (the book's 70B)"),
          params::chip("tpu-v5e"), model_overrides(), chip_overrides()};
}

std::vector<Param> decode_params(bool context_defaults_to_request) {
  using namespace params;
  std::vector<Param> list = served_model_params();
  json context_default = context_defaults_to_request ? json(nullptr) : json(8192);
  std::string context_doc = "tokens in each sequence's KV cache (0: the weights-only latency floor)";
  if (context_defaults_to_request) context_doc += "; default prompt_tokens + decode_tokens";
  std::vector<Param> more = {
      served_chips("chips the model is sharded over (one replica)"),
      batch(32, "sequences decoded together, one new token each per step"),
      integer("context", "tokens", 0, 1e8, context_default, context_doc),
      weight_format("weight_dtype",
                    "dtype or quantized format of the weights (bytes per parameter, scales included)"),
      kv_format("kv_dtype", "dtype or quantized format of the KV cache"),
      dtype("activation_dtype", "dtype of the activations moved by model-parallel collectives"),
      dtype("compute_dtype", "dtype of the arithmetic: picks the FLOP/s rate"),
      number("kv_bytes_per_token", "bytes", 1, 1e10, nullptr,
             "KV bytes per token, all layers, K and V (default: from the model and kv_dtype; "
             "required with a bare params count when context > 0); at least 1: the smallest "
             "cache, one layer with one int4 key and one int4 value, holds 1 byte per token"),
      choice("sharding", {"tp", "2d_weight_stationary"}, "tp",
             "MLP sharding: tp (1D model parallel) or 2d_weight_stationary (X × YZ, the ESTI layout)",
             {"tensor parallel (1D)", "2D weight-stationary"}),
      integer("axes_tp", "axes", 1, 3, 1, "mesh axes the model-parallel dimension spans (the book's M_Y)",
              Scale::linear),
      measured_tokens_per_s(context_defaults_to_request
                                ? "your measured generation throughput (all sequences): gives the share of the "
                                  "throughput bound it reaches and the bandwidth that implies"
                                : "your measured decode speed (all sequences of the batch): gives the share of the "
                                  "bound it reaches and the bandwidth that implies"),
  };
  list.insert(list.end(), more.begin(), more.end());
  return list;
}

}  // namespace scalelab
