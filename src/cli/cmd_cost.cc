// rigplan cost [WORKLOAD] --gpu ID [--gpus N] ...: owning one machine against renting.
#include <fmt/format.h>

#include "cli/cli_context.h"
#include "rigplan/cost.h"
#include "rigplan/input.h"
#include "util/strings.h"

namespace rigplan::cli {
namespace {

struct CostOptions {
  RunOptions run;
  CostRequest request;
  std::string offers, build_file, html_file;
  bool explain = false;
  bool no_resale = false;
};

void add_machine_options(CLI::App* cmd, CostOptions& o) {
  CostRequest& r = o.request;
  auto* gpu = cmd->add_option("--gpu", r.gpu, "GPU id or name of the owned machine");
  cmd->add_option("--build", o.build_file,
                  "A build file (docs/builds.md): the machine, its GPUs and its price")
      ->excludes(gpu);
  cmd->add_option("--gpus", r.count, "GPUs in the machine (1-8)")->capture_default_str();
  cmd->add_option("--condition", r.condition, "new or used")->capture_default_str();
  cmd->add_option("--system", r.system,
                  "Base system id (default: the cheapest that holds the GPUs)");
  cmd->add_option("--price", r.capex_usd,
                  "Price of the whole machine in USD, replacing the catalog's");
  auto* utilisation =
      cmd->add_option("--utilisation", r.utilisation, "Share of the time the machine is busy (0-1]")
          ->capture_default_str();
  cmd->add_option("--hours-per-month", r.hours_per_month,
                  "Busy hours a month, instead of --utilisation")
      ->excludes(utilisation);
  cmd->add_option("--horizon-months", r.horizon_months, "Months of ownership")
      ->capture_default_str();
}

void add_site_options(CLI::App* cmd, CostOptions& o) {
  CostRequest& r = o.request;
  cmd->add_option("--region", r.region, "Region for electricity price and grid carbon")
      ->capture_default_str();
  cmd->add_option("--electricity", r.electricity_usd_per_kwh,
                  "Electricity price in USD/kWh, replacing the region's");
  cmd->add_option("--pue", r.pue,
                  "Power usage effectiveness of the site (default: 1 office, 1.58 rack)");
  cmd->add_option("--power", r.wall_w,
                  "Average draw at the wall while busy, W, replacing the model's");
  cmd->add_option("--power-limit", r.power_limit, "Cap GPU power at this fraction of board power")
      ->capture_default_str();
  cmd->add_option("--offer", o.offers,
                  "Comma-separated offer ids to compare (default: same GPU and count)");
  cmd->add_option("--rent", r.rent_usd_per_hour, "Compare with renting at this USD per hour");
  cmd->add_flag("--no-resale", o.no_resale, "Do not count the GPUs' resale value at the end");
}

void run_cost(CliContext& ctx, const CostOptions& o) {
  auto loaded = ctx.load();
  if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
  const Catalog& catalog = **loaded;
  CostRequest r = o.request;
  std::optional<Workload> workload;
  if (o.run.workload.empty() && o.run.hf_config.empty()) {
    // Without a workload the run options would be ignored: refuse them rather than do so.
    for (const CLI::Option* option : o.run.cmd->get_options()) {
      if (option->count() > 0 && is_run_option(option->get_name())) {
        return void(ctx.exit_code = ctx.fail(Status::invalid_input(
                        fmt::format("{} describes a run of a workload; name one (`rigplan "
                                    "workloads list`) or leave it out",
                                    option->get_name()))));
      }
    }
  } else {
    auto zoo = ctx.load_zoo();
    if (!zoo) return void(ctx.exit_code = ctx.fail(zoo.status()));
    auto named = resolve_run(ctx, **zoo, o.run);
    if (!named) return void(ctx.exit_code = ctx.fail(named.status()));
    workload = std::move(named->workload);
    r.workload = &*workload;
    r.run = named->run;
  }
  std::optional<BuildMachine> machine;
  if (!o.build_file.empty()) {
    auto m = load_build_machine(o.build_file, catalog);
    if (!m) return void(ctx.exit_code = ctx.fail(m.status()));
    machine = std::move(m).value();
    r.gpu = machine->build.gpu->id;
    r.count = machine->build.gpu_count;
    r.machine = &machine->machine;
  } else if (r.gpu.empty()) {
    return void(ctx.exit_code = ctx.fail(
                    Status::invalid_input("name the owned machine: --gpu ID or --build FILE")));
  }
  r.offers = split(o.offers, ',');
  if (Status s = input::check_list("offer", r.offers.size()); !s.ok())
    return void(ctx.exit_code = ctx.fail(s));
  r.resale = !o.no_resale;
  auto c = compare_costs(r, catalog, embedded_calibration());
  if (!c) return void(ctx.exit_code = ctx.fail(c.status()));
  if (!o.html_file.empty() &&
      ctx.emit_html(o.html_file, report::cost_html(*c, today().to_string())))
    return;
  if (ctx.json) return ctx.print_json(report::to_json(*c));
  *ctx.out << report::cost_text(*c, o.explain);
}

}  // namespace

void add_cost_command(CLI::App& app, CliContext& ctx) {
  auto& o = ctx.keep<CostOptions>();
  auto* cmd = app.add_subcommand(
      "cost", "Buy vs rent: owning a machine over a horizon against cloud offers, with break-even");
  add_run_options(cmd, o.run, ctx);
  add_machine_options(cmd, o);
  add_site_options(cmd, o);
  cmd->add_flag("--explain", o.explain, "How each number is computed");
  cmd->add_option(
      "--html", o.html_file,
      "Also write a self-contained HTML report with the cost-over-time chart (-: to stdout only)");
  cmd->callback([&ctx, &o] { run_cost(ctx, o); });
}

}  // namespace rigplan::cli
