// Price lists -> catalog offers: read rows by header name, map names, derive links, collapse.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "prices/price_list_rules.h"
#include "rigplan/input.h"
#include "rigplan/prices.h"
#include "rigplan/schema.h"
#include "util/csv.h"
#include "util/ids.h"
#include "util/strings.h"

namespace rigplan {
namespace {

// One priced row of a price list.
struct Listing {
  std::string provider;
  std::string file;
  int line = 0;
  std::string instance;
  std::string accelerator;  // as written; for own CSV files, the GPU name
  int count = 0;
  std::optional<int> vcpus;
  std::optional<double> ram_gb;
  double price = 0;
  std::optional<double> spot;
  std::string region;               // the provider's name for it
  std::optional<double> memory_gb;  // per GPU, as listed
  std::string upstream_source;      // "repo path @ commit" when the file names its own source
  Date as_of;
  std::string caveat;
  std::string notes;             // own CSV: the user's notes
  std::string own_source;        // own CSV: the user's source
  std::string own_region;        // own CSV: a catalog region id
  std::string gpu_link, fabric;  // own CSV: links the user states
  std::optional<double> fabric_gbit_per_gpu;
};

// The columns of a price list, by header name; -1 when absent.
class Columns {
 public:
  Columns(const CsvRecord& header, std::string path) : path_(std::move(path)) {
    for (size_t i = 0; i < header.fields.size(); ++i)
      index_[header.fields[i]] = static_cast<int>(i);
  }
  // The first of `names` the header has.
  int find(std::initializer_list<std::string_view> names) const {
    for (auto name : names) {
      auto it = index_.find(std::string(name));
      if (it != index_.end()) return it->second;
    }
    return -1;
  }
  Status require(std::initializer_list<std::string_view> names, std::string_view expected) const {
    if (find(names) >= 0) return {};
    return Status::invalid_input(
        fmt::format("{}:1: missing column '{}'; {}", path_, *names.begin(), expected));
  }

 private:
  std::string path_;
  std::map<std::string, int> index_;
};

// Field access with file:line:column messages.
class Row {
 public:
  Row(const CsvRecord& record, const std::string& path) : record_(record), path_(path) {}
  std::string text(int column) const {
    if (column < 0 || column >= static_cast<int>(record_.fields.size())) return "";
    return std::string(trim(record_.fields[column]));
  }
  // A cell that names something (a provider, an instance type, a GPU, a region): at most
  // input::kMaxNameBytes, so that ids and notes made from it stay bounded.
  Result<std::string> name(int column, std::string_view what) const {
    std::string t = text(column);
    if (t.size() <= input::kMaxNameBytes) return t;
    return error(column, fmt::format("{} '{}' is {} bytes long; at most {} are accepted", what,
                                     shown(t), t.size(), input::kMaxNameBytes));
  }
  Status error(int column, std::string_view message) const {
    return Status::invalid_input(
        fmt::format("{}:{}:{}: {}", path_, record_.line, column + 1, message));
  }
  // A number > 0 (or >= 0 when zero is allowed); nullopt for an empty cell.
  Result<std::optional<double>> number(int column, std::string_view what) const {
    const std::string t = text(column);
    if (t.empty()) return std::optional<double>();
    double value = 0;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
    if (ec != std::errc() || ptr != t.data() + t.size() || !std::isfinite(value) || value < 0) {
      return error(column,
                   fmt::format("{} '{}' is not accepted; expected a number >= 0", what, shown(t)));
    }
    return std::optional<double>(value);
  }
  int line() const { return record_.line; }

 private:
  static std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  }
  const CsvRecord& record_;
  const std::string& path_;
};

// An instance's GPU count from a cell already read as a number: a whole number from 1 to
// kMaxOfferGpus, checked before the count becomes an int.
Result<int> gpu_count(const Row& row, int column, std::string_view what, std::optional<double> n) {
  if (!n || *n < 1 || *n > kMaxOfferGpus || *n != std::floor(*n)) {
    return row.error(column, fmt::format("{} '{}' is not accepted; expected a whole number from 1 "
                                         "to {}",
                                         what, shown(row.text(column)), kMaxOfferGpus));
  }
  return static_cast<int>(*n);
}

// A price rounded to a millionth of a dollar: lists write sums such as 1.6567999999999998.
double cents_fraction(double usd) { return std::round(usd * 1e6) / 1e6; }

std::string to_upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

// GPU memory per GPU in GB from the GpuInfo cell of a row ("... 'SizeInMiB': 16384 ..."); none
// when the cell gives no size, an error when the size is not a number > 0.
Result<std::optional<double>> gpu_info_memory_gb(const Row& row, int column) {
  // 'SizeInMiB':\s*([0-9.]+), read by hand: std::regex recurses per character of a long run.
  constexpr std::string_view kKey = "'SizeInMiB':";
  const std::string info = row.text(column);
  std::string size;
  for (size_t key = info.find(kKey); key != std::string::npos && size.empty();
       key = info.find(kKey, key + 1)) {
    const size_t at =
        std::min(info.find_first_not_of(" \t\n\v\f\r", key + kKey.size()), info.size());
    size = info.substr(at, info.find_first_not_of("0123456789.", at) - at);
  }
  if (size.empty()) return std::optional<double>();
  double mib = 0;
  auto [ptr, ec] = std::from_chars(size.data(), size.data() + size.size(), mib);
  if (ec != std::errc() || ptr != size.data() + size.size() || !std::isfinite(mib) || mib <= 0) {
    return row.error(column, fmt::format("GpuInfo's SizeInMiB '{}' is not accepted; expected a "
                                         "number > 0",
                                         shown(size)));
  }
  return std::optional<double>(mib * 1.048576 / 1000);  // MiB -> GB
}

// The provider of a file from its path: "…/aws/vms.csv", "aws_vms.csv", "aws-vms.csv".
std::string provider_from_path(const std::string& path, const PriceListRules& rules) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  std::vector<std::string> candidates = {p.parent_path().filename().string()};
  const std::string stem = p.stem().string();
  candidates.push_back(stem.substr(0, stem.find_first_of("_-.")));
  for (const auto& c : candidates) {
    if (rules.provider(to_lower(c))) return to_lower(c);
  }
  return "";
}

