// check_build(): the build's shared facts (the cards' placement, the power budget), then every
// rule of the table in rules(), one function each; docs/builds.md lists them.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <tuple>

#include "rig/build_constants.h"
#include "rig/rules.h"
#include "rigplan/build.h"
#include "util/strings.h"

namespace rigplan {

using namespace build_constants;

namespace {

int slot_width(const Build& b) {
  if (b.gpu_cooling == "water") return 1;
  return static_cast<int>(std::ceil(b.gpu->slot_width.value_or(2)));
}

// The placement of `count` cards of `width` slots on the board's GPU slots: the most lanes for
// the worst-served card (up to x8, which costs little: Dettmers), then the widest smallest gap
// between neighbours, then the most lanes; nullopt when they do not fit.
std::optional<build_rules::Placement> place(const std::vector<PcieSlot>& slots, int count,
                                            int width) {
  const int n = static_cast<int>(slots.size());
  if (count > n || n > 20) return std::nullopt;
  std::optional<build_rules::Placement> best;
  int best_lanes = -1, best_floor = -1;
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    if (std::popcount(mask) != count) continue;
    build_rules::Placement p;
    p.min_gap = 99;
    int lanes = 0;
    bool fits = true;
    for (int i = 0; i < n && fits; ++i) {
      if (!(mask & (1u << i))) continue;
      if (!p.slots.empty()) {
        const int gap = slots[i].position - (p.slots.back().position + width);
        if (gap < 0) fits = false;
        p.min_gap = std::min(p.min_gap, gap);
      }
      p.slots.push_back(slots[i]);
      lanes += slots[i].lanes;
    }
    if (!fits) continue;
    int floor = 8;
    for (const auto& s : p.slots) floor = std::min(floor, s.lanes);
    if (!best ||
        std::tie(floor, p.min_gap, lanes) > std::tie(best_floor, best->min_gap, best_lanes)) {
      best = p;
      best_lanes = lanes;
      best_floor = floor;
    }
  }
  return best;
}

build_rules::PowerBudget power_budget(const Build& b) {
  build_rules::PowerBudget p;
  p.gpu_w = std::min(b.gpu->board_power_w, b.power_limit_w.value_or(b.gpu->board_power_w));
  p.sustained_w = b.gpu_count * p.gpu_w + b.cpu_count * b.cpu->tdp_w + kOtherPartsW;
  const bool low_line = b.circuit && b.circuit->volts < kLowLineVolts;
  for (const Psu* psu : b.psus) {
    const bool low = low_line && psu->wattage_w_low_line;
    p.derated = p.derated || low;
    p.capacity_w += low ? *psu->wattage_w_low_line : psu->wattage_w;
    p.efficiency +=
        build_rules::psu_efficiency(*psu, *b.catalog) / static_cast<double>(b.psus.size());
    p.atx2 = p.atx2 || psu->atx_version == "2.x";
  }
  p.wall_w = p.sustained_w / p.efficiency;
  return p;
}

// A catalog part's price per unit; 0 for a part the catalog lacks.
double part_usd(const Build& b, std::string_view id) {
  const Part* part = b.catalog ? b.catalog->part(id) : nullptr;
  return part ? part->price_usd : 0;
}

// The parts with prices (GPUs at their new price), plus risers or water blocks.
double build_price(const Build& b, bool* gpus_priced) {
  const auto gpu_price = new_price(*b.gpu);
  *gpus_priced = gpu_price.has_value();
  const int n = b.gpu_count;
  double price = b.cpu_count * b.cpu->price_usd + b.board->price_usd + b.chassis->price_usd +
                 (gpu_price ? n * gpu_price->usd : 0) + b.ram_gb * part_usd(b, kRamPart) +
                 b.nvme_tb * part_usd(b, kNvmePart) + b.hdd_tb * part_usd(b, kHddPart) +
                 (b.nic ? b.nic->price_usd : 0) +
                 n * (b.gpu_cooling == "water"   ? part_usd(b, kWaterBlockPart)
                      : b.gpu_cooling == "riser" ? part_usd(b, kRiserPart)
                                                 : 0);
  for (const Psu* p : b.psus) price += p->price_usd;
  return price;
}

}  // namespace

