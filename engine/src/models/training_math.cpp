#include "models/training_math.hpp"

#include <algorithm>
#include <cmath>

#include "core/enum_table.hpp"
#include "core/errors.hpp"
#include "core/format.hpp"

namespace scalelab {

// ---- memory ---------------------------------------------------------------------------

std::optional<double> checkpoints_per_layer(const std::string& policy, const Model* m, double custom) {
  if (policy == "none") return 20.0;
  if (policy == "block") return 1.0;
  if (policy == "big_matmuls") return 7.0;
  if (policy == "custom") return custom;
  if (!m) return std::nullopt;  // mlp_outputs needs D and F
  return (m->D + (m->gated ? 2 : 1) * m->F) / m->D;
}

MemoryBreakdown training_memory_math(const MemoryInputs& in) {
  MemoryBreakdown b;
  b.bytes_per_param = in.weight_bytes + in.grad_bytes + in.optimizer_bytes + in.master_bytes;
  b.params_bytes = in.params * in.weight_bytes;
  b.grads_bytes = in.params * in.grad_bytes;
  b.optimizer_bytes = in.params * in.optimizer_bytes;
  b.master_bytes = in.params * in.master_bytes;
  b.state_bytes = in.params * b.bytes_per_param;
  b.checkpoints_per_layer = checkpoints_per_layer(in.checkpointing, in.model, in.custom_checkpoints);
  if (in.model && b.checkpoints_per_layer) {
    b.activations_bytes =
        in.act_bytes * in.batch_tokens * in.model->D * in.model->L * *b.checkpoints_per_layer;
  }
  b.total_bytes = b.state_bytes + b.activations_bytes;
  const Degrees& d = in.degrees;
  b.bytes_per_chip = b.state_bytes / (d.fsdp * d.tp * d.pp) + b.activations_bytes / in.chips;
  if (in.checkpointing == "none") {
    b.recompute_flops = 0.0;
  } else if (in.model && (in.checkpointing == "big_matmuls" || in.checkpointing == "block")) {
    const Model& m = *in.model;
    double attention = 2 * in.batch_tokens * in.T * m.N * (head_dim_qk(m) + head_dim_v(m)) * m.L;
    b.recompute_flops = in.checkpointing == "block" ? 2 * in.params_active * in.batch_tokens + attention
                                                    : attention;
  }
  return b;
}

namespace {

double exact_quotient(double total, double divisor, const std::string& param, const std::string& what) {
  double q = total / divisor;
  if (q < 1 || std::floor(q) != q) {
    throw InputError(param, "must be a multiple of " + what + " (" + plain(divisor) + "), got " +
                                plain(total));
  }
  return q;
}

Degrees resolve_memory_degrees(const Args& args, double& chips) {
  Degrees d;
  d.dp = args.num_if("dp").value_or(1);
  d.tp = args.num_if("tp").value_or(1);
  d.pp = args.num_if("pp").value_or(1);
  bool any = args.given("dp") || args.given("fsdp") || args.given("tp") || args.given("pp");
  double rest = d.dp * d.tp * d.pp;
  if (args.given("chips")) {
    chips = args.num("chips");
    if (args.given("fsdp")) {
      d.fsdp = args.num("fsdp");
      if (rest * d.fsdp != chips) {
        throw InputError("chips", "must equal dp·fsdp·tp·pp = " + plain(rest * d.fsdp) + ", got " +
                                      plain(chips));
      }
    } else {
      d.fsdp = exact_quotient(chips, rest, "chips", "dp·tp·pp");
    }
    return d;
  }
  if (any) {
    d.fsdp = args.num_if("fsdp").value_or(1);
    chips = rest * d.fsdp;
    return d;
  }
  auto pod = args.chip().pod_chips;
  if (!pod) throw InputError("chips", "is required: " + args.chip().name() + " has no pod size");
  chips = *pod;
  d.fsdp = chips;
  return d;
}

}  // namespace

MemoryInputs read_memory_inputs(const Args& args, std::vector<std::string>& warnings) {
  MemoryInputs in;
  bool bare = args.given("params");
  if (bare) {
    if (args.given("model")) throw InputError("params", "give either model or params, not both");
    if (args.given("model_overrides")) throw InputError("model_overrides", "needs a model, not bare params");
    in.params = in.params_active = args.num("params");
    if (args.given("batch_tokens") && args.num("batch_tokens") > 0) {
      throw InputError("batch_tokens", "cannot size activations from a bare parameter count: give a "
                                       "model, or omit batch_tokens (or give 0)");
    }
    if (!args.given("batch_tokens")) {
      warnings.push_back("Bare params: activations are not counted (they need the model's D and L).");
    }
  } else {
    in.model = &args.model();
    ParamCounts p = count_params(*in.model);
    in.params = p.total();
    in.params_active = p.active();
    in.batch_tokens = args.num("batch_tokens");
  }
  in.T = args.num("T");
  in.degrees = resolve_memory_degrees(args, in.chips);
  if (in.model && in.degrees.tp > in.model->N) {
    throw InputError("tp", "must be ≤ the model's " + plain(in.model->N) + " query heads, got " +
                               plain(in.degrees.tp));
  }
  if (in.model && in.degrees.pp > in.model->L) {
    throw InputError("pp", "must be ≤ the model's " + plain(in.model->L) + " layers, got " +
                               plain(in.degrees.pp));
  }
  in.weight_bytes = args.dtype("weight_dtype");
  in.act_bytes = args.dtype("activation_dtype");
  in.grad_bytes = args.num("grad_bytes_per_param");
  in.optimizer_bytes = args.num("optimizer_bytes_per_param");
  in.master_bytes = args.num("master_bytes_per_param");
  in.checkpointing = args.str("checkpointing");
  if (in.checkpointing == "custom") {
    if (!args.given("checkpoints_per_layer")) {
      throw InputError("checkpoints_per_layer", "is required with checkpointing \"custom\"");
    }
    in.custom_checkpoints = args.num("checkpoints_per_layer");
  } else if (args.given("checkpoints_per_layer")) {
    throw InputError("checkpoints_per_layer", "applies only to checkpointing \"custom\"");
  }
  return in;
}

// ---- communication --------------------------------------------------------------------

namespace {

constexpr EnumTable<Strategy, 7> kStrategies({{
    {Strategy::dp, "dp", "data parallelism"},
    {Strategy::fsdp, "fsdp", "fully sharded data parallelism (FSDP)"},
    {Strategy::tp, "tp", "tensor parallelism"},
    {Strategy::fsdp_tp, "fsdp_tp", "FSDP with tensor parallelism"},
    {Strategy::pp, "pp", "pipeline parallelism"},
    {Strategy::ep, "ep", "expert parallelism"},
    {Strategy::dcn_dp, "dcn_dp", "data parallelism across pods over DCN"},
}});
static_assert(kStrategies.in_enum_order(), "one row per Strategy, in enum order");

}  // namespace

Strategy parse_strategy(const std::string& s) { return kStrategies.parse(s, "strategy"); }

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names = kStrategies.names();
  return names;
}

