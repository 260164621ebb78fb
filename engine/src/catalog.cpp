#include "catalog.hpp"

#include <cmath>

#include "errors.hpp"
#include "format.hpp"
#include "labels.hpp"
#include "params.hpp"

namespace scalelab {

extern const char* const kChipsJson;   // generated from data/chips.json
extern const char* const kModelsJson;  // generated from data/models.json

namespace {

Param number(std::string name, std::string unit, double min, double max, std::string doc) {
  return params::number(std::move(name), std::move(unit), min, max, nullptr, std::move(doc));
}

Param count(std::string name, double min, double max, std::string doc) {
  return params::integer(std::move(name), "count", min, max, nullptr, std::move(doc));
}

Param text(std::string name, std::string doc) {
  return params::text(std::move(name), nullptr, std::move(doc));
}

Param anything(std::string name, std::string doc) {
  return params::map(std::move(name), text("value", ""), std::move(doc));
}

Param int_list(std::string name, double max_len, double max_value, std::string doc) {
  return params::list(std::move(name), count("item", 1, max_value, ""), 1, max_len, nullptr,
                      std::move(doc));
}

std::vector<Param> make_chip_fields() {
  constexpr double kRate = 1e20;
  Param flops;
  flops.name = "flops_per_s";
  flops.type = Type::object;
  flops.unit = "FLOP/s";
  flops.doc = "peak dense FLOP/s per dtype";
  for (const char* dtype : {"fp32", "bf16", "fp8", "int8", "int4", "fp4"}) {
    flops.fields.push_back(number(dtype, "FLOP/s", 1, kRate, std::string(dtype) + " peak"));
  }
  Param kind;
  kind.name = "kind";
  kind.type = Type::choice;
  kind.choices = {"tpu", "gpu"};
  kind.doc = "tpu (ICI torus) or gpu (NVLink + InfiniBand)";
  Param superpod;
  superpod.name = "superpod";
  superpod.type = Type::object;
  superpod.doc = "GPU scale-out fabric (fat tree) figures";
  superpod.fields = {count("gpus", 1, 1e7, "GPUs in a SuperPod"),
                     count("nodes", 1, 1e6, "nodes in a SuperPod"),
                     count("gpus_per_su", 1, 1e6, "GPUs under one set of leaf switches"),
                     count("leaf_switches", 1, 1e5, "leaf switches"),
                     count("spine_switches", 1, 1e5, "spine switches"),
                     number("ib_port_one_way_bytes_per_s", "bytes/s", 1, kRate, "one IB port"),
                     count("ib_switch_ports", 1, 1e4, "ports per IB switch")};
  Param vpu_shape = int_list("vpu_shape", 2, 1e5, "VPU [sublanes, lanes]");
  vpu_shape.min = 2;
  return {
      text("id", "catalog id"), text("name", "display name"), text("vendor", "maker"), kind,
      text("generation", "generation"), flops,
      number("hbm_bytes", "bytes", 1, kRate, "HBM capacity per chip"),
      number("hbm_bytes_per_s", "bytes/s", 1, kRate, "HBM bandwidth per chip"),
      number("vmem_bytes", "bytes", 1, kRate, "VMEM (TPU) or SMEM/L2 (GPU) capacity"),
      number("vmem_bytes_per_s", "bytes/s", 1, kRate, "VMEM (TPU) or SMEM/L2 (GPU) bandwidth"),
      number("smem_bytes_per_sm", "bytes", 1, kRate, "shared memory per SM (GPU)"),
      number("l2_bytes", "bytes", 1, kRate, "L2 cache (GPU)"),
      count("cores_per_chip", 1, 1e4, "TensorCores per chip"),
      number("clock_hz", "Hz", 1, 1e12, "clock frequency"),
      number("ici_link_bytes_per_s", "bytes/s", 1, kRate, "one ICI link, one way"),
      count("ici_links", 1, 1e3, "ICI links per chip"),
      number("ici_hop_latency_s", "s", 0, 1, "latency of one ICI hop"),
      int_list("pod_shape", 8, 1e6, "pod torus shape, e.g. [16, 20, 28]"),
      count("pod_chips", 1, 1e8, "chips in a pod"),
      count("host_chips", 1, 1e4, "chips per host"),
      number("pcie_bytes_per_s", "bytes/s", 1, kRate, "host↔chip PCIe, one way"),
      number("dcn_bytes_per_s", "bytes/s", 1, kRate, "data-centre network egress per chip"),
      number("nvlink_bytes_per_s", "bytes/s", 1, kRate, "NVLink egress per GPU, one way"),
      count("node_gpus", 1, 1e5, "GPUs in one NVLink domain"),
      number("ib_bytes_per_s", "bytes/s", 1, kRate, "InfiniBand per GPU, one way"),
      number("node_ib_bytes_per_s", "bytes/s", 1, kRate, "InfiniBand per node, one way"),
      number("price_per_hour_usd", "usd", 0, 1e6, "price per chip-hour"), superpod,
      count("mxu_dim", 1, 1e5, "side of the MXU systolic array"),
      count("mxus_per_core", 1, 1e4, "MXUs per TensorCore"), vpu_shape,
      count("vpu_alus_per_lane", 1, 1e4, "ALUs per VPU lane"),
      count("vregs_per_core", 1, 1e6, "vector registers per core"),
      count("sms", 1, 1e6, "streaming multiprocessors"),
      count("subpartitions_per_sm", 1, 1e3, "SM subpartitions"),
      count("tensor_cores_per_sm", 1, 1e3, "Tensor Cores per SM"),
      count("fp32_cores_per_subpartition", 1, 1e4, "fp32 CUDA cores per subpartition"),
      count("registers_per_subpartition", 1, 1e8, "32-bit registers per subpartition"),
      count("nvswitches_per_node", 1, 1e4, "NVSwitches per node"),
      count("nvswitch_ports", 1, 1e4, "NVLink ports per NVSwitch"),
      number("nvlink_link_bytes_per_s", "bytes/s", 1, kRate, "one NVLink link, one way"),
      anything("sources", "where each number comes from"), text("notes", "remarks"),
  };
}

std::vector<Param> make_model_fields() {
  Param attention;
  attention.name = "attention";
  attention.type = Type::choice;
  attention.choices = {"gqa", "mla"};
  attention.default_value = "gqa";
  attention.doc = "gqa (covers MHA K=N and MQA K=1) or mla (latent KV cache)";
  auto flag = [](std::string name, bool def, std::string doc) {
    Param p;
    p.name = std::move(name);
    p.type = Type::boolean;
    p.default_value = def;
    p.doc = std::move(doc);
    return p;
  };
  auto dim = [](std::string name, double min, double max, std::string doc) {
    Param p = count(std::move(name), min, max, std::move(doc));
    return p;
  };
  return {
      text("id", "catalog id"), text("name", "display name"),
      dim("L", 1, 1000, "layers"), dim("D", 1, 1e6, "model width (d_model)"),
      dim("F", 1, 1e7, "MLP hidden width"), dim("N", 1, 1e5, "query heads"),
      dim("K", 1, 1e5, "key/value heads"), dim("H", 1, 1e5, "head dimension"),
      dim("V", 1, 1e7, "vocabulary size"), flag("gated", true, "gated (3-matrix) MLP"),
      dim("E", 1, 1e5, "experts (1 = dense)"), dim("k", 1, 1e5, "active experts per token"),
      dim("shared_experts", 0, 1e5, "always-active shared experts"),
      dim("F_expert", 1, 1e7, "expert MLP width (default F)"),
      dim("dense_layers", 0, 1000, "leading layers with a dense MLP of width F"),
      flag("tied_embeddings", false, "input and output embeddings shared"), attention,
      dim("q_lora_rank", 0, 1e6, "MLA query low-rank dimension (0 = none)"),
      dim("kv_lora_rank", 1, 1e6, "MLA latent KV dimension"),
      dim("qk_rope_head_dim", 0, 1e5, "MLA rotary part of each head"),
      dim("qk_nope_head_dim", 0, 1e5, "MLA non-rotary part of each head"),
      dim("v_head_dim", 1, 1e5, "MLA value head dimension"),
      number("reported_params_total", "count", 0, 1e16, "published total parameters"),
      number("reported_params_active", "count", 0, 1e16, "published active parameters"),
      text("source", "where the dimensions come from"),
  };
}

json parse_catalog(const char* text) { return json::parse(text); }

const json* find_by_id(const json& catalog, const json& id) {
  for (const auto& entry : catalog) {
    if (entry["id"] == id) return &entry;
  }
  return nullptr;
}

double field(const json& obj, const char* name, double fallback) {
  auto it = obj.find(name);
  return it == obj.end() || it->is_null() ? fallback : it->get<double>();
}

}  // namespace

const json& chip_catalog() {
  static const json catalog = parse_catalog(kChipsJson);
  return catalog;
}

const json& model_catalog() {
  static const json catalog = parse_catalog(kModelsJson);
  return catalog;
}

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

const std::vector<Dtype>& dtypes() {
  static const std::vector<Dtype> table = {
      {"fp32", "32-bit float", 4},
      {"bf16", "bfloat16", 2},
      {"fp8", "8-bit float", 1},
      {"int8", "8-bit integer", 1},
      {"int4", "4-bit integer", 0.5},
  };
  return table;
}

const std::vector<std::string>& dtype_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Dtype& d : dtypes()) out.push_back(d.name);
    return out;
  }();
  return names;
}

