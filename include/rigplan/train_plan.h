// The layout search (docs/scaleout.md, "Layout search"): every Megatron-style layout of a model
// on N GPUs of a kind (tensor × pipeline × context × data parallel, virtual stages,
// micro-batch, recompute, ZeRO), those that fit, and the fastest of them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rigplan/catalog.h"
#include "rigplan/memory.h"
#include "rigplan/perf.h"
#include "rigplan/status.h"
#include "rigplan/workload.h"

namespace rigplan {

struct TrainPlanRequest {
  // The run: gpus, precision, seq_len, global_batch (default: kDefaultBatchTokens / seq),
  // fabric, gpus_per_nic. Its layout fields are what the search sets.
  RunConfig run;
  std::optional<double> tokens;  // to train: each layout's days for them
  int top = 5;                   // layouts returned, the fastest first
};

struct LayoutOption {
  RunConfig run;         // the layout, resolved
  double memory_gb = 0;  // per GPU, the first pipeline stage's
  Prediction prediction;
  std::optional<double> days;  // to train the request's tokens
  double gpu_hours = 0;        // per 1e9 tokens: what a price per GPU-hour turns into cost
  std::string why_slower;      // against the fastest: the step time it adds and where
};

struct TrainPlan {
  int global_batch = 0;               // sequences per optimizer step, as searched
  std::vector<LayoutOption> layouts;  // the fastest first, at most `top`
  long evaluated = 0;                 // layouts that split the model and the batch whole
  long fitting = 0;                   // of those, the ones that fit in the GPU's memory
  double least_memory_gb = 0;         // the smallest footprint per GPU seen (when none fits)
};

// The layouts plan_training tries for `base` (a transformer's training run with its gpus,
// seq_len and global_batch set) on GPUs of `gpu` (whose NVLink domain bounds tensor parallelism
// when base.gpus_per_node is not set), in its order: every split of the model, the GPUs and the
// global batch, whole, none checked for memory yet. torchtitan's per-op recompute is tried
// where the layout's framework runs it (`calibration`'s frameworks, docs/scaleout.md).
std::vector<RunConfig> training_layouts(const Workload& workload, const Gpu& gpu,
                                        const RunConfig& base, const Calibration& calibration);

// The search over `request.run.gpus` GPUs of `gpu`. A malformed request (no transformer, a
// precision or fabric that does not exist) is kInvalidInput; nothing fitting is a result with
// an empty `layouts` and `least_memory_gb`.
Result<TrainPlan> plan_training(const Workload& workload, const Gpu& gpu,
                                const TrainPlanRequest& request, const Calibration& calibration,
                                const Catalog& catalog);

}  // namespace rigplan
