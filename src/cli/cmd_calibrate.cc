// rigplan calibrate FILE.csv: fits the performance model's per-architecture efficiencies to the
// cross-GPU throughput groups of a measurement file and prints data/calibration/perf.toml.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "cli/cli_context.h"
#include "rigplan/calibrate.h"
#include "rigplan/validate.h"
#include "util/strings.h"

namespace rigplan::cli {
namespace {
// Share of held-out predictions inside the error band: one standard deviation of a normal error.
constexpr double kBandShare = 0.68;
}  // namespace

void add_calibrate_command(CLI::App& app, CliContext& ctx) {
  auto& path = ctx.keep<std::string>();
  auto* cmd = app.add_subcommand(
      "calibrate",
      "Fit the performance model to throughput measurements; prints the calibration TOML");
  cmd->add_option("file", path, "Throughput CSV, e.g. validation/throughput.csv")->required();
  cmd->callback([&ctx, &path] {
    auto inputs = ctx.load_measurement_inputs(path);
    if (!inputs) return void(ctx.exit_code = ctx.fail(inputs.status()));
    const Catalog& catalog = *inputs->catalog;
    const Zoo& zoo = *inputs->zoo;
    const std::string& text = inputs->text;
    auto samples = throughput_samples(catalog, zoo, path, text);
    if (!samples) return void(ctx.exit_code = ctx.fail(samples.status()));
    // Fit on groups that compare GPUs; scaling groups test the communication model.
    const std::vector<bool> use = cross_gpu(*samples);
    const auto used = std::count(use.begin(), use.end(), true);
    *ctx.err << fmt::format("rigplan: fitting on {} rows of {} in groups that compare GPUs\n", used,
                            path);
    // A fixed prior (every key at 0.8, 0.8, 1.0) rather than the current calibration, so that
    // refitting the same data gives the same file.
    const Calibration start;
    const Calibration fitted = fit_calibration(*samples, use, start, catalog);

    // Error bands: leave-one-GPU-out relative errors per workload class.
    ValidateOptions options;
    options.calibration = &fitted;
    options.leave_one_gpu_out = true;
    *ctx.err << "rigplan: leave-one-GPU-out validation for the error bands\n";
    Progress progress(ctx, "fitting without each GPU:");
    options.progress = std::ref(progress);
    auto report = validate_measurements(catalog, zoo, path, text, options);
    if (!report) return void(ctx.exit_code = ctx.fail(report.status()));

    std::string out = fmt::format(
        "# Fitted efficiencies of the performance model, per calibration key (architecture and\n"
        "# class: hbm, gddr, geforce), and each measured workload's speed against the model.\n"
        "# Written by `rigplan calibrate {}` on {}: {} rows in groups that compare GPUs.\n"
        "# Error bands: per workload class, the absolute error |predicted / measured - 1| that 68% "
        "of\n"
        "# the leave-one-GPU-out single-GPU predictions stay within.\n"
        "# See docs/performance.md.\n",
        path, today().to_string(), used);
    for (const auto& a : fitted.archs) {
      out += fmt::format(
          "\n[[arch]]\narchitecture = \"{}\"\ngemm_efficiency = {:.3f}\nmemory_efficiency = "
          "{:.3f}\n"
          "tf32_efficiency = {:.3f}\nfitted_on = \"{}, {}\"\n",
          a.architecture, a.gemm_efficiency, a.memory_efficiency, a.tf32_efficiency, path,
          today().to_string());
    }
    for (const auto& w : fitted.workloads) {
      out += fmt::format(
          "\n[[workload]]\nworkload = \"{}\"\nefficiency = {:.3f}\nrows = {}\nfitted_on = \"{}, "
          "{}\"\n",
          w.workload, w.efficiency, w.rows, path, today().to_string());
    }
    // The band of a class is what `predict` prints around its absolute throughput: the error that
    // 68% of the class's held-out single-GPU predictions stay within.
    std::map<std::string, std::vector<double>> held_out;
    for (const auto& r : report->rows) {
      const auto comma = r.workload_class.find(", 1 GPU");
      if (r.abs_error && comma != std::string::npos)
        held_out[r.workload_class.substr(0, comma)].push_back(*r.abs_error);
    }
    for (auto& [workload_class, errors] : held_out) {
      std::sort(errors.begin(), errors.end());
      out +=
          fmt::format("\n[[band]]\nworkload_class = \"{}\"\nrel_error = {:.3f}\n", workload_class,
                      errors[static_cast<size_t>(kBandShare * static_cast<double>(errors.size()))]);
    }
    *ctx.out << out;
  });
}

}  // namespace rigplan::cli
