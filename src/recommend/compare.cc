// compare_gpus(): one prediction and one value per GPU, relative to the reference's throughput.
#include "rigplan/compare.h"

#include <fmt/format.h>

#include <algorithm>

#include "rigplan/input.h"

namespace rigplan {
namespace {

Result<std::vector<const Gpu*>> resolve_gpus(const CompareRequest& r, const Catalog& catalog,
                                             const Gpu** reference) {
  if (Status s = input::check_list("gpus", r.gpus.size()); !s.ok()) return s;
  std::vector<const Gpu*> gpus;
  for (const auto& name : r.gpus) {
    auto g = catalog.find_gpu(name);
    if (!g) return g.status();
    gpus.push_back(*g);
  }
  *reference = gpus.empty() ? nullptr : gpus.front();
  if (!r.reference.empty()) {
    auto g = catalog.find_gpu(r.reference);
    if (!g) return g.status();
    *reference = *g;
    if (std::find(gpus.begin(), gpus.end(), *g) == gpus.end()) gpus.insert(gpus.begin(), *g);
  }
  if (!*reference) return Status::invalid_input("--gpus names no GPU");
  return gpus;
}

// The reference's throughput. A reference that cannot hold even one sample gives its place to the
// first compared GPU that can, and the comparison says so; 0 when none can.
double reference_throughput(Comparison& c) {
  auto has_speed = [](const ComparedGpu& g) { return g.prediction.throughput > 0; };
  auto ref = std::find_if(c.gpus.begin(), c.gpus.end(),
                          [&](const ComparedGpu& g) { return g.gpu == c.reference; });
  if (has_speed(*ref)) return ref->prediction.throughput;
  auto other = std::find_if(c.gpus.begin(), c.gpus.end(), has_speed);
  if (other == c.gpus.end()) {
    c.notes.push_back(
        fmt::format("No compared GPU holds {} at batch 1: {}", c.workload, ref->prediction.note));
    return 0;
  }
  c.notes.push_back(
      fmt::format("{} cannot hold {} at batch 1 ({:.1f} GB of {:.1f} GB); relative "
                  "to {}, the first GPU that can",
                  c.reference->id, c.workload, ref->prediction.memory_gb,
                  ref->prediction.capacity_gb, other->gpu->id));
  c.reference = other->gpu;
  return other->prediction.throughput;
}

}  // namespace

Result<Comparison> compare_gpus(const Workload& workload, const CompareRequest& r,
                                const Catalog& catalog, const Calibration& calibration) {
  Comparison out;
  auto gpus = resolve_gpus(r, catalog, &out.reference);
  if (!gpus) return gpus.status();
  out.workload = workload.id;
  out.requested_batch = r.run.batch.value_or(workload.default_batch);
  // A card that cannot hold the batch runs the largest batch it can hold, as its owner would (and
  // as Lambda's benchmarks do); only --offload cpu runs it offloaded at the batch asked.
  out.offload = r.run.offload == "cpu";
  const bool shrink_batch = !out.offload;
  for (const Gpu* g : *gpus) {
    auto p = predict_largest_fitting(workload, *g, r.run, calibration, catalog, shrink_batch);
    if (!p) return p.status();
    out.gpus.push_back({g, std::move(p).value(), {}});
  }
  const double ref_throughput = reference_throughput(out);
  out.precision = out.gpus.front().prediction.config.precision;
  for (ComparedGpu& c : out.gpus) {
    auto v = gpu_value(workload, *c.gpu, c.prediction.config, c.prediction.throughput,
                       ref_throughput, catalog, calibration, shrink_batch);
    if (!v) return v.status();
    c.value = std::move(v).value();
  }
  return out;
}

}  // namespace rigplan
