// The kinds of link that join a GPU to its peers without PCIe: the catalog's gpu_link values
// beside "none", and RunConfig::link's values beside "pcie". The schema, the loader, the perf
// model and the CLI read this one list.
#pragma once

#include <algorithm>
#include <array>
#include <string_view>

namespace rigplan {

// NVLink over a bridge (pairs), the hybrid cube mesh of a DGX-1 board (8 V100 SXM2) and
// NVSwitch (all to all in its domain).
inline constexpr std::array<std::string_view, 3> kNvlinkKinds = {"nvlink-bridge",
                                                                 "nvlink-cube-mesh", "nvswitch"};
// AMD's GPU-to-GPU link (MI-series boards).
inline constexpr std::string_view kInfinityFabric = "infinity-fabric";

constexpr bool is_nvlink_kind(std::string_view kind) {
  return std::find(kNvlinkKinds.begin(), kNvlinkKinds.end(), kind) != kNvlinkKinds.end();
}

constexpr bool is_gpu_to_gpu_kind(std::string_view kind) {
  return is_nvlink_kind(kind) || kind == kInfinityFabric;
}

}  // namespace rigplan
