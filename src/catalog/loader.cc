// Catalog loading: TOML text -> checked plain structs.
//
// Four passes, each reporting every problem it finds rather than stopping at the first:
//   1. parse each file and collect its entries by kind;
//   2. merge overlay entries into the base entries by id;
//   3. decode each entry against its kind's FieldSpec table (types, ranges, accepted values,
//      unknown keys, provenance) and run the kind's consistency checks;
//   4. check references between entries (an offer's GPU and region, a region's parent) and
//      that names and aliases are unambiguous.
#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <map>

#include "catalog/toml_decode.h"
#include "rigplan/catalog.h"
#include "rigplan/gpu_link.h"
#include "rigplan/input.h"
#include "rigplan/schema.h"
#include "util/ids.h"
#include "util/strings.h"

namespace rigplan {
namespace {
using namespace toml_decode;

// NVIDIA's compute capability, "major.minor" (8.9, 12.0), which the model compares as a number.
bool cuda_capability(std::string_view text) {
  const auto number = [](std::string_view d) {
    return !d.empty() && d.size() <= 3 &&
           std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  const size_t dot = text.find('.');
  return dot != std::string_view::npos && number(text.substr(0, dot)) &&
         number(text.substr(dot + 1));
}

// A GPU's tensor-core rates: none without tensor cores, none below the FP32 rate, and FP16
// accumulate never below FP32 accumulate.
void check_gpu_rates(const Gpu& g, const EntryContext& ctx) {
  const std::pair<std::string_view, const std::optional<double>*> tensor_rates[] = {
      {"tf32_tflops", &g.tf32_tflops},
      {"fp16_tflops", &g.fp16_tflops},
      {"fp16_fp16acc_tflops", &g.fp16_fp16acc_tflops},
      {"bf16_tflops", &g.bf16_tflops},
      {"fp8_tflops", &g.fp8_tflops},
      {"fp4_tflops", &g.fp4_tflops},
      {"int8_tops", &g.int8_tops}};
  for (const auto& [key, rate] : tensor_rates) {
    if (!rate->has_value() || !ctx.read_well({key, "tensor_cores"})) continue;
    if (!g.tensor_cores) {
      ctx.error(key, "a tensor-core rate on a GPU with tensor_cores = false");
    } else if (ctx.read_well({"fp32_tflops"}) && **rate < g.fp32_tflops) {
      ctx.error(key, fmt::format("{} is below fp32_tflops {}; a tensor-core rate cannot be lower "
                                 "than the FP32 rate",
                                 format_number(**rate), format_number(g.fp32_tflops)));
    }
  }
  if (g.fp16_tflops && g.fp16_fp16acc_tflops &&
      ctx.read_well({"fp16_tflops", "fp16_fp16acc_tflops"}) &&
      *g.fp16_fp16acc_tflops < *g.fp16_tflops) {
    ctx.error("fp16_fp16acc_tflops",
              fmt::format("{} is below fp16_tflops {}; FP16 accumulate is never slower than FP32 "
                          "accumulate",
                          format_number(*g.fp16_fp16acc_tflops), format_number(*g.fp16_tflops)));
  }
}

// Each of a GPU's prices with its date, and no date without its price.
void check_gpu_prices(const Gpu& g, const EntryContext& ctx) {
  auto price_needs_date = [&](const std::optional<double>& price, const std::optional<Date>& date,
                              std::string_view price_key, std::string_view date_key) {
    if (!ctx.read_well({price_key, date_key})) return;
    if (price && !date)
      ctx.error(price_key, fmt::format("a price needs its date: add '{}'", date_key));
    if (date && !price) ctx.error(date_key, fmt::format("a date without '{}'", price_key));
  };
  price_needs_date(g.street_price_usd, g.street_price_date, "street_price_usd",
                   "street_price_date");
  price_needs_date(g.used_price_usd, g.used_price_date, "used_price_usd", "used_price_date");
}

// A GPU's link to its peers: a bandwidth exactly when it has a link, an NVLink domain only on
// NVSwitch.
void check_gpu_links(const Gpu& g, const EntryContext& ctx) {
  const bool link_read = ctx.read_well({"gpu_link", "gpu_link_bw_gbps"});
  if (link_read && g.gpu_link == "none" && g.gpu_link_bw_gbps) {
    ctx.error("gpu_link_bw_gbps", "a link bandwidth on a GPU with gpu_link = \"none\"");
  }
  if (link_read && !g.gpu_link.empty() && g.gpu_link != "none" && !g.gpu_link_bw_gbps) {
    ctx.error("gpu_link", fmt::format("'{}' needs 'gpu_link_bw_gbps'", shown(g.gpu_link)));
  }
  if (g.nvlink_domain_gpus && ctx.read_well({"nvlink_domain_gpus", "gpu_link"}) &&
      g.gpu_link != "nvswitch") {
    ctx.error("nvlink_domain_gpus",
              fmt::format("an NVLink domain on a GPU with gpu_link = '{}'; only \"nvswitch\" "
                          "joins one",
                          shown(g.gpu_link)));
  }
}

// What a GPU is as a part: the module of a socketed one, an NVIDIA compute capability, the
// power its chip needs beyond the board's, the slots of a card.
void check_gpu_part(const Gpu& g, const EntryContext& ctx) {
  const bool socketed = g.form_factor == "sxm" || g.form_factor == "oam";
  const bool module_read = ctx.read_well({"form_factor", "module"});
  if (!module_read) {
    // A form factor or module already reported: nothing to compare.
  } else if (socketed && g.module.empty()) {
    ctx.error("module", fmt::format("a '{}' GPU needs 'module', the generation of baseboard it "
                                    "takes",
                                    g.form_factor));
  } else if (!g.module.empty() && !socketed) {
    ctx.error("module", fmt::format("a module on a '{}' part; only sxm and oam parts have one",
                                    g.form_factor));
  } else if (!g.module.empty() && (g.form_factor == "oam") != (g.module == "oam")) {
    ctx.error("module", fmt::format("'{}' is not a module of a '{}' part; expected {}",
                                    shown(g.module), g.form_factor,
                                    g.form_factor == "oam" ? "'oam'"
                                                           : "'sxm2', 'sxm3', 'sxm4', 'sxm5' or "
                                                             "'sxm6'"));
  }
  if (ctx.read_well({"vendor", "compute_capability"}) && g.vendor == "nvidia" &&
      !cuda_capability(g.compute_capability)) {
    ctx.error("compute_capability",
              fmt::format("'{}' is not accepted for an NVIDIA GPU; expected major.minor, as 8.9",
                          shown(g.compute_capability)));
  }
  if (g.full_clock_power_w && ctx.read_well({"full_clock_power_w", "board_power_w"}) &&
      *g.full_clock_power_w <= g.board_power_w) {
    ctx.error("full_clock_power_w",
              fmt::format("{} is not above board_power_w {}; give it only for a card whose board "
                          "power holds its chip below its rated clocks",
                          format_number(*g.full_clock_power_w), format_number(g.board_power_w)));
  }
  if (g.slot_width && ctx.read_well({"slot_width", "form_factor"}) && g.form_factor != "pcie" &&
      g.form_factor != "laptop") {
    ctx.error("slot_width", fmt::format("a slot width on a '{}' part; only pcie and laptop cards "
                                        "occupy slots",
                                        g.form_factor));
  }
}

// Entity-specific consistency rules. Each reports through the context and returns nothing; a
// rule across fields runs only when the fields it reads read well (EntryContext::read_well).
void check_entry(const Gpu& g, const EntryContext& ctx) {
  check_gpu_rates(g, ctx);
  check_gpu_prices(g, ctx);
  check_gpu_links(g, ctx);
  check_gpu_part(g, ctx);
}

void check_entry(const Cpu& c, const EntryContext& ctx) {
  if (ctx.read_well({"threads", "cores"}) && c.threads < c.cores) {
    ctx.error("threads", fmt::format("{} is below cores {}", c.threads, c.cores));
  }
  if (ctx.read_well({"boost_clock_ghz", "base_clock_ghz"}) &&
      c.boost_clock_ghz < c.base_clock_ghz) {
    ctx.error("boost_clock_ghz",
              fmt::format("{} is below base_clock_ghz {}", format_number(c.boost_clock_ghz),
                          format_number(c.base_clock_ghz)));
  }
}

// A spot price above on-demand is a warning of check_prices (prices.h), not an error: price
// lists do contain it.
void check_entry(const Offer& o, const EntryContext& ctx) {
  if (!ctx.read_well({"gpu_count", "gpu_link"})) {
    // A GPU count or link already reported.
  } else if (o.gpu_count > 1 && o.gpu_link.empty()) {
    ctx.error("gpu_link", fmt::format("an instance of {} GPUs needs 'gpu_link', the interconnect "
                                      "between its GPUs (such as 'pcie-4-x16' or 'nvlink-4')",
                                      o.gpu_count));
  } else if (o.gpu_count == 1 && !o.gpu_link.empty()) {
    ctx.error("gpu_link", "a 1-GPU instance has no link between GPUs");
  }
  if (!ctx.read_well({"fabric", "fabric_gbit_per_gpu"})) return;
  if (!o.fabric.empty() && !o.fabric_gbit_per_gpu) {
    ctx.error("fabric", "a cluster fabric needs 'fabric_gbit_per_gpu', its line rate per GPU");
  }
  if (o.fabric.empty() && o.fabric_gbit_per_gpu) {
    ctx.error("fabric_gbit_per_gpu", "a fabric bandwidth without 'fabric'");
  }
}

void check_entry(const Region& r, const EntryContext& ctx) {
  const auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  const bool alpha2 = r.country.size() == 2 && lower(r.country[0]) && lower(r.country[1]);
  if (!r.country.empty() && !alpha2 && r.country != "world") {
    ctx.error("country", fmt::format("'{}' is not accepted; expected a lowercase ISO 3166-1 "
                                     "alpha-2 code such as 'de', or 'world'",
                                     shown(r.country)));
  }
  if (r.electricity_usd_per_kwh &&
      ctx.read_well({"electricity_usd_per_kwh", "electricity_date", "electricity_source"}) &&
      (!r.electricity_date || r.electricity_source.empty())) {
    ctx.error("electricity_usd_per_kwh",
              "a price needs 'electricity_date' and 'electricity_source'");
  }
  if (r.carbon_gco2_per_kwh &&
      ctx.read_well({"carbon_gco2_per_kwh", "carbon_year", "carbon_source"}) &&
      (!r.carbon_year || r.carbon_source.empty())) {
    ctx.error("carbon_gco2_per_kwh", "an intensity needs 'carbon_year' and 'carbon_source'");
  }
}

void check_entry(const Interconnect&, const EntryContext&) {}

void check_entry(const BaseSystem& s, const EntryContext& ctx) {
  if (ctx.read_well({"max_gpus", "min_gpus"}) && s.max_gpus < s.min_gpus) {
    ctx.error("max_gpus", fmt::format("{} is below min_gpus {}", s.max_gpus, s.min_gpus));
  }
  if (ctx.read_well({"base_power_w", "psu_w"}) && s.base_power_w >= s.psu_w) {
    ctx.error("base_power_w", fmt::format("{} leaves nothing of psu_w {} for the GPUs",
                                          format_number(s.base_power_w), format_number(s.psu_w)));
  }
}

void check_entry(const Circuit&, const EntryContext&) {}
void check_entry(const Nic&, const EntryContext&) {}

void check_entry(const Psu& p, const EntryContext& ctx) {
  if (p.wattage_w_low_line && ctx.read_well({"wattage_w_low_line", "wattage_w"}) &&
      *p.wattage_w_low_line > p.wattage_w) {
    ctx.error("wattage_w_low_line",
              fmt::format("{} is above wattage_w {}", format_number(*p.wattage_w_low_line),
                          format_number(p.wattage_w)));
  }
}

void check_entry(const Board& b, const EntryContext& ctx) {
  int last = 0;
  for (const auto& text : b.pcie_slots) {
    const auto slot = parse_pcie_slot(text);
    if (!slot) {
      ctx.error("pcie_slots",
                fmt::format("'{}' is not a slot; expected \"x<lanes>/<gen>@<position>\" "
                            "such as \"x16/5@1\" (lanes 1, 2, 4, 8 or 16; gen 1-6)",
                            shown(text)));
    } else if (slot->position <= last) {
      ctx.error("pcie_slots",
                fmt::format("'{}': positions must increase from the top", shown(text)));
    } else {
      last = slot->position;
    }
  }
  if (!ctx.read_well({"pcie_slots", "sxm_sockets", "gpu_module"})) return;
  if (b.pcie_slots.empty() && !b.sxm_sockets) {
    ctx.error("pcie_slots", "a board needs GPU slots or 'sxm_sockets'");
  }
  if (b.sxm_sockets.has_value() != !b.gpu_module.empty()) {
    ctx.error(b.sxm_sockets ? "sxm_sockets" : "gpu_module",
              "'sxm_sockets' and 'gpu_module' go together: a baseboard's sockets take one module "
              "generation");
  }
}

void check_entry(const Chassis&, const EntryContext&) {}
void check_entry(const Part&, const EntryContext&) {}
void check_entry(const PsuEfficiency&, const EntryContext&) {}

// Every software of kStackSoftware is in exactly one of a family's lists.
void check_entry(const Family& f, const EntryContext& ctx) {
  const std::pair<std::string_view, const std::vector<std::string>*> lists[] = {
      {"runs", &f.runs}, {"runs_partly", &f.runs_partly}, {"does_not_run", &f.does_not_run}};
  if (!ctx.read_well({"runs", "runs_partly", "does_not_run"})) return;
  for (std::string_view software : kStackSoftware) {
    std::vector<std::string_view> in;
    for (const auto& [key, list] : lists) {
      if (std::find(list->begin(), list->end(), software) != list->end()) in.push_back(key);
    }
    if (in.size() == 1) continue;
    ctx.error(in.empty() ? "runs" : in.back(),
              in.empty() ? fmt::format("'{}' is in none of runs, runs_partly and does_not_run; "
                                       "say how it runs on the family",
                                       software)
                         : fmt::format("'{}' is in both {} and {}; it belongs in one", software,
                                       in.front(), in.back()));
  }
}

template <class T>
T decode_entry(const EntryContext& ctx, const std::vector<FieldSpec<T>>& fields) {
  T out = decode_sourced_entry(ctx, fields);
  check_entry(out, ctx);
  return out;
}

constexpr std::string_view kKinds[] = {
    "gpu", "cpu", "offer", "region",  "interconnect", "system",         "circuit",
    "psu", "nic", "board", "chassis", "part",         "psu_efficiency", "family"};
using RawEntries = std::map<std::string_view, std::vector<RawEntry>>;

bool valid_id(std::string_view id) { return id.size() <= input::kMaxNameBytes && id_shaped(id); }

// Pass 1: parses a file and appends its entries, by kind.
void collect(const CatalogFile& file, RawEntries& out, Problems& problems) {
  auto parsed = parse_file(file, problems);
  if (!parsed) return;
  toml::table& root = *parsed;
  const auto kinds = to_strings(kKinds);
  for (auto&& [key, node] : root) {
    const std::string name(key.str());
    const auto kind = std::find(std::begin(kKinds), std::end(kKinds), name);
    if (kind == std::end(kKinds)) {
      problems.add(node.source(), fmt::format("unknown section '{}'; expected {}{}", shown(name),
                                              quoted_list(kinds), did_you_mean(name, kinds)));
      continue;
    }
    auto* array = node.as_array();
    if (!array || !array->is_array_of_tables()) {
      problems.add(node.source(),
                   fmt::format("'{}' must be a list of [[{}]] tables", shown(name), shown(name)));
      continue;
    }
    for (auto&& item : *array) {
      RawEntry entry{std::move(*item.as_table()), ""};
      if (const toml::node* id = entry.table.get("id")) {
        if (const auto* s = id->as_string()) {
          entry.id = s->get();
          if (!valid_id(entry.id)) {
            problems.add(id->source(),
                         fmt::format("{} '{}': field 'id': expected at most {} lowercase "
                                     "letters, digits, '-' and '.', starting with a letter or "
                                     "digit",
                                     shown(name), shown(entry.id), input::kMaxNameBytes));
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

// An overlay entry's `replace = true` (removed from the entry): it replaces a base entry whole.
bool take_replace(RawEntry& entry, std::string_view kind, bool in_overlay, Problems& problems) {
  const toml::node* node = entry.table.get("replace");
  if (!node) return false;
  const auto* flag = node->as_boolean();
  const std::string who =
      entry.id.empty() ? std::string(kind) : fmt::format("{} '{}'", kind, entry.id);
  if (!in_overlay) {
    problems.add(node->source(),
                 fmt::format("{}: field 'replace' belongs in an overlay entry", who));
  } else if (!flag) {
    problems.add(node->source(), fmt::format("{}: field 'replace': expected true or false", who));
  }
  const bool replace = in_overlay && flag && flag->get();
  entry.table.erase("replace");
  return replace;
}

// Pass 2: base entries must have unique ids; an overlay entry adds a new id or replaces the
// fields it names in an existing entry (field_sources are merged key by key), or the whole
// entry when it says `replace = true`.
RawEntries merge(RawEntries base, RawEntries&& overlay, Problems& problems) {
  for (auto& [kind, entries] : base) {
    std::map<std::string, size_t> seen;
    for (size_t i = 0; i < entries.size(); ++i) {
      take_replace(entries[i], kind, false, problems);
      const std::string& id = entries[i].id;
      if (id.empty()) continue;
      auto [it, fresh] = seen.emplace(id, i);
      if (!fresh) {
        problems.add(entries[i].table.get("id")->source(),
                     fmt::format("{} '{}': duplicate id; first defined at {}", kind, shown(id),
                                 position(entries[it->second].table)));
      }
    }
  }
  for (auto& [kind, patches] : overlay) {
    auto& entries = base[kind];
    for (auto& patch : patches) {
      const bool replace = take_replace(patch, kind, true, problems);
      auto target = std::find_if(entries.begin(), entries.end(), [&](const RawEntry& e) {
        return !patch.id.empty() && e.id == patch.id;
      });
      if (target == entries.end()) {
        entries.push_back(std::move(patch));
        continue;
      }
      if (replace) {
        *target = std::move(patch);
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
                const std::vector<FieldSpec<T>>& fields, std::vector<T>& out, Problems& problems) {
  out.reserve(raws.size());
  for (const auto& raw : raws)
    out.push_back(decode_entry(EntryContext(kind, raw, problems), fields));
}

// Pass 4: a reference to another entry must name an existing id (check_reference).

// An offer's links name interconnects of the right family, and an NVLink or Infinity Fabric
// instance link needs a GPU that has one.
void check_offer_links(const Offer& o, const Catalog& catalog, const EntryContext& ctx) {
  struct Use {
    std::string_view field;
    const std::string& value;
    std::vector<std::string> families;
  };
  const Use uses[] = {{"gpu_link", o.gpu_link, {"pcie", "nvlink", "infinity-fabric"}},
                      {"fabric", o.fabric, {"infiniband", "ethernet"}}};
  for (const Use& use : uses) {
    if (use.value.empty() || !ctx.read_well({use.field})) continue;
    std::vector<std::string> accepted;
    const Interconnect* found = nullptr;
    for (const auto& ic : catalog.interconnects) {
      if (std::find(use.families.begin(), use.families.end(), ic.family) == use.families.end())
        continue;
      accepted.push_back(ic.id);
      if (ic.id == use.value) found = &ic;
    }
    if (found) continue;
    const auto other = std::find_if(catalog.interconnects.begin(), catalog.interconnects.end(),
                                    [&](const Interconnect& ic) { return ic.id == use.value; });
    if (other != catalog.interconnects.end()) {
      ctx.error(use.field, fmt::format("'{}' is a {} link; expected an interconnect of family {}",
                                       use.value, other->family, quoted_list(use.families)));
    } else {
      ctx.error(use.field, fmt::format("unknown interconnect '{}'{}", use.value,
                                       did_you_mean(use.value, accepted)));
    }
  }
  const Gpu* gpu = catalog.gpu(o.gpu);
  const Interconnect* link = nullptr;
  for (const auto& ic : catalog.interconnects) {
    if (ic.id == o.gpu_link) link = &ic;
  }
  if (!gpu || !link || !ctx.read_well({"gpu", "gpu_link"})) return;
  if ((link->family == "nvlink" && !is_nvlink_kind(gpu->gpu_link)) ||
      (link->family == "infinity-fabric" && gpu->gpu_link != "infinity-fabric")) {
    ctx.error("gpu_link", fmt::format("'{}' is an {} link, but GPU '{}' has gpu_link = \"{}\"",
                                      o.gpu_link, link->family, gpu->id, gpu->gpu_link));
  }
}

// Every GPU's architecture has a family of the same vendor.
void check_families(const Catalog& catalog, RawEntries& raws, Problems& problems) {
  std::vector<std::string> ids;
  for (const auto& f : catalog.families) ids.push_back(f.id);
  for (size_t i = 0; i < catalog.gpus.size(); ++i) {
    const Gpu& g = catalog.gpus[i];
    const Family* family = catalog.family(g.architecture);
    if (family && family->vendor == g.vendor) continue;
    const EntryContext ctx("gpu", raws["gpu"][i], problems);
    if (family) {
      ctx.error("architecture", fmt::format("family '{}' is of vendor '{}', the GPU of '{}'",
                                            family->id, family->vendor, g.vendor));
    } else {
      ctx.error("architecture",
                fmt::format("no [[family]] '{}' says which software stack it runs; add one "
                            "(docs/catalog.md){}",
                            g.architecture, did_you_mean(g.architecture, ids)));
    }
  }
}

// Pass 3 for every kind of entry.
Catalog decode_catalog(RawEntries& raws, Problems& problems) {
  Catalog catalog;
  decode_all("gpu", raws["gpu"], gpu_fields(), catalog.gpus, problems);
  decode_all("cpu", raws["cpu"], cpu_fields(), catalog.cpus, problems);
  decode_all("offer", raws["offer"], offer_fields(), catalog.offers, problems);
  decode_all("region", raws["region"], region_fields(), catalog.regions, problems);
  decode_all("interconnect", raws["interconnect"], interconnect_fields(), catalog.interconnects,
             problems);
  decode_all("system", raws["system"], system_fields(), catalog.systems, problems);
  decode_all("circuit", raws["circuit"], circuit_fields(), catalog.circuits, problems);
  decode_all("psu", raws["psu"], psu_fields(), catalog.psus, problems);
  decode_all("nic", raws["nic"], nic_fields(), catalog.nics, problems);
  decode_all("board", raws["board"], board_fields(), catalog.boards, problems);
  decode_all("chassis", raws["chassis"], chassis_fields(), catalog.chassis, problems);
  decode_all("part", raws["part"], part_fields(), catalog.parts, problems);
  decode_all("psu_efficiency", raws["psu_efficiency"], psu_efficiency_fields(),
             catalog.psu_efficiencies, problems);
  decode_all("family", raws["family"], family_fields(), catalog.families, problems);
  return catalog;
}

// Pass 4 for every reference by id: an offer's GPU, region and links, a region's parent, a
// PSU's efficiency tier, a system's CPU and a chassis's boards.
void check_references(const Catalog& catalog, RawEntries& raws, Problems& problems) {
  for (size_t i = 0; i < catalog.offers.size(); ++i) {
    const EntryContext ctx("offer", raws["offer"][i], problems);
    check_reference(catalog.offers[i].gpu, "gpu", "GPU", catalog.gpus, ctx);
    check_reference(catalog.offers[i].region, "region", "region", catalog.regions, ctx);
    check_offer_links(catalog.offers[i], catalog, ctx);
  }
  for (size_t i = 0; i < catalog.regions.size(); ++i) {
    const EntryContext ctx("region", raws["region"][i], problems);
    check_reference(catalog.regions[i].parent, "parent", "region", catalog.regions, ctx);
  }
  for (size_t i = 0; i < catalog.psus.size(); ++i) {
    const EntryContext ctx("psu", raws["psu"][i], problems);
    check_reference(catalog.psus[i].efficiency, "efficiency", "PSU efficiency tier",
                    catalog.psu_efficiencies, ctx);
  }
  for (size_t i = 0; i < catalog.systems.size(); ++i) {
    const EntryContext ctx("system", raws["system"][i], problems);
    check_reference(catalog.systems[i].cpu, "cpu", "CPU", catalog.cpus, ctx);
  }
  for (size_t i = 0; i < catalog.chassis.size(); ++i) {
    const EntryContext ctx("chassis", raws["chassis"][i], problems);
    for (const auto& board : catalog.chassis[i].boards)
      check_reference(board, "boards", "board", catalog.boards, ctx);
  }
}

// Every board's socket is the socket of a CPU of the catalog.
void check_board_sockets(const Catalog& catalog, RawEntries& raws, Problems& problems) {
  std::vector<std::string> sockets;
  for (const auto& c : catalog.cpus) {
    if (std::find(sockets.begin(), sockets.end(), c.socket) == sockets.end())
      sockets.push_back(c.socket);
  }
  for (size_t i = 0; i < catalog.boards.size(); ++i) {
    const Board& b = catalog.boards[i];
    if (std::find(sockets.begin(), sockets.end(), b.socket) == sockets.end()) {
      EntryContext("board", raws["board"][i], problems)
          .error("socket",
                 fmt::format("no CPU of the catalog has socket '{}'; expected {}{}", b.socket,
                             quoted_list(sockets), did_you_mean(b.socket, sockets)));
    }
  }
}

}  // namespace

Result<Catalog> load_catalog(const std::vector<CatalogFile>& base,
                             const std::vector<CatalogFile>& overlay) {
  Problems problems;
  RawEntries base_entries, overlay_entries;
  for (const auto& file : base) collect(file, base_entries, problems);
  for (const auto& file : overlay) collect(file, overlay_entries, problems);
  RawEntries raws = merge(std::move(base_entries), std::move(overlay_entries), problems);
  Catalog catalog = decode_catalog(raws, problems);
  check_references(catalog, raws, problems);
  check_board_sockets(catalog, raws, problems);
  check_families(catalog, raws, problems);
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
