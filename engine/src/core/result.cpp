#include "core/result.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace scalelab {

std::uint64_t warning_hash(Warning::Text kind, const std::array<std::uint64_t, Warning::kMaxNumbers>& bits,
                           std::string_view argument) {
  // Each word through MurmurHash3's 64-bit finaliser, so that every bit of every word reaches the
  // low 32 bits (WebAssembly's size_t). FNV's multiply alone carried a word's high bits only
  // upwards: with the warning's address in the mix, 1 sweep in 4 put two of 4,096 keys together.
  auto fmix = [](std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
  };
  std::uint64_t h = fmix(reinterpret_cast<std::uintptr_t>(kind));
  for (std::uint64_t word : bits) h = fmix(h ^ word);
  for (std::size_t at = 0; at < argument.size(); at += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, argument.data() + at, std::min<std::size_t>(8, argument.size() - at));
    h = fmix(h ^ word);
  }
  return fmix(h ^ argument.size());
}

Outputs::Outputs(const std::vector<Output>& declared) : declared_(&declared), slots_(declared.size()) {
  for (std::size_t i = 0; i < declared.size(); ++i) {
    if (!declared[i].nullable) required_.push_back(i);
  }
}

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

std::optional<std::size_t> Outputs::found(std::string_view name) {
  std::optional<std::size_t> at = position(name);
  if (!at) undeclared_.emplace_back(name);
  return at;
}

json Outputs::at(std::size_t i) const {
  switch (kind(i)) {
    case Kind::number: return number(i);
    case Kind::word: return std::string(word(i));
    case Kind::flag: return flag(i);
    case Kind::other: return other(i);
    default: return nullptr;
  }
}

std::optional<json> Outputs::find(std::string_view name) const {
  for (std::size_t i = 0; i < size(); ++i) {
    if (same_name((*declared_)[i].name, name)) return is_set(i) ? std::optional<json>(at(i)) : std::nullopt;
  }
  return std::nullopt;
}

void Outputs::clear() {
  for (Slot& slot : slots_) slot.kind = Kind::unset;
  cursor_ = 0;
  undeclared_.clear();
}

void Outputs::check(const std::string& calculator) const {
  if (!undeclared_.empty()) {
    std::string names;
    for (const std::string& name : undeclared_) names += (names.empty() ? "" : ", ") + name;
    throw std::logic_error(calculator + " emitted undeclared outputs: " + names);
  }
  for (std::size_t i : required_) {
    if (kind(i) == Kind::unset || kind(i) == Kind::null) {
      throw std::logic_error(calculator + " left out its output " + std::string((*declared_)[i].name) +
                             ", which is not nullable");
    }
  }
}

}  // namespace scalelab
