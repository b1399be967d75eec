// What every subcommand shares: the global options, catalog loading, and the mapping of a
// Status to an error message and exit code (0 success, 2 bad input, 1 internal error).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "rigplan/build.h"
#include "rigplan/catalog.h"
#include "rigplan/memory.h"
#include "rigplan/report.h"
#include "rigplan/status.h"
#include "rigplan/workload.h"

namespace rigplan::input {
struct NumberField;
}  // namespace rigplan::input

namespace rigplan::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitBadInput = 2;

// One run of the command line: its options, streams and outcome. `rigplan serve` makes one per
// request, sharing the catalog and zoo it loaded at start.
struct CliContext {
  std::string catalog_dir;    // --catalog: replaces the embedded catalog
  std::string overlay_dir;    // --overlay, $RIGPLAN_OVERLAY or ~/.config/rigplan/overlay
  std::string workloads_dir;  // --workloads: user workload files added to the zoo
  bool json = false;          // --json
  int exit_code = kExitOk;    // set by the subcommand that ran
  std::ostream* out;
  std::ostream* err;
  // Loaded already (by `rigplan serve`), or kept by the first load() and load_zoo(): used
  // instead of reading the options above again.
  mutable std::shared_ptr<const Catalog> shared_catalog;
  mutable std::shared_ptr<const Zoo> shared_zoo;
  // The arguments as given (the program first), for a command that hands the run over.
  std::vector<std::string> command_line;
  // Registers `serve`: set by rigplan-serve to its server; left null in rigplan, which registers
  // the hand-over to rigplan-serve instead (add_serve_handoff).
  void (*add_serve)(CLI::App&, CliContext&) = nullptr;

  // The catalog the options name: embedded or --catalog, plus the overlay when it exists.
  Result<std::shared_ptr<const Catalog>> load() const;

  // The files load() reads: the base catalog, the overlay (when its directory exists) and the
  // overlay directory the options name (--overlay, else the default, existing or not).
  struct CatalogSources {
    std::vector<CatalogFile> base, overlay;
    std::string overlay_dir;
  };
  Result<CatalogSources> catalog_sources() const;
  Result<CatalogSources> overlay_sources() const;         // catalog_sources() less the base
  Result<std::vector<CatalogFile>> base_sources() const;  // embedded or --catalog

  // The zoo: the embedded workloads plus --workloads DIR.
  Result<std::shared_ptr<const Zoo>> load_zoo() const;
  // A workload by name from the zoo, or imported from a Hugging Face config.json; at another
  // input resolution when one is given (--resolution, at_resolution).
  Result<Workload> resolve_workload(const Zoo& zoo, const std::string& name,
                                    const std::string& hf_config,
                                    std::optional<int> resolution = {}) const;

  // What a run-level command needs: the catalog, the zoo and the workload it names.
  struct RunInputs {
    std::shared_ptr<const Catalog> catalog;
    std::shared_ptr<const Zoo> zoo;
    Workload workload;
  };
  Result<RunInputs> load_run_inputs(const std::string& name, const std::string& hf_config,
                                    std::optional<int> resolution = {}) const;

  // What a command over a measurement file needs: the catalog, the zoo and the file's text.
  struct MeasurementInputs {
    std::shared_ptr<const Catalog> catalog;
    std::shared_ptr<const Zoo> zoo;
    std::string text;
  };
  Result<MeasurementInputs> load_measurement_inputs(const std::string& path) const;

  // Prints "rigplan: <message>" to stderr; returns the exit code for the status.
  int fail(const Status& status) const;
  // Prints JSON (pretty, 2-space indent, newline) to stdout.
  void print_json(const report::Json& value) const;

  // Writes an --html report to the file (saying so on stderr), or to stdout when the file is "-".
  // Returns true when the command is done: the report went to stdout (it prints nothing else) or
  // the file could not be written (exit_code set).
  bool emit_html(const std::string& file, const std::string& html);

  // Storage for a subcommand's option values, living as long as this context (and so as the
  // CLI::App whose options bind to it), with what sets a value back to the one it had when the
  // command line was built (ReusedCommandLine).
  template <class T, class... Args>
  T& keep(Args&&... args) {
    auto value = std::make_shared<T>(std::forward<Args>(args)...);
    auto built = std::make_shared<T>(*value);
    kept.push_back(
        {value, [value, built] { *built = *value; }, [value, built] { *value = *built; }});
    return *value;
  }
  struct Kept {
    std::shared_ptr<void> value;
    std::function<void()> save, restore;
  };
  std::vector<Kept> kept;  // what keep() made
};

// The command line with every subcommand (or only `only`), its options bound to `ctx`.
std::unique_ptr<CLI::App> make_command_line(CliContext& ctx, const std::string& only = "");

// Builds the command line with every subcommand (or only `only`, for `rigplan serve`), parses
// `args` (args[0] is the program name) and runs the subcommand. Returns the exit code; messages
// go to ctx.err.
int run_command_line(const std::vector<std::string>& args, CliContext& ctx,
                     const std::string& only = "");

// One command's command line, built once and run again and again: `rigplan serve` keeps one per
// thread and endpoint, since building recommend's eighty options costs ten times parsing them.
// Each run starts from the option values the command line was built with.
class ReusedCommandLine {
 public:
  explicit ReusedCommandLine(const std::string& command);
  ReusedCommandLine(const ReusedCommandLine&) = delete;  // its options bind to ctx_
  ReusedCommandLine& operator=(const ReusedCommandLine&) = delete;

