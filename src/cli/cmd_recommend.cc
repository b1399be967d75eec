// rigplan recommend [WORKLOAD | --preset ID] [job size] [constraints]: a ranked list of owned
// machines and cloud offers.
#include <fmt/format.h>

#include "cli/cli_context.h"
#include "rigplan/recommend.h"
#include "util/strings.h"

namespace rigplan::cli {

void add_recommend_command(CLI::App& app, CliContext& ctx) {
  auto& o = ctx.keep<RunOptions>();
  auto& k = ctx.keep<Constraints>();
  auto& preset_id = ctx.keep<std::string>();
  auto& reference = ctx.keep<std::string>();
  auto& build_file = ctx.keep<std::string>();
  auto& html_file = ctx.keep<std::string>();
  auto& tokens = ctx.keep<std::optional<double>>();
  auto& samples = ctx.keep<std::optional<double>>();
  auto& images = ctx.keep<std::optional<double>>();
  auto& epochs = ctx.keep<std::optional<double>>();
  auto& hours_per_month = ctx.keep<std::optional<double>>();
  auto& top = ctx.keep<size_t>(10);
  auto& explain = ctx.keep<bool>(false);
  auto& no_resale = ctx.keep<bool>(false);
  auto& list_presets = ctx.keep<bool>(false);
  auto* cmd = app.add_subcommand(
      "recommend",
      "Ranked owned machines and cloud offers for a workload or preset, with cost, time and CO2");
  add_run_options(cmd, o);
  cmd->add_option(
      "--preset", preset_id,
      "A persona: beginner, kaggle, cv-research, nlp-research, llm-finetune, startup, cluster");
  cmd->add_flag("--presets", list_presets, "List the presets and exit");
  auto* tokens_opt = cmd->add_option("--tokens", tokens, "Job size: tokens to process");
  auto* samples_opt =
      cmd->add_option("--samples", samples, "Job size: samples (sequences, images) to process");
  auto* images_opt =
      cmd->add_option("--images", images, "Job size: images per epoch (with --epochs)");
  cmd->add_option("--epochs", epochs, "Epochs over --images")->needs(images_opt);
  auto* hours_opt =
      cmd->add_option("--hours-per-month", hours_per_month,
                      "Usage: hours of work a month as measured on one --reference GPU");
  auto* reference_opt =
      cmd->add_option("--reference", reference, "Reference GPU of --hours-per-month");
  auto* budget =
      cmd->add_option("--budget", k.budget_usd, "USD: purchase price (own) or total rent");
  auto* region =
      cmd->add_option("--region", k.region, "Region of an owned machine (electricity, carbon)");
  auto* utilisation =
      cmd->add_option("--utilisation", k.utilisation,
                      "Share of the time an owned machine is busy (work demands; default 0.5)");
  auto* horizon =
      cmd->add_option("--horizon-months", k.horizon_months, "Months of ownership or use");
  auto* acquire = cmd->add_option("--acquire", k.acquire, "own, rent or both");
  auto* condition = cmd->add_option("--condition", k.condition, "new, used or any");
  auto* max_power = cmd->add_option("--max-power", k.max_power_w,
                                    "Most an owned machine may draw at the wall, W");
  auto* circuit = cmd->add_option("--circuit", k.circuit,
                                  "Wall circuit: us-15a, us-20a, eu-16a, uk-13a, jp-15a, ...");
  auto* max_gpus = cmd->add_option("--max-gpus", k.max_gpus, "Most GPUs in one option");
  auto* system = cmd->add_option(
      "--system", k.system,
      "Base system for owned options, e.g. existing-desktop to add a GPU to a PC you have");
  cmd->add_option("--build", build_file,
                  "Own only this machine (a build file, docs/builds.md), against every offer");
  cmd->add_option("--power-limit", k.power_limit, "Cap GPU power at this fraction of board power");
  cmd->add_option("--electricity", k.electricity_usd_per_kwh,
                  "Electricity price in USD/kWh, replacing the region's");
  cmd->add_option("--pue", k.pue, "PUE of the owned machine's site");
  cmd->add_flag("--no-resale", no_resale,
                "Do not count resale of owned GPUs at the end of the horizon");
  cmd->add_option("--top", top, "Options to show (Pareto-front options are always shown)")
      ->capture_default_str();
  cmd->add_flag("--explain", explain, "How each number is computed");
  cmd->add_option(
      "--html", html_file,
      "Also write a self-contained HTML report with charts to this file (-: to stdout only)");
  cmd->callback([=, &ctx, &o, &k, &preset_id, &reference, &build_file, &html_file, &tokens,
                 &samples, &images, &epochs, &hours_per_month, &top, &explain, &no_resale,
                 &list_presets] {
    const std::vector<Preset>& presets = embedded_presets();
    if (list_presets) {
      if (ctx.json) {
        report::Json out = report::Json::array();
        for (const auto& p : presets)
          out.push_back({{"id", p.id},
                         {"name", p.name},
                         {"description", p.description},
                         {"dettmers_pick", p.dettmers_pick}});
        return ctx.print_json(out);
      }
      report::Table table({{"preset"}, {"name"}, {"description"}});
      for (const auto& p : presets) table.add_row({p.id, p.name, p.description});
      *ctx.out << table.render();
      return;
    }
    auto loaded = ctx.load();
    if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
    const Catalog& catalog = **loaded;
    auto loaded_zoo = ctx.load_zoo();
    if (!loaded_zoo) return void(ctx.exit_code = ctx.fail(loaded_zoo.status()));
    const Zoo& zoo = **loaded_zoo;
    auto bad = [&](std::string message) {
      ctx.exit_code = ctx.fail(Status::invalid_input(std::move(message)));
    };

    Demand demand;
    Constraints constraints = k;
    if (!preset_id.empty()) {
      auto preset = find_preset(presets, preset_id);
      if (!preset) return void(ctx.exit_code = ctx.fail(preset.status()));
      auto d = preset_demand(**preset, zoo);
      if (!d) return void(ctx.exit_code = ctx.fail(d.status()));
      demand = std::move(d).value();
      // The preset's constraints, each replaced by the option given on the command line.
      const Constraints& p = (*preset)->constraints;
      constraints = p;
      constraints.power_limit = k.power_limit;
      constraints.electricity_usd_per_kwh = k.electricity_usd_per_kwh;
      constraints.pue = k.pue;
      if (budget->count()) constraints.budget_usd = k.budget_usd;
      if (region->count()) constraints.region = k.region;
      if (utilisation->count()) constraints.utilisation = k.utilisation;
      if (horizon->count()) constraints.horizon_months = k.horizon_months;
      if (acquire->count()) constraints.acquire = k.acquire;
      if (condition->count()) constraints.condition = k.condition;
      if (max_power->count()) constraints.max_power_w = k.max_power_w;
      if (circuit->count()) constraints.circuit = k.circuit;
      if (max_gpus->count()) constraints.max_gpus = k.max_gpus;
      if (system->count()) constraints.system = k.system;
    } else if (o.workload.empty() && o.hf_config.empty()) {
      return bad(
          "name a workload (`rigplan workloads list`) or a preset (--preset; `rigplan recommend "
          "--presets`)");
    }
    if (!o.workload.empty() || !o.hf_config.empty()) {
      auto w = ctx.resolve_workload(zoo, o.workload, o.hf_config);
      if (!w) return void(ctx.exit_code = ctx.fail(w.status()));
      auto run = run_config(o);
      if (!run) return void(ctx.exit_code = ctx.fail(run.status()));
      demand.tasks = {Task{std::move(w).value(), *run, 1}};
    }
    const int sizes = static_cast<int>(tokens_opt->count() + samples_opt->count() +
                                       images_opt->count() + hours_opt->count());
    if (sizes > 1)
      return bad(
          "give one job size: --tokens, --samples, --images (with --epochs) or --hours-per-month");
    if (sizes == 1) {
      demand.work.reset();
      demand.hours_per_month.reset();
      if (tokens) demand.work = *tokens;
      if (samples) demand.work = *samples;
      if (images) demand.work = *images * epochs.value_or(1);
      if (hours_per_month) demand.hours_per_month = *hours_per_month;
    } else if (preset_id.empty()) {
      return bad(
          "give a job size: --tokens N, --samples N, --images N --epochs E, or --hours-per-month "
          "H");
    }
    if (reference_opt->count()) demand.reference_gpu = reference;
    constraints.resale = !no_resale;
    std::optional<BuildMachine> machine;
    if (!build_file.empty()) {
      auto m = load_build_machine(build_file, catalog);
      if (!m) return void(ctx.exit_code = ctx.fail(m.status()));
      machine = std::move(m).value();
      constraints.machine = &machine->machine;
      constraints.machine_gpu = machine->build.gpu->id;
      constraints.max_gpus = std::max(constraints.max_gpus, machine->build.gpu_count);
    }
    auto rec = recommend(demand, constraints, catalog, embedded_calibration());
    if (!rec) return void(ctx.exit_code = ctx.fail(rec.status()));
    if (!html_file.empty() &&
        ctx.emit_html(html_file, report::recommend_html(*rec, top, today().to_string())))
      return;
    if (ctx.json) return ctx.print_json(report::to_json(*rec, top));
    *ctx.out << report::recommend_text(*rec, top, explain);
  });
}

}  // namespace rigplan::cli
