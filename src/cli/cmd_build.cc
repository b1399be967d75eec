// rigplan build check FILE | build propose --gpus 4x rtx-4090 [...]
#include <fmt/format.h>

#include "cli/cli_context.h"
#include "rigplan/build.h"
#include "rigplan/catalog_query.h"
#include "util/strings.h"

namespace rigplan::cli {
namespace {

struct CheckOptions {
  std::string file, html_file;
};

struct ProposeOptions {
  std::vector<std::string> gpus;
  std::string region, circuit, form, html_file;
  std::optional<double> budget;
  int nodes = 1;
};

void run_check(CliContext& ctx, const CheckOptions& o) {
  auto loaded = ctx.load();
  if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
  auto text = read_text_file(o.file);
  if (!text) return void(ctx.exit_code = ctx.fail(text.status()));
  auto b = parse_build({o.file, *text}, **loaded);
  if (!b) return void(ctx.exit_code = ctx.fail(b.status()));
  const BuildReport report = check_build(*b);
  if (!o.html_file.empty() &&
      ctx.emit_html(o.html_file, report::build_html(*b, report, {}, today().to_string())))
    return;
  if (ctx.json) return ctx.print_json(report::to_json(*b, report));
  *ctx.out << report::build_text(*b, report);
}

// The request of the options: the GPUs, and the circuit named or the region's usual one.
Result<ProposeRequest> propose_request(const ProposeOptions& o, const Catalog& catalog) {
  auto gpus = parse_gpu_count(catalog, join(o.gpus, ""), "--gpus");
  if (!gpus) return gpus.status();
  ProposeRequest req;
  req.gpu = gpus->gpu;
  req.gpu_count = gpus->count;
  req.budget_usd = o.budget;
  req.form = o.form;
  req.nodes = o.nodes;
  if (!o.circuit.empty()) {
    auto c = catalog.find_circuit(o.circuit);
    if (!c) return c.status();
    req.circuit = *c;
  } else if (!o.region.empty()) {
    req.region = o.region;
  }
  return req;
}

void run_propose(CliContext& ctx, const ProposeOptions& o) {
  auto loaded = ctx.load();
  if (!loaded) return void(ctx.exit_code = ctx.fail(loaded.status()));
  auto req = propose_request(o, **loaded);
  if (!req) return void(ctx.exit_code = ctx.fail(req.status()));
  auto p = propose_build(*req, **loaded);
  if (!p) return void(ctx.exit_code = ctx.fail(p.status()));
  if (!o.html_file.empty() &&
      ctx.emit_html(o.html_file,
                    report::build_html(p->build, p->report, p->reasons, today().to_string())))
    return;
  if (ctx.json) return ctx.print_json(report::to_json(*p));
  *ctx.out << report::proposal_text(*p);
}

void add_propose_command(CLI::App* build, CliContext& ctx) {
  auto& o = ctx.keep<ProposeOptions>();
  auto* propose = build->add_subcommand(
      "propose", "The cheapest parts list with no failing check, and the fewest warnings");
  propose->add_option("--gpus", o.gpus, "Count and GPU, e.g. 4x rtx-4090")
      ->required()
      ->expected(1, 2);
  propose->add_option("--budget", o.budget, "Most the parts may cost, USD");
  propose->add_option("--region", o.region,
                      "Region whose usual wall circuit bounds a tower's draw (default: us)");
  propose->add_option("--circuit", o.circuit,
                      "Wall circuit (us-15a, us-20a, eu-16a, ...), instead of --region");
  propose->add_option("--form", o.form, "tower or rack (default: either)");
  propose
      ->add_option("--nodes", o.nodes, "Machines that train together (adds the network they need)")
      ->capture_default_str();
  propose->add_option(
      "--html", o.html_file,
      "Also write a self-contained HTML report with the power budget chart (-: to stdout only)");
  propose->callback([&ctx, &o] { run_propose(ctx, o); });
}

}  // namespace

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
  auto& o = ctx.keep<CheckOptions>();
  auto* check = build->add_subcommand(
      "check", "Check a build file: power, circuit, lanes, slots, cooling, CPU, RAM, network");
  check->add_option("file", o.file, "Build file (docs/builds.md)")->required();
  check->add_option(
      "--html", o.html_file,
      "Also write a self-contained HTML report with the power budget chart (-: to stdout only)");
  check->callback([&ctx, &o] { run_check(ctx, o); });
  add_propose_command(build, ctx);
}

}  // namespace rigplan::cli
