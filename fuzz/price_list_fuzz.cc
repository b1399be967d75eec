// libFuzzer target: a price list for `rigplan offers import`. The first byte picks the format
// and the provider (odd: rigplan's own offer CSV; even: a SkyPilot vms.csv in the directory of
// provider byte / 2, as SkyPilot's catalog lays them out, so each provider's rules run); the rest
// is the file. Each imported file is also written out as TOML, as the command does.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>

#include "fuzz_support.h"
#include "rigplan/prices.h"

namespace {
// The providers of SkyPilot's catalog that the embedded price-list rules know.
constexpr const char* kProviders[] = {
    "aws",    "gcp",  "azure",      "lambda",    "runpod",  "nebius",         "cudo",
    "seeweb", "vast", "hyperbolic", "simplepod", "mithril", "primeintellect", "shadeform"};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rigplan;
  if (size == 0) return 0;
  const bool own_csv = (data[0] & 1) != 0;
  const std::string provider = kProviders[(data[0] >> 1) % std::size(kProviders)];
  const PriceListFile file{own_csv ? "offers.csv" : provider + "/vms.csv",
                           std::string(reinterpret_cast<const char*>(data + 1), size - 1),
                           Date{2026, 11, 1}};
  const OfferImportOptions options{.format = own_csv ? "csv" : "skypilot",
                                   .provider_kind = own_csv ? "gpu-cloud" : ""};
  auto imported = import_offers({file}, options, fuzz::catalog());
  if (!imported) {
    fuzz::check_message(imported.status().message());
    return 0;
  }
  for (const ImportedOffers& out : imported->files) (void)offers_toml(out, *imported, false);
  return 0;
}