std::string known_providers(const PriceListRules& rules) {
  std::vector<std::string> ids;
  for (const auto& p : rules.providers) ids.push_back(p.id);
  return quoted_list(ids);
}

struct ReadContext {
  const PriceListFile& file;
  const OfferImportOptions& options;
  const PriceListRules& rules;
  const Catalog& catalog;
  ImportedInput& input;
};

Result<Date> listing_date(const Row& row, int column, const ReadContext& rc) {
  if (column >= 0 && !row.text(column).empty()) {
    const std::string t = row.text(column);
    auto d = Date::parse(t);
    if (!d)
      return row.error(column,
                       fmt::format("as_of '{}' is not a date; expected YYYY-MM-DD", shown(t)));
    return *d;
  }
  return rc.options.as_of ? *rc.options.as_of : rc.file.modified;
}

Status check_provider(const std::string& provider, const Row& row, int column,
                      const ReadContext& rc) {
  if (provider.empty()) {
    return Status::invalid_input(
        fmt::format("{}: cannot tell the provider of line {}: pass --provider (known: {})",
                    rc.file.path, row.line(), known_providers(rc.rules)));
  }
  if (provider.size() > input::kMaxNameBytes || !id_shaped(provider)) {
    return row.error(std::max(column, 0),
                     fmt::format("provider '{}' is not accepted; expected at most {} lowercase "
                                 "letters, digits, '-' and '.'",
                                 shown(provider), input::kMaxNameBytes));
  }
  return {};
}

// SkyPilot vms.csv (any cloud; columns by header name) or rigplan's aggregate of them.
// The columns of a SkyPilot vms.csv (and of the shared data's copy, in snake case); -1: absent.
struct SkypilotColumns {
  int instance, accelerator, count, vcpus, memory, price, spot, region, gpu_info, total_memory,
      provider, repo, path, commit;
};

Result<SkypilotColumns> skypilot_columns(const Columns& cols) {
  constexpr std::string_view kExpected =
      "a SkyPilot vms.csv has InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, "
      "Price, SpotPrice and Region";
  for (auto names : {std::initializer_list<std::string_view>{"InstanceType", "instance_type"},
                     {"AcceleratorName", "accelerator_name"},
                     {"AcceleratorCount", "accelerator_count"},
                     {"Price", "price_usd_per_hour"}}) {
    if (Status s = cols.require(names, kExpected); !s.ok()) return s;
  }
  return SkypilotColumns{.instance = cols.find({"InstanceType", "instance_type"}),
                         .accelerator = cols.find({"AcceleratorName", "accelerator_name"}),
                         .count = cols.find({"AcceleratorCount", "accelerator_count"}),
                         .vcpus = cols.find({"vCPUs", "vcpus"}),
                         .memory = cols.find({"MemoryGiB", "memory_gb"}),
                         .price = cols.find({"Price", "price_usd_per_hour"}),
                         .spot = cols.find({"SpotPrice", "spot_price_usd_per_hour"}),
                         .region = cols.find({"Region", "region"}),
                         .gpu_info = cols.find({"GpuInfo"}),
                         .total_memory = cols.find({"gpu_memory_gb_total"}),
                         .provider = cols.find({"provider"}),
                         .repo = cols.find({"source_repo"}),
                         .path = cols.find({"path"}),
                         .commit = cols.find({"commit"})};
}

// The instance type, the GPU and the region of a row, each at most input::kMaxNameBytes.
Status read_skypilot_names(const Row& row, const SkypilotColumns& c, Listing& l) {
  for (auto [field, column, what] : {std::tuple{&l.instance, c.instance, "InstanceType"},
                                     std::tuple{&l.accelerator, c.accelerator, "AcceleratorName"},
                                     std::tuple{&l.region, c.region, "Region"}}) {
    auto name = row.name(column, what);
    if (!name.ok()) return name.status();
    *field = std::move(name).value();
  }
  return {};
}

