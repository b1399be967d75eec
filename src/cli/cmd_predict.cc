// rigplan predict WORKLOAD --gpu ID [--gpus N ...] and rigplan compare WORKLOAD --gpus A,B,...
#include <algorithm>

#include <fmt/format.h>

#include "cli/cli_context.h"
#include "rigplan/perf.h"
#include "util/strings.h"

namespace rigplan::cli {
namespace {

struct RunOptions {
  std::string workload, hf_config;
  RunConfig run;
};

void add_run_options(CLI::App* cmd, RunOptions& o) {
  cmd->add_option("workload", o.workload, "Zoo id or name (`rigplan workloads list`)");
  cmd->add_option("--hf-config", o.hf_config, "A Hugging Face config.json instead of a zoo workload");
  cmd->add_option("--mode", o.run.mode, "train, infer, prefill or decode")->capture_default_str();
  cmd->add_option("--precision", o.run.precision, "fp32, tf32, fp16, bf16, fp8 (default: the workload's)");
  cmd->add_option("--weights", o.run.weights, "Weight format (inference): bf16, int8, nf4, q4_k_m, ...");
  cmd->add_option("--method", o.run.method, "full, lora or qlora")->capture_default_str();
  cmd->add_option("--batch", o.run.batch, "Batch per GPU (default: the workload's)");
  cmd->add_option("--seq", o.run.seq_len, "Sequence length (default: the workload's)");
  cmd->add_flag("--checkpointing", o.run.checkpointing, "Activation checkpointing (recomputes the forward)");
  cmd->add_option("--zero", o.run.zero, "ZeRO stage 0-3");
  cmd->add_option("--tp", o.run.tensor_parallel, "Tensor-parallel degree");
  cmd->add_option("--pp", o.run.pipeline_parallel, "Pipeline-parallel degree");
  cmd->add_option("--link", o.run.link, "pcie, nvlink-bridge or nvswitch (default: the GPU's)");
}

Status check_link(const std::string& link) {
  if (link.empty() || link == "pcie" || link == "nvlink-bridge" || link == "nvswitch") return {};
  const std::vector<std::string> links = {"pcie", "nvlink-bridge", "nvswitch"};
  return Status::invalid_input(fmt::format("--link '{}' is not accepted; expected {}{}", link,
                                           quoted_list(links), did_you_mean(link, links)));
}

}  // namespace

void add_predict_command(CLI::App& app, CliContext& ctx) {
  static RunOptions o;
  static std::string gpu_name;
  static bool explain = false;
  auto* cmd = app.add_subcommand("predict", "Throughput and step time of a workload on N GPUs, and what bounds it");
  add_run_options(cmd, o);
  cmd->add_option("--gpu", gpu_name, "GPU id or name")->required();
  cmd->add_option("--gpus", o.run.gpus, "Number of GPUs")->capture_default_str();
  cmd->add_flag("--explain", explain, "Time per operator class");
  cmd->callback([&ctx] {
    auto inputs = ctx.load_run_inputs(o.workload, o.hf_config);
    if (!inputs) return void(ctx.exit_code = ctx.fail(inputs.status()));
    const Catalog& catalog = inputs->catalog;
    const Workload& workload = inputs->workload;
    auto gpu = catalog.find_gpu(gpu_name);
    if (!gpu) return void(ctx.exit_code = ctx.fail(gpu.status()));
    if (Status s = check_link(o.run.link); !s.ok()) return void(ctx.exit_code = ctx.fail(s));
    auto p = predict(workload, **gpu, o.run, embedded_calibration(), catalog);
    if (!p) return void(ctx.exit_code = ctx.fail(p.status()));
    if (ctx.json) return ctx.print_json(report::to_json(workload, **gpu, *p));
    *ctx.out << report::prediction_text(workload, **gpu, *p, explain);
  });
}

void add_compare_command(CLI::App& app, CliContext& ctx) {
  static RunOptions o;
  static std::string gpu_list, reference;
  auto* cmd = app.add_subcommand("compare", "GPUs side by side for a workload, relative to a reference GPU");
  add_run_options(cmd, o);
  cmd->add_option("--gpus", gpu_list, "Comma-separated GPU ids or names")->required();
  cmd->add_option("--reference", reference, "Reference GPU (default: the first)");
  cmd->callback([&ctx] {
    auto inputs = ctx.load_run_inputs(o.workload, o.hf_config);
    if (!inputs) return void(ctx.exit_code = ctx.fail(inputs.status()));
    const Catalog& catalog = inputs->catalog;
    const Workload& workload = inputs->workload;
    std::vector<const Gpu*> gpus;
    std::string item;
    for (char c : gpu_list + ",") {
      if (c != ',') {
        item += c;
        continue;
      }
      if (item.empty()) continue;
      auto g = catalog.find_gpu(item);
      if (!g) return void(ctx.exit_code = ctx.fail(g.status()));
      gpus.push_back(*g);
      item.clear();
    }
    const Gpu* ref = gpus.empty() ? nullptr : gpus.front();
    if (!reference.empty()) {
      auto g = catalog.find_gpu(reference);
      if (!g) return void(ctx.exit_code = ctx.fail(g.status()));
      ref = *g;
      if (std::find(gpus.begin(), gpus.end(), ref) == gpus.end()) gpus.insert(gpus.begin(), ref);
    }
    if (!ref) return void(ctx.exit_code = ctx.fail(Status::invalid_input("--gpus names no GPU")));
    const Calibration calibration = embedded_calibration();
    std::vector<Prediction> predictions;
    for (const Gpu* g : gpus) {
      auto p = predict(workload, *g, o.run, calibration, catalog);
      if (!p) return void(ctx.exit_code = ctx.fail(p.status()));
      predictions.push_back(*p);
    }
    const double ref_throughput = predictions[std::find(gpus.begin(), gpus.end(), ref) - gpus.begin()].throughput;
    if (ctx.json) {
      report::Json rows = report::Json::array();
      for (size_t i = 0; i < gpus.size(); ++i) {
        report::Json row = report::to_json(workload, *gpus[i], predictions[i]);
        row["relative"] = std::round(predictions[i].throughput / ref_throughput * 1000) / 1000;
        row["memory_gb"] = gpus[i]->memory_gb;
        rows.push_back(row);
      }
      return ctx.print_json({{"workload", workload.id}, {"reference", ref->id}, {"gpus", rows}});
    }
    using A = report::Table::Align;
    report::Table table({{"gpu"}, {"relative", A::kRight}, {"throughput", A::kRight}, {"unit"}, {"bound"},
                         {"memory GB", A::kRight}, {"fits"}});
    for (size_t i = 0; i < gpus.size(); ++i) {
      const Prediction& p = predictions[i];
      table.add_row({gpus[i]->id, fmt::format("{:.2f}", p.throughput / ref_throughput), fmt::format("{:.4g}", p.throughput),
                     p.unit, p.bound, format_number(gpus[i]->memory_gb), p.fits ? "yes" : "no (offloaded)"});
    }
    *ctx.out << fmt::format("{} ({}, batch {} per GPU), relative to {}:\n\n", workload.id, predictions[0].config.precision,
                            *predictions[0].config.batch, ref->id)
             << table.render();
  });
}

}  // namespace rigplan::cli
