#include "models/collective_model.hpp"

#include "core/enum_table.hpp"

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"
#include "core/format.hpp"

namespace scalelab {
namespace {

std::string joined(const std::vector<std::string>& parts, const std::string& sep) {
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : sep) + p;
  return s;
}

double ring_fraction(const RingAxis& a) {
  return a.bidi_ring() ? std::floor(a.size / 2) / a.size : (a.size - 1) / a.size;
}

double ring_hops(const RingAxis& a) { return a.bidi_ring() ? std::floor(a.size / 2) : a.size - 1; }

// Share of V crossing the busiest link of the longest axis in an AllToAll, per unit of V·m/(N·W).
double alltoall_factor(const RingAxis& a) {
  if (a.bidi_ring()) return 1.0 / 8;
  if (a.bidirectional) return 1.0 / 4;  // a line: half the bisection of a ring
  return (a.size - 1) / (2 * a.size);
}

std::string alltoall_factor_tex(const RingAxis& a) {
  if (a.bidi_ring()) return "1/8";
  if (a.bidirectional) return "1/4";
  return "(" + tex(a.size) + "-1)/(2 \\times " + tex(a.size) + ")";
}

double ragged_factor(std::optional<double> ragged_k, double group) {
  return ragged_k ? std::min(*ragged_k / group, 1.0) : 1.0;
}

void add_step(CollectiveCost& c, const std::string& label, const std::string& formula,
              const std::string& substituted, double value, const std::string& unit) {
  c.log.record_text(label, formula, substituted, value, unit);
}

// Latency term and total, common to every fabric: T = max(T_bw, hops · t_hop).
void finish(CollectiveCost& c, double hop_latency_s) {
  c.t_latency_s = c.hops * hop_latency_s;
  add_step(c, "Latency", "T_{lat} = h \\cdot t_{hop}", tex(c.hops) + " \\times " + tex(hop_latency_s),
           c.t_latency_s, "s");
  c.t_s = std::max(c.t_bandwidth_s, c.t_latency_s);
  add_step(c, "Collective time", "T = \\max(T_{bw}, T_{lat})",
           "\\max(" + tex(c.t_bandwidth_s) + ", " + tex(c.t_latency_s) + ")", c.t_s, "s");
}

CollectiveCost nothing_to_move(double hop_latency_s, const Steps& log) {
  CollectiveCost c;
  c.log = log;
  add_step(c, "Group size", "N = \\prod_i n_i", "1", 1, "count");
  finish(c, hop_latency_s);
  return c;
}

void ici_ring_time(CollectiveCost& c, CollectiveOp op, double V, const std::vector<RingAxis>& axes,
                   double W) {
  double rate = 0;
  std::vector<std::string> terms;
  for (const RingAxis& a : axes) {
    rate += W / ring_fraction(a);
    terms.push_back(tex(W) + "/" + tex(ring_fraction(a)));
  }
  add_step(c, "Collective bandwidth over the axes",
           "W_{coll} = \\textstyle\\sum_i W/f_i,\\; f_i = \\lfloor n_i/2 \\rfloor/n_i \\text{ (bidirectional ring)}"
           " \\text{ or } (n_i-1)/n_i \\text{ (one-way)}",
           joined(terms, " + "), rate, "bytes/s");
  double passes = op == CollectiveOp::all_reduce ? 2 : 1;
  std::string two = passes == 2 ? "2" : "";
  c.t_bandwidth_s = passes * V / rate;
  add_step(c, "Bandwidth time (" + collective_op_title(op) + ")", "T_{bw} = " + two + "V / \\textstyle\\sum_i W/f_i",
           (passes == 2 ? "2 \\times " : "") + tex(V) + " / " + tex(rate), c.t_bandwidth_s, "s");
}

void ici_alltoall_time(CollectiveCost& c, double V, const std::vector<RingAxis>& axes, double W,
                       std::optional<double> ragged_k) {
  // The longest axis limits; among equally long ones, the one with the costliest links.
  const RingAxis* longest = &axes.front();
  for (const RingAxis& a : axes) {
    if (a.size > longest->size ||
        (a.size == longest->size && alltoall_factor(a) > alltoall_factor(*longest))) {
      longest = &a;
    }
  }
  double m = longest->size, cf = alltoall_factor(*longest), ragged = ragged_factor(ragged_k, c.group_size);
  std::string ragged_tex = ragged_k ? " \\cdot \\min(k/N, 1)" : "";
  std::string ragged_sub = ragged_k ? " \\times " + tex(ragged) : "";
  c.t_bandwidth_s = V * m * cf / (c.group_size * W) * ragged;
  add_step(c, "Bandwidth time (AllToAll)", "T_{bw} = V \\cdot m \\cdot c / (N W)" + ragged_tex,
           tex(V) + " \\times " + tex(m) + " \\times " + alltoall_factor_tex(*longest) + " / (" +
               tex(c.group_size) + " \\times " + tex(W) + ")" + ragged_sub,
           c.t_bandwidth_s, "s");
}

// A level of a switched fabric, as the `levels` output shows it.
FabricLevel level_of(std::string name, double degree, double gpus, double uplink, double t) {
  FabricLevel l;
  l.level = std::move(name);
  l.degree = degree;
  l.gpus = gpus;
  l.uplink_bytes_per_s = uplink;
  l.t_s = t;
  return l;
}

// Hops of a ring (or direct sends) over N devices; SHARP reduces in the switch (up and down).
double switched_hops(CollectiveOp op, double N, bool sharp) {
  if (op == CollectiveOp::all_to_all) return 1;
  if (op == CollectiveOp::all_reduce) return sharp ? 2 : 2 * (N - 1);
  return N - 1;
}

void add_hops_step(CollectiveCost& c, CollectiveOp op, bool sharp) {
  std::string N = tex(c.group_size);
  if (op == CollectiveOp::all_to_all) {
    add_step(c, "Hops", "h = 1 \\text{ (direct sends)}", "1", c.hops, "count");
  } else if (op == CollectiveOp::all_reduce && sharp) {
    add_step(c, "Hops", "h = 2 \\text{ (SHARP: to the switch and back)}", "2", c.hops, "count");
  } else if (op == CollectiveOp::all_reduce) {
    add_step(c, "Hops", "h = 2(N - 1)", "2 \\times (" + N + " - 1)", c.hops, "count");
  } else {
    add_step(c, "Hops", "h = N - 1", N + " - 1", c.hops, "count");
  }
}

struct TreeLevel {
  std::string name;
  double below_child;  // S_prev: GPUs under one child
  double below_unit;   // S: GPUs under one unit of this level
  double fan_in;       // D
  double gpu_bytes_per_s;  // W per GPU
};

std::vector<TreeLevel> tree_levels(const FatTree& t) {
  double g = t.gpus_per_node, M = t.nodes, s = t.nodes_per_su;
  std::vector<TreeLevel> levels = {{"nvlink", 1, g, g, t.nvlink_bytes_per_s}};
  if (M > 1) levels.push_back({"leaf", g, g * std::min(M, s), std::min(M, s), t.ib_bytes_per_s});
  if (M > s) levels.push_back({"spine", g * s, g * M, M / s, t.ib_bytes_per_s});
  return levels;
}

void validate_tree(const FatTree& t) {
  if (t.nodes > t.nodes_per_su && std::fmod(t.nodes, t.nodes_per_su) != 0) {
    throw InputError("nodes", "must be a multiple of nodes_per_su (" + plain(t.nodes_per_su) +
                                  ") when the group spans several scalable units, got " + plain(t.nodes));
  }
  double gpus = t.gpus_per_node * t.nodes;
  if (std::fmod(gpus, t.inner_axis_size) != 0) {
    throw InputError("inner_axis_size", "must divide the " + plain(gpus) + " GPUs (gpus_per_node × nodes), got " +
                                            plain(t.inner_axis_size));
  }
}

// gpus.md: each level the group crosses costs V·(d−1)/(d·W)·m, the slowest one limits.
CollectiveCost fat_tree_hierarchical(CollectiveOp op, double V, const FatTree& t, const Steps& log) {
  CollectiveCost c;
  c.log = log;
  double Y = t.inner_axis_size;
  c.group_size = t.gpus_per_node * t.nodes / Y;
  bool sharp_reduce = op == CollectiveOp::all_reduce && t.sharp;
  for (const TreeLevel& L : tree_levels(t)) {
    if (Y >= L.below_unit) continue;
    double degree = L.fan_in, share = Y / L.below_child;
    if (Y > L.below_child) {
      if (std::fmod(L.below_unit, Y) != 0) {
        throw InputError("inner_axis_size", "must divide the " + plain(L.below_unit) + " GPUs under one " +
                                                L.name + " unit it partly spans, got " + plain(Y));
      }
      degree = L.below_unit / Y;
      share = 1;
    }
    if (degree <= 1) continue;
    double W = L.gpu_bytes_per_s, time = 0;
    std::string formula, sub;
    if (sharp_reduce) {
      time = V * share / W;
      formula = "T_{" + L.name + "} = V m / W";
      sub = tex(V) + " \\times " + tex(share) + " / " + tex(W);
    } else {
      double passes = op == CollectiveOp::all_reduce ? 2 : 1;
      time = passes * V * (degree - 1) / (degree * W) * share;
      formula = "T_{" + L.name + "} = " + std::string(passes == 2 ? "2" : "") + "V (d-1)/(d W) \\cdot m";
      sub = (passes == 2 ? "2 \\times " : "") + tex(V) + " \\times " + tex(degree - 1) + "/(" + tex(degree) +
            " \\times " + tex(W) + ") \\times " + tex(share);
    }
    add_step(c, "Level " + L.name + " (d = " + plain(degree) + ", m = Y/S_{prev} or 1)", formula, sub, time, "s");
    c.levels.push_back(level_of(L.name, degree, L.below_unit, W * L.below_child, time));
  }
  std::vector<std::string> times;
  for (const FabricLevel& l : c.levels) {
    times.push_back(tex(l.t_s));
    if (c.bottleneck.empty() || l.t_s > c.t_bandwidth_s) {
      c.t_bandwidth_s = l.t_s;
      c.bottleneck = l.level;
    }
  }
  add_step(c, "Bandwidth time (slowest level: " + (c.bottleneck.empty() ? "none" : c.bottleneck) + ")",
           "T_{bw} = \\max_i T_i", "\\max(" + (times.empty() ? "0" : joined(times, ", ")) + ")",
           c.t_bandwidth_s, "s");
  return c;
}

// gpus.md: an AllToAll across nodes is not hierarchical; each node's NICs carry it.
CollectiveCost fat_tree_alltoall(double V, const FatTree& t, std::optional<double> ragged_k, const Steps& log) {
  if (t.inner_axis_size != 1) {
    throw InputError("inner_axis_size", "must be 1 for an all_to_all across nodes (it is not hierarchical)");
  }
  double g = t.gpus_per_node, M = t.nodes, W = t.ib_bytes_per_s;
  CollectiveCost c;
  c.log = log;
  c.group_size = g * M;
  double ragged = ragged_factor(ragged_k, c.group_size);
  c.t_bandwidth_s = V * (M - 1) / (M * M * g * W) * ragged;
  add_step(c, "Bandwidth time (AllToAll across nodes)",
           "T_{bw} = V (M-1)/(M^2 g W_{ib})" + std::string(ragged_k ? " \\cdot \\min(k/N, 1)" : ""),
           tex(V) + " \\times " + tex(M - 1) + "/(" + tex(M * M) + " \\times " + tex(g) + " \\times " +
               tex(W) + ")" + (ragged_k ? " \\times " + tex(ragged) : ""),
           c.t_bandwidth_s, "s");
  c.levels.push_back(level_of("leaf", M, g * M, g * W, c.t_bandwidth_s));
  c.bottleneck = "leaf";
  return c;
}

}  // namespace

