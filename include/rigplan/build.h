// Workstation and server builds: a build file names the parts, `check_build` applies every rule
// the buying guides give (power, connectors, circuit, lanes, slots and cooling, CPU, RAM,
// storage, network, licensing, heat), and `propose_build` searches the catalog for the cheapest
// parts list that passes them all. docs/builds.md lists each rule with its numbers and source.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rigplan/catalog.h"
#include "rigplan/status.h"

namespace rigplan {

// A build as written in a build file (docs/builds.md), with ids resolved against the catalog.
struct Build {
  std::string name;
  const Catalog* catalog = nullptr;  // the catalog its parts come from: rates and part prices
  const Cpu* cpu = nullptr;
  int cpu_count = 1;
  const Board* board = nullptr;
  const Chassis* chassis = nullptr;
  const Gpu* gpu = nullptr;
  int gpu_count = 1;
  std::string gpu_cooling = "stock";    // stock, water (single-slot blocks), riser (extenders)
  std::optional<double> power_limit_w;  // per GPU
  std::vector<const Psu*> psus;
  double ram_gb = 0;
  double nvme_tb = 0;
  double hdd_tb = 0;
  const Nic* nic = nullptr;
  int nodes = 1;
  const Circuit* circuit = nullptr;
  bool circuit_assumed = false;     // the region's usual circuit, not one the user named
  std::string location = "office";  // office, datacenter
  // Images/s one of its GPUs trains the reference image workload at, what the cpu-cores rule
  // feeds (feed_demand); nullopt with the reason in demand_problem when it cannot be predicted.
  std::optional<double> images_per_s_per_gpu;
  std::string demand_problem;
};

// Sets the build's images_per_s_per_gpu from its GPU (input_pipeline.h reference_demand).
// parse_build and propose_build call it.
void feed_demand(Build& build, const Catalog& catalog);

// The usual wall circuit of a region: the first circuit listing its country (or a parent's).
const Circuit* usual_circuit(const Catalog& catalog, const Region& region);

// Reads a build file. Unknown keys, wrong types and unknown parts are reported together, each as
// "file:line:column: message" with the accepted values or the closest ids.
Result<Build> parse_build(const CatalogFile& file, const Catalog& catalog);

struct BuildCheck {
  std::string rule;     // psu-capacity, wall-circuit, slot-spacing, ...
  std::string status;   // pass, warn, fail
  std::string message;  // with the numbers
  std::string source;   // d2l, Dettmers, vendor specification, NEC, ...
};

struct BuildReport {
  std::string verdict;  // fail if any check fails, else warn if any warns, else pass
  std::vector<BuildCheck> checks;
  double sustained_w = 0;  // GPUs (or their cap) + CPUs + 150 W: what the PSUs must carry
  double gpus_w = 0;       // the sustained draw's parts: all GPUs, all CPUs, the rest
  double cpus_w = 0;
  double other_w = 0;
  double psu_capacity_w = 0;  // the PSUs' rating, at low line where the circuit is 100-127 V
  double wall_w = 0;          // sustained / PSU efficiency
  double price_usd = 0;  // the parts with prices (GPUs at their new price), plus risers or blocks
  bool gpus_priced = true;  // false: the GPU has no new price in the catalog and is not counted
};

// Warnings that follow from the GPUs themselves, not from a choice of parts: a proposal may carry
// them (four 450 W cards heat an office whatever they are built into).
bool is_inherent_warning(const BuildCheck& check);

BuildReport check_build(const Build& build);

// A checked build as a base system, so that `rigplan cost --build` and `recommend --build` price
// and power an owned machine from its real parts: everything but the GPUs, with the PSUs'
// rating and efficiency, the draw of the CPUs and other parts while training, and the embodied
// carbon of the catalog's base system of the same form (the closest in GPU count).
BaseSystem system_from_build(const Build& build, const BuildReport& report, const Catalog& catalog);

// `rigplan build propose`: the cheapest parts list with no failing check and the fewest warnings
// that other parts would avoid.
struct ProposeRequest {
  const Gpu* gpu = nullptr;
  int gpu_count = 1;
  std::optional<double> budget_usd;
  // The wall circuit. None: a tower is checked against `region`'s usual outlet and a rack
  // against the catalog's datacentre circuit, and the proposal says so.
  const Circuit* circuit = nullptr;
  std::string region = "us";
  std::string form;  // tower, rack, or "" for either
  int nodes = 1;
};

struct Proposal {
  Build build;
  BuildReport report;
  std::vector<std::pair<std::string, std::string>> reasons;  // part -> why it was chosen
  std::vector<std::string> notes;  // assumptions (the circuit) and the warnings it keeps
  int candidates = 0;              // parts lists checked
};

// kNotFound with the closest failure when every parts list fails a check (which rule, by how
// much); an unknown region is kNotFound too.
Result<Proposal> propose_build(const ProposeRequest& request, const Catalog& catalog);

}  // namespace rigplan
