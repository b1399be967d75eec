// Build rules of the platform and the GPUs: CPU and board, board and chassis, sockets or slots,
// spacing, length, lanes and cooling.
#include <fmt/format.h>

#include <algorithm>

#include "rig/build_constants.h"
#include "rig/rules.h"
#include "util/strings.h"

namespace rigplan::build_rules {

using namespace build_constants;

namespace {

bool contains(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

std::optional<Verdict> cpu_socket(const BuildFacts& f) {
  const Build& b = f.b;
  if (f.cpu.socket != f.board.socket) {
    return Verdict{"fail",
                   fmt::format("{} has socket {}; {} takes {}", f.cpu.id, f.cpu.socket, f.board.id,
                               f.board.socket),
                   "vendor specification"};
  }
  if (b.cpu_count > f.board.sockets || b.cpu_count > f.cpu.max_sockets) {
    return Verdict{
        "fail",
        fmt::format("{} CPUs, but {} has {} socket(s) and {} runs in up to {}", b.cpu_count,
                    f.board.id, f.board.sockets, f.cpu.id, f.cpu.max_sockets),
        "vendor specification"};
  }
  return Verdict{
      "pass", fmt::format("{} x {} in {} ({})", b.cpu_count, f.cpu.id, f.board.id, f.board.socket),
      "vendor specification"};
}

std::optional<Verdict> memory_type(const BuildFacts& f) {
  if (f.cpu.memory_type == f.board.memory_type) return std::nullopt;
  return Verdict{"fail",
                 fmt::format("{} uses {}; {} has {} slots", f.cpu.id, f.cpu.memory_type, f.board.id,
                             f.board.memory_type),
                 "vendor specification"};
}

std::optional<Verdict> board_in_chassis(const BuildFacts& f) {
  const Board& board = f.board;
  const Chassis& chassis = f.chassis;
  const bool fits = contains(chassis.board_form_factors, board.form_factor) &&
                    (chassis.boards.empty() || contains(chassis.boards, board.id));
  if (fits) {
    return Verdict{"pass", fmt::format("{} ({}) fits {}", board.id, board.form_factor, chassis.id),
                   "vendor specification"};
  }
  return Verdict{
      "fail",
      fmt::format("{} is {}; {} takes {}{}", board.id, board.form_factor, chassis.id,
                  join(chassis.board_form_factors, ", "),
                  chassis.boards.empty() ? "" : " (only " + join(chassis.boards, ", ") + ")"),
      "vendor specification"};
}

// SXM and OAM modules fit only a baseboard of their generation (an SXM5 H100 does not fit an
// SXM4 HGX A100 board); PCIe cards need PCIe GPU slots. Nothing to say when both are PCIe.
std::optional<Verdict> gpu_module(const BuildFacts& f) {
  const std::string_view gpu = module_of(f.gpu), board = module_of(f.board);
  if (gpu == "pcie" && board == "pcie") return std::nullopt;
  const std::string source = "vendor specification (NVIDIA HGX, AMD Instinct baseboards)";
  if (gpu == board) {
    return Verdict{"pass", fmt::format("{} modules on {}'s {} baseboard", gpu, f.board.id, board),
                   source};
  }
  if (board == "pcie") {
    return Verdict{"fail",
                   fmt::format("{} is an {} module and needs an {} baseboard; {} has PCIe GPU "
                               "slots",
                               f.gpu.id, gpu, gpu, f.board.id),
                   source};
  }
  return Verdict{"fail",
                 gpu == "pcie" ? fmt::format("{} is a PCIe card; {} has {} module sockets and no "
                                             "PCIe GPU slots",
                                             f.gpu.id, f.board.id, board)
                               : fmt::format("{} is an {} module; {} takes {} modules", f.gpu.id,
                                             gpu, f.board.id, board),
                 source};
}

std::optional<Verdict> gpu_sockets(const BuildFacts& f) {
  if (!f.sxm) return std::nullopt;
  const int sockets = f.board.sxm_sockets.value_or(0);
  return Verdict{sockets >= f.n ? "pass" : "fail",
                 fmt::format("{} {} GPUs on {} SXM/OAM sockets", f.n, f.gpu.form_factor, sockets),
                 "vendor specification"};
}

std::optional<Verdict> gpu_slots(const BuildFacts& f) {
  if (f.sxm || static_cast<int>(f.slots.size()) >= f.n) return std::nullopt;
  return Verdict{"fail",
                 fmt::format("{} GPUs, but {} has {} GPU slots", f.n, f.board.id, f.slots.size()),
                 "vendor specification"};
}

std::optional<Verdict> slot_spacing(const BuildFacts& f) {
  if (f.sxm || static_cast<int>(f.slots.size()) < f.n) return std::nullopt;
  const int n = f.n, width = f.width;
  if (f.b.gpu_cooling == "riser") {
    return Verdict{
        "warn",
        fmt::format(
            "{} cards on PCIe extenders: mount them with gaps and use shielded PCIe {} cables of "
            "15-30 cm; a longer extender lost a GPU in the tinybox notes",
            n, std::min(f.gpu.pcie_gen, f.slots.front().gen)),
        "Dettmers 2023 (extenders for 3-slot cards); tinybox build notes"};
  }
  if (!f.placement) {
    std::vector<std::string> positions;
    for (const auto& s : f.slots) positions.push_back(std::to_string(s.position));
    return Verdict{"fail",
                   fmt::format("{} cards {} slots wide cannot sit on slots at positions {}: each "
                               "needs {} positions; use water blocks (1 slot), extenders, or "
                               "narrower cards",
                               n, width, join(positions, ", "), width),
                   "slot pitch 20.32 mm (PCI/ATX); hardware.md section 4"};
  }
  const Placement& p = *f.placement;
  const bool open_air = f.gpu.cooler == "open-air" && f.b.gpu_cooling == "stock";
  if (n > 1 && open_air && p.min_gap < 1) {
    return Verdict{"warn",
                   fmt::format("open-air cards with no free slot between them ({} slots wide on "
                               "positions {}..{}): expect throttling of up to ~30%; use blower "
                               "cards, water blocks, extenders or a power limit",
                               width, p.slots.front().position, p.slots.back().position),
                   "Dettmers hardware guide (blower cards when GPUs sit in adjacent slots)"};
  }
  return Verdict{
      "pass",
      n == 1 ? fmt::format("1 card {} slots wide on slot {}", width, p.slots.front().position)
             : fmt::format("{} cards {} slots wide, {} free slot(s) between neighbours", n, width,
                           p.min_gap),
      "slot pitch 20.32 mm (PCI/ATX)"};
}

std::optional<Verdict> chassis_slots(const BuildFacts& f) {
  if (!f.placement || f.b.gpu_cooling == "riser" || f.chassis.form == "open-frame")
    return std::nullopt;
  const int bottom = f.placement->slots.back().position + f.width - 1;
  return Verdict{bottom <= f.chassis.expansion_slots ? "pass" : "fail",
                 fmt::format("the lowest card reaches slot {} of the chassis's {}", bottom,
                             f.chassis.expansion_slots),
                 "vendor specification"};
}

std::optional<Verdict> gpu_length(const BuildFacts& f) {
  if (f.sxm || !f.gpu.card_length_mm) return std::nullopt;
  return Verdict{*f.gpu.card_length_mm <= f.chassis.max_gpu_length_mm ? "pass" : "fail",
                 fmt::format("{} mm card, {} mm clearance", format_number(*f.gpu.card_length_mm),
                             format_number(f.chassis.max_gpu_length_mm)),
                 "vendor specification"};
}

std::optional<Verdict> pcie_lanes(const BuildFacts& f) {
  if (!f.placement) return std::nullopt;
  int worst_lanes = 99;
  double worst_gbps = 1e9;
  for (const auto& s : f.placement->slots) {
    const int gen = std::min(s.gen, f.gpu.pcie_gen > 0 ? f.gpu.pcie_gen : s.gen);
    const double gbps = pcie_gbps(*f.b.catalog, gen, s.lanes).value_or(0);
    if (gbps < worst_gbps) {
      worst_gbps = gbps;
      worst_lanes = s.lanes;
    }
  }
  const std::string text =
      fmt::format("slowest GPU link x{} at {:.1f} GB/s per direction", worst_lanes, worst_gbps);
  if (worst_lanes <= 2) {
    return Verdict{"fail", text + ": too slow to feed a GPU for training (x1 PCIe 3.0 is ~1 GB/s)",
                   "d2l (x16 per GPU, boards drop to x8/x4); hardware.md section 4"};
  }
  if (worst_lanes == 4 && f.n > 1) {
    return Verdict{"warn", text + ": x4 costs ~5-10% with data parallelism over 4 GPUs",
                   "models.md section 2.5 (x4 lanes cost 5-10%)"};
  }
  return Verdict{"pass", text, "d2l; Dettmers (x8 per GPU is enough)"};
}

std::optional<Verdict> cpu_lanes(const BuildFacts& f) {
  if (!f.placement) return std::nullopt;
  int lanes = f.b.nic ? f.b.nic->pcie_lanes : 0;
  for (const auto& s : f.placement->slots) lanes += s.lanes;
  const int cpu_lanes = f.cpu.pcie_lanes * f.b.cpu_count;
  if (!f.board.pcie_switch && lanes > cpu_lanes) {
    return Verdict{"warn",
                   fmt::format("GPU and NIC slots take {} lanes, the CPU{} {}: some hang off the "
                               "chipset and share its uplink",
                               lanes, f.b.cpu_count > 1 ? "s have" : " has", cpu_lanes),
                   "d2l (some boards drop to x8/x4 because of the CPU's lanes)"};
  }
  return Verdict{"pass",
                 fmt::format("{} lanes for GPUs and NIC{}", lanes,
                             f.board.pcie_switch ? " through PCIe switches"
                                                 : fmt::format(" of the CPU's {}", cpu_lanes)),
                 "vendor specification"};
}

std::optional<Verdict> gpu_cooling(const BuildFacts& f) {
  const Gpu& gpu = f.gpu;
  const Chassis& chassis = f.chassis;
  if (gpu.cooler == "passive" && chassis.airflow != "server") {
    return Verdict{"fail",
                   fmt::format("{} is passively cooled and needs a server's front-to-back "
                               "airflow; {} is a {} chassis",
                               gpu.id, chassis.id, chassis.form),
                   "d2l (datacentre cards use passive cooling); vendor specification"};
  }
  if (gpu.segment == "consumer" && chassis.airflow == "server" && gpu.cooler == "open-air") {
    return Verdict{"warn",
                   fmt::format("open-air {} cards in a server chassis recirculate their heat; "
                               "blower or passive cards suit it",
                               gpu.id),
                   "d2l (check the GPU's physical form factor in servers)"};
  }
  return Verdict{"pass",
                 fmt::format("{} cooler in a {} chassis ({})", gpu.cooler, chassis.form,
                             f.b.gpu_cooling == "stock" ? "stock" : f.b.gpu_cooling),
                 "d2l; Dettmers"};
}

}  // namespace rigplan::build_rules
