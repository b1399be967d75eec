// Fitting the performance model's per-architecture efficiencies to throughput measurements,
// and leave-one-GPU-out validation (docs/performance.md).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rigplan/perf.h"

namespace rigplan {

// What predicting a sample needs that no calibration changes: the run's facts and its GPU's
// stack check. A fit predicts each sample many times; prepare_samples makes these once.
struct SampleFacts {
  Result<RunFacts> facts;
  StackCheck stack;
};

// A throughput measurement ready to predict: the run, the measured value and its group's ref.
struct ThroughputSample {
  const Workload* workload = nullptr;
  const Gpu* gpu = nullptr;
  RunConfig run;
  double measured = 0;
  int ref = -1;  // index of the group's ref sample; itself for a ref row and an absolute row
  std::string metric = "throughput";            // throughput, ttft_ms, tpot_ms
  bool absolute = false;                        // a row of a group without a ref, scored on its own
  bool held_out = false;                        // split = held-out: scored, never fitted to
  std::shared_ptr<const SampleFacts> prepared;  // by prepare_samples; without, predicted whole
};

// Makes each sample's SampleFacts, which predict_samples and fit_calibration then reuse.
void prepare_samples(std::vector<ThroughputSample>& samples, const Catalog& catalog);

// The predicted value of each sample's metric under a calibration (0 where the run is malformed
// or the prediction has no such value).
std::vector<double> predict_samples(const std::vector<ThroughputSample>& samples,
                                    const Calibration& calibration, const Catalog& catalog);

// The calibration set: the samples of groups that compare GPUs at one GPU count, less those
// held out (a row whose split is held-out).
std::vector<bool> calibration_set(const std::vector<ThroughputSample>& samples);

// The calibration a fit starts from, with no fitted value: `loaded`'s frameworks (the stacks they
// cover; the fit refits their levels where rows name them) and its GEMM ceilings.
Calibration fit_prior(const Calibration& loaded);

// Fits gemm_efficiency, memory_efficiency and tf32_efficiency per calibration key present in the
// samples whose `use` flag is set, minimising the Huber loss of the log ratio errors of non-ref
// samples plus a weak pull towards `start`. Coordinate descent over multiplicative steps, each
// gemm_efficiency within [0.05, start.gemm_ceiling(key)], the others within [0.05, 1]. Then
// records each workload's efficiency: the median measured / predicted ratio of its used samples.
Calibration fit_calibration(const std::vector<ThroughputSample>& samples,
                            const std::vector<bool>& use, const Calibration& start,
                            const Catalog& catalog);

}  // namespace rigplan
