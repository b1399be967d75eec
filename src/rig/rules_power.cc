// Build rules of power: PSU capacity and headroom, connectors, fit, the wall circuit, and the
// heat a machine gives off in an office.
#include <fmt/format.h>

#include <algorithm>
#include <cassert>

#include "rig/build_constants.h"
#include "rig/rules.h"
#include "util/strings.h"

namespace rigplan::build_rules {

using namespace build_constants;

std::optional<Verdict> psu_capacity(const BuildFacts& f) {
  const PowerBudget& p = f.power;
  const double headroom = p.atx2 ? kAtx2Headroom : kAtx3Headroom;
  const std::string load = fmt::format(
      "{} x {} W{} + CPU {} W + {} W other = {:.0f} W sustained", f.n, format_number(p.gpu_w),
      f.b.power_limit_w ? " (power limit)" : "", format_number(f.b.cpu_count * f.cpu.tdp_w),
      format_number(kOtherPartsW), p.sustained_w);
  const std::string psus =
      fmt::format("{:.0f} W of PSUs{}", p.capacity_w,
                  p.derated ? fmt::format(" at {} V", format_number(f.b.circuit->volts)) : "");
  if (p.sustained_w > p.capacity_w) {
    return Verdict{"fail", fmt::format("{} is more than {}", load, psus),
                   "models.md section 2.9; d2l (size for peak, not typical, demand)"};
  }
  if (p.capacity_w < headroom * p.sustained_w) {
    return Verdict{"warn",
                   fmt::format("{} on {}: below the {}x headroom an {} unit wants for GPU power "
                               "excursions ({:.0f} W)",
                               load, psus, format_number(headroom), p.atx2 ? "ATX 2.x" : "ATX 3.x",
                               headroom * p.sustained_w),
                   "Intel ATX 3.0 guidance via models.md section 2.9 (ATX 3.x rides out 200% for "
                   "100 us)"};
  }
  return Verdict{"pass",
                 fmt::format("{} on {} ({:.2f}x)", load, psus, p.capacity_w / p.sustained_w),
                 "models.md section 2.9"};
}

// Server chassis feed GPUs from their power distribution board, baseboards their modules.
std::optional<Verdict> psu_connectors(const BuildFacts& f) {
  if (f.chassis.psu_form_factor == "server" || f.sxm) return std::nullopt;
  int need_12v = 0, need_8pin = 0;
  for (const auto& conn : f.gpu.power_connectors) {
    if (conn == "12vhpwr" || conn == "12v-2x6") ++need_12v;
    if (conn == "8-pin" || conn == "6-pin" || conn == "eps-8pin") ++need_8pin;
  }
  need_12v *= f.n;
  need_8pin *= f.n;
  int have_12v = 0, have_8pin = 0;
  for (const Psu* p : f.b.psus) {
    have_12v += p->connectors_12vhpwr;
    have_8pin += p->connectors_pcie_8pin;
  }
  const int short_12v = std::max(0, need_12v - have_12v);
  const int per_adapter =
      f.power.gpu_w > kAdapterThreeCableW ? kAdapterCablesAbove450W : kAdapterCablesUpTo450W;
  const int spare_8pin = have_8pin - need_8pin;
  const std::string counts = fmt::format("needs {} 12VHPWR and {} 8-pin; the PSUs have {} and {}",
                                         need_12v, need_8pin, have_12v, have_8pin);
  if (spare_8pin < 0 || spare_8pin < short_12v * per_adapter)
    return Verdict{"fail", counts, "vendor specification (GPU power connectors)"};
  if (short_12v > 0) {
    return Verdict{"warn",
                   fmt::format("{}: {} card(s) on {}-way 8-pin adapters; seat them fully (~0.1% "
                               "of RTX 4090 connectors melted)",
                               counts, short_12v, per_adapter),
                   "Dettmers 2023 (12VHPWR melting)"};
  }
  return Verdict{"pass", counts, "vendor specification"};
}

std::optional<Verdict> psu_fit(const BuildFacts& f) {
  const Chassis& chassis = f.chassis;
  const auto& psus = f.b.psus;
  const bool form_ok = std::all_of(psus.begin(), psus.end(), [&](const Psu* p) {
    return p->form_factor == chassis.psu_form_factor ||
           (p->form_factor == "sfx" && chassis.psu_form_factor == "atx");
  });
  const int bays = chassis.form == "open-frame" ? 99 : chassis.psu_bays;
  return Verdict{form_ok && static_cast<int>(psus.size()) <= bays ? "pass" : "fail",
                 fmt::format("{} {} PSU(s) in a chassis for {} {} unit(s)", psus.size(),
                             psus.empty() ? "" : psus.front()->form_factor, chassis.psu_bays,
                             chassis.psu_form_factor),
                 "vendor specification"};
}

std::optional<Verdict> wall_circuit(const BuildFacts& f) {
  const PowerBudget& p = f.power;
  const Circuit* circuit = f.b.circuit;
  const Circuit* common = f.b.catalog ? f.b.catalog->circuit(kSmallestCommonCircuit) : nullptr;
  if (!circuit) {
    const bool small = common && p.wall_w <= common->continuous_w();
    return Verdict{small ? "pass" : "warn",
                   fmt::format("{:.0f} W at the wall; no circuit named (add `circuit` or "
                               "`region`){}",
                               p.wall_w,
                               !common ? ""
                               : small ? ", within a US 15 A outlet"
                                       : ", more than a US 15 A outlet carries"),
                   "NEC 210.19; hardware.md section 3.4"};
  }
  const double limit = circuit->continuous_w();
  const bool carries = p.wall_w <= limit;
  // Over an assumed circuit, the machine needs a circuit of its own, which an electrician can add.
  return Verdict{carries               ? "pass"
                 : f.b.circuit_assumed ? "warn"
                                       : "fail",
                 fmt::format("{:.0f} W at the wall ({:.0f} W / {:.0f}% efficiency) on {} ({} V x "
                             "{} A x {} = {:.0f} W continuous){}",
                             p.wall_w, p.sustained_w, p.efficiency * 100, circuit->id,
                             format_number(circuit->volts), format_number(circuit->amps),
                             format_number(circuit->continuous_fraction), limit,
                             carries || !f.b.circuit_assumed
                                 ? ""
                                 : ", the circuit assumed: it needs a dedicated circuit that "
                                   "carries it (name it with --circuit)"),
                 "NEC 210.19 (80% for loads of 3 h or more); hardware.md section 3.4"};
}

std::optional<Verdict> heat_noise(const BuildFacts& f) {
  if (f.b.location != "office") return std::nullopt;
  const double wall = f.power.wall_w;
  return Verdict{
      wall > kOfficeHeatW ? "warn" : "pass",
      fmt::format(
          "{:.0f} W is {:.0f} BTU/h{}", wall, wall * kBtuPerWattHour,
          wall > kOfficeHeatW ? ": a space heater's worth of heat and fan noise in an office" : ""),
      "hardware.md section 3.4; d2l (4-GPU machines are loud and hot)"};
}

double psu_efficiency(const Psu& p, const Catalog& catalog) {
  const PsuEfficiency* tier = catalog.psu_efficiency(p.efficiency);
  assert(tier && "the catalog loader checks that every PSU's tier exists");
  return tier ? tier->half_load : 1;
}

}  // namespace rigplan::build_rules
