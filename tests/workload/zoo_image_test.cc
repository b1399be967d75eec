// The embedded zoo's image (src/workload/zoo_image.h): the zoo a command reads when it is given
// no --workloads must be the one the TOML files under data/workloads/ load.
#include "workload/zoo_image.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace rigplan {
namespace {

const Zoo& from_image() {
  static const Zoo kZoo = [] {
    auto read = read_zoo_image(embedded_zoo_image());
    EXPECT_TRUE(read.ok()) << read.status().message();
    return std::move(read).value();
  }();
  return kZoo;
}

TEST(ZooImage, IsTheImageOfTheTomlZoo) {
  // Written from the TOML files now, byte for byte what the build compiled in: every field of
  // every workload and of its architecture, the generated layers and the provenance.
  EXPECT_EQ(write_zoo_image(testing::default_zoo()), embedded_zoo_image());
  // And reading it back loses nothing.
  EXPECT_EQ(write_zoo_image(from_image()), embedded_zoo_image());
}

TEST(ZooImage, KeepsArchitecturesLayersAndWhereEachWorkloadIsDefined) {
  const Zoo& toml = testing::default_zoo();
  const Zoo& image = from_image();
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
  auto found = from_image().find("meta-llama/Meta-Llama-3-8B");
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_EQ((*found)->id, "llama-3-8b");
  auto missing = from_image().find("lama-3-8b");
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("did you mean"), std::string::npos)
      << missing.status().message();
}

TEST(ZooImage, ATruncatedOrForeignImageIsAnErrorNotACrash) {
  const std::string_view image = embedded_zoo_image();
  for (size_t cut :
       {size_t{0}, size_t{10}, size_t{25}, image.size() / 3, image.size() / 2, image.size() - 1}) {
    EXPECT_FALSE(read_zoo_image(image.substr(0, cut)).ok()) << cut;
  }
  EXPECT_EQ(read_zoo_image("[[workload]]").status().message(),
            "the embedded zoo image does not start with its magic line");
  EXPECT_EQ(read_zoo_image(std::string(image) + "x").status().message(),
            "the embedded zoo image is longer than its workloads");
}

}  // namespace
}  // namespace rigplan
