#include "rigplan/catalog_query.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_support.h"

namespace rigplan {
namespace {

using testing::default_catalog;

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

TEST(ParseGpuCount, CountAndGpu) {
  auto four = parse_gpu_count(default_catalog(), "4x rtx-4090", "--gpus");
  ASSERT_TRUE(four.ok()) << four.status().message();
  EXPECT_EQ(four->count, 4);
  EXPECT_EQ(four->gpu->id, "rtx-4090");
  auto one = parse_gpu_count(default_catalog(), "RTX 3090", "--gpus");
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ(one->count, 1);
  EXPECT_EQ(one->gpu->id, "rtx-3090");
  for (std::string_view bad : {"4 rtx-4090", "0x rtx-4090", "2147483648x rtx-4090", "4x"}) {
    auto r = parse_gpu_count(default_catalog(), bad, "--gpus");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message(),
              fmt::format("--gpus '{}': expected COUNTx GPU with a count of 1 to 100000, e.g. 4x "
                          "rtx-4090",
                          bad));
  }
  EXPECT_EQ(parse_gpu_count(default_catalog(), "2x rtx-4091", "--gpus").status().code(),
            Status::Code::kNotFound);
}

// The overview's ranking: memory bandwidth per 1,000 USD of new price, best first.
TEST(BudgetGpus, RankedByBandwidthPerDollar) {
  GpuQuery q;
  q.min_memory_gb = 12;
  q.max_price_usd = 2500;
  auto gpus = budget_gpus(default_catalog(), q);
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  ASSERT_FALSE(gpus->empty());
  for (size_t i = 0; i < gpus->size(); ++i) {
    const BudgetGpu& b = (*gpus)[i];
    EXPECT_NEAR(b.gbps_per_kusd, b.gpu->mem_bandwidth_gbps / b.price.usd * 1000, 1e-9);
    if (i > 0) {
      EXPECT_GE((*gpus)[i - 1].gbps_per_kusd, b.gbps_per_kusd);
    }
  }
}

}  // namespace
}  // namespace rigplan
