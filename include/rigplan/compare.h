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
  // One GPU, at the largest batch that fits (the batch asked, with --offload cpu).
  Prediction prediction;
  GpuValue value;
};

struct Comparison {
  std::string workload;
  std::string precision;
  int requested_batch = 0;  // per GPU: --batch, else the workload's default
  const Gpu* reference = nullptr;
  bool offload = false;  // --offload cpu: cards that cannot hold the batch run it offloaded
  std::vector<ComparedGpu> gpus;
  std::vector<std::string> notes;  // e.g. a reference that cannot hold the run, replaced
};

// An unknown GPU is a kNotFound Status with the closest names; no GPU is kInvalidInput.
Result<Comparison> compare_gpus(const Workload& workload, const CompareRequest& request,
                                const Catalog& catalog, const Calibration& calibration);

}  // namespace rigplan
