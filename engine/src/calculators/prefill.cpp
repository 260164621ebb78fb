// `prefill` (ch 7): processing a prompt — FLOPs, compute vs weight-load time, and the prompt
// length at which self-attention turns compute-bound.
#include "schema/params.hpp"
#include "calculators/calculators.hpp"
#include "core/output_rows.hpp"
#include "models/common.hpp"
#include "models/expected.hpp"
#include "models/inference.hpp"

namespace scalelab {
namespace {

// prefill's outputs, in the order results list them (name, unit, label, doc, nullable); a row
// read from a member of its figures is written by write_members, the others where they are made
// (expected, measured).
// clang-format off
constexpr OutputRow<PrefillFigures> kOutputs[] = {
    {"flops", "FLOPs", "FLOPs", "FLOPs of the prefill over all prompt tokens", false, &PrefillFigures::flops},
    {"t_math_s", "s", "math time", "FLOPs divided by the slice's FLOP/s and the MFU", false, &PrefillFigures::t_math_s},
    {"t_weights_s", "s", "weight-read time", "time to read the weights once from device memory", false, &PrefillFigures::t_weights_s},
    {"t_s", "s", "prefill time", "the larger of math and weight-read time", false, &PrefillFigures::t_s},
    {"bound", "", "bound", "what limits the prefill: compute or memory", false, &PrefillFigures::bound},
    {"attention_critical_length", "tokens", "attention critical length", "sequence length above which attention FLOPs outweigh the parameter FLOPs", true, &PrefillFigures::attention_critical_length},
    {"activation_bytes", "bytes", "activation bytes", "activations moved by the model-parallel collectives", true, &PrefillFigures::activation_bytes},
    {"expected_t_s_low", "s", "expected prefill time, short", "the prefill-time bound at full utilisation over the high end of the share published prefill runs on this kind of chip reach (null where no runs calibrate it)", true},
    {"expected_t_s_high", "s", "expected prefill time, long", "the prefill-time bound at full utilisation over the low end of the share published prefill runs on this kind of chip reach (null where no runs calibrate it)", true},
    {"expected_runs", "count", "published runs behind the range", "how many published prefill runs the expected range is fitted to (null where no runs calibrate it)", true},
    {"expected_share_low", "ratio", "expected share of the bound, low", "the low end of the share of the bound published runs reach (null where no runs calibrate it)", true},
    {"expected_share_high", "ratio", "expected share of the bound, high", "the high end of the share of the bound published runs reach (null where no runs calibrate it)", true},
    {"expected_covered", "", "setup within the published runs", "whether the chip's kind and the settings lie within what the published runs took (null where no runs calibrate it)", true},
    {"expected_outside", "", "setup beyond the published runs", "a sentence naming the chip's kind or the settings that lie outside what the published runs took, and what they took (null when none does, or where no runs calibrate it)", true},
    {"measured_share_of_bound", "ratio", "measured share of the bound", "the prefill-time bound at full utilisation divided by the time measured (null without a measurement)", true},
    {"achieved_flops_per_s", "FLOP/s", "achieved FLOP/s", "the prefill's FLOPs over the time measured, all chips (null without a measurement)", true},
    {"measured_runs_below", "count", "published runs below yours", "of the published prefill runs on this kind of chip, how many reached a smaller share of their bound than yours (null without a measurement, or where no runs calibrate it)", true},
    {"measured_among", "", "your run among the published ones", "a sentence placing the measured share among the published prefill runs' (null without a measurement, or where no runs calibrate it)", true},
};
// clang-format on
static_assert(well_formed(kOutputs));

// The reader's own prefill time: its share of the bound at full utilisation (bound / measured, as
// the published runs' shares are), the FLOP/s it implies, and its place among the published runs.
void output_measured(double measured_s, double flops, double bound_s, const Band* band, Result& r) {
  Expr measured = r.sym("T_{measured}", measured_s);
  Expr share = r.step("Share of the bound you measured", "s", r.sym("T_{bound}", bound_s) / measured, "ratio");
  r.out("measured_share_of_bound", share);
  r.out("achieved_flops_per_s", r.step("FLOP/s the prefill then reaches", "", r.sym("\\text{FLOPs}", flops) / measured, "FLOP/s"));
  out_measured_among(band, share.value(), r);
  if (share.value() > 1) {
    r.warn("The measured prefill is faster than the bound: check that the model, chips, prompt tokens and formats match the run.");
  }
}

void compute(const Args& args, Result& r) {
  const InferenceSetup& setup = inference_setup(args);
  if (setup.compute.note) r.warn(*setup.compute.note);
  const double tokens = args.num("tokens"), chips = args.num("chips"), mfu = args.num("mfu");
  PrefillFigures f = prefill_step(setup, tokens, chips, mfu, r.log());
  write_members<kOutputs>(f, r);
  // The range published prefill runs on this kind of chip reach, of the bound at full utilisation
  // (the runs were fitted there: a lower mfu is the reader's own estimate of the same gap).
  const Band* band = band_for("prefill", "t_s", setup.chip->kind);
  const double bound = mfu == 1 ? f.t_s : prefill_step(setup, tokens, chips, 1, Steps()).t_s;
  out_expected(band, expected_output(kOutputs, "t_s", "prefill time"), bound, r);
  out_band(band, "prefill", setup.chip->kind, {{"chips", chips}, {"tokens", tokens}}, r, band_outputs(kOutputs));
  if (args.given("measured_t_s")) output_measured(args.num("measured_t_s"), f.flops, bound, band, r);
  if (f.bound == "memory") {
    r.warn("Only " + plain(f.tokens) +
           " tokens: loading the weights takes longer than the math, so "
           "this prefill is memory-bound; batch more prompt tokens together.");
  }
}

}  // namespace

Calculator make_prefill() {
  using namespace params;
  std::vector<Param> list = served_model_params();
  std::vector<Param> more = {
      served_chips("chips the model is sharded over"),
      integer("tokens", "tokens", 1, 1e9, 8192,
              "prompt tokens processed together (prompt length × sequences)"),
      utilisation("mfu", 1, "FLOP utilisation applied to the compute time"),
      dtype("weight_dtype", "dtype of the weights (bytes per parameter)"),
      dtype("activation_dtype", "dtype of the activations"),
      dtype("kv_dtype", "dtype of the KV cache (sets attention's bytes)"),
      dtype("compute_dtype", "dtype of the arithmetic: picks the FLOP/s rate"),
      number("measured_t_s", "s", 1e-6, 1e7, nullptr,
               "I measured: the time your run took to process these prompt tokens (the time to first token "
               "at batch 1): gives its share of the bound at full utilisation and where it stands among the "
               "published prefill runs"),
  };
  list.insert(list.end(), more.begin(), more.end());
  return {"prefill",
          "Prefill",
          {7},
          "Processing a prompt: FLOPs, compute time vs weight-load time, and the prompt length "
          "above which self-attention is compute-bound.",
          list,
          compute,
          outputs_of(kOutputs)};
}

}  // namespace scalelab
