#pragma once
#include <cstddef>

namespace scalelab {
// Largest accepted input (the server answers 413 above it; the engine refuses it too).
inline constexpr std::size_t kMaxInputBytes = 64 * 1024;
inline constexpr int kMaxInputDepth = 32;
// Most points one sweep evaluates (x values × y values).
inline constexpr std::size_t kMaxSweepPoints = 4096;
}  // namespace scalelab
