// rigplan offers list | show ID
#include <fmt/format.h>

#include "cli/cli_context.h"
#include "rigplan/catalog_query.h"
#include "util/strings.h"

namespace rigplan::cli {
namespace {

std::string offer_table(const std::vector<const Offer*>& offers) {
  using A = report::Table::Align;
  report::Table table({{"id"},
                       {"provider"},
                       {"instance"},
                       {"gpu"},
                       {"count", A::kRight},
                       {"USD/h", A::kRight},
                       {"USD/GPU-h", A::kRight},
                       {"spot USD/h", A::kRight},
                       {"billing"},
                       {"region"},
                       {"price date"}});
  for (const Offer* o : offers) {
    table.add_row(
        {o->id, o->provider, o->instance, o->gpu, std::to_string(o->gpu_count),
         fmt::format("{:.2f}", o->price_per_hour_usd),
         fmt::format("{:.2f}", o->price_per_hour_usd / o->gpu_count),
         o->spot_price_per_hour_usd ? fmt::format("{:.2f}", *o->spot_price_per_hour_usd) : "-",
         o->billing, o->region.empty() ? "-" : o->region, o->price_date.to_string()});
  }
  return table.render();
}

}  // namespace

void add_offers_command(CLI::App& app, CliContext& ctx) {
  auto* offers = app.add_subcommand("offers", "Browse the cloud GPU offers of the catalog");
  offers->require_subcommand(1);

  auto& query = ctx.keep<OfferQuery>();
  auto* list = offers->add_subcommand("list", "List cloud offers, filtered and sorted");
  list->add_option("--gpu", query.gpu, "GPU id, alias or name");
  list->add_option("--provider", query.provider, "aws, gcp, azure, lambda, …");
  list->add_option("--region", query.region,
                   "Region id; a country or state includes its cloud regions");
  list->add_option("--max-price", query.max_price_per_gpu_hour_usd,
                   "Maximum on-demand price per GPU-hour, USD");
  list->add_option("--sort", query.sort,
                   "Field to sort by (e.g. price_per_hour_usd); '-' first: descending");
  list->callback([&ctx, &query] {
    auto loaded = ctx.load();
    if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
    const Catalog& catalog = **loaded;
    auto found = query_offers(catalog, query);
    if (!found) return void(ctx.exit_code = ctx.fail(found.status()));
    if (ctx.json) {
      report::Json out = report::Json::array();
      for (const Offer* o : *found) out.push_back(report::to_json(*o));
      ctx.print_json(out);
    } else {
      *ctx.out << offer_table(*found) << fmt::format("{} offers\n", found->size());
    }
  });

  auto& id = ctx.keep<std::string>();
  auto* show = offers->add_subcommand("show", "Every field of an offer, with its source");
  show->add_option("offer", id, "Offer id")->required();
  show->callback([&ctx, &id] {
    auto loaded = ctx.load();
    if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
    const Catalog& catalog = **loaded;
    auto offer = catalog.find_offer(id);
    if (!offer) return void(ctx.exit_code = ctx.fail(offer.status()));
    if (ctx.json) {
      ctx.print_json(report::to_json(**offer));
    } else {
      *ctx.out << fmt::format("{}\n\n", (*offer)->id) << report::show_text(**offer);
    }
  });
}

}  // namespace rigplan::cli
