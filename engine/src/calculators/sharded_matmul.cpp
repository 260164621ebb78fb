// `sharded_matmul` (ch 3, 10): A[...] * B[...] -> C[...] on a device mesh. Classifies the
// book's four cases, plans the collectives that make the product legal and the output match the
// requested sharding, and prices them against the local matmul.
#include <algorithm>
#include <cmath>
#include <map>

#include "calculators/calculators.hpp"
#include "core/format_words.hpp"
#include "core/output_rows.hpp"
#include "models/collective_model.hpp"
#include "models/expected.hpp"
#include "models/common.hpp"
#include "models/topology.hpp"
#include "models/sharding_spec.hpp"
#include "schema/params.hpp"

namespace scalelab {
namespace {

// sharded_matmul's outputs, in the order results list them (name, unit, label, doc, nullable): compute
// writes each where it makes it (r.out), none is read from a figures struct by write_members.
// clang-format off
constexpr Output kOutputs[] = {
    {"case", "count", "case", "which of the book's four sharded-matmul cases applies (1 to 4)", false},
    {"valid", "", "valid", "false when the spec is invalid as written", false},
    {"error", "", "problem", "why the spec is invalid (null when valid)", true},
    {"collectives", "", "collectives", "the collectives the matmul needs, each with op, axes, bytes and time (null when the spec is invalid)", true},
    {"t_comm_s", "s", "comms time", "time of the collectives (null when the spec is invalid)", true},
    {"t_math_s", "s", "math time", "local FLOPs divided by the chip's FLOP/s (null when the spec is invalid)", true},
    {"t_s", "s", "total time", "comms and math time as the strategy overlaps them (null when the spec is invalid)", true},
    {"bound", "", "bound", "what limits the matmul: compute or comms (null when the spec is invalid)", true},
    {"local_flops", "FLOPs", "FLOPs per device", "FLOPs one device performs (null when the spec is invalid)", true},
    {"flops", "FLOPs", "total FLOPs", "FLOPs over all devices, replicated work counted (null when the spec is invalid)", true},
    {"output_spec", "", "output sharding", "sharding of the result (null when the spec is invalid)", true},
    {"expected_t_s_low", "s", "expected time, short", "the total time over the high end of the share published runs of its bounding term reach: large matmuls when compute-bound, collectives over a TPU slice's ICI when comms-bound (null when the spec is invalid, off a TPU's catalog links, or where no runs calibrate it)", true},
    {"expected_t_s_high", "s", "expected time, long", "the total time over the low end of that share (null when the spec is invalid, off a TPU's catalog links, or where no runs calibrate it)", true},
    {"expected_runs", "count", "published runs behind the range", "how many published runs of the bounding term the range is fitted to (null where no runs calibrate it)", true},
    {"expected_share_low", "ratio", "expected share of the bound, low", "the low end of the share of the bound those runs reached (null where no runs calibrate it)", true},
    {"expected_share_high", "ratio", "expected share of the bound, high", "the high end of the share of the bound those runs reached (null where no runs calibrate it)", true},
    {"expected_covered", "", "setup within the published runs", "whether the chip's kind lies within what the published runs took (null where no runs calibrate it)", true},
    {"expected_outside", "", "setup beyond the published runs", "a sentence naming the chip's kind where it lies outside what the published runs took (null when it does not, or where no runs calibrate it)", true},
};
// clang-format on

using Axes = std::vector<std::string>;

constexpr double kMaxElements = 1e30;  // keeps every product finite

bool contains(const Axes& axes, const std::string& x) { return std::find(axes.begin(), axes.end(), x) != axes.end(); }

Axes minus(const Axes& axes, const Axes& removed) {
  Axes out;
  for (const auto& x : axes) {
    if (!contains(removed, x)) out.push_back(x);
  }
  return out;
}

std::string concat(const Axes& axes) {
  std::string s;
  for (const auto& a : axes) s += a;
  return s;
}

void remove_axes(ArraySpec& array, const Axes& axes) {
  for (DimSpec& d : array.dims) d.axes = minus(d.axes, axes);
}

// The dimension of `array` that `axis` shards; empty if none.
std::string dim_holding(const ArraySpec& array, const std::string& axis) {
  for (const DimSpec& d : array.dims) {
    if (contains(d.axes, axis)) return d.name;
  }
  return "";
}

struct Problem {
  ArraySpec a, b;
  std::optional<ArraySpec> out;
  std::string contracted;
  Axes free_a, free_b;
  std::map<std::string, double> size;
  double bytes_a = 2, bytes_b = 2, bytes_c = 2;  // per element

