// The command line: global options and every subcommand, built afresh for each run so that
// `rigplan serve` can run many at once.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "cli/cli_context.h"
#include "rigplan/input.h"
#include "util/strings.h"

namespace rigplan::cli {
namespace {

// `serve`: the server where this executable has one (rigplan-serve), else the hand-over to it.
void add_serve(CLI::App& app, CliContext& ctx) {
  (ctx.add_serve ? ctx.add_serve : add_serve_handoff)(app, ctx);
}

struct Command {
  const char* name;
  void (*add)(CLI::App&, CliContext&);
};

// The subcommands, in the order `rigplan --help` lists them.
constexpr Command kCommands[] = {
    {"overview", add_overview_command},
    {"gpus", add_gpus_command},
    {"cpus", add_cpus_command},
    {"offers", add_offers_command},
    {"regions", add_regions_command},
    {"workloads", add_workloads_command},
    {"engines", add_engines_command},
    {"memory", add_memory_command},
    {"predict", add_predict_command},
    {"train-plan", add_train_plan_command},
    {"compare", add_compare_command},
    {"cost", add_cost_command},
    {"recommend", add_recommend_command},
    {"build", add_build_command},
    {"validate", add_validate_command},
    {"calibrate", add_calibrate_command},
    {"report", add_report_command},
    {"catalog", add_catalog_command},
    {"serve", add_serve},
};

// The subcommand that the arguments name after global options, when every argument before it is
// a global option or its value; empty otherwise (no subcommand, --help, --version, a typo), when
// the command line needs every subcommand to answer.
std::string named_command(const std::vector<std::string>& args) {
  constexpr std::string_view kWithValue[] = {"--catalog", "--overlay", "--workloads"};
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (std::find(std::begin(kWithValue), std::end(kWithValue), arg) != std::end(kWithValue)) {
      ++i;
      continue;
    }
    const bool joined =
        std::any_of(std::begin(kWithValue), std::end(kWithValue), [&](std::string_view o) {
          return arg.starts_with(o) && arg.size() > o.size() && arg[o.size()] == '=';
        });
    if (arg == "--json" || joined) continue;
    const auto command = std::find_if(std::begin(kCommands), std::end(kCommands),
                                      [&](const Command& c) { return arg == c.name; });
    return command != std::end(kCommands) ? arg : "";
  }
  return "";
}

}  // namespace

std::unique_ptr<CLI::App> make_command_line(CliContext& ctx, const std::string& only) {
  auto app = std::make_unique<CLI::App>(
      "rigplan: plan the hardware for deep learning: which GPU, which build, buy or rent.",
      "rigplan");
  app->set_version_flag("--version", "rigplan 0.1.0");
  app->fallthrough();  // global options may follow the subcommand
  app->require_subcommand(1);
  app->add_option("--catalog", ctx.catalog_dir,
                  "Catalog directory to use instead of the embedded catalog");
  app->add_option("--overlay", ctx.overlay_dir,
                  "Overlay directory whose entries add to or patch the catalog by id "
                  "(default: $RIGPLAN_OVERLAY or ~/.config/rigplan/overlay, when it exists)");
  app->add_option("--workloads", ctx.workloads_dir,
                  "Directory of workload files added to the zoo (docs/workloads.md)");
  app->add_flag("--json", ctx.json, "Print JSON instead of tables");
  for (const auto& command : kCommands) {
    if (only.empty() || only == command.name) command.add(*app, ctx);
  }
  return app;
}

namespace {

struct CommandOption {
  const CLI::App* command;
  const CLI::Option* option;
};

// The option of `app` or a subcommand that ran whose values CLI11 could not convert: the one
// `error` names, with its values.
std::optional<CommandOption> unconverted(const CLI::App& app, const CLI::ConversionError& error) {
  const std::string_view what = error.what();
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->count() > 0 && CLI::ConversionError(opt->get_name(), opt->results()).what() == what)
      return CommandOption{&app, opt};
  }
  for (const CLI::App* sub : app.get_subcommands()) {
    if (auto found = unconverted(*sub, error)) return found;
  }
  return std::nullopt;
}

