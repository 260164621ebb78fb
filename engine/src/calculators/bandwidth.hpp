// The rungs of the memory ladder and the chip field each one reads.
#pragma once
#include <string>
#include <vector>

#include "../catalog.hpp"

namespace scalelab {

inline const std::vector<std::string>& bandwidth_paths() {
  static const std::vector<std::string> paths = {"hbm", "vmem", "ici", "pcie", "dcn", "nvlink", "ib"};
  return paths;
}

inline std::string bandwidth_field(const std::string& path) {
  if (path == "hbm") return "hbm_bytes_per_s";
  if (path == "vmem") return "vmem_bytes_per_s";
  if (path == "ici") return "ici_link_bytes_per_s";
  if (path == "pcie") return "pcie_bytes_per_s";
  if (path == "dcn") return "dcn_bytes_per_s";
  if (path == "nvlink") return "nvlink_bytes_per_s";
  return "ib_bytes_per_s";
}

// TeX symbol of a path's bandwidth: W_{hbm}, W_{ici} ...
inline std::string bandwidth_symbol(const std::string& path) { return "W_{" + path + "}"; }

// Memory paths make a op memory-bound; network paths make it comms-bound.
inline bool is_memory_path(const std::string& path) {
  return path == "hbm" || path == "vmem" || path == "pcie";
}

}  // namespace scalelab
