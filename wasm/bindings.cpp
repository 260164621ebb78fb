// The engine for the browser and Node: the same entry points, through embind.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <vector>

#include "scalelab/engine.hpp"
#include "scalelab/sweep_columns.hpp"

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

// The columns of the last sweepColumns call, until the next one.
std::vector<double> last_columns;

// The sweep's header (sweep_columns.hpp): its numeric outputs are column numbers into sweepValues().
std::string sweep_columns_json(const std::string& name, const std::string& params, const std::string& spec) {
  scalelab::SweepColumns columns = scalelab::sweep_columns(name, params, spec);
  last_columns = std::move(columns.values);
  return std::move(columns.header.json);
}

// The last sweepColumns call's columns as a Float64Array over the module's memory: valid until
// the next call into the engine (read or copy it at once).
emscripten::val sweep_values() {
  return emscripten::val(emscripten::typed_memory_view(last_columns.size(), last_columns.data()));
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
  emscripten::function("sweepColumns", &sweep_columns_json);
  emscripten::function("sweepValues", &sweep_values);
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
