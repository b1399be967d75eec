// The embedded catalog's image (src/catalog/catalog_image.h): the catalog a command reads when it
// is given no --catalog and no overlay must be the one the TOML files under data/catalog/ load.
#include "catalog/catalog_image.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "catalog/image_io.h"
#include "image_test_support.h"
#include "test_support.h"

namespace rigplan {
namespace {

constexpr testing::ImageFormat<Catalog> kCatalogImage{
    write_catalog_image, read_catalog_image, embedded_catalog_image, testing::default_catalog};

TEST(CatalogImage, IsTheImageOfTheTomlCatalog) {
  // Every field of every entry, with its provenance, in the files' order.
  testing::expect_image_of_toml(kCatalogImage);
}

TEST(CatalogImage, KeepsFiguresSourcesAndWhereEachEntryIsDefined) {
  const Catalog& toml = testing::default_catalog();
  const Catalog& image = testing::read_back(kCatalogImage);
  EXPECT_EQ(image.gpus.size(), toml.gpus.size());
  EXPECT_EQ(image.offers.size(), toml.offers.size());
  EXPECT_EQ(image.regions.size(), toml.regions.size());
  // data/catalog/gpus_consumer.toml, [[gpu]] id = "rtx-4090".
  const Gpu* gpu = image.gpu("rtx-4090");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memory_gb, 24);
  EXPECT_EQ(gpu->mem_bandwidth_gbps, 1008);
  EXPECT_EQ(gpu->fp16_fp16acc_tflops, 330.3);
  EXPECT_FALSE(gpu->fp4_tflops.has_value());
  EXPECT_EQ(gpu->aliases, (std::vector<std::string>{"RTX 4090", "GeForce RTX 4090",
                                                    "NVIDIA GeForce RTX 4090", "4090"}));
  EXPECT_EQ(gpu->used_price_date, Date::parse("2025-06-01"));
  EXPECT_EQ(gpu->provenance.confidence, "mixed");
  EXPECT_EQ(gpu->provenance.source_of("used_price_usd").rfind("recalled, not verified", 0), 0u);
  EXPECT_EQ(gpu->provenance.file, "data/catalog/gpus_consumer.toml");
  EXPECT_EQ(gpu->provenance.line, toml.gpu("rtx-4090")->provenance.line);
}

TEST(CatalogImage, CarriesEachFamilysSoftwareStack) {
  const Catalog& image = testing::read_back(kCatalogImage);
  EXPECT_EQ(image.families.size(), testing::default_catalog().families.size());
  // data/catalog/families.toml, [[family]] id = "cdna2".
  const Family* cdna2 = image.family("cdna2");
  ASSERT_NE(cdna2, nullptr);
  EXPECT_EQ(cdna2->stack, "rocm");
  EXPECT_FALSE(cdna2->common_stack);
  EXPECT_EQ(cdna2->support("vllm"), "yes");
  EXPECT_EQ(cdna2->support("bitsandbytes"), "partial");
  EXPECT_EQ(cdna2->support("tensorrt-llm"), "no");
  EXPECT_EQ(cdna2->as_of, Date::parse("2025-08-01"));
  EXPECT_EQ(cdna2->provenance.confidence, "recall");
  EXPECT_EQ(cdna2->provenance.file, "data/catalog/families.toml");
  EXPECT_EQ(image.family_of(*image.gpu("mi250x")), cdna2);
}

TEST(CatalogImage, FindsEntriesByNameAndAlias) {
  auto gpu = testing::read_back(kCatalogImage).find_gpu("geforce rtx 4090");
  ASSERT_TRUE(gpu.ok()) << gpu.status().message();
  EXPECT_EQ((*gpu)->id, "rtx-4090");
  auto missing = testing::read_back(kCatalogImage).find_gpu("rtx 4900");
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("did you mean 'rtx-4090'"), std::string::npos)
      << missing.status().message();
}

TEST(CatalogImage, FindsWhatTheTomlCatalogFindsByEveryIdNameAndAlias) {
  // The image's indexes are built at the first lookup, the loader's at once with its clash
  // checks: the same names must lead to the same entries.
  const Catalog& toml = testing::default_catalog();
  const Catalog& image = testing::read_back(kCatalogImage);
  for (const Gpu& gpu : toml.gpus) {
    std::vector<std::string> names = gpu.aliases;
    names.push_back(gpu.id);
    names.push_back(gpu.name);
    for (const std::string& name : names) {
      auto found = image.find_gpu(name);
      ASSERT_TRUE(found.ok()) << name << ": " << found.status().message();
      EXPECT_EQ((*found)->id, (*toml.find_gpu(name))->id) << name;
    }
  }
  for (const Offer& offer : toml.offers) {
    auto found = image.find_offer(offer.id);
    ASSERT_TRUE(found.ok()) << offer.id << ": " << found.status().message();
    EXPECT_EQ((*found)->id, offer.id);
  }
}

TEST(CatalogImage, ThreadsLookingUpAtOnceEachGetTheEntry) {
  // rigplan serve answers from several threads with one catalog, whose first lookups build the
  // indexes (ASan and UBSan runs of this test catch a double build or a torn read).
  const Catalog catalog = testing::loaded(read_catalog_image(embedded_catalog_image()));
  std::vector<std::string> found(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < found.size(); ++i) {
    threads.emplace_back([&catalog, &found, i] {
      auto gpu = catalog.find_gpu("RTX 4090");
      auto region = catalog.find_region("de");
      if (gpu.ok() && region.ok()) found[i] = (*gpu)->id + " " + (*region)->id;
    });
  }
  for (auto& thread : threads) thread.join();
  for (const std::string& f : found) EXPECT_EQ(f, "rtx-4090 de");
}

TEST(CatalogImage, ATruncatedOrForeignImageIsAnErrorNotACrash) {
  testing::expect_truncated_and_foreign_rejected(
      kCatalogImage, 30, "gpus = []",
      "the embedded catalog image does not start with its magic line",
      "the embedded catalog image is longer than its entries");
}

TEST(CatalogImage, SourceSpellsEveryByteAsAStringLiteral) {
  // Quotes, backslashes, question marks and control bytes as three-digit octal escapes, so that
  // the digit 7 after \001 stays a character of its own.
  const std::string bytes = {'a', '"', '\\', '?', '\n', '\x01', '7'};
  const std::string source = image::literal_function("embedded_catalog_image", bytes);
  EXPECT_NE(source.find(R"(      "a\042\134\077\012\0017")"), std::string::npos) << source;
  EXPECT_NE(source.find("return {kImage, 7};"), std::string::npos) << source;
}

}  // namespace
}  // namespace rigplan
