// GPU-to-GPU links as the performance models see them: the bandwidth a collective achieves over
// the link a run uses (docs/performance.md, "Communication").
#pragma once

#include <string>
#include <string_view>

#include "rigplan/catalog.h"
#include "rigplan/memory.h"

namespace rigplan {

// A GPU's PCIe bandwidth per direction, GB/s: the catalog's interconnect row for its generation
// and width, else the per-lane rate.
double pcie_gbps(const Gpu& g, const Catalog& catalog);

// Bandwidth per direction that a collective achieves over the run's link, GB/s. The names view
// the run's --link or the GPU's gpu_link, or constants.
struct Link {
  // As reported: nvswitch, nvlink-bridge, nvlink-cube-mesh, pcie, "pcie (host-staged, no P2P)".
  std::string_view name;
  // nvswitch, nvlink-bridge, nvlink-cube-mesh, infinity-fabric, pcie, pcie-host
  std::string_view kind;
  double busbw_gbps = 0;
};

// The kind of link link_for takes for a run's --link (`link`; "": the GPU's own): nvswitch,
// nvlink-bridge, nvlink-cube-mesh or infinity-fabric, else pcie. Runs whose links have one kind run
// alike.
std::string_view link_kind(const Gpu& g, std::string_view link);

// The link among `gpus_in_node` GPUs of a kind: the run's --link, else the GPU's own.
Link link_for(const Gpu& g, const RunConfig& c, int gpus_in_node, const Catalog& catalog);
// The same with the GPU's PCIe bandwidth per direction given (pcie_gbps), for callers that look
// it up once per GPU.
Link link_for(const Gpu& g, const RunConfig& c, int gpus_in_node, double lane_gbps);

// The GPUs one NVLink/NVSwitch domain of the run joins, beyond which its collectives cross the
// network: the run's gpus_per_node (an instance, a machine), else the GPU's nvlink_domain_gpus
// (a GB200 NVL72 rack: 72), else an HGX node's 8 (kGpusPerNode).
int node_gpus(const Gpu& g, const RunConfig& c);

// kInvalidInput when the run's gpus_per_node is more than the GPU's NVLink domain
// (nvlink_domain_gpus): "--gpus-per-node 144 is more than the 72 GPUs that gb200-nvl72's NVLink
// domain joins ...". A smaller one is accepted: nodes that small are NVLink domains of their own
// (smaller_node_note). Without a catalog domain any node size is taken as asked: its GPUs joined
// by the run's link (docs/scaleout.md, "Topology").
Status check_node(const Gpu& g, const RunConfig& c);

// What a prediction says of a run whose gpus_per_node splits the GPU's NVLink domain into
// smaller nodes, when the run spans more than one: "nodes of 4 GPUs (gpus_per_node), each its own
// NVLink domain, not gb200-nvl72's 72: ..."; else "".
std::string smaller_node_note(const Gpu& g, const RunConfig& c);

// The GPUs of one host machine, whose CPUs feed them: the run's gpus_per_node, else an HGX
// node's 8. An NVLink domain larger than a machine (a rack) is not one host.
int machine_gpus(const RunConfig& c);

// The network between a run's machines: its name as reported and its bandwidth per GPU and
// direction, GB/s. An offer's network_gbps_per_gpu, else the run's --fabric (a catalog
// interconnect of the infiniband or ethernet family) shared by --gpus-per-nic GPUs, else one
// kDefaultFabric port per GPU. kInvalidInput for a fabric the catalog does not have. Without
// `named`, the name is left empty.
struct Network {
  std::string name;
  double gbps_per_gpu = 0;
};
Result<Network> network_for(const RunConfig& c, const Catalog& catalog, bool named = true);

}  // namespace rigplan
