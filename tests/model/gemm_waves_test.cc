// Wave quantization, tile padding and split-K of tensor-core GEMMs (gemm_waves.h), against hand
// computation: output tiles fitted to a dimension up to 128 and of 128 beyond, a full pipeline
// from an inner dimension of 64, split-K slices at least 256 deep.
#include "model/gemm_waves.h"

#include <gtest/gtest.h>

#include <utility>

namespace rigplan {
namespace {

constexpr double kA6000Sms = 84, kA100Sms = 108, kRtx6000AdaSms = 142;

// GNMT's recurrent GEMM at batch 128 (hidden 1024, 4 gates): 1 × 32 = 32 output tiles of an inner
// dimension of 1,024 on an RTX A6000's 84 SMs. Unsplit they fill 32 / 84 = 38.1% of one wave;
// split-K takes min(⌊84 / 32⌋, ⌊1024 / 256⌋) = 2 slices of 512, 64 / 84 = 76.2%, and its
// reduction writes and reads 2 slices × 128 × 4,096 partial outputs of 4 B: 8,388,608 B.
TEST(GemmSplitK, ARecurrentGemmOfFewTilesSplitsItsInnerDimension) {
  const GemmShape shape = gemm_shape(128, 4096);
  EXPECT_EQ(shape.tiles, 32);
  EXPECT_EQ(shape.useful, 1);
  EXPECT_NEAR(gemm_shape_efficiency(shape, gemm_k_efficiency(1024), kA6000Sms), 32.0 / 84, 1e-12);
  const SplitK split = gemm_split_k(shape, 1024, kA6000Sms);
  EXPECT_EQ(split.slices, 2);
  EXPECT_NEAR(split.efficiency, 64.0 / 84, 1e-12);
  EXPECT_EQ(split_k_reduction_bytes(split.slices, 128 * 4096), 8388608);
}

// An LSTM backward's per-step GEMM at batch 128 and hidden 1024: 1 × 8 = 8 tiles of an inner
// dimension of 4,096. On an A100's 108 SMs, ⌊108 / 8⌋ = 13 slices (⌊4096 / 256⌋ = 16 would
// allow more) of 315 each: 104 / 108 = 96.3% of one wave, against 8 / 108 = 7.4% unsplit.
TEST(GemmSplitK, TheSlicesStopAtOneWave) {
  const SplitK split = gemm_split_k(gemm_shape(128, 1024), 4096, kA100Sms);
  EXPECT_EQ(split.slices, 13);
  EXPECT_NEAR(split.efficiency, 104.0 / 108, 1e-12);
}

// ... and stop where a slice would be shallower than 256: an inner dimension of 1,024 allows 4
// slices, so 8 tiles fill 32 / 108 = 29.6%; one of 384 allows none.
TEST(GemmSplitK, TheSlicesStopAtTheLeastDepthOfASlice) {
  EXPECT_EQ(gemm_split_k({8, 1}, 1024, kA100Sms).slices, 4);
  EXPECT_NEAR(gemm_split_k({8, 1}, 1024, kA100Sms).efficiency, 32.0 / 108, 1e-12);
  const SplitK shallow = gemm_split_k({8, 1}, 384, kA100Sms);
  EXPECT_EQ(shallow.slices, 1);
  EXPECT_NEAR(shallow.efficiency, 8.0 / 108, 1e-12);
  EXPECT_EQ(split_k_reduction_bytes(shallow.slices, 128 * 1024), 0);
}

// A GEMM whose tiles fill a wave is not split: 448 tiles of 4,096 on 132 SMs run in 4 waves,
// 448 / 528 = 84.8% filled, as gemm_waves says.
TEST(GemmSplitK, AGemmThatFillsAWaveIsNotSplit) {
  const SplitK split = gemm_split_k({448, 1}, 4096, 132);
  EXPECT_EQ(split.slices, 1);
  EXPECT_NEAR(split.efficiency, 448.0 / 528, 1e-12);
}

// A dimension of at most one tile runs in a tile fitted to it, a longer one in 128-wide tiles.
TEST(GemmShape, ADimensionOfAtMostOneTileRunsInATileFittedToIt) {
  for (const auto& [extent, side] :
       {std::pair{1.0, 1.0}, {17.0, 17.0}, {128.0, 128.0}, {129.0, 128.0}, {4096.0, 128.0}}) {
    EXPECT_EQ(gemm_tile_side(extent), side) << extent;
  }
}

// Llama 3.1 8B's q projection (4,096 × 4,096) over a 257-token prompt on an RTX 6000 Ada's 142
// SMs: ⌈257/128⌉ × 32 = 96 tiles, one wave, 96/142 of its slots filled, but the third row tile
// holds 1 real row of 128: 257·4096 / (384·4096) = 257/384 of the tiles' work is real, so the
// shape efficiency is 96/142 × 257/384 = 45.25%. 256 tokens fill 64 tiles exactly, 64/142 =
// 45.07%; both run one wave of 128 × 128 tiles, so their times (rows over efficiency) are equal.
TEST(GemmShape, APartlyFilledTileCountsOnlyItsRealRows) {
  const GemmShape shape = gemm_shape(257, 4096);
  EXPECT_EQ(shape.tiles, 96);
  EXPECT_NEAR(shape.useful, 257.0 / 384, 1e-12);
  const double e257 = gemm_shape_efficiency(shape, gemm_k_efficiency(4096), kRtx6000AdaSms);
  const double e256 = gemm_shape_efficiency(gemm_shape(256, 4096), 1, kRtx6000AdaSms);
  EXPECT_NEAR(e257, 96.0 / 142 * 257 / 384, 1e-12);
  EXPECT_NEAR(e256, 64.0 / 142, 1e-12);
  EXPECT_NEAR(257 / e257, 256 / e256, 1e-9);
  // A grouped GEMM of 4 such GEMMs: 384 tiles in 3 waves, the same padding.
  const GemmShape group = gemm_shape(257, 4096, 4);
  EXPECT_EQ(group.tiles, 384);
  EXPECT_NEAR(gemm_shape_efficiency(group, 1, kRtx6000AdaSms), 384.0 / 426 * 257 / 384, 1e-12);
}

// One row of Llama 3.1 8B's k projection (1,024 outputs) runs in 8 tiles fitted to it: 8/142 =
// 5.6% of the SMs, none of the tiles' work padding; a kernel that fixes its tile rows (llama.cpp's
// MMQ, at a step's tile of 40) pads to them instead.
TEST(GemmShape, AGemmOfFewRowsPaysOnlyForATileItFixes) {
  const GemmShape one = gemm_shape(1, 1024);
  EXPECT_EQ(one.tiles, 8);
  EXPECT_EQ(one.useful, 1);
  EXPECT_NEAR(gemm_shape_efficiency(one, 1, kRtx6000AdaSms), 8.0 / 142, 1e-12);
  EXPECT_NEAR(gemm_shape(2.5, 768, 1, 40).useful, 2.5 / 40, 1e-12);
  // 100 outputs in a tile of 100 columns; 200 in two of 128, 200/256 of them real.
  EXPECT_EQ(gemm_shape(256, 100).useful, 1);
  EXPECT_NEAR(gemm_shape(256, 200).useful, 200.0 / 256, 1e-12);
  EXPECT_EQ(gemm_shape(0, 1024).tiles, 0);
}

// One more row never makes a GEMM faster: its time, rows over shape efficiency, does not fall
// from 1 to 2,048 rows for the widths of Llama 3.1 8B's projections, unsplit and split-K.
TEST(GemmShape, OneMoreRowNeverMakesAGemmFaster) {
  for (const double n : {1024.0, 4096.0, 14336.0}) {
    double unsplit = 0, split = 0;
    for (double rows = 1; rows <= 2048; ++rows) {
      const GemmShape shape = gemm_shape(rows, n);
      const double t = rows / gemm_shape_efficiency(shape, 1, kRtx6000AdaSms);
      const double t_split = rows / gemm_split_k(shape, 4096, kRtx6000AdaSms).efficiency;
      EXPECT_GE(t, unsplit * (1 - 1e-12)) << n << " × " << rows;
      EXPECT_GE(t_split, split * (1 - 1e-12)) << n << " × " << rows;
      unsplit = t;
      split = t_split;
    }
  }
}

}  // namespace
}  // namespace rigplan
