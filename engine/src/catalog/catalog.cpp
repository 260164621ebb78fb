#include "catalog/catalog.hpp"
#include "core/format_words.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <memory>

#include "catalog/catalog_data.hpp"
#include "core/enum_table.hpp"
#include "core/errors.hpp"
#include "core/format.hpp"
#include "core/name.hpp"

namespace scalelab {

namespace {

using Row = FieldKind;
constexpr double kRate = kMaxChipRate;

// The GPU scale-out fabric's fields (a chip's "superpod" object).
constexpr FieldRow kSuperpodRows[] = {
    {Row::count, "gpus", "GPUs in a SuperPod", 1, 1e7},
    {Row::count, "nodes", "nodes in a SuperPod", 1, 1e6},
    {Row::count, "gpus_per_su", "GPUs under one set of leaf switches", 1, 1e6},
    {Row::count, "leaf_switches", "leaf switches", 1, 1e5},
    {Row::count, "spine_switches", "spine switches", 1, 1e5},
    {Row::number, "ib_port_one_way_bytes_per_s", "one IB port", 1, kRate, "bytes/s"},
    {Row::count, "ib_switch_ports", "ports per IB switch", 1, 1e4},
};

// A chip object's fields in schema order (the order a chip object is written in).
constexpr FieldRow kChipRows[] = {
    {Row::text, "id", "catalog id"},
    {Row::text, "name", "display name"},
    {Row::text, "vendor", "maker"},
    {Row::built, "kind"},
    {Row::text, "generation", "generation"},
    {Row::built, "flops_per_s"},
    {Row::number, "hbm_bytes", "HBM capacity per chip", 1, kRate, "bytes"},
    {Row::number, "hbm_bytes_per_s", "HBM bandwidth per chip", 1, kRate, "bytes/s"},
    {Row::text, "memory_kind", "the kind of device memory: HBM3, GDDR6X, LPDDR5 (unified), DDR5 (system RAM)"},
    {Row::number, "vmem_bytes", "VMEM (TPU) or SMEM/L2 (GPU) capacity", 1, kRate, "bytes"},
    {Row::number, "vmem_bytes_per_s", "VMEM (TPU) or SMEM/L2 (GPU) bandwidth", 1, kRate, "bytes/s"},
    {Row::number, "smem_bytes_per_sm", "shared memory per SM (GPU)", 1, kRate, "bytes"},
    {Row::number, "l2_bytes", "L2 cache (GPU)", 1, kRate, "bytes"},
    {Row::count, "cores_per_chip", "TensorCores per chip", 1, 1e4},
    {Row::number, "clock_hz", "clock frequency", 1, 1e12, "Hz"},
    {Row::number, "ici_link_bytes_per_s", "one ICI link, one way", 1, kRate, "bytes/s"},
    {Row::count, "ici_links", "ICI links per chip", 1, 1e3},
    {Row::number, "ici_hop_latency_s", "latency of one ICI hop", 0, 1, "s"},
    {Row::built, "pod_shape"},
    {Row::count, "pod_chips", "chips in a pod", 1, 1e8},
    {Row::count, "wrap_axis_multiple", "a torus axis wraps around when its length is a multiple of this (16 on v5e, 4 on v5p)", 1, 1e6},
    {Row::built, "wrap_whole_cubes"},
    {Row::built, "beyond_pod"},
    {Row::count, "host_chips", "chips per host", 1, 1e4},
    {Row::number, "pcie_bytes_per_s", "host↔chip PCIe, one way", 1, kRate, "bytes/s"},
    {Row::number, "dcn_bytes_per_s", "data-centre network egress per chip", 1, kRate, "bytes/s"},
    {Row::number, "nvlink_bytes_per_s", "NVLink egress per GPU, one way", 1, kRate, "bytes/s"},
    {Row::count, "node_gpus", "GPUs in one NVLink domain", 1, 1e5},
    {Row::number, "ib_bytes_per_s", "InfiniBand per GPU, one way", 1, kRate, "bytes/s"},
    {Row::number, "node_ib_bytes_per_s", "InfiniBand per node, one way", 1, kRate, "bytes/s"},
    {Row::number, "price_per_hour_usd", "price per chip-hour", 0, 1e6, "usd"},
    {Row::built, "superpod"},
    {Row::text, "host_link", "how the device attaches to its host, e.g. PCIe 4.0 x16"},
    {Row::number, "price_usd", "purchase price (launch list price)", 0, 1e8, "usd"},
    {Row::number, "gpu_memory_share", "unified memory: the share of memory the GPU may use by default", 0, 1, "ratio"},
    {Row::count, "mxu_dim", "side of the MXU systolic array", 1, 1e5},
    {Row::count, "mxus_per_core", "MXUs per TensorCore", 1, 1e4},
    {Row::built, "vpu_shape"},
    {Row::count, "vpu_alus_per_lane", "ALUs per VPU lane", 1, 1e4},
    {Row::count, "vregs_per_core", "vector registers per core", 1, 1e6},
    {Row::count, "sms", "streaming multiprocessors", 1, 1e6},
    {Row::count, "subpartitions_per_sm", "SM subpartitions", 1, 1e3},
    {Row::count, "tensor_cores_per_sm", "Tensor Cores per SM", 1, 1e3},
    {Row::count, "fp32_cores_per_subpartition", "fp32 CUDA cores per subpartition", 1, 1e4},
    {Row::count, "registers_per_subpartition", "32-bit registers per subpartition", 1, 1e8},
    {Row::count, "nvswitches_per_node", "NVSwitches per node", 1, 1e4},
    {Row::count, "nvswitch_ports", "NVLink ports per NVSwitch", 1, 1e4},
    {Row::number, "nvlink_link_bytes_per_s", "one NVLink link, one way", 1, kRate, "bytes/s"},
    {Row::built, "sources"},
    {Row::text, "notes", "remarks"},
    {Row::built, "topology"},
};

// A model object's fields in schema order.
constexpr FieldRow kModelRows[] = {
    {Row::text, "id", "catalog id"},
    {Row::text, "name", "display name"},
    {Row::count, "L", "layers", 1, 1000},
    {Row::count, "D", "model width (d_model)", 1, 1e6},
    {Row::count, "F", "MLP hidden width", 1, 1e7},
    {Row::count, "N", "query heads", 1, 1e5},
    {Row::count, "K", "key/value heads", 1, 1e5},
    {Row::count, "H", "head dimension", 1, 1e5},
    {Row::count, "V", "vocabulary size", 1, 1e7},
    {Row::flag_on, "gated", "gated (3-matrix) MLP"},
    {Row::count, "E", "experts (1 = dense)", 1, 1e5},
    {Row::count, "k", "active experts per token", 1, 1e5},
    {Row::count, "shared_experts", "always-active shared experts", 0, 1e5},
    {Row::count, "F_expert", "expert MLP width (default F)", 1, 1e7},
    {Row::count, "dense_layers", "layers with a dense MLP of width F (leading, or interleaved as in Llama 4 Maverick)", 0, 1000},
    {Row::flag_off, "tied_embeddings", "input and output embeddings shared"},
    {Row::built, "attention"},
    {Row::count, "q_lora_rank", "MLA query low-rank dimension (0 = none)", 0, 1e6},
    {Row::count, "kv_lora_rank", "MLA latent KV dimension", 1, 1e6},
    {Row::count, "qk_rope_head_dim", "MLA rotary part of each head", 0, 1e5},
    {Row::count, "qk_nope_head_dim", "MLA non-rotary part of each head", 0, 1e5},
    {Row::count, "v_head_dim", "MLA value head dimension", 1, 1e5},
    {Row::count, "sliding_window", "tokens a local (sliding-window) layer attends to; 0 = every layer global", 0, 1e9},
    {Row::count, "local_layers", "layers that attend within sliding_window (default: all of them when a window is given)", 0, 1000},
    {Row::count, "sink_tokens", "first tokens a local layer keeps beside its window (attention sinks held in the cache)", 0, 1e6},
    {Row::number, "reported_params_total", "published total parameters", 0, 1e16, "count"},
    {Row::number, "reported_params_active", "published active parameters", 0, 1e16, "count"},
    {Row::text, "source", "where the dimensions come from"},
};

}  // namespace

std::span<const FieldRow> chip_field_rows() { return kChipRows; }
std::span<const FieldRow> superpod_field_rows() { return kSuperpodRows; }
std::span<const FieldRow> model_field_rows() { return kModelRows; }

namespace {

json parse_catalog(const char* text) { return json::parse(text); }

// One pass over a catalog's JSON text (an array of objects), aware of strings and nesting: where
// each entry's object begins and ends, and its "id". No tree is built and no number is read, so
// that one entry can be parsed alone.
class EntryScanner {
 public:
  std::vector<CatalogEntry> scan(std::string_view array) {
    for (std::size_t i = 0; i < array.size(); ++i) {
      switch (array[i]) {
        case '"':
          token_ = i;
          i = string_end(array, i);
          string_token(array.substr(token_, i + 1 - token_));
          break;
        case '{': case '[':
          if (depth_++ == 1) entries_.push_back({"", {}}), start_ = i;
          id_next_ = false;
          break;
        case '}': case ']':
          if (--depth_ == 1) entries_.back().text = array.substr(start_, i + 1 - start_);
          break;
        case ':': if (depth_ == 2) id_next_ = last_token_ == "\"id\""; break;
        case ',': id_next_ = false; break;
        default: break;
      }
    }
    return std::move(entries_);
  }

