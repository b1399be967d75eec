#include "model/links.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "model/perf_constants.h"
#include "rigplan/gpu_link.h"
#include "rigplan/input.h"
#include "util/strings.h"

namespace rigplan {

namespace pc = perf_constants;

double pcie_gbps(const Gpu& g, const Catalog& catalog) {
  return rigplan::pcie_gbps(catalog, g.pcie_gen, g.pcie_lanes).value_or(0);
}

Link link_for(const Gpu& g, const RunConfig& c, int gpus_in_node, const Catalog& catalog) {
  return link_for(g, c, gpus_in_node, pcie_gbps(g, catalog));
}

std::string_view link_kind(const Gpu& g, std::string_view link) {
  const std::string_view kind = link.empty() ? std::string_view(g.gpu_link) : link;
  return is_gpu_to_gpu_kind(kind) ? kind : "pcie";
}

Link link_for(const Gpu& g, const RunConfig& c, int gpus_in_node, double lane_gbps) {
  std::string_view kind = link_kind(g, c.link);
  // A bridge joins pairs: beyond two GPUs the ring also crosses PCIe. A cube-mesh board
  // (DGX-1) wires its own GPUs and no more.
  if (kind == "nvlink-bridge" && gpus_in_node > 2) kind = "pcie";
  if (kind == "nvlink-cube-mesh" && gpus_in_node > pc::kCubeMeshGpus) kind = "pcie";
  // NVSwitch, and a cube mesh whose rings NCCL lays over every NVLink of each GPU: the GPU's
  // whole link rate per direction.
  if (is_gpu_to_gpu_kind(kind)) {
    const double per_direction = g.gpu_link_bw_gbps.value_or(0) / 2;
    if (per_direction > 0) return {kind, kind, per_direction * pc::kNvlinkEfficiency};
    kind = "pcie";
  }
  // GeForce cards have no peer-to-peer over PCIe: collectives go through host memory.
  const bool p2p = std::string_view(g.segment) != "consumer";
  return {p2p ? "pcie" : "pcie (host-staged, no P2P)", p2p ? "pcie" : "pcie-host",
          lane_gbps * (p2p ? pc::kPcieP2pEfficiency : pc::kPcieHostEfficiency)};
}

int node_gpus(const Gpu& g, const RunConfig& c) {
  return c.gpus_per_node ? *c.gpus_per_node : g.nvlink_domain_gpus.value_or(pc::kGpusPerNode);
}

int machine_gpus(const RunConfig& c) { return c.gpus_per_node.value_or(pc::kGpusPerNode); }

Status check_node(const Gpu& g, const RunConfig& c) {
  if (!c.gpus_per_node || !g.nvlink_domain_gpus || *c.gpus_per_node <= *g.nvlink_domain_gpus)
    return {};
  return Status::invalid_input(
      fmt::format("--gpus-per-node {} is more than the {} GPUs that {}'s NVLink domain joins "
                  "(nvlink_domain_gpus); expected an integer from 1 to {}",
                  *c.gpus_per_node, *g.nvlink_domain_gpus, g.id, *g.nvlink_domain_gpus));
}

std::string smaller_node_note(const Gpu& g, const RunConfig& c) {
  if (!c.gpus_per_node || !g.nvlink_domain_gpus || *c.gpus_per_node >= *g.nvlink_domain_gpus ||
      c.gpus <= *c.gpus_per_node)
    return "";
  return fmt::format(
      "nodes of {} GPUs (gpus_per_node), each its own NVLink domain, not {}'s {}: collectives "
      "beyond a node cross the network",
      *c.gpus_per_node, g.id, *g.nvlink_domain_gpus);
}

Result<Network> network_for(const RunConfig& c, const Catalog& catalog, bool named) {
  if (Status s = input::check(input::kGpusPerNic, c.gpus_per_nic); !s.ok()) return s;
  if (c.network_gbps_per_gpu) {
    const double gbps = *c.network_gbps_per_gpu;
    if (!named) return Network{"", gbps};
    return Network{fmt::format("the offer's fabric ({:g} GB/s per GPU)", gbps), gbps};
  }
  const std::string_view wanted = c.fabric.empty() ? pc::kDefaultFabric : c.fabric;
  const auto network_family = [](const Interconnect& ic) {
    const std::string_view family = ic.family;
    return family == "infiniband" || family == "ethernet";
  };
  for (const auto& ic : catalog.interconnects) {
    if (!network_family(ic) || ic.id != wanted) continue;
    const double gbps = ic.bw_per_direction_gbps / c.gpus_per_nic;
    if (!named) return Network{"", gbps};
    const std::string share =
        c.gpus_per_nic == 1 ? "a port per GPU" : fmt::format("a port per {} GPUs", c.gpus_per_nic);
    return Network{fmt::format("{} ({}, {:g} GB/s per GPU)", ic.id, share, gbps), gbps};
  }
  if (!c.fabric.empty()) {
    std::vector<std::string> fabrics;
    for (const auto& ic : catalog.interconnects) {
      if (network_family(ic)) fabrics.push_back(ic.id);
    }
    return Status::invalid_input(fmt::format("--fabric '{}' is not accepted; expected {}{}",
                                             shown(c.fabric), quoted_list(fabrics),
                                             did_you_mean(c.fabric, fabrics)));
  }
  if (!named) return Network{"", pc::kNetworkGbpsPerGpu};
  return Network{fmt::format("the network (assumed: {:g} GB/s per GPU, the catalog has no {})",
                             pc::kNetworkGbpsPerGpu, pc::kDefaultFabric),
                 pc::kNetworkGbpsPerGpu};
}

}  // namespace rigplan
