// `build propose`: every board, CPU, chassis, PSU set and cooling choice from the catalog that
// could hold the GPUs, checked by check_build; the cheapest that passes every rule wins.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "rig/build_constants.h"
#include "rigplan/build.h"
#include "rigplan/input.h"
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

bool board_holds(const Board& board, const Gpu& gpu, int count) {
  const bool sxm = gpu.form_factor == "sxm" || gpu.form_factor == "oam";
  if (sxm) return board.sxm_sockets.value_or(0) == count;
  return static_cast<int>(board.pcie_slots.size()) >= count;
}

bool chassis_takes(const Chassis& chassis, const Board& board, std::string_view form) {
  if (!form.empty() && (form == "rack") != (chassis.form == "rack")) return false;
  const auto& factors = chassis.board_form_factors;
  const auto& boards = chassis.boards;
  return std::find(factors.begin(), factors.end(), board.form_factor) != factors.end() &&
         (boards.empty() || std::find(boards.begin(), boards.end(), board.id) != boards.end());
}

bool psu_fits(const Psu& psu, const Chassis& chassis) {
  return psu.form_factor == chassis.psu_form_factor ||
         (psu.form_factor == "sfx" && chassis.psu_form_factor == "atx");
}

// The cooling choices for the cards in a chassis: their own coolers, water blocks, extenders.
std::vector<std::string> coolings(const Gpu& gpu, const Chassis& chassis) {
  if (gpu.form_factor == "sxm" || gpu.form_factor == "oam") return {"stock"};
  std::vector<std::string> out = {"stock"};
  if (gpu.cooler != "passive") out.emplace_back("water");
  if (chassis.form != "rack") out.emplace_back("riser");
  return out;
}

const Nic* cheapest_nic(const Catalog& catalog, std::string_view kind, double gbit) {
  const Nic* best = nullptr;
  for (const auto& n : catalog.nics) {
    if (n.kind == kind && n.gbit_per_port >= gbit && (!best || n.price_usd < best->price_usd))
      best = &n;
  }
  return best;
}

// The network card a board needs: InfiniBand between nodes, else Ethernet when its own LAN is
// slower than the network rule asks (between nodes, or for an 8-GPU server's data).
const Nic* nic_for(const ProposeRequest& req, const Board& board, const Catalog& catalog) {
  const double lan_needed = req.nodes > 1        ? kMultiNodeGbit
                            : req.gpu_count >= 8 ? kServerLanGbit
                                                 : 0;
  const Nic* nic = req.nodes > 1 ? cheapest_nic(catalog, "infiniband", kMultiNodeGbit) : nullptr;
  if (!nic && board.onboard_lan_gbit < lan_needed)
    nic = cheapest_nic(catalog, "ethernet", lan_needed);
  return nic;
}

Build parts_list(const ProposeRequest& req, const Board& board, const Chassis& chassis,
                 const Cpu& cpu, const Psu& psu, int psus, const std::string& cooling,
                 const Nic* nic) {
  const Gpu& gpu = *req.gpu;
  Build b;
  b.name = fmt::format("{} x {}", req.gpu_count, gpu.id);
  b.cpu = &cpu;
  b.cpu_count = std::min(board.sockets, cpu.max_sockets);
  b.board = &board;
  b.chassis = &chassis;
  b.gpu = &gpu;
  b.gpu_count = req.gpu_count;
  b.gpu_cooling = cooling;
  b.psus.assign(static_cast<size_t>(psus), &psu);
  b.ram_gb = std::min(ram_for(req.gpu_count * gpu.memory_gb), board.max_memory_gb);
  b.nvme_tb = nvme_for(req.gpu_count);
  b.nic = nic;
  b.nodes = req.nodes;
  b.circuit = req.circuit;
  b.location = chassis.form == "rack" ? "datacenter" : "office";
  return b;
}

// Every parts list from the catalog that could hold the GPUs, to `visit`.
void for_each_parts_list(const ProposeRequest& req, const Catalog& catalog,
                         const std::function<void(const Build&)>& visit) {
  for (const Board& board : catalog.boards) {
    if (!board_holds(board, *req.gpu, req.gpu_count)) continue;
    const Nic* nic = nic_for(req, board, catalog);
    for (const Chassis& chassis : catalog.chassis) {
      if (!chassis_takes(chassis, board, req.form)) continue;
      const int max_psus = chassis.form == "open-frame" ? 4 : chassis.psu_bays;
      for (const Cpu& cpu : catalog.cpus) {
        if (cpu.socket != board.socket || cpu.memory_type != board.memory_type) continue;
        for (const Psu& psu : catalog.psus) {
          if (!psu_fits(psu, chassis)) continue;
          for (int k = 1; k <= max_psus; ++k) {
            for (const auto& cooling : coolings(*req.gpu, chassis))
              visit(parts_list(req, board, chassis, cpu, psu, k, cooling, nic));
          }
        }
      }
    }
  }
}

