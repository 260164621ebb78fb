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
#include "core/format_words.hpp"
#include "core/output_rows.hpp"
#include "models/common.hpp"
#include "models/expected.hpp"
#include "models/local_device.hpp"
#include "models/model_math.hpp"

namespace scalelab {
namespace {

// local_inference's outputs, in the order results list them (name, unit, label, doc, nullable): compute
// writes each where it makes it (r.out), none is read from a figures struct by write_members.
// clang-format off
constexpr Output kOutputs[] = {
    {"params", "params", "parameters", "parameters of the model, all experts counted", false},
    {"params_active", "params", "active parameters", "parameters one token passes through", false},
    {"experts_read_share", "ratio", "share of the experts read", "expected share of an MoE's routed experts one step of every user reads, 1 - (1 - k/E)^B (null for a dense model)", true},
    {"all_experts_batch", "count", "users that read every expert", "users from which fewer than one of a layer's experts is expected to go unread per step (null for a dense model)", true},
    {"weight_bits", "bits", "bits per weight", "effective bits per weight of the format, block scales included", false},
    {"weight_bytes", "bytes", "weight bytes", "bytes of the weights in this format", false},
    {"kv_bits", "bits", "bits per KV value", "effective bits per cached value of the KV format", false},
    {"kv_bytes_per_token", "bytes", "KV bytes per token", "cache bytes one token adds, all layers, K and V", false},
    {"kv_bytes", "bytes", "KV cache", "cache bytes of every user at this context", false},
    {"overhead_bytes", "bytes", "runtime overhead", "context buffers and runtime memory beside weights and cache", false},
    {"needed_bytes", "bytes", "memory needed", "weights plus KV cache plus overhead", false},
    {"usable_memory_share", "ratio", "usable share of memory", "the share of the device's memory the model may use", false},
    {"usable_bytes", "bytes", "usable memory", "device memory times the usable share", false},
    {"margin_bytes", "bytes", "memory margin", "usable memory minus memory needed: negative when it does not fit", false},
    {"free_bytes", "bytes", "free memory", "memory left over when it fits (0 when it does not)", false},
    {"shortfall_bytes", "bytes", "shortfall", "memory missing when it does not fit (0 when it fits)", false},
    {"fits", "", "fits", "whether weights, cache and overhead fit in usable memory", false},
    {"tiers", "", "memory tiers", "device memory, system RAM and SSD: bytes stored and read in each, and the time they take", false},
    {"devices", "", "devices", "each device of the split, in order: its share of the layers, usable memory, the weights, KV cache and overhead its share needs, what it holds and reads per step, its bandwidth and its stage's time", false},
    {"device_stored_bytes", "bytes", "bytes in device memory", "bytes of weights and cache held in device memory", false},
    {"spilled_bytes", "bytes", "spilled bytes", "bytes held beyond device memory (system RAM or SSD)", false},
    {"read_bytes_per_step", "bytes", "bytes read per token", "bytes one decode step reads from all tiers", false},
    {"t_memory_s", "s", "memory time per token", "each tier's bytes divided by its bandwidth, added up", false},
    {"flops_per_step", "FLOPs", "FLOPs per token step", "FLOPs of one decode step for every user", false},
    {"compute_dtype", "", "matmul arithmetic format", "the number format whose FLOP/s rate the matmuls run at", false},
    {"flops_per_s", "FLOP/s", "arithmetic rate", "the device's FLOP/s at that dtype (a layer split over different devices: 1 / sum of each device's layer share over its rate)", false},
    {"t_math_s", "s", "math time per token", "FLOPs per step divided by the arithmetic rate", false},
    {"t_comm_s", "s", "exchange time per token", "a row split's activation exchanges between the devices per step, bandwidth only (null for one device or a layer split)", true},
    {"pipeline_microbatches", "count", "micro-batches in the pipeline", "a layer split at several users: the micro-batches its pipeline runs, the fewer of devices and users (null for one device, one user, a row split or a spill)", true},
    {"pipeline_step_s", "s", "pipelined step time", "a layer split at several users: one token for every user with the devices working on different micro-batches at once, the slowest device's round or one micro-batch's way through every stage, whichever is longer; the step time is this where it is the shorter (null where no pipeline runs)", true},
    {"step_s", "s", "time per token step", "the larger of memory and math time, plus a row split's exchanges", false},
    {"tokens_per_s", "tokens/s", "tokens per second (all users)", "tokens the device emits per second at best", false},
    {"tokens_per_s_per_user", "tokens/s", "tokens per second per user", "one user's token rate at best", false},
    {"bound", "", "bound", "what limits a decode step: memory or compute", false},
    {"bound_tier", "", "binding memory tier", "the tier whose reads take longest (null when compute binds)", true},
    {"prompt_tokens", "tokens", "prompt tokens", "tokens of the prompt the first token waits for", false},
    {"ttft_math_s", "s", "prefill math time", "prefill FLOPs divided by the arithmetic rate", false},
    {"ttft_weights_s", "s", "prefill weight-read time", "time to read the weights once for the prefill", false},
    {"ttft_s", "s", "time to first token", "the larger of prefill math and weight-read time", false},
    {"ttft_bound", "", "prefill bound", "what limits the prefill: compute or memory", false},
    {"measured_share_of_bound", "ratio", "measured share of the bound", "the measured tokens/s divided by the bound (null without a measurement)", true},
    {"achieved_bytes_per_s", "bytes/s", "achieved bandwidth", "bytes per step times the measured tokens/s per user (null without a measurement)", true},
    {"measured_runs_below", "count", "published runs below yours", "of the published local runs on this kind of device, how many reached a smaller share of their bound than the one measured (null without a measurement, or where no runs calibrate it)", true},
    {"measured_among", "", "your run among the published ones", "a sentence placing the measured share among the published runs' (null without a measurement, or where no runs calibrate it)", true},
    {"measured_ttft_share_of_bound", "ratio", "measured share of the time-to-first-token bound", "the time-to-first-token bound over the time you measured (null without a measurement)", true},
    {"measured_ttft_runs_below", "count", "published prefills below yours", "of the published prefill runs, how many reached a smaller share of their bound than your time to first token (null without a measurement, or where no runs calibrate it)", true},
    {"measured_ttft_among", "", "your first token among the published ones", "a sentence placing your time to first token's share among the published prefill runs' (null without a measurement, or where no runs calibrate it)", true},
    {"suggestion_kind", "", "suggestion kind", "what the first suggested change is: format, context, devices, or none", false},
    {"suggestion", "", "suggestion", "the first change that would make it fit or run faster, in words", false},
    {"suggested_format", "", "suggested format", "a smaller weight format that fits (null if not the suggestion)", true},
    {"suggested_context", "tokens", "suggested context", "a context that fits (null if not the suggestion)", true},
    {"suggested_devices", "count", "suggested devices", "devices that would hold the model (null if not the suggestion)", true},
    {"expected_tokens_per_s_low", "tokens/s", "expected tokens per second, low", "the bound times the low end of the share published local runs on this kind of device reach (null where no runs calibrate it)", true},
    {"expected_tokens_per_s_high", "tokens/s", "expected tokens per second, high", "the bound times the high end of the share published local runs on this kind of device reach (null where no runs calibrate it)", true},
    {"expected_step_s_low", "s", "expected time per token step, short", "the step-time bound over the high end of the published runs' share (null where no runs calibrate it)", true},
    {"expected_step_s_high", "s", "expected time per token step, long", "the step-time bound over the low end of the published runs' share (null where no runs calibrate it)", true},
    {"expected_ttft_s_low", "s", "expected time to first token, short", "the time-to-first-token bound over the high end of the share published prefill runs reach (null where no runs calibrate it)", true},
    {"expected_ttft_s_high", "s", "expected time to first token, long", "the time-to-first-token bound over the low end of the share published prefill runs reach (null where no runs calibrate it)", true},
    {"expected_runs", "count", "published runs behind the range", "how many published runs the expected tokens/s range is fitted to (null where no runs calibrate it)", true},
    {"expected_share_low", "ratio", "expected share of the bound, low", "the low end of the share of the tokens/s bound published runs reach (null where no runs calibrate it)", true},
    {"expected_share_high", "ratio", "expected share of the bound, high", "the high end of the share of the tokens/s bound published runs reach (null where no runs calibrate it)", true},
    {"expected_covered", "", "setup within the published runs", "whether the device's kind, users and context lie within what the published runs took (null where no runs calibrate it)", true},
    {"expected_outside", "", "setup beyond the published runs", "a sentence naming the device's kind or the settings that lie outside what the published runs took, and what they took (null when none does, or where no runs calibrate it)", true},
    {"expected_ttft_runs", "count", "published prefill runs behind the first-token range", "how many published prefill runs the expected time-to-first-token range is fitted to (null where no runs calibrate it)", true},
    {"expected_ttft_share_low", "ratio", "expected share of the first-token bound, low", "the low end of the share of the prefill bound published prefill runs reach (null where no runs calibrate it)", true},
    {"expected_ttft_share_high", "ratio", "expected share of the first-token bound, high", "the high end of the share of the prefill bound published prefill runs reach (null where no runs calibrate it)", true},
    {"expected_ttft_covered", "", "setup within the published prefill runs", "whether the chip's kind and the settings lie within what the published prefill runs took (null where no runs calibrate it)", true},
    {"expected_ttft_outside", "", "setup beyond the published prefill runs", "a sentence naming the chip's kind or the settings that lie outside what the published prefill runs took, and what they took (null when none does, or where no runs calibrate it)", true},
};
// clang-format on

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

// A format and its bits in one parenthesis: "INT4 (no scales, 4 bits per weight)", "GGUF Q4_0 (4.5 bits
// per weight)", never two groups in a row.
std::string with_bits(const Format& f) {
  const std::string bits = plain(f.bits) + " bits per weight";
  if (!f.name.empty() && f.name.back() == ')') return f.name.substr(0, f.name.size() - 1) + ", " + bits + ")";
  return f.name + " (" + bits + ")";
}
// Device i's symbol: "M_{2}" for ("M", 1).
std::string indexed(const char* letter, std::size_t i) { return std::string(letter) + "_{" + std::to_string(i + 1) + "}"; }

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
                                         "; choose \"dequantize\" or give the rate in a custom chip (chip_overrides)");
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
  const Steps log = r.log();
  WeightRead w;
  w.params_total = log.step("Parameters", "", log.sym("P", counts.total()), "params").value();
  w.params_active = counts.active();
  if (!m.is_moe()) return w;
  w.routed = log.step("Routed expert parameters", "P_{exp}",
                      (log.sym("P_{MLP}", counts.mlp) - log.sym("P_{MLP,active}", counts.mlp_active)) /
                          (1 - frac(log.sym("k", m.k), log.sym("E", m.E))),
                      "params").value();
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
  const Steps log = r.log();
  const Expr o = log.sym("\\text{overhead}", overhead);
  std::vector<Expr> usable, rooms;  // M_i, and M_i - overhead (0 where the overhead fills it)
  for (std::size_t i = 0; i < mem.list.size(); ++i) {
    Device& d = mem.list[i];
    double capacity = d.chip->need(&Chip::hbm_bytes, "the model must fit in the device's memory");
    Expr M = log.step("Usable memory of " + numbered(d, i), indexed("M", i),
                      log.sym("\\text{capacity}", capacity) * log.sym("\\text{share}", usable_share(args, *d.chip)),
                      "bytes");
    d.usable = M.value();
    d.room = std::max(0.0, d.usable - overhead);
    usable.push_back(M);
    rooms.push_back(d.room > 0 ? M - o : Expr(0));
  }
  mem.usable = log.step("Usable memory of the devices", "M", Expr::sum_of(usable), "bytes").value();
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
    const Expr G = log.sym("\\textstyle\\sum_j g_j", total);
    std::vector<Expr> holds;  // (M_i - overhead) / s_i
    for (std::size_t i = 0; i < n; ++i) {
      Device& d = mem.list[i];
      Expr share = log.step("Layer share of " + numbered(d, i) + " (as given)", indexed("s", i),
                            frac(log.sym(indexed("g", i), given[i].get<double>()), G), "ratio");
      d.share = share.value();
      holds.push_back(rooms[i] / share);
    }
    mem.room = log.step("Model bytes the devices hold at these shares (the first to fill sets it)", "K",
                        Expr::min_of(holds), "bytes").value();
    return;
  }
  const Expr room_total = Expr::sum_of(rooms);
  for (std::size_t i = 0; i < n; ++i) {
    Device& d = mem.list[i];
    d.share = room_total.value() > 0
                  ? log.step("Layer share of " + numbered(d, i) + " (in proportion to its memory less the overhead)",
                             indexed("s", i), rooms[i] / room_total, "ratio").value()
                  : 1.0 / double(n);
  }
  mem.room = log.step("Model bytes the devices hold", "K", room_total, "bytes").value();
}

