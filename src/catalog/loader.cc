// Catalog loading: TOML text -> checked plain structs.
//
// Four passes, each reporting every problem it finds rather than stopping at the first:
//   1. parse each file and collect its entries by kind;
//   2. merge overlay entries into the base entries by id;
//   3. decode each entry against its kind's FieldSpec table (types, ranges, accepted values,
//      unknown keys, provenance) and run the kind's consistency checks;
//   4. check references between entries (an offer's GPU and region, a region's parent) and
//      that names and aliases are unambiguous.
#include <algorithm>
#include <map>
#include <regex>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "rigplan/catalog.h"
#include "rigplan/schema.h"
#include "util/strings.h"

namespace rigplan {
namespace {

struct Problem {
  std::string file;
  int line = 0;
  int column = 0;
  std::string message;
};

class Problems {
 public:
  void add(const toml::source_region& where, std::string message) {
    list_.push_back({where.path ? *where.path : std::string("<input>"),
                     static_cast<int>(where.begin.line), static_cast<int>(where.begin.column),
                     std::move(message)});
  }
  bool empty() const { return list_.empty(); }

  Status to_status() {
    std::stable_sort(list_.begin(), list_.end(), [](const Problem& a, const Problem& b) {
      return std::tie(a.file, a.line, a.column) < std::tie(b.file, b.line, b.column);
    });
    std::string text;
    std::vector<std::string> files;
    for (const auto& p : list_) {
      text += fmt::format("{}:{}:{}: {}\n", p.file, p.line, p.column, p.message);
      if (std::find(files.begin(), files.end(), p.file) == files.end()) files.push_back(p.file);
    }
    text += fmt::format("{} problem{} in {} file{}", list_.size(), list_.size() == 1 ? "" : "s",
                        files.size(), files.size() == 1 ? "" : "s");
    return Status::invalid_input(std::move(text));
  }

 private:
  std::vector<Problem> list_;
};

// An entry as read from a file, before decoding.
struct RawEntry {
  toml::table table;
  std::string id;  // empty when the entry has no usable id
};

const char* type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    default: return "nothing";
  }
}

const char* expected_name(FieldType type) {
  switch (type) {
    case FieldType::kText: return "a string";
    case FieldType::kTextList: return "an array of strings";
    case FieldType::kNumber: return "a number";
    case FieldType::kInteger: return "an integer";
    case FieldType::kBool: return "true or false";
    case FieldType::kDate: return "a date such as 2024-06-01 (unquoted)";
  }
  return "";
}

std::vector<std::string> to_strings(std::span<const std::string_view> views) {
  return {views.begin(), views.end()};
}

// Reports problems about one entry, positioned at the offending field when there is one.
class EntryContext {
 public:
  EntryContext(std::string_view kind, const RawEntry& entry, Problems& problems)
      : kind_(kind), entry_(entry), problems_(problems) {}

  void error(std::string_view field, std::string_view message) const {
    const toml::node* node = field.empty() ? nullptr : entry_.table.get(field);
    const auto& where = node ? node->source() : entry_.table.source();
    problems_.add(where, prefix() + (field.empty() ? std::string(message)
                                                   : fmt::format("field '{}': {}", field, message)));
  }
  void error_at(const toml::node& node, std::string_view message) const {
    problems_.add(node.source(), prefix() + std::string(message));
  }
  std::string prefix() const {
    return entry_.id.empty() ? fmt::format("{}: ", kind_)
                             : fmt::format("{} '{}': ", kind_, entry_.id);
  }
  const toml::table& table() const { return entry_.table; }

 private:
  std::string_view kind_;
  const RawEntry& entry_;
  Problems& problems_;
};

