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
  // The maturity of the run's stack on its GPU (run_stack), which `speed` includes; nullptr
  // when none applies.
  const StackMaturity* maturity = nullptr;
};
inline constexpr std::string_view kSpeedOfWorkload = "workload";
inline constexpr std::string_view kSpeedOfFramework = "framework";

// The speed of `measured` (the workload's [[workload]] row, nullptr for a workload never
// measured) run by `framework`: a workload never measured runs at the framework's level; a
// measured one at its own speed, which includes the framework of its rows, times the ratio of
// `framework`'s level to theirs when its rows named a framework (none named: its own speed,
// whatever the run's framework).
// On a GPU of calibration key `key` (empty: none), the speed is then multiplied by the
// maturity of the run's stack there (Calibration::maturity of run_stack), where one is known.
ImplementationSpeed implementation_speed(const Calibration& calibration,
                                         const WorkloadCalibration* measured,
                                         const FrameworkCalibration& framework,
                                         std::string_view key = {});

// The software that runs a training step, as [[maturity]] names it: kReferenceStack for a
// measured workload whose rows named no framework (its reference implementation sets the speed,
// whatever framework the run names), else `framework`'s id.
std::string_view run_stack(const WorkloadCalibration* measured,
                           const FrameworkCalibration& framework);

// What a prediction says of a maturity it took on `gpu_id`: the factor, the stack, the key and
// the confidence.
std::string maturity_note(const StackMaturity& maturity, std::string_view gpu_id);

// The stack that runs a training run naming no framework whose weights are sharded (ZeRO-3):
// PyTorch FSDP, torchtitan, DeepSpeed ZeRO-3, all eager PyTorch. Megatron-LM shards only the
// optimizer state (its distributed optimizer, ZeRO-1), so another run takes kDefaultFramework.
inline constexpr std::string_view kDefaultShardedFramework = "fsdp";

// The framework a run names none of takes: kDefaultShardedFramework with `zero` 3, else
// kDefaultFramework.
std::string_view default_framework(int zero);

// The framework a training run takes: the one `name` names (Calibration::framework, an error
// for an unknown name); none named, the framework `measured`'s rows named, so that a measured
// workload runs as measured, else default_framework(zero).
Result<const FrameworkCalibration*> run_framework(const Calibration& calibration,
                                                  std::string_view name, int zero,
                                                  const WorkloadCalibration* measured);

// What a prediction says of the framework it took: empty when `named` (the run named one), else
// why it is the default: " (the default)" or " (the default for sharded weights, ZeRO-3)".
std::string_view default_framework_note(bool named, int zero);

// The framework a training prediction reports (Prediction::config's): `framework`, the one
// run_framework took, unless the run named none (`named` empty) and `measured`'s rows named none
// either: such a workload runs at its own speed, whatever the framework, so none (empty).
std::string_view reported_framework(std::string_view named, const WorkloadCalibration* measured,
                                    const FrameworkCalibration& framework);

// Whether `framework` runs torchtitan's per-op selective recompute (recompute_policy.h,
// kSelectiveOp): it is recompute_policy::kSelectiveOpStack or covers it.
bool offers_op_recompute(const FrameworkCalibration& framework);

// The [[workload]] row of `workload`, or nullptr for one never measured.
const WorkloadCalibration* measured_speed(const Calibration& calibration,
                                          std::string_view workload);

}  // namespace rigplan