 private:
  void string_token(std::string_view token) {
    if (depth_ != 2) return;
    if (id_next_) entries_.back().id = unquoted(token);
    id_next_ = false;
    last_token_ = token;
  }
  // The position of the quote that closes the string opened at `open` (one not escaped, i.e.
  // after an even run of backslashes); the text's end if none.
  static std::size_t string_end(std::string_view text, std::size_t open) {
    for (std::size_t quote = text.find('"', open + 1); quote != std::string_view::npos;
         quote = text.find('"', quote + 1)) {
      std::size_t backslashes = 0;
      while (text[quote - 1 - backslashes] == '\\') ++backslashes;
      if (backslashes % 2 == 0) return quote;
    }
    return text.size() - 1;
  }
  static std::string unquoted(std::string_view token) {
    if (token.find('\\') == std::string_view::npos) return std::string(token.substr(1, token.size() - 2));
    return json::parse(token).get<std::string>();  // escapes: nlohmann's rules
  }

  std::vector<CatalogEntry> entries_;
  std::size_t start_ = 0, token_ = 0;
  int depth_ = 0;
  bool id_next_ = false;
  std::string_view last_token_;
};

// The object of catalog entry `id` of `what` ("chip", "model"), parsed from its text alone.
json entry_json(const std::vector<CatalogEntry>& entries, const std::string& id, const char* what) {
  if (const CatalogEntry* entry = find_entry(entries, id)) return json::parse(entry->text);
  throw InputError(what, std::string("unknown ") + what + " \"" + id.substr(0, 40) + "\"");
}

// The id (or the name, for people) of every format of data/formats.json that serves weights (or
// the KV cache), from the table the build generates: no JSON parsed.
std::vector<std::string> format_column(bool FormatRow::*serves, const char* FormatRow::*column) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < kFormatRowCount; ++i) {
    if (kFormatRows[i].*serves) out.emplace_back(kFormatRows[i].*column);
  }
  return out;
}

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

