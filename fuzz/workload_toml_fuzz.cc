// libFuzzer target: one workload file, as --workloads gives it; each workload it defines is then
// sized and timed on a GPU, for training and for inference.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "rigplan/memory.h"
#include "rigplan/perf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rigplan;
  const CatalogFile file{"fuzz.toml", std::string(reinterpret_cast<const char*>(data), size)};
  auto zoo = load_zoo({file});
  if (!zoo) {
    fuzz::check_message(zoo.status().message());
    return 0;
  }
  const Gpu& gpu = **fuzz::catalog().find_gpu("rtx-4090");
  for (const Workload& workload : zoo->workloads) {
    for (const char* mode : {"train", "infer"}) {
      RunConfig run;
      run.mode = mode;
      auto estimate = estimate_memory(workload, gpu, run);
      if (!estimate) fuzz::check_message(estimate.status().message());
      auto prediction = predict(workload, gpu, run, embedded_calibration(), fuzz::catalog());
      if (!prediction) fuzz::check_message(prediction.status().message());
    }
  }
  return 0;
}
