// rigplan engines list | show NAME
#include "cli/cli_context.h"
#include "rigplan/engine.h"

namespace rigplan::cli {

void add_engines_command(CLI::App& app, CliContext& ctx) {
  auto* engines = app.add_subcommand(
      "engines", "Inference engines and the weight formats they run, with their sources");
  engines->require_subcommand(1);
  auto* list = engines->add_subcommand("list", "List the engines and formats");
  list->callback([&ctx] {
    const Engines& all = embedded_engines();
    if (ctx.json) {
      report::Json out = report::Json::array();
      for (const auto& e : all.engines) out.push_back(report::to_json(e, all));
      return ctx.print_json(out);
    }
    *ctx.out << report::engines_text(all);
  });
  auto& name = ctx.keep<std::string>();
  auto* show = engines->add_subcommand("show", "Every figure of an engine with its source");
  show->add_option("engine", name, "Engine id or alias (ollama is llama.cpp)")->required();
  show->callback([&ctx, &name] {
    const Engines& all = embedded_engines();
    auto engine = all.find_engine(name);
    if (!engine) return void(ctx.exit_code = ctx.fail(engine.status()));
    if (ctx.json) return ctx.print_json(report::to_json(**engine, all));
    *ctx.out << report::show_text(**engine, all);
  });
}

}  // namespace rigplan::cli
