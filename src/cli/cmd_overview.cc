// rigplan overview: what the catalog holds, and the GPUs worth a look for a budget — the
// memory bandwidth and 16-bit tensor throughput each dollar buys (Dettmers 2023: memory
// bandwidth is the best single indicator of deep-learning speed, tensor throughput the next).
#include <fmt/format.h>

#include <algorithm>

#include "cli/cli_context.h"
#include "rigplan/catalog_query.h"
#include "util/strings.h"

namespace rigplan::cli {

void add_overview_command(CLI::App& app, CliContext& ctx) {
  auto& query = ctx.keep<GpuQuery>(GpuQuery{.min_memory_gb = 12.0, .max_price_usd = 2500.0});
  auto* overview = app.add_subcommand(
      "overview", "The catalog at a glance, and GPUs for a budget by bandwidth per dollar");
  overview->add_option("--min-memory", query.min_memory_gb, "Minimum memory, GB")
      ->capture_default_str();
  overview->add_option("--max-price", query.max_price_usd, "Maximum new price, USD")
      ->capture_default_str();
  overview->callback([&ctx, &query] {
    auto loaded = ctx.load();
    if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
    const Catalog& catalog = **loaded;
    auto found = query_gpus(catalog, query);
    if (!found) return void(ctx.exit_code = ctx.fail(found.status()));
    auto gpus = std::move(found).value();
    auto per_kusd = [](const Gpu* g) { return g->mem_bandwidth_gbps / new_price(*g)->usd * 1000; };
    std::stable_sort(gpus.begin(), gpus.end(),
                     [&](const Gpu* a, const Gpu* b) { return per_kusd(a) > per_kusd(b); });
    if (ctx.json) {
      report::Json rows = report::Json::array();
      for (const Gpu* g : gpus) {
        const auto price = *new_price(*g);
        rows.push_back({{"id", g->id},
                        {"memory_gb", g->memory_gb},
                        {"mem_bandwidth_gbps", g->mem_bandwidth_gbps},
                        {"price_usd", price.usd},
                        {"price_kind", price.kind},
                        {"gbps_per_kusd", per_kusd(g)}});
      }
      ctx.print_json({{"gpus", catalog.gpus.size()},
                      {"cpus", catalog.cpus.size()},
                      {"offers", catalog.offers.size()},
                      {"regions", catalog.regions.size()},
                      {"budget_gpus", rows}});
      return;
    }
    const Catalog& c = catalog;
    *ctx.out << fmt::format(
        "rigplan catalog: {} GPUs, {} CPUs, {} cloud offers, {} regions, {} interconnects.\n\n",
        c.gpus.size(), c.cpus.size(), c.offers.size(), c.regions.size(), c.interconnects.size());
    *ctx.out << fmt::format(
        "GPUs with at least {} GB for at most {} USD new, by memory bandwidth per 1,000 USD:\n\n",
        format_number(*query.min_memory_gb), format_number(*query.max_price_usd));
    using A = report::Table::Align;
    report::Table table({{"gpu"},
                         {"memory GB", A::kRight},
                         {"GB/s", A::kRight},
                         {"16-bit TFLOPS", A::kRight},
                         {"price USD", A::kRight},
                         {"price kind, date"},
                         {"GB/s per kUSD", A::kRight},
                         {"TFLOPS per kUSD", A::kRight},
                         {"used USD", A::kRight}});
    for (const Gpu* g : gpus) {
      const auto price = *new_price(*g);
      const auto tensor = g->bf16_tflops ? g->bf16_tflops : g->fp16_tflops;
      table.add_row(
          {g->id, format_number(g->memory_gb), format_number(g->mem_bandwidth_gbps),
           tensor ? format_number(*tensor) : "-", format_number(price.usd),
           fmt::format("{}, {}", price.kind, price.date ? price.date->to_string() : "undated"),
           fmt::format("{:.0f}", per_kusd(g)),
           tensor ? fmt::format("{:.1f}", *tensor / price.usd * 1000) : "-",
           g->used_price_usd ? format_number(*g->used_price_usd) : "-"});
    }
    *ctx.out << table.render()
             << "\nEvery figure has a source: `rigplan gpus show ID`. Other budgets: "
                "`rigplan overview --max-price N --min-memory GB`.\n";
  });
}

}  // namespace rigplan::cli
