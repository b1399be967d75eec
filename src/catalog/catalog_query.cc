#include "rigplan/catalog_query.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "rigplan/input.h"
#include "rigplan/schema.h"
#include "util/strings.h"

namespace rigplan {
namespace {

template <class T>
std::vector<std::string> field_names(const std::vector<FieldSpec<T>>& fields) {
  std::vector<std::string> names;
  for (const auto& f : fields) names.emplace_back(f.key);
  return names;
}

// Checks a filter value against the accepted values of a text field; empty passes.
template <class T>
Status check_choice(const std::vector<FieldSpec<T>>& fields, std::string_view key,
                    const std::string& value) {
  const FieldSpec<T>* field = find_field(fields, key);
  assert(field && "filters name schema fields");
  if (value.empty() || field->choices.empty()) return {};
  std::vector<std::string> accepted(field->choices.begin(), field->choices.end());
  if (std::find(accepted.begin(), accepted.end(), value) != accepted.end()) return {};
  return Status::invalid_input(fmt::format("{} '{}' is not accepted; expected {}{}", key,
                                           shown(value), quoted_list(accepted),
                                           did_you_mean(value, accepted)));
}

template <class T>
Status sort_entries(std::vector<const T*>& entries, const std::vector<FieldSpec<T>>& fields,
                    std::string_view sort) {
  if (sort.empty()) return {};
  const bool descending = sort.front() == '-';
  const std::string key(descending ? sort.substr(1) : sort);
  const FieldSpec<T>* field = find_field(fields, key);
  if (!field) {
    const auto names = field_names(fields);
    return Status::invalid_input(fmt::format("cannot sort by '{}': not a field{}; fields: {}",
                                             shown(key), did_you_mean(key, names),
                                             join(names, ", ")));
  }
  auto less = [&](const T* a, const T* b) {
    const FieldValue va = field_value(*a, *field), vb = field_value(*b, *field);
    const bool absent_a = std::holds_alternative<std::monostate>(va);
    const bool absent_b = std::holds_alternative<std::monostate>(vb);
    if (absent_a || absent_b) return !absent_a && absent_b;  // absent values last
    const auto na = numeric(va), nb = numeric(vb);
    if (na && nb) return descending ? *na > *nb : *na < *nb;
    const std::string ta = display_text(va), tb = display_text(vb);
    return descending ? ta > tb : ta < tb;
  };
  std::stable_sort(entries.begin(), entries.end(), less);
  return {};
}

template <class T>
std::vector<const T*> pointers(const std::vector<T>& entries) {
  std::vector<const T*> out;
  for (const auto& e : entries) out.push_back(&e);
  return out;
}

// `name` lowered, when the catalog has offers from that provider; "" for an empty name (any
// provider). An unknown name is refused before the offers are filtered, and lowered once: lowering
// a 1 MiB --provider for each offer of the catalog took 3.3 s.
Result<std::string> known_provider(const Catalog& catalog, const std::string& name) {
  if (name.empty()) return std::string();
  std::string provider = to_lower(name);
  std::vector<std::string> providers;
  for (const auto& o : catalog.offers) {
    if (std::find(providers.begin(), providers.end(), o.provider) == providers.end()) {
      providers.push_back(o.provider);
    }
  }
  if (std::find(providers.begin(), providers.end(), provider) == providers.end()) {
    return Status::not_found(fmt::format("unknown provider '{}'{}; providers: {}", shown(name),
                                         did_you_mean(name, providers), join(providers, ", ")));
  }
  return provider;
}

}  // namespace

Result<std::vector<const Gpu*>> query_gpus(const Catalog& catalog, const GpuQuery& query) {
  if (Status s = input::check(input::kMinMemory, query.min_memory_gb); !s.ok()) return s;
  if (Status s = input::check(input::kMaxPrice, query.max_price_usd); !s.ok()) return s;
  for (const auto& [key, value] :
       {std::pair{"vendor", &query.vendor}, std::pair{"segment", &query.segment},
        std::pair{"architecture", &query.architecture}}) {
    if (Status s = check_choice(gpu_fields(), key, *value); !s.ok()) return s;
  }
  std::vector<const Gpu*> out;
  for (const Gpu* g : pointers(catalog.gpus)) {
    if (!query.vendor.empty() && g->vendor != query.vendor) continue;
    if (!query.segment.empty() && g->segment != query.segment) continue;
    if (!query.architecture.empty() && g->architecture != query.architecture) continue;
    if (query.min_memory_gb && g->memory_gb < *query.min_memory_gb) continue;
    if (query.max_price_usd) {
      const auto price = new_price(*g);
      if (!price || price->usd > *query.max_price_usd) continue;
    }
    out.push_back(g);
  }
  if (Status s = sort_entries(out, gpu_fields(), query.sort); !s.ok()) return s;
  return out;
}

Result<std::vector<const Cpu*>> query_cpus(const Catalog& catalog, const CpuQuery& query) {
  if (Status s = input::check(input::kMinCores, query.min_cores); !s.ok()) return s;
  if (Status s = input::check(input::kMaxPrice, query.max_price_usd); !s.ok()) return s;
  for (const auto& [key, value] :
       {std::pair{"vendor", &query.vendor}, std::pair{"segment", &query.segment}}) {
    if (Status s = check_choice(cpu_fields(), key, *value); !s.ok()) return s;
  }
  std::vector<const Cpu*> out;
  for (const Cpu* c : pointers(catalog.cpus)) {
    if (!query.vendor.empty() && c->vendor != query.vendor) continue;
    if (!query.segment.empty() && c->segment != query.segment) continue;
    if (query.min_cores && c->cores < *query.min_cores) continue;
    if (query.max_price_usd && c->price_usd > *query.max_price_usd) continue;
    out.push_back(c);
  }
  if (Status s = sort_entries(out, cpu_fields(), query.sort); !s.ok()) return s;
  return out;
}

Result<std::vector<const Offer*>> query_offers(const Catalog& catalog, const OfferQuery& query) {
  if (Status s = input::check(input::kMaxHourlyPrice, query.max_price_per_gpu_hour_usd); !s.ok())
    return s;
  const Gpu* gpu = nullptr;
  if (!query.gpu.empty()) {
    auto found = catalog.find_gpu(query.gpu);
    if (!found) return found.status();
    gpu = *found;
  }
  const Region* region = nullptr;
  if (!query.region.empty()) {
    auto found = catalog.find_region(query.region);
    if (!found) return found.status();
    region = *found;
  }
  auto provider = known_provider(catalog, query.provider);
  if (!provider) return provider.status();
  auto in_region = [&](const std::string& id) {
    // Walks up the parents: "us" matches offers in "aws-us-east-1" (parent "us-va").
    for (const Region* r = catalog.region(id); r;
         r = r->parent.empty() ? nullptr : catalog.region(r->parent)) {
      if (r == region) return true;
    }
    return false;
  };
  std::vector<const Offer*> out;
  for (const Offer* o : pointers(catalog.offers)) {
    if (gpu && o->gpu != gpu->id) continue;
    if (!provider->empty() && o->provider != *provider) continue;
    if (region && !in_region(o->region)) continue;
    if (query.max_price_per_gpu_hour_usd &&
        o->price_per_hour_usd / o->gpu_count > *query.max_price_per_gpu_hour_usd) {
      continue;
    }
    out.push_back(o);
  }
  if (Status s = sort_entries(out, offer_fields(), query.sort); !s.ok()) return s;
  return out;
}

Result<std::vector<const Region*>> query_regions(const Catalog& catalog, const RegionQuery& query) {
  if (Status s = check_choice(region_fields(), "kind", query.kind); !s.ok()) return s;
  std::vector<const Region*> out;
  for (const Region* r : pointers(catalog.regions)) {
    if (!query.kind.empty() && r->kind != query.kind) continue;
    out.push_back(r);
  }
  if (Status s = sort_entries(out, region_fields(), query.sort); !s.ok()) return s;
  return out;
}

Result<std::vector<BudgetGpu>> budget_gpus(const Catalog& catalog, const GpuQuery& query) {
  auto found = query_gpus(catalog, query);
  if (!found) return found.status();
  std::vector<BudgetGpu> out;
  for (const Gpu* g : *found) {
    const auto price = new_price(*g);
    if (!price) continue;
    BudgetGpu b{g, *price, g->mem_bandwidth_gbps / price->usd * 1000, {}, {}};
    b.tensor_tflops = g->bf16_tflops ? g->bf16_tflops : g->fp16_tflops;
    if (b.tensor_tflops) b.tflops_per_kusd = *b.tensor_tflops / price->usd * 1000;
    out.push_back(b);
  }
  std::stable_sort(out.begin(), out.end(), [](const BudgetGpu& a, const BudgetGpu& b) {
    return a.gbps_per_kusd > b.gbps_per_kusd;
  });
  return out;
}

Result<GpuCount> parse_gpu_count(const Catalog& catalog, std::string_view spec,
                                 std::string_view option) {
  // The most GPUs one count may name: a large cluster.
  constexpr int kMaxCount = 100'000;
  const std::string text = trim(spec);
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  GpuCount out;
  std::string name = text;
  if (digits > 0) {
    const bool times = digits < text.size() && (text[digits] == 'x' || text[digits] == 'X');
    int count = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + digits, count);
    if (!times || ec != std::errc() || end != text.data() + digits || count < 1 ||
        count > kMaxCount || trim(text.substr(digits + 1)).empty()) {
      return Status::invalid_input(
          fmt::format("{} '{}': expected COUNTx GPU with a count of 1 to {}, e.g. 4x rtx-4090",
                      option, shown(text), format_number(kMaxCount)));
    }
    out.count = count;
    name = trim(text.substr(digits + 1));
  }
  auto gpu = catalog.find_gpu(name);
  if (!gpu) return gpu.status();
  out.gpu = *gpu;
  return out;
}

}  // namespace rigplan
