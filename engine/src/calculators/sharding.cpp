// `sharding` (ch 3, 10): what one device holds of an array sharded as "A[I_X, J_Y]".
#include <cmath>

#include "calculators/calculators.hpp"
#include "models/common.hpp"
#include "models/sharding_spec.hpp"
#include "schema/params.hpp"

namespace scalelab {
namespace {

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

std::string tex_product(const std::vector<double>& xs) {
  std::string s;
  for (double x : xs) s += (s.empty() ? "" : " \\times ") + tex(x);
  return s.empty() ? "1" : s;
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
      throw InputError(size_param(args), "dimension " + spec.dims[i].name + " (" + plain(shape[i]) +
                                             ") does not divide into its " + plain(n) + " shards (" +
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
  std::vector<double> unused_sizes;
  for (const auto& a : unused_axes(mesh, spec)) unused_sizes.push_back(mesh.size(a));
  double replicas = 1;
  for (double n : unused_sizes) replicas *= n;

  r.step("Global elements", "\\prod_d n_d", tex_product(shape), global_elements, "count");
  double global_bytes = r.step("Global bytes", "b \\prod_d n_d", tex(element) + " \\times " + tex(global_elements),
                               element * global_elements, "bytes");
  r.step("Shards", "s = \\prod_d \\prod_{a \\in \\text{axes}(d)} |a|", tex_product(shards),
         global_elements / local_elements, "count");
  r.step("Local elements", "\\prod_d n_d / s_d", tex_product(local), local_elements, "count");
  double local_bytes = r.step("Bytes per device", "b \\prod_d n_d / s_d",
                              tex(element) + " \\times " + tex(local_elements), element * local_elements, "bytes");
  r.step("Replicas", "R = \\prod_{\\text{unused axes}} |a|", tex_product(unused_sizes), replicas, "count");
  double total = r.step("Bytes of all copies", "R \\cdot b \\prod_d n_d",
                        tex(replicas) + " \\times " + tex(global_bytes), replicas * global_bytes, "bytes");
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
          compute};
}

}  // namespace scalelab
