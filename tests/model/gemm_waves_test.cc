// Wave quantization and split-K of tensor-core GEMMs (gemm_waves.h), against hand computation:
// 128 × 128 output tiles, a full pipeline from an inner dimension of 64, split-K slices at least
// 256 deep.
#include "model/gemm_waves.h"

#include <gtest/gtest.h>

namespace rigplan {
namespace {

constexpr double kA6000Sms = 84, kA100Sms = 108;

// GNMT's recurrent GEMM at batch 128 (hidden 1024, 4 gates): 1 × 32 = 32 output tiles of an inner
// dimension of 1,024 on an RTX A6000's 84 SMs. Unsplit they fill 32 / 84 = 38.1% of one wave;
// split-K takes min(⌊84 / 32⌋, ⌊1024 / 256⌋) = 2 slices of 512, 64 / 84 = 76.2%, and its
// reduction writes and reads 2 slices × 128 × 4,096 partial outputs of 4 B: 8,388,608 B.
TEST(GemmSplitK, ARecurrentGemmOfFewTilesSplitsItsInnerDimension) {
  const double tiles = gemm_tiles(128, 4096);
  EXPECT_EQ(tiles, 32);
  EXPECT_NEAR(gemm_shape_efficiency(tiles, gemm_k_efficiency(1024), kA6000Sms), 32.0 / 84, 1e-12);
  const SplitK split = gemm_split_k(tiles, 1024, kA6000Sms);
  EXPECT_EQ(split.slices, 2);
  EXPECT_NEAR(split.efficiency, 64.0 / 84, 1e-12);
  EXPECT_EQ(split_k_reduction_bytes(split.slices, 128 * 4096), 8388608);
}

// An LSTM backward's per-step GEMM at batch 128 and hidden 1024: 1 × 8 = 8 tiles of an inner
// dimension of 4,096. On an A100's 108 SMs, ⌊108 / 8⌋ = 13 slices (⌊4096 / 256⌋ = 16 would
// allow more) of 315 each: 104 / 108 = 96.3% of one wave, against 8 / 108 = 7.4% unsplit.
TEST(GemmSplitK, TheSlicesStopAtOneWave) {
  const SplitK split = gemm_split_k(gemm_tiles(128, 1024), 4096, kA100Sms);
  EXPECT_EQ(split.slices, 13);
  EXPECT_NEAR(split.efficiency, 104.0 / 108, 1e-12);
}

// ... and stop where a slice would be shallower than 256: an inner dimension of 1,024 allows 4
// slices, so 8 tiles fill 32 / 108 = 29.6%; one of 384 allows none.
TEST(GemmSplitK, TheSlicesStopAtTheLeastDepthOfASlice) {
  EXPECT_EQ(gemm_split_k(8, 1024, kA100Sms).slices, 4);
  EXPECT_NEAR(gemm_split_k(8, 1024, kA100Sms).efficiency, 32.0 / 108, 1e-12);
  const SplitK shallow = gemm_split_k(8, 384, kA100Sms);
  EXPECT_EQ(shallow.slices, 1);
  EXPECT_NEAR(shallow.efficiency, 8.0 / 108, 1e-12);
  EXPECT_EQ(split_k_reduction_bytes(shallow.slices, 128 * 1024), 0);
}

// A GEMM whose tiles fill a wave is not split: 448 tiles of 4,096 on 132 SMs run in 4 waves,
// 448 / 528 = 84.8% filled, as gemm_waves says.
TEST(GemmSplitK, AGemmThatFillsAWaveIsNotSplit) {
  const SplitK split = gemm_split_k(448, 4096, 132);
  EXPECT_EQ(split.slices, 1);
  EXPECT_NEAR(split.efficiency, 448.0 / 528, 1e-12);
}

}  // namespace
}  // namespace rigplan
