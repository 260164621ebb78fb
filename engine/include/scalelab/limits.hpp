#pragma once
#include <cstddef>

namespace scalelab {
// Largest accepted input (the server answers 413 above it; the engine refuses it too).
inline constexpr std::size_t kMaxInputBytes = 64 * 1024;
inline constexpr int kMaxInputDepth = 32;
}  // namespace scalelab
