// Parameter and KV-cache counts of a model (api/training.md §2.2, api/inference.md), shared by
// every calculator that takes a model.
#pragma once
#include "catalog/catalog.hpp"

namespace scalelab {

struct ParamCounts {
  double mlp = 0;         // all MLP weights (every expert)
  double mlp_active = 0;  // MLP weights one token uses
  double attention = 0;
  double embedding = 0;
  double norm = 0;
  double total() const { return mlp + attention + embedding + norm; }
  double active() const { return mlp_active + attention + embedding + norm; }
};

ParamCounts count_params(const Model& m);
// Width of one head's query/key part and value part (H for GQA; nope+rope and v for MLA).
double head_dim_qk(const Model& m);
double head_dim_v(const Model& m);
// KV-cache bytes per token over all layers: 2·L·K·H·kv (MLA: L·(kv_lora + rope)·kv).
double kv_bytes_per_token(const Model& m, double kv_dtype_bytes);
// MLP matrices per layer: 3 when gated, else 2.
inline double mlp_matrices(const Model& m) { return m.gated ? 3 : 2; }

}  // namespace scalelab
