// The engine for the browser and Node: the same entry points, through embind.
#include <emscripten/bind.h>
#include <emscripten/em_js.h>
#include <emscripten/em_macros.h>
#include <emscripten/val.h>

#include <vector>

#include "scalelab/engine.hpp"
#include "scalelab/sweep_columns.hpp"

// A JavaScript string of the `size` bytes of UTF-8 at `bytes`, decoded by the browser's own
// TextDecoder in one call: embind's return of a std::string copies it into a buffer it allocates,
// then walks every byte in JavaScript twice looking for a NUL (8 % of a numbers-only serving
// evaluation in Node, 1.3 KB a result).
EM_JS(emscripten::EM_VAL, utf8_text, (const char* bytes, std::size_t size), {
  if (!Module.textDecoder) Module.textDecoder = new TextDecoder();
  return Emval.toHandle(Module.textDecoder.decode(HEAPU8.subarray(bytes, bytes + size)));
});

namespace {

emscripten::val text(const std::string& s) {
  return emscripten::val::take_ownership(utf8_text(s.data(), s.size()));
}

emscripten::val evaluate_json(const std::string& name, const std::string& input) {
  return text(scalelab::evaluate(name, input).json);
}

// The result without derivation steps ("steps": []): the labs' hot path.
emscripten::val evaluate_numbers_json(const std::string& name, const std::string& input) {
  return text(scalelab::evaluate(name, input, scalelab::EvalOptions{.steps = false}).json);
}

emscripten::val sweep_json(const std::string& name, const std::string& params, const std::string& spec) {
  return text(scalelab::sweep(name, params, spec).json);
}

// The columns of the last sweepColumns call, until the next one.
std::vector<double> last_columns;

// The sweep's header (sweep_columns.hpp): its numeric outputs are column numbers into sweepValues().
emscripten::val sweep_columns_json(const std::string& name, const std::string& params, const std::string& spec) {
  scalelab::SweepColumns columns = scalelab::sweep_columns(name, params, spec);
  last_columns = std::move(columns.values);
  return text(columns.header.json);
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
  emscripten::function("formatQuantity", &format_quantity);
  emscripten::function("outputUnit", &output_unit);
}
