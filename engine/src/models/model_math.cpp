#include "models/model_math.hpp"

#include <cmath>

namespace scalelab {

double head_dim_qk(const Model& m) { return m.is_mla() ? m.qk_nope_head_dim + m.qk_rope_head_dim : m.H; }
double head_dim_v(const Model& m) { return m.is_mla() ? m.v_head_dim : m.H; }

ParamCounts count_params(const Model& m) {
  ParamCounts p;
  double mats = mlp_matrices(m);
  if (m.is_moe()) {
    double dense = m.dense_layers * mats * m.D * m.F;
    double moe_layers = m.L - m.dense_layers;
    p.mlp = dense + moe_layers * (m.E + m.shared_experts) * mats * m.D * m.F_expert;
    p.mlp_active = dense + moe_layers * (m.k + m.shared_experts) * mats * m.D * m.F_expert;
    p.mlp_routed = moe_layers * m.E * mats * m.D * m.F_expert;
  } else {
    p.mlp = p.mlp_active = m.L * mats * m.D * m.F;
  }
  if (m.is_mla()) {
    double qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    double q = m.q_lora_rank > 0 ? m.D * m.q_lora_rank + m.q_lora_rank * m.N * qk : m.D * m.N * qk;
    double kv = m.D * (m.kv_lora_rank + m.qk_rope_head_dim) +
                m.kv_lora_rank * m.N * (m.qk_nope_head_dim + m.v_head_dim);
    double out = m.N * m.v_head_dim * m.D;
    p.attention = m.L * (q + kv + out);
    p.norm = m.L * (2 * m.D + m.q_lora_rank + m.kv_lora_rank);
  } else {
    p.attention = m.L * 2 * m.D * (m.N + m.K) * m.H;
    p.norm = m.L * 2 * m.D;
  }
  p.embedding = (m.tied_embeddings ? 1 : 2) * m.D * m.V;
  return p;
}

Expr kv_bytes_per_layer_token(const Model& m, double kv_dtype_bytes, const Steps& log) {
  Expr b_kv = log.sym("b_{kv}", kv_dtype_bytes);
  if (m.is_mla()) {
    return log.step("KV bytes per token and layer (MLA latent)", "\\text{KV}_{layer}",
                    (log.sym("r_{kv}", m.kv_lora_rank) + log.sym("d_{rope}", m.qk_rope_head_dim)) * b_kv, "bytes");
  }
  return log.step("KV bytes per token and layer", "\\text{KV}_{layer}", 2 * log.sym("K", m.K) * log.sym("H", m.H) * b_kv,
                  "bytes");
}

Expr kv_tokens_held(const Model& m, double context, const Steps& log) {
  Expr S = log.sym("S", context), L = log.sym("L", m.L);
  if (!has_window(m)) return log.step("Tokens the caches hold (every layer global)", "T_{held}", L * S, "tokens");
  Expr local = log.sym("L_{local}", m.local_layers), window = log.sym("W", m.sliding_window);
  Expr kept = m.sink_tokens > 0 ? window + log.sym("s", m.sink_tokens) : window;
  return log.step("Tokens the caches hold (local layers keep their window)", "T_{held}",
                  (L - local) * S + local * min(S, kept), "tokens");
}

Expr experts_read_share(const Model& m, double tokens, const Steps& log, StepText title, StepText tokens_symbol) {
  if (!m.is_moe()) return Expr(1);
  return log.step(title, "s_E", 1 - pow(1 - frac(log.sym("k", m.k), log.sym("E", m.E)), log.sym(tokens_symbol, tokens)),
                  "ratio");
}

Expr all_experts_batch(const Model& m, const Steps& log) {
  Expr E = log.sym("E", m.E);
  return log.step("Batch from which every expert is read (under one per layer expected unread)", "B_E",
                  ceil(log2(E) / -log2(1 - frac(log.sym("k", m.k), E))), "sequences");
}

Expr params_read(const Model& m, double params_total, double params_routed, double tokens, const Steps& log) {
  Expr P = log.sym("P", params_total);
  if (!m.is_moe()) return P;
  Expr routed = log.sym("P_{exp}", params_routed);
  return log.step("Weight parameters a step reads", "P_{read}", P - routed + routed * experts_read_share(m, tokens, log),
                  "params");
}

double context_holding(const Model& m, double tokens) {
  if (!has_window(m)) return tokens / m.L;
  double kept = m.sliding_window + m.sink_tokens;
  if (tokens <= m.L * kept) return tokens / m.L;
  if (m.L <= m.local_layers) return INFINITY;
  return (tokens - m.local_layers * kept) / (m.L - m.local_layers);
}

double kv_bytes_per_token(const Model& m, double kv_dtype_bytes) {
  if (m.is_mla()) return m.L * (m.kv_lora_rank + m.qk_rope_head_dim) * kv_dtype_bytes;
  return 2 * m.L * m.K * m.H * kv_dtype_bytes;
}

}  // namespace scalelab