// Decodes one field's node into the entry; reports and returns false when it does not fit.
template <class T>
bool decode_field(const toml::node& node, const FieldSpec<T>& spec, T& out,
                  const EntryContext& ctx) {
  auto fail = [&](std::string message) {
    ctx.error(spec.key, message);
    return false;
  };
  auto type_error = [&] {
    return fail(fmt::format("expected {}, got {}", expected_name(spec.type()), type_name(node)));
  };
  auto check_choice = [&](const std::string& value) {
    if (spec.choices.empty() ||
        std::find(spec.choices.begin(), spec.choices.end(), value) != spec.choices.end()) {
      return true;
    }
    const auto accepted = to_strings(spec.choices);
    return fail(fmt::format("'{}' is not accepted; expected {}{}", value, quoted_list(accepted),
                            did_you_mean(value, accepted)));
  };
  auto check_range = [&](double value) {
    if (spec.range.contains(value)) return true;
    return fail(fmt::format("{} is out of range; expected {}", format_number(value),
                            spec.range.describe()));
  };
  auto read_date = [&](Date& date) {
    const auto* d = node.as_date();
    if (!d) return type_error();
    const toml::date v = d->get();
    date = {static_cast<int>(v.year), static_cast<int>(v.month), static_cast<int>(v.day)};
    if (date.year < 1990 || date.year > 2100) {
      return fail(fmt::format("{} is out of range; expected a date from 1990 to 2100",
                              date.to_string()));
    }
    return true;
  };
  return std::visit(
      [&](auto member) -> bool {
        auto& target = out.*member;
        using V = std::decay_t<decltype(target)>;
        if constexpr (std::is_same_v<V, std::string>) {
          const auto* s = node.as_string();
          if (!s) return type_error();
          if (s->get().empty()) return fail("must not be empty");
          target = s->get();
          return check_choice(target);
        } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
          const auto* array = node.as_array();
          if (!array) return type_error();
          bool ok = true;
          for (const auto& item : *array) {
            const auto* s = item.as_string();
            if (!s) return type_error();
            target.push_back(s->get());
            ok = check_choice(target.back()) && ok;
          }
          return ok;
        } else if constexpr (std::is_same_v<V, double> || std::is_same_v<V, std::optional<double>>) {
          double value = 0;
          if (const auto* f = node.as_floating_point()) {
            value = f->get();
          } else if (const auto* i = node.as_integer()) {
            value = static_cast<double>(i->get());
          } else {
            return type_error();
          }
          target = value;
          return check_range(value);
        } else if constexpr (std::is_same_v<V, int> || std::is_same_v<V, std::optional<int>>) {
          const auto* i = node.as_integer();
          if (!i) return type_error();
          target = static_cast<int>(i->get());
          return check_range(static_cast<double>(i->get()));
        } else if constexpr (std::is_same_v<V, bool>) {
          const auto* b = node.as_boolean();
          if (!b) return type_error();
          target = b->get();
          return true;
        } else if constexpr (std::is_same_v<V, Date>) {
          return read_date(target);
        } else {
          Date date;
          if (!read_date(date)) return false;
          target = date;
          return true;
        }
      },
      spec.member);
}

template <class T>
void decode_provenance(const EntryContext& ctx, const std::vector<FieldSpec<T>>& fields,
                       Provenance& out) {
  const toml::table& table = ctx.table();
  auto text = [&](std::string_view key, bool required, std::string& target) {
    const toml::node* node = table.get(key);
    if (!node) {
      if (required) ctx.error("", fmt::format("missing required field '{}'", key));
      return;
    }
    const auto* s = node->as_string();
    if (!s || s->get().empty()) {
      ctx.error(key, fmt::format("expected a non-empty string, got {}", type_name(*node)));
      return;
    }
    target = s->get();
  };
  text("source", true, out.source);
  text("confidence", true, out.confidence);
  text("notes", false, out.notes);
  if (!out.confidence.empty()) {
    const auto levels = to_strings(kConfidenceLevels);
    if (std::find(levels.begin(), levels.end(), out.confidence) == levels.end()) {
      ctx.error("confidence", fmt::format("'{}' is not accepted; expected {}{}", out.confidence,
                                          quoted_list(levels), did_you_mean(out.confidence, levels)));
    }
  }
  const toml::node* sources = table.get("field_sources");
  if (!sources) return;
  const auto* sub = sources->as_table();
  if (!sub) {
    ctx.error("field_sources", fmt::format("expected a table, got {}", type_name(*sources)));
    return;
  }
  std::vector<std::string> keys;
  for (const auto& f : fields) keys.emplace_back(f.key);
  for (const auto& [key, node] : *sub) {
    const std::string name(key.str());
    if (!find_field(fields, name)) {
      ctx.error_at(node, fmt::format("field_sources: '{}' is not a field{}", name,
                                         did_you_mean(name, keys)));
    } else if (const auto* s = node.as_string(); !s || s->get().empty()) {
      ctx.error_at(node, fmt::format("field_sources: '{}': expected a non-empty string", name));
    } else {
      out.field_sources.emplace(name, s->get());
    }
  }
}

