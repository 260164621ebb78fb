// `local_inference` (ch 7, and the reader's own machine): one model on one device, or split over
// several (identical, or of several kinds by layers), at a weight and KV-cache format. Memory
// (weights + KV + runtime overhead) against the devices' usable memory; what does not fit spills
// to system RAM, then to SSD; the decode step reads each tier's bytes at that tier's bandwidth
// (a layer split's devices in turn, each at its own). Tokens/s and time-to-first-token bounds, the binding
// term, and the first change that would make it fit or run faster.
#include <algorithm>
#include <array>
#include <cmath>

#include "schema/params.hpp"
#include "calculators/calculators.hpp"
#include "models/common.hpp"
#include "models/expected.hpp"
#include "models/local_device.hpp"
#include "models/model_math.hpp"

namespace scalelab {
namespace {

struct Tier {
  std::string id, label;
  double capacity = 0, bytes_per_s = 0, stored = 0, read = 0, t_s = 0;
  std::array<double, 2> part_stored{};  // what of each placed part (Placement) this tier holds
};

// What goes into the tiers, in order: one part (every tier holds the same mix of layers, as
// llama.cpp's --n-gpu-layers places whole layers), or, with the experts placed last, the
// always-active weights and the KV cache first and then the routed experts (llama.cpp's
// --n-cpu-moe, -ot exps=CPU): the device holds what every token reads, system RAM the experts.
struct Part {
  std::string name;   // "" for the one part; TeX subscript otherwise
  double resident = 0, read = 0, prefill_read = 0;
};

struct Format {
  std::string id, name;
  double bits = 0;
  std::optional<std::string> native_rate;
};

Format read_format(const std::string& id) {
  const json& f = *find_format(id);
  Format r{id, f.value("name", id), f["bits"].get<double>(), std::nullopt};
  if (f.contains("native_rate") && f["native_rate"].is_string()) r.native_rate = f["native_rate"];
  return r;
}

std::string gb(double bytes) { return format_quantity(bytes, "bytes"); }
std::string times(double a, double b) { return tex(a) + " \\times " + tex(b); }

bool is_discrete(const Chip& c) { return c.kind != ChipKind::unified_memory && c.kind != ChipKind::cpu; }

// The arithmetic rate: "dequantize" runs 16-bit matmuls (sixteen_bit_rate); "native" runs the
// format's own low-precision rate.
MatmulRate arithmetic_rate(const Chip& chip, const Format& weights, const std::string& mode) {
  if (mode == "native") {
    if (!weights.native_rate) {
      throw InputError("arithmetic", "\"native\" needs a format the hardware multiplies directly; " +
                                         weights.name + " is unpacked to 16-bit numbers before each "
                                         "matmul, so choose \"dequantize\"");
    }
    auto rate = chip.flops_if(*weights.native_rate);
    if (!rate) {
      throw InputError("arithmetic", chip.name() + " has no published " + *weights.native_rate +
                                         " arithmetic rate for " + weights.name +
                                         "; choose \"dequantize\" or give the rate with chip_overrides");
    }
    return {*weights.native_rate, *rate};
  }
  return sixteen_bit_rate(chip);
}

// Share of the weights one decode step reads: all of a dense model; for an MoE, the
// always-active weights plus the routed experts that B tokens touch, 1 − (1 − k/E)^B of them.
struct WeightRead {
  double params_total = 0, params_active = 0, routed = 0, touched = 1;
  double read_params() const { return params_total - routed + routed * touched; }
};

WeightRead weight_read(const Model& m, double tokens, Result& r) {
  ParamCounts counts = count_params(m);
  WeightRead w;
  w.params_total = r.step("Parameters", "P", tex(counts.total()), counts.total(), "params");
  w.params_active = counts.active();
  if (!m.is_moe()) return w;
  double k_over_e = m.k / m.E;
  w.routed = r.step("Routed expert parameters", "P_{exp} = (P_{MLP} - P_{MLP,active}) / (1 - k/E)",
                    "(" + tex(counts.mlp) + " - " + tex(counts.mlp_active) + ") / (1 - " + tex(m.k) +
                        "/" + tex(m.E) + ")",
                    (counts.mlp - counts.mlp_active) / (1 - k_over_e), "params");
  w.touched = experts_read_share(m, tokens, r.log(), "Share of experts a step touches").value();
  return w;
}

// One device of a layer split: the chip's own (`devices` of them) and then other_devices, in order.
// Each holds its share of the layers (of their weights and KV cache) in its usable memory less the
// runtime overhead, and reads them at its own bandwidth in its turn.
struct Device {
  std::shared_ptr<const Chip> chip;
  double usable = 0, room = 0, bytes_per_s = 0, share = 0;
  MatmulRate rate = {};
  double stored = 0, kv = 0, read = 0, t_s = 0;
};

struct Memory {
  double devices = 1;  // devices the model is split over (their memory adds up)
  bool mixed = false;  // other_devices given, or layer_shares: each device described on its own
  std::vector<Device> list;
  double weight_bytes = 0, kv_bytes_per_token = 0, kv_bytes_per_layer_token = 0, kv_bytes = 0, overhead = 0,
         needed = 0;
  double share = 1, usable = 0, margin = 0;
  double room = 0;  // model bytes (weights and KV) the devices hold at their layer shares
  bool fits = false;
};

std::string numbered(const Device& d, std::size_t i) { return "device " + std::to_string(i + 1) + ", " + d.chip->name(); }

// The devices of the split: `devices` copies of the chip, then other_devices (each a catalog id or
// a chip object; discrete GPUs only, at most 8 in all).
std::vector<Device> device_list(const Args& args) {
  std::vector<Device> list;
  auto chip = std::shared_ptr<const Chip>(std::shared_ptr<const Chip>(), &args.chip());
  for (double i = 0; i < args.num("devices"); ++i) list.push_back(Device{.chip = chip});
  if (!args.given("other_devices")) return list;
  const json& others = args.raw("other_devices");
  if (list.size() + others.size() > 8) {
    throw InputError("other_devices", "holds too many devices: " + plain(double(list.size())) + " of " +
                                          args.chip().name() + " and " + plain(double(others.size())) +
                                          " more make " + plain(double(list.size() + others.size())) +
                                          "; a layer split over several kinds of device is modelled for at most 8 devices in all");
  }
  for (std::size_t i = 0; i < others.size(); ++i) {
    auto other = shared_chip(others[i], json());
    if (!is_discrete(*other) || other->is_tpu()) {
      throw InputError("other_devices", "device " + std::to_string(i + 1) + " of the list, " + other->name() +
                                            ", is not a discrete GPU: a split over several devices is modelled for "
                                            "GPUs that each bring their own memory");
    }
    list.push_back(Device{.chip = other});
  }
  return list;
}

// Each device's usable memory and its share of the layers: as given (layer_shares, llama.cpp's
// --tensor-split), else in proportion to its memory less the runtime overhead (every device as
// full as the others, as llama.cpp splits by free memory). K, the model bytes the devices hold,
// is what fills the first of them: min_i (M_i - overhead) / s_i (at the default shares, their sum).
void layer_shares(const Args& args, Memory& mem, double overhead, Result& r) {
  std::string sum, sum_room;
  double room_total = 0;
  mem.usable = 0;
  for (std::size_t i = 0; i < mem.list.size(); ++i) {
    Device& d = mem.list[i];
    double capacity = d.chip->need(&Chip::hbm_bytes, "the model must fit in the device's memory");
    double share = usable_share(args, *d.chip);
    std::string M = "M_{" + std::to_string(i + 1) + "}";
    d.usable = r.step("Usable memory of " + numbered(d, i), M + " = \\text{capacity} \\times \\text{share}",
                      times(capacity, share), capacity * share, "bytes");
    d.room = std::max(0.0, d.usable - overhead);
    mem.usable += d.usable;
    room_total += d.room;
    sum += (i ? " + " : "") + tex(d.usable);
    sum_room += (i ? " + " : "") + tex(d.room);
  }
  mem.usable = r.step("Usable memory of the devices", "\\sum_i M_i", sum, mem.usable, "bytes");
  std::size_t n = mem.list.size();
  if (args.given("layer_shares")) {
    const json& given = args.raw("layer_shares");
    if (given.size() != n) {
      throw InputError("layer_shares", "gives " + plain(double(given.size())) + (given.size() == 1 ? " share" : " shares") +
                                           " for " + plain(double(n)) + " devices: give one share per device, in order "
                                           "(the chip's devices, then other_devices)");
    }
    double total = 0;
    for (const json& g : given) total += g.get<double>();
    mem.room = INFINITY;
    for (std::size_t i = 0; i < n; ++i) {
      Device& d = mem.list[i];
      double g = given[i].get<double>();
      d.share = r.step("Layer share of " + numbered(d, i) + " (as given)", "s_{" + std::to_string(i + 1) + "}",
                       tex(g) + " / " + tex(total), g / total, "ratio");
      mem.room = std::min(mem.room, d.room / d.share);
    }
    mem.room = r.step("Model bytes the devices hold at these shares (the first to fill sets it)",
                      "K = \\min_i (M_i - \\text{overhead}) / s_i", tex(mem.room), mem.room, "bytes");
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {
    Device& d = mem.list[i];
    d.share = room_total > 0
                  ? r.step("Layer share of " + numbered(d, i) + " (in proportion to its memory less the overhead)",
                           "s_{" + std::to_string(i + 1) + "} = (M_{" + std::to_string(i + 1) + "} - \\text{overhead}) / \\sum_j (M_j - \\text{overhead})",
                           tex(d.room) + " / (" + sum_room + ")", d.room / room_total, "ratio")
                  : 1.0 / double(n);
  }
  mem.room = r.step("Model bytes the devices hold", "K = \\sum_i (M_i - \\text{overhead})", sum_room, room_total, "bytes");
}

// The KV cache of all users: each token of a global layer's cache, at most the window (and the
// sinks) of a local layer's, at the format's bytes a token and layer (MLA: its latent).
Memory memory(const Args& args, const Model& m, const Format& w, const Format& kv, double params,
              Result& r) {
  const Chip& chip = args.chip();
  double users = args.num("users"), context = args.num("context");
  Memory mem;
  mem.weight_bytes = r.step("Weight bytes (" + w.name + ")", "\\text{bytes}_w = P \\, b_w / 8",
                            tex(params) + " \\times " + tex(w.bits) + " / 8", params * w.bits / 8, "bytes");
  mem.kv_bytes_per_token = kv_bytes_per_token(m, kv.bits / 8);
  Expr kv_layer = kv_bytes_per_layer_token(m, kv.bits / 8, r.log());
  Expr held = kv_tokens_held(m, context, r.log());
  mem.kv_bytes_per_layer_token = kv_layer.value();
  mem.kv_bytes = r.step("KV cache of all users (" + kv.name + ")", "\\text{KV}", r.sym("U", users) * held * kv_layer,
                        "bytes").value();
  mem.list = device_list(args);
  mem.devices = double(mem.list.size());
  mem.mixed = args.given("other_devices") || args.given("layer_shares");
  double one_overhead = args.num("overhead_bytes");
  mem.overhead = one_overhead;
  if (mem.devices > 1) {
    mem.overhead = r.step("Runtime overhead on every device", "n \\times \\text{overhead}", times(mem.devices, mem.overhead),
                          mem.devices * mem.overhead, "bytes");
  }
  mem.needed = r.step("Memory needed", "\\text{bytes}_w + \\text{KV} + \\text{overhead}",
                      tex(mem.weight_bytes) + " + " + tex(mem.kv_bytes) + " + " + tex(mem.overhead),
                      mem.weight_bytes + mem.kv_bytes + mem.overhead, "bytes");
  mem.share = usable_share(args, chip);
  if (!mem.mixed) {
    double capacity = chip.need(&Chip::hbm_bytes, "the model must fit in the device's memory");
    mem.usable = r.step("Usable device memory", "M = \\text{capacity} \\times \\text{share}",
                        times(capacity, mem.share), capacity * mem.share, "bytes");
    for (Device& d : mem.list) {
      d.usable = mem.usable;
      d.room = mem.usable - one_overhead;
      d.share = 1 / mem.devices;
    }
    if (mem.devices > 1) {
      mem.usable = r.step("Usable memory of the devices", "n \\times M", times(mem.devices, mem.usable),
                          mem.devices * mem.usable, "bytes");
    }
    mem.room = mem.usable - mem.overhead;
  } else {
    layer_shares(args, mem, one_overhead, r);
  }
  mem.margin = mem.mixed ? mem.room - mem.weight_bytes - mem.kv_bytes : mem.usable - mem.needed;
  mem.fits = mem.margin >= 0;
  if (mem.mixed) {
    if (mem.fits) {
      r.step("Free memory at these shares", "K - \\text{bytes}_w - \\text{KV}",
             tex(mem.room) + " - " + tex(mem.weight_bytes) + " - " + tex(mem.kv_bytes), mem.margin, "bytes");
    } else {
      r.step("Shortfall at these shares (does not fit)", "\\text{bytes}_w + \\text{KV} - K",
             tex(mem.weight_bytes) + " + " + tex(mem.kv_bytes) + " - " + tex(mem.room), -mem.margin, "bytes");
    }
  } else if (mem.fits) {
    r.step("Free memory", "M - \\text{needed}", tex(mem.usable) + " - " + tex(mem.needed), mem.margin, "bytes");
  } else {
    r.step("Shortfall (does not fit)", "\\text{needed} - M", tex(mem.needed) + " - " + tex(mem.usable), -mem.margin,
           "bytes");
  }
  return mem;
}

double spill_bandwidth(const Args& args, const Chip& chip) {
  double ram = args.num("system_ram_bytes_per_s");
  if (args.str("offload") == "cpu") return ram;
  auto pcie = chip.pcie_bytes_per_s;
  if (!pcie) {
    throw InputError("offload", "\"stream\" sends the spilled weights over the host link, but " +
                                    chip.name() + " has no host-link bandwidth (pcie_bytes_per_s) in "
                                    "the catalog; choose \"cpu\" or give it with chip_overrides");
  }
  return std::min(*pcie, ram);
}

// The pace of a model split over devices of different kinds, each device i at its own rate R_i
// (its bandwidth W_i or its FLOP/s C_i) over its share s_i. A layer split's devices run their layers
// in turn: 1 / sum_i (s_i / R_i), so that its time is the sum of the stages' times. A row split's
// devices run their rows of every layer at once: the device slowest over its share sets the pace,
// 1 / max_i (s_i / R_i).
struct SplitPace {
  const char* what;    // "Bandwidth", "Arithmetic rate"
  const char* letter;  // "W", "C"
  const char* unit;    // "bytes/s", "FLOP/s"
};
double split_pace(const Memory& mem, bool rows, double (*rate)(const Device&), const SplitPace& p, Result& r) {
  std::string terms;
  double per_unit = 0;  // the sum, or the largest, of s_i / R_i
  for (std::size_t i = 0; i < mem.list.size(); ++i) {
    const Device& d = mem.list[i];
    const double t = d.share / rate(d);
    per_unit = rows ? std::max(per_unit, t) : per_unit + t;
    terms += (i ? (rows ? ", " : " + ") : "") + tex(d.share) + " / " + tex(rate(d));
  }
  const std::string R = p.letter;
  if (rows) {
    return r.step(std::string(p.what) + " of the row split (every device at once; the slowest share sets the pace)",
                  R + "_{row} = 1 / \\max_i (s_i / " + R + "_i)", "1 / \\max(" + terms + ")", 1 / per_unit, p.unit);
  }
  return r.step(std::string(p.what) + " of the layer split (each device runs its layers in turn)",
                R + "_{split} = 1 / \\sum_i (s_i / " + R + "_i)", "1 / (" + terms + ")", 1 / per_unit, p.unit);
}

double split_bandwidth(Memory& mem, bool rows, Result& r) {
  for (Device& d : mem.list) {
    d.bytes_per_s = d.chip->need(&Chip::hbm_bytes_per_s, "every decode step reads the weights from device memory");
  }
  return split_pace(mem, rows, [](const Device& d) { return d.bytes_per_s; }, {"Bandwidth", "W", "bytes/s"}, r);
}

std::vector<Tier> make_tiers(const Args& args, Memory& mem, Result& r) {
  const Chip& chip = args.chip();
  double capacity = chip.need(&Chip::hbm_bytes, "the model must fit in the device's memory"),
         bw = chip.need(&Chip::hbm_bytes_per_s, "every decode step reads the weights from device memory");
  std::vector<Tier> tiers;
  // a layer split reads one device's layers after another's (one device's bandwidth at a time); a
  // row split reads a slice of every layer on every device at once
  for (Device& d : mem.list) d.bytes_per_s = bw;
  const bool row = mem.devices > 1 && args.str("split") == "row";
  if (mem.mixed) bw = split_bandwidth(mem, row, r);
  else if (row) bw *= mem.devices;
  tiers.push_back({"device", mem.devices > 1 ? "memory of the devices" : "device memory",
                   std::max(0.0, mem.room), bw});
  if (chip.is_tpu()) return tiers;  // no host-memory spill path (no_spill_on_tpu)
  if (is_discrete(chip)) {
    tiers.push_back({"ram", "system RAM", args.num("system_ram_bytes"), spill_bandwidth(args, chip)});
  } else if (chip.kind == ChipKind::unified_memory) {
    tiers.push_back({"ram", "rest of unified memory (CPU side)", capacity * (1 - mem.share), bw});
  }
  tiers.push_back({"ssd", "SSD", INFINITY, args.num("ssd_bytes_per_s")});
  return tiers;
}

// Places the parts in the tiers in order (each fills what the ones before left; the last, the SSD,
// or a TPU's own memory alone, holds the rest) and reads each tier's share of every part's bytes.
double place_and_read(std::vector<Tier>& tiers, const std::vector<Part>& parts, Result& r) {
  for (std::size_t p = 0; p < parts.size(); ++p) {
    double left = parts[p].resident;
    for (Tier& t : tiers) {
      t.part_stored[p] = &t == &tiers.back() ? left : std::min(left, t.capacity - t.stored);
      t.stored += t.part_stored[p];
      left -= t.part_stored[p];
    }
  }
  double total_t = 0;
  for (Tier& t : tiers) {
    if (t.stored <= 0) continue;
    std::string formula, substituted;
    for (std::size_t p = 0; p < parts.size(); ++p) {
      const Part& part = parts[p];
      double share = part.resident > 0 ? t.part_stored[p] / part.resident : 0;
      t.read += part.read * share;
      std::string sub = part.name.empty() ? "" : "_{" + part.name + "}";
      formula += (p ? " + " : "") + std::string("\\text{read}") + sub + " \\times \\text{stored}" + sub + "_i / \\text{stored}" + sub;
      substituted += (p ? " + " : "") + tex(part.read) + " \\times " + tex(t.part_stored[p]) + " / " + tex(part.resident);
    }
    t.read = r.step("Bytes read per step from " + t.label, formula, substituted, t.read, "bytes");
    t.t_s = r.step("Time to read them (" + t.label + ")", "T_i = \\text{read}_i / W_i",
                   tex(t.read) + " / " + tex(t.bytes_per_s), t.read / t.bytes_per_s, "s");
    total_t += t.t_s;
  }
  return total_t;
}

// The prefill's weight reads: each tier's share of every part's prefill bytes, at its bandwidth.
double prefill_reads(const std::vector<Tier>& tiers, const std::vector<Part>& parts) {
  double t_s = 0;
  for (const Tier& t : tiers) {
    for (std::size_t p = 0; p < parts.size(); ++p) {
      if (parts[p].resident > 0) t_s += t.part_stored[p] / parts[p].resident * parts[p].prefill_read / t.bytes_per_s;
    }
  }
  return t_s;
}

json tiers_json(const std::vector<Tier>& tiers, double resident) {
  json list = json::array();
  for (const Tier& t : tiers) {
    list.push_back({{"tier", t.id},
                    {"label", t.label},
                    {"capacity_bytes", std::isinf(t.capacity) ? json(nullptr) : json(t.capacity)},
                    {"bytes_per_s", t.bytes_per_s},
                    {"stored_bytes", t.stored},
                    {"stored_share", resident > 0 ? t.stored / resident : 0},
                    {"read_bytes", t.read},
                    {"t_s", t.t_s}});
  }
  return list;
}

struct Suggestion {
  std::string kind = "none", text;
  std::optional<std::string> format;
  std::optional<double> context, devices;
};

// The weight formats below `current`, largest first.
std::vector<Format> smaller_formats(const Format& current) {
  std::vector<Format> list;
  for (const std::string& id : weight_format_names()) {
    Format f = read_format(id);
    if (f.bits < current.bits) list.push_back(f);
  }
  std::stable_sort(list.begin(), list.end(), [](const Format& a, const Format& b) { return a.bits > b.bits; });
  return list;
}

// The longest context whose KV cache fits in `room` bytes for every user (whole tokens).
double context_fitting(const Model& m, double room, double users, const Memory& mem) {
  if (!has_window(m)) return std::floor(room / (users * mem.kv_bytes_per_token));
  return std::floor(context_holding(m, room / (users * mem.kv_bytes_per_layer_token)));
}

Suggestion suggest_fit(const Args& args, const Memory& mem, const Format& w, double params) {
  Suggestion s;
  double rest = mem.kv_bytes + mem.overhead;
  for (const Format& f : smaller_formats(w)) {
    double need = params * f.bits / 8 + rest;
    if (need <= mem.usable) {
      s.kind = "smaller_format";
      s.format = f.id;
      s.text = "A smaller weight format fits: " + f.name + " (" + plain(f.bits) + " bits per weight) needs " +
               gb(need) + " of the " + gb(mem.usable) + " usable.";
      return s;
    }
  }
  double per_context_token = args.num("users") * mem.kv_bytes_per_token;
  double room = mem.usable - mem.overhead - mem.weight_bytes;
  if (per_context_token > 0 && room >= per_context_token) {
    s.kind = "shorter_context";
    s.context = context_fitting(args.model(), room, args.num("users"), mem);
    s.text = "A shorter context fits: at most " + format_quantity(*s.context, "tokens") + " per user leave room for the KV cache.";
    return s;
  }
  for (const Format& f : smaller_formats(w)) {
    double room_f = mem.usable - mem.overhead - params * f.bits / 8;
    if (per_context_token > 0 && room_f >= per_context_token) {
      s.kind = "smaller_format_and_context";
      s.format = f.id;
      s.context = context_fitting(args.model(), room_f, args.num("users"), mem);
      s.text = "Neither a smaller format nor a shorter context fits alone; " + f.name + " (" + plain(f.bits) +
               " bits per weight) with at most " + format_quantity(*s.context, "tokens") + " per user does.";
      return s;
    }
  }
  s.kind = "more_devices";
  double usable_one = mem.usable / mem.devices, overhead_one = mem.overhead / mem.devices;
  if (usable_one <= overhead_one) {
    s.text = "The runtime overhead alone (" + gb(overhead_one) + ") fills the " + gb(usable_one) +
             " usable on each device: only a device with more memory would hold the model.";
    return s;
  }
  s.devices = std::ceil((mem.weight_bytes + mem.kv_bytes) / (usable_one - overhead_one));
  s.text = "No format or context fits " + (mem.devices == 1 ? std::string("one device") : format_quantity(mem.devices, "devices")) + ": " +
           gb(mem.needed) + " needs " + format_quantity(*s.devices, "devices") + " of " + gb(usable_one) +
           " usable each (or a device with more memory).";
  return s;
}

Suggestion suggest_speed(const Format& w, const WeightRead& wr, const Memory& mem, double t_mem,
                         const std::string& bound, double users) {
  Suggestion s;
  if (bound == "compute") {
    s.kind = "none";
    s.text = "The step is compute-bound: only a faster arithmetic rate (native low precision) or a faster "
             "device would speed it up.";
    return s;
  }
  for (const Format& f : smaller_formats(w)) {
    double bytes_now = wr.read_params() * w.bits / 8 + mem.kv_bytes;
    double bytes_new = wr.read_params() * f.bits / 8 + mem.kv_bytes;
    double tokens = users / (t_mem * bytes_new / bytes_now);
    s.kind = "smaller_format";
    s.format = f.id;
    s.text = "The step is bound by memory reads: " + f.name + " (" + plain(f.bits) +
             " bits per weight) would read fewer bytes, about " + format_quantity(tokens, "tokens/s") +
             " in all.";
    return s;
  }
  s.text = "Already the smallest weight format.";
  return s;
}

// A row (tensor) split sums each layer's attention and MLP outputs over the devices: two
// all-reduces a layer of U D 16-bit activations, each moving 2 (n - 1) / n of them over the link
// between the devices (an NVLink bridge where the chip has one for that many, else PCIe).
// Bandwidth only: each exchange's latency (microseconds on PCIe) comes on top.
double row_split_comm(const Args& args, const Model& m, const Memory& mem, double users, Result& r) {
  const Chip& chip = args.chip();
  const double n = mem.devices;
  // cards of different kinds share no NVLink bridge: their exchanges cross PCIe, at the slowest card's
  bool bridge = !args.given("other_devices") && chip.nvlink_bytes_per_s && chip.node_gpus && *chip.node_gpus >= n;
  std::optional<double> link = bridge ? chip.nvlink_bytes_per_s : chip.pcie_bytes_per_s;
  if (!bridge) {
    double slowest = INFINITY;
    for (const Device& d : mem.list) slowest = d.chip->pcie_bytes_per_s ? std::min(slowest, *d.chip->pcie_bytes_per_s) : 0;
    link = slowest > 0 && std::isfinite(slowest) ? std::optional<double>(slowest) : std::nullopt;
  }
  if (!link) {
    throw InputError("split", "\"row\" exchanges activations between the devices, but a device of the split has no "
                              "host-link bandwidth in the catalog (chip_overrides.pcie_bytes_per_s); choose \"layer\" "
                              "or give it");
  }
  double bytes = r.step("Activations one all-reduce moves per device", "2 (n - 1) / n \\times U D \\times 2",
                        "2 (" + tex(n) + " - 1) / " + tex(n) + " \\times " + times(users, m.D) + " \\times 2",
                        2 * (n - 1) / n * users * m.D * 2, "bytes");
  return r.step(std::string("Exchange time per token step over ") + (bridge ? "the NVLink bridge" : "PCIe"),
                "T_{comm} = 2 L \\times \\text{bytes} / W_{link}",
                "2 \\times " + times(m.L, bytes) + " / " + tex(*link), 2 * m.L * bytes / *link, "s");
}

// The tier whose reads take longest; null when the math outlasts every tier's reads.
std::optional<std::string> binding_tier(const std::vector<Tier>& tiers, double t_math) {
  std::optional<std::string> bound;
  double best = t_math;
  for (const Tier& t : tiers) {
    if (t.t_s > best) {
      best = t.t_s;
      bound = t.id;
    }
  }
  return bound;
}

// The range published runs of local runtimes on this kind of device reach, beside the bounds.
void output_expected(ChipKind kind, double step, double tokens, double ttft, const Setup& settings, Result& r) {
  const Band* band = band_for("local_inference", "tokens_per_s", kind);
  out_expected(band, {"tokens_per_s", "expected_tokens_per_s_low", "expected_tokens_per_s_high", "tokens/s",
                      "tokens per second"}, tokens, r);
  out_expected(band_for("local_inference", "step_s", kind),
               {"step_s", "expected_step_s_low", "expected_step_s_high", "s", "time per token step"}, step, r);
  out_expected(band_for("local_inference", "ttft_s", kind),
               {"ttft_s", "expected_ttft_s_low", "expected_ttft_s_high", "s", "time to first token"}, ttft, r);
  out_band(band, "local_inference", kind, settings, r);
}

// Each device's stage of a token step: its share of what the devices hold and read, read at its
// own bandwidth. A layer split's stages run one after another, so their times add up to the device
// tier's time; a row split's run at once, so the longest is the tier's time.
void split_stages(Memory& mem, const Tier& device, bool row, Result& r) {
  std::string terms, values;
  double sum = 0;
  for (std::size_t i = 0; i < mem.list.size(); ++i) {
    Device& d = mem.list[i];
    d.stored = device.stored * d.share;
    d.read = device.read * d.share;
    d.t_s = d.read / d.bytes_per_s;
    if (mem.mixed) {
      std::string n = std::to_string(i + 1);
      d.t_s = r.step("Stage " + n + ": " + d.chip->name() + (row ? " reads its rows" : " reads its layers"), "T_{" + n + "} = s_{" + n + "} \\, \\text{read} / W_{" + n + "}",
                     tex(d.share) + " \\times " + tex(device.read) + " / " + tex(d.bytes_per_s), d.t_s, "s");
      terms += (i ? " + " : "") + std::string("T_{") + n + "}";
      values += (i ? (row ? ", " : " + ") : "") + tex(d.t_s);
      sum = row ? std::max(sum, d.t_s) : sum + d.t_s;
    }
  }
  if (mem.mixed && device.read > 0) {
    if (row) {
      std::string comma = terms;
      for (std::size_t at = comma.find(" + "); at != std::string::npos; at = comma.find(" + ")) comma.replace(at, 3, ", ");
      r.step("Read time of the devices (all at once: the longest)", "\\max(" + comma + ")", "\\max(" + values + ")", sum, "s");
    }
    else r.step("Read time of the devices (the stages in turn)", terms, values, sum, "s");
  }
}

json devices_json(const Memory& mem) {
  json list = json::array();
  double resident = mem.weight_bytes + mem.kv_bytes, overhead = mem.overhead / mem.devices;
  for (const Device& d : mem.list) {
    double needed = overhead + d.share * resident, margin = d.usable - needed;
    list.push_back({{"chip", d.chip->id()},
                    {"name", d.chip->name()},
                    {"layer_share", d.share},
                    {"usable_bytes", d.usable},
                    {"weight_bytes", d.share * mem.weight_bytes},
                    {"kv_bytes", d.share * mem.kv_bytes},
                    {"overhead_bytes", overhead},
                    {"needed_bytes", needed},
                    {"margin_bytes", margin},
                    {"fits", margin >= 0},
                    {"stored_bytes", d.stored},
                    {"read_bytes", d.read},
                    {"bytes_per_s", d.bytes_per_s},
                    {"t_s", d.t_s},
                    {"flops_per_s", d.rate.flops_per_s}});
  }
  return list;
}

// A layer split at batch U > 1 can pipeline (as llama.cpp's pipeline parallelism does): the users
// go through in m = min(n, U) micro-batches of b = U / m, each device working on one while the
// next device works on another. A device then reads its weights once per micro-batch (m times a
// round, at the experts a micro-batch routes to) but its share of every user's KV cache once, and
// runs its share of every user's math: its round takes
//   T_i = max((m s_i read_w(b) + s_i KV) / W_i, s_i FLOPs / C_i),
// the devices work at once, so the round (one token for every user) takes the slowest device's
// T_i, and never less than one micro-batch's way through every stage in turn,
//   sum_i max(s_i (read_w(b) + KV b / U) / W_i, s_i FLOPs b / U / C_i).
// Everything is on the devices (no spill): the caller checks.
struct Pipelined {
  double step_s = 0;
  bool math_bound = false;  // the slowest device's round is its math, not its reads
};
Pipelined pipelined_step(const Model& m, const Memory& mem, const WeightRead& wr, double weight_read_bytes, double mb,
                         double users, Result& r) {
  const double b = r.step("Users in one micro-batch", "b = U / m", tex(users) + " / " + tex(mb), users / mb, "sequences");
  double read_w = weight_read_bytes;
  if (m.is_moe()) {
    WeightRead at_b = wr;
    at_b.touched = experts_read_share(m, b, r.log(), "Share of experts a micro-batch touches", "b").value();
    read_w = r.step("Weight bytes one micro-batch reads (its experts)", "\\text{read}_w(b) = (P - P_{exp} + P_{exp} \\, s_E(b)) \\, b_w / 8",
                    "(" + tex(wr.params_total) + " - " + tex(wr.routed) + " + " + times(wr.routed, at_b.touched) + ") \\times " +
                        tex(weight_read_bytes / wr.read_params() * 8) + " / 8",
                    weight_read_bytes * at_b.read_params() / wr.read_params(), "bytes");
  }
  const double flops = 2 * wr.params_active * users;
  std::string slow_terms, slow_values, pass_terms, pass_values;
  double slowest = 0, pass = 0;
  bool math_bound = false;
  for (std::size_t i = 0; i < mem.list.size(); ++i) {
    const Device& d = mem.list[i];
    const std::string n = std::to_string(i + 1);
    const double reads_i = (mb * d.share * read_w + d.share * mem.kv_bytes) / d.bytes_per_s,
                 math_i = d.share * flops / d.rate.flops_per_s, round_i = std::max(reads_i, math_i);
    if (round_i > slowest) math_bound = math_i > reads_i;
    const double pass_i = std::max(d.share * (read_w + mem.kv_bytes / mb) / d.bytes_per_s,
                                   d.share * flops / mb / d.rate.flops_per_s);
    slowest = std::max(slowest, round_i);
    pass += pass_i;
    slow_terms += (i ? ", " : "") + std::string("T_{") + n + "}";
    slow_values += (i ? ", " : "") + tex(round_i);
    pass_terms += (i ? " + " : "") + std::string("t_{") + n + "}";
    pass_values += (i ? " + " : "") + tex(pass_i);
  }
  const double round = r.step("Pipelined round: the slowest device (each reads its weights once per micro-batch, its KV once)",
                              "\\max_i T_i, \\; T_i = \\max((m s_i \\text{read}_w + s_i \\text{KV}) / W_i, s_i \\text{FLOPs} / C_i)",
                              "\\max(" + slow_values + ")", slowest, "s");
  const double through = r.step("One micro-batch through every stage in turn", pass_terms, pass_values, pass, "s");
  return {r.step("Step time of the pipeline (" + tex(mb) + " micro-batches)", "T_{pipe} = \\max(\\max_i T_i, \\sum_i t_i)",
                 "\\max(" + tex(round) + ", " + tex(through) + ")", std::max(round, through), "s"),
          math_bound && round >= through};
}

// A TPU has no host-memory spill path in this model (its host's RAM and SSD are not tiers a decode
// step reads from): the spill settings are refused there, each named in words.
void no_spill_on_tpu(const Args& args, const Chip& chip) {
  if (!chip.is_tpu()) return;
  const std::string why = " is not used on " + chip.name() + ": a TPU has no host-memory spill path in this model "
                          "(what does not fit in its HBM is not spilled to system RAM or SSD); leave it out";
  refuse_if_given(args, "system_ram_bytes", "system RAM size" + why);
  refuse_if_given(args, "system_ram_bytes_per_s", "system RAM bandwidth" + why);
  refuse_if_given(args, "offload", "where spilled layers run" + why);
  refuse_if_given(args, "ssd_bytes_per_s", "SSD read speed" + why);
}

void compute(const Args& args, Result& r) {
  const Chip& chip = args.chip();
  const Model& m = args.model();
  Format w = read_format(args.str("weight_format")), kv = read_format(args.str("kv_format"));
  double users = args.num("users"), context = args.num("context");
  double prompt = args.has("prompt_tokens") ? args.num("prompt_tokens") : context;
  if (!is_discrete(chip) && args.num("devices") > 1) {
    throw InputError("devices", "must be 1 on " + chip.name() + ": splitting a model over several devices is "
                                "modelled for discrete GPUs, which each bring their own memory");
  }
  if ((!is_discrete(chip) || chip.is_tpu()) && args.given("other_devices")) {
    throw InputError("other_devices", "cannot join " + chip.name() + ": splitting a model over several devices is "
                                      "modelled for discrete GPUs, which each bring their own memory; leave the list out");
  }
  no_spill_on_tpu(args, chip);
  if (!is_discrete(chip)) {
    for (const char* p : {"system_ram_bytes", "system_ram_bytes_per_s", "offload"}) {
      if (args.given(p)) {
        r.warn(std::string(p) + " is ignored: on " + chip.name() + " the spill tier is the device's own memory.");
      }
    }
  }
  MatmulRate rate = arithmetic_rate(chip, w, args.str("arithmetic"));
  WeightRead wr = weight_read(m, users, r);
  Memory mem = memory(args, m, w, kv, wr.params_total, r);
  std::vector<Tier> tiers = make_tiers(args, mem, r);
  for (Device& d : mem.list) d.rate = mem.mixed ? arithmetic_rate(*d.chip, w, args.str("arithmetic")) : rate;
  bool row = mem.devices > 1 && args.str("split") == "row";
  if (mem.mixed) rate.flops_per_s = split_pace(mem, row, [](const Device& d) { return d.rate.flops_per_s; }, {"Arithmetic rate", "C", "FLOP/s"}, r);
  double resident = mem.weight_bytes + mem.kv_bytes;
  double weight_read_bytes =
      r.step("Weight bytes read per step", "P_{read} \\, b_w / 8", tex(wr.read_params()) + " \\times " + tex(w.bits) + " / 8",
             wr.read_params() * w.bits / 8, "bytes");
  double read = r.step("Bytes read per step", "\\text{bytes}_{w,read} + \\text{KV}",
                       tex(weight_read_bytes) + " + " + tex(mem.kv_bytes), weight_read_bytes + mem.kv_bytes, "bytes");
  bool experts_last = args.str("expert_placement") == "experts_last";
  if (experts_last && !m.is_moe()) {
    r.warn("expert_placement is ignored: " + m.name + " is a dense model, it has no experts to place apart.");
    experts_last = false;
  }
  double bytes_per_param = w.bits / 8;
  std::vector<Part> parts;
  if (experts_last) {
    Part experts{"exp", r.step("Routed expert bytes (placed last)", "\\text{stored}_{exp} = P_{exp} \\, b_w / 8",
                               tex(wr.routed) + " \\times " + tex(w.bits) + " / 8", wr.routed * bytes_per_param, "bytes"),
                 r.step("Expert bytes read per step", "\\text{read}_{exp} = P_{exp} \\, s_E \\, b_w / 8",
                        times(wr.routed, wr.touched) + " \\times " + tex(w.bits) + " / 8",
                        wr.routed * wr.touched * bytes_per_param, "bytes"),
                 0};
    parts.push_back({"fix", resident - experts.resident, read - experts.read, 0});
    parts.push_back(experts);
  } else {
    parts.push_back({"", resident, read, 0});
  }
  double t_mem = place_and_read(tiers, parts, r);
  split_stages(mem, tiers[0], row, r);
  double flops = r.step("FLOPs per step", "2 P_{active} U", "2 \\times " + times(wr.params_active, users),
                        2 * wr.params_active * users, "FLOPs");
  // a mixed row split's rate is already the pace of its slowest share (split_pace)
  double t_math = row && !mem.mixed ? r.step("Math time (" + rate.dtype + ", every device at once)", "T_{math} = \\text{FLOPs} / (n C)",
                               tex(flops) + " / (" + times(mem.devices, rate.flops_per_s) + ")",
                               flops / (mem.devices * rate.flops_per_s), "s")
                      : r.step("Math time (" + rate.dtype + ")", "T_{math} = \\text{FLOPs} / C", tex(flops) + " / " + tex(rate.flops_per_s),
                               flops / rate.flops_per_s, "s");
  double step = r.step("Step time (bound)", "\\max(\\sum_i T_i, T_{math})",
                       "\\max(" + tex(t_mem) + ", " + tex(t_math) + ")", std::max(t_mem, t_math), "s");
  std::optional<double> t_comm;
  if (row) {
    t_comm = row_split_comm(args, m, mem, users, r);
    step = r.step("Step time with the exchanges (each layer waits for its own)", "\\max(\\sum_i T_i, T_{math}) + T_{comm}",
                  tex(step) + " + " + tex(*t_comm), step + *t_comm, "s");
  }
  std::optional<double> pipeline_step, microbatches;
  std::optional<bool> pipeline_math_bound;
  if (mem.devices > 1 && !row && users > 1 && tiers[0].stored >= resident * (1 - 1e-12)) {
    microbatches = std::min(mem.devices, users);
    const Pipelined p = pipelined_step(m, mem, wr, weight_read_bytes, *microbatches, users, r);
    pipeline_step = p.step_s;
    if (*pipeline_step < step) {
      pipeline_math_bound = p.math_bound;
      step = r.step("Step time (bound): the pipeline, faster than the stages in turn", "T_{pipe}", tex(*pipeline_step),
                    *pipeline_step, "s");
    }
  }
  double tokens = r.step("Tokens per second (all users)", "U / T_{step}", tex(users) + " / " + tex(step), users / step,
                         "tokens/s");
  std::optional<std::string> bound_tier = binding_tier(tiers, t_math);
  if (pipeline_math_bound) {  // a pipeline runs with everything on the devices
    bound_tier = *pipeline_math_bound ? std::nullopt : std::optional<std::string>("device");
  }
  std::string bound = pipeline_math_bound ? (*pipeline_math_bound ? "compute" : "memory")
                                         : t_mem >= t_math ? "memory" : "compute";

  WeightRead prefill_read = wr;
  if (m.is_moe()) {
    prefill_read.touched = experts_read_share(m, prompt, r.log(), "Share of experts the prompt touches", "T").value();
  }
  double prefill_flops = r.step("Prefill FLOPs (attention ignored)", "2 P_{active} T",
                                "2 \\times " + times(wr.params_active, prompt), 2 * wr.params_active * prompt, "FLOPs");
  double ttft_math = row && !mem.mixed ? r.step("Prefill math time (" + rate.dtype + ", every device at once)", "\\text{FLOPs}_{pre} / (n C)",
                                  tex(prefill_flops) + " / (" + times(mem.devices, rate.flops_per_s) + ")",
                                  prefill_flops / (mem.devices * rate.flops_per_s), "s")
                         : r.step("Prefill math time (" + rate.dtype + ")", "\\text{FLOPs}_{pre} / C",
                                  tex(prefill_flops) + " / " + tex(rate.flops_per_s), prefill_flops / rate.flops_per_s, "s");
  double prefill_weights = prefill_read.read_params() * bytes_per_param;
  if (experts_last) {
    parts[1].prefill_read = wr.routed * prefill_read.touched * bytes_per_param;
    parts[0].prefill_read = prefill_weights - parts[1].prefill_read;
  } else {
    parts[0].prefill_read = prefill_weights;
  }
  double ttft_weights = prefill_reads(tiers, parts);
  r.step("Prefill weight reads (once, from each tier)", "\\sum_i \\text{bytes}_{w,i} / W_i", tex(ttft_weights),
         ttft_weights, "s");
  double ttft = r.step("Time to first token (bound)", "\\max(T_{math}^{pre}, T_w^{pre})",
                       "\\max(" + tex(ttft_math) + ", " + tex(ttft_weights) + ")", std::max(ttft_math, ttft_weights), "s");

  std::optional<double> measured_share, achieved_bytes_per_s;
  if (args.has("measured_tokens_per_s")) {
    double measured = args.num("measured_tokens_per_s");
    measured_share = r.step("Share of the bound you measured", "\\text{measured} / \\text{bound}",
                            tex(measured) + " / " + tex(tokens), measured / tokens, "ratio");
    achieved_bytes_per_s = r.step("Bytes per second that implies", "\\text{measured} / U \\times \\text{read}",
                                  tex(measured) + " / " + tex(users) + " \\times " + tex(read),
                                  measured / users * read, "bytes/s");
    if (*measured_share > 1) {
      r.warn("The measured speed is above the bound: check that the device, model, format and context match "
             "the run (a smaller format or a shorter context than entered would explain it).");
    }
  }

  Suggestion s = mem.fits ? suggest_speed(w, wr, mem, t_mem, bound, users)
                          : suggest_fit(args, mem, w, wr.params_total);
  if (!mem.fits) {
    std::string on = chip.name();
    if (mem.mixed) {
      on.clear();
      for (const Device& d : mem.list) on += (on.empty() ? "" : " + ") + d.chip->name();
    }
    // layer shares as given can fill one device before the others: the shortfall is that device's
    std::string why = args.given("layer_shares") && mem.needed <= mem.usable
                          ? " (at these layer shares a device fills before the others: " + gb(-mem.margin) + " short)"
                          : " (" + gb(-mem.margin) + " short)";
    r.warn("Does not fit: " + gb(mem.needed) + " needed, " + gb(mem.usable) + " usable on " + on + why + "; " +
           (chip.is_tpu() ? "a TPU has no host-memory spill path in this model, so nothing spills: the times are "
                            "what the step would take if it fit."
                          : "the rest spills to slower memory, shown in the tiers."));
  }

  r.out("params", wr.params_total);
  r.out("params_active", wr.params_active);
  if (m.is_moe()) {
    r.out("experts_read_share", wr.touched);
    r.out("all_experts_batch", all_experts_batch(m, r.log()).value());
  } else {
    r.out_null("experts_read_share");
    r.out_null("all_experts_batch");
  }
  r.out("weight_bits", w.bits);
  r.out("weight_bytes", mem.weight_bytes);
  r.out("kv_bits", kv.bits);
  r.out("kv_bytes_per_token", mem.kv_bytes_per_token);
  r.out("kv_bytes", mem.kv_bytes);
  r.out("overhead_bytes", mem.overhead);
  r.out("needed_bytes", mem.needed);
  r.out("usable_memory_share", mem.share);
  r.out("usable_bytes", mem.usable);
  r.out("margin_bytes", mem.margin);
  r.out("free_bytes", mem.fits ? mem.margin : 0);
  r.out("shortfall_bytes", mem.fits ? 0 : -mem.margin);
  r.out("fits", mem.fits);
  r.out("tiers", tiers_json(tiers, resident));
  r.out("devices", devices_json(mem));
  r.out("device_stored_bytes", tiers[0].stored);
  r.out("spilled_bytes", resident - tiers[0].stored);
  r.out("read_bytes_per_step", read);
  r.out("t_memory_s", t_mem);
  r.out("flops_per_step", flops);
  r.out("compute_dtype", rate.dtype);
  r.out("flops_per_s", rate.flops_per_s);
  r.out("t_math_s", t_math);
  out_opt(r, "t_comm_s", t_comm);
  out_opt(r, "pipeline_microbatches", microbatches);
  out_opt(r, "pipeline_step_s", pipeline_step);
  r.out("step_s", step);
  r.out("tokens_per_s", tokens);
  r.out("tokens_per_s_per_user", 1 / step);
  r.out("bound", bound);
  if (bound_tier) r.out("bound_tier", *bound_tier);
  else r.out_null("bound_tier");
  r.out("prompt_tokens", prompt);
  r.out("ttft_math_s", ttft_math);
  r.out("ttft_weights_s", ttft_weights);
  r.out("ttft_s", ttft);
  r.out("ttft_bound", ttft_math >= ttft_weights ? "compute" : "memory");
  out_opt(r, "measured_share_of_bound", measured_share);
  out_measured_among(measured_share ? band_for("local_inference", "tokens_per_s", chip.kind) : nullptr,
                     measured_share.value_or(0), r);
  out_opt(r, "achieved_bytes_per_s", achieved_bytes_per_s);
  r.out("suggestion_kind", s.kind);
  r.out("suggestion", s.text);
  if (s.format) r.out("suggested_format", *s.format);
  else r.out_null("suggested_format");
  out_opt(r, "suggested_context", s.context);
  out_opt(r, "suggested_devices", s.devices);
  // The devices of a split count in the band's covered settings (calibration's "devices": the
  // chip's devices and the other_devices together).
  output_expected(chip.kind, step, tokens, ttft, {{"users", users}, {"context", context}, {"devices", mem.devices}}, r);
}

constexpr double kGiB = 1073741824.0;

std::vector<Param> local_params() {
  using namespace params;
  return {
      params::chip("rtx-4090"),
      chip_overrides(),
      params::model("llama3.1-8b"),
      model_overrides(),
      weight_format("weight_format", "weight format: the bytes each weight costs, block scales included "
                                     "(data/formats.json)", "q4_k_m"),
      kv_format("kv_format", "KV-cache format (llama.cpp's --cache-type-k/v: fp16, q8_0, q4_0)", "fp16"),
      choice("arithmetic", {"dequantize", "native"}, "dequantize",
             "matmul rate: dequantize (unpack to 16-bit, the device's bf16/fp16 rate) or native (the "
             "format's own rate: int8 for q8_0, fp8, fp4 for mxfp4/nvfp4)",
             {"dequantize to 16-bit", "the format's native rate"}),
      integer("context", "tokens", 0, 1e7, 8192, "tokens of context per user held in the KV cache"),
      integer("users", "sequences", 1, 1e4, 1, "concurrent users (sequences decoded together)"),
      integer("prompt_tokens", "tokens", 1, 1e7, nullptr, "prompt length for time to first token (default: context)"),
      number("overhead_bytes", "bytes", 0, 1e13, kGiB,
             "runtime overhead on the device: compute buffers and driver context. Default 1 GiB: llama.cpp "
             "logs show compute buffers of 0.1-0.7 GiB for 7-14B models at 4k context (e.g. "
             "ggml-org/llama.cpp#6122: 672 MiB at n_ctx 4096, n_ubatch 512) plus a CUDA context of "
             "about 0.3-0.5 GiB", Scale::linear),
      usable_memory_share_param("the model"),
      positive("system_ram_bytes", "bytes", 1e15, 64 * kGiB,
               "system RAM that takes what the GPU cannot hold (default 64 GiB; discrete GPUs only)"),
      number("system_ram_bytes_per_s", "bytes/s", 1e6, 1e13, 89.6e9,
             "system RAM bandwidth, at least 1 MB/s (default 89.6 GB/s: dual-channel DDR5-5600, 2 x 8 bytes x 5600 MT/s, "
               "JEDEC JESD79-5)"),
      choice("offload", {"cpu", "stream"}, "cpu",
             "spilled layers: cpu (the CPU computes them from RAM, as llama.cpp's --n-gpu-layers does) or "
             "stream (the GPU pulls them over PCIe every step)",
             {"CPU computes them", "GPU streams them (PCIe)"}),
      integer("devices", "count", 1, 16, 1,
              "identical GPUs the model is split over (their memory adds up; discrete GPUs only)", Scale::linear),
      list("other_devices", params::chip(nullptr), 1, 7, nullptr,
           "GPUs of other kinds beside the chip's devices, in order (catalog ids or chip objects; e.g. chip "
           "rtx-4090 with [\"rtx-3090\"]): each holds whole layers and runs them in its turn at its own "
           "bandwidth, llama.cpp's --split-mode layer over mixed cards; discrete GPUs only, at most 8 devices in all"),
      list("layer_shares", positive("share", "ratio", 1e6, nullptr, "one device's share"), 1, 16, nullptr,
           "share of the layers each device holds, in order (the chip's devices, then other_devices), as "
           "llama.cpp's --tensor-split takes them (3,1: three quarters on the first); default: in proportion "
           "to each device's usable memory less the overhead"),
      choice("split", {"layer", "row"}, "layer",
             "how several devices share the model: layer (each holds whole layers and runs them in turn, "
             "llama.cpp's default --split-mode layer: one device's bandwidth at a time) or row (each holds a "
             "slice of every layer and they run at once, exchanging activations twice a layer: --split-mode row)",
             {"whole layers each", "a slice of every layer"}),
      choice("expert_placement", {"with_layers", "experts_last"}, "with_layers",
             "what an MoE model spills first when it does not fit the device: with_layers (every tier holds a "
             "slice of every layer, as llama.cpp's --n-gpu-layers places whole layers) or experts_last (the "
             "always-active weights and the KV cache fill the device first, the routed experts what is left "
             "and then system RAM, as llama.cpp's --n-cpu-moe or -ot exps=CPU place them)",
             {"whole layers spill", "experts spill first"}),
      measured_tokens_per_s("your own measured decode speed (all users): gives the share of the bound it reaches and "
                            "the memory bandwidth that implies"),
      number("ssd_bytes_per_s", "bytes/s", 1e6, 1e12, 7.45e9,
             "SSD read bandwidth, at least 1 MB/s, for weights paged from disk (default 7.45 GB/s: Samsung 990 PRO PCIe 4.0 "
               "NVMe data sheet, sequential read 7450 MB/s)"),
  };
}

}  // namespace

Calculator make_local_inference() {
  return {"local_inference",
          "Local inference: can I run it?",
          {7},
          "One model on one device, or split over several (of one kind or mixed, by layers), at a weight "
          "and KV format: memory against usable memory (per device), spill "
          "tiers (system RAM, SSD) with each tier's share of the decode step, tokens/s and time-to-"
          "first-token bounds with the binding term, and the first change that would make it fit "
          "or run faster.",
          local_params(),
          compute};
}

}  // namespace scalelab
