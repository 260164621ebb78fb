// The chip and model catalogs (data/*.json, embedded at build time), the fields of a chip and a
// model object as rows, and their resolution with overrides.
#pragma once
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"

namespace scalelab {

// The whole catalogs, parsed at first use (listings, `scalelab chips`, GET /api/v1/chips).
const json& chip_catalog();
const json& model_catalog();
const json& format_catalog();  // weight and KV-cache formats (data/formats.json)
// published decode speeds on named hardware, model and format (data/measurements.json)
const json& measurement_catalog();
// the expected-range bands fitted to those runs (data/bands.json, io/calibration.hpp)
const json& band_catalog();

// The fields of a chip object and of a model object, one row each in the order an object is
// written in: the data the schema (schema/object_fields.hpp) makes their parameters from, and
// where a refusal finds a chip figure's words. A `built` field is structured (the chip's kind,
// its flops_per_s per dtype, …): the schema builds it.
enum class FieldKind : unsigned char { number, count, text, flag_off, flag_on, built };
struct FieldRow {
  FieldKind row;
  std::string_view name, doc = "";
  double min = 0, max = 0;
  std::string_view unit = "";
};
std::span<const FieldRow> chip_field_rows();
std::span<const FieldRow> superpod_field_rows();  // a chip's "superpod" object
std::span<const FieldRow> model_field_rows();
// The largest rate or size a chip field takes (bytes, bytes/s, FLOP/s).
inline constexpr double kMaxChipRate = 1e20;

// One entry of a catalog as data/*.json has it: its id and the JSON text of its object. The
// entries are found by a scan of the embedded text, without parsing it, so that an evaluation
// on one catalog chip (model) parses that entry alone.
struct CatalogEntry {
  std::string id;
  std::string_view text;
};
const std::vector<CatalogEntry>& chip_entries();   // in catalog order
const std::vector<CatalogEntry>& model_entries();  // in catalog order
// The entries of a catalog's JSON text (an array of objects), found by one pass over its
// characters; an entry without a string "id" has an empty id.
std::vector<CatalogEntry> scan_catalog_entries(std::string_view array_text);
// The entry of `id`, or nullptr.
const CatalogEntry* find_entry(const std::vector<CatalogEntry>& entries, std::string_view id);

// The element types: one row each, name (as the API spells it), title, bytes per element
// (fractional for packed formats: int4 is 0.5). A plain table rather than an enum, so that
// formats can be added from catalog data (e.g. quantized weight formats) with one row each.
struct Dtype {
  std::string name, title;
  double bytes;
};
const std::vector<Dtype>& dtypes();
// Byte size of a dtype name ("fp32" 4, "bf16" 2, "fp8" 1, "int8" 1, "int4" 0.5) or of a
// format of data/formats.json (bits / 8, e.g. q4_0 0.5625).
double dtype_bytes(const std::string& dtype);
const std::vector<std::string>& dtype_names();
const std::vector<std::string>& dtype_titles();

// Weight and KV-cache formats: effective bits per value including block scales.
const json* find_format(const std::string& id);  // null when unknown
double format_bits(const std::string& id);       // refuses an unknown id
const std::vector<std::string>& weight_format_names();
const std::vector<std::string>& weight_format_titles();  // the formats' names, for people
const std::vector<std::string>& kv_format_names();
const std::vector<std::string>& kv_format_titles();
class Chip;
// Which software runs a format on which chips (data/formats.json runs_on, each runtime with its
// source): a chip's platform is "tpu" or "cpu" by its kind, else its GPU's vendor ("nvidia", "amd",
// "intel", "apple"). A chip with no vendor (a custom GPU) runs every format a GPU runs.
// `adapters`: only runtimes that train LoRA adapters over frozen weights in the format (QLoRA).
bool format_runs_on(const std::string& format, const Chip& chip, bool adapters = false);
// The formats of `ids` (weight_format_names(), kv_format_names()) that run on the chip, in order.
std::vector<std::string> formats_running_on(const std::vector<std::string>& ids, const Chip& chip, bool adapters = false);
// The runtimes that run a format, for a sentence: "llama.cpp"; "vLLM FP8 or MaxText (Qwix)".
std::string format_runtimes(const std::string& format);

// What a chip is, which decides the interconnects it has: TPUs sit on an ICI torus;
// datacenter GPUs in an NVLink domain joined by InfiniBand; workstation and consumer GPUs,
// unified-memory machines and CPUs usually have neither. The catalog's old "gpu" means
// datacenter-gpu.
enum class ChipKind { tpu, datacenter_gpu, workstation_gpu, consumer_gpu, unified_memory, cpu, last_ = cpu };
// From one table (catalog.cpp kChipKinds): "tpu", "datacenter-gpu", …, then the old name "gpu".
const std::vector<std::string>& chip_kind_names();
const std::vector<std::string>& chip_kind_titles();  // the same kinds, for people
// A reader's own device (a GPU card, a Mac, a CPU), where a sentence says "device" for "chip".
bool own_device_kind(ChipKind kind);

// The GPU scale-out fabric of a reference SuperPod (gpus.md); absent figures stay empty.
struct Superpod {
  std::optional<double> gpus, nodes, gpus_per_su, leaf_switches, spine_switches,
      ib_port_one_way_bytes_per_s, ib_switch_ports;
};

// A resolved chip, read once from its JSON (catalog entry, custom object, overrides applied).
// A figure the chip lacks (ICI on a GPU, NVLink on a TPU) is empty; `need` turns an empty one
// into an error that names it in words and says why the calculation needs it.
class Chip {
 public:
  using Figure = std::optional<double>;
  explicit Chip(json resolved);

