// A recommendation request as the front ends give it, merged with its preset.
#include <fmt/format.h>

#include "rigplan/input.h"
#include "rigplan/recommend.h"

namespace rigplan {
namespace {

template <class T>
void replace(T& field, const std::optional<T>& given) {
  if (given) field = *given;
}

Constraints merged(Constraints k, const ConstraintOptions& given) {
  if (given.budget_usd) k.budget_usd = given.budget_usd;
  replace(k.region, given.region);
  if (given.utilisation) k.utilisation = given.utilisation;
  replace(k.horizon_months, given.horizon_months);
  replace(k.acquire, given.acquire);
  replace(k.condition, given.condition);
  if (given.max_power_w) k.max_power_w = given.max_power_w;
  replace(k.circuit, given.circuit);
  replace(k.max_gpus, given.max_gpus);
  if (!given.gpus_allowed.empty()) k.gpus_allowed = given.gpus_allowed;
  if (!given.have.empty()) k.have = given.have;
  replace(k.system, given.system);
  replace(k.power_limit, given.power_limit);
  if (given.electricity_usd_per_kwh) k.electricity_usd_per_kwh = given.electricity_usd_per_kwh;
  if (given.pue) k.pue = given.pue;
  k.resale = !given.no_resale;
  if (given.today) k.today = given.today;
  replace(k.max_price_age_months, given.max_price_age_months);
  if (given.allow_stale_prices) k.allow_stale_prices = true;
  return k;
}

// A serving job's targets without --serve-rate are a mistake, not something to ignore.
Status check_serving_options(const RecommendRequest& r) {
  if (Status s = input::check_all({{&input::kServeRate, r.serve_rate},
                                   {&input::kMaxTtftMs, r.max_ttft_ms},
                                   {&input::kMaxTpotMs, r.max_tpot_ms},
                                   {&input::kServeHours, r.serve_hours}});
      !s.ok())
    return s;
  if (r.serve_rate) return {};
  const std::pair<const char*, bool> targets[] = {{"--max-ttft-ms", r.max_ttft_ms.has_value()},
                                                  {"--max-tpot-ms", r.max_tpot_ms.has_value()},
                                                  {"--serve-hours", r.serve_hours.has_value()}};
  for (const auto& [name, given] : targets) {
    if (given) {
      return Status::invalid_input(fmt::format(
          "{} is a target of a serving job: give the requests per second with --serve-rate R",
          name));
    }
  }
  return {};
}

ServingJob serving_job(const RecommendRequest& r, std::optional<ServingJob> preset) {
  ServingJob job = preset.value_or(ServingJob{});
  job.request_rate = *r.serve_rate;
  if (r.max_ttft_ms) job.max_ttft_ms = r.max_ttft_ms;
  if (r.max_tpot_ms) job.max_tpot_ms = r.max_tpot_ms;
  if (r.serve_hours) job.hours_per_month = *r.serve_hours;
  return job;
}

// The job size given, replacing the preset's.
Status apply_job_size(const RecommendRequest& r, Demand& demand) {
  if (Status s = input::check_all({{&input::kTokens, r.tokens},
                                   {&input::kSamples, r.samples},
                                   {&input::kImages, r.images},
                                   {&input::kEpochs, r.epochs},
                                   {&input::kHoursPerMonth, r.hours_per_month}});
      !s.ok())
    return s;
  if (Status s = check_serving_options(r); !s.ok()) return s;
  const int sizes = r.tokens.has_value() + r.samples.has_value() + r.images.has_value() +
                    r.hours_per_month.has_value() + r.serve_rate.has_value();
  if (sizes > 1) {
    return Status::invalid_input(
        "give one job size: --tokens, --samples, --images (with --epochs), --hours-per-month or "
        "--serve-rate");
  }
  if (sizes == 0) {
    if (!r.preset.empty()) return {};
    return Status::invalid_input(
        "give a job size: --tokens N, --samples N, --images N --epochs E, --hours-per-month H, "
        "or a serving job's --serve-rate R");
  }
  const std::optional<ServingJob> preset_serving = demand.serving;
  demand.work.reset();
  demand.hours_per_month.reset();
  demand.serving.reset();
  if (r.tokens) demand.work = *r.tokens;
  if (r.samples) demand.work = *r.samples;
  if (r.images) demand.work = *r.images * r.epochs.value_or(1);
  if (r.hours_per_month) demand.hours_per_month = *r.hours_per_month;
  if (r.serve_rate) demand.serving = serving_job(r, preset_serving);
  return {};
}

// --compile and --cuda-graphs: every training task runs so, a preset's too; an inference task's
// speed is its engine's. A demand that trains nothing is refused as predict refuses it.
Status apply_compile(const RunConfig& given, Demand& demand) {
  if (!given.compile && !given.cuda_graphs) return {};
  bool trains = false;
  for (Task& task : demand.tasks) {
    if (task.run.mode != "train") continue;
    trains = true;
    task.run.compile = task.run.compile || given.compile;
    task.run.cuda_graphs = task.run.cuda_graphs || given.cuda_graphs;
  }
  if (trains || demand.tasks.empty()) return {};  // no task: recommend() says so
  RunConfig asked = demand.tasks.front().run;
  asked.compile = given.compile;
  asked.cuda_graphs = given.cuda_graphs;
  return check_compile_mode(asked);
}

}  // namespace

Result<ResolvedRequest> resolve_request(const RecommendRequest& r,
                                        const std::vector<Preset>& presets, const Zoo& zoo) {
  ResolvedRequest out;
  if (!r.preset.empty()) {
    auto preset = find_preset(presets, r.preset);
    if (!preset) return preset.status();
    auto demand = preset_demand(**preset, zoo);
    if (!demand) return demand.status();
    out.demand = std::move(demand).value();
    out.constraints = (*preset)->constraints;
  } else if (!r.workload) {
    return Status::invalid_input(
        "name a workload (`rigplan workloads list`) or a preset (--preset; `rigplan recommend "
        "--presets`)");
  }
  if (r.workload) {  // one copy of the workload, not two through an initializer list
    out.demand.tasks.clear();
    out.demand.tasks.push_back(Task{*r.workload, r.run, 1});
  }
  if (!r.run.framework.empty()) {  // a preset's tasks run the framework asked for too
    for (Task& task : out.demand.tasks) task.run.framework = r.run.framework;
  }
  if (Status s = apply_job_size(r, out.demand); !s.ok()) return s;
  if (out.demand.serving) {
    // A serving job runs its model as the engine serves it: the run's mode is "serve".
    for (Task& task : out.demand.tasks) {
      if (task.run.mode != "train" && task.run.mode != "serve") {
        return Status::invalid_input(fmt::format(
            "a serving job runs --mode serve, not --mode {}; leave --mode out", task.run.mode));
      }
      task.run.mode = "serve";
    }
  }
  if (Status s = apply_compile(r.run, out.demand); !s.ok()) return s;
  if (r.reference_gpu) out.demand.reference_gpu = *r.reference_gpu;
  out.demand.host = r.host;
  out.constraints = merged(std::move(out.constraints), r.constraints);
  if (r.machine) {
    out.constraints.machine = r.machine;
    out.constraints.machine_gpu = r.machine_gpu;
    out.constraints.max_gpus = std::max(out.constraints.max_gpus, r.machine_gpu_count);
  }
  return out;
}

}  // namespace rigplan