// The prices, vCPUs and memory of a row; false when it is not sold on demand (SkyPilot leaves
// the price empty). Every number of the row is checked, sold or not.
Result<bool> read_skypilot_prices(const Row& row, const SkypilotColumns& c, const ReadContext& rc,
                                  Listing& l) {
  auto price = row.number(c.price, "Price");
  auto spot = row.number(c.spot, "SpotPrice");
  auto count = row.number(c.count, "AcceleratorCount");
  auto vcpus = row.number(c.vcpus, "vCPUs");
  auto mem = row.number(c.memory, "MemoryGiB");
  for (const auto* r : {&price, &spot, &count, &vcpus, &mem}) {
    if (!r->ok()) return r->status();
  }
  if (!*price || **price <= 0) {
    if (!l.accelerator.empty()) ++rc.input.unpriced;
    return false;
  }
  l.price = cents_fraction(**price);
  if (*spot && **spot > 0) l.spot = cents_fraction(**spot);
  if (*vcpus) l.vcpus = static_cast<int>(std::lround(**vcpus));
  if (*mem && **mem > 0) l.ram_gb = *mem;
  return true;
}

// The GPUs of a row: their count and memory, and a name for an instance SkyPilot leaves unnamed.
Status read_skypilot_gpus(const Row& row, const SkypilotColumns& c, Listing& l) {
  auto count = row.number(c.count, "AcceleratorCount");
  if (!count.ok()) return count.status();
  auto n = gpu_count(row, c.count, "AcceleratorCount", *count);
  if (!n.ok()) return n.status();
  l.count = *n;
  // SkyPilot leaves the instance type of GCP's attachable GPUs empty: name them by GPU x count.
  if (l.instance.empty()) l.instance = fmt::format("gpu-only:{}-x{}", l.accelerator, l.count);
  if (c.gpu_info >= 0) {
    auto memory = gpu_info_memory_gb(row, c.gpu_info);
    if (!memory.ok()) return memory.status();
    l.memory_gb = *memory;
  }
  if (c.total_memory >= 0) {
    auto total = row.number(c.total_memory, "gpu_memory_gb_total");
    if (!total.ok()) return total.status();
    if (*total) l.memory_gb = **total / l.count;
  }
  return {};
}

// Clouds whose GPU rows price the GPUs alone (GCP): adds the host VM when the list has it, else
// says that the price is the GPUs' alone.
void add_host_vm(Listing& l, const std::map<std::string, Listing>& hosts, const ReadContext& rc) {
  const ProviderRule* p = rc.rules.provider(l.provider);
  if (!p || !p->gpus_priced_alone) return;
  auto host = hosts.find(l.instance + '\n' + l.region);
  if (host == hosts.end()) {
    l.caveat = fmt::format(
        "the GPUs alone: {} bills the host VM (vCPUs, memory) on top, and the price list has no "
        "host row for this instance",
        l.provider);
    return;
  }
  l.price += host->second.price;
  if (l.spot && host->second.spot) l.spot = *l.spot + *host->second.spot;
  l.vcpus = host->second.vcpus;
  l.ram_gb = host->second.ram_gb;
  l.notes = fmt::format("GPU price plus the host VM's {} USD/h (line {})",
                        format_number(host->second.price), host->second.line);
}

Status read_skypilot(const std::vector<CsvRecord>& records, const ReadContext& rc,
                     std::vector<Listing>& out) {
  const auto c = skypilot_columns(Columns(records.front(), rc.file.path));
  if (!c.ok()) return c.status();
  std::set<std::string> providers;
  std::map<std::string, Listing> hosts;  // instance + region -> host row (GPU-less)
  std::vector<Listing> gpu_rows;
  for (size_t i = 1; i < records.size(); ++i) {
    const Row row(records[i], rc.file.path);
    ++rc.input.rows;
    Listing l;
    l.provider = !rc.options.provider.empty() ? rc.options.provider
                 : c->provider >= 0           ? to_lower(row.text(c->provider))
                                              : provider_from_path(rc.file.path, rc.rules);
    if (Status s = check_provider(l.provider, row, c->provider, rc); !s.ok()) return s;
    providers.insert(l.provider);
    l.file = rc.file.path;
    l.line = row.line();
    if (Status s = read_skypilot_names(row, *c, l); !s.ok()) return s;
    auto priced = read_skypilot_prices(row, *c, rc, l);
    if (!priced.ok()) return priced.status();
    if (!*priced) continue;
    l.as_of = rc.options.as_of ? *rc.options.as_of : rc.file.modified;
    if (c->repo >= 0 && !row.text(c->repo).empty()) {
      l.upstream_source = fmt::format("{} {} @ {}", row.text(c->repo), row.text(c->path),
                                      row.text(c->commit).substr(0, 12));
    }
    if (l.accelerator.empty()) {
      hosts[l.instance + '\n' + l.region] = l;
      continue;
    }
    if (Status s = read_skypilot_gpus(row, *c, l); !s.ok()) return s;
    ++rc.input.gpu_rows;
    gpu_rows.push_back(std::move(l));
  }
  for (auto& l : gpu_rows) {
    add_host_vm(l, hosts, rc);
    out.push_back(std::move(l));
  }
  rc.input.provider = join(std::vector<std::string>(providers.begin(), providers.end()), ", ");
  return {};
}

