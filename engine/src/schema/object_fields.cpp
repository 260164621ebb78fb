// The schemas of a chip object and a model object: the catalog's field rows (catalog.hpp) as
// parameters, with the structured fields built here, and labelled (labels.cpp).
#include "schema/object_fields.hpp"

#include <algorithm>
#include <string>

#include "catalog/catalog.hpp"
#include "schema/labels.hpp"
#include "schema/params.hpp"

namespace scalelab {

namespace {

Param number(std::string_view name, std::string_view unit, double min, double max, std::string_view doc) {
  return params::number(name, unit, min, max, nullptr, doc);
}

Param count(std::string_view name, double min, double max, std::string_view doc) {
  return params::integer(name, "count", min, max, nullptr, doc);
}

Param text(std::string_view name, std::string_view doc) { return params::text(name, nullptr, doc); }

Param anything(std::string_view name, std::string_view doc) { return params::map(name, text("value", ""), doc); }

Param int_list(std::string_view name, double max_len, double max_value, std::string_view doc) {
  return params::list(name, count("item", 1, max_value, ""), 1, max_len, nullptr, doc);
}

using Row = FieldKind;

// The parameters of a catalog's field rows (catalog.hpp FieldRow), in order: a table costs the
// browser's engine a fifth of the bytes of one builder call per field. A `built` row takes the
// field of that name from `built`.
std::vector<Param> from_rows(std::span<const FieldRow> rows, std::vector<Param> built = {}) {
  std::vector<Param> fields;
  fields.reserve(rows.size());
  for (const FieldRow& r : rows) {
    switch (r.row) {
      case Row::number: fields.push_back(number(r.name, r.unit, r.min, r.max, r.doc)); break;
      case Row::count: fields.push_back(count(r.name, r.min, r.max, r.doc)); break;
      case Row::text: fields.push_back(text(r.name, r.doc)); break;
      case Row::flag_off:
      case Row::flag_on: fields.push_back(params::boolean(r.name, r.row == Row::flag_on, r.doc)); break;
      case Row::built:
        fields.push_back(std::move(*std::find_if(built.begin(), built.end(), [&](const Param& p) { return p.name == r.name; })));
        break;
    }
  }
  return fields;
}

// `topology` as `scalelab chips` lists it: derived from the chip's own fields, accepted in a
// chip object copied from that list, and recomputed (never read) by the engine.
Param topology_field() {
  Param t = params::object(
      "topology",
      {params::choice("kind", chip_kind_names(), nullptr, "chip kind", chip_kind_titles()),
       params::choice("scale_up", {"ici", "nvlink"}, nullptr, "the fast network between chips",
                      {"ICI torus", "NVLink"}),
       int_list("pod_shape", 8, 1e6, "pod torus shape"), count("pod_axes", 1, 8, "axes of the pod torus"),
       count("pod_chips", 1, 1e8, "chips in a pod"), count("ici_links", 1, 1e3, "ICI links per chip"),
       count("wrap_axis_multiple", 1, 1e6, "axis lengths that wrap around are multiples of this"),
       text("wraparound_rule", "which axes wrap around, in words"),
       count("nvlink_domain_gpus", 1, 1e5, "GPUs in one NVLink domain"),
       params::choice("beyond_pod", {"dcn", "infiniband"}, nullptr, "the network beyond the pod or NVLink domain",
                      {"DCN", "InfiniBand"})},
      "derived network facts (output only: recomputed from the chip's fields, ignored on input)");
  return t;
}

std::vector<Param> make_chip_fields() {
  Param flops;
  flops.name = "flops_per_s";
  flops.type = Type::object;
  flops.unit = "FLOP/s";
  flops.doc = "peak dense FLOP/s per dtype";
  for (const char* dtype : {"fp32", "fp16", "bf16", "fp8", "int8", "int4", "fp4"}) {
    flops.fields.push_back(number(dtype, "FLOP/s", 1, kMaxChipRate, std::string(dtype) + " peak"));
  }
  Param kind;
  kind.name = "kind";
  kind.type = Type::choice;
  kind.choices = chip_kind_names();
  kind.choice_titles = chip_kind_titles();
  kind.doc = "tpu (ICI torus), datacenter-gpu (NVLink domain + InfiniBand), workstation-gpu, consumer-gpu, "
             "unified-memory or cpu; gpu is the old name of datacenter-gpu";
  Param superpod;
  superpod.name = "superpod";
  superpod.type = Type::object;
  superpod.doc = "GPU scale-out fabric (fat tree) figures";
  superpod.fields = from_rows(superpod_field_rows());
  Param vpu_shape = int_list("vpu_shape", 2, 1e5, "VPU [sublanes, lanes]");
  vpu_shape.min = 2;
  // The structured fields, each built once and moved into its place in the rows below.
  std::vector<Param> built = {
      std::move(kind), std::move(flops), std::move(superpod), std::move(vpu_shape), topology_field(),
      int_list("pod_shape", 8, 1e6, "pod torus shape, e.g. [16, 20, 28]"),
      params::boolean("wrap_whole_cubes", nullptr, "wraparound needs every axis of the slice to be such a multiple (optical cubes)"),
      params::choice("beyond_pod", {"dcn", "infiniband"}, nullptr, "the network beyond the pod or NVLink domain", {"DCN", "InfiniBand"}),
      anything("sources", "where each number comes from"),
  };
  return from_rows(chip_field_rows(), std::move(built));
}

std::vector<Param> make_model_fields() {
  Param attention;
  attention.name = "attention";
  attention.type = Type::choice;
  attention.choices = {"gqa", "mla"};
  attention.choice_titles = {"grouped-query attention (MHA and MQA too)", "multi-head latent attention"};
  attention.default_value = "gqa";
  attention.doc = "gqa (covers MHA K=N and MQA K=1) or mla (latent KV cache)";
  return from_rows(model_field_rows(), {std::move(attention)});
}

}  // namespace

const std::vector<Param>& chip_fields() {
  static const std::vector<Param> fields = [] {
    std::vector<Param> f = make_chip_fields();
    label_params(f, "chip");
    return f;
  }();
  return fields;
}

const std::vector<Param>& model_fields() {
  static const std::vector<Param> fields = [] {
    std::vector<Param> f = make_model_fields();
    label_params(f, "model");
    return f;
  }();
  return fields;
}

}  // namespace scalelab
