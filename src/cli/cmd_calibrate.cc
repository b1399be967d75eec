// rigplan calibrate FILE.csv: fits the performance model's per-architecture efficiencies to the
// cross-GPU throughput groups of a measurement file and prints data/calibration/perf.toml.
#include <fmt/format.h>

#include "cli/cli_context.h"
#include "rigplan/calibration_fit.h"

namespace rigplan::cli {

void add_calibrate_command(CLI::App& app, CliContext& ctx) {
  auto& path = ctx.keep<std::string>();
  auto* cmd = app.add_subcommand(
      "calibrate",
      "Fit the performance model to throughput measurements; prints the calibration TOML");
  cmd->add_option("file", path, "Throughput CSV, e.g. validation/throughput.csv")->required();
  cmd->callback([&ctx, &path] {
    auto inputs = ctx.load_measurement_inputs(path);
    if (!inputs) return void(ctx.exit_code = ctx.fail(inputs.status()));
    *ctx.err << fmt::format(
        "rigplan: fitting on the rows of {} in groups that compare GPUs, then leave-one-GPU-out "
        "validation for the error bands\n",
        path);
    Progress progress(ctx, "fitting without each GPU:");
    auto fit = calibrate_measurements(*inputs->catalog, *inputs->zoo, path, inputs->text,
                                      std::ref(progress));
    if (!fit) return void(ctx.exit_code = ctx.fail(fit.status()));
    *ctx.out << calibration_toml(*fit, path, today());
  });
}

}  // namespace rigplan::cli
