// Cost models of collectives (sharding.md, gpus.md), shared by `collective`, `sharded_matmul`
// and the training/inference calculators: an ICI torus of rings, one switched level (an NVLink
// node, DCN), and an InfiniBand fat tree above NVLink nodes.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/result.hpp"

namespace scalelab {

enum class CollectiveOp { all_gather, reduce_scatter, all_reduce, all_to_all, last_ = all_to_all };

const std::vector<std::string>& collective_op_names();
CollectiveOp parse_collective_op(const std::string& name);
std::string collective_op_name(CollectiveOp op);
std::string collective_op_title(CollectiveOp op);  // "AllGather"
const std::vector<std::string>& collective_op_titles();

// The networks a collective can cross, and their names for people.
const std::vector<std::string>& fabric_names();
const std::vector<std::string>& fabric_titles();

// One level of a switched fabric (gpus.md): the bandwidth into it, its degree and its time.
struct FabricLevel {
  std::string level;       // "nvlink" | "leaf" | "spine" | "dcn"
  double degree = 1;       // children holding members of the group
  double gpus = 1;         // GPUs under one unit of the level
  double uplink_bytes_per_s = 0;  // from one child into the level
  double t_s = 0;
  json to_json(double bytes) const;
};

struct CollectiveCost {
  double group_size = 1;  // N: devices in the group
  double t_bandwidth_s = 0;
  double t_latency_s = 0;
  double t_s = 0;
  double hops = 0;
  std::optional<double> bytes_per_link;  // ICI and single-level fabrics
  std::string bottleneck;                // GPU fabrics: the slowest level; empty on ICI
  std::vector<FabricLevel> levels;       // empty on ICI
  Steps log;  // where the model records its derivation (numbers-only by default)
  bool latency_bound() const { return t_latency_s > t_bandwidth_s; }
};

// ---- ICI (sharding.md) ----

// One mesh axis: a bidirectional ring when it wraps and its links carry both ways, otherwise
// priced as a one-way ring.
struct RingAxis {
  double size = 1;
  bool wraparound = true;
  bool bidirectional = true;
  bool bidi_ring() const { return wraparound && bidirectional; }
};

struct IciLinks {
  double link_bytes_per_s = 0;  // W: one link, one way
  double hop_latency_s = 0;
};

// `bytes` is V: the array one group ends up holding (AllGather), or the unreduced buffer.
// `ragged_k` (AllToAll only) scales the bandwidth term by min(k/N, 1).
// Each model records its derivation into `log` as it computes (nothing when numbers-only).
CollectiveCost ici_collective(CollectiveOp op, double bytes, const std::vector<RingAxis>& axes,
                              const IciLinks& links, std::optional<double> ragged_k = {},
                              const Steps& log = Steps());

// ---- Switched fabrics (gpus.md) ----

// A single switched level over N devices at W per device (an NVLink node, or DCN).
struct SwitchedLevel {
  std::string level;  // "nvlink" or "dcn"
  double devices = 1;
  double bytes_per_s = 0;
  double hop_latency_s = 0;
  bool sharp = false;  // in-switch reduction (AllReduce only)
};

CollectiveCost switched_collective(CollectiveOp op, double bytes, const SwitchedLevel& fabric,
                                   std::optional<double> ragged_k = {}, const Steps& log = Steps());

// NVLink nodes under an InfiniBand fat tree (leaf switches per scalable unit, then spines).
struct FatTree {
  double gpus_per_node = 8;        // g
  double nodes = 1;                // M
  double nodes_per_su = 32;        // s
  double inner_axis_size = 1;      // Y: adjacent GPUs that shard the array on another axis
  double nvlink_bytes_per_s = 0;   // per GPU
  double ib_bytes_per_s = 0;       // per GPU
  double hop_latency_s = 0;
  bool sharp = false;
};

// Throws InputError (naming nodes / inner_axis_size) when the tree cannot hold the group.
CollectiveCost fat_tree_collective(CollectiveOp op, double bytes, const FatTree& tree,
                                   std::optional<double> ragged_k = {}, const Steps& log = Steps());

}  // namespace scalelab
