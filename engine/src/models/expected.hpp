// The expected range beside a bound (issue 37). Published runs of a regime reach a band of shares
// of the engine's bound (data/bands.json, fitted by io/calibration.cpp); a calculator that bounds a
// time or a rate asks for its regime's band and writes, beside the bound, the range real systems
// reach: share × bound for a rate, bound / share for a time.
#pragma once
#include <cstddef>
#include <initializer_list>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/catalog.hpp"
#include "catalog/catalog_data.hpp"
#include "core/format.hpp"
#include "core/output_rows.hpp"
#include "core/result.hpp"

namespace scalelab {

// One regime's band: a row the build reads from data/bands.json (catalog/catalog_data.hpp).
using Band = BandRow;

// A calculator's discrete settings a regime may be limited to ({"fabric", "nvlink"}).
using Settings = std::initializer_list<std::pair<std::string_view, std::string_view>>;
// The band of the regime whose runs calibrate `output` of `calculator` on a chip of `kind` under
// `settings` (a regime limited to some values of a setting — its applies_to "when" — applies only
// where the calculator gives one of them; "kind" limits it to some kinds of chip); null when no
// regime does or its runs are too few.
const Band* band_for(std::string_view calculator, std::string_view output, ChipKind kind, Settings settings = {});

// A bounded output's expected range: where its two ends stand among the calculator's outputs
// (expected_<output>_low and _high), their unit, and the bound in words for the steps.
struct ExpectedOutput {
  std::size_t low, high;
  std::string_view unit, words;
  bool time;  // a time (its range is bound / share), else a rate or a size (share × bound)
};
// The expected range of output `output` of `table`: expected_tokens_per_s_low and _high for
// "tokens_per_s", in the unit their rows declare.
template <class Row, std::size_t N>
consteval ExpectedOutput expected_output(const Row (&table)[N], std::string_view output, std::string_view words) {
  const std::size_t low = named_output(table, "expected_", output, "_low");
  const std::size_t high = named_output(table, "expected_", output, "_high");
  if (table[low].unit != table[high].unit) throw "the two ends of a range differ in unit";
  return {low, high, table[low].unit, words, is_time_unit(table[low].unit)};
}
// Writes the expected range of the bound `bound`, each end derived in a step (share × bound for a
// rate, bound / share for a time, unit "s"); both null without a band.
void out_expected(const Band* band, const ExpectedOutput& o, double bound, Result& r);

// Whether `value` of `setting` lies below the least any of the band's runs took (false where the
// runs' ranges do not name the setting): a collective smaller than every measured one, on a fabric
// whose hops the engine prices no latency for, is bounded without what sets its time.
bool below_runs(const Band& band, std::string_view setting, double value);

// The settings of the reader's setup checked against the band's runs (its ranges' settings), as a
// braced list at the call ({{"chips", chips}, {"context", context}}): nothing allocated per call.
using Setup = std::initializer_list<std::pair<std::string_view, double>>;

// Where a band's own figures stand among a calculator's outputs: `prefix` + runs, share_low,
// share_high, covered and outside.
struct BandOutputs {
  std::size_t runs, share_low, share_high, covered, outside;
};
template <class Row, std::size_t N>
consteval BandOutputs band_outputs(const Row (&table)[N], std::string_view prefix = "expected_") {
  return {named_output(table, prefix, "runs"), named_output(table, prefix, "share_low"),
          named_output(table, prefix, "share_high"), named_output(table, prefix, "covered"),
          named_output(table, prefix, "outside")};
}
// The band's own figures: expected_runs, expected_share_low, expected_share_high, expected_covered
// and expected_outside: null when the setup lies within what the runs took, else a sentence naming
// in words the kind of chip, when no run ran on a chip of `kind`, and each setting that lies outside
// (the labels of `calculator`'s parameters) with the range the runs took. All null without a band.
// `at` places them (band_outputs; its prefix names a second band of one calculator,
// "expected_ttft_": expected_ttft_runs, …).
void out_band(const Band* band, std::string_view calculator, ChipKind kind, Setup setup, Result& r,
              const BandOutputs& at);

// Where the reader's own measurement stands among the band's published runs, by its share of the
// engine's figure (measured / figure for a rate or a size, figure / measured for a time):
// measured_runs_below, how many of the runs reached a smaller share, and measured_among, a sentence
// ("Of the 21 published runs of …, 15 reached a smaller share of the bound than yours, 6 a larger
// one (theirs: 0.29–0.61; yours: 0.45)."). Both null without a band.
void out_measured_among(const Band* band, double share, Result& r, std::string_view prefix = "measured_");
// A time the reader measured against its bound: its share (bound / measured) and its place among
// the band's runs, under `prefix` ("measured_ttft_": measured_ttft_share_of_bound,
// measured_ttft_runs_below, measured_ttft_among); all three null without a measurement.
void out_measured_time(const Band* band, std::optional<double> measured_s, double bound_s, std::string_view what,
                       std::string_view prefix, Result& r);

}  // namespace scalelab
