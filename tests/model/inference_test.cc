// The inference model against hand-computed values and the limits of physics: the engines as
// data, the memory of a served model, decode that reads the weights once per step, layer splits
// and serving under continuous batching (docs/inference.md).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

#include "model/inference_perf.h"
#include "model_support.h"
#include "rigplan/engine.h"
#include "rigplan/memory.h"
#include "rigplan/perf.h"
#include "rigplan/report.h"
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

RunConfig llama70b_tp4(const char* mode) {
  RunConfig c;
  c.mode = mode;
  c.gpus = 4;
  c.tensor_parallel = 4;
  c.batch = 16;
  c.seq_len = 8192;
  return c;
}

TEST(Engines, TheEmbeddedEnginesLoadWithTheirFormats) {
  const Engines& engines = embedded_engines();
  for (const char* id : {"pytorch", "vllm", "sglang", "tensorrt-llm", "llama.cpp"})
    EXPECT_TRUE(engines.find_engine(id).ok()) << id;
  EXPECT_EQ((*engines.find_engine("ollama"))->id, "llama.cpp");
  EXPECT_EQ((*engines.find_engine("TRT-LLM"))->id, "tensorrt-llm");
  EXPECT_EQ((*engines.find_format("awq"))->id, "int4");
  EXPECT_EQ((*engines.find_format("q4_k_m"))->bits_per_weight, 4.85);
  EXPECT_EQ((*engines.find_format("nvfp4"))->bits_per_weight, 4.5);  // 4 + 8/16
  EXPECT_EQ((*engines.find_kv_format("fp8"))->bits_per_element, 8);
}

TEST(Engines, AnUnknownEngineNamesTheClosest) {
  auto e = embedded_engines().find_engine("vlm");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(),
            "unknown engine 'vlm' (did you mean 'vllm'?); `rigplan engines list` shows them all");
}

// One engine with its formats, where the engine names a format no file defines ('q3').
constexpr char kOneEngine[] = R"(
[[engine]]
id = "x"
name = "X"
version = "1"
as_of = 2025-01-01
stacks = ["cuda"]
budget = "total"
memory_utilization = 0.9
cuda_context_gb = 0.5
fragmentation = 0
nccl_buffers_gb = 0
cuda_graph_gb = 0
kv_reserve = "request"
kv_block_tokens = 16
kv_formats = ["auto"]
sliding_kv = "window"
sliding_reads = "window"
prefill_chunk_tokens = 512
prefill_chunk_tokens_small = 512
max_seqs = 8
max_seqs_small = 8
large_gpu_gb = 0
logits_rows = "batch"
split = "tensor"
offload = "none"
weight_formats = ["bf16", "q3"]
cuda_graphs = true
layer_overhead_us = 10
step_overhead_ms = 1
request_overhead_ms = 0
gemm_efficiency = 0.7
memory_efficiency = 0.8
rocm_gemm_efficiency = 0.5
rocm_memory_efficiency = 0.6
moe_kernel = "grouped"
moe_tile = "expert"
source = "test"
confidence = "recall"

[[format]]
id = "bf16"
name = "BF16"
bits_per_weight = 16
compute = "bf16"
fallback_compute = "fp16"
dequant = "none"
dequant_efficiency = 1
covers = "all"
source = "test"
confidence = "cited"

[[kv_format]]
id = "auto"
name = "auto"
bits_per_element = 16
source = "test"
confidence = "cited"
)";

// The message that refuses an engines.toml of `text`; "" when it loads.
std::string refusal(const std::string& text) {
  auto loaded = load_engines({{"engines.toml", text}});
  return loaded.ok() ? "" : loaded.status().message();
}

TEST(Engines, AnEngineMustNameFormatsTheFilesDefine) {
  EXPECT_EQ(refusal(kOneEngine),
            "engines.toml:27:18: engine 'x': field 'weight_formats': 'q3' is not a format of the "
            "engine files; expected 'bf16'\n1 problem in 1 file");
}

TEST(Engines, AnUnknownSectionListsTheFourAFileMayHold) {
  EXPECT_EQ(
      refusal("[[kv-format]]\nid = \"q8\"\n"),
      "engines.toml:1:1: unknown section 'kv-format'; expected [[engine]], [[format]], "
      "[[kv_format]] or [[host]] (did you mean 'kv_format' or 'format'?)\n1 problem in 1 file");
}

TEST(Engines, AnEngineSaysHowItRunsAMixtureOfExperts) {
  std::string text = kOneEngine;
  text.erase(text.find(", \"q3\""), 6);  // every format defined
  text.replace(text.find("\"grouped\""), 9, "\"fused\"");
  EXPECT_EQ(refusal(text),
            "engines.toml:36:14: engine 'x': field 'moe_kernel': 'fused' is not accepted; "
            "expected 'grouped' or 'per-expert'\n1 problem in 1 file");
}

TEST(Engines, OnlyAnEngineThatLoopsOverTheExpertsStatesATimePerExpert) {
  std::string text = kOneEngine;
  text.erase(text.find(", \"q3\""), 6);
  std::string looping = text;
  looping.replace(looping.find("\"grouped\""), 9, "\"per-expert\"");
  EXPECT_EQ(refusal(looping),
            "engines.toml:36:14: engine 'x': field 'moe_kernel': 'per-expert' needs "
            "moe_expert_overhead_us, the host and launch time per touched expert per layer\n1 "
            "problem in 1 file");

  std::string grouped = text;
  grouped.insert(grouped.find("moe_kernel"), "moe_expert_overhead_us = 50\n");
  EXPECT_EQ(refusal(grouped),
            "engines.toml:36:26: engine 'x': field 'moe_expert_overhead_us': only an engine whose "
            "moe_kernel is 'per-expert' pays a time per expert; remove it or set moe_kernel = "
            "\"per-expert\"\n1 problem in 1 file");

  looping.insert(looping.find("moe_kernel"), "moe_expert_overhead_us = 50\n");
  auto loaded = load_engines({{"engines.toml", looping}});
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->engines[0].moe_expert_overhead_us, 50);
}

// A format of a mixture's experts may store the other tensors in a format of its own (GGUF's
// MXFP4_MOE: Q8_0); that format must exist and cover a whole model.
TEST(Engines, AFormatOfTheExpertsNamesAWholeModelFormatForTheRest) {
  std::string text = kOneEngine;
  text.erase(text.find(", \"q3\""), 6);
  text += R"(
[[format]]
id = "mx"
name = "MX"
bits_per_weight = 4.25
compute = "int8"
fallback_compute = "fp16"
dequant = "fused"
dequant_efficiency = 0.9
covers = "experts"
rest = "bf61"
source = "test"
confidence = "cited"
)";
  EXPECT_EQ(refusal(text),
            "engines.toml:69:8: format 'mx': field 'rest': 'bf61' is not a format of a whole "
            "model; expected 'bf16' (did you mean 'bf16'?)\n1 problem in 1 file");
  std::string linear = text;
  linear.replace(linear.find("\"experts\""), 9, "\"linear\"");
  EXPECT_EQ(refusal(linear),
            "engines.toml:69:8: format 'mx': field 'rest': only a format whose covers is "
            "'experts' stores the other tensors apart; remove it or set covers = \"experts\"\n1 "
            "problem in 1 file");
  text.replace(text.find("\"bf61\""), 6, "\"bf16\"");
  auto loaded = load_engines({{"engines.toml", text}});
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->formats[1].rest, "bf16");
}

// What a sliding-window layer caches is the engine's: a window per sequence, or a pool whose
// size the engine states.
TEST(Engines, OnlyAnEngineThatPoolsTheSlidingLayersStatesThePoolsSize) {
  std::string text = kOneEngine;
  text.erase(text.find(", \"q3\""), 6);
  std::string pool = text;
  pool.replace(pool.find("\"window\""), 8, "\"pool\"");
  EXPECT_EQ(refusal(pool),
            "engines.toml:17:14: engine 'x': field 'sliding_kv': 'pool' needs sliding_pool_ratio, "
            "the tokens a sliding layer holds per token of a full layer (1: the whole "
            "context)\n1 problem in 1 file");
  std::string window = text;
  window.insert(window.find("sliding_kv"), "sliding_pool_ratio = 0.8\n");
  EXPECT_EQ(refusal(window),
            "engines.toml:17:22: engine 'x': field 'sliding_pool_ratio': only an engine whose "
            "sliding_kv is 'pool' sizes a pool; remove it or set sliding_kv = \"pool\"\n1 "
            "problem in 1 file");
  pool.insert(pool.find("sliding_kv"), "sliding_pool_ratio = 0.8\n");
  auto loaded = load_engines({{"engines.toml", pool}});
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->engines[0].sliding_pool_ratio, 0.8);
  std::string other = text;
  other.replace(other.find("\"window\""), 8, "\"context\"");
  EXPECT_EQ(refusal(other),
            "engines.toml:17:14: engine 'x': field 'sliding_kv': 'context' is not accepted; "
            "expected 'window' or 'pool'\n1 problem in 1 file");
}

// What a sliding layer's attention reads is the engine's too, "window" or "context", and a
// kernel reads no more than the cache holds: reading the context needs it cached whole.
TEST(Engines, WhatASlidingLayerReadsIsOneOfTwoAndNeedsTheCacheToHoldIt) {
  std::string text = kOneEngine;
  text.erase(text.find(", \"q3\""), 6);
  std::string typo = text;
  typo.replace(typo.find("sliding_reads = \"window\""), 24, "sliding_reads = \"windw\"");
  EXPECT_EQ(refusal(typo),
            "engines.toml:18:17: engine 'x': field 'sliding_reads': 'windw' is not accepted; "
            "expected 'window' or 'context' (did you mean 'window'?)\n1 problem in 1 file");
  std::string context = text;
  context.replace(context.find("sliding_reads = \"window\""), 24, "sliding_reads = \"context\"");
  EXPECT_EQ(refusal(context),
            "engines.toml:18:17: engine 'x': field 'sliding_reads': 'context' reads every cached "
            "token of a sliding layer, but sliding_kv 'window' keeps each sequence's window; set "
            "sliding_reads = \"window\" or keep the whole context (sliding_kv = \"pool\", "
            "sliding_pool_ratio = 1)\n1 problem in 1 file");
  context.replace(context.find("sliding_kv = \"window\""), 21,
                  "sliding_kv = \"pool\"\nsliding_pool_ratio = 1");
  auto loaded = load_engines({{"engines.toml", context}});
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->engines[0].sliding_reads, "context");
}

// A release whose attention differs is a table of the engine, named by a run as id@version: its
// version once, its reads checked against the engine's cache as the engine's own.
TEST(Engines, AReleaseNamesItsVersionOnceAndReadsWhatTheCacheHolds) {
  std::string text = kOneEngine;
  text.erase(text.find(", \"q3\""), 6);
  const std::string release =
      "\n[[engine.release]]\nversion = \"0.9\"\nbackend = \"old\"\nsliding_reads = "
      "\"context\"\nsource = \"test\"\n";
  const size_t end = text.find("\n[[format]]");
  EXPECT_EQ(refusal(std::string(text).insert(end, release)),
            "engines.toml:44:17: engine 'x': release 1: field 'sliding_reads': 'context' reads "
            "every cached token of a sliding layer, but sliding_kv 'window' keeps each "
            "sequence's window; set sliding_reads = \"window\" or keep the whole context "
            "(sliding_kv = \"pool\", sliding_pool_ratio = 1)\n1 problem in 1 file");
  std::string windowed = release;
  windowed.replace(windowed.find("\"context\""), 9, "\"window\"");
  EXPECT_EQ(refusal(std::string(text).insert(end, windowed + windowed)),
            "engines.toml:48:11: engine 'x': release 2: field 'version': '0.9' is given "
            "twice\n1 problem in 1 file");
  auto loaded = load_engines({{"engines.toml", std::string(text).insert(end, windowed)}});
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  auto old = loaded->find_engine("X@0.9");
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ((*old)->id, "x");
  EXPECT_EQ((*old)->run_name(), "x@0.9");
  EXPECT_EQ((*old)->version, "0.9 (old)");
  auto unknown = loaded->find_engine("x@0.8");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            "engine 'x' has no release '0.8'; expected '0.9' (rigplan engines show x)");
}

