#include "core/canonical.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>

#include "core/format.hpp"
#include "core/json_text.hpp"

namespace scalelab {
namespace {

bool written_whole(double v) { return std::floor(v) == v && std::fabs(v) < 1e15; }

}  // namespace

CanonicalNumber canonical_number(double v, const std::string& calculator, std::string_view where) {
  if (!std::isfinite(v)) {
    throw std::logic_error("non-finite result in " + calculator + (where.empty() ? "" : " (" + std::string(where) + ")"));
  }
  if (!written_whole(v)) v = canonical(v);
  return {v, written_whole(v)};
}

// From its 15 digits where they are found (no second pass over the double for its digits).
char* put_canonical_number(double v, char* w, const std::string& calculator, std::string_view where) {
  if (!std::isfinite(v)) canonical_number(v, calculator, where);  // throws, naming `where`
  if (written_whole(v)) return put_integer(static_cast<std::int64_t>(v), w);
  std::optional<Decimal> d = fifteen_digits(v);
  double value = d ? d->value : canonical(v);
  if (written_whole(value)) return put_integer(static_cast<std::int64_t>(value), w);
  if (d) return put_decimal(*d, w);
  return put_double(value, w);
}

void append_canonical_number(double v, std::string& out, const std::string& calculator, std::string_view where) {
  std::array<char, kMaxNumberChars> buf;
  append_chars(out, buf.data(), put_canonical_number(v, buf.data(), calculator, where));
}

namespace {

// A step's value is named by its label in the fault message; anything else by its key.
const std::string* step_label(const json& object) {
  auto label = object.find("label");
  return label != object.end() && label->is_string() ? &label->get_ref<const std::string&>() : nullptr;
}

std::string_view member_name(const std::string* label, const std::string& key) {
  return label && key == "value" ? std::string_view(*label) : std::string_view(key);
}

}  // namespace

void canonicalise(json& j, const std::string& calculator, std::string_view where) {
  if (j.is_number_float()) {
    CanonicalNumber n = canonical_number(j.get<double>(), calculator, where);
    if (n.whole) j = static_cast<std::int64_t>(n.value);
    else j = n.value;
  } else if (j.is_object()) {
    const std::string* label = step_label(j);
    for (auto it = j.begin(); it != j.end(); ++it) canonicalise(it.value(), calculator, member_name(label, it.key()));
  } else if (j.is_array()) {
    for (auto& item : j) canonicalise(item, calculator, where);
  }
}

void append_canonical(const json& j, std::string& out, const std::string& calculator, std::string_view where) {
  if (j.is_number_float()) {
    append_canonical_number(j.get<double>(), out, calculator, where);
    return;
  }
  // A step's value is named by its label in a fault message; anything else by its key.
  const std::string* label = j.is_object() ? step_label(j) : nullptr;
  bool container = append_container(j, out, [&](const json& member, const std::string* key) {
    append_canonical(member, out, calculator, key ? member_name(label, *key) : where);
  });
  if (!container) append_text(j, out);
}

}  // namespace scalelab
