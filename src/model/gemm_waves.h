// Wave quantization of tensor-core GEMMs (docs/performance.md, "GEMM shapes"): the performance
// model's and its tests' one definition.
#pragma once

#include <algorithm>
#include <cmath>

#include "model/perf_constants.h"

namespace rigplan {

// A GEMM's (or a grouped GEMM's) output tiles run in waves of one tile per SM; the last wave may
// leave SMs idle. `efficiency` is the share of the waves' SM slots that hold a tile.
struct GemmWaves {
  double waves = 0;
  double efficiency = 0;
};
inline GemmWaves gemm_waves(double tiles, double sms) {
  const double waves = std::ceil(tiles / sms);
  return {waves, tiles / (waves * sms)};
}

// The output tiles of `group` GEMMs of `rows` × `n` each (perf_constants.h: CUTLASS tiles).
inline double gemm_tiles(double rows, double n, double group = 1) {
  return group * std::ceil(rows / perf_constants::kTile) * std::ceil(n / perf_constants::kTile);
}

// The share of the tensor-core pipeline an inner dimension `k` fills.
inline double gemm_k_efficiency(double k) { return std::min(1.0, k / perf_constants::kFullK); }

// The share of the GEMM rate a shape allows: its tiles' waves times its inner dimension's fill,
// at least 1e-3.
inline double gemm_shape_efficiency(double tiles, double k_efficiency, double sms) {
  return std::max(1e-3, gemm_waves(tiles, sms).efficiency * k_efficiency);
}

}  // namespace rigplan
