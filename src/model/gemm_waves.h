// Wave quantization of tensor-core GEMMs (docs/performance.md, "η_shape"): the performance
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

// The side of the output tiles that a GEMM dimension of `extent` rows or columns runs in: one
// tile fitted to it up to perf_constants.h kTile, tiles of kTile beyond. cuBLAS and CUTLASS pick
// a tile shape per GEMM from many (cuBLAS's kernel names show 64 × 64, 128 × 64 and 128 × 128
// tiles; TensorRT-LLM's CUTLASS GEMMs choose among 16, 32, 64 and 128 rows, cutlass_heuristic.cpp
// get_candidate_tiles; all recalled, not read in shared/reference), and a GEMM of few rows runs
// as a GEMV or split over its inner dimension: the model takes a dimension of at most one tile as
// costing its own extent, as the fitted efficiencies always have. Beyond one tile the last tile is
// whole however few rows it holds; the extent's time never falls as it grows.
inline double gemm_tile_side(double extent) { return std::min(extent, perf_constants::kTile); }

// The rows of each tile of a kernel that picks its tile for the rows it is given (TensorRT-LLM's
// and vLLM's MoE kernels, Engine::moe_tile "expert": a tile per token count, as profiled or
// tuned): ⌈rows/kTile⌉ tiles of equal rows, none of them padding. 0 for no rows.
inline double gemm_fitted_tile_rows(double rows) {
  return rows > 0 ? rows / std::ceil(rows / perf_constants::kTile) : 0;
}

// The output tiling of `group` GEMMs of `rows` × `n` each, in tiles of gemm_tile_side(rows) ×
// gemm_tile_side(n), or of `tile_rows` rows where the kernel fixes them. A partly filled tile
// takes a whole tile's time: `useful` is the share of the tiles' work that is real,
// rows·n / (⌈rows/Tm⌉·Tm · ⌈n/Tn⌉·Tn); 1 for no tiles.
struct GemmShape {
  double tiles = 0;
  double useful = 1;
  bool operator==(const GemmShape&) const = default;
};
inline GemmShape gemm_shape(double rows, double n, double group = 1, double tile_rows = 0) {
  if (rows <= 0 || n <= 0) return {};
  const double tm = tile_rows > 0 ? tile_rows : gemm_tile_side(rows), tn = gemm_tile_side(n);
  const double row_tiles = std::ceil(rows / tm), column_tiles = std::ceil(n / tn);
  return {group * row_tiles * column_tiles, rows * n / (row_tiles * tm * column_tiles * tn)};
}

// The share of the tensor-core pipeline an inner dimension `k` fills.
inline double gemm_k_efficiency(double k) { return std::min(1.0, k / perf_constants::kFullK); }

// The share of the GEMM rate a shape allows, at least 1e-3: the real work over the work of its
// waves (waves × SMs × one tile's), times its inner dimension's fill. That is the waves' filled
// slots times the tiles' useful share, so in gemm_tile_side's tiles one more row never makes a
// GEMM faster.
inline double gemm_shape_efficiency(const GemmShape& shape, double k_efficiency, double sms) {
  return std::max(1e-3, gemm_waves(shape.tiles, sms).efficiency * shape.useful * k_efficiency);
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

// How a GEMM of output tiling `shape` and inner dimension `k` runs on `sms` SMs: unsplit when its
// tiles fill a wave or `k` holds fewer than two slices, otherwise in the most slices that keep
// tiles × slices within one wave and each slice at least kMinSplitKSlice deep.
inline SplitK gemm_split_k(const GemmShape& shape, double k, double sms) {
  const double tiles = shape.tiles;
  const double slices =
      tiles <= 0 || tiles >= sms
          ? 1
          : std::max(1.0, std::min(std::floor(sms / tiles), std::floor(k / kMinSplitKSlice)));
  return {slices, gemm_shape_efficiency({tiles * slices, shape.useful},
                                        gemm_k_efficiency(k / slices), sms)};
}

// The bytes a split-K GEMM's reduction moves for `outputs` output values: each slice's partial
// output written and read once in fp32; none unsplit.
inline double split_k_reduction_bytes(double slices, double outputs) {
  return slices > 1 ? 2 * slices * outputs * kSplitKPartialBytes : 0;
}

}  // namespace rigplan
