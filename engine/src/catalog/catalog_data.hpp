// What the build generates from data/*.json (embed_catalogs.cmake → catalog_data.cpp).
#pragma once
#include <cstddef>
#include <string_view>

namespace scalelab {

extern const char* const kChipsJson;         // data/chips.json, as it is
extern const char* const kModelsJson;        // data/models.json
extern const char* const kFormatsJson;       // data/formats.json
extern const char* const kMeasurementsJson;  // data/measurements.json
extern const char* const kBandsJson;         // data/bands.json (scalelab calibrate)

// One row per format of data/formats.json, in its order: what the parameters' choices need,
// read from the JSON at build time so that no JSON is parsed for them at first use.
struct FormatRow {
  const char* id;
  const char* name;
  bool weights;  // "weights" is among its uses
  bool kv;       // "kv" is among its uses
};
extern const FormatRow kFormatRows[];
extern const std::size_t kFormatRowCount;

// One row per fitted band of data/bands.json, in its order: what the expected ranges beside the
// bounds need (models/expected.hpp), read from the JSON at build time.
struct BandRange {
  std::string_view setting;  // a numeric setting of the band's runs: "batch", "context", …
  double low, high;     // the least and the most the runs took
};
struct BandRow {
  const char* regime;
  const char* title;  // "decode on datacenter chips", to sit inside a sentence
  double low, high;   // the band: shares of the bound
  std::size_t runs;
  const char* chip_kinds;  // " datacenter-gpu tpu ": each kind between spaces
  const char* run_kinds;   // the kinds the runs ran on, likewise (covers.chip_kinds)
  const char* outputs;     // " decode.tokens_per_s decode.step_s ": calculator.output between spaces, each
                           // maybe limited to settings: " collective.t_s?fabric=nvlink|ici "
  const BandRange* ranges;
  std::size_t range_count;
  bool estimate;         // the engine's figure is an estimate runs lie on both sides of (memory), not a bound
  const double* shares;  // each run's share of the engine's figure, ascending
  std::size_t share_count;
};
extern const BandRow kBandRows[];
extern const std::size_t kBandRowCount;

}  // namespace scalelab
