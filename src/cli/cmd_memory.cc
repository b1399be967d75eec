// rigplan memory WORKLOAD --gpu ID [run options]
#include <fmt/format.h>

#include "cli/cli_context.h"
#include "rigplan/memory.h"

namespace rigplan::cli {

void add_memory_command(CLI::App& app, CliContext& ctx) {
  struct Options {
    std::string workload, hf_config, gpu;
    RunConfig run;
    std::string lora_targets;
    bool explain = false;
    std::string html_file;
  };
  auto& o = ctx.keep<Options>();
  auto* cmd = app.add_subcommand(
      "memory",
      "Memory breakdown of a workload on a GPU: does it fit, the largest batch, how many GPUs");
  cmd->add_option("workload", o.workload, "Zoo id or name (`rigplan workloads list`)");
  cmd->add_option("--hf-config", o.hf_config,
                  "A Hugging Face config.json instead of a zoo workload");
  cmd->add_option("--gpu", o.gpu, "GPU id or name")->required();
  cmd->add_option("--mode", o.run.mode, "train or infer")->capture_default_str();
  cmd->add_option("--precision", o.run.precision,
                  "fp32, tf32, fp16, bf16, fp8 (default: the workload's)");
  cmd->add_option(
      "--weights", o.run.weights,
      "Weight format: f16, bf16, fp32, fp8, int8, int4, nf4, nf4-dq, q4_k_m, q5_k_m, q8_0");
  cmd->add_option("--method", o.run.method, "full, lora or qlora")->capture_default_str();
  cmd->add_option("--optimizer", o.run.optimizer, "adamw, adam8bit, sgd, sgd-momentum, adafactor")
      ->capture_default_str();
  cmd->add_option("--lora-rank", o.run.lora_rank, "LoRA rank")->capture_default_str();
  cmd->add_option("--lora-targets", o.lora_targets,
                  "Comma-separated: q,k,v,o,gate,up,down or all (default q,v)");
  cmd->add_flag("--pure-16bit", o.run.pure_16bit,
                "All state in 16 bit, no fp32 master copy (\"bf16-true\")");
  cmd->add_option("--batch", o.run.batch, "Batch per GPU (default: the workload's)");
  cmd->add_option("--seq", o.run.seq_len,
                  "Sequence length or prompt tokens (default: the workload's)");
  cmd->add_option("--gen-tokens", o.run.gen_tokens, "Inference: tokens generated after the prompt");
  cmd->add_flag("--checkpointing", o.run.checkpointing, "Activation checkpointing");
  cmd->add_flag("!--no-flash", o.run.flash_attention,
                "Attention without FlashAttention (keeps s×s scores)");
  cmd->add_option("--zero", o.run.zero, "ZeRO stage 0-3 (3 = FSDP full shard)");
  cmd->add_option("--gpus", o.run.gpus, "GPUs")->capture_default_str();
  cmd->add_option("--tp", o.run.tensor_parallel, "Tensor-parallel degree");
  cmd->add_option("--pp", o.run.pipeline_parallel, "Pipeline-parallel degree");
  cmd->add_option("--offload", o.run.offload, "none or cpu");
  cmd->add_flag("--full-state-load", o.run.full_state_load,
                "ZeRO-3/FSDP: count loading a full state dict (unsharded weights on every GPU)");
  cmd->add_flag("--explain", o.explain, "Show each term's formula with its values");
  cmd->add_option(
      "--html", o.html_file,
      "Also write a self-contained HTML report: the breakdown as stacked bars at this batch, at "
      "batch 1 and at the largest batch that fits (-: to stdout only)");
  cmd->callback([&ctx, &o] {
    auto inputs = ctx.load_run_inputs(o.workload, o.hf_config);
    if (!inputs) return void(ctx.exit_code = ctx.fail(inputs.status()));
    const Catalog& catalog = *inputs->catalog;
    const Workload& workload = inputs->workload;
    auto gpu = catalog.find_gpu(o.gpu);
    if (!gpu) return void(ctx.exit_code = ctx.fail(gpu.status()));
    RunConfig run = o.run;
    if (!o.lora_targets.empty()) {
      run.lora_targets.clear();
      std::string item;
      for (char c : o.lora_targets + ",") {
        if (c == ',') {
          if (!item.empty()) run.lora_targets.push_back(item);
          item.clear();
        } else if (c != ' ') {
          item += c;
        }
      }
    }
    auto estimate = estimate_memory(workload, **gpu, run);
    if (!estimate) return void(ctx.exit_code = ctx.fail(estimate.status()));
    if (!o.html_file.empty()) {
      std::vector<std::pair<std::string, MemoryEstimate>> bars = {
          {fmt::format("batch {} (asked)", *estimate->config.batch), *estimate}};
      for (int batch : {1, estimate->max_batch}) {
        if (batch < 1 || batch == *estimate->config.batch || (batch == 1 && bars.size() > 1))
          continue;
        RunConfig other = estimate->config;
        other.batch = batch;
        auto e = estimate_memory(workload, **gpu, other, /*with_searches=*/false);
        if (e)
          bars.emplace_back(fmt::format("batch {}{}", batch,
                                        batch == estimate->max_batch ? " (largest that fits)" : ""),
                            *e);
      }
      if (ctx.emit_html(o.html_file,
                        report::memory_html(workload, **gpu, bars, today().to_string())))
        return;
    }
    if (ctx.json) {
      ctx.print_json(report::to_json(workload, **gpu, *estimate));
    } else {
      *ctx.out << report::memory_text(workload, **gpu, *estimate, o.explain);
    }
  });
}

}  // namespace rigplan::cli
