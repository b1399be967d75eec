// `build propose`: every board, CPU, chassis, PSU set and cooling choice from the catalog that
// could hold the GPUs, checked by check_build; the cheapest that passes every rule wins.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>

#include "rig/build_constants.h"
#include "rigplan/build.h"
#include "rigplan/input.h"
#include "util/strings.h"

namespace rigplan {

using namespace build_constants;

namespace {

double ram_for(double gpu_memory_gb) {
  // The smallest usual RAM size that holds every GPU's memory (d2l, Dettmers: at least as much RAM
  // as GPU memory; docs/reference/hardware.md section 0), at least 32 GB.
  constexpr double kSizes[] = {32, 64, 128, 256, 512, 1024, 2048, 4096};
  for (double s : kSizes) {
    if (s >= gpu_memory_gb) return s;
  }
  return kSizes[std::size(kSizes) - 1];
}

// NVMe for datasets: d2l's 1-2 TB for a 4-GPU box, scaled with the GPU count.
double nvme_for(int gpus) { return gpus <= 2 ? 2 : gpus <= 4 ? 4 : 8; }

// Warnings another choice of parts could avoid.
int avoidable_warnings(const BuildReport& r) {
  return static_cast<int>(std::count_if(r.checks.begin(), r.checks.end(), [](const BuildCheck& c) {
    return c.status == "warn" && !is_inherent_warning(c);
  }));
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

// A board holds the GPUs when it takes their module (an SXM5 H100 needs an SXM5 baseboard) and
// has a socket or slot for each.
bool board_holds(const Board& board, const Gpu& gpu, int count) {
  if (module_of(board) != module_of(gpu)) return false;
  if (board.sxm_sockets) return *board.sxm_sockets == count;
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

// The circuits a proposal is checked against: the one named, else the region's usual outlet for
// a tower and the catalog's datacentre circuit (one no country lists) for a rack.
struct Circuits {
  const Circuit* office = nullptr;
  const Circuit* datacenter = nullptr;
  bool assumed = false;
};

Result<Circuits> circuits_for(const ProposeRequest& req, const Catalog& catalog) {
  if (req.circuit) return Circuits{req.circuit, req.circuit, false};
  auto region = catalog.find_region(req.region);
  if (!region) return region.status();
  Circuits out{usual_circuit(catalog, **region), nullptr, true};
  for (const auto& c : catalog.circuits) {
    if (c.countries.empty()) {
      out.datacenter = &c;
      break;
    }
  }
  return out;
}

Build parts_list(const ProposeRequest& req, const Board& board, const Chassis& chassis,
                 const Cpu& cpu, const Psu& psu, int psus, const std::string& cooling,
                 const Nic* nic, const Circuits& circuits) {
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
  b.location = chassis.form == "rack" ? "datacenter" : "office";
  b.circuit = b.location == "datacenter" ? circuits.datacenter : circuits.office;
  b.circuit_assumed = circuits.assumed && b.circuit;
  return b;
}

// Every parts list from the catalog that could hold the GPUs, to `visit`.
void for_each_parts_list(const ProposeRequest& req, const Catalog& catalog,
                         const Circuits& circuits, const std::function<void(const Build&)>& visit) {
  // The GPUs' demand on the CPU is the same for every parts list: predicted once.
  Build demand;
  demand.gpu = req.gpu;
  feed_demand(demand, catalog);
  for (const Board& board : catalog.boards) {
    if (!board_holds(board, *req.gpu, req.gpu_count)) continue;
    const Nic* nic = nic_for(req, board, catalog);
    for (const Chassis& chassis : catalog.chassis) {
      if (!chassis_takes(chassis, board, req.form)) continue;
      const int max_psus = chassis.form == "open-frame" ? kOpenFramePsus : chassis.psu_bays;
      for (const Cpu& cpu : catalog.cpus) {
        if (cpu.socket != board.socket || cpu.memory_type != board.memory_type) continue;
        for (const Psu& psu : catalog.psus) {
          if (!psu_fits(psu, chassis)) continue;
          for (int k = 1; k <= max_psus; ++k) {
            for (const auto& cooling : coolings(*req.gpu, chassis)) {
              Build b = parts_list(req, board, chassis, cpu, psu, k, cooling, nic, circuits);
              b.catalog = &catalog;
              b.images_per_s_per_gpu = demand.images_per_s_per_gpu;
              b.demand_problem = demand.demand_problem;
              visit(b);
            }
          }
        }
      }
    }
  }
}

// The search's state: the parts list with no failing check, the fewest warnings other parts
// would avoid and the lowest price; else the one closest to passing.
struct Search {
  std::optional<Proposal> best;
  int best_warnings = 0;
  std::optional<Proposal> closest;  // fewest failing rules, then cheapest
  int closest_fails = 1 << 30;
  int candidates = 0;

  void consider(const Build& b, const ProposeRequest& req) {
    ++candidates;
    BuildReport report = check_build(b);
    const int f = fails(report);
    if (f == 0) {
      if (req.budget_usd && report.price_usd > *req.budget_usd) return;
      const int warnings = avoidable_warnings(report);
      if (!best ||
          std::tie(warnings, report.price_usd) < std::tie(best_warnings, best->report.price_usd)) {
        best_warnings = warnings;
        best = Proposal{b, std::move(report), {}, {}, 0};
      }
    } else if (!best) {
      if (f < closest_fails ||
          (f == closest_fails && report.price_usd < closest->report.price_usd)) {
        closest_fails = f;
        closest = Proposal{b, std::move(report), {}, {}, 0};
      }
    }
  }
};

// " on us-20a", or the circuit assumed for the closest parts list.
std::string circuit_text(const ProposeRequest& req, const Search& search) {
  if (req.circuit) return " on " + req.circuit->id;
  const Circuit* assumed = search.closest ? search.closest->build.circuit : nullptr;
  return assumed ? fmt::format(" on {} (assumed: no --circuit)", assumed->id) : "";
}

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
      circuit_text(req, search), search.candidates, why));
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
       fmt::format("{}: {}; {}", b.board->id, sxm ? message("gpu-module") : message("slot-spacing"),
                   sxm ? message("gpu-sockets") : message("pcie-lanes"))},
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
  if (b.circuit) {
    const std::string_view assumed = b.location == "datacenter"
                                         ? "assumed, a datacentre circuit for a rack server"
                                         : "assumed, the region's usual outlet";
    out.emplace_back("circuit", fmt::format("{}: {}", b.circuit->id,
                                            b.circuit_assumed ? assumed : "named with --circuit"));
  }
  out.emplace_back("price", fmt::format("the cheapest parts list with no failing check and {}{}",
                                        avoidable_warnings(p.report) == 0
                                            ? "no warning other parts would avoid"
                                            : "the fewest warnings other parts would avoid",
                                        p.report.gpus_priced ? ""
                                                             : " (GPUs not counted: no new price "
                                                               "in the catalog)"));
  return out;
}