// The search's state: the cheapest acceptable parts list, else the one closest to passing.
struct Search {
  std::optional<Proposal> best;
  std::optional<Proposal> closest;  // fewest failing rules, then cheapest
  int closest_fails = 1 << 30;
  int candidates = 0;

  void consider(const Build& b, const ProposeRequest& req) {
    ++candidates;
    BuildReport report = check_build(b);
    if (acceptable(report)) {
      if (req.budget_usd && report.price_usd > *req.budget_usd) return;
      if (!best || report.price_usd < best->report.price_usd)
        best = Proposal{b, std::move(report), {}, 0};
    } else if (!best) {
      const int f = fails(report);
      if (f < closest_fails ||
          (f == closest_fails && report.price_usd < closest->report.price_usd)) {
        closest_fails = f;
        closest = Proposal{b, std::move(report), {}, 0};
      }
    }
  }
};

Status no_proposal(const ProposeRequest& req, const Search& search) {
  std::string why = "no board in the catalog holds them";
  if (search.closest) {
    const Build& b = search.closest->build;
    std::vector<std::string> problems;
    for (const auto& c : search.closest->report.checks) {
      if (c.status != "pass")
        problems.push_back(fmt::format("{} ({}): {}", c.rule, c.status, c.message));
    }
    why = fmt::format("the closest, {} + {} + {} x {}, breaks: {}", b.board->id, b.chassis->id,
                      b.psus.size(), b.psus.front()->id, join(problems, "; "));
  }
  return Status::not_found(fmt::format(
      "no parts list for {} x {} passes every check{}{} among {} candidates; {}", req.gpu_count,
      req.gpu->id,
      req.budget_usd ? fmt::format(" within {} USD", format_number(*req.budget_usd)) : "",
      req.circuit ? " on " + req.circuit->id : "", search.candidates, why));
}

// Why each part of the proposal was chosen, from its checks.
std::vector<std::pair<std::string, std::string>> reasons(const Proposal& p) {
  const Build& b = p.build;
  auto message = [&](std::string_view rule) {
    const BuildCheck* c = find_check(p.report, rule);
    return c ? c->message : std::string();
  };
  const bool sxm = b.gpu->form_factor == "sxm" || b.gpu->form_factor == "oam";
  std::vector<std::pair<std::string, std::string>> out = {
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
  if (b.nic) out.emplace_back("nic", fmt::format("{}: {}", b.nic->id, message("network")));
  out.emplace_back("price", p.report.gpus_priced
                                ? "the cheapest parts list with no failing check and no warning "
                                  "other parts would avoid"
                                : "the cheapest parts list with no failing check and no warning "
                                  "other parts would avoid (GPUs not counted: no new price in the "
                                  "catalog)");
  return out;
}

}  // namespace

bool is_inherent_warning(const BuildCheck& check) { return check.rule == "heat-noise"; }

Result<Proposal> propose_build(const ProposeRequest& req, const Catalog& catalog) {
  if (Status s = input::check(input::kNodes, req.nodes); !s.ok()) return s;
  if (Status s = input::check(input::kBuildBudget, req.budget_usd); !s.ok()) return s;
  if (req.gpu_count < 1 || req.gpu_count > 16) {
    return Status::invalid_input(fmt::format("{} GPUs: a build holds 1 to 16", req.gpu_count));
  }
  if (!req.form.empty() && req.form != "tower" && req.form != "rack") {
    return Status::invalid_input(
        fmt::format("--form '{}' is not accepted; expected 'tower' or 'rack'", shown(req.form)));
  }
  Search search;
  for_each_parts_list(req, catalog, [&](const Build& b) { search.consider(b, req); });
  if (!search.best) return no_proposal(req, search);
  Proposal best = std::move(*search.best);
  best.candidates = search.candidates;
  best.reasons = reasons(best);
  return best;
}

}  // namespace rigplan
