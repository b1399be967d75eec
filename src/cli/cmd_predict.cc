// rigplan predict WORKLOAD --gpu ID [--gpus N ...] and rigplan compare WORKLOAD --gpus A,B,...
#include <fmt/format.h>

#include <algorithm>

#include "cli/cli_context.h"
#include "rigplan/compare.h"
#include "rigplan/input_pipeline.h"
#include "rigplan/perf.h"
#include "util/strings.h"

namespace rigplan::cli {

void add_predict_command(CLI::App& app, CliContext& ctx) {
  auto& o = ctx.keep<RunOptions>();
  auto& gpu_name = ctx.keep<std::string>();
  auto& explain = ctx.keep<bool>(false);
  auto& cpu_name = ctx.keep<std::string>();
  auto& loader_name = ctx.keep<std::string>();
  auto* cmd = app.add_subcommand(
      "predict", "Throughput and step time of a workload on N GPUs, and what bounds it");
  add_run_options(cmd, o, ctx);
  add_framework_option(cmd, o.run);
  add_compile_options(cmd, o.run);
  cmd->add_option("--gpu", gpu_name, "GPU id or name")->required();
  cmd->add_option("--gpus", o.run.gpus, "Number of GPUs")->capture_default_str();
  cmd->add_option("--fabric", o.run.fabric,
                  "Network between nodes: a catalog interconnect, ib-hdr (default), ib-ndr, "
                  "ib-xdr, eth-400g, ...");
  cmd->add_option("--gpus-per-nic", o.run.gpus_per_nic,
                  "GPUs sharing one port of the fabric (1: a rail per GPU)")
      ->capture_default_str();
  cmd->add_option(
      "--gpus-per-node", o.run.gpus_per_node,
      "GPUs per node, joined by the GPU-to-GPU link; the network beyond (default: the GPU's "
      "NVLink domain, 72 for a GB200 NVL72 rack, else 8; at most that domain)");
  cmd->add_option("--cpu", cpu_name,
                  "The machine's CPU (catalog id or name): the input pipeline it feeds bounds "
                  "the step");
  cmd->add_option("--loader", loader_name,
                  "Data loader with --cpu: pytorch (default), pytorch-pillow-simd, dali, "
                  "dali-gpu (data/pipeline)");
  cmd->add_flag("--explain", explain, "Time per operator class");
  cmd->callback([&ctx, &o, &gpu_name, &explain, &cpu_name, &loader_name] {
    auto inputs = ctx.load_run_inputs(o.workload, o.hf_config, o.resolution);
    if (!inputs) return void(ctx.exit_code = ctx.fail(inputs.status()));
    const Catalog& catalog = *inputs->catalog;
    const Workload& workload = inputs->workload;
    auto gpu = catalog.find_gpu(gpu_name);
    if (!gpu) return void(ctx.exit_code = ctx.fail(gpu.status()));
    auto run = run_config(o);
    if (!run) return void(ctx.exit_code = ctx.fail(run.status()));
    auto host = host_spec(catalog, cpu_name, loader_name);
    if (!host) return void(ctx.exit_code = ctx.fail(host.status()));
    auto p = predict(workload, **gpu, *run, embedded_calibration(), catalog);
    if (p && *host)
      p = with_input_pipeline(workload, std::move(p).value(), **host, embedded_input_pipelines());
    if (!p) return void(ctx.exit_code = ctx.fail(p.status()));
    if (ctx.json) return ctx.print_json(report::to_json(workload, **gpu, *p));
    *ctx.out << report::prediction_text(workload, **gpu, *p, explain);
  });
}

void add_compare_command(CLI::App& app, CliContext& ctx) {
  auto& o = ctx.keep<RunOptions>();
  auto& gpu_list = ctx.keep<std::string>();
  auto& reference = ctx.keep<std::string>();
  auto& html_file = ctx.keep<std::string>();
  auto* cmd = app.add_subcommand("compare",
                                 "GPUs side by side for a workload, relative to a reference GPU");
  add_run_options(cmd, o, ctx);
  add_framework_option(cmd, o.run);
  add_compile_options(cmd, o.run);
  cmd->add_option("--gpus", gpu_list, "Comma-separated GPU ids or names")->required();
  cmd->add_option("--reference", reference, "Reference GPU (default: the first)");
  cmd->add_option(
      "--html", html_file,
      "Also write a self-contained HTML report with charts to this file (-: to stdout only)");
  cmd->callback([&ctx, &o, &gpu_list, &reference, &html_file] {
    auto inputs = ctx.load_run_inputs(o.workload, o.hf_config, o.resolution);
    if (!inputs) return void(ctx.exit_code = ctx.fail(inputs.status()));
    auto run = run_config(o);
    if (!run) return void(ctx.exit_code = ctx.fail(run.status()));
    const CompareRequest request{split(gpu_list, ','), reference, *run};
    auto c = compare_gpus(inputs->workload, request, *inputs->catalog, embedded_calibration());
    if (!c) return void(ctx.exit_code = ctx.fail(c.status()));
    if (!html_file.empty() &&
        ctx.emit_html(html_file, report::compare_html(*c, today().to_string())))
      return;
    if (ctx.json) return ctx.print_json(report::to_json(inputs->workload, *c));
    *ctx.out << report::compare_text(*c);
  });
}

}  // namespace rigplan::cli
