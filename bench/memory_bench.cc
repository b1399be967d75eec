// `rigplan memory` answers: one estimate (with its largest-batch and fewest-GPU searches).
#include <benchmark/benchmark.h>

#include "rigplan/memory.h"
#include "workload/zoo_image.h"

namespace {

void BM_EstimateMemoryLora7bOn4090(benchmark::State& state) {
  const auto catalog = rigplan::load_catalog(rigplan::embedded_catalog());
  const auto zoo = rigplan::load_zoo(rigplan::embedded_workloads());
  const rigplan::Workload& w = **zoo->find("llama-2-7b");
  const rigplan::Gpu& gpu = *catalog->gpu("rtx-4090");
  rigplan::RunConfig run;
  run.method = "lora";
  run.seq_len = 2048;  // does not fit: also runs the suggestion search
  for (auto _ : state) {
    auto e = rigplan::estimate_memory(w, gpu, run);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_EstimateMemoryLora7bOn4090)->Unit(benchmark::kMicrosecond);

void BM_LoadEmbeddedZoo(benchmark::State& state) {
  const auto files = rigplan::embedded_workloads();
  for (auto _ : state) {
    auto zoo = rigplan::load_zoo(files);
    benchmark::DoNotOptimize(zoo);
  }
}
BENCHMARK(BM_LoadEmbeddedZoo)->Unit(benchmark::kMillisecond);

// What a command without --workloads does instead: read the image the build made.
void BM_ReadEmbeddedZooImage(benchmark::State& state) {
  for (auto _ : state) {
    auto zoo = rigplan::read_zoo_image(rigplan::embedded_zoo_image());
    benchmark::DoNotOptimize(zoo);
  }
}
BENCHMARK(BM_ReadEmbeddedZooImage)->Unit(benchmark::kMillisecond);

}  // namespace
