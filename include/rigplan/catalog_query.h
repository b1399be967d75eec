// Filtering and sorting catalog entries, shared by the CLI's list commands and the HTTP API.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rigplan/catalog.h"
#include "rigplan/status.h"

namespace rigplan {

// Sorting: a field name of the entry kind (docs/catalog.md), ascending; a leading '-' sorts
// descending. Entries without the field go last. Empty: catalog order.
struct GpuQuery {
  std::string vendor;  // accepted values of the field; empty: any
  std::string segment;
  std::string architecture;
  std::optional<double> min_memory_gb;
  std::optional<double> max_price_usd;  // against the best-known new price (new_price)
  std::string sort;
};

struct CpuQuery {
  std::string vendor;
  std::string segment;
  std::optional<int> min_cores;
  std::optional<double> max_price_usd;
  std::string sort;
};

struct OfferQuery {
  std::string gpu;       // any name find_gpu accepts; empty: any
  std::string provider;  // empty: any
  std::string region;    // any name find_region accepts; matches the region and its children
  std::optional<double> max_price_per_gpu_hour_usd;
  std::string sort;
};

struct RegionQuery {
  std::string kind;  // world, country, us-state, cloud-region; empty: any
  std::string sort;
};

// Each returns the matching entries, or a kInvalidInput / kNotFound Status for a value or
// field name that is not accepted (with the accepted values and the closest match).
Result<std::vector<const Gpu*>> query_gpus(const Catalog& catalog, const GpuQuery& query);
Result<std::vector<const Cpu*>> query_cpus(const Catalog& catalog, const CpuQuery& query);
Result<std::vector<const Offer*>> query_offers(const Catalog& catalog, const OfferQuery& query);
Result<std::vector<const Region*>> query_regions(const Catalog& catalog, const RegionQuery& query);

// `rigplan overview`: the GPUs of a query that have a new price, by memory bandwidth per 1,000
// USD of it, best first (Dettmers 2023: memory bandwidth is the best single indicator of deep-
// learning speed, 16-bit tensor throughput the next).
struct BudgetGpu {
  const Gpu* gpu = nullptr;
  PriceQuote price;                     // new price (new_price)
  double gbps_per_kusd = 0;             // memory bandwidth per 1,000 USD
  std::optional<double> tensor_tflops;  // dense BF16, else FP16 tensor throughput
  std::optional<double> tflops_per_kusd;
};
Result<std::vector<BudgetGpu>> budget_gpus(const Catalog& catalog, const GpuQuery& query);

// A number of GPUs of a kind, as written on a command line: "4x rtx-4090", "4x RTX 4090" or
// "rtx-4090" (one). A malformed or out-of-range count is a kInvalidInput Status naming
// `option`; an unknown GPU a kNotFound Status with the closest names.
struct GpuCount {
  const Gpu* gpu = nullptr;
  int count = 1;
};
Result<GpuCount> parse_gpu_count(const Catalog& catalog, std::string_view spec,
                                 std::string_view option);

}  // namespace rigplan
