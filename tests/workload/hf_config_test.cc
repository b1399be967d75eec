#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "rigplan/workload.h"
#include "test_support.h"

namespace rigplan {
namespace {

Result<Workload> import(const std::string& name) {
  const std::string path = std::string(RIGPLAN_TEST_DATA) + "/hf/" + name + "/config.json";
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return import_hf_config(name + "/config.json", text.str());
}

TEST(HfConfig, ImportsLlama2WithItsExactParameterCount) {
  auto w = import("llama-2-7b");
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->id, "meta-llama/llama-2-7b-hf");
  EXPECT_EQ(count_params(*w).total, 6'738'415'616);
  EXPECT_EQ(w->default_precision, "fp16");  // torch_dtype float16
  EXPECT_EQ(*w->default_seq_len, 4096);
}

TEST(HfConfig, ImportsMixtralExperts) {
  auto w = import("mixtral");
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(count_params(*w).total, 46'702'792'704);  // mistralai/Mixtral-8x7B-v0.1
  EXPECT_EQ(w->transformer->kv_heads(), 8);
  EXPECT_EQ(*w->default_seq_len, 4096);  // capped from 32768
}

// openai/gpt-oss-120b's config.json as recalled (no copy is quoted in ../shared): the count
// of tests/workload/zoo_test.cc, 116,829,156,672, with the routers' biases and the sinks; half
// of its 36 layers slide over 128 tokens.
TEST(HfConfig, ImportsGptOssWithItsSlidingLayersAndSinks) {
  auto w = import("gpt-oss-120b");
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(count_params(*w).total, 116'829'156'672);
  EXPECT_EQ(w->transformer->sliding_layers(), 18);
  EXPECT_EQ(w->transformer->window(), 128);
  EXPECT_EQ(w->transformer->top_k(), 4);
  EXPECT_EQ(*w->default_seq_len, 4096);  // capped from 131072
}

// mistralai/Mistral-7B-v0.1's config.json as recalled (no copy is quoted in ../shared): every
// layer slides over 4,096 tokens (no sliding_window_pattern). v0.2's config says
// "sliding_window": null and attends to the whole context. Both count the zoo's 7,241,732,096.
TEST(HfConfig, ReadsMistralV01sWindowOnEveryLayerAndV02sNull) {
  const std::string v01 = R"({"model_type": "mistral", "architectures": ["MistralForCausalLM"],
      "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
      "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000,
      "max_position_embeddings": 32768, "rope_theta": 10000.0, "sliding_window": 4096,
      "tie_word_embeddings": false, "torch_dtype": "bfloat16"})";
  auto w = import_hf_config("mistral-7b-v0.1/config.json", v01);
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(count_params(*w).total, 7'241'732'096);
  EXPECT_EQ(w->transformer->window(), 4096);
  EXPECT_EQ(w->transformer->sliding_layers(), 32);
  std::string v02 = v01;
  v02.replace(v02.find("\"sliding_window\": 4096"), 22, "\"sliding_window\": null");
  auto full = import_hf_config("mistral-7b-v0.2/config.json", v02);
  ASSERT_TRUE(full.ok()) << full.status().message();
  EXPECT_EQ(full->transformer->sliding_layers(), 0);
  EXPECT_FALSE(full->transformer->sliding_window.has_value());
  EXPECT_FALSE((*testing::default_zoo().find("mistral-7b-v0.2"))->transformer->sliding_window);
}

// google/gemma-2-9b's config.json as recalled: sliding_window 4096 on the even layers (Gemma 2's
// modeling code), read as sliding_window_pattern 2: 21 of the 42 layers, as the zoo's entry.
TEST(HfConfig, ReadsGemma2sWindowOnAlternateLayersAsTheZooDoes) {
  auto w = import_hf_config("gemma-2-9b/config.json", R"({"model_type": "gemma2",
      "architectures": ["Gemma2ForCausalLM"], "hidden_size": 3584, "intermediate_size": 14336,
      "num_hidden_layers": 42, "num_attention_heads": 16, "num_key_value_heads": 8,
      "head_dim": 256, "vocab_size": 256000, "max_position_embeddings": 8192,
      "sliding_window": 4096, "query_pre_attn_scalar": 256, "attn_logit_softcapping": 50.0,
      "final_logit_softcapping": 30.0, "hidden_activation": "gelu_pytorch_tanh",
      "torch_dtype": "float32"})");
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(count_params(*w).total, 9'241'705'984);
  EXPECT_EQ(w->transformer->window(), 4096);
  EXPECT_EQ(w->transformer->sliding_layers(), 21);
  const Workload& zoo = **testing::default_zoo().find("gemma-2-9b");
  EXPECT_EQ(zoo.transformer->sliding_layers(), w->transformer->sliding_layers());
  EXPECT_EQ(zoo.transformer->window(), w->transformer->window());
}

TEST(HfConfig, ReportsEveryMissingField) {
  auto w = import("bad");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message(),
            "bad/config.json: field 'intermediate_size' is missing; a 'llama' config needs it");
}

TEST(HfConfig, RejectsHeadsThatDoNotDivideTheHiddenSize) {
  auto w = import_hf_config("c.json", R"({"model_type": "llama", "hidden_size": 4096,
      "num_attention_heads": 30, "num_hidden_layers": 2, "vocab_size": 100,
      "intermediate_size": 11008})");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message(), "c.json: 30 attention heads do not divide hidden size 4096");
}

TEST(HfConfig, RejectsAnUnsupportedFamilyWithSuggestions) {
  auto w = import_hf_config("c.json", R"({"model_type": "lama"})");
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("model_type 'lama' is not supported"), std::string::npos);
  EXPECT_NE(w.status().message().find("did you mean 'llama'"), std::string::npos);
}

TEST(HfConfig, RejectsTextThatIsNotJson) {
  auto w = import_hf_config("c.json", "{ not json");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message(), "c.json: not a JSON object (a Hugging Face config.json)");
}

TEST(HfConfig, RefusesModelsBeyondAThousandTrillionParameters) {
  // Each field is within the workload format's range; together they would wrap 64-bit counts.
  auto w = import_hf_config("c.json", R"({"model_type": "llama", "hidden_size": 1000000,
      "num_attention_heads": 1000, "num_hidden_layers": 10000, "vocab_size": 100,
      "intermediate_size": 10000000})");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message(),
            "c.json: the architecture has 3.4e+17 parameters; rigplan plans models of up to 1e+15");
}

TEST(HfConfig, QuotesALongModelTypeOnlyInPart) {
  auto w = import_hf_config("c.json", R"({"model_type": ")" + std::string(100000, 'x') + R"("})");
  ASSERT_FALSE(w.ok());
  EXPECT_LT(w.status().message().size(), 1000u);
}

}  // namespace
}  // namespace rigplan
