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
  // GPU ids or names, in the order shown; "2x rtx-3090" is a whole system of two (data parallel,
  // or as the run's --tp/--pp split it, as predict --gpus 2 runs it).
  std::vector<std::string> gpus;
  std::string reference;  // "": the first; else added first when not among `gpus`
  RunConfig run;
};

struct ComparedGpu {
  const Gpu* gpu = nullptr;
  int count = 1;  // GPUs in the compared system
  // One GPU, at the largest batch that fits (the batch asked, with --offload cpu).
  Prediction prediction;
  GpuValue value;
};

struct Comparison {
  std::string workload;
  std::string precision;
  int requested_batch = 0;   // per GPU: --batch, else the workload's default
  bool batch_given = false;  // --batch (--concurrency when serving) was given
  const Gpu* reference = nullptr;
  int reference_count = 1;  // GPUs in the reference system
  bool offload = false;     // --offload cpu: cards that cannot hold the batch run it offloaded
  // Some entry gave a count ("2x ID"): each row is a whole system of its count, its value that
  // of the system (cost.h system_value), relative to the reference system.
  bool systems = false;
  std::vector<ComparedGpu> gpus;
  std::vector<std::string> notes;  // e.g. a reference that cannot hold the run, replaced
};

// An unknown GPU is a kNotFound Status with the closest names; no GPU, or a count that is not a
// whole number within input::kGpus ("0x", "-1x", "2147483648x"), is kInvalidInput.
Result<Comparison> compare_gpus(const Workload& workload, const CompareRequest& request,
                                const Catalog& catalog, const Calibration& calibration);

}  // namespace rigplan
