// `sharding` (ch 3, 10): what one device holds of an array sharded as "A[I_X, J_Y]".
#include <cmath>

#include "calculators/calculators.hpp"
#include "core/format_words.hpp"
#include "core/output_rows.hpp"
#include "models/common.hpp"
#include "models/sharding_spec.hpp"
#include "schema/params.hpp"

namespace scalelab {
namespace {

// sharding's outputs, in the order results list them (name, unit, label, doc, nullable): compute
// writes each where it makes it (r.out), none is read from a figures struct by write_members.
// clang-format off
constexpr Output kOutputs[] = {
    {"local_shape", "", "local shape", "shape of the shard each device holds", false},
    {"local_bytes", "bytes", "bytes per device", "bytes of one device's shard", false},
    {"global_bytes", "bytes", "array bytes", "bytes of the whole array, one copy", false},
    {"replicas", "count", "replicas", "copies of each shard across the mesh", false},
    {"total_bytes", "bytes", "bytes over all devices", "bytes held by all devices together, every copy counted", false},
    {"shards", "", "shards per dimension", "how many pieces each dimension is cut into", false},
    {"local_elements", "count", "elements per device", "elements of one device's shard", false},
    {"global_elements", "count", "array elements", "elements of the whole array", false},
    {"devices", "count", "devices", "devices in the mesh", false},
    {"spec", "", "sharding", "the sharding as parsed, in the book's notation", false},
};
// clang-format on

constexpr double kMaxElements = 1e30;  // keeps every product finite

// Sizes in the spec's dimension order, from `shape` (positional) or `dims` (by name).
std::vector<double> resolve_shape(const Args& args, const ArraySpec& spec) {
  std::vector<double> shape;
  if (args.given("dims")) {
    if (args.given("shape")) throw InputError("dims", "give shape or dims, not both");
    const json& dims = args.raw("dims");
    for (const DimSpec& d : spec.dims) {
      if (!dims.contains(d.name)) throw InputError("dims", "has no size for dimension " + d.name + " of the spec");
      shape.push_back(dims[d.name].get<double>());
    }
    for (auto it = dims.begin(); it != dims.end(); ++it) {
      if (!spec.find(it.key())) {
        throw InputError("dims." + it.key(), "is not a dimension of the spec " + format_array(spec));
      }
    }
    return shape;
  }
  for (const auto& n : args.raw("shape")) shape.push_back(n.get<double>());
  if (shape.size() != spec.dims.size()) {
    throw InputError("shape", "has " + std::to_string(shape.size()) + " sizes but the spec " + format_array(spec) +
                                  " names " + std::to_string(spec.dims.size()) + " dimensions");
  }
  return shape;
}

std::string axes_text(const std::vector<std::string>& axes) {
  std::string s;
  for (const auto& a : axes) s += a;
  return s;
}

std::string size_param(const Args& args) { return args.given("dims") ? "dims" : "shape"; }

std::vector<std::string> unused_axes(const Mesh& mesh, const ArraySpec& spec) {
  std::vector<std::string> used = spec.used_axes(), unused;
  for (const MeshAxis& a : mesh.axes()) {
    if (std::find(used.begin(), used.end(), a.name) == used.end()) unused.push_back(a.name);
  }
  return unused;
}

// The product of the terms (1 when there are none), as one formula.
Expr product(const std::vector<Expr>& terms) {
  if (terms.empty()) return 1;
  Expr p = terms[0];
  for (std::size_t i = 1; i < terms.size(); ++i) p = p * terms[i];
  return p;
}

void compute(const Args& args, Result& r) {
  Mesh mesh(args.raw("mesh"));
  ArraySpec spec = parse_array_spec(args.str("spec"), mesh, "spec");
  std::vector<double> shape = resolve_shape(args, spec);
  double element = args.dtype("dtype");
  std::vector<double> shards, local;
  for (size_t i = 0; i < shape.size(); ++i) {
    double n = mesh.size(spec.dims[i].axes);
    if (std::fmod(shape[i], n) != 0) {
      throw InputError(size_param(args), "dimension " + spec.dims[i].name + " (" + grouped(shape[i]) +
                                             ") does not divide into its " + grouped(n) + " shards (" +
                                             spec.dims[i].name + "_" + axes_text(spec.dims[i].axes) + ")");
    }
    shards.push_back(n);
    local.push_back(shape[i] / n);
  }
  double global_elements = 1, local_elements = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    global_elements *= shape[i];
    local_elements *= local[i];
    if (global_elements > kMaxElements) {
      throw InputError(size_param(args), "describes an array of more than " + plain(kMaxElements) + " elements");
    }
  }
  double replicas = 1;
  for (const auto& a : unused_axes(mesh, spec)) replicas *= mesh.size(a);

