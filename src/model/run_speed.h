// What ranking a run needs of the throughput model: its numbers, without the breakdown that
// predict writes for a reader (terms, notes, warnings), which costs more to write than the
// numbers cost to compute when recommend tries hundreds of runs per request.
#pragma once

#include <memory>
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
  double step_time_s = 0;                    // 0: no speed (a run that does not fit)
  double samples_per_step = 0;               // all GPUs
};

// The operator times of the runs predicted so far, by their facts' operators and GPU: they do
// not depend on the run's links or network, so a caller that predicts the same facts on one GPU
// under several topologies (recommend: a GPU owned, and in each offer) times them once, and
// facts whose operators are equal (the same run data parallel over more GPUs) share them. For
// one calibration; the facts must outlive it.
class OperatorTimes {
 public:
  OperatorTimes();
  ~OperatorTimes();
  OperatorTimes(const OperatorTimes&) = delete;
  OperatorTimes& operator=(const OperatorTimes&) = delete;
  struct Entries;  // perf.cc
  Entries& entries() { return *entries_; }

 private:
  std::unique_ptr<Entries> entries_;
};

// What the facts of many runs share, made once: each workload's parameter counts and class, its
// FLOPs at each batch and sequence, and the operators of runs whose steps are shaped alike (a
// run data parallel over more GPUs, or sharded, runs the same operators on each GPU). Facts made
// with it share their operators.
class SharedFacts {
 public:
  SharedFacts();
  ~SharedFacts();
  SharedFacts(const SharedFacts&) = delete;
  SharedFacts& operator=(const SharedFacts&) = delete;
  struct Entries;  // perf.cc
  Entries& entries() { return *entries_; }

 private:
  std::unique_ptr<Entries> entries_;
};

// run_facts(workload, gpu, config), with what it shares with other runs' facts found in `shared`
// or kept there: the same facts.
Result<RunFacts> run_facts(const Workload& workload, const Gpu& gpu, const RunConfig& config,
                           SharedFacts& shared);

// predict(workload, gpu, config, calibration, catalog, facts) without the prediction's terms,
// notes, warnings and resolved configuration: the same fits, throughput, unit and serving
// prediction, and the same errors. With `times`, the operator times kept there are used, and
// those made are kept.
Result<RunSpeed> predict_speed(const Workload& workload, const Gpu& gpu, const RunConfig& config,
                               const Calibration& calibration, const Catalog& catalog,
                               const RunFacts& facts, OperatorTimes* times = nullptr);

}  // namespace rigplan
