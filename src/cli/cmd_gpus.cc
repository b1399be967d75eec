// rigplan gpus list | show ID
#include <fmt/format.h>

#include "cli/cli_context.h"
#include "rigplan/catalog_query.h"
#include "util/strings.h"

namespace rigplan::cli {
namespace {

std::string opt(const std::optional<double>& v) { return v ? format_number(*v) : "-"; }

// The tensor rate mixed-precision training uses: BF16 where present, else FP16.
std::optional<double> half_rate(const Gpu& g) {
  return g.bf16_tflops ? g.bf16_tflops : g.fp16_tflops;
}

std::string gpu_table(const std::vector<const Gpu*>& gpus) {
  using A = report::Table::Align;
  report::Table table({{"id"},
                       {"name"},
                       {"segment"},
                       {"memory GB", A::kRight},
                       {"GB/s", A::kRight},
                       {"FP32 TFLOPS", A::kRight},
                       {"16-bit tensor TFLOPS", A::kRight},
                       {"power W", A::kRight},
                       {"price USD", A::kRight},
                       {"price kind, date"}});
  for (const Gpu* g : gpus) {
    const auto price = new_price(*g);
    table.add_row({g->id, g->name, g->segment, format_number(g->memory_gb),
                   format_number(g->mem_bandwidth_gbps), format_number(g->fp32_tflops),
                   opt(half_rate(*g)), format_number(g->board_power_w),
                   price ? format_number(price->usd) : "-",
                   price ? fmt::format("{}, {}", price->kind,
                                       price->date ? price->date->to_string() : "undated")
                         : ""});
  }
  return table.render();
}

}  // namespace

void add_gpus_command(CLI::App& app, CliContext& ctx) {
  auto* gpus = app.add_subcommand("gpus", "Browse the GPUs of the catalog");
  gpus->require_subcommand(1);

  auto& query = ctx.keep<GpuQuery>();
  auto* list = gpus->add_subcommand("list", "List GPUs, filtered and sorted");
  list->add_option("--vendor", query.vendor, "nvidia, amd or intel");
  list->add_option("--segment", query.segment, "consumer, workstation or datacenter");
  list->add_option("--architecture", query.architecture, "e.g. ampere, ada, hopper");
  list->add_option("--min-memory", query.min_memory_gb, "Minimum memory, GB");
  list->add_option("--max-price", query.max_price_usd,
                   "Maximum new price, USD (street price, else launch price)");
  list->add_option("--sort", query.sort,
                   "Field to sort by (e.g. memory_gb, mem_bandwidth_gbps); '-' first: descending");
  list->callback([&ctx, &query] {
    auto loaded = ctx.load();
    if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
    const Catalog& catalog = **loaded;
    auto found = query_gpus(catalog, query);
    if (!found) return void(ctx.exit_code = ctx.fail(found.status()));
    if (ctx.json) {
      report::Json out = report::Json::array();
      for (const Gpu* g : *found) out.push_back(report::to_json(*g, catalog.family_of(*g)));
      ctx.print_json(out);
    } else {
      *ctx.out << gpu_table(*found) << fmt::format("{} GPUs\n", found->size());
    }
  });

  auto& name = ctx.keep<std::string>();
  auto* show = gpus->add_subcommand("show", "Every field of a GPU, with its source");
  show->add_option("gpu", name, "GPU id, alias or name (\"RTX 4090\", \"H100 SXM\")")->required();
  show->callback([&ctx, &name] {
    auto loaded = ctx.load();
    if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
    const Catalog& catalog = **loaded;
    auto gpu = catalog.find_gpu(name);
    if (!gpu) return void(ctx.exit_code = ctx.fail(gpu.status()));
    if (ctx.json) {
      ctx.print_json(report::to_json(**gpu, catalog.family_of(**gpu)));
    } else {
      *ctx.out << fmt::format("{} ({})\n\n", (*gpu)->name, (*gpu)->id)
               << report::show_text(**gpu, catalog.family_of(**gpu));
    }
  });
}

}  // namespace rigplan::cli
