// Human labels of parameters ("bytes per parameter" for bytes_per_param), for the course's
// Plain mode and the CLI's help. One table (labels.cpp): a name means the same thing in every
// calculator, except where a scope overrides it (compute_budget's D is tokens, a model's D
// its width).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "schema/schema.hpp"

namespace scalelab {

// The label of parameter `path` ("matmul.B") in `scope` (a calculator name, "chip" for chip
// fields, "model" for model fields); "" when the table has none.
std::string_view param_label(std::string_view scope, std::string_view path);

// The noun a count of parameter `path` takes in a sentence, one and many ({"device", "devices"}
// for local_inference's devices, whose label "GPUs the model is split over" is no noun):
// "took 1 device", "takes 3 devices". Empty where the label itself serves as the noun.
struct CountNoun {
  std::string_view one, many;
};
CountNoun param_noun(std::string_view scope, std::string_view path);

// Sets the label of every parameter in `params` (and of their fields), recursively.
void label_params(std::vector<Param>& params, std::string_view scope, const std::string& prefix = "");

}  // namespace scalelab