const std::vector<CatalogEntry>& chip_entries() {
  static const std::vector<CatalogEntry> entries = scan_catalog_entries(kChipsJson);
  return entries;
}

const std::vector<CatalogEntry>& model_entries() {
  static const std::vector<CatalogEntry> entries = scan_catalog_entries(kModelsJson);
  return entries;
}

std::vector<CatalogEntry> scan_catalog_entries(std::string_view array_text) {
  return EntryScanner().scan(array_text);
}

const CatalogEntry* find_entry(const std::vector<CatalogEntry>& entries, std::string_view id) {
  for (const CatalogEntry& entry : entries) {
    if (same_name(entry.id, id)) return &entry;
  }
  return nullptr;
}

const json& format_catalog() {
  static const json catalog = parse_catalog(kFormatsJson);
  return catalog;
}

const json& measurement_catalog() {
  static const json catalog = json::parse(kMeasurementsJson);
  return catalog;
}

const json& band_catalog() {
  static const json catalog = json::parse(kBandsJson);
  return catalog;
}

const json* find_format(const std::string& id) { return find_by_id(format_catalog(), id); }

double format_bits(const std::string& id) {
  if (const json* f = find_format(id)) return (*f)["bits"].get<double>();
  throw InputError("format", "must be a weight or KV-cache format of data/formats.json (e.g. bf16, "
                             "q8_0, q4_k_m, mxfp4), got \"" + id + "\"");
}