const std::vector<std::string>& strategy_titles() {
  static const std::vector<std::string> titles = kStrategies.titles();
  return titles;
}

Fabric parse_fabric(const std::string& s) {
  if (s == "nvlink") return Fabric::nvlink;
  if (s == "ib_fat_tree") return Fabric::ib_fat_tree;
  if (s == "dcn") return Fabric::dcn;
  return Fabric::ici;
}

std::string strategy_name(Strategy s) { return kStrategies.name(s); }

std::string fabric_name(Fabric f) {
  switch (f) {
    case Fabric::ici: return "ici";
    case Fabric::nvlink: return "nvlink";
    case Fabric::ib_fat_tree: return "ib_fat_tree";
    case Fabric::dcn: return "dcn";
  }
  return "ici";
}

std::optional<Strategy> comm_strategy_for(const Degrees& d, const Chip& chip) {
  if (d.pp > 1) return Strategy::pp;
  if (d.fsdp > 1 && d.tp > 1) return chip.is_gpu() || d.dp > 1 ? Strategy::fsdp : Strategy::fsdp_tp;
  if (d.fsdp > 1) return Strategy::fsdp;
  if (d.dp > 1) return Strategy::dp;
  if (d.tp > 1) return Strategy::tp;
  return std::nullopt;
}

