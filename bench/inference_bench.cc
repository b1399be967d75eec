// Inference answers must take well under 1 ms in process: a decode prediction, an inference
// memory estimate with its searches, a serving answer at a request rate (its bisection), and a
// finite run of 500 requests (its simulation, model/finite_run.h).
#include <benchmark/benchmark.h>

#include "rigplan/memory.h"
#include "rigplan/perf.h"

namespace {

struct Inputs {
  rigplan::Catalog catalog = rigplan::load_catalog(rigplan::embedded_catalog()).value();
  rigplan::Zoo zoo = rigplan::load_zoo(rigplan::embedded_workloads()).value();
  const rigplan::Workload& w70b = **zoo.find("llama-3-70b");
  const rigplan::Workload& w8b = **zoo.find("llama-3.1-8b");
  const rigplan::Gpu& h100 = *catalog.gpu("h100-sxm5-80gb");
};

const Inputs& inputs() {
  static const Inputs kInputs;
  return kInputs;
}

rigplan::RunConfig llama70b_tp4_decode() {
  rigplan::RunConfig run;
  run.mode = "decode";
  run.gpus = 4;
  run.tensor_parallel = 4;
  run.batch = 16;
  run.seq_len = 8192;
  return run;
}

void BM_PredictDecode70bOn4H100(benchmark::State& state) {
  const Inputs& in = inputs();
  const rigplan::RunConfig run = llama70b_tp4_decode();
  for (auto _ : state) {
    auto p = rigplan::predict(in.w70b, in.h100, run, rigplan::embedded_calibration(), in.catalog);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_PredictDecode70bOn4H100)->Unit(benchmark::kMicrosecond);

void BM_MemoryInfer70bOn4H100(benchmark::State& state) {
  const Inputs& in = inputs();
  rigplan::RunConfig run = llama70b_tp4_decode();
  run.mode = "infer";
  for (auto _ : state) {
    auto e = rigplan::estimate_memory(in.w70b, in.h100, run);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_MemoryInfer70bOn4H100)->Unit(benchmark::kMicrosecond);

void BM_ServeAtARequestRate8bOnH100(benchmark::State& state) {
  const Inputs& in = inputs();
  rigplan::RunConfig run;
  run.mode = "serve";
  run.seq_len = 1024;
  run.gen_tokens = 256;
  run.request_rate = 10;
  for (auto _ : state) {
    auto p = rigplan::predict(in.w8b, in.h100, run, rigplan::embedded_calibration(), in.catalog);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_ServeAtARequestRate8bOnH100)->Unit(benchmark::kMicrosecond);

// TensorRT-LLM's online table: 500 requests of Llama 3 70B on 4 H100s at 202 + 214 tokens, sent
// at 16 requests/s (a run near saturation, hundreds of in-flight counts asked for).
void BM_ServeAFiniteRunOf500Requests70bOn4H100(benchmark::State& state) {
  const Inputs& in = inputs();
  rigplan::RunConfig run;
  run.mode = "serve";
  run.engine = "tensorrt-llm";
  run.gpus = 4;
  run.tensor_parallel = 4;
  run.seq_len = 202;
  run.gen_tokens = 214;
  run.request_rate = 16;
  run.requests = 500;
  for (auto _ : state) {
    auto p = rigplan::predict(in.w70b, in.h100, run, rigplan::embedded_calibration(), in.catalog);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_ServeAFiniteRunOf500Requests70bOn4H100)->Unit(benchmark::kMicrosecond);

}  // namespace