  ChipKind kind = ChipKind::tpu;
  Figure hbm_bytes, hbm_bytes_per_s, vmem_bytes, vmem_bytes_per_s, smem_bytes_per_sm, l2_bytes,
      cores_per_chip, clock_hz;
  Figure ici_link_bytes_per_s, ici_links, ici_hop_latency_s;  // TPU torus
  Figure pod_chips, host_chips, pcie_bytes_per_s, dcn_bytes_per_s;
  Figure wrap_axis_multiple;  // an axis wraps when its length is a multiple of this
  std::optional<bool> wrap_whole_cubes;  // …and only when every axis of the slice is (v4, v5p)
  std::string beyond_pod;                // "dcn", "infiniband", or empty
  std::string memory_kind;               // "HBM3", "GDDR6X", "LPDDR5", "DDR5", or empty
  Figure nvlink_bytes_per_s, node_gpus, ib_bytes_per_s, node_ib_bytes_per_s, nvlink_link_bytes_per_s,
      nvswitches_per_node, nvswitch_ports;  // GPU node and fabric
  Figure price_per_hour_usd, price_usd;
  Figure gpu_memory_share;  // unified memory: the share the GPU may use by default
  Figure mxu_dim, mxus_per_core, vpu_alus_per_lane, vregs_per_core;  // TPU core
  Figure sms, subpartitions_per_sm, tensor_cores_per_sm, fp32_cores_per_subpartition,
      registers_per_subpartition;  // GPU SM
  std::vector<double> vpu_shape;   // empty when unknown
  std::optional<Superpod> superpod;

  const json& data() const { return data_; }
  std::string id() const { return id_; }
  std::string name() const { return name_; }
  std::string kind_name() const;
  // What software targets: "tpu", "cpu", or the GPU's vendor ("nvidia", "amd", "intel", "apple");
  // empty for a GPU whose vendor is not given.
  std::string platform() const;
  bool is_gpu() const;  // any GPU kind
  bool is_tpu() const { return kind == ChipKind::tpu; }
  // The chip's memory as a reader names it, from its memory kind: "HBM" on HBM parts (and on a
  // TPU or datacenter GPU the catalog gives no kind), "GDDR6X memory" on a card, "unified LPDDR5
  // memory" on a Mac, "DDR5 system RAM" on a CPU, "device memory" on any other.
  std::string memory_name() const;
  // The same memory as a rung of the memory ladder: "HBM (off-chip memory)" on HBM parts.
  std::string memory_rung() const;
  // The memory per chip as a formula's symbol: the book's \text{HBM} on HBM parts, \text{mem} on others.
  std::string_view memory_symbol() const { return has_hbm() ? "\\text{HBM}" : "\\text{mem}"; }
  // HBM by its memory kind, or (the catalog giving none) a TPU or datacenter GPU.
  bool has_hbm() const;
  // The memory one job may use on the chip, what every "does it fit" asks: all of it, but on
  // unified memory the GPU's default share of it (gpu_memory_share, 75 % on a Mac).
  Figure usable_memory_bytes() const { return hbm_bytes ? Figure(*hbm_bytes * gpu_memory_share.value_or(1.0)) : hbm_bytes; }
  const std::vector<double>& pod_shape() const { return pod_shape_; }  // empty when unknown
  // The figure, or an InputError on `chip`: "<chip> has no figure for <words> (<key>): <why>".
  double need(Figure Chip::*figure, const std::string& why) const;
  // FLOP/s at a dtype; refuses (naming `param`) when the chip has no rate for it.
  double flops(const std::string& dtype, const std::string& param = "compute_dtype") const;
  std::optional<double> flops_if(const std::string& dtype) const;
  // The fastest of the chip's rates among the compute dtypes (dtypes()), a floating-point one
  // where the chip has any (a bf16 matmul is not priced at an int8 rate); null when it has none.
  struct Rate {
    std::string dtype;
    double flops_per_s = 0;
  };
  std::optional<Rate> fastest_rate() const;

 private:
  json data_;
  std::string id_, name_;
  std::vector<double> pod_shape_;
};
// The catalog key of a figure ("nvlink_bytes_per_s").
std::string chip_figure_key(Chip::Figure Chip::*figure);

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
  // Local layers attend only to the last sliding_window tokens (and the first sink_tokens); the
  // other L - local_layers attend to the whole context.
  double sliding_window = 0, local_layers = 0, sink_tokens = 0;
  bool is_moe() const { return E > 1; }
  bool is_mla() const { return std::string_view(attention) == "mla"; }  // sizes first: no strlen, no call
  json data;  // the resolved object as given (catalog fields included)
};

// `value` is the validated "chip" input (id or object); `overrides` may be null.
Chip resolve_chip(const json& value, const json& overrides);
Model resolve_model(const json& value, const json& overrides);
// The same, shared: a catalog id without overrides gives the chip (model) resolved from its
// catalog entry alone, the first time this thread asks for it (immutable, so safe to hand to
// other threads); anything else a new one.
std::shared_ptr<const Chip> shared_chip(const json& value, const json& overrides);
std::shared_ptr<const Model> shared_model(const json& value, const json& overrides);

}  // namespace scalelab