  double elements(const ArraySpec& array) const {
    double n = 1;
    for (const DimSpec& d : array.dims) n *= size.at(d.name);
    return n;
  }
};

struct Planned {
  CollectiveOp op;
  Axes axes;
  std::string array;
  double bytes = 0;
};

struct Plan {
  int case_number = 1;
  bool valid = true;
  std::string error;
  bool one_sided_contraction = false;  // a case-2 stage, where `strategy` chooses
  std::vector<Planned> collectives;
  ArraySpec a, b, c;  // as multiplied, and C as delivered
  std::vector<std::string> notes;
};

// ---- Parsing and checks ----

Problem parse_problem(const Args& args, const Mesh& mesh) {
  SpecReader reader(args.str("spec"), mesh, "spec");
  Problem p;
  p.a = reader.array(false);
  // The book writes the product with a centred dot; "*" is the ASCII spelling.
  if (!reader.accept("\u00b7")) reader.expect("*", "'*' (or '\u00b7') between the two inputs");
  p.b = reader.array(false);
  if (reader.accept("->") || reader.accept("\u2192")) p.out = reader.array(true);
  if (!reader.at_end()) reader.fail("unexpected text after the spec", reader.position());
  for (const ArraySpec* arr : {&p.a, &p.b}) {
    std::string twice = arr->repeated_axis();
    if (!twice.empty()) throw InputError("spec", "mesh axis " + twice + " is used twice in " + arr->name);
  }
  Axes shared;
  for (const DimSpec& d : p.a.dims) {
    if (p.b.find(d.name)) shared.push_back(d.name);
    else p.free_a.push_back(d.name);
  }
  for (const DimSpec& d : p.b.dims) {
    if (!p.a.find(d.name)) p.free_b.push_back(d.name);
  }
  if (shared.size() != 1) {
    throw InputError("spec", shared.empty() ? p.a.name + " and " + p.b.name + " share no dimension: name the "
                                                  "contracted dimension in both inputs"
                                            : p.a.name + " and " + p.b.name + " share " + std::to_string(shared.size()) +
                                                  " dimensions; exactly one (the contracted one) is allowed");
  }
  p.contracted = shared.front();
  p.bytes_a = args.dtype("activation_dtype");
  p.bytes_b = args.dtype("weight_dtype");
  p.bytes_c = args.dtype("output_dtype");
  return p;
}

void check_output_dims(const Problem& p) {
  if (!p.out) return;
  Axes expected = p.free_a;
  expected.insert(expected.end(), p.free_b.begin(), p.free_b.end());
  bool same = p.out->dims.size() == expected.size() &&
              std::all_of(expected.begin(), expected.end(), [&](const std::string& d) { return p.out->find(d); });
  if (!same) {
    std::string list;
    for (const auto& d : expected) list += (list.empty() ? "" : ", ") + d;
    throw InputError("spec", "the output " + p.out->name + " must have exactly the free dimensions " + list +
                                 " (the contracted " + p.contracted + " disappears)");
  }
}

void read_dims(const Args& args, Problem& p, const Mesh& mesh) {
  const json& dims = args.raw("dims");
  for (const ArraySpec* arr : {&p.a, &p.b}) {
    for (const DimSpec& d : arr->dims) {
      if (!dims.contains(d.name)) throw InputError("dims", "has no size for dimension " + d.name + " of the spec");
      p.size[d.name] = dims[d.name].get<double>();
    }
  }
  double elements = 1;
  for (auto it = dims.begin(); it != dims.end(); ++it) {
    if (!p.size.count(it.key())) throw InputError("dims." + it.key(), "is not a dimension of the spec");
    elements *= it.value().get<double>();
  }
  if (elements > kMaxElements) {
    throw InputError("dims", "multiply to more than " + plain(kMaxElements) + ": the matmul is too large to price");
  }
  std::vector<const ArraySpec*> arrays = {&p.a, &p.b};
  if (p.out) arrays.push_back(&*p.out);
  for (const ArraySpec* arr : arrays) {
    for (const DimSpec& d : arr->dims) {
      double shards = mesh.size(d.axes);
      if (std::fmod(p.size[d.name], shards) != 0) {
        throw InputError("dims." + d.name, grouped(p.size[d.name]) + " does not divide into the " + grouped(shards) +
                                               " shards of " + d.name + "_" + concat(d.axes) + " in " + arr->name);
      }
    }
  }
}

// ---- Planning ----

Axes case4_axes(const Problem& p, const Mesh& mesh) {
  Axes on_a, both;
  for (const auto& d : p.free_a) {
    const Axes& axes = p.a.find(d)->axes;
    on_a.insert(on_a.end(), axes.begin(), axes.end());
  }
  for (const auto& d : p.free_b) {
    for (const auto& x : p.b.find(d)->axes) {
      if (contains(on_a, x)) both.push_back(x);
    }
  }
  return mesh.ordered(both);
}

// An axis may appear twice in the output only as case 4's clash (then the plan is invalid).
void check_output_axes(const ArraySpec& out, const Axes& case4) {
  for (const DimSpec& d : out.dims) {
    for (size_t i = 0; i < d.axes.size(); ++i) {
      if (contains(Axes(d.axes.begin() + i + 1, d.axes.end()), d.axes[i])) {
        throw InputError("spec", "mesh axis " + d.axes[i] + " appears twice in " + d.name + " of " + out.name);
      }
    }
  }
  std::string twice = out.repeated_axis();
  if (!twice.empty() && !contains(case4, twice)) {
    throw InputError("spec", "mesh axis " + twice + " is used twice in the output " + out.name);
  }
}

int classify(const Problem& p, const Axes& case4) {
  const Axes& ja = p.a.find(p.contracted)->axes;
  const Axes& jb = p.b.find(p.contracted)->axes;
  if (!case4.empty()) return 4;
  if (!ja.empty() && !jb.empty()) return 3;
  return ja.empty() && jb.empty() ? 1 : 2;
}

void check_contracted(const Problem& p, const Mesh& mesh) {
  Axes ja = mesh.ordered(p.a.find(p.contracted)->axes), jb = mesh.ordered(p.b.find(p.contracted)->axes);
  if (!ja.empty() && !jb.empty() && ja != jb) {
    throw InputError("spec", "the contracted dimension " + p.contracted + " is sharded over " + concat(ja) + " in " +
                                 p.a.name + " but over " + concat(jb) + " in " + p.b.name +
                                 "; shard it identically in both inputs, or in one only");
  }
}

// Case 4: the output decides which input gives up the shared axis (sharding.md).
void resolve_case4(const Problem& p, const Axes& case4, Plan& plan, std::map<std::string, Axes>& gathers) {
  double size_a = p.elements(p.a) * p.bytes_a, size_b = p.elements(p.b) * p.bytes_b;
  for (const auto& x : case4) {
    std::string dim_a = dim_holding(p.a, x), dim_b = dim_holding(p.b, x);
    std::string clash = x + " shards " + dim_a + " of " + p.a.name + " and " + dim_b + " of " + p.b.name;
    if (!p.out) {
      plan.valid = false;
      plan.error = "Invalid as written (case 4): " + clash + ", so the output would use " + x +
                   " twice. Give an output that keeps " + x + " on one of them, or AllGather an input over " + x + ".";
      return;
    }
    bool on_a = contains(p.out->find(dim_a)->axes, x), on_b = contains(p.out->find(dim_b)->axes, x);
    if (on_a && on_b) {
      plan.valid = false;
      plan.error = "Invalid (case 4): " + clash + ", and the output " + format_array(*p.out) + " uses " + x + " twice.";
      return;
    }
    bool gather_a = on_b || (!on_a && size_a <= size_b);
    const ArraySpec& victim = gather_a ? p.a : p.b;
    gathers[victim.name].push_back(x);
    plan.notes.push_back("Case 4: " + clash + "; " + victim.name + " is AllGathered over " + x +
                         (on_a || on_b ? " because the output keeps " + x + " on " + (on_a ? dim_a : dim_b)
                                       : " because it is the smaller input") + ".");
  }
}

// The contraction: unreduced axes it leaves on C, after any gather that case 2 needs.
Axes contract(const Problem& p, const Mesh& mesh, const std::string& strategy, Plan& plan,
              std::map<std::string, Axes>& gathers) {
  Axes ja = plan.a.find(p.contracted)->axes, jb = plan.b.find(p.contracted)->axes;
  if (!ja.empty() && !jb.empty()) return mesh.ordered(ja);
  if (ja.empty() && jb.empty()) return {};
  plan.one_sided_contraction = true;
  bool a_sharded = !ja.empty();
  ArraySpec& sharded = a_sharded ? plan.a : plan.b;
  ArraySpec& other = a_sharded ? plan.b : plan.a;
  Axes S = a_sharded ? ja : jb;
  if (strategy == "reduce_after") {
    for (const auto& x : S) {
      if (contains(other.used_axes(), x)) {
        throw InputError("strategy", "reducing C after (reduce_after) would slice " + other.name + "'s " + p.contracted +
                                         " over " + x + ", but " + other.name + " already uses " + x + " on " +
                                         dim_holding(other, x) + "; AllGather the input first (gather_first)");
      }
    }
    other.find(p.contracted)->axes = S;
    return mesh.ordered(S);
  }
  Axes& g = gathers[sharded.name];
  g.insert(g.end(), S.begin(), S.end());
  sharded.find(p.contracted)->axes.clear();
  return {};
}

void plan_input_gathers(const Problem& p, const Mesh& mesh, Plan& plan, const std::map<std::string, Axes>& gathers) {
  for (const ArraySpec* arr : {&plan.a, &plan.b}) {
    auto it = gathers.find(arr->name);
    if (it == gathers.end() || it->second.empty()) continue;
    double element = arr == &plan.a ? p.bytes_a : p.bytes_b;
    double bytes = p.elements(*arr) * element / mesh.size(arr->used_axes());
    plan.collectives.push_back({CollectiveOp::all_gather, mesh.ordered(it->second), arr->name, bytes});
  }
}

ArraySpec natural_output(const Problem& p, const Plan& plan, const Axes& unreduced) {
  ArraySpec c;
  c.name = p.out ? p.out->name : "C";
  for (const auto& d : p.free_a) c.dims.push_back(*plan.a.find(d));
  for (const auto& d : p.free_b) c.dims.push_back(*plan.b.find(d));
  c.unreduced = unreduced;
  return c;
}

// Brings C from its natural sharding to the requested one (sharding.md): free slices, then
// ReduceScatter / AllReduce of pending sums, then AllToAll of moved axes, then AllGather.
void reconcile(const Problem& p, const Mesh& mesh, ArraySpec& c, const ArraySpec& want, Plan& plan) {
  double c_bytes = p.elements(c) * p.bytes_c;
  auto block = [&](const Axes& excluding) { return c_bytes / mesh.size(minus(c.used_axes(), excluding)); };
  for (const auto& x : want.unreduced) {
    if (!contains(c.unreduced, x)) {
      throw InputError("spec", "the output cannot stay unreduced over " + x + ": the local products hold no "
                               "partial sums over " + x);
    }
  }
  Axes wanted = want.used_axes(), current = c.used_axes();
  for (const auto& x : wanted) {
    if (!contains(current, x) && !contains(c.unreduced, x)) c.find(dim_holding(want, x))->axes.push_back(x);
  }
  Axes pending = minus(c.unreduced, want.unreduced), scatter, reduce;
  for (const auto& x : pending) (contains(wanted, x) ? scatter : reduce).push_back(x);
  if (!scatter.empty()) {
    plan.collectives.push_back({CollectiveOp::reduce_scatter, mesh.ordered(scatter), c.name, block({})});
    for (const auto& x : scatter) c.find(dim_holding(want, x))->axes.push_back(x);
  }
  if (!reduce.empty()) {
    plan.collectives.push_back({CollectiveOp::all_reduce, mesh.ordered(reduce), c.name, block({})});
  }
  c.unreduced = want.unreduced;
  Axes moved, gone;
  for (const auto& x : c.used_axes()) {
    if (!contains(wanted, x)) gone.push_back(x);
    else if (dim_holding(c, x) != dim_holding(want, x)) moved.push_back(x);
  }
  // Moving an axis between dimensions leaves the set of axes in use, hence the block sizes, as is.
  if (!moved.empty()) plan.collectives.push_back({CollectiveOp::all_to_all, mesh.ordered(moved), c.name, block(moved)});
  if (!gone.empty()) plan.collectives.push_back({CollectiveOp::all_gather, mesh.ordered(gone), c.name, block(gone)});
  ArraySpec delivered = want;
  delivered.name = c.name;
  c = delivered;
}

Plan make_plan(const Problem& p, const Mesh& mesh, const std::string& strategy) {
  Plan plan;
  plan.a = p.a;
  plan.b = p.b;
  Axes case4 = case4_axes(p, mesh);
  plan.case_number = classify(p, case4);
  std::map<std::string, Axes> gathers;
  resolve_case4(p, case4, plan, gathers);
  if (!plan.valid) return plan;
  remove_axes(plan.a, gathers[p.a.name]);
  remove_axes(plan.b, gathers[p.b.name]);
  Axes unreduced = contract(p, mesh, strategy, plan, gathers);
  plan_input_gathers(p, mesh, plan, gathers);
  plan.c = natural_output(p, plan, unreduced);
  ArraySpec want = p.out ? *p.out : plan.c;
  if (!p.out) want.unreduced.clear();
  reconcile(p, mesh, plan.c, want, plan);
  return plan;
}

// ---- Pricing ----

std::vector<double> mesh_sizes(const Mesh& mesh) {
  std::vector<double> sizes;
  for (const auto& name : mesh.names()) sizes.push_back(mesh.size(name));
  return sizes;
}

// Whether a mesh axis is a ring with wraparound on this chip's torus (assumed without a rule).
bool mesh_axis_wraps(const Chip& chip, const Mesh& mesh, const std::string& axis) {
  auto wrap = hardware_wraparound(chip, mesh_sizes(mesh));
  if (!wrap) return true;
  auto names = mesh.names();
  return (*wrap)[std::find(names.begin(), names.end(), axis) - names.begin()];
}

// A TPU mesh must be a slice of one pod's torus (refused where it is not).
void check_mesh_topology(const Chip& chip, const Mesh& mesh) {
  if (!chip.is_tpu()) return;
  check_ici_slice(chip, mesh_sizes(mesh), "mesh");
}

// Its rings wrap only where the chip's do: said of the axes a collective is priced over, and only
// those (a product with no communication has no ring to price, so no wraparound to warn about).
void warn_wraparound(const Chip& chip, const Mesh& mesh, const Plan& plan, Result& r) {
  if (!chip.is_tpu()) return;
  std::vector<std::string> used;
  for (const Planned& c : plan.collectives) {
    for (const auto& x : c.axes) {
      if (std::find(used.begin(), used.end(), x) == used.end()) used.push_back(x);
    }
  }
  if (used.empty()) return;
  if (!hardware_wraparound(chip, mesh_sizes(mesh))) {
    r.warn("The catalog states no wraparound rule for " + chip.name() + ": every mesh axis is priced as a ring "
           "with wraparound.");
    return;
  }
  // An axis of two without wraparound costs what a ring of two costs (one hop, either way): said
  // beside the longer axes, so a warning about one axis of two does not leave the other unexplained.
  std::vector<std::string> pairs;
  bool longer = false;
  for (const auto& name : mesh.names()) {
    if (std::find(used.begin(), used.end(), name) == used.end()) continue;
    if (mesh.size(name) < 2 || mesh_axis_wraps(chip, mesh, name)) continue;
    if (mesh.size(name) == 2) {
      pairs.push_back(name);
      continue;
    }
    longer = true;
    r.warn("Mesh axis " + name + " (" + plain(mesh.size(name)) + " chips) has no wraparound on " + chip.name() +
           " (" + wraparound_rule(chip) + "): its collectives are priced as one-way rings.");
  }
  if (longer && !pairs.empty()) {
    std::string names;
    for (size_t i = 0; i < pairs.size(); ++i) names += (i == 0 ? "" : i + 1 == pairs.size() ? " and " : ", ") + pairs[i];
    r.warn("Mesh axis" + std::string(pairs.size() > 1 ? "es " : " ") + names + (pairs.size() > 1 ? " (2 chips each) " : " (2 chips) ") +
           (pairs.size() > 1 ? "have" : "has") + " no wraparound either, but two chips are one hop apart both "
           "ways, so " + (pairs.size() > 1 ? "they cost" : "it costs") + " the same as a ring.");
  }
}

CollectiveCost price(const Args& args, const Mesh& mesh, const Planned& c, const Steps& log = Steps()) {
  const Chip& chip = args.chip();
  if (chip.is_gpu()) {
    double N = mesh.size(c.axes), domain = chip.need(&Chip::node_gpus, "it sets how many GPUs share one NVLink domain");
    if (N > domain) {
      throw InputError("mesh", "axes " + concat(c.axes) + " span " + plain(N) + " GPUs, more than the " +
                                   plain(domain) + "-GPU NVLink node this calculator models");
    }
    return switched_collective(c.op, c.bytes, {"nvlink", N, chip.need(&Chip::nvlink_bytes_per_s, "collectives inside an NVLink domain are priced at it"), 0, false}, {}, log);
  }
  std::vector<RingAxis> rings;
  for (const auto& x : c.axes) rings.push_back({mesh.size(x), mesh_axis_wraps(chip, mesh, x), true});
  IciLinks links{chip.need(&Chip::ici_link_bytes_per_s, "ICI collectives are priced at one link's bandwidth"), chip.ici_hop_latency_s.value_or(1e-6)};
  return ici_collective(c.op, c.bytes, rings, links, {}, log);
}

double comm_time(const Args& args, const Mesh& mesh, const Plan& plan) {
  double t = 0;
  for (const Planned& c : plan.collectives) t += price(args, mesh, c).t_s;
  return t;
}

struct Math {
  double local_flops = 0, flops = 0, t_s = 0;
};

// F_local = 2 ∏_d n_d / s_d over A's dimensions and B's free ones (n_d a dimension's size, s_d its shards).
Expr local_flops_of(const Problem& p, const Mesh& mesh, const Plan& plan, const Steps& log = Steps()) {
  Expr f = 2;
  auto times = [&](const std::string& d, const std::vector<std::string>& axes) {
    f = f * frac(log.sym("n_{" + d + "}", p.size.at(d)), log.sym("s_{" + d + "}", mesh.size(axes)));
  };
  for (const DimSpec& d : plan.a.dims) times(d.name, d.axes);
  for (const auto& d : p.free_b) times(d, plan.b.find(d)->axes);
  return f;
}

Math local_math(const Args& args, const Problem& p, const Mesh& mesh, const Plan& plan, Result& r) {
  const Steps log = r.log();
  Math m;
  Expr local = log.step("Local FLOPs", "F_{local}", local_flops_of(p, mesh, plan, log), "FLOPs");
  m.local_flops = local.value();
  m.flops = log.step("FLOPs on all devices (replicas included)", "F", local * log.sym("N", mesh.devices()), "FLOPs").value();
  m.t_s = log.step("Math time", "T_{math}", local / log.sym("C", compute_flops(args, r)), "s").value();
  return m;
}

void out_invalid(Result& r, const Plan& plan) {
  r.out("case", plan.case_number);
  r.out("valid", false);
  r.out("error", plan.error);
  for (const char* name : {"collectives", "t_comm_s", "t_math_s", "t_s", "bound", "local_flops", "flops",
                           "output_spec", "expected_t_s_low", "expected_t_s_high"}) {
    r.out_null(name);
  }
  out_band(nullptr, "sharded_matmul", ChipKind{}, {}, r, band_outputs(kOutputs));
  r.warn(plan.error);
}

// The range published runs reach of the bound, from the term that sets it: large matmuls when the
// math is the longer, collectives over a TPU slice's ICI when the comms are.
void expected_time(const Args& args, double t_math, double t_comm, double t, Result& r) {
  const ChipKind kind = args.chip().kind;
  const Band* band = t > 0 ? band_for("sharded_matmul", t_math >= t_comm ? "t_math_s" : "t_comm_s", kind) : nullptr;
  out_expected(band, expected_output(kOutputs, "t_s", "matmul time"), t, r);
  out_band(band, "sharded_matmul", kind, {}, r, band_outputs(kOutputs));
}

json collectives_json(const Args& args, const Mesh& mesh, const Plan& plan, Result& r, double& t_comm) {
  json list = json::array();
  Expr sum = 0;
  bool first = true;
  for (const Planned& c : plan.collectives) {
    std::string title = r.record_steps ? collective_op_title(c.op) + " " + c.array + " over " + concat(c.axes) : "";
    CollectiveCost cost = price(args, mesh, c, r.log().prefixed(title + ": "));
    Expr term = r.sym("T_{" + std::to_string(list.size() + 1) + "}", cost.t_s);
    sum = first ? term : sum + term;
    first = false;
    list.push_back({{"op", collective_op_name(c.op)}, {"axes", c.axes}, {"array", c.array}, {"bytes", c.bytes},
                    {"t_s", cost.t_s}});
  }
  t_comm = r.step("Communication time (collectives in sequence)", "T_{comm}", sum, "s").value();
  return list;
}

// Case 2: says so when the other strategy would be faster overall.
void compare_strategies(const Args& args, const Problem& p, const Mesh& mesh, const std::string& strategy,
                        double t, Result& r) {
  std::string other = strategy == "gather_first" ? "reduce_after" : "gather_first";
  try {
    Plan alt = make_plan(p, mesh, other);
    double t_math = local_flops_of(p, mesh, alt).value() / compute_rate(args, args.chip()).flops_per_s;
    double t_alt = std::max(t_math, comm_time(args, mesh, alt));
    if (t_alt < t) {
      const std::string words = other == "gather_first" ? "AllGathering the sharded input first"
                                                         : "Multiplying the local slices and reducing C after";
      r.warn(words + " (strategy " + other + ") would be faster: " + format_quantity(t_alt, "s") + " instead of " +
             format_quantity(t, "s") + ".");
    }
  } catch (const InputError&) {
    // the other strategy is illegal here: nothing to compare
  }
}

void compute(const Args& args, Result& r) {
  Mesh mesh(args.raw("mesh"));
  check_mesh_topology(args.chip(), mesh);
  Problem p = parse_problem(args, mesh);
  check_output_dims(p);
  read_dims(args, p, mesh);
  check_contracted(p, mesh);
  if (p.out) check_output_axes(*p.out, case4_axes(p, mesh));
  std::string strategy = args.str("strategy");
  Plan plan = make_plan(p, mesh, strategy);
  if (!plan.valid) return out_invalid(r, plan);
  if (args.given("strategy") && !plan.one_sided_contraction) {
    r.warn("strategy applies only to case 2 (one input sharded on the contracted dimension); ignored here.");
  }
  warn_wraparound(args.chip(), mesh, plan, r);
  for (const auto& note : plan.notes) r.warn(note);

  double t_comm = 0;
  json collectives = collectives_json(args, mesh, plan, r, t_comm);
  Math math = local_math(args, p, mesh, plan, r);
  double t_math = math.t_s;
  double t = r.step("Time (overlapped)", "T", max(r.sym("T_{math}", t_math), r.sym("T_{comm}", t_comm)), "s").value();
  r.out("case", plan.case_number);
  r.out("valid", true);
  r.out_null("error");
  r.out("collectives", collectives);
  r.out("t_comm_s", t_comm);
  r.out("t_math_s", t_math);
  r.out("t_s", t);
  r.out("bound", t_math >= t_comm ? "compute" : "comms");
  r.out("local_flops", math.local_flops);
  r.out("flops", math.flops);
  r.out("output_spec", format_array(plan.c));
  expected_time(args, t_math, t_comm, t, r);
  if (plan.one_sided_contraction) compare_strategies(args, p, mesh, strategy, t, r);
}

}  // namespace

Calculator make_sharded_matmul() {
  using namespace params;
  Param size = integer("n", "count", 1, kMaxDimensionSize, nullptr, "dimension size");
  Param dims = map("dims", size, "size of every dimension named in the spec");
  dims.default_value = {{"I", 1024}, {"J", 8192}, {"K", 32768}};
  Param axis = integer("n", "count", 1, 1e6, nullptr, "devices along the axis");
  Param mesh = map("mesh", axis, "mesh axis sizes, e.g. {\"X\": 4, \"Y\": 2}");
  mesh.default_value = {{"X", 4}, {"Y", 2}};
  mesh.unit = dims.unit = "count";
  return {"sharded_matmul", "Sharded matmul", {3, 10},
          "A matmul of sharded arrays: which of the book's four cases it is, the collectives it needs, "
          "and whether the math or the communication limits it.",
          {params::chip("tpu-v5p"), chip_overrides(),
           text("spec", "A[I_X, J] * B[J, K_Y] -> C[I_X, K_Y]",
                "A[...] * B[...] -> C[...] in the book's notation (· also separates the inputs); the output may carry "
                "{U_X} (unreduced) "
                "or be omitted"),
           dims, mesh,
           dtype("activation_dtype", "dtype of the first input"),
           dtype("weight_dtype", "dtype of the second input"),
           dtype("output_dtype", "dtype of the output"),
           dtype("compute_dtype", "dtype of the arithmetic: picks the FLOP/s rate"),
           choice("strategy", {"gather_first", "reduce_after"}, "gather_first",
                  "case 2: AllGather the sharded input first, or multiply the local slices and reduce C after",
                  {"AllGather the input first", "multiply, then reduce C"})},
          compute,
          outputs_of(kOutputs)};
}

}  // namespace scalelab
