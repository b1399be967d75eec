// rigplan validate FILE.csv

#include <fmt/format.h>

#include "cli/cli_context.h"
#include "rigplan/validate.h"

namespace rigplan::cli {

void add_validate_command(CLI::App& app, CliContext& ctx) {
  auto& path = ctx.keep<std::string>();
  auto& loo = ctx.keep<bool>(false);
  auto* cmd =
      app.add_subcommand("validate", "Predictions against measurements (PRODUCT.md contract)");
  cmd->add_option("file", path, "Measurement CSV, e.g. validation/memory.csv")->required();
  cmd->add_flag("--loo", loo,
                "Leave one GPU out: predict each GPU's throughput rows with a calibration fitted "
                "without them");
  cmd->callback([&ctx, &path, &loo] {
    auto inputs = ctx.load_measurement_inputs(path);
    if (!inputs) return void(ctx.exit_code = ctx.fail(inputs.status()));
    const Catalog& catalog = *inputs->catalog;
    const Zoo& zoo = *inputs->zoo;
    const std::string& text = inputs->text;
    *ctx.err << fmt::format("rigplan: validating {}\n", path);
    if (loo)
      *ctx.err
          << "rigplan: fitting one calibration per GPU (leave-one-GPU-out); this takes a while\n";
    ValidateOptions options;
    options.leave_one_gpu_out = loo;
    Progress progress(ctx, "fitting without each GPU:");
    options.progress = std::ref(progress);
    auto report = validate_measurements(catalog, zoo, path, text, options);
    if (!report) return void(ctx.exit_code = ctx.fail(report.status()));
    if (ctx.json) return ctx.print_json(report::to_json(*report));
    *ctx.out << report::validation_text(*report);
  });
}

}  // namespace rigplan::cli
