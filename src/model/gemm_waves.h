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

// Split-K (cuBLAS's and CUTLASS's split-K GEMM kernels, as recalled from their documentation):
// a GEMM whose output tiles fill fewer than the SMs splits its inner dimension into slices, each
// a tile's partial sums over k / slices, so that tiles × slices approaches the SM count; the
// partial outputs are then reduced. kMinSplitKSlice is the least inner dimension a slice keeps:
// 256, CUTLASS's split-K example (examples/06_splitK_gemm: K = 4,096 in 16 slices), recalled.
// Each slice writes its partial output in fp32 and a reduction kernel reads it back
// (kSplitKPartialBytes a value, CUTLASS's parallel split-K with its separate reduction kernel).
constexpr double kMinSplitKSlice = 256;
constexpr double kSplitKPartialBytes = 4;

struct SplitK {
  double slices = 1;
  double efficiency = 0;  // the shape efficiency of the split GEMM (gemm_shape_efficiency)
};

// How a GEMM of `tiles` output tiles and inner dimension `k` runs on `sms` SMs: unsplit when its
// tiles fill a wave or `k` holds fewer than two slices, otherwise in the most slices that keep
// tiles × slices within one wave and each slice at least kMinSplitKSlice deep.
inline SplitK gemm_split_k(double tiles, double k, double sms) {
  const double slices =
      tiles <= 0 || tiles >= sms
          ? 1
          : std::max(1.0, std::min(std::floor(sms / tiles), std::floor(k / kMinSplitKSlice)));
  return {slices, gemm_shape_efficiency(tiles * slices, gemm_k_efficiency(k / slices), sms)};
}

// The bytes a split-K GEMM's reduction moves for `outputs` output values: each slice's partial
// output written and read once in fp32; none unsplit.
inline double split_k_reduction_bytes(double slices, double outputs) {
  return slices > 1 ? 2 * slices * outputs * kSplitKPartialBytes : 0;
}

}  // namespace rigplan
