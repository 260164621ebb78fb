#include "models/topology.hpp"
#include "core/format_words.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/errors.hpp"
#include "core/format.hpp"

namespace scalelab {
namespace {

std::string shape_text(const std::vector<double>& shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "×" : "") + grouped(shape[i]);
  return s;
}

std::vector<double> sorted_descending(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end(), std::greater<>());
  return xs;
}

std::vector<double> real_axes(const std::vector<double>& axes) {
  std::vector<double> out;
  for (double n : axes) {
    if (n > 1) out.push_back(n);
  }
  return out;
}

bool multiple_of(double n, double m) { return m > 0 && std::fmod(n, m) == 0; }

std::string axes_word(size_t n) { return n == 1 ? "1 axis" : std::to_string(n) + " axes"; }

}  // namespace

std::string wraparound_rule(const Chip& chip) {
  if (!chip.wrap_axis_multiple) return "";
  std::string m = plain(*chip.wrap_axis_multiple);
  auto pod = chip.pod_shape();
  bool full_axis_only = !pod.empty() && *std::max_element(pod.begin(), pod.end()) <= 2 * *chip.wrap_axis_multiple - 1;
  if (chip.wrap_whole_cubes.value_or(false)) {
    return "an axis wraps around when the slice is made of whole " + m + "×" + m + "×" + m +
           " cubes (every axis a multiple of " + m + "); smaller slices have no wraparound";
  }
  if (full_axis_only) return "an axis wraps around only when it spans " + m + " chips, a full pod axis";
  return "an axis wraps around when its length is a multiple of " + m;
}

std::optional<std::vector<bool>> hardware_wraparound(const Chip& chip, const std::vector<double>& axes) {
  if (!chip.is_tpu() || !chip.wrap_axis_multiple) return std::nullopt;
  double m = *chip.wrap_axis_multiple;
  bool whole = true;
  for (double n : real_axes(axes)) whole = whole && multiple_of(n, m);
  std::vector<bool> wrap;
  for (double n : axes) {
    bool axis_wraps = n > 1 && multiple_of(n, m);
    wrap.push_back(chip.wrap_whole_cubes.value_or(false) ? axis_wraps && whole : axis_wraps);
  }
  return wrap;
}

void check_ici_slice(const Chip& chip, const std::vector<double>& axes, const std::string& param) {
  const auto& pod = chip.pod_shape();
  if (!chip.is_tpu() || pod.empty()) return;
  std::vector<double> used = sorted_descending(real_axes(axes)), room = sorted_descending(pod);
  std::string beyond = chip.beyond_pod.empty() ? "" : "; chips in different pods talk over " +
                                                          std::string(chip.beyond_pod == "dcn" ? "DCN" : "InfiniBand");
  if (used.size() > room.size()) {
    throw InputError(param, "gives " + axes_word(used.size()) + " of more than one chip, but " + chip.name() +
                                "'s ICI torus has " + axes_word(room.size()) + " (its pod is " + shape_text(pod) +
                                "): give at most " + axes_word(room.size()) + beyond);
  }
  for (size_t i = 0; i < used.size(); ++i) {
    if (used[i] > room[i]) {
      throw InputError(param, "asks for axes of " + shape_text(used) + " chips, which do not fit in " + chip.name() +
                                  "'s " + shape_text(pod) + " pod: an axis of " + format_quantity(used[i], "chips") +
                                  " is longer than the pod allows" + beyond);
    }
  }
}

std::vector<bool> given_wraparound(const std::vector<double>& axes, const json& given) {
  if (given.is_boolean()) return std::vector<bool>(axes.size(), given.get<bool>());
  if (given.size() != axes.size()) {
    throw InputError("wraparound", "gives " + std::to_string(given.size()) + " values for " +
                                       std::to_string(axes.size()) +
                                       " axes; give one boolean per axis, or a single boolean");
  }
  std::vector<bool> wrap;
  for (const auto& b : given) wrap.push_back(b.get<bool>());
  return wrap;
}

std::vector<bool> resolve_wraparound(const Chip& chip, const std::vector<double>& axes, const json& given,
                                     Result& r) {
  std::optional<std::vector<bool>> real = hardware_wraparound(chip, axes);
  if (given.is_null()) {
    if (real) return *real;
    r.warn("The catalog states no wraparound rule for " + chip.name() +
           ": every axis is assumed to wrap around (give wraparound to choose).");
    return std::vector<bool>(axes.size(), true);
  }
  std::vector<bool> wrap = given_wraparound(axes, given);
  if (!real) return wrap;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (wrap[i] && !(*real)[i] && axes[i] > 2) {
      r.warn(chip.name() + " has no wraparound on an axis of " + plain(axes[i]) + " chips (" + wraparound_rule(chip) +
             "): this ring exists only on another chip or slice; it is priced with the wraparound you asked for.");
    }
  }
  return wrap;
}

void check_ici_links(const Chip& chip, double links, const std::string& param, Result& r) {
  if (!chip.ici_links) {
    r.warn("The catalog gives no ICI link count for " + chip.name() + ": " + param + " = " + plain(links) +
           " is not checked against the hardware.");
    return;
  }
  if (links > *chip.ici_links) {
    throw InputError(param, "must be 1–" + plain(*chip.ici_links) + ": " + chip.name() + " has " +
                                plain(*chip.ici_links) + " ICI links per chip, got " + plain(links));
  }
}

