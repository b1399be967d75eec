// rigplan train-plan MODEL --gpu ID --gpus N [--global-batch B] [--seq S] [--tokens T] [--top K]
#include "cli/cli_context.h"
#include "rigplan/report.h"
#include "rigplan/train_plan.h"

namespace rigplan::cli {

void add_train_plan_command(CLI::App& app, CliContext& ctx) {
  struct Options {
    std::string workload, gpu;
    TrainPlanRequest request;
  };
  auto& o = ctx.keep<Options>();
  auto* cmd = app.add_subcommand(
      "train-plan",
      "The fastest parallel layouts of a model on N GPUs (TP × PP × CP × DP, virtual stages, "
      "micro-batch, recompute, ZeRO) that fit");
  cmd->add_option("workload", o.workload, "Zoo id or name (`rigplan workloads list`)")->required();
  cmd->add_option("--gpu", o.gpu, "GPU id or name")->required();
  cmd->add_option("--gpus", o.request.run.gpus, "Number of GPUs")->required();
  cmd->add_option("--precision", o.request.run.precision,
                  "fp16, bf16, fp8, mxfp8, nvfp4 (default: the model's)");
  cmd->add_option("--seq", o.request.run.seq_len, "Sequence length (default: the model's)");
  cmd->add_option("--global-batch", o.request.run.global_batch,
                  "Sequences per optimizer step (default: about 4M tokens)");
  cmd->add_option("--fabric", o.request.run.fabric,
                  "Network between nodes: a catalog interconnect (default ib-hdr)");
  cmd->add_option("--gpus-per-nic", o.request.run.gpus_per_nic,
                  "GPUs sharing one port of the fabric")
      ->capture_default_str();
  cmd->add_option(
      "--gpus-per-node", o.request.run.gpus_per_node,
      "GPUs per node, joined by the GPU-to-GPU link; the network beyond (default: the GPU's "
      "NVLink domain, 72 for a GB200 NVL72 rack, else 8; at most that domain)");
  add_framework_option(cmd, o.request.run);
  add_compile_options(cmd, o.request.run);
  cmd->add_option("--tokens", o.request.tokens, "Tokens to train: the days each layout takes");
  cmd->add_option("--top", o.request.top, "Layouts to list, the fastest first")
      ->capture_default_str();
  cmd->callback([&ctx, &o] {
    auto inputs = ctx.load_run_inputs(o.workload, "");
    if (!inputs) return void(ctx.exit_code = ctx.fail(inputs.status()));
    auto gpu = inputs->catalog->find_gpu(o.gpu);
    if (!gpu) return void(ctx.exit_code = ctx.fail(gpu.status()));
    auto plan =
        plan_training(inputs->workload, **gpu, o.request, embedded_calibration(), *inputs->catalog);
    if (!plan) return void(ctx.exit_code = ctx.fail(plan.status()));
    if (ctx.json) return ctx.print_json(report::to_json(inputs->workload, **gpu, *plan));
    *ctx.out << report::train_plan_text(inputs->workload, **gpu, *plan);
  });
}

}  // namespace rigplan::cli
