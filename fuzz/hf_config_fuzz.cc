// libFuzzer target: a Hugging Face config.json, imported and then sized on a GPU.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "rigplan/memory.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rigplan;
  const std::string json(reinterpret_cast<const char*>(data), size);
  auto workload = import_hf_config("fuzz/config.json", json);
  if (!workload) {
    fuzz::check_message(workload.status().message());
    return 0;
  }
  const Gpu& gpu = **fuzz::catalog().find_gpu("rtx-4090");
  for (const char* mode : {"train", "infer"}) {
    RunConfig run;
    run.mode = mode;
    auto estimate = estimate_memory(*workload, gpu, run);
    if (!estimate) fuzz::check_message(estimate.status().message());
  }
  return 0;
}
