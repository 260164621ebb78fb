// `transformer` (ch 4): parameter counts, FLOPs per token, attention FLOPs, KV-cache bytes.
#include "calculators/calculators.hpp"
#include "models/common.hpp"
#include "models/model_math.hpp"
#include "schema/params.hpp"

namespace scalelab {
namespace {

std::string mlp_formula(const Model& m) {
  std::string mats = m.gated ? "3" : "2";
  if (!m.is_moe()) return "L \\cdot " + mats + " D F";
  if (m.dense_layers == 0) return "L (E + E_s) \\cdot " + mats + " D F_e";  // every layer an MoE layer
  return "L_{dense} \\cdot " + mats + " D F + (L - L_{dense})(E + E_s) \\cdot " + mats + " D F_e";
}

// The MLP's parameters with every figure in place; `experts` is E (all of them) or k (one token's).
std::string mlp_substituted(const Model& m, double experts) {
  std::string mats = tex(mlp_matrices(m));
  if (!m.is_moe()) return tex(m.L) + " \\cdot " + mats + " \\cdot " + tex(m.D) + " \\cdot " + tex(m.F);
  const std::string moe = tex(m.L - m.dense_layers) + " \\cdot " + tex(experts + m.shared_experts) + " \\cdot " + mats +
                          " \\cdot " + tex(m.D) + " \\cdot " + tex(m.F_expert);
  if (m.dense_layers == 0) return moe;  // no dense layer: no 0 · 3 · D · F term
  return tex(m.dense_layers) + " \\cdot " + mats + " \\cdot " + tex(m.D) + " \\cdot " + tex(m.F) + " + " +
         tex(m.L - m.dense_layers) + " \\cdot " + tex(experts + m.shared_experts) + " \\cdot " + mats +
         " \\cdot " + tex(m.D) + " \\cdot " + tex(m.F_expert);
}

// MLA's attention parameters per layer with every figure in place (model_math's terms, in order).
std::string mla_substituted(const Model& m) {
  std::string qk = "(" + tex(m.qk_nope_head_dim) + " + " + tex(m.qk_rope_head_dim) + ")";
  std::string q = m.q_lora_rank > 0
      ? tex(m.D) + " \\cdot " + tex(m.q_lora_rank) + " + " + tex(m.q_lora_rank) + " \\cdot " + tex(m.N) + " \\cdot " + qk
      : tex(m.D) + " \\cdot " + tex(m.N) + " \\cdot " + qk;
  return tex(m.L) + " \\cdot (" + q + " + " + tex(m.D) + " \\cdot (" + tex(m.kv_lora_rank) + " + " +
         tex(m.qk_rope_head_dim) + ") + " + tex(m.kv_lora_rank) + " \\cdot " + tex(m.N) + " \\cdot (" +
         tex(m.qk_nope_head_dim) + " + " + tex(m.v_head_dim) + ") + " + tex(m.N) + " \\cdot " +
         tex(m.v_head_dim) + " \\cdot " + tex(m.D) + ")";
}

void parameter_steps(const Model& m, const ParamCounts& p, Result& r) {
  std::string mats = tex(mlp_matrices(m));
  r.out("params_mlp", r.step("MLP parameters", mlp_formula(m), mlp_substituted(m, m.E), p.mlp, "count"));
  if (m.is_moe()) {
    r.out("params_mlp_active",
          r.step("MLP parameters one token uses",
                 m.dense_layers == 0 ? "L (k + E_s) \\cdot " + mats + " D F_e"
                                     : "L_{dense} \\cdot " + mats + " D F + (L - L_{dense})(k + E_s) \\cdot " + mats + " D F_e",
                 mlp_substituted(m, m.k), p.mlp_active, "count"));
  } else {
    r.out("params_mlp_active", p.mlp_active);
  }
  if (m.is_mla()) {
    std::string q = m.q_lora_rank > 0 ? "D r_q + r_q N (d_{nope} + d_{rope})" : "D N (d_{nope} + d_{rope})";
    r.out("params_attention",
          r.step("Attention parameters (MLA)",
                 "L\\,[" + q + " + D (r_{kv} + d_{rope}) + r_{kv} N (d_{nope} + d_v) + N d_v D]",
                 mla_substituted(m), p.attention, "count"));
  } else {
    r.out("params_attention",
          r.step("Attention parameters", "L \\cdot 2 D (N + K) H",
                 tex(m.L) + " \\cdot 2 \\cdot " + tex(m.D) + " \\cdot (" + tex(m.N) + " + " + tex(m.K) +
                     ") \\cdot " + tex(m.H),
                 p.attention, "count"));
  }
  r.out("params_embedding",
        r.step("Embedding parameters", m.tied_embeddings ? "D V" : "2 D V",
               (m.tied_embeddings ? "" : "2 \\cdot ") + tex(m.D) + " \\cdot " + tex(m.V), p.embedding,
               "count"));
  r.out("params_norm", r.step("Norm parameters", m.is_mla() ? "L (2D + r_q + r_{kv})" : "L \\cdot 2D",
                              tex(m.L) + " \\cdot " + tex(p.norm / m.L), p.norm, "count"));
  r.out("params_total",
        r.step("Total parameters", "P = P_{mlp} + P_{attn} + P_{emb} + P_{norm}",
               tex(p.mlp) + " + " + tex(p.attention) + " + " + tex(p.embedding) + " + " + tex(p.norm),
               p.total(), "count"));
  r.out("params_active",
        r.step("Active parameters per token", "P_{act} = P_{mlp,act} + P_{attn} + P_{emb} + P_{norm}",
               tex(p.mlp_active) + " + " + tex(p.attention) + " + " + tex(p.embedding) + " + " +
                   tex(p.norm),
               p.active(), "count"));
  double big = p.attention + p.mlp;
  r.out("attention_param_fraction",
        r.step("Attention share of the per-layer matrices", "P_{attn} / (P_{attn} + P_{mlp})",
               tex(p.attention) + " / " + tex(big), big > 0 ? p.attention / big : 0, "ratio"));
}

void flop_steps(const Args& args, const Model& m, const ParamCounts& p, Result& r) {
  double T = args.num("T"), B = args.num("B");
  double active = p.active();
  r.out("flops_fwd_per_token", r.step("Forward FLOPs per token", "2 P_{act}", "2 \\times " + tex(active),
                                      2 * active, "FLOPs"));
  double per_token = r.step("Training FLOPs per token", "6 P_{act}", "6 \\times " + tex(active),
                            6 * active, "FLOPs");
  r.out("train_flops_per_token", per_token);
  double hqk = head_dim_qk(m), hv = head_dim_v(m);
  double attn_fwd = r.step("Attention dot-product FLOPs (forward)", "2 B T^2 N (H_{qk} + H_v) L",
                           "2 \\cdot " + tex(B) + " \\cdot " + tex(T) + "^2 \\cdot " + tex(m.N) +
                               " \\cdot " + tex(hqk + hv) + " \\cdot " + tex(m.L),
                           2 * B * T * T * m.N * (hqk + hv) * m.L, "FLOPs");
  r.out("attention_flops_fwd", attn_fwd);
  double attn_train = r.step("Attention FLOPs (training)", "3 \\times F_{attn,fwd}",
                             "3 \\times " + tex(attn_fwd), 3 * attn_fwd, "FLOPs");
  r.out("attention_flops_train", attn_train);
  double train = r.step("Training FLOPs for B·T tokens", "6 P_{act} B T + F_{attn,train}",
                        tex(per_token) + " \\cdot " + tex(B * T) + " + " + tex(attn_train),
                        per_token * B * T + attn_train, "FLOPs");
  r.out("train_flops", train);
  r.out("attention_flop_fraction", r.step("Attention share of training FLOPs", "F_{attn,train} / F_{train}",
                                          tex(attn_train) + " / " + tex(train), attn_train / train, "ratio"));
  double per_T = m.L * m.N * (hqk + hv);
  r.out("qkvo_crossover_T",
        r.step("T where attention FLOPs equal the QKVO projections", "P_{attn} / (L N (H_{qk} + H_v))",
               tex(p.attention) + " / " + tex(per_T), p.attention / per_T, "tokens"));
  r.out("attention_crossover_T",
        r.step("T where attention FLOPs equal all layer matmuls",
               "(P_{attn} + P_{mlp,act}) / (L N (H_{qk} + H_v))",
               "(" + tex(p.attention) + " + " + tex(p.mlp_active) + ") / " + tex(per_T),
               (p.attention + p.mlp_active) / per_T, "tokens"));
}

void memory_steps(const Args& args, const Model& m, const ParamCounts& p, Result& r) {
  double kv = args.dtype("kv_dtype"), w = args.dtype("weight_dtype"), T = args.num("T");
  double per_token = m.is_mla()
      ? r.step("KV cache per token (MLA latent)", "L (r_{kv} + d_{rope}) \\cdot b_{kv}",
               tex(m.L) + " \\cdot " + tex(m.kv_lora_rank + m.qk_rope_head_dim) + " \\cdot " + tex(kv),
               kv_bytes_per_token(m, kv), "bytes")
      : r.step("KV cache per token", "2 L K H \\cdot b_{kv}",
               "2 \\cdot " + tex(m.L) + " \\cdot " + tex(m.K) + " \\cdot " + tex(m.H) + " \\cdot " + tex(kv),
               kv_bytes_per_token(m, kv), "bytes");
  r.out("kv_bytes_per_token", per_token);
  r.out("kv_bytes_per_sequence", r.step("KV cache per sequence of T tokens", "T \\cdot kv_{token}",
                                        tex(T) + " \\cdot " + tex(per_token), T * per_token, "bytes"));
  r.out("weight_bytes", r.step("Weight bytes", "P \\cdot b_w", tex(p.total()) + " \\cdot " + tex(w),
                               p.total() * w, "bytes"));
}

void compute(const Args& args, Result& r) {
  const Model& m = args.model();
  ParamCounts p = count_params(m);
  parameter_steps(m, p, r);
  flop_steps(args, m, p, r);
  memory_steps(args, m, p, r);
  if (m.is_moe()) {
    r.warn("Router weights are not counted; MoE FLOPs use the k + shared experts a token visits.");
  }
}

}  // namespace

Calculator make_transformer() {
  using namespace params;
  return {"transformer", "Transformer accounting", {4},
          "Parameter counts, FLOPs per token, attention FLOPs and KV-cache bytes of a Transformer.",
          {model("llama3-70b"), model_overrides(),
           integer("T", "tokens", 1, 1e8, 4096, "sequence length"),
           integer("B", "count", 1, 1e9, 1, "sequences in the batch"),
           dtype("kv_dtype", "dtype of the KV cache"),
           dtype("weight_dtype", "dtype of the weights (for weight_bytes)")},
          compute};
}

}  // namespace scalelab