std::optional<double> chips_on_axes(const Chip& chip, double axes) {
  std::vector<double> room = sorted_descending(chip.pod_shape());
  if (room.empty()) return std::nullopt;
  double chips = 1;
  for (size_t i = 0; i < room.size() && double(i) < axes; ++i) chips *= room[i];
  return chips;
}

double axes_to_hold(const Chip& chip, double group) {
  double dims = double(chip.pod_shape().size());
  for (double axes = 1; axes < dims; ++axes) {
    if (group <= *chips_on_axes(chip, axes)) return axes;
  }
  return std::max(1.0, dims);
}

void check_group_on_axes(const Chip& chip, double group, double axes, const std::string& what,
                         const std::string& param) {
  std::optional<double> room = chips_on_axes(chip, axes);
  if (!room || group <= *room) return;
  double need = axes_to_hold(chip, group);
  throw InputError(param, "gives " + axes_word(size_t(axes)) + " of " + chip.name() + "'s " +
                              shape_text(chip.pod_shape()) + " torus, which hold" + (axes == 1 ? "s" : "") +
                              " at most " + format_quantity(*room, "chips") + ", but " + what + " spans " +
                              format_quantity(group, "chips") +
                              (group <= *chips_on_axes(chip, need) ? ": give " + plain(need) + " axes" : "") +
                              ", or fewer chips");
}

void check_pair_on_axes(const Chip& chip, double chips, double axes_fsdp, double axes_tp, const std::string& param) {
  std::optional<double> room = chips_on_axes(chip, axes_fsdp + axes_tp);
  if (!room || chips <= *room) return;
  throw InputError(param, "gives FSDP and TP " + plain(axes_fsdp) + " + " + plain(axes_tp) + " axes of " + chip.name() +
                              "'s " + shape_text(chip.pod_shape()) + " torus, which hold at most " +
                              format_quantity(*room, "chips") + " together, but fsdp × tp spans " +
                              format_quantity(chips, "chips") + ": give them " +
                              plain(axes_to_hold(chip, chips)) + " axes between them, or fewer chips");
}

void check_torus_axes(const Chip& chip, double axes, const std::string& param) {
  const auto& pod = chip.pod_shape();
  if (!chip.is_tpu() || pod.empty() || axes <= double(pod.size())) return;
  throw InputError(param, "must be 1–" + std::to_string(pod.size()) + ": " + chip.name() + "'s ICI torus has " +
                              axes_word(pod.size()) + " (its pod is " + shape_text(pod) + "), got " + plain(axes));
}

PodSpan tpu_pod_span(const Chip& chip, double chips) {
  PodSpan s;
  s.chips = chips;
  if (!chip.is_tpu() || !chip.pod_chips) return s;
  s.pod_chips = *chip.pod_chips;
  s.pods = std::ceil(chips / s.pod_chips);
  s.beyond = chips > s.pod_chips;
  return s;
}

std::string pod_boundary_warning(const Chip& chip, const PodSpan& span, const std::string& consequence) {
  std::string net = chip.beyond_pod == "infiniband" ? "InfiniBand" : "DCN";
  bool whole = std::fmod(span.chips, span.pod_chips) == 0;
  return format_quantity(span.chips, "chips") + " of " + chip.name() + " do not fit in one " +
         format_quantity(span.pod_chips, "count") + "-chip pod: they are " + (whole ? "" : "at least ") +
         format_quantity(span.pods, "count") + " pods joined by " + net +
         " (" + format_quantity(chip.dcn_bytes_per_s.value_or(0), "bytes/s") + " per chip), not one ICI torus; " +
         consequence;
}

json topology_facts(const Chip& chip) {
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(); };
  json t = {{"kind", chip.kind_name()}};
  if (chip.is_tpu()) {
    t["scale_up"] = "ici";
    t["pod_shape"] = chip.pod_shape().empty() ? json() : json(chip.pod_shape());
    t["pod_axes"] = chip.pod_shape().empty() ? json() : json(double(chip.pod_shape().size()));
    t["pod_chips"] = opt(chip.pod_chips);
    t["ici_links"] = opt(chip.ici_links);
    t["wrap_axis_multiple"] = opt(chip.wrap_axis_multiple);
    t["wraparound_rule"] = chip.wrap_axis_multiple ? json(wraparound_rule(chip)) : json();
    t["nvlink_domain_gpus"] = nullptr;
  } else if (chip.is_gpu()) {
    t["scale_up"] = chip.nvlink_bytes_per_s ? json("nvlink") : json();
    t["pod_shape"] = nullptr;
    t["pod_axes"] = nullptr;
    t["pod_chips"] = opt(chip.pod_chips);
    t["ici_links"] = nullptr;
    t["wrap_axis_multiple"] = nullptr;
    t["wraparound_rule"] = nullptr;
    t["nvlink_domain_gpus"] = opt(chip.node_gpus);
  } else {
    for (const char* k : {"scale_up", "pod_shape", "pod_axes", "pod_chips", "ici_links", "wrap_axis_multiple",
                          "wraparound_rule", "nvlink_domain_gpus"}) {
      t[k] = nullptr;
    }
  }
  t["beyond_pod"] = chip.beyond_pod.empty() ? json() : json(chip.beyond_pod);
  return t;
}

}  // namespace scalelab