// Entity-specific consistency rules. Each reports through the context and returns nothing.
void check_entry(const Gpu& g, const EntryContext& ctx) {
  const std::pair<std::string_view, const std::optional<double>*> tensor_rates[] = {
      {"tf32_tflops", &g.tf32_tflops},   {"fp16_tflops", &g.fp16_tflops},
      {"fp16_fp16acc_tflops", &g.fp16_fp16acc_tflops},
      {"bf16_tflops", &g.bf16_tflops},   {"fp8_tflops", &g.fp8_tflops},
      {"int8_tops", &g.int8_tops}};
  for (const auto& [key, rate] : tensor_rates) {
    if (!rate->has_value()) continue;
    if (!g.tensor_cores) {
      ctx.error(key, "a tensor-core rate on a GPU with tensor_cores = false");
    } else if (**rate < g.fp32_tflops) {
      ctx.error(key, fmt::format("{} is below fp32_tflops {}; a tensor-core rate cannot be lower "
                                 "than the FP32 rate",
                                 format_number(**rate), format_number(g.fp32_tflops)));
    }
  }
  if (g.fp16_tflops && g.fp16_fp16acc_tflops && *g.fp16_fp16acc_tflops < *g.fp16_tflops) {
    ctx.error("fp16_fp16acc_tflops",
              fmt::format("{} is below fp16_tflops {}; FP16 accumulate is never slower than FP32 "
                          "accumulate",
                          format_number(*g.fp16_fp16acc_tflops), format_number(*g.fp16_tflops)));
  }
  auto price_needs_date = [&](const std::optional<double>& price, const std::optional<Date>& date,
                              std::string_view price_key, std::string_view date_key) {
    if (price && !date) ctx.error(price_key, fmt::format("a price needs its date: add '{}'", date_key));
    if (date && !price) ctx.error(date_key, fmt::format("a date without '{}'", price_key));
  };
  price_needs_date(g.street_price_usd, g.street_price_date, "street_price_usd", "street_price_date");
  price_needs_date(g.used_price_usd, g.used_price_date, "used_price_usd", "used_price_date");
  if (g.gpu_link == "none" && g.gpu_link_bw_gbps) {
    ctx.error("gpu_link_bw_gbps", "a link bandwidth on a GPU with gpu_link = \"none\"");
  }
  if (!g.gpu_link.empty() && g.gpu_link != "none" && !g.gpu_link_bw_gbps) {
    ctx.error("gpu_link", fmt::format("'{}' needs 'gpu_link_bw_gbps'", g.gpu_link));
  }
  if (g.slot_width && g.form_factor != "pcie" && g.form_factor != "laptop") {
    ctx.error("slot_width", fmt::format("a slot width on a '{}' part; only pcie and laptop cards "
                                        "occupy slots",
                                        g.form_factor));
  }
}

void check_entry(const Cpu& c, const EntryContext& ctx) {
  if (c.threads < c.cores) {
    ctx.error("threads", fmt::format("{} is below cores {}", c.threads, c.cores));
  }
  if (c.boost_clock_ghz < c.base_clock_ghz) {
    ctx.error("boost_clock_ghz", fmt::format("{} is below base_clock_ghz {}",
                                             format_number(c.boost_clock_ghz),
                                             format_number(c.base_clock_ghz)));
  }
}

void check_entry(const Offer& o, const EntryContext& ctx) {
  if (o.spot_price_per_hour_usd && *o.spot_price_per_hour_usd > o.price_per_hour_usd) {
    ctx.error("spot_price_per_hour_usd",
              fmt::format("{} is above the on-demand price {}",
                          format_number(*o.spot_price_per_hour_usd),
                          format_number(o.price_per_hour_usd)));
  }
}

