// `training_comm` (ch 5, 12): per-layer math vs communication time of one parallelism strategy,
// and the batch sizes and degrees at which it stops being compute-bound (api/training.md §2.3).
#include <cmath>
#include <map>

#include "calculators/calculators.hpp"
#include "core/format_words.hpp"
#include "core/output_rows.hpp"
#include "models/collective_model.hpp"
#include "models/common.hpp"
#include "models/expected.hpp"
#include "models/layer_times.hpp"
#include "models/topology.hpp"
#include "models/training_math.hpp"
#include "schema/params.hpp"

namespace scalelab {
namespace {

// What training_comm works out, one member per output of a number or a literal word: write_members
// writes them all from the rows below, after the derivation's steps are recorded. An empty
// optional is null (one chip, another strategy's figure, or no crossover).
struct CommFigures {
  Word pass;
  double chips = 1, model_parallel = 1, tokens_per_chip = 0, tokens_per_replica = 0;
  std::optional<double> collective_intensity, dp_bytes_per_s, tp_bytes_per_s, ring_factor, axes_fsdp, axes_tp;
  double t_math_s = 0, t_comm_s = 0;
  Word bound;
  double t_layer_s = 0;
  std::optional<double> critical_tokens_per_chip, critical_tokens_per_replica, critical_batch_tokens, max_chips;
  std::optional<double> tp_limit, max_tp, critical_F, fsdp_opt, tp_opt, fsdp_pow2, tp_pow2;
  double max_dp = 0;
};

// training_comm's outputs, in the order results list them (name, unit, label, doc, nullable, and the
// member of CommFigures it is read from); the rows without one (the strategy's and fabric's names,
// the degrees, the expected range) are written where they are made.
// clang-format off
constexpr OutputRow<CommFigures> kOutputs[] = {
    {"strategy", "", "strategy", "the parallelism strategy", false},
    {"fabric", "", "fabric", "the network the collectives run on (null on one chip: none run)", true},
    {"pass", "", "pass", "which pass the per-layer figures describe", false, &CommFigures::pass},
    {"chips", "chips", "chips", "chips in the configuration", false, &CommFigures::chips},
    {"degrees", "", "degrees", "the parallelism degrees", true},
    {"model_parallel", "count", "model-parallel degree", "tp × pp × ep", false, &CommFigures::model_parallel},
    {"tokens_per_chip", "tokens", "tokens per chip", "global batch divided by the chips", false, &CommFigures::tokens_per_chip},
    {"tokens_per_replica", "tokens", "tokens per replica", "global batch divided by the data-parallel degree", false, &CommFigures::tokens_per_replica},
    {"collective_intensity", "FLOPs/byte", "collective intensity", "FLOPs per byte the collectives move (null on one chip)", true, &CommFigures::collective_intensity},
    {"dp_bytes_per_s", "bytes/s", "data-parallel bandwidth", "bandwidth the data-parallel collectives get", true, &CommFigures::dp_bytes_per_s},
    {"tp_bytes_per_s", "bytes/s", "tensor-parallel bandwidth", "bandwidth the tensor-parallel collectives get", true, &CommFigures::tp_bytes_per_s},
    {"ring_factor", "ratio", "ring factor", "the (N − 1)/N factor of the ring collectives (null on one chip)", true, &CommFigures::ring_factor},
    {"axes_fsdp", "count", "FSDP torus axes", "torus axes the FSDP or DP collective spans, the book's M_X (null off ICI)", true, &CommFigures::axes_fsdp},
    {"axes_tp", "count", "TP torus axes", "torus axes the tensor-parallel collective spans, the book's M_Y (null off ICI)", true, &CommFigures::axes_tp},
    {"t_math_s", "s", "math time per layer", "time of one layer's matmuls", false, &CommFigures::t_math_s},
    {"t_comm_s", "s", "comms time per layer", "time of one layer's collectives (0 on one chip)", false, &CommFigures::t_comm_s},
    {"bound", "", "bound", "what limits a layer: compute or comms", false, &CommFigures::bound},
    {"t_layer_s", "s", "layer time", "the larger of math and comms time per layer: the layer's time with the two overlapped", false, &CommFigures::t_layer_s},
    {"expected_t_layer_s_low", "s", "expected layer time, short", "the layer time over the high end of the MFU published training steps on this kind of chip reached (null where no runs calibrate it)", true},
    {"expected_t_layer_s_high", "s", "expected layer time, long", "the layer time over the low end of the MFU published training steps on this kind of chip reached (null where no runs calibrate it)", true},
    {"expected_runs", "count", "published runs behind the range", "how many published training steps the expected range is fitted to (null where no runs calibrate it)", true},
    {"expected_share_low", "ratio", "expected MFU, low", "the low end of the MFU (share of the chips' peak, 6·P·D) published training steps reached (null where no runs calibrate it)", true},
    {"expected_share_high", "ratio", "expected MFU, high", "the high end of the MFU (share of the chips' peak, 6·P·D) published training steps reached (null where no runs calibrate it)", true},
    {"expected_covered", "", "setup within the published runs", "whether the chip's kind and the settings lie within what the published runs took (null where no runs calibrate it)", true},
    {"expected_outside", "", "setup beyond the published runs", "a sentence naming the chip's kind or the settings that lie outside what the published runs took, and what they took (null when none does, or where no runs calibrate it)", true},
    {"critical_tokens_per_chip", "tokens", "critical tokens per chip", "tokens per chip below which comms dominate", true, &CommFigures::critical_tokens_per_chip},
    {"critical_tokens_per_replica", "tokens", "critical tokens per replica", "tokens per replica below which comms dominate", true, &CommFigures::critical_tokens_per_replica},
    {"critical_batch_tokens", "tokens", "critical batch", "global batch below which comms dominate", true, &CommFigures::critical_batch_tokens},
    {"max_chips", "chips", "most chips while compute-bound", "chips this batch can use before comms dominate", true, &CommFigures::max_chips},
    {"tp_limit", "count", "tensor-parallel limit", "largest tensor-parallel degree before comms dominate", true, &CommFigures::tp_limit},
    {"max_tp", "count", "largest tensor parallelism", "largest tensor-parallel degree that stays compute-bound", true, &CommFigures::max_tp},
    {"critical_F", "count", "critical MLP width", "MLP width below which tensor parallelism is comms-bound", true, &CommFigures::critical_F},
    {"fsdp_opt", "count", "best FSDP degree", "the book's optimal FSDP degree", true, &CommFigures::fsdp_opt},
    {"tp_opt", "count", "best TP degree", "the book's optimal tensor-parallel degree", true, &CommFigures::tp_opt},
    {"fsdp_pow2", "count", "FSDP degree (power of two)", "the optimal FSDP degree rounded to a power of two", true, &CommFigures::fsdp_pow2},
    {"tp_pow2", "count", "TP degree (power of two)", "the optimal tensor-parallel degree rounded to a power of two", true, &CommFigures::tp_pow2},
    {"max_dp", "count", "most data-parallel replicas", "sequences in the batch", false, &CommFigures::max_dp},
};
// clang-format on
static_assert(well_formed(kOutputs));

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
Degrees resolve_degrees(const Args& args, Strategy strategy, double& chips, bool& at_optimum, Result& r) {
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
    std::vector<std::string> warnings;
    double pod = default_chips(args.chip(), warnings);
    for (const auto& w : warnings) r.warn(w);
    chips = strategy == Strategy::dcn_dp ? pod * rest : pod;
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
    throw InputError("chips", "must equal the product of the degrees (" + grouped(rest * given[own]) +
                                  "), or a multiple of it when dp is free; got " + grouped(chips));
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

void check_axes(const Args& args, const Chip& chip, Fabric fabric) {
  for (const char* axes : {"axes_fsdp", "axes_tp"}) {
    if (fabric != Fabric::ici) refuse_if_given(args, axes, "applies only to fabric ici");
  }
  auto shape = chip.pod_shape();
  if (shape.empty() || fabric != Fabric::ici) return;
  double dims = double(shape.size());
  for (const char* axes : {"axes_fsdp", "axes_tp"}) {
    if (args.num_if(axes).value_or(1) > dims) {
      throw InputError(axes, "must be ≤ the " + plain(dims) + " axes of " + chip.name() + "'s torus, got " +
                                 plain(args.num(axes)));
    }
  }
}

// FSDP × TP on a torus: the TP group takes the fewest axes that hold it and FSDP the rest of the
// axes the slice needs (the book's M_X + M_Y, "roughly 3" on a 3D pod; 2 + 1 for its 1,024 × 8 on
// v5p). Either group may use the part of an axis the other leaves, so what must hold is the pair:
// fsdp × tp chips on the axes they span together.
void read_fsdp_tp_axes(const Args& args, const Chip& chip, CommSetup& s) {
  double dims = double(chip.pod_shape().size());
  double together = axes_to_hold(chip, s.N);
  double tp_default = s.at_optimum ? 1 : std::min(axes_to_hold(chip, s.deg.tp), std::max(1.0, dims - 1));
  s.axes_tp = args.num_if("axes_tp").value_or(tp_default);
  s.axes_fsdp = args.num_if("axes_fsdp").value_or(std::max(1.0, together - s.axes_tp));
  if (s.axes_fsdp + s.axes_tp > dims) {
    throw InputError(args.given("axes_tp") ? "axes_tp" : "axes_fsdp",
                     "axes_fsdp + axes_tp must be ≤ the " + plain(dims) + " axes of " + chip.name() +
                         "'s torus: FSDP and TP span different axes, got " + plain(s.axes_fsdp) + " + " +
                         plain(s.axes_tp));
  }
  check_pair_on_axes(chip, s.N, s.axes_fsdp, s.axes_tp, args.given("axes_fsdp") ? "axes_fsdp" : "axes_tp");
}

// M_X and M_Y: the torus axes the FSDP/DP and the TP collectives span. By default a DP, FSDP or
// TP collective on ICI spans the fewest axes of the pod that hold its chips (the book spreads
// them over the pod's axes); given, they must hold them. Off ICI, 1 each; fsdp_tp above.
void read_axes(const Args& args, const Chip& chip, CommSetup& s) {
  if (s.strategy == Strategy::fsdp_tp && s.fabric == Fabric::ici && !chip.pod_shape().empty()) {
    return read_fsdp_tp_axes(args, chip, s);
  }
  bool on_torus = s.fabric == Fabric::ici && s.strategy != Strategy::fsdp_tp;
  auto axes_for = [&](const char* param, double group, const char* what) {
    if (!on_torus) return args.num_if(param).value_or(1);
    if (!args.given(param)) return axes_to_hold(chip, group);
    check_group_on_axes(chip, group, args.num(param), what, param);
    return args.num(param);
  };
  bool fsdp_group = s.strategy == Strategy::dp || s.strategy == Strategy::fsdp;
  s.axes_fsdp = axes_for("axes_fsdp", fsdp_group ? s.N : 1, s.strategy == Strategy::dp
                                                                 ? "the gradient AllReduce"
                                                                 : "the FSDP collective");
  s.axes_tp = axes_for("axes_tp", s.strategy == Strategy::tp ? s.deg.tp : 1, "the tensor-parallel collective");
}

// NVLink reaches the GPUs of one domain: a larger group crosses InfiniBand.
void check_nvlink_domain(const Chip& chip, const CommSetup& s) {
  double group = collective_group(s.strategy, s.deg, s.N);
  if (s.fabric != Fabric::nvlink || !chip.node_gpus || group <= *chip.node_gpus) return;
  throw InputError("fabric", "NVLink reaches the " + format_quantity(*chip.node_gpus, "GPUs") + " of one " + chip.name() +
                                 " NVLink domain, but this collective of " + strategy_title(s.strategy) + " spans " +
                                 format_quantity(group, "GPUs") + ": " +
                                 (s.strategy == Strategy::fsdp_tp
                                      ? "FSDP with tensor parallelism (fsdp_tp) is modelled inside one node; across "
                                        "nodes use FSDP (strategy fsdp) with a tensor-parallel degree (tp)"
                                      : "use InfiniBand between nodes (fabric ib_fat_tree)"));
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

// What the model allows of the strategy and degrees, on any number of chips.
void check_model(const CommSetup& s, const Model* m) {
  bool moe = m && m->is_moe();
  if (s.strategy == Strategy::ep && !moe) throw InputError("strategy", "ep needs an MoE model (E > 1)");
  if (s.deg.ep > 1 && !moe) throw InputError("ep", "expert parallelism needs an MoE model");
  if (moe && s.deg.ep > m->E) {
    throw InputError("ep", "must be ≤ the model's " + plain(m->E) + " experts, got " + plain(s.deg.ep));
  }
  if (m && s.deg.tp > m->N) {
    throw InputError("tp", "must be ≤ the model's " + plain(m->N) + " query heads, got " + plain(s.deg.tp));
  }
  if (m && s.deg.pp > m->L) {
    throw InputError("pp", "must be ≤ the model's " + plain(m->L) + " layers, got " + plain(s.deg.pp));
  }
}

void check_strategy(const Args& args, const CommSetup& s, const Model* m) {
  check_model(s, m);
  if (s.strategy == Strategy::fsdp_tp) {
    refuse_if_given(args, "exact_ring", "is not defined for fsdp_tp (two collectives on different axes)");
    if (s.fabric != Fabric::ici && s.fabric != Fabric::nvlink) {
      throw InputError("fabric", "FSDP with tensor parallelism (fsdp_tp) is modelled on ICI or NVLink; on GPUs across "
                                 "nodes use FSDP (strategy fsdp) with a tensor-parallel degree (tp)");
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
  if (s.strategy == Strategy::ep && s.fabric != Fabric::nvlink && s.fabric != Fabric::ib_fat_tree) {
    throw InputError("fabric", "ep is modelled on nvlink or ib_fat_tree");
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
  s.deg = resolve_degrees(args, s.strategy, chips, s.at_optimum, r);
  s.N = chips;
  if (one_chip(s)) {  // nothing to communicate: no fabric to read
    check_model(s, model);
    s.C = compute_flops(args, r);
    s.w = args.dtype("weight_dtype");
    s.a = args.dtype("activation_dtype");
    s.B = args.num("batch_tokens");
    return s;
  }
  s.fabric = args.given("fabric") ? parse_fabric(args.str("fabric"))
                                  : default_fabric(chip, s.strategy, s.deg, chips);
  check_axes(args, chip, s.fabric);
  check_pod(chip, s.fabric, chips);
  check_nvlink_domain(chip, s);
  s.C = compute_flops(args, r);
  s.w = args.dtype("weight_dtype");
  s.a = args.dtype("activation_dtype");
  s.B = args.num("batch_tokens");
  read_axes(args, chip, s);
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

// The layer's symbols, bound to this configuration's values (bare without steps).
struct LayerSymbols {
  Expr B, D, F_a, F_w, N, C, b_w, b_a, X, r;
  LayerSymbols(const CommSetup& s, const CommNumbers& n, Result& out)
      : B(out.sym("B", s.B)), D(out.sym("D", s.D)), F_a(out.sym("F_a", s.F_a)), F_w(out.sym("F_w", s.F_w)),
        N(out.sym("N", s.N)), C(out.sym("C", s.C)), b_w(out.sym("b_w", s.w)), b_a(out.sym("b_a", s.a)),
        X(out.sym("X", n.X)), r(out.sym("r", n.ring)) {}
};

struct LayerTimes {
  Expr t_math = 0, t_comm = 0;
};

bool has_backward(Strategy s) { return s == Strategy::dp || s == Strategy::dcn_dp; }

Expr math_step(const CommSetup& s, const LayerSymbols& v, Result& r) {
  if (s.strategy == Strategy::ep) {
    return r.step("Math time per layer (the routed experts)", "T_{math}",
                  layer_time::routed_experts_math(v.B, r.sym("k", s.routed_k), v.D, r.sym("F", s.F_unit), v.N, v.C),
                  "s");
  }
  return r.step("Math time per layer", "T_{math}",
                layer_time::math(has_backward(s.strategy) ? 8 : 4, v.B, v.D, v.F_a, v.N, v.C), "s");
}

LayerTimes time_steps(const CommSetup& s, const CommNumbers& n, const LayerSymbols& v, Result& r) {
  std::string W = W_symbol(s.fabric);
  LayerTimes t;
  t.t_math = math_step(s, v, r);
  Expr Y_f = r.sym("Y_f", n.Y_f), W_x = r.sym(W, n.W_x), W_tp = r.sym("W_{tp}", n.W_tp);
  Expr B_X = v.B / v.X;
  switch (s.strategy) {
    case Strategy::dp:
    case Strategy::dcn_dp:
      t.t_comm = r.step("Gradient AllReduce per layer", "T_{comm}",
                        layer_time::gradient_allreduce(r.sym("ar", s.sharp ? 1 : 2), v.D, v.F_w, v.b_w, v.r, Y_f, W_x),
                        "s");
      break;
    case Strategy::fsdp:
      t.t_comm = r.step("Weight AllGather per layer", "T_{comm}",
                        layer_time::weight_allgather(v.D, v.F_w, v.b_w, v.r, Y_f, W_x), "s");
      break;
    case Strategy::tp:
      t.t_comm = r.step("Activation AllGather + ReduceScatter per layer", "T_{comm}",
                        layer_time::activation_collectives(v.b_a, B_X, v.D, v.r, r.sym("Z_{pp}", s.deg.pp), W_tp),
                        "s");
      break;
    case Strategy::ep: {
      double G = s.fabric == Fabric::ib_fat_tree ? s.node_gpus : 1;
      Expr share = min(r.sym("G", G) * r.sym("k", s.routed_k) / r.sym("Z", s.deg.ep), 1);
      t.t_comm = r.step("Token AllToAll (dispatch + combine) per layer", "T_{comm}",
                        layer_time::token_alltoall(v.b_a, B_X, v.D, v.r, share, r.sym(W, n.W_tp)), "s");
      break;
    }
    case Strategy::fsdp_tp: {
      Expr t_fsdp = r.step("FSDP AllGather per layer", "T_{fsdp}",
                           layer_time::fsdp_tp_weight_allgather(v.D, v.F_w, v.b_w, r.sym("Y", n.Y), r.sym("W_f", n.W_x)),
                           "s");
      Expr t_tp = r.step("TP activation collectives per layer", "T_{tp}",
                         layer_time::fsdp_tp_activations(v.b_a, B_X, v.D, W_tp), "s");
      t.t_comm = r.step("Communication time per layer", "T_{comm}", max(t_fsdp, t_tp), "s");
      break;
    }
    case Strategy::pp: {
      Expr N_MB = r.sym("N_{MB}", s.microbatches);
      t.t_comm = r.step("Pipeline sends per layer", "T_{comm}",
                        layer_time::pipeline_sends(v.b_a, B_X, v.D, N_MB, r.sym("P", s.deg.pp),
                                                   r.sym("W_{pp}", n.W_pp), r.sym("L", s.L)),
                        "s");
      break;
    }
  }
  return t;
}

void critical_steps(const CommSetup& s, const CommNumbers& n, const LayerSymbols& v, const LayerTimes& t,
                    CommFigures& f, Result& r) {
  double replicas = s.strategy == Strategy::dcn_dp ? s.deg.dp : n.X;
  if (!n.crit_per_chip) return;  // no crossover: the critical batch and the chips it allows stay null
  Expr crit = s.strategy == Strategy::fsdp_tp
                  ? layer_time::fsdp_tp_critical_per_chip(v.C, v.b_w, v.b_a, v.F_w, v.F_a, r.sym("W_f", n.W_x),
                                                          r.sym("W_{tp}", n.W_tp))
                  : (v.B / v.N) * t.t_comm / t.t_math;
  crit = r.step("Critical tokens per chip", "B^*_{chip}", crit, "tokens");
  f.critical_tokens_per_chip = crit.value();
  if (s.strategy != Strategy::fsdp_tp) {
    f.critical_tokens_per_replica =
        r.step("Critical tokens per replica", "", crit * v.N / r.sym("X", replicas), "tokens").value();
  }
  f.critical_batch_tokens = r.step("Critical global batch", "", crit * v.N, "tokens").value();
  if (crit.value() > 0) {
    f.max_chips = r.step("Most chips still compute-bound at this batch", "", floor(v.B / crit), "count").value();
  }
}

void split_steps(const CommSetup& s, const CommNumbers& n, const LayerSymbols& v, CommFigures& f, Result& r) {
  if (s.strategy != Strategy::fsdp_tp) return;  // the optimal split is fsdp_tp's alone
  Expr X_opt = r.step("Optimal FSDP degree", "X_{opt}",
                      layer_time::fsdp_tp_optimal_fsdp(v.b_a, v.b_w, v.B, v.F_w, r.sym("W_f", n.W_x),
                                                       r.sym("W_{tp}", n.W_tp), v.N),
                      "count");
  f.fsdp_opt = X_opt.value();
  f.tp_opt = *n.tp_opt;
  // Rounded in log space (⌊x + 1/2⌋ is round-half-up), within 1 and the largest power of two ≤ N.
  Expr cap = pow(2, floor(log2(v.N)));
  Expr pow2 = r.step("FSDP degree rounded in log space", "X_{2}",
                     min(max(pow(2, floor(log2(X_opt) + 0.5)), 1), cap), "count");
  f.fsdp_pow2 = pow2.value();
  f.tp_pow2 = r.step("TP degree", "Y_{2}", pow(2, floor(log2(v.N / pow2))), "count").value();
}

void tp_steps(const CommSetup& s, const CommNumbers& n, const LayerSymbols& v, const LayerTimes& t, CommFigures& f,
              Result& r) {
  if (n.tp_limit) {
    Expr budget = r.step("TP bound (compute-bound below)", s.exact_ring ? StepText("Y r(Y)") : StepText("Y_{max}"),
                         2 * v.F_a * r.sym("W_{tp}", n.W_tp) / (v.b_a * v.C) / r.sym("Z_{ep}", s.deg.ep), "count");
    // With exact ring factors the bound solves Y r(Y) = budget: in closed form on a fat tree
    // (r = (Y - G)/Y) and on one ring (r = (Y - 1)/Y); by bisection on a multi-axis torus.
    bool closed_form = !s.exact_ring || s.fabric != Fabric::ici || s.axes_tp == 1;
    if (s.exact_ring && closed_form) {
      Expr base = s.fabric == Fabric::ib_fat_tree ? r.sym("G", s.node_gpus) : Expr(1);
      budget = r.step("Largest TP degree with Y r(Y) below the bound", "Y_{max}", base + budget, "count");
    }
    double limit = closed_form ? budget.value() : *n.tp_limit;
    f.tp_limit = limit;
    f.max_tp = std::max(1.0, std::floor(limit));
  }
  if (!n.critical_F) return;
  Expr F_unit = r.sym("F", s.F_unit);
  Expr critical_F = s.strategy == Strategy::fsdp_tp
                          ? layer_time::fsdp_tp_critical_F(v.C, v.b_w, v.b_a, v.F_w, v.F_a, v.N, r.sym("W_f", n.W_x),
                                                           r.sym("W_{tp}", n.W_tp), v.B, F_unit)
                          : F_unit * t.t_comm / t.t_math;
  f.critical_F = r.step("Smallest F that is compute-bound at these degrees", "F^*", critical_F, "count").value();
}

void batch_checks(const Args& args, const CommSetup& s, const CommNumbers& n, CommFigures& f, Result& r) {
  double T = args.num("T");
  double max_dp = std::floor(s.B / T);
  f.max_dp = max_dp;
  double X = s.strategy == Strategy::dcn_dp ? s.deg.dp : n.X;
  if (X > max_dp) {
    r.warn(grouped(std::round(X)) + "-way data parallelism exceeds the batch's " + format_quantity(max_dp, "sequences") +
           " of " + format_quantity(T, "tokens") + ": the batch must also be split along the sequence.");
  }
  if (n.nvlink_stage_slower) {
    r.warn("The NVLink stage (" + format_quantity(n.nvlink_stage_bytes_per_s, "bytes/s") +
           " per replica) is slower than the scale-out stage (" + format_quantity(n.Y_f * n.W_x, "bytes/s") +
           "): the node, not the fat tree, is the bottleneck.");
  }
  if (s.strategy == Strategy::dcn_dp && s.deg.dp == 1) {
    r.warn("Data parallelism over DCN (strategy dcn_dp) with one replica (dp = 1): one slice, so nothing crosses the DCN.");
  }
}

// The layer's time with its math and communication overlapped, and the range published training
// steps on this kind of chip reach of it: their MFUs, shares of their 6·P·D bound.
void expected_layer_time(const Args& args, const Expr& t_layer, double chips, CommFigures& f, Result& r) {
  const Expr t = r.step("Layer time (math and communication overlapped)", "T_{layer}", t_layer, "s");
  f.t_layer_s = t.value();
  const ChipKind kind = args.chip().kind;
  const Band* band = band_for("training_comm", "t_layer_s", kind);
  out_expected(band, expected_output(kOutputs, "t_layer_s", "layer time"), t.value(), r);
  out_band(band, "training_comm", kind, {{"chips", chips}, {"T", args.num("T")}}, r, band_outputs(kOutputs));
}

// One chip: the layer's math alone. No collective, so no fabric, intensity, ring factor or
// critical batch; the communication time is 0 and the chip is compute-bound at any batch.
void answer_one_chip(const Args& args, const CommSetup& s, Result& r) {
  // (on a reader's own card, Mac or CPU the one chip is a device)
  const bool own = own_device_kind(args.chip().kind);
  const std::string one = own ? "One device" : "One chip", more = own ? "devices" : "chips";
  r.warn(one + ": nothing to communicate, so no collective is priced (communication time 0); give more " + more +
         " to price a strategy's collectives.");
  CommFigures f;  // one chip, one replica: the collectives' figures and the critical batch stay null
  r.out("strategy", strategy_name(s.strategy));
  r.out_null("fabric");
  f.pass = has_backward(s.strategy) ? Word("backward") : Word("forward");
  r.out("degrees", json{{"dp", 1}, {"fsdp", 1}, {"tp", 1}, {"pp", 1}, {"ep", 1}});
  f.tokens_per_chip = f.tokens_per_replica = s.B;
  Expr t_math = math_step(s, LayerSymbols(s, CommNumbers{}, r), r);
  f.t_math_s = t_math.value();
  f.t_comm_s = 0;
  f.bound = "compute";
  expected_layer_time(args, t_math, 1, f, r);
  f.max_dp = std::floor(s.B / args.num("T"));
  write_members<kOutputs>(f, r);
}

void compute(const Args& args, Result& r) {
  const Model* model = nullptr;
  double chips = 1;
  CommSetup s = read_setup(args, r, model, chips);
  if (one_chip(s)) return answer_one_chip(args, s, r);
  CommNumbers n = analyse_comm(s);
  CommFigures f;
  r.out("strategy", strategy_name(s.strategy));
  r.out("fabric", fabric_name(s.fabric));
  f.pass = has_backward(s.strategy) ? Word("backward") : Word("forward");
  f.chips = chips;
  if (s.at_optimum) {
    r.out_null("degrees");
  } else {
    r.out("degrees", json{{"dp", s.deg.dp}, {"fsdp", s.deg.fsdp}, {"tp", s.deg.tp}, {"pp", s.deg.pp},
                          {"ep", s.deg.ep}});
  }
  f.model_parallel = s.deg.tp * s.deg.pp * s.deg.ep;
  LayerSymbols v(s, n, r);
  f.tokens_per_chip = r.step("Tokens per chip", "", v.B / v.N, "tokens").value();
  double replicas = s.strategy == Strategy::dcn_dp ? s.deg.dp : n.X;
  f.tokens_per_replica = s.B / replicas;
  std::string W = W_symbol(s.fabric);
  f.collective_intensity = r.step("Collective intensity", "\\alpha", v.C / r.sym(W, s.C / n.alpha), "FLOPs/byte").value();
  f.dp_bytes_per_s = n.dp_bytes_per_s;
  f.tp_bytes_per_s = n.tp_bytes_per_s;
  f.ring_factor = n.ring;
  if (s.fabric == Fabric::ici) {  // the torus axes (M_X, M_Y) the collectives span: ICI's alone
    f.axes_fsdp = s.axes_fsdp;
    f.axes_tp = s.axes_tp;
  }
  LayerTimes t = time_steps(s, n, v, r);
  f.t_math_s = t.t_math.value();
  f.t_comm_s = t.t_comm.value();
  f.bound = t.t_math.value() >= t.t_comm.value() ? Word("compute") : Word("comms");
  expected_layer_time(args, max(t.t_math, t.t_comm), chips, f, r);
  critical_steps(s, n, v, t, f, r);
  tp_steps(s, n, v, t, f, r);
  split_steps(s, n, v, f, r);
  batch_checks(args, s, n, f, r);
  write_members<kOutputs>(f, r);
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
           choice("strategy", strategy_names(), "fsdp", "parallelism strategy analysed", strategy_titles()),
           choice("fabric", fabric_names(), nullptr,
                  "network of the analysed collective (default from chip and strategy)",
                  fabric_titles()),
           batch_tokens(4194304, "global batch in tokens"),
           integer("T", "tokens", 1, 1e8, 4096, "sequence length (for max_dp)"),
           chips(nullptr, "chips (default: product of the degrees, or a pod)"),
           degree("dp", "data-parallel replicas"), degree("fsdp", "FSDP degree"), degree("tp", "tensor parallelism"),
           degree("pp", "pipeline stages"), degree("ep", "expert parallelism"),
           integer("axes_fsdp", "count", 1, 8, nullptr,
                   "torus axes the FSDP/DP collective spans (M_X; default: the fewest of the pod's axes that "
                   "hold its chips; for fsdp_tp, the axes the slice needs beyond the TP group's)",
                   Scale::linear),
           integer("axes_tp", "count", 1, 8, nullptr,
                   "torus axes tensor parallelism spans (M_Y; default: the fewest of the pod's axes that hold "
                   "the TP group; 1 for fsdp_tp at its optimum)",
                   Scale::linear),
           dtype("weight_dtype", "dtype of the weights moved"),
           dtype("activation_dtype", "dtype of the activations moved"),
           dtype("compute_dtype", "dtype of the arithmetic: picks the FLOP/s rate"),
           boolean("exact_ring", false, "apply the ring factor (n−1)/n over the participants"),
           boolean("sharp", false, "in-network reduction (SHARP) for dp on nvlink/ib_fat_tree"),
           integer("microbatches", "count", 1, 1e6, nullptr, "pipeline microbatches (default pp)")},
          compute,
          outputs_of(kOutputs)};
}

}  // namespace scalelab
