// The host of rented GPUs, which rent_inputs (rigplan/cost.h) costs with them: found once by a
// caller that costs many options on the same GPUs (recommend). Defined in cost.cc.
#pragma once

#include "rigplan/cost.h"

namespace rigplan {

// The host of rent_inputs for `in_machine` GPUs of a kind (at most kGpusPerMachine): the base
// system that holds them (base_system_for), else a share of the smallest one that holds more;
// `system` is nullptr when none does (the host then draws nothing, on the best PSUs).
struct RentHost {
  const BaseSystem* system = nullptr;
  bool shared = false;  // a share of a larger system
};
RentHost rent_host(const Catalog& catalog, const Gpu& gpu, int in_machine);

// rent_inputs at the datacentre `dc` on the rent_host of min(count, kGpusPerMachine) GPUs.
RentInputs rent_inputs(const Catalog& catalog, const Gpu& gpu, int count, double usd_per_hour,
                       double gpu_load, const Offer* offer, const SiteEnergy& dc,
                       const RentHost& host_system);

}  // namespace rigplan
