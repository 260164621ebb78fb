#pragma once
// The book's per-layer formulas for training's parallelism strategies (chapters 5 and 12), each
// written once. With T = double they give the numbers `analyse_comm` compares (and the layout
// search ranks); with T = Expr, the derivation steps `training_comm` shows, which then cannot
// drift from the numbers. Symbols as in the book: B tokens, D and F widths, N chips, C FLOP/s,
// b_w and b_a weight and activation bytes, W a link's bytes/s, r the ring factor.
#include <cmath>

namespace scalelab::layer_time {

using std::pow;
using std::sqrt;

// The MLP's two matmuls: 4 B D F FLOPs forward (flops = 4), 8 B D F with the backward pass.
template <class T>
T math(double flops, const T& B, const T& D, const T& F, const T& N, const T& C) {
  return flops * B * D * F / (N * C);
}

// Expert parallelism counts the k routed experts' matmuls; a shared expert is left out.
template <class T>
T routed_experts_math(const T& B, const T& k, const T& D, const T& F, const T& N, const T& C) {
  return 4 * B * k * D * F / (N * C);
}

// Data parallelism: the gradients' AllReduce (ar = 2 without in-network reduction, 1 with it).
template <class T>
T gradient_allreduce(const T& ar, const T& D, const T& F_w, const T& b_w, const T& r, const T& Y, const T& W) {
  return 2 * ar * D * F_w * b_w * r / (Y * W);
}

// FSDP: the weights' AllGather (and the gradients' ReduceScatter) over Y parallel rings.
template <class T>
T weight_allgather(const T& D, const T& F_w, const T& b_w, const T& r, const T& Y, const T& W) {
  return 2 * D * F_w * b_w * r / (Y * W);
}

// Tensor parallelism: the activations' AllGather and ReduceScatter, B_X tokens per replica.
template <class T>
T activation_collectives(const T& b_a, const T& B_X, const T& D, const T& r, const T& P, const T& W) {
  return 2 * b_a * B_X * D * r / (P * W);
}

// Expert parallelism: the tokens' AllToAll, dispatch and combine; `share` of it crosses W.
template <class T>
T token_alltoall(const T& b_a, const T& B_X, const T& D, const T& r, const T& share, const T& W) {
  return 2 * b_a * B_X * D * r * share / W;
}

// Pipelining: one stage boundary's sends, spread over the layers, with the schedule's bubble.
template <class T>
T pipeline_sends(const T& b_a, const T& B_X, const T& D, const T& N_MB, const T& P, const T& W, const T& L) {
  return b_a * B_X * D * (N_MB + P - 2) / (N_MB * W * L);
}

// FSDP with TP (chapter 5): the two terms, the optimum degree and the critical batch.
template <class T>
T fsdp_tp_weight_allgather(const T& D, const T& F_w, const T& b_w, const T& Y, const T& W_f) {
  return 2 * D * F_w * b_w / (Y * W_f);
}
template <class T>
T fsdp_tp_activations(const T& b_a, const T& B_X, const T& D, const T& W_tp) {
  return 2 * b_a * B_X * D / W_tp;
}
template <class T>
T fsdp_tp_optimal_fsdp(const T& b_a, const T& b_w, const T& B, const T& F_w, const T& W_f, const T& W_tp,
                       const T& N) {
  return sqrt((b_a / b_w) * (B / F_w) * (W_f / W_tp) * N);
}
template <class T>
T fsdp_tp_critical_per_chip(const T& C, const T& b_w, const T& b_a, const T& F_w, const T& F_a, const T& W_f,
                            const T& W_tp) {
  return pow(C, 2) * b_w * b_a * F_w / (4 * W_f * W_tp * pow(F_a, 2));
}
// The smallest F at which these degrees stay compute-bound, F_w/F_a held fixed, in F's unit.
template <class T>
T fsdp_tp_critical_F(const T& C, const T& b_w, const T& b_a, const T& F_w, const T& F_a, const T& N, const T& W_f,
                     const T& W_tp, const T& B, const T& F_unit) {
  return pow(C, 2) * b_w * b_a * (F_w / F_a) * N / (4 * W_f * W_tp * B) * (F_unit / F_a);
}

}  // namespace scalelab::layer_time
