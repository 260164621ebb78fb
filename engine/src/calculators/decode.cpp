// `decode` (ch 7, 8): one decode step — bytes read, FLOPs, comms, step time, what bounds it,
// and what fits in the slice's HBM.
#include "calculators/calculators.hpp"
#include "core/output_rows.hpp"
#include "models/common.hpp"
#include "models/expected.hpp"
#include "models/inference.hpp"

namespace scalelab {
namespace {

// decode's outputs, in the order results list them; a row read from a member of the figures
// is written by write_members, the others where they are made (measured, expected).
// clang-format off
constexpr OutputRow<DecodeFigures> kOutputs[] = {
    {"kv_bytes_per_token", "bytes", "KV bytes per token", "cache bytes one token adds, all layers, K and V", true, &DecodeFigures::kv_bytes_per_token},
    {"weight_bytes", "bytes", "weight bytes", "bytes of the weights", false, &DecodeFigures::weight_bytes},
    {"weight_bytes_read", "bytes", "weight bytes read per step", "the weights one step reads: all of a dense model; an MoE's always-active weights and the experts its batch routes to", false, &DecodeFigures::weight_bytes_read},
    {"experts_read_share", "ratio", "share of the experts read", "expected share of an MoE's routed experts one step reads, 1 - (1 - k/E)^B (null for a dense model)", true, &DecodeFigures::experts_read_share},
    {"all_experts_batch", "sequences", "batch that reads every expert", "batch from which fewer than one of a layer's experts is expected to go unread (null for a dense model)", true, &DecodeFigures::all_experts_batch},
    {"kv_bytes_per_sequence", "bytes", "KV bytes per sequence", "cache bytes of one sequence at this context", false, &DecodeFigures::kv_bytes_per_sequence},
    {"kv_bytes_total", "bytes", "KV bytes in all", "cache bytes of the whole batch", false, &DecodeFigures::kv_bytes_total},
    {"total_bytes", "bytes", "bytes read per step", "the weights a step reads plus the whole KV cache", false, &DecodeFigures::total_bytes},
    {"flops", "FLOPs", "FLOPs per step", "FLOPs of one decode step for the batch", false, &DecodeFigures::flops},
    {"t_weights_s", "s", "weight-read time", "time to read the weights a step uses from device memory once", false, &DecodeFigures::t_weights_s},
    {"t_kv_s", "s", "KV-read time", "time to read the KV cache from device memory", false, &DecodeFigures::t_kv_s},
    {"t_math_s", "s", "math time", "FLOPs divided by the slice's FLOP/s", false, &DecodeFigures::t_math_s},
    {"t_comm_s", "s", "comms time", "time of the model-parallel collectives (null on one chip, which exchanges nothing, or where the chip has no link between chips)", true, &DecodeFigures::t_comm_s},
    {"mlp_t_comm_s", "s", "MLP comms time", "time of the MLP's model-parallel collectives (null on one chip or without a link)", true, &DecodeFigures::mlp_t_comm_s},
    {"step_s", "s", "step time", "time of one decode step", false, &DecodeFigures::step_s},
    {"tokens_per_s", "tokens/s", "tokens per second", "tokens the slice emits per second", false, &DecodeFigures::tokens_per_s},
    {"tokens_per_s_per_chip", "tokens/s", "tokens per second per chip", "tokens per second divided by the chips", false, &DecodeFigures::tokens_per_s_per_chip},
    {"bound", "", "bound", "what limits the step: compute, memory or comms", false, &DecodeFigures::bound},
    {"mlp_bound", "", "MLP bound", "what limits the MLP alone", false, &DecodeFigures::mlp_bound},
    {"critical_batch", "sequences", "critical batch", "batch above which the MLP is compute-bound", false, &DecodeFigures::critical_batch},
    {"max_batch", "sequences", "largest batch that fits", "sequences whose cache fits beside the weights", true, &DecodeFigures::max_batch},
    {"free_hbm_bytes", "bytes", "free memory", "device memory (HBM, GDDR, unified memory) left after the weights", false, &DecodeFigures::free_hbm_bytes},
    {"fits", "", "fits", "whether the weights and cache fit in the memory of all chips together", false, &DecodeFigures::fits},
    {"min_chips", "chips", "chips to hold the weights", "fewest chips whose memory holds the weights", false, &DecodeFigures::min_chips},
    {"chips_for_weights", "chips", "chips for the weights", "chips whose memory the weights fill", false, &DecodeFigures::chips_for_weights},
    {"chips_for_batch", "chips", "chips for weights and cache", "chips whose memory the weights and the batch's cache fill", false, &DecodeFigures::chips_for_batch},
    {"min_chips_for_batch", "chips", "chips for this batch", "fewest whole chips that hold the weights and this batch's cache", false, &DecodeFigures::min_chips_for_batch},
    {"min_slice_chips", "chips", "smallest slice", "smallest slice size that holds the weights and the cache", false, &DecodeFigures::min_slice_chips},
    {"slice_hbm_bytes", "bytes", "slice memory", "device memory of all chips together", false, &DecodeFigures::slice_hbm_bytes},
    {"slice_hbm_bytes_per_s", "bytes/s", "slice memory bandwidth", "device-memory bandwidth of all chips together", false, &DecodeFigures::slice_hbm_bytes_per_s},
    {"slice_flops_per_s", "FLOP/s", "slice FLOP/s", "FLOP/s of all chips together at the compute dtype", false, &DecodeFigures::slice_flops_per_s},
    {"max_model_parallelism", "chips", "model parallelism before comms-bound", "chips beyond which the collectives over the chips' link (ICI, NVLink, InfiniBand or PCIe) outlast the matmuls", true, &DecodeFigures::max_model_parallelism},
    {"activation_bytes", "bytes", "activation bytes", "activations moved by the model-parallel collectives", true, &DecodeFigures::activation_bytes},
    {"comm_latency_bound_below_bytes", "bytes", "latency-bound below", "message size under which a hop is latency-bound", true, &DecodeFigures::comm_latency_bound_below_bytes},
    {"comm_regime", "", "comms regime", "whether bandwidth or latency dominates the comms", true, &DecodeFigures::comm_regime},
    {"matmul_t_math_s", "s", "MLP math time", "math time of the MLP matmuls", true, &DecodeFigures::matmul_t_math_s},
    {"matmul_t_weights_s", "s", "MLP weight-read time", "time to read the MLP weights", true, &DecodeFigures::matmul_t_weights_s},
    {"matmul_t_comm_s", "s", "MLP comms time", "comms time of the MLP matmuls", true, &DecodeFigures::matmul_t_comm_s},
    {"matmul_bound", "", "MLP matmul bound", "what limits the MLP matmuls", true, &DecodeFigures::matmul_bound},
    {"ws2d_x", "chips", "2D X degree", "the X degree of the 2D weight-stationary layout", true, &DecodeFigures::ws2d_x},
    {"ws2d_yz", "chips", "2D YZ degree", "the YZ degree of the 2D weight-stationary layout", true, &DecodeFigures::ws2d_yz},
    {"ws2d_crossover_chips", "chips", "2D crossover", "chips above which 2D weight-stationary beats 1D", true, &DecodeFigures::ws2d_crossover_chips},
    {"attention_intensity", "FLOPs/byte", "attention intensity", "FLOPs per byte of the attention over the cache", true, &DecodeFigures::attention_intensity},
    {"attention_bound", "", "attention bound", "what limits the attention", true, &DecodeFigures::attention_bound},
    {"mlp_flip_batch", "sequences", "flip batch of the weight matmuls", "batch where the math (or the comms) overtakes the weight-read time (null when neither grows)", true, &DecodeFigures::mlp_flip_batch},
    {"mlp_bound_above_flip", "", "matmul bound above the flip", "what binds the weight matmuls past the flip batch: compute or comms", true, &DecodeFigures::mlp_bound_above_flip},
    {"kv_crossover_batch", "sequences", "KV crossover batch", "batch where the KV reads equal the weight reads (null at context 0)", true, &DecodeFigures::kv_crossover_batch},
    {"measured_share_of_bound", "ratio", "measured share of the bound", "the measured tokens/s divided by the tokens/s bound (null without a measurement)", true},
    {"achieved_bytes_per_s", "bytes/s", "achieved bandwidth", "bytes a decode step reads, over its time, times the measured share (null without a measurement)", true},
    {"achieved_flops_per_s", "FLOP/s", "achieved FLOP/s", "FLOPs of a decode step, over its time, times the measured share (null without a measurement)", true},
    {"measured_verdict", "", "what usually explains the gap", "a sentence on the overheads that usually separate a measurement from this share of the bound (null without a measurement)", true},
    {"measured_runs_below", "count", "published runs below yours", "of the published runs of this regime, how many reached a smaller share of their bound than the one measured (null without a measurement, or where no runs calibrate it)", true},
    {"measured_among", "", "your run among the published ones", "a sentence placing the measured share among the published runs' (null without a measurement, or where no runs calibrate it)", true},
    {"expected_tokens_per_s_low", "tokens/s", "expected tokens per second, low", "the bound times the low end of the share published decode runs on this kind of chip reach (null where no runs calibrate it)", true},
    {"expected_tokens_per_s_high", "tokens/s", "expected tokens per second, high", "the bound times the high end of the share published decode runs on this kind of chip reach (null where no runs calibrate it)", true},
    {"expected_step_s_low", "s", "expected step time, short", "the step-time bound over the high end of the published runs' share (null where no runs calibrate it)", true},
    {"expected_step_s_high", "s", "expected step time, long", "the step-time bound over the low end of the published runs' share (null where no runs calibrate it)", true},
    {"expected_runs", "count", "published runs behind the range", "how many published runs the expected range is fitted to (null where no runs calibrate it)", true},
    {"expected_share_low", "ratio", "expected share of the bound, low", "the low end of the share of the bound published runs reach (null where no runs calibrate it)", true},
    {"expected_share_high", "ratio", "expected share of the bound, high", "the high end of the share of the bound published runs reach (null where no runs calibrate it)", true},
    {"expected_covered", "", "setup within the published runs", "whether the chip's kind, batch, chips and context lie within what the published runs took (null where no runs calibrate it)", true},
    {"expected_outside", "", "setup beyond the published runs", "a sentence naming the chip's kind or the settings that lie outside what the published runs took, and what they took (null when none does, or where no runs calibrate it)", true},
};
// clang-format on
static_assert(well_formed(kOutputs));

// The range published decode runs on this kind of chip reach (`band`, the tokens/s band), beside the
// tokens/s and step-time bounds.
void output_expected(const InferenceSetup& setup, const DecodeFigures& f, const Band* band, Setup settings,
                     Result& r) {
  out_expected(band, expected_output(kOutputs, "tokens_per_s", "tokens per second"), f.tokens_per_s, r);
  out_expected(band_for("decode", "step_s", setup.chip->kind),
               expected_output(kOutputs, "step_s", "step time"), f.step_s, r);
  out_band(band, "decode", setup.chip->kind, settings, r, band_outputs(kOutputs));
}

void compute(const Args& args, Result& r) {
  const InferenceSetup& setup = inference_setup(args);
  const double chips = args.num("chips"), batch = args.num("batch"), context = args.num("context");
  check_axes_tp(setup, chips, "axes_tp");
  check_slice_topology(setup, chips, r);
  warn_ignored_inputs(args, r);
  DecodeFigures f = decode_step(setup, batch, chips, context, r.log());
  write_members<kOutputs>(f, r);
  // Looked up once (a scan of the bands' rows): the measured line and the range read the same band.
  const Band* band = band_for("decode", "tokens_per_s", setup.chip->kind);
  output_measured(args, f, f.tokens_per_s, band, r);
  output_expected(setup, f, band, {{"batch", batch}, {"chips", chips}, {"context", context}}, r);
}

}  // namespace

Calculator make_decode() {
  return {"decode",
          "Decode step",
          {7, 8},
          "One decode step of a batch: weight and KV-cache reads, FLOPs, model-parallel comms, "
          "step time, tokens/s, what bounds it, the critical batch and what fits in HBM.",
          decode_params(false),
          compute,
          outputs_of(kOutputs)};
}

}  // namespace scalelab
