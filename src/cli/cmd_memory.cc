// rigplan memory WORKLOAD --gpu ID [run options]
#include <fmt/format.h>

#include "cli/cli_context.h"
#include "rigplan/memory.h"

namespace rigplan::cli {

namespace {

struct MemoryOptions {
  RunOptions run;
  std::string gpu;
  bool explain = false;
  std::string html_file;
};

// The breakdown at the batch asked, at batch 1 and at the largest batch that fits.
std::vector<std::pair<std::string, MemoryEstimate>> html_bars(const Workload& workload,
                                                              const Gpu& gpu,
                                                              const MemoryEstimate& estimate) {
  std::vector<std::pair<std::string, MemoryEstimate>> bars = {
      {fmt::format("batch {} (asked)", *estimate.config.batch), estimate}};
  for (int batch : {1, estimate.max_batch}) {
    if (batch < 1 || batch == *estimate.config.batch || (batch == 1 && bars.size() > 1)) continue;
    RunConfig other = estimate.config;
    other.batch = batch;
    auto e = estimate_memory(workload, gpu, other, /*with_searches=*/false);
    if (e)
      bars.emplace_back(fmt::format("batch {}{}", batch,
                                    batch == estimate.max_batch ? " (largest that fits)" : ""),
                        *e);
  }
  return bars;
}

void run_memory(CliContext& ctx, const MemoryOptions& o) {
  auto inputs = ctx.load_run_inputs(o.run.workload, o.run.hf_config, o.run.resolution);
  if (!inputs) return void(ctx.exit_code = ctx.fail(inputs.status()));
  const Workload& workload = inputs->workload;
  auto gpu = inputs->catalog->find_gpu(o.gpu);
  if (!gpu) return void(ctx.exit_code = ctx.fail(gpu.status()));
  auto run = run_config(o.run);
  if (!run) return void(ctx.exit_code = ctx.fail(run.status()));
  auto estimate = estimate_memory(workload, **gpu, *run);
  if (!estimate) return void(ctx.exit_code = ctx.fail(estimate.status()));
  if (!o.html_file.empty() &&
      ctx.emit_html(o.html_file,
                    report::memory_html(workload, **gpu, html_bars(workload, **gpu, *estimate),
                                        today().to_string())))
    return;
  if (ctx.json) return ctx.print_json(report::to_json(workload, **gpu, *estimate));
  *ctx.out << report::memory_text(workload, **gpu, *estimate, o.explain);
}

}  // namespace

void add_memory_command(CLI::App& app, CliContext& ctx) {
  auto& o = ctx.keep<MemoryOptions>();
  auto* cmd = app.add_subcommand(
      "memory",
      "Memory breakdown of a workload on a GPU: does it fit, the largest batch, how many GPUs");
  add_run_options(cmd, o.run, ctx);
  cmd->add_option("--gpu", o.gpu, "GPU id or name")->required();
  cmd->add_flag("!--no-flash", o.run.run.flash_attention,
                "Attention without FlashAttention (keeps s×s scores)");
  cmd->add_option("--gpus", o.run.run.gpus, "GPUs")->capture_default_str();
  cmd->add_option("--gpus-per-node", o.run.run.gpus_per_node,
                  "GPUs per node (checked as predict checks it; the memory of a GPU does not "
                  "depend on it)");
  cmd->add_flag("--explain", o.explain, "Show each term's formula with its values");
  cmd->add_option(
      "--html", o.html_file,
      "Also write a self-contained HTML report: the breakdown as stacked bars at this batch, at "
      "batch 1 and at the largest batch that fits (-: to stdout only)");
  cmd->callback([&ctx, &o] { run_memory(ctx, o); });
}

}  // namespace rigplan::cli
