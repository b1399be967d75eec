// rigplan catalog check [DIR]
#include <fmt/format.h>

#include "cli/cli_context.h"
#include "rigplan/engine.h"
#include "rigplan/input_pipeline.h"
#include "rigplan/prices.h"

namespace rigplan::cli {
namespace {

report::Json counts_json(const Catalog& c) {
  return {{"gpus", c.gpus.size()},
          {"cpus", c.cpus.size()},
          {"offers", c.offers.size()},
          {"regions", c.regions.size()},
          {"interconnects", c.interconnects.size()},
          {"systems", c.systems.size()},
          {"circuits", c.circuits.size()},
          {"psus", c.psus.size()},
          {"nics", c.nics.size()},
          {"boards", c.boards.size()},
          {"chassis", c.chassis.size()},
          {"parts", c.parts.size()},
          {"psu_efficiencies", c.psu_efficiencies.size()},
          {"families", c.families.size()}};
}

// The engines and their formats, checked with the catalog: the embedded ones or a directory's.
Result<Engines> engines_to_check(const std::string& engines_dir) {
  if (engines_dir.empty()) return load_engines(embedded_engine_files_list());
  auto files = read_catalog_dir(engines_dir);
  if (!files) return files.status();
  return load_engines(*files);
}

// The input pipelines' rates, checked with the catalog: the embedded ones or a directory's.
Result<InputPipelines> pipelines_to_check(const std::string& pipeline_dir) {
  if (pipeline_dir.empty()) return load_input_pipelines(embedded_pipeline_files_list());
  auto files = read_catalog_dir(pipeline_dir);
  if (!files) return files.status();
  return load_input_pipelines(*files);
}

// The catalog in use (with its overlay), or a directory alone, without the overlay.
Result<std::shared_ptr<const Catalog>> catalog_to_check(const CliContext& ctx,
                                                        const std::string& dir) {
  if (dir.empty()) return ctx.load();
  auto files = read_catalog_dir(dir, /*required=*/true);
  if (!files) return files.status();
  auto read = load_catalog(*files);
  if (!read) return read.status();
  return std::shared_ptr<const Catalog>(std::make_shared<Catalog>(std::move(read).value()));
}

report::Json price_findings_json(const Catalog& catalog) {
  report::Json stale = report::Json::array();
  for (const auto& p : stale_prices(catalog, today(), PriceAge::kStaleDays)) {
    stale.push_back({{"kind", p.kind},
                     {"id", p.id},
                     {"field", p.field},
                     {"date", p.date.to_string()},
                     {"age_days", p.age_days}});
  }
  report::Json warnings = report::Json::array();
  for (const auto& w : check_prices(catalog, today())) {
    warnings.push_back({{"rule", w.rule},
                        {"kind", w.kind},
                        {"id", w.id},
                        {"at", fmt::format("{}:{}", w.file, w.line)},
                        {"message", w.message}});
  }
  return {{"stale_prices", stale}, {"price_warnings", warnings}};
}

// A load's problems, one a line; the last line is the summary.
report::Json problems_json(std::string_view text) {
  report::Json problems = report::Json::array();
  for (size_t end; (end = text.find('\n')) != std::string_view::npos; text.remove_prefix(end + 1)) {
    problems.push_back(std::string(text.substr(0, end)));
  }
  return {{"problems", problems}, {"summary", std::string(text)}};
}

report::Json check_json(const Result<std::shared_ptr<const Catalog>>& loaded,
                        const Result<Engines>& engines, const Result<InputPipelines>& pipelines) {
  report::Json out = {{"ok", loaded.ok() && engines.ok() && pipelines.ok()}};
  if (pipelines) {
    out["pipeline"] = {{"inputs", pipelines->inputs.size()},
                       {"loaders", pipelines->loaders.size()}};
  } else {
    out["pipeline_problems"] = pipelines.status().message();
  }
  if (engines) {
    out["engines"] = {{"engines", engines->engines.size()},
                      {"weight_formats", engines->formats.size()},
                      {"kv_formats", engines->kv_formats.size()}};
  } else {
    out["engine_problems"] = engines.status().message();
  }
  if (loaded) {
    out["counts"] = counts_json(**loaded);
    out.update(price_findings_json(**loaded));
  } else {
    out.update(problems_json(loaded.status().message()));
  }
  return out;
}

void print_check(const CliContext& ctx, const Catalog& c, const Engines& engines,
                 const InputPipelines& pipelines) {
  *ctx.out << fmt::format(
      "catalog OK: {} GPUs, {} CPUs, {} offers, {} regions, {} interconnects, {} base systems, "
      "{} circuits, {} PSUs, {} NICs, {} boards, {} chassis, {} parts, {} PSU efficiency tiers, "
      "{} GPU families\n",
      c.gpus.size(), c.cpus.size(), c.offers.size(), c.regions.size(), c.interconnects.size(),
      c.systems.size(), c.circuits.size(), c.psus.size(), c.nics.size(), c.boards.size(),
      c.chassis.size(), c.parts.size(), c.psu_efficiencies.size(), c.families.size());
  *ctx.out << fmt::format("engines OK: {} engines, {} weight formats, {} KV-cache formats\n",
                          engines.engines.size(), engines.formats.size(),
                          engines.kv_formats.size());
  *ctx.out << fmt::format("pipeline OK: {} inputs, {} loaders\n", pipelines.inputs.size(),
                          pipelines.loaders.size());
  for (const auto& w : check_prices(c, today())) {
    *ctx.err << fmt::format("{}:{}: warning: {} '{}': {} [{}]\n", w.file, w.line, w.kind, w.id,
                            w.message, w.rule);
  }
  const auto stale = stale_prices(c, today(), PriceAge::kStaleDays);
  if (!stale.empty()) {
    *ctx.err << fmt::format(
        "rigplan: {} prices are more than {} days old (oldest: {} {} {}, {}); refresh them or "
        "add current ones in an overlay\n",
        stale.size(), PriceAge::kStaleDays, stale.front().kind, stale.front().id,
        stale.front().field, stale.front().date.to_string());
  }
}

}  // namespace

void add_catalog_command(CLI::App& app, CliContext& ctx) {
  auto* command = app.add_subcommand("catalog", "Check a catalog directory");
  command->require_subcommand(1);

  auto& dir = ctx.keep<std::string>();
  auto& engines_dir = ctx.keep<std::string>();
  auto& pipeline_dir = ctx.keep<std::string>();
  auto* check = command->add_subcommand(
      "check",
      "Validate a catalog directory (default: the catalog in use) and the inference engines "
      "(data/engines), and report every problem");
  check->add_option("dir", dir, "Catalog directory");
  check->add_option("--engines", engines_dir,
                    "Directory of engine files to check (default: the embedded data/engines)");
  check->add_option("--pipeline", pipeline_dir,
                    "Directory of input-pipeline files to check (default: the embedded "
                    "data/pipeline)");
  check->callback([&ctx, &dir, &engines_dir, &pipeline_dir] {
    const auto engines = engines_to_check(engines_dir);
    const auto pipelines = pipelines_to_check(pipeline_dir);
    const auto loaded = catalog_to_check(ctx, dir);
    if (ctx.json) {
      ctx.print_json(check_json(loaded, engines, pipelines));
      const Status& failed = !loaded    ? loaded.status()
                             : !engines ? engines.status()
                                        : pipelines.status();
      ctx.exit_code =
          failed.ok() ? kExitOk : (failed.is_user_error() ? kExitBadInput : kExitInternal);
      return;
    }
    if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
    if (!engines) return void(ctx.exit_code = ctx.fail(engines.status()));
    if (!pipelines) return void(ctx.exit_code = ctx.fail(pipelines.status()));
    print_check(ctx, **loaded, *engines, *pipelines);
  });
}

}  // namespace rigplan::cli