// A [[host]] table names a host CPU once, and a GPU comes with one host at most.
TEST(Engines, AGpuComesWithOneHostAtMost) {
  std::string text = kOneEngine;
  text.erase(text.find(", \"q3\""), 6);
  const std::string grace =
      "\n[[host]]\nid = \"grace\"\nname = \"Grace\"\ngpus = [\"gb200-nvl72\"]\n"
      "single_thread = 0.7\nsource = \"test\"\n";
  std::string other = grace;
  other.replace(other.find("\"grace\""), 7, "\"other\"");
  EXPECT_EQ(refusal(text + grace + other),
            "engines.toml:70:8: host 'other': field 'gpus': 'gb200-nvl72' comes with host "
            "'grace' already\n1 problem in 1 file");
  auto loaded = load_engines({{"engines.toml", text + grace}});
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_NE(loaded->host_of("gb200-nvl72"), nullptr);
  EXPECT_EQ(loaded->host_of("gb200-nvl72")->single_thread, 0.7);
  EXPECT_EQ(loaded->host_of("b200-sxm-192gb"), nullptr);
}

// TensorRT-LLM 1.0's PyTorch backend takes host time per sequence each step; its 0.17 TensorRT
// engines and the engine's own figures (its newest release) none. Grace hosts GB200 and GH200.
TEST(Engines, OnlyTensorRtLlmOnePointZeroTakesHostTimePerSequence) {
  const Engines& engines = embedded_engines();
  EXPECT_EQ((*engines.find_engine("tensorrt-llm@1.0"))->host_sequence_us, 25.6);
  EXPECT_EQ((*engines.find_engine("tensorrt-llm@0.17"))->host_sequence_us, 0);
  EXPECT_EQ((*engines.find_engine("tensorrt-llm"))->host_sequence_us, 0);
  EXPECT_EQ((*engines.find_engine("vllm"))->host_sequence_us, 0);
  for (const char* g : {"gb200-nvl72", "gh200-96gb"}) {
    ASSERT_NE(engines.host_of(g), nullptr) << g;
    EXPECT_EQ(engines.host_of(g)->id, "grace");
    EXPECT_NE(catalog().gpu(g), nullptr) << g;  // a catalog GPU id
  }
  EXPECT_EQ(engines.host_of("h100-sxm5-80gb"), nullptr);
  // Every GPU a host names is a catalog GPU: a misspelt id would leave that GPU on an x86 host.
  for (const auto& h : engines.hosts) {
    for (const auto& g : h.gpus) EXPECT_NE(catalog().gpu(g), nullptr) << h.id << ": " << g;
  }
}

// How an engine's MoE kernels run a format's experts on a kind of GPU is data with its source:
// a format the engine runs, a calibration key, a compute type and a share of the efficiency,
// each refused with its file, line and the values accepted.
TEST(Engines, AnEngineSaysHowItsMoeKernelsRunAFormatsExperts) {
  std::string text = kOneEngine;
  text.erase(text.find(", \"q3\""), 6);
  const std::string table = R"(
[[engine.expert_gemm]]
format = "bf16"
architecture = "hopper-hbm"
compute = "fp8"
efficiency = 0.5
source = "test"
fitted_on = "rows"
)";
  auto loaded = load_engines({{"engines.toml", text + table}});
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const Engine& e = loaded->engines[0];
  ASSERT_EQ(e.expert_gemms.size(), 1u);
  EXPECT_EQ(e.expert_gemm("bf16", "hopper-hbm"), &e.expert_gemms[0]);
  EXPECT_EQ(e.expert_gemms[0].compute, "fp8");
  EXPECT_EQ(e.expert_gemms[0].efficiency, 0.5);
  EXPECT_EQ(e.expert_gemms[0].fitted_on, "rows");
  EXPECT_EQ(e.expert_gemm("bf16", "blackwell-hbm"), nullptr);

  auto refused = [&](const std::string& from, const std::string& to) {
    std::string bad = table;
    bad.replace(bad.find(from), from.size(), to);
    auto l = load_engines({{"engines.toml", text + bad}});
    EXPECT_FALSE(l.ok());
    return l.ok() ? std::string() : l.status().message();
  };
  EXPECT_EQ(refused("\"bf16\"", "\"mxfp4\""),
            "engines.toml:61:10: engine 'x': expert_gemm 1: field 'format': 'mxfp4' is not a "
            "format this engine runs; expected 'bf16'\n1 problem in 1 file");
  EXPECT_EQ(refused("hopper-hbm", "hoper-hbm"),
            "engines.toml:62:16: engine 'x': expert_gemm 1: field 'architecture': 'hoper-hbm' is "
            "not a calibration key; expected an architecture ('pascal', 'volta', 'turing', "
            "'ampere', 'ada', 'hopper', 'blackwell', 'rdna3', 'cdna2' or 'cdna3') and a memory "
            "class ('hbm', 'gddr' or 'geforce') joined by '-', as 'hopper-hbm' (did you mean "
            "'hopper-hbm' or 'ampere-hbm'?)\n1 problem in 1 file");
  EXPECT_EQ(refused("\"fp8\"", "\"fp6\""),
            "engines.toml:63:11: engine 'x': expert_gemm 1: field 'compute': 'fp6' is not "
            "accepted; expected 'fp32', 'fp16', 'fp16acc', 'bf16', 'fp8', 'int8' or 'fp4' (did "
            "you mean 'fp16', 'fp8' or 'fp4'?)\n1 problem in 1 file");
  EXPECT_EQ(refused("0.5", "1.5"),
            "engines.toml:64:14: engine 'x': expert_gemm 1: field 'efficiency': 1.5 is out of "
            "range; expected > 0 and <= 1\n1 problem in 1 file");
  EXPECT_EQ(refused("source = \"test\"\n", ""),
            "engines.toml:60:1: engine 'x': expert_gemm 1: missing required field 'source'\n1 "
            "problem in 1 file");
  auto twice = load_engines({{"engines.toml", text + table + table}});
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().message(),
            "engines.toml:70:16: engine 'x': expert_gemm 2: field 'architecture': 'bf16' on "
            "'hopper-hbm' is given twice\n1 problem in 1 file");
}