// What a number option that CLI11 could not convert accepts, naming the flag as typed:
// "--concurrency abc is not a number; expected an integer from 1 to 1000000000". Empty when the
// error is not about a number option's value, for CLI11's own message.
std::string conversion_message(const CLI::App& app, const CLI::ConversionError& error,
                               const std::vector<std::string>& args) {
  const auto found = unconverted(app, error);
  if (!found || found->option->results().empty()) return "";
  const input::NumberField* field = number_field(*found->command, *found->option);
  const std::string typed = typed_name(*found->option, args);
  const std::string type = found->option->get_type_name();
  if (found->option->get_expected_max() == 0) {  // a flag: --compile=maybe
    return fmt::format(
        "{0} {1} is not accepted; {0} is a flag: give it alone, {0}=true or {0}=false", typed,
        found->option->results().back());
  }
  for (const std::string& text : found->option->results()) {
    if (!field) {
      if (type != "INT" && type != "UINT" && type != "FLOAT") return "";
      return fmt::format("{} {} is not a number; expected {}", typed, text,
                         type == "FLOAT" ? "a number" : "an integer");
    }
    if (const std::string why = number_text_problem(*field, text); !why.empty())
      return fmt::format("{} {} {}", typed, text, why);
  }
  // A value in range in a notation CLI11 does not read as an integer: 1e3.
  const std::string& text = found->option->results().back();
  if (!field->integer) return "";
  return fmt::format("{} {} is not written as an integer; expected {} (did you mean {:.0f}?)",
                     typed, text, field->accepted(), std::strtod(text.c_str(), nullptr));
}

// Parses `args` with the command line `app` bound to `ctx` and runs the subcommand.
int parse_and_run(CLI::App& app, const std::vector<std::string>& args, CliContext& ctx) {
  ctx.command_line = args;
  std::vector<const char*> argv;
  for (size_t i = 0; i < args.size(); ++i) {
    // Names and values end up in JSON and in messages, which are UTF-8.
    if (const auto at = invalid_utf8_at(args[i])) {
      const bool after_option = i > 1 && args[i - 1].starts_with("--");
      *ctx.err << fmt::format(
          "rigplan: argument {}{} is not valid UTF-8 (byte {} of it is 0x{:02x})\n", i,
          after_option ? fmt::format(" (after {})", shown(args[i - 1])) : "", *at + 1,
          static_cast<unsigned char>(args[i][*at]));
      return kExitBadInput;
    }
    argv.push_back(args[i].c_str());
  }
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    // CLI11 says "Could not convert: --batch = abc"; rigplan says what the flag accepts.
    const auto* conversion = dynamic_cast<const CLI::ConversionError*>(&e);
    if (const std::string message = conversion ? conversion_message(app, *conversion, args) : "";
        !message.empty()) {
      *ctx.err << "rigplan: " << message << "\n";
      return kExitBadInput;
    }
    const int code = app.exit(e, *ctx.out, *ctx.err);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  return ctx.exit_code;
}

}  // namespace

int run_command_line(const std::vector<std::string>& args, CliContext& ctx,
                     const std::string& only) {
  // Only the subcommand that runs is built: every option of every subcommand is a third of the
  // start-up of a command that answers from the catalog.
  const auto app = make_command_line(ctx, only.empty() ? named_command(args) : only);
  return parse_and_run(*app, args, ctx);
}

ReusedCommandLine::ReusedCommandLine(const std::string& command)
    : app_(make_command_line(ctx_, command)) {
  for (const auto& k : ctx_.kept) k.save();
}

int ReusedCommandLine::run(const std::vector<std::string>& args, const CliContext& request) {
  std::vector<CliContext::Kept> kept = std::move(ctx_.kept);
  ctx_ = request;
  ctx_.kept = std::move(kept);
  for (const auto& k : ctx_.kept) k.restore();
  app_->clear();
  return parse_and_run(*app_, args, ctx_);
}

}  // namespace rigplan::cli
