// The speed of a training run's implementation against the operator model: a measured
// workload's own, or the level of the run's framework (docs/performance.md, "Frameworks").
#pragma once

#include <string_view>

#include "rigplan/perf.h"

namespace rigplan {

// What scales the operators' time of a training step, and where it comes from.
struct ImplementationSpeed {
  double speed = 1;              // of the operator model's speed
  std::string_view source;       // kSpeedOfWorkload or kSpeedOfFramework
  double measured_speed = 0;     // the workload's fitted speed; 0 for one never measured
  std::string_view measured_on;  // the framework its rows named; empty when none
};
inline constexpr std::string_view kSpeedOfWorkload = "workload";
inline constexpr std::string_view kSpeedOfFramework = "framework";

// The speed of `measured` (the workload's [[workload]] row, nullptr for a workload never
// measured) run by `framework`: a workload never measured runs at the framework's level; a
// measured one at its own speed, which includes the framework of its rows, times the ratio of
// `framework`'s level to theirs when its rows named a framework (none named: its own speed,
// whatever the run's framework).
ImplementationSpeed implementation_speed(const Calibration& calibration,
                                         const WorkloadCalibration* measured,
                                         const FrameworkCalibration& framework);

// The framework a training run takes: the one `name` names (Calibration::framework, an error
// for an unknown name); none named, the framework `measured`'s rows named, so that a measured
// workload runs as measured, else kDefaultFramework.
Result<const FrameworkCalibration*> run_framework(const Calibration& calibration,
                                                  std::string_view name,
                                                  const WorkloadCalibration* measured);

// The [[workload]] row of `workload`, or nullptr for one never measured.
const WorkloadCalibration* measured_speed(const Calibration& calibration,
                                          std::string_view workload);

}  // namespace rigplan