TEST(InferenceMemory, SeventyBOnFourH100sHoldsWeightsAndTheCacheOfSixteenLongPrompts) {
  const MemoryEstimate e = estimate("llama-3-70b", "h100-sxm5-80gb", llama70b_tp4("infer"));
  EXPECT_EQ(e.config.engine, "vllm");  // the inference default
  // 70,553,706,496 weights × 2 B / 4 GPUs.
  EXPECT_NEAR(term(e, "weights"), 70'553'706'496.0 * 2 / 4 / 1e9, 1e-6);  // 35.28 GB
  // 16 × 8192 tokens (whole 16-token blocks) × 2 · 80 layers · 8/4 KV heads · 128 · 2 B.
  EXPECT_NEAR(term(e, "kv_cache"), 16.0 * 8192 * 2 * 80 * 2 * 128 * 2 / 1e9, 1e-6);  // 10.74 GB
  // One 8192-token chunk, not the 131,072 prompt tokens; logits of the last positions only.
  EXPECT_NEAR(term(e, "activations"), 8192.0 * 28672 * 2 / 4 * 2 * 2 / 1e9, 1e-6);
  EXPECT_NEAR(term(e, "logits"), 1024.0 * 128256 * 4 / 1e9, 1e-6);  // vLLM's 1024 sequences
  EXPECT_GT(e.total_gb, 45);
  EXPECT_LT(e.total_gb, 55);
  EXPECT_TRUE(e.fits);
  EXPECT_NEAR(e.available_gb, 0.9 * 80 * 1.073741824, 1e-9);  // gpu_memory_utilization 0.9
}

TEST(InferenceMemory, AMixtureOfExpertsChunkHoldsEveryRoutedCopyOfItsTokens) {
  RunConfig c;
  c.mode = "infer";
  c.batch = 1;
  c.seq_len = 8192;
  // Qwen3 30B A3B (hidden 2048, 128 experts of 768, top 8) under vLLM on an H100: one 8192-token
  // chunk, each token in 8 experts: 8 · (max(2·768, 2048) + 768) = 22,528 values a token, more
  // than attention's 2 · 3 · 2048 = 12,288; at 2 B, 8192 · 22,528 · 2 = 369.1 MB.
  const MemoryEstimate qwen = estimate("qwen3-30b-a3b", "h100-sxm5-80gb", c);
  EXPECT_NEAR(term(qwen, "activations"), 8192.0 * 22'528 * 2 / 1e9, 1e-9);
  // Mixtral 8x22B over 4 GPUs (hidden 6144, experts of 16,384, top 2): 2 · (max(8192, 6144) +
  // 4096) = 24,576 values a token.
  c.gpus = c.tensor_parallel = 4;
  const MemoryEstimate mixtral = estimate("mixtral-8x22b", "h100-sxm5-80gb", c);
  EXPECT_NEAR(term(mixtral, "activations"), 8192.0 * 24'576 * 2 / 1e9, 1e-9);
}

TEST(InferenceMemory, LlamaCppHoldsAnF16EightBOnASixteenGigabyteCard) {
  RunConfig c;
  c.mode = "decode";
  c.engine = "llama.cpp";
  c.weights = "f16";
  c.batch = 1;
  c.seq_len = 1024;
  const MemoryEstimate e = estimate("llama-3-8b", "rtx-4080", c);
  EXPECT_NEAR(term(e, "weights"), 8'030'261'248.0 * 2 / 1e9, 1e-6);  // the 15 GiB F16 GGUF
  EXPECT_NEAR(term(e, "kv_cache"), 1024.0 * 2 * 32 * 8 * 128 * 2 / 1e9, 1e-6);
  // A compute buffer for one 512-token micro-batch, with its fp32 logits; no fragmentation.
  EXPECT_NEAR(term(e, "logits"), 512.0 * 128256 * 4 / 1e9, 1e-6);
  EXPECT_FALSE(has_term(e.terms, "allocator_fragmentation"));
  EXPECT_TRUE(e.fits) << e.total_gb << " of " << e.capacity_gb;
  // PyTorch's overheads (1 GB context, 5% fragmentation) do not fit it.
  c.engine = "pytorch";
  EXPECT_FALSE(estimate("llama-3-8b", "rtx-4080", c).fits);
}

TEST(InferenceMemory, PagedBlocksRoundEachSequenceUp) {
  RunConfig c;
  c.mode = "decode";
  c.batch = 2;
  c.seq_len = 1000;  // 63 blocks of 16 = 1008 tokens each
  const double per_token = 2.0 * 32 * 8 * 128 * 2;
  EXPECT_NEAR(term(estimate("llama-3-8b", "h100-sxm5-80gb", c), "kv_cache"),
              2 * 1008 * per_token / 1e9, 1e-9);
}

TEST(InferenceMemory, TensorParallelBeyondTheKvHeadsReplicatesThem) {
  RunConfig c = llama70b_tp4("decode");
  c.gpus = c.tensor_parallel = 16;  // 8 KV heads: one per GPU, replicated
  const double one_head = 16.0 * 8192 * 2 * 80 * 1 * 128 * 2 / 1e9;
  EXPECT_NEAR(term(estimate("llama-3-70b", "h100-sxm5-80gb", c), "kv_cache"), one_head, 1e-9);
}

TEST(InferenceMemory, EightGpusAloneSplitTheModelTheEnginesWay) {
  RunConfig c;
  c.mode = "decode";
  c.gpus = 8;
  c.batch = 1;
  c.seq_len = 4096;
  const MemoryEstimate vllm = estimate("llama-3-70b", "h100-sxm5-80gb", c);
  EXPECT_EQ(vllm.config.tensor_parallel, 2);  // 141 GB of weights: two GPUs hold a replica
  EXPECT_TRUE(vllm.fits);
  ASSERT_EQ(vllm.notes.size(), 1u);
  EXPECT_EQ(vllm.notes[0],
            "vLLM splits the model over 2 GPUs by tensor parallelism (--tp 2), 4 "
            "replicas");
  c.engine = "llama.cpp";
  const MemoryEstimate layers = estimate("llama-3-70b", "rtx-4090", c);
  EXPECT_EQ(layers.config.pipeline_parallel, 8);  // 141 GB over 24 GB cards
  EXPECT_EQ(layers.config.tensor_parallel, 1);
}

TEST(InferenceMemory, TheHintToSplitNamesTheFlagsThatReproduceIt) {
  RunConfig c;
  c.mode = "infer";
  c.batch = 1;
  c.seq_len = 8192;
  const MemoryEstimate e = estimate("llama-3-70b", "h100-sxm5-80gb", c);
  EXPECT_FALSE(e.fits);
  EXPECT_EQ(e.min_gpus, 2);
  bool named = false;
  for (const auto& s : e.suggestions) named = named || s.starts_with("--gpus 2 --tp 2 (tensor");
  EXPECT_TRUE(named);
  c.gpus = 2;
  c.tensor_parallel = 2;
  EXPECT_TRUE(estimate("llama-3-70b", "h100-sxm5-80gb", c).fits);
}

TEST(InferenceMemory, ServingWithoutABatchFillsTheKvCache) {
  RunConfig c;
  c.mode = "serve";
  c.seq_len = 1024;
  c.gen_tokens = 1024;
  const MemoryEstimate e = estimate("llama-3.1-8b", "h100-sxm5-80gb", c);
  EXPECT_EQ(*e.config.batch, e.max_sequences);
  EXPECT_GT(e.max_sequences, 100);
  EXPECT_TRUE(e.fits);
  EXPECT_LE(e.total_gb, e.available_gb);
}

// llama.cpp decodes one slot by default (--parallel 1), while the room beside Llama 3 8B in
// Q4_K_M on an RTX 4090 holds 18 sequences of 8,192 tokens, each 2 (K, V) × 32 layers × 8 KV
// heads × 128 × 2 B × 8,192 = 1.074 GB of cache: the largest batch. The KV line says both, by
// llama.cpp's name for the slots, so that "Largest batch that fits: 18" reads beside "1 sequence".
TEST(InferenceMemory, LlamaCppSaysItsOneSlotAndTheSlotsTheRoomHolds) {
  RunConfig c;
  c.mode = "decode";
  c.engine = "llama.cpp";
  c.weights = "q4_k_m";
  c.seq_len = 8192;
  const MemoryEstimate e = estimate("llama-3-8b", "rtx-4090", c);
  const double per_sequence_gb = 2.0 * 32 * 8 * 128 * 2 * 8192 / 1e9;
  EXPECT_EQ(e.max_sequences, 1);
  EXPECT_EQ(e.engine_max_sequences, 1);
  EXPECT_EQ(e.kv_sequences, static_cast<int>(e.kv_room_gb / per_sequence_gb));
  EXPECT_EQ(e.kv_sequences, 18);
  EXPECT_EQ(e.max_batch, 18);
  const std::string text = report::memory_text(workload("llama-3-8b"), gpu("rtx-4090"), e, false);
  EXPECT_NE(text.find(fmt::format("KV cache room: {:.1f} GB, 1 sequence of 8192 tokens at once "
                                  "per replica: llama.cpp's limit (--max-seqs 1, --parallel 1 in "
                                  "llama.cpp); the room holds 18 (--max-seqs 18, --parallel 18 in "
                                  "llama.cpp).\n",
                                  e.kv_room_gb)),
            std::string::npos)
      << text;
  // Given 18 slots, the line has nothing to add.
  c.max_seqs = 18;
  const MemoryEstimate slots = estimate("llama-3-8b", "rtx-4090", c);
  EXPECT_EQ(slots.max_sequences, 18);
  EXPECT_NE(report::memory_text(workload("llama-3-8b"), gpu("rtx-4090"), slots, false)
                .find(fmt::format("KV cache room: {:.1f} GB, 18 sequences of 8192 tokens at once "
                                  "per replica.\n",
                                  slots.kv_room_gb)),
            std::string::npos);
}

// Layers in host memory are not modelled for a served LLM: --offload was ignored, and Llama 3 70B
// in Q4_K_M (42.8 GB) on one 24 GB RTX 4090 decoded at the speed of a GPU holding it all,
// 18.9 tokens/s (42.8 GB / (1,008 GB/s × 0.85) = 50 ms a token).
TEST(InferenceMemory, OffloadIsRefusedWithWhatTheEngineWouldDo) {
  RunConfig c;
  c.mode = "decode";
  c.engine = "llama.cpp";
  c.weights = "q4_k_m";
  c.offload = "cpu";
  auto e = estimate_memory(workload("llama-3-70b"), gpu("rtx-4090"), c);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(),
            "--offload cpu: rigplan predicts an LLM served for inference with every layer in GPU "
            "memory, and reports a model that does not fit as not fitting, with the layouts that "
            "hold it (`rigplan memory`: --gpus N with --tp N or --pp N, or a smaller --weights "
            "format); llama.cpp's offload (the layers left in host memory run on the CPU, -ngl) "
            "is not modelled; give --offload none");
  c.engine = "tensorrt-llm";
  c.weights = "fp8";
  e = estimate_memory(workload("llama-3-70b"), gpu("h100-sxm5-80gb"), c);
  ASSERT_FALSE(e.ok());
  EXPECT_TRUE(
      e.status().message().ends_with("; tensorrt-llm does not offload; give --offload "
                                     "none"))
      << e.status().message();
  c.offload = "none";
  EXPECT_TRUE(estimate_memory(workload("llama-3-70b"), gpu("h100-sxm5-80gb"), c).ok());
}

// A served request generates at least one token: without --output-len (0 by default) the answer
// served one token a request and said "1024 + 0 tokens".
TEST(InferenceMemory, ServingRefusesRequestsThatGenerateNothing) {
  RunConfig c;
  c.mode = "serve";
  c.seq_len = 1024;
  auto e = estimate_memory(workload("llama-3.1-8b"), gpu("l40s"), c);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(),
            "--mode serve: every request generates --output-len tokens after its prompt, and 0 "
            "generates none; give --output-len 1 or more");
  c.gen_tokens = 1;
  EXPECT_TRUE(estimate_memory(workload("llama-3.1-8b"), gpu("l40s"), c).ok());
}

TEST(InferenceMemory, RejectsWhatAnEngineDoesNotRun) {
  RunConfig c;
  c.mode = "decode";
  c.engine = "llama.cpp";
  c.weights = "awq";
  auto e = estimate_memory(workload("llama-3-8b"), gpu("rtx-4090"), c);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(),
            "llama.cpp (and ollama, which runs it) does not run int4 weights; it runs 'fp32', "
            "'f16', 'bf16', 'q8_0', 'q6_k', 'q5_k_m', 'q4_k_m', 'q4_0' and 'mxfp4_moe'");
  c = RunConfig{};
  c.engine = "vllm";
  e = estimate_memory(workload("llama-3-8b"), gpu("rtx-4090"), c);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(),
            "--engine vllm serves models; training runs in pytorch (give --mode infer, prefill, "
            "decode or serve)");
}

