// rigplan offers list | show ID
#include <fmt/format.h>

#include <filesystem>

#include "cli/cli_context.h"
#include "rigplan/catalog_query.h"
#include "rigplan/prices.h"
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

struct ImportOptions {
  std::vector<std::string> files;
  OfferImportOptions options;
  std::string as_of, out, rules;
  bool dry_run = false;
};

// Where the files go: --out, else the overlay directory in use; into the base catalog when --out
// is the --catalog directory.
Result<ImportTarget> import_target(const CliContext& ctx, const std::string& out) {
  auto sources = ctx.catalog_sources();
  if (!sources) return sources.status();
  ImportTarget target{std::move(sources->base), std::move(sources->overlay),
                      out.empty() ? sources->overlay_dir : out, false};
  if (target.dir.empty()) {
    return Status::invalid_input("no overlay directory: give --out DIR (or set $HOME)");
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  target.into_base = !ctx.catalog_dir.empty() && fs::equivalent(ctx.catalog_dir, target.dir, ec);
  // A directory other than the overlay in use starts empty: its own files are what it holds.
  if (!target.into_base && !out.empty() && !fs::equivalent(sources->overlay_dir, out, ec)) {
    auto files = fs::is_directory(out, ec)
                     ? read_catalog_dir(out)
                     : Result<std::vector<CatalogFile>>(std::vector<CatalogFile>{});
    if (!files) return files.status();
    target.overlay = std::move(files).value();
  }
  return target;
}

void run_import(CliContext& ctx, ImportOptions& o) {
  if (!o.as_of.empty()) {
    o.options.as_of = Date::parse(o.as_of);
    if (!o.options.as_of) {
      ctx.exit_code = ctx.fail(Status::invalid_input(
          fmt::format("--as-of '{}' is not a date; expected YYYY-MM-DD", shown(o.as_of))));
      return;
    }
  }
  if (!o.rules.empty()) {
    auto text = read_text_file(o.rules);
    if (!text) return void(ctx.exit_code = ctx.fail(text.status()));
    o.options.rules.push_back({o.rules, std::move(text).value()});
  }
  std::vector<PriceListFile> files;
  for (const auto& path : o.files) {
    auto file = read_price_list(path);
    if (!file) return void(ctx.exit_code = ctx.fail(file.status()));
    files.push_back(std::move(file).value());
  }
  auto loaded = ctx.load();
  if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
  auto imported = import_offers(files, o.options, **loaded);
  if (!imported) return void(ctx.exit_code = ctx.fail(imported.status()));
  std::vector<WrittenFile> written;
  if (!o.dry_run) {
    auto target = import_target(ctx, o.out);
    if (!target) return void(ctx.exit_code = ctx.fail(target.status()));
    auto wrote = write_import(*imported, *target);
    if (!wrote) return void(ctx.exit_code = ctx.fail(wrote.status()));
    written = std::move(wrote).value();
  }
  if (ctx.json) {
    ctx.print_json(report::to_json(*imported, written));
  } else {
    *ctx.out << report::import_text(*imported, written);
  }
}

void add_list_command(CLI::App* offers, CliContext& ctx) {
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
}

void add_import_command(CLI::App* offers, CliContext& ctx) {
  auto& imp = ctx.keep<ImportOptions>();
  auto* import = offers->add_subcommand(
      "import", "Read cloud price lists into offers that every command then uses (docs/prices.md)");
  import->add_option("files", imp.files, "Price lists: SkyPilot vms.csv files, or your own CSV")
      ->required();
  import
      ->add_option("--format", imp.options.format,
                   "skypilot (SkyPilot's vms.csv of any cloud) or csv "
                   "(provider,instance,gpu,count,price,spot_price,region,as_of)")
      ->required();
  import->add_option("--provider", imp.options.provider,
                     "The provider of every file (default: the file's provider column or path)");
  import->add_option("--provider-kind", imp.options.provider_kind,
                     "hyperscaler, gpu-cloud, marketplace or serverless, for a provider rigplan "
                     "does not know");
  import->add_option("--as-of", imp.as_of,
                     "Date of the prices, YYYY-MM-DD (default: each file's modification date)");
  import->add_option("--out", imp.out,
                     "Directory to write to (default: the overlay directory); the --catalog "
                     "directory itself to refresh a catalog");
  import->add_option("--rules", imp.rules,
                     "Extra name, link and region rules (the format of data/import/*.toml)");
  import->add_flag("--dry-run", imp.dry_run, "Read and report, write nothing");
  import->callback([&ctx, &imp] { run_import(ctx, imp);
});
}  // namespace

void add_show_command(CLI::App* offers, CliContext& ctx) {
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

void add_offers_command(CLI::App& app, CliContext& ctx) {
  auto* offers = app.add_subcommand("offers", "Browse the cloud GPU offers of the catalog");
  offers->require_subcommand(1);
  add_list_command(offers, ctx);
  add_import_command(offers, ctx);
  add_show_command(offers, ctx);
}

}  // namespace rigplan::cli
