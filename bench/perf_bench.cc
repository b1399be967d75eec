// `rigplan predict` must answer in well under 10 ms: one prediction, catalog already loaded.
#include <benchmark/benchmark.h>

#include "rigplan/perf.h"
#include "rigplan/train_plan.h"

namespace {

void BM_PredictLlama7bOn8H100(benchmark::State& state) {
  const auto catalog = rigplan::load_catalog(rigplan::embedded_catalog());
  const auto zoo = rigplan::load_zoo(rigplan::embedded_workloads());
  const auto calibration = rigplan::embedded_calibration();
  rigplan::RunConfig run;
  run.gpus = 8;
  run.zero = 3;
  run.seq_len = 4096;
  for (auto _ : state) {
    auto p = rigplan::predict(**zoo->find("llama-2-7b"), *catalog->gpu("h100-sxm5-80gb"), run,
                              calibration, *catalog);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_PredictLlama7bOn8H100)->Unit(benchmark::kMicrosecond);

void BM_PredictResnet50(benchmark::State& state) {
  const auto catalog = rigplan::load_catalog(rigplan::embedded_catalog());
  const auto zoo = rigplan::load_zoo(rigplan::embedded_workloads());
  const auto calibration = rigplan::embedded_calibration();
  rigplan::RunConfig run;
  run.precision = "fp16";
  for (auto _ : state) {
    auto p = rigplan::predict(**zoo->find("resnet50"), *catalog->gpu("rtx-4090"), run, calibration,
                              *catalog);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_PredictResnet50)->Unit(benchmark::kMicrosecond);

// One Megatron layout of GPT-3 175B on 1,024 A100 (TP 8, PP 16, DP 8, micro-batch 1): the unit
// a layout search would evaluate (issue goal: 5 µs a layout).
void BM_PredictGpt3LayoutOn1024A100(benchmark::State& state) {
  const auto catalog = rigplan::load_catalog(rigplan::embedded_catalog());
  const auto zoo = rigplan::load_zoo(rigplan::embedded_workloads());
  const auto calibration = rigplan::embedded_calibration();
  rigplan::RunConfig run;
  run.gpus = 1024;
  run.tensor_parallel = 8;
  run.pipeline_parallel = 16;
  run.global_batch = 1536;
  run.micro_batch = 1;
  run.recompute = "full";
  for (auto _ : state) {
    auto p = rigplan::predict(**zoo->find("gpt3-175b"), *catalog->gpu("a100-sxm4-80gb"), run,
                              calibration, *catalog);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_PredictGpt3LayoutOn1024A100)->Unit(benchmark::kMicrosecond);

// The layout search of GPT-3 175B on `gpus` GPUs of a kind, at Megatron-LM's global batch of 1,536.
void train_plan_gpt3(benchmark::State& state, int gpus, const char* gpu_id) {
  const auto catalog = rigplan::load_catalog(rigplan::embedded_catalog());
  const auto zoo = rigplan::load_zoo(rigplan::embedded_workloads());
  const auto calibration = rigplan::embedded_calibration();
  rigplan::TrainPlanRequest request;
  request.run.gpus = gpus;
  request.run.global_batch = 1536;
  for (auto _ : state) {
    auto plan = rigplan::plan_training(**zoo->find("gpt3-175b"), *catalog->gpu(gpu_id), request,
                                       calibration, *catalog);
    benchmark::DoNotOptimize(plan);
  }
}

// On 512 A100 (issue goal: under 30 s on two cores; Calculon's space of about 13 million
// layouts takes hours).
void BM_TrainPlanGpt3On512A100(benchmark::State& state) {
  train_plan_gpt3(state, 512, "a100-sxm4-80gb");
}
BENCHMARK(BM_TrainPlanGpt3On512A100)->Unit(benchmark::kMillisecond);

// On 576 GB200, 8 NVL72 racks: tensor parallelism may span a rack's 72 GPUs (the divisors of 96
// heads up to 72 rather than 8), so more splits are tried.
void BM_TrainPlanGpt3On576Gb200(benchmark::State& state) {
  train_plan_gpt3(state, 576, "gb200-nvl72");
}
BENCHMARK(BM_TrainPlanGpt3On576Gb200)->Unit(benchmark::kMillisecond);

}  // namespace
