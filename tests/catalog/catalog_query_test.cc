#include "rigplan/catalog_query.h"

#include <gtest/gtest.h>

namespace rigplan {
namespace {

Catalog small_catalog() {
  auto files = read_catalog_dir(std::string(RIGPLAN_TEST_DATA) + "/catalog_small");
  EXPECT_TRUE(files.ok());
  auto catalog = load_catalog(*files);
  EXPECT_TRUE(catalog.ok()) << catalog.status().message();
  return std::move(catalog).value();
}

std::vector<std::string> ids(const std::vector<const Gpu*>& gpus) {
  std::vector<std::string> out;
  for (const Gpu* g : gpus) out.push_back(g->id);
  return out;
}

TEST(CatalogQuery, FiltersByMemoryAndPrice) {
  const Catalog catalog = small_catalog();
  EXPECT_EQ(ids(*query_gpus(catalog, {.min_memory_gb = 32.0})),
            std::vector<std::string>{"a100-sxm4-80gb"});
  // The RTX 4090 has only a launch price (1599), the A100 a street price (15000).
  EXPECT_EQ(ids(*query_gpus(catalog, {.max_price_usd = 2000.0})),
            std::vector<std::string>{"rtx-4090"});
}

TEST(CatalogQuery, SortsByAnyFieldEitherWay) {
  const Catalog catalog = small_catalog();
  EXPECT_EQ(ids(*query_gpus(catalog, {.sort = "fp32_tflops"})),
            (std::vector<std::string>{"a100-sxm4-80gb", "rtx-4090"}));
  EXPECT_EQ(ids(*query_gpus(catalog, {.sort = "-fp32_tflops"})),
            (std::vector<std::string>{"rtx-4090", "a100-sxm4-80gb"}));
}

TEST(CatalogQuery, RejectsAnUnknownSortField) {
  auto result = query_gpus(small_catalog(), {.sort = "memory"});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message().substr(0, 68),
            "cannot sort by 'memory': not a field (did you mean 'memory_gb', 'mem");
}

TEST(CatalogQuery, RejectsAFilterValueThatIsNotAccepted) {
  auto result = query_gpus(small_catalog(), {.segment = "consumr"});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), Status::Code::kInvalidInput);
  EXPECT_EQ(result.status().message(),
            "segment 'consumr' is not accepted; expected 'consumer', 'workstation' or "
            "'datacenter' (did you mean 'consumer'?)");
}

TEST(CatalogQuery, OffersMatchAGpuByNameAndARegionByItsParents) {
  const Catalog catalog = small_catalog();
  auto offers = query_offers(catalog, {.gpu = "A100 SXM 80GB", .region = "us"});
  ASSERT_TRUE(offers.ok()) << offers.status().message();
  ASSERT_EQ(offers->size(), 1u);
  EXPECT_EQ((*offers)[0]->id, "aws-p4de.24xlarge");
  // 40.97 USD/h for 8 GPUs is 5.12 USD per GPU-hour.
  EXPECT_TRUE(query_offers(catalog, {.max_price_per_gpu_hour_usd = 5.0})->empty());
  EXPECT_EQ(query_offers(catalog, {.max_price_per_gpu_hour_usd = 5.2})->size(), 1u);
}

TEST(StalePrices, FlagsDatedPricesOlderThanTheLimitOldestFirst) {
  const Catalog catalog = small_catalog();
  // The A100's street price is dated 2025-01-01, the p4de offer 2023-08-01; launch prices are
  // history and never stale.
  const auto stale = stale_prices(catalog, Date{2025, 6, 1}, 365);
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_EQ(stale[0].id, "aws-p4de.24xlarge");
  EXPECT_EQ(stale[0].age_days, 670);  // 2023-08-01 to 2025-06-01
  const auto older = stale_prices(catalog, Date{2026, 6, 1}, 365);
  ASSERT_EQ(older.size(), 2u);
  EXPECT_EQ(older[0].id, "aws-p4de.24xlarge");
  EXPECT_EQ(older[1].field, "street_price_usd");
}

TEST(CatalogQuery, RejectsAnUnknownProvider) {
  auto offers = query_offers(small_catalog(), {.provider = "awz"});
  ASSERT_FALSE(offers.ok());
  EXPECT_EQ(offers.status().message(),
            "unknown provider 'awz' (did you mean 'aws'?); providers: aws");
}

}  // namespace
}  // namespace rigplan
