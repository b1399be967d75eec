// `build propose`: every board, CPU, chassis, PSU set and cooling choice from the catalog that
// could hold the GPUs, checked by check_build; the cheapest that passes every rule wins.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "rig/build_constants.h"
#include "rigplan/build.h"
#include "util/strings.h"

namespace rigplan {

using namespace build_constants;

namespace {

// The smallest usual RAM size that holds every GPU's memory (d2l, Dettmers), at least 32 GB.
double ram_for(double gpu_memory_gb) {
  constexpr double kSizes[] = {32, 64, 128, 256, 512, 1024, 2048, 4096};
  for (double s : kSizes) {
    if (s >= gpu_memory_gb) return s;
  }
  return kSizes[std::size(kSizes) - 1];
}

// NVMe for datasets: d2l's 1-2 TB for a 4-GPU box, scaled with the GPU count.
double nvme_for(int gpus) { return gpus <= 2 ? 2 : gpus <= 4 ? 4 : 8; }

// No failing rule and no warning another choice of parts could avoid.
bool acceptable(const BuildReport& r) {
  return std::none_of(r.checks.begin(), r.checks.end(), [](const BuildCheck& c) {
    return c.status == "fail" || (c.status == "warn" && !is_inherent_warning(c));
  });
}

int fails(const BuildReport& r) {
  return static_cast<int>(std::count_if(r.checks.begin(), r.checks.end(),
                                        [](const BuildCheck& c) { return c.status == "fail"; }));
}

const BuildCheck* find_check(const BuildReport& r, std::string_view rule) {
  for (const auto& c : r.checks) {
    if (c.rule == rule) return &c;
  }
  return nullptr;
}

}  // namespace

bool is_inherent_warning(const BuildCheck& check) { return check.rule == "heat-noise"; }

Result<Proposal> propose_build(const ProposeRequest& req, const Catalog& catalog) {
  const Gpu& gpu = *req.gpu;
  if (req.gpu_count < 1 || req.gpu_count > 16) {
    return Status::invalid_input(fmt::format("{} GPUs: a build holds 1 to 16", req.gpu_count));
  }
  if (!req.form.empty() && req.form != "tower" && req.form != "rack") {
    return Status::invalid_input(
        fmt::format("--form '{}' is not accepted; expected 'tower' or 'rack'", req.form));
  }
  const bool sxm = gpu.form_factor == "sxm" || gpu.form_factor == "oam";
  const Nic* nic = nullptr;  // the cheapest card the network rule asks for
  const double board_lan_needed = req.nodes > 1        ? kMultiNodeGbit
                                  : req.gpu_count >= 8 ? kServerLanGbit
                                                       : 0;
  auto cheapest_nic = [&](std::string_view kind, double gbit) {
    const Nic* best = nullptr;
    for (const auto& n : catalog.nics) {
      if (n.kind == kind && n.gbit_per_port >= gbit && (!best || n.price_usd < best->price_usd))
        best = &n;
    }
    return best;
  };
  if (req.nodes > 1) nic = cheapest_nic("infiniband", kMultiNodeGbit);

  Proposal best;
  bool have_pass = false;
  std::optional<Proposal> closest;  // fewest failing rules, for the error
  int closest_fails = 1 << 30;
  int candidates = 0;
  const char* coolings[] = {"stock", "water", "riser"};
  for (const Board& board : catalog.boards) {
    const int holds =
        sxm ? board.sxm_sockets.value_or(0) : static_cast<int>(board.pcie_slots.size());
    if (holds < req.gpu_count || (sxm && board.sxm_sockets.value_or(0) != req.gpu_count)) continue;
    const Nic* board_nic = nic;
    if (!board_nic && board.onboard_lan_gbit < board_lan_needed)
      board_nic = cheapest_nic("ethernet", board_lan_needed);
    for (const Chassis& chassis : catalog.chassis) {
      if (!req.form.empty() && (req.form == "rack") != (chassis.form == "rack")) continue;
      if (std::find(chassis.board_form_factors.begin(), chassis.board_form_factors.end(),
                    board.form_factor) == chassis.board_form_factors.end() ||
          (!chassis.boards.empty() && std::find(chassis.boards.begin(), chassis.boards.end(),
                                                board.id) == chassis.boards.end())) {
        continue;
      }
      for (const Cpu& cpu : catalog.cpus) {
        if (cpu.socket != board.socket || cpu.memory_type != board.memory_type) continue;
        const int cpu_count = std::min(board.sockets, cpu.max_sockets);
        for (const Psu& psu : catalog.psus) {
          if (psu.form_factor != chassis.psu_form_factor &&
              !(psu.form_factor == "sfx" && chassis.psu_form_factor == "atx")) {
            continue;
          }
          const int max_psus = chassis.form == "open-frame" ? 4 : chassis.psu_bays;
          for (int k = 1; k <= max_psus; ++k) {
            for (const char* cooling : coolings) {
              if (sxm && std::string_view(cooling) != "stock") continue;
              if (std::string_view(cooling) == "water" && gpu.cooler == "passive") continue;
              if (std::string_view(cooling) == "riser" && chassis.form == "rack") continue;
              Build b;
              b.name = fmt::format("{} x {}", req.gpu_count, gpu.id);
              b.cpu = &cpu;
              b.cpu_count = cpu_count;
              b.board = &board;
              b.chassis = &chassis;
              b.gpu = &gpu;
              b.gpu_count = req.gpu_count;
              b.gpu_cooling = cooling;
              b.psus.assign(static_cast<size_t>(k), &psu);
              b.ram_gb = std::min(ram_for(req.gpu_count * gpu.memory_gb), board.max_memory_gb);
              b.nvme_tb = nvme_for(req.gpu_count);
              b.nic = board_nic;
              b.nodes = req.nodes;
              b.circuit = req.circuit;
              b.location = chassis.form == "rack" ? "datacenter" : "office";
              ++candidates;
              BuildReport report = check_build(b);
              if (acceptable(report)) {
                if (req.budget_usd && report.price_usd > *req.budget_usd) continue;
                if (!have_pass || report.price_usd < best.report.price_usd) {
                  best.build = b;
                  best.report = std::move(report);
                  have_pass = true;
                }
              } else if (!have_pass) {
                const int f = fails(report);
                if (f < closest_fails ||
                    (f == closest_fails && report.price_usd < closest->report.price_usd)) {
                  closest_fails = f;
                  closest = Proposal{b, std::move(report), {}, 0};
                }
              }
            }
          }
        }
      }
    }
  }
  if (!have_pass) {
    std::string why = "no board in the catalog holds them";
    if (closest) {
      std::vector<std::string> problems;
      for (const auto& c : closest->report.checks) {
        if (c.status != "pass")
          problems.push_back(fmt::format("{} ({}): {}", c.rule, c.status, c.message));
      }
      why = fmt::format("the closest, {} + {} + {} x {}, breaks: {}", closest->build.board->id,
                        closest->build.chassis->id, closest->build.psus.size(),
                        closest->build.psus.front()->id, join(problems, "; "));
    }
    return Status::not_found(fmt::format(
        "no parts list for {} x {} passes every check{}{} among {} candidates; {}", req.gpu_count,
        gpu.id, req.budget_usd ? fmt::format(" within {} USD", format_number(*req.budget_usd)) : "",
        req.circuit ? " on " + req.circuit->id : "", candidates, why));
  }
  best.candidates = candidates;
  const Build& b = best.build;
  const BuildReport& r = best.report;
  auto message = [&](std::string_view rule) {
    const BuildCheck* c = find_check(r, rule);
    return c ? c->message : std::string();
  };
  best.reasons = {
      {"board",
       fmt::format("{}: {}; {}", b.board->id,
                   sxm ? message("gpu-sockets") : message("slot-spacing"), message("pcie-lanes"))},
      {"cpu", fmt::format("{} x {}: {}; {}", b.cpu_count, b.cpu->id, message("cpu-cores"),
                          message("cpu-clock"))},
      {"chassis", fmt::format("{}: {}", b.chassis->id, message("gpu-cooling"))},
      {"psu",
       fmt::format("{} x {}: {}", b.psus.size(), b.psus.front()->id, message("psu-capacity"))},
      {"cooling", b.gpu_cooling == "stock"
                      ? "the cards' own coolers suffice"
                      : fmt::format("{}: {}", b.gpu_cooling, message("slot-spacing"))},
      {"ram", fmt::format("{} GB: {}", format_number(b.ram_gb), message("ram"))},
      {"storage", fmt::format("{} TB NVMe", format_number(b.nvme_tb))},
  };
  if (b.nic) best.reasons.emplace_back("nic", fmt::format("{}: {}", b.nic->id, message("network")));
  best.reasons.emplace_back(
      "price", best.report.gpus_priced
                   ? "the cheapest parts list with no failing check and no warning other "
                     "parts would avoid"
                   : "the cheapest parts list with no failing check and no warning other "
                     "parts would avoid (GPUs not counted: no new price in the catalog)");
  return best;
}

}  // namespace rigplan
