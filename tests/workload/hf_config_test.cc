#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "rigplan/workload.h"

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