void check_entry(const Region& r, const EntryContext& ctx) {
  static const std::regex kCountry("[a-z]{2}|world");
  if (!r.country.empty() && !std::regex_match(r.country, kCountry)) {
    ctx.error("country", fmt::format("'{}' is not accepted; expected a lowercase ISO 3166-1 "
                                     "alpha-2 code such as 'de', or 'world'",
                                     r.country));
  }
  if (r.electricity_usd_per_kwh && (!r.electricity_date || r.electricity_source.empty())) {
    ctx.error("electricity_usd_per_kwh",
              "a price needs 'electricity_date' and 'electricity_source'");
  }
  if (r.carbon_gco2_per_kwh && (!r.carbon_year || r.carbon_source.empty())) {
    ctx.error("carbon_gco2_per_kwh", "an intensity needs 'carbon_year' and 'carbon_source'");
  }
}

void check_entry(const Interconnect&, const EntryContext&) {}

template <class T>
T decode_entry(const EntryContext& ctx, const std::vector<FieldSpec<T>>& fields) {
  T out;
  for (const auto& spec : fields) {
    const toml::node* node = ctx.table().get(spec.key);
    if (!node) {
      if (spec.required) ctx.error("", fmt::format("missing required field '{}'", spec.key));
      continue;
    }
    decode_field(*node, spec, out, ctx);
  }
  std::vector<std::string> accepted;
  for (const auto& f : fields) accepted.emplace_back(f.key);
  for (auto key : kProvenanceKeys) accepted.emplace_back(key);
  for (const auto& [key, node] : ctx.table()) {
    const std::string name(key.str());
    if (std::find(accepted.begin(), accepted.end(), name) == accepted.end()) {
      ctx.error_at(node, fmt::format("unknown field '{}'{}", name, did_you_mean(name, accepted)));
    }
  }
  decode_provenance(ctx, fields, out.provenance);
  const auto& where = ctx.table().source();
  out.provenance.file = where.path ? *where.path : "";
  out.provenance.line = static_cast<int>(where.begin.line);
  check_entry(out, ctx);
  return out;
}

constexpr std::string_view kKinds[] = {"gpu", "cpu", "offer", "region", "interconnect"};
using RawEntries = std::map<std::string_view, std::vector<RawEntry>>;

bool valid_id(std::string_view id) {
  static const std::regex kId("[a-z0-9][a-z0-9.-]*");
  return std::regex_match(id.begin(), id.end(), kId);
}

// Pass 1: parses a file and appends its entries, by kind.
void collect(const CatalogFile& file, RawEntries& out, Problems& problems) {
  toml::table root;
  try {
    root = toml::parse(file.text, file.path);
  } catch (const toml::parse_error& e) {
    problems.add(e.source(), fmt::format("TOML syntax error: {}", e.description()));
    return;
  }
  const auto kinds = to_strings(kKinds);
  for (auto&& [key, node] : root) {
    const std::string name(key.str());
    const auto kind = std::find(std::begin(kKinds), std::end(kKinds), name);
    if (kind == std::end(kKinds)) {
      problems.add(node.source(), fmt::format("unknown section '{}'; expected {}{}", name,
                                              quoted_list(kinds), did_you_mean(name, kinds)));
      continue;
    }
    auto* array = node.as_array();
    if (!array || !array->is_array_of_tables()) {
      problems.add(node.source(), fmt::format("'{}' must be a list of [[{}]] tables", name, name));
      continue;
    }
    for (auto&& item : *array) {
      RawEntry entry{std::move(*item.as_table()), ""};
      if (const toml::node* id = entry.table.get("id")) {
        if (const auto* s = id->as_string()) {
          entry.id = s->get();
          if (!valid_id(entry.id)) {
            problems.add(id->source(),
                         fmt::format("{} '{}': field 'id': expected lowercase letters, digits, "
                                     "'-' and '.', starting with a letter or digit",
                                     name, entry.id));
          }
        }
      }
      out[*kind].push_back(std::move(entry));
    }
  }
}

std::string position(const toml::node& node) {
  const auto& where = node.source();
  return fmt::format("{}:{}", where.path ? *where.path : "<input>", where.begin.line);
}

