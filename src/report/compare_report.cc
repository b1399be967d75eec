// `rigplan compare`: the comparison as JSON, a table and an HTML page with Dettmers' charts.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "rigplan/chart.h"
#include "rigplan/compare.h"
#include "rigplan/report.h"
#include "util/figures.h"
#include "util/strings.h"

namespace rigplan::report {
namespace {

double round3(double x) { return std::round(x * 1000) / 1000; }
double round4(double x) { return std::round(x * 1e4) / 1e4; }

const GpuValue::SystemValue* system_value(const GpuValue& v, int count) {
  for (const auto& s : v.systems) {
    if (s.count == count) return &s;
  }
  return nullptr;
}

// "rtx-4090", or "2x rtx-3090" when the comparison is of whole systems.
std::string entry_name(const ComparedGpu& g, bool systems) {
  return systems ? fmt::format("{}x {}", g.count, g.gpu->id) : g.gpu->id;
}

std::string reference_name(const Comparison& c) {
  return c.systems ? fmt::format("{}x {}", c.reference_count, c.reference->id) : c.reference->id;
}

// An LLM's inference run as predict's header says it: "decode with vllm, bf16 weights, prompt
// 131072", "serve with vllm, fp8 weights, prompt 1024 + 256 generated, at 4 requests/s"; "" for
// a training run or a model that is not an LLM.
std::string inference_title(const Comparison& c) {
  if (c.gpus.empty()) return "";
  const Prediction& p = c.gpus.front().prediction;
  const RunConfig& r = p.config;
  if (r.mode == "train" || p.unit != "tokens/s") return "";
  std::string out = fmt::format("{} with {}, {} weights, prompt {}", r.mode, r.engine, r.weights,
                                r.seq_len.value_or(0));
  if (r.gen_tokens > 0) out += fmt::format(" + {} generated", r.gen_tokens);
  if (r.mode != "serve") return out;
  return out + (r.request_rate ? fmt::format(", at {} requests/s", format_number(*r.request_rate))
                : c.batch_given
                    ? fmt::format(", {} in flight per replica or as many as fit", c.requested_batch)
                    : ", as many in flight as fit");
}

std::string comparison_title(const Comparison& c) {
  const std::string inference = inference_title(c);
  if (!inference.empty() && c.gpus.front().prediction.config.mode == "serve")
    return fmt::format("{} ({})", c.workload, inference);
  return fmt::format(
      "{} ({}, batch {} per GPU{})", c.workload, inference.empty() ? c.precision : inference,
      c.requested_batch,
      c.offload ? ", offloaded where it does not fit" : " or the largest that fits the card");
}

Json compared_json(const Workload& workload, const ComparedGpu& g, const Comparison& c) {
  const GpuValue& v = g.value;
  const int requested_batch = c.requested_batch;
  Json row = to_json(workload, *g.gpu, g.prediction);
  row["name"] = entry_name(g, c.systems);
  row["count"] = g.count;
  row["gpus_price_usd"] = v.price ? Json(v.price->usd * g.count) : Json(nullptr);
  row["relative"] = round3(v.relative);
  row["fit"] = fit_label(g.prediction, requested_batch);
  row["memory_gb"] = g.gpu->memory_gb;
  row["price_usd"] = v.price ? Json(v.price->usd) : Json(nullptr);
  row["price_kind"] = v.price ? Json(v.price->kind) : Json(nullptr);
  row["perf_per_kusd_card"] = v.per_kusd_card ? Json(round4(*v.per_kusd_card)) : Json(nullptr);
  Json systems = Json::array();
  for (const auto& s : v.systems) {
    systems.push_back({{"count", s.count},
                       {"system", s.system},
                       {"capex_usd", s.capex_usd},
                       {"relative", round3(s.relative)},
                       {"perf_per_kusd", round4(s.per_kusd)}});
  }
  row["systems"] = systems;
  row["perf_per_kw"] = round3(v.per_kw);
  return row;
}

}  // namespace

Json to_json(const Workload& workload, const Comparison& c) {
  Json rows = Json::array();
  for (const ComparedGpu& g : c.gpus) rows.push_back(compared_json(workload, g, c));
  return {{"workload", c.workload},
          {"reference", c.reference->id},
          {"reference_count", c.reference_count},
          {"whole_systems", c.systems},
          {"batch_per_gpu", c.requested_batch},
          {"offload", c.offload},
          {"gpus", rows},
          {"notes", c.notes}};
}

// `compare --gpus 2x ID,...`: one row per whole system.
std::string systems_text(const Comparison& c) {
  using A = Table::Align;
  Table table({{"system"},
               {"relative", A::kRight},
               {"throughput", A::kRight},
               {"unit"},
               {"bound"},
               {"GB per GPU", A::kRight},
               {"fits"},
               {"GPUs USD", A::kRight},
               {"per kUSD GPUs", A::kRight},
               {"base system"},
               {"system USD", A::kRight},
               {"per kUSD sys", A::kRight},
               {"per kW", A::kRight}});
  for (const ComparedGpu& g : c.gpus) {
    const Prediction& p = g.prediction;
    const GpuValue& v = g.value;
    const auto* s = system_value(v, g.count);
    const bool runs = p.throughput > 0;
    table.add_row({entry_name(g, true), runs ? fmt::format("{:.2f}", v.relative) : "-",
                   runs ? significant(p.throughput) : "-", p.unit, p.bound,
                   fmt::format("{:.1f} of {}", p.memory_gb, format_number(g.gpu->memory_gb)),
                   fit_label(p, c.requested_batch),
                   v.price ? format_number(v.price->usd * g.count) : "-",
                   runs && v.per_kusd_card ? fmt::format("{:.3f}", *v.per_kusd_card) : "-",
                   s ? s->system : "-", s ? format_number(s->capex_usd) : "-",
                   s ? fmt::format("{:.3f}", s->per_kusd) : "-",
                   runs ? fmt::format("{:.2f}", v.per_kw) : "-"});
  }
  std::string notes;
  for (const auto& n : c.notes) notes += "note: " + n + "\n";
  return fmt::format("{}, whole systems relative to {}:\n\n", comparison_title(c),
                     reference_name(c)) +
         table.render() +
         "\nEach system runs the batch per GPU data parallel over its GPUs (or as --tp/--pp split "
         "it), as predict --gpus N does; throughput is the whole system's. GB per GPU: the run's "
         "memory per GPU of the card's. GPUs USD: the cards at their new price; per kUSD GPUs: "
         "relative performance per 1,000 USD of them; base system: the cheapest new machine that "
         "holds them (data/catalog/systems.toml), system USD its price with the GPUs; per kW: "
         "per kW of the GPUs' average draw. \"-\": no price, no base system holds the GPUs, or "
         "the run does not fit.\n" +
         notes;
}

std::string compare_text(const Comparison& c) {
  if (c.systems) return systems_text(c);
  using A = Table::Align;
  Table table({{"gpu"},
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
  for (const ComparedGpu& g : c.gpus) {
    const Prediction& p = g.prediction;
    const GpuValue& v = g.value;
    std::vector<std::string> row = {
        g.gpu->id,
        p.throughput > 0 ? fmt::format("{:.2f}", v.relative) : "-",
        p.throughput > 0 ? significant(p.throughput) : "-",
        p.unit,
        p.bound,
        format_number(g.gpu->memory_gb),
        fit_label(p, c.requested_batch),
        v.price ? format_number(v.price->usd) : "-",
        p.throughput > 0 && v.per_kusd_card ? fmt::format("{:.3f}", *v.per_kusd_card) : "-"};
    for (int count : kValueCounts) {
      const auto* s = system_value(v, count);
      row.push_back(s ? fmt::format("{:.3f}", s->per_kusd) : "-");
    }
    row.push_back(p.throughput > 0 ? fmt::format("{:.2f}", v.per_kw) : "-");
    table.add_row(std::move(row));
  }
  std::string notes;
  for (const auto& n : c.notes) notes += "note: " + n + "\n";
  return fmt::format("{}, relative to {}:\n\n", comparison_title(c), c.reference->id) +
         table.render() +
         "\nper kUSD: relative performance per 1,000 USD of the card (new price); xN sys: of a "
         "whole new N-GPU system (GPUs + base system, data/catalog/systems.toml); per kW: per kW "
         "of average GPU draw. \"-\": no price, no base system holds N of the card, or the run "
         "does not fit. \"yes, batch N\": the requested batch does not fit; the card runs the "
         "largest that does (--offload cpu runs the requested batch with what does not fit "
         "streamed from host memory). \"no\": not even batch 1 fits.\n" +
         notes;
}

// Marks the points no other point beats: lower or equal x and higher or equal y, one strictly.
void mark_front(std::vector<chart::ScatterChart::Point>& points) {
  for (auto& p : points) {
    p.front = std::none_of(points.begin(), points.end(), [&](const chart::ScatterChart::Point& q) {
      return q.x <= p.x && q.y >= p.y && (q.x < p.x || q.y > p.y);
    });
  }
}

std::string fit_label(const Prediction& prediction, int requested_batch) {
  if (!prediction.fits) {
    return prediction.config.offload == "cpu" && prediction.throughput > 0
               ? "no (offloaded)"
               : fmt::format("no: needs {:.1f} GB", prediction.memory_gb);
  }
  // Serving: the load is the title's; what the card holds is its most sequences in flight.
  if (prediction.serving)
    return fmt::format("yes, at most {} in flight", prediction.serving->max_concurrency);
  const int batch = prediction.config.batch.value_or(requested_batch);
  return batch == requested_batch ? "yes" : fmt::format("yes, batch {}", batch);
}

// The charts and table of the comparison page, filled one GPU at a time.
struct CompareCharts {
  chart::BarChart relative, per_card;
  std::vector<chart::BarChart> per_system;  // one per count of kValueCounts
  chart::ScatterChart by_price, by_power;
  std::vector<std::vector<std::string>> table;
};

CompareCharts empty_compare_charts(const std::string& what, const std::string& reference,
                                   const std::string& footer) {
  CompareCharts charts{
      {"Relative performance: " + what, "throughput relative to " + reference, footer, {}, 1.0},
      {"Performance per 1,000 USD, card alone",
       "relative performance per 1,000 USD (new price)",
       footer,
       {},
       0},
      {},
      {"Performance against price",
       "new price of the card (USD)",
       "throughput relative to " + reference,
       footer,
       {},
       true,
       false},
      {"Performance against power",
       "average GPU draw while running (W)",
       "throughput relative to " + reference,
       footer,
       {},
       false,
       false},
      {{"gpu", "relative", "fits", "price USD", "per kUSD card", "x1 system", "x2 system",
        "x4 system", "x8 system", "per kW"}}};
  for (int count : kValueCounts) {
    charts.per_system.push_back(
        {fmt::format("Performance per 1,000 USD, whole {}-GPU system", count),
         "relative performance per 1,000 USD of GPUs + base system",
         footer,
         {},
         0});
  }
  return charts;
}

// A GPU run at a smaller batch, or offloaded, says so wherever its number appears.
std::string gpu_label(const ComparedGpu& g, const std::string& fits, bool systems) {
  std::string id = entry_name(g, systems);
  if (fits == "yes") return id;
  if (g.prediction.fits) return fmt::format("{} (batch {})", id, *g.prediction.config.batch);
  return id + (fits == "no (offloaded)" ? " (offloaded)" : " (does not fit)");
}

// Adds one GPU's bars, points and table row.
void add_compared_gpu(CompareCharts& charts, const ComparedGpu& g, const Comparison& c) {
  const GpuValue& v = g.value;
  const std::string id = entry_name(g, c.systems);
  const bool is_reference = id == reference_name(c);
  const std::string fits = fit_label(g.prediction, c.requested_batch);
  const std::string label = gpu_label(g, fits, c.systems);
  charts.relative.bars.push_back({label, v.relative, is_reference});
  if (v.per_kusd_card) charts.per_card.bars.push_back({label, *v.per_kusd_card, is_reference});
  std::vector<std::string> row = {id, fmt::format("{:.2f}", v.relative), fits,
                                  v.price ? format_number(v.price->usd) : "-",
                                  v.per_kusd_card ? fmt::format("{:.3f}", *v.per_kusd_card) : "-"};
  for (size_t k = 0; k < std::size(kValueCounts); ++k) {
    const GpuValue::SystemValue* s = system_value(v, kValueCounts[k]);
    row.push_back(s ? fmt::format("{:.3f}", s->per_kusd) : "-");
    if (s) charts.per_system[k].bars.push_back({label, s->per_kusd, is_reference});
  }
  row.push_back(fmt::format("{:.2f}", v.per_kw));
  charts.table.push_back(std::move(row));
  if (v.price) charts.by_price.points.push_back({label, v.price->usd, v.relative});
  if (v.per_kw > 0)
    charts.by_power.points.push_back({label, v.relative / v.per_kw * 1000, v.relative});
}

std::string compare_html(const Comparison& c, const std::string& date) {
  const std::string what = comparison_title(c);
  const std::string reference = reference_name(c);
  const std::string footer = chart::dated(
      "rigplan compare: throughput from the performance model (docs/performance.md); prices from "
      "data/catalog, dated "
      "per entry",
      date);
  CompareCharts charts = empty_compare_charts(what, reference, footer);
  for (const ComparedGpu& g : c.gpus) add_compared_gpu(charts, g, c);
  mark_front(charts.by_price.points);
  mark_front(charts.by_power.points);
  std::vector<std::string> lines = {"Relative to " + reference + ", as in Dettmers' charts."};
  lines.insert(lines.end(), c.notes.begin(), c.notes.end());
  chart::Section section{"GPUs for " + what,
                         lines,
                         charts.table,
                         {chart::svg(charts.relative), chart::svg(charts.per_card),
                          chart::svg(charts.by_price), chart::svg(charts.by_power)}};
  for (const auto& chart_of_count : charts.per_system) {
    if (!chart_of_count.bars.empty()) section.charts.push_back(chart::svg(chart_of_count));
  }
  return chart::html_page(
      "rigplan comparison", {section},
      chart::dated(
          "Generated by rigplan. A missing bar: no price, or no base system holds that many "
          "of the card. Joined points are the Pareto front: no other card is both cheaper "
          "(or leaner) and faster",
          date));
}

}  // namespace rigplan::report
