// Build rules of the host and the site: CPU cores and clock, RAM, storage, network, enclosure and
// the GeForce licence.
#include <fmt/format.h>

#include <algorithm>
#include <cassert>

#include "rig/build_constants.h"
#include "rig/rules.h"
#include "rigplan/input_pipeline.h"
#include "util/strings.h"

namespace rigplan {

void feed_demand(Build& build, const Catalog& catalog) {
  const InputPipelines& pipelines = embedded_input_pipelines();
  auto loader = pipelines.find_loader(kDefaultLoader);
  assert(loader.ok() && "the embedded pipeline data has the default loader");
  auto demand = reference_demand(*pipelines.find_input((*loader)->input), *build.gpu, catalog);
  build.images_per_s_per_gpu.reset();
  build.demand_problem.clear();
  if (demand) {
    build.images_per_s_per_gpu = *demand;
  } else {
    build.demand_problem = demand.status().message();
  }
}

}  // namespace rigplan

namespace rigplan::build_rules {

using namespace build_constants;

// The cores PyTorch's loader needs to feed the GPUs at the speed they train the reference image
// workload (resnet50 on ImageNet JPEGs): pass when it does, warn when only another loader (DALI)
// does, fail when none does. Text workloads need far fewer.
std::optional<Verdict> cpu_cores(const BuildFacts& f) {
  static constexpr std::string_view kSource =
      "Dettmers hardware guide (1-2 cores per GPU); d2l (4+ cores); loader rates: "
      "data/pipeline/loaders.toml";
  const InputPipelines& pipelines = embedded_input_pipelines();
  auto loader = pipelines.find_loader(kDefaultLoader);
  assert(loader.ok() && "the embedded pipeline data has the default loader");
  const PipelineInput& input = *pipelines.find_input((*loader)->input);
  const int cores = f.cpu.cores * f.b.cpu_count;
  const std::optional<double>& demand = f.b.images_per_s_per_gpu;
  if (!demand) {
    return Verdict{"warn",
                   fmt::format("{} cores for {} GPUs; what feeding them needs is unknown: {}",
                               cores, f.n, f.b.demand_problem),
                   std::string(kSource)};
  }
  const PipelineEstimate e =
      estimate_pipeline(**loader, f.cpu, f.b.cpu_count, f.n, f.n * *demand, pipelines);
  std::string message = fmt::format(
      "{} cores for {} GPUs training {} at {:.0f} images/s each: PyTorch's loader needs {} "
      "({:.0f} images/s a core at {} GHz, 1 core per GPU for training)",
      cores, f.n, input.reference_workload, *demand, e.cores_to_lift, e.per_core,
      format_number(f.cpu.boost_clock_ghz));
  if (e.bound) {
    message += e.loader_to_lift.empty()
                   ? "; no loader of the data feeds them on these cores"
                   : fmt::format("; --loader {} feeds them on these cores", e.loader_to_lift);
  }
  return Verdict{!e.bound                    ? "pass"
                 : !e.loader_to_lift.empty() ? "warn"
                                             : "fail",
                 message, std::string(kSource)};
}

std::optional<Verdict> cpu_clock(const BuildFacts& f) {
  const double ghz = f.cpu.boost_clock_ghz;
  return Verdict{
      ghz >= kSlowBoostGhz ? "pass" : "warn",
      fmt::format("{} boosts to {} GHz{}", f.cpu.id, format_number(ghz),
                  ghz >= kGoodBoostGhz   ? ""
                  : ghz >= kSlowBoostGhz ? ": single-threaded data loading is slower "
                                           "than at 4 GHz"
                                         : ": slow single-threaded data loading (Python)"),
      "d2l (6 cores at 4 GHz beat 8 at 3.5 GHz)"};
}

std::optional<Verdict> ram(const BuildFacts& f) {
  const double ram_gb = f.b.ram_gb;
  if (ram_gb > f.board.max_memory_gb) {
    return Verdict{"fail",
                   fmt::format("{} GB of RAM, but {} holds at most {}", format_number(ram_gb),
                               f.board.id, format_number(f.board.max_memory_gb)),
                   "vendor specification"};
  }
  const double gpu_memory = f.n * f.gpu.memory_gb;
  const bool total = ram_gb >= gpu_memory, one = ram_gb >= f.gpu.memory_gb;
  return Verdict{total ? "pass"
                 : one ? "warn"
                       : "fail",
                 fmt::format("{} GB of RAM for {} GB of GPU memory{}", format_number(ram_gb),
                             format_number(gpu_memory),
                             total ? ""
                             : one ? ": at least the total is usual (d2l)"
                                   : ": less than one GPU's memory"),
                 "Dettmers (at least the largest GPU's memory); d2l (more for 4+ GPUs)"};
}

std::optional<Verdict> storage(const BuildFacts& f) {
  const double nvme = f.b.nvme_tb;
  return Verdict{nvme >= 1 ? "pass" : "warn",
                 nvme >= 1 ? fmt::format("{} TB NVMe for datasets", format_number(nvme))
                           : "no NVMe: datasets stream from SATA or HDD; d2l suggests 1-2 TB NVMe",
                 "d2l"};
}

std::optional<Verdict> network(const BuildFacts& f) {
  const Build& b = f.b;
  if (b.nodes > 1) {
    const bool ib = b.nic && b.nic->kind == "infiniband" && b.nic->gbit_per_port >= kMultiNodeGbit;
    const bool fast_eth = b.nic && b.nic->kind == "ethernet" && b.nic->gbit_per_port >= 100;
    const std::string link =
        b.nic ? fmt::format("{} ({} Gbit/s {})", b.nic->id, format_number(b.nic->gbit_per_port),
                            b.nic->kind)
              : fmt::format("onboard {} Gbit/s Ethernet", format_number(f.board.onboard_lan_gbit));
    return Verdict{ib         ? "pass"
                   : fast_eth ? "warn"
                              : "fail",
                   fmt::format("{} nodes over {}", b.nodes, link) +
                       (ib         ? ""
                        : fast_eth ? ": RoCE works, InfiniBand is the tested path"
                                   : ": training across machines wants >= 50 Gbit/s InfiniBand"),
                   "d2l (>= 50 Gbit/s InfiniBand across machines)"};
  }
  if (f.n < 8) return std::nullopt;
  const double lan = std::max(f.board.onboard_lan_gbit, b.nic ? b.nic->gbit_per_port : 0.0);
  return Verdict{
      lan >= kServerLanGbit ? "pass" : "warn",
      fmt::format("{} Gbit/s to the rest of the network{}", format_number(lan),
                  lan >= kServerLanGbit ? "" : ": an 8-GPU server wants 10 GbE for data"),
      "d2l (10 GbE for an 8-GPU server)"};
}

std::optional<Verdict> enclosure(const BuildFacts& f) {
  if (f.chassis.form != "open-frame") return std::nullopt;
  return Verdict{"warn",
                 "an open frame: no dust filtering, no noise damping and nothing between fans and "
                 "fingers; fine in a server room, poor in an office",
                 "d2l (4-GPU machines are loud); tinybox build notes"};
}

std::optional<Verdict> geforce_licence(const BuildFacts& f) {
  if (f.gpu.segment != "consumer" || f.b.location != "datacenter") return std::nullopt;
  return Verdict{"warn",
                 "NVIDIA's GeForce driver licence does not allow datacentre deployment "
                 "(blockchain processing excepted); use datacentre or workstation cards there",
                 "NVIDIA GeForce driver EULA, section 2.1.3"};
}

}  // namespace rigplan::build_rules