// What the proposal assumed and the warnings it keeps, one sentence each.
std::vector<std::string> notes(const Proposal& p, const ProposeRequest& req) {
  std::vector<std::string> out;
  const Circuit* c = p.build.circuit;
  if (p.build.circuit_assumed) {
    out.push_back(
        p.build.location == "datacenter"
            ? fmt::format("No circuit named: a rack server is checked against {} ({}), a "
                          "datacentre circuit; --circuit names another",
                          c->id, c->name)
            : fmt::format("No circuit named: checked against {} ({}), the usual outlet in "
                          "region {}; --circuit or --region names another",
                          c->id, c->name, req.region));
  }
  std::vector<std::string> warned;
  for (const auto& check : p.report.checks) {
    if (check.status == "warn" && !is_inherent_warning(check)) warned.push_back(check.rule);
  }
  if (!warned.empty()) {
    out.push_back(
        fmt::format("No parts list in the catalog avoids every warning; this one keeps "
                    "{}: the build works, with what the warnings say",
                    join(warned, ", ")));
  }
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
  auto circuits = circuits_for(req, catalog);
  if (!circuits) return circuits.status();
  Search search;
  for_each_parts_list(req, catalog, *circuits, [&](const Build& b) { search.consider(b, req); });
  if (!search.best) return no_proposal(req, search);
  Proposal best = std::move(*search.best);
  best.candidates = search.candidates;
  best.reasons = reasons(best);
  best.notes = notes(best, req);
  return best;
}

}  // namespace rigplan
