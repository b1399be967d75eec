// `rigplan overview`: what the catalog holds, and the GPUs worth a look for a budget.
#include <fmt/format.h>

#include "rigplan/report.h"
#include "util/strings.h"

namespace rigplan::report {

Json overview_json(const Catalog& catalog, const std::vector<BudgetGpu>& gpus) {
  Json rows = Json::array();
  for (const BudgetGpu& b : gpus) {
    rows.push_back({{"id", b.gpu->id},
                    {"memory_gb", b.gpu->memory_gb},
                    {"mem_bandwidth_gbps", b.gpu->mem_bandwidth_gbps},
                    {"price_usd", b.price.usd},
                    {"price_kind", b.price.kind},
                    {"gbps_per_kusd", b.gbps_per_kusd}});
  }
  return {{"gpus", catalog.gpus.size()},
          {"cpus", catalog.cpus.size()},
          {"offers", catalog.offers.size()},
          {"regions", catalog.regions.size()},
          {"budget_gpus", rows}};
}

std::string overview_text(const Catalog& c, const GpuQuery& query,
                          const std::vector<BudgetGpu>& gpus) {
  std::string out = fmt::format(
      "rigplan catalog: {} GPUs, {} CPUs, {} cloud offers, {} regions, {} interconnects.\n\n",
      c.gpus.size(), c.cpus.size(), c.offers.size(), c.regions.size(), c.interconnects.size());
  out += fmt::format(
      "GPUs with at least {} GB for at most {} USD new, by memory bandwidth per 1,000 USD:\n\n",
      format_number(query.min_memory_gb.value_or(0)),
      query.max_price_usd ? format_number(*query.max_price_usd) : "any");
  using A = Table::Align;
  Table table({{"gpu"},
               {"memory GB", A::kRight},
               {"GB/s", A::kRight},
               {"16-bit TFLOPS", A::kRight},
               {"price USD", A::kRight},
               {"price kind, date"},
               {"GB/s per kUSD", A::kRight},
               {"TFLOPS per kUSD", A::kRight},
               {"used USD", A::kRight}});
  for (const BudgetGpu& b : gpus) {
    const Gpu& g = *b.gpu;
    table.add_row(
        {g.id, format_number(g.memory_gb), format_number(g.mem_bandwidth_gbps),
         b.tensor_tflops ? format_number(*b.tensor_tflops) : "-", format_number(b.price.usd),
         fmt::format("{}, {}", b.price.kind, b.price.date ? b.price.date->to_string() : "undated"),
         fmt::format("{:.0f}", b.gbps_per_kusd),
         b.tflops_per_kusd ? fmt::format("{:.1f}", *b.tflops_per_kusd) : "-",
         g.used_price_usd ? format_number(*g.used_price_usd) : "-"});
  }
  return out + table.render() +
         "\nEvery figure has a source: `rigplan gpus show ID`. Other budgets: "
         "`rigplan overview --max-price N --min-memory GB`.\n";
}

}  // namespace rigplan::report
