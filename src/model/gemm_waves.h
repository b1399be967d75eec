// Wave quantization of tensor-core GEMMs (docs/performance.md, "GEMM shapes"): the performance
// model's and its tests' one definition.
#pragma once

#include <cmath>

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

}  // namespace rigplan