// The columns of rigplan's own offer CSV: provider,instance,gpu,count,price,spot_price,region,
// as_of (+ optional source, notes, gpu_link, fabric, fabric_gbit_per_gpu); -1: absent.
struct OwnCsvColumns {
  int provider, instance, gpu, count, price, spot, region, as_of, source, notes, link, fabric,
      fabric_bw;
};

Result<OwnCsvColumns> own_csv_columns(const Columns& cols) {
  constexpr std::string_view kExpected =
      "expected the header provider,instance,gpu,count,price,spot_price,region,as_of";
  for (auto name : {"provider", "instance", "gpu", "count", "price"}) {
    if (Status s = cols.require({name}, kExpected); !s.ok()) return s;
  }
  return OwnCsvColumns{.provider = cols.find({"provider"}),
                       .instance = cols.find({"instance"}),
                       .gpu = cols.find({"gpu"}),
                       .count = cols.find({"count"}),
                       .price = cols.find({"price"}),
                       .spot = cols.find({"spot_price"}),
                       .region = cols.find({"region"}),
                       .as_of = cols.find({"as_of"}),
                       .source = cols.find({"source"}),
                       .notes = cols.find({"notes"}),
                       .link = cols.find({"gpu_link"}),
                       .fabric = cols.find({"fabric"}),
                       .fabric_bw = cols.find({"fabric_gbit_per_gpu"})};
}

// The numbers of a row: its prices, GPU count and fabric bandwidth; every one is checked before
// any is used.
Status read_own_numbers(const Row& row, const OwnCsvColumns& c, Listing& l) {
  auto price = row.number(c.price, "price");
  auto spot = row.number(c.spot, "spot_price");
  auto count = row.number(c.count, "count");
  auto fabric_bw = row.number(c.fabric_bw, "fabric_gbit_per_gpu");
  for (const auto* r : {&price, &spot, &count, &fabric_bw}) {
    if (!r->ok()) return r->status();
  }
  if (!*price || **price <= 0) return row.error(c.price, "price must be a number > 0");
  l.price = cents_fraction(**price);
  if (*spot) l.spot = cents_fraction(**spot);
  auto n = gpu_count(row, c.count, "count", *count);
  if (!n.ok()) return n.status();
  l.count = *n;
  l.fabric_gbit_per_gpu = *fabric_bw;
  return {};
}

// The instance type and the GPU of a row, each at most input::kMaxNameBytes.
Status read_own_names(const Row& row, const OwnCsvColumns& c, Listing& l) {
  auto instance = row.name(c.instance, "instance");
  if (!instance.ok()) return instance.status();
  if (instance->empty()) return row.error(c.instance, "instance is empty");
  auto gpu = row.name(c.gpu, "gpu");
  if (!gpu.ok()) return gpu.status();
  l.instance = std::move(instance).value();
  l.accelerator = std::move(gpu).value();
  return {};
}

// What the user states beside the numbers: a catalog region, the date of the price, a source,
// notes and the links.
Status read_own_details(const Row& row, const OwnCsvColumns& c, const ReadContext& rc, Listing& l) {
  const std::string region = row.text(c.region);
  if (!region.empty()) {
    auto found = rc.catalog.find_region(region);
    if (!found) return row.error(c.region, found.status().message());
    l.own_region = (*found)->id;
  }
  auto date = listing_date(row, c.as_of, rc);
  if (!date) return date.status();
  l.as_of = *date;
  l.own_source = row.text(c.source);
  l.notes = row.text(c.notes);
  l.gpu_link = row.text(c.link);
  l.fabric = row.text(c.fabric);
  return {};
}

// rigplan's own offer CSV (own_csv_columns): one listing per row, each priced.
Status read_own_csv(const std::vector<CsvRecord>& records, const ReadContext& rc,
                    std::vector<Listing>& out) {
  const auto c = own_csv_columns(Columns(records.front(), rc.file.path));
  if (!c.ok()) return c.status();
  std::set<std::string> providers;
  for (size_t i = 1; i < records.size(); ++i) {
    const Row row(records[i], rc.file.path);
    ++rc.input.rows;
    Listing l;
    l.provider =
        rc.options.provider.empty() ? to_lower(row.text(c->provider)) : rc.options.provider;
    if (Status s = check_provider(l.provider, row, c->provider, rc); !s.ok()) return s;
    providers.insert(l.provider);
    l.file = rc.file.path;
    l.line = row.line();
    if (Status s = read_own_names(row, *c, l); !s.ok()) return s;
    if (Status s = read_own_numbers(row, *c, l); !s.ok()) return s;
    if (Status s = read_own_details(row, *c, rc, l); !s.ok()) return s;
    ++rc.input.gpu_rows;
    out.push_back(std::move(l));
  }
  rc.input.provider = join(std::vector<std::string>(providers.begin(), providers.end()), ", ");
  return {};
}

// --- Mapping -----------------------------------------------------------------------------------

struct Mapping {
  const Gpu* gpu = nullptr;
  std::string why;     // how the name was read
  std::string reason;  // why there is no GPU
};

