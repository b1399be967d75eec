// compare_gpus(): one prediction and one value per GPU, relative to the reference's throughput.
#include "rigplan/compare.h"

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

}  // namespace

Result<Comparison> compare_gpus(const Workload& workload, const CompareRequest& r,
                                const Catalog& catalog, const Calibration& calibration) {
  Comparison out;
  auto gpus = resolve_gpus(r, catalog, &out.reference);
  if (!gpus) return gpus.status();
  out.workload = workload.id;
  out.requested_batch = r.run.batch.value_or(workload.default_batch);
  // Without an explicit --batch, a card that cannot hold the workload's default batch runs the
  // largest batch it can hold, as its owner would (and as Lambda's benchmarks do), rather than
  // offloaded at a batch nobody would pick.
  const bool shrink_batch = !r.run.batch;
  double ref_throughput = 0;
  for (const Gpu* g : *gpus) {
    auto p = predict_largest_fitting(workload, *g, r.run, calibration, catalog, shrink_batch);
    if (!p) return p.status();
    if (g == out.reference) ref_throughput = p->throughput;
    out.gpus.push_back({g, std::move(p).value(), {}});
  }
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