// The KV cache of all users: each token of a global layer's cache, at most the window (and the
// sinks) of a local layer's, at the format's bytes a token and layer (MLA: its latent).
Memory memory(const Args& args, const Model& m, const Format& w, const Format& kv, double params,
              Result& r) {
  const Chip& chip = args.chip();
  double users = args.num("users"), context = args.num("context");
  const Steps log = r.log();
  Memory mem;
  Expr weights = log.step("Weight bytes (" + w.name + ")", "\\text{bytes}_w", log.sym("P", params) * log.sym("b_w", w.bits) / 8,
                          "bytes");
  mem.weight_bytes = weights.value();
  mem.kv_bytes_per_token = kv_bytes_per_token(m, kv.bits / 8);
  Expr kv_layer = kv_bytes_per_layer_token(m, kv.bits / 8, log);
  Expr held = kv_tokens_held(m, context, log);
  mem.kv_bytes_per_layer_token = kv_layer.value();
  Expr kv_bytes = log.step("KV cache of all users (" + kv.name + ")", "\\text{KV}", log.sym("U", users) * held * kv_layer, "bytes");
  mem.kv_bytes = kv_bytes.value();
  mem.list = device_list(args);
  mem.devices = double(mem.list.size());
  mem.mixed = args.given("other_devices") || args.given("layer_shares");
  double one_overhead = args.num("overhead_bytes");
  const Expr n = log.sym("n", mem.devices);
  Expr overhead = log.sym("\\text{overhead}", one_overhead);
  if (mem.devices > 1) overhead = log.step("Runtime overhead on every device", "\\text{overhead}_{all}", n * overhead, "bytes");
  mem.overhead = overhead.value();
  Expr needed = log.step("Memory needed", "\\text{needed}", weights + kv_bytes + overhead, "bytes");
  mem.needed = needed.value();
  mem.share = usable_share(args, chip);
  Expr usable = 0;
  if (!mem.mixed) {
    double capacity = chip.need(&Chip::hbm_bytes, "the model must fit in the device's memory");
    usable = log.step("Usable device memory", "M", log.sym("\\text{capacity}", capacity) * log.sym("\\text{share}", mem.share),
                      "bytes");
    mem.usable = usable.value();
    for (Device& d : mem.list) {
      d.usable = mem.usable;
      d.room = mem.usable - one_overhead;
      d.share = 1 / mem.devices;
    }
    if (mem.devices > 1) {
      usable = log.step("Usable memory of the devices", "M_{all}", n * usable, "bytes");
      mem.usable = usable.value();
    }
    mem.room = mem.usable - mem.overhead;
  } else {
    layer_shares(args, mem, one_overhead, r);
  }
  mem.margin = mem.mixed ? mem.room - mem.weight_bytes - mem.kv_bytes : mem.usable - mem.needed;
  mem.fits = mem.margin >= 0;
  if (mem.mixed) {
    const Expr K = log.sym("K", mem.room);
    if (mem.fits) log.step("Free memory at these shares", "", K - weights - kv_bytes, "bytes");
    else log.step("Shortfall at these shares (does not fit)", "", kv_bytes - (K - weights), "bytes");
  } else if (mem.fits) {
    log.step("Free memory", "", usable - needed, "bytes");
  } else {
    log.step("Shortfall (does not fit)", "", needed - usable, "bytes");
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
                                    "the catalog; choose \"cpu\" or give it in a custom chip (chip_overrides)");
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
  const Steps log = r.log();
  std::vector<Expr> terms;  // s_i / R_i
  for (std::size_t i = 0; i < mem.list.size(); ++i) {
    const Device& d = mem.list[i];
    terms.push_back(log.sym(indexed("s", i), d.share) / log.sym(indexed(p.letter, i), rate(d)));
  }
  const std::string R = p.letter;
  if (rows) {
    return log.step(std::string(p.what) + " of the row split (every device at once; the slowest share sets the pace)",
                    R + "_{row}", 1 / Expr::max_of(terms), std::string_view(p.unit)).value();
  }
  return log.step(std::string(p.what) + " of the layer split (each device runs its layers in turn)", R + "_{split}",
                  1 / Expr::sum_of(terms), std::string_view(p.unit)).value();
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

// A part's quantity in TeX: \text{read}_{exp} for the routed experts, \text{read} for the one part.
std::string part_symbol(const char* what, const Part& part) {
  return "\\text{" + std::string(what) + "}" + (part.name.empty() ? "" : "_{" + part.name + "}");
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
  // Each part's reads in a tier: read_p × stored_{p,i} / stored_p (the share of the part it holds).
  const Steps log = r.log();
  double total_t = 0;
  for (Tier& t : tiers) {
    if (t.stored <= 0) continue;
    std::vector<Expr> reads;
    for (std::size_t p = 0; p < parts.size(); ++p) {
      const Part& part = parts[p];
      const std::string of = part.name.empty() ? "" : part.name + ",";
      Expr share = part.resident > 0 ? frac(log.sym("\\text{stored}_{" + of + t.id + "}", t.part_stored[p]),
                                            log.sym(part_symbol("stored", part), part.resident))
                                     : Expr(0);
      reads.push_back(log.sym(part_symbol("read", part), part.read) * share);
    }
    Expr read = log.step("Bytes read per step from " + t.label, "\\text{read}_{" + t.id + "}", Expr::sum_of(reads), "bytes");
    t.read = read.value();
    t.t_s = log.step("Time to read them (" + t.label + ")", "T_{" + t.id + "}",
                     read / log.sym("W_{" + t.id + "}", t.bytes_per_s), "s").value();
    total_t += t.t_s;
  }
  return total_t;
}

// The prefill's weight reads: each tier's share of every part's prefill bytes, at its bandwidth
// (a tier that holds nothing of a part adds nothing).
Expr prefill_reads(const std::vector<Tier>& tiers, const std::vector<Part>& parts, const Steps& log) {
  std::vector<Expr> terms;
  for (const Tier& t : tiers) {
    for (std::size_t p = 0; p < parts.size(); ++p) {
      const Part& part = parts[p];
      if (part.resident <= 0 || t.part_stored[p] == 0) continue;
      const std::string of = part.name.empty() ? "" : part.name + ",";
      terms.push_back(frac(log.sym("\\text{stored}_{" + of + t.id + "}", t.part_stored[p]),
                           log.sym(part_symbol("stored", part), part.resident)) *
                      log.sym(part_symbol("read", part) + "^{pre}", part.prefill_read) /
                      log.sym("W_{" + t.id + "}", t.bytes_per_s));
    }
  }
  return Expr::sum_of(terms);
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

// Whether a runtime that serves beyond one's own machine (one not marked "local" in
// data/formats.json, as llama.cpp and MLX are) runs the format on the chip's platform.
bool served_at_scale(const Format& f, const Chip& chip) {
  const std::string platform = chip.platform();
  for (const json& runtime : (*find_format(f.id)).value("runs_on", json::array())) {
    if (runtime.value("local", false)) continue;
    for (const json& on : runtime["on"]) {
      if (platform.empty() ? on != "tpu" && on != "cpu" : on == platform) return true;
    }
  }
  return false;
}

// The weight formats below `current` that some runtime runs on the chip (data/formats.json
// runs_on), largest first. On a TPU or a datacenter GPU the formats a serving stack runs there
// and its matrix units multiply come first (FP8 on an H100, INT8 on a TPU v5e), then the rest
// (llama.cpp's GGUF); between two as large, the one multiplied natively first.
std::vector<Format> smaller_formats(const Format& current, const Chip& chip) {
  std::vector<Format> list;
  for (const std::string& id : formats_running_on(weight_format_names(), chip)) {
    Format f = read_format(id);
    if (f.bits < current.bits) list.push_back(f);
  }
  auto native = [&](const Format& f) { return f.native_rate && chip.flops_if(*f.native_rate); };
  const bool datacenter = chip.kind == ChipKind::tpu || chip.kind == ChipKind::datacenter_gpu;
  std::stable_sort(list.begin(), list.end(), [&](const Format& a, const Format& b) {
    auto served = [&](const Format& f) { return native(f) && served_at_scale(f, chip); };
    if (datacenter && served(a) != served(b)) return served(a);
    return a.bits != b.bits ? a.bits > b.bits : native(a) && !native(b);
  });
  return list;
}

// A weight or KV-cache format no runtime of data/formats.json runs on the chip: priced all the
// same (the bytes are the bytes), with a warning that names the runtimes and what the chip runs.
void warn_unrun_format(const Format& f, const char* what, const std::vector<std::string>& ids, const Chip& chip, Result& r) {
  if (format_runs_on(f.id, chip)) return;
  std::string runs;
  for (const std::string& id : formats_running_on(ids, chip)) runs += (runs.empty() ? "" : ", ") + read_format(id).name;
  const std::string runtimes = format_runtimes(f.id);
  const bool one = runtimes.find(" or ") == std::string::npos;
  r.warn(f.name + " " + what + " run through " + runtimes + (one ? ", which does not run on the " : ", none of which runs on the ") +
         chip.name() + ": the figures price the bytes as if it did." +
         (runs.empty() ? std::string() : " Formats that run on the " + chip.name() + ": " + runs + "."));
}

// The longest context whose KV cache fits in `room` bytes for every user (whole tokens).
double context_fitting(const Model& m, double room, double users, const Memory& mem) {
  if (!has_window(m)) return std::floor(room / (users * mem.kv_bytes_per_token));
  return std::floor(context_holding(m, room / (users * mem.kv_bytes_per_layer_token)));
}

Suggestion suggest_fit(const Args& args, const Memory& mem, const Format& w, double params, const Chip& chip) {
  Suggestion s;
  double rest = mem.kv_bytes + mem.overhead;
  for (const Format& f : smaller_formats(w, chip)) {
    double need = params * f.bits / 8 + rest;
    if (need <= mem.usable) {
      s.kind = "smaller_format";
      s.format = f.id;
      s.text = "A smaller weight format fits: " + with_bits(f) + " needs " +
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
  for (const Format& f : smaller_formats(w, chip)) {
    double room_f = mem.usable - mem.overhead - params * f.bits / 8;
    if (per_context_token > 0 && room_f >= per_context_token) {
      s.kind = "smaller_format_and_context";
      s.format = f.id;
      s.context = context_fitting(args.model(), room_f, args.num("users"), mem);
      s.text = "Neither a smaller format nor a shorter context fits alone; " + with_bits(f) +
               " with at most " + format_quantity(*s.context, "tokens") + " per user does.";
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

// A smaller format is the first change to try for speed only where it is at least this much faster
// (llama.cpp's steps Q8_0 → Q6_K → Q5_K_M → Q4_K_M each gain about a sixth or more; Q4_K_M → Q4_0,
// 4.85 → 4.5 bits, under a tenth): below it the loss of quality buys too little.
constexpr double kWorthwhileSpeedup = 0.15;

Suggestion suggest_speed(const Format& w, const WeightRead& wr, const Memory& mem, double t_mem,
                         const std::string& bound, double users, const Chip& chip) {
  Suggestion s;
  if (bound == "compute") {
    s.kind = "none";
    s.text = "The step is compute-bound: only a faster arithmetic rate (native low precision) or a faster "
             "device would speed it up.";
    return s;
  }
  for (const Format& f : smaller_formats(w, chip)) {
    double bytes_now = wr.read_params() * w.bits / 8 + mem.kv_bytes;
    double bytes_new = wr.read_params() * f.bits / 8 + mem.kv_bytes;
    double tokens = users / (t_mem * bytes_new / bytes_now);
    double gain = bytes_now / bytes_new - 1;
    s.format = f.id;
    // fewer bits per weight cost some quality: worth offering first only for a real speed-up
    if (gain < kWorthwhileSpeedup) {
      s.kind = "none";
      s.format.reset();
      s.text = "The step is bound by memory reads, and the next smaller format, " + with_bits(f) + ", would be only about " +
               grouped(std::round(gain * 100)) + " % faster (" + format_quantity(tokens, "tokens/s") +
               ") for a further loss of quality: a smaller model, or a device with faster memory, is what would speed it up.";
      return s;
    }
    s.kind = "smaller_format";
    s.text = "The step is bound by memory reads: " + with_bits(f) +
             " would read fewer bytes, about " + format_quantity(tokens, "tokens/s") +
             " in all, at some cost in quality (fewer bits per weight).";
    return s;
  }
  s.text = "Already the smallest weight format that runs on the " + chip.name() + ".";
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
  const Steps log = r.log();
  const Expr devices = log.sym("n", n);
  Expr bytes = log.step("Activations one all-reduce moves per device", "\\text{bytes}",
                        frac(2 * (devices - 1), devices) * log.sym("U", users) * log.sym("D", m.D) * 2, "bytes");
  return log.step(std::string("Exchange time per token step over ") + (bridge ? "the NVLink bridge" : "PCIe"), "T_{comm}",
                  2 * log.sym("L", m.L) * bytes / log.sym("W_{link}", *link), "s").value();
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
void output_expected(ChipKind kind, double step, double tokens, double ttft, Setup settings,
                     Setup prompt_settings, Result& r) {
  const Band* band = band_for("local_inference", "tokens_per_s", kind);
  out_expected(band, expected_output(kOutputs, "tokens_per_s", "tokens per second"), tokens, r);
  out_expected(band_for("local_inference", "step_s", kind),
               expected_output(kOutputs, "step_s", "time per token step"), step, r);
  out_expected(band_for("local_inference", "ttft_s", kind),
               expected_output(kOutputs, "ttft_s", "time to first token"), ttft, r);
  out_band(band, "local_inference", kind, settings, r, band_outputs(kOutputs));
  out_band(band_for("local_inference", "ttft_s", kind), "local_inference", kind, prompt_settings, r, band_outputs(kOutputs, "expected_ttft_"));
}

// Each device's stage of a token step: its share of what the devices hold and read, read at its
// own bandwidth. A layer split's stages run one after another, so their times add up to the device
// tier's time; a row split's run at once, so the longest is the tier's time.
void split_stages(Memory& mem, const Tier& device, bool row, Result& r) {
  const Steps log = r.log();
  std::vector<Expr> stages;  // T_i = read s_i / W_i
  for (std::size_t i = 0; i < mem.list.size(); ++i) {
    Device& d = mem.list[i];
    d.stored = device.stored * d.share;
    d.read = device.read * d.share;
    d.t_s = d.read / d.bytes_per_s;
    if (mem.mixed) {
      stages.push_back(log.step("Stage " + std::to_string(i + 1) + ": " + d.chip->name() +
                                    (row ? " reads its rows" : " reads its layers"),
                                indexed("T", i),
                                log.sym("\\text{read}", device.read) * log.sym(indexed("s", i), d.share) /
                                    log.sym(indexed("W", i), d.bytes_per_s),
                                "s"));
      d.t_s = stages.back().value();
    }
  }
  if (mem.mixed && device.read > 0) {
    if (row) log.step("Read time of the devices (all at once: the longest)", "", Expr::max_of(stages), "s");
    else log.step("Read time of the devices (the stages in turn)", "", Expr::sum_of(stages), "s");
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
  const Steps log = r.log();
  const Expr U = log.sym("U", users), m_b = log.sym("m", mb);
  const Expr b = log.step("Users in one micro-batch", "b", U / m_b, "sequences");
  Expr read_w = log.sym("\\text{read}_w", weight_read_bytes);
  if (m.is_moe()) {
    // the experts b tokens route to: the bytes read per step scaled by P_read(b) / P_read
    Expr P_exp = log.sym("P_{exp}", wr.routed);
    Expr s_E = experts_read_share(m, b.value(), log, "Share of experts a micro-batch touches", "b");
    read_w = log.step("Weight bytes one micro-batch reads (its experts)", "\\text{read}_w(b)",
                      read_w * (log.sym("P", wr.params_total) - P_exp + P_exp * s_E) / log.sym("P_{read}", wr.read_params()),
                      "bytes");
  }
  const Expr KV = log.sym("\\text{KV}", mem.kv_bytes);
  const Expr flops = log.sym("\\text{FLOPs}", 2 * wr.params_active * users);
  std::vector<Expr> rounds, passes;
  double slowest = 0;
  bool math_bound = false;
  for (std::size_t i = 0; i < mem.list.size(); ++i) {
    const Device& d = mem.list[i];
    const Expr s_i = log.sym(indexed("s", i), d.share), W_i = log.sym(indexed("W", i), d.bytes_per_s),
               C_i = log.sym(indexed("C", i), d.rate.flops_per_s);
    // T_i = max((m s_i read_w + s_i KV) / W_i, s_i FLOPs / C_i); t_i, one micro-batch's pass
    const Expr reads_i = (m_b * s_i * read_w + s_i * KV) / W_i, math_i = s_i * flops / C_i;
    const double round_i = std::max(reads_i.value(), math_i.value());
    if (round_i > slowest) math_bound = math_i.value() > reads_i.value();
    slowest = std::max(slowest, round_i);
    rounds.push_back(max(reads_i, math_i));
    passes.push_back(max(s_i * (read_w + KV / m_b) / W_i, s_i * flops / m_b / C_i));
  }
  const Expr round = log.step("Pipelined round: the slowest device (each reads its weights once per micro-batch, its KV once)",
                              "T_{round}", Expr::max_of(rounds), "s");
  const Expr through = log.step("One micro-batch through every stage in turn", "T_{pass}", Expr::sum_of(passes), "s");
  return {log.step("Step time of the pipeline (" + plain(mb) + " micro-batches)", "T_{pipe}", max(round, through), "s").value(),
          math_bound && round.value() >= through.value()};
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
  warn_unrun_format(w, "weights", weight_format_names(), chip, r);
  warn_unrun_format(kv, "KV caches", kv_format_names(), chip, r);
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
  const Steps log = r.log();
  double resident = mem.weight_bytes + mem.kv_bytes;
  const Expr b_w = log.sym("b_w", w.bits), U = log.sym("U", users), P_active = log.sym("P_{active}", wr.params_active);
  const Expr weight_read = log.step("Weight bytes read per step", "\\text{bytes}_{w,read}",
                                    log.sym("P_{read}", wr.read_params()) * b_w / 8, "bytes");
  const double weight_read_bytes = weight_read.value();
  const Expr read_bytes = log.step("Bytes read per step", "\\text{read}", weight_read + log.sym("\\text{KV}", mem.kv_bytes), "bytes");
  const double read = read_bytes.value();
  bool experts_last = args.str("expert_placement") == "experts_last";
  if (experts_last && !m.is_moe()) {
    r.warn("expert_placement is ignored: " + m.name + " is a dense model, it has no experts to place apart.");
    experts_last = false;
  }
  double bytes_per_param = w.bits / 8;
  std::vector<Part> parts;
  if (experts_last) {
    const Expr P_exp = log.sym("P_{exp}", wr.routed), per_param = b_w / 8;
    Part experts{"exp", log.step("Routed expert bytes (placed last)", "\\text{stored}_{exp}", P_exp * per_param, "bytes").value(),
                 log.step("Expert bytes read per step", "\\text{read}_{exp}", P_exp * log.sym("s_E", wr.touched) * per_param,
                          "bytes").value(),
                 0};
    parts.push_back({"fix", resident - experts.resident, read - experts.read, 0});
    parts.push_back(experts);
  } else {
    parts.push_back({"", resident, read, 0});
  }
  double t_mem = place_and_read(tiers, parts, r);
  split_stages(mem, tiers[0], row, r);
  const Expr flops = log.step("FLOPs per step", "\\text{FLOPs}", 2 * P_active * U, "FLOPs");
  // a mixed row split's rate is already the pace of its slowest share (split_pace)
  const Expr C = log.sym("C", rate.flops_per_s), n = log.sym("n", mem.devices);
  const Expr math = row && !mem.mixed ? log.step("Math time (" + rate.dtype + ", every device at once)", "T_{math}", flops / (n * C), "s")
                                      : log.step("Math time (" + rate.dtype + ")", "T_{math}", flops / C, "s");
  const double t_math = math.value();
  Expr step_time = log.step("Step time (bound)", "T_{step}", max(log.sym("T_{read}", t_mem), math), "s");
  std::optional<double> t_comm;
  if (row) {
    t_comm = row_split_comm(args, m, mem, users, r);
    step_time = log.step("Step time with the exchanges (each layer waits for its own)", "T_{step}",
                         log.sym("T_{step}", step_time.value()) + log.sym("T_{comm}", *t_comm), "s");
  }
  double step = step_time.value();
  std::optional<double> pipeline_step, microbatches;
  std::optional<bool> pipeline_math_bound;
  if (mem.devices > 1 && !row && users > 1 && tiers[0].stored >= resident * (1 - 1e-12)) {
    microbatches = std::min(mem.devices, users);
    const Pipelined p = pipelined_step(m, mem, wr, weight_read_bytes, *microbatches, users, r);
    pipeline_step = p.step_s;
    if (*pipeline_step < step) {
      pipeline_math_bound = p.math_bound;
      step = log.step("Step time (bound): the pipeline, faster than the stages in turn", "", log.sym("T_{pipe}", *pipeline_step),
                      "s").value();
    }
  }
  const Expr tokens_per_s = log.step("Tokens per second (all users)", "", U / log.sym("T_{step}", step), "tokens/s");
  const double tokens = tokens_per_s.value();
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
  const Expr prefill_flops = log.step("Prefill FLOPs (attention ignored)", "\\text{FLOPs}_{pre}",
                                      2 * P_active * log.sym("T", prompt), "FLOPs");
  const Expr ttft_math = row && !mem.mixed
                             ? log.step("Prefill math time (" + rate.dtype + ", every device at once)", "T_{math}^{pre}",
                                        prefill_flops / (n * C), "s")
                             : log.step("Prefill math time (" + rate.dtype + ")", "T_{math}^{pre}", prefill_flops / C, "s");
  double prefill_weights = prefill_read.read_params() * bytes_per_param;
  if (experts_last) {
    parts[1].prefill_read = wr.routed * prefill_read.touched * bytes_per_param;
    parts[0].prefill_read = prefill_weights - parts[1].prefill_read;
  } else {
    parts[0].prefill_read = prefill_weights;
  }
  const Expr ttft_weights = log.step("Prefill weight reads (once, from each tier)", "T_w^{pre}", prefill_reads(tiers, parts, log), "s");
  const double ttft = log.step("Time to first token (bound)", "", max(ttft_math, ttft_weights), "s").value();

  std::optional<double> measured_share, achieved_bytes_per_s;
  if (args.has("measured_tokens_per_s")) {
    double measured = args.num("measured_tokens_per_s");
    const Expr measured_tokens = log.sym("\\text{measured}", measured);
    measured_share = log.step("Share of the bound you measured", "", measured_tokens / log.sym("\\text{bound}", tokens), "ratio").value();
    achieved_bytes_per_s = log.step("Bytes per second that implies", "", measured_tokens / U * read_bytes, "bytes/s").value();
    if (*measured_share > 1) {
      r.warn("The measured speed is above the bound: check that the device, model, format and context match "
             "the run (a smaller format or a shorter context than entered would explain it).");
    }
  }

  Suggestion s = mem.fits ? suggest_speed(w, wr, mem, t_mem, bound, users, chip)
                          : suggest_fit(args, mem, w, wr.params_total, chip);
  if (!mem.fits) {
    std::string on = chip.name();
    if (mem.mixed) {
      on.clear();
      for (const Device& d : mem.list) on += (on.empty() ? "" : " + ") + d.chip->name();
    }
    // layer shares as given can fill one device before the others: the shortfall is that device's
    std::string why = args.given("layer_shares") && mem.needed <= mem.usable
                          ? ", " + gb(-mem.margin) + " short (at these layer shares a device fills before the others)"
                          : ", " + gb(-mem.margin) + " short";
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
  r.out("ttft_bound", ttft_math.value() >= ttft_weights.value() ? "compute" : "memory");
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
  // The first token's band: the prefill runs took a prompt, not a context to decode in.
  output_expected(chip.kind, step, tokens, ttft, {{"users", users}, {"context", context}, {"devices", mem.devices}},
                  {{"users", users}, {"prompt_tokens", prompt}, {"devices", mem.devices}}, r);
  out_measured_time(band_for("local_inference", "ttft_s", chip.kind),
                    args.given("measured_ttft_s") ? std::optional(args.num("measured_ttft_s")) : std::nullopt, ttft,
                    "time to first token", "measured_ttft_", r);
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
      number("measured_ttft_s", "s", 1e-6, 1e7, nullptr,
             "I measured: your time to first token for this prompt (default: none); gives its share of the bound "
             "and its place among the published prefill runs"),
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
          compute,
          outputs_of(kOutputs)};
}

}  // namespace scalelab
