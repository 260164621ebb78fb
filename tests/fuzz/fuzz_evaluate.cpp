// libFuzzer target: the input is "<calculator name>\n<JSON text>". evaluate() must never
// crash, throw, report an engine fault (status internal), or return anything but one JSON
// object: a result or an error. The numbers-only evaluation must give the same outputs and
// warnings (or the same error), and sweep_request (the same text as {"params", "sweep"}) the
// same guarantees: JSON, never an engine fault. A text that read_plain_json reads, json::parse
// reads as the same value.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "io/plain_json.hpp"
#include "scalelab/engine.hpp"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_evaluate: %s\n%s\n", what, detail.substr(0, 2000).c_str());
  std::abort();
}

void check_numbers(const nlohmann::json& j, std::string_view calculator, const std::string& output_name) {
  if (j.is_number()) {
    double v = j.get<double>();
    std::string text = scalelab::format_quantity(v, scalelab::output_unit(calculator, output_name));
    if (text.empty()) fail("format_quantity returned nothing", output_name);
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) check_numbers(it.value(), calculator, it.key());
  } else if (j.is_array()) {
    for (const auto& item : j) check_numbers(item, calculator, output_name);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto newline = text.find('\n');
  std::string_view name = newline == std::string_view::npos ? std::string_view("roofline") : text.substr(0, newline);
  std::string_view input = newline == std::string_view::npos ? text : text.substr(newline + 1);

  scalelab::json plain;
  if (scalelab::read_plain_json(input, plain)) {
    scalelab::json parsed;
    try {
      parsed = scalelab::json::parse(input);
    } catch (const std::exception& ex) {
      fail("read_plain_json read a text json::parse refuses", std::string(input));
    }
    if (plain != parsed || plain.dump() != parsed.dump()) fail("read_plain_json and json::parse differ", std::string(input));
  }

  scalelab::Evaluation e = scalelab::evaluate(name, input);
  nlohmann::json out;
  try {
    out = nlohmann::json::parse(e.json);
  } catch (const std::exception& ex) {
    fail("evaluate returned text that is not JSON", e.json);
  }
  if (!out.is_object()) fail("evaluate returned JSON that is not an object", e.json);
  if (e.status == scalelab::Status::ok) {
    if (!out.contains("outputs") || !out.contains("steps") || !out.contains("warnings")) {
      fail("a result lacks outputs/steps/warnings", e.json);
    }
    if (e.json.find("NaN") != std::string::npos || e.json.find("Infinity") != std::string::npos) {
      fail("a result holds a non-finite number", e.json);
    }
    check_numbers(out["outputs"], name, "");
  } else if (e.status == scalelab::Status::internal) {
    fail("an engine fault (status internal)", std::string(input) + "\n" + e.json);
  } else {
    if (!out.contains("error") || !out["error"].contains("message") || !out["error"]["message"].is_string()) {
      fail("an error lacks error.message", e.json);
    }
    if (e.message.empty()) fail("an error with an empty message", e.json);
  }
  // Determinism: the same input gives the same bytes.
  if (scalelab::evaluate(name, input).json != e.json) fail("two calls disagree", e.json);

  scalelab::Evaluation numbers = scalelab::evaluate(name, input, scalelab::EvalOptions{.steps = false});
  if (numbers.status != e.status) fail("numbers-only and full evaluation differ in status", std::string(input));
  if (e.status == scalelab::Status::ok) {
    nlohmann::json a = out, b = nlohmann::json::parse(numbers.json);
    a.erase("steps");
    b.erase("steps");
    if (a != b) fail("numbers-only and full evaluation differ", std::string(input) + "\n" + numbers.json);
  } else if (numbers.json != e.json) {
    fail("numbers-only and full evaluation refuse differently", std::string(input));
  }

  scalelab::Evaluation swept = scalelab::sweep_request(name, input);
  if (swept.status == scalelab::Status::internal) fail("an engine fault in a sweep", std::string(input) + "\n" + swept.json);
  try {
    if (!nlohmann::json::parse(swept.json).is_object()) fail("sweep returned JSON that is not an object", swept.json);
  } catch (const nlohmann::json::exception&) {
    fail("sweep returned text that is not JSON", swept.json);
  }
  return 0;
}
