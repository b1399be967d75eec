// rigplan recommend [WORKLOAD | --preset ID] [job size] [constraints]: a ranked list of owned
// machines and cloud offers.
#include <fmt/format.h>

#include "cli/cli_context.h"
#include "rigplan/input.h"
#include "rigplan/recommend.h"

namespace rigplan::cli {
namespace {

// What the command line gives beyond the library's request: files and how to print.
struct RecommendOptions {
  RunOptions run;
  RecommendRequest request;
  std::string build_file, html_file;
  std::string cpu, loader;
  size_t top = 10;
  bool explain = false;
  bool list_presets = false;
};

void add_job_options(CLI::App* cmd, RecommendRequest& r) {
  cmd->add_option(
      "--preset", r.preset,
      "A persona: beginner, kaggle, cv-research, nlp-research, llm-finetune, startup, cluster, "
      "local-llm, chatbot-8b, chatbot-70b");
  cmd->add_option("--tokens", r.tokens, "Job size: tokens to process");
  cmd->add_option("--samples", r.samples, "Job size: samples (sequences, images) to process");
  auto* images =
      cmd->add_option("--images", r.images, "Job size: images per epoch (with --epochs)");
  cmd->add_option("--epochs", r.epochs, "Epochs over --images")->needs(images);
  cmd->add_option("--hours-per-month", r.hours_per_month,
                  "Usage: hours of work a month as measured on one --reference GPU");
  cmd->add_option("--reference", r.reference_gpu, "Reference GPU of --hours-per-month");
  cmd->add_option("--serve-rate", r.serve_rate,
                  "A serving job: requests per second to serve, each --input-len prompt tokens "
                  "and --output-len generated (docs/inference.md)");
  cmd->add_option("--max-ttft-ms", r.max_ttft_ms, "Serving: most mean time to the first token, ms");
  cmd->add_option("--max-tpot-ms", r.max_tpot_ms,
                  "Serving: most mean time per output token after the first, ms");
  cmd->add_option("--serve-hours", r.serve_hours,
                  "Serving: hours a month the service is up (default 730, always)");
}

void add_constraint_options(CLI::App* cmd, ConstraintOptions& k) {
  cmd->add_option("--budget", k.budget_usd, "USD: purchase price (own) or total rent");
  cmd->add_option("--region", k.region, "Region of an owned machine (electricity, carbon)");
  cmd->add_option("--utilisation", k.utilisation,
                  "Share of the time an owned machine is busy (work demands; default 0.5)");
  cmd->add_option("--horizon-months", k.horizon_months, "Months of ownership or use");
  cmd->add_option("--acquire", k.acquire, "own, rent or both");
  cmd->add_option("--condition", k.condition, "new, used or any");
  cmd->add_option("--max-power", k.max_power_w, "Most an owned machine may draw at the wall, W");
  cmd->add_option("--circuit", k.circuit,
                  "Wall circuit: us-15a, us-20a, eu-16a, uk-13a, jp-15a, ...");
  cmd->add_option("--max-gpus", k.max_gpus, "Most GPUs in one option");
  cmd->add_option("--gpus-allowed", k.gpus_allowed,
                  "Only options on these GPUs: comma-separated ids or names")
      ->delimiter(',');
  cmd->add_option("--have", k.have,
                  "GPUs you own, e.g. gtx-1080-ti or 2x rtx-3090 (comma-separated): each option's "
                  "speedup over them, their resale, net cost, and keeping them as an option")
      ->delimiter(',');
  cmd->add_option(
      "--system", k.system,
      "Base system for owned options, e.g. existing-desktop to add a GPU to a PC you have");
  cmd->add_option("--power-limit", k.power_limit, "Cap GPU power at this fraction of board power");
  cmd->add_option("--electricity", k.electricity_usd_per_kwh,
                  "Electricity price in USD/kWh, replacing the region's");
  cmd->add_option("--pue", k.pue, "PUE of the owned machine's site");
  cmd->add_flag("--no-resale", k.no_resale,
                "Do not count resale of owned GPUs at the end of the horizon");
  cmd->add_option("--max-price-age", k.max_price_age_months,
                  "Months: an option priced longer ago says so (default 6)");
  cmd->add_flag("--allow-stale-prices", k.allow_stale_prices,
                "Rank options whose prices are more than a year old or undated");
}

void run_recommend(CliContext& ctx, RecommendOptions& o) {
  if (Status s = input::check(input::kTop, static_cast<double>(o.top)); !s.ok())
    return void(ctx.exit_code = ctx.fail(s));
  const std::vector<Preset>& presets = embedded_presets();
  if (o.list_presets) {
    if (ctx.json) return ctx.print_json(report::presets_json(presets));
    *ctx.out << report::presets_text(presets);
    return;
  }
  auto loaded = ctx.load();
  if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
  const Catalog& catalog = **loaded;
  auto zoo = ctx.load_zoo();
  if (!zoo) return void(ctx.exit_code = ctx.fail(zoo.status()));
  RecommendRequest request = o.request;
  request.constraints.today = today();
  auto host = host_spec(catalog, o.cpu, o.loader);
  if (!host) return void(ctx.exit_code = ctx.fail(host.status()));
  request.host = *host;
  // A preset's tasks run the framework asked for, and its training tasks compiled as asked.
  request.run.framework = o.run.run.framework;
  request.run.compile = o.run.run.compile;
  request.run.cuda_graphs = o.run.run.cuda_graphs;
  if (!o.run.workload.empty() || !o.run.hf_config.empty()) {
    auto named = resolve_run(ctx, **zoo, o.run);
    if (!named) return void(ctx.exit_code = ctx.fail(named.status()));
    request.workload = std::move(named->workload);
    request.run = named->run;
  }
  std::optional<BuildMachine> machine;
  if (!o.build_file.empty()) {
    auto m = load_build_machine(o.build_file, catalog);
    if (!m) return void(ctx.exit_code = ctx.fail(m.status()));
    machine = std::move(m).value();
    request.machine = &machine->machine;
    request.machine_gpu = machine->build.gpu->id;
    request.machine_gpu_count = machine->build.gpu_count;
  }
  auto resolved = resolve_request(request, presets, **zoo);
  if (!resolved) return void(ctx.exit_code = ctx.fail(resolved.status()));
  auto rec =
      recommend(resolved->demand, resolved->constraints, catalog, embedded_calibration(), o.top);
  if (!rec) return void(ctx.exit_code = ctx.fail(rec.status()));
  if (!o.html_file.empty() &&
      ctx.emit_html(o.html_file, report::recommend_html(*rec, o.top, today().to_string())))
    return;
  if (ctx.json) return void(*ctx.out << report::recommend_json(*rec, o.top) << "\n");
  *ctx.out << report::recommend_text(*rec, o.top, o.explain);
}

}  // namespace

void add_recommend_command(CLI::App& app, CliContext& ctx) {
  auto& o = ctx.keep<RecommendOptions>();
  auto* cmd = app.add_subcommand(
      "recommend",
      "Ranked owned machines and cloud offers for a workload or preset, with cost, time and CO2");
  add_run_options(cmd, o.run, ctx);
  add_framework_option(cmd, o.run.run);
  add_compile_options(cmd, o.run.run);
  cmd->add_flag("--presets", o.list_presets, "List the presets and exit");
  add_job_options(cmd, o.request);
  add_constraint_options(cmd, o.request.constraints);
  cmd->add_option("--build", o.build_file,
                  "Own only this machine (a build file, docs/builds.md), against every offer");
  cmd->add_option("--cpu", o.cpu,
                  "The CPU of every machine (catalog id or name): its input pipeline bounds "
                  "training steps (docs/performance.md)");
  cmd->add_option("--loader", o.loader,
                  "Data loader with --cpu: pytorch (default), pytorch-pillow-simd, dali, dali-gpu");
  cmd->add_option("--top", o.top, "Options to show (Pareto-front options are always shown)")
      ->capture_default_str();
  cmd->add_flag("--explain", o.explain, "How each number is computed");
  cmd->add_option(
      "--html", o.html_file,
      "Also write a self-contained HTML report with charts to this file (-: to stdout only)");
  cmd->callback([&ctx, &o] { run_recommend(ctx, o); });
}

}  // namespace rigplan::cli