// Listed GPU memory within 10% of the catalog's: GiB written as GB (7.4%) and the memory left
// after ECC or a driver reserve (A10G 22.4 of 24 GB) pass; 80 GB against an H100 NVL's 94 does not.
constexpr double kMemoryTolerance = 0.10;

bool memory_close(double listed, double catalog) {
  return std::abs(listed - catalog) <= kMemoryTolerance * catalog;
}

Mapping map_gpu(const Listing& l, const PriceListRules& rules, const Catalog& catalog) {
  for (const auto& r : rules.gpu_names) {
    if (!matches_any(r.name, l.accelerator) || !matches_any(r.provider, l.provider)) continue;
    if (r.instance_re && !std::regex_search(l.instance, *r.instance_re)) continue;
    if (r.memory_gb && !(l.memory_gb && memory_close(*l.memory_gb, *r.memory_gb))) continue;
    return {catalog.gpu(r.gpu), r.why, ""};
  }
  auto found = catalog.find_gpu(l.accelerator);
  if (!found) {
    const bool ambiguous = found.status().message().find("ambiguous") != std::string::npos;
    return {nullptr, "",
            ambiguous ? found.status().message() : "no GPU of the catalog is called so"};
  }
  const Gpu* gpu = *found;
  if (l.memory_gb && !memory_close(*l.memory_gb, gpu->memory_gb)) {
    return {nullptr, "",
            fmt::format("listed with {:.0f} GB per GPU; '{}' has {} GB", *l.memory_gb, gpu->id,
                        format_number(gpu->memory_gb))};
  }
  return {gpu, fmt::format("'{}' is the catalog's {}", l.accelerator, gpu->name), ""};
}

// The link between the GPUs of an instance, and where it comes from.
struct Link {
  std::string id;
  std::string source;
  std::string problem;
};

Link derive_link(const Gpu& gpu, int count, const Catalog& catalog) {
  if (count <= 1) return {};
  if (gpu.form_factor == "pcie" || gpu.form_factor == "laptop") {
    const std::string id = fmt::format("pcie-{}-x{}", gpu.pcie_gen, gpu.pcie_lanes);
    for (const auto& ic : catalog.interconnects) {
      if (ic.id == id) {
        return {id,
                fmt::format("assumed: PCIe cards talk over their slots ({}); the price list "
                            "names no NVLink bridge",
                            ic.name),
                ""};
      }
    }
    return {"", "", fmt::format("the catalog has no interconnect '{}'", shown(id))};
  }
  // SXM, OAM and superchip modules on one board: the GPU's own link, by its bandwidth.
  const std::string family = gpu.gpu_link == "infinity-fabric" ? "infinity-fabric" : "nvlink";
  const double bidirectional = gpu.gpu_link_bw_gbps.value_or(0);
  for (const auto& ic : catalog.interconnects) {
    if (ic.family == family && std::abs(2 * ic.bw_per_direction_gbps - bidirectional) < 1) {
      return {ic.id,
              fmt::format("derived: the GPUs of a {} board are joined by {} ({} GB/s, the GPU's "
                          "gpu_link_bw_gbps)",
                          gpu.form_factor == "superchip" ? "superchip" : to_upper(gpu.form_factor),
                          ic.name, format_number(bidirectional)),
              ""};
    }
  }
  return {"", "",
          fmt::format("no {} interconnect of the catalog carries {}'s {} GB/s; add an [[instance]] "
                      "rule with its gpu_link",
                      family, gpu.id, format_number(bidirectional))};
}

const InstanceRule* instance_rule(const Listing& l, const PriceListRules& rules) {
  for (const auto& r : rules.instances) {
    if (matches_any(r.provider, l.provider) && r.instance_re &&
        std::regex_search(l.instance, *r.instance_re)) {
      return &r;
    }
  }
  return nullptr;
}

std::string catalog_region(const Listing& l, const PriceListRules& rules, const Catalog& catalog) {
  if (!l.own_region.empty()) return l.own_region;
  for (const auto& r : rules.regions) {
    if (r.provider == l.provider && r.name == l.region) return r.region;
  }
  const std::string id = l.provider + "-" + to_lower(l.region);
  return catalog.region(id) ? id : "";
}

// "<provider>-<instance>[-<suffix>]", lowercase, other characters as '-', runs collapsed.
std::string offer_id(std::string_view provider, std::string_view instance,
                     std::string_view suffix) {
  std::string raw = fmt::format("{}-{}{}{}", provider, instance, suffix.empty() ? "" : "-", suffix);
  std::string id;
  for (const char c : to_lower(raw)) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.';
    if (keep) {
      id += c;
    } else if (!id.empty() && id.back() != '-') {
      id += '-';
    }
  }
  while (!id.empty() && (id.back() == '-' || id.back() == '.')) id.pop_back();
  return id;
}

// --- Collapsing listings into offers ------------------------------------------------------------

// Listings that become one offer: one instance type's regions at one price, or a marketplace's
// listings of one GPU x count from one upstream cloud.
struct Group {
  std::string key;
  std::vector<const Listing*> listings;  // the offer's own listing first
  const Gpu* gpu = nullptr;
  std::string gpu_why;
  std::string suffix;  // of the offer id: a region when the instance type has several prices
};

