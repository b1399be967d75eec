// Catalog start-up and lookup costs: every command pays the load once, lookups many times.
#include <benchmark/benchmark.h>

#include "catalog/catalog_image.h"
#include "rigplan/catalog.h"
#include "rigplan/catalog_query.h"

namespace {

void BM_LoadEmbeddedCatalog(benchmark::State& state) {
  const auto files = rigplan::embedded_catalog();
  for (auto _ : state) {
    auto catalog = rigplan::load_catalog(files);
    benchmark::DoNotOptimize(catalog);
  }
}
BENCHMARK(BM_LoadEmbeddedCatalog)->Unit(benchmark::kMillisecond);

// What a command without --catalog or an overlay does instead: read the image the build made.
void BM_ReadEmbeddedCatalogImage(benchmark::State& state) {
  for (auto _ : state) {
    auto catalog = rigplan::read_catalog_image(rigplan::embedded_catalog_image());
    benchmark::DoNotOptimize(catalog);
  }
}
BENCHMARK(BM_ReadEmbeddedCatalogImage)->Unit(benchmark::kMillisecond);

void BM_FindGpuByName(benchmark::State& state) {
  const auto catalog = rigplan::load_catalog(rigplan::embedded_catalog());
  for (auto _ : state) {
    auto gpu = catalog->find_gpu("GeForce RTX 4090");
    benchmark::DoNotOptimize(gpu);
  }
}
BENCHMARK(BM_FindGpuByName);

void BM_FindGpuTypo(benchmark::State& state) {
  const auto catalog = rigplan::load_catalog(rigplan::embedded_catalog());
  for (auto _ : state) {
    auto gpu = catalog->find_gpu("rtx 4900");  // unknown: computes suggestions
    benchmark::DoNotOptimize(gpu);
  }
}
BENCHMARK(BM_FindGpuTypo);

// An unknown id of 64 B to 1 MiB: the worst a typo (or a client) can make a lookup cost.
// "Did you mean" is computed only up to 64 bytes, so the cost stays linear in the length.
void BM_FindGpuLongUnknownId(benchmark::State& state) {
  const auto catalog = rigplan::load_catalog(rigplan::embedded_catalog());
  const std::string id(static_cast<size_t>(state.range(0)), 'x');
  for (auto _ : state) {
    auto gpu = catalog->find_gpu(id);
    benchmark::DoNotOptimize(gpu);
  }
}
BENCHMARK(BM_FindGpuLongUnknownId)
    ->Arg(64)
    ->Arg(64 << 10)
    ->Arg(1 << 20)
    ->Unit(benchmark::kMicrosecond);

void BM_QueryGpusSorted(benchmark::State& state) {
  const auto catalog = rigplan::load_catalog(rigplan::embedded_catalog());
  const rigplan::GpuQuery query{.min_memory_gb = 16.0, .sort = "-mem_bandwidth_gbps"};
  for (auto _ : state) {
    auto gpus = rigplan::query_gpus(*catalog, query);
    benchmark::DoNotOptimize(gpus);
  }
}
BENCHMARK(BM_QueryGpusSorted);

}  // namespace
