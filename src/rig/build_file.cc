// Build files: a [build] table of part ids and choices, decoded with the catalog's strict field
// tables, then resolved against the catalog with suggestions for unknown parts.
#include <fmt/format.h>

#include "catalog/toml_decode.h"
#include "rigplan/build.h"
#include "rigplan/input.h"

namespace rigplan {
namespace {

using namespace toml_decode;

struct BuildRecord {
  std::string name, cpu, board, chassis, gpu, gpu_cooling = "stock", nic, circuit, region, location;
  int cpu_count = 1, gpu_count = 1, nodes = 1;
  std::optional<double> power_limit_w;
  std::vector<std::string> psus;
  double ram_gb = 0, nvme_tb = 0, hdd_tb = 0;
};

const std::vector<FieldSpec<BuildRecord>>& build_fields() {
  using B = BuildRecord;
  constexpr bool kRequired = true, kOptional = false;
  static const std::vector<FieldSpec<B>> kFields = {
      {"name", &B::name, kOptional},
      {"cpu", &B::cpu, kRequired},
      {"cpu_count", &B::cpu_count, kOptional, "", {}, {1, 8, true}},
      {"board", &B::board, kRequired},
      {"chassis", &B::chassis, kRequired},
      {"gpu", &B::gpu, kRequired},
      {"gpu_count", &B::gpu_count, kRequired, "", {}, input::kBuildGpus.range()},
      {"gpu_cooling", &B::gpu_cooling, kOptional, "", {"stock", "water", "riser"}},
      {"power_limit_w", &B::power_limit_w, kOptional, "W", {}, {50, 2000, true}},
      {"psus", &B::psus, kRequired},
      {"ram_gb", &B::ram_gb, kRequired, "GB", {}, {0, 65'536, false}},
      {"nvme_tb", &B::nvme_tb, kOptional, "TB", {}, {0, 10'000, true}},
      {"hdd_tb", &B::hdd_tb, kOptional, "TB", {}, {0, 100'000, true}},
      {"nic", &B::nic, kOptional},
      {"nodes", &B::nodes, kOptional, "", {}, input::kNodes.range()},
      {"circuit", &B::circuit, kOptional},
      {"region", &B::region, kOptional},
      {"location", &B::location, kOptional, "", {"office", "datacenter"}},
  };
  return kFields;
}

// A part looked up by id; an unknown one is reported at its field with the closest ids.
template <class T>
const T* resolved(const EntryContext& ctx, std::string_view key, const Result<const T*>& found) {
  if (found) return *found;
  ctx.error(key, std::string(found.status().message()));
  return nullptr;
}

}  // namespace

const Circuit* usual_circuit(const Catalog& catalog, const Region& region) {
  for (const Region* r = &region; r; r = r->parent.empty() ? nullptr : catalog.region(r->parent)) {
    for (const auto& c : catalog.circuits) {
      if (std::find(c.countries.begin(), c.countries.end(), r->country) != c.countries.end())
        return &c;
    }
  }
  return nullptr;
}

namespace {

// The [build] table of a build file, moved out of it (a copied table loses the positions of its
// keys); nullopt with the problems when the file has none or other sections.
std::optional<RawEntry> build_table(const CatalogFile& file, Problems& problems) {
  auto parsed = parse_file(file, problems);
  if (!parsed) return std::nullopt;
  const toml::table& root = *parsed;
  const bool has_build = root.get_as<toml::table>("build") != nullptr;
  for (auto&& [key, node] : root) {
    if (key.str() != "build" || !node.is_table()) {
      problems.add(node.source(),
                   fmt::format("unknown section '{}'; a build file has one [build] table",
                               shown(key.str())));
    }
  }
  if (!has_build) {
    if (problems.empty()) problems.add(root.source(), "no [build] table");
    return std::nullopt;
  }
  RawEntry raw{std::move(*parsed->get_as<toml::table>("build")), ""};
  if (const auto* name = raw.table.get_as<std::string>("name")) raw.id = name->get();
  return raw;
}

// The parts the record names, looked up in the catalog; an unknown one is a problem of its field.
void resolve_parts(const BuildRecord& r, const toml::table& table, const Catalog& catalog,
                   const EntryContext& ctx, Build& b) {
  if (!r.cpu.empty()) b.cpu = resolved(ctx, "cpu", catalog.find_cpu(r.cpu));
  if (!r.board.empty()) b.board = resolved(ctx, "board", catalog.find_board(r.board));
  if (!r.chassis.empty()) b.chassis = resolved(ctx, "chassis", catalog.find_chassis(r.chassis));
  if (!r.gpu.empty()) b.gpu = resolved(ctx, "gpu", catalog.find_gpu(r.gpu));
  if (!r.nic.empty()) b.nic = resolved(ctx, "nic", catalog.find_nic(r.nic));
  if (!r.circuit.empty()) b.circuit = resolved(ctx, "circuit", catalog.find_circuit(r.circuit));
  if (r.psus.size() > input::kMaxListItems) {
    ctx.error("psus", fmt::format("{} PSUs named; at most {} are accepted", r.psus.size(),
                                  input::kMaxListItems));
  } else {
    for (const auto& id : r.psus) {
      if (const Psu* p = resolved(ctx, "psus", catalog.find_psu(id))) b.psus.push_back(p);
    }
  }
  // A list already reported (not a list, or not of strings) is not also empty.
  if (r.psus.empty() && table.get("psus") && ctx.read_well({"psus"})) {
    ctx.error("psus", "name at least one PSU");
  }
  if (!r.region.empty()) {
    auto region = catalog.find_region(r.region);
    if (!region) {
      ctx.error("region", std::string(region.status().message()));
    } else if (!b.circuit) {
      b.circuit = usual_circuit(catalog, **region);
    }
  }
}

}  // namespace

Result<Build> parse_build(const CatalogFile& file, const Catalog& catalog) {
  Problems problems;
  std::optional<RawEntry> raw = build_table(file, problems);
  if (!raw) return problems.to_status();
  const EntryContext ctx("build", *raw, problems);
  BuildRecord r;
  decode_fields(ctx, raw->table, build_fields(), r, {});

  Build b;
  b.name = r.name;
  b.catalog = &catalog;
  b.cpu_count = r.cpu_count;
  b.gpu_count = r.gpu_count;
  b.gpu_cooling = r.gpu_cooling;
  b.power_limit_w = r.power_limit_w;
  b.ram_gb = r.ram_gb;
  b.nvme_tb = r.nvme_tb;
  b.hdd_tb = r.hdd_tb;
  b.nodes = r.nodes;
  resolve_parts(r, raw->table, catalog, ctx, b);
  b.location = !r.location.empty()                      ? r.location
               : b.chassis && b.chassis->form == "rack" ? "datacenter"
                                                        : "office";
  if (!problems.empty()) return problems.to_status();
  feed_demand(b, catalog);
  return b;
}

}  // namespace rigplan