bool format_runs_on(const std::string& format, const Chip& chip, bool adapters) {
  const json* f = find_format(format);
  if (!f) return false;
  const std::string platform = chip.platform();
  for (const json& runtime : f->value("runs_on", json::array())) {
    if (adapters && !runtime.value("adapters", false)) continue;
    for (const json& on : runtime["on"]) {
      // a GPU of no given vendor: whatever runs on some GPU vendor
      if (platform.empty() ? on != "tpu" && on != "cpu" : on == platform) return true;
    }
  }
  return false;
}

std::vector<std::string> formats_running_on(const std::vector<std::string>& ids, const Chip& chip, bool adapters) {
  std::vector<std::string> out;
  for (const std::string& id : ids) {
    if (format_runs_on(id, chip, adapters)) out.push_back(id);
  }
  return out;
}

std::string format_runtimes(const std::string& format) {
  std::string out;
  const json* f = find_format(format);
  const json none = json::array();
  const json& list = f ? f->value("runs_on", none) : none;
  for (std::size_t i = 0; i < list.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == list.size() ? " or " : ", ") + list[i]["runtime"].get<std::string>();
  }
  return out;
}

const std::vector<std::string>& weight_format_names() {
  static const std::vector<std::string> names = format_column(&FormatRow::weights, &FormatRow::id);
  return names;
}

const std::vector<std::string>& weight_format_titles() {
  static const std::vector<std::string> titles = format_column(&FormatRow::weights, &FormatRow::name);
  return titles;
}

const std::vector<std::string>& kv_format_names() {
  static const std::vector<std::string> names = format_column(&FormatRow::kv, &FormatRow::id);
  return names;
}

const std::vector<std::string>& kv_format_titles() {
  static const std::vector<std::string> titles = format_column(&FormatRow::kv, &FormatRow::name);
  return titles;
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
    if (same_name(d.name, dtype)) return d.bytes;
  }
  if (find_format(dtype)) return format_bits(dtype) / 8;
  std::string allowed;
  for (const Dtype& d : dtypes()) allowed += (allowed.empty() ? "" : ", ") + d.name;
  throw InputError("dtype", "must be one of " + allowed + ", got \"" + dtype.substr(0, 40) + "\"");
}

namespace {

// The kinds of chip, one row each in enum order, then the catalog's old name for a datacenter GPU.
constexpr EnumTable<ChipKind, 7> kChipKinds({{
    {ChipKind::tpu, "tpu", "TPU"},
    {ChipKind::datacenter_gpu, "datacenter-gpu", "datacenter GPU"},
    {ChipKind::workstation_gpu, "workstation-gpu", "workstation GPU"},
    {ChipKind::consumer_gpu, "consumer-gpu", "consumer GPU"},
    {ChipKind::unified_memory, "unified-memory", "unified memory (Apple, AMD, DGX Spark)"},
    {ChipKind::cpu, "cpu", "CPU"},
    {ChipKind::datacenter_gpu, "gpu", "datacenter GPU (old name gpu)"},
}});
static_assert(kChipKinds.in_enum_order(1), "one row per ChipKind, in its order, then the alias gpu");

ChipKind parse_kind(const std::string& name) {
  const auto* row = kChipKinds.find(name);
  return row ? row->value : ChipKind::tpu;
}

}  // namespace

const std::vector<std::string>& chip_kind_names() {
  static const std::vector<std::string> names = kChipKinds.names();
  return names;
}

const std::vector<std::string>& chip_kind_titles() {
  static const std::vector<std::string> titles = kChipKinds.titles();
  return titles;
}

