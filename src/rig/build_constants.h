// Named constants of the build checks, each with its source (docs/builds.md).
#pragma once

#include <string_view>

namespace rigplan::build_constants {

// PSU sizing (rigplan shared/reference/models.md section 2.9, Intel's ATX 3.0 example): the
// sustained load S = GPUs + CPUs + ~150 W for board, RAM, drives and fans; an ATX 3.x unit (which
// must ride out 200% excursions for 100 us) should be rated >= 1.25 S, an ATX 2.x unit >= 1.5 S.
inline constexpr double kOtherPartsW = 150;
inline constexpr double kAtx3Headroom = 1.25;
inline constexpr double kAtx2Headroom = 1.5;
// Server PSUs derate at 100-127 V; below this the low-line rating applies
// (docs/reference/hardware.md section 3: the tinybox notes' 2000 W unit gives 1000 W on US power;
// 200-240 V is high line).
inline constexpr double kLowLineVolts = 200;

// An adapter from 8-pin PCIe cables to a 12VHPWR card takes 3 cables up to 450 W, 4 above
// (NVIDIA's adapters for the RTX 4090 and 5090).
inline constexpr double kAdapterThreeCableW = 450;
inline constexpr int kAdapterCablesUpTo450W = 3;
inline constexpr int kAdapterCablesAbove450W = 4;

// An open frame has no PSU bays: a proposal tries up to 4 units on it, an assumption of rigplan
// (multi-PSU mining frames carry 2-4; recall).
inline constexpr int kOpenFramePsus = 4;

// Without a named circuit, draws above what the catalog's US 15 A outlet carries continuously
// (data/catalog/circuits.toml: 120 V x 15 A x 0.8 = 1,440 W) are flagged.
inline constexpr std::string_view kSmallestCommonCircuit = "us-15a";

// CPU: the cores a build needs are what PyTorch's data loader needs to feed its GPUs on the
// reference image workload (rules_host.cc cpu_cores, from data/pipeline/loaders.toml), where
// Dettmers' hardware guide asks 1-2 cores per GPU and d2l 4 for one GPU. d2l prefers fewer fast
// cores (6 at 4 GHz over 8 at 3.5 GHz) for Python data loading.
inline constexpr double kGoodBoostGhz = 4.0;
inline constexpr double kSlowBoostGhz = 3.5;

// A 1.5 kW workstation is about a small space heater, 1 W = 3.412 BTU/h (hardware.md section 3.4);
// d2l calls 4-GPU machines loud and hot.
inline constexpr double kOfficeHeatW = 1500;
inline constexpr double kBtuPerWattHour = 3.412;

// Network: d2l asks >= 50 Gbit/s InfiniBand to train across machines and 10 GbE for an 8-GPU
// server.
inline constexpr double kMultiNodeGbit = 50;
inline constexpr double kServerLanGbit = 10;

// Average draw of the CPUs while feeding GPUs, as a share of TDP, plus board, RAM, drives and
// fans: the same basis as data/catalog/systems.toml's base_power_w (models.md section 2.9).
inline constexpr double kCpuLoadShare = 0.6;
inline constexpr double kBoardRamDrivesW = 100;

// The catalog parts (data/catalog/parts.toml) that price a build's RAM (per GB), NVMe and hard
// disks (per TB), and its GPUs' water blocks or risers (each). A part the catalog lacks counts 0.
inline constexpr std::string_view kRamPart = "ram-ddr5";
inline constexpr std::string_view kNvmePart = "nvme-pcie4";
inline constexpr std::string_view kHddPart = "hdd-7200rpm";
inline constexpr std::string_view kWaterBlockPart = "gpu-water-block";
inline constexpr std::string_view kRiserPart = "pcie-riser";

}  // namespace rigplan::build_constants
