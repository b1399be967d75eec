// The command line: global options and every subcommand, built afresh for each run so that
// `rigplan serve` can run many at once.
#include <iostream>

#include "cli/cli_context.h"

namespace rigplan::cli {
namespace {

struct Command {
  const char* name;
  void (*add)(CLI::App&, CliContext&);
};

// The subcommands, in the order `rigplan --help` lists them.
constexpr Command kCommands[] = {
    {"overview", add_overview_command},   {"gpus", add_gpus_command},
    {"cpus", add_cpus_command},           {"offers", add_offers_command},
    {"regions", add_regions_command},     {"workloads", add_workloads_command},
    {"memory", add_memory_command},       {"predict", add_predict_command},
    {"compare", add_compare_command},     {"cost", add_cost_command},
    {"recommend", add_recommend_command}, {"build", add_build_command},
    {"validate", add_validate_command},   {"calibrate", add_calibrate_command},
    {"report", add_report_command},       {"catalog", add_catalog_command},
    {"serve", add_serve_command},
};

}  // namespace

int run_command_line(const std::vector<std::string>& args, CliContext& ctx,
                     const std::string& only) {
  CLI::App app{"rigplan: plan the hardware for deep learning: which GPU, which build, buy or rent.",
               "rigplan"};
  app.set_version_flag("--version", "rigplan 0.1.0");
  app.fallthrough();  // global options may follow the subcommand
  app.require_subcommand(1);
  app.add_option("--catalog", ctx.catalog_dir,
                 "Catalog directory to use instead of the embedded catalog");
  app.add_option("--overlay", ctx.overlay_dir,
                 "Overlay directory whose entries add to or patch the catalog by id "
                 "(default: $RIGPLAN_OVERLAY or ~/.config/rigplan/overlay, when it exists)");
  app.add_option("--workloads", ctx.workloads_dir,
                 "Directory of workload files added to the zoo (docs/workloads.md)");
  app.add_flag("--json", ctx.json, "Print JSON instead of tables");
  for (const auto& command : kCommands) {
    if (only.empty() || only == command.name) command.add(app, ctx);
  }
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e, *ctx.out, *ctx.err);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  return ctx.exit_code;
}

}  // namespace rigplan::cli
