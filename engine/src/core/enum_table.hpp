// One table per enumeration: each value with its name (as the API spells it) and its title (as
// a reader sees it). Parsing, naming, the schema's choices and their titles all read the table.
// Each enum ends with an alias `last_` for its last value, and the table's size is checked
// against it at compile time (as ggml checks its type traits against GGML_TYPE_COUNT): a value
// added to the enum without a row here does not compile.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/errors.hpp"

namespace scalelab {

template <typename E>
struct EnumEntry {
  E value;
  std::string_view name;
  std::string_view title;
};

template <typename E, std::size_t N>
class EnumTable {
 public:
  constexpr explicit EnumTable(std::array<EnumEntry<E>, N> entries) : entries_(entries) {}

  // Rows in enum order, one per value, then `aliases` rows of other names for values (an old
  // name a data file may still use): checked where each table is defined.
  constexpr bool in_enum_order(std::size_t aliases = 0) const {
    if (aliases > N || static_cast<std::size_t>(E::last_) + 1 != N - aliases) return false;
    for (std::size_t i = 0; i < N - aliases; ++i) {
      if (static_cast<std::size_t>(entries_[i].value) != i) return false;
    }
    return true;
  }

  // The row named `name`, or null.
  constexpr const EnumEntry<E>* find(std::string_view name) const {
    for (const auto& e : entries_) {
      if (e.name == name) return &e;
    }
    return nullptr;
  }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : entries_) out.emplace_back(e.name);
    return out;
  }
  std::vector<std::string> titles() const {
    std::vector<std::string> out;
    for (const auto& e : entries_) out.emplace_back(e.title);
    return out;
  }
  std::string name(E value) const { return std::string(entries_[static_cast<std::size_t>(value)].name); }
  std::string title(E value) const { return std::string(entries_[static_cast<std::size_t>(value)].title); }

  // The value named `name`; refuses (naming `param`) with the allowed names otherwise.
  E parse(std::string_view name, const std::string& param) const {
    for (const auto& e : entries_) {
      if (e.name == name) return e.value;
    }
    std::string allowed;
    for (const auto& e : entries_) allowed += (allowed.empty() ? "" : ", ") + std::string(e.name);
    throw InputError(param, "must be one of " + allowed + ", got \"" + std::string(name.substr(0, 40)) + "\"");
  }

 private:
  std::array<EnumEntry<E>, N> entries_;
};

}  // namespace scalelab