std::string price_key(const Listing& l) {
  return fmt::format("{}|{}", format_number(l.price), l.spot ? format_number(*l.spot) : "-");
}

std::vector<Group> collapse(const std::vector<std::pair<const Listing*, Mapping>>& mapped,
                            const PriceListRules& rules, bool own_csv) {
  std::map<std::string, Group> groups;
  std::map<std::string, std::set<std::string>> prices_of_instance;
  for (const auto& [l, m] : mapped) {
    const ProviderRule* p = rules.provider(l->provider);
    std::string key;
    if (own_csv) {
      key = fmt::format("{}\n{}\n{}", l->provider, l->instance, l->own_region);
    } else if (p && p->group == "gpu") {
      const std::string upstream =
          p->upstream_separator.empty()
              ? ""
              : l->instance.substr(0, l->instance.find(p->upstream_separator));
      key = fmt::format("{}\n{}\n{}x{}", l->provider, upstream, l->count, m.gpu->id);
    } else {
      key = fmt::format("{}\n{}\n{}", l->provider, l->instance, price_key(*l));
      prices_of_instance[l->provider + '\n' + l->instance].insert(price_key(*l));
    }
    Group& g = groups[key];
    g.key = key;
    g.gpu = m.gpu;
    g.gpu_why = m.why;
    g.listings.push_back(l);
  }
  std::vector<Group> out;
  for (auto& [key, g] : groups) {
    std::stable_sort(g.listings.begin(), g.listings.end(),
                     [](const Listing* a, const Listing* b) { return a->price < b->price; });
    const Listing& first = *g.listings.front();
    if (prices_of_instance[first.provider + '\n' + first.instance].size() > 1)
      g.suffix = first.region;
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(), [](const Group& a, const Group& b) {
    return std::tie(a.listings.front()->file, a.listings.front()->line) <
           std::tie(b.listings.front()->file, b.listings.front()->line);
  });
  return out;
}

std::string where(const Listing& l) {
  const std::string file = std::filesystem::path(l.file).filename().string();
  if (!l.own_source.empty()) return fmt::format("{} ({} line {})", l.own_source, file, l.line);
  if (!l.upstream_source.empty())
    return fmt::format("{}, via {} line {}", l.upstream_source, file, l.line);
  return fmt::format("{} line {}", l.file, l.line);
}

std::string group_notes(const Group& g) {
  const Listing& l = *g.listings.front();
  std::vector<std::string> notes;
  if (!l.notes.empty()) notes.push_back(l.notes);
  notes.push_back(fmt::format("listed as '{}' x {}; {}", l.accelerator, l.count, g.gpu_why));
  std::vector<std::string> regions;
  for (const Listing* other : g.listings) {
    if (!other->region.empty() &&
        std::find(regions.begin(), regions.end(), other->region) == regions.end())
      regions.push_back(other->region);
  }
  const bool same_host = std::all_of(g.listings.begin(), g.listings.end(),
                                     [&](const Listing* o) { return o->instance == l.instance; });
  if (same_host && regions.size() > 1) {
    notes.push_back(
        fmt::format("the same price in {} regions: {}", regions.size(), join(regions, ", ")));
  } else if (!same_host) {
    notes.push_back(fmt::format(
        "the cheapest of {} listings of this GPU x count (hosts differ in "
        "vCPUs and RAM): {}-{} USD/h",
        g.listings.size(), format_number(l.price), format_number(g.listings.back()->price)));
  }
  if (!l.region.empty() && (same_host ? regions.size() == 1 : true))
    notes.push_back(fmt::format("region '{}'", l.region));
  return join(notes, "; ");
}

// The id of a group's offer: the instance type (with the region that tells its prices apart),
// or for a list grouped by GPU, the upstream cloud and GPU x count.
std::string group_offer_id(const Group& g, const PriceListRules& rules, bool own_csv) {
  const Listing& l = *g.listings.front();
  const ProviderRule* p = rules.provider(l.provider);
  if (own_csv) return offer_id(l.provider, l.instance, l.own_region);
  if (p && p->group == "gpu") {
    const std::string upstream = p->upstream_separator.empty()
                                     ? ""
                                     : l.instance.substr(0, l.instance.find(p->upstream_separator));
    return offer_id(
        l.provider,
        fmt::format("{}{}{}x-{}", upstream, upstream.empty() ? "" : "-", l.count, g.gpu->id), "");
  }
  return offer_id(l.provider, l.instance, g.suffix);
}

