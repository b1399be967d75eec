// rigplan: plans the hardware for deep learning. The executable is the library plus this
// front end: parse options, call the library, render.
#include <exception>
#include <iostream>

#include "cli/cli_context.h"

namespace {

using rigplan::cli::CliContext;

// The subcommands, in the order `rigplan --help` lists them.
constexpr void (*kCommands[])(CLI::App&, CliContext&) = {
    rigplan::cli::add_overview_command, rigplan::cli::add_gpus_command,
    rigplan::cli::add_cpus_command,     rigplan::cli::add_offers_command,
    rigplan::cli::add_regions_command,  rigplan::cli::add_workloads_command,
    rigplan::cli::add_memory_command,   rigplan::cli::add_predict_command,
    rigplan::cli::add_compare_command,  rigplan::cli::add_cost_command,
    rigplan::cli::add_recommend_command, rigplan::cli::add_build_command,
    rigplan::cli::add_validate_command,
    rigplan::cli::add_calibrate_command,
    rigplan::cli::add_catalog_command,
};

int run(int argc, char** argv) {
  CliContext ctx{.out = &std::cout, .err = &std::cerr};
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
  for (auto add : kCommands) add(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? rigplan::cli::kExitOk : rigplan::cli::kExitBadInput;
  }
  return ctx.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "rigplan: internal error: " << e.what() << "\n";
    return rigplan::cli::kExitInternal;
  }
}
