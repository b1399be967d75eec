// The candidates of recommend(): every owned GPU x count x condition in a base system, and
// every offer at each size and pricing.
#include <fmt/format.h>

#include <algorithm>
#include <span>

#include "recommend/steps.h"

namespace rigplan::recommend_steps {
std::vector<Candidate> owned_candidates(const Request& r, int* unpriced) {
  const Constraints& k = *r.constraints;
  std::vector<Candidate> out;
  for (const Gpu& gpu : r.catalog->gpus) {
    if (k.machine && !k.machine_gpu.empty() && gpu.id != k.machine_gpu) continue;
    if (!r.allowed(gpu)) continue;
    // The machine of `machine_gpus` GPUs, found once for its counts and conditions; none when
    // no base system holds them.
    std::optional<OwnedSystem> machine;
    int machine_gpus = 0;
    for (int count : kCounts) {
      if (count > kGpusPerMachine && count > k.max_gpus) break;
      if (const int in_machine = std::min(count, kGpusPerMachine); in_machine != machine_gpus) {
        machine.reset();
        if (const BaseSystem* system =
                base_system_for(*r.catalog, gpu, in_machine, nullptr, r.only_system))
          machine = machine_in(*r.catalog, gpu, in_machine, *system);
        machine_gpus = in_machine;
      }
      for (std::string_view condition : {"new", "used"}) {
        if (!machine) {
          ++*unpriced;
          continue;
        }
        auto sys = own_system(*machine, condition);
        if (!sys) {
          ++*unpriced;
          continue;
        }
        Candidate& c = out.emplace_back();
        c.kind = "own";
        c.gpu = &gpu;
        c.count = count;
        c.condition = condition;
        c.owned = std::move(sys).value();
        c.machines = std::max(1.0, static_cast<double>(count) / kGpusPerMachine);
      }
    }
  }
  return out;
}

std::vector<Candidate> rented_candidates(const Request& r, int* unclustered) {
  const Constraints& k = *r.constraints;
  std::vector<Candidate> out;
  out.reserve(2 * r.catalog->offers.size());  // most offers: one size, one or two pricings
  for (const Offer& offer : r.catalog->offers) {
    const Gpu* gpu = r.catalog->offer_gpu(offer);
    if (!r.allowed(*gpu)) continue;
    const std::string_view pricings[] = {offer.billing == "serverless" ? "serverless" : "on-demand",
                                         "spot"};
    const size_t priced = offer.spot_price_per_hour_usd ? 2 : 1;
    const int most_gpus = std::max(k.max_gpus, offer.gpu_count);
    const Topology topology{offer_link_kind(offer, *r.catalog), offer.gpu_count,
                            offer.fabric.empty() ? 0.0 : offer.fabric_gbps_per_gpu()};
    for (int instances = 1; instances * offer.gpu_count <= most_gpus; instances *= 2) {
      if (instances > 1 && offer.fabric.empty() && !r.demand->serving) {
        *unclustered += static_cast<int>(priced);
        continue;
      }
      for (const std::string_view pricing : std::span(pricings, priced)) {
        Candidate& c = out.emplace_back();
        c.kind = "rent";
        c.gpu = gpu;
        c.count = instances * offer.gpu_count;
        c.offer = &offer;
        c.instances = instances;
        c.pricing = pricing;
        c.topology = topology;
      }
    }
  }
  return out;
}

}  // namespace rigplan::recommend_steps
