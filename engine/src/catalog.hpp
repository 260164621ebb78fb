// The chip and model catalogs (data/*.json, embedded at build time), the schemas of a chip
// and a model object, and their resolution with overrides.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "json.hpp"
#include "schema.hpp"

namespace scalelab {

const json& chip_catalog();
const json& model_catalog();
const std::vector<Param>& chip_fields();
const std::vector<Param>& model_fields();

// The element types: one row each, name (as the API spells it), title, bytes per element
// (fractional for packed formats: int4 is 0.5). A plain table rather than an enum, so that
// formats can be added from catalog data (e.g. quantized weight formats) with one row each.
struct Dtype {
  std::string name, title;
  double bytes;
};
const std::vector<Dtype>& dtypes();
// Byte size of a dtype name ("fp32" 4, "bf16" 2, "fp8" 1, "int8" 1, "int4" 0.5).
double dtype_bytes(const std::string& dtype);
const std::vector<std::string>& dtype_names();
const std::vector<std::string>& dtype_titles();

// A resolved chip. Fields the catalog leaves null are refused by `need` with an error that
// names the field and suggests an override.
class Chip {
 public:
  explicit Chip(json resolved) : data_(std::move(resolved)) {}
  const json& data() const { return data_; }
  std::string id() const;
  std::string name() const;
  bool is_gpu() const;
  bool is_tpu() const { return !is_gpu(); }
  std::optional<double> get(const std::string& field) const;
  double need(const std::string& field) const;
  // FLOP/s at a dtype; refuses (naming `param`) when the chip has no rate for it.
  double flops(const std::string& dtype, const std::string& param = "compute_dtype") const;
  std::optional<double> flops_if(const std::string& dtype) const;
  std::vector<double> pod_shape() const;  // empty when unknown

 private:
  json data_;
};

// A resolved model: the catalog's dimensions with defaults filled in.
struct Model {
  std::string id, name;
  double L = 0, D = 0, F = 0, N = 0, K = 0, H = 0, V = 0;
  bool gated = true;
  double E = 1, k = 1, shared_experts = 0, F_expert = 0, dense_layers = 0;
  bool tied_embeddings = false;
  std::string attention = "gqa";
  double q_lora_rank = 0, kv_lora_rank = 0, qk_rope_head_dim = 0, qk_nope_head_dim = 0,
         v_head_dim = 0;
  bool is_moe() const { return E > 1; }
  bool is_mla() const { return attention == "mla"; }
  json data;  // the resolved object as given (catalog fields included)
};

// `value` is the validated "chip" input (id or object); `overrides` may be null.
Chip resolve_chip(const json& value, const json& overrides);
Model resolve_model(const json& value, const json& overrides);

}  // namespace scalelab
