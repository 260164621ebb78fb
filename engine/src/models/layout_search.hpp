// Layout search for training_run: every dp × fsdp × tp × pp factorisation of the chip count,
// checked for divisibility and memory, timed with a per-pass roofline, and ranked by step time.
// Plain numbers in, plain structs out, no allocation in the inner loop (benchmarks call it
// directly: bench/ measures layouts per second).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace scalelab {

struct LayoutProblem {
  double chips = 1;
  // Model
  double params_total = 0;      // weights moved by FSDP/DP collectives
  double params_active = 0;     // 6·P_active FLOPs per token
  double layers = 1, d_model = 1, heads = 1;
  double attention_flops_fwd = 0;  // dot-product attention FLOPs of the whole batch, forward
  double recompute_flops = 0;      // extra forward FLOPs the checkpointing policy recomputes
  // Batch and memory
  double batch_tokens = 0, seq_len = 1;
  double state_bytes = 0;        // params × bytes per parameter (weights, grads, optimizer, master)
  double activation_bytes = 0;   // saved activations of the whole batch
  double hbm_bytes = 0;          // 0: unknown (memory not checked)
  double weight_bytes = 2, act_bytes = 2;
  // Hardware
  double flops_per_s = 0;
  bool gpu = false;
  double ici_link_bytes_per_s = 0;  // TPU
  double torus_axes = 3;
  double pod_chips = 0;             // TPU, more chips than a pod: chips per pod (0: one pod)
  double dcn_bytes_per_s = 0;       // TPU, between pods: per chip, one way
  double nvlink_bytes_per_s = 0, ib_bytes_per_s = 0, node_gpus = 8;  // GPU
  // Output sizes
  int top_n = 20;
  int rejected_samples = 12;
};

enum class RejectReason : int {
  none, tp_heads, pp_layers, batch, memory_state, memory_activations, memory_both, model_parallel_beyond_pod
};
enum class Term : int { compute, data_parallel, tensor_parallel, pipeline_send, pipeline_bubble };
constexpr int kRejectReasons = 8;

struct LayoutEval {
  double dp = 1, fsdp = 1, tp = 1, pp = 1, microbatches = 1;
  double step_s = 0;
  double t_math_s = 0;          // forward + backward math per step
  double t_data_parallel_s = 0; // FSDP gathers/scatters + DP AllReduce per step (DCN part included)
  double t_dcn_s = 0;           // the part of it that crosses DCN between pods
  double t_tp_s = 0;            // TP activation collectives per step
  double t_pp_s = 0;            // pipeline sends per step
  // The terms of one step: each pass takes its slowest term (math and collectives overlap).
  double fwd_math_s = 0, bwd_math_s = 0, fwd_gather_s = 0, bwd_gather_s = 0, tp_pass_s = 0, pp_pass_s = 0;
  double bubble_fraction = 0;
  double state_bytes_per_chip = 0, activation_bytes_per_chip = 0, bytes_per_chip = 0;
  Term dominant = Term::compute;
  RejectReason reason = RejectReason::none;
};

struct LayoutSearchResult {
  std::vector<LayoutEval> ranked;           // fitting layouts, fastest first (at most top_n)
  std::vector<LayoutEval> rejected_sample;  // a few of each rejection reason
  std::uint64_t evaluated = 0, fitting = 0;
  std::array<std::uint64_t, kRejectReasons> rejected_by_reason{};
};

LayoutSearchResult search_layouts(const LayoutProblem& problem);
// One layout (timing and memory; `reason` says why it would be rejected).
LayoutEval evaluate_layout(const LayoutProblem& problem, double dp, double fsdp, double tp, double pp);

std::string term_name(Term t);
std::string reject_reason_name(RejectReason r);
// Why a rejected layout was refused, in words with the numbers.
std::string reject_message(const LayoutProblem& problem, const LayoutEval& e);

}  // namespace scalelab
