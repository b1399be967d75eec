// rigplan cpus list | show ID
#include <fmt/format.h>

#include "cli/cli_context.h"
#include "rigplan/catalog_query.h"
#include "util/strings.h"

namespace rigplan::cli {
namespace {

std::string cpu_table(const std::vector<const Cpu*>& cpus) {
  using A = report::Table::Align;
  report::Table table({{"id"},
                       {"name"},
                       {"segment"},
                       {"socket"},
                       {"cores", A::kRight},
                       {"threads", A::kRight},
                       {"base GHz", A::kRight},
                       {"boost GHz", A::kRight},
                       {"PCIe lanes", A::kRight},
                       {"gen", A::kRight},
                       {"mem ch", A::kRight},
                       {"TDP W", A::kRight},
                       {"price USD", A::kRight},
                       {"price kind, date"}});
  for (const Cpu* c : cpus) {
    table.add_row({c->id, c->name, c->segment, c->socket, std::to_string(c->cores),
                   std::to_string(c->threads), format_number(c->base_clock_ghz),
                   format_number(c->boost_clock_ghz), std::to_string(c->pcie_lanes),
                   std::to_string(c->pcie_gen), std::to_string(c->memory_channels),
                   format_number(c->tdp_w), format_number(c->price_usd),
                   fmt::format("{}, {}", c->price_kind, c->price_date.to_string())});
  }
  return table.render();
}

}  // namespace

void add_cpus_command(CLI::App& app, CliContext& ctx) {
  auto* cpus = app.add_subcommand("cpus", "Browse the CPUs of the catalog");
  cpus->require_subcommand(1);

  auto& query = ctx.keep<CpuQuery>();
  auto* list = cpus->add_subcommand("list", "List CPUs, filtered and sorted");
  list->add_option("--vendor", query.vendor, "amd or intel");
  list->add_option("--segment", query.segment, "desktop, hedt, workstation or server");
  list->add_option("--min-cores", query.min_cores, "Minimum core count");
  list->add_option("--max-price", query.max_price_usd, "Maximum price, USD");
  list->add_option("--sort", query.sort, "Field to sort by (e.g. cores); '-' first: descending");
  list->callback([&ctx, &query] {
    auto loaded = ctx.load();
    if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
    const Catalog& catalog = **loaded;
    auto found = query_cpus(catalog, query);
    if (!found) return void(ctx.exit_code = ctx.fail(found.status()));
    if (ctx.json) {
      report::Json out = report::Json::array();
      for (const Cpu* c : *found) out.push_back(report::to_json(*c));
      ctx.print_json(out);
    } else {
      *ctx.out << cpu_table(*found) << fmt::format("{} CPUs\n", found->size());
    }
  });

  auto& name = ctx.keep<std::string>();
  auto* show = cpus->add_subcommand("show", "Every field of a CPU, with its source");
  show->add_option("cpu", name, "CPU id, alias or name (\"7950X\", \"EPYC 9554\")")->required();
  show->callback([&ctx, &name] {
    auto loaded = ctx.load();
    if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
    const Catalog& catalog = **loaded;
    auto cpu = catalog.find_cpu(name);
    if (!cpu) return void(ctx.exit_code = ctx.fail(cpu.status()));
    if (ctx.json) {
      ctx.print_json(report::to_json(**cpu));
    } else {
      *ctx.out << fmt::format("{} ({})\n\n", (*cpu)->name, (*cpu)->id) << report::show_text(**cpu);
    }
  });
}

}  // namespace rigplan::cli
