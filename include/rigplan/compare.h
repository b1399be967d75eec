// `rigplan compare`: GPUs side by side for a workload, each relative to a reference GPU, with
// Dettmers' performance per dollar (card alone and whole systems) and per watt.
#pragma once

#include <string>
#include <vector>

#include "rigplan/catalog.h"
#include "rigplan/cost.h"
#include "rigplan/perf.h"
#include "rigplan/status.h"
#include "rigplan/workload.h"

namespace rigplan {

struct CompareRequest {
  std::vector<std::string> gpus;  // GPU ids or names, in the order shown
  std::string reference;          // "": the first; else added first when not among `gpus`
  RunConfig run;
};

struct ComparedGpu {
  const Gpu* gpu = nullptr;
  Prediction prediction;  // one GPU, at the largest batch that fits when no --batch was given
  GpuValue value;
};

struct Comparison {
  std::string workload;
  std::string precision;
  int requested_batch = 0;  // per GPU: --batch, else the workload's default
  const Gpu* reference = nullptr;
  std::vector<ComparedGpu> gpus;
};

// An unknown GPU is a kNotFound Status with the closest names; no GPU is kInvalidInput.
Result<Comparison> compare_gpus(const Workload& workload, const CompareRequest& request,
                                const Catalog& catalog, const Calibration& calibration);

}  // namespace rigplan
