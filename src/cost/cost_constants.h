// Named constants of the cost, energy and carbon models, each with its source. docs/cost.md
// explains how they are used.
#pragma once

#include <string_view>

#include "model/perf_constants.h"
#include "rig/build_constants.h"

namespace rigplan::cost_constants {

// Average GPU power as a share of board power while running a workload (models.md section 2.9):
// an 8 x H100 HGX node drew 8.4 kW of its 10.2 kW rating (82%) while training (Latif et al.,
// IEEE Access 2025) and compute-heavy training draws about 76% of node TDP (Newkirk et al.,
// arXiv 2506.14551). LLM training 0.85; CNN training 0.75 (recurrent and recommender training,
// also dominated by memory-bound kernels, take the CNN value); prefill 0.8; decode, bound by
// memory bandwidth, 0.6.
inline constexpr double kPowerUtilisationTransformerTrain = 0.85;
inline constexpr double kPowerUtilisationOtherTrain = 0.75;
inline constexpr double kPowerUtilisationPrefill = 0.8;
inline constexpr double kPowerUtilisationDecode = 0.6;

// Speed kept under a power cap: speed ~ (cap / board power)^0.33, from Dettmers' measurement
// that capping an RTX 2080 Ti 20% below its 250 W cost about 7% of its speed (0.8^0.33 = 0.929).
inline constexpr double kPowerLimitSpeedExponent = 0.33;

// A PSU should carry its sustained load at no more than 80% of its rating: the build rules' ATX
// 3.x headroom, a rating of 1.25 x the sustained draw (models.md 2.9).
inline constexpr double kPsuSustainedFraction = 1 / build_constants::kAtx3Headroom;

// Cards wider than a base system's slots take risers or water blocks, priced as the catalog's
// water block per GPU (data/catalog/parts.toml: Dettmers' hardware guide, about 100 USD).
inline constexpr std::string_view kWideCardCoolingPart = "gpu-water-block";

// PUE when the site has none of its own: 1.0 for an office or home (no cooling plant), 1.58 for
// an average datacentre (Uptime Institute global survey 2023), 1.1 for hyperscale clouds
// (Google and Microsoft report 1.1-1.2 fleet averages; recall).
inline constexpr double kOfficePue = 1.0;
inline constexpr double kDatacenterPue = 1.58;
inline constexpr double kHyperscalePue = 1.1;

// Service life over which embodied carbon is spread, and the datacentre utilisation at which
// a rented hour carries its share: Luccioni et al. 2022 assume a 6-year replacement cycle and
// 85% average use of the Jean Zay cluster (recall).
inline constexpr double kServiceLifeYears = 6;
inline constexpr double kCloudUtilisation = 0.85;

// Resale value kept per year: the geometric mean of (used price / launch price)^(1 / years since
// launch) over the GPUs of data/catalog that carry both prices (a test recomputes them):
// consumer 16 cards 0.858, workstation 6 cards 0.836, datacenter 7 cards 0.723.
inline constexpr double kValueRetentionConsumer = 0.858;
inline constexpr double kValueRetentionWorkstation = 0.836;
inline constexpr double kValueRetentionDatacenter = 0.723;

// When the user prices the whole machine (--price), the share of it that is GPUs and resells:
// a desktop with one RTX 4090 is about 1,600 of 3,100 USD (data/catalog); an assumption.
inline constexpr double kPriceOverrideGpuShare = 0.5;

// The most GPUs in one owned machine: a node of the performance model (an 8-GPU server,
// data/catalog/systems.toml); more are whole machines of that many.
inline constexpr int kGpusPerMachine = perf_constants::kGpusPerNode;

inline constexpr double kHoursPerYear = 8760;
inline constexpr double kHoursPerMonth = kHoursPerYear / 12;

}  // namespace rigplan::cost_constants
