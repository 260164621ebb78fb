// Shared inference math: the served model, the fabric, one prefill step, one decode step.
// The formulas are api/inference.md's "How the engine computes each output".
#include "inference.hpp"
#include "topology.hpp"

#include <algorithm>
#include <cmath>

#include "../params.hpp"
#include "common.hpp"
#include "model_math.hpp"

namespace scalelab {
namespace {

std::string times(double a, double b) { return tex(a) + " \\times " + tex(b); }
std::string times(double a, double b, double c) { return times(a, b) + " \\times " + tex(c); }

std::optional<double> served_kv_bytes_per_token(const Args& args, const std::optional<Model>& dims,
                                                double kv_dtype_bytes) {
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
    const Model& model = args.model();
    if (args.given("params") && model.is_moe()) {
      throw InputError("params", "cannot replace the count of an MoE model (" + model.name +
                                     "): its total and active counts differ; give the model "
                                     "alone, or a bare params count without a model");
    }
    ParamCounts counts = count_params(model);
    m.params_total = args.given("params") ? args.num("params") : counts.total();
    m.params_active = args.given("params") ? args.num("params") : counts.active();
    m.dims = model;
  }
  m.kv_given = args.has("kv_bytes_per_token");
  m.kv_bytes_per_token = served_kv_bytes_per_token(args, m.dims, kv_dtype_bytes);
  return m;
}

// "memory" | "compute" | "comms": the largest of the three, ties in that order.
std::string largest_term(double t_weights, double t_math, std::optional<double> t_comm) {
  std::string bound = "memory";
  double best = t_weights;
  if (t_math > best) {
    bound = "compute";
    best = t_math;
  }
  if (t_comm && *t_comm > best) bound = "comms";
  return bound;
}

std::string chips_text(double n) { return plain(n) + (n == 1 ? " chip" : " chips"); }

double smallest_power_of_two_at_least(double x) {
  double p = 1;
  while (p < x) p *= 2;
  return p;
}

void decode_bytes(const InferenceSetup& s, DecodeFigures& f, const StepLog& log) {
  const ServedModel& m = s.model;
  f.weight_bytes = log("Weight bytes", "\\text{bytes}_w = P \\, b_w", times(m.params_total, s.w),
                       m.params_total * s.w, "bytes");
  if (f.context > 0 && !m.kv_bytes_per_token) {
    throw InputError("kv_bytes_per_token",
                     "is required with a bare params count when context > 0 (KV-cache bytes per "
                     "token, all layers, K and V); or give a model");
  }
  f.kv_bytes_per_token = m.kv_bytes_per_token;
  if (m.kv_bytes_per_token && !m.kv_given && m.dims) {
    const Model& d = *m.dims;
    if (d.is_mla()) {
      log("KV bytes per token (MLA latent)", "\\text{KV}_{tok} = L (r_{kv} + d_{rope}) \\, b_{kv}",
          tex(d.L) + " \\times (" + tex(d.kv_lora_rank) + " + " + tex(d.qk_rope_head_dim) + ") \\times " +
              tex(s.kv),
          *m.kv_bytes_per_token, "bytes");
    } else {
      log("KV bytes per token", "\\text{KV}_{tok} = 2 L K H \\, b_{kv}",
          "2 \\times " + times(d.L, d.K, d.H) + " \\times " + tex(s.kv), *m.kv_bytes_per_token, "bytes");
    }
  }
  double per_token = m.kv_bytes_per_token.value_or(0);
  f.kv_bytes_per_sequence = log("KV bytes per sequence", "\\text{KV}_{seq} = \\text{KV}_{tok} \\, S",
                                times(per_token, f.context), per_token * f.context, "bytes");
  f.kv_bytes_total = log("KV bytes of the batch", "\\text{KV} = B \\, \\text{KV}_{seq}",
                         times(f.batch, f.kv_bytes_per_sequence), f.batch * f.kv_bytes_per_sequence, "bytes");
  f.total_bytes =
      log("Bytes read per step", "\\text{bytes}_w + \\text{KV}",
          tex(f.weight_bytes) + " + " + tex(f.kv_bytes_total), f.weight_bytes + f.kv_bytes_total, "bytes");
  f.flops = log("FLOPs per step (attention FLOPs ignored)", "2 P_{active} B",
                "2 \\times " + times(m.params_active, f.batch), 2 * m.params_active * f.batch, "FLOPs");
}

void decode_times(const InferenceSetup& s, DecodeFigures& f, const StepLog& log) {
  double n = f.chips;
  std::string nW = "(" + times(n, s.W) + ")";
  f.t_weights_s = log("Weight load time", "T_w = \\text{bytes}_w / (n W_{hbm})",
                      tex(f.weight_bytes) + " / " + nW, f.weight_bytes / (n * s.W), "s");
  f.t_kv_s = log("KV load time", "T_{kv} = \\text{KV} / (n W_{hbm})", tex(f.kv_bytes_total) + " / " + nW,
                 f.kv_bytes_total / (n * s.W), "s");
  f.t_math_s = log("Math time", "T_{math} = \\text{FLOPs} / (n C)",
                   tex(f.flops) + " / (" + times(n, s.C) + ")", f.flops / (n * s.C), "s");
}

void ws2d_split(const InferenceSetup& s, DecodeFigures& f, const StepLog& log) {
  const Model& d = *s.model.dims;
  double F = s.model.mlp_width(), n = f.chips;
  double x = std::clamp(std::sqrt(n * d.D / (2 * F)), 1.0, n);
  f.ws2d_x = log("2D weight-stationary X (optimum, clamped to [1, N])", "X = \\sqrt{N D / (2F)}",
                 "\\sqrt{" + times(n, d.D) + " / (2 \\times " + tex(F) + ")}", x, "chips");
  f.ws2d_yz = log("2D weight-stationary YZ", "YZ = N / X", tex(n) + " / " + tex(x), n / x, "chips");
}

void mlp_comm(const InferenceSetup& s, DecodeFigures& f, const ParallelFabric& fabric, const StepLog& log) {
  const Model& d = *s.model.dims;
  double n = f.chips, B = f.batch, M = s.axes_tp, Wici = fabric.bytes_per_s, F = s.model.mlp_width();
  double mlp;
  if (n == 1) {
    mlp = log("MLP collectives (one chip: none)", "T_{comm}^{MLP} = 0", "0", 0, "s");
  } else if (s.ws2d) {
    double x = *f.ws2d_x, yz = *f.ws2d_yz;
    mlp = log("MLP collectives, 2D weight-stationary, over " + fabric.name,
              "b_a B D / (X W_{ici}) + 2 b_a B F / (YZ \\, W_{ici})",
              times(s.a, B, d.D) + " / (" + times(x, Wici) + ") + 2 \\times " + times(s.a, B, F) + " / (" +
                  times(yz, Wici) + ")",
              s.a * B * d.D / (x * Wici) + 2 * s.a * B * F / (yz * Wici), "s");
  } else {
    mlp = log("MLP collectives (AllGather + ReduceScatter) over " + fabric.name, "2 b_a B D / (M W_{ici})",
              "2 \\times " + times(s.a, B, d.D) + " / (" + times(M, Wici) + ")",
              2 * s.a * B * d.D / (M * Wici), "s");
  }
  f.mlp_t_comm_s = mlp;
  f.t_comm_s = log("Comms time per step (attention's collectives ≈ the MLP's)",
                   "T_{comm} = 2 L \\, T_{comm}^{MLP}", "2 \\times " + times(d.L, mlp), 2 * d.L * mlp, "s");
}

void comm_latency(DecodeFigures& f, const ParallelFabric& fabric, const StepLog& log) {
  if (f.chips == 1 || !fabric.hop_latency_s) return;
  double threshold = log("Latency-bound below (whole activation buffer)", "n \\, W_{link} \\, t_{hop}",
                         times(f.chips, fabric.link_bytes_per_s, *fabric.hop_latency_s),
                         f.chips * fabric.link_bytes_per_s * *fabric.hop_latency_s, "bytes");
  f.comm_latency_bound_below_bytes = threshold;
  f.comm_regime = *f.activation_bytes < threshold ? "latency" : "bandwidth";
  if (*f.comm_regime == "latency") {
    log.warn("The model-parallel collectives are latency-bound: each moves " +
             plain(canonical(*f.activation_bytes)) + " bytes, under " + plain(canonical(threshold)) +
             " bytes, so the per-hop latency, not bandwidth, sets their time (the comms time "
             "shown is a bandwidth lower bound).");
  }
}

void decode_comm(const InferenceSetup& s, DecodeFigures& f, const StepLog& log) {
  if (!s.model.dims) return;
  const Model& d = *s.model.dims;
  double F = s.model.mlp_width(), M = s.axes_tp;
  f.activation_bytes = log("Activation buffer of one collective", "B D \\, b_a", times(f.batch, d.D, s.a),
                           f.batch * d.D * s.a, "bytes");
  f.ws2d_crossover_chips =
      log("Chips above which 2D weight-stationary beats 1D", "2 F M^2 / D",
          "2 \\times " + tex(F) + " \\times " + tex(M) + "^2 / " + tex(d.D), 2 * F * M * M / d.D, "chips");
  if (s.ws2d) ws2d_split(s, f, log);
  auto fabric = model_parallel_fabric(*s.chip, f.chips);
  if (!fabric) {
    if (f.chips > 1) {
      log.warn(s.chip->name() +
               " gives no bandwidth for model-parallel collectives "
               "(ici_link_bytes_per_s, nvlink_bytes_per_s or ib_bytes_per_s): comms figures are "
               "null; give one with chip_overrides.");
    }
    return;
  }
  mlp_comm(s, f, *fabric, log);
  comm_latency(f, *fabric, log);
}

void decode_step_time(DecodeFigures& f, const StepLog& log) {
  double comm = f.t_comm_s.value_or(0);
  double mlp = std::max({f.t_math_s, f.t_weights_s, comm});
  f.step_s =
      log("Step time", "T_{step} = T_{kv} + \\max(T_{math}, T_w, T_{comm})",
          tex(f.t_kv_s) + " + \\max(" + tex(f.t_math_s) + ", " + tex(f.t_weights_s) + ", " + tex(comm) + ")",
          f.t_kv_s + mlp, "s");
  f.mlp_bound = largest_term(f.t_weights_s, f.t_math_s, f.t_comm_s);
  f.bound = f.mlp_bound == "memory" || f.t_kv_s >= mlp ? "memory" : f.mlp_bound;
  f.tokens_per_s = log("Tokens per second (slice)", "B / T_{step}", tex(f.batch) + " / " + tex(f.step_s),
                       f.batch / f.step_s, "tokens/s");
  f.tokens_per_s_per_chip =
      log("Tokens per second per chip", "B / (T_{step} \\, n)", tex(f.tokens_per_s) + " / " + tex(f.chips),
          f.tokens_per_s / f.chips, "tokens/s");
}

void decode_fit_warnings(const DecodeFigures& f, double free_raw, const StepLog& log) {
  if (free_raw <= 0) {
    log.warn("The weights alone (" + plain(canonical(f.weight_bytes)) + " bytes) exceed the HBM of " +
             chips_text(f.chips) + " (" + plain(canonical(f.slice_hbm_bytes)) +
             " bytes): they need at least " + plain(f.min_chips) +
             " chips; free HBM is shown as 0 and nothing fits.");
    return;
  }
  if (f.fits) return;
  std::string most =
      f.max_batch ? "at most " + plain(*f.max_batch) + " sequences of " + plain(f.context) + " tokens fit"
                  : "the KV caches do not fit";
  if (f.max_batch && *f.max_batch == 0) {
    most = "not even one sequence of " + plain(f.context) + " tokens fits (its KV cache is " +
           plain(canonical(f.kv_bytes_per_sequence)) + " bytes)";
  }
  log.warn("Does not fit: weights + KV for batch " + plain(f.batch) + " need " +
           plain(canonical(f.total_bytes)) + " bytes, more than the " + plain(canonical(f.slice_hbm_bytes)) +
           " bytes of HBM on " + chips_text(f.chips) + "; " + most + ". This batch needs " +
           plain(f.min_chips_for_batch) + " chips (a " + plain(f.min_slice_chips) +
           "-chip slice). The times are what the step would take if it fit.");
}

void decode_fit(const InferenceSetup& s, DecodeFigures& f, const StepLog& log) {
  double hbm = s.chip->need(&Chip::hbm_bytes, "the weights and the KV cache must fit in it"), n = f.chips;
  f.slice_hbm_bytes = log("HBM of the slice", "n \\, \\text{HBM}", times(n, hbm), n * hbm, "bytes");
  f.slice_hbm_bytes_per_s = log("HBM bandwidth of the slice", "n W_{hbm}", times(n, s.W), n * s.W, "bytes/s");
  f.slice_flops_per_s = log("FLOP/s of the slice", "n C", times(n, s.C), n * s.C, "FLOP/s");
  double free_raw = f.slice_hbm_bytes - f.weight_bytes;
  f.free_hbm_bytes =
      log("HBM left for KV caches", "\\max(0, n \\, \\text{HBM} - \\text{bytes}_w)",
          tex(f.slice_hbm_bytes) + " - " + tex(f.weight_bytes), std::max(0.0, free_raw), "bytes");
  if (f.context > 0 && f.kv_bytes_per_sequence > 0) {
    f.max_batch =
        log("Largest batch that fits", "\\lfloor \\text{free} / \\text{KV}_{seq} \\rfloor",
            "\\lfloor " + tex(f.free_hbm_bytes) + " / " + tex(f.kv_bytes_per_sequence) + " \\rfloor",
            tolerant_floor(f.free_hbm_bytes / f.kv_bytes_per_sequence), "sequences");
  }
  f.chips_for_weights = log("Chips to hold the weights", "\\text{bytes}_w / \\text{HBM}",
                            tex(f.weight_bytes) + " / " + tex(hbm), f.weight_bytes / hbm, "chips");
  f.min_chips =
      log("Whole chips to hold the weights", "\\lceil \\text{bytes}_w / \\text{HBM} \\rceil",
          "\\lceil " + tex(f.chips_for_weights) + " \\rceil", tolerant_ceil(f.chips_for_weights), "chips");
  f.chips_for_batch =
      log("Chips to hold weights + this batch's KV", "(\\text{bytes}_w + \\text{KV}) / \\text{HBM}",
          tex(f.total_bytes) + " / " + tex(hbm), f.total_bytes / hbm, "chips");
  f.min_chips_for_batch =
      log("Whole chips to hold weights + KV", "\\lceil (\\text{bytes}_w + \\text{KV}) / \\text{HBM} \\rceil",
          "\\lceil " + tex(f.chips_for_batch) + " \\rceil", tolerant_ceil(f.chips_for_batch), "chips");
  f.min_slice_chips = log("Smallest power-of-two slice that holds them",
                          "2^{\\lceil \\log_2 \\lceil "
                          "\\text{chips} \\rceil \\rceil}",
                          "2^{\\lceil \\log_2 " + tex(f.min_chips_for_batch) + " \\rceil}",
                          smallest_power_of_two_at_least(f.min_chips_for_batch), "chips");
  f.fits = f.total_bytes <= f.slice_hbm_bytes * (1 + 1e-12);
  decode_fit_warnings(f, free_raw, log);
}

void decode_matmul(const InferenceSetup& s, DecodeFigures& f, const StepLog& log) {
  if (!s.model.dims) return;
  double D = s.model.dims->D, F = s.model.mlp_width(), n = f.chips, B = f.batch;
  f.matmul_t_math_s =
      log("One D×F matmul: math", "2 B D F / (n C)",
          "2 \\times " + times(B, D, F) + " / (" + times(n, s.C) + ")", 2 * B * D * F / (n * s.C), "s");
  f.matmul_t_weights_s = log("One D×F matmul: weight load", "b_w D F / (n W_{hbm})",
                             times(s.w, D, F) + " / (" + times(n, s.W) + ")", s.w * D * F / (n * s.W), "s");
  auto fabric = model_parallel_fabric(*s.chip, n);
  if (fabric) {
    double M = s.axes_tp;
    f.matmul_t_comm_s =
        log("One D×F matmul: activation collective over " + fabric->name, "B D \\, b_a / (M W_{ici})",
            tex(*f.activation_bytes) + " / (" + times(M, fabric->bytes_per_s) + ")",
            n == 1 ? 0 : *f.activation_bytes / (M * fabric->bytes_per_s), "s");
    f.max_model_parallelism = log(
        "Model-parallel width before " + fabric->name + " outlasts the matmul",
        "M F \\max\\left(\\frac{2 W_{ici}}{b_a C}, \\frac{b_w W_{ici}}{b_a B W_{hbm}}\\right)",
        times(M, F) + " \\times \\max(" + tex(2 * fabric->bytes_per_s / (s.a * s.C)) + ", " +
            tex(s.w * fabric->bytes_per_s / (s.a * B * s.W)) + ")",
        M * F * std::max(2 * fabric->bytes_per_s / (s.a * s.C), s.w * fabric->bytes_per_s / (s.a * B * s.W)),
        "chips");
  }
  f.matmul_bound = largest_term(*f.matmul_t_weights_s, *f.matmul_t_math_s, f.matmul_t_comm_s);
}

void decode_limits(const InferenceSetup& s, DecodeFigures& f, const StepLog& log) {
  double ratio = s.model.experts_per_active();
  std::string formula =
      ratio == 1 ? "B^* = C \\, b_w / (2 W_{hbm})" : "B^* = \\frac{C \\, b_w}{2 W_{hbm}} \\cdot \\frac{E}{k}";
  std::string sub = tex(s.C) + " \\times " + tex(s.w) + " / (2 \\times " + tex(s.W) + ")" +
                    (ratio == 1 ? "" : " \\times " + tex(ratio));
  f.critical_batch =
      log("Critical batch (B ≪ D, F)", formula, sub, s.C * s.w / (2 * s.W) * ratio, "sequences");
}

// The batches where the verdict of the weight matmuls and of the reads change. The math and the
// comms grow in proportion to the batch and the weight load does not, so each crosses it at
// T_w B / T; the first to cross binds the matmuls above that batch (exact for the engine's own
// terms, where critical_batch is the B << D, F shorthand). The KV reads grow with the batch too
// and equal the weight reads at bytes_w / KV_seq.
void decode_flips(DecodeFigures& f, const StepLog& log) {
  double comm = f.t_comm_s.value_or(0);
  bool comms_first = comm > f.t_math_s;
  double rising = comms_first ? comm : f.t_math_s;
  if (rising > 0) {
    f.mlp_flip_batch = log(comms_first ? "Batch where the comms overtake the weight load (matmuls turn comms-bound)"
                                       : "Batch where the math overtakes the weight load (matmuls turn compute-bound)",
                           comms_first ? "B_{flip} = T_w \\, B / T_{comm}" : "B_{flip} = T_w \\, B / T_{math}",
                           times(f.t_weights_s, f.batch) + " / " + tex(rising), f.t_weights_s * f.batch / rising,
                           "sequences");
    f.mlp_bound_above_flip = comms_first ? "comms" : "compute";
  }
  if (f.kv_bytes_per_sequence > 0) {
    f.kv_crossover_batch = log("Batch where the KV reads equal the weight reads",
                               "B_{kv} = \\text{bytes}_w / \\text{KV}_{seq}",
                               tex(f.weight_bytes) + " / " + tex(f.kv_bytes_per_sequence),
                               f.weight_bytes / f.kv_bytes_per_sequence, "sequences");
  }
}

void decode_attention(const InferenceSetup& s, DecodeFigures& f, const StepLog& log) {
  const ServedModel& m = s.model;
  if (!m.dims || m.dims->is_mla() || !m.kv_bytes_per_token) return;
  const Model& d = *m.dims;
  double S = f.context, NH = d.N * d.H, kv_layer = *m.kv_bytes_per_token / d.L;
  f.attention_intensity = log(
      "Decode attention intensity (fused, per layer)",
      "\\frac{4 S N H}{S \\, \\text{KV}_{tok}/L + 2 b_a N H}",
      "\\frac{4 \\times " + times(S, NH) + "}{" + times(S, kv_layer) + " + 2 \\times " + times(s.a, NH) + "}",
      S * 4 * NH / (S * kv_layer + 2 * s.a * NH), "FLOPs/byte");
  f.attention_bound = *f.attention_intensity >= s.C / s.W ? "compute" : "memory";
}

void decode_sharding_warnings(const InferenceSetup& s, const DecodeFigures& f, const StepLog& log) {
  if (!s.model.dims) return;
  const Model& d = *s.model.dims;
  if (f.context > 0 && !d.is_mla() && f.chips > d.K * f.batch) {
    log.warn("KV caches split over K = " + plain(d.K) + " heads × batch " + plain(f.batch) + " cover only " +
             plain(d.K * f.batch) + " of the " + plain(f.chips) +
             " chips: the step assumes them evenly spread, which needs sequence sharding.");
  }
  if (d.is_moe() && f.batch * d.k < d.E) {
    log.warn("At batch " + plain(f.batch) + " at most " + plain(f.batch * d.k) + " of the " + plain(d.E) +
             " experts per layer are used, yet every expert's weights are counted as loaded: "
             "t_weights_s is an upper bound.");
  }
  if (f.mlp_bound == "comms") {
    log.warn(
        "Model-parallel collectives outlast both the weight load and the math: the step is "
        "comms-bound; use fewer chips per replica (see max_model_parallelism) or, on a TPU, "
        "spread the model dimension over more mesh axes (axes_tp).");
  }
}

}  // namespace

