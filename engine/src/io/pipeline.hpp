// The steps every JSON entry point shares (evaluate and sweep): refusing oversized or malformed
// text, writing errors, canonicalising numbers and checking outputs against their declarations.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include <exception>

#include "core/canonical.hpp"
#include "core/errors.hpp"
#include "core/json.hpp"
#include "core/result.hpp"
#include "schema/schema.hpp"
#include "scalelab/engine.hpp"

namespace scalelab {

// An error evaluation: {"error": {"status", "param", "message"}}.
// `field`: the chip's figure a refusal needs, written as the error's "field" when given.
Evaluation error_result(Status status, const std::string& param, const std::string& message,
                        const std::string& field = "");

// Runs `make` (it returns a result's JSON text) and says what went wrong the one way every front
// reports it: a refused input is bad_input naming its parameter; anything else thrown is an
// engine fault, internal, never blamed on the input.
template <class Make>
Evaluation guarded(Make&& make) {
  try {
    Evaluation ok;
    ok.json = make();
    return ok;
  } catch (const InputError& e) {
    return error_result(Status::bad_input, e.param, e.what(), e.field);
  } catch (const std::exception& e) {
    return error_result(Status::internal, "", std::string("internal error (an engine fault, not your input): ") + e.what());
  } catch (...) {
    return error_result(Status::internal, "", "internal error (an engine fault, not your input)");
  }
}
// The unknown_calculator error, listing the calculators there are.
Evaluation unknown_calculator(std::string_view name);

// Parses `text` (empty or blank: {}) into `out`. Refuses input over 64 KiB, nested deeper than
// 32 levels, malformed or holding a number beyond double range; the error names `param`
// ("" for the parameters themselves, "sweep" for a sweep's spec).
std::optional<Evaluation> parse_input(std::string_view text, json& out, const std::string& param = "");

// Appends the outputs as a JSON object in declaration order, each value canonical and null where
// none was set; checks them first (Outputs::check).
void append_outputs(const Outputs& outputs, std::string& out, const std::string& calculator);
// Appends the steps as a JSON list of {"label", "formula", "substituted", "value", "unit"} (written
// as each was recorded); a step whose value was not finite is an engine fault named by its label.
void append_steps(const StepList& steps, std::string& out, const std::string& calculator);
// Appends the warnings as a JSON list of their texts, each made here.
void append_warnings(const Warnings& warnings, std::string& out);

}  // namespace scalelab
