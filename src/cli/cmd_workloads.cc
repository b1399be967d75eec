// rigplan workloads list | show NAME
#include <fmt/format.h>

#include "cli/cli_context.h"
#include "util/figures.h"

namespace rigplan::cli {

void add_workloads_command(CLI::App& app, CliContext& ctx) {
  auto* workloads = app.add_subcommand("workloads", "Browse the model zoo");
  workloads->require_subcommand(1);
  auto* list = workloads->add_subcommand("list", "List the zoo's workloads");
  list->callback([&ctx] {
    auto loaded_zoo = ctx.load_zoo();
    if (!loaded_zoo) return void(ctx.exit_code = ctx.fail(loaded_zoo.status()));
    const Zoo& zoo = **loaded_zoo;
    if (ctx.json) {
      report::Json out = report::Json::array();
      for (const auto& w : zoo.workloads) out.push_back(report::to_json(w));
      return ctx.print_json(out);
    }
    using A = report::Table::Align;
    report::Table table({{"id"},
                         {"name"},
                         {"task"},
                         {"params", A::kRight},
                         {"published", A::kRight},
                         {"precision"},
                         {"batch", A::kRight},
                         {"seq", A::kRight}});
    for (const auto& w : zoo.workloads) {
      table.add_row({w.id, w.name, w.task,
                     significant(static_cast<double>(count_params(w).total) / 1e6) + "M",
                     significant(static_cast<double>(w.published_params) / 1e6) + "M",
                     w.default_precision, std::to_string(w.default_batch),
                     w.default_seq_len ? std::to_string(*w.default_seq_len) : "-"});
    }
    *ctx.out << table.render() << fmt::format("{} workloads\n", zoo.workloads.size());
  });
  auto& name = ctx.keep<std::string>();
  auto& hf_config = ctx.keep<std::string>();
  auto* show = workloads->add_subcommand("show", "A workload's architecture and parameter count");
  show->add_option("workload", name, "Zoo id or name");
  show->add_option("--hf-config", hf_config, "A Hugging Face config.json to import");
  show->callback([&ctx, &name, &hf_config] {
    auto loaded_zoo = ctx.load_zoo();
    if (!loaded_zoo) return void(ctx.exit_code = ctx.fail(loaded_zoo.status()));
    const Zoo& zoo = **loaded_zoo;
    auto w = ctx.resolve_workload(zoo, name, hf_config);
    if (!w) return void(ctx.exit_code = ctx.fail(w.status()));
    if (ctx.json) return ctx.print_json(report::to_json(*w));
    *ctx.out << report::show_text(*w);
  });
}

}  // namespace rigplan::cli
