// The first steps of recommend(): the request checked, its site and power cap resolved, and the
// work each task asks for.
#include <fmt/format.h>

#include <algorithm>

#include "model/framework_speed.h"
#include "recommend/steps.h"
#include "rigplan/input.h"
#include "util/strings.h"

namespace rigplan::recommend_steps {
namespace {

Status check_choice(std::string_view option, const std::string& value,
                    const std::vector<std::string>& accepted) {
  if (std::find(accepted.begin(), accepted.end(), value) != accepted.end()) return {};
  return Status::invalid_input(fmt::format("{} '{}' is not accepted; expected {}{}", option,
                                           shown(value), quoted_list(accepted),
                                           did_you_mean(value, accepted)));
}

// A serving job serves one LLM (a decoder: it generates) in mode serve, with tokens to generate.
Status check_serving(const Demand& demand) {
  if (!demand.serving) return {};
  const ServingJob& job = *demand.serving;
  if (Status s = input::check_all({{&input::kServeRate, job.request_rate},
                                   {&input::kMaxTtftMs, job.max_ttft_ms},
                                   {&input::kMaxTpotMs, job.max_tpot_ms},
                                   {&input::kServeHours, job.hours_per_month}});
      !s.ok())
    return s;
  if (demand.tasks.size() != 1) return Status::invalid_input("a serving job serves one model");
  const Task& task = demand.tasks[0];
  if (!task.workload.transformer || task.workload.transformer->arch == "encoder") {
    return Status::invalid_input(
        fmt::format("a serving job serves a model that generates tokens; {} is not a decoder LLM",
                    task.workload.id));
  }
  if (task.run.mode != "serve") {
    return Status::invalid_input(
        fmt::format("a serving job runs in mode serve, not {}", task.run.mode));
  }
  if (task.run.gen_tokens < 1) {
    return Status::invalid_input(
        "a serving job generates tokens: give the output length with --output-len N");
  }
  return {};
}

Status check_demand(const Demand& demand) {
  if (demand.tasks.empty()) return Status::invalid_input("the demand names no workload");
  if (demand.work.has_value() + demand.hours_per_month.has_value() + demand.serving.has_value() !=
      1) {
    return Status::invalid_input(
        "give the job size as one of work (--tokens, --samples, --images), --hours-per-month or "
        "a serving job (--serve-rate), not several or none");
  }
  if (demand.work && demand.tasks.size() != 1) {
    return Status::invalid_input("a work amount needs a single workload");
  }
  if (Status s = check_serving(demand); !s.ok()) return s;
  if (Status s = input::check(input::kWork, demand.work); !s.ok()) return s;
  if (Status s = input::check(input::kHoursPerMonth, demand.hours_per_month); !s.ok()) return s;
  for (const Task& task : demand.tasks) {
    if (Status s = input::check(input::kShare, task.share); !s.ok()) return s;
    if (Status s = check_compile_mode(task.run); !s.ok()) return s;
  }
  return {};
}

// Each choice accepted and each number within its range (rigplan/input.h).
Status check_constraints(const Constraints& k) {
  if (Status s = check_choice("--acquire", k.acquire, {"own", "rent", "both"}); !s.ok()) return s;
  if (Status s = check_choice("--condition", k.condition, {"new", "used", "any"}); !s.ok())
    return s;
  if (k.today && !k.today->valid()) return Status::invalid_input("today's date is not a date");
  return input::check_all({{&input::kHorizonMonths, k.horizon_months},
                           {&input::kUtilisation, k.utilisation},
                           {&input::kPowerLimit, k.power_limit},
                           {&input::kMaxGpus, k.max_gpus},
                           {&input::kBudget, k.budget_usd},
                           {&input::kMaxPower, k.max_power_w},
                           {&input::kElectricity, k.electricity_usd_per_kwh},
                           {&input::kPue, k.pue},
                           {&input::kMaxPriceAge, k.max_price_age_months}});
}

// The tighter of --max-power and the circuit's continuous capacity.
Status resolve_power_cap(const Catalog& catalog, const Constraints& k, Request& r) {
  r.power_cap = k.max_power_w;
  r.power_cap_name = "--max-power";
  if (k.circuit.empty()) return {};
  auto circuit = catalog.find_circuit(k.circuit);
  if (!circuit) return circuit.status();
  if (!r.power_cap || (*circuit)->continuous_w() < *r.power_cap) {
    r.power_cap = (*circuit)->continuous_w();
    r.power_cap_name = (*circuit)->id;
  }
  return {};
}

// --gpus-allowed: each name a catalog GPU (an unknown one is refused with the closest ids).
Status resolve_gpus_allowed(const Catalog& catalog, const Constraints& k, Request& r) {
  if (Status s = input::check_list("gpus-allowed", k.gpus_allowed.size()); !s.ok()) return s;
  std::vector<std::string> ids;
  for (const std::string& name : k.gpus_allowed) {
    auto gpu = catalog.find_gpu(name);
    if (!gpu) {
      return Status::not_found(fmt::format("--gpus-allowed: {}", gpu.status().message()));
    }
    if (std::find(r.gpus_allowed.begin(), r.gpus_allowed.end(), *gpu) != r.gpus_allowed.end())
      continue;
    r.gpus_allowed.push_back(*gpu);
    ids.push_back((*gpu)->id);
  }
  if (!ids.empty()) {
    r.assumptions.push_back(fmt::format("Only options on {} (--gpus-allowed).", join(ids, ", ")));
  }
  return {};
}

// What a serving job's answer stands on, in one sentence.
std::string serving_assumption(const Demand& demand) {
  const ServingJob& job = *demand.serving;
  const Task& task = demand.tasks[0];
  const int prompt = task.run.seq_len.value_or(task.workload.default_seq_len.value_or(0));
  return fmt::format(
      "A service of {} requests/s, each a {}-token prompt and {} generated tokens, up {} hours "
      "a month; steady-state means under continuous batching (docs/inference.md); the GPUs draw "
      "decode power all the hours the service is up.",
      format_number(job.request_rate), prompt, task.run.gen_tokens,
      format_number(job.hours_per_month));
}

// The training tasks that run under torch.compile or CUDA graphs, a sentence for each way they
// run: every option's speed, and the reference GPU's, are those steps' (docs/recommend.md).
std::vector<std::string> compile_assumptions(const Demand& demand) {
  std::vector<std::pair<const RunConfig*, std::vector<std::string>>> ways;  // a run, its tasks
  for (const Task& task : demand.tasks) {
    if (!task.run.compile && !task.run.cuda_graphs) continue;
    const auto same = std::find_if(ways.begin(), ways.end(), [&](const auto& way) {
      return way.first->compile == task.run.compile &&
             way.first->cuda_graphs == task.run.cuda_graphs;
    });
    if (same != ways.end()) {
      same->second.push_back(task.workload.id);
    } else {
      ways.push_back({&task.run, {task.workload.id}});
    }
  }
  std::vector<std::string> out;
  for (const auto& [run, ids] : ways) {
    std::vector<std::string> flags;
    if (run->compile) flags.emplace_back("--compile");
    if (run->cuda_graphs) flags.emplace_back("--cuda-graphs");
    out.push_back(fmt::format(
        "Speeds assume {} train{} under {}: each option's step as `rigplan predict {}` predicts "
        "it, whose --explain shows the change against eager PyTorch (docs/performance.md, "
        "\"torch.compile and CUDA graphs\").",
        join(ids, ", "), ids.size() == 1 ? "s" : "", compiled_with(*run), join(flags, " ")));
  }
  return out;
}

// Where a task naming no framework would take another one sharded (recommend tries ZeRO-3 on
// several GPUs): the clause that says so, else empty.
std::string sharded_default_clause(const Calibration& calibration, const RunConfig& run,
                                   const FrameworkCalibration& taken) {
  if (!run.framework.empty() || run.zero == 3) return "";
  auto sharded = run_framework(calibration, "", 3, nullptr);
  if (!sharded || (*sharded)->framework == taken.framework) return "";
  return fmt::format(
      "; an option that shards its weights over several GPUs (ZeRO-3) takes framework {}'s "
      "level, {}",
      (*sharded)->framework, format_number((*sharded)->level));
}

// What sets a training task's speed, said with the answer (docs/performance.md,
// "Frameworks"): its framework's level for a workload never measured, or a measured workload's
// speed moved to a framework other than its rows'; empty otherwise and for serving. An unknown
// framework is an error.
Result<std::string> framework_assumption(const Task& task, const Calibration& calibration) {
  const WorkloadCalibration* measured = measured_speed(calibration, task.workload.id);
  auto framework = run_framework(calibration, task.run.framework, task.run.zero, measured);
  if (!framework) return framework.status();
  if (task.run.mode != "train") return std::string();
  const std::string_view id = (*framework)->framework;
  const ImplementationSpeed speed = implementation_speed(calibration, measured, **framework);
  if (speed.source == kSpeedOfFramework) {
    return fmt::format(
        "{} trains at the level of framework {}{}, {} of the operator model's speed: it has no "
        "measured speed of its own{} (--framework; docs/performance.md, \"Frameworks\").",
        task.workload.id, id, default_framework_note(!task.run.framework.empty(), task.run.zero),
        format_number((*framework)->level),
        sharded_default_clause(calibration, task.run, **framework));
  }
  if (speed.measured_on.empty() || speed.measured_on == id) return std::string();
  return fmt::format(
      "{} trains at {:.3g} of the operator model's speed: its measured speed under framework {}, "
      "{:.3g}, times the level of {} over {}'s (--framework; docs/performance.md, "
      "\"Frameworks\").",
      task.workload.id, speed.speed, speed.measured_on, speed.measured_speed, id,
      speed.measured_on);
}

}  // namespace

Result<Request> check_request(const Demand& demand, const Constraints& k, const Catalog& catalog,
                              const Calibration& calibration) {
  if (Status s = check_demand(demand); !s.ok()) return s;
  if (Status s = check_constraints(k); !s.ok()) return s;
  Request r;
  r.demand = &demand;
  r.constraints = &k;
  r.catalog = &catalog;
  r.calibration = &calibration;
  auto office = owner_site(catalog, k.region, false, k.electricity_usd_per_kwh, k.pue);
  if (!office) return office.status();
  auto server_room = owner_site(catalog, k.region, true, k.electricity_usd_per_kwh, k.pue);
  if (!server_room) return server_room.status();
  r.office = *office;
  r.server_room = *server_room;
  if (Status s = resolve_power_cap(catalog, k, r); !s.ok()) return s;
  if (Status s = resolve_gpus_allowed(catalog, k, r); !s.ok()) return s;
  if (Status s = resolve_have(catalog, k, r); !s.ok()) return s;
  r.only_system = k.machine;
  if (!r.only_system && !k.system.empty()) {
    auto found = catalog.find_system(k.system);
    if (!found) return found.status();
    r.only_system = *found;
  }
  r.owned_speed = power_limit_speed(k.power_limit);
  r.gpu_load =
      gpu_power_utilisation(workload_class(demand.tasks[0].workload), demand.tasks[0].run.mode);
  for (const Task& task : demand.tasks) {
    for (const auto& w : run_warnings(task.workload, task.run)) r.assumptions.push_back(w + ".");
    auto framework = framework_assumption(task, calibration);
    if (!framework) return framework.status();
    if (!framework->empty()) r.assumptions.push_back(*framework);
  }
  for (std::string& compiled : compile_assumptions(demand))
    r.assumptions.push_back(std::move(compiled));
  if (demand.serving) r.assumptions.push_back(serving_assumption(demand));
  if (demand.host) {
    r.assumptions.push_back(fmt::format(
        "Every machine, owned or rented, feeds its GPUs from a {} with the {} loader: a training "
        "step waits for its input where that is slower (docs/performance.md, \"The input "
        "pipeline\"; workloads that name no input are not affected).",
        demand.host->cpu->id, demand.host->loader));
  }
  if (demand.work) {
    r.assumptions.push_back(
        k.utilisation
            ? fmt::format(
                  "An owned machine is busy {}% of the time: the job carries its hours' share "
                  "of the purchase less resale over {} months.",
                  format_number(*k.utilisation * 100), format_number(k.horizon_months))
            : fmt::format(
                  "An owned machine is bought for this job: it carries the whole purchase less "
                  "the resale after {} months (--utilisation U spreads it over other work).",
                  format_number(k.horizon_months)));
  }
  return r;
}

Status resolve_have(const Catalog& catalog, const Constraints& k, Request& r) {
  if (Status s = input::check_list("have", k.have.size()); !s.ok()) return s;
  for (const std::string& spec : k.have) {
    auto owned = parse_gpu_count(catalog, spec, "--have");
    if (!owned) {
      if (owned.status().code() != Status::Code::kNotFound) return owned.status();
      return Status::not_found(fmt::format("--have: {}", owned.status().message()));
    }
    const auto same = std::find_if(r.have.begin(), r.have.end(),
                                   [&](const GpuCount& g) { return g.gpu == owned->gpu; });
    if (same != r.have.end()) {
      same->count += owned->count;
    } else {
      r.have.push_back(*owned);
    }
  }
  return {};
}

bool Request::allowed(const Gpu& gpu) const {
  return gpus_allowed.empty() ||
         std::find(gpus_allowed.begin(), gpus_allowed.end(), &gpu) != gpus_allowed.end();
}

Status resolve_work(Request& r, DemandRuns& runs) {
  const Demand& demand = *r.demand;
  r.work.assign(demand.tasks.size(), demand.work.value_or(0));
  if (!demand.hours_per_month) return {};
  auto ref = r.catalog->find_gpu(demand.reference_gpu);
  if (!ref) return ref.status();
  auto ref_runs = runs.runs(**ref, 1, Topology{});
  if (!ref_runs) return ref_runs.status();
  double shares = 0;
  for (const auto& t : demand.tasks) shares += t.share;
  for (size_t i = 0; i < demand.tasks.size(); ++i) {
    const TaskRun& run = (*ref_runs)->tasks[i];
    if (!run.fits) {
      return Status::invalid_input(fmt::format(
          "the reference GPU {} cannot hold {} ({:.1f} GB); name one that can with --reference",
          (*ref)->id, demand.tasks[i].workload.id, run.memory_gb));
    }
    r.work[i] = demand.tasks[i].share / shares * *demand.hours_per_month * 3600 * run.throughput;
  }
  r.assumptions.push_back(fmt::format(
      "{} hours a month of work as measured on one {}, split among the workloads by share.",
      format_number(*demand.hours_per_month), (*ref)->id));
  return {};
}

}  // namespace rigplan::recommend_steps
