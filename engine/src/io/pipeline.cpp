#include "io/pipeline.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/format.hpp"
#include "core/json_text.hpp"
#include "io/plain_json.hpp"
#include "calculators/registry.hpp"
#include "scalelab/limits.hpp"

namespace scalelab {
namespace {

// Deeply nested input would only waste the parser's time: refuse it before parsing.
bool too_deep(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') {
      if (++depth > kMaxInputDepth) return true;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return false;
}

}  // namespace

Evaluation error_result(Status status, const std::string& param, const std::string& message,
                        const std::string& field) {
  Evaluation e;
  e.status = status;
  e.param = param;
  e.message = message;
  json body = {{"error", {{"status", status_name(status)},
                          {"param", param.empty() ? json(nullptr) : json(param)},
                          {"message", message}}}};
  if (!field.empty()) body["error"]["field"] = field;
  // The message may quote input that is not valid UTF-8: replace such bytes, never throw.
  e.json = body.dump(-1, ' ', false, json::error_handler_t::replace);
  return e;
}

Evaluation unknown_calculator(std::string_view name) {
  std::string list;
  for (std::string_view c : calculator_names()) list += (list.empty() ? "" : ", ") + std::string(c);
  return error_result(Status::unknown_calculator, "",
                      "unknown calculator \"" + std::string(name.substr(0, 40)) + "\"; available: " + list);
}

std::optional<Evaluation> parse_input(std::string_view text, json& out, const std::string& param) {
  if (text.size() > kMaxInputBytes) {
    return error_result(Status::bad_input, param, "the input is larger than 64 KiB");
  }
  // A plain request (nearly every one) is read, and its depth checked, in one pass; anything
  // else is scanned for its depth before nlohmann's parser sees it.
  try {
    if (read_plain_json(text, out)) return std::nullopt;
    if (too_deep(text)) {
      return error_result(Status::bad_input, param, "the input nests deeper than 32 levels");
    }
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
      out = json::object();
    } else {
      out = json::parse(text);
    }
    return std::nullopt;
  } catch (const json::parse_error& e) {
    std::string message = e.what();
    auto colon = message.find("syntax error");
    return error_result(Status::bad_input, param,
                        "malformed JSON: " + (colon == std::string::npos ? message : message.substr(colon)));
  } catch (const json::out_of_range&) {
    return error_result(Status::bad_input, param,
                        "a number in the input is too large to represent "
                               "(beyond ±1.8e308); every parameter has a far smaller maximum");
  } catch (const std::exception& e) {
    return error_result(Status::bad_input, param, std::string("invalid JSON input: ") + e.what());
  }
}

namespace {

// Each declared output's key as written, `"name":` (with the comma before it after the first),
// made once per calculator and thread: the same bytes append_string writes, without escaping the
// same forty names at every evaluation. Kept with the address of each name, so that another
// declaration at the same address (a test's) is never given a stale key.
struct WrittenKeys {
  std::vector<std::string_view> names;
  std::vector<std::string> keys;
};

const std::vector<std::string>& written_keys(const std::vector<Output>& declared) {
  // A handful of calculators a thread: searched in a list (a map's code costs the WebAssembly
  // build 2 KB gzip).
  thread_local std::vector<std::pair<const std::vector<Output>*, WrittenKeys>> cache;
  auto at = std::find_if(cache.begin(), cache.end(), [&](const auto& c) { return c.first == &declared; });
  WrittenKeys& k = at != cache.end() ? at->second : cache.emplace_back(&declared, WrittenKeys{}).second;
  bool same = k.names.size() == declared.size();
  for (std::size_t i = 0; same && i < declared.size(); ++i) same = k.names[i].data() == declared[i].name.data() && k.names[i].size() == declared[i].name.size();
  if (!same) {
    k.names.clear();
    k.keys.clear();
    for (std::size_t i = 0; i < declared.size(); ++i) {
      std::string key = i > 0 ? "," : "";
      append_string(declared[i].name, key);
      key += ':';
      k.names.push_back(declared[i].name);
      k.keys.push_back(std::move(key));
    }
  }
  return k.keys;
}

// Whether output `i` is written in place by append_outputs (a number, true or false, null, or a
// plain word), and the most bytes it takes after its key; 0 for one appended between runs.
std::size_t in_place_bound(const Outputs& outputs, std::size_t i) {
  switch (outputs.kind(i)) {
    case Outputs::Kind::word: return is_plain_text(outputs.word(i)) ? outputs.word(i).size() + 2 : 0;
    case Outputs::Kind::other: return 0;
    default: return kMaxNumberChars;
  }
}

char* put_bytes(std::string_view bytes, char* w) {
  std::memcpy(w, bytes.data(), bytes.size());
  return w + bytes.size();
}

// Output `i`'s key and value written at `w` (in_place_bound's room after the key): the end.
char* put_output(const Outputs& outputs, std::size_t i, const std::string& key, char* w, const std::string& calculator) {
  w = put_bytes(key, w);
  switch (outputs.kind(i)) {
    case Outputs::Kind::number: return put_canonical_number(outputs.number(i), w, calculator, outputs.declared()[i].name);
    case Outputs::Kind::word:
      *w++ = '"';
      w = put_bytes(outputs.word(i), w);
      *w++ = '"';
      return w;
    case Outputs::Kind::flag: return put_bytes(outputs.flag(i) ? "true" : "false", w);
    default: return put_bytes("null", w);
  }
}

}  // namespace

// The outputs written in runs: the keys and values of a run of numbers, verdicts and nulls
// copied or written at a pointer into one room, then appended at once (an append per key and per
// value was a twelfth of a numbers-only evaluation in WebAssembly, where each is a call); a value
// of kind other, or a word that needs escaping, appended between runs.
void append_outputs(const Outputs& outputs, std::string& out, const std::string& calculator) {
  outputs.check(calculator);
  const std::vector<std::string>& keys = written_keys(outputs.declared());
  const std::size_t n = outputs.size();
  out += '{';
  for (std::size_t i = 0; i < n;) {
    std::size_t bound = 0, end = i;
    for (std::size_t b; end < n && (b = in_place_bound(outputs, end)) > 0; ++end) bound += keys[end].size() + b;
    if (end > i) {
      char* const from = write_room(bound);
      char* w = from;
      for (; i < end; ++i) w = put_output(outputs, i, keys[i], w, calculator);
      out.append(from, static_cast<std::size_t>(w - from));
    }
    if (i < n) {  // kind other, or a word to escape
      out += keys[i];
      if (outputs.kind(i) == Outputs::Kind::word) append_string(outputs.word(i), out);
      else append_canonical(outputs.other(i), out, calculator, outputs.declared()[i].name);
      ++i;
    }
  }
  out += '}';
}

void append_steps(const StepList& steps, std::string& out, const std::string& calculator) {
  if (const std::string* label = steps.fault()) canonical_number(NAN, calculator, *label);  // throws, naming the step
  out += '[';
  out += steps.text();
  out += ']';
}

void append_warnings(const Warnings& warnings, std::string& out) {
  out += '[';
  for (std::size_t i = 0; i < warnings.size(); ++i) {
    if (i > 0) out += ',';
    out += '"';
    const std::size_t from = out.size();
    warnings[i].append_text(out);  // made in place, then escaped where it needs it
    escape_tail(out, from);
    out += '"';
  }
  out += ']';
}

}  // namespace scalelab
