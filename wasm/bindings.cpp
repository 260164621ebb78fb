// The engine for the browser and Node: the same entry points, through embind.
#include <emscripten/bind.h>

#include "scalelab/engine.hpp"

namespace {

std::string evaluate_json(const std::string& name, const std::string& input) {
  return scalelab::evaluate(name, input).json;
}

// The result without derivation steps ("steps": []): the labs' hot path.
std::string evaluate_numbers_json(const std::string& name, const std::string& input) {
  return scalelab::evaluate(name, input, scalelab::EvalOptions{.steps = false}).json;
}

std::string sweep_json(const std::string& name, const std::string& params, const std::string& spec) {
  return scalelab::sweep(name, params, spec).json;
}

std::string format_quantity(double value, const std::string& unit) {
  return scalelab::format_quantity(value, unit);
}

std::string calculator_schema(const std::string& name) { return scalelab::calculator_json(name); }
std::string object_fields(const std::string& kind) { return scalelab::object_fields_json(kind); }

std::string output_unit(const std::string& calculator, const std::string& name) {
  return scalelab::output_unit(calculator, name);
}

}  // namespace

EMSCRIPTEN_BINDINGS(scalelab) {
  emscripten::function("evaluate", &evaluate_json);
  emscripten::function("evaluateNumbers", &evaluate_numbers_json);
  emscripten::function("sweep", &sweep_json);
  emscripten::function("calculators", &scalelab::calculators_json);
  emscripten::function("calculator", &calculator_schema);
  emscripten::function("objectFields", &object_fields);
  emscripten::function("chips", &scalelab::chips_json);
  emscripten::function("models", &scalelab::models_json);
  emscripten::function("formats", &scalelab::formats_json);
  emscripten::function("measurements", &scalelab::measurements_json);
  emscripten::function("formatQuantity", &format_quantity);
  emscripten::function("outputUnit", &output_unit);
}