namespace build_rules {

BuildFacts::BuildFacts(const Build& build)
    : b(build),
      gpu(*build.gpu),
      cpu(*build.cpu),
      board(*build.board),
      chassis(*build.chassis),
      n(build.gpu_count),
      sxm(build.gpu->form_factor == "sxm" || build.gpu->form_factor == "oam"),
      width(slot_width(build)),
      power(power_budget(build)) {
  if (sxm) return;
  slots = board.slots();
  if (static_cast<int>(slots.size()) < n) return;
  if (b.gpu_cooling == "riser") {
    placement = Placement{{slots.begin(), slots.begin() + n}, 99};
  } else {
    placement = place(slots, n, width);
  }
}

const std::vector<Rule>& rules() {
  static const std::vector<Rule> kRules = {
      {"cpu-socket", cpu_socket},
      {"memory-type", memory_type},
      {"board-in-chassis", board_in_chassis},
      {"gpu-module", gpu_module},
      {"gpu-sockets", gpu_sockets},
      {"gpu-slots", gpu_slots},
      {"slot-spacing", slot_spacing},
      {"chassis-slots", chassis_slots},
      {"gpu-length", gpu_length},
      {"pcie-lanes", pcie_lanes},
      {"cpu-lanes", cpu_lanes},
      {"gpu-cooling", gpu_cooling},
      {"psu-capacity", psu_capacity},
      {"psu-connectors", psu_connectors},
      {"psu-fit", psu_fit},
      {"wall-circuit", wall_circuit},
      {"cpu-cores", cpu_cores},
      {"cpu-clock", cpu_clock},
      {"ram", ram},
      {"storage", storage},
      {"network", network},
      {"enclosure", enclosure},
      {"geforce-licence", geforce_licence},
      {"heat-noise", heat_noise},
  };
  return kRules;
}

}  // namespace build_rules

BuildReport check_build(const Build& b) {
  const build_rules::BuildFacts facts(b);
  BuildReport report;
  for (const build_rules::Rule& rule : build_rules::rules()) {
    auto v = rule.check(facts);
    if (!v) continue;
    report.checks.push_back({std::string(rule.name), std::move(v->status), std::move(v->message),
                             std::move(v->source)});
  }
  const build_rules::PowerBudget& p = facts.power;
  report.gpus_w = b.gpu_count * p.gpu_w;
  report.cpus_w = b.cpu_count * b.cpu->tdp_w;
  report.other_w = kOtherPartsW;
  report.sustained_w = p.sustained_w;
  report.psu_capacity_w = p.capacity_w;
  report.wall_w = p.wall_w;
  report.price_usd = build_price(b, &report.gpus_priced);
  report.verdict = "pass";
  for (const auto& check : report.checks) {
    if (check.status == "fail") report.verdict = "fail";
    if (check.status == "warn" && report.verdict == "pass") report.verdict = "warn";
  }
  return report;
}

BaseSystem system_from_build(const Build& b, const BuildReport& r, const Catalog& catalog) {
  BaseSystem s;
  s.id = b.name.empty() ? fmt::format("build-{}x-{}", b.gpu_count, b.gpu->id) : b.name;
  s.name = fmt::format("{} on {} in {}", b.cpu->id, b.board->id, b.chassis->id);
  s.form = b.chassis->form == "rack" ? "rack" : "tower";
  s.gpu_form_factors = {b.gpu->form_factor};
  s.gpu_coolers = {b.gpu->cooler.empty() ? "open-air" : b.gpu->cooler};
  s.min_gpus = s.max_gpus = b.gpu_count;
  s.max_slot_width = 99;  // the build check has placed the cards
  s.cpu = b.cpu->id;
  s.cpu_count = b.cpu_count;
  s.ram_gb = b.ram_gb;
  s.storage_tb = b.nvme_tb + b.hdd_tb;
  for (const Psu* p : b.psus) {
    s.psu_w += p->wattage_w;
    s.psu_efficiency +=
        build_rules::psu_efficiency(*p, *b.catalog) / static_cast<double>(b.psus.size());
  }
  s.base_power_w = b.cpu_count * b.cpu->tdp_w * kCpuLoadShare + kBoardRamDrivesW;
  const auto gpu_price = new_price(*b.gpu);
  s.price_usd = r.price_usd - (r.gpus_priced && gpu_price ? b.gpu_count * gpu_price->usd : 0);
  s.price_date = b.cpu->price_date;
  const BaseSystem* like = nullptr;
  for (const auto& other : catalog.systems) {
    if (other.existing || other.form != s.form) continue;
    if (!like || std::abs(other.max_gpus - b.gpu_count) < std::abs(like->max_gpus - b.gpu_count))
      like = &other;
  }
  s.embodied_kgco2e = like ? like->embodied_kgco2e : 0;
  s.provenance.source =
      fmt::format("build file: parts priced from the catalog ({}); embodied carbon of {}",
                  r.verdict, like ? like->id : "none");
  s.provenance.confidence = "mixed";
  return s;
}

}  // namespace rigplan