double tolerant_floor(double x) {
  double r = std::round(x);
  return std::fabs(x - r) <= 1e-9 * std::max(1.0, std::fabs(x)) ? r : std::floor(x);
}

double tolerant_ceil(double x) {
  double r = std::round(x);
  return std::fabs(x - r) <= 1e-9 * std::max(1.0, std::fabs(x)) ? r : std::ceil(x);
}

std::optional<ParallelFabric> model_parallel_fabric(const Chip& chip, double chips) {
  if (chip.is_tpu()) {
    if (tpu_pod_span(chip, chips).beyond && chip.dcn_bytes_per_s) {
      return ParallelFabric{"dcn", *chip.dcn_bytes_per_s, *chip.dcn_bytes_per_s, std::nullopt};
    }
    auto link = chip.ici_link_bytes_per_s;
    if (!link) return std::nullopt;
    return ParallelFabric{"ici", 2 * *link, *link, chip.ici_hop_latency_s};
  }
  auto nvlink = chip.nvlink_bytes_per_s, node = chip.node_gpus, ib = chip.ib_bytes_per_s;
  if (nvlink && (!node || chips <= *node)) return ParallelFabric{"nvlink", *nvlink, *nvlink, std::nullopt};
  if (ib) return ParallelFabric{"ib", *ib, *ib, std::nullopt};
  return std::nullopt;
}

