// The memory model against hand-computed values (each comment shows the arithmetic).
#include "rigplan/memory.h"

#include <gtest/gtest.h>

#include "model/memory_numbers.h"
#include "model_support.h"
#include "term_support.h"
#include "test_support.h"

namespace rigplan {
namespace {

using testing::estimate;
using testing::gpu;
using testing::has_term;
using testing::term;
using testing::workload;

TEST(MemoryModel, InferenceWeightsAndKvCache) {
  RunConfig c;
  c.mode = "infer";
  c.engine = "pytorch";  // transformers: a cache grown per token, whole prompts at once
  c.precision = "bf16";
  c.batch = 1;
  c.seq_len = 4096;
  const MemoryEstimate e = estimate("llama-2-7b", "a100-sxm4-80gb", c);
  EXPECT_NEAR(term(e, "weights"), 6'738'415'616 * 2 / 1e9, 1e-6);  // 13.477 GB
  // 2 (K and V) · 32 layers · 32 heads · 128 · 2 B = 512 KiB per token; × 4096 tokens.
  EXPECT_NEAR(term(e, "kv_cache"), 4096.0 * 2 * 32 * 32 * 128 * 2 / 1e9, 1e-6);  // 2.147 GB
  // The fp32 logits of the last position only (transformers keeps one since 4.45).
  EXPECT_NEAR(term(e, "logits"), 32000.0 * 4 / 1e9, 1e-6);
  EXPECT_TRUE(e.fits);
  EXPECT_NEAR(e.capacity_gb, 80 * 1.073741824, 1e-9);  // 80 GiB
}

TEST(MemoryModel, GroupedQueryAttentionShrinksTheKvCache) {
  RunConfig c;
  c.mode = "infer";
  c.engine = "pytorch";
  c.batch = 1;
  c.seq_len = 1;
  // Llama 2 70B: 2 · 80 layers · 8 KV heads · 128 · 2 B = 320 KiB per token.
  EXPECT_NEAR(term(estimate("llama-2-70b", "h100-sxm5-80gb", c), "kv_cache") * 1e9, 327'680, 1e-3);
}

TEST(MemoryModel, MixedPrecisionAdamWKeepsEighteenBytesPerParameter) {
  RunConfig c;
  c.precision = "bf16";
  c.batch = 1;
  c.seq_len = 128;
  const MemoryEstimate e = estimate("gpt2", "a100-sxm4-80gb", c);
  const double p = 124'439'808 / 1e9;
  EXPECT_NEAR(term(e, "weights"), 4 * p, 1e-9);                // fp32 weights
  EXPECT_NEAR(term(e, "half_precision_copies"), 2 * p, 1e-9);  // autocast copies
  EXPECT_NEAR(term(e, "gradients"), 4 * p, 1e-9);
  EXPECT_NEAR(term(e, "optimizer"), 8 * p, 1e-9);  // two fp32 moments
}

TEST(MemoryModel, LoraTrainsRankTimesInPlusOutPerTarget) {
  RunConfig c;
  c.method = "lora";
  c.pure_16bit = true;
  c.batch = 1;
  c.seq_len = 1;
  const MemoryEstimate e = estimate("llama-2-7b", "a100-sxm4-40gb", c);
  // q and v: 8·(4096 + 4096) each, 32 layers: 4,194,304 trainable parameters (LitGPT prints
  // this count); bf16 gradients 2 B and AdamW moments 2 × 2 B.
  EXPECT_NEAR(term(e, "gradients") * 1e9, 4'194'304.0 * 2, 1e-3);
  EXPECT_NEAR(term(e, "optimizer") * 1e9, 4'194'304.0 * 4, 1e-3);
  EXPECT_NEAR(term(e, "weights") * 1e9, 6'738'415'616.0 * 2 + 4'194'304.0 * 2, 1e-3);
}

TEST(MemoryModel, QloraKeepsEmbeddingsInSixteenBits) {
  RunConfig c;
  c.method = "qlora";
  c.batch = 1;
  c.seq_len = 1;
  const MemoryEstimate e = estimate("llama-2-7b", "rtx-4090", c);
  EXPECT_EQ(e.config.weights, "nf4-dq");  // QLoRA as its paper defines it: double-quantized
  // Linear weights at 4.127 bits; embeddings and LM head (2 · 32000 · 4096) at 2 B; LoRA in fp32.
  const double linear = 6'738'415'616.0 - 2 * 131'072'000.0;
  EXPECT_NEAR(term(e, "weights") * 1e9,
              linear * 4.127 / 8 + 2 * 131'072'000.0 * 2 + 4'194'304.0 * 4, 1);
}

TEST(MemoryModel, ZeroThreeShardsEverythingAcrossDataParallelGpus) {
  RunConfig c;
  c.precision = "bf16";
  c.batch = 1;
  c.seq_len = 128;
  const MemoryEstimate one = estimate("llama-2-7b", "h100-sxm5-80gb", c);
  c.gpus = 8;
  c.zero = 3;
  const MemoryEstimate eight = estimate("llama-2-7b", "h100-sxm5-80gb", c);
  for (const char* t : {"weights", "gradients", "optimizer", "half_precision_copies"}) {
    EXPECT_NEAR(term(eight, t), term(one, t) / 8, 1e-9) << t;
  }
  EXPECT_NEAR(term(eight, "activations"), term(one, "activations"), 1e-9);
}

TEST(MemoryModel, LargestBatchIsTheLastThatFits) {
  RunConfig c;
  c.method = "lora";
  c.seq_len = 512;
  const MemoryEstimate e = estimate("llama-2-7b", "rtx-4090", c);
  ASSERT_GT(e.max_batch, 1);
  c.batch = e.max_batch;
  EXPECT_TRUE(estimate("llama-2-7b", "rtx-4090", c).fits);
  c.batch = e.max_batch + 1;
  EXPECT_FALSE(estimate("llama-2-7b", "rtx-4090", c).fits);
}

TEST(MemoryModel, LongestSequenceIsTheLastThatFits) {
  RunConfig c;
  c.method = "qlora";
  c.batch = 1;
  const MemoryEstimate e = estimate("llama-3-8b", "rtx-4090", c);
  ASSERT_GT(e.max_seq_len, 1000);
  ASSERT_LT(e.max_seq_len, 8192);  // Llama 3's context
  c.seq_len = e.max_seq_len;
  EXPECT_TRUE(estimate("llama-3-8b", "rtx-4090", c).fits);
  c.seq_len = e.max_seq_len + 1;
  EXPECT_FALSE(estimate("llama-3-8b", "rtx-4090", c).fits);
}

// Llama 3 8B, full fine-tuning under ZeRO-3 on 8 H100s at batch 2 × 8,192 tokens: 127.1 GB a GPU
// of 85.9. Megatron's selective recompute saves nothing under FlashAttention (it keeps no
// scores), so the lightest partial recompute that fits is torchtitan's per-op policy, offered
// before full recompute; a run already under it is offered full recompute alone.
TEST(MemoryModel, ANonFittingTransformerIsOfferedTheLightestPartialRecomputeThatFits) {
  RunConfig c;
  c.gpus = 8;
  c.zero = 3;
  c.batch = 2;
  c.seq_len = 8192;
  const MemoryEstimate e = estimate("llama-3-8b", "h100-sxm5-80gb", c);
  EXPECT_NEAR(e.total_gb, 127.1, 0.05);
  RunConfig selective = c;
  selective.recompute = "selective";
  EXPECT_DOUBLE_EQ(estimate("llama-3-8b", "h100-sxm5-80gb", selective).total_gb, e.total_gb);
  RunConfig op = c;
  op.recompute = "selective-op";
  const MemoryEstimate by_op = estimate("llama-3-8b", "h100-sxm5-80gb", op);
  EXPECT_NEAR(by_op.total_gb, 71.4, 0.05);
  const std::vector<std::string> expected = {
      "--recompute selective-op (71.4 GB)", "--checkpointing (42.0 GB)",
      "--method qlora --checkpointing (24.6 GB)", "--batch 1"};
  EXPECT_EQ(e.suggestions, expected);
  op.batch = 4;
  const MemoryEstimate op_larger = estimate("llama-3-8b", "h100-sxm5-80gb", op);
  ASSERT_FALSE(op_larger.fits);
  ASSERT_FALSE(op_larger.suggestions.empty());
  EXPECT_EQ(op_larger.suggestions[0].rfind("--checkpointing (", 0), 0u) << op_larger.suggestions[0];
}

// Llama 3 70B QLoRA on two 24 GB cards under ZeRO-3 (FSDP-QLoRA without its CPU offload), one
// 2,048-token sequence with checkpointing: 29.3 GB a GPU of the RTX 3090's 25.8. Offloading the
// optimizer state saves only the adapters' 0.1 GB; offloading the weights too moves each GPU's
// shard of them to host memory, ((70.6B − 2.1B) × 4.127 / 8 + 2.1B × 2 + 16.4M × 2) / 2 = 19.8 GB
// with the adapters' 0.1 GB of state, and leaves 9.4 GB on the GPU: the one change of the run
// that fits, listed with the host memory it takes.
TEST(MemoryModel, AShardedRunThatFitsOnlyOffloadedIsOfferedTheOffload) {
  RunConfig c;
  c.gpus = 2;
  c.zero = 3;
  c.method = "qlora";
  c.checkpointing = true;
  c.batch = 1;
  c.seq_len = 2048;
  const MemoryEstimate e = estimate("llama-3-70b", "rtx-3090", c);
  EXPECT_FALSE(e.fits);
  EXPECT_NEAR(e.total_gb, 29.34, 0.005);
  ASSERT_FALSE(e.suggestions.empty());
  EXPECT_EQ(e.suggestions[0], "--offload cpu (9.4 GB; 19.9 GB in host memory per GPU)");
  c.offload = "cpu";
  const MemoryEstimate offloaded = estimate("llama-3-70b", "rtx-3090", c);
  EXPECT_TRUE(offloaded.fits);
  EXPECT_NEAR(offloaded.total_gb, 9.44, 0.005);
  EXPECT_NEAR(offloaded.host_gb, 19.87, 0.005);
}

TEST(MemoryModel, ANonFittingRunSaysWhatWouldMakeItFit) {
  RunConfig c;  // full fine-tuning of a 7B model on a 24 GB card
  c.batch = 1;
  c.seq_len = 512;
  const MemoryEstimate e = estimate("llama-2-7b", "rtx-4090", c);
  EXPECT_FALSE(e.fits);
  EXPECT_EQ(e.max_batch, 0);
  ASSERT_FALSE(e.suggestions.empty());
  // LoRA keeps the 13.5 GB of bf16 weights but drops 108 GB of gradients and optimizer state.
  EXPECT_EQ(e.suggestions[0].rfind("--method lora (", 0), 0u) << e.suggestions[0];
  EXPECT_GT(e.min_gpus, 1);
  c.gpus = e.min_gpus;
  c.zero = 3;
  EXPECT_TRUE(estimate("llama-2-7b", "rtx-4090", c).fits);
}

// A run that fits is held by fewer GPUs than it asks for when they hold it: Llama 3 8B QLoRA,
// one 2,048-token sequence, asked on 8 H100s, takes 25.75 GB of one H100's 85.9 (5.72 GB of
// 4-bit weights, 16.11 GB of activations, 1.58 GB of logits, ...): the fewest GPUs are 1, not
// the 8 asked. Inference: Llama 3 70B in bf16 (141 GB of weights) asked with --tp 8 needs 2.
TEST(MemoryModel, TheFewestGpusOfARunThatFitsMayBeFewerThanItAsks) {
  RunConfig c;
  c.method = "qlora";
  c.batch = 1;
  c.seq_len = 2048;
  EXPECT_NEAR(estimate("llama-3-8b", "h100-sxm5-80gb", c).total_gb, 25.75, 0.005);
  c.gpus = 8;
  const MemoryEstimate eight = estimate("llama-3-8b", "h100-sxm5-80gb", c);
  EXPECT_TRUE(eight.fits);
  EXPECT_EQ(eight.min_gpus, 1);
  RunConfig serve;
  serve.mode = "infer";
  serve.gpus = 8;
  serve.tensor_parallel = 8;
  const MemoryEstimate tp8 = estimate("llama-3-70b", "h100-sxm5-80gb", serve);
  EXPECT_TRUE(tp8.fits);
  EXPECT_EQ(tp8.min_gpus, 2);
}

TEST(MemoryModel, RejectsMalformedRuns) {
  const std::pair<RunConfig, const char*> cases[] = {
      {RunConfig{.batch = 0},
       "--batch 0 is out of range; expected an integer from 1 to 1000000000"},
      {RunConfig{.precision = "bf61"},
       "--precision 'bf61' is not accepted; expected 'fp32', 'tf32', 'fp16', 'bf16', 'fp8', "
       "'mxfp8' or 'nvfp4' (did you mean 'bf16'?)"},
      {RunConfig{.method = "lora", .lora_rank = -1},
       "--lora-rank -1 is out of range; expected an integer from 1 to 65536"},
      {RunConfig{.weights = "nf4"},
       "full training cannot update nf4 weights; use --method qlora to train adapters on them"},
      {RunConfig{.zero = 4}, "--zero 4 is out of range; expected an integer from 0 to 3"},
  };
  for (const auto& [config, message] : cases) {
    auto e = estimate_memory(workload("llama-2-7b"), gpu("rtx-4090"), config);
    ASSERT_FALSE(e.ok()) << message;
    EXPECT_EQ(e.status().code(), Status::Code::kInvalidInput);
    EXPECT_EQ(e.status().message(), message);
  }
}

TEST(MemoryModel, BitsPerWeightOfTheFormats) {
  EXPECT_EQ(*bits_per_weight("bf16"), 16);
  EXPECT_EQ(*bits_per_weight("nf4"), 4.5);  // 4 + 32/64 (QLoRA paper)
  EXPECT_EQ(*bits_per_weight("nf4-dq"), 4.127);
  EXPECT_EQ(*bits_per_weight("q4_k_m"), 4.85);
  EXPECT_FALSE(bits_per_weight("q3_x").has_value());
}

// estimate_memory_numbers, which recommend weighs its runs with, gives estimate_memory's terms
// and totals without their formulas: full, LoRA, QLoRA and 8-bit Adam fine-tuning, checkpointed,
// offloaded, sharded over 8 GPUs with ZeRO-3, pipelined, a diffusion model, and inference served.
TEST(MemoryModel, NumbersAloneAreTheEstimatesNumbers) {
  struct Case {
    const char* workload;
    const char* gpu;
    RunConfig config;
  };
  auto run = [](auto change) {
    RunConfig c;
    change(c);
    return c;
  };
  const Case cases[] = {
      {"resnet50", "rtx-4090", {}},
      {"resnet50", "rtx-3090", run([](RunConfig& c) { c.checkpointing = true; })},
      {"resnet50", "h100-sxm5-80gb", run([](RunConfig& c) { c.gpus = 8, c.zero = 3; })},
      {"llama-3.1-8b", "rtx-4090", run([](RunConfig& c) { c.method = "qlora", c.seq_len = 2048; })},
      {"llama-3.1-8b", "a100-sxm4-80gb",
       run([](RunConfig& c) { c.method = "lora", c.seq_len = 4096, c.checkpointing = true; })},
      {"llama-3.1-8b", "h100-sxm5-80gb",
       run([](RunConfig& c) { c.gpus = 8, c.zero = 3, c.offload = "cpu", c.seq_len = 2048; })},
      {"mpt-125m", "rtx-3090", run([](RunConfig& c) { c.optimizer = "adam8bit"; })},
      {"mpt-125m", "a100-sxm4-80gb",
       run([](RunConfig& c) { c.gpus = 8, c.pipeline_parallel = 2, c.micro_batch = 1; })},
      {"stable-diffusion-1.5", "rtx-3090", {}},
      {"llama-3-8b", "h100-sxm5-80gb",
       run([](RunConfig& c) { c.mode = "serve", c.gen_tokens = 256; })},
      {"llama-3-8b", "rtx-4090", run([](RunConfig& c) { c.mode = "infer", c.gpus = 2; })},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(std::string(k.workload) + " on " + k.gpu);
    auto full = estimate_memory(workload(k.workload), gpu(k.gpu), k.config, false);
    auto numbers = estimate_memory_numbers(workload(k.workload), gpu(k.gpu), k.config);
    ASSERT_TRUE(full.ok() && numbers.ok());
    ASSERT_EQ(numbers->terms.size(), full->terms.size());
    for (size_t i = 0; i < full->terms.size(); ++i) {
      EXPECT_EQ(numbers->terms[i].name, full->terms[i].name);
      EXPECT_EQ(numbers->terms[i].gb, full->terms[i].gb);
    }
    ASSERT_EQ(numbers->host_terms.size(), full->host_terms.size());
    EXPECT_EQ(numbers->host_gb, full->host_gb);
    EXPECT_EQ(numbers->total_gb, full->total_gb);
    EXPECT_EQ(numbers->allocated_gb, full->allocated_gb);
    EXPECT_EQ(numbers->trainable_params, full->trainable_params);
    EXPECT_EQ(numbers->fits, full->fits);
    EXPECT_EQ(numbers->available_gb, full->available_gb);
    EXPECT_EQ(numbers->max_sequences, full->max_sequences);
    EXPECT_EQ(numbers->config.batch, full->config.batch);
    EXPECT_EQ(numbers->notes, full->notes);
    EXPECT_GT(numbers->total_gb, 0);
    EXPECT_FALSE(full->terms.front().formula.empty());
  }
}

// FP8 training (docs/memory.md, "FP8 training"), Llama 3 8B at one 4,096-token sequence: d 4096,
// q 4096, kv 1024, F 14336, 32 layers, no dropout. Its linears hold 32 × (2·4096·4096 +
// 2·4096·1024 + 3·4096·14336) = 32 × 218,103,808 = 6,979,321,856 parameters.
constexpr double kLlama3LinearParams = 6'979'321'856;

RunConfig llama3_fp8_run() {
  RunConfig c;
  c.precision = "fp8";
  c.batch = 1;
  c.seq_len = 4096;
  c.checkpointing = true;
  return c;
}

TEST(MemoryModel, TransformerEngineKeepsFp8WeightsAndSavesFp8Inputs) {
  const MemoryEstimate fp8 = estimate("llama-3-8b", "h100-sxm5-80gb", llama3_fp8_run());
  RunConfig bf16_run = llama3_fp8_run();
  bf16_run.precision = "bf16";
  const MemoryEstimate bf16 = estimate("llama-3-8b", "h100-sxm5-80gb", bf16_run);
  // Each linear weight in FP8 and its transpose, 1 B each: 13.96 GB.
  EXPECT_NEAR(term(fp8, "fp8_weights"), kLlama3LinearParams * 2 / 1e9, 1e-9);
  EXPECT_FALSE(has_term(bf16.terms, "fp8_weights"));
  // One recomputed layer keeps 168,064 B a token in bf16; in FP8 the two norm outputs and the
  // down projection's input lose a byte each, (2·4096 + 14336) = 22,528 B, and the attention
  // output gains its FP8 copy, 4,096 B: 149,632 B. The checkpointed inputs stay 16 bit.
  const double inputs = 32.0 * 4096 * 2 * 4096;
  EXPECT_NEAR(term(bf16, "activations"), (inputs + 4096.0 * 168'064) / 1e9, 1e-9);
  EXPECT_NEAR(term(fp8, "activations"), (inputs + 4096.0 * 149'632) / 1e9, 1e-9);
  // The widest activation a linear casts, gate's and up's output (and down's input), 14,336 a
  // token, in both layouts: 0.117 GB.
  EXPECT_NEAR(term(fp8, "fp8_cast_buffers"), 2.0 * 4096 * 14336 / 1e9, 1e-9);
  EXPECT_EQ(term(fp8, "logits"), term(bf16, "logits"));  // the LM head and loss stay 16 bit
  EXPECT_GT(fp8.total_gb, bf16.total_gb);
}

// MXFP8 (Transformer Engine's MXFP8BlockScaling) on a B200, the same run: E4M3 elements with one
// 1-byte E8M0 scale per 32, 1.03125 B an element, in the weights' row- and column-wise copies, the
// saved inputs and the casts.
TEST(MemoryModel, Mxfp8KeepsTwoScaledCopiesOfEachWeightAndSavesScaledInputs) {
  RunConfig c = llama3_fp8_run();
  c.precision = "mxfp8";
  const MemoryEstimate mx = estimate("llama-3-8b", "b200-sxm-192gb", c);
  // 6,979,321,856 × 2 × 1.03125 = 14,394,851,328 B.
  EXPECT_NEAR(term(mx, "mxfp8_weights"), 14'394'851'328 / 1e9, 1e-9);
  EXPECT_FALSE(has_term(mx.terms, "fp8_weights"));
  // a_layer: 168,064 − (2 − 1.03125)·22,528 + 1.03125·4,096 = 150,464 B.
  const double inputs = 32.0 * 4096 * 2 * 4096;
  EXPECT_NEAR(term(mx, "activations"), (inputs + 4096.0 * 150'464) / 1e9, 1e-9);
  // 2 × 1.03125 × 4096 × 14336 = 121,110,528 B.
  EXPECT_NEAR(term(mx, "mxfp8_cast_buffers"), 121'110'528 / 1e9, 1e-9);
}

// NVFP4 (NVFP4BlockScaling) on a B200: E2M1 elements, 0.5 B, with a 1-byte E4M3 scale per 16
// (0.5625 B) for inputs and gradients and per 16×16 block (0.50390625 B) for weights; 5 of Llama
// 3 8B's 32 layers (round(32 × 10/62)) stay BF16, as NVIDIA's recipe keeps the first two and last
// eight of its 62.
TEST(MemoryModel, Nvfp4KeepsFourBitWeightsOutsideTheBf16Layers) {
  RunConfig c = llama3_fp8_run();
  c.precision = "nvfp4";
  const MemoryEstimate nv = estimate("llama-3-8b", "b200-sxm-192gb", c);
  // 6,979,321,856 × 27/32 × 2 × 0.50390625 = 5,934,809,088 B.
  EXPECT_NEAR(term(nv, "nvfp4_weights"), 5'934'809'088 / 1e9, 1e-9);
  // 2 × 0.5625 × 4096 × 14336 = 66,060,288 B.
  EXPECT_NEAR(term(nv, "nvfp4_cast_buffers"), 66'060'288 / 1e9, 1e-9);
  // Checkpointed, the one layer recomputed at a time is at worst a BF16 one: 168,064 B a token.
  const double inputs = 32.0 * 4096 * 2 * 4096;
  EXPECT_NEAR(term(nv, "activations"), (inputs + 4096.0 * 168'064) / 1e9, 1e-9);
  // Every layer's: the saved inputs at 27/32 × 0.5625 + 5/32 × 2 = 0.787109375 B an element,
  // 168,064 − (2 − 0.787109375)·22,528 + 0.787109375·4,096 = 143,964 B.
  c.checkpointing = false;
  const MemoryEstimate all = estimate("llama-3-8b", "b200-sxm-192gb", c);
  EXPECT_NEAR(term(all, "activations"), 32.0 * 4096 * 143'964 / 1e9, 1e-9);
  EXPECT_NE(all.warnings.front().find("no measured run in validation/ checks nvfp4"),
            std::string::npos);
}

TEST(MemoryModel, BlockScaledPrecisionsAreForTraining) {
  RunConfig c;
  c.mode = "infer";
  c.precision = "nvfp4";
  auto e = estimate_memory(workload("llama-3-8b"), gpu("b200-sxm-192gb"), c);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("--weights fp8, nvfp4"), std::string::npos)
      << e.status().message();
  // Training on a GPU without the format's tensor cores: the memory, and a warning that says so.
  c.mode = "train";
  c.checkpointing = true;
  const MemoryEstimate hopper = estimate("llama-3-8b", "h100-sxm5-80gb", c);
  ASSERT_EQ(hopper.warnings.size(), 2u);
  EXPECT_NE(hopper.warnings[1].find("nvfp4 training needs block-scaled FP4 tensor cores"),
            std::string::npos)
      << hopper.warnings[1];
}

TEST(MemoryModel, Fp8UnderTensorParallelismSplitsTheCopiesAndKeepsTheInputsWhole) {
  RunConfig c = llama3_fp8_run();
  c.checkpointing = false;
  c.gpus = 2;
  c.tensor_parallel = 2;
  const MemoryEstimate e = estimate("llama-3-8b", "h100-sxm5-80gb", c);
  EXPECT_NEAR(term(e, "fp8_weights"), kLlama3LinearParams / 2 * 2 / 1e9, 1e-9);
  // Without SP a rank keeps the two norm inputs (2·2 B) and the two norm outputs in FP8 (2·1 B)
  // whole, 6·4096 = 24,576 B, and half of the rest: 24,576 + (149,632 − 24,576)/2 = 87,104 B.
  EXPECT_NEAR(term(e, "activations"), 32.0 * 4096 * 87'104 / 1e9, 1e-9);
  // The widest cast activation per rank: max(d 4096, F/tp 7168) = 7168.
  EXPECT_NEAR(term(e, "fp8_cast_buffers"), 2.0 * 4096 * 7168 / 1e9, 1e-9);
}

TEST(MemoryModel, Fp8UnderZero3CastsEachStepAndSavesSixteenBitInputs) {
  RunConfig c = llama3_fp8_run();
  c.zero = 3;
  c.gpus = 8;
  const MemoryEstimate fp8 = estimate("llama-3-8b", "h100-sxm5-80gb", c);
  c.precision = "bf16";
  const MemoryEstimate bf16 = estimate("llama-3-8b", "h100-sxm5-80gb", c);
  // torchao's Float8Linear keeps no FP8 weight and saves the 16-bit input.
  EXPECT_FALSE(has_term(fp8.terms, "fp8_weights"));
  EXPECT_EQ(term(fp8, "activations"), term(bf16, "activations"));
  EXPECT_EQ(term(fp8, "gathered_layers"), term(bf16, "gathered_layers"));  // 16-bit all-gather
  // The widest activation and the largest weight (4096·14336), each in both layouts: 0.235 GB.
  EXPECT_NEAR(term(fp8, "fp8_cast_buffers"), 2.0 * (4096.0 * 14336 + 4096.0 * 14336) / 1e9, 1e-9);
}

}  // namespace
}  // namespace rigplan
