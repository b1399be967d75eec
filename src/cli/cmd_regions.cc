// rigplan regions list | show ID
#include <fmt/format.h>

#include "cli/cli_context.h"
#include "rigplan/catalog_query.h"
#include "util/strings.h"

namespace rigplan::cli {
namespace {

std::string region_table(const std::vector<const Region*>& regions) {
  using A = report::Table::Align;
  report::Table table({{"id"},
                       {"name"},
                       {"kind"},
                       {"parent"},
                       {"USD/kWh", A::kRight},
                       {"price date"},
                       {"gCO2/kWh", A::kRight},
                       {"carbon year", A::kRight},
                       {"PUE", A::kRight}});
  for (const Region* r : regions) {
    table.add_row({r->id, r->name, r->kind, r->parent.empty() ? "-" : r->parent,
                   r->electricity_usd_per_kwh ? format_number(*r->electricity_usd_per_kwh) : "-",
                   r->electricity_date ? r->electricity_date->to_string() : "-",
                   r->carbon_gco2_per_kwh ? format_number(*r->carbon_gco2_per_kwh) : "-",
                   r->carbon_year ? std::to_string(*r->carbon_year) : "-",
                   r->pue ? format_number(*r->pue) : "-"});
  }
  return table.render();
}

}  // namespace

void add_regions_command(CLI::App& app, CliContext& ctx) {
  auto* regions = app.add_subcommand(
      "regions", "Browse the regions: electricity prices and grid carbon intensity");
  regions->require_subcommand(1);

  auto& query = ctx.keep<RegionQuery>();
  auto* list = regions->add_subcommand("list", "List regions, filtered and sorted");
  list->add_option("--kind", query.kind, "world, country, us-state or cloud-region");
  list->add_option("--sort", query.sort,
                   "Field to sort by (e.g. carbon_gco2_per_kwh); '-' first: descending");
  list->callback([&ctx, &query] {
    auto loaded = ctx.load();
    if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
    const Catalog& catalog = **loaded;
    auto found = query_regions(catalog, query);
    if (!found) return void(ctx.exit_code = ctx.fail(found.status()));
    if (ctx.json) {
      report::Json out = report::Json::array();
      for (const Region* r : *found) out.push_back(report::to_json(*r));
      ctx.print_json(out);
    } else {
      *ctx.out << region_table(*found) << fmt::format("{} regions\n", found->size());
    }
  });

  auto& name = ctx.keep<std::string>();
  auto* show = regions->add_subcommand("show", "Every field of a region, with its source");
  show->add_option("region", name, "Region id or name")->required();
  show->callback([&ctx, &name] {
    auto loaded = ctx.load();
    if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
    const Catalog& catalog = **loaded;
    auto region = catalog.find_region(name);
    if (!region) return void(ctx.exit_code = ctx.fail(region.status()));
    if (ctx.json) {
      ctx.print_json(report::to_json(**region));
    } else {
      *ctx.out << fmt::format("{} ({})\n\n", (*region)->name, (*region)->id)
               << report::show_text(**region);
    }
  });
}

}  // namespace rigplan::cli
