// The schemas of a chip object and a model object (each field's type, unit, range, doc and
// label), made from the catalog's field rows: what validates a custom chip or model and its
// overrides, and what `scalelab list --json` lists as chip_fields and model_fields.
#pragma once
#include <vector>

#include "schema/schema.hpp"

namespace scalelab {

const std::vector<Param>& chip_fields();
const std::vector<Param>& model_fields();

}  // namespace scalelab