  // Each dimension d: its size n_d and its shards s_d; an unused axis a: its size |a|.
  const Steps log = r.log();
  std::vector<Expr> sizes, shard_counts, local_sizes, unused_terms;
  for (size_t i = 0; i < shape.size(); ++i) {
    const std::string& d = spec.dims[i].name;
    sizes.push_back(log.sym("n_{" + d + "}", shape[i]));
    shard_counts.push_back(log.sym("s_{" + d + "}", shards[i]));
    local_sizes.push_back(frac(sizes.back(), shard_counts.back()));
  }
  for (const auto& a : unused_axes(mesh, spec)) unused_terms.push_back(log.sym("|" + a + "|", mesh.size(a)));
  Expr b = log.sym("b", element);
  Expr N = log.step("Global elements", "N", product(sizes), "count");
  double global_bytes = log.step("Global bytes", "\\text{bytes}", b * N, "bytes").value();
  log.step("Shards", "s", product(shard_counts), "count");
  Expr N_local = log.step("Local elements", "N_{local}", product(local_sizes), "count");
  double local_bytes = log.step("Bytes per device", "\\text{bytes}_{local}", b * N_local, "bytes").value();
  Expr R = log.step("Replicas", "R", product(unused_terms), "count");
  double total = log.step("Bytes of all copies", "\\text{bytes}_{all}", R * log.sym("\\text{bytes}", global_bytes),
                          "bytes").value();
  r.out("local_shape", local);
  r.out("local_bytes", local_bytes);
  r.out("global_bytes", global_bytes);
  r.out("replicas", replicas);
  r.out("total_bytes", total);
  r.out("shards", shards);
  r.out("local_elements", local_elements);
  r.out("global_elements", global_elements);
  r.out("devices", mesh.devices());
  r.out("spec", format_array(spec));
  if (replicas > 1) {
    r.warn(format_array(spec) + " is replicated " + plain(replicas) + " times over its unused mesh axes: the " +
           format_quantity(global_bytes, "bytes") + " array takes " + format_quantity(total, "bytes") + " in all.");
  }
}

}  // namespace

Calculator make_sharding() {
  using namespace params;
  Param size = integer("n", "count", 1, 1e12, nullptr, "dimension size");
  Param axis = integer("n", "count", 1, 1e6, nullptr, "devices along the axis");
  Param mesh = map("mesh", axis, "mesh axis sizes, e.g. {\"X\": 4, \"Y\": 2}");
  mesh.default_value = {{"X", 4}, {"Y", 2}};
  mesh.unit = "count";
  Param shape = list("shape", size, 1, 16, json::array({1024, 4096}), "global shape, in the spec's dimension order");
  shape.unit = "count";
  Param dims = map("dims", size, "global size of each dimension by name (instead of shape)");
  dims.unit = "count";
  return {"sharding", "Sharding", {3, 10},
          "What each device holds of an array sharded over a device mesh, in the book's notation "
          "A[I_X, J_Y]: local shape, bytes per device, replicas.",
          {shape, dims,
           text("spec", "A[I_X, J_Y]", "sharding in the book's notation: A[I_X, J_YZ]; a dimension without "
                                       "subscript is replicated"),
           mesh,
           dtype("dtype", "element type")},
          compute,
          outputs_of(kOutputs)};
}

}  // namespace scalelab
