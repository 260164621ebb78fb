// Parameter and KV-cache counts of a model (api/training.md §2.2, api/inference.md), shared by
// every calculator that takes a model.
#pragma once
#include "catalog/catalog.hpp"
#include "core/expr.hpp"
#include "core/result.hpp"

namespace scalelab {

struct ParamCounts {
  double mlp = 0;         // all MLP weights (every expert)
  double mlp_active = 0;  // MLP weights one token uses
  double mlp_routed = 0;  // the routed experts' weights, all E of them in every MoE layer (0 for dense)
  double attention = 0;
  double embedding = 0;
  double norm = 0;
  double total() const { return mlp + attention + embedding + norm; }
  double active() const { return mlp_active + attention + embedding + norm; }
};

// The same counts as formulas, the one definition of both: each with its symbols (L, D, F, E, k,
// ...) when steps are on, bare numbers when `log` is numbers-only (count_params).
struct ParamFormulas {
  Expr mlp = 0, mlp_active = 0, mlp_routed = 0, attention = 0, embedding = 0, norm = 0;
};
ParamFormulas param_formulas(const Model& m, const Steps& log);
ParamCounts count_params(const Model& m);
// Width of one head's query/key part and value part (H for GQA; nope+rope and v for MLA).
double head_dim_qk(const Model& m);
double head_dim_v(const Model& m);
// KV-cache bytes per token over all layers: 2·L·K·H·kv (MLA: L·(kv_lora + rope)·kv).
double kv_bytes_per_token(const Model& m, double kv_dtype_bytes);
Expr kv_bytes_per_token(const Model& m, double kv_dtype_bytes, const Steps& log);  // the same as a formula
// MLP matrices per layer: 3 when gated, else 2.
inline double mlp_matrices(const Model& m) { return m.gated ? 3 : 2; }

// ---- attention as today's models have it (issue 35 §2) -----------------------------------------
// KV-cache bytes one token costs in one layer: 2 K H b_kv (GQA), (r_kv + d_rope) b_kv (MLA).
Expr kv_bytes_per_layer_token(const Model& m, double kv_dtype_bytes, const Steps& log);
// Tokens the caches of all layers hold at context S: every token in a global layer, at most the
// window (and the sinks) in a local one: (L - L_local) S + L_local min(S, W + s).
Expr kv_tokens_held(const Model& m, double context, const Steps& log);
inline bool has_window(const Model& m) { return m.local_layers > 0 && m.sliding_window > 0; }
// ---- MoE as it is read (issue 35 §1) -------------------------------------------------------------
// A token's router picks k of a layer's E routed experts; B tokens leave an expert unread with
// probability (1 - k/E)^B, so a step reads the share 1 - (1 - k/E)^B of the routed weights
// (expected, routing taken as uniform and independent). 1 for a dense model. The one definition
// decode, serving and local inference read: a step named `title` when steps are on, the tokens
// written `tokens_symbol` (B for a batch, T for a prompt); pass Steps() for the number alone.
Expr experts_read_share(const Model& m, double tokens, const Steps& log,
                        StepText title = "Share of the routed experts a step reads", StepText tokens_symbol = "B");
// The batch from which fewer than one of a layer's E experts is expected to go unread,
// E (1 - k/E)^B < 1: B = ⌈log2 E / -log2(1 - k/E)⌉. Only for an MoE model.
Expr all_experts_batch(const Model& m, const Steps& log);
// Weight parameters a step of B tokens reads: all of a dense model's; an MoE's always-active ones
// plus the routed experts' read share.
Expr params_read(const Model& m, double params_total, double params_routed, double tokens, const Steps& log);

// The context at which the caches hold `tokens` tokens in all (kv_tokens_held's inverse): tokens / L
// while every layer still keeps all of it, else (tokens - L_local (W + s)) / (L - L_local); +inf
// when every layer is local and the caches never grow that far.
double context_holding(const Model& m, double tokens);

}  // namespace scalelab
