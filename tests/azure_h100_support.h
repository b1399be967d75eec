// Renting Azure's ND H100 v5 (8 H100 SXM over NVLink per instance, ib-ndr between instances), for
// the tests of recommend's jobs larger than a machine.
#pragma once

#include "rigplan/recommend.h"

namespace rigplan::testing {

// Rented H100 SXM only, at most `max_gpus` of them, on the catalog's prices whatever their age.
inline Constraints azure_h100(int max_gpus) {
  Constraints k;
  k.acquire = "rent";
  k.gpus_allowed = {"h100-sxm5-80gb"};
  k.max_gpus = max_gpus;
  k.allow_stale_prices = true;
  return k;
}

// The on-demand option of `instances` ND H100 v5 instances, ranked or rejected; none if absent.
inline const Option* azure(const Recommendation& rec, int instances) {
  for (const auto* list : {&rec.options, &rec.rejected}) {
    for (const Option& o : *list) {
      if (o.offer == "azure-standard-nd96isr-h100-v5" && o.instances == instances &&
          o.pricing == "on-demand")
        return &o;
    }
  }
  return nullptr;
}

}  // namespace rigplan::testing
