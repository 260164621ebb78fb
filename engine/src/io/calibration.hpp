// The expected range beside a bound. The published runs of data/measurements.json are evaluated
// with the inputs that reproduce them; each reaches a share of the engine's bound (measured / bound
// for a rate, bound / measured for a time). Per regime those shares are fitted into a band, the
// range a new run of the regime falls in with probability kBandProbability; the bands are the
// catalog data/bands.json (scalelab calibrate writes it; tests/engine/test_bands.cpp refits it).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/json.hpp"

namespace scalelab {

inline constexpr double kBandProbability = 0.9;

// Student's t quantile at probability p (0.5 < p < 1) for df ≥ 1 degrees of freedom, by Hill's
// expansion of the normal quantile in 1/df (within 0.3 % of the exact value at df 2, 0.01 % from
// df 4 on). Only p = 0.95 (a two-sided 90 % interval) is needed; other p use the same expansion.
double t_quantile(double p, double df);

struct BandFit {
  std::size_t runs = 0;
  double low = 0, high = 0;  // the band: a new run's share lies in it with probability kBandProbability
  bool capped = false;       // the fit's high end passed the bound, which holds it at 1
  double median = 0, geometric_mean = 0, log_sd = 0, min = 0, max = 0;
};
// What the engine's figure is to a regime's runs: a bound no run beats (its band is held at 1), or
// an estimate runs lie on either side of (a regime marked "estimate": its band is fitted on both
// sides of 1, as training's peak memory per GPU is).
enum class BandOf { bound, estimate };
// The band of `shares` (each > 0): a log-normal prediction interval, exp(m ± t·s·√(1 + 1/n)) with m
// and s the mean and standard deviation of the logs of n shares and t the t quantile at
// (1 + kBandProbability) / 2 with n − 1 degrees of freedom; for a bound its high end is held at 1.
// At least three shares (std::invalid_argument otherwise).
BandFit fit_band(const std::vector<double>& shares, BandOf of = BandOf::bound);

// One published run evaluated.
struct RunShare {
  std::string id, regime;
  double bound = 0, measured = 0, share = 0;
  json inputs;  // as the engine took them, defaults filled in (the result's "inputs")
};
// Every run of `catalog` (data/measurements.json's shape), in its order. A run that does not
// evaluate, or whose compared output is not a number, is a fault of the catalog: std::runtime_error
// naming the run.
std::vector<RunShare> evaluate_runs(const json& catalog);

// The bands catalog of `catalog`: per regime (in the catalog's order) its fit, its runs' shares
// sorted, the setups they cover and the leave-one-out count (how many runs lie in the band
// fitted without them). The text of data/bands.json.
json fit_bands(const json& catalog);

}  // namespace scalelab
