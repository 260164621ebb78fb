// `collective` (ch 3, 7, 12): AllGather, ReduceScatter, AllReduce and AllToAll on an ICI
// torus, inside an NVLink node, across an InfiniBand fat tree, or over DCN.
#include <cmath>

#include "calculators/calculators.hpp"
#include "core/format_words.hpp"
#include "core/output_rows.hpp"
#include "models/expected.hpp"
#include "models/collective_model.hpp"
#include "models/common.hpp"
#include "models/topology.hpp"
#include "schema/params.hpp"

namespace scalelab {
namespace {

// collective's outputs, in the order results list them (name, unit, label, doc, nullable): compute
// writes each where it makes it (r.out), none is read from a figures struct by write_members.
// clang-format off
constexpr Output kOutputs[] = {
    {"fabric", "", "fabric", "the network the collective runs on", false},
    {"axes", "", "axes", "sizes of the mesh axes the collective spans", false},
    {"t_s", "s", "collective time", "the larger of the bandwidth time and the latency time", false},
    {"t_bandwidth_s", "s", "bandwidth time", "time to push the bytes through the links", false},
    {"t_latency_s", "s", "latency time", "hops times the per-hop latency", false},
    {"regime", "", "regime", "whether bandwidth or latency dominates", false},
    {"hops", "count", "hops", "sequential hops the collective takes", false},
    {"bytes_per_link", "bytes", "bytes per link", "bytes each link carries (null where links are not modelled)", true},
    {"latency_bound_below_bytes", "bytes", "latency-bound below", "chunk size (V/N) under which the collective is latency-bound: where its hops' latency equals its bandwidth term", true},
    {"effective_bytes_per_s", "bytes/s", "effective rate", "array bytes divided by the collective time (null when it takes no time)", true},
    {"bottleneck", "", "bottleneck", "the tier that limits a GPU collective: nvlink, leaf or spine", true},
    {"chunk_bytes", "bytes", "chunk per hop", "bytes one device passes on per hop", false},
    {"levels", "", "levels", "the collective's phases on a hierarchical fabric, each with its time", false},
    {"group_size", "count", "group size", "devices taking part", false},
    {"wraparound", "", "wraparound priced", "whether each axis was priced as a ring with wraparound (null off the ICI torus)", true},
    {"expected_t_s_low", "s", "expected time, short", "the collective time over the high end of the share published collectives of this fabric reach: inside one NVLink node, over a TPU slice's ICI, or between GPU nodes (null over DCN, with a link given instead of the chip's, or where no runs calibrate it)", true},
    {"expected_t_s_high", "s", "expected time, long", "the collective time over the low end of the share published collectives of this fabric reach: inside one NVLink node, over a TPU slice's ICI, or between GPU nodes (null over DCN, with a link given instead of the chip's, or where no runs calibrate it)", true},
    {"expected_runs", "count", "published runs behind the range", "how many published collectives of this fabric the expected range is fitted to (null where no runs calibrate it)", true},
    {"expected_share_low", "ratio", "expected share of the bound, low", "the low end of the share of the bound published collectives of this fabric reached (null where no runs calibrate it)", true},
    {"expected_share_high", "ratio", "expected share of the bound, high", "the high end of the share of the bound published collectives of this fabric reached (null where no runs calibrate it)", true},
    {"expected_covered", "", "setup within the published runs", "whether the chip's kind and the settings lie within what the published runs took (null where no runs calibrate it)", true},
    {"expected_outside", "", "setup beyond the published runs", "a sentence naming the chip's kind or the settings that lie outside what the published runs took, and what they took (null when none does, or where no runs calibrate it)", true},
};
// clang-format on

std::string resolve_fabric(const Args& args) {
  if (args.given("fabric")) return args.str("fabric");
  if (!args.chip().is_gpu()) return "ici";
  return args.num_if("nodes").value_or(1) > 1 ? "ib_fat_tree" : "nvlink";
}

void refuse_options(const Args& args, const std::string& fabric, CollectiveOp op) {
  if (fabric == "ici") {
    for (const char* p : {"gpus_per_node", "nodes", "inner_axis_size", "nodes_per_su"}) {
      refuse_if_given(args, p, "applies only to GPU fabrics (ib_fat_tree), not to fabric ici");
    }
    refuse_if_given(args, "sharp", "applies only to switched GPU fabrics (nvlink, ib_fat_tree): ICI has no "
                                   "in-network reduction");
  } else {
    const std::string why = "applies only to fabric ici, not to " + fabric;
    refuse_if_given(args, "wraparound", why);
    refuse_if_given(args, "bidirectional", why);
    refuse_if_given(args, "link_bytes_per_s", why + "; change the chip's NVLink, InfiniBand or DCN bandwidth in a "
                                                    "custom chip (chip_overrides)");
  }
  if (fabric != "ib_fat_tree" && fabric != "ici") {
    for (const char* p : {"gpus_per_node", "inner_axis_size", "nodes_per_su"}) {
      refuse_if_given(args, p, "applies only to fabric ib_fat_tree, not to " + fabric);
    }
  }
  if (fabric == "dcn") {
    refuse_if_given(args, "sharp", "applies only to nvlink and ib_fat_tree: DCN has no in-network reduction");
    refuse_if_given(args, "nodes", "does not apply to fabric dcn: give the group as axes");
  }
  if (fabric == "nvlink" && args.num_if("nodes").value_or(1) > 1) {
    throw InputError("nodes", "nvlink covers one NVLink node; use fabric ib_fat_tree for " +
                                  plain(args.num("nodes")) + " nodes");
  }
  if (op != CollectiveOp::all_to_all) refuse_if_given(args, "ragged_k", "applies only to op all_to_all");
}

std::vector<double> given_axes(const Args& args) {
  std::vector<double> axes;
  if (args.has("axes")) {
    for (const auto& n : args.raw("axes")) axes.push_back(n.get<double>());
  }
  return axes;
}

double product(const std::vector<double>& xs) {
  double p = 1;
  for (double x : xs) p *= x;
  return p;
}

std::optional<double> ragged_k(const Args& args) { return args.num_if("ragged_k"); }

// No chip named and the link's bandwidth given: the axes are the reader's own rings (the book's
// chip-free ring questions), not a slice of the default chip's pod.
bool own_rings(const Args& args) {
  return !args.given("chip") && !args.given("chip_overrides") && args.given("link_bytes_per_s");
}

CollectiveCost on_ici(const Args& args, CollectiveOp op, double bytes, std::vector<double>& axes,
                      IciLinks& links, Result& r) {
  const Chip& chip = args.chip();
  bool own = own_rings(args);
  if (axes.empty() && own) {
    throw InputError("axes", "is required when no chip is named: give the length of each ring (axes: [8])");
  }
  if (axes.empty()) axes = chip.pod_shape();
  if (axes.empty()) throw InputError("axes", "is required: " + chip.name() + " has no pod of linked chips to take the ring lengths from (pod_shape)");
  if (!own) check_ici_slice(chip, axes, "axes");
  json given_wrap = args.given("wraparound") ? args.raw("wraparound") : json();
  // The reader's own rings wrap around unless they say not; a chip's axes wrap as its torus does.
  std::vector<bool> wrap = !own                ? resolve_wraparound(chip, axes, given_wrap, r)
                           : given_wrap.is_null() ? std::vector<bool>(axes.size(), true)
                                                  : given_wraparound(axes, given_wrap);
  r.out("wraparound", wrap);  // per axis, as priced
  bool bidirectional = args.flag("bidirectional");
  links.link_bytes_per_s = args.given("link_bytes_per_s") ? args.num("link_bytes_per_s")
                                                          : chip.need(&Chip::ici_link_bytes_per_s, "ICI collectives are priced at one link's bandwidth");
  links.hop_latency_s = args.given("hop_latency_s") ? args.num("hop_latency_s")
                        : own                       ? 1e-6
                                                    : chip.ici_hop_latency_s.value_or(1e-6);
  std::vector<RingAxis> rings;
  for (size_t i = 0; i < axes.size(); ++i) {
    rings.push_back({axes[i], wrap[i], bidirectional});
    if (axes[i] > 1 && !wrap[i] && bidirectional) {
      r.warn("The axis of " + plain(axes[i]) + " has no wraparound: it is priced as a one-way ring, (n−1)/n·V/W, "
             "about twice the wrapped cost.");
    }
  }
  if (!bidirectional) r.warn("Links carry data one way only: every axis is a one-way ring.");
  return ici_collective(op, bytes, rings, links, ragged_k(args), r.log());
}

CollectiveCost on_nvlink(const Args& args, CollectiveOp op, double bytes, std::vector<double>& axes,
                         const Steps& log) {
  const Chip& chip = args.chip();
  double domain = chip.need(&Chip::node_gpus, "it sets how many GPUs share one NVLink domain");
  if (axes.empty()) axes = {domain};
  double N = product(axes);
  if (N > domain) {
    throw InputError("axes", "multiply to " + format_quantity(N, "GPUs") + ", more than the " + grouped(domain) +
                                 "-GPU NVLink domain of " + chip.name() +
                                 "; use InfiniBand between nodes (fabric ib_fat_tree) with a node count (nodes)");
  }
  double hop = args.num_if("hop_latency_s").value_or(0);
  return switched_collective(op, bytes, {"nvlink", N, chip.need(&Chip::nvlink_bytes_per_s, "collectives inside an NVLink domain are priced at it"), hop, args.flag("sharp")},
                             ragged_k(args), log);
}

double default_nodes_per_su(const Chip& chip) {
  auto node = chip.node_gpus;
  if (chip.superpod && chip.superpod->gpus_per_su && node && *node > 0) {
    return std::max(1.0, std::floor(*chip.superpod->gpus_per_su / *node));
  }
  return 32;
}

// M from `nodes`, else from `axes` (N·Y/g), else the chip's SuperPod.
double resolve_nodes(const Args& args, const std::vector<double>& axes, double g, double Y) {
  if (args.given("nodes")) return args.num("nodes");
  if (!axes.empty()) {
    double nodes = product(axes) * Y / g;
    if (nodes < 1 || std::floor(nodes) != nodes) {
      throw InputError("axes", "multiply to " + plain(product(axes)) + " GPUs, which is not a whole number of " +
                                   plain(g) + "-GPU nodes (with inner_axis_size " + plain(Y) + ")");
    }
    return nodes;
  }
  const Chip& chip = args.chip();
  if (chip.superpod && chip.superpod->nodes) return *chip.superpod->nodes;
  throw InputError("nodes", "is required for fabric ib_fat_tree: the number of nodes in the group");
}

CollectiveCost on_fat_tree(const Args& args, CollectiveOp op, double bytes, std::vector<double>& axes,
                           const Steps& log) {
  const Chip& chip = args.chip();
  FatTree tree;
  tree.gpus_per_node = args.given("gpus_per_node") ? args.num("gpus_per_node") : chip.need(&Chip::node_gpus, "it sets how many GPUs share one NVLink domain");
  tree.inner_axis_size = args.num("inner_axis_size");
  tree.nodes_per_su = args.given("nodes_per_su") ? args.num("nodes_per_su") : default_nodes_per_su(chip);
  tree.nodes = resolve_nodes(args, axes, tree.gpus_per_node, tree.inner_axis_size);
  tree.nvlink_bytes_per_s = chip.need(&Chip::nvlink_bytes_per_s, "collectives inside an NVLink domain are priced at it");
  tree.ib_bytes_per_s = chip.need(&Chip::ib_bytes_per_s, "collectives beyond one NVLink domain cross InfiniBand at it");
  tree.hop_latency_s = args.num_if("hop_latency_s").value_or(0);
  tree.sharp = args.flag("sharp");
  CollectiveCost cost = fat_tree_collective(op, bytes, tree, ragged_k(args), log);
  if (!axes.empty() && product(axes) != cost.group_size) {
    throw InputError("axes", "multiply to " + plain(product(axes)) + ", but the group is gpus_per_node × nodes / "
                                 "inner_axis_size = " + plain(cost.group_size) + " GPUs");
  }
  if (axes.empty()) axes = {cost.group_size};
  return cost;
}

CollectiveCost on_dcn(const Args& args, CollectiveOp op, double bytes, const std::vector<double>& axes,
                      const Steps& log) {
  if (axes.empty()) throw InputError("axes", "is required for fabric dcn: the sizes of the axes the group spans");
  double hop = args.num_if("hop_latency_s").value_or(0);
  return switched_collective(op, bytes, {"dcn", product(axes), args.chip().need(&Chip::dcn_bytes_per_s, "traffic between pods crosses the data-centre network at it"), hop, false},
                             ragged_k(args), log);
}

// The chunk size below which the collective is latency-bound, from the two terms the engine
// adds (sharding.md's general rule, T = max(T_min·Σ|X_i|/2, V/(W·N_axes))): the latency term does
// not depend on V and the bandwidth term grows with it, so they cross at V* = V·T_lat/T_bw, a chunk
// of V*/N. On one wrapped ring this is the book's per-hop figure, one link's W × t_hop (45 kB on
// TPU v5e); over several axes, whose hops add while their bandwidths add too, it is smaller
// (11.25 kB on a 16×16 v5e slice: 16 µs of hops against 180 GB/s). None where no hop latency is
// priced (a GPU fabric's default) or nothing moves.
void report(Result& r, const CollectiveCost& cost, double bytes) {
  Expr V = r.sym("V", bytes);
  Expr N = r.sym("N", cost.group_size);
  double chunk = r.step("Chunk per hop", "b", V / N, "bytes").value();
  std::optional<double> threshold;
  if (cost.t_latency_s > 0 && cost.t_bandwidth_s > 0) {
    threshold = r.step("Latency-bound below", "b^*",
                       V * r.sym("T_{lat}", cost.t_latency_s) / r.sym("T_{bw}", cost.t_bandwidth_s) / N, "bytes")
                    .value();
  }
  r.out("t_s", cost.t_s);
  r.out("t_bandwidth_s", cost.t_bandwidth_s);
  r.out("t_latency_s", cost.t_latency_s);
  r.out("regime", cost.latency_bound() ? "latency" : "bandwidth");
  r.out("hops", cost.hops);
  out_opt(r, "bytes_per_link", cost.bytes_per_link);
  out_opt(r, "latency_bound_below_bytes", threshold);
  if (cost.t_s > 0) {
    r.out("effective_bytes_per_s", r.step("Effective bandwidth", "W_{eff}", V / r.sym("T", cost.t_s), "bytes/s"));
  } else {
    r.out_null("effective_bytes_per_s");
  }
  if (cost.bottleneck.empty()) r.out_null("bottleneck");
  else r.out("bottleneck", cost.bottleneck);
  r.out("chunk_bytes", chunk);
  json levels = json::array();
  for (const FabricLevel& l : cost.levels) levels.push_back(l.to_json(bytes));
  r.out("levels", levels);
  r.out("group_size", cost.group_size);
  if (cost.latency_bound()) {
    r.warn("Latency-bound: " + plain(cost.hops) + " hops take " + format_quantity(cost.t_latency_s, "s") +
           ", more than the " + format_quantity(cost.t_bandwidth_s, "s") + " of bandwidth time" +
           (threshold ? " (chunks of " + format_quantity(chunk, "bytes") + " are below the " +
                            format_quantity(*threshold, "bytes") + " at which the two terms are equal)."
                      : "."));
  }
  if (cost.group_size <= 1) r.warn("The group has one device: nothing moves.");
}

// The range published collectives reach of the bound, from the regime measured on this fabric
// (data/measurements.json: each collective regime is limited to the fabrics its runs crossed). A link
// the reader gives in place of the chip's is no chip's: no runs measured it. Where the bound prices
// no hop latency, an array smaller than any the runs moved gets no range: its time is set by what
// the bound leaves out (100 kB over 1,024 GPUs on InfiniBand is bounded at 242 ns; runs of 128 MiB
// and up took milliseconds).
void expected_time(const Args& args, const std::string& fabric, double t_s, bool latency_priced, double bytes,
                   Result& r) {
  const ChipKind kind = args.chip().kind;
  const bool catalog_links = !args.given("link_bytes_per_s");
  const Band* band = catalog_links && t_s > 0 ? band_for("collective", "t_s", kind, {{"fabric", fabric}}) : nullptr;
  if (band && !latency_priced && below_runs(*band, "bytes", bytes)) band = nullptr;
  out_expected(band, expected_output(kOutputs, "t_s", "collective time"), t_s, r);
  out_band(band, "collective", kind, {{"bytes", bytes}}, r, band_outputs(kOutputs));
}

void compute(const Args& args, Result& r) {
  std::string fabric = resolve_fabric(args);
  CollectiveOp op = parse_collective_op(args.str("op"));
  refuse_options(args, fabric, op);
  if (fabric == "ici" && args.chip().is_gpu() && !args.given("link_bytes_per_s")) {
    throw InputError("fabric", args.chip().name() + " is a GPU: ici needs link_bytes_per_s; use nvlink, "
                                                     "ib_fat_tree or dcn");
  }
  double bytes = args.num("bytes");
  std::vector<double> axes = given_axes(args);
  CollectiveCost cost;
  if (fabric == "ici") {
    IciLinks links;
    cost = on_ici(args, op, bytes, axes, links, r);
  } else if (fabric == "nvlink") {
    cost = on_nvlink(args, op, bytes, axes, r.log());
  } else if (fabric == "ib_fat_tree") {
    cost = on_fat_tree(args, op, bytes, axes, r.log());
  } else {
    cost = on_dcn(args, op, bytes, axes, r.log());
  }
  if (args.flag("sharp") && op != CollectiveOp::all_reduce) {
    r.warn("SHARP only changes an AllReduce; this " + collective_op_title(op) + " is priced without it.");
  }
  r.out("fabric", fabric);
  r.out("axes", axes);
  if (fabric != "ici") r.out_null("wraparound");
  report(r, cost, bytes);
  expected_time(args, fabric, cost.t_s, cost.t_latency_s > 0, bytes, r);
}

}  // namespace

Calculator make_collective() {
  using namespace params;
  Param axis = integer("n", "count", 1, 1e6, nullptr, "devices along one axis");
  Param axes = list("axes", axis, 1, 8, nullptr,
                    "sizes of the axes the group spans (default: the pod shape on ICI, the node on nvlink)");
  axes.unit = "count";
  Param wrap;
  wrap.name = "wraparound";
  wrap.type = Type::bool_or_list;
  wrap.default_value = nullptr;
  wrap.scale = Scale::choice;
  wrap.doc = "ICI: whether each axis wraps into a ring (one boolean, or one per axis; default: what the chip "
             "has for that axis length, e.g. only axes of 16 on TPU v5e; every axis with no chip named and "
             "link_bytes_per_s given)";
  return {"collective", "Collective", {3, 7, 12},
          "Time of an AllGather, ReduceScatter, AllReduce or AllToAll over ICI axes, an NVLink node, an "
          "InfiniBand fat tree or DCN: bandwidth term, latency term, and which one limits.",
          {params::chip("tpu-v5e"), chip_overrides(),
           number("link_bytes_per_s", "bytes/s", 1, 1e15, nullptr,
                    "ICI only: one link's one-way bandwidth, instead of the chip's (with no chip named, the axes are "
                    "your own rings: no pod limits their length, each wraps around unless wraparound says not)"),
           choice("op", collective_op_names(), "all_gather", "the collective", collective_op_titles()),
           number("bytes", "bytes", 0, 1e18, 1e9,
                  "V: the full array one group gathers, or the unreduced buffer each device holds"),
           axes, wrap,
           boolean("bidirectional", true, "ICI: links carry data both ways (false: every axis is a one-way ring)"),
           number("hop_latency_s", "s", 0, 1, nullptr,
                  "latency of one hop (default: the chip's ici_hop_latency_s, 1 µs without; 0 on GPUs)"),
           choice("fabric", fabric_names(), nullptr,
                  "network (default: ici for TPUs; nvlink for GPUs, ib_fat_tree when nodes > 1)",
                  fabric_titles()),
           integer("gpus_per_node", "count", 1, 1e5, nullptr, "ib_fat_tree: GPUs per NVLink node (default node_gpus)"),
           integer("nodes", "count", 1, 1e6, nullptr, "GPU nodes in the group (ib_fat_tree)"),
           integer("nodes_per_su", "count", 1, 1e5, nullptr,
                   "ib_fat_tree: nodes under one set of leaf switches (default from the chip's superpod, else 32)"),
           integer("inner_axis_size", "count", 1, 1e6, 1,
                   "ib_fat_tree: adjacent GPUs of another mesh axis that also shard the array"),
           boolean("sharp", false, "GPU switches reduce in the network (SHARP): AllReduce costs V/W per level"),
           integer("ragged_k", "count", 1, 1e6, nullptr,
                   "all_to_all: at most k destination shards are non-empty (cost × min(k/N, 1))")},
          compute,
          outputs_of(kOutputs)};
}

}  // namespace scalelab
