// LLaMA-Adapter and LLaMA-Adapter v2 as LitGPT builds them: the parameters they train against
// the counts LitGPT prints, a memory total derived term by term, what v2 and 4-bit weights add,
// the litgpt recipes, and the step they predict.
#include "model/finetune_methods.h"

#include <gtest/gtest.h>

#include "model_support.h"
#include "rigplan/calibrate.h"
#include "rigplan/memory.h"
#include "rigplan/perf.h"
#include "rigplan/recipe.h"
#include "term_support.h"
#include "test_support.h"

namespace rigplan {
namespace {

using testing::gpu;
using testing::term;
using testing::workload;

// LitGPT's resource-table runs (validation/memory.csv, 'Finetuning with Adapter on 1 GPU'):
// bf16-true, batch 1, the longest Alpaca sample, AdamW.
RunConfig litgpt(const char* method, int seq_len, const char* weights = "bf16") {
  RunConfig c;
  c.method = method;
  c.weights = weights;
  c.precision = "bf16";
  c.pure_16bit = true;
  c.batch = 1;
  c.seq_len = seq_len;
  return c;
}

MemoryEstimate estimate(const char* w, const RunConfig& c) {
  auto e = estimate_memory(workload(w), gpu("a100-sxm4-40gb"), c);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return std::move(e).value();
}

// The trainable parameters LitGPT prints for these runs (the rows' notes):
// adapter (L − 2)·(10·d + H); v2 adds 2·out_features on every Linear and lm_head, and the norms.
TEST(FinetuneMethods, TrainableParametersAreLitgpts) {
  // stablelm-base-alpha-3b: 16 layers, d 4096, 32 heads: 14 · 40,992.
  EXPECT_EQ(estimate("stablelm-base-alpha-3b", litgpt("adapter", 1034)).trainable_params, 573'888);
  // + 16 · 2 · (12,288 + 4,096 + 16,384 + 4,096) + 2 · 50,688 (lm_head, the padded vocab)
  //   + 16 · 2 · 2 · 4,096 (two LayerNorms, weight and bias) + 2 · 4,096 (ln_f).
  EXPECT_EQ(estimate("stablelm-base-alpha-3b", litgpt("adapter-v2", 1034)).trainable_params,
            2'125'248);
  // llama-2-7b: 32 layers, d 4096, 32 heads: 30 · 40,992.
  EXPECT_EQ(estimate("llama-2-7b", litgpt("adapter", 1304)).trainable_params, 1'229'760);
  // + 32 · 2 · (12,288 + 4,096 + 11,008 + 11,008 + 4,096) + 2 · 32,000 + (2 · 32 + 1) · 4,096
  //   (RMSNorm weights).
  EXPECT_EQ(estimate("llama-2-7b", litgpt("adapter-v2", 1304)).trainable_params, 4'279'744);
  EXPECT_EQ(adapter_params(*workload("llama-2-7b").transformer, false), 1'229'760);
}

// llama-2-7b, LLaMA-Adapter, bf16-true, batch 1, 1,304 tokens, by hand (bytes):
//   weights      6,738,415,616 · 2 + 1,229,760 · 2            = 13,479,290,752
//   gradients    1,229,760 · 2                                 =      2,459,520
//   optimizer    1,229,760 · 2 moments · 2 B                   =      4,919,040
//   activations  32 layers · 1,304 tokens · a_layer            =  6,740,240,384
//     a_layer = β(3d + 2q + 2kv) 57,344 + 4H 128 + β(d + 4F) 96,256 (no dropout)
//               + 30/32 · (βq + 4H) = 30/32 · 8,320 = 7,800 (the gated prompt attention)
//             = 161,528 B/token/layer
//   logits       1,304 · 32,000 · (2 + 4)                      =    250,368,000
//   allocated                                                  = 20,477,277,696
// LitGPT measured 19.98 GB (validation/memory.csv line 28, held out): 2.5% below.
TEST(FinetuneMethods, AdapterMemoryByHand) {
  const MemoryEstimate e = estimate("llama-2-7b", litgpt("adapter", 1304));
  EXPECT_NEAR(term(e, "weights"), 13'479'290'752 / 1e9, 1e-9);
  EXPECT_NEAR(term(e, "gradients"), 2'459'520 / 1e9, 1e-9);
  EXPECT_NEAR(term(e, "optimizer"), 4'919'040 / 1e9, 1e-9);
  EXPECT_NEAR(term(e, "activations"), 6'740'240'384 / 1e9, 1e-9);
  EXPECT_NEAR(term(e, "logits"), 250'368'000 / 1e9, 1e-9);
  EXPECT_NEAR(e.allocated_gb, 20'477'277'696 / 1e9, 1e-9);
}

// v2 keeps every Linear's unscaled output for its scale's gradient, β · Σout = 2 · 42,496 per
// layer and token, and (LitGPT's RMSNorm, fp32) each trained norm weight's x_normed, 2 · 4 · 4,096;
// and the unscaled logits, β · V.
TEST(FinetuneMethods, AdapterV2KeepsTheUnscaledOutputs) {
  const MemoryEstimate v1 = estimate("llama-2-7b", litgpt("adapter", 1304));
  const MemoryEstimate v2 = estimate("llama-2-7b", litgpt("adapter-v2", 1304));
  // 32 · 1,304 · (84,992 + 32,768)
  EXPECT_NEAR(term(v2, "activations") - term(v1, "activations"), 4'913'889'280 / 1e9, 1e-9);
  EXPECT_NEAR(term(v2, "logits") - term(v1, "logits"), 1304.0 * 32'000 * 2 / 1e9, 1e-9);
  // stablelm's LayerNorms (torch.nn.LayerNorm) keep their input either way: only the Linears'
  // outputs, 16 · 1,034 · 2 · 36,864.
  const MemoryEstimate s1 = estimate("stablelm-base-alpha-3b", litgpt("adapter", 1034));
  const MemoryEstimate s2 = estimate("stablelm-base-alpha-3b", litgpt("adapter-v2", 1034));
  EXPECT_NEAR(term(s2, "activations") - term(s1, "activations"), 16.0 * 1034 * 2 * 36'864 / 1e9,
              1e-9);
}

// 4-bit base weights are the same whatever trains over them: an adapter over nf4 keeps each
// quantized matmul's input, β(2d + q + F) per layer and token, and one dequantized matrix, as
// QLoRA does; LoRA over nf4 is QLoRA.
TEST(FinetuneMethods, FourBitWeightsAsForQlora) {
  const MemoryEstimate bf16 = estimate("llama-2-7b", litgpt("adapter", 1304));
  const MemoryEstimate nf4 = estimate("llama-2-7b", litgpt("adapter", 1304, "nf4"));
  // 32 · 1,304 · 2 · (2 · 4,096 + 4,096 + 11,008)
  EXPECT_NEAR(term(nf4, "activations") - term(bf16, "activations"), 1'944'190'976 / 1e9, 1e-9);
  EXPECT_NEAR(term(nf4, "dequantized_matrix"), 4096.0 * 11'008 * 2 / 1e9, 1e-9);
  // (P − embeddings − lm_head) · 4.5/8 + (embeddings + lm_head) · 2 + adapters · 2.
  const double kept = 2 * 32'000.0 * 4096;
  EXPECT_NEAR(term(nf4, "weights"),
              ((6'738'415'616 - kept) * 4.5 / 8 + kept * 2 + 1'229'760 * 2) / 1e9, 1e-9);
  EXPECT_NEAR(estimate("llama-2-7b", litgpt("lora", 1304, "nf4")).allocated_gb,
              estimate("llama-2-7b", litgpt("qlora", 1304, "nf4")).allocated_gb, 1e-12);
}

TEST(FinetuneMethods, AdapterNeedsATransformer) {
  RunConfig c;
  c.method = "adapter";
  auto e = estimate_memory(workload("resnet50"), gpu("a100-sxm4-40gb"), c);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(),
            "--method adapter (LLaMA-Adapter) adapts a transformer's attention layers; resnet50 "
            "has none");
}

// `--recipe litgpt --method adapter-v2` is litgpt finetune_adapter_v2's defaults.
TEST(FinetuneMethods, LitgptRecipesRunTheAdapters) {
  const auto& recipes = embedded_recipes();
  for (const char* method : {"adapter", "adapter-v2"}) {
    auto recipe = find_recipe(recipes, "litgpt", method, true, 1);
    ASSERT_TRUE(recipe.ok()) << recipe.status().message();
    EXPECT_EQ((*recipe)->id, std::string("litgpt-") + method);
    EXPECT_EQ((*recipe)->run.method, method);
    EXPECT_TRUE((*recipe)->run.pure_16bit);
  }
}

// The step of an adapter run: the frozen weights' backward computes no weight gradients (as
// LoRA's), and the prompt attention and v2's scales add a little.
TEST(FinetuneMethods, AdapterStepIsAFrozenStepAndALittleMore) {
  Calibration cal;
  cal.archs.push_back({"ampere-hbm", 0.8, 0.8, 1.0, "test"});
  cal.error_band = {{"transformer", 0.1}};
  auto step = [&](const char* method) {
    auto p = predict(workload("llama-2-7b"), gpu("a100-sxm4-80gb"), litgpt(method, 1304), cal,
                     testing::default_catalog());
    EXPECT_TRUE(p.ok()) << p.status().message();
    return p->step_time_s;
  };
  const double full = step("full"), lora = step("lora");
  const double adapter = step("adapter"), v2 = step("adapter-v2");
  EXPECT_LT(adapter, 0.8 * full);
  EXPECT_GT(adapter, lora);
  EXPECT_LT(adapter, 1.05 * lora);
  // v2 reads and writes every Linear output and the logits twice more per pass (the bias add and
  // the scale), forward and twice backward: 3 · (32 · 1,304 · 42,496 + 1,304 · 32,000) · 4 · 2 B
  // = 43.56 GB at 2,039 GB/s · 0.8, 26.70 ms, and 3 · 33 launches of 5 µs: 27.2 ms more.
  EXPECT_NEAR(v2 - adapter, 0.0272, 0.0003);
}

}  // namespace
}  // namespace rigplan
