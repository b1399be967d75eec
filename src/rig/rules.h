// The build rules of check_build(), a table of named rules with one function each
// (docs/builds.md lists them with their numbers and sources). A rule reads the build and the
// facts derived from it once (the cards' placement on the board's slots, the power budget) and
// gives its verdict, or none when it does not apply to the build.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rigplan/build.h"

namespace rigplan::build_rules {

// Where the cards sit, top to bottom, and the empty slot positions between neighbours.
struct Placement {
  std::vector<PcieSlot> slots;
  int min_gap = 0;
};

// The sustained draw and what the PSUs give.
struct PowerBudget {
  double gpu_w = 0;  // per GPU, with its power limit
  double sustained_w = 0;
  double capacity_w = 0;  // at low line where the circuit is 100-127 V
  double efficiency = 0;  // the PSUs' average
  double wall_w = 0;
  bool atx2 = false;     // an ATX 2.x unit among the PSUs
  bool derated = false;  // a PSU rated lower at low line
};

// A build and the facts its rules share.
struct BuildFacts {
  explicit BuildFacts(const Build& build);
  const Build& b;
  const Gpu& gpu;
  const Cpu& cpu;
  const Board& board;
  const Chassis& chassis;
  int n = 0;                           // GPUs
  bool sxm = false;                    // SXM or OAM modules on a baseboard
  int width = 2;                       // slots per card, with its cooling
  std::vector<PcieSlot> slots;         // the board's GPU slots
  std::optional<Placement> placement;  // PCIe cards, when they fit the slots
  PowerBudget power;
};

struct Verdict {
  std::string status;   // pass, warn, fail
  std::string message;  // with the numbers
  std::string source;
};

struct Rule {
  std::string_view name;
  std::optional<Verdict> (*check)(const BuildFacts& facts);
};

// Every rule, in the order of the report: platform, GPUs, power, host, enclosure.
const std::vector<Rule>& rules();

// The rules of each part, in their files.
std::optional<Verdict> cpu_socket(const BuildFacts& f);
std::optional<Verdict> memory_type(const BuildFacts& f);
std::optional<Verdict> board_in_chassis(const BuildFacts& f);
std::optional<Verdict> gpu_module(const BuildFacts& f);
std::optional<Verdict> gpu_sockets(const BuildFacts& f);
std::optional<Verdict> gpu_slots(const BuildFacts& f);
std::optional<Verdict> slot_spacing(const BuildFacts& f);
std::optional<Verdict> chassis_slots(const BuildFacts& f);
std::optional<Verdict> gpu_length(const BuildFacts& f);
std::optional<Verdict> pcie_lanes(const BuildFacts& f);
std::optional<Verdict> cpu_lanes(const BuildFacts& f);
std::optional<Verdict> gpu_cooling(const BuildFacts& f);
std::optional<Verdict> psu_capacity(const BuildFacts& f);
std::optional<Verdict> psu_connectors(const BuildFacts& f);
std::optional<Verdict> psu_fit(const BuildFacts& f);
std::optional<Verdict> wall_circuit(const BuildFacts& f);
std::optional<Verdict> heat_noise(const BuildFacts& f);
std::optional<Verdict> cpu_cores(const BuildFacts& f);
std::optional<Verdict> cpu_clock(const BuildFacts& f);
std::optional<Verdict> ram(const BuildFacts& f);
std::optional<Verdict> storage(const BuildFacts& f);
std::optional<Verdict> network(const BuildFacts& f);
std::optional<Verdict> enclosure(const BuildFacts& f);
std::optional<Verdict> geforce_licence(const BuildFacts& f);

// A PSU's efficiency near half load: its 80 PLUS tier's in the catalog (data/catalog/psus.toml).
double psu_efficiency(const Psu& psu, const Catalog& catalog);

}  // namespace rigplan::build_rules
