// The embedded zoo's image (src/workload/zoo_image.h): the zoo a command reads when it is given
// no --workloads must be the one the TOML files under data/workloads/ load.
#include "workload/zoo_image.h"

#include <gtest/gtest.h>

#include "image_test_support.h"
#include "test_support.h"

namespace rigplan {
namespace {

constexpr testing::ImageFormat<Zoo> kZooImage{write_zoo_image, read_zoo_image, embedded_zoo_image,
                                              testing::default_zoo};

TEST(ZooImage, IsTheImageOfTheTomlZoo) {
  // Every field of every workload and of its architecture, the generated layers and the
  // provenance.
  testing::expect_image_of_toml(kZooImage);
}

TEST(ZooImage, KeepsArchitecturesLayersAndWhereEachWorkloadIsDefined) {
  const Zoo& toml = testing::default_zoo();
  const Zoo& image = testing::read_back(kZooImage);
  ASSERT_EQ(image.workloads.size(), toml.workloads.size());
  // data/workloads/transformers.toml, [[workload]] id = "llama-3-8b".
  const Workload& llama = **image.find("llama-3-8b");
  ASSERT_TRUE(llama.transformer.has_value());
  EXPECT_EQ(llama.transformer->hidden_size, 4096);
  EXPECT_EQ(llama.transformer->kv_heads(), 8);
  EXPECT_EQ(llama.transformer->ffn_size, 14336);
  EXPECT_EQ(llama.published_params, 8030261248);
  EXPECT_EQ(llama.default_seq_len, 8192);
  EXPECT_FALSE(llama.resnet.has_value());
  EXPECT_EQ(llama.provenance.file, "data/workloads/transformers.toml");
  EXPECT_EQ(llama.provenance.line, (*toml.find("llama-3-8b"))->provenance.line);
  // A ResNet's layers are generated from its depth: 25,557,032 parameters as torchvision's.
  EXPECT_EQ(count_params(**image.find("resnet50")).total, 25557032);
  // A diffusion model keeps its components and their UNet levels (SDXL: 320/640/1280).
  const Workload& sdxl = **image.find("sdxl");
  ASSERT_TRUE(sdxl.diffusion.has_value());
  EXPECT_EQ(sdxl.diffusion->resolution, 1024);
  EXPECT_EQ(sdxl.diffusion->components.front().levels.size(), 3u);
  EXPECT_EQ(sdxl.diffusion->components.front().levels.back().channels, 1280);
  EXPECT_EQ(count_params(sdxl).total, count_params(**toml.find("sdxl")).total);
}

TEST(ZooImage, FindsWorkloadsByNameAndAlias) {
  auto found = testing::read_back(kZooImage).find("meta-llama/Meta-Llama-3-8B");
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_EQ((*found)->id, "llama-3-8b");
  auto missing = testing::read_back(kZooImage).find("lama-3-8b");
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("did you mean"), std::string::npos)
      << missing.status().message();
}

TEST(ZooImage, ATruncatedOrForeignImageIsAnErrorNotACrash) {
  testing::expect_truncated_and_foreign_rejected(
      kZooImage, 25, "[[workload]]", "the embedded zoo image does not start with its magic line",
      "the embedded zoo image is longer than its workloads");
}

}  // namespace
}  // namespace rigplan
