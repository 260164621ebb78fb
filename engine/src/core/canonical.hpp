// Numbers as they leave the engine: finite, rounded to 15 significant digits, whole numbers as
// integers. Every writer of a result (outputs, steps, sweeps) goes through these.
#pragma once
#include <string>
#include <string_view>

#include "core/json.hpp"

namespace scalelab {

// Every number leaves the engine finite and rounded to 15 significant digits; whole numbers
// print as integers. A non-finite value is an engine bug and is thrown as std::logic_error
// naming the calculator and `where` (an output's name, a step's label).
struct CanonicalNumber {
  double value;
  bool whole;  // written as an integer
};
CanonicalNumber canonical_number(double v, const std::string& calculator, std::string_view where);
// canonical_number's value appended as text, its 15 digits found once (the same bytes as
// writing canonical_number's value).
void append_canonical_number(double v, std::string& out, const std::string& calculator, std::string_view where);
// The same written at `w`, which has room for kMaxNumberChars bytes (json_text.hpp): the end.
char* put_canonical_number(double v, char* w, const std::string& calculator, std::string_view where);

// Rewrites every number in `j` as canonical_number leaves it (whole numbers become integers).
void canonicalise(json& j, const std::string& calculator, std::string_view where = "");
// Appends `j` as text, every number canonical: the bytes to_text(canonicalise(copy of j)) gives,
// without the copy.
void append_canonical(const json& j, std::string& out, const std::string& calculator,
                      std::string_view where = "");

}  // namespace scalelab
