// rigplan build check FILE | build propose --gpus 4x rtx-4090 [...]
#include <fmt/format.h>

#include "cli/cli_context.h"
#include "rigplan/build.h"
#include "util/strings.h"

namespace rigplan::cli {

Result<BuildMachine> load_build_machine(const std::string& path, const Catalog& catalog) {
  auto text = read_text_file(path);
  if (!text) return text.status();
  auto b = parse_build({path, *text}, catalog);
  if (!b) return b.status();
  const BuildReport report = check_build(*b);
  if (report.verdict == "fail") {
    return Status::invalid_input(fmt::format(
        "{}: the build fails its checks; `rigplan build check {}` says why", path, path));
  }
  return BuildMachine{*b, system_from_build(*b, report, catalog)};
}

void add_build_command(CLI::App& app, CliContext& ctx) {
  auto* build = app.add_subcommand("build", "Check or propose a workstation or server build");
  build->require_subcommand(1);

  auto& file = ctx.keep<std::string>();
  auto& check_html = ctx.keep<std::string>();
  auto* check = build->add_subcommand(
      "check", "Check a build file: power, circuit, lanes, slots, cooling, CPU, RAM, network");
  check->add_option("file", file, "Build file (docs/builds.md)")->required();
  check->add_option(
      "--html", check_html,
      "Also write a self-contained HTML report with the power budget chart (-: to stdout only)");
  check->callback([&ctx, &file, &check_html] {
    auto loaded = ctx.load();
    if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
    const Catalog& catalog = **loaded;
    auto text = read_text_file(file);
    if (!text) return void(ctx.exit_code = ctx.fail(text.status()));
    auto b = parse_build({file, *text}, catalog);
    if (!b) return void(ctx.exit_code = ctx.fail(b.status()));
    const BuildReport report = check_build(*b);
    if (!check_html.empty() &&
        ctx.emit_html(check_html, report::build_html(*b, report, {}, today().to_string())))
      return;
    if (ctx.json) return ctx.print_json(report::to_json(*b, report));
    *ctx.out << report::build_text(*b, report);
  });

  auto& gpus = ctx.keep<std::vector<std::string>>();
  auto& region = ctx.keep<std::string>();
  auto& circuit = ctx.keep<std::string>();
  auto& form = ctx.keep<std::string>();
  auto& budget = ctx.keep<std::optional<double>>();
  auto& nodes = ctx.keep<int>(1);
  auto& propose_html = ctx.keep<std::string>();
  auto* propose =
      build->add_subcommand("propose", "The cheapest parts list that passes every check");
  propose->add_option("--gpus", gpus, "Count and GPU, e.g. 4x rtx-4090")
      ->required()
      ->expected(1, 2);
  propose->add_option("--budget", budget, "Most the parts may cost, USD");
  propose->add_option("--region", region, "Region whose usual wall circuit bounds the draw");
  propose->add_option("--circuit", circuit,
                      "Wall circuit (us-15a, us-20a, eu-16a, ...), instead of --region");
  propose->add_option("--form", form, "tower or rack (default: either)");
  propose->add_option("--nodes", nodes, "Machines that train together (adds the network they need)")
      ->capture_default_str();
  propose->add_option(
      "--html", propose_html,
      "Also write a self-contained HTML report with the power budget chart (-: to stdout only)");
  propose->callback([&ctx, &gpus, &region, &circuit, &form, &budget, &nodes, &propose_html] {
    auto loaded = ctx.load();
    if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
    const Catalog& catalog = **loaded;
    auto bad = [&](std::string m) {
      ctx.exit_code = ctx.fail(Status::invalid_input(std::move(m)));
    };
    // "4x rtx-4090", "4x rtx-4090" as one word, or just "rtx-4090".
    ProposeRequest req;
    const std::string spec = join(gpus, "");
    size_t digits = 0;
    while (digits < spec.size() && std::isdigit(static_cast<unsigned char>(spec[digits]))) ++digits;
    std::string name = spec;
    if (digits > 0 && digits + 1 < spec.size() && (spec[digits] == 'x' || spec[digits] == 'X')) {
      req.gpu_count = std::stoi(spec.substr(0, digits));
      name = spec.substr(digits + 1);
    } else if (digits > 0) {
      return bad(
          fmt::format("--gpus '{}': expected COUNTx GPU, e.g. 4x rtx-4090", join(gpus, " ")));
    }
    auto gpu = catalog.find_gpu(name);
    if (!gpu) return void(ctx.exit_code = ctx.fail(gpu.status()));
    req.gpu = *gpu;
    req.budget_usd = budget;
    req.form = form;
    req.nodes = nodes;
    if (!circuit.empty()) {
      auto c = catalog.find_circuit(circuit);
      if (!c) return void(ctx.exit_code = ctx.fail(c.status()));
      req.circuit = *c;
    } else if (!region.empty()) {
      auto r = catalog.find_region(region);
      if (!r) return void(ctx.exit_code = ctx.fail(r.status()));
      req.circuit = usual_circuit(catalog, **r);
    }
    auto p = propose_build(req, catalog);
    if (!p) return void(ctx.exit_code = ctx.fail(p.status()));
    if (!propose_html.empty() &&
        ctx.emit_html(propose_html,
                      report::build_html(p->build, p->report, p->reasons, today().to_string()))) {
      return;
    }
    if (ctx.json) return ctx.print_json(report::to_json(*p));
    *ctx.out << report::proposal_text(*p);
  });
}

}  // namespace rigplan::cli
