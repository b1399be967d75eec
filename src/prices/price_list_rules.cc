#include "prices/price_list_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "catalog/toml_decode.h"
#include "util/embedded_file.h"
#include "util/strings.h"

namespace rigplan {
namespace {
using namespace toml_decode;

constexpr bool kRequired = true;
constexpr bool kOptional = false;

const std::vector<FieldSpec<ProviderRule>>& provider_fields() {
  using P = ProviderRule;
  static const std::vector<FieldSpec<P>> kFields = {
      {"id", &P::id, kRequired},
      {"kind", &P::kind, kRequired, "", {"hyperscaler", "gpu-cloud", "marketplace", "serverless"}},
      {"group", &P::group, kRequired, "", {"instance", "gpu"}},
      {"upstream_separator", &P::upstream_separator, kOptional},
      {"gpus_priced_alone", &P::gpus_priced_alone, kOptional},
      {"source", &P::source, kRequired},
  };
  return kFields;
}

const std::vector<FieldSpec<GpuNameRule>>& gpu_name_fields() {
  using G = GpuNameRule;
  static const std::vector<FieldSpec<G>> kFields = {
      {"name", &G::name, kRequired},
      {"provider", &G::provider, kOptional},
      {"instance", &G::instance, kOptional},
      {"memory_gb", &G::memory_gb, kOptional, "GB", {}, {0, 4096, false}},
      {"gpu", &G::gpu, kRequired},
      {"why", &G::why, kRequired},
  };
  return kFields;
}

const std::vector<FieldSpec<InstanceRule>>& instance_fields() {
  using I = InstanceRule;
  static const std::vector<FieldSpec<I>> kFields = {
      {"provider", &I::provider, kRequired},
      {"instance", &I::instance, kRequired},
      {"gpu_link", &I::gpu_link, kOptional},
      {"fabric", &I::fabric, kOptional},
      {"fabric_gbit_per_gpu",
       &I::fabric_gbit_per_gpu,
       kOptional,
       "Gbit/s",
       {},
       {0, 100'000, false}},
      {"price_caveat", &I::price_caveat, kOptional},
      {"price_caveat_before", &I::price_caveat_before, kOptional},
      {"source", &I::source, kRequired},
      {"confidence", &I::confidence, kRequired, "", {"cited", "mixed", "recall"}},
  };
  return kFields;
}

const std::vector<FieldSpec<RegionRule>>& region_rule_fields() {
  using R = RegionRule;
  static const std::vector<FieldSpec<R>> kFields = {
      {"provider", &R::provider, kRequired},
      {"name", &R::name, kRequired},
      {"region", &R::region, kRequired},
  };
  return kFields;
}

// The longest pattern of a rule: std::regex compiles by recursive descent, a level per character
// of a run, and a 1 MiB pattern overflowed the stack. The shipped rules' longest is 55 bytes.
constexpr size_t kMaxPatternBytes = 256;

// A regular expression of a rule, or a problem at its field. It runs in libstdc++'s polynomial
// mode (a breadth-first automaton; no back-references), in which no pattern backtracks
// exponentially (".*.*...x" ran for minutes on a 250-byte instance type) and matching does not
// recurse per character of the instance type.
std::optional<std::regex> compile(const std::string& pattern, const EntryContext& ctx) {
  if (pattern.empty()) return std::nullopt;
  if (pattern.size() > kMaxPatternBytes) {
    ctx.error("instance", fmt::format("'{}' is {} bytes long; at most {} are accepted",
                                      shown(pattern), pattern.size(), kMaxPatternBytes));
    return std::nullopt;
  }
  try {
    return std::regex(
        pattern, std::regex::icase | std::regex::ECMAScript | std::regex_constants::__polynomial);
  } catch (const std::regex_error& e) {
    ctx.error("instance",
              fmt::format("'{}' is not a regular expression: {}", shown(pattern), e.what()));
    return std::nullopt;
  }
}

template <class T>
void decode_section(toml::table& root, std::string_view key,
                    const std::vector<FieldSpec<T>>& fields, std::vector<T>& out,
                    Problems& problems, const auto& check) {
  toml::node* node = root.get(key);
  if (!node) return;
  auto* array = node->as_array();
  if (!array || !array->is_array_of_tables()) {
    problems.add(node->source(), fmt::format("'{}' must be a list of [[{}]] tables", key, key));
    return;
  }
  for (auto& item : *array) {
    // Moved, not copied: a copy of a toml++ node drops where it was read, and every problem would
    // say "<input>:0:0" instead of the rules file's line.
    const RawEntry raw{std::move(*item.as_table()), ""};
    const EntryContext ctx(key, raw, problems);
    T rule;
    decode_fields(ctx, raw.table, fields, rule, std::span<const std::string_view>{});
    check(rule, ctx);
    out.push_back(std::move(rule));
  }
}

}  // namespace

std::string normalise_name(std::string_view name) {
  std::string out;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

bool matches_any(std::string_view pattern, std::string_view value) {
  if (pattern.empty()) return true;
  const std::string wanted = normalise_name(value);
  for (const auto& alternative : split(pattern, '|')) {
    if (normalise_name(alternative) == wanted) return true;
  }
  return false;
}

const ProviderRule* PriceListRules::provider(std::string_view id) const {
  for (const auto& p : providers) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

std::vector<CatalogFile> embedded_price_list_rules() {
  return catalog_files(embedded_import_files());
}

Result<PriceListRules> load_price_list_rules(const std::vector<CatalogFile>& files,
                                             const Catalog& catalog) {
  Problems problems;
  PriceListRules rules;
  constexpr std::string_view kSections[] = {"provider", "gpu_name", "instance", "region"};
  for (const auto& file : files) {
    auto parsed = parse_file(file, problems);
    if (!parsed) continue;
    for (auto&& [key, node] : *parsed) {
      const std::string name(key.str());
      if (std::find(std::begin(kSections), std::end(kSections), name) == std::end(kSections)) {
        const auto accepted = to_strings(kSections);
        problems.add(node.source(),
                     fmt::format("unknown section '{}'; expected {}{}", name, quoted_list(accepted),
                                 did_you_mean(name, accepted)));
      }
    }
    decode_section(*parsed, "provider", provider_fields(), rules.providers, problems,
                   [](const ProviderRule&, const EntryContext&) {});
    decode_section(*parsed, "gpu_name", gpu_name_fields(), rules.gpu_names, problems,
                   [&](GpuNameRule& r, const EntryContext& ctx) {
                     check_reference(r.gpu, "gpu", "GPU", catalog.gpus, ctx);
                     r.instance_re = compile(r.instance, ctx);
                   });
    decode_section(
        *parsed, "instance", instance_fields(), rules.instances, problems,
        [&](InstanceRule& r, const EntryContext& ctx) {
          check_reference(r.gpu_link, "gpu_link", "interconnect", catalog.interconnects, ctx);
          check_reference(r.fabric, "fabric", "interconnect", catalog.interconnects, ctx);
          // A fabric or line rate already reported (a rate written as text is not stored) is
          // not read again (EntryContext::read_well).
          if (ctx.read_well({"fabric", "fabric_gbit_per_gpu"}) &&
              r.fabric.empty() != !r.fabric_gbit_per_gpu) {
            ctx.error("fabric", "'fabric' and 'fabric_gbit_per_gpu' go together");
          }
          r.instance_re = compile(r.instance, ctx);
        });
    decode_section(*parsed, "region", region_rule_fields(), rules.regions, problems,
                   [&](const RegionRule& r, const EntryContext& ctx) {
                     check_reference(r.region, "region", "region", catalog.regions, ctx);
                   });
  }
  if (!problems.empty()) return problems.to_status();
  return rules;
}

}  // namespace rigplan
