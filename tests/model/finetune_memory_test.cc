// Fine-tuning memory as the tools run it: QLoRA's per-layer workspace, FSDP-QLoRA, offload,
// paged and in-backward optimizers, chunked losses, activation offloading, and recipes.
#include <gtest/gtest.h>

#include "model_support.h"
#include "rigplan/memory.h"
#include "rigplan/recipe.h"
#include "term_support.h"
#include "test_support.h"

namespace rigplan {
namespace {

using testing::estimate;
using testing::gpu;
using testing::has_term;
using testing::term;
using testing::workload;

RunConfig qlora_70b() {
  RunConfig c;
  c.method = "qlora";
  c.precision = "bf16";
  c.batch = 1;
  c.seq_len = 2048;
  c.checkpointing = true;
  return c;
}

// The QLoRA paper fine-tuned a 65B model on one 48 GB GPU with checkpointing; Llama 3 70B, at
// batch 1 and 2,048 tokens, fits an RTX A6000 too.
TEST(FinetuneMemory, SeventyBillionQloraFitsOneFortyEightGigabyteCard) {
  const MemoryEstimate e = estimate("llama-3-70b", "rtx-a6000", qlora_70b());
  EXPECT_TRUE(e.fits) << e.total_gb;
  EXPECT_LT(e.total_gb, 51.54);
  // The dequantization workspace is one matrix, not a share of the model: 8192 · 28672 · 2 B.
  EXPECT_NEAR(term(e.terms, "dequantized_matrix"), 8192.0 * 28672 * 2 / 1e9, 1e-9);
}

// FSDP-QLoRA shards the 4-bit weights: its defaults (batch 1, 512 tokens, shards offloaded to
// host memory) run Llama 2 70B on two 24 GB cards; sharded without offload, each card holds
// half the 4-bit weights.
TEST(FinetuneMemory, FsdpQloraShardsTheFourBitWeights) {
  RunConfig c = qlora_70b();
  const MemoryEstimate one = estimate("llama-2-70b", "rtx-3090", c);
  c.gpus = 2;
  c.zero = 3;
  const MemoryEstimate two = estimate("llama-2-70b", "rtx-3090", c);
  EXPECT_NEAR(term(two.terms, "weights"), term(one.terms, "weights") / 2, 1e-3);
  // Two gathered layers in 4 bit: 2 · 855,654,400 parameters per layer · 4.127/8 B.
  EXPECT_NEAR(term(two.terms, "gathered_layers"), 2 * 855'654'400.0 * 4.127 / 8 / 1e9, 1e-3);

  const auto& recipes = embedded_recipes();
  auto recipe = find_recipe(recipes, "fsdp-qlora", "", false, 2);
  ASSERT_TRUE(recipe.ok()) << recipe.status().message();
  RunConfig given;
  given.gpus = 2;
  auto run = apply_recipe(**recipe, given, {}, recipes);
  ASSERT_TRUE(run.ok()) << run.status().message();
  const MemoryEstimate fsdp_qlora = estimate("llama-2-70b", "rtx-3090", *run);
  EXPECT_TRUE(fsdp_qlora.fits) << fsdp_qlora.total_gb;
  EXPECT_FALSE(has_term(fsdp_qlora.terms, "weights"));  // in host memory
  // The same 4-bit shard, plus rank-64 adapters on every projection (828 M parameters, bf16,
  // halved): 0.83 GB more than rank 8 on q and v.
  EXPECT_NEAR(term(fsdp_qlora.host_terms, "weights") - term(two.terms, "weights"), 0.83 - 0.03,
              0.02);
}

// LitGPT's FSDP LoRA peaks (validation/memory.csv, A100 40GB, bf16-true, r 8 on q and v) are
// the step plus the unsharded weights of the full-state-dict load.
TEST(FinetuneMemory, FullStateLoadKeepsTheUnshardedWeights) {
  RunConfig c;
  c.method = "lora";
  c.precision = "bf16";
  c.pure_16bit = true;
  c.lora_targets = {"q", "v"};
  c.batch = 1;
  c.seq_len = 1304;
  c.checkpointing = true;
  c.gpus = 2;
  c.zero = 3;
  c.full_state_load = true;
  const MemoryEstimate e = estimate("llama-2-7b", "a100-sxm4-40gb", c);
  EXPECT_NEAR(term(e.terms, "full_state_dict"), 6'738'415'616.0 * 2 / 1e9, 1e-6);
  EXPECT_NEAR(e.allocated_gb, 22.18, 22.18 * 0.05);  // measured, 2 GPUs
  c.gpus = 4;
  c.seq_len = 1304;
  const MemoryEstimate thirteen = estimate("llama-2-13b", "a100-sxm4-40gb", c);
  EXPECT_NEAR(thirteen.allocated_gb, 35.57, 35.57 * 0.05);  // measured, 4 GPUs
}

TEST(FinetuneMemory, OptimizerInBackwardKeepsOneGradient) {
  RunConfig c;
  c.precision = "bf16";
  c.pure_16bit = true;
  c.batch = 1;
  c.seq_len = 1;
  c.optimizer_in_backward = true;
  const MemoryEstimate e = estimate("llama-3.1-8b", "rtx-4090", c);
  // The largest tensor is the embedding, 128256 · 4096, in bf16.
  EXPECT_NEAR(term(e.terms, "gradients"), 128256.0 * 4096 * 2 / 1e9, 1e-9);
}

TEST(FinetuneMemory, PagedAndOffloadedStateIsInHostMemory) {
  RunConfig c;
  c.precision = "bf16";
  c.pure_16bit = true;
  c.batch = 1;
  c.seq_len = 1;
  c.optimizer = "paged-adamw8bit";
  const MemoryEstimate paged = estimate("llama-3.1-8b", "rtx-4090", c);
  EXPECT_FALSE(has_term(paged.terms, "optimizer"));
  const double p = 8'030'261'248.0;                                           // Llama 3.1 8B
  EXPECT_NEAR(term(paged.host_terms, "optimizer_paged"), p * 2 / 1e9, 1e-6);  // 2 × 1 B

  c.optimizer = "adamw";
  c.pure_16bit = false;
  c.offload = "optimizer";  // ZeRO-Offload: fp32 master and moments on the host
  const MemoryEstimate offloaded = estimate("llama-3.1-8b", "rtx-4090", c);
  EXPECT_NEAR(term(offloaded.terms, "weights"), p * 2 / 1e9, 1e-6);  // 16-bit working copy
  EXPECT_NEAR(term(offloaded.terms, "gradients"), p * 2 / 1e9, 1e-6);
  EXPECT_NEAR(term(offloaded.host_terms, "optimizer"), p * 8 / 1e9, 1e-6);
  EXPECT_NEAR(term(offloaded.host_terms, "master_weights"), p * 4 / 1e9, 1e-6);
  EXPECT_NEAR(offloaded.host_gb, p * 12 / 1e9, 1e-6);
}

TEST(FinetuneMemory, ChunkedAndFusedLossesKeepLessOfTheLogits) {
  RunConfig c;
  c.method = "lora";
  c.precision = "bf16";
  c.batch = 2;
  c.seq_len = 2048;
  const double logits = 2.0 * 2048 * 128256;
  EXPECT_NEAR(term(estimate("llama-3.1-8b", "rtx-4090", c).terms, "logits"), logits * 6 / 1e9,
              1e-9);
  c.loss_chunks = 8;  // torchtune: bf16 logits, one fp32 chunk at a time
  EXPECT_NEAR(term(estimate("llama-3.1-8b", "rtx-4090", c).terms, "logits"),
              logits * (2 + 4.0 / 8) / 1e9, 1e-9);
  c.loss_chunks = 0;  // a fused kernel: no fp32 copy
  EXPECT_NEAR(term(estimate("llama-3.1-8b", "rtx-4090", c).terms, "logits"), logits * 2 / 1e9,
              1e-9);
}

TEST(FinetuneMemory, ActivationOffloadKeepsTwoLayerInputs) {
  RunConfig c;
  c.method = "lora";
  c.precision = "bf16";
  c.batch = 1;
  c.seq_len = 4096;
  c.checkpointing = true;
  const MemoryEstimate kept = estimate("llama-3.1-8b", "rtx-4090", c);
  c.activation_offload = true;
  const MemoryEstimate offloaded = estimate("llama-3.1-8b", "rtx-4090", c);
  // 32 checkpointed inputs of 4096 · 4096 · 2 B become 2 in flight.
  EXPECT_NEAR(term(kept.terms, "activations") - term(offloaded.terms, "activations"),
              30.0 * 4096 * 4096 * 2 / 1e9, 1e-9);
}

// DeepSpeed ZeRO-3 with its parameters offloaded keeps the forward's last modules gathered for
// the backward (stage3_max_reuse_distance 1e9: the last 5e8 elements, or a larger last module),
// a second copy of the largest tensor while it is gathered, and a 5e8-element gradient bucket.
TEST(FinetuneMemory, DeepspeedParameterOffloadKeepsTheHeadAndTwoBuffers) {
  RunConfig c;
  c.precision = "fp32";
  c.method = "lora";
  c.lora_targets = {"query_key_value"};
  c.batch = 8;
  c.seq_len = 64;
  c.zero = 3;
  c.offload = "cpu";
  // bloomz-7b1's head (tied to the embedding) is 250,880 × 4,096 = 1,027,604,480 elements, more
  // than 5e8: 4,110,417,920 B in fp32, twice; the bucket 5e8 × 4 B.
  const MemoryEstimate bloomz = estimate("bloomz-7b1", "a100-sxm4-80gb", c);
  EXPECT_NEAR(term(bloomz.terms, "live_parameters"), 4.11041792, 1e-9);
  EXPECT_NEAR(term(bloomz.terms, "gather_buffer"), 4.11041792, 1e-9);
  EXPECT_NEAR(term(bloomz.terms, "reduce_bucket"), 2.0, 1e-9);
  EXPECT_FALSE(has_term(bloomz.terms, "weights"));  // in host memory
  // t0-3b's head, 32,128 × 2,048 = 65,798,144, is within the last 5e8 elements: 2e9 B live.
  c.lora_targets = {"q", "v"};
  const MemoryEstimate t0 = estimate("t0-3b", "a100-sxm4-80gb", c);
  EXPECT_NEAR(term(t0.terms, "live_parameters"), 2.0, 1e-9);
  EXPECT_NEAR(term(t0.terms, "gather_buffer"), 0.263192576, 1e-9);
  // Mixed bf16 over 4 GPUs: 16-bit weights and gradients on the GPU; Llama 3.1 8B's head,
  // 128,256 × 4,096 = 525,336,576, partitioned four ways while it is gathered.
  RunConfig mixed;  // the deepspeed-zero3-offload recipe's settings
  mixed.precision = "bf16";
  mixed.zero = 3;
  mixed.offload = "cpu";
  mixed.gpus = 4;
  mixed.batch = 1;
  mixed.seq_len = 2048;
  const MemoryEstimate llama = estimate("llama-3.1-8b", "rtx-4090", mixed);
  EXPECT_NEAR(term(llama.terms, "live_parameters"), 1.050673152, 1e-9);
  EXPECT_NEAR(term(llama.terms, "gather_buffer"), 0.262668288, 1e-9);
  EXPECT_NEAR(term(llama.terms, "reduce_bucket"), 1.0, 1e-9);
}

// diffusers checkpoints each UNet resnet and transformer block: the backward pass recomputes
// one at a time. SD 1.5 at 512 px (64×64 latents), fp32, two images: the largest is a
// transformer block of the 320-channel level over n = 4,096 tokens, 8 heads of 40. Per image it
// keeps 26·c·n = 34,078,720 elements (norms, q, k, v, residuals, GEGLU 8c·n, its gate 4c·n and
// their product 4c·n) + the cross-attention's k, v over 77 tokens (2·320·77 = 49,280) + its two
// attentions: plain, the softmax's probabilities and the output, 8·4,096·(4,096 + 40) =
// 135,528,448 and 8·4,096·(77 + 40) = 3,833,856; memory-efficient, outputs and statistics
// 8·4,096·(40 + 2) = 1,376,256 each. The tensors kept outside the checkpoints are the same
// either way, so the activations differ by that block alone: 2 images · (139,362,304 -
// 2,752,512) · 4 B = 1,092,878,336 B.
TEST(FinetuneMemory, DiffusersCheckpointingRecomputesOneUnetBlockAtATime) {
  RunConfig c;
  c.precision = "fp32";
  c.method = "lora";
  c.lora_rank = 16;
  c.batch = 2;
  c.checkpointing = true;
  const MemoryEstimate efficient = estimate("stable-diffusion-1.5", "a100-sxm4-80gb", c);
  c.flash_attention = false;
  const MemoryEstimate plain = estimate("stable-diffusion-1.5", "a100-sxm4-80gb", c);
  EXPECT_NEAR(term(plain.terms, "activations") - term(efficient.terms, "activations"),
              1'092'878'336 / 1e9, 1e-9);
  // Chen et al.'s sqrt(n) segments, which rigplan took before, would keep 2·sqrt(Σ kept ·
  // widest) = 7.7 GB here; the checkpoints keep 2.1 GB.
  EXPECT_LT(term(plain.terms, "activations"), 2.1);
  EXPECT_FALSE(has_term(efficient.terms, "attention_workspace"));
}

// Plain attention (diffusers' AttnProcessor before PyTorch 2's SDPA) keeps one score-sized
// tensor per attention, the softmax's probabilities, and at the peak the largest attention
// holds two more (the gradients of the probabilities and of the scores). SD 1.5 at 512 px,
// fp32, two images, no checkpointing: a full fine-tune's UNet keeps 1,209,544,256 elements per
// image, of which the probabilities are 732,279,808 (per 64×64 block 8·4,096² + 8·4,096·77 =
// 136,740,864, five of them; 36,438,016 at 32×32, 2,490,368 at 16×16, 69,632 in the mid
// block). The workspace is 2 images · 2 · 8·4,096² · 4 B.
TEST(FinetuneMemory, PlainAttentionKeepsItsProbabilitiesOnce) {
  RunConfig c;
  c.precision = "fp32";
  c.method = "full";
  c.batch = 2;
  c.flash_attention = false;
  const MemoryEstimate e = estimate("stable-diffusion-1.5", "a100-sxm4-80gb", c);
  EXPECT_NEAR(term(e.terms, "activations"), 2 * 1'209'544'256.0 * 4 / 1e9, 1e-9);
  EXPECT_NEAR(term(e.terms, "attention_workspace"), 2 * 2 * 8 * 4096.0 * 4096 * 4 / 1e9, 1e-9);
}

// Under LoRA a frozen linear saves no input, so a transformer block's norm3 output (read by the
// GEGLU projection) and the GEGLU product (read by the output linear) are not kept unless LoRA
// targets up and down: 5·c·n per block, Σ c·n = 5·320·4,096 + 5·640·1,024 + 5·1,280·256 +
// 1,280·64 = 11,550,720, so 1,209,544,256 - 57,753,600 = 1,151,790,656 elements per image with
// q and v. The peft README measured 15.5 GB for DreamBooth LoRA (r 16, q and v, an instance and
// a class image per step; validation/memory.csv line 79, a row these terms were checked on).
TEST(FinetuneMemory, FrozenLinearsOfLoraKeepNoInput) {
  RunConfig c;
  c.precision = "fp32";
  c.method = "lora";
  c.lora_rank = 16;
  c.lora_targets = {"q", "v"};
  c.batch = 2;
  c.flash_attention = false;
  const MemoryEstimate qv = estimate("stable-diffusion-1.5", "a100-sxm4-80gb", c);
  EXPECT_NEAR(term(qv.terms, "activations"), 2 * 1'151'790'656.0 * 4 / 1e9, 1e-9);
  EXPECT_NEAR(qv.allocated_gb, 15.5, 0.05 * 15.5);
  c.lora_targets = {"q", "k", "v", "o", "up", "down"};
  const MemoryEstimate every = estimate("stable-diffusion-1.5", "a100-sxm4-80gb", c);
  EXPECT_NEAR(term(every.terms, "activations"), 2 * 1'209'544'256.0 * 4 / 1e9, 1e-9);
}

// Flux's and SD 3's transformers are checkpointed block by block (diffusers passes each block
// to its checkpointing function), not in sqrt(n) segments. SD 3 Medium at 1024 px, bf16, one
// image, encoders and latents cached: d = 1,536, n = 64² = 4,096 image tokens, t = 154 text
// tokens, 24 heads of 64. Kept: outside the blocks 25,678,336 elements (patch embedding and its
// position add 2·d·n, the two embedders 2·3·d, the context embedder d·t, the output norm
// d + 2d + 2·d·n, the output projection 64·n); the 23 joint blocks' outputs, both streams,
// 23·d·(n + t) = 150,144,768, and the last block's image stream d·n = 6,291,456; and one joint
// block recomputed, 111,201,504 (its norms and modulations d + 6d + 2·d·n and d + 6d + 2·d·t,
// q, k, v of both streams 3·d·(n + t), the attention's output and statistics 24·(n + t)·66,
// then d·n·11 + d·t·11 of residuals, norms and the 4d-wide MLPs). Total 293,315,296 · 2 B.
TEST(FinetuneMemory, DiffusersCheckpointsEachTransformerBlockOfSd3) {
  RunConfig c;
  c.precision = "bf16";
  c.method = "lora";
  c.batch = 1;
  c.checkpointing = true;
  c.cached_components = {"vae", "text_encoder", "text_encoder_2", "text_encoder_3"};
  const MemoryEstimate e = estimate("sd3-medium", "rtx-4090", c);
  EXPECT_NEAR(term(e.terms, "activations"), 293'315'296.0 * 2 / 1e9, 1e-9);
}

TEST(FinetuneMemory, RecomputePolicyMustAgreeWithCheckpointing) {
  RunConfig c;
  c.checkpointing = true;
  c.recompute = "selective";
  auto e = estimate_memory(workload("llama-2-7b"), gpu("rtx-4090"), c);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(),
            "--checkpointing recomputes every layer; it contradicts --recompute selective");
  c.checkpointing = false;
  c.recompute = "everything";
  e = estimate_memory(workload("llama-2-7b"), gpu("rtx-4090"), c);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(),
            "--recompute 'everything' is not accepted; expected 'none', 'selective', "
            "'selective-op' or 'full'");
  c.recompute = "selective_op";
  e = estimate_memory(workload("llama-2-7b"), gpu("rtx-4090"), c);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(),
            "--recompute 'selective_op' is not accepted; expected 'none', 'selective', "
            "'selective-op' or 'full' (did you mean 'selective-op' or 'selective'?)");
}

TEST(Recipes, EmbeddedRecipesLoadAndNameTheirSources) {
  const auto& recipes = embedded_recipes();
  ASSERT_GE(recipes.size(), 20u);
  for (const auto& r : recipes) {
    EXPECT_FALSE(r.provenance.source.empty()) << r.id;
    EXPECT_FALSE(r.keys.empty()) << r.id;
    RunConfig given;
    given.gpus = r.devices == "single" ? 1 : 2;
    auto run = apply_recipe(r, given, {}, recipes);
    ASSERT_TRUE(run.ok()) << r.id << ": " << run.status().message();
    // Written for a model (the diffusion recipes name their components), or for any LLM.
    auto e = estimate_memory(workload(r.model.empty() ? "llama-3.1-8b" : r.model.c_str()),
                             gpu("h100-sxm5-80gb"), *run);
    EXPECT_TRUE(e.ok()) << r.id << ": " << e.status().message();
  }
}

TEST(Recipes, ExplicitOptionsWinOverTheRecipe) {
  const auto& recipes = embedded_recipes();
  auto recipe = find_recipe(recipes, "torchtune", "qlora", true, 1);
  ASSERT_TRUE(recipe.ok()) << recipe.status().message();
  EXPECT_EQ((*recipe)->id, "torchtune-qlora-single-device");
  RunConfig given;
  given.batch = 8;
  const std::vector<std::string> keys = {"batch"};
  auto run = apply_recipe(**recipe, given, keys, recipes);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(*run->batch, 8);                // given
  EXPECT_EQ(run->loss_chunks, 8);           // the recipe's
  EXPECT_EQ(run->weights, "nf4-dq");        // the recipe's
  EXPECT_TRUE(run->checkpointing);          // the recipe's
  EXPECT_EQ(run->lora_targets.size(), 7u);  // q, k, v, o, gate, up, down
}

// torchtune's LoRA recipe leaves the sequence length to the data. Llama 3.1 8B without --seq
// takes the zoo's 131,072 tokens, two sequences a step: 253.45 GB on an RTX 4090, with a note
// that says where the length came from and which recipe ran; with --seq 2048 no note.
TEST(Recipes, ARecipeThatLeavesTheSequenceToTheDataSaysWhichLengthItAssumed) {
  const auto& recipes = embedded_recipes();
  auto recipe = find_recipe(recipes, "torchtune", "", false, 1);
  ASSERT_TRUE(recipe.ok()) << recipe.status().message();
  auto run = apply_recipe(**recipe, RunConfig{}, {}, recipes);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->recipe, "torchtune-lora-single-device");
  EXPECT_FALSE(run->seq_len.has_value());
  const MemoryEstimate e = estimate("llama-3.1-8b", "rtx-4090", *run);
  EXPECT_NEAR(e.total_gb, 253.45, 0.005);
  const std::vector<std::string> expected = {
      "recipe torchtune-lora-single-device leaves the sequence length to the data (the longest "
      "sample); seq 131072 is llama-3.1-8b's default: --seq sets the length of your samples"};
  EXPECT_EQ(e.notes, expected);
  RunConfig given;
  given.seq_len = 2048;
  const std::vector<std::string> keys = {"seq_len"};
  auto short_run = apply_recipe(**recipe, given, keys, recipes);
  ASSERT_TRUE(short_run.ok());
  EXPECT_TRUE(estimate("llama-3.1-8b", "rtx-4090", *short_run).notes.empty());
}

TEST(Recipes, BadNamesAndDeviceCountsAreExplained) {
  const auto& recipes = embedded_recipes();
  auto unknown = find_recipe(recipes, "torchtun", "full", false, 1);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            "unknown recipe 'torchtun'; expected 'torchtune-lora-single-device', "
            "'torchtune-qlora-single-device', 'torchtune-full-single-device', 'torchtune-lora', "
            "'torchtune-qlora', 'torchtune-full', 'litgpt-lora', 'litgpt-qlora', "
            "'litgpt-adapter', 'litgpt-adapter-v2', 'litgpt-lora-fsdp', 'peft-trl-lora', "
            "'peft-trl-qlora', 'unsloth', 'unsloth-lora', "
            "'axolotl-qlora', 'axolotl-lora', 'deepspeed-zero3', 'deepspeed-zero3-offload', "
            "'fsdp-qlora', 'diffusers-sdxl-lora', 'diffusers-sdxl-full', 'diffusers-flux-lora', "
            "'ai-toolkit-flux-lora-24gb', 'diffusers-sd3-lora', 'torchtune', 'litgpt', "
            "'peft-trl', 'axolotl', 'deepspeed', 'diffusers' or 'ai-toolkit' (did you mean "
            "'torchtune', 'torchtune-lora' or 'torchtune-full'?)");
  auto single = find_recipe(recipes, "unsloth", "full", false, 1);
  ASSERT_TRUE(single.ok());
  RunConfig four;
  four.gpus = 4;
  auto run = apply_recipe(**single, four, {}, recipes);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().message(), "recipe 'unsloth' runs on one GPU, not 4");
  auto litgpt = find_recipe(recipes, "litgpt-lora", "", false, 1);
  ASSERT_TRUE(litgpt.ok());
  run = apply_recipe(**litgpt, four, {}, recipes);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().message(),
            "recipe 'litgpt-lora' runs on one GPU, not 4; for several GPUs use 'litgpt-lora-fsdp'");
}

}  // namespace
// A recipe id that fails its own check (an integer) is not stored; two of them were also
// "duplicate recipe id", an id neither recipe has (EntryContext::read_well).
// A misspelled section is named with what the file may hold and the nearest of it; the entries
// that follow in other files are still read and checked.
TEST(Recipes, AMisspelledSectionIsNamedWithTheOneExpected) {
  auto loaded = load_recipes({{"r.toml", "[[recipes]]\nid = \"a\"\n"},
                              {"s.toml", "recipe = 1\n"},
                              {"t.toml", "[[recipe]]\nid = 2\n"}});
  ASSERT_FALSE(loaded.ok());
  const std::string message = loaded.status().message();
  EXPECT_NE(message.find("r.toml:1:1: unknown section 'recipes'; expected [[recipe]] (did you "
                         "mean 'recipe'?)\n"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("s.toml:1:10: unknown section 'recipe'; expected [[recipe]]"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("t.toml:2:6: recipe: field 'id': expected a string, got an integer"),
            std::string::npos)
      << message;
}

TEST(Recipes, IdsThatFailAreReportedOnceNotAsDuplicates) {
  const std::string body =
      "tool = \"unsloth\"\nname = \"n\"\ndevices = \"single\"\nconfig_file = \"c\"\n"
      "as_of = \"2025-01\"\nbatch = 2\nsource = \"a test\"\nconfidence = \"recall\"\n";
  auto loaded =
      load_recipes({{"r.toml", "[[recipe]]\nid = 1\n" + body + "[[recipe]]\nid = 2\n" + body}});
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            "r.toml:2:6: recipe: field 'id': expected a string, got an integer\n"
            "r.toml:12:6: recipe: field 'id': expected a string, got an integer\n"
            "2 problems in 1 file");
}

}  // namespace rigplan
