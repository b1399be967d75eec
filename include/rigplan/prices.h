// Prices from outside the catalog: public cloud price lists (SkyPilot's vms.csv of any cloud)
// and a user's own quotes, turned into catalog offers that every command then uses.
// docs/prices.md describes the formats, how names are mapped and how listings collapse.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rigplan/catalog.h"
#include "rigplan/date.h"
#include "rigplan/status.h"

namespace rigplan {

// How old a price may be before an answer stops relying on it silently (docs/prices.md, "Dates").
struct PriceAge {
  // Older than this, recommend ranks no option on the price without --allow-stale-prices: AWS cut
  // its P5 list price by up to 45% within a year of it (June 2025, shared/data/hw_cloud.csv).
  static constexpr long kStaleDays = 365;
  // Older than this (the default of --max-price-age), an answer says how old the price is: cloud
  // GPU prices move within months (shared/data/hw_cloud.csv, 2026 rows against 2025 lists).
  static constexpr double kWarnMonths = 6;
};

// Days from `date` to `today`.
inline long age_in_days(const Date& date, const Date& today) {
  return today.days_since_epoch() - date.days_since_epoch();
}

// A price list as read from disk: its path (for messages and sources), its text and the date
// of its last modification (the date of its prices when no --as-of is given).
struct PriceListFile {
  std::string path;
  std::string text;
  Date modified;
};

// Reads a file and its modification date; a missing or unreadable file is a kIoError Status.
Result<PriceListFile> read_price_list(const std::string& path);

struct OfferImportOptions {
  std::string format;              // "skypilot": SkyPilot vms.csv; "csv": rigplan's own offer CSV
  std::string provider;            // the provider of every file; empty: from the file or its path
  std::string provider_kind;       // for a provider the rules do not know
  std::optional<Date> as_of;       // the date of every price; else each file's modification date
  std::vector<CatalogFile> rules;  // extra price-list rules, read before the embedded ones
};

// A price list's accelerator name that maps to no catalog GPU.
struct UnmappedName {
  std::string provider;
  std::string name;
  int rows = 0;
  std::string example;  // an instance type that carries it
  std::string reason;   // "no GPU of the catalog is called so", "ambiguous: ..."
};

// A listing that became no offer, and why.
struct SkippedListing {
  std::string id;  // the offer it would have been
  std::string reason;
};

// One input file, as read.
struct ImportedInput {
  std::string path;
  std::string provider;  // the file's providers, ", "-separated
  int rows = 0;          // price rows read
  int gpu_rows = 0;      // rows with an accelerator and an on-demand price
  int unpriced = 0;      // rows with an accelerator but no on-demand price (spot only), left out
  Date as_of;
  std::string as_of_from;  // "--as-of", "the as_of column" or "the file's modification time"
};

// The offers of one output file: one provider's for a SkyPilot list, all of an own CSV's.
struct ImportedOffers {
  std::string provider;   // the providers, ", "-separated
  std::string file_name;  // "offers-skypilot-aws.toml"
  std::vector<Offer> offers;
};

struct OfferImport {
  std::vector<ImportedInput> inputs;
  std::vector<ImportedOffers> files;
  std::vector<UnmappedName> unmapped;
  std::vector<SkippedListing> skipped;
};

// Reads price lists into offers: maps accelerator names to catalog GPUs, derives the link
// between an instance's GPUs and its cluster fabric, collapses regions that share a price and
// marketplace listings that differ only in their host, and skips offers whose id the catalog
// already prices at a newer date. Malformed input (unknown format, missing columns, a bad number
// or date) is a kInvalidInput Status naming the file, line and column.
Result<OfferImport> import_offers(const std::vector<PriceListFile>& files,
                                  const OfferImportOptions& options, const Catalog& catalog);

// The TOML text of an imported file: a header naming its inputs, then one [[offer]] per offer.
// `replace` marks every entry `replace = true`, for an overlay that supersedes a base entry whole.
std::string offers_toml(const ImportedOffers& file, const OfferImport& import, bool replace);

// Where imported offers go: the catalog directory itself (a maintainer refreshing the shipped
// catalog) or an overlay directory (a user's prices; entries replace base entries whole).
struct ImportTarget {
  std::vector<CatalogFile> base;
  std::vector<CatalogFile> overlay;
  std::string dir;         // where the files are written
  bool into_base = false;  // `dir` is the base catalog directory
};

// A file written by an import, and the one it replaced.
struct WrittenFile {
  std::string path;
  int offers = 0;
  std::string backup;  // the previous file, kept as "<path>.bak"; empty when there was none
};

// Checks that the catalog still loads with the imported files in place (replacing files of the
// same names in `dir`), then writes each file atomically (a temporary file renamed over the old
// one, whose previous version is kept as .bak). Nothing is written when the check fails.
Result<std::vector<WrittenFile>> write_import(const OfferImport& import,
                                              const ImportTarget& target);

}  // namespace rigplan

namespace rigplan {

// A price that looks wrong. A warning, not an error: the source may be right (a clearance sale,
// a provider's own quirk), so the entry loads and `catalog check` names it with its file and line.
struct PriceWarning {
  std::string file;
  int line = 0;
  std::string kind;  // "gpu", "offer"
  std::string id;
  std::string rule;  // one of the kPriceRules ids
  std::string message;
};

// The sanity rules, in the order they are reported (docs/prices.md):
//   new-below-used        a GPU's new price (street, else launch) below its used price
//   launch-price-as-new   a new price that is the launch MSRP a year or more after launch
//   spot-above-on-demand  an offer's spot price above its on-demand price
//   gpu-hour-out-of-range an offer's price per GPU-hour "far out" of its GPU's offers (Tukey's
//                         outer fences, 3 interquartile ranges, on log prices; at least 2x from
//                         the median; GPUs with 5 or more offers)
//   dated-after-today     a price dated after `today`
inline constexpr std::string_view kPriceRules[] = {"new-below-used", "launch-price-as-new",
                                                   "spot-above-on-demand", "gpu-hour-out-of-range",
                                                   "dated-after-today"};

std::vector<PriceWarning> check_prices(const Catalog& catalog, const Date& today);

// The usual price per GPU-hour of a GPU's offers, from the catalog's own data: the median and
// the fences beyond which a price is "far out". nullopt with fewer than 5 offers.
struct GpuHourRange {
  int offers = 0;
  double median = 0, low = 0, high = 0;  // USD per GPU-hour
};
std::optional<GpuHourRange> gpu_hour_range(const Catalog& catalog, std::string_view gpu);

}  // namespace rigplan
