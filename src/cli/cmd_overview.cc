// rigplan overview: what the catalog holds, and the GPUs worth a look for a budget — the
// memory bandwidth and 16-bit tensor throughput each dollar buys (Dettmers 2023: memory
// bandwidth is the best single indicator of deep-learning speed, tensor throughput the next).
#include "cli/cli_context.h"
#include "rigplan/catalog_query.h"

namespace rigplan::cli {

void add_overview_command(CLI::App& app, CliContext& ctx) {
  // The default question, a choice rather than a fact: a first or next GPU within the first
  // persona's budget (docs/reference/PRODUCT.md: 300-3,000 USD) with at least 12 GB.
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
    auto gpus = budget_gpus(**loaded, query);
    if (!gpus) return void(ctx.exit_code = ctx.fail(gpus.status()));
    if (ctx.json) return ctx.print_json(report::overview_json(**loaded, *gpus));
    *ctx.out << report::overview_text(**loaded, query, *gpus);
  });
}

}  // namespace rigplan::cli
