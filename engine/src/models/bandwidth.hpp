// The rungs of the memory ladder and the chip field each one reads.
#pragma once
#include <string>
#include <vector>

#include "catalog/catalog.hpp"

namespace scalelab {

inline const std::vector<std::string>& bandwidth_paths() {
  static const std::vector<std::string> paths = {"hbm", "vmem", "ici", "pcie", "dcn", "nvlink", "ib"};
  return paths;
}

inline const std::vector<std::string>& bandwidth_path_titles() {
  static const std::vector<std::string> titles = {
      "HBM (off-chip memory)", "VMEM (on-chip vector memory)", "ICI (chip-to-chip links)",
      "PCIe (to the host)", "DCN (between pods)", "NVLink (inside a GPU node)", "InfiniBand (between nodes)"};
  return titles;
}

// The chip figure a path reads (its bandwidth, one way).
inline Chip::Figure Chip::*bandwidth_figure(const std::string& path) {
  if (path == "hbm") return &Chip::hbm_bytes_per_s;
  if (path == "vmem") return &Chip::vmem_bytes_per_s;
  if (path == "ici") return &Chip::ici_link_bytes_per_s;
  if (path == "pcie") return &Chip::pcie_bytes_per_s;
  if (path == "dcn") return &Chip::dcn_bytes_per_s;
  if (path == "nvlink") return &Chip::nvlink_bytes_per_s;
  return &Chip::ib_bytes_per_s;
}

// The bandwidth of `path` on the chip, or a refusal saying the path needs it.
inline double path_bandwidth(const Chip& chip, const std::string& path) {
  return chip.need(bandwidth_figure(path), "the " + path + " path moves bytes at this bandwidth");
}

// TeX symbol of a path's bandwidth: W_{hbm}, W_{ici} ...
inline std::string bandwidth_symbol(const std::string& path) { return "W_{" + path + "}"; }

// Memory paths make a op memory-bound; network paths make it comms-bound.
inline bool is_memory_path(const std::string& path) {
  return path == "hbm" || path == "vmem" || path == "pcie";
}

}  // namespace scalelab