namespace {

struct FigureField {
  const char* key;
  Chip::Figure Chip::*member;
};

// Every numeric figure of a chip: its catalog key and its member, in one table.
const FigureField kFigures[] = {
    {"hbm_bytes", &Chip::hbm_bytes},
    {"hbm_bytes_per_s", &Chip::hbm_bytes_per_s},
    {"vmem_bytes", &Chip::vmem_bytes},
    {"vmem_bytes_per_s", &Chip::vmem_bytes_per_s},
    {"smem_bytes_per_sm", &Chip::smem_bytes_per_sm},
    {"l2_bytes", &Chip::l2_bytes},
    {"cores_per_chip", &Chip::cores_per_chip},
    {"clock_hz", &Chip::clock_hz},
    {"ici_link_bytes_per_s", &Chip::ici_link_bytes_per_s},
    {"ici_links", &Chip::ici_links},
    {"ici_hop_latency_s", &Chip::ici_hop_latency_s},
    {"pod_chips", &Chip::pod_chips},
    {"host_chips", &Chip::host_chips},
    {"pcie_bytes_per_s", &Chip::pcie_bytes_per_s},
    {"dcn_bytes_per_s", &Chip::dcn_bytes_per_s},
    {"wrap_axis_multiple", &Chip::wrap_axis_multiple},
    {"nvlink_bytes_per_s", &Chip::nvlink_bytes_per_s},
    {"node_gpus", &Chip::node_gpus},
    {"ib_bytes_per_s", &Chip::ib_bytes_per_s},
    {"node_ib_bytes_per_s", &Chip::node_ib_bytes_per_s},
    {"nvlink_link_bytes_per_s", &Chip::nvlink_link_bytes_per_s},
    {"nvswitches_per_node", &Chip::nvswitches_per_node},
    {"nvswitch_ports", &Chip::nvswitch_ports},
    {"price_per_hour_usd", &Chip::price_per_hour_usd},
    {"price_usd", &Chip::price_usd},
    {"gpu_memory_share", &Chip::gpu_memory_share},
    {"mxu_dim", &Chip::mxu_dim},
    {"mxus_per_core", &Chip::mxus_per_core},
    {"vpu_alus_per_lane", &Chip::vpu_alus_per_lane},
    {"vregs_per_core", &Chip::vregs_per_core},
    {"sms", &Chip::sms},
    {"subpartitions_per_sm", &Chip::subpartitions_per_sm},
    {"tensor_cores_per_sm", &Chip::tensor_cores_per_sm},
    {"fp32_cores_per_subpartition", &Chip::fp32_cores_per_subpartition},
    {"registers_per_subpartition", &Chip::registers_per_subpartition},
};

std::optional<double> number_at(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::vector<double> numbers_at(const json& obj, const char* key) {
  std::vector<double> out;
  auto it = obj.find(key);
  if (it != obj.end() && it->is_array()) {
    for (const auto& n : *it) out.push_back(n.get<double>());
  }
  return out;
}

Superpod read_superpod(const json& pod) {
  return {number_at(pod, "gpus"),          number_at(pod, "nodes"),
          number_at(pod, "gpus_per_su"),   number_at(pod, "leaf_switches"),
          number_at(pod, "spine_switches"), number_at(pod, "ib_port_one_way_bytes_per_s"),
          number_at(pod, "ib_switch_ports")};
}

// The chip field's one-line doc from the schema, the figure in words; none when the schema has no
// field `key`.
std::optional<std::string> figure_words(const std::string& key) {
  for (const FieldRow& f : chip_field_rows()) {
    if (f.name == key) return std::string(f.doc);
  }
  return std::nullopt;
}

}  // namespace

Chip::Chip(json resolved) : data_(std::move(resolved)) {
  id_ = data_.value("id", std::string("custom"));
  name_ = data_.contains("name") && data_["name"].is_string() ? data_["name"].get<std::string>() : id_;
  kind = parse_kind(data_.value("kind", std::string("tpu")));
  // One pass over the chip's fields (a figure absent or not a number stays empty).
  for (auto it = data_.begin(); it != data_.end(); ++it) {
    if (!it->is_number()) continue;
    for (const FigureField& f : kFigures) {
      if (it.key() == f.key) {
        this->*f.member = it->get<double>();
        break;
      }
    }
  }
  if (auto it = data_.find("wrap_whole_cubes"); it != data_.end() && it->is_boolean()) {
    wrap_whole_cubes = it->get<bool>();
  }
  if (auto it = data_.find("beyond_pod"); it != data_.end() && it->is_string()) beyond_pod = it->get<std::string>();
  if (auto it = data_.find("memory_kind"); it != data_.end() && it->is_string()) memory_kind = it->get<std::string>();
  if (auto it = data_.find("superpod"); it != data_.end() && it->is_object()) superpod = read_superpod(*it);
  pod_shape_ = numbers_at(data_, "pod_shape");
  vpu_shape = numbers_at(data_, "vpu_shape");
}

std::string Chip::kind_name() const {
  const auto& names = chip_kind_names();
  return names[size_t(kind)];
}

bool own_device_kind(ChipKind kind) {
  return kind == ChipKind::consumer_gpu || kind == ChipKind::workstation_gpu || kind == ChipKind::unified_memory ||
         kind == ChipKind::cpu;
}

std::string Chip::platform() const {
  if (kind == ChipKind::tpu) return "tpu";
  if (kind == ChipKind::cpu) return "cpu";
  auto it = data_.find("vendor");
  return it != data_.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool Chip::has_hbm() const {
  if (memory_kind.empty()) return kind == ChipKind::tpu || kind == ChipKind::datacenter_gpu;
  return memory_kind.rfind("HBM", 0) == 0;
}

std::string Chip::memory_name() const {
  if (has_hbm()) return "HBM";
  if (memory_kind.empty()) return "device memory";
  if (kind == ChipKind::unified_memory) return "unified " + memory_kind + " memory";
  if (kind == ChipKind::cpu) return memory_kind + " system RAM";
  return memory_kind + " memory";
}

std::string Chip::memory_rung() const {
  std::string name = memory_name();
  return name == "HBM" ? "HBM (off-chip memory)" : name;
}

bool Chip::is_gpu() const {
  return kind == ChipKind::datacenter_gpu || kind == ChipKind::workstation_gpu || kind == ChipKind::consumer_gpu;
}

std::string chip_figure_key(Chip::Figure Chip::*figure) {
  for (const FigureField& f : kFigures) {
    if (f.member == figure) return f.key;
  }
  return "figure";
}

double Chip::need(Figure Chip::*figure, const std::string& why) const {
  if (auto v = this->*figure) return *v;
  std::string key = chip_figure_key(figure);
  std::optional<std::string> words = figure_words(key);
  throw InputError("chip",
                   name() + " has no figure for " + words.value_or(key) + ": " + why +
                       "; a custom chip can give it (chip_overrides." + key + ")",
                   words ? key : "");  // the error's "field" only when it names a field of the chip schema
}

std::optional<double> Chip::flops_if(const std::string& dtype) const {
  auto rates = data_.find("flops_per_s");
  if (rates == data_.end() || !rates->is_object()) return std::nullopt;
  return number_at(*rates, dtype.c_str());
}

// The fastest rate the chip lists (every key of flops_per_s, fp16 too: a V100 or a T4 lists fp16
// and fp32 and no bf16): a 16- or 32-bit float where it has one, else any float, else any.
std::optional<Chip::Rate> Chip::fastest_rate() const {
  std::optional<Rate> best_wide, best_float, best;
  auto rates = data_.find("flops_per_s");
  if (rates == data_.end() || !rates->is_object()) return std::nullopt;
  for (auto it = rates->begin(); it != rates->end(); ++it) {
    const std::string& name = it.key();
    auto rate = flops_if(name);
    if (!rate) continue;
    const Rate here{name, *rate};
    if (!best || *rate > best->flops_per_s) best = here;
    if (name.rfind("int", 0) == 0) continue;
    if (!best_float || *rate > best_float->flops_per_s) best_float = here;
    const bool wide = name == "fp32" || name == "fp16" || name == "bf16";
    if (wide && (!best_wide || *rate > best_wide->flops_per_s)) best_wide = here;
  }
  return best_wide ? best_wide : best_float ? best_float : best;
}

double Chip::flops(const std::string& dtype, const std::string& param) const {
  if (auto v = flops_if(dtype)) return *v;
  throw InputError(param, name() + " has no " + dtype + " FLOP/s rate; choose another number format " +
                              "or give the rate in a custom chip (chip_overrides.flops_per_s." + dtype + ")");
}

Chip resolve_chip(const json& value, const json& overrides) {
  json chip = value.is_string() ? entry_json(chip_entries(), value.get<std::string>(), "chip") : value;
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
  chip.erase("topology");  // derived: the engine recomputes it from the chip's fields
  if (chip.contains("pod_shape") && chip["pod_shape"].is_array() && !chip["pod_shape"].empty()) {
    double product = 1;
    for (const auto& n : chip["pod_shape"]) product *= n.get<double>();
    chip["pod_chips"] = product;
  }
  return Chip(chip);
}

namespace {

// The catalog's entries, each resolved (without overrides) at the first evaluation that asks for
// it and shared from then on. One table per thread (thread_local below: no lock, and no
// std::mutex with its system_error messages in the WebAssembly module). An entry that does not
// resolve is left empty, so that asking for it again resolves it again and reports why.
template <typename T>
class ResolvedEntries {
 public:
  explicit ResolvedEntries(const std::vector<CatalogEntry>& entries)
      : entries_(entries), resolved_(entries.size()) {}

  template <typename Resolve>
  std::shared_ptr<const T> find(const json& value, const json& overrides, Resolve resolve) {
    if (!value.is_string() || overrides.is_object()) return nullptr;
    const CatalogEntry* entry = find_entry(entries_, value.get_ref<const std::string&>());
    if (!entry) return nullptr;
    std::shared_ptr<const T>& slot = resolved_[static_cast<std::size_t>(entry - entries_.data())];
    if (!slot) slot = std::make_shared<const T>(resolve(value, json()));
    return slot;
  }

 private:
  const std::vector<CatalogEntry>& entries_;
  std::vector<std::shared_ptr<const T>> resolved_;
};

}  // namespace

std::shared_ptr<const Chip> shared_chip(const json& value, const json& overrides) {
  thread_local ResolvedEntries<Chip> catalog(chip_entries());
  if (auto chip = catalog.find(value, overrides, resolve_chip)) return chip;
  return std::make_shared<const Chip>(resolve_chip(value, overrides));
}

std::shared_ptr<const Model> shared_model(const json& value, const json& overrides) {
  thread_local ResolvedEntries<Model> catalog(model_entries());
  if (auto model = catalog.find(value, overrides, resolve_model)) return model;
  return std::make_shared<const Model>(resolve_model(value, overrides));
}

Model resolve_model(const json& value, const json& overrides) {
  json m = value.is_string() ? entry_json(model_entries(), value.get<std::string>(), "model") : value;
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
  r.sliding_window = field(m, "sliding_window", 0);
  r.local_layers = field(m, "local_layers", r.sliding_window > 0 ? r.L : 0);
  r.sink_tokens = field(m, "sink_tokens", 0);
  if (std::fmod(r.N, r.K) != 0) {
    throw InputError("model.K", "must divide N (query heads " + grouped(r.N) + "), got " +
                                    grouped(r.K));
  }
  if (r.k > r.E) {
    throw InputError("model.k", "active experts must be ≤ E = " + plain(r.E) + ", got " +
                                    plain(r.k));
  }
  if (r.dense_layers > r.L) {
    throw InputError("model.dense_layers", "must be ≤ L = " + plain(r.L) + ", got " +
                                               plain(r.dense_layers));
  }
  if (r.local_layers > r.L) {
    throw InputError("model.local_layers", "must be ≤ L = " + plain(r.L) + ", got " + plain(r.local_layers));
  }
  if (r.local_layers > 0 && r.sliding_window <= 0) {
    throw InputError("model.local_layers", "needs sliding_window, the tokens a local layer attends to");
  }
  if (r.is_mla() && r.kv_lora_rank <= 0) {
    throw InputError("model.kv_lora_rank", "is required with attention \"mla\"");
  }
  r.data = m;
  return r;
}

}  // namespace scalelab
