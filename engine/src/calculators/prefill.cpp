// `prefill` (ch 7): processing a prompt — FLOPs, compute vs weight-load time, and the prompt
// length at which self-attention turns compute-bound.
#include "schema/params.hpp"
#include "calculators/calculators.hpp"
#include "models/common.hpp"
#include "models/expected.hpp"
#include "models/inference.hpp"

namespace scalelab {
namespace {

void compute(const Args& args, Result& r) {
  const InferenceSetup& setup = inference_setup(args);
  if (setup.compute.note) r.warn(*setup.compute.note);
  const double tokens = args.num("tokens"), chips = args.num("chips"), mfu = args.num("mfu");
  PrefillFigures f = prefill_step(setup, tokens, chips, mfu, r.log());
  output_prefill(f, r);
  // The range published prefill runs on this kind of chip reach, of the bound at full utilisation
  // (the runs were fitted there: a lower mfu is the reader's own estimate of the same gap).
  const Band* band = band_for("prefill", "t_s", setup.chip->kind);
  const double bound = mfu == 1 ? f.t_s : prefill_step(setup, tokens, chips, 1, Steps()).t_s;
  out_expected(band, {"t_s", "expected_t_s_low", "expected_t_s_high", "s", "prefill time"}, bound, r);
  out_band(band, "prefill", setup.chip->kind, {{"chips", chips}, {"tokens", tokens}}, r);
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
