// `training_comm` (ch 5, 12): per-layer math vs communication time of one parallelism strategy,
// and the batch sizes and degrees at which it stops being compute-bound (api/training.md §2.3).
#include <cmath>
#include <map>

#include "calculators.hpp"
#include "common.hpp"
#include "topology.hpp"
#include "training_math.hpp"
#include "../params.hpp"

namespace scalelab {
namespace {

const char* const kDegreeNames[] = {"dp", "fsdp", "tp", "pp", "ep"};

std::string own_degree(Strategy s) {
  switch (s) {
    case Strategy::dp: return "dp";
    case Strategy::tp: return "tp";
    case Strategy::pp: return "pp";
    case Strategy::ep: return "ep";
    default: return "fsdp";
  }
}

double& degree_ref(Degrees& d, const std::string& name) {
  if (name == "dp") return d.dp;
  if (name == "tp") return d.tp;
  if (name == "pp") return d.pp;
  if (name == "ep") return d.ep;
  return d.fsdp;
}

// §2.3 "Degrees": the strategy's own degree absorbs the chips the given ones leave.
Degrees resolve_degrees(const Args& args, Strategy strategy, double& chips, bool& at_optimum) {
  Degrees d;
  std::map<std::string, double> given;
  for (const char* name : kDegreeNames) {
    if (args.given(name)) given[name] = degree_ref(d, name) = args.num(name);
  }
  std::string own = own_degree(strategy);
  if (strategy == Strategy::fsdp_tp && given.count("fsdp") && !given.count("tp")) own = "tp";
  at_optimum = strategy == Strategy::fsdp_tp && !given.count("fsdp") && !given.count("tp");
  double rest = 1;
  for (auto& [name, value] : given) rest *= name == own ? 1 : value;
  if (!args.given("chips") && !given.empty() && !(strategy == Strategy::dcn_dp && !given.count("fsdp"))) {
    chips = d.product();
    return d;
  }
  if (args.given("chips")) {
    chips = args.num("chips");
  } else {
    auto pod = args.chip().pod_chips;
    if (!pod) throw InputError("chips", "is required: " + args.chip().name() + " has no pod size");
    chips = strategy == Strategy::dcn_dp ? *pod * rest : *pod;
  }
  if (!given.count(own)) {
    double q = chips / rest;
    if (q < 1 || std::floor(q) != q) {
      throw InputError("chips", "must be a multiple of the given degrees' product " + plain(rest) +
                                    ", got " + plain(chips));
    }
    degree_ref(d, own) = q;
    return d;
  }
  double remainder = chips / (rest * given[own]);
  if (remainder == 1) return d;
  if (own == "dp" || given.count("dp") || remainder < 1 || std::floor(remainder) != remainder) {
    throw InputError("chips", "must equal the product of the degrees (" + plain(rest * given[own]) +
                                  "), or a multiple of it when dp is free; got " + plain(chips));
  }
  d.dp = remainder;
  return d;
}

// The chips one collective of the strategy spans.
double collective_group(Strategy s, const Degrees& d, double chips) {
  return s == Strategy::tp ? d.tp : s == Strategy::ep ? d.ep : chips;
}

Fabric default_fabric(const Chip& chip, Strategy s, const Degrees& d, double chips) {
  if (s == Strategy::dcn_dp) return Fabric::dcn;
  if (!chip.is_gpu()) return Fabric::ici;
  double group = collective_group(s, d, chips);
  auto node = chip.node_gpus;
  if (s == Strategy::fsdp_tp || !node) return Fabric::nvlink;
  return group > *node ? Fabric::ib_fat_tree : Fabric::nvlink;
}

void check_axes(const Args& args, const Chip& chip, Fabric fabric, Strategy strategy) {
  for (const char* axes : {"axes_fsdp", "axes_tp"}) {
    if (fabric != Fabric::ici) refuse_if_given(args, axes, "applies only to fabric ici");
  }
  auto shape = chip.pod_shape();
  if (shape.empty() || fabric != Fabric::ici) return;
  double dims = double(shape.size());
  for (const char* axes : {"axes_fsdp", "axes_tp"}) {
    if (args.num(axes) > dims) {
      throw InputError(axes, "must be ≤ the " + plain(dims) + " axes of " + chip.name() + "'s torus, got " +
                                 plain(args.num(axes)));
    }
  }
  if (strategy == Strategy::fsdp_tp && args.num("axes_fsdp") + args.num("axes_tp") > dims) {
    throw InputError("axes_tp", "axes_fsdp + axes_tp must be ≤ the torus's " + plain(dims) + " axes");
  }
}

// NVLink reaches the GPUs of one domain: a larger group crosses InfiniBand.
void check_nvlink_domain(const Chip& chip, const CommSetup& s) {
  double group = collective_group(s.strategy, s.deg, s.N);
  if (s.fabric != Fabric::nvlink || !chip.node_gpus || group <= *chip.node_gpus) return;
  throw InputError("fabric", "nvlink reaches the " + plain(*chip.node_gpus) + " GPUs of one " + chip.name() +
                                 " NVLink domain, but this " + strategy_name(s.strategy) + " collective spans " +
                                 plain(group) + " GPUs: " +
                                 (s.strategy == Strategy::fsdp_tp ? "fsdp_tp is modelled inside one node; across nodes "
                                                                    "use strategy fsdp with tp"
                                                                  : "use fabric ib_fat_tree (InfiniBand between nodes)"));
}

// ICI reaches only the chips of one pod: more chips need DCN between pods (strategy dcn_dp).
void check_pod(const Chip& chip, Fabric fabric, double chips) {
  PodSpan span = tpu_pod_span(chip, chips);
  if (fabric != Fabric::ici || !span.beyond) return;
  throw InputError("chips", "must be ≤ " + plain(span.pod_chips) + " on fabric ici: " + plain(chips) + " chips of " +
                                chip.name() + " are " + plain(span.pods) + " pods of " + plain(span.pod_chips) +
                                ", and ICI does not reach past a pod; price the pods' data parallelism over DCN "
                                "with strategy dcn_dp (dp = " + plain(span.pods) + "), got " + plain(chips));
}

void check_strategy(const Args& args, const CommSetup& s, const Model* m) {
  if (s.strategy == Strategy::fsdp_tp) {
    refuse_if_given(args, "exact_ring", "is not defined for fsdp_tp (two collectives on different axes)");
    if (s.fabric != Fabric::ici && s.fabric != Fabric::nvlink) {
      throw InputError("fabric", "fsdp_tp is modelled on ici or nvlink; on GPUs across nodes use strategy "
                                 "fsdp with tp");
    }
    for (const char* name : {"dp", "pp", "ep"}) {
      Degrees copy = s.deg;
      if (degree_ref(copy, name) != 1) {
        throw InputError(name, "must be 1 for fsdp_tp (chips = fsdp × tp)");
      }
    }
  }
  if (s.sharp && !((s.strategy == Strategy::dp) &&
                   (s.fabric == Fabric::nvlink || s.fabric == Fabric::ib_fat_tree))) {
    throw InputError("sharp", "in-network reduction applies to strategy dp on nvlink or ib_fat_tree");
  }
  if (s.strategy == Strategy::ep) {
    if (!m || !m->is_moe()) throw InputError("strategy", "ep needs an MoE model (E > 1)");
    if (s.fabric != Fabric::nvlink && s.fabric != Fabric::ib_fat_tree) {
      throw InputError("fabric", "ep is modelled on nvlink or ib_fat_tree");
    }
    if (s.deg.ep > m->E) {
      throw InputError("ep", "must be ≤ the model's " + plain(m->E) + " experts, got " + plain(s.deg.ep));
    }
  } else if (s.deg.ep > 1 && (!m || !m->is_moe())) {
    throw InputError("ep", "expert parallelism needs an MoE model");
  }
  if (m && s.deg.tp > m->N) {
    throw InputError("tp", "must be ≤ the model's " + plain(m->N) + " query heads, got " + plain(s.deg.tp));
  }
  if (m && s.deg.pp > m->L) {
    throw InputError("pp", "must be ≤ the model's " + plain(m->L) + " layers, got " + plain(s.deg.pp));
  }
  if (s.fabric == Fabric::dcn && s.strategy != Strategy::dcn_dp) {
    throw InputError("fabric", "dcn is the fabric of strategy dcn_dp");
  }
  if (s.strategy == Strategy::dcn_dp && s.fabric != Fabric::dcn) {
    throw InputError("fabric", "dcn_dp runs over dcn");
  }
  if (s.strategy != Strategy::pp) refuse_if_given(args, "microbatches", "applies only to strategy pp");
}

void read_layer(const Args& args, CommSetup& s, const Model*& model, Result& r) {
  bool bare = args.given("D") || args.given("F");
  if (bare) {
    if (args.given("model")) throw InputError("D", "give either model or D and F, not both (use model_overrides)");
    if (!args.given("D") || !args.given("F")) throw InputError(args.given("D") ? "F" : "D", "is required with the other");
    s.D = args.num("D");
    s.F_w = s.F_a = s.F_unit = args.num("F");
    s.L = 1;
    return;
  }
  model = &args.model();
  const Model& m = *model;
  s.D = m.D;
  s.L = m.L;
  if (m.is_moe()) {
    s.F_unit = m.F_expert;
    s.F_w = (m.E + m.shared_experts) * m.F_expert;
    s.F_a = (m.k + m.shared_experts) * m.F_expert;
    s.routed_k = m.k;
    s.k_total = m.k + m.shared_experts;
  } else {
    s.F_unit = s.F_w = s.F_a = m.F;
  }
  if (m.gated) {
    r.warn("The book's layer model has two MLP matrices: the gate matmul of this gated MLP is ignored, "
           "as is attention.");
  }
}

CommSetup read_setup(const Args& args, Result& r, const Model*& model, double& chips) {
  const Chip& chip = args.chip();
  CommSetup s;
  s.strategy = parse_strategy(args.str("strategy"));
  read_layer(args, s, model, r);
  s.deg = resolve_degrees(args, s.strategy, chips, s.at_optimum);
  s.N = chips;
  s.fabric = args.given("fabric") ? parse_fabric(args.str("fabric"))
                                  : default_fabric(chip, s.strategy, s.deg, chips);
  check_axes(args, chip, s.fabric, s.strategy);
  check_pod(chip, s.fabric, chips);
  check_nvlink_domain(chip, s);
  s.C = chip.flops(args.str("compute_dtype"));
  s.w = args.dtype("weight_dtype");
  s.a = args.dtype("activation_dtype");
  s.B = args.num("batch_tokens");
  s.axes_fsdp = args.num("axes_fsdp");
  s.axes_tp = args.num("axes_tp");
  s.exact_ring = args.flag("exact_ring");
  s.sharp = args.flag("sharp");
  s.microbatches = args.num_if("microbatches").value_or(s.deg.pp);
  switch (s.fabric) {
    case Fabric::ici: s.ici_link = chip.need(&Chip::ici_link_bytes_per_s, "ICI collectives are priced at one link's bandwidth"); break;
    case Fabric::nvlink: s.nvlink = chip.need(&Chip::nvlink_bytes_per_s, "collectives inside an NVLink domain are priced at it"); break;
    case Fabric::ib_fat_tree:
      s.ib = chip.need(&Chip::ib_bytes_per_s, "collectives beyond one NVLink domain cross InfiniBand at it");
      s.node_gpus = chip.need(&Chip::node_gpus, "it sets how many GPUs share one NVLink domain");
      s.nvlink = chip.nvlink_bytes_per_s.value_or(0);
      break;
    case Fabric::dcn:
      s.dcn = chip.need(&Chip::dcn_bytes_per_s, "traffic between pods crosses the data-centre network at it");
      s.ici_link = chip.ici_link_bytes_per_s.value_or(0);
      break;
  }
  check_strategy(args, s, model);
  return s;
}

std::string W_symbol(Fabric f) {
  switch (f) {
    case Fabric::ici: return "W_{ici}";
    case Fabric::nvlink: return "W_{nvlink}";
    case Fabric::ib_fat_tree: return "W_{ib}";
    case Fabric::dcn: return "W_{dcn}";
  }
  return "W";
}

void time_steps(const CommSetup& s, const CommNumbers& n, Result& r) {
  std::string W = W_symbol(s.fabric);
  std::string BDF = tex(s.B) + " \\cdot " + tex(s.D) + " \\cdot " + tex(s.F_a);
  bool backward = s.strategy == Strategy::dp || s.strategy == Strategy::dcn_dp;
  r.step("Math time per layer", backward ? "8 B D F_a / (N C)" : "4 B D F_a / (N C)",
         (backward ? "8 \\cdot " : "4 \\cdot ") + BDF + " / (" + tex(s.N) + " \\cdot " + tex(s.C) + ")",
         n.t_math, "s");
  std::string ring = n.ring != 1 ? " \\cdot " + tex(n.ring) : "";
  switch (s.strategy) {
    case Strategy::dp:
    case Strategy::dcn_dp:
      r.step("Gradient AllReduce per layer", "2 \\cdot ar \\cdot D F_w b_w r / (Y_f " + W + ")",
             "2 \\cdot " + tex(s.sharp ? 1 : 2) + " \\cdot " + tex(s.D) + " \\cdot " + tex(s.F_w) + " \\cdot " +
                 tex(s.w) + ring + " / (" + tex(n.Y_f) + " \\cdot " + tex(n.W_x) + ")",
             n.t_comm, "s");
      break;
    case Strategy::fsdp:
      r.step("Weight AllGather per layer", "2 D F_w b_w r / (Y_f " + W + ")",
             "2 \\cdot " + tex(s.D) + " \\cdot " + tex(s.F_w) + " \\cdot " + tex(s.w) + ring + " / (" +
                 tex(n.Y_f) + " \\cdot " + tex(n.W_x) + ")",
             n.t_comm, "s");
      break;
    case Strategy::tp:
    case Strategy::ep:
      r.step(s.strategy == Strategy::tp ? "Activation AllGather + ReduceScatter per layer"
                                        : "Token AllToAll (dispatch + combine) per layer",
             s.strategy == Strategy::tp ? "2 b_a (B/X) D r / (Z_{pp} W_{tp})"
                                        : "2 b_a (B/X) D r \\min(G k / Z, 1) / W",
             "2 \\cdot " + tex(s.a) + " \\cdot " + tex(s.B / n.X) + " \\cdot " + tex(s.D) + ring + " / " +
                 tex(n.W_tp),
             n.t_comm, "s");
      break;
    case Strategy::fsdp_tp:
      r.step("FSDP AllGather per layer", "2 D F_w b_w / (Y W_f)",
             "2 \\cdot " + tex(s.D) + " \\cdot " + tex(s.F_w) + " \\cdot " + tex(s.w) + " / (" + tex(n.Y) +
                 " \\cdot " + tex(n.W_x) + ")",
             n.t_comm_fsdp, "s");
      r.step("TP activation collectives per layer", "2 b_a (B/X) D / W_{tp}",
             "2 \\cdot " + tex(s.a) + " \\cdot " + tex(s.B / n.X) + " \\cdot " + tex(s.D) + " / " + tex(n.W_tp),
             n.t_comm_tp, "s");
      r.step("Communication time per layer", "\\max(T_{fsdp}, T_{tp})",
             "\\max(" + tex(n.t_comm_fsdp) + ", " + tex(n.t_comm_tp) + ")", n.t_comm, "s");
      break;
    case Strategy::pp:
      r.step("Pipeline sends per layer", "b_a (B/X) D (N_{MB} + P - 2) / (N_{MB} W L)",
             tex(s.a) + " \\cdot " + tex(s.B / n.X) + " \\cdot " + tex(s.D) + " \\cdot " +
                 tex(s.microbatches + s.deg.pp - 2) + " / (" + tex(s.microbatches) + " \\cdot " +
                 tex(n.W_pp) + " \\cdot " + tex(s.L) + ")",
             n.t_comm, "s");
      break;
  }
}

void critical_steps(const CommSetup& s, const CommNumbers& n, Result& r) {
  double replicas = s.strategy == Strategy::dcn_dp ? s.deg.dp : n.X;
  if (!n.crit_per_chip || s.strategy == Strategy::fsdp_tp) r.out_null("critical_tokens_per_replica");
  if (!n.crit_per_chip) {
    for (const char* name : {"critical_tokens_per_chip", "critical_batch_tokens", "max_chips"}) r.out_null(name);
    return;
  }
  double crit = *n.crit_per_chip;
  bool split = s.strategy == Strategy::fsdp_tp;
  std::string sub = split ? tex(s.C) + "^2 \\cdot " + tex(s.w * s.a) + " \\cdot " + tex(s.F_w) + " / (4 \\cdot " +
                                tex(n.W_x) + " \\cdot " + tex(n.W_tp) + " \\cdot " + tex(s.F_a) + "^2)"
                          : tex(s.B / s.N) + " \\cdot " + tex(n.t_comm) + " / " + tex(n.t_math);
  r.out("critical_tokens_per_chip",
        r.step("Critical tokens per chip",
               split ? "C^2 b_w b_a F_w / (4 W_f W_{tp} F_a^2)" : "(B/N) \\cdot T_{comm} / T_{math}", sub, crit,
               "tokens"));
  if (s.strategy != Strategy::fsdp_tp) {
    r.out("critical_tokens_per_replica", r.step("Critical tokens per replica", "B^*_{chip} \\cdot N / X",
                                                tex(crit) + " \\cdot " + tex(s.N) + " / " + tex(replicas),
                                                crit * s.N / replicas, "tokens"));
  }
  r.out("critical_batch_tokens", r.step("Critical global batch", "B^*_{chip} \\cdot N",
                                        tex(crit) + " \\cdot " + tex(s.N), crit * s.N, "tokens"));
  if (crit > 0) {
    r.out("max_chips", r.step("Most chips still compute-bound at this batch", "\\lfloor B / B^*_{chip} \\rfloor",
                              "\\lfloor " + tex(s.B) + " / " + tex(crit) + " \\rfloor",
                              std::floor(s.B / crit), "count"));
  } else {
    r.out_null("max_chips");
  }
}

void split_steps(const CommSetup& s, const CommNumbers& n, Result& r) {
  if (s.strategy != Strategy::fsdp_tp) {
    for (const char* name : {"fsdp_opt", "tp_opt", "fsdp_pow2", "tp_pow2"}) r.out_null(name);
    return;
  }
  r.out("fsdp_opt", r.step("Optimal FSDP degree", "X_{opt} = \\sqrt{(b_a/b_w)(B/F_w)(W_f/W_{tp}) N}",
                           "\\sqrt{" + tex(s.a / s.w) + " \\cdot " + tex(s.B / s.F_w) + " \\cdot " +
                               tex(n.W_x / n.W_tp) + " \\cdot " + tex(s.N) + "}",
                           *n.fsdp_opt, "count"));
  r.out("tp_opt", *n.tp_opt);
  r.out("fsdp_pow2", r.step("FSDP degree rounded in log space", "2^{\\mathrm{round}(\\log_2 X_{opt})}",
                            "2^{\\mathrm{round}(" + tex(std::log2(*n.fsdp_opt)) + ")}", *n.fsdp_pow2, "count"));
  r.out("tp_pow2", r.step("TP degree", "2^{\\lfloor \\log_2 (N / X) \\rfloor}",
                          "2^{\\lfloor \\log_2 (" + tex(s.N) + " / " + tex(*n.fsdp_pow2) + ") \\rfloor}",
                          *n.tp_pow2, "count"));
}

void tp_steps(const CommSetup& s, const CommNumbers& n, Result& r) {
  if (!n.tp_limit) {
    r.out_null("tp_limit");
    r.out_null("max_tp");
  } else {
    r.out("tp_limit", r.step("TP bound (compute-bound below)",
                             s.exact_ring ? "Y r(Y) < 2 F_a W_{tp} / (b_a C)" : "2 F_a W_{tp} / (b_a C)",
                             "2 \\cdot " + tex(s.F_a) + " \\cdot " + tex(n.W_tp) + " / (" + tex(s.a) +
                                 " \\cdot " + tex(s.C) + ")",
                             *n.tp_limit, "count"));
    r.out("max_tp", std::max(1.0, std::floor(*n.tp_limit)));
  }
  if (n.critical_F) {
    r.out("critical_F", r.step("Smallest F that is compute-bound at these degrees",
                               s.strategy == Strategy::fsdp_tp ? "C^2 b_w b_a (F_w/F_a) N / (4 W_f W_{tp} B)"
                                                               : "F \\cdot T_{comm} / T_{math}",
                               tex(s.F_unit) + " \\cdot " + tex(n.t_comm) + " / " + tex(n.t_math),
                               *n.critical_F, "count"));
  } else {
    r.out_null("critical_F");
  }
}

void batch_checks(const Args& args, const CommSetup& s, const CommNumbers& n, Result& r) {
  double T = args.num("T");
  double max_dp = std::floor(s.B / T);
  r.out("max_dp", max_dp);
  double X = s.strategy == Strategy::dcn_dp ? s.deg.dp : n.X;
  if (X > max_dp) {
    r.warn(plain(std::round(X)) + "-way data parallelism exceeds the batch's " + plain(max_dp) +
           " sequences of " + plain(T) + " tokens: the batch must also be split along the sequence.");
  }
  if (n.nvlink_stage_slower) {
    r.warn("The NVLink stage (" + format_quantity(n.nvlink_stage_bytes_per_s, "bytes/s") +
           " per replica) is slower than the scale-out stage (" + format_quantity(n.Y_f * n.W_x, "bytes/s") +
           "): the node, not the fat tree, is the bottleneck.");
  }
  if (s.strategy == Strategy::dcn_dp && s.deg.dp == 1) {
    r.warn("dcn_dp with dp = 1: one slice, so nothing crosses the DCN.");
  }
}

void compute(const Args& args, Result& r) {
  const Model* model = nullptr;
  double chips = 1;
  CommSetup s = read_setup(args, r, model, chips);
  CommNumbers n = analyse_comm(s);
  r.out("strategy", strategy_name(s.strategy));
  r.out("fabric", fabric_name(s.fabric));
  bool backward = s.strategy == Strategy::dp || s.strategy == Strategy::dcn_dp;
  r.out("pass", backward ? "backward" : "forward");
  r.out("chips", chips);
  if (s.at_optimum) {
    r.out_null("degrees");
  } else {
    r.out("degrees", json{{"dp", s.deg.dp}, {"fsdp", s.deg.fsdp}, {"tp", s.deg.tp}, {"pp", s.deg.pp},
                          {"ep", s.deg.ep}});
  }
  r.out("model_parallel", s.deg.tp * s.deg.pp * s.deg.ep);
  r.out("tokens_per_chip", r.step("Tokens per chip", "B / N", tex(s.B) + " / " + tex(s.N), s.B / s.N, "tokens"));
  double replicas = s.strategy == Strategy::dcn_dp ? s.deg.dp : n.X;
  r.out("tokens_per_replica", s.B / replicas);
  std::string W = W_symbol(s.fabric);
  r.out("collective_intensity", r.step("Collective intensity", "\\alpha = C / " + W,
                                       tex(s.C) + " / " + tex(s.C / n.alpha), n.alpha, "FLOPs/byte"));
  out_opt(r, "dp_bytes_per_s", n.dp_bytes_per_s);
  out_opt(r, "tp_bytes_per_s", n.tp_bytes_per_s);
  r.out("ring_factor", n.ring);
  time_steps(s, n, r);
  r.out("t_math_s", n.t_math);
  r.out("t_comm_s", n.t_comm);
  r.out("bound", n.t_math >= n.t_comm ? "compute" : "comms");
  critical_steps(s, n, r);
  tp_steps(s, n, r);
  split_steps(s, n, r);
  batch_checks(args, s, n, r);
}

}  // namespace

Calculator make_training_comm() {
  using namespace params;
  auto degree = [](const char* name, const char* doc) { return integer(name, "count", 1, 1e7, nullptr, doc); };
  return {"training_comm", "Training communication rooflines", {5, 12},
          "Per-layer math vs communication time of DP, FSDP, TP, FSDP+TP, PP, EP and cross-slice DP, and the "
          "batch sizes and degrees at which each stays compute-bound.",
          {chip("tpu-v5p"), chip_overrides(), model("llama3-70b"), model_overrides(),
           integer("D", "count", 1, 1e6, nullptr, "model width of a bare two-matrix layer (instead of model)"),
           integer("F", "count", 1, 1e7, nullptr, "MLP width of a bare two-matrix layer (instead of model)"),
           choice("strategy", {"dp", "fsdp", "tp", "fsdp_tp", "pp", "ep", "dcn_dp"}, "fsdp",
                  "parallelism strategy analysed"),
           choice("fabric", {"ici", "nvlink", "ib_fat_tree", "dcn"}, nullptr,
                  "network of the analysed collective (default from chip and strategy)"),
           integer("batch_tokens", "tokens", 1, 1e12, 4194304, "global batch in tokens"),
           integer("T", "tokens", 1, 1e8, 4096, "sequence length (for max_dp)"),
           integer("chips", "count", 1, 1e7, nullptr, "chips (default: product of the degrees, or a pod)"),
           degree("dp", "data-parallel replicas"), degree("fsdp", "FSDP degree"), degree("tp", "tensor parallelism"),
           degree("pp", "pipeline stages"), degree("ep", "expert parallelism"),
           integer("axes_fsdp", "count", 1, 8, 1, "torus axes the FSDP/DP collective spans (M_X)", Scale::linear),
           integer("axes_tp", "count", 1, 8, 1, "torus axes tensor parallelism spans (M_Y)", Scale::linear),
           dtype("weight_dtype", "dtype of the weights moved"),
           dtype("activation_dtype", "dtype of the activations moved"),
           dtype("compute_dtype", "dtype of the arithmetic: picks the FLOP/s rate"),
           boolean("exact_ring", false, "apply the ring factor (n−1)/n over the participants"),
           boolean("sharp", false, "in-network reduction (SHARP) for dp on nvlink/ib_fat_tree"),
           integer("microbatches", "count", 1, 1e6, nullptr, "pipeline microbatches (default pp)")},
          compute};
}

}  // namespace scalelab
