// rigplan predict WORKLOAD --gpu ID [--gpus N ...] and rigplan compare WORKLOAD --gpus A,B,...
#include <fmt/format.h>

#include <algorithm>

#include "cli/cli_context.h"
#include "rigplan/cost.h"
#include "rigplan/perf.h"
#include "util/strings.h"

namespace rigplan::cli {
namespace {

Status check_link(const std::string& link) {
  if (link.empty() || link == "pcie" || link == "nvlink-bridge" || link == "nvswitch") return {};
  const std::vector<std::string> links = {"pcie", "nvlink-bridge", "nvswitch"};
  return Status::invalid_input(fmt::format("--link '{}' is not accepted; expected {}{}", link,
                                           quoted_list(links), did_you_mean(link, links)));
}

}  // namespace

void add_predict_command(CLI::App& app, CliContext& ctx) {
  auto& o = ctx.keep<RunOptions>();
  auto& gpu_name = ctx.keep<std::string>();
  auto& explain = ctx.keep<bool>(false);
  auto* cmd = app.add_subcommand(
      "predict", "Throughput and step time of a workload on N GPUs, and what bounds it");
  add_run_options(cmd, o);
  cmd->add_option("--gpu", gpu_name, "GPU id or name")->required();
  cmd->add_option("--gpus", o.run.gpus, "Number of GPUs")->capture_default_str();
  cmd->add_flag("--explain", explain, "Time per operator class");
  cmd->callback([&ctx, &o, &gpu_name, &explain] {
    auto inputs = ctx.load_run_inputs(o.workload, o.hf_config);
    if (!inputs) return void(ctx.exit_code = ctx.fail(inputs.status()));
    const Catalog& catalog = *inputs->catalog;
    const Workload& workload = inputs->workload;
    auto gpu = catalog.find_gpu(gpu_name);
    if (!gpu) return void(ctx.exit_code = ctx.fail(gpu.status()));
    if (Status s = check_link(o.run.link); !s.ok()) return void(ctx.exit_code = ctx.fail(s));
    auto run = run_config(o);
    if (!run) return void(ctx.exit_code = ctx.fail(run.status()));
    auto p = predict(workload, **gpu, *run, embedded_calibration(), catalog);
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
  add_run_options(cmd, o);
  cmd->add_option("--gpus", gpu_list, "Comma-separated GPU ids or names")->required();
  cmd->add_option("--reference", reference, "Reference GPU (default: the first)");
  cmd->add_option(
      "--html", html_file,
      "Also write a self-contained HTML report with charts to this file (-: to stdout only)");
  cmd->callback([&ctx, &o, &gpu_list, &reference, &html_file] {
    auto inputs = ctx.load_run_inputs(o.workload, o.hf_config);
    if (!inputs) return void(ctx.exit_code = ctx.fail(inputs.status()));
    const Catalog& catalog = *inputs->catalog;
    const Workload& workload = inputs->workload;
    std::vector<const Gpu*> gpus;
    for (const auto& name : split(gpu_list, ',')) {
      auto g = catalog.find_gpu(name);
      if (!g) return void(ctx.exit_code = ctx.fail(g.status()));
      gpus.push_back(*g);
    }
    const Gpu* ref = gpus.empty() ? nullptr : gpus.front();
    if (!reference.empty()) {
      auto g = catalog.find_gpu(reference);
      if (!g) return void(ctx.exit_code = ctx.fail(g.status()));
      ref = *g;
      if (std::find(gpus.begin(), gpus.end(), ref) == gpus.end()) gpus.insert(gpus.begin(), ref);
    }
    if (!ref) return void(ctx.exit_code = ctx.fail(Status::invalid_input("--gpus names no GPU")));
    const Calibration& calibration = embedded_calibration();
    auto run = run_config(o);
    if (!run) return void(ctx.exit_code = ctx.fail(run.status()));
    std::vector<Prediction> predictions;
    // Without an explicit --batch, a card that cannot hold the workload's default batch runs the
    // largest batch it can hold, as its owner would (and as Lambda's benchmarks do), rather than
    // offloaded at a batch nobody would pick.
    const bool shrink_batch = !run->batch;
    for (const Gpu* g : gpus) {
      auto p = predict_largest_fitting(workload, *g, *run, calibration, catalog, shrink_batch);
      if (!p) return void(ctx.exit_code = ctx.fail(p.status()));
      predictions.push_back(*p);
    }
    const int requested_batch = run->batch.value_or(workload.default_batch);
    const double ref_throughput =
        predictions[std::find(gpus.begin(), gpus.end(), ref) - gpus.begin()].throughput;
    std::vector<GpuValue> values;
    for (size_t i = 0; i < gpus.size(); ++i) {
      auto v = gpu_value(workload, *gpus[i], predictions[i].config, predictions[i].throughput,
                         ref_throughput, catalog, calibration, shrink_batch);
      if (!v) return void(ctx.exit_code = ctx.fail(v.status()));
      values.push_back(*v);
    }
    if (!html_file.empty()) {
      const std::string what = fmt::format("{} ({}, batch {} per GPU)", workload.id,
                                           predictions[0].config.precision, requested_batch);
      const std::string page = report::compare_html(what, requested_batch, ref->id, gpus,
                                                    predictions, values, today().to_string());
      if (ctx.emit_html(html_file, page)) return;
    }
    auto system_value = [&](const GpuValue& v, int count) -> const GpuValue::SystemValue* {
      for (const auto& s : v.systems) {
        if (s.count == count) return &s;
      }
      return nullptr;
    };
    if (ctx.json) {
      report::Json rows = report::Json::array();
      for (size_t i = 0; i < gpus.size(); ++i) {
        const GpuValue& v = values[i];
        report::Json row = report::to_json(workload, *gpus[i], predictions[i]);
        row["relative"] = std::round(v.relative * 1000) / 1000;
        row["memory_gb"] = gpus[i]->memory_gb;
        row["price_usd"] = v.price ? report::Json(v.price->usd) : report::Json(nullptr);
        row["price_kind"] = v.price ? report::Json(v.price->kind) : report::Json(nullptr);
        row["perf_per_kusd_card"] = v.per_kusd_card
                                        ? report::Json(std::round(*v.per_kusd_card * 1e4) / 1e4)
                                        : report::Json(nullptr);
        report::Json systems = report::Json::array();
        for (const auto& s : v.systems) {
          systems.push_back({{"count", s.count},
                             {"system", s.system},
                             {"capex_usd", s.capex_usd},
                             {"relative", std::round(s.relative * 1000) / 1000},
                             {"perf_per_kusd", std::round(s.per_kusd * 1e4) / 1e4}});
        }
        row["systems"] = systems;
        row["perf_per_kw"] = std::round(v.per_kw * 1000) / 1000;
        rows.push_back(row);
      }
      return ctx.print_json({{"workload", workload.id},
                             {"reference", ref->id},
                             {"batch_per_gpu", requested_batch},
                             {"gpus", rows}});
    }
    using A = report::Table::Align;
    report::Table table({{"gpu"},
                         {"relative", A::kRight},
                         {"throughput", A::kRight},
                         {"unit"},
                         {"bound"},
                         {"memory GB", A::kRight},
                         {"fits"},
                         {"price USD", A::kRight},
                         {"per kUSD", A::kRight},
                         {"x1 sys", A::kRight},
                         {"x2 sys", A::kRight},
                         {"x4 sys", A::kRight},
                         {"x8 sys", A::kRight},
                         {"per kW", A::kRight}});
    for (size_t i = 0; i < gpus.size(); ++i) {
      const Prediction& p = predictions[i];
      const GpuValue& v = values[i];
      std::vector<std::string> row = {
          gpus[i]->id,
          fmt::format("{:.2f}", v.relative),
          fmt::format("{:.4g}", p.throughput),
          p.unit,
          p.bound,
          format_number(gpus[i]->memory_gb),
          report::fit_label(p, requested_batch),
          v.price ? format_number(v.price->usd) : "-",
          v.per_kusd_card ? fmt::format("{:.3f}", *v.per_kusd_card) : "-"};
      for (int count : kValueCounts) {
        const auto* s = system_value(v, count);
        row.push_back(s ? fmt::format("{:.3f}", s->per_kusd) : "-");
      }
      row.push_back(fmt::format("{:.2f}", v.per_kw));
      table.add_row(std::move(row));
    }
    *ctx.out
        << fmt::format("{} ({}, batch {} per GPU), relative to {}:\n\n", workload.id,
                       predictions[0].config.precision, requested_batch, ref->id)
        << table.render()
        << "\nper kUSD: relative performance per 1,000 USD of the card (new price); xN sys: of a "
           "whole new "
           "N-GPU system (GPUs + base system, data/catalog/systems.toml); per kW: per kW of "
           "average GPU draw. "
           "\"-\": no price, or no base system holds N of the card. \"yes, batch N\": the "
           "requested batch does "
           "not fit; the card runs the largest that does (give --batch to compare at one batch).\n";
  });
}

}  // namespace rigplan::cli
