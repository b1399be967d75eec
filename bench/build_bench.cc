// `rigplan build check` and `build propose`: one check, and a whole search for 4 GPUs.
#include <benchmark/benchmark.h>

#include "rigplan/build.h"

namespace {

const rigplan::Catalog& catalog() {
  static const auto loaded = rigplan::load_catalog(rigplan::embedded_catalog());
  return *loaded;
}

void BM_BuildProposeFourRtx4090(benchmark::State& state) {
  rigplan::ProposeRequest req;
  req.gpu = catalog().gpu("rtx-4090");
  req.gpu_count = 4;
  req.circuit = catalog().find_circuit("eu-16a").value();
  for (auto _ : state) benchmark::DoNotOptimize(rigplan::propose_build(req, catalog()));
}
BENCHMARK(BM_BuildProposeFourRtx4090)->Unit(benchmark::kMillisecond);

void BM_BuildCheck(benchmark::State& state) {
  rigplan::ProposeRequest req;
  req.gpu = catalog().gpu("rtx-a6000");
  req.gpu_count = 4;
  req.circuit = catalog().find_circuit("us-20a").value();
  const auto proposal = rigplan::propose_build(req, catalog());
  for (auto _ : state) benchmark::DoNotOptimize(rigplan::check_build(proposal->build));
}
BENCHMARK(BM_BuildCheck)->Unit(benchmark::kMicrosecond);

}  // namespace
