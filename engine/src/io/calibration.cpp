#include "io/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "catalog/catalog.hpp"
#include "core/format.hpp"
#include "core/json_text.hpp"
#include "scalelab/engine.hpp"

namespace scalelab {
namespace {

// The normal quantile at p (Acklam's rational approximation, relative error under 1.2e-9).
double normal_quantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double tail = 0.02425;
  if (p < tail || p > 1 - tail) {
    double q = std::sqrt(-2 * std::log(p < tail ? p : 1 - p));
    double x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    return p < tail ? x : -x;
  }
  double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double mean_of(const std::vector<double>& xs) { return std::accumulate(xs.begin(), xs.end(), 0.0) / double(xs.size()); }

// What a run's setup covers: its chip, its model and its numeric settings. "devices" counts every
// device of a local run: the chip's `devices` and its other_devices (local_inference's Setup passes
// the same total).
constexpr const char* kCoveredSettings[] = {"batch", "chips", "context", "users", "tokens", "prompt_tokens", "sequence_length",
                                            "decode_tokens", "T", "flops", "bytes", "devices"};

// The value of covered setting `key` in a run's inputs (defaults filled in), if it has one.
std::optional<double> covered_value(const json& inputs, const char* key) {
  if (!inputs.contains(key) || !inputs[key].is_number()) return std::nullopt;
  double v = inputs[key];
  if (std::string_view(key) == "devices" && inputs.contains("other_devices") && inputs["other_devices"].is_array()) {
    v += double(inputs["other_devices"].size());
  }
  return v;
}

std::string chip_name(const json& chip) {
  return chip.is_string() ? chip.get<std::string>() : chip.value("name", std::string("a custom chip"));
}
std::string model_name(const json& inputs) {
  if (inputs.contains("model")) {
    const json& m = inputs["model"];
    return m.is_string() ? m.get<std::string>() : m.value("name", std::string("a custom model"));
  }
  return "";
}

void add_unique(json& list, const std::string& item) {
  if (item.empty()) return;
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

// The kinds of chip the runs ran on ("datacenter-gpu", "tpu"), in the catalog's order of kinds.
json chip_kinds_of(const std::vector<const RunShare*>& runs) {
  std::vector<bool> seen(chip_kind_names().size());
  for (const RunShare* r : runs) {
    seen[std::size_t(resolve_chip(r->inputs.value("chip", json()), json::object()).kind)] = true;
  }
  json kinds = json::array();
  for (std::size_t k = 0; k < seen.size(); ++k) {
    if (seen[k]) kinds.push_back(chip_kind_names()[k]);
  }
  return kinds;
}

json covers_of(const std::vector<const RunShare*>& runs) {
  json covers = {{"chip_ids", json::array()}, {"chip_kinds", chip_kinds_of(runs)}, {"model_ids", json::array()}};
  for (const RunShare* r : runs) {
    add_unique(covers["chip_ids"], chip_name(r->inputs.value("chip", json())));
    add_unique(covers["model_ids"], model_name(r->inputs));
    for (const char* key : kCoveredSettings) {
      const std::optional<double> value = covered_value(r->inputs, key);
      if (!value) continue;
      const double v = *value;
      if (!covers.contains(key)) covers[key] = {v, v};
      covers[key][0] = std::min(covers[key][0].get<double>(), v);
      covers[key][1] = std::max(covers[key][1].get<double>(), v);
    }
    if (r->inputs.contains("params") && r->inputs["params"].is_number()) {
      double v = r->inputs["params"];
      if (!covers.contains("params")) covers["params"] = {v, v};
      covers["params"][0] = std::min(covers["params"][0].get<double>(), v);
      covers["params"][1] = std::max(covers["params"][1].get<double>(), v);
    }
  }
  return covers;
}

}  // namespace

double t_quantile(double p, double df) {
  const double z = normal_quantile(p), z2 = z * z;
  const double g1 = (z2 + 1) * z / 4;
  const double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
  const double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
  const double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
  return z + g1 / df + g2 / (df * df) + g3 / (df * df * df) + g4 / (df * df * df * df);
}

BandFit fit_band(const std::vector<double>& shares, BandOf of) {
  if (shares.size() < 3) throw std::invalid_argument("a band needs at least three runs");
  std::vector<double> logs, sorted = shares;
  for (double s : shares) logs.push_back(std::log(s));
  std::sort(sorted.begin(), sorted.end());
  const double n = double(shares.size()), m = mean_of(logs);
  double ss = 0;
  for (double l : logs) ss += (l - m) * (l - m);
  BandFit f;
  f.runs = shares.size();
  f.log_sd = std::sqrt(ss / (n - 1));
  const double half = t_quantile((1 + kBandProbability) / 2, n - 1) * f.log_sd * std::sqrt(1 + 1 / n);
  f.low = std::exp(m - half);
  f.high = std::exp(m + half);
  f.capped = of == BandOf::bound && f.high > 1;
  if (f.capped) f.high = 1;
  f.geometric_mean = std::exp(m);
  std::size_t k = sorted.size();
  f.median = k % 2 ? sorted[k / 2] : (sorted[k / 2 - 1] + sorted[k / 2]) / 2;
  f.min = sorted.front();
  f.max = sorted.back();
  return f;
}

std::vector<RunShare> evaluate_runs(const json& catalog) {
  std::vector<RunShare> out;
  for (const json& run : catalog.at("runs")) {
    RunShare r;
    r.id = run.at("id").get<std::string>();
    r.regime = run.at("regime").get<std::string>();
    const std::string calculator = run.at("calculator"), output = run.at("measured").at("output");
    Evaluation e = evaluate(calculator, run.at("inputs").dump(), EvalOptions{.steps = false});
    if (e.status != Status::ok) {
      throw std::runtime_error("published run " + r.id + " does not evaluate: " + e.param + ": " + e.message);
    }
    json result = json::parse(e.json);
    const json& bound = result["outputs"][output];
    if (!bound.is_number() || bound.get<double>() <= 0) {
      throw std::runtime_error("published run " + r.id + ": " + calculator + " gives no positive number for " + output);
    }
    r.bound = bound;
    r.measured = run.at("measured").at("value");
    r.share = is_time_unit(output_unit(calculator, output)) ? r.bound / r.measured : r.measured / r.bound;
    r.inputs = std::move(result["inputs"]);
    out.push_back(std::move(r));
  }
  return out;
}

json fit_bands(const json& catalog) {
  std::vector<RunShare> runs = evaluate_runs(catalog);
  json bands = json::array();
  for (const json& regime : catalog.at("regimes")) {
    const std::string id = regime.at("id");
    const BandOf of = regime.value("estimate", false) ? BandOf::estimate : BandOf::bound;
    std::vector<const RunShare*> mine;
    for (const RunShare& r : runs) {
      if (r.regime == id) mine.push_back(&r);
    }
    std::sort(mine.begin(), mine.end(), [](const RunShare* a, const RunShare* b) { return a->share < b->share; });
    std::vector<double> shares;
    json listed = json::array();
    for (const RunShare* r : mine) {
      shares.push_back(r->share);
      listed.push_back({{"id", r->id}, {"share", r->share}});
    }
    json band = {{"regime", id}, {"title", regime.at("title")}, {"chip_kinds", regime.at("chip_kinds")},
                 {"applies_to", regime.at("applies_to")}, {"estimate", of == BandOf::estimate}, {"runs", mine.size()}};
    if (shares.size() >= 3) {
      BandFit f = fit_band(shares, of);
      band["low"] = f.low;
      band["high"] = f.high;
      band["capped"] = f.capped;
      band["median"] = f.median;
      band["geometric_mean"] = f.geometric_mean;
      band["log_sd"] = f.log_sd;
      band["min"] = f.min;
      band["max"] = f.max;
      if (shares.size() >= 4) {
        std::size_t inside = 0;
        for (std::size_t i = 0; i < shares.size(); ++i) {
          std::vector<double> rest = shares;
          rest.erase(rest.begin() + std::ptrdiff_t(i));
          BandFit without = fit_band(rest, of);
          inside += shares[i] >= without.low && shares[i] <= without.high;
        }
        band["leave_one_out_inside"] = inside;
      }
    }
    band["shares"] = listed;
    band["covers"] = covers_of(mine);
    bands.push_back(band);
  }
  return {{"about", "Generated: `scalelab calibrate > data/bands.json` fits these from data/measurements.json (engine/src/io/calibration.hpp "
                    "says how); tests/engine/test_bands.cpp refits them and fails when they are stale. Do not edit by hand."},
          {"probability", kBandProbability},
          {"method", "Per regime, each published run's share of the engine's bound (measured / bound for a rate, bound / measured "
                     "for a time); the band is the log-normal prediction interval exp(m ± t·s·√(1 + 1/n)) of those n shares "
                     "(m, s: mean and standard deviation of their logs; t: Student's t at 0.95 with n − 1 degrees of freedom), "
                     "its high end held at the bound, except in a regime whose figure is an estimate (estimate: true; runs lie on "
                     "either side of it, so its band is fitted on both sides of 1). leave_one_out_inside counts the runs that lie in the band fitted without them."},
          {"bands", bands}};
}

std::string bands_json() { return to_text(band_catalog()); }
std::string calibrate_json() { return fit_bands(measurement_catalog()).dump(1, ' ', false, json::error_handler_t::strict); }

}  // namespace scalelab
