// The expected range beside a bound (issue 37). Published runs of a regime reach a band of shares
// of the engine's bound (data/bands.json, fitted by io/calibration.cpp); a calculator that bounds a
// time or a rate asks for its regime's band and writes, beside the bound, the range real systems
// reach: share × bound for a rate, bound / share for a time.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/catalog.hpp"
#include "core/result.hpp"

namespace scalelab {

// One regime's band, read once from data/bands.json.
struct Band {
  std::string regime, title;
  double low = 0, high = 0;
  std::size_t runs = 0;
  // the range of each numeric setting the runs took (batch, chips, context, users, …)
  std::vector<std::pair<std::string, std::pair<double, double>>> ranges;
  std::vector<std::string> chip_kinds;
  std::vector<std::pair<std::string, std::vector<std::string>>> applies_to;  // calculator, its outputs
  bool calibrates(std::string_view calculator, std::string_view output) const;
};

// The band of the regime whose runs calibrate `output` of `calculator` on a chip of `kind`; null
// when no regime does or its runs are too few to fit a band.
const Band* band_for(std::string_view calculator, std::string_view output, ChipKind kind);

// A bounded output and the names of its expected range, written beside each calculator's call:
// {"tokens_per_s", "expected_tokens_per_s_low", "expected_tokens_per_s_high", "tokens/s", "tokens per second"}.
struct ExpectedOutput {
  std::string_view output, low, high, unit, words;
};
// Writes the expected range of the bound `bound` of `o.output`, each end derived in a step
// (share × bound for a rate, bound / share for a time, unit "s"); both null without a band.
void out_expected(const Band* band, const ExpectedOutput& o, double bound, Result& r);

// The settings of the reader's setup checked against the band's runs (the keys of `ranges`).
using Setup = std::vector<std::pair<std::string_view, double>>;
// The band's own figures: expected_runs, expected_share_low, expected_share_high and
// expected_covered (false, with a warning naming the setting, when the setup lies outside what the
// runs took). All null without a band.
void out_band(const Band* band, const Setup& setup, Result& r);

}  // namespace scalelab
