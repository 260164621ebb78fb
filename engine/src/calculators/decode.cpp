// `decode` (ch 7, 8): one decode step — bytes read, FLOPs, comms, step time, what bounds it,
// and what fits in the slice's HBM.
#include "calculators/calculators.hpp"
#include "models/common.hpp"
#include "models/expected.hpp"
#include "models/inference.hpp"

namespace scalelab {
namespace {

// The range published decode runs on this kind of chip reach, beside the tokens/s and step-time bounds.
void output_expected(const InferenceSetup& setup, const DecodeFigures& f, const Setup& settings, Result& r) {
  const Band* band = band_for("decode", "tokens_per_s", setup.chip->kind);
  out_expected(band, {"tokens_per_s", "expected_tokens_per_s_low", "expected_tokens_per_s_high", "tokens/s",
                      "tokens per second"}, f.tokens_per_s, r);
  out_expected(band_for("decode", "step_s", setup.chip->kind),
               {"step_s", "expected_step_s_low", "expected_step_s_high", "s", "step time"}, f.step_s, r);
  out_band(band, "decode", setup.chip->kind, settings, r);
}

void compute(const Args& args, Result& r) {
  const InferenceSetup& setup = inference_setup(args);
  double chips = args.num("chips");
  check_axes_tp(setup, chips, "axes_tp");
  check_slice_topology(setup, chips, r);
  warn_ignored_inputs(args, r);
  DecodeFigures f = decode_step(setup, args.num("batch"), chips, args.num("context"), r.log());
  output_decode(f, r);
  output_measured(args, f, f.tokens_per_s, band_for("decode", "tokens_per_s", setup.chip->kind), r);
  output_expected(setup, f, {{"batch", args.num("batch")}, {"chips", chips}, {"context", args.num("context")}}, r);
}

}  // namespace

Calculator make_decode() {
  return {"decode",
          "Decode step",
          {7, 8},
          "One decode step of a batch: weight and KV-cache reads, FLOPs, model-parallel comms, "
          "step time, tokens/s, what bounds it, the critical batch and what fits in HBM.",
          decode_params(false),
          compute};
}

}  // namespace scalelab