  // As run_command_line(args, request, command): `request` gives the streams, the catalog and
  // zoo, and the global options' values; it keeps nothing (no keep()).
  int run(const std::vector<std::string>& args, const CliContext& request);

 private:
  CliContext ctx_{};
  std::unique_ptr<CLI::App> app_;
};

// Progress of long work, redrawn in place on stderr ("rigplan: fitting 12/31 GPUs") when stderr
// is a terminal; silent otherwise, so logs and pipes get only the results.
class Progress {
 public:
  Progress(const CliContext& ctx, std::string what);
  ~Progress();
  void operator()(size_t done, size_t total);

 private:
  std::ostream* err_ = nullptr;  // null: not a terminal
  std::string what_;
};

// The options that describe a run of a workload, shared by memory, predict, compare, cost and
// recommend.
struct RunOptions {
  std::string workload, hf_config;
  RunConfig run;
  std::string lora_targets;                         // comma-separated, as typed
  std::string train_components, cached_components;  // comma-separated, as typed
  std::optional<int> resolution;  // --resolution: image models at another input size, px
  std::string recipe;             // --recipe: a recipe id or a tool name (data/recipes/)
  const CLI::App* cmd = nullptr;
  // The arguments as typed (CliContext::command_line): a refusal names an alias as typed.
  const std::vector<std::string>* command_line = nullptr;
};
void add_run_options(CLI::App* cmd, RunOptions& o, const CliContext& ctx);
// --framework, for the commands that predict a training run's speed (predict, compare,
// train-plan, recommend); the memory of a step does not depend on it.
void add_framework_option(CLI::App* cmd, RunConfig& run);
// --compile and --cuda-graphs of a training prediction.
void add_compile_options(CLI::App* cmd, RunConfig& run);
// The run the options describe: --lora-targets split, and the --recipe's settings applied under
// the options given explicitly.
Result<RunConfig> run_config(const RunOptions& o);
// The workload the run options name (CliContext::resolve_workload) and the run they describe.
struct WorkloadRun {
  Workload workload;
  RunConfig run;
};
Result<WorkloadRun> resolve_run(const CliContext& ctx, const Zoo& zoo, const RunOptions& o);
// Whether an option name ("--batch") is one of add_run_options'.
bool is_run_option(std::string_view name);

// A build file read, checked and turned into the machine that `cost --build` and
// `recommend --build` price (system_from_build), with the build itself.
struct BuildMachine {
  Build build;
  BaseSystem machine;
};
Result<BuildMachine> load_build_machine(const std::string& path, const Catalog& catalog);

// The range of a command's number option (input.h): the field of the option's name, or where
// fields share a name (--gpus of a run and of an owned machine), the command's own; null for an
// option that is not a number.
const input::NumberField* number_field(const CLI::App& command, const CLI::Option& option);
// The name the arguments give an option, the last of them: "--concurrency" for --batch's alias.
std::string typed_name(const CLI::Option& option, const std::vector<std::string>& args);
// Why the text of a number option is not one of its values, worded as input::problem() words a
// number ("is not a number; expected an integer from 1 to 64"), with the values meant where
// they are plain ("2.5" for an integer: " (did you mean 2 or 3?)"); "" when it is one.
std::string number_text_problem(const input::NumberField& field, const std::string& text);

// Today's date from the system clock (front ends only; the library takes dates as input).
Date today();

// Writes a file whole; a kIoError Status naming it when it cannot.
Status write_text_file(const std::string& path, const std::string& text);

// The whole text of a file, or a kIoError Status naming it.
Result<std::string> read_text_file(const std::string& path);

// The overlay directory when none is given: $RIGPLAN_OVERLAY, else
// $XDG_CONFIG_HOME/rigplan/overlay, else $HOME/.config/rigplan/overlay.
std::string default_overlay_dir();

// Subcommand registration, one per cmd_<name>.cc.
void add_gpus_command(CLI::App& app, CliContext& ctx);
void add_cpus_command(CLI::App& app, CliContext& ctx);
void add_offers_command(CLI::App& app, CliContext& ctx);
void add_regions_command(CLI::App& app, CliContext& ctx);
void add_catalog_command(CLI::App& app, CliContext& ctx);
void add_overview_command(CLI::App& app, CliContext& ctx);
void add_workloads_command(CLI::App& app, CliContext& ctx);
void add_engines_command(CLI::App& app, CliContext& ctx);
void add_memory_command(CLI::App& app, CliContext& ctx);
void add_validate_command(CLI::App& app, CliContext& ctx);
void add_predict_command(CLI::App& app, CliContext& ctx);
void add_train_plan_command(CLI::App& app, CliContext& ctx);
void add_compare_command(CLI::App& app, CliContext& ctx);
void add_calibrate_command(CLI::App& app, CliContext& ctx);
void add_cost_command(CLI::App& app, CliContext& ctx);
void add_recommend_command(CLI::App& app, CliContext& ctx);
void add_build_command(CLI::App& app, CliContext& ctx);
// `serve` in the rigplan executable: runs rigplan-serve, installed beside it, with the same
// arguments (src/serve/cmd_serve.cc has the command itself).
void add_serve_handoff(CLI::App& app, CliContext& ctx);
inline constexpr const char* kServeDescription =
    "Serve the JSON API (each endpoint answers what the command prints with --json) and a web "
    "page";
void add_report_command(CLI::App& app, CliContext& ctx);

}  // namespace rigplan::cli
