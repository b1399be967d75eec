// rigplan validate FILE.csv

#include <fmt/format.h>

#include "cli/cli_context.h"
#include "rigplan/validate.h"

namespace rigplan::cli {

void add_validate_command(CLI::App& app, CliContext& ctx) {
  auto& path = ctx.keep<std::string>();
  auto& loo = ctx.keep<bool>(false);
  auto& loo_arch = ctx.keep<bool>(false);
  auto* cmd =
      app.add_subcommand("validate", "Predictions against measurements (PRODUCT.md contract)");
  cmd->add_option("file", path, "Measurement CSV, e.g. validation/memory.csv")->required();
  cmd->add_flag("--loo", loo,
                "Leave one GPU out: predict each GPU's throughput rows with a calibration fitted "
                "without them");
  cmd->add_flag("--loo-arch", loo_arch,
                "Leave one architecture out: predict the throughput rows of each calibration key's "
                "GPUs (architecture and class) with a calibration fitted without any of them, as "
                "for a GPU whose architecture no measurement covers")
      ->excludes("--loo");
  cmd->callback([&ctx, &path, &loo, &loo_arch] {
    auto inputs = ctx.load_measurement_inputs(path);
    if (!inputs) return void(ctx.exit_code = ctx.fail(inputs.status()));
    const Catalog& catalog = *inputs->catalog;
    const Zoo& zoo = *inputs->zoo;
    const std::string& text = inputs->text;
    *ctx.err << fmt::format("rigplan: validating {}\n", path);
    ValidateOptions options;
    options.leave_out = loo        ? LeaveOut::kGpu
                        : loo_arch ? LeaveOut::kArchitecture
                                   : LeaveOut::kNothing;
    const char* each = loo ? "GPU" : "architecture";
    if (loo || loo_arch)
      *ctx.err << fmt::format(
          "rigplan: fitting one calibration per {0} (leave-one-{0}-out); this takes a while\n",
          each);
    Progress progress(ctx, fmt::format("fitting without each {}:", each));
    options.progress = std::ref(progress);
    auto report = validate_measurements(catalog, zoo, path, text, options);
    if (!report) return void(ctx.exit_code = ctx.fail(report.status()));
    if (ctx.json) return ctx.print_json(report::to_json(*report));
    *ctx.out << report::validation_text(*report);
  });
}

}  // namespace rigplan::cli
