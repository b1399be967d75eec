// rigplan validate FILE.csv

#include <fmt/format.h>

#include "cli/cli_context.h"
#include "rigplan/validate.h"

namespace rigplan::cli {

void add_validate_command(CLI::App& app, CliContext& ctx) {
  static std::string path;
  static bool loo = false;
  auto* cmd = app.add_subcommand("validate", "Predictions against measurements (PRODUCT.md contract)");
  cmd->add_option("file", path, "Measurement CSV, e.g. validation/memory.csv")->required();
  cmd->add_flag("--loo", loo,
                "Leave one GPU out: predict each GPU's throughput rows with a calibration fitted without them");
  cmd->callback([&ctx] {
    auto catalog = ctx.load();
    if (!catalog) return void(ctx.exit_code = ctx.fail(catalog.status()));
    auto zoo = ctx.load_zoo();
    if (!zoo) return void(ctx.exit_code = ctx.fail(zoo.status()));
    auto text = read_text_file(path);
    if (!text) return void(ctx.exit_code = ctx.fail(text.status()));
    *ctx.err << fmt::format("rigplan: validating {}\n", path);
    if (loo) *ctx.err << "rigplan: fitting one calibration per GPU (leave-one-GPU-out); this takes a while\n";
    ValidateOptions options;
    options.leave_one_gpu_out = loo;
    auto report = validate_measurements(*catalog, *zoo, path, *text, options);
    if (!report) return void(ctx.exit_code = ctx.fail(report.status()));
    if (ctx.json) return ctx.print_json(report::to_json(*report));
    *ctx.out << report::validation_text(*report);
  });
}

}  // namespace rigplan::cli
