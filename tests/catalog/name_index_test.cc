#include "catalog/name_index.h"

#include <gtest/gtest.h>

namespace rigplan {
namespace {

class NameIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    index.add_entry("rtx-4090");
    index.add_entry("rtx-4080");
    index.add_entry("quadro-rtx-6000");
    index.add_entry("rtx-6000-ada");
    EXPECT_EQ(index.add_name(0, "GeForce RTX 4090"), "");
    EXPECT_EQ(index.add_name(1, "GeForce RTX 4080"), "");
    EXPECT_EQ(index.add_name(3, "NVIDIA RTX 6000 Ada Generation"), "");
  }
  NameIndex index{"GPU", "rigplan gpus list"};
};

TEST_F(NameIndexTest, IgnoresCaseSpacingPunctuationAndVendorPrefixes) {
  for (const char* name : {"rtx-4090", "RTX 4090", "rtx_4090", "GeForce RTX 4090",
                           "NVIDIA GeForce RTX 4090", "nvidia rtx4090"}) {
    auto found = index.find(name);
    ASSERT_TRUE(found.ok()) << name << ": " << found.status().message();
    EXPECT_EQ(*found, 0u) << name;
  }
}

TEST_F(NameIndexTest, SuggestsTheClosestIdsForATypo) {
  auto found = index.find("rtx 4900");
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), Status::Code::kNotFound);
  EXPECT_EQ(found.status().message(),
            "unknown GPU 'rtx 4900' (did you mean 'rtx-4090' or 'rtx-4080'?); `rigplan gpus list` "
            "shows them all");
}

TEST_F(NameIndexTest, SuggestsEveryNameThatContainsAnAmbiguousQuery) {
  auto found = index.find("RTX 6000");
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().message(),
            "unknown GPU 'RTX 6000' (did you mean 'rtx-6000-ada' or 'quadro-rtx-6000'?); "
            "`rigplan gpus list` shows them all");
}

TEST_F(NameIndexTest, ReportsANameAlreadyTaken) {
  EXPECT_EQ(index.add_name(1, "RTX 4090"), "rtx-4090");
  EXPECT_EQ(index.add_name(0, "rtx 4090"), "");  // its own name again is fine
}

TEST_F(NameIndexTest, ALongUnknownNameGetsAShortMessageAndNoSuggestion) {
  // A megabyte of brand words was erased from the front one word at a time (quadratic), and
  // "did you mean" compared the whole query with every name (quadratic again).
  std::string name;
  while (name.size() < (1 << 20)) name += "nvidia";
  auto found = index.find(name + "x");
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().message(),
            "unknown GPU '" + name.substr(0, 64) + "...'; `rigplan gpus list` shows them all");
}

}  // namespace
}  // namespace rigplan
