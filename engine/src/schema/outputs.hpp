// What every calculator outputs: name, unit, label, doc, nullable (outputs.cpp).
#pragma once
#include <cstddef>
#include <string_view>
#include <vector>

#include "schema/schema.hpp"

namespace scalelab {

// The declared outputs of calculator `name`, in the order results list them.
std::vector<Output> declared_outputs(std::string_view name);

// The position of output `name` in `table`, found when the calculator is compiled (a name the
// table lacks does not compile): a calculator whose outputs are set at every point of a sweep
// sets them by position (Result::out_at) instead of looking each name up per call.
template <std::size_t N>
consteval std::size_t output_index(const Output (&table)[N], std::string_view name) {
  for (std::size_t i = 0; i < N; ++i) {
    if (table[i].name == name) return i;
  }
  throw "not an output of this table";
}

// serving's outputs (declared_outputs("serving") is this table, in this order).
inline constexpr Output kServingOutputs[] = {
    {"step_s", "s", "step time", "time of one decode step", false},
    {"decode_time_s", "s", "decode time", "time to generate the whole response", false},
    {"latency_s", "s", "response latency", "time to first token plus decode time", false},
    {"time_to_first_token_s", "s", "time to first token", "prefill time of the prompt", false},
    {"throughput_tokens_per_s", "tokens/s", "throughput", "tokens generated per second by the server", false},
    {"tokens_per_s_per_chip", "tokens/s", "tokens per second per chip", "throughput divided by all chips", false},
    {"qps_per_chip", "1/s", "response rate per chip", "whole responses finished per second, per chip", false},
    {"cost_per_million_tokens_usd", "usd", "cost per million tokens", "dollars per million generated tokens at the chip price (null when the chip has no price)", true},
    {"prefill_to_decode_chips", "ratio", "prefill-to-decode chips", "prefill chips needed per decode chip to keep up", false},
    {"total_chips", "chips", "chips in all", "decode chips plus prefill chips", false},
    {"context", "tokens", "context", "tokens in each sequence's cache", false},
    {"prefill_compute_fraction", "ratio", "prefill share", "fraction of the time spent on prefill when interleaved", true},
    {"sequences_finished_per_step", "sequences", "sequences finished per step", "responses that end in an average step", false},
    {"kv_tokens_freed_per_step", "tokens", "cache tokens freed per step", "cache tokens released by finished responses each step", false},
    {"max_batch", "sequences", "largest batch that fits", "sequences whose cache fits beside the weights", true},
    {"free_hbm_bytes", "bytes", "free memory", "device memory (HBM, GDDR, unified memory) left after the weights", false},
    {"bound", "", "bound", "what limits the decode step", false},
    {"mlp_bound", "", "MLP bound", "what limits the MLP alone", false},
    {"fits", "", "fits", "whether the weights and cache fit in device memory", false},
    {"experts_read_share", "ratio", "share of the experts read", "expected share of an MoE's routed experts one decode step reads (null for a dense model)", true},
    {"points", "", "sweep points", "one result per swept configuration (null without a sweep)", true},
    {"pareto", "", "Pareto frontier", "indices of the points on the latency/throughput frontier (null without a sweep)", true},
    {"measured_share_of_bound", "ratio", "measured share of the bound", "the measured tokens/s divided by the throughput bound (null without a measurement)", true},
    {"achieved_bytes_per_s", "bytes/s", "achieved bandwidth", "bytes a decode step reads, over its time, times the measured share (null without a measurement)", true},
    {"achieved_flops_per_s", "FLOP/s", "achieved FLOP/s", "FLOPs of a decode step, over its time, times the measured share (null without a measurement)", true},
    {"measured_verdict", "", "what usually explains the gap", "a sentence on the overheads that usually separate a measurement from this share of the bound (null without a measurement)", true},
    {"measured_runs_below", "count", "published runs below yours", "of the published runs of this regime, how many reached a smaller share of their bound than the one measured (null without a measurement, or where no runs calibrate it)", true},
    {"measured_among", "", "your run among the published ones", "a sentence placing the measured share among the published runs' (null without a measurement, or where no runs calibrate it)", true},
    {"expected_throughput_tokens_per_s_low", "tokens/s", "expected throughput, low", "the throughput bound times the low end of the share published serving runs on this kind of chip reach (null where no runs calibrate it)", true},
    {"expected_throughput_tokens_per_s_high", "tokens/s", "expected throughput, high", "the throughput bound times the high end of the share published serving runs on this kind of chip reach (null where no runs calibrate it)", true},
    {"expected_latency_s_low", "s", "expected response latency, short", "the latency bound over the high end of the published serving runs' share (null where no runs calibrate it)", true},
    {"expected_latency_s_high", "s", "expected response latency, long", "the latency bound over the low end of the published serving runs' share (null where no runs calibrate it)", true},
    {"expected_time_to_first_token_s_low", "s", "expected time to first token, short", "the time-to-first-token bound over the high end of the share published prefill runs reach (null where no runs calibrate it)", true},
    {"expected_time_to_first_token_s_high", "s", "expected time to first token, long", "the time-to-first-token bound over the low end of the share published prefill runs reach (null where no runs calibrate it)", true},
    {"measured_ttft_share_of_bound", "ratio", "measured share of the time-to-first-token bound", "the time-to-first-token bound over the time you measured (null without a measurement)", true},
    {"measured_ttft_runs_below", "count", "published prefills below yours", "of the published prefill runs, how many reached a smaller share of their bound than your time to first token (null without a measurement, or where no runs calibrate it)", true},
    {"measured_ttft_among", "", "your first token among the published ones", "a sentence placing your time to first token's share among the published prefill runs' (null without a measurement, or where no runs calibrate it)", true},
    {"expected_runs", "count", "published runs behind the range", "how many published serving runs the expected range is fitted to (null where no runs calibrate it)", true},
    {"expected_share_low", "ratio", "expected share of the bound, low", "the low end of the share of the bound published runs reach (null where no runs calibrate it)", true},
    {"expected_share_high", "ratio", "expected share of the bound, high", "the high end of the share of the bound published runs reach (null where no runs calibrate it)", true},
    {"expected_covered", "", "setup within the published runs", "whether the chip's kind and the settings lie within what the published runs took (null where no runs calibrate it)", true},
    {"expected_outside", "", "setup beyond the published runs", "a sentence naming the chip's kind or the settings that lie outside what the published runs took, and what they took (null when none does, or where no runs calibrate it)", true},
};

// decode's outputs (declared_outputs("decode") is this table, in this order).
// clang-format off
inline constexpr Output kDecodeOutputs[] = {
    {"kv_bytes_per_token", "bytes", "KV bytes per token", "cache bytes one token adds, all layers, K and V", true},
    {"weight_bytes", "bytes", "weight bytes", "bytes of the weights", false},
    {"weight_bytes_read", "bytes", "weight bytes read per step", "the weights one step reads: all of a dense model; an MoE's always-active weights and the experts its batch routes to", false},
    {"experts_read_share", "ratio", "share of the experts read", "expected share of an MoE's routed experts one step reads, 1 - (1 - k/E)^B (null for a dense model)", true},
    {"all_experts_batch", "sequences", "batch that reads every expert", "batch from which fewer than one of a layer's experts is expected to go unread (null for a dense model)", true},
    {"kv_bytes_per_sequence", "bytes", "KV bytes per sequence", "cache bytes of one sequence at this context", false},
    {"kv_bytes_total", "bytes", "KV bytes in all", "cache bytes of the whole batch", false},
    {"total_bytes", "bytes", "bytes read per step", "the weights a step reads plus the whole KV cache", false},
    {"flops", "FLOPs", "FLOPs per step", "FLOPs of one decode step for the batch", false},
    {"t_weights_s", "s", "weight-read time", "time to read the weights a step uses from device memory once", false},
    {"t_kv_s", "s", "KV-read time", "time to read the KV cache from device memory", false},
    {"t_math_s", "s", "math time", "FLOPs divided by the slice's FLOP/s", false},
    {"t_comm_s", "s", "comms time", "time of the model-parallel collectives (null on one chip, which exchanges nothing, or where the chip has no link between chips)", true},
    {"mlp_t_comm_s", "s", "MLP comms time", "time of the MLP's model-parallel collectives (null on one chip or without a link)", true},
    {"step_s", "s", "step time", "time of one decode step", false},
    {"tokens_per_s", "tokens/s", "tokens per second", "tokens the slice emits per second", false},
    {"tokens_per_s_per_chip", "tokens/s", "tokens per second per chip", "tokens per second divided by the chips", false},
    {"bound", "", "bound", "what limits the step: compute, memory or comms", false},
    {"mlp_bound", "", "MLP bound", "what limits the MLP alone", false},
    {"critical_batch", "sequences", "critical batch", "batch above which the MLP is compute-bound", false},
    {"max_batch", "sequences", "largest batch that fits", "sequences whose cache fits beside the weights", true},
    {"free_hbm_bytes", "bytes", "free memory", "device memory (HBM, GDDR, unified memory) left after the weights", false},
    {"fits", "", "fits", "whether the weights and cache fit in the memory of all chips together", false},
    {"min_chips", "chips", "chips to hold the weights", "fewest chips whose memory holds the weights", false},
    {"chips_for_weights", "chips", "chips for the weights", "chips whose memory the weights fill", false},
    {"chips_for_batch", "chips", "chips for weights and cache", "chips whose memory the weights and the batch's cache fill", false},
    {"min_chips_for_batch", "chips", "chips for this batch", "fewest whole chips that hold the weights and this batch's cache", false},
    {"min_slice_chips", "chips", "smallest slice", "smallest slice size that holds the weights and the cache", false},
    {"slice_hbm_bytes", "bytes", "slice memory", "device memory of all chips together", false},
    {"slice_hbm_bytes_per_s", "bytes/s", "slice memory bandwidth", "device-memory bandwidth of all chips together", false},
    {"slice_flops_per_s", "FLOP/s", "slice FLOP/s", "FLOP/s of all chips together at the compute dtype", false},
    {"max_model_parallelism", "chips", "model parallelism before comms-bound", "chips beyond which the collectives over the chips' link (ICI, NVLink, InfiniBand or PCIe) outlast the matmuls", true},
    {"activation_bytes", "bytes", "activation bytes", "activations moved by the model-parallel collectives", true},
    {"comm_latency_bound_below_bytes", "bytes", "latency-bound below", "message size under which a hop is latency-bound", true},
    {"comm_regime", "", "comms regime", "whether bandwidth or latency dominates the comms", true},
    {"matmul_t_math_s", "s", "MLP math time", "math time of the MLP matmuls", true},
    {"matmul_t_weights_s", "s", "MLP weight-read time", "time to read the MLP weights", true},
    {"matmul_t_comm_s", "s", "MLP comms time", "comms time of the MLP matmuls", true},
    {"matmul_bound", "", "MLP matmul bound", "what limits the MLP matmuls", true},
    {"ws2d_x", "chips", "2D X degree", "the X degree of the 2D weight-stationary layout", true},
    {"ws2d_yz", "chips", "2D YZ degree", "the YZ degree of the 2D weight-stationary layout", true},
    {"ws2d_crossover_chips", "chips", "2D crossover", "chips above which 2D weight-stationary beats 1D", true},
    {"attention_intensity", "FLOPs/byte", "attention intensity", "FLOPs per byte of the attention over the cache", true},
    {"attention_bound", "", "attention bound", "what limits the attention", true},
    {"mlp_flip_batch", "sequences", "flip batch of the weight matmuls", "batch where the math (or the comms) overtakes the weight-read time (null when neither grows)", true},
    {"mlp_bound_above_flip", "", "matmul bound above the flip", "what binds the weight matmuls past the flip batch: compute or comms", true},
    {"kv_crossover_batch", "sequences", "KV crossover batch", "batch where the KV reads equal the weight reads (null at context 0)", true},
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

}  // namespace scalelab
