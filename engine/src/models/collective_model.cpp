#include "models/collective_model.hpp"
#include "core/format_words.hpp"

#include "core/enum_table.hpp"

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"
#include "core/format.hpp"

namespace scalelab {
namespace {

// An axis's size n_i (i from 1, in the order given) and what its ring gives: the fraction f_i of
// V that crosses one link, and its hops h_i.
Expr axis_size(const Steps& log, std::size_t i, const RingAxis& a) {
  return log.sym("n_{" + std::to_string(i + 1) + "}", a.size);
}

Expr ring_fraction(const Expr& n, const RingAxis& a) { return a.bidi_ring() ? floor(n / 2) / n : (n - 1) / n; }

Expr ring_hops(const Expr& n, const RingAxis& a) { return a.bidi_ring() ? floor(n / 2) : n - 1; }

// Share of V crossing the busiest link of the longest axis in an AllToAll, per unit of V·m/(N·W).
double alltoall_factor(const RingAxis& a) {
  if (a.bidi_ring()) return 1.0 / 8;
  if (a.bidirectional) return 1.0 / 4;  // a line: half the bisection of a ring
  return (a.size - 1) / (2 * a.size);
}

// The same factor as the formula writes it: 1/8, 1/4 or (m-1)/(2m) of the longest axis's m.
Expr alltoall_factor(const Expr& m, const RingAxis& a) {
  if (a.bidi_ring()) return frac(Expr(1), Expr(8));
  if (a.bidirectional) return frac(Expr(1), Expr(4));
  return (m - 1) / (2 * m);
}

// The bandwidth term times min(k/N, 1) for a ragged AllToAll of k, as it is without one.
Expr ragged(const Expr& t, std::optional<double> ragged_k, const Expr& N, const Steps& log) {
  return ragged_k ? t * min(log.sym("k", *ragged_k) / N, 1) : t;
}

// Latency term and total, common to every fabric: T = max(T_bw, hops · t_hop).
void finish(CollectiveCost& c, double hop_latency_s) {
  const Steps& log = c.log;
  Expr t_lat = log.step("Latency", "T_{lat}", log.sym("h", c.hops) * log.sym("t_{hop}", hop_latency_s), "s");
  c.t_latency_s = t_lat.value();
  c.t_s = log.step("Collective time", "T", max(log.sym("T_{bw}", c.t_bandwidth_s), t_lat), "s").value();
}

CollectiveCost nothing_to_move(double hop_latency_s, const Steps& log) {
  CollectiveCost c;
  c.log = log;
  log.step("Group size", "N", 1, "count");
  finish(c, hop_latency_s);
  return c;
}

// W_coll = Σ_i W/f_i over the axes, f_i = ⌊n_i/2⌋/n_i on a bidirectional ring, (n_i − 1)/n_i one way.
void ici_ring_time(CollectiveCost& c, CollectiveOp op, double bytes, const std::vector<RingAxis>& axes,
                   const std::vector<Expr>& sizes, double link_bytes_per_s) {
  const Steps& log = c.log;
  Expr W = log.sym("W", link_bytes_per_s);
  Expr sum = W / ring_fraction(sizes[0], axes[0]);
  for (std::size_t i = 1; i < axes.size(); ++i) sum = sum + W / ring_fraction(sizes[i], axes[i]);
  Expr rate = log.step("Collective bandwidth over the axes", "W_{coll}", sum, "bytes/s");
  Expr V = log.sym("V", bytes);
  Expr t = op == CollectiveOp::all_reduce ? 2 * V / rate : V / rate;
  c.t_bandwidth_s = log.step("Bandwidth time (" + collective_op_title(op) + ")", "T_{bw}", t, "s").value();
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
  const Steps& log = c.log;
  Expr m = log.sym("m", longest->size), N = log.sym("N", c.group_size);
  Expr t = log.sym("V", V) * m * alltoall_factor(m, *longest) / (N * log.sym("W", W));
  c.t_bandwidth_s = log.step("Bandwidth time (AllToAll)", "T_{bw}", ragged(t, ragged_k, N, log), "s").value();
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

// The hops of a ring over N devices (or of direct sends; SHARP reduces in the switch, up and
// down), recorded as a step.
void add_hops_step(CollectiveCost& c, CollectiveOp op, bool sharp) {
  const Steps& log = c.log;
  Expr N = log.sym("N", c.group_size);
  if (op == CollectiveOp::all_to_all) c.hops = log.step("Hops (direct sends)", "h", 1, "count").value();
  else if (op == CollectiveOp::all_reduce && sharp) c.hops = log.step("Hops (SHARP: to the switch and back)", "h", 2, "count").value();
  else if (op == CollectiveOp::all_reduce) c.hops = log.step("Hops", "h", 2 * (N - 1), "count").value();
  else c.hops = log.step("Hops", "h", N - 1, "count").value();
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
    throw InputError("inner_axis_size", "must divide the " + format_quantity(gpus, "GPUs") + " (GPUs per node × nodes), got " +
                                            grouped(t.inner_axis_size));
  }
}

// gpus.md: each level the group crosses costs V·(d−1)/(d·W)·m, the slowest one limits.
CollectiveCost fat_tree_hierarchical(CollectiveOp op, double V, const FatTree& t, const Steps& log) {
  CollectiveCost c;
  c.log = log;
  double Y = t.inner_axis_size;
  c.group_size = t.gpus_per_node * t.nodes / Y;
  bool sharp_reduce = op == CollectiveOp::all_reduce && t.sharp;
  Expr V_ = log.sym("V", V);
  std::vector<Expr> level_times;
  for (const TreeLevel& L : tree_levels(t)) {
    if (Y >= L.below_unit) continue;
    double degree = L.fan_in, share = Y / L.below_child;
    if (Y > L.below_child) {
      if (std::fmod(L.below_unit, Y) != 0) {
        throw InputError("inner_axis_size", "must divide the " + format_quantity(L.below_unit, "GPUs") + " under one " +
                                                L.name + " unit it partly spans, got " + grouped(Y));
      }
      degree = L.below_unit / Y;
      share = 1;
    }
    if (degree <= 1) continue;
    double W = L.gpu_bytes_per_s;
    Expr W_ = log.sym("W", W), m = log.sym("m", share), d = log.sym("d", degree);
    Expr t_level = sharp_reduce                      ? V_ * m / W_
                   : op == CollectiveOp::all_reduce ? 2 * V_ * (d - 1) / (d * W_) * m
                                                    : V_ * (d - 1) / (d * W_) * m;
    level_times.push_back(log.step("Level " + L.name + " (d = " + plain(degree) + ", m = Y/S_{prev} or 1)",
                                   "T_{" + L.name + "}", t_level, "s"));
    c.levels.push_back(level_of(L.name, degree, L.below_unit, W * L.below_child, t_level.value()));
  }
  for (const FabricLevel& l : c.levels) {
    if (c.bottleneck.empty() || l.t_s > c.t_bandwidth_s) {
      c.t_bandwidth_s = l.t_s;
      c.bottleneck = l.level;
    }
  }
  // At most three levels (NVLink, leaf, spine): T_bw = max_i T_i.
  const std::vector<Expr>& T = level_times;
  Expr slowest = T.empty() ? Expr(0) : T.size() == 1 ? T[0] : T.size() == 2 ? max(T[0], T[1]) : max(T[0], T[1], T[2]);
  log.step("Bandwidth time (slowest level: " + (c.bottleneck.empty() ? "none" : c.bottleneck) + ")", "T_{bw}",
           slowest, "s");
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
  Expr M_ = log.sym("M", M);
  Expr spread = log.sym("V", V) * (M_ - 1) / (pow(M_, 2) * log.sym("g", g) * log.sym("W_{ib}", W));
  c.t_bandwidth_s = log.step("Bandwidth time (AllToAll across nodes)", "T_{bw}",
                             ragged(spread, ragged_k, log.sym("N", c.group_size), log), "s").value();
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

// The networks a collective can cross (the collective and training_comm calculators' fabric).
enum class Fabric { ici, nvlink, ib_fat_tree, dcn, last_ = dcn };
constexpr EnumTable<Fabric, 4> kFabrics({{
    {Fabric::ici, "ici", "ICI torus (TPU)"},
    {Fabric::nvlink, "nvlink", "NVLink node (GPU)"},
    {Fabric::ib_fat_tree, "ib_fat_tree", "InfiniBand fat tree"},
    {Fabric::dcn, "dcn", "DCN (between pods)"},
}});
static_assert(kFabrics.in_enum_order(), "one row per Fabric, in enum order");

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
  static const std::vector<std::string> names = kFabrics.names();
  return names;
}

const std::vector<std::string>& fabric_titles() {
  static const std::vector<std::string> titles = kFabrics.titles();
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
  // N = Π n_i; h = Σ h_i (twice for an AllReduce), h_i = ⌊n_i/2⌋ on a bidirectional ring, n_i − 1 one way.
  std::vector<Expr> sizes;
  for (std::size_t i = 0; i < active.size(); ++i) sizes.push_back(axis_size(log, i, active[i]));
  Expr N = sizes[0], hops = ring_hops(sizes[0], active[0]);
  for (std::size_t i = 1; i < active.size(); ++i) {
    N = N * sizes[i];
    hops = hops + ring_hops(sizes[i], active[i]);
  }
  c.group_size = log.step("Group size", "N", N, "count").value();
  double W = links.link_bytes_per_s;
  if (op == CollectiveOp::all_to_all) ici_alltoall_time(c, bytes, active, W, ragged_k);
  else ici_ring_time(c, op, bytes, active, sizes, W);
  c.hops = log.step("Hops", "h", op == CollectiveOp::all_reduce ? 2 * hops : hops, "count").value();
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
  const bool sharp = op == CollectiveOp::all_reduce && f.sharp;
  Expr V_ = log.sym("V", V), N_ = log.sym("N", N), W_ = log.sym("W", W);
  Expr t = op == CollectiveOp::all_to_all      ? ragged(V_ * (N_ - 1) / (pow(N_, 2) * W_), ragged_k, N_, log)
           : sharp                            ? V_ / W_
           : op == CollectiveOp::all_reduce ? 2 * V_ * (N_ - 1) / (N_ * W_)
                                            : V_ * (N_ - 1) / (N_ * W_);
  c.t_bandwidth_s = log.step("Bandwidth time (" + collective_op_title(op) + " over " + f.level +
                                 (sharp ? ", SHARP)" : ")"),
                             "T_{bw}", t, "s").value();
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
  add_hops_step(c, op, tree.sharp);
  finish(c, tree.hop_latency_s);
  return c;
}

}  // namespace scalelab
