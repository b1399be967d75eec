// A mixture of experts served with expert parallelism and attention data parallelism (--ep,
// TensorRT-LLM's DEP<n>; docs/inference.md, "Expert parallelism"), against hand-computed values:
// what a GPU holds, the layouts accepted, and the all-to-all traffic of a step.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "model/links.h"
#include "model/moe_gemm.h"
#include "model_support.h"
#include "rigplan/memory.h"
#include "rigplan/perf.h"
#include "term_support.h"
#include "test_support.h"

namespace rigplan {
namespace {

using testing::estimate;
using testing::gpu;
using testing::has_term;
using testing::run;
using testing::term;
using testing::workload;

const Catalog& catalog() { return testing::default_catalog(); }

// `ep` GPUs, each decoding `batch` sequences of 1024 tokens in bf16 under vLLM.
RunConfig dep(int ep, int batch) {
  RunConfig c;
  c.mode = "decode";
  c.engine = "vllm";
  c.weights = "bf16";
  c.gpus = ep;
  c.expert_parallel = ep;
  c.batch = batch;
  c.seq_len = 1024;
  return c;
}

// Qwen3 235B A22B: 94 layers of 128 experts, each 3 · 4096 · 1536 = 18,874,368 weights:
// 227,096,395,776 expert weights of the 235,093,634,560; the other 7,997,238,784 (attention,
// routers, norms, embeddings, head) stay whole on every GPU.
constexpr double kQwen235Experts = 94.0 * 128 * 3 * 4096 * 1536;
constexpr double kQwen235Dense = 235'093'634'560.0 - kQwen235Experts;

TEST(ExpertParallelServing, EachGpuHoldsTheDenseWeightsAndAnEighthOfTheExperts) {
  ASSERT_DOUBLE_EQ(static_cast<double>(count_params(workload("qwen3-235b-a22b")).experts),
                   kQwen235Experts);
  // DEP8 in bf16: (7,997,238,784 + 227,096,395,776 / 8) · 2 B = 72.77 GB a GPU, of which the
  // 16 experts of each layer are 56.77 GB.
  const MemoryEstimate e = estimate("qwen3-235b-a22b", "h200-sxm-141gb", dep(8, 16));
  EXPECT_NEAR(term(e, "weights"), (kQwen235Dense + kQwen235Experts / 8) * 2 / 1e9, 1e-6);
  EXPECT_NEAR(term(e, "weights"), 72.769, 1e-3);
  EXPECT_TRUE(e.fits);
  // The KV cache is the GPU's own 16 sequences: 16 · 1024 tokens · 2 · 94 layers · 4 KV heads ·
  // 128 · 2 B = 3.15 GB, as a lone GPU with the same sequences holds.
  EXPECT_NEAR(term(e, "kv_cache"), 16.0 * 1024 * 2 * 94 * 4 * 128 * 2 / 1e9, 1e-9);
  EXPECT_GT(term(e, "nccl_buffers"), 0);  // the all-to-all's communicator
  bool said = false;
  for (const auto& note : e.notes)
    said = said || note.find("16 of each MoE layer's 128") != std::string::npos;
  EXPECT_TRUE(said);
  // Without --ep, 8 GPUs alone make vLLM split the 470 GB by tensor parallelism over 4 GPUs
  // (two replicas): 117.5 GB a GPU.
  RunConfig whole = dep(8, 16);
  whole.expert_parallel = 1;
  const MemoryEstimate tp = estimate("qwen3-235b-a22b", "h200-sxm-141gb", whole);
  EXPECT_EQ(tp.config.tensor_parallel, 4);
  EXPECT_NEAR(term(tp, "weights"), 235'093'634'560.0 * 2 / 4 / 1e9, 1e-6);
}

TEST(ExpertParallelServing, ALayerSplitKeepsTheExpertSplit) {
  // DEP2 with two pipeline stages (TensorRT-LLM's "DEP2,PP2" on 4 GPUs) in bf16: a GPU holds
  // one stage's layers and half of their experts, (7,997,238,784 + 227,096,395,776 / 2) / 2 · 2 B
  // = 121.55 GB.
  RunConfig c = dep(2, 8);
  c.gpus = 4;
  c.pipeline_parallel = 2;
  const MemoryEstimate e = estimate("qwen3-235b-a22b", "h200-sxm-141gb", c);
  EXPECT_NEAR(term(e, "weights"), (kQwen235Dense + kQwen235Experts / 2) / 2 * 2 / 1e9, 1e-6);
  EXPECT_NEAR(term(e, "weights"), 121.545, 1e-3);
}

TEST(ExpertParallelServing, RefusesLayoutsItDoesNotServe) {
  RunConfig c = dep(8, 16);
  c.tensor_parallel = 2;
  auto tp = estimate_memory(workload("qwen3-235b-a22b"), gpu("h200-sxm-141gb"), c);
  ASSERT_FALSE(tp.ok());
  EXPECT_EQ(tp.status().message(),
            "--ep 8 serves attention data parallel over the 8 GPUs that split the experts (DEP8): "
            "it takes --tp 1 and --cp 1, with --gpus a multiple of ep × pp (--pp splits the "
            "layers); got --tp 2 --cp 1");
  c = dep(8, 16);
  c.engine = "llama.cpp";
  c.weights = "q8_0";
  auto llama = estimate_memory(workload("qwen3-235b-a22b"), gpu("h200-sxm-141gb"), c);
  ASSERT_FALSE(llama.ok());
  EXPECT_EQ(
      llama.status().message(),
      "--ep 8: llama.cpp (and ollama, which runs it) does not serve a mixture of experts with "
      "expert parallelism; vllm, sglang, tensorrt-llm do (attention data parallel, the "
      "experts split)");
  c = dep(8, 16);
  c.expert_parallel = 3;  // 128 experts do not split in 3
  EXPECT_FALSE(estimate_memory(workload("qwen3-235b-a22b"), gpu("h200-sxm-141gb"), c).ok());
  c = dep(8, 16);
  auto dense = estimate_memory(workload("llama-3.1-70b"), gpu("h200-sxm-141gb"), c);
  ASSERT_FALSE(dense.ok());
  EXPECT_EQ(dense.status().message(),
            "--ep 8 splits a mixture of experts; llama-3.1-70b has no experts");
}

TEST(ExpertParallelServing, EachMoeLayerSendsTwoAllToAllsOverTheLink) {
  // Qwen3 30B A3B (48 layers, hidden 2048, top 8 of 128) at DEP8 on 8 H100s, 64 sequences a
  // GPU: a dispatch and a combine per layer, each 7/8 · 64 · 8 · 2048 · 2 = 1,835,008 bytes at
  // the mean, at the NVSwitch's bus bandwidth plus 7 rounds of 8 µs (one per peer, over NVLink).
  // The all-to-all ends when the GPU whose experts got the most rows has received them: 512 +
  // √(512 · 120 / 127) · 1.4236 = 543.31 of the mean 512 (model/moe_gemm.h), so 1,947,230 bytes.
  const RunConfig c = dep(8, 64);
  const Prediction p = run("qwen3-30b-a3b", "h100-sxm5-80gb", c);
  const Link link = link_for(gpu("h100-sxm5-80gb"), c, 8, catalog());
  const double busiest = (512 + std::sqrt(512 * 120.0 / 127) * 1.4236) / 512;
  EXPECT_NEAR(1'835'008 * busiest, 1'947'230, 1);
  EXPECT_NEAR(term(p, "communication"),
              2 * 48 * (7 * 8e-6 + 1'835'008 * busiest / (link.busbw_gbps * 1e9)), 1e-9);
  EXPECT_NE(p.note.find("a step waits for the GPU whose experts get the most rows under uniform "
                        "routing, T·8 + σ·1.4236"),
            std::string::npos)
      << p.note;
  // Eight GPUs serve eight attention ranks' sequences: the tokens of a step are 8 · 64.
  EXPECT_NEAR(p.samples_per_step, 8 * 64, 1e-9);
  EXPECT_NE(p.note.find("(a GPU reads 16 of its 16 at a batch of 64 on each GPU)"),
            std::string::npos)
      << p.note;
  EXPECT_NE(p.note.find("attention data parallel: TensorRT-LLM's DEP8"), std::string::npos);
  // One GPU alone sends nothing.
  RunConfig one = dep(1, 64);
  EXPECT_FALSE(has_term(run("qwen3-30b-a3b", "h100-sxm5-80gb", one).terms, "communication"));
}

TEST(ExpertParallelServing, AnAllToAllWaitsOneRoundOfLatencyForEachPeer) {
  // One token a GPU: the bytes are a few kilobytes, so the all-to-alls are their latency. An
  // all-to-all among ep GPUs runs ep − 1 rounds, one peer each: over NVSwitch (8 µs a round)
  // Qwen3 30B A3B's 48 layers, a dispatch and a combine each, wait 2 · 48 · (ep − 1) · 8 µs:
  // 0.768 ms at DEP2, 2.304 ms at DEP4 and 5.376 ms at DEP8; one collective's latency would give
  // 0.768 ms for each.
  for (const auto& [ep, rounds] : {std::pair{2, 1}, {4, 3}, {8, 7}}) {
    const RunConfig c = dep(ep, 1);
    const Prediction p = run("qwen3-30b-a3b", "h100-sxm5-80gb", c);
    const Link link = link_for(gpu("h100-sxm5-80gb"), c, ep, catalog());
    const double busiest = busiest_expert_rows(1, 128, 8, ep) / 8;
    const double bytes = moe_all_to_all_bytes(busiest, 8, 2048, 2, ep);
    EXPECT_NEAR(term(p, "communication"),
                2 * 48 * (rounds * 8e-6 + bytes / (link.busbw_gbps * 1e9)), 1e-12)
        << "ep " << ep;
    EXPECT_GT(term(p, "communication"), 2 * 48 * rounds * 8e-6);
    EXPECT_NE(p.note.find(fmt::format("each in {} rounds of 8 µs", rounds)), std::string::npos)
        << p.note;
  }
  // Over PCIe (RTX PRO 6000s, 25 µs a round) DEP8 waits 2 · 48 · 7 · 25 µs = 16.8 ms.
  const Prediction pcie = run("qwen3-30b-a3b", "rtx-pro-6000-blackwell", dep(8, 1));
  EXPECT_GT(term(pcie, "communication"), 16.8e-3);
  EXPECT_LT(term(pcie, "communication"), 16.8e-3 * 1.01);
}

TEST(ExpertParallelServing, TheMoeBuffersHoldTheChunksOfEveryGpuOfTheGroup) {
  // TensorRT-LLM's 8,192-token chunks: a GPU's fused MoE kernel takes up to ep of them, each
  // token's k = 8 routed copies in [tokens, k, max(2F, d) + F] buffers of 2 B. Qwen3 235B A22B
  // (d 4096, F 1536) at DEP8: 8 · 8,192 · 8 · (4,096 + 1,536) · 2 B = 5.906 GB a GPU; at DEP1
  // (one GPU's own chunk) 0.738 GB. Its KV cache gets the difference less.
  RunConfig c = dep(8, 16);
  c.engine = "tensorrt-llm";
  const MemoryEstimate e = estimate("qwen3-235b-a22b", "h200-sxm-141gb", c);
  EXPECT_NEAR(term(e, "activations"), 8.0 * 8192 * 8 * (4096 + 1536) * 2 / 1e9, 1e-9);
  EXPECT_NEAR(term(e, "activations"), 5.906, 1e-3);
  c.expert_parallel = 4;
  c.gpus = 4;
  EXPECT_NEAR(term(estimate("qwen3-235b-a22b", "h200-sxm-141gb", c), "activations"),
              4.0 * 8192 * 8 * (4096 + 1536) * 2 / 1e9, 1e-9);
  const MemoryEstimate one = estimate("qwen3-30b-a3b", "h200-sxm-141gb", [] {
    RunConfig solo = dep(1, 16);
    solo.engine = "tensorrt-llm";
    return solo;
  }());
  // Qwen3 30B A3B alone (d 2048, F 768): 8,192 · 8 · (2,048 + 768) · 2 B = 0.369 GB.
  EXPECT_NEAR(term(one, "activations"), 8192.0 * 8 * (2048 + 768) * 2 / 1e9, 1e-9);
}

TEST(ExpertParallelServing, ServingCountsEveryAttentionRank) {
  RunConfig c = dep(8, 0);
  c.mode = "serve";
  c.batch.reset();
  c.gen_tokens = 1000;
  c.seq_len = 1000;
  const Prediction p = run("qwen3-235b-a22b", "h200-sxm-141gb", c);
  ASSERT_TRUE(p.serving);
  EXPECT_EQ(p.serving->replicas, 8);
  EXPECT_TRUE(p.fits);
  EXPECT_NEAR(p.throughput, p.serving->requests_per_s * 1000, 1e-6);
}

}  // namespace
}  // namespace rigplan