InferenceSetup inference_setup(const Args& args) {
  InferenceSetup s;
  s.chip = &args.chip();
  s.w = args.dtype("weight_dtype");
  s.a = args.dtype("activation_dtype");
  s.kv = args.dtype("kv_dtype");
  s.compute_dtype = args.str("compute_dtype");
  s.C = s.chip->flops(s.compute_dtype);
  s.W = s.chip->need(&Chip::hbm_bytes_per_s, "reading weights and the KV cache is priced at it");
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

void warn_ignored_inputs(const Args& args, Result& r) {
  if (args.given("kv_bytes_per_token") && args.given("kv_dtype")) {
    r.warn("kv_dtype is ignored: kv_bytes_per_token already fixes the KV-cache bytes.");
  }
  if (args.given("params") && !args.given("model") && args.given("axes_tp")) {
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
                            const StepLog& log) {
  const ServedModel& m = s.model;
  PrefillFigures f;
  f.tokens = tokens;
  f.flops = log("Prefill FLOPs (attention FLOPs ignored)", "2 P_{active} T",
                "2 \\times " + times(m.params_active, tokens), 2 * m.params_active * tokens, "FLOPs");
  f.t_math_s = log("Prefill math time", "T_{math} = \\text{FLOPs} / (n C \\cdot \\text{MFU})",
                   tex(f.flops) + " / (" + times(chips, s.C, mfu) + ")", f.flops / (chips * s.C * mfu), "s");
  f.t_weights_s = log("Prefill weight load time", "T_w = P \\, b_w / (n W_{hbm})",
                      times(m.params_total, s.w) + " / (" + times(chips, s.W) + ")",
                      m.params_total * s.w / (chips * s.W), "s");
  f.t_s = log("Prefill time", "\\max(T_{math}, T_w)",
              "\\max(" + tex(f.t_math_s) + ", " + tex(f.t_weights_s) + ")",
              std::max(f.t_math_s, f.t_weights_s), "s");
  f.bound = f.t_math_s >= f.t_weights_s ? "compute" : "memory";
  if (!m.dims) return f;
  const Model& d = *m.dims;
  f.activation_bytes =
      log("One residual activation", "T D \\, b_a", times(tokens, d.D, s.a), tokens * d.D * s.a, "bytes");
  if (d.is_mla() || !m.kv_bytes_per_token) return f;
  double NH = d.N * d.H, kv_layer = *m.kv_bytes_per_token / d.L;
  f.attention_critical_length =
      log("Prompt length where self-attention turns compute-bound",
          "\\frac{C}{W_{hbm}} \\cdot \\frac{2 b_a N H + \\text{KV}_{tok}/L}{4 N H}",
          "\\frac{" + tex(s.C) + "}{" + tex(s.W) + "} \\cdot \\frac{2 \\times " + times(s.a, NH) + " + " +
              tex(kv_layer) + "}{4 \\times " + tex(NH) + "}",
          s.C / s.W * (2 * s.a * NH + kv_layer) / (4 * NH), "tokens");
  return f;
}

void output_prefill(const PrefillFigures& f, Result& r) {
  r.out("flops", f.flops);
  r.out("t_math_s", f.t_math_s);
  r.out("t_weights_s", f.t_weights_s);
  r.out("t_s", f.t_s);
  r.out("bound", f.bound);
  out_opt(r, "attention_critical_length", f.attention_critical_length);
  out_opt(r, "activation_bytes", f.activation_bytes);
}

DecodeFigures decode_step(const InferenceSetup& s, double batch, double chips, double context,
                          const StepLog& log) {
  DecodeFigures f;
  f.batch = batch;
  f.chips = chips;
  f.context = context;
  decode_bytes(s, f, log);
  decode_times(s, f, log);
  decode_comm(s, f, log);
  decode_step_time(f, log);
  decode_limits(s, f, log);
  decode_flips(f, log);
  decode_fit(s, f, log);
  decode_matmul(s, f, log);
  decode_attention(s, f, log);
  decode_sharding_warnings(s, f, log);
  return f;
}

namespace {

void out_text(Result& r, const std::string& name, const std::optional<std::string>& value) {
  if (value)
    r.out(name, *value);
  else
    r.out_null(name);
}

}  // namespace

void output_decode(const DecodeFigures& f, Result& r) {
  out_opt(r, "kv_bytes_per_token", f.kv_bytes_per_token);
  r.out("weight_bytes", f.weight_bytes);
  r.out("kv_bytes_per_sequence", f.kv_bytes_per_sequence);
  r.out("kv_bytes_total", f.kv_bytes_total);
  r.out("total_bytes", f.total_bytes);
  r.out("flops", f.flops);
  r.out("t_weights_s", f.t_weights_s);
  r.out("t_kv_s", f.t_kv_s);
  r.out("t_math_s", f.t_math_s);
  out_opt(r, "t_comm_s", f.t_comm_s);
  out_opt(r, "mlp_t_comm_s", f.mlp_t_comm_s);
  r.out("step_s", f.step_s);
  r.out("tokens_per_s", f.tokens_per_s);
  r.out("tokens_per_s_per_chip", f.tokens_per_s_per_chip);
  r.out("bound", f.bound);
  r.out("mlp_bound", f.mlp_bound);
  r.out("critical_batch", f.critical_batch);
  out_opt(r, "max_batch", f.max_batch);
  r.out("free_hbm_bytes", f.free_hbm_bytes);
  r.out("fits", f.fits);
  r.out("min_chips", f.min_chips);
  r.out("chips_for_weights", f.chips_for_weights);
  r.out("chips_for_batch", f.chips_for_batch);
  r.out("min_chips_for_batch", f.min_chips_for_batch);
  r.out("min_slice_chips", f.min_slice_chips);
  r.out("slice_hbm_bytes", f.slice_hbm_bytes);
  r.out("slice_hbm_bytes_per_s", f.slice_hbm_bytes_per_s);
  r.out("slice_flops_per_s", f.slice_flops_per_s);
  out_opt(r, "max_model_parallelism", f.max_model_parallelism);
  out_opt(r, "activation_bytes", f.activation_bytes);
  out_opt(r, "comm_latency_bound_below_bytes", f.comm_latency_bound_below_bytes);
  out_text(r, "comm_regime", f.comm_regime);
  out_opt(r, "matmul_t_math_s", f.matmul_t_math_s);
  out_opt(r, "matmul_t_weights_s", f.matmul_t_weights_s);
  out_opt(r, "matmul_t_comm_s", f.matmul_t_comm_s);
  out_text(r, "matmul_bound", f.matmul_bound);
  out_opt(r, "ws2d_x", f.ws2d_x);
  out_opt(r, "ws2d_yz", f.ws2d_yz);
  out_opt(r, "ws2d_crossover_chips", f.ws2d_crossover_chips);
  out_opt(r, "attention_intensity", f.attention_intensity);
  out_text(r, "attention_bound", f.attention_bound);
  out_opt(r, "mlp_flip_batch", f.mlp_flip_batch);
  out_text(r, "mlp_bound_above_flip", f.mlp_bound_above_flip);
  out_opt(r, "kv_crossover_batch", f.kv_crossover_batch);
}

std::vector<Param> served_model_params() {
  using namespace params;
  return {model("llama3-70b"),
          positive("params", "params", 1e16, nullptr,
                   "parameter count: alone (a bare count, no model: comms, activation and "
                   "attention figures are null), or replacing a dense model's count (the book's 70e9)"),
          params::chip("tpu-v5e"), model_overrides(), chip_overrides()};
}

std::vector<Param> decode_params(bool context_defaults_to_request) {
  using namespace params;
  std::vector<Param> list = served_model_params();
  json context_default = context_defaults_to_request ? json(nullptr) : json(8192);
  std::string context_doc = "tokens in each sequence's KV cache (0: the weights-only latency floor)";
  if (context_defaults_to_request) context_doc += "; default prompt_tokens + decode_tokens";
  std::vector<Param> more = {
      integer("chips", "chips", 1, 1e5, 16, "chips the model is sharded over (one replica)"),
      integer("batch", "sequences", 1, 1e6, 32, "sequences decoded together, one new token each per step"),
      integer("context", "tokens", 0, 1e8, context_default, context_doc),
      weight_format("weight_dtype",
                    "dtype or quantized format of the weights (bytes per parameter, scales included)"),
      kv_format("kv_dtype", "dtype or quantized format of the KV cache"),
      dtype("activation_dtype", "dtype of the activations moved by model-parallel collectives"),
      dtype("compute_dtype", "dtype of the arithmetic: picks the FLOP/s rate"),
      positive("kv_bytes_per_token", "bytes", 1e10, nullptr,
               "KV bytes per token, all layers, K and V (default: from the model and kv_dtype; "
               "required with a bare params count when context > 0)"),
      choice("sharding", {"tp", "2d_weight_stationary"}, "tp",
             "MLP sharding: tp (1D model parallel) or 2d_weight_stationary (X × YZ, the ESTI layout)"),
      integer("axes_tp", "axes", 1, 3, 1, "mesh axes the model-parallel dimension spans (the book's M_Y)",
              Scale::linear),
  };
  list.insert(list.end(), more.begin(), more.end());
  return list;
}

}  // namespace scalelab