namespace {

constexpr EnumTable<CollectiveOp, 4> kCollectiveOps({{
    {CollectiveOp::all_gather, "all_gather", "AllGather"},
    {CollectiveOp::reduce_scatter, "reduce_scatter", "ReduceScatter"},
    {CollectiveOp::all_reduce, "all_reduce", "AllReduce"},
    {CollectiveOp::all_to_all, "all_to_all", "AllToAll"},
}});
static_assert(kCollectiveOps.in_enum_order(), "one row per CollectiveOp, in enum order");

}  // namespace

const std::vector<std::string>& collective_op_names() {
  static const std::vector<std::string> names = kCollectiveOps.names();
  return names;
}

const std::vector<std::string>& collective_op_titles() {
  static const std::vector<std::string> titles = kCollectiveOps.titles();
  return titles;
}

const std::vector<std::string>& fabric_names() {
  static const std::vector<std::string> names = {"ici", "nvlink", "ib_fat_tree", "dcn"};
  return names;
}

const std::vector<std::string>& fabric_titles() {
  static const std::vector<std::string> titles = {"ICI torus (TPU)", "NVLink node (GPU)",
                                                  "InfiniBand fat tree", "DCN (between pods)"};
  return titles;
}

CollectiveOp parse_collective_op(const std::string& name) { return kCollectiveOps.parse(name, "op"); }

