// `decode` (ch 7, 8): one decode step — bytes read, FLOPs, comms, step time, what bounds it,
// and what fits in the slice's HBM.
#include "calculators/calculators.hpp"
#include "models/common.hpp"
#include "models/inference.hpp"

namespace scalelab {
namespace {

void compute(const Args& args, Result& r) {
  const InferenceSetup& setup = inference_setup(args);
  double chips = args.num("chips");
  check_axes_tp(setup, chips, "axes_tp");
  check_slice_topology(setup, chips, r);
  warn_ignored_inputs(args, r);
  DecodeFigures f = decode_step(setup, args.num("batch"), chips, args.num("context"), r.log());
  output_decode(f, r);
  output_measured(args, f, f.tokens_per_s, r);
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
