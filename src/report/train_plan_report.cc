// `rigplan train-plan` as text and JSON.
#include <fmt/format.h>

#include <cmath>

#include "report/predict_flags.h"
#include "rigplan/report.h"
#include "util/figures.h"

namespace rigplan::report {
namespace {

std::string layout_name(const RunConfig& c) {
  const int dp = c.gpus / (c.tensor_parallel * c.pipeline_parallel * c.context_parallel);
  std::string out = fmt::format("TP {} PP {}", c.tensor_parallel, c.pipeline_parallel);
  if (c.virtual_stages > 1) out += fmt::format("×{}", c.virtual_stages);
  if (c.context_parallel > 1) out += fmt::format(" CP {}", c.context_parallel);
  out += fmt::format(" DP {}", dp);
  if (c.expert_parallel > 1) out += fmt::format(" EP {}", c.expert_parallel);
  return out;
}

// The layout as predict's flags (memory takes them all but the network's), so that a user can
// ask about it: every setting of the resolved layout that predict's defaults do not give,
// including sequence parallelism, which the search runs with every tensor-parallel layout and
// the table does not show. What predict resolves alike from these flags is left out: a layout
// trains in full under PyTorch, so its weights (its precision's), engine and KV cache are
// predict's too, and its batch per replica is the global batch over its replicas.
std::string layout_flags(const RunConfig& c) {
  RunConfig resolved_alike;
  resolved_alike.weights = c.weights;
  resolved_alike.engine = c.engine;
  resolved_alike.kv_cache = c.kv_cache;
  resolved_alike.batch = c.batch;
  return predict_flags(c, resolved_alike);
}

Json layout_json(const Workload& workload, const Gpu& gpu, const LayoutOption& o) {
  const RunConfig& c = o.run;
  Json j = {{"tp", c.tensor_parallel},
            {"pp", c.pipeline_parallel},
            {"cp", c.context_parallel},
            {"dp", c.gpus / (c.tensor_parallel * c.pipeline_parallel * c.context_parallel)},
            {"ep", c.expert_parallel},
            {"vp", c.virtual_stages},
            {"micro_batch", c.micro_batch.value_or(0)},
            {"recompute", c.recompute},
            {"sequence_parallel", c.sequence_parallel},
            {"zero", c.zero},
            {"memory_gb", std::round(o.memory_gb * 100) / 100},
            {"gpu_hours_per_billion_tokens", std::round(o.gpu_hours * 10) / 10}};
  if (o.days) j["days_to_train"] = std::round(*o.days * 100) / 100;
  if (!o.why_slower.empty()) j["why_slower"] = o.why_slower;
  j["prediction"] = to_json(workload, gpu, o.prediction);
  return j;
}

}  // namespace

Json to_json(const Workload& workload, const Gpu& gpu, const TrainPlan& plan) {
  Json layouts = Json::array();
  for (const auto& o : plan.layouts) layouts.push_back(layout_json(workload, gpu, o));
  Json j = {{"workload", workload.id},           {"gpu", gpu.id},
            {"global_batch", plan.global_batch}, {"evaluated", plan.evaluated},
            {"fitting", plan.fitting},           {"layouts", layouts}};
  if (plan.layouts.empty()) j["least_memory_gb"] = std::round(plan.least_memory_gb * 100) / 100;
  return j;
}

std::string train_plan_text(const Workload& workload, const Gpu& gpu, const TrainPlan& plan) {
  const int gpus = plan.layouts.empty() ? 0 : plan.layouts.front().run.gpus;
  std::string out =
      fmt::format("{} on {}: global batch {} sequences; {} layouts split it whole, {} fit\n\n",
                  workload.id, gpu.id, plan.global_batch, plan.evaluated, plan.fitting);
  if (plan.layouts.empty()) {
    return out + fmt::format(
                     "No layout fits: the smallest needs {:.1f} GB per GPU. More GPUs, a smaller "
                     "global batch or sequence would.\n",
                     plan.least_memory_gb);
  }
  const bool days = plan.layouts.front().days.has_value();
  std::vector<Table::Column> columns = {
      {"#", Table::Align::kRight},      {"layout"},
      {"micro", Table::Align::kRight},  {"recompute"},
      {"zero", Table::Align::kRight},   {"GB/GPU", Table::Align::kRight},
      {"step s", Table::Align::kRight}, {"tokens/s", Table::Align::kRight},
      {"MFU", Table::Align::kRight},    {"GPU-h/1B tok", Table::Align::kRight}};
  if (days) columns.push_back({"days", Table::Align::kRight});
  Table table(columns);
  for (size_t i = 0; i < plan.layouts.size(); ++i) {
    const LayoutOption& o = plan.layouts[i];
    std::vector<std::string> row = {fmt::format("{}", i + 1),
                                    layout_name(o.run),
                                    fmt::format("{}", o.run.micro_batch.value_or(0)),
                                    o.run.recompute,
                                    fmt::format("{}", o.run.zero),
                                    fmt::format("{:.1f}", o.memory_gb),
                                    fmt::format("{:.3g}", o.prediction.step_time_s),
                                    significant(o.prediction.throughput),
                                    fmt::format("{:.1f}%", o.prediction.mfu * 100),
                                    fmt::format("{:.0f}", o.gpu_hours)};
    if (days) row.push_back(fmt::format("{:.1f}", *o.days));
    table.add_row(row);
  }
  out += table.render() + "\n";
  for (size_t i = 1; i < plan.layouts.size(); ++i)
    out += fmt::format("#{}: {}\n", i + 1, plan.layouts[i].why_slower);
  out += fmt::format("#1 on {} GPUs: {}\n", gpus, plan.layouts.front().prediction.note);
  out += fmt::format("#1 as predict flags: {}\n", layout_flags(plan.layouts.front().run));
  return out;
}

}  // namespace rigplan::report