std::string collective_op_name(CollectiveOp op) { return kCollectiveOps.name(op); }

std::string collective_op_title(CollectiveOp op) { return kCollectiveOps.title(op); }

json FabricLevel::to_json(double bytes) const {
  json effective = t_s > 0 ? json(bytes / t_s) : json(nullptr);
  return {{"level", level}, {"degree", degree}, {"gpus", gpus},
          {"uplink_bytes_per_s", uplink_bytes_per_s}, {"cable_bytes_per_s", degree * uplink_bytes_per_s},
          {"effective_bytes_per_s", effective}, {"t_s", t_s}};
}

CollectiveCost ici_collective(CollectiveOp op, double bytes, const std::vector<RingAxis>& axes,
                              const IciLinks& links, std::optional<double> ragged_k, const Steps& log) {
  std::vector<RingAxis> active;
  std::copy_if(axes.begin(), axes.end(), std::back_inserter(active), [](const RingAxis& a) { return a.size > 1; });
  if (active.empty()) return nothing_to_move(links.hop_latency_s, log);
  CollectiveCost c;
  c.log = log;
  std::vector<std::string> sizes, hop_terms;
  for (const RingAxis& a : active) {
    c.group_size *= a.size;
    c.hops += ring_hops(a);
    sizes.push_back(tex(a.size));
    hop_terms.push_back(tex(ring_hops(a)));
  }
  add_step(c, "Group size", "N = \\prod_i n_i", joined(sizes, " \\times "), c.group_size, "count");
  double W = links.link_bytes_per_s;
  if (op == CollectiveOp::all_to_all) ici_alltoall_time(c, bytes, active, W, ragged_k);
  else ici_ring_time(c, op, bytes, active, W);
  bool twice = op == CollectiveOp::all_reduce;
  if (twice) c.hops *= 2;
  add_step(c, "Hops", std::string("h = ") + (twice ? "2" : "") +
                          "\\textstyle\\sum_i h_i,\\; h_i = \\lfloor n_i/2 \\rfloor \\text{ (bidirectional ring)}"
                          " \\text{ or } n_i - 1",
           (twice ? "2 \\times (" : "(") + joined(hop_terms, " + ") + ")", c.hops, "count");
  c.bytes_per_link = c.t_bandwidth_s * W;
  finish(c, links.hop_latency_s);
  return c;
}

