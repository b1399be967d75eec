#include "model/framework_speed.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "model/recompute_policy.h"
#include "util/strings.h"

namespace rigplan {

// A framework's own id names it before any family that covers it: torchtitan, one of the
// stacks eager-fsdp covers, takes its own [[framework]] where the calibration has one.
Result<const FrameworkCalibration*> Calibration::framework(std::string_view name) const {
  const std::string wanted = to_lower(name.empty() ? kDefaultFramework : name);
  for (const auto& f : frameworks) {
    if (f.framework == wanted) return &f;
  }
  std::vector<std::string> accepted;
  const auto accept = [&accepted](const std::string& id) {
    if (std::ranges::find(accepted, id) == accepted.end()) accepted.push_back(id);
  };
  for (const auto& f : frameworks) {
    accept(f.framework);
    for (const auto& stack : f.covers) {
      if (stack == wanted) return &f;
      accept(stack);
    }
  }
  // A calibration without frameworks (one made in code) runs the default at the operator
  // model's level, as every run did before frameworks had levels.
  static const FrameworkCalibration kReference{std::string(kDefaultFramework), {}, 1, 0, ""};
  if (wanted == kDefaultFramework) return &kReference;
  return Status::invalid_input(fmt::format("unknown framework '{}'; expected {}{}", shown(name),
                                           quoted_list(accepted), did_you_mean(name, accepted)));
}

std::string_view default_framework(int zero) {
  return zero == 3 ? kDefaultShardedFramework : kDefaultFramework;
}

Result<const FrameworkCalibration*> run_framework(const Calibration& calibration,
                                                  std::string_view name, int zero,
                                                  const WorkloadCalibration* measured) {
  if (!name.empty()) return calibration.framework(name);
  if (measured && !measured->framework.empty()) {
    if (auto own = calibration.framework(measured->framework)) return own;
  }
  // A calibration made in code has no frameworks: every run takes the reference level.
  return calibration.framework(calibration.frameworks.empty() ? kDefaultFramework
                                                              : default_framework(zero));
}

std::string_view default_framework_note(bool named, int zero) {
  if (named) return "";
  return zero == 3 ? " (the default for sharded weights, ZeRO-3)" : " (the default)";
}

std::string_view reported_framework(std::string_view named, const WorkloadCalibration* measured,
                                    const FrameworkCalibration& framework) {
  if (named.empty() && measured && measured->framework.empty()) return "";
  return framework.framework;
}

bool offers_op_recompute(const FrameworkCalibration& framework) {
  return framework.framework == recompute_policy::kSelectiveOpStack ||
         std::ranges::find(framework.covers, recompute_policy::kSelectiveOpStack) !=
             framework.covers.end();
}

const WorkloadCalibration* measured_speed(const Calibration& calibration,
                                          std::string_view workload) {
  for (const auto& w : calibration.workloads) {
    if (w.workload == workload) return &w;
  }
  return nullptr;
}

const StackMaturity* Calibration::maturity(std::string_view key, std::string_view stack) const {
  for (const auto& m : maturities) {
    if (m.architecture == key && m.stack == stack) return &m;
  }
  return nullptr;
}

std::string_view run_stack(const WorkloadCalibration* measured,
                           const FrameworkCalibration& framework) {
  if (measured && measured->framework.empty()) return kReferenceStack;
  return framework.framework;
}

namespace {

// The speed before any maturity: the framework's level, or the measured workload's own.
ImplementationSpeed mature_speed(const Calibration& calibration,
                                 const WorkloadCalibration* measured,
                                 const FrameworkCalibration& framework) {
  if (!measured) return {framework.level, kSpeedOfFramework, 0, ""};
  ImplementationSpeed out{measured->efficiency, kSpeedOfWorkload, measured->efficiency,
                          measured->framework};
  if (measured->framework.empty() || measured->framework == framework.framework) return out;
  auto own = calibration.framework(measured->framework);
  if (own && (*own)->level > 0) out.speed *= framework.level / (*own)->level;
  return out;
}

}  // namespace

ImplementationSpeed implementation_speed(const Calibration& calibration,
                                         const WorkloadCalibration* measured,
                                         const FrameworkCalibration& framework,
                                         std::string_view key) {
  ImplementationSpeed out = mature_speed(calibration, measured, framework);
  if (key.empty()) return out;
  out.maturity = calibration.maturity(key, run_stack(measured, framework));
  if (out.maturity) out.speed *= out.maturity->factor;
  return out;
}

std::string maturity_note(const StackMaturity& maturity, std::string_view gpu_id) {
  const std::string stack =
      maturity.stack == kReferenceStack
          ? std::string(
                "the reference scripts of a workload whose measured rows named no "
                "framework")
          : fmt::format("framework {}", maturity.stack);
  return fmt::format(
      "speed times {}, the software maturity of {} on {}'s architecture ({}): that stack is "
      "measured to lag the silicon (confidence {}, {}; docs/performance.md, \"Software "
      "maturity\")",
      format_number(maturity.factor), stack, gpu_id, maturity.architecture, maturity.confidence,
      maturity.date.to_string());
}

}  // namespace rigplan