// Pass 2: base entries must have unique ids; an overlay entry adds a new id or replaces the
// fields it names in an existing entry (field_sources are merged key by key).
RawEntries merge(RawEntries base, RawEntries overlay, Problems& problems) {
  for (auto& [kind, entries] : base) {
    std::map<std::string, size_t> seen;
    for (size_t i = 0; i < entries.size(); ++i) {
      const std::string& id = entries[i].id;
      if (id.empty()) continue;
      auto [it, fresh] = seen.emplace(id, i);
      if (!fresh) {
        problems.add(entries[i].table.get("id")->source(),
                     fmt::format("{} '{}': duplicate id; first defined at {}", kind, id,
                                 position(entries[it->second].table)));
      }
    }
  }
  for (auto& [kind, patches] : overlay) {
    auto& entries = base[kind];
    for (auto& patch : patches) {
      auto target = std::find_if(entries.begin(), entries.end(), [&](const RawEntry& e) {
        return !patch.id.empty() && e.id == patch.id;
      });
      if (target == entries.end()) {
        entries.push_back(std::move(patch));
        continue;
      }
      for (auto&& [key, node] : patch.table) {
        auto* old_sources = target->table.get_as<toml::table>("field_sources");
        if (key.str() == "field_sources" && old_sources && node.is_table()) {
          for (auto&& [field, source] : *node.as_table()) {
            old_sources->insert_or_assign(field, std::move(source));
          }
        } else {
          target->table.insert_or_assign(key, std::move(node));
        }
      }
    }
  }
  return base;
}

// Pass 3: decodes every entry of a kind.
template <class T>
void decode_all(std::string_view kind, const std::vector<RawEntry>& raws,
                const std::vector<FieldSpec<T>>& fields, std::vector<T>& out,
                Problems& problems) {
  out.reserve(raws.size());
  for (const auto& raw : raws) out.push_back(decode_entry(EntryContext(kind, raw, problems), fields));
}

// Pass 4: a reference to another entry must name an existing id.
template <class T>
void check_reference(const std::string& value, std::string_view field, std::string_view target,
                     const std::vector<T>& targets, const EntryContext& ctx) {
  if (value.empty()) return;
  std::vector<std::string> ids;
  for (const auto& t : targets) {
    if (t.id == value) return;
    ids.push_back(t.id);
  }
  ctx.error(field, fmt::format("unknown {} '{}'{}", target, value, did_you_mean(value, ids)));
}

}  // namespace

Result<Catalog> load_catalog(const std::vector<CatalogFile>& base,
                             const std::vector<CatalogFile>& overlay) {
  Problems problems;
  RawEntries base_entries, overlay_entries;
  for (const auto& file : base) collect(file, base_entries, problems);
  for (const auto& file : overlay) collect(file, overlay_entries, problems);
  RawEntries raws = merge(std::move(base_entries), std::move(overlay_entries), problems);

  Catalog catalog;
  decode_all("gpu", raws["gpu"], gpu_fields(), catalog.gpus, problems);
  decode_all("cpu", raws["cpu"], cpu_fields(), catalog.cpus, problems);
  decode_all("offer", raws["offer"], offer_fields(), catalog.offers, problems);
  decode_all("region", raws["region"], region_fields(), catalog.regions, problems);
  decode_all("interconnect", raws["interconnect"], interconnect_fields(), catalog.interconnects,
             problems);

  for (size_t i = 0; i < catalog.offers.size(); ++i) {
    const EntryContext ctx("offer", raws["offer"][i], problems);
    check_reference(catalog.offers[i].gpu, "gpu", "GPU", catalog.gpus, ctx);
    check_reference(catalog.offers[i].region, "region", "region", catalog.regions, ctx);
  }
  for (size_t i = 0; i < catalog.regions.size(); ++i) {
    const EntryContext ctx("region", raws["region"][i], problems);
    check_reference(catalog.regions[i].parent, "parent", "region", catalog.regions, ctx);
  }
  catalog.build_indexes([&](std::string_view kind, size_t index, std::string_view field,
                            const std::string& name, const std::string& other_id) {
    const EntryContext ctx(kind, raws[kind][index], problems);
    ctx.error(field, fmt::format("'{}' also names {} '{}'; ids, names and aliases must be unique",
                                 name, kind, other_id));
  });
  if (!problems.empty()) return problems.to_status();
  return catalog;
}

}  // namespace rigplan