const std::vector<std::string>& dtype_titles() {
  static const std::vector<std::string> titles = [] {
    std::vector<std::string> out;
    for (const Dtype& d : dtypes()) out.push_back(d.title);
    return out;
  }();
  return titles;
}

double dtype_bytes(const std::string& dtype) {
  for (const Dtype& d : dtypes()) {
    if (d.name == dtype) return d.bytes;
  }
  std::string allowed;
  for (const Dtype& d : dtypes()) allowed += (allowed.empty() ? "" : ", ") + d.name;
  throw InputError("dtype", "must be one of " + allowed + ", got \"" + dtype.substr(0, 40) + "\"");
}

std::string Chip::id() const { return data_.value("id", std::string("custom")); }
std::string Chip::name() const { return data_.value("name", id()); }
bool Chip::is_gpu() const { return data_.value("kind", std::string("tpu")) == "gpu"; }

std::optional<double> Chip::get(const std::string& f) const {
  auto it = data_.find(f);
  if (it == data_.end() || it->is_null() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

double Chip::need(const std::string& f) const {
  if (auto v = get(f)) return *v;
  throw InputError("chip", name() + " has no " + f + " in the catalog; give it with " +
                               "chip_overrides, e.g. {\"" + f + "\": …}");
}

std::optional<double> Chip::flops_if(const std::string& dtype) const {
  auto rates = data_.find("flops_per_s");
  if (rates == data_.end() || !rates->is_object()) return std::nullopt;
  auto it = rates->find(dtype);
  if (it == rates->end() || it->is_null()) return std::nullopt;
  return it->get<double>();
}

double Chip::flops(const std::string& dtype, const std::string& param) const {
  if (auto v = flops_if(dtype)) return *v;
  throw InputError(param, name() + " has no " + dtype + " FLOP/s rate; choose another dtype " +
                              "or give chip_overrides {\"flops_per_s\": {\"" + dtype + "\": …}}");
}

std::vector<double> Chip::pod_shape() const {
  std::vector<double> shape;
  auto it = data_.find("pod_shape");
  if (it != data_.end() && it->is_array()) {
    for (const auto& n : *it) shape.push_back(n.get<double>());
  }
  return shape;
}

Chip resolve_chip(const json& value, const json& overrides) {
  json chip = value.is_string() ? *find_by_id(chip_catalog(), value) : value;
  if (!value.is_string() && !chip.contains("id")) chip["id"] = "custom";
  if (overrides.is_object()) {
    for (auto it = overrides.begin(); it != overrides.end(); ++it) {
      if (it.key() == "flops_per_s" && chip["flops_per_s"].is_object()) {
        for (auto rate = it->begin(); rate != it->end(); ++rate) {
          chip["flops_per_s"][rate.key()] = rate.value();
        }
      } else {
        chip[it.key()] = it.value();
      }
    }
  }
  if (chip.contains("pod_shape") && chip["pod_shape"].is_array() && !chip["pod_shape"].empty()) {
    double product = 1;
    for (const auto& n : chip["pod_shape"]) product *= n.get<double>();
    chip["pod_chips"] = product;
  }
  return Chip(chip);
}

Model resolve_model(const json& value, const json& overrides) {
  json m = value.is_string() ? *find_by_id(model_catalog(), value) : value;
  if (overrides.is_object()) {
    for (auto it = overrides.begin(); it != overrides.end(); ++it) m[it.key()] = it.value();
  }
  for (const char* required : {"L", "D", "F", "N", "K", "H", "V"}) {
    if (!m.contains(required) || m[required].is_null()) {
      throw InputError(std::string("model.") + required,
                       "is required in a model object (L, D, F, N, K, H, V)");
    }
  }
  Model r;
  r.id = m.value("id", std::string("custom"));
  r.name = m.value("name", r.id);
  r.L = field(m, "L", 0);
  r.D = field(m, "D", 0);
  r.F = field(m, "F", 0);
  r.N = field(m, "N", 0);
  r.K = field(m, "K", 0);
  r.H = field(m, "H", 0);
  r.V = field(m, "V", 0);
  r.gated = m.value("gated", true);
  r.E = field(m, "E", 1);
  r.k = field(m, "k", 1);
  r.shared_experts = field(m, "shared_experts", 0);
  r.F_expert = field(m, "F_expert", r.F);
  r.dense_layers = field(m, "dense_layers", 0);
  r.tied_embeddings = m.value("tied_embeddings", false);
  r.attention = m.value("attention", std::string("gqa"));
  r.q_lora_rank = field(m, "q_lora_rank", 0);
  r.kv_lora_rank = field(m, "kv_lora_rank", 0);
  r.qk_rope_head_dim = field(m, "qk_rope_head_dim", 0);
  r.qk_nope_head_dim = field(m, "qk_nope_head_dim", 0);
  r.v_head_dim = field(m, "v_head_dim", 0);
  if (std::fmod(r.N, r.K) != 0) {
    throw InputError("model.K", "must divide N (query heads " + plain(r.N) + "), got " +
                                    plain(r.K));
  }
  if (r.k > r.E) {
    throw InputError("model.k", "active experts must be ≤ E = " + plain(r.E) + ", got " +
                                    plain(r.k));
  }
  if (r.dense_layers > r.L) {
    throw InputError("model.dense_layers", "must be ≤ L = " + plain(r.L) + ", got " +
                                               plain(r.dense_layers));
  }
  if (r.is_mla() && r.kv_lora_rank <= 0) {
    throw InputError("model.kv_lora_rank", "is required with attention \"mla\"");
  }
  r.data = m;
  return r;
}

}  // namespace scalelab
