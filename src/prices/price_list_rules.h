// What rigplan knows about public price lists that the lists do not say (data/import/): each
// provider's kind and how its listings collapse, accelerator names -> catalog GPUs, the links
// and fabrics of instance types, and providers' regions -> catalog regions. docs/prices.md.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "rigplan/catalog.h"
#include "rigplan/status.h"

namespace rigplan {

struct ProviderRule {
  std::string id;
  std::string kind;                // hyperscaler, gpu-cloud, marketplace, serverless
  std::string group;               // instance: one offer per instance type; gpu: per GPU x count
  std::string upstream_separator;  // instance types name an upstream cloud before it
  bool gpus_priced_alone = false;  // GPU rows price the GPUs alone; the host VM is a row of its own
  std::string source;
};

// A pattern written "a|b" in a rule: matches any alternative, compared as normalised names.
struct GpuNameRule {
  std::string name;                 // accelerator names, "|"-separated
  std::string provider;             // providers, "|"-separated; empty: any
  std::string instance;             // a case-insensitive regular expression; empty: any
  std::optional<double> memory_gb;  // per GPU, matched within 10%
  std::string gpu;                  // a catalog GPU id
  std::string why;
  std::optional<std::regex> instance_re;
};

struct InstanceRule {
  std::string provider;
  std::string instance;  // a case-insensitive regular expression
  std::string gpu_link;  // an interconnect id; empty: derived from the GPU
  std::string fabric;    // an interconnect id; empty: none
  std::optional<double> fabric_gbit_per_gpu;
  std::string price_caveat;  // what the price list's price of this instance type does not say
  std::optional<Date> price_caveat_before;  // the caveat holds for prices dated before it
  std::string source;
  std::string confidence;
  std::optional<std::regex> instance_re;
};

struct RegionRule {
  std::string provider;
  std::string name;    // the provider's region name
  std::string region;  // a catalog region id
};

struct PriceListRules {
  std::vector<ProviderRule> providers;
  std::vector<GpuNameRule> gpu_names;
  std::vector<InstanceRule> instances;
  std::vector<RegionRule> regions;

  const ProviderRule* provider(std::string_view id) const;
};

// Parses rule files (every problem as "file:line:column: message"); ids of GPUs, interconnects
// and regions are checked against the catalog.
Result<PriceListRules> load_price_list_rules(const std::vector<CatalogFile>& files,
                                             const Catalog& catalog);

// The rules compiled into the binary (data/import/*.toml).
std::vector<CatalogFile> embedded_price_list_rules();

// Lowercase letters and digits only: "RTX6000-Ada" -> "rtx6000ada".
std::string normalise_name(std::string_view name);

// True when `value` is one of the "|"-separated alternatives (normalised); an empty pattern
// matches anything.
bool matches_any(std::string_view pattern, std::string_view value);

}  // namespace rigplan
