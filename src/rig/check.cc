// The build rules. Each adds one BuildCheck with its numbers and its source; docs/builds.md
// lists them.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <tuple>

#include "rig/build_constants.h"
#include "rigplan/build.h"
#include "util/strings.h"

namespace rigplan {

using namespace build_constants;

namespace {

double efficiency(const Psu& p) {
  if (p.efficiency == "titanium") return kEfficiencyTitanium;
  if (p.efficiency == "platinum") return kEfficiencyPlatinum;
  if (p.efficiency == "gold") return kEfficiencyGold;
  if (p.efficiency == "silver") return kEfficiencySilver;
  return kEfficiencyBronze;
}

int slot_width(const Build& b) {
  if (b.gpu_cooling == "water") return 1;
  return static_cast<int>(std::ceil(b.gpu->slot_width.value_or(2)));
}

struct Placement {
  std::vector<PcieSlot> slots;  // where the cards sit, top to bottom
  int min_gap = 0;              // empty slot positions between neighbouring cards
};

// The placement of `count` cards of `width` slots on the board's GPU slots: the most lanes for
// the worst-served card (up to x8, which costs little), then the widest smallest gap between
// neighbours, then the most lanes; nullopt when they do not fit.
std::optional<Placement> place(const std::vector<PcieSlot>& slots, int count, int width) {
  const int n = static_cast<int>(slots.size());
  if (count > n || n > 20) return std::nullopt;
  std::optional<Placement> best;
  int best_lanes = -1, best_floor = -1;
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    if (std::popcount(mask) != count) continue;
    Placement p;
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

class Checks {
 public:
  void add(std::string rule, std::string status, std::string message, std::string source) {
    list.push_back({std::move(rule), std::move(status), std::move(message), std::move(source)});
  }
  std::vector<BuildCheck> list;
};

}  // namespace

BuildReport check_build(const Build& b) {
  BuildReport report;
  Checks c;
  const Gpu& gpu = *b.gpu;
  const Cpu& cpu = *b.cpu;
  const Board& board = *b.board;
  const Chassis& chassis = *b.chassis;
  const int n = b.gpu_count;
  const bool sxm = gpu.form_factor == "sxm" || gpu.form_factor == "oam";
  const bool server_power = chassis.psu_form_factor == "server";

  // --- Platform: CPU, board, chassis ---------------------------------------------------------
  if (cpu.socket != board.socket) {
    c.add("cpu-socket", "fail",
          fmt::format("{} has socket {}; {} takes {}", cpu.id, cpu.socket, board.id, board.socket),
          "vendor specification");
  } else if (b.cpu_count > board.sockets || b.cpu_count > cpu.max_sockets) {
    c.add("cpu-socket", "fail",
          fmt::format("{} CPUs, but {} has {} socket(s) and {} runs in up to {}", b.cpu_count,
                      board.id, board.sockets, cpu.id, cpu.max_sockets),
          "vendor specification");
  } else {
    c.add("cpu-socket", "pass",
          fmt::format("{} x {} in {} ({})", b.cpu_count, cpu.id, board.id, board.socket),
          "vendor specification");
  }
  if (cpu.memory_type != board.memory_type) {
    c.add("memory-type", "fail",
          fmt::format("{} uses {}; {} has {} slots", cpu.id, cpu.memory_type, board.id,
                      board.memory_type),
          "vendor specification");
  }
  const bool board_fits =
      std::find(chassis.board_form_factors.begin(), chassis.board_form_factors.end(),
                board.form_factor) != chassis.board_form_factors.end() &&
      (chassis.boards.empty() ||
       std::find(chassis.boards.begin(), chassis.boards.end(), board.id) != chassis.boards.end());
  c.add(
      "board-in-chassis", board_fits ? "pass" : "fail",
      board_fits
          ? fmt::format("{} ({}) fits {}", board.id, board.form_factor, chassis.id)
          : fmt::format("{} is {}; {} takes {}{}", board.id, board.form_factor, chassis.id,
                        join(chassis.board_form_factors, ", "),
                        chassis.boards.empty() ? "" : " (only " + join(chassis.boards, ", ") + ")"),
      "vendor specification");

  // --- GPUs: sockets or slots, spacing, length, cooling, lanes --------------------------------
  std::optional<Placement> placement;
  if (sxm) {
    const int sockets = board.sxm_sockets.value_or(0);
    c.add("gpu-sockets", sockets >= n ? "pass" : "fail",
          fmt::format("{} {} GPUs on {} SXM/OAM sockets", n, gpu.form_factor, sockets),
          "vendor specification");
  } else {
    const auto slots = board.slots();
    const int width = slot_width(b);
    if (static_cast<int>(slots.size()) < n) {
      c.add("gpu-slots", "fail",
            fmt::format("{} GPUs, but {} has {} GPU slots", n, board.id, slots.size()),
            "vendor specification");
    } else if (b.gpu_cooling == "riser") {
      placement = Placement{{slots.begin(), slots.begin() + n}, 99};
      c.add(
          "slot-spacing", "warn",
          fmt::format(
              "{} cards on PCIe extenders: mount them with gaps and use shielded PCIe {} cables of "
              "15-30 cm; a longer extender lost a GPU in the tinybox notes",
              n, std::min(gpu.pcie_gen, slots.front().gen)),
          "Dettmers 2023 (extenders for 3-slot cards); tinybox build notes");
    } else if (!(placement = place(slots, n, width))) {
      std::vector<std::string> positions;
      for (const auto& s : slots) positions.push_back(std::to_string(s.position));
      c.add("slot-spacing", "fail",
            fmt::format("{} cards {} slots wide cannot sit on slots at positions {}: each needs {} "
                        "positions; "
                        "use water blocks (1 slot), extenders, or narrower cards",
                        n, width, join(positions, ", "), width),
            "slot pitch 20.32 mm (PCI/ATX); hardware.md section 4");
    } else {
      const bool open_air = gpu.cooler == "open-air" && b.gpu_cooling == "stock";
      if (n > 1 && open_air && placement->min_gap < 1) {
        c.add(
            "slot-spacing", "warn",
            fmt::format("open-air cards with no free slot between them ({} slots wide on positions "
                        "{}..{}): "
                        "expect throttling of up to ~30%; use blower cards, water blocks, "
                        "extenders or a power limit",
                        width, placement->slots.front().position, placement->slots.back().position),
            "Dettmers hardware guide (blower cards when GPUs sit in adjacent slots)");
      } else {
        c.add("slot-spacing", "pass",
              n == 1 ? fmt::format("1 card {} slots wide on slot {}", width,
                                   placement->slots.front().position)
                     : fmt::format("{} cards {} slots wide, {} free slot(s) between neighbours", n,
                                   width, placement->min_gap),
              "slot pitch 20.32 mm (PCI/ATX)");
      }
      const int bottom = placement->slots.back().position + width - 1;
      if (chassis.form != "open-frame") {
        c.add("chassis-slots", bottom <= chassis.expansion_slots ? "pass" : "fail",
              fmt::format("the lowest card reaches slot {} of the chassis's {}", bottom,
                          chassis.expansion_slots),
              "vendor specification");
      }
    }
    if (gpu.card_length_mm) {
      c.add("gpu-length", *gpu.card_length_mm <= chassis.max_gpu_length_mm ? "pass" : "fail",
            fmt::format("{} mm card, {} mm clearance", format_number(*gpu.card_length_mm),
                        format_number(chassis.max_gpu_length_mm)),
            "vendor specification");
    }
    if (placement) {
      int worst_lanes = 99;
      double worst_gbps = 1e9;
      int lanes_used = 0;
      for (const auto& s : placement->slots) {
        const int gen = std::min(s.gen, gpu.pcie_gen > 0 ? gpu.pcie_gen : s.gen);
        const double gbps = s.lanes * kPcieLaneGbps[std::clamp(gen, 1, 6)];
        if (gbps < worst_gbps) {
          worst_gbps = gbps;
          worst_lanes = s.lanes;
        }
        lanes_used += s.lanes;
      }
      const std::string lanes_text =
          fmt::format("slowest GPU link x{} at {:.1f} GB/s per direction", worst_lanes, worst_gbps);
      if (worst_lanes <= 2) {
        c.add("pcie-lanes", "fail",
              lanes_text + ": too slow to feed a GPU for training (x1 PCIe 3.0 is ~1 GB/s)",
              "d2l (x16 per GPU, boards drop to x8/x4); hardware.md section 4");
      } else if (worst_lanes == 4 && n > 1) {
        c.add("pcie-lanes", "warn",
              lanes_text + ": x4 costs ~5-10% with data parallelism over 4 GPUs",
              "models.md section 2.5 (x4 lanes cost 5-10%)");
      } else {
        c.add("pcie-lanes", "pass", lanes_text, "d2l; Dettmers (x8 per GPU is enough)");
      }
      const int nic_lanes = b.nic ? b.nic->pcie_lanes : 0;
      const int cpu_lanes = cpu.pcie_lanes * b.cpu_count;
      if (!board.pcie_switch && lanes_used + nic_lanes > cpu_lanes) {
        c.add("cpu-lanes", "warn",
              fmt::format("GPU and NIC slots take {} lanes, the CPU{} {}: some hang off the "
                          "chipset and share "
                          "its uplink",
                          lanes_used + nic_lanes, b.cpu_count > 1 ? "s have" : " has", cpu_lanes),
              "d2l (some boards drop to x8/x4 because of the CPU's lanes)");
      } else {
        c.add("cpu-lanes", "pass",
              fmt::format("{} lanes for GPUs and NIC{}", lanes_used + nic_lanes,
                          board.pcie_switch ? " through PCIe switches"
                                            : fmt::format(" of the CPU's {}", cpu_lanes)),
              "vendor specification");
      }
    }
  }
  if (gpu.cooler == "passive" && chassis.airflow != "server") {
    c.add(
        "gpu-cooling", "fail",
        fmt::format(
            "{} is passively cooled and needs a server's front-to-back airflow; {} is a {} chassis",
            gpu.id, chassis.id, chassis.form),
        "d2l (datacentre cards use passive cooling); vendor specification");
  } else if (gpu.segment == "consumer" && chassis.airflow == "server" && gpu.cooler == "open-air") {
    c.add("gpu-cooling", "warn",
          fmt::format("open-air {} cards in a server chassis recirculate their heat; blower or "
                      "passive cards suit it",
                      gpu.id),
          "d2l (check the GPU's physical form factor in servers)");
  } else {
    c.add("gpu-cooling", "pass",
          fmt::format("{} cooler in a {} chassis ({})", gpu.cooler, chassis.form,
                      b.gpu_cooling == "stock" ? "stock" : b.gpu_cooling),
          "d2l; Dettmers");
  }

  // --- Power: PSU capacity and headroom, connectors, form factor, circuit ---------------------
  const double gpu_w = std::min(gpu.board_power_w, b.power_limit_w.value_or(gpu.board_power_w));
  report.gpus_w = n * gpu_w;
  report.cpus_w = b.cpu_count * cpu.tdp_w;
  report.other_w = kOtherPartsW;
  report.sustained_w = report.gpus_w + report.cpus_w + report.other_w;
  const bool low_line = b.circuit && b.circuit->volts < kLowLineVolts;
  double capacity = 0, eff = 0;
  bool atx2 = false, derated = false;
  for (const Psu* p : b.psus) {
    const bool low = low_line && p->wattage_w_low_line;
    derated = derated || low;
    capacity += low ? *p->wattage_w_low_line : p->wattage_w;
    eff += efficiency(*p) / static_cast<double>(b.psus.size());
    atx2 = atx2 || p->atx_version == "2.x";
  }
  report.wall_w = report.sustained_w / eff;
  report.psu_capacity_w = capacity;
  const double headroom = atx2 ? kAtx2Headroom : kAtx3Headroom;
  const std::string load = fmt::format(
      "{} x {} W{} + CPU {} W + {} W other = {:.0f} W sustained", n, format_number(gpu_w),
      b.power_limit_w ? " (power limit)" : "", format_number(b.cpu_count * cpu.tdp_w),
      format_number(kOtherPartsW), report.sustained_w);
  const std::string psu_text =
      fmt::format("{:.0f} W of PSUs{}", capacity,
                  derated ? fmt::format(" at {} V", format_number(b.circuit->volts)) : "");
  if (report.sustained_w > capacity) {
    c.add("psu-capacity", "fail", fmt::format("{} is more than {}", load, psu_text),
          "models.md section 2.9; d2l (size for peak, not typical, demand)");
  } else if (capacity < headroom * report.sustained_w) {
    c.add(
        "psu-capacity", "warn",
        fmt::format(
            "{} on {}: below the {}x headroom an {} unit wants for GPU power excursions ({:.0f} W)",
            load, psu_text, format_number(headroom), atx2 ? "ATX 2.x" : "ATX 3.x",
            headroom * report.sustained_w),
        "Intel ATX 3.0 guidance via models.md section 2.9 (ATX 3.x rides out 200% for 100 us)");
  } else {
    c.add("psu-capacity", "pass",
          fmt::format("{} on {} ({:.2f}x)", load, psu_text, capacity / report.sustained_w),
          "models.md section 2.9");
  }
  // Connectors: server chassis feed GPUs from their power distribution board.
  if (!server_power && !sxm) {
    int need_12v = 0, need_8pin = 0;
    for (const auto& conn : gpu.power_connectors) {
      if (conn == "12vhpwr" || conn == "12v-2x6") ++need_12v;
      if (conn == "8-pin" || conn == "6-pin" || conn == "eps-8pin") ++need_8pin;
    }
    need_12v *= n;
    need_8pin *= n;
    int have_12v = 0, have_8pin = 0;
    for (const Psu* p : b.psus) {
      have_12v += p->connectors_12vhpwr;
      have_8pin += p->connectors_pcie_8pin;
    }
    const int short_12v = std::max(0, need_12v - have_12v);
    const int per_adapter = gpu_w > 450 ? kAdapterCablesAbove450W : kAdapterCablesUpTo450W;
    const int spare_8pin = have_8pin - need_8pin;
    const std::string counts = fmt::format("needs {} 12VHPWR and {} 8-pin; the PSUs have {} and {}",
                                           need_12v, need_8pin, have_12v, have_8pin);
    if (spare_8pin < 0 || spare_8pin < short_12v * per_adapter) {
      c.add("psu-connectors", "fail", counts, "vendor specification (GPU power connectors)");
    } else if (short_12v > 0) {
      c.add(
          "psu-connectors", "warn",
          fmt::format("{}: {} card(s) on {}-way 8-pin adapters; seat them fully (~0.1% of RTX 4090 "
                      "connectors melted)",
                      counts, short_12v, per_adapter),
          "Dettmers 2023 (12VHPWR melting)");
    } else {
      c.add("psu-connectors", "pass", counts, "vendor specification");
    }
  }
  bool form_ok = true;
  for (const Psu* p : b.psus) {
    const bool fits = p->form_factor == chassis.psu_form_factor ||
                      (p->form_factor == "sfx" && chassis.psu_form_factor == "atx");
    form_ok = form_ok && fits;
  }
  const int bays = chassis.form == "open-frame" ? 99 : chassis.psu_bays;
  c.add("psu-fit", form_ok && static_cast<int>(b.psus.size()) <= bays ? "pass" : "fail",
        fmt::format("{} {} PSU(s) in a chassis for {} {} unit(s)", b.psus.size(),
                    b.psus.empty() ? "" : b.psus.front()->form_factor, chassis.psu_bays,
                    chassis.psu_form_factor),
        "vendor specification");
  if (b.circuit) {
    const double limit = b.circuit->continuous_w();
    c.add("wall-circuit", report.wall_w <= limit ? "pass" : "fail",
          fmt::format("{:.0f} W at the wall ({:.0f} W / {:.0f}% efficiency) on {} ({} V x {} A x "
                      "{} = {:.0f} W "
                      "continuous)",
                      report.wall_w, report.sustained_w, eff * 100, b.circuit->id,
                      format_number(b.circuit->volts), format_number(b.circuit->amps),
                      format_number(b.circuit->continuous_fraction), limit),
          "NEC 210.19 (80% for loads of 3 h or more); hardware.md section 3.4");
  } else {
    c.add("wall-circuit", report.wall_w <= kSmallestCommonCircuitW ? "pass" : "warn",
          fmt::format(
              "{:.0f} W at the wall; no circuit named (add `circuit` or `region`){}", report.wall_w,
              report.wall_w <= kSmallestCommonCircuitW ? ", within a US 15 A outlet"
                                                       : ", more than a US 15 A outlet carries"),
          "NEC 210.19; hardware.md section 3.4");
  }

  // --- CPU, RAM, storage, network -----------------------------------------------------------
  const double cores_per_gpu = static_cast<double>(cpu.cores * b.cpu_count) / n;
  c.add("cpu-cores",
        cores_per_gpu < kMinCoresPerGpu    ? "fail"
        : cores_per_gpu < kGoodCoresPerGpu ? "warn"
                                           : "pass",
        fmt::format(
            "{} cores for {} GPUs: {:.1f} per GPU{}", cpu.cores * b.cpu_count, n, cores_per_gpu,
            cores_per_gpu < 4 ? " (enough for text; image decoding and augmentation want 4+)" : ""),
        "Dettmers hardware guide (1-2 cores per GPU); d2l (4+ cores)");
  c.add("cpu-clock", cpu.boost_clock_ghz >= kSlowBoostGhz ? "pass" : "warn",
        fmt::format("{} boosts to {} GHz{}", cpu.id, format_number(cpu.boost_clock_ghz),
                    cpu.boost_clock_ghz >= kGoodBoostGhz ? ""
                    : cpu.boost_clock_ghz >= kSlowBoostGhz
                        ? ": single-threaded data loading is slower than at 4 GHz"
                        : ": slow single-threaded data loading (Python)"),
        "d2l (6 cores at 4 GHz beat 8 at 3.5 GHz)");
  const double gpu_memory = n * gpu.memory_gb;
  if (b.ram_gb > board.max_memory_gb) {
    c.add("ram", "fail",
          fmt::format("{} GB of RAM, but {} holds at most {}", format_number(b.ram_gb), board.id,
                      format_number(board.max_memory_gb)),
          "vendor specification");
  } else {
    c.add("ram",
          b.ram_gb >= gpu_memory      ? "pass"
          : b.ram_gb >= gpu.memory_gb ? "warn"
                                      : "fail",
          fmt::format("{} GB of RAM for {} GB of GPU memory{}", format_number(b.ram_gb),
                      format_number(gpu_memory),
                      b.ram_gb >= gpu_memory      ? ""
                      : b.ram_gb >= gpu.memory_gb ? ": at least the total is usual (d2l)"
                                                  : ": less than one GPU's memory"),
          "Dettmers (at least the largest GPU's memory); d2l (more for 4+ GPUs)");
  }
  c.add("storage", b.nvme_tb >= 1 ? "pass" : "warn",
        b.nvme_tb >= 1 ? fmt::format("{} TB NVMe for datasets", format_number(b.nvme_tb))
                       : "no NVMe: datasets stream from SATA or HDD; d2l suggests 1-2 TB NVMe",
        "d2l");
  const double lan = std::max(board.onboard_lan_gbit, b.nic ? b.nic->gbit_per_port : 0.0);
  if (b.nodes > 1) {
    const bool ib = b.nic && b.nic->kind == "infiniband" && b.nic->gbit_per_port >= kMultiNodeGbit;
    const bool fast_eth = b.nic && b.nic->kind == "ethernet" && b.nic->gbit_per_port >= 100;
    c.add("network",
          ib         ? "pass"
          : fast_eth ? "warn"
                     : "fail",
          fmt::format("{} nodes over {}", b.nodes,
                      b.nic ? fmt::format("{} ({} Gbit/s {})", b.nic->id,
                                          format_number(b.nic->gbit_per_port), b.nic->kind)
                            : fmt::format("onboard {} Gbit/s Ethernet",
                                          format_number(board.onboard_lan_gbit))) +
              (ib         ? ""
               : fast_eth ? ": RoCE works, InfiniBand is the tested path"
                          : ": training across machines wants >= 50 Gbit/s InfiniBand"),
          "d2l (>= 50 Gbit/s InfiniBand across machines)");
  } else if (n >= 8) {
    c.add("network", lan >= kServerLanGbit ? "pass" : "warn",
          fmt::format("{} Gbit/s to the rest of the network{}", format_number(lan),
                      lan >= kServerLanGbit ? "" : ": an 8-GPU server wants 10 GbE for data"),
          "d2l (10 GbE for an 8-GPU server)");
  }

  // --- Enclosure, licensing, heat ------------------------------------------------------------
  if (chassis.form == "open-frame") {
    c.add("enclosure", "warn",
          "an open frame: no dust filtering, no noise damping and nothing between fans and "
          "fingers; fine in a "
          "server room, poor in an office",
          "d2l (4-GPU machines are loud); tinybox build notes");
  }
  if (gpu.segment == "consumer" && b.location == "datacenter") {
    c.add("geforce-licence", "warn",
          "NVIDIA's GeForce driver licence does not allow datacentre deployment (blockchain "
          "processing "
          "excepted); use datacentre or workstation cards there",
          "NVIDIA GeForce driver EULA, section 2.1.3");
  }
  if (b.location == "office") {
    c.add("heat-noise", report.wall_w > kOfficeHeatW ? "warn" : "pass",
          fmt::format("{:.0f} W is {:.0f} BTU/h{}", report.wall_w, report.wall_w * kBtuPerWattHour,
                      report.wall_w > kOfficeHeatW
                          ? ": a space heater's worth of heat and fan noise in an office"
                          : ""),
          "hardware.md section 3.4; d2l (4-GPU machines are loud and hot)");
  }

  // --- Price -------------------------------------------------------------------------------------
  const auto gpu_price = new_price(gpu);
  report.gpus_priced = gpu_price.has_value();
  report.price_usd = b.cpu_count * cpu.price_usd + board.price_usd + chassis.price_usd +
                     (gpu_price ? n * gpu_price->usd : 0) + b.ram_gb * kRamUsdPerGb +
                     b.nvme_tb * kNvmeUsdPerTb + b.hdd_tb * kHddUsdPerTb +
                     (b.nic ? b.nic->price_usd : 0) +
                     n * (b.gpu_cooling == "water"   ? kWaterBlockUsd
                          : b.gpu_cooling == "riser" ? kRiserUsd
                                                     : 0);
  for (const Psu* p : b.psus) report.price_usd += p->price_usd;

  report.checks = std::move(c.list);
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
    s.psu_efficiency += efficiency(*p) / static_cast<double>(b.psus.size());
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
