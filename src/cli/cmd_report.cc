// rigplan report COMMAND ... [--html FILE]: the HTML report of recommend, compare, cost, memory,
// build check or build propose: the command with --html, and the page on stdout when no file is
// named.
#include <fmt/format.h>

#include <algorithm>

#include "cli/cli_context.h"

namespace rigplan::cli {
namespace {

constexpr std::string_view kReports[] = {"recommend", "compare", "cost", "memory", "build"};

}  // namespace

void add_report_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand(
      "report",
      "The HTML report of recommend, compare, cost, memory or build check|propose: "
      "`rigplan report recommend --preset kaggle --html out.html`");
  cmd->prefix_command();  // everything after `report` belongs to the command it names
  cmd->allow_extras();
  cmd->fallthrough(false);
  cmd->callback([&ctx, cmd] {
    std::vector<std::string> args = cmd->remaining();
    if (args.empty() ||
        std::find(std::begin(kReports), std::end(kReports), args.front()) == std::end(kReports)) {
      ctx.exit_code = ctx.fail(Status::invalid_input(fmt::format(
          "report {}: expected one of recommend, compare, cost, memory, build (check|propose)",
          args.empty() ? "" : args.front())));
      return;
    }
    if (std::find_if(args.begin(), args.end(), [](const std::string& a) {
          return a == "--html" || a.starts_with("--html=");
        }) == args.end()) {
      args.insert(args.end(), {"--html", "-"});  // no file: the page to stdout
    }
    args.insert(args.begin(), "rigplan");
    CliContext inner = ctx;
    ctx.exit_code = run_command_line(args, inner, args[1]);
  });
}

}  // namespace rigplan::cli
