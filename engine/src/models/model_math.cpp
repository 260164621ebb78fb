#include "models/model_math.hpp"

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

double kv_bytes_per_token(const Model& m, double kv_dtype_bytes) {
  if (m.is_mla()) return m.L * (m.kv_lora_rank + m.qk_rope_head_dim) * kv_dtype_bytes;
  return 2 * m.L * m.K * m.H * kv_dtype_bytes;
}

}  // namespace scalelab
