// rigplan catalog check [DIR]
#include <fmt/format.h>

#include "cli/cli_context.h"
#include "rigplan/engine.h"
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
          {"chassis", c.chassis.size()}};
}

}  // namespace

// Prices older than this are flagged: cloud and street prices move within months.
constexpr long kStaleAfterDays = 365;

void add_catalog_command(CLI::App& app, CliContext& ctx) {
  auto* command = app.add_subcommand("catalog", "Check a catalog directory");
  command->require_subcommand(1);

  auto& dir = ctx.keep<std::string>();
  auto& engines_dir = ctx.keep<std::string>();
  auto* check = command->add_subcommand(
      "check",
      "Validate a catalog directory (default: the catalog in use) and the inference engines "
      "(data/engines), and report every problem");
  check->add_option("dir", dir, "Catalog directory");
  check->add_option("--engines", engines_dir,
                    "Directory of engine files to check (default: the embedded data/engines)");
  check->callback([&ctx, &dir, &engines_dir] {
    // The engines and their formats are checked with the catalog.
    Result<std::vector<CatalogFile>> engine_files =
        engines_dir.empty() ? Result<std::vector<CatalogFile>>(embedded_engine_files_list())
                            : read_catalog_dir(engines_dir);
    const Result<Engines> engines =
        engine_files ? load_engines(*engine_files) : Result<Engines>(engine_files.status());
    Result<std::shared_ptr<const Catalog>> loaded = Status::internal("not loaded");
    if (dir.empty()) {
      loaded = ctx.load();
    } else {
      // The directory alone, without the overlay.
      auto files = read_catalog_dir(dir, /*required=*/true);
      auto read = files ? load_catalog(*files) : Result<Catalog>(files.status());
      if (read) {
        loaded = std::shared_ptr<const Catalog>(std::make_shared<Catalog>(std::move(read).value()));
      } else {
        loaded = read.status();
      }
    }
    if (ctx.json) {
      report::Json out = {{"ok", loaded.ok() && engines.ok()}};
      if (engines) {
        out["engines"] = {{"engines", engines->engines.size()},
                          {"weight_formats", engines->formats.size()},
                          {"kv_formats", engines->kv_formats.size()}};
      } else {
        out["engine_problems"] = engines.status().message();
      }
      if (loaded) {
        out["counts"] = counts_json(**loaded);
        report::Json stale = report::Json::array();
        for (const auto& p : stale_prices(**loaded, today(), kStaleAfterDays)) {
          stale.push_back({{"kind", p.kind},
                           {"id", p.id},
                           {"field", p.field},
                           {"date", p.date.to_string()},
                           {"age_days", p.age_days}});
        }
        out["stale_prices"] = stale;
        report::Json warnings = report::Json::array();
        for (const auto& w : check_prices(**loaded, today())) {
          warnings.push_back({{"rule", w.rule},
                              {"kind", w.kind},
                              {"id", w.id},
                              {"at", fmt::format("{}:{}", w.file, w.line)},
                              {"message", w.message}});
        }
        out["price_warnings"] = warnings;
      } else {
        report::Json problems = report::Json::array();
        std::string_view text = loaded.status().message();
        // One problem per line; the last line is the summary.
        for (size_t end; (end = text.find('\n')) != std::string_view::npos;
             text.remove_prefix(end + 1)) {
          problems.push_back(std::string(text.substr(0, end)));
        }
        out["problems"] = problems;
        out["summary"] = std::string(text);
      }
      ctx.print_json(out);
      const Status& failed = !loaded ? loaded.status() : engines.status();
      ctx.exit_code =
          failed.ok() ? kExitOk : (failed.is_user_error() ? kExitBadInput : kExitInternal);
      return;
    }
    if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
    if (!engines) return void(ctx.exit_code = ctx.fail(engines.status()));
    const Catalog& c = **loaded;
    *ctx.out << fmt::format(
        "catalog OK: {} GPUs, {} CPUs, {} offers, {} regions, {} interconnects, {} base systems, "
        "{} circuits, {} PSUs, {} NICs, {} boards, {} chassis\n",
        c.gpus.size(), c.cpus.size(), c.offers.size(), c.regions.size(), c.interconnects.size(),
        c.systems.size(), c.circuits.size(), c.psus.size(), c.nics.size(), c.boards.size(),
        c.chassis.size());
    *ctx.out << fmt::format("engines OK: {} engines, {} weight formats, {} KV-cache formats\n",
                            engines->engines.size(), engines->formats.size(),
                            engines->kv_formats.size());
    for (const auto& w : check_prices(c, today())) {
      *ctx.err << fmt::format("{}:{}: warning: {} '{}': {} [{}]\n", w.file, w.line, w.kind, w.id,
                              w.message, w.rule);
    }
    const auto stale = stale_prices(c, today(), kStaleAfterDays);
    if (!stale.empty()) {
      *ctx.err << fmt::format(
          "rigplan: {} prices are more than {} days old (oldest: {} {} {}, {}); refresh them or "
          "add "
          "current ones in an overlay\n",
          stale.size(), kStaleAfterDays, stale.front().kind, stale.front().id, stale.front().field,
          stale.front().date.to_string());
    }
  });
}

}  // namespace rigplan::cli
