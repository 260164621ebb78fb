// `compute_budget` (ch 0, 4; seed 004): training FLOPs, time, weight memory and reading time,
// MoE total vs active bytes, attention pair counts, and a teaching loss curve.
#include <cmath>

#include "calculators/calculators.hpp"
#include "core/output_rows.hpp"
#include "models/expected.hpp"
#include "models/common.hpp"
#include "schema/params.hpp"

namespace scalelab {
namespace {

// compute_budget's outputs, in the order results list them (name, unit, label, doc, nullable): compute
// writes each where it makes it (r.out), none is read from a figures struct by write_members.
// clang-format off
constexpr Output kOutputs[] = {
    {"flops_per_param_per_token", "FLOPs", "FLOPs per parameter per token", "6 for training, 8 with block remat", false},
    {"train_flops", "FLOPs", "training FLOPs", "FLOPs per parameter per token × N × D", false},
    {"t_s", "s", "time at peak", "training FLOPs divided by the rate (null without one)", true},
    {"expected_t_s_low", "s", "expected training time, short", "6·N·D at the chip's peak over the high end of the MFU published whole training runs on this kind of chip reached (null without a chip, or where no runs calibrate it)", true},
    {"expected_t_s_high", "s", "expected training time, long", "6·N·D at the chip's peak over the low end of the MFU published whole training runs on this kind of chip reached (null without a chip, or where no runs calibrate it)", true},
    {"expected_runs", "count", "published runs behind the range", "how many published whole training runs the expected range is fitted to (null where no runs calibrate it)", true},
    {"expected_share_low", "ratio", "expected MFU, low", "the low end of the MFU (share of the chips' peak, 6·P·D) published whole training runs reached (null where no runs calibrate it)", true},
    {"expected_share_high", "ratio", "expected MFU, high", "the high end of the MFU (share of the chips' peak, 6·P·D) published whole training runs reached (null where no runs calibrate it)", true},
    {"expected_covered", "", "setup within the published runs", "whether the chip's kind and the settings lie within what the published runs took (null where no runs calibrate it)", true},
    {"expected_outside", "", "setup beyond the published runs", "a sentence naming the chip's kind or the settings that lie outside what the published runs took, and what they took (null when none does, or where no runs calibrate it)", true},
    {"weight_bytes", "bytes", "weight bytes", "N × bytes per parameter", false},
    {"weight_read_s", "s", "weight-read time", "time to read the weights once (null without a bandwidth)", true},
    {"moe_total_bytes", "bytes", "MoE bytes in all", "bytes of all MoE parameters", true},
    {"moe_active_bytes", "bytes", "MoE active bytes", "bytes of the parameters one token uses", true},
    {"critical_batch_tokens", "tokens", "critical batch", "tokens per step above which the weight read is hidden under the FLOPs", true},
    {"attention_pairs_full", "count", "attention pairs (full)", "query–key pairs without a mask: L²", false},
    {"attention_pairs_causal", "count", "attention pairs (causal)", "query–key pairs under a causal mask: L(L+1)/2", false},
    {"attention_pairs_window", "count", "attention pairs (window)", "query–key pairs under a sliding window (null without one)", true},
    {"curve", "", "loss curve", "which loss curve the loss comes from", false},
    {"loss_constants", "", "loss constants", "the curve's constants E, A, B, alpha, beta", false},
    {"loss", "", "loss", "the curve's loss at N and D", false},
};
// clang-format on

struct LossCurve {
  std::string name;
  double E, A, B, alpha, beta;
};

LossCurve loss_curve(const Args& args) {
  LossCurve c = args.str("curve") == "chinchilla" ? LossCurve{"chinchilla", 1.69, 406.4, 410.7, 0.34, 0.28}
                                                  : LossCurve{"invented", 1.8, 400, 600, 0.32, 0.30};
  if (args.given("loss_constants")) {
    const json& k = args.raw("loss_constants");
    c.E = k.value("E", c.E);
    c.A = k.value("A", c.A);
    c.B = k.value("B", c.B);
    c.alpha = k.value("alpha", c.alpha);
    c.beta = k.value("beta", c.beta);
  }
  return c;
}

struct Rates {
  std::optional<double> flops, bandwidth;
};

Rates read_rates(const Args& args) {
  Rates rates{args.num_if("flops_per_s"), args.num_if("bandwidth_bytes_per_s")};
  if (!args.has_chip()) return rates;
  refuse_if_given(args, "flops_per_s", "comes from the chip; change it with chip_overrides {\"flops_per_s\": {\"bf16\": …}}");
  refuse_if_given(args, "bandwidth_bytes_per_s",
                  "comes from the chip; change it with chip_overrides {\"hbm_bytes_per_s\": …}");
  rates.flops = args.chip().flops_if("bf16");
  rates.bandwidth = args.chip().hbm_bytes_per_s;
  return rates;
}

void work_steps(const Args& args, const Rates& rates, Result& r) {
  Expr N = r.sym("N", args.num("N")), D = r.sym("D", args.num("D"));
  bool remat = args.str("checkpointing") == "block";
  double per = remat ? 8 : 6;
  r.out("flops_per_param_per_token", per);
  Expr flops = r.step("Training FLOPs", "\\text{FLOPs}", per * N * D, "FLOPs");
  r.out("train_flops", flops);
  if (rates.flops) {
    r.out("t_s", r.step("Time at the peak rate", "T", flops / r.sym("C", *rates.flops), "s"));
  } else {
    r.out_null("t_s");
  }
  // The range whole published runs on this kind of chip reach: their MFUs count 6·N·D, whatever
  // the remat, so the range is that time at the peak over them.
  const Band* band = rates.flops && args.has_chip() ? band_for("compute_budget", "t_s", args.chip().kind) : nullptr;
  out_expected(band, expected_output(kOutputs, "t_s", "training time"),
               band ? 6 * args.num("N") * args.num("D") / *rates.flops : 0, r);
  out_band(band, "compute_budget", band ? args.chip().kind : ChipKind{}, {}, r, band_outputs(kOutputs));
  Expr weights = r.step("Weight bytes", "\\text{bytes}_w", N * r.sym("b", args.num("bytes_per_param")), "bytes");
  r.out("weight_bytes", weights);
  if (rates.bandwidth) {
    r.out("weight_read_s", r.step("Time to read every weight once", "", weights / r.sym("W", *rates.bandwidth), "s"));
  } else {
    r.out_null("weight_read_s");
  }
}

void moe_steps(const Args& args, const Rates& rates, Result& r) {
  double bytes = args.num("bytes_per_param");
  auto total = args.num_if("total_params"), active = args.num_if("active_params");
  if (total && active && *active > *total) {
    throw InputError("active_params", "must be ≤ total_params (" + plain(*total) + "), got " + plain(*active));
  }
  out_opt(r, "moe_total_bytes", opt_mul(total, bytes));
  out_opt(r, "moe_active_bytes", opt_mul(active, bytes));
  if (!rates.flops || !rates.bandwidth) {
    r.out_null("critical_batch_tokens");
    return;
  }
  Expr ratio = total && active ? r.sym("P_{total}", *total) / r.sym("P_{active}", *active) : Expr(1);
  r.out("critical_batch_tokens",
        r.step("Tokens per step that hide reading every weight", "B^*",
               (r.sym("C", *rates.flops) / r.sym("W", *rates.bandwidth)) * r.sym("b", bytes) * ratio / 2, "tokens"));
}

void attention_steps(const Args& args, Result& r) {
  Expr L = r.sym("L", args.num("L"));
  r.out("attention_pairs_full", r.step("Query-key pairs, full attention", "", pow(L, 2), "count"));
  r.out("attention_pairs_causal", r.step("Query-key pairs, causal", "", L * (L + 1) / 2, "count"));
  if (!args.given("window")) {
    r.out_null("attention_pairs_window");
    return;
  }
  double window = args.num("window");
  if (window > L.value()) throw InputError("window", "must be ≤ L = " + plain(L.value()) + ", got " + plain(window));
  Expr w = r.sym("w", window);
  r.out("attention_pairs_window",
        r.step("Query-key pairs, sliding window", "", w * (w + 1) / 2 + (L - w) * w, "count"));
}

void loss_steps(const Args& args, Result& r) {
  LossCurve c = loss_curve(args);
  Expr N = r.sym("N", args.num("N")), D = r.sym("D", args.num("D"));
  r.out("curve", c.name);
  r.out("loss_constants", json{{"E", c.E}, {"A", c.A}, {"B", c.B}, {"alpha", c.alpha}, {"beta", c.beta}});
  r.out("loss", r.step(c.name == "chinchilla" ? StepText("Loss (Hoffmann et al. 2022 parametric fit)") : StepText("Loss (invented curve)"),
                       "\\mathcal{L}",
                       r.sym("E", c.E) + r.sym("A", c.A) / pow(N, r.sym("\\alpha", c.alpha)) +
                           r.sym("B", c.B) / pow(D, r.sym("\\beta", c.beta)),
                       ""));
  if (c.name == "invented") {
    r.warn("The \"invented\" loss curve's constants are made up for teaching: they are not measurements and must "
           "not be used to plan a real training run.");
  } else {
    r.warn("Chinchilla constants: Hoffmann et al. 2022 (\"Training Compute-Optimal Large Language Models\"), "
           "fitted to their models and data; other data and architectures give other constants.");
  }
}

void compute(const Args& args, Result& r) {
  Rates rates = read_rates(args);
  work_steps(args, rates, r);
  moe_steps(args, rates, r);
  attention_steps(args, r);
  loss_steps(args, r);
}

}  // namespace

Calculator make_compute_budget() {
  using namespace params;
  Param constants = object("loss_constants",
                           {number("E", "", 0, 100, nullptr, "irreducible loss", Scale::linear),
                            number("A", "", 0, 1e9, nullptr, "parameter-term coefficient"),
                            number("B", "", 0, 1e9, nullptr, "data-term coefficient"),
                            number("alpha", "", 0, 2, nullptr, "parameter exponent", Scale::linear),
                            number("beta", "", 0, 2, nullptr, "data exponent", Scale::linear)},
                           "override the curve's constants (any subset)");
  return {"compute_budget", "Compute budget", {0, 4},
          "Training FLOPs (6ND), time, weight memory and reading time, MoE bytes, attention pairs and a loss curve.",
          {param_count("N", 1e9, "parameters (active parameters for an MoE)"),
           number("D", "tokens", 1, 1e18, 1e11, "training tokens (at least one)"),
           choice("checkpointing", {"none", "block"}, "none", "block remat repeats the forward pass (8ND)",
                  {"none (6ND)", "block rematerialisation (8ND)"}),
           chip(), chip_overrides(),
           rate("flops_per_s", "FLOP/s", 1e20, "compute rate (without a chip)"),
           rate("bandwidth_bytes_per_s", "bytes/s", 1e20, "memory bandwidth (without a chip)"),
           positive("bytes_per_param", "bytes", 8, 2, "bytes per stored parameter", Scale::linear),
           param_count("total_params", nullptr, "MoE: all parameters"),
           param_count("active_params", nullptr, "MoE: parameters one token uses"),
           integer("L", "tokens", 1, 1e8, 4096, "context length"),
           integer("window", "tokens", 1, 1e8, nullptr, "sliding-window size"),
           choice("curve", {"invented", "chinchilla"}, "invented", "loss curve",
                  {"invented (not measured)", "Chinchilla fit (2022)"}),
           constants},
          compute,
          outputs_of(kOutputs)};
}

}  // namespace scalelab
