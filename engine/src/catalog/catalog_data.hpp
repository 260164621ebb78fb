// What the build generates from data/*.json (embed_catalogs.cmake → catalog_data.cpp).
#pragma once
#include <cstddef>

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

}  // namespace scalelab
