// The result as text: the bytes of json::dump(-1, ' ', false, error_handler_t::replace),
// written without nlohmann's per-byte UTF-8 check on the plain ASCII strings that make up nearly
// all of a result (keys, ids, verdicts). Numbers are written in dump's layout, with the shortest
// digits where dump's are longer (append_double).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "core/format.hpp"
#include "core/json.hpp"

namespace scalelab {

std::string to_text(const json& value);

// The same, appended to `out`, for results written piece by piece.
void append_text(const json& value, std::string& out);
// One string (a key or a value) with its quotes, escaped as dump escapes it.
void append_string(std::string_view s, std::string& out);
// The same without the quotes: a piece of a JSON string. Pieces written one after another read
// as their concatenation written whole, as long as no piece ends inside a UTF-8 sequence.
void append_escaped(std::string_view s, std::string& out);
// Escapes, in place, what was appended to `out` from `from` on, as append_escaped would have
// written it: text made straight into the result (a warning) without a string of its own.
void escape_tail(std::string& out, std::size_t from);

// A string literal as it reads inside a JSON string, escaped at compile time: the TeX \times,
// given in C++ as escaped<"\\times">, becomes the JSON text \\times (its backslash doubled). The
// TeX the derivation steps render from such literals so needs no escaping at run time. A literal
// holding a quote or a control character does not compile (only backslashes are expected).
template <std::size_t N>
struct JsonLiteral {
  consteval JsonLiteral(const char (&s)[N]) {  // NOLINT(google-explicit-constructor)
    for (std::size_t i = 0; i + 1 < N; ++i) {
      const char c = s[i];
      if (c == '"' || static_cast<unsigned char>(c) < 0x20) throw "JsonLiteral: only backslashes are escaped";
      if (c == '\\') text[size++] = '\\';
      text[size++] = c;
    }
  }
  char text[2 * N] = {};
  std::size_t size = 0;
};
template <JsonLiteral L>
inline constexpr std::string_view escaped{L.text, L.size};

// How a literal of the program reads inside a JSON string, told at compile time (StepText): as
// it is (printable ASCII without a quote or a backslash: most symbols, labels and units), with
// each backslash doubled (printable ASCII without a quote: TeX such as \text{KV}), or only after
// escaping at run time (anything else: UTF-8, a quote, a control character).
enum class LiteralForm : unsigned char { as_is, backslashes_doubled, escaped_at_run_time };
constexpr LiteralForm literal_form(std::string_view s) {
  LiteralForm form = LiteralForm::as_is;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7e || c == '"') return LiteralForm::escaped_at_run_time;
    if (c == '\\') form = LiteralForm::backslashes_doubled;
  }
  return form;
}
// `s` appended to `out` as it reads inside a JSON string, by its form: what append_escaped writes.
// Text as it is (most of it) is appended here; the other forms out of line.
void append_literal_escaping(std::string_view s, LiteralForm form, std::string& out);
inline void append_literal(std::string_view s, LiteralForm form, std::string& out) {
  if (form == LiteralForm::as_is) out += s;
  else append_literal_escaping(s, form, out);
}

// A number as dump writes an integer or a double, in dump's layout (1.5, 0.0001, 2.5e+20). A
// double that a decimal of 15 significant digits reads back as (every canonical number) is
// written with those digits, the shortest that read back as it; any other with nlohmann's grisu2
// digits, as dump writes it (shortest but for about one number in a hundred, which gets 16 or 17).
void append_integer(std::int64_t n, std::string& out);
void append_double(double x, std::string& out);
// The same for a number's 15 digits (fifteen_digits): the text append_double(d.value) writes.
void append_decimal(const Decimal& d, std::string& out);
// The same three written at `w`, which has room for kMaxNumberChars bytes: the end of what was
// written. For a result written in place, many numbers after one resize. The longest is 24 bytes
// ("-1.7976931348623157e+308", dump's own digits; 15 digits take at most 23).
inline constexpr std::size_t kMaxNumberChars = 32;
char* put_integer(std::int64_t n, char* w);
char* put_double(double x, char* w);
char* put_decimal(const Decimal& d, char* w);
// Whether `s` is written as it is inside a JSON string (printable ASCII other than '"' and '\\').
bool is_plain_text(std::string_view s);
// `bytes` of room to write a run of text in at a pointer, kept between calls (per thread): the run
// is then appended as written (resizing the result for it first zeroed every byte of the room,
// most of it unused). Valid until the next call.
char* write_room(std::size_t bytes);
// The most bytes put_plain_scalar writes for `v`: a number, true, false, null or a string
// written as it is (is_plain_text); 0 for anything else (an object, a list, a string to escape).
std::size_t plain_scalar_bound(const json& v);
// `v` written at `w` (room for plain_scalar_bound(v) bytes, not 0) as append_text writes it: the end.
char* put_plain_scalar(const json& v, char* w);

// An object or an array written member by member, as dump writes them: `value(member, key)`
// writes each value, `key` being null for an array's items. False (and nothing written) for
// anything else.
template <class WriteValue>
bool append_container(const json& j, std::string& out, WriteValue&& value) {
  // The members walked as the vectors they are (json's iterators test the type at every step).
  if (j.is_object()) {
    out += '{';
    bool first = true;
    for (const auto& [key, member] : j.get_ref<const json::object_t&>()) {
      if (!first) out += ',';
      first = false;
      append_string(key, out);
      out += ':';
      value(member, &key);
    }
    out += '}';
    return true;
  }
  if (!j.is_array()) return false;
  out += '[';
  bool first = true;
  for (const json& item : j.get_ref<const json::array_t&>()) {
    if (!first) out += ',';
    first = false;
    value(item, nullptr);
  }
  out += ']';
  return true;
}

}  // namespace scalelab