CollectiveCost switched_collective(CollectiveOp op, double V, const SwitchedLevel& f,
                                   std::optional<double> ragged_k, const Steps& log) {
  double N = f.devices, W = f.bytes_per_s;
  if (N <= 1) return nothing_to_move(f.hop_latency_s, log);
  CollectiveCost c;
  c.log = log;
  c.group_size = N;
  std::string formula, sub = tex(V);
  std::string frac = " \\times " + tex(N - 1) + "/(" + tex(N) + " \\times " + tex(W) + ")";
  if (op == CollectiveOp::all_to_all) {
    double ragged = ragged_factor(ragged_k, N);
    c.t_bandwidth_s = V * (N - 1) / (N * N * W) * ragged;
    formula = "T_{bw} = V (N-1)/(N^2 W)" + std::string(ragged_k ? " \\cdot \\min(k/N, 1)" : "");
    sub += " \\times " + tex(N - 1) + "/(" + tex(N * N) + " \\times " + tex(W) + ")" +
           (ragged_k ? " \\times " + tex(ragged) : "");
  } else if (op == CollectiveOp::all_reduce && f.sharp) {
    c.t_bandwidth_s = V / W;
    formula = "T_{bw} = V / W \\text{ (SHARP)}";
    sub += " / " + tex(W);
  } else {
    double passes = op == CollectiveOp::all_reduce ? 2 : 1;
    c.t_bandwidth_s = passes * V * (N - 1) / (N * W);
    formula = std::string("T_{bw} = ") + (passes == 2 ? "2" : "") + "V (N-1)/(N W)";
    sub = (passes == 2 ? "2 \\times " : "") + sub + frac;
  }
  add_step(c, "Bandwidth time (" + collective_op_title(op) + " over " + f.level + ")", formula, sub,
           c.t_bandwidth_s, "s");
  c.hops = switched_hops(op, N, f.sharp);
  add_hops_step(c, op, f.sharp);
  c.bytes_per_link = c.t_bandwidth_s * W;
  c.levels.push_back(level_of(f.level, N, N, W, c.t_bandwidth_s));
  c.bottleneck = f.level;
  finish(c, f.hop_latency_s);
  return c;
}

CollectiveCost fat_tree_collective(CollectiveOp op, double bytes, const FatTree& tree,
                                   std::optional<double> ragged_k, const Steps& log) {
  validate_tree(tree);
  if (op == CollectiveOp::all_to_all && tree.nodes <= 1) {
    if (tree.inner_axis_size != 1) {
      throw InputError("inner_axis_size", "must be 1 for an all_to_all");
    }
    return switched_collective(op, bytes, {"nvlink", tree.gpus_per_node, tree.nvlink_bytes_per_s,
                                           tree.hop_latency_s, false}, ragged_k, log);
  }
  auto cost = [&](const Steps& sink) {
    return op == CollectiveOp::all_to_all ? fat_tree_alltoall(bytes, tree, ragged_k, sink)
                                          : fat_tree_hierarchical(op, bytes, tree, sink);
  };
  // Sized first without steps: a group of one records only that nothing moves.
  CollectiveCost c = cost(Steps());
  if (c.group_size <= 1) return nothing_to_move(tree.hop_latency_s, log);
  if (log.on()) c = cost(log);
  c.hops = switched_hops(op, c.group_size, tree.sharp);
  add_hops_step(c, op, tree.sharp);
  finish(c, tree.hop_latency_s);
  return c;
}

}  // namespace scalelab
