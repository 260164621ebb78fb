#include "models/model_math.hpp"

#include <cmath>

namespace scalelab {

double head_dim_qk(const Model& m) { return m.is_mla() ? m.qk_nope_head_dim + m.qk_rope_head_dim : m.H; }
double head_dim_v(const Model& m) { return m.is_mla() ? m.v_head_dim : m.H; }

ParamFormulas param_formulas(const Model& m, const Steps& log) {
  ParamFormulas p;
  Expr L = log.sym("L", m.L), D = log.sym("D", m.D);
  // The matrices a layer's MLP holds come first, a literal (3 L D F): a product of whole numbers
  // below 2^53, the same in any order.
  Expr mats = mlp_matrices(m);
  if (m.is_moe()) {
    // No dense layer: no 0 · 3 D F term, and L for L - L_dense.
    Expr dense_layers = log.sym("L_{dense}", m.dense_layers);
    Expr moe_layers = m.dense_layers > 0 ? L - dense_layers : L;
    Expr F_e = log.sym("F_e", m.F_expert), E_s = log.sym("E_s", m.shared_experts), E = log.sym("E", m.E);
    auto with_dense = [&](const Expr& moe) {
      return m.dense_layers > 0 ? mats * dense_layers * D * log.sym("F", m.F) + moe : moe;
    };
    p.mlp = with_dense(mats * moe_layers * (E + E_s) * D * F_e);
    p.mlp_active = with_dense(mats * moe_layers * (log.sym("k", m.k) + E_s) * D * F_e);
    p.mlp_routed = mats * moe_layers * E * D * F_e;
  } else {
    p.mlp = p.mlp_active = mats * L * D * log.sym("F", m.F);
    p.mlp_routed = 0;
  }
  Expr N = log.sym("N", m.N);
  if (m.is_mla()) {
    Expr r_q = log.sym("r_q", m.q_lora_rank), r_kv = log.sym("r_{kv}", m.kv_lora_rank);
    Expr d_nope = log.sym("d_{nope}", m.qk_nope_head_dim), d_rope = log.sym("d_{rope}", m.qk_rope_head_dim);
    Expr d_v = log.sym("d_v", m.v_head_dim);
    Expr q = m.q_lora_rank > 0 ? D * r_q + r_q * N * (d_nope + d_rope) : D * N * (d_nope + d_rope);
    Expr kv = D * (r_kv + d_rope) + r_kv * N * (d_nope + d_v);
    p.attention = L * (q + kv + N * d_v * D);
    p.norm = m.q_lora_rank > 0 ? L * (2 * D + r_q + r_kv) : L * (2 * D + r_kv);
  } else {
    p.attention = 2 * L * D * (N + log.sym("K", m.K)) * log.sym("H", m.H);
    p.norm = 2 * L * D;
  }
  p.embedding = m.tied_embeddings ? D * log.sym("V", m.V) : 2 * D * log.sym("V", m.V);
  return p;
}

ParamCounts count_params(const Model& m) {
  ParamFormulas f = param_formulas(m, Steps());
  ParamCounts p;
  p.mlp = f.mlp.value();
  p.mlp_active = f.mlp_active.value();
  p.mlp_routed = f.mlp_routed.value();
  p.attention = f.attention.value();
  p.embedding = f.embedding.value();
  p.norm = f.norm.value();
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

Expr kv_bytes_per_token(const Model& m, double kv_dtype_bytes, const Steps& log) {
  Expr L = log.sym("L", m.L), b_kv = log.sym("b_{kv}", kv_dtype_bytes);
  if (m.is_mla()) return L * (log.sym("r_{kv}", m.kv_lora_rank) + log.sym("d_{rope}", m.qk_rope_head_dim)) * b_kv;
  return 2 * L * log.sym("K", m.K) * log.sym("H", m.H) * b_kv;
}

double kv_bytes_per_token(const Model& m, double kv_dtype_bytes) {
  return kv_bytes_per_token(m, kv_dtype_bytes, Steps()).value();
}

}  // namespace scalelab
