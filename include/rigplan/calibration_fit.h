// `rigplan calibrate`: the fit of a measurement file and the calibration file it writes
// (data/calibration/perf.toml; docs/performance.md).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "rigplan/calibrate.h"
#include "rigplan/date.h"
#include "rigplan/validate.h"

namespace rigplan {

// `rigplan calibrate FILE`: fits on the rows of the groups that compare GPUs (scaling groups
// test the communication model) from the fixed prior (every key at 0.8, 0.8, 1.0, so that
// refitting the same data gives the same file), then validates leave-one-GPU-out for the error
// bands, and leave-one-architecture-out for the bands of GPUs that borrow another architecture's
// efficiencies; `progress` is told of the held-out fits as they go.
struct CalibrationFit {
  Calibration fitted;
  ValidationReport held_out;       // leave one GPU out
  ValidationReport held_out_arch;  // leave one architecture out; empty for engines alone
  size_t rows = 0;                 // rows fitted on
};
Result<CalibrationFit> calibrate_measurements(const Catalog& catalog, const Zoo& zoo,
                                              const std::string& path, const std::string& csv,
                                              std::function<void(size_t, size_t)> progress);

// The calibration file of a fit (data/calibration/perf.toml), written by `rigplan calibrate FILE`
// on `date` from `rows` rows of `path`: the fitted efficiencies per calibration key and per
// workload, and per workload class the error band that `predict` prints, the absolute error
// that 68% of the class's held-out single-GPU predictions in `fit.held_out` stay within (and in
// `fit.held_out_arch`, for GPUs of an architecture no measurement covers).
std::string calibration_toml(const CalibrationFit& fit, std::string_view path, const Date& date);

}  // namespace rigplan
