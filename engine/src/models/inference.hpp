// Shared inference math (api/inference.md): the model and chip figures prefill, decode and
// serving need, and one prefill and one decode step as plain functions. `serving` calls the
// same functions as the `prefill` and `decode` calculators, so the step time has one source.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schema/args.hpp"
#include "catalog/catalog.hpp"
#include "core/result.hpp"
#include "schema/schema.hpp"
#include "common.hpp"

namespace scalelab {

// What is served: a parameter count, and the model's dimensions unless it is a bare `params`.
struct ServedModel {
  double params_total = 0;
  double params_active = 0;
  double params_routed = 0;                  // an MoE's routed experts, all E of them (0 for dense)
  std::shared_ptr<const Model> dims;         // null for a bare parameter count
  std::optional<double> kv_bytes_per_token;  // null when unknown (bare params, no KV size)
  bool kv_given = false;                     // kv_bytes_per_token came from the caller
  // The MLP width one token's matmuls see (an expert's for MoE).
  double mlp_width() const { return dims->is_moe() ? dims->F_expert : dims->F; }
  // E/k: how many times fewer tokens each expert sees than the batch (1 for dense).
  double experts_per_active() const { return dims && dims->is_moe() ? dims->E / dims->k : 1; }
};

// The fabric model-parallel collectives cross: TPU ICI (bidirectional on one axis), GPU
// NVLink inside a node, else InfiniBand; a workstation or consumer card's PCIe.
struct ParallelFabric {
  std::string_view name;                // for people: "ICI", "NVLink", "InfiniBand", "DCN" (TPU chips beyond a pod), "PCIe (…)"
  std::string_view symbol;              // its bandwidth's symbol by the link: W_{ici}, W_{nvlink}, W_{ib}, W_{dcn}, W_{pcie}
  double bytes_per_s = 0;               // W_ici in the book's formulas (the link's own symbol in the steps)
  double link_bytes_per_s = 0;          // one-way, one link (latency threshold)
  std::optional<double> hop_latency_s;  // null where the chip gives none
};

// Inputs common to a prefill and a decode step, read once from the arguments.
struct InferenceSetup {
  ServedModel model;
  const Chip* chip = nullptr;
  double w = 2, a = 2, kv = 2;  // bytes of weight, activation, KV dtypes
  ComputeRate compute;  // the dtype the math is priced at, and a note when it is not the one asked for
  double C = 0;    // FLOP/s per chip at compute.dtype
  double W = 0;    // HBM bytes/s per chip
  StepText W_symbol = "W_{hbm}";  // its symbol: W_{hbm} on HBM parts, W_{mem} on a card's GDDR, a Mac's or a CPU's memory
  double hbm = 0;  // HBM bytes per chip
  bool ws2d = false;
  double axes_tp = 1;
};

// Built once per Args and kept (Args::kept): a sweep over the batch, the chips or the context
// builds it once.
const InferenceSetup& inference_setup(const Args& args);
std::optional<ParallelFabric> model_parallel_fabric(const Chip& chip, double chips);

// What prefill's outputs are read from (its kOutputs rows name the members, calculators/prefill.cpp).
struct PrefillFigures {
  double tokens = 0, flops = 0, t_math_s = 0, t_weights_s = 0, t_s = 0;
  Word bound;
  std::optional<double> attention_critical_length, activation_bytes;
};

PrefillFigures prefill_step(const InferenceSetup& s, double tokens, double chips, double mfu,
                            const Steps& log);

struct DecodeFigures {
  double batch = 0, chips = 0, context = 0;
  std::optional<double> kv_bytes_per_token;
  double weight_bytes = 0, kv_bytes_per_sequence = 0, kv_bytes_total = 0, total_bytes = 0;
  // what a step reads of the weights (an MoE: the experts its batch routes to) and what the slice
  // holds (weights + KV caches); both equal weight_bytes and total_bytes for a dense model
  double weight_bytes_read = 0, held_bytes = 0;
  std::optional<double> experts_read_share, all_experts_batch;
  double flops = 0, t_weights_s = 0, t_kv_s = 0, t_math_s = 0;
  std::optional<double> t_comm_s, mlp_t_comm_s;
  double step_s = 0, tokens_per_s = 0, tokens_per_s_per_chip = 0;
  Word bound, mlp_bound;
  double critical_batch = 0;
  double slice_hbm_bytes = 0, slice_hbm_bytes_per_s = 0, slice_flops_per_s = 0;
  double free_hbm_bytes = 0, min_chips = 0;
  std::optional<double> max_batch;
  bool fits = false;
  double chips_for_weights = 0, chips_for_batch = 0, min_chips_for_batch = 0, min_slice_chips = 0;
  std::optional<double> activation_bytes, comm_latency_bound_below_bytes;
  std::optional<Word> comm_regime;
  std::optional<double> matmul_t_math_s, matmul_t_weights_s, matmul_t_comm_s;
  std::optional<Word> matmul_bound;
  std::optional<double> max_model_parallelism, ws2d_x, ws2d_yz, ws2d_crossover_chips;
  std::optional<double> attention_intensity;
  std::optional<Word> attention_bound;
  // where the weight matmuls stop being memory-bound, and what binds them past it
  std::optional<double> mlp_flip_batch, kv_crossover_batch;
  std::optional<Word> mlp_bound_above_flip;
};

// One decode step of `batch` sequences of `context` tokens on `chips` chips.
DecodeFigures decode_step(const InferenceSetup& s, double batch, double chips, double context,
                          const Steps& log);
// Warns about inputs given but without effect (kv_dtype beside kv_bytes_per_token, …).
void warn_ignored_inputs(const Args& args, Result& r);
// Refuses more axes_tp than the chip's torus has; warns when the chips span several pods.
void check_slice_topology(const InferenceSetup& s, double chips, Result& r);
// Refuses axes_tp above the chip count (`param` names the chips input that was too small).
void check_axes_tp(const InferenceSetup& s, double chips, const std::string& param);


struct BandRow;  // catalog/catalog_data.hpp: a fitted band of published runs

// The reader's measured tokens/s (measured_tokens_per_s, when given) against the bound
// `bound_tokens_per_s`: its share, the bandwidth and FLOP/s the decode steps of `d` would then
// run at, a sentence on what usually explains the gap, and where the share stands among the
// published runs of `band` (out_measured_among). Nulls without a measurement.
void output_measured(const Args& args, const DecodeFigures& d, double bound_tokens_per_s, const BandRow* band, Result& r);

// Parameters shared by the inference calculators (schemas: unit, default, range, doc).
std::vector<Param> served_model_params();
// The chips a served model is split over: 16 by default on a TPU or datacenter GPU, 1 on the
// reader's own devices (Param::default_by_chip_kind).
Param served_chips(std::string_view doc);
std::vector<Param> decode_params(bool context_defaults_to_request);

}  // namespace scalelab
