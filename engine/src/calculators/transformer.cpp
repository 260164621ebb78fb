// `transformer` (ch 4): parameter counts, FLOPs per token, attention FLOPs, KV-cache bytes.
#include "calculators/calculators.hpp"
#include "core/output_rows.hpp"
#include "models/common.hpp"
#include "models/model_math.hpp"
#include "schema/params.hpp"

namespace scalelab {
namespace {

// transformer's outputs, in the order results list them (name, unit, label, doc, nullable): compute
// writes each where it makes it (r.out), none is read from a figures struct by write_members.
// clang-format off
constexpr Output kOutputs[] = {
    {"params_mlp", "params", "MLP parameters", "parameters of the MLP blocks", false},
    {"params_mlp_active", "params", "active MLP parameters", "MLP parameters one token uses", false},
    {"params_attention", "params", "attention parameters", "parameters of the attention blocks", false},
    {"params_embedding", "params", "embedding parameters", "parameters of the embedding and unembedding", false},
    {"params_norm", "params", "norm parameters", "parameters of the normalisation layers", false},
    {"params_total", "params", "parameters", "all parameters", false},
    {"params_active", "params", "active parameters", "parameters one token uses", false},
    {"attention_param_fraction", "share", "attention share of parameters", "attention parameters over all parameters", false},
    {"flops_fwd_per_token", "FLOPs", "forward FLOPs per token", "2 × active parameters", false},
    {"train_flops_per_token", "FLOPs", "training FLOPs per token", "6 × active parameters", false},
    {"attention_flops_fwd", "FLOPs", "attention forward FLOPs", "FLOPs of the attention dot products, forward pass", false},
    {"attention_flops_train", "FLOPs", "attention training FLOPs", "FLOPs of the attention dot products, forward and backward", false},
    {"train_flops", "FLOPs", "training FLOPs", "training FLOPs of the batch, attention included", false},
    {"attention_flop_fraction", "share", "attention share of FLOPs", "attention FLOPs over all training FLOPs", false},
    {"qkvo_crossover_T", "tokens", "QKVO crossover length", "sequence length above which attention FLOPs exceed the QKVO projections'", false},
    {"attention_crossover_T", "tokens", "attention crossover length", "sequence length above which attention FLOPs exceed the parameter FLOPs", false},
    {"kv_bytes_per_token", "bytes", "KV bytes per token", "cache bytes one token adds, all layers", false},
    {"kv_bytes_per_sequence", "bytes", "KV bytes per sequence", "cache bytes of one sequence of T tokens", false},
    {"weight_bytes", "bytes", "weight bytes", "bytes of the weights", false},
};
// clang-format on

// The parameter counts, each a step of its formula (model_math's param_formulas, the one
// definition count_params reads too).
ParamCounts parameter_steps(const Model& m, Result& r) {
  const Steps log = r.log();
  ParamFormulas f = param_formulas(m, log);
  ParamCounts p;
  Expr mlp = log.step("MLP parameters", "P_{mlp}", f.mlp, "count");
  Expr mlp_active = m.is_moe() ? log.step("MLP parameters one token uses", "P_{mlp,act}", f.mlp_active, "count")
                               : log.sym("P_{mlp}", f.mlp_active.value());
  Expr attention = log.step(m.is_mla() ? StepText("Attention parameters (MLA)") : StepText("Attention parameters"), "P_{attn}",
                            f.attention, "count");
  Expr embedding = log.step("Embedding parameters", "P_{emb}", f.embedding, "count");
  Expr norm = log.step("Norm parameters", "P_{norm}", f.norm, "count");
  p.mlp = mlp.value();
  p.mlp_active = mlp_active.value();
  p.mlp_routed = f.mlp_routed.value();
  p.attention = attention.value();
  p.embedding = embedding.value();
  p.norm = norm.value();
  r.out("params_mlp", p.mlp);
  r.out("params_mlp_active", p.mlp_active);
  r.out("params_attention", p.attention);
  r.out("params_embedding", p.embedding);
  r.out("params_norm", p.norm);
  r.out("params_total", log.step("Total parameters", "P", mlp + attention + embedding + norm, "count"));
  r.out("params_active",
        log.step("Active parameters per token", "P_{act}", mlp_active + attention + embedding + norm, "count"));
  double big = p.attention + p.mlp;
  r.out("attention_param_fraction", log.step("Attention share of the per-layer matrices", "",
                                             big > 0 ? attention / (attention + mlp) : Expr(0), "ratio"));
  return p;
}

void flop_steps(const Args& args, const Model& m, const ParamCounts& p, Result& r) {
  const Steps log = r.log();
  Expr active = log.sym("P_{act}", p.active()), T = log.sym("T", args.num("T")), B = log.sym("B", args.num("B"));
  r.out("flops_fwd_per_token", log.step("Forward FLOPs per token", "", 2 * active, "FLOPs"));
  Expr per_token = log.step("Training FLOPs per token", "F_{tok}", 6 * active, "FLOPs");
  r.out("train_flops_per_token", per_token);
  Expr L = log.sym("L", m.L), N = log.sym("N", m.N);
  Expr heads = log.sym("H_{qk}", head_dim_qk(m)) + log.sym("H_v", head_dim_v(m));
  Expr attn_fwd = log.step("Attention dot-product FLOPs (forward)", "F_{attn,fwd}", 2 * B * T * T * N * heads * L, "FLOPs");
  r.out("attention_flops_fwd", attn_fwd);
  Expr attn_train = log.step("Attention FLOPs (training)", "F_{attn,train}", 3 * attn_fwd, "FLOPs");
  r.out("attention_flops_train", attn_train);
  Expr train = log.step("Training FLOPs for B·T tokens", "F_{train}", per_token * B * T + attn_train, "FLOPs");
  r.out("train_flops", train);
  r.out("attention_flop_fraction", log.step("Attention share of training FLOPs", "", attn_train / train, "ratio"));
  Expr attention = log.sym("P_{attn}", p.attention);
  r.out("qkvo_crossover_T", log.step("T where attention FLOPs equal the QKVO projections", "",
                                     attention / (L * N * heads), "tokens"));
  r.out("attention_crossover_T", log.step("T where attention FLOPs equal all layer matmuls", "",
                                          (attention + log.sym("P_{mlp,act}", p.mlp_active)) / (L * N * heads),
                                          "tokens"));
}

void memory_steps(const Args& args, const Model& m, const ParamCounts& p, Result& r) {
  const Steps log = r.log();
  Expr per_token = log.step(m.is_mla() ? StepText("KV cache per token (MLA latent)") : StepText("KV cache per token"), "\\text{KV}_{tok}",
                            kv_bytes_per_token(m, args.dtype("kv_dtype"), log), "bytes");
  r.out("kv_bytes_per_token", per_token);
  r.out("kv_bytes_per_sequence",
        log.step("KV cache per sequence of T tokens", "", log.sym("T", args.num("T")) * per_token, "bytes"));
  r.out("weight_bytes",
        log.step("Weight bytes", "", log.sym("P", p.total()) * log.sym("b_w", args.dtype("weight_dtype")), "bytes"));
}

void compute(const Args& args, Result& r) {
  const Model& m = args.model();
  ParamCounts p = parameter_steps(m, r);
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
          compute,
          outputs_of(kOutputs)};
}

}  // namespace scalelab
