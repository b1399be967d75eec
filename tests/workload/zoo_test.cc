// The zoo: every workload's parameter count, computed from its architecture, within 1% of the
// published figure, one test per model; and a few counts checked against their model cards
// independently of the data files.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "rigplan/workload.h"
#include "test_support.h"
#include "workload/diffusion.h"
#include "workload/resnet.h"

namespace rigplan {
namespace {

const Zoo& zoo() { return testing::default_zoo(); }

class ZooParams : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooParams, ComputedCountIsWithinOnePercentOfThePublishedOne) {
  auto w = zoo().find(GetParam());
  ASSERT_TRUE(w.ok()) << w.status().message();
  const double computed = static_cast<double>(count_params(**w).total);
  const double published = static_cast<double>((*w)->published_params);
  EXPECT_NEAR(computed / published, 1.0, 0.01)
      << GetParam() << ": " << computed << " vs " << published;
}

// PRODUCT.md's zoo, plus the models of the memory and cluster validation sets.
INSTANTIATE_TEST_SUITE_P(
    Zoo, ZooParams,
    ::testing::Values(
        "resnet50", "ssd300", "maskrcnn", "bert-base-squad", "bert-large-squad", "gnmt",
        "transformer-xl-base", "transformer-xl-large", "tacotron2", "waveglow", "ncf", "vit-b-16",
        "gpt2", "gpt2-xl", "stable-diffusion-1.5", "whisper-large-v3", "llama-2-7b", "llama-2-13b",
        "llama-2-70b", "llama-3-8b", "llama-3-70b", "llama-3.1-8b", "llama-3.1-70b",
        "llama-3.1-405b", "llama-3.2-1b", "llama-3.2-3b", "mistral-7b", "mistral-7b-v0.2",
        "mixtral-8x7b", "gemma-2b", "gemma-7b", "gemma-2-9b", "phi-2", "phi-3-mini-4k-instruct",
        "falcon-7b", "tiny-llama", "stablelm-base-alpha-3b", "qwen2.5-7b", "qwen2.5-72b", "phi-1.5",
        "falcon-40b", "codellama-34b", "bloomz-7b1", "t0-3b", "mt0-xxl", "sdxl", "flux.1-dev",
        "flux.1-schnell", "sd3-medium", "gpt3-175b", "megatron-22b", "megatron-530b", "megatron-1t",
        "megatron-1.7b", "megatron-3.6b", "megatron-7.5b", "megatron-18b", "megatron-39b",
        "megatron-76b", "megatron-145b", "megatron-310b", "megatron-gpt2-1.2b", "megatron-gpt2-2b",
        "megatron-gpt2-4b", "megatron-gpt2-8b", "mixtral-8x22b", "qwen3-30b-a3b", "qwen3-235b-a22b",
        "gpt-oss-120b", "gpt-oss-20b"),
    [](const auto& test) {
      std::string name = test.param;
      for (char& c : name) {
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

struct Published {
  const char* id;
  long long params;  // from the model card or the released checkpoint
};

// Independent of the data files: exact checkpoint sizes as the model cards and safetensors
// indexes report them.
constexpr Published kModelCards[] = {
    {"gpt2", 124'439'808},             // openai-community/gpt2
    {"llama-2-7b", 6'738'415'616},     // meta-llama/Llama-2-7b-hf
    {"llama-3-8b", 8'030'261'248},     // meta-llama/Meta-Llama-3-8B
    {"mistral-7b", 7'241'732'096},     // mistralai/Mistral-7B-v0.1
    {"mixtral-8x7b", 46'702'792'704},  // mistralai/Mixtral-8x7B-v0.1
    {"gemma-7b", 8'537'680'896},       // google/gemma-7b
    {"phi-2", 2'779'683'840},          // microsoft/phi-2
    {"resnet50", 25'557'032},          // torchvision resnet50
};

TEST(Zoo, CountsMatchTheModelCards) {
  for (const auto& [id, params] : kModelCards) {
    auto w = zoo().find(id);
    ASSERT_TRUE(w.ok()) << id;
    EXPECT_EQ(count_params(**w).total, params) << id;
  }
}

TEST(Zoo, MixtureOfExpertsCountsTwoOfEightExpertsAsActive) {
  const ParamCounts p = count_params(**zoo().find("mixtral-8x7b"));
  // 32 layers × 6 inactive experts × 3·4096·14336 weights.
  EXPECT_EQ(p.total - p.active, 32LL * 6 * 3 * 4096 * 14336);
}

// The mixtures of experts of 2025, counted by hand from their config.json shapes (d hidden, L
// layers, H heads of hd, K key/value heads, E experts of F, top-k, V vocab; RMSNorm weights):
//   attention = d·H·hd + 2·d·K·hd + H·hd·d; experts = E·3·d·F; router = d·E; norms = 2d
//   (+ 2·hd: Qwen3's q and k norms); embedding and the untied head V·d each; final norm d.
struct MoeCount {
  const char* id;
  long long total, active;         // by hand, below
  double card_total, card_active;  // the model card, in its own rounding
};

constexpr MoeCount kMoeCounts[] = {
    // d 2048, L 48, H 32 × 128, K 4, E 128 × 768, top-8, V 151936, untied:
    // layer = 18,874,368 + 603,979,776 + 262,144 + 4,096 + 256 = 623,120,640;
    // 48 · 623,120,640 + 2 · 311,164,928 + 2,048 = 30,532,122,624;
    // active: 48 · (623,120,640 − 120 · 4,718,592) + 622,331,904 = 3,353,032,704.
    {"qwen3-30b-a3b", 30'532'122'624, 3'353'032'704, 30.5e9, 3.3e9},
    // d 4096, L 94, H 64 × 128, K 4, E 128 × 1536, top-8, V 151936, untied:
    // layer = 71,303,168 + 2,415,919,104 + 524,288 + 8,192 + 256 = 2,487,755,008;
    // 94 · 2,487,755,008 + 2 · 622,329,856 + 4,096 = 235,093,634,560;
    // active: 94 · (2,487,755,008 − 120 · 18,874,368) + 1,244,663,808 = 22,190,763,520.
    {"qwen3-235b-a22b", 235'093'634'560, 22'190'763'520, 235e9, 22e9},
    // d 6144, L 56, H 48 × 128, K 8, E 8 × 16384, top-2, V 32768, untied:
    // layer = 88,080,384 + 2,415,919,104 + 49,152 + 12,288 = 2,504,060,928;
    // 56 · 2,504,060,928 + 2 · 201,326,592 + 6,144 = 140,630,071,296;
    // active: 56 · (2,504,060,928 − 6 · 301,989,888) + 402,659,328 = 39,161,468,928.
    {"mixtral-8x22b", 140'630'071'296, 39'161'468'928, 141e9, 39e9},
    // GPT-OSS: d 2880, H 64 × 64, K 8, E × F 2880, top-4, V 201088, untied; biases on q, k, v,
    // o, the router and each expert's gate, up and down; one sink per head (64 a layer).
    // attention = 2880·4096 + 2·2880·512 + 4096·2880 + (4096 + 1024 + 2880) + 64 = 26,550,144;
    // an expert = 3·2880·2880 + 2·2880 + 2880 = 24,891,840; norms 5,760.
    // 120B, L 36, E 128: router 2880·128 + 128 = 368,768;
    // layer = 26,550,144 + 128 · 24,891,840 + 368,768 + 5,760 = 3,213,080,192;
    // 36 · 3,213,080,192 + 2 · 579,133,440 + 2,880 = 116,829,156,672;
    // active: 36 · (3,213,080,192 − 124 · 24,891,840) + 1,158,269,760 = 5,711,982,912, of which
    // the card's 5.13B leaves out the input embedding (579,133,440): 5,132,849,472.
    {"gpt-oss-120b", 116'829'156'672, 5'711'982'912, 116.83e9, 5.13e9 + 579'133'440},
    // 20B, L 24, E 32: router 2880·32 + 32 = 92,192;
    // layer = 26,550,144 + 32 · 24,891,840 + 92,192 + 5,760 = 823,186,976;
    // 24 · 823,186,976 + 1,158,266,880 + 2,880 = 20,914,757,184;
    // active: 24 · (823,186,976 − 28 · 24,891,840) + 1,158,269,760 = 4,187,440,704 (3.61B
    // without the input embedding).
    {"gpt-oss-20b", 20'914'757'184, 4'187'440'704, 20.91e9, 3.61e9 + 579'133'440},
};

TEST(Zoo, MixturesOfExpertsCountAsByHandAndAsTheirCards) {
  for (const auto& m : kMoeCounts) {
    auto w = zoo().find(m.id);
    ASSERT_TRUE(w.ok()) << m.id;
    const ParamCounts p = count_params(**w);
    EXPECT_EQ(p.total, m.total) << m.id;
    EXPECT_EQ(p.active, m.active) << m.id;
    // The cards round to two or three significant figures (30.5B, 3.3B): within 1% of the total
    // and 2% of the active count (3.353B against the card's 3.3B is 1.6% off).
    EXPECT_NEAR(static_cast<double>(p.total) / m.card_total, 1.0, 0.01) << m.id;
    EXPECT_NEAR(static_cast<double>(p.active) / m.card_active, 1.0, 0.02) << m.id;
  }
}

TEST(Zoo, QkNormAddsTwoHeadWidthNormsPerLayer) {
  Workload w = **zoo().find("qwen3-30b-a3b");
  const std::int64_t with = count_params(w).total;
  w.transformer->qk_norm = false;
  EXPECT_EQ(with - count_params(w).total, 48 * 2 * 128);  // 48 layers, q and k norms of hd 128
}

// GPT-OSS alternates a sliding layer of window 128 with a full one (sliding_window_pattern 2):
// 18 of 120B's 36 layers slide, 12 of 20B's 24. A query of a sliding layer attends to at most
// 128 keys: the first 128 positions of a pass to 1 + 2 + ... + 128 = 8,256 keys, each later one
// to 128.
TEST(Zoo, GptOssSlidesEveryOtherLayerThroughAWindowOf128) {
  const TransformerConfig& big = *(**zoo().find("gpt-oss-120b")).transformer;
  EXPECT_EQ(big.window(), 128);
  EXPECT_EQ(big.sliding_layers(), 18);
  EXPECT_EQ((**zoo().find("gpt-oss-20b")).transformer->sliding_layers(), 12);
  EXPECT_EQ((**zoo().find("llama-3-8b")).transformer->sliding_layers(), 0);
  EXPECT_DOUBLE_EQ(causal_keys(100, 128), 5050);
  EXPECT_DOUBLE_EQ(causal_keys(1128, 128), 8256 + 1000 * 128);
  EXPECT_DOUBLE_EQ(causal_keys(1128, 0), 1128.0 * 1129 / 2);
  // Decoding at a context of 8192: 18 layers attend to 8192 keys, 18 to 128; per token
  // 4 · 4096 · (18 · 8192 + 18 · 128) FLOPs of attention beside twice the active non-embedding
  // weights and the head (2 · 5,711,982,912 − 2 · 579,133,440 − 2 · 2,880 ... counted below).
  const Workload& w = **zoo().find("gpt-oss-120b");
  const ParamCounts p = count_params(w);
  const double dense =
      2.0 * static_cast<double>(p.active - p.embedding - p.head) + 2.0 * 201088 * 2880;
  EXPECT_DOUBLE_EQ(count_flops(w, 1, 8192).decode_per_token,
                   dense + 4.0 * (18 * 8192 + 18 * 128) * 4096);
  // A prefill of 8192 tokens: the full layers' s/2 keys a query, the sliding ones'
  // (8,256 + 8,064 · 128)/8192.
  EXPECT_DOUBLE_EQ(
      count_flops(w, 1, 8192).forward,
      8192 * (dense + 4.0 * 4096 * (18 * 8192 * 0.5 + 18 * (8256.0 + 8064 * 128) / 8192)));
}

// A sliding window is a count of tokens, for decoders; its pattern needs it.
TEST(Zoo, ASlidingWindowIsAPositiveCountOfTokensForADecoder) {
  const std::string head =
      "[[workload]]\nid = \"tiny\"\nname = \"Tiny\"\ntask = \"llm\"\npublished_params = 1000\n"
      "params_source = \"a test\"\n"
      "default_precision = \"bf16\"\ndefault_batch = 1\nthroughput_unit = \"tokens\"\n"
      "source = \"a test\"\nconfidence = \"recall\"\n[workload.transformer]\n"
      "arch = \"decoder\"\nhidden_size = 64\nnum_layers = 2\nnum_heads = 4\n"
      "ffn_size = 128\nffn_type = \"swiglu\"\nvocab_size = 100\n"
      "tied_embeddings = false\nposition = \"rope\"\nmax_positions = 64\nnorm = \"rmsnorm\"\n";
  auto zero = load_zoo({{"w.toml", head + "sliding_window = 0\n"}});
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().message(),
            "w.toml:24:18: workload 'tiny': transformer: field 'sliding_window': 0 is out of "
            "range; expected >= 1 and <= 1000000000\n1 problem in 1 file");
  auto text = load_zoo({{"w.toml", head + "sliding_window = \"128\"\n"}});
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().message(),
            "w.toml:24:18: workload 'tiny': transformer: field 'sliding_window': expected an "
            "integer, got a string\n1 problem in 1 file");
  auto one = load_zoo({{"w.toml", head + "sliding_window = 16\nsliding_window_pattern = 1\n"}});
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.status().message(),
            "w.toml:25:26: workload 'tiny': transformer: field 'sliding_window_pattern': 1 is "
            "out of range; expected >= 2 and <= 10000\n1 problem in 1 file");
  auto alone = load_zoo({{"w.toml", head + "sliding_window_pattern = 2\n"}});
  ASSERT_FALSE(alone.ok());
  EXPECT_EQ(alone.status().message(),
            "w.toml:24:26: workload 'tiny': transformer: field 'sliding_window_pattern': a "
            "pattern of sliding layers needs 'sliding_window', the window in tokens\n1 problem "
            "in 1 file");
  std::string encoder = head;
  encoder.replace(encoder.find("\"decoder\""), 9, "\"encoder\"");
  auto bert = load_zoo({{"w.toml", encoder + "sliding_window = 16\n"}});
  ASSERT_FALSE(bert.ok());
  EXPECT_EQ(bert.status().message(),
            "w.toml:24:18: workload 'tiny': transformer: field 'sliding_window': sliding-window "
            "attention is modelled for decoders only; arch is 'encoder'\n1 problem in 1 file");
  auto good = load_zoo({{"w.toml", head + "sliding_window = 16\n"}});
  ASSERT_TRUE(good.ok()) << good.status().message();
  EXPECT_EQ(good->workloads[0].transformer->sliding_layers(), 2);  // no pattern: every layer
}

TEST(Zoo, FindsWorkloadsByTheirHuggingFaceNames) {
  auto w = zoo().find("meta-llama/Llama-2-7b-hf");
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ((*w)->id, "llama-2-7b");
  auto typo = zoo().find("lama-2-7b");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("did you mean 'llama-2-7b'"), std::string::npos)
      << typo.status().message();
}

// Each part of an image-generation model, built from its configuration, against the count
// published for that part (the UNet, the transformer, each text encoder, the VAE).
TEST(Diffusion, EveryComponentIsWithinOnePercentOfItsPublishedCount) {
  for (const char* id :
       {"stable-diffusion-1.5", "sdxl", "flux.1-dev", "flux.1-schnell", "sd3-medium"}) {
    const Workload& w = **zoo().find(id);
    ASSERT_TRUE(w.diffusion) << id;
    for (const auto& c : w.diffusion->components) {
      double params = 0;
      for (const auto& l : w.layers) {
        if (l.component == c.name) params += static_cast<double>(layer_params(l)) * l.count;
      }
      ASSERT_GT(c.published_params, 0) << id << " " << c.name;
      EXPECT_NEAR(params / static_cast<double>(c.published_params), 1.0, 0.01)
          << id << " " << c.name << ": " << params << " vs " << c.published_params;
    }
  }
}

// Independent of the data files: the component sizes as the released checkpoints give them.
TEST(Diffusion, CountsMatchTheReleasedCheckpoints) {
  auto part = [](const char* id, const char* component) {
    std::int64_t params = 0;
    for (const auto& l : (*zoo().find(id))->layers) {
      if (l.component == component) params += layer_params(l) * l.count;
    }
    return params;
  };
  EXPECT_EQ(part("stable-diffusion-1.5", "unet"), 859'520'964);
  EXPECT_EQ(part("sdxl", "unet"), 2'567'463'684);
  EXPECT_EQ(part("sdxl", "text_encoder_2"), 694'659'840);
  EXPECT_EQ(part("sdxl", "vae"), 83'653'863);
  EXPECT_EQ(part("flux.1-dev", "transformer"), 11'901'408'320);
  EXPECT_EQ(part("flux.1-dev", "text_encoder_2"), 4'762'310'656);
  EXPECT_EQ(part("flux.1-dev", "vae"), 83'819'683);
  EXPECT_EQ(part("sd3-medium", "transformer"), 2'028'328'000);
}

TEST(Diffusion, ResolutionRebuildsTheLayers) {
  const Workload& sdxl = **zoo().find("sdxl");
  auto half = at_resolution(sdxl, 512);
  ASSERT_TRUE(half.ok()) << half.status().message();
  EXPECT_EQ(count_params(*half).total, count_params(sdxl).total);
  // The UNet's convolutions and linears scale with the latent area: a quarter at half the side.
  auto unet_flops = [](const Workload& w) {
    Workload unet = w;
    std::erase_if(unet.layers, [](const Layer& l) { return l.component != "unet"; });
    return count_flops(unet, 1, 1).forward;
  };
  EXPECT_NEAR(unet_flops(*half) / unet_flops(sdxl), 0.25, 0.03);
  auto odd = at_resolution(sdxl, 1000);
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.status().message(),
            "resolution 1000 px is not accepted; expected a multiple of 16 (the latent is 8× "
            "smaller and packed 2×2)");
  auto llm = at_resolution(**zoo().find("llama-2-7b"), 512);
  ASSERT_FALSE(llm.ok());
  EXPECT_EQ(llm.status().message(),
            "--resolution applies to image models built from their configuration (the diffusion "
            "models and the ResNets); llama-2-7b has a fixed input shape");
}

// diffusers' gradient checkpointing recomputes each resnet and each transformer block of the
// UNet; the layers around them, and the other components, run outside any checkpoint.
TEST(Diffusion, CheckpointedModulesAreTheUnetsResnetsAndTransformerBlocks) {
  const Workload& sd = **zoo().find("stable-diffusion-1.5");
  std::map<std::string, std::string> module;
  for (const Layer& l : sd.layers) module[l.name] = checkpoint_module(*sd.diffusion, l);
  EXPECT_EQ(module.at("unet.down_blocks.0.0.resnet.norm1"), "unet.down_blocks.0.0.resnet");
  EXPECT_EQ(module.at("unet.down_blocks.0.0.resnet.residual"), "unet.down_blocks.0.0.resnet");
  EXPECT_EQ(module.at("unet.up_blocks.3.2.attentions.blocks(x1).attn1"),
            "unet.up_blocks.3.2.attentions.blocks(x1)");
  EXPECT_EQ(module.at("unet.mid_block.resnets.1.conv2"), "unet.mid_block.resnets.1");
  for (const char* outside :
       {"unet.conv_in", "unet.time_embedding.linear_1", "unet.down_blocks.0.downsampler",
        "unet.down_blocks.0.0.attentions.proj_in", "unet.up_blocks.3.0.concat_skip",
        "unet.up_blocks.0.upsampler", "unet.conv_out", "text_encoder.layers(x12).fc1",
        "vae.encoder.mid_block.resnets.0.conv1"}) {
    EXPECT_EQ(module.at(outside), "") << outside;
  }
}

// Flux's and SD 3's transformers are checkpointed block by block: Flux's double- and
// single-stream blocks, SD 3's joint blocks and its last (image-only) one. A joint block hands
// both streams to the next: Flux at 1,024 px, 64² = 4,096 image tokens and 512 text tokens of
// 3,072; a single-stream block's output is its last layer's, so no streams are named for it.
TEST(Diffusion, TransformersAreCheckpointedBlockByBlock) {
  const Workload& flux = **zoo().find("flux.1-dev");
  std::map<std::string, std::string> module;
  for (const Layer& l : flux.layers) module[l.name] = checkpoint_module(*flux.diffusion, l);
  EXPECT_EQ(module.at("transformer.transformer_blocks.attn.attention"),
            "transformer.transformer_blocks");
  EXPECT_EQ(module.at("transformer.single_transformer_blocks.proj_mlp"),
            "transformer.single_transformer_blocks");
  for (const char* outside : {"transformer.x_embedder", "transformer.context_embedder",
                              "transformer.norm_out.norm", "text_encoder_2.layers(x24).wo"}) {
    EXPECT_EQ(module.at(outside), "") << outside;
  }
  EXPECT_EQ(block_streams(*flux.diffusion, "transformer.transformer_blocks"),
            3072.0 * (4096 + 512));
  EXPECT_EQ(block_streams(*flux.diffusion, "transformer.single_transformer_blocks"), 0);

  const Workload& sd3 = **zoo().find("sd3-medium");
  module.clear();
  for (const Layer& l : sd3.layers) module[l.name] = checkpoint_module(*sd3.diffusion, l);
  EXPECT_EQ(module.at("transformer.transformer_blocks.last.ff.proj"),
            "transformer.transformer_blocks.last");
  EXPECT_EQ(module.at("transformer.transformer_blocks.ff.proj"), "transformer.transformer_blocks");
  EXPECT_EQ(block_streams(*sd3.diffusion, "transformer.transformer_blocks.last"), 0);
}

// The UNet outputs that only linears save: a block's norms before its attentions' q (and the
// self-attention's k and v), the norm before the GEGLU projection and the GEGLU product.
TEST(Diffusion, SomeUnetOutputsAreSavedOnlyByTheLinearsThatReadThem) {
  const Workload& sd = **zoo().find("stable-diffusion-1.5");
  std::map<std::string, std::vector<std::string>> readers;
  for (const Layer& l : sd.layers) readers[l.name] = saved_only_by_linears(*sd.diffusion, l);
  const std::string blk = "unet.up_blocks.3.2.attentions.blocks(x1).";
  EXPECT_EQ(readers.at(blk + "norm1"), (std::vector<std::string>{"q", "k", "v"}));
  EXPECT_EQ(readers.at(blk + "norm2"), (std::vector<std::string>{"q"}));
  EXPECT_EQ(readers.at(blk + "norm3"), (std::vector<std::string>{"up"}));
  EXPECT_EQ(readers.at(blk + "ff.geglu_product"), (std::vector<std::string>{"down"}));
  for (const char* other : {"ff.gelu_gate", "ff.geglu_proj", "attn1", "residual3"})
    EXPECT_TRUE(readers.at(blk + other).empty()) << other;
  EXPECT_TRUE(readers.at("unet.up_blocks.3.2.attentions.norm").empty());
}

// An autoencoder without [[level]] tables shifted by -1 (UBSan, a fuzz finding of
// workload_toml); one with forty would shift past 31 bits.
TEST(Diffusion, AnAutoencoderNeedsOneToEightLevels) {
  DiffusionConfig config = *(**zoo().find("sdxl")).diffusion;
  auto vae = std::find_if(config.components.begin(), config.components.end(),
                          [](const DiffusionComponent& c) { return c.kind == "vae"; });
  ASSERT_NE(vae, config.components.end());
  ASSERT_EQ(vae->levels.size(), 4u);
  const auto levels = vae->levels;
  vae->levels.clear();
  auto none = diffusion_layers(config);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            "component 'vae' (vae) needs in_channels, latent_channels and [[level]] tables");
  vae->levels.assign(9, levels.back());
  auto nine = diffusion_layers(config);
  ASSERT_FALSE(nine.ok());
  EXPECT_EQ(nine.status().message(),
            "component 'vae' has 9 [[level]] tables; at most 8 are accepted");
}

// A count out of range is reported by its field, and not divided by: 0 key/value heads divided
// the attention heads by zero (UBSan, a fuzz finding of workload_toml).
TEST(Zoo, ZeroKeyValueHeadsAreOutOfRangeNotADivisionByZero) {
  const std::string text =
      "[[workload]]\nid = \"tiny\"\nname = \"Tiny\"\ntask = \"llm\"\npublished_params = 1000\n"
      "params_source = \"a test\"\n"
      "default_precision = \"bf16\"\ndefault_batch = 1\nthroughput_unit = \"tokens\"\n"
      "source = \"a test\"\nconfidence = \"recall\"\n[workload.transformer]\n"
      "arch = \"decoder\"\nhidden_size = 64\nnum_layers = 2\nnum_heads = 4\n"
      "num_kv_heads = 0\nffn_size = 128\nffn_type = \"swiglu\"\nvocab_size = 100\n"
      "tied_embeddings = false\nposition = \"rope\"\nmax_positions = 64\nnorm = \"rmsnorm\"\n";
  auto zoo = load_zoo({{"w.toml", text}});
  ASSERT_FALSE(zoo.ok());
  EXPECT_EQ(zoo.status().message(),
            "w.toml:17:16: workload 'tiny': transformer: field 'num_kv_heads': 0 is out of range; "
            "expected >= 1 and <= 10000\n1 problem in 1 file");
}

TEST(Zoo, ZeroConvolutionGroupsAreOutOfRangeNotADivisionByZero) {
  const std::string text =
      "[[workload]]\nid = \"tiny-cnn\"\nname = \"Tiny CNN\"\ntask = \"vision\"\n"
      "published_params = 144\nparams_source = \"a test\"\ndefault_precision = \"fp16\"\n"
      "default_batch = 1\nthroughput_unit = \"images\"\nsource = \"a test\"\n"
      "confidence = \"recall\"\n[[workload.layers]]\nop = \"conv2d\"\nin_channels = 4\n"
      "out_channels = 4\nkernel = 3\ngroups = 0\nout_h = 8\nout_w = 8\n";
  auto zoo = load_zoo({{"w.toml", text}});
  ASSERT_FALSE(zoo.ok());
  EXPECT_EQ(zoo.status().message(),
            "w.toml:17:10: workload 'tiny-cnn': layer 1: field 'groups': 0 is out of range; "
            "expected >= 1 and <= 1000000\n1 problem in 1 file");
}

// The rules across a transformer's fields skip a field that failed its own check
// (EntryContext::read_well): 0 attention heads is reported once, by its field, and neither
// divides hidden_size nor is compared with the 4 key/value heads ("4 key/value heads must divide
// the 0 attention heads" was a second, misleading error); a missing num_heads alike.
TEST(Zoo, AFailedFieldIsReportedOnceNotAgainByTheRulesThatReadIt) {
  const std::string head =
      "[[workload]]\nid = \"tiny\"\nname = \"Tiny\"\ntask = \"llm\"\npublished_params = 1000\n"
      "params_source = \"a test\"\n"
      "default_precision = \"bf16\"\ndefault_batch = 1\nthroughput_unit = \"tokens\"\n"
      "source = \"a test\"\nconfidence = \"recall\"\n[workload.transformer]\n"
      "arch = \"decoder\"\nhidden_size = 64\nnum_layers = 2\n";
  const std::string tail =
      "num_kv_heads = 4\nffn_size = 128\nffn_type = \"swiglu\"\nvocab_size = 100\n"
      "tied_embeddings = false\nposition = \"rope\"\nmax_positions = 64\nnorm = \"rmsnorm\"\n";
  auto zero = load_zoo({{"w.toml", head + "num_heads = 0\n" + tail}});
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().message(),
            "w.toml:16:13: workload 'tiny': transformer: field 'num_heads': 0 is out of range; "
            "expected >= 1 and <= 10000\n1 problem in 1 file");
  auto text = load_zoo({{"w.toml", head + "num_heads = \"4\"\n" + tail}});
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().message(),
            "w.toml:16:13: workload 'tiny': transformer: field 'num_heads': expected an integer, "
            "got a string\n1 problem in 1 file");
  // The same heads read well: the rule runs, 4 key/value heads do not divide 6 heads.
  auto six = load_zoo({{"w.toml", head + "num_heads = 6\nhead_dim = 16\n" + tail}});
  ASSERT_FALSE(six.ok());
  EXPECT_EQ(six.status().message(),
            "w.toml:18:16: workload 'tiny': transformer: field 'num_kv_heads': 4 key/value heads "
            "must divide the 6 attention heads\n1 problem in 1 file");
}

TEST(ResNet, GeneratesTheTorchvisionFamily) {
  // torchvision's published parameter counts.
  const std::pair<int, long long> counts[] = {
      {18, 11'689'512}, {34, 21'797'672}, {50, 25'557'032}, {101, 44'549'160}, {152, 60'192'808}};
  for (const auto& [depth, params] : counts) {
    Workload w;
    auto layers = resnet_layers({depth, 224, 1000});
    ASSERT_TRUE(layers.ok());
    w.layers = *layers;
    EXPECT_EQ(count_params(w).total, params) << "resnet" << depth;
  }
}

TEST(ResNet, Resnet50ForwardIsFourGigaMultiplyAdds) {
  Workload w;
  w.layers = *resnet_layers({50, 224, 1000});
  // 4.1 GMACs at 224×224 (He et al. 2016, table 1: 3.8e9 FLOPs counted as multiply-adds, for
  // v1; v1.5 moves the stride to the 3×3 convolution and adds about 0.3 GMACs).
  const double gmacs = count_flops(w, 1, 1).forward / 2 / 1e9;
  EXPECT_NEAR(gmacs, 4.1, 0.1);
}

TEST(ResNet, RejectsADepthItDoesNotKnow) {
  auto layers = resnet_layers({42, 224, 1000});
  ASSERT_FALSE(layers.ok());
  EXPECT_EQ(layers.status().message(),
            "ResNet depth 42 is not accepted; expected 18, 34, 50, 101 or 152");
}

TEST(Flops, TransformerForwardIsTwoFlopsPerParameterPerTokenPlusAttention) {
  const Workload& w = **zoo().find("llama-2-7b");
  const FlopCounts f = count_flops(w, 1, 4096);
  // Non-embedding weights 6,738,415,616 - 2·32000·4096 (embeddings, head) + the head again:
  // 2·(6,476,271,616 + 131,072,000) per token, plus causal attention 4·32·4096·4096/2.
  const double per_token = 2.0 * (6'476'271'616.0 + 131'072'000.0) + 4.0 * 32 * 4096 * 4096 / 2;
  EXPECT_DOUBLE_EQ(f.forward, 4096 * per_token);
  EXPECT_DOUBLE_EQ(f.train, 3 * f.forward);
  EXPECT_DOUBLE_EQ(f.train_recompute, 4 * f.forward);
}

}  // namespace
}  // namespace rigplan