double largest_pow2_at_most(double x) {
  if (x < 1) return 1;
  return std::exp2(std::floor(std::log2(x)));
}

namespace {

double ring_factor(double n) { return n > 1 ? (n - 1) / n : 0; }

// Ring factor of the data-parallel collective (§2.3 table, last column).
double data_parallel_ring(const CommSetup& s, double X, double Y) {
  switch (s.fabric) {
    case Fabric::ici: return ring_factor(std::pow(X, 1 / s.axes_fsdp));
    case Fabric::nvlink: return ring_factor(X);
    case Fabric::ib_fat_tree: return ring_factor(X * std::min(Y, s.node_gpus) / s.node_gpus);
    case Fabric::dcn: return ring_factor(s.deg.dp);
  }
  return 1;
}

// Share of a TP/EP group's traffic that crosses the analysed fabric, as a ring factor.
double group_ring(const CommSetup& s, double group) {
  if (s.fabric == Fabric::ib_fat_tree) return std::max(0.0, (group - s.node_gpus) / group);
  if (s.fabric == Fabric::ici) return ring_factor(std::pow(group, 1 / s.axes_tp));
  return ring_factor(group);
}

// Real tp at which tp·r(tp) reaches `budget` (compute-bound below it).
double tp_bound(const CommSetup& s, double budget) {
  if (!s.exact_ring) return budget;
  if (s.fabric == Fabric::ib_fat_tree) return s.node_gpus + budget;
  if (s.fabric != Fabric::ici || s.axes_tp == 1) return 1 + budget;
  double lo = 1, hi = 1 + budget;  // y·r(y) ≤ y − 1 on ici, so the root lies below 1 + budget
  while (hi * group_ring(s, hi) < budget) hi *= 2;
  for (int i = 0; i < 100; ++i) {
    double mid = 0.5 * (lo + hi);
    (mid * group_ring(s, mid) < budget ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

void fill_bandwidths(const CommSetup& s, CommNumbers& n) {
  switch (s.fabric) {
    case Fabric::ici:
      n.W_x = 2 * s.ici_link * s.axes_fsdp;
      n.W_tp = 2 * s.ici_link * s.axes_tp;
      n.W_pp = s.ici_link;
      n.Y_f = n.Y;
      n.alpha = s.C / (2 * s.ici_link);
      break;
    case Fabric::nvlink:
      n.W_x = n.W_tp = n.W_pp = s.nvlink;
      n.Y_f = n.Y;
      n.alpha = s.C / s.nvlink;
      break;
    case Fabric::ib_fat_tree:
      n.W_x = n.W_pp = s.ib;
      n.W_tp = s.ib * s.node_gpus;
      n.Y_f = std::max(n.Y, s.node_gpus);
      n.alpha = s.C / (s.ib * s.node_gpus);
      break;
    case Fabric::dcn:
      n.W_x = n.W_pp = s.dcn;
      n.W_tp = 2 * s.ici_link * s.axes_tp;
      n.Y_f = s.N / s.deg.dp;
      n.alpha = s.C / s.dcn;
      break;
  }
}

void analyse_fsdp_tp(const CommSetup& s, CommNumbers& n) {
  double X_opt = std::sqrt((s.a / s.w) * (s.B / s.F_w) * (n.W_x / n.W_tp) * s.N);
  n.fsdp_opt = X_opt;
  n.tp_opt = s.N / X_opt;
  double cap = largest_pow2_at_most(s.N);
  double pow2 = std::clamp(std::exp2(std::round(std::log2(X_opt))), 1.0, cap);
  n.fsdp_pow2 = pow2;
  n.tp_pow2 = largest_pow2_at_most(s.N / pow2);
  if (s.at_optimum) {
    n.X = std::clamp(X_opt, 1.0, s.N);
    n.Y = s.N / n.X;
  }
  n.t_comm_fsdp = 2 * s.D * s.F_w * s.w / (n.Y * n.W_x);
  n.t_comm_tp = 2 * s.a * (s.B / n.X) * s.D / n.W_tp;
  n.t_comm = std::max(n.t_comm_fsdp, n.t_comm_tp);
  n.crit_per_chip = s.C * s.C * s.w * s.a * s.F_w / (4 * n.W_x * n.W_tp * s.F_a * s.F_a);
  // F_a at which the critical batch per chip equals B/N, with F_w/F_a held fixed.
  double F_a = s.C * s.C * s.w * s.a * (s.F_w / s.F_a) * s.N / (4 * n.W_x * n.W_tp * s.B);
  n.critical_F = F_a * s.F_unit / s.F_a;
}

}  // namespace

CommNumbers analyse_comm(const CommSetup& s) {
  CommNumbers n;
  const Degrees& d = s.deg;
  n.X = d.dp * d.fsdp;
  n.Y = d.tp * d.pp * d.ep;
  fill_bandwidths(s, n);
  double math_fwd = 4 * s.B * s.D * s.F_a / (s.N * s.C);
  n.t_math = math_fwd;
  switch (s.strategy) {
    case Strategy::dp:
    case Strategy::dcn_dp: {
      double ar = s.sharp ? 1 : 2;
      n.ring = s.exact_ring ? data_parallel_ring(s, n.X, n.Y) : 1;
      n.t_math = 2 * math_fwd;
      n.t_comm = 2 * ar * s.D * s.F_w * s.w * n.ring / (n.Y_f * n.W_x);
      n.crit_per_chip = s.C * ar * s.w * s.F_w * n.ring / (4 * s.F_a * n.Y_f * n.W_x);
      break;
    }
    case Strategy::fsdp:
      n.ring = s.exact_ring ? data_parallel_ring(s, n.X, n.Y) : 1;
      n.t_comm = 2 * s.D * s.F_w * s.w * n.ring / (n.Y_f * n.W_x);
      n.crit_per_chip = s.C * s.w * s.F_w * n.ring / (2 * s.F_a * n.Y_f * n.W_x);
      break;
    case Strategy::tp:
      n.ring = s.exact_ring ? group_ring(s, d.tp) : 1;
      n.t_comm = 2 * s.a * (s.B / n.X) * s.D * n.ring / (d.pp * n.W_tp);
      n.critical_F = s.F_unit * n.t_comm / n.t_math;
      break;
    case Strategy::fsdp_tp:
      analyse_fsdp_tp(s, n);
      n.t_math = 4 * s.B * s.D * s.F_a / (s.N * s.C);
      break;
    case Strategy::pp:
      n.t_comm = s.a * (s.B / n.X) * s.D * (s.microbatches + d.pp - 2) /
                 (s.microbatches * n.W_pp * s.L);
      break;
    case Strategy::ep: {
      n.ring = s.exact_ring ? group_ring(s, d.ep) : 1;
      double G = s.fabric == Fabric::ib_fat_tree ? s.node_gpus : 1;
      double W_ep = s.fabric == Fabric::ib_fat_tree ? s.ib * s.node_gpus : s.nvlink;
      double share = std::min(G * s.routed_k / d.ep, 1.0);
      n.W_tp = W_ep;
      n.t_comm = 2 * s.a * (s.B / n.X) * s.D * n.ring * share / W_ep;
      n.critical_F = s.F_unit * n.t_comm / n.t_math;
      break;
    }
  }
  bool dp_like = s.strategy == Strategy::dp || s.strategy == Strategy::dcn_dp ||
                 s.strategy == Strategy::fsdp || s.strategy == Strategy::fsdp_tp;
  if (dp_like) n.dp_bytes_per_s = n.Y_f * n.W_x;
  bool has_tp_fabric = s.fabric != Fabric::dcn || s.ici_link > 0;
  if (has_tp_fabric && s.strategy != Strategy::pp && s.strategy != Strategy::ep) {
    if (s.strategy == Strategy::tp || s.strategy == Strategy::fsdp_tp) n.tp_bytes_per_s = n.W_tp;
    if (n.W_tp > 0) n.tp_limit = tp_bound(s, 2 * s.F_a * n.W_tp / (s.a * s.C) / d.ep);
  }
  if (s.fabric == Fabric::ib_fat_tree && s.nvlink > 0 && dp_like) {
    n.nvlink_stage_bytes_per_s = s.nvlink * std::min(n.Y, s.node_gpus);
    n.nvlink_stage_slower = n.nvlink_stage_bytes_per_s < n.Y_f * n.W_x;
  }
  return n;
}

}  // namespace scalelab
