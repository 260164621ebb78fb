// What a chip's network can form, checked in one place: the ICI torus of a TPU pod (its axes,
// which axis lengths wrap around, its links per chip) and what lies beyond a pod or an NVLink
// domain (DCN, InfiniBand). Calculators ask here before they price a collective.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "core/json.hpp"
#include "core/result.hpp"

namespace scalelab {

// Whether each axis of an ICI slice wraps around on this chip (empty when the catalog states
// no rule). Axes of one chip never wrap; the other physical axes are assumed whole cubes.
std::optional<std::vector<bool>> hardware_wraparound(const Chip& chip, const std::vector<double>& axes);
// The rule in words ("an axis wraps around only when it spans 16 chips"); empty when unknown.
std::string wraparound_rule(const Chip& chip);

// Refuses axes the chip's torus cannot form inside one pod: more axes than the pod has, or an
// axis longer than the pod's. `param` names the input that gave them.
void check_ici_slice(const Chip& chip, const std::vector<double>& axes, const std::string& param);

// Wraparound per axis as the caller gave it (a boolean, or one per axis), checked against the axes.
std::vector<bool> given_wraparound(const std::vector<double>& axes, const json& given);

// Wraparound per axis: the caller's `given` (a boolean or one per axis; a warning where the chip
// has no such ring), or else what the chip has (every axis wraps, with a warning, without a rule).
std::vector<bool> resolve_wraparound(const Chip& chip, const std::vector<double>& axes, const json& given,
                                     Result& r);

// Refuses more ICI links than the chip has (`param` names the input).
void check_ici_links(const Chip& chip, double links, const std::string& param, Result& r);

// The most chips `axes` axes of the chip's pod hold (the product of its longest axes); none
// without a pod shape.
std::optional<double> chips_on_axes(const Chip& chip, double axes);
// The fewest axes of the chip's pod that hold `group` chips (all of them where none do; 1
// without a pod shape).
double axes_to_hold(const Chip& chip, double group);
// Refuses a collective of `group` chips over `axes` torus axes that cannot hold it: `what` names
// the collective ("the FSDP AllGather"), `param` the input that gave the axes.
void check_group_on_axes(const Chip& chip, double group, double axes, const std::string& what,
                         const std::string& param);

// Refuses FSDP × TP whose `chips` do not fit on the axes_fsdp + axes_tp longest axes of the pod
// together (each group may use the part of an axis the other leaves, as the book's 1,024 × 8 on
// v5p does); `param` names the input that gave the axes.
void check_pair_on_axes(const Chip& chip, double chips, double axes_fsdp, double axes_tp, const std::string& param);
// Refuses more model-parallel mesh axes than the chip's torus has.
void check_torus_axes(const Chip& chip, double axes, const std::string& param);

// How chips spread over pods (TPU pods, or GPU NVLink domains for `nvlink_domain`).
struct PodSpan {
  double chips = 1, pod_chips = 0, pods = 1;
  bool beyond = false;  // more chips than one pod: the rest is reached over DCN / InfiniBand
};
PodSpan tpu_pod_span(const Chip& chip, double chips);
// "8,960 chips of TPU v5e are 35 pods of 256 joined by DCN: …" (`consequence` ends it).
std::string pod_boundary_warning(const Chip& chip, const PodSpan& span, const std::string& consequence);

// The chip's network facts for `chip` / `scalelab chips`: kind, fabric, pod shape, axes,
// wraparound rule, links, NVLink domain, what lies beyond.
json topology_facts(const Chip& chip);

}  // namespace scalelab
