// Every `rigplan recommend --preset` must answer in under 100 ms: the whole search over owned
// GPU x count options and cloud offers for the preset's workload mix, catalog already loaded.
#include <benchmark/benchmark.h>

#include "rigplan/recommend.h"

namespace {

void BM_RecommendPreset(benchmark::State& state) {
  static const auto catalog = rigplan::load_catalog(rigplan::embedded_catalog());
  static const auto zoo = rigplan::load_zoo(rigplan::embedded_workloads());
  static const auto calibration = rigplan::embedded_calibration();
  static const auto presets = rigplan::embedded_presets();
  const rigplan::Preset& preset = presets[static_cast<size_t>(state.range(0))];
  state.SetLabel(preset.id);
  const auto demand = rigplan::preset_demand(preset, *zoo);
  for (auto _ : state) {
    auto rec = rigplan::recommend(*demand, preset.constraints, *catalog, calibration);
    benchmark::DoNotOptimize(rec);
  }
}
BENCHMARK(BM_RecommendPreset)->DenseRange(0, 9)->Unit(benchmark::kMillisecond);

void BM_CostBreakEven(benchmark::State& state) {
  rigplan::OwnInputs desktop;
  desktop.capex_usd = 3100;
  desktop.gpu_value_usd = 1600;
  desktop.retention_per_year = 0.858;
  desktop.wall_w = 590;
  desktop.usd_per_kwh = 0.15;
  for (auto _ : state) benchmark::DoNotOptimize(rigplan::break_even(desktop, 0.69, 0.3, 3));
}
BENCHMARK(BM_CostBreakEven)->Unit(benchmark::kMicrosecond);

}  // namespace