// The offer's links and where each comes from: the GPU link as the listing states it, else as
// an instance rule gives it, else derived from the GPU (`problem` when it cannot be); the
// cluster fabric as the listing or a rule states it.
void add_links(Offer& o, const Group& g, const InstanceRule* rule, const Catalog& catalog,
               std::string& problem) {
  const Listing& l = *g.listings.front();
  if (!l.gpu_link.empty() || (rule && !rule->gpu_link.empty())) {
    o.gpu_link = !l.gpu_link.empty() ? l.gpu_link : rule->gpu_link;
    o.provenance.field_sources["gpu_link"] =
        !l.gpu_link.empty() ? o.provenance.source : rule->source;
  } else if (o.gpu_count > 1) {
    const Link link = derive_link(*g.gpu, o.gpu_count, catalog);
    problem = link.problem;
    o.gpu_link = link.id;
    o.provenance.field_sources["gpu_link"] = link.source;
  }
  if (!l.fabric.empty()) {
    o.fabric = l.fabric;
    o.fabric_gbit_per_gpu = l.fabric_gbit_per_gpu;
  } else if (rule && !rule->fabric.empty()) {
    o.fabric = rule->fabric;
    o.fabric_gbit_per_gpu = rule->fabric_gbit_per_gpu;
    o.provenance.field_sources["fabric"] = rule->source;
    if (rule->confidence != "cited") o.provenance.confidence = "mixed";
  }
}

// The offer of a group; `problem` says why it cannot be one.
Offer make_offer(const Group& g, const std::string& provider_kind, const PriceListRules& rules,
                 const Catalog& catalog, bool own_csv, std::string& problem) {
  const Listing& l = *g.listings.front();
  Offer o;
  const InstanceRule* rule = own_csv ? nullptr : instance_rule(l, rules);
  o.id = group_offer_id(g, rules, own_csv);
  o.provider = l.provider;
  o.provider_kind = provider_kind;
  o.instance = l.instance;
  // Regions that map to different catalog regions leave the offer without one (world average).
  o.region = catalog_region(l, rules, catalog);
  for (const Listing* other : g.listings) {
    if (catalog_region(*other, rules, catalog) != o.region) o.region.clear();
  }
  o.gpu = g.gpu->id;
  o.gpu_count = l.count;
  o.vcpus = l.vcpus;
  o.ram_gb = l.ram_gb;
  o.price_per_hour_usd = l.price;
  o.spot_price_per_hour_usd = l.spot;
  o.billing = "on-demand";
  o.price_date = l.as_of;
  o.price_caveat = l.caveat;
  if (rule && !rule->price_caveat.empty() &&
      (!rule->price_caveat_before || l.as_of < *rule->price_caveat_before)) {
    o.price_caveat += (o.price_caveat.empty() ? "" : "; ") + rule->price_caveat;
  }
  o.provenance.source = where(l);
  o.provenance.confidence = "cited";
  o.provenance.notes = group_notes(g);
  o.provenance.field_sources["gpu"] = g.gpu_why;
  add_links(o, g, rule, catalog, problem);
  return o;
}

}  // namespace

Result<PriceListFile> read_price_list(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return Status::io_error(fmt::format("{}: no such file", path));
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) return Status::io_error(fmt::format("{}: cannot read the file", path));
  const auto written = fs::last_write_time(path, ec);
  if (ec) return Status::io_error(fmt::format("{}: {}", path, ec.message()));
  const auto days = std::chrono::floor<std::chrono::days>(std::chrono::file_clock::to_sys(written));
  const std::chrono::year_month_day ymd{days};
  const Date modified{static_cast<int>(ymd.year()), static_cast<int>(unsigned(ymd.month())),
                      static_cast<int>(unsigned(ymd.day()))};
  return PriceListFile{path, text.str(), modified};
}

namespace {

// Reads every file into listings, recording each input.
Status read_listings(const std::vector<PriceListFile>& files, const OfferImportOptions& options,
                     const PriceListRules& rules, const Catalog& catalog, OfferImport& out,
                     std::vector<Listing>& listings) {
  for (const auto& file : files) {
    const auto records = parse_csv(file.text);
    if (records.empty())
      return Status::invalid_input(fmt::format("{}: the file is empty", file.path));
    ImportedInput input{file.path};
    const ReadContext rc{file, options, rules, catalog, input};
    Status s = options.format == "skypilot" ? read_skypilot(records, rc, listings)
                                            : read_own_csv(records, rc, listings);
    if (!s.ok()) return s;
    input.as_of = options.as_of ? *options.as_of : file.modified;
    input.as_of_from = options.as_of ? "--as-of"
                       : options.format == "csv"
                           ? "the as_of column, else the file's modification time"
                           : "the file's modification time";
    out.inputs.push_back(std::move(input));
  }
  return {};
}

// Maps each listing's GPU; unmapped names are counted per provider and name.
std::vector<std::pair<const Listing*, Mapping>> map_listings(const std::vector<Listing>& listings,
                                                             const PriceListRules& rules,
                                                             const Catalog& catalog,
                                                             OfferImport& out) {
  std::vector<std::pair<const Listing*, Mapping>> mapped;
  std::map<std::pair<std::string, std::string>, UnmappedName> unmapped;
  for (const auto& l : listings) {
    Mapping m = map_gpu(l, rules, catalog);
    if (m.gpu) {
      mapped.emplace_back(&l, std::move(m));
      continue;
    }
    UnmappedName& u = unmapped[{l.provider, l.accelerator}];
    if (u.rows++ == 0) u = {l.provider, l.accelerator, 1, l.instance, m.reason};
  }
  for (auto& [key, u] : unmapped) out.unmapped.push_back(std::move(u));
  return mapped;
}

// The catalog entry with the offer's id, when it lives in a file other than `file_name`.
const Offer* existing_offer(const Catalog& catalog, const std::string& id,
                            const std::string& file_name) {
  for (const auto& o : catalog.offers) {
    if (o.id == id && std::filesystem::path(o.provenance.file).filename().string() != file_name)
      return &o;
  }
  return nullptr;
}

std::string output_name(const OfferImportOptions& options, const std::string& provider,
                        const std::vector<PriceListFile>& files) {
  if (options.format == "skypilot") return fmt::format("offers-skypilot-{}.toml", provider);
  std::vector<std::string> stems;
  for (const auto& f : files) stems.push_back(std::filesystem::path(f.path).stem().string());
  return fmt::format("offers-{}.toml", offer_id(join(stems, "-"), "", ""));
}

// --format, and --provider-kind as the catalog's offers accept it (an imported file that the
// catalog then refuses would break every later command).
Status check_options(const OfferImportOptions& options) {
  const std::vector<std::string> formats = {"skypilot", "csv"};
  if (options.format != "skypilot" && options.format != "csv") {
    return Status::invalid_input(fmt::format("--format '{}' is not accepted; expected {}{}",
                                             shown(options.format), quoted_list(formats),
                                             did_you_mean(options.format, formats)));
  }
  if (options.provider_kind.empty()) return {};
  const auto& fields = offer_fields();
  const auto spec = std::find_if(fields.begin(), fields.end(),
                                 [](const auto& f) { return f.key == "provider_kind"; });
  const std::vector<std::string> kinds(spec->choices.begin(), spec->choices.end());
  if (std::find(kinds.begin(), kinds.end(), options.provider_kind) != kinds.end()) return {};
  return Status::invalid_input(fmt::format("--provider-kind '{}' is not accepted; expected {}{}",
                                           shown(options.provider_kind), quoted_list(kinds),
                                           did_you_mean(options.provider_kind, kinds)));
}

// The kind of a provider's offers: as --provider-kind says, else as the rules know the provider.
Result<std::string> provider_kind(const std::string& provider, const OfferImportOptions& options,
                                  const PriceListRules& rules) {
  if (!options.provider_kind.empty()) return options.provider_kind;
  if (const ProviderRule* p = rules.provider(provider); p && !p->kind.empty()) return p->kind;
  return Status::invalid_input(
      fmt::format("provider '{}' is not one rigplan knows (known: {}): pass --provider-kind "
                  "hyperscaler, gpu-cloud, marketplace or serverless",
                  provider, known_providers(rules)));
}

// Puts an offer in its output file `name`, unless the catalog has it from another file at a
// price not older, which skips it.
void file_offer(Offer offer, const std::string& provider, const std::string& name,
                const Catalog& catalog, std::map<std::string, ImportedOffers>& by_file,
                OfferImport& out) {
  ImportedOffers& file = by_file[name];
  file.file_name = name;
  if (file.provider.find(provider) == std::string::npos)
    file.provider += (file.provider.empty() ? "" : ", ") + provider;
  if (const Offer* old = existing_offer(catalog, offer.id, name);
      old && old->price_date >= offer.price_date) {
    out.skipped.push_back(
        {offer.id, fmt::format("the catalog prices it at {} in {}:{}, not older than {}",
                               old->price_date.to_string(), old->provenance.file,
                               old->provenance.line, offer.price_date.to_string())});
    return;
  }
  file.offers.push_back(std::move(offer));
}

}  // namespace

Result<OfferImport> import_offers(const std::vector<PriceListFile>& files,
                                  const OfferImportOptions& options, const Catalog& catalog) {
  if (Status s = check_options(options); !s.ok()) return s;
  std::vector<CatalogFile> rule_files = options.rules;
  for (auto& f : embedded_price_list_rules()) rule_files.push_back(std::move(f));
  auto rules = load_price_list_rules(rule_files, catalog);
  if (!rules) return rules.status();

  OfferImport out;
  std::vector<Listing> listings;
  if (Status s = read_listings(files, options, *rules, catalog, out, listings); !s.ok()) return s;
  const auto mapped = map_listings(listings, *rules, catalog, out);
  const bool own_csv = options.format == "csv";
  std::map<std::string, ImportedOffers> by_file;
  std::set<std::string> ids;
  for (const Group& g : collapse(mapped, *rules, own_csv)) {
    const std::string& provider = g.listings.front()->provider;
    auto kind = provider_kind(provider, options, *rules);
    if (!kind) return kind.status();
    std::string problem;
    Offer offer = make_offer(g, *kind, *rules, catalog, own_csv, problem);
    if (!problem.empty()) {
      out.skipped.push_back({offer.id, problem});
      continue;
    }
    if (!ids.insert(offer.id).second) {
      return Status::invalid_input(fmt::format("{}:{}: a second offer '{}' in this import",
                                               g.listings.front()->file, g.listings.front()->line,
                                               offer.id));
    }
    file_offer(std::move(offer), provider, output_name(options, provider, files), catalog, by_file,
               out);
  }
  for (auto& [name, file] : by_file) {
    if (!file.offers.empty()) out.files.push_back(std::move(file));
  }
  return out;
}

}  // namespace rigplan
