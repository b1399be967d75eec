// The experts an inference step reads and their grouped GEMM, against hand computation for
// Qwen3 30B A3B (128 experts of 768, top-8, hidden 2048, 48 layers) on an H100 (132 SMs).
#include "model/moe_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace rigplan {
namespace {

constexpr double kExperts = 128, kTopK = 8, kHidden = 2048, kExpertFfn = 768, kLayers = 48;
constexpr double kH100Sms = 132;

// A gate (or up) projection of a step of `tokens` tokens: 768 outputs of 2048 inputs per expert.
GroupedExpertGemm gate(double tokens) {
  return grouped_expert_gemm(tokens, kExperts, kTopK, kExpertFfn, kHidden, kH100Sms);
}

TEST(MoeGemm, OneTokenReadsItsTopKExperts) {
  EXPECT_DOUBLE_EQ(experts_touched(1, kExperts, kTopK), 8);
  EXPECT_DOUBLE_EQ(experts_touched(0, kExperts, kTopK), 0);
  // Mixtral: 8 experts, top-2; two tokens hit 8·(1 - 0.75²) = 3.5 of them.
  EXPECT_DOUBLE_EQ(experts_touched(2, 8, 2), 3.5);
}

TEST(MoeGemm, QwenThirtyBDecodeReadsEightExpertsAtBatchOneAndNearlyAllAtSixtyFour) {
  // Batch 1: 8 experts × 768 × 2048 weights per projection; gate, up and down in 48 layers at
  // 2 bytes: 3.62 GB a step, of the 57.98 GB all 128 experts hold.
  EXPECT_DOUBLE_EQ(gate(1).weights, 8 * kExpertFfn * kHidden);
  EXPECT_DOUBLE_EQ(gate(1).weights * 3 * kLayers * 2, 3'623'878'656);
  // Batch 64: 128·(1 - (15/16)^64) = 125.94 experts, 57.05 GB a step.
  const GroupedExpertGemm b64 = gate(64);
  EXPECT_NEAR(b64.experts, 125.942, 1e-3);
  EXPECT_NEAR(b64.weights * 3 * kLayers * 2 / 1e9, 57.05, 0.01);
  EXPECT_LT(b64.weights, kExperts * kExpertFfn * kHidden);
  // FLOPs and activations follow the routed rows, not the experts: 64·8 rows of one expert each.
  EXPECT_DOUBLE_EQ(b64.flops, 2 * 64 * kTopK * kExpertFfn * kHidden);
  EXPECT_DOUBLE_EQ(b64.activations, 64 * kTopK * (kExpertFfn + kHidden));
  EXPECT_NEAR(b64.rows, 4.065, 1e-3);
}

TEST(MoeGemm, TheTouchedExpertsShareTheWavesOfOneGroupedGemm) {
  // Batch 64: each touched expert is one row tile by ⌈768/128⌉ = 6 column tiles, 755.65 tiles
  // in 6 waves of 132 SMs: 95.4% of the slots hold a tile. Alone, an expert's 6 tiles would fill
  // 6/132 = 4.5% of one wave. Its 4.07 rows run in a tile fitted to them.
  const GroupedExpertGemm b64 = gate(64);
  EXPECT_NEAR(b64.tiles, 755.654, 1e-3);
  EXPECT_NEAR(b64.shape_efficiency, 755.654 / (6 * 132), 1e-6);
  // A prefill chunk of 8,192 tokens: every expert, 512 rows each, 4 × 6 tiles apiece: 3,072
  // tiles in 24 waves, 97.0% (alone: 24/132 = 18.2%).
  const GroupedExpertGemm chunk = gate(8192);
  EXPECT_DOUBLE_EQ(chunk.experts, 128);
  EXPECT_DOUBLE_EQ(chunk.rows, 512);
  EXPECT_DOUBLE_EQ(chunk.tiles, 3072);
  EXPECT_DOUBLE_EQ(chunk.shape_efficiency, 3072.0 / (24 * 132));
  // The down projection (2048 outputs of 768 inputs): 4 × 16 tiles per expert, 8,192 in 63 waves.
  const GroupedExpertGemm down =
      grouped_expert_gemm(8192, kExperts, kTopK, kHidden, kExpertFfn, kH100Sms);
  EXPECT_DOUBLE_EQ(down.shape_efficiency, 8192.0 / (63 * 132));
}

TEST(MoeGemm, AnExpertLaunchedAloneFillsTheWavesWithItsOwnTiles) {
  // PyTorch eager's loop over the experts: the chunk's 512 rows per expert are 4 × 6 tiles, alone
  // on 132 SMs: 24/132 = 18.2%, where the grouped GEMM fills 97.0%. The work is the same.
  const GroupedExpertGemm grouped = gate(8192);
  const GroupedExpertGemm alone =
      per_expert_gemms(8192, kExperts, kTopK, kExpertFfn, kHidden, kH100Sms);
  EXPECT_DOUBLE_EQ(alone.tiles, 24);
  EXPECT_DOUBLE_EQ(alone.shape_efficiency, 24.0 / 132);
  EXPECT_DOUBLE_EQ(alone.experts, grouped.experts);
  EXPECT_DOUBLE_EQ(alone.flops, grouped.flops);
  EXPECT_DOUBLE_EQ(alone.weights, grouped.weights);
  // Batch 64: 4.07 rows per expert, one row tile by 6: 6/132 = 4.5%.
  EXPECT_DOUBLE_EQ(per_expert_gemms(64, kExperts, kTopK, kExpertFfn, kHidden, kH100Sms).tiles, 6);
}

TEST(MoeGemm, AKernelThatPicksItsTileForTheRowsPadsNone) {
  // 2,512 tokens: 157 rows per expert. The grouped kernel runs them in 2 tiles of 78.5 rows by 6:
  // 1,536 tiles in 12 waves of 132 SMs, 97.0%, none of it padding. A dense GEMM of 157 rows alone
  // (PyTorch eager's loop) runs 2 tiles of 128 rows, 157/256 of their work real: 12/132 × 157/256.
  const GroupedExpertGemm grouped = gate(2512);
  EXPECT_DOUBLE_EQ(grouped.rows, 157);
  EXPECT_DOUBLE_EQ(grouped.tiles, 1536);
  EXPECT_NEAR(grouped.shape_efficiency, 1536.0 / 1584, 1e-12);
  const GroupedExpertGemm alone =
      per_expert_gemms(2512, kExperts, kTopK, kExpertFfn, kHidden, kH100Sms);
  EXPECT_DOUBLE_EQ(alone.tiles, 12);
  EXPECT_NEAR(alone.shape_efficiency, 12.0 / 132 * 157 / 256, 1e-12);
}

TEST(MoeGemm, AStepWideTilePadsEveryExpertsRows) {
  // llama.cpp's MMQ takes one 128-row tile for a 512-token micro-batch: each expert's 4096/128
  // = 32.0 rows fill a quarter of it. The tiles and their waves are those of a kernel whose tiles
  // fit the rows (one row tile by 6: 768 tiles in 6 waves of 132 SMs, 97.0%), but only a quarter
  // of each tile's work is real: 768/792 × 1/4 = 24.2%.
  const GroupedExpertGemm fitted = gate(512);
  const GroupedExpertGemm padded =
      grouped_expert_gemm(512, kExperts, kTopK, kExpertFfn, kHidden, kH100Sms, 128);
  EXPECT_NEAR(padded.rows, 4096 / (128 * (1 - std::pow(120.0 / 128, 512))), 1e-9);  // 32.0
  EXPECT_NEAR(padded.rows, 32, 1e-9);
  EXPECT_DOUBLE_EQ(padded.tiles, fitted.tiles);
  EXPECT_DOUBLE_EQ(padded.flops, fitted.flops);
  EXPECT_NEAR(padded.tiles, 768, 1e-9);
  EXPECT_NEAR(padded.shape_efficiency, 768.0 / 792 * 32 / 128, 1e-9);
  // 40 tokens (a tile of 40 rows): 2.7 rows per expert (320 over 118.3 experts) fill 2.7/40 of
  // it, where a tile fitted to them is full.
  const GroupedExpertGemm small =
      grouped_expert_gemm(40, kExperts, kTopK, kExpertFfn, kHidden, kH100Sms, 40);
  EXPECT_NEAR(small.rows, 2.705, 1e-3);
  EXPECT_NEAR(small.shape_efficiency, gate(40).shape_efficiency * small.rows / 40, 1e-12);
  // A tile as wide as an expert's rows pads nothing.
  EXPECT_DOUBLE_EQ(grouped_expert_gemm(8192, kExperts, kTopK, kExpertFfn, kHidden, kH100Sms, 128)
                       .shape_efficiency,
                   gate(8192).shape_efficiency);
}

TEST(MoeGemm, ADenseMlpIsOneExpertPickedByEveryToken) {
  const GroupedExpertGemm dense = grouped_expert_gemm(1000, 1, 1, 4096, 4096, kH100Sms);
  EXPECT_DOUBLE_EQ(dense.experts, 1);
  EXPECT_DOUBLE_EQ(dense.rows, 1000);
  EXPECT_DOUBLE_EQ(dense.tiles, 8 * 32);  // ⌈1000/128⌉ × 4096/128
}

TEST(MoeGemm, AnExpertParallelGpuRunsItsExpertsOverEveryGpusTokens) {
  // DEP8, 64 tokens on each of 8 GPUs: a GPU's 16 experts see the 512 tokens of all 8, each
  // picking one of them on average (8 of 128): 512 routed rows, as many as its own 64 · 8.
  const ExpertShare share = expert_share(64, kExperts, kTopK, 8);
  EXPECT_DOUBLE_EQ(share.tokens, 512);
  EXPECT_DOUBLE_EQ(share.experts, 16);
  EXPECT_DOUBLE_EQ(share.top_k, 1);
  const GroupedExpertGemm g =
      grouped_expert_gemm(share.tokens, share.experts, share.top_k, kExpertFfn, kHidden, kH100Sms);
  EXPECT_DOUBLE_EQ(g.flops, gate(64).flops);
  EXPECT_NEAR(g.experts, 16, 1e-9);  // 16·(1 - (15/16)^512)
  EXPECT_NEAR(g.rows, 32, 1e-9);
  // One token on each GPU: 8 tokens pick 64 of 128 experts' slots, 51.6 experts in all, and a
  // GPU reads 16·(1 - (15/16)^8) = 6.45 of its 16.
  const ExpertShare one = expert_share(1, kExperts, kTopK, 8);
  EXPECT_NEAR(experts_touched(one.tokens, one.experts, one.top_k), 6.452, 1e-3);
  // ep 1 is the GPU alone.
  const ExpertShare alone = expert_share(64, kExperts, kTopK, 1);
  EXPECT_DOUBLE_EQ(alone.tokens, 64);
  EXPECT_DOUBLE_EQ(alone.experts, kExperts);
  EXPECT_DOUBLE_EQ(alone.top_k, kTopK);
  EXPECT_DOUBLE_EQ(alone.busiest, 1);
}

TEST(MoeGemm, TheExpectedLargestOfNormalsIsTippettsTable) {
  EXPECT_DOUBLE_EQ(expected_max_normal(1), 0);
  // Two: E[max(Z1, Z2)] = E|Z1 - Z2| / 2 = 1/√π exactly.
  EXPECT_NEAR(expected_max_normal(2), 1 / std::sqrt(std::numbers::pi), 1e-12);
  // Tippett (1925), to the four decimals of his table: 0.8463, 1.0294, 1.4236, 1.7660.
  EXPECT_NEAR(expected_max_normal(3), 0.8463, 5e-5);
  EXPECT_NEAR(expected_max_normal(4), 1.0294, 5e-5);
  EXPECT_NEAR(expected_max_normal(8), 1.4236, 5e-5);
  EXPECT_NEAR(expected_max_normal(16), 1.7660, 5e-5);
  // Below the √(2 ln n) of the large-n limit: 2.039 for 8.
  EXPECT_LT(expected_max_normal(8), std::sqrt(2 * std::log(8.0)));
}

TEST(MoeGemm, TheBusiestExpertParallelGpuWaitsOnMoreRowsThanTheMean) {
  // Qwen3 at DEP8, 64 tokens on each GPU: a GPU's rows have mean 64 · 8 = 512 and, per token, a
  // hypergeometric count of its 8 picks among 128 experts, 16 of them the GPU's, so s² = 512 ·
  // 120 / 127 = 483.78, s = 21.995; the busiest of 8 expects 512 + 21.995 · 1.4236 = 543.31.
  EXPECT_NEAR(busiest_expert_rows(64, kExperts, kTopK, 8), 543.31, 5e-3);
  EXPECT_NEAR(expert_share(64, kExperts, kTopK, 8).busiest, 543.31 / 512, 1e-5);
  // The spread grows as √T and the mean as T: 6.1% over the mean at 64 tokens a GPU, 1.5% at 1,024.
  EXPECT_NEAR(expert_share(1024, kExperts, kTopK, 8).busiest,
              1 + std::sqrt(1024 * 8 * 120.0 / 127) * 1.4236 / (1024 * 8), 1e-5);
  // Small enough to count exactly: two GPUs each holding one of two experts, one token on each
  // GPU picking one expert. A GPU gets 0, 1 or 2 rows with chances 1/4, 1/2, 1/4, so the busier
  // gets 1 or 2 with even chances: 1.5 exactly. The normal approximation says 1 + 1/√π = 1.564.
  EXPECT_NEAR(busiest_expert_rows(1, 2, 1, 2), 1 + 1 / std::sqrt(std::numbers::pi), 1e-12);
  // A token that picks every expert loads every GPU alike: no spread.
  EXPECT_DOUBLE_EQ(busiest_expert_rows(3, 2, 2, 2), 6);
  // One GPU waits on no other.
  EXPECT_DOUBLE_EQ(busiest_expert_rows(64, kExperts, kTopK, 1), 512);
}

TEST(MoeGemm, TheRoutingKernelsMoveEveryRoutedCopyAndEveryAdd) {
  // llama.cpp's f32 graph, Qwen3 30B A3B: 8 copies of 2048 values at 18.25 B (two q8_1
  // quantizations of the gathered input, 2 · (4 + 1.125), and the weighting, 8) and 7 adds at
  // 12 B: 2048 · (146 + 84) = 471,040 bytes a token and layer.
  EXPECT_DOUBLE_EQ(moe_routing_bytes(1, kTopK, kHidden, 18.25, 12), 471'040);
  // A 512-token micro-batch moves 512 times that; vLLM's moe_sum, 2 B a copy, 2048 · 16.
  EXPECT_DOUBLE_EQ(moe_routing_bytes(512, kTopK, kHidden, 18.25, 12), 512 * 471'040.0);
  EXPECT_DOUBLE_EQ(moe_routing_bytes(1, kTopK, kHidden, 2, 0), 32'768);
  // One pick adds nothing to sum; fused kernels move nothing of their own.
  EXPECT_DOUBLE_EQ(moe_routing_bytes(1, 1, kHidden, 18.25, 12), 2048 * 18.25);
  EXPECT_DOUBLE_EQ(moe_routing_bytes(64, kTopK, kHidden, 0, 0), 0);
}

TEST(MoeGemm, AnAllToAllSendsTheRoutedCopiesWhoseExpertIsElsewhere) {
  // Qwen3 30B A3B at DEP8, 64 tokens a GPU in bf16: 64 · 8 copies of 2048 values, 7/8 of them
  // to another GPU: 7/8 · 64 · 8 · 2048 · 2 = 1,835,008 bytes per all-to-all.
  EXPECT_DOUBLE_EQ(moe_all_to_all_bytes(64, kTopK, kHidden, 2, 8), 1'835'008);
  // Qwen3 235B A22B (hidden 4096) at DEP4, 256 tokens: 3/4 · 256 · 8 · 4096 · 2 = 12.58 MB.
  EXPECT_DOUBLE_EQ(moe_all_to_all_bytes(256, 8, 4096, 2, 4), 12'582'912);
  EXPECT_DOUBLE_EQ(moe_all_to_all_bytes(64, kTopK, kHidden, 2, 1), 0);
}

}  // namespace
}  // namespace rigplan
