// What `rigplan serve` spends on one /api/recommend request without its cache: the command line
// built and parsed, the search, the JSON written, with rigplan-serve's allocator (mimalloc) set up
// as it sets it (keep_freed_memory_for_reuse). The HTTP layer is measured by
// scripts/load_test.sh.
#include <benchmark/benchmark.h>

#include <iostream>

#include "cli/cli_context.h"
#include "serve/server.h"

namespace {

const rigplan::serve::Handler& handler(size_t cache_entries) {
  static const auto make = [](size_t entries) {
    rigplan::serve::keep_freed_memory_for_reuse();
    rigplan::cli::CliContext ctx{.out = &std::cout, .err = &std::cerr};
    return rigplan::serve::Handler(*ctx.load(), *ctx.load_zoo(),
                                   rigplan::serve::CacheLimits{.entries = entries});
  };
  static const rigplan::serve::Handler uncached = make(0), cached = make(16);
  return cache_entries ? cached : uncached;
}

void BM_ServeRecommend(benchmark::State& state) {
  const rigplan::serve::Handler& h = handler(static_cast<size_t>(state.range(0)));
  const rigplan::serve::Params params = {
      {"budget", "3000"}, {"hours-per-month", "100"}, {"region", "de"}, {"workload", "resnet50"}};
  for (auto _ : state) {
    auto response = h.get("/api/recommend", params);
    if (response.status != 200) state.SkipWithError(response.body.c_str());
    benchmark::DoNotOptimize(response);
  }
  state.SetLabel(state.range(0) ? "cached" : "uncached");
}
BENCHMARK(BM_ServeRecommend)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace
