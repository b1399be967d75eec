// What ranking a run needs of the throughput model: its numbers, without the breakdown that
// predict writes for a reader (terms, notes, warnings), which costs more to write than the
// numbers cost to compute when recommend tries hundreds of runs per request.
#pragma once

#include <optional>
#include <string>

#include "rigplan/perf.h"

namespace rigplan {

// A run's speed, as predict's Prediction has it.
struct RunSpeed {
  bool fits = true;
  double throughput = 0;                     // in `unit`, all GPUs
  std::string unit;                          // tokens/s, images/s, ...
  std::optional<ServingPrediction> serving;  // mode serve
};

// predict(workload, gpu, config, calibration, catalog, facts) without the prediction's terms,
// notes, warnings and resolved configuration: the same fits, throughput, unit and serving
// prediction, and the same errors.
Result<RunSpeed> predict_speed(const Workload& workload, const Gpu& gpu, const RunConfig& config,
                               const Calibration& calibration, const Catalog& catalog,
                               const RunFacts& facts);

}  // namespace rigplan