// GPT-OSS 120B (36 layers, 8 KV heads of 64): a cached token costs 2 · 8 · 64 · 2 B = 2,048 B in
// each layer. Its 18 sliding layers keep at most their window of 128 tokens: under vLLM the
// blocks of 16 that a window can straddle, 128 + 15 tokens rounded up to 144. At a context of
// 8192: 2,048 · (18 · 8192 + 18 · 144) = 307,298,304 B, 37,512 B a token; at 128 every layer
// holds the context, 2,048 · 36 = 73,728 B a token.
TEST(InferenceMemory, SlidingLayersOfGptOssCacheOnlyTheirWindow) {
  RunConfig c;
  c.mode = "infer";
  c.weights = "mxfp4";
  c.batch = 1;
  c.seq_len = 8192;
  const MemoryEstimate vllm = estimate("gpt-oss-120b", "h200-sxm-141gb", c);
  EXPECT_NEAR(term(vllm, "kv_cache"), 2048.0 * (18 * 8192 + 18 * 144) / 1e9, 1e-12);
  EXPECT_NEAR(term(vllm, "kv_cache") * 1e9 / 8192, 37'512, 1e-6);
  c.seq_len = 128;
  EXPECT_NEAR(term(estimate("gpt-oss-120b", "h200-sxm-141gb", c), "kv_cache") * 1e9 / 128, 73'728,
              1e-6);
  // SGLang's sliding pool holds 0.8 of the full layers' tokens (swa_full_tokens_ratio); PyTorch
  // (transformers 4.45) caches the whole context in every layer.
  c.seq_len = 8192;
  c.engine = "sglang";
  EXPECT_NEAR(term(estimate("gpt-oss-120b", "h200-sxm-141gb", c), "kv_cache"),
              2048.0 * (18 * 8192 + 18 * 0.8 * 8192) / 1e9, 1e-12);
  c.engine = "pytorch";
  c.weights = "bf16";
  EXPECT_NEAR(term(estimate("gpt-oss-20b", "h200-sxm-141gb", c), "kv_cache"),
              2048.0 * 24 * 8192 / 1e9, 1e-12);
}

// Gemma 2 9B (42 layers, 8 KV heads of 256): a cached token costs 2 · 8 · 256 · 2 B = 8,192 B in
// each layer. Its 21 sliding layers (window 4,096, every other layer) keep under vLLM the
// blocks of 16 a window can straddle: 4,096 + 15 tokens rounded up to 4,112. At a context of
// 8,192: 8,192 · (21 · 8,192 + 21 · 4,112) = 2,116,681,728 B, 258,384 B a token; at 2,048 every
// layer holds the context, 8,192 · 42 = 344,064 B a token. PyTorch keeps the whole context.
TEST(InferenceMemory, SlidingLayersOfGemma2CacheOnlyTheirWindowUnderVllm) {
  RunConfig c;
  c.mode = "infer";
  c.batch = 1;
  c.seq_len = 8192;
  const double at_8k = term(estimate("gemma-2-9b", "l40s", c), "kv_cache");
  EXPECT_NEAR(at_8k, 2'116'681'728.0 / 1e9, 1e-12);
  EXPECT_NEAR(at_8k * 1e9 / 8192, 258'384, 1e-6);
  c.seq_len = 2048;
  EXPECT_NEAR(term(estimate("gemma-2-9b", "l40s", c), "kv_cache") * 1e9 / 2048, 344'064, 1e-6);
  c.seq_len = 8192;
  c.engine = "pytorch";
  EXPECT_NEAR(term(estimate("gemma-2-9b", "l40s", c), "kv_cache"), 8192.0 * 42 * 8192 / 1e9, 1e-12);
}

// The native checkpoint: the experts' 114,701,598,720 weights (128 · 36 of 24,891,840) in MXFP4
// at 4.25 bits, the other 2,127,557,952 (attention, routers, norms, embeddings, LM head) in bf16:
// 60,935,224,320 + 4,255,115,904 = 65,190,340,224 B, 60.71 GiB (the Hugging Face repository's
// 65 GB). 20B: 19,116,933,120 · 4.25/8 + 1,797,824,064 · 2 = 13,751,518,848 B, 12.81 GiB.
TEST(InferenceMemory, GptOssNativeCheckpointHoldsItsExpertsInMxfp4AndTheRestInBf16) {
  RunConfig c;
  c.mode = "infer";
  c.weights = "mxfp4";
  c.batch = 1;
  c.seq_len = 1024;
  const MemoryEstimate big = estimate("gpt-oss-120b", "h200-sxm-141gb", c);
  EXPECT_NEAR(term(big, "weights"), 65'190'340'224.0 / 1e9, 1e-9);
  EXPECT_NEAR(term(big, "weights") * 1e9 / (1 << 30), 60.71, 0.01);
  EXPECT_NEAR(term(estimate("gpt-oss-20b", "h100-sxm5-80gb", c), "weights"), 13'751'518'848.0 / 1e9,
              1e-9);
  for (const auto& t : big.terms) {
    if (t.name == "weights") {
      EXPECT_NE(t.formula.find("P_experts·bits/8 + (P - P_experts)·bits_rest/8"), std::string::npos)
          << t.formula;
      EXPECT_NE(t.values.find("·4.25/8 + ("), std::string::npos) << t.values;
      EXPECT_NE(t.values.find(")·16/8"), std::string::npos) << t.values;
    }
  }
  // llama.cpp's gpt-oss GGUFs (MXFP4_MOE) keep the other tensors in Q8_0, 8.5 bits:
  // 60,935,224,320 + 2,127,557,952 · 8.5/8 = 63,195,754,644 B, 58.86 GiB (llama-bench reports
  // 60.03 GiB for the file, validation/serving.csv); 20B: 10,155,870,720 + 1,910,188,068 =
  // 12,066,058,788 B.
  c.engine = "llama.cpp";
  c.weights = "mxfp4_moe";
  EXPECT_NEAR(term(estimate("gpt-oss-120b", "rtx-pro-6000-blackwell", c), "weights"),
              63'195'754'644.0 / 1e9, 1e-9);
  EXPECT_NEAR(term(estimate("gpt-oss-20b", "rtx-4080", c), "weights"), 12'066'058'788.0 / 1e9,
              1e-9);
  c.engine = "vllm";
  c.weights = "mxfp4";
  // A dense model has no experts: mxfp4 leaves all of it in 16 bit, as vLLM's Mxfp4Config does.
  c.seq_len = 128;
  EXPECT_NEAR(term(estimate("llama-3-8b", "h100-sxm5-80gb", c), "weights"),
              8'030'261'248.0 * 2 / 1e9, 1e-9);
}

TEST(InferencePerf, SeventyBDecodeOnFourH100sReadsWeightsAndCacheOncePerStep) {
  const Prediction p = run("llama-3-70b", "h100-sxm5-80gb", llama70b_tp4("decode"));
  EXPECT_GT(p.throughput, 500);
  EXPECT_LT(p.throughput, 2500);
  // Weights 35.3 GB and cache 10.7 GB per GPU at 3350 GB/s: at least 13.8 ms a step.
  EXPECT_GT(p.step_time_s, (35.28e9 + 10.74e9) / 3350e9);
  EXPECT_EQ(p.bound, "memory");
}

TEST(InferencePerf, TensorParallelTrafficDoesNotGrowWithTheContext) {
  auto comm = [](int seq) {
    RunConfig c = llama70b_tp4("decode");
    c.seq_len = seq;
    return term(run("llama-3-70b", "h100-sxm5-80gb", c), "communication");
  };
  EXPECT_GT(comm(128), 0);
  EXPECT_DOUBLE_EQ(comm(128), comm(8192));
}

TEST(InferencePerf, DecodeAtBatchOneIsBoundByTheWeightsRead) {
  RunConfig c;
  c.mode = "decode";
  c.engine = "llama.cpp";
  c.weights = "q4_0";
  c.batch = 1;
  c.seq_len = 1;
  c.gen_tokens = 128;
  const Prediction p = run("llama-2-7b", "rtx-4090", c);
  // 6.74e9 weights × 4.55 bits = 3.83 GB per token over 1008 GB/s: at most 263 tokens/s.
  EXPECT_LT(p.throughput, 1008e9 / (6'738'415'616.0 * 4.55 / 8));
  EXPECT_GT(p.throughput, 100);
}

TEST(InferencePerf, AMixtureOfExpertsDecodeReadsTheExpertsItsBatchPicks) {
  RunConfig c;
  c.mode = "decode";
  c.batch = 1;
  c.seq_len = 1;
  // Qwen3 30B A3B in bf16 on an H100 (3350 GB/s): attention 48 × 18,874,368 weights (1.81 GB)
  // and the LM head 151,936 × 2048 (0.62 GB) every step; of the experts' 57.98 GB, a batch of 1
  // reads its 8 experts of 128 (3.62 GB), a batch of 64 reads 125.94 of them (57.05 GB).
  const Prediction one = run("qwen3-30b-a3b", "h100-sxm5-80gb", c);
  EXPECT_GT(one.step_time_s, (1.812e9 + 0.622e9 + 3.624e9) / 3350e9);
  EXPECT_LT(one.step_time_s, (1.812e9 + 0.622e9 + 57.98e9) / 3350e9);
  EXPECT_NE(one.note.find("routing assumed uniform"), std::string::npos);
  EXPECT_NE(one.note.find("(8 at a batch of 1)"), std::string::npos);
  c.batch = 64;
  const Prediction many = run("qwen3-30b-a3b", "h100-sxm5-80gb", c);
  EXPECT_GT(many.step_time_s, (1.812e9 + 0.622e9 + 57.05e9) / 3350e9);
  EXPECT_EQ(many.bound, "memory");
  EXPECT_NE(many.note.find("(125.9 at a batch of 64)"), std::string::npos);
}

// Llama 3 70B decoding 16 sequences at TP 4 on H100s: 2 all-reduces in each of 80 layers of
// 16 · 8,192 · 2 B = 262,144 B, each 8 µs (inference_constants.h, one-shot kernels over
// NVSwitch) plus the ring's 2 · 3/4 of the bytes at 900/2 GB/s · 0.77 (NVLink efficiency):
// 160 · (8 µs + 393,216 B / 346.5 GB/s) = 160 · 9.1348 µs = 1.4616 ms a step.
TEST(InferencePerf, ATensorParallelDecodeStepsAllReducesAreALatencyPlusTheRingsBytes) {
  const Prediction p = run("llama-3-70b", "h100-sxm5-80gb", llama70b_tp4("decode"));
  EXPECT_NEAR(term(p, "communication"), 160 * (8e-6 + 1.5 * 262144 / (450e9 * 0.77)), 1e-7);
}

// Llama 3.2 1B decoding 1,024 sequences under TensorRT-LLM 1.0: the GPUs take under 8 ms a step
// (0.17 without host time: 7.63 ms on an H100), the host 1,024 × 25.6 µs = 26.2144 ms on an x86
// server (H100) and 1,024 × 25.6 / 0.7 = 37.449 ms on GH200's Grace; the step waits for it.
TEST(InferencePerf, ALargeBatchOfASmallModelWaitsForTheHost) {
  RunConfig c;
  c.mode = "decode";
  c.engine = "tensorrt-llm@1.0";
  c.batch = 1024;
  c.seq_len = 128;
  c.gen_tokens = 2;
  const Prediction x86 = run("llama-3.2-1b", "h100-sxm5-80gb", c);
  EXPECT_NEAR(x86.step_time_s, 1024 * 25.6e-6, 1e-9);
  EXPECT_EQ(x86.bound, "host");
  EXPECT_GT(term(x86, "host_scheduling"), 0.015);
  EXPECT_NE(x86.note.find("25.6 µs a sequence in the step (on an x86 server's host); a step takes "
                          "the longer of the two, here the host's 26.21 ms (the GPUs' "),
            std::string::npos)
      << x86.note;
  const Prediction grace = run("llama-3.2-1b", "gh200-96gb", c);
  EXPECT_NEAR(grace.step_time_s, 1024 * 25.6e-6 / 0.7, 1e-9);
  EXPECT_NE(grace.note.find("36.57 µs a sequence in the step (25.6 µs on an x86 server's host / "
                            "0.7, the single-thread speed of NVIDIA Grace"),
            std::string::npos)
      << grace.note;
  c.engine = "tensorrt-llm@0.17";
  const Prediction engines = run("llama-3.2-1b", "h100-sxm5-80gb", c);
  EXPECT_LT(engines.step_time_s, 0.008);
  EXPECT_EQ(engines.bound, "compute");
  EXPECT_EQ(engines.note.find("host:"), std::string::npos);
}

// Decoding at a context of 32,768, half of GPT-OSS's layers read 32,768 cached tokens and half
// read 128: memory-bound attention takes (32,768 + 128)/(2 · 32,768) of the time it would take
// were every layer full.
TEST(InferencePerf, SlidingLayersReadOnlyTheirWindowOfTheCache) {
  RunConfig c;
  c.mode = "decode";
  c.weights = "mxfp4";
  c.batch = 16;
  c.seq_len = 32767;
  c.gen_tokens = 2;  // a mean context of 32,768
  const Workload& w = workload("gpt-oss-20b");
  Workload full = w;
  full.transformer->sliding_window.reset();
  full.transformer->sliding_window_pattern.reset();
  auto sliding = predict(w, gpu("h100-sxm5-80gb"), c, Calibration{}, catalog());
  auto every = predict(full, gpu("h100-sxm5-80gb"), c, Calibration{}, catalog());
  ASSERT_TRUE(sliding.ok() && every.ok());
  EXPECT_NEAR(term(*sliding, "attention") / term(*every, "attention"),
              (32768.0 + 128) / (2 * 32768), 1e-9);
  EXPECT_GT(sliding->throughput, every->throughput);
  EXPECT_NE(sliding->note.find("sliding-window attention: 12 of the 24 layers attend to the last "
                               "128 tokens, whose keys and values are all they read; vLLM keeps "
                               "each sequence's window of them"),
            std::string::npos)
      << sliding->note;
}

// Gemma 2 9B decoding at a mean context of 6,144: its 21 full layers read 6,144 cached tokens
// and its 21 sliding ones 4,096, (6,144 + 4,096)/(2 · 6,144) = 0.8333 of the keys (and of the
// memory-bound attention time) of a model whose every layer is full.
TEST(InferencePerf, Gemma2SlidingLayersReadTheirWindowOfKeysPerDecodeStep) {
  RunConfig c;
  c.mode = "decode";
  c.batch = 16;
  c.seq_len = 6143;
  c.gen_tokens = 2;
  const Workload& w = workload("gemma-2-9b");
  Workload full = w;
  full.transformer->sliding_window.reset();
  full.transformer->sliding_window_pattern.reset();
  auto sliding = predict(w, gpu("l40s"), c, Calibration{}, catalog());
  auto every = predict(full, gpu("l40s"), c, Calibration{}, catalog());
  ASSERT_TRUE(sliding.ok() && every.ok());
  EXPECT_NEAR(term(*sliding, "attention") / term(*every, "attention"), (6144.0 + 4096) / (2 * 6144),
              1e-9);
  EXPECT_NE(sliding->note.find("sliding-window attention: 21 of the 42 layers attend to the last "
                               "4096 tokens"),
            std::string::npos)
      << sliding->note;
}

// What each embedded engine's attention reads of a sliding layer (data/engines/engines.toml):
// the window where the kernel is given it, every cached key where it only masks them.
TEST(Engines, EachEngineSaysWhatASlidingLayersAttentionReads) {
  const Engines& engines = embedded_engines();
  for (auto [name, reads] : {std::pair{"pytorch", "context"},
                             {"vllm", "window"},
                             {"sglang", "window"},
                             {"llama.cpp", "window"},
                             {"tensorrt-llm", "window"},
                             {"tensorrt-llm@0.17", "context"},
                             {"trt-llm@0.17", "context"}}) {
    auto e = engines.find_engine(name);
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_EQ((*e)->sliding_reads, reads) << name;
  }
  const Engine& v017 = **engines.find_engine("trt-llm@0.17");
  EXPECT_EQ(v017.id, "tensorrt-llm");
  EXPECT_EQ(v017.run_name(), "tensorrt-llm@0.17");
  EXPECT_EQ(v017.version, "0.17 (TensorRT engines: trtllm-build, run by trtllm-bench)");
  EXPECT_EQ(v017.gemm_efficiency, (*engines.find_engine("tensorrt-llm"))->gemm_efficiency);
  auto none = engines.find_engine("vllm@0.10");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            "engine 'vllm' has no release '0.10'; it names none: drop '@' and what follows "
            "(rigplan engines show vllm)");
}

// Gemma 2 9B decoding 16 sequences at a mean context of 8,192 on an H100 SXM (3,350 GB/s, 0.85
// of it under TensorRT-LLM's prior): a cached token is 2 · 8 · 256 · 2 = 8,192 B a layer. Under
// TensorRT-LLM 1.0 (window reads) its 21 full layers read 8,192 tokens and its 21 sliding ones
// 4,096: 16 · 8,192 · 21 · 12,288 = 33,822,867,456 B a step. Under 0.17's TensorRT engines
// every layer reads the context: 16 · 8,192 · 42 · 8,192 = 45,097,156,608 B, 4/3 as many. The
// attention is memory-bound (2 FLOP a byte), so its seconds are those bytes at the bandwidth.
TEST(InferencePerf, Gemma2DecodeReadsTheWindowOrTheContextAsTheEngineDoes) {
  RunConfig c;
  c.mode = "decode";
  c.batch = 16;
  c.seq_len = 8191;
  c.gen_tokens = 2;  // a mean context of 8,192
  c.engine = "tensorrt-llm";
  const Prediction window = run("gemma-2-9b", "h100-sxm5-80gb", c);
  c.engine = "tensorrt-llm@0.17";
  const Prediction context = run("gemma-2-9b", "h100-sxm5-80gb", c);
  const double bytes_per_s = 3350e9 * 0.85;
  EXPECT_NEAR(term(window, "attention") * bytes_per_s, 33'822'867'456.0, 1);
  EXPECT_NEAR(term(context, "attention") * bytes_per_s, 45'097'156'608.0, 1);
  EXPECT_EQ(context.config.engine, "tensorrt-llm@0.17");
  EXPECT_NE(context.note.find("sliding-window attention: 21 of the 42 layers attend to the last "
                              "4096 tokens, but TensorRT-LLM 0.17 (TensorRT engines: "
                              "trtllm-build, run by trtllm-bench) reads every cached key of "
                              "them, the older ones masked; it keeps the whole context for them"),
            std::string::npos)
      << context.note;
}

// A prompt of 16,384 tokens in TensorRT-LLM's chunks of 8,192: a full layer's queries attend to
// 16,384 · 16,385/2 = 134,225,920 keys in all, a sliding layer's (window 4,096) to
// 4,096 · 4,097/2 + 12,288 · 4,096 = 58,722,304 (causal_keys). Compute-bound, Gemma 2's
// attention takes (134,225,920 + 58,722,304)/(2 · 134,225,920) of the time where the kernel reads
// the window that it takes where it reads the context, as every layer were full.
TEST(InferencePerf, Gemma2PrefillAttendsToTheWindowOnlyWhereTheEngineReadsIt) {
  RunConfig c;
  c.mode = "prefill";
  c.batch = 1;
  c.seq_len = 16384;
  c.engine = "tensorrt-llm";
  const Prediction window = run("gemma-2-9b", "h100-sxm5-80gb", c);
  c.engine = "tensorrt-llm@0.17";
  const Prediction context = run("gemma-2-9b", "h100-sxm5-80gb", c);
  EXPECT_NEAR(term(window, "attention") / term(context, "attention"),
              (134'225'920.0 + 58'722'304) / (2 * 134'225'920.0), 1e-9);
}

// Mistral 7B v0.1 slides every layer over 4,096 tokens. TensorRT-LLM 0.17 reads the whole
// context, so its prediction is the one of a model without the window (as the v0.17 rows of
// validation/serving.csv measured); vLLM reads the window and keeps 4,096 + 15 tokens of it in
// blocks of 16: at a context of 8,192, 32 · 4,112 · 4,096 B (2 · 8 KV heads · 128 · 2 B a token
// and layer) = 538,968,064 B a sequence, against 32 · 8,192 · 4,096 = 1,073,741,824 B.
TEST(InferencePerf, Mistral7bSlidesWhereTheEngineReadsTheWindow) {
  RunConfig c;
  c.mode = "decode";
  c.batch = 16;
  c.seq_len = 20000;
  c.gen_tokens = 2000;
  c.engine = "tensorrt-llm@0.17";
  Workload full = workload("mistral-7b");
  ASSERT_EQ(full.transformer->sliding_layers(), 32);
  full.transformer->sliding_window.reset();
  auto without = predict(full, gpu("h100-sxm5-80gb"), c, Calibration{}, catalog());
  ASSERT_TRUE(without.ok());
  EXPECT_EQ(run("mistral-7b", "h100-sxm5-80gb", c).throughput, without->throughput);
  c.engine = "tensorrt-llm";
  EXPECT_GT(run("mistral-7b", "h100-sxm5-80gb", c).throughput, 1.5 * without->throughput);
  RunConfig m;
  m.mode = "infer";
  m.batch = 1;
  m.seq_len = 8192;
  m.engine = "vllm";
  EXPECT_NEAR(term(estimate("mistral-7b", "l40s", m), "kv_cache"), 538'968'064.0 / 1e9, 1e-12);
  m.engine = "tensorrt-llm@0.17";
  EXPECT_NEAR(term(estimate("mistral-7b", "l40s", m), "kv_cache"), 1'073'741'824.0 / 1e9, 1e-12);
}

// `rigplan engines show tensorrt-llm` lists its [[engine.expert_gemm]] entries: the format, the
// calibration key, the rate the kernel runs at, its efficiency and its source.
TEST(Engines, ShowPrintsAnEnginesExpertGemms) {
  const Engines& engines = embedded_engines();
  const std::string text = report::show_text(**engines.find_engine("tensorrt-llm"), engines);
  EXPECT_NE(text.find("\nexpert GEMM: mxfp4 experts on hopper-hbm GPUs run at the bf16 rate, "
                      "0.31 of the engine's GEMM efficiency; source: TensorRT-LLM's GPT-OSS "
                      "deployment guide"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nexpert GEMM: mxfp4 experts on blackwell-hbm GPUs run at the fp8 rate, "
                      "0.56 of the engine's GEMM efficiency; source: "),
            std::string::npos)
      << text;
  EXPECT_EQ(report::show_text(**engines.find_engine("vllm"), engines).find("expert GEMM"),
            std::string::npos);
}

// TensorRT-LLM runs GPT-OSS's MXFP4 experts through kernels of their own (engines.toml
// [[engine.expert_gemm]]): on Hopper weight-only W4A16 at 0.31 of its bf16 GEMM efficiency, on
// B200 W4A8 at the FP8 rate (not FP4's) and 0.56 of it. A decode step of 1,024 sequences of
// gpt-oss-20b, engine priors (gemm 0.75, memory 0.85): each of a layer's 3 expert projections
// (2880 × 2880, 32 experts, top 4) multiplies 4,096 routed rows, 128 for each of the 32 experts
// (all touched), in 32 × 23 = 736 tiles, the last column tile half full (2880/2944 of their work
// real): 2 · 4096 · 2880² = 67.95 GFLOP over
// 32 · 2880² · 4.25/8 = 141.0 MB of MXFP4 weights and 4096 · 5760 · 2 = 47.19 MB of activations.
// The same model in bf16 reads 530.8 MB of expert weights; every other term is the same, so the
// two steps' GEMM times differ by 24 layers × 3 projections × the difference of one.
TEST(InferencePerf, TensorRtLlmRunsGptOssMxfp4ExpertsAsItsMoeKernelsDo) {
  RunConfig c;
  c.mode = "decode";
  c.engine = "tensorrt-llm";
  c.batch = 1024;
  c.seq_len = 1;
  c.gen_tokens = 2;
  auto gemm_s = [&](const char* g, const char* weights) {
    c.weights = weights;
    return term(run("gpt-oss-20b", g, c), "gemm");
  };
  // H100 (989.4 bf16 TFLOPS, 132 SMs: 6 waves, 736/792 full; 3,350 GB/s). MXFP4 compute-bound:
  // 67.95e9 / (989.4e12 · 0.75 · 0.31 · 736/792 · 2880/2944) = 324.92 µs (its bytes take
  // 66.09 µs); bf16 memory-bound: (530.8 + 47.19) MB / (3350e9 · 0.85) = 202.99 µs (compute
  // 100.7 µs).
  EXPECT_NEAR(gemm_s("h100-sxm5-80gb", "mxfp4") - gemm_s("h100-sxm5-80gb", "bf16"),
              72 * (317.854e-6 * 2944 / 2880 - 202.995e-6), 72 * 0.002e-6);
  // B200 (4,500 FP8 TFLOPS, 148 SMs: 5 waves, 736/740 full; 8,000 GB/s). MXFP4 compute-bound at
  // the FP8 rate: 67.95e9 / (4500e12 · 0.75 · 0.56 · 736/740 · 2880/2944) = 36.950 µs (at the
  // FP4 rate it would be bound by its bytes, 27.675 µs); bf16 memory-bound, 578.0 MB / 6800 GB/s
  // = 85.004 µs.
  EXPECT_NEAR(gemm_s("b200-sxm-192gb", "mxfp4") - gemm_s("b200-sxm-192gb", "bf16"),
              72 * (36.147e-6 * 2944 / 2880 - 85.004e-6), 72 * 0.002e-6);
  c.weights = "mxfp4";
  const Prediction p = run("gpt-oss-20b", "h100-sxm5-80gb", c);
  EXPECT_NE(p.note.find("TensorRT-LLM runs the mxfp4 experts' GEMMs on hopper-hbm at the bf16 "
                        "rate, 0.31 of its GEMM efficiency"),
            std::string::npos)
      << p.note;
}

TEST(InferencePerf, PyTorchLaunchesEachTouchedExpertOfAMixtureOnItsOwn) {
  RunConfig c;
  c.mode = "decode";
  c.batch = 1;
  c.seq_len = 1;
  // Qwen3 30B A3B (48 layers) on an H100. vLLM's fused MoE: 15 µs a layer and 1.5 ms a step.
  // PyTorch eager: 400 µs a layer and 8 ms a step, plus 50 µs for each expert its loop runs in
  // each layer: 8 at batch 1 (19.2 ms a step), 125.94 at batch 64 (302.3 ms).
  c.engine = "vllm";
  EXPECT_NEAR(term(run("qwen3-30b-a3b", "h100-sxm5-80gb", c), "launch_and_host"),
              48 * 15e-6 + 1.5e-3, 1e-12);
  c.engine = "pytorch";
  const Prediction one = run("qwen3-30b-a3b", "h100-sxm5-80gb", c);
  EXPECT_NEAR(term(one, "launch_and_host"), 48 * 400e-6 + 8e-3 + 8 * 48 * 50e-6, 1e-12);
  EXPECT_NE(one.note.find("each touched expert's GEMMs run on their own, 50 µs"), std::string::npos)
      << one.note;
  c.batch = 64;
  const double touched = 128 * (1 - std::pow(1 - 8.0 / 128, 64));  // 125.94
  EXPECT_NEAR(term(run("qwen3-30b-a3b", "h100-sxm5-80gb", c), "launch_and_host"),
              48 * 400e-6 + 8e-3 + touched * 48 * 50e-6, 1e-12);
  // A dense model under PyTorch pays no per-expert launches.
  c.batch = 1;
  EXPECT_NEAR(term(run("llama-3-8b", "h100-sxm5-80gb", c), "launch_and_host"), 32 * 400e-6 + 8e-3,
              1e-12);
}

TEST(InferencePerf, LlamaCppRoutesAndCombinesTheExpertsWithKernelsOfTheirOwn) {
  RunConfig c;
  c.mode = "decode";
  c.engine = "llama.cpp";
  c.weights = "q4_k_m";
  c.batch = 1;
  c.seq_len = 1;
  // Qwen3 30B A3B (48 layers, top-8): 30 µs a layer and 0.2 ms a step, plus 11.2 µs of router
  // and weighting kernels and 7 adds of the experts' outputs at 1.6 µs in every layer.
  const Prediction moe = run("qwen3-30b-a3b", "rtx-pro-6000-blackwell", c);
  EXPECT_NEAR(term(moe, "launch_and_host"), 48 * (30 + 11.2 + 7 * 1.6) * 1e-6 + 0.2e-3, 1e-12);
  EXPECT_NE(moe.note.find("routing and combining add 22.4 µs of launches a layer"),
            std::string::npos)
      << moe.note;
  EXPECT_NE(moe.note.find("whole tiles of the step's width, min(128, T rounded up to 8) rows"),
            std::string::npos);
  // Mixtral picks 2: one add.
  EXPECT_NEAR(term(run("mixtral-8x7b", "rtx-pro-6000-blackwell", c), "launch_and_host"),
              32 * (30 + 11.2 + 1.6) * 1e-6 + 0.2e-3, 1e-12);
  // A dense model has neither.
  EXPECT_NEAR(term(run("llama-3-8b", "rtx-pro-6000-blackwell", c), "launch_and_host"),
              32 * 30e-6 + 0.2e-3, 1e-12);
  // vLLM's fused kernels sum the experts in the GEMM's epilogue: nothing more a layer.
  c.engine = "vllm";
  c.weights = "bf16";
  EXPECT_NEAR(term(run("qwen3-30b-a3b", "h100-sxm5-80gb", c), "launch_and_host"),
              48 * 15e-6 + 1.5e-3, 1e-12);
}

TEST(InferencePerf, LlamaCppAddsEachBiasWithAKernelOfItsOwn) {
  RunConfig c;
  c.mode = "decode";
  c.engine = "llama.cpp";
  c.batch = 1;
  c.seq_len = 1;
  // GPT-OSS 120B (36 layers, top-4) has biases on q, k, v and o and on each expert's gate, up
  // and down: 7 adds at 1.6 µs in every layer, beside the 30 µs of a layer, the 11.2 µs of its
  // router and the 3 adds of its experts' outputs, and 0.2 ms a step.
  c.weights = "mxfp4_moe";
  const Prediction oss = run("gpt-oss-120b", "rtx-pro-6000-blackwell", c);
  EXPECT_NEAR(term(oss, "launch_and_host"), 36 * (30 + 11.2 + 3 * 1.6 + 7 * 1.6) * 1e-6 + 0.2e-3,
              1e-12);  // 2.2592 ms
  EXPECT_NE(oss.note.find("biases: llama.cpp (and ollama, which runs it) adds each of the 7 "
                          "biases of a layer with a kernel of its own, 1.6 µs each"),
            std::string::npos)
      << oss.note;
  // Qwen2.5 7B (28 layers) has biases on q, k and v alone: 3 a layer.
  c.weights = "q4_k_m";
  EXPECT_NEAR(term(run("qwen2.5-7b", "rtx-4080", c), "launch_and_host"),
              28 * (30 + 3 * 1.6) * 1e-6 + 0.2e-3, 1e-12);
  // vLLM's GEMMs add their biases in their epilogues: 15 µs a layer and 1.5 ms a step only.
  c.engine = "vllm";
  c.weights = "bf16";
  const Prediction fused = run("qwen2.5-7b", "h100-sxm5-80gb", c);
  EXPECT_NEAR(term(fused, "launch_and_host"), 28 * 15e-6 + 1.5e-3, 1e-12);
  EXPECT_EQ(fused.note.find("biases:"), std::string::npos) << fused.note;
}

// llama.cpp fitted on three CUDA keys and one ROCm key, as data/calibration/inference.toml has it.
Calibration llama_cpp_fits() {
  Calibration c;
  for (auto [key, gemm, memory] : {std::tuple{"ada-geforce", 0.368, 0.846},
                                   {"ampere-geforce", 0.423, 0.846},
                                   {"blackwell-gddr", 0.368, 0.900},
                                   {"rdna3-gddr", 0.509, 0.470}}) {
    c.engines.push_back({"llama.cpp", key, gemm, memory, 2, "fitted"});
  }
  return c;
}

TEST(InferencePerf, AGpuOfAnUnmeasuredGenerationTakesTheMedianMemoryEfficiencyOfItsStack) {
  const Engine& llama = **embedded_engines().find_engine("llama.cpp");
  const Calibration fits = llama_cpp_fits();
  // The H100 (hopper-hbm): the GEMM prior for CUDA, 0.45, and the median of the three CUDA
  // keys' memory efficiencies (0.846, 0.846, 0.900), not the prior's 0.90.
  const EngineCalibration h100 = engine_efficiency(fits, llama, gpu("h100-sxm5-80gb"), catalog());
  EXPECT_EQ(h100.architecture, "hopper-hbm");
  EXPECT_DOUBLE_EQ(h100.gemm_efficiency, 0.45);
  EXPECT_DOUBLE_EQ(h100.memory_efficiency, 0.846);
  EXPECT_EQ(h100.rows, 0);
  EXPECT_EQ(h100.fitted_on,
            "llama.cpp GEMM prior for CUDA (data/engines), memory efficiency the median of its 3 "
            "fitted CUDA keys");
  // The MI300X (cdna3-hbm) runs ROCm: the ROCm GEMM prior, 0.30, and the one ROCm key's 0.470.
  const EngineCalibration mi300x = engine_efficiency(fits, llama, gpu("mi300x"), catalog());
  EXPECT_DOUBLE_EQ(mi300x.gemm_efficiency, 0.30);
  EXPECT_DOUBLE_EQ(mi300x.memory_efficiency, 0.470);
  // The A100 (ampere-hbm) takes its generation's fitted key whole.
  const EngineCalibration a100 = engine_efficiency(fits, llama, gpu("a100-sxm4-80gb"), catalog());
  EXPECT_DOUBLE_EQ(a100.gemm_efficiency, 0.423);
  EXPECT_DOUBLE_EQ(a100.memory_efficiency, 0.846);
  // Nothing fitted on its stack: the priors (CUDA: 0.45 and 0.90).
  Calibration rocm_only;
  rocm_only.engines = {fits.engines.back()};
  const EngineCalibration prior =
      engine_efficiency(rocm_only, llama, gpu("h100-sxm5-80gb"), catalog());
  EXPECT_DOUBLE_EQ(prior.gemm_efficiency, 0.45);
  EXPECT_DOUBLE_EQ(prior.memory_efficiency, 0.90);
  EXPECT_EQ(prior.fitted_on, "llama.cpp priors for CUDA (data/engines)");
}

TEST(InferencePerf, AMixturesRoutingKernelsStreamEveryRoutedCopy) {
  // Qwen3 30B A3B (48 layers, hidden 2048, 8 of 128 experts of 768) on an RTX PRO 6000
  // (1792 GB/s), at the engines' priors. A 512-token prompt and one decoded token differ in
  // their elementwise term by 511 tokens' norms, residuals, rotary and activation,
  // (12 · 2048 + 3 · 8 · 768) · 2 = 86,016 B a token and layer, and their routing kernels'
  // bytes (Engine::moe_copy_bytes and moe_pick_bytes): llama.cpp's f32 graph 471,040 B,
  // vLLM's moe_sum 2048 · 8 · 2 = 32,768 B, TensorRT-LLM's fused kernels none.
  struct Case {
    const char* engine;
    const char* weights;
    double routing_bytes;
  };
  for (const Case& e : {Case{"llama.cpp", "q4_k_m", 471'040}, Case{"vllm", "bf16", 32'768},
                        Case{"tensorrt-llm", "bf16", 0}}) {
    RunConfig c;
    c.engine = e.engine;
    c.weights = e.weights;
    c.batch = 1;
    c.seq_len = 512;
    c.mode = "prefill";
    const Prediction prompt = run("qwen3-30b-a3b", "rtx-pro-6000-blackwell", c);
    c.mode = "decode";
    c.seq_len = 1;
    const Prediction token = run("qwen3-30b-a3b", "rtx-pro-6000-blackwell", c);
    const double bandwidth =
        1792e9 * (*embedded_engines().find_engine(e.engine))->memory_efficiency;
    EXPECT_NEAR(term(prompt, "elementwise") - term(token, "elementwise"),
                48 * 511 * (86'016 + e.routing_bytes) / bandwidth, 1e-9)
        << e.engine;
  }
  // llama.cpp at its 0.9 prior: 48 · 511 · 471,040 / (0.9 · 1792e9) = 7.16 ms of a 512-token
  // micro-batch, and the note says where it comes from.
  RunConfig c;
  c.engine = "llama.cpp";
  c.weights = "q4_k_m";
  c.mode = "prefill";
  c.batch = 1;
  c.seq_len = 512;
  const Prediction p = run("qwen3-30b-a3b", "rtx-pro-6000-blackwell", c);
  EXPECT_NE(p.note.find("its routing kernels move 471040 B a token and layer outside the GEMMs "
                        "(hidden 2048 · (8 copies · 18.25 B + 7 more picks · 12 B))"),
            std::string::npos)
      << p.note;
}

TEST(InferencePerf, LlamaCppQwenThirtyBPromptIsCloserToLlmTrackersMeasurement) {
  // llm-tracker.info's llama-bench pp512 of Qwen3 30B A3B Q4_K_M on an RTX PRO 6000 (build
  // 6413, validation/serving.csv, held out): 7,640 tokens/s. Predicted with the fitted
  // efficiencies, 1.69 times that without the routing kernels' traffic, 1.43 times with it; the
  // rest of the gap is not modelled (docs/inference.md).
  RunConfig c;
  c.engine = "llama.cpp";
  c.weights = "q4_k_m";
  c.mode = "prefill";
  c.batch = 1;
  c.seq_len = 512;
  auto p = predict(workload("qwen3-30b-a3b"), gpu("rtx-pro-6000-blackwell"), c,
                   embedded_calibration(), catalog());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_NEAR(p->throughput / 7640.08, 1.43, 0.02);
}

TEST(InferencePerf, ALayerSplitRunsOneStreamInTurnAndPipelinesMany) {
  RunConfig c;
  c.mode = "decode";
  c.engine = "llama.cpp";
  c.weights = "q4_k_m";
  c.batch = 1;
  c.seq_len = 512;
  const double one_gpu = run("llama-2-13b", "rtx-3090", c).throughput;
  c.gpus = c.pipeline_parallel = 2;
  const Prediction split = run("llama-2-13b", "rtx-3090", c);
  EXPECT_LE(split.throughput, one_gpu);
  EXPECT_GT(split.throughput, 0.9 * one_gpu);
  EXPECT_NE(split.note.find("one stream runs the stages in turn"), std::string::npos);
  c.batch = 8;  // four sequences per stage at a time
  EXPECT_GT(run("llama-2-13b", "rtx-3090", c).throughput, 4 * split.throughput);
}

// Each micro-batch of a layer split is a step of the engine's loop on every stage, with the
// engine's fixed time per step (TensorRT-LLM: 0.5 ms a step, 8 µs a layer). Llama 3 8B's 32
// layers on two stages decode one stream in 32 × 8 µs + 0.5 ms = 0.756 ms of launches and host,
// as one GPU does. Two sequences are two micro-batches, each stage running both through its 16
// layers: 2 × 16 × 8 µs + 2 × 0.5 ms = 1.256 ms. Four on four stages: 4 × 8 × 8 µs + 4 × 0.5 ms
// = 2.256 ms, where one GPU decoding the four pays 0.756 ms.
TEST(InferencePerf, EachMicroBatchOfALayerSplitPaysTheEnginesStepTime) {
  RunConfig c;
  c.mode = "decode";
  c.engine = "tensorrt-llm";
  c.batch = 1;
  c.seq_len = 1024;
  EXPECT_NEAR(term(run("llama-3-8b", "h100-sxm5-80gb", c), "launch_and_host"), 0.756e-3, 1e-12);
  c.gpus = c.pipeline_parallel = 2;
  EXPECT_NEAR(term(run("llama-3-8b", "h100-sxm5-80gb", c), "launch_and_host"), 0.756e-3, 1e-12);
  c.batch = 2;
  EXPECT_NEAR(term(run("llama-3-8b", "h100-sxm5-80gb", c), "launch_and_host"), 1.256e-3, 1e-12);
  c.batch = 4;
  c.gpus = c.pipeline_parallel = 4;
  EXPECT_NEAR(term(run("llama-3-8b", "h100-sxm5-80gb", c), "launch_and_host"), 2.256e-3, 1e-12);
  c.gpus = c.pipeline_parallel = 1;
  EXPECT_NEAR(term(run("llama-3-8b", "h100-sxm5-80gb", c), "launch_and_host"), 0.756e-3, 1e-12);
}

// TensorRT-LLM 1.0 runs a layer split with its pipeline loop, which has no overlap scheduler:
// the host's 25.6 µs a sequence is added to the GPUs' step instead of hidden under it. 0.17
// (no host time) runs the same GPU step, so 256 sequences on two stages differ by exactly
// 256 × 25.6 µs = 6.5536 ms; on one GPU the host hides under the GPUs' longer step.
TEST(InferencePerf, TensorRtLlmOnePointZeroAddsItsHostTimeToALayerSplitsStep) {
  RunConfig c;
  c.mode = "decode";
  c.engine = "tensorrt-llm@1.0";
  c.weights = "nvfp4";
  c.kv_cache = "fp8";
  c.batch = 256;
  c.seq_len = 1024;
  c.gen_tokens = 2;
  c.gpus = c.pipeline_parallel = 2;
  const Prediction serial = run("llama-3.1-70b", "rtx-pro-6000-blackwell", c);
  EXPECT_NEAR(term(serial, "host_scheduling"), 256 * 25.6e-6, 1e-9);
  EXPECT_NE(serial.note.find("its pipeline loop does not overlap that with the GPUs' step"),
            std::string::npos)
      << serial.note;
  c.engine = "tensorrt-llm@0.17";
  const Prediction engines = run("llama-3.1-70b", "rtx-pro-6000-blackwell", c);
  EXPECT_NEAR(serial.step_time_s - engines.step_time_s, 256 * 25.6e-6, 1e-9);
  c.engine = "tensorrt-llm@1.0";
  c.gpus = c.pipeline_parallel = 1;
  c.batch = 64;
  EXPECT_FALSE(
      has_term(run("llama-3.1-70b", "rtx-pro-6000-blackwell", c).terms, "host_scheduling"));
}

// TensorRT-LLM 1.0's Llama 3.3 70B in NVFP4 on 8 RTX PRO 6000s at PP 8, 128 + 2,048 tokens
// (validation/serving.csv, split fit): 9,833 output tokens/s measured; predicted 1.75 times
// that with the host overlapped, 1.25 times with it in series, 1.35 times since a serving
// cycle's steps are timed at their own rows (a single GPU's decode steps now pay for their
// partly filled tiles, the refit efficiencies of the key rose, and the 8 stages' micro-batches
// of few rows gain from that without the padding), and 1.31 times since each of the 8
// micro-batches pays the engine's step time (docs/inference.md, "Serving").
TEST(InferencePerf, SeventyBAtPipelineEightOnRtxProIsWithinTwoFifthsOfItsMeasurement) {
  RunConfig c;
  c.mode = "serve";
  c.engine = "tensorrt-llm@1.0";
  c.weights = "nvfp4";
  c.kv_cache = "fp8";
  c.seq_len = 128;
  c.gen_tokens = 2048;
  c.gpus = c.pipeline_parallel = 8;
  auto p = predict(workload("llama-3.1-70b"), gpu("rtx-pro-6000-blackwell"), c,
                   embedded_calibration(), catalog());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_NEAR(p->throughput / 9833, 1.0, 0.4);
}

// TensorRT-LLM's newest GPT-OSS rows on Hopper at 1,024 + 8,192 tokens, max load, read with the
// checkpoint's bf16 KV cache (validation/serving.csv; docs/inference.md, "GPT-OSS's KV cache on
// Hopper"): the 20B on one H100 measures 8,617 output tokens/s (a row the Hopper expert GEMM
// efficiency was fitted on), the 120B on one H200 3,543 (held out). Decode-bound, they hold few
// sequences; with an FP8 cache they were predicted 1.57 and 2.13 times too fast, now 1.08 and 1.09.
TEST(InferencePerf, GptOssDecodeHeavyRowsOnHopperAreWithinAFifthOfTheirMeasurements) {
  RunConfig c;
  c.mode = "serve";
  c.engine = "tensorrt-llm";
  c.weights = "mxfp4";
  c.seq_len = 1024;
  c.gen_tokens = 8192;
  auto throughput = [&](const char* w, const char* g) {
    auto p = predict(workload(w), gpu(g), c, embedded_calibration(), catalog());
    EXPECT_TRUE(p.ok()) << p.status().message();
    return p.ok() ? p->throughput : 0.0;
  };
  EXPECT_NEAR(throughput("gpt-oss-20b", "h100-sxm5-80gb") / 8617, 1.0, 0.2);
  EXPECT_NEAR(throughput("gpt-oss-120b", "h200-sxm-141gb") / 3543, 1.0, 0.2);
  // The same rows with an FP8 cache hold twice the sequences, as the table's label once read.
  c.kv_cache = "fp8";
  EXPECT_GT(throughput("gpt-oss-20b", "h100-sxm5-80gb") / 8617, 1.5);
  EXPECT_GT(throughput("gpt-oss-120b", "h200-sxm-141gb") / 3543, 2.0);
}

// One more token never makes a step faster (gemm_waves.h: a partly filled output tile costs a
// whole tile's time). Llama 3.1 8B on an RTX 6000 Ada once took 26.6 ms for a 257-token prompt
// against 32.5 ms for 256, and 65.7 ms for a decode step of 257 sequences at a 1,024-token context
// against 71.4 ms for 256, when a partly filled tile counted as a full tile of work. Across the
// tile rows' edges (16, 32, 64, 128 and multiples of 128) the step time never falls.
TEST(InferencePerf, OneMoreTokenNeverMakesAStepFaster) {
  RunConfig c;
  c.batch = 1;
  c.mode = "prefill";
  const auto prefill = [&](int tokens) {
    c.seq_len = tokens;
    return run("llama-3.1-8b", "rtx-6000-ada", c).step_time_s;
  };
  EXPECT_GE(prefill(257), prefill(256));
  c.mode = "decode";
  c.seq_len = 1024;
  c.gen_tokens = 1;
  const auto decode = [&](int sequences) {
    c.batch = sequences;
    return run("llama-3.1-8b", "rtx-6000-ada", c).step_time_s;
  };
  EXPECT_GE(decode(257), decode(256));
  double last_prefill = 0, last_decode = 0;
  for (const int rows : {15, 16, 17, 32, 33, 64, 65, 128, 129, 256, 257, 384, 385}) {
    c.mode = "prefill";
    c.batch = 1;
    const double p = prefill(rows);
    c.mode = "decode";
    c.seq_len = 1024;
    const double d = decode(rows);
    EXPECT_GE(p, last_prefill) << rows << " tokens";
    EXPECT_GE(d, last_decode) << rows << " sequences";
    last_prefill = p;
    last_decode = d;
  }
}

TEST(InferencePerf, ServingObeysLittlesLaw) {
  RunConfig c;
  c.mode = "serve";
  c.seq_len = 1024;
  c.gen_tokens = 256;
  c.batch = 32;  // in flight
  const Prediction p = run("llama-3.1-8b", "h100-sxm5-80gb", c);
  ASSERT_TRUE(p.serving.has_value());
  const ServingPrediction& s = *p.serving;
  EXPECT_DOUBLE_EQ(s.output_tokens_per_s, s.requests_per_s * 256);
  // Each of 32 sequences spends its life in prefill and decode: requests/s × life ≈ 32.
  const double life_s = (s.ttft_ms + 255 * s.tpot_ms) / 1e3;
  EXPECT_NEAR(s.requests_per_s * life_s / 32, 1, 0.25);
  EXPECT_GT(s.max_concurrency, 32);
}

TEST(InferencePerf, ARequestRateBeyondCapacityIsSaturated) {
  RunConfig c;
  c.mode = "serve";
  c.seq_len = 1024;
  c.gen_tokens = 256;
  const double capacity =
      run("llama-3.1-8b", "h100-sxm5-80gb", c).serving->requests_per_s;  // max load
  c.request_rate = capacity / 4;
  const Prediction light = run("llama-3.1-8b", "h100-sxm5-80gb", c);
  EXPECT_FALSE(light.serving->saturated);
  EXPECT_NEAR(light.serving->requests_per_s, capacity / 4, capacity * 1e-3);
  // At ρ = 1/4 of the capacity an M/D/1 queue's mean wait is ρ/(2(1 − ρ)) = 1/6 of a service
  // time (1 / capacity); no request is counted as queued, as the queue's length varies.
  EXPECT_NEAR(light.serving->queue_wait_ms, 1e3 / 6 / capacity, 1e-9 / capacity);
  EXPECT_EQ(light.serving->queued, 0);
  c.request_rate = capacity * 2;
  EXPECT_TRUE(run("llama-3.1-8b", "h100-sxm5-80gb", c).serving->saturated);
}

// A saturated setup's TTFT is that of the most it serves (the max-load TTFT, about 0.14 s for
// Llama 3.1 8B on an L40S at 1,024 + 256 tokens: the step that carries the prompt beside the
// 171 decodes), below the 2.5 s it takes just short of saturation: the text says that the wait
// grows without bound. A TTFT of 10 s or more is given in seconds (a 100,000-token prompt's
// prefill, about 20 s), not as "2.058e+04 ms".
TEST(InferencePerf, ASaturatedServiceSaysItsWaitGrowsWithoutBound) {
  RunConfig c;
  c.mode = "serve";
  c.seq_len = 1024;
  c.gen_tokens = 256;
  const double max_load_ttft = run("llama-3.1-8b", "l40s", c).serving->ttft_ms;
  c.request_rate = 100;  // beyond the L40S's 6 to 7 requests/s
  const Prediction p = run("llama-3.1-8b", "l40s", c);
  ASSERT_TRUE(p.serving && p.serving->saturated);
  EXPECT_DOUBLE_EQ(p.serving->ttft_ms, max_load_ttft);
  EXPECT_NEAR(max_load_ttft, 140, 20);
  const std::string text = report::prediction_text(workload("llama-3.1-8b"), gpu("l40s"), p, false);
  EXPECT_NE(text.find(fmt::format("TTFT         {:.4g} ms at the most this setup serves; at the "
                                  "rate asked the queue grows, and so does the wait, without "
                                  "bound\n",
                                  max_load_ttft)),
            std::string::npos)
      << text;
  c.request_rate.reset();
  c.seq_len = 100000;
  c.batch = 1;
  const Prediction long_prompt = run("llama-3.1-8b", "l40s", c);
  EXPECT_NEAR(long_prompt.serving->ttft_ms, 20e3, 4e3);
  EXPECT_NE(report::prediction_text(workload("llama-3.1-8b"), gpu("l40s"), long_prompt, false)
                .find(fmt::format("TTFT         {:.4g} s\n", long_prompt.serving->ttft_ms / 1e3)),
            std::string::npos);
}

// 40 requests in flight on an RTX 4090 that holds 8 of Llama 3.1 8B at 4,096 + 1,024 tokens:
// 32 wait for a slot, and each waits for the 32 ahead of it at the rate the 8 finish, which is
// the whole difference between the TTFT at 40 and at 8. The text and the JSON say how many.
TEST(InferencePerf, AConcurrencyAboveTheSlotsSaysHowManyWaitAndHowLong) {
  RunConfig c;
  c.mode = "serve";
  c.seq_len = 4096;
  c.gen_tokens = 1024;
  c.batch = 8;
  const Prediction held = run("llama-3.1-8b", "rtx-4090", c);
  c.batch = 40;
  const Prediction p = run("llama-3.1-8b", "rtx-4090", c);
  ASSERT_TRUE(held.serving && p.serving);
  ASSERT_EQ(p.serving->max_concurrency, 8);
  const double rate = p.serving->requests_per_s;
  EXPECT_DOUBLE_EQ(rate, held.serving->requests_per_s);
  const double wait_ms = 32 / rate * 1e3;
  EXPECT_NEAR(p.serving->ttft_ms - held.serving->ttft_ms, wait_ms, 1e-6 * wait_ms);
  const std::string text =
      report::prediction_text(workload("llama-3.1-8b"), gpu("rtx-4090"), p, false);
  EXPECT_NE(text.find(fmt::format("TTFT         {:.4g} s, {:.4g} s of it in the queue\n",
                                  p.serving->ttft_ms / 1e3, wait_ms / 1e3)),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(fmt::format("queue        32 of the 40 asked wait for a slot: each request "
                                  "waits {:.4g} s on average for the 32 ahead of it to finish at "
                                  "{:.4g} requests/s\n",
                                  wait_ms / 1e3, rate)),
            std::string::npos)
      << text;
  const auto json = report::to_json(workload("llama-3.1-8b"), gpu("rtx-4090"), p);
  EXPECT_EQ(json["serving"]["queued"], 32);
  EXPECT_EQ(report::to_json(workload("llama-3.1-8b"), gpu("rtx-4090"), held)["serving"]["queued"],
            0);
  EXPECT_EQ(held.serving->max_concurrency, 8);
}

// A serving cycle's steps at their own rows (docs/inference.md, "Serving"). Llama 3.1 8B under
// vLLM on an RTX 6000 Ada, 1,024 + 256 tokens, 51 in flight: a cycle has 256 steps, 51 of them
// carry a prompt beside the 51 decodes and 205 only decode, each such step the decode step of
// 51 sequences at a 1,152-token mean context (`--mode decode --batch 51`). The TPOT is the
// cycle's mean step, so requests/s × 256 × TPOT = 51; it lies above the decode step by 51/256
// of what a prompt adds to a step, at least the prompt's own prefill at batch 1. Once one mean
// step of 255 rows had its tiles fitted to the rows: 52 in flight served 5.69 requests/s
// against 4.86 at 51, 17% more for 2% more load.
TEST(InferencePerf, AServingCycleIsItsDecodeStepsAndThePromptSteps) {
  RunConfig c;
  c.mode = "serve";
  c.seq_len = 1024;
  c.gen_tokens = 256;
  c.batch = 51;
  const ServingPrediction s = *run("llama-3.1-8b", "rtx-6000-ada", c).serving;
  EXPECT_NEAR(s.requests_per_s * 256 * s.tpot_ms / 1e3, 51, 1e-9);
  c.mode = "decode";
  const double decode_s = run("llama-3.1-8b", "rtx-6000-ada", c).step_time_s;
  c.mode = "prefill";
  c.batch = 1;
  const double prompt_s = run("llama-3.1-8b", "rtx-6000-ada", c).step_time_s;
  EXPECT_GE(s.tpot_ms / 1e3, (205 * decode_s + 51 * prompt_s) / 256);
  EXPECT_LE(s.tpot_ms / 1e3, (205 * decode_s + 51 * (decode_s + prompt_s)) / 256);
  c.mode = "serve";
  c.batch = 52;
  const double more = run("llama-3.1-8b", "rtx-6000-ada", c).serving->requests_per_s;
  EXPECT_GT(more, s.requests_per_s);
  EXPECT_LT(more, s.requests_per_s * 52 / 51);
}

// Requests per second from 1 to the most sequences in flight that the KV cache holds: the
// in-flight counts at which the rate falls, and the most a rate rises beyond its share of the
// load (rate(n) / rate(n - 1) over n / (n - 1): above 1 where a cycle gets shorter with more load).
struct ConcurrencySweep {
  std::vector<int> falls;
  double most_beyond_share = 0;
};
ConcurrencySweep sweep_concurrency(const char* model, const char* g, int in, int out) {
  RunConfig c;
  c.mode = "serve";
  c.seq_len = in;
  c.gen_tokens = out;
  const int limit = run(model, g, c).serving->max_concurrency;
  ConcurrencySweep sweep;
  double last = 0;
  for (int n = 1; n <= limit; ++n) {
    c.batch = n;
    const double rate = run(model, g, c).serving->requests_per_s;
    if (n > 1 && rate < last) sweep.falls.push_back(n);
    if (n > 1)
      sweep.most_beyond_share = std::max(sweep.most_beyond_share, rate / last * (n - 1) / n);
    last = rate;
  }
  return sweep;
}

// More sequences in flight never serve more than their share of requests a second (a cycle never
// gets shorter with more load), from one sequence to the most the cache holds, and fewer only
// where a step's GEMMs cross a tile edge (gemm_waves.h; the engines' libraries run 64- or 128-row
// tiles, Engine::dense_tile): a step's rows are the n decodes, n + 1,024 where a prompt joins
// them, and n + 1 at the LM head of that step. Llama 3.1 8B at 1,024 + 256 tokens on an RTX 6000
// Ada or an L40S is memory-bound but for the prompt's step, whose 65 + 1,024 rows at 65 in flight
// need an 18th tile of 64 (prefill of 1,088 tokens 74.3 ms on the Ada, of 1,089 85.6 ms); Mistral
// 7B at 512 + 512 on an RTX 4090 never falls.
TEST(InferencePerf, MoreInFlightServesFewerRequestsOnlyPastATileEdge) {
  const std::tuple<const char*, const char*, int, int, std::vector<int>> setups[] = {
      {"llama-3.1-8b", "rtx-6000-ada", 1024, 256, {65}},
      {"llama-3.1-8b", "l40s", 1024, 256, {65}},
      {"mistral-7b", "rtx-4090", 512, 512, {}}};
  for (const auto& [model, g, in, out, falls] : setups) {
    const ConcurrencySweep sweep = sweep_concurrency(model, g, in, out);
    EXPECT_EQ(sweep.falls, falls) << model << " on " << g;
    EXPECT_LE(sweep.most_beyond_share, 1 + 1e-3) << model << " on " << g;
  }
}

// Where a step is compute-bound the rate falls at more tile edges: Llama 3.1 8B on an A100 at
// 1,024 + 256 tokens falls at 129, 193, 257 and 321 in flight, as every decode step's rows pass a
// multiple of 64, at 192, 256 and 320, as the LM head of a prompt's step does, and at 65, as the
// prompt's step does (above). At 257 a decode step costs what `--mode decode` does at a batch of
// 257: five tiles of 64 rows, where 256 took four.
TEST(InferencePerf, AComputeBoundServiceServesFewerRequestsOnlyPastATileEdge) {
  const ConcurrencySweep sweep = sweep_concurrency("llama-3.1-8b", "a100-sxm4-80gb", 1024, 256);
  EXPECT_EQ(sweep.falls, (std::vector<int>{65, 129, 192, 193, 256, 257, 320, 321}));
  for (const int n : sweep.falls) EXPECT_TRUE(n % 64 == 0 || n % 64 == 1) << n;
  EXPECT_LE(sweep.most_beyond_share, 1 + 1e-3);
}

TEST(InferencePerf, MoreInFlightMeansSlowerTokensButMoreOfThem) {
  RunConfig c;
  c.mode = "serve";
  c.seq_len = 512;
  c.gen_tokens = 512;
  c.batch = 4;
  const ServingPrediction few = *run("llama-3.1-8b", "a100-sxm4-80gb", c).serving;
  c.batch = 64;
  const ServingPrediction many = *run("llama-3.1-8b", "a100-sxm4-80gb", c).serving;
  EXPECT_GT(many.tpot_ms, few.tpot_ms);
  EXPECT_GT(many.output_tokens_per_s, 4 * few.output_tokens_per_s);
}

}  // namespace
}  // namespace rigplan
