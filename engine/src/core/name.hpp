// Names (of parameters, outputs, catalog entries) compared the way the engine's hot paths need.
#pragma once
#include <string>
#include <string_view>

namespace scalelab {

// Two names equal: their sizes and first letters first, so that nearly every comparison of a
// parameter's or an output's name that fails is one or two tests and no call of memcmp (8 % of
// a native numbers-only serving evaluation went to memcmp on names of equal length). (libc++'s
// string_view == goes through compare() and a std::min that the shipped -Oz WebAssembly build
// keeps as calls: 4 % of a numbers-only decode evaluation there.)
[[gnu::always_inline]] inline bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && (a.empty() || (a[0] == b[0] &&
         std::char_traits<char>::compare(a.data() + 1, b.data() + 1, a.size() - 1) == 0));
}

}  // namespace scalelab
