#include "result.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace scalelab {
namespace {

// Two names equal: their sizes first, so that nearly every comparison is one test. (libc++'s
// string_view == goes through compare() and a std::min that the shipped -Oz WebAssembly build
// keeps as calls: 4 % of a numbers-only decode evaluation there.)
bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

Outputs::Outputs(const std::vector<Output>& declared)
    : declared_(&declared), values_(declared.size()), set_(declared.size(), 0) {}

std::optional<std::size_t> Outputs::position(std::string_view name) const {
  const std::size_t n = declared_->size();
  // From the cursor to the end, then from the start: no division per step.
  auto is_named = [&](std::size_t at) { return same_name((*declared_)[at].name, name); };
  for (std::size_t at = cursor_; at < n; ++at) {
    if (is_named(at)) return at;
  }
  for (std::size_t at = 0; at < cursor_ && at < n; ++at) {
    if (is_named(at)) return at;
  }
  return std::nullopt;
}

json& Outputs::slot(std::string_view name) {
  std::optional<std::size_t> at = position(name);
  if (!at) {
    undeclared_.emplace_back(name);
    return discarded_;
  }
  cursor_ = *at + 1;
  set_[*at] = 1;
  return values_[*at];
}

const json* Outputs::find(std::string_view name) const {
  for (std::size_t i = 0; i < values_.size(); ++i) {
    if (same_name((*declared_)[i].name, name)) return set_[i] ? &values_[i] : nullptr;
  }
  return nullptr;
}

void Outputs::clear() {
  std::fill(set_.begin(), set_.end(), 0);
  cursor_ = 0;
  undeclared_.clear();
  discarded_ = nullptr;
}

void Outputs::check(const std::string& calculator) const {
  if (!undeclared_.empty()) {
    std::string names;
    for (const std::string& name : undeclared_) names += (names.empty() ? "" : ", ") + name;
    throw std::logic_error(calculator + " emitted undeclared outputs: " + names);
  }
  for (std::size_t i = 0; i < values_.size(); ++i) {
    const Output& o = (*declared_)[i];
    if (!o.nullable && at(i).is_null()) {
      throw std::logic_error(calculator + " left out its output " + std::string(o.name) + ", which is not nullable");
    }
  }
}

}  // namespace scalelab
