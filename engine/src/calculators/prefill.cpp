// `prefill` (ch 7): processing a prompt — FLOPs, compute vs weight-load time, and the prompt
// length at which self-attention turns compute-bound.
#include "schema/params.hpp"
#include "calculators/calculators.hpp"
#include "models/common.hpp"
#include "models/inference.hpp"

namespace scalelab {
namespace {

void compute(const Args& args, Result& r) {
  const InferenceSetup& setup = inference_setup(args);
  if (setup.compute.note) r.warn(*setup.compute.note);
  PrefillFigures f = prefill_step(setup, args.num("tokens"), args.num("chips"), args.num("mfu"), r.log());
  output_prefill(f, r);
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
      chips(16, "chips the model is sharded over"),
      integer("tokens", "tokens", 1, 1e9, 8192,
              "prompt tokens processed together (prompt length × sequences)"),
      utilisation("mfu", 1, "FLOP utilisation applied to the compute time"),
      dtype("weight_dtype", "dtype of the weights (bytes per parameter)"),
      dtype("activation_dtype", "dtype of the activations"),
      dtype("kv_dtype", "dtype of the KV cache (sets attention's bytes)"),
      dtype("compute_dtype", "dtype of the arithmetic: picks the FLOP/s rate"),
  };
  list.insert(list.end(), more.begin(), more.end());
  return {"prefill",
          "Prefill",
          {7},
          "Processing a prompt: FLOPs, compute time vs weight-load time, and the prompt length "
          "above which self-attention is compute-bound.",
          list,
          compute};
}

}  // namespace scalelab
