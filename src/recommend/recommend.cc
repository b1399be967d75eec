// enumerate -> evaluate -> check constraints -> rank. Every option is evaluated against every
// constraint, so an infeasible request can say which constraint binds and what relaxing it gives.
#include "rigplan/recommend.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "cost/cost_constants.h"
#include "util/strings.h"

namespace rigplan {

using namespace cost_constants;

namespace {

// GPU counts considered; above kGpusPerMachine, whole machines of that many.
constexpr int kCounts[] = {1, 2, 4, 8, 16, 32, 64};
constexpr int kGpusPerMachine = 8;

// How one task runs on `count` GPUs of a kind.
struct TaskRun {
  bool fits = false;
  std::string strategy;
  double memory_gb = 0;
  double throughput = 0;
  std::string unit;
};

// The configurations tried for `count` GPUs, in order of preference: plain data parallel, then
// sharding (ZeRO-3 for training, then ZeRO-3 with the shards offloaded to host memory; layers
// split for inference: tensor parallel over NVLink or NVSwitch, pipeline stages over PCIe).
std::vector<std::pair<std::string, RunConfig>> strategies(const RunConfig& base, const Gpu& gpu,
                                                          int count) {
  std::vector<std::pair<std::string, RunConfig>> out;
  RunConfig plain = base;
  plain.gpus = count;
  out.emplace_back(count == 1 ? "single" : "ddp", plain);
  if (count == 1) return out;
  RunConfig sharded = plain;
  if (base.mode == "train") {
    sharded.zero = 3;
    out.emplace_back("zero-3", sharded);
    // What does not fit sharded may fit with the shards in host memory (FSDP CPUOffload,
    // ZeRO-Infinity: how FSDP-QLoRA trains 70B on two 24 GB cards); perf counts the PCIe traffic.
    if (base.offload == "none") {
      RunConfig offloaded = sharded;
      offloaded.offload = "cpu";
      out.emplace_back("zero-3 + cpu offload", offloaded);
    }
  } else {
    int split = std::min(count, kGpusPerMachine);  // within a machine, dividing the count
    while (count % split != 0) --split;
    const bool linked = gpu.gpu_link == "nvswitch" || gpu.gpu_link == "infinity-fabric";
    (linked ? sharded.tensor_parallel : sharded.pipeline_parallel) = split;
    out.emplace_back(linked ? fmt::format("tp-{}", split) : fmt::format("pp-{}", split), sharded);
  }
  return out;
}

// Evaluations shared by the options on the same GPU and count, and the facts of each task and
// configuration (memory, parameters, FLOPs) shared by every GPU.
class Evaluator {
 public:
  Evaluator(const Demand& d, const Catalog& c, const Calibration& cal)
      : demand_(d), catalog_(c), calibration_(cal) {}

  Result<const std::vector<TaskRun>*> runs(const Gpu& gpu, int count) {
    auto key = std::make_pair(gpu.id, count);
    if (auto it = cache_.find(key); it != cache_.end()) return &it->second;
    std::vector<TaskRun> out;
    for (size_t i = 0; i < demand_.tasks.size(); ++i) {
      auto r = run_task(i, gpu, count);
      if (!r) return r.status();
      out.push_back(*r);
    }
    return &cache_.emplace(key, std::move(out)).first->second;
  }

 private:
  // The first strategy that fits, or the last one tried.
  Result<TaskRun> run_task(size_t task_index, const Gpu& gpu, int count) {
    const Task& task = demand_.tasks[task_index];
    TaskRun best;
    for (const auto& [name, cfg] : strategies(task.run, gpu, count)) {
      auto facts = facts_of(task_index, gpu, count, name, cfg);
      if (!facts) return facts.status();
      best.memory_gb = (*facts)->memory.total_gb;
      best.strategy = name;
      if ((*facts)->memory.total_gb > capacity_gb(gpu)) continue;
      auto p = predict(task.workload, gpu, cfg, calibration_, catalog_, **facts);
      if (!p) return p.status();
      best.fits = p->fits;
      best.throughput = p->throughput;
      best.unit = p->unit;
      if (best.fits) return best;
    }
    return best;
  }

  // Made on the first GPU asked about: the facts do not depend on it.
  Result<const RunFacts*> facts_of(size_t task_index, const Gpu& gpu, int count,
                                   const std::string& strategy, const RunConfig& cfg) {
    auto key = std::make_tuple(task_index, count, strategy);
    if (auto it = facts_.find(key); it != facts_.end()) return &it->second;
    auto f = run_facts(demand_.tasks[task_index].workload, gpu, cfg);
    if (!f) return f.status();
    return &facts_.emplace(key, std::move(f).value()).first->second;
  }

  const Demand& demand_;
  const Catalog& catalog_;
  const Calibration& calibration_;
  std::map<std::pair<std::string, int>, std::vector<TaskRun>> cache_;
  std::map<std::tuple<size_t, int, std::string>, RunFacts> facts_;
};

// The base system, its power and embodied carbon for hardware the user does not buy (a cloud
// instance): the owned system that would hold it, or a share of the smallest one that holds more.
struct Host {
  double base_power_w = 0;
  double psu_efficiency = 0.94;
  double embodied_kgco2e = 0;
};
Host host_for(const Catalog& catalog, const Gpu& gpu, int count) {
  const int in_machine = std::min(count, kGpusPerMachine);
  const double machines = std::max(1.0, static_cast<double>(count) / kGpusPerMachine);
  if (const BaseSystem* s = base_system_for(catalog, gpu, in_machine)) {
    return {s->base_power_w * machines, s->psu_efficiency, s->embodied_kgco2e * machines};
  }
  const BaseSystem* larger = nullptr;
  for (const auto& s : catalog.systems) {
    const bool form = std::find(s.gpu_form_factors.begin(), s.gpu_form_factors.end(),
                                gpu.form_factor) != s.gpu_form_factors.end();
    if (form && s.max_gpus >= in_machine && (!larger || s.max_gpus < larger->max_gpus)) larger = &s;
  }
  if (!larger) return {};
  const double share = machines * in_machine / larger->max_gpus;
  return {larger->base_power_w * share, larger->psu_efficiency, larger->embodied_kgco2e * share};
}

std::string usd(double v) { return fmt::format("{} USD", format_number(std::round(v))); }

std::string hours_text(double h) {
  if (h < 1) return fmt::format("{:.0f} min", h * 60);
  if (h < 48) return fmt::format("{:.1f} h", h);
  return fmt::format("{:.1f} days", h / 24);
}

std::string label(const Option& o) {
  if (o.kind == "own") {
    return fmt::format("own {}{} x {} ({})", o.condition == "used" ? "used " : "", o.count, o.gpu,
                       o.system);
  }
  return fmt::format("rent {} {}", o.offer, o.pricing);
}

}  // namespace

Result<Recommendation> recommend(const Demand& demand, const Constraints& constraints,
                                 const Catalog& catalog, const Calibration& calibration) {
  Recommendation rec;
  rec.demand = demand;
  rec.constraints = constraints;
  const Constraints& k = constraints;
  if (demand.tasks.empty()) return Status::invalid_input("the demand names no workload");
  if (demand.work.has_value() == demand.hours_per_month.has_value()) {
    return Status::invalid_input(
        "give the job size either as work (--tokens, --samples, --images) or as "
        "--hours-per-month, not both or neither");
  }
  if (demand.work && (*demand.work <= 0 || demand.tasks.size() != 1)) {
    return Status::invalid_input(demand.tasks.size() != 1 ? "a work amount needs a single workload"
                                                          : "the work amount must be > 0");
  }
  if (demand.hours_per_month && *demand.hours_per_month <= 0) {
    return Status::invalid_input(fmt::format("--hours-per-month {} is out of range; expected > 0",
                                             format_number(*demand.hours_per_month)));
  }
  auto check_choice = [](std::string_view option, const std::string& value,
                         std::vector<std::string> accepted) -> Status {
    if (std::find(accepted.begin(), accepted.end(), value) != accepted.end()) return {};
    return Status::invalid_input(fmt::format("{} '{}' is not accepted; expected {}{}", option,
                                             value, quoted_list(accepted),
                                             did_you_mean(value, accepted)));
  };
  if (Status s = check_choice("--acquire", k.acquire, {"own", "rent", "both"}); !s.ok()) return s;
  if (Status s = check_choice("--condition", k.condition, {"new", "used", "any"}); !s.ok())
    return s;
  if (k.horizon_months <= 0 || k.horizon_months > 240) {
    return Status::invalid_input(
        fmt::format("--horizon-months {} is out of range; expected > 0 and <= 240",
                    format_number(k.horizon_months)));
  }
  if (k.utilisation && (*k.utilisation <= 0 || *k.utilisation > 1)) {
    return Status::invalid_input(fmt::format(
        "--utilisation {} is out of range; expected > 0 and <= 1", format_number(*k.utilisation)));
  }
  if (k.power_limit <= 0.3 || k.power_limit > 1) {
    return Status::invalid_input(fmt::format(
        "--power-limit {} is out of range; expected > 0.3 and <= 1", format_number(k.power_limit)));
  }
  if (k.max_gpus < 1) return Status::invalid_input("--max-gpus must be at least 1");
  if (k.budget_usd && *k.budget_usd <= 0) return Status::invalid_input("--budget must be > 0");

  // The site of owned machines.
  auto office = site_energy(catalog, k.region, false);
  if (!office) return office.status();
  if (k.electricity_usd_per_kwh) {
    office->usd_per_kwh = k.electricity_usd_per_kwh;
    office->price_from = "--electricity";
  }
  if (!office->usd_per_kwh) {
    return Status::invalid_input(fmt::format(
        "region '{}' has no electricity price, nor do its parents; pass --electricity USD/kWh",
        k.region));
  }
  rec.site = *office;
  rec.unit = demand.tasks[0].workload.throughput_unit + "/s";
  std::optional<double> power_cap = k.max_power_w;
  std::string power_cap_name = "--max-power";
  if (!k.circuit.empty()) {
    auto circuit = catalog.find_circuit(k.circuit);
    if (!circuit) return circuit.status();
    if (!power_cap || (*circuit)->continuous_w() < *power_cap) {
      power_cap = (*circuit)->continuous_w();
      power_cap_name = (*circuit)->id;
    }
  }

  const BaseSystem* only_system = k.machine;
  if (!only_system && !k.system.empty()) {
    auto found = catalog.find_system(k.system);
    if (!found) return found.status();
    only_system = *found;
  }

  const double years = k.horizon_months / 12;
  if (demand.work) {
    rec.assumptions.push_back(
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

  // Work per month (usage demand): each task's share of the hours on the reference GPU,
  // converted to samples or tokens at the reference's speed.
  Evaluator evaluator(demand, catalog, calibration);
  std::vector<double> work(demand.tasks.size(), demand.work.value_or(0));
  if (demand.hours_per_month) {
    auto ref = catalog.find_gpu(demand.reference_gpu);
    if (!ref) return ref.status();
    auto runs = evaluator.runs(**ref, 1);
    if (!runs) return runs.status();
    double shares = 0;
    for (const auto& t : demand.tasks) shares += t.share;
    for (size_t i = 0; i < demand.tasks.size(); ++i) {
      const TaskRun& r = (**runs)[i];
      if (!r.fits) {
        return Status::invalid_input(fmt::format(
            "the reference GPU {} cannot hold {} ({:.1f} GB); name one that can with --reference",
            (*ref)->id, demand.tasks[i].workload.id, r.memory_gb));
      }
      work[i] = demand.tasks[i].share / shares * *demand.hours_per_month * 3600 * r.throughput;
    }
    rec.assumptions.push_back(fmt::format(
        "{} hours a month of work as measured on one {}, split among the workloads by share.",
        format_number(*demand.hours_per_month), (*ref)->id));
  }

  // Records that an option breaks a constraint: its name (for relaxations) and a sentence.
  auto breaks = [](Option& o, std::string constraint, std::string why) {
    o.binding.push_back(std::move(constraint));
    o.violations.push_back(std::move(why));
  };
  // Average GPU power while running the demand, as a share of board power.
  const double gpu_load =
      gpu_power_utilisation(workload_class(demand.tasks[0].workload), demand.tasks[0].run.mode);

  // Evaluates one option: feasibility, time, cost, energy, CO2, and the constraints it breaks.
  // `keeps_up`: set when the option fits and finishes the monthly work within the month.
  auto evaluate = [&](Option o, const Gpu& gpu, int count, const OwnedSystem* sys,
                      const Offer* offer, bool* keeps_up = nullptr) -> Status {
    auto runs = evaluator.runs(gpu, count);
    if (!runs) return runs.status();
    const bool own = o.kind == "own";
    const double speed = own ? power_limit_speed(k.power_limit) : 1.0;
    o.fits = true;
    double hours = 0;  // busy hours per job (work) or per month (usage)
    for (size_t i = 0; i < (*runs)->size(); ++i) {
      const TaskRun& r = (**runs)[i];
      o.memory_gb = std::max(o.memory_gb, r.memory_gb);
      if (!r.fits) {
        o.fits = false;
        o.strategy = r.strategy;
        breaks(o, "fit",
               fmt::format("{} needs {:.1f} GB per GPU of {} GB", demand.tasks[i].workload.id,
                           r.memory_gb, format_number(gpu.memory_gb)));
        continue;
      }
      if (i == 0) {
        o.throughput = r.throughput * speed;
        o.unit = r.unit;
        o.strategy = r.strategy;
      }
      hours += work[i] / (r.throughput * speed) / 3600;
    }
    const double horizon_hours = years * kHoursPerYear;
    const double months = k.horizon_months;
    const double busy_total = demand.work ? hours : hours * months;
    o.hours = busy_total;
    o.time_to_result_h = hours;
    if (o.fits && demand.hours_per_month && hours > kHoursPerMonth) {
      breaks(o, "time",
             fmt::format("needs {:.0f} busy hours a month, more than the {:.0f} in a month", hours,
                         kHoursPerMonth));
    }
    if (o.fits && demand.work && hours > horizon_hours) {
      breaks(o, "time",
             fmt::format("takes {}, longer than the {}-month horizon", hours_text(hours),
                         format_number(months)));
    }
    if (own) {
      const double machines = std::max(1.0, static_cast<double>(count) / kGpusPerMachine);
      o.system = sys->system->id + (machines > 1 ? fmt::format(" x {}", machines) : "");
      o.capex_usd = sys->capex_usd * machines;
      const PowerDraw p = system_power(gpu, std::min(count, kGpusPerMachine), *sys->system,
                                       gpu_load, k.power_limit);
      o.wall_w = p.wall_w * machines;
      o.max_wall_w = (std::min(count, kGpusPerMachine) * gpu.board_power_w * k.power_limit +
                      sys->system->base_power_w) /
                     sys->system->psu_efficiency;
      OwnInputs in;
      in.capex_usd = o.capex_usd;
      in.gpu_value_usd = count * sys->gpu_price.usd;
      in.retention_per_year = resale_fraction(gpu, 1);
      in.wall_w = o.wall_w;
      in.usd_per_kwh = *office->usd_per_kwh;
      in.pue = k.pue.value_or(sys->system->form == "rack" ? kDatacenterPue : office->pue);
      in.gco2_per_kwh = office->gco2_per_kwh;
      in.embodied_kgco2e = sys->embodied_kgco2e * machines;
      in.resale = k.resale;
      const OwnCost c = own_cost(in, years, busy_total);
      if (demand.work) {
        // The job's share of owning: its hours over the machine's busy hours in the horizon.
        const double share =
            k.utilisation ? std::min(1.0, hours / (*k.utilisation * horizon_hours)) : 1.0;
        o.total_cost_usd = (c.total_usd - c.electricity_usd) * share + c.electricity_usd;
        o.co2_embodied_kg = c.co2_embodied_kg * share;
      } else {
        o.total_cost_usd = c.total_usd;
        o.co2_embodied_kg = c.co2_embodied_kg;
      }
      o.energy_kwh = c.energy_kwh;
      o.co2_kg = c.co2_operational_kg + o.co2_embodied_kg;
      if (k.budget_usd && o.capex_usd > *k.budget_usd) {
        breaks(o, "budget",
               fmt::format("costs {} to buy, over the {} budget", usd(o.capex_usd),
                           usd(*k.budget_usd)));
      }
      if (power_cap && o.max_wall_w > *power_cap) {
        breaks(o, "power",
               fmt::format("draws up to {:.0f} W at the wall per machine, over {} ({:.0f} W)",
                           o.max_wall_w, power_cap_name, *power_cap));
      }
      if (k.acquire == "rent") {
        breaks(o, "acquire", "an owned machine, but --acquire rent");
      }
      if (k.condition != "any" && k.condition != o.condition) {
        breaks(o, "condition",
               fmt::format("bought {}, but --condition {}", o.condition, k.condition));
      }
    } else {
      const double instances = static_cast<double>(count) / offer->gpu_count;
      const Host host = host_for(catalog, gpu, count);
      const std::string region = offer->region.empty() ? "world" : offer->region;
      auto dc = site_energy(catalog, region, true);
      if (!dc) return dc.status();
      const bool hyperscale =
          offer->provider_kind == "hyperscaler" && dc->pue_from == kDefaultDcPue;
      RentInputs in;
      in.usd_per_hour =
          (o.pricing == "spot" ? *offer->spot_price_per_hour_usd : offer->price_per_hour_usd) *
          instances;
      in.wall_w = (count * gpu.board_power_w * gpu_load + host.base_power_w) / host.psu_efficiency;
      in.pue = hyperscale ? kHyperscalePue : dc->pue;
      in.gco2_per_kwh = dc->gco2_per_kwh;
      in.embodied_kgco2e = count * kEmbodiedKgPerGpu + host.embodied_kgco2e;
      const RentCost c = rent_cost(in, busy_total);
      o.wall_w = in.wall_w;
      o.total_cost_usd = c.total_usd;
      o.energy_kwh = c.energy_kwh;
      o.co2_embodied_kg = c.co2_embodied_kg;
      o.co2_kg = c.co2_operational_kg + c.co2_embodied_kg;
      if (k.budget_usd && o.total_cost_usd > *k.budget_usd) {
        breaks(o, "budget",
               fmt::format("rent totals {}, over the {} budget", usd(o.total_cost_usd),
                           usd(*k.budget_usd)));
      }
      if (k.acquire == "own") {
        breaks(o, "acquire", "a rented instance, but --acquire own");
      }
    }
    if (count > k.max_gpus) {
      breaks(o, "max_gpus",
             fmt::format("uses {} GPUs, more than --max-gpus {}", count, k.max_gpus));
    }
    o.cost_per_result_usd = demand.work ? o.total_cost_usd : o.total_cost_usd / months;
    if (keeps_up) {
      *keeps_up =
          o.fits && std::find(o.binding.begin(), o.binding.end(), "time") == o.binding.end();
    }
    ++rec.evaluated;
    (o.binding.empty() ? rec.options : rec.rejected).push_back(std::move(o));
    return {};
  };

  int unpriced = 0;
  for (const Gpu& gpu : catalog.gpus) {
    if (k.machine && !k.machine_gpu.empty() && gpu.id != k.machine_gpu) continue;
    for (int count : kCounts) {
      if (count > kGpusPerMachine && count > k.max_gpus) break;
      for (std::string condition : {"new", "used"}) {
        auto sys =
            own_system(catalog, gpu, std::min(count, kGpusPerMachine), condition, only_system);
        if (!sys) {
          ++unpriced;
          continue;
        }
        Option o;
        o.kind = "own";
        o.gpu = gpu.id;
        o.count = count;
        o.condition = condition;
        if (Status s = evaluate(std::move(o), gpu, count, &*sys, nullptr); !s.ok()) return s;
      }
    }
  }
  for (const Offer& offer : catalog.offers) {
    const Gpu* gpu = catalog.gpu(offer.gpu);
    bool keeps_up = false;
    // Usage demands: more instances cost the same for the month's work, so add them only until
    // the work fits in the month.
    for (int instances = 1; instances * offer.gpu_count <= std::max(k.max_gpus, offer.gpu_count) &&
                            !(demand.hours_per_month && keeps_up);
         instances *= 2) {
      const int count = instances * offer.gpu_count;
      std::vector<std::string> pricings = {offer.billing == "serverless" ? "serverless"
                                                                         : "on-demand"};
      if (offer.spot_price_per_hour_usd) pricings.push_back("spot");
      for (const auto& pricing : pricings) {
        Option o;
        o.kind = "rent";
        o.gpu = gpu->id;
        o.count = count;
        o.offer = offer.id + (instances > 1 ? fmt::format(" x {}", instances) : "");
        o.pricing = pricing;
        o.provider = offer.provider;
        if (Status s = evaluate(std::move(o), *gpu, count, nullptr, &offer, &keeps_up); !s.ok())
          return s;
      }
    }
  }
  if (unpriced > 0 && !only_system) {
    rec.assumptions.push_back(fmt::format(
        "{} owned GPU x count combinations were skipped: the catalog has no price for the GPU in "
        "that condition or no base system that holds them.",
        unpriced));
  }

  // Cheapest first, then fastest; an order of indices, so each option moves once.
  auto sort_by_cost = [](std::vector<Option>& options) {
    std::vector<size_t> order(options.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const Option &x = options[a], &y = options[b];
      if (x.total_cost_usd != y.total_cost_usd) return x.total_cost_usd < y.total_cost_usd;
      return x.time_to_result_h < y.time_to_result_h;
    });
    std::vector<Option> sorted;
    sorted.reserve(options.size());
    for (size_t i : order) sorted.push_back(std::move(options[i]));
    options = std::move(sorted);
  };
  sort_by_cost(rec.options);
  sort_by_cost(rec.rejected);

  // The cost/time Pareto front: walking by cost, an option is on it when it is faster than every
  // cheaper one.
  double fastest = HUGE_VAL;
  for (auto& o : rec.options) {
    if (o.time_to_result_h < fastest) {
      o.pareto = true;
      fastest = o.time_to_result_h;
    }
  }
  const std::string per = demand.work ? "" : " a month";
  for (size_t i = 0; i < rec.options.size(); ++i) {
    Option& o = rec.options[i];
    const Option& top = rec.options.front();
    const std::string time = fmt::format("{}{}", hours_text(o.time_to_result_h), per);
    if (i == 0) {
      o.reason = fmt::format("lowest total cost that meets every constraint: {} for {} busy",
                             usd(o.total_cost_usd), time);
    } else if (o.pareto) {
      o.reason = fmt::format("on the cost/time front: {:.1f}x faster than the cheapest for {} more",
                             top.time_to_result_h / o.time_to_result_h,
                             usd(o.total_cost_usd - top.total_cost_usd));
    } else {
      const auto better = std::find_if(
          rec.options.begin(), rec.options.begin() + i,
          [&](const Option& p) { return p.pareto && p.time_to_result_h <= o.time_to_result_h; });
      o.reason = better != rec.options.begin() + i
                     ? fmt::format("{} more than the cheapest; {} is as fast for less",
                                   usd(o.total_cost_usd - top.total_cost_usd), label(*better))
                     : fmt::format("{} more than the cheapest",
                                   usd(o.total_cost_usd - top.total_cost_usd));
    }
  }
  for (auto& o : rec.rejected) o.reason = join(o.violations, "; ");

  // Nothing feasible: for each constraint, the best option that breaks only that one.
  if (rec.options.empty()) {
    const std::pair<std::string, std::string> relaxable[] = {
        {"budget", "the budget"}, {"power", "the power limit"}, {"max_gpus", "the GPU count limit"},
        {"acquire", "--acquire"}, {"condition", "--condition"}, {"time", "the time available"}};
    for (const auto& [name, what] : relaxable) {
      const auto it = std::find_if(rec.rejected.begin(), rec.rejected.end(), [&](const Option& o) {
        return o.binding.size() == 1 && o.binding[0] == name;
      });
      if (it == rec.rejected.end()) continue;
      rec.relaxations.push_back(
          fmt::format("relaxing {}: the cheapest option that meets the rest is {} at {} ({}; {})",
                      what, label(*it), usd(it->total_cost_usd),
                      hours_text(it->time_to_result_h) + per, join(it->violations, "; ")));
    }
    const bool anything_fits = std::any_of(rec.rejected.begin(), rec.rejected.end(),
                                           [](const Option& o) { return o.fits; });
    if (!anything_fits) {
      rec.relaxations.push_back(
          "no option holds the workload as configured: `rigplan memory` shows the largest batch "
          "and "
          "the longest sequence that fit; a shorter --seq, a smaller --batch, --checkpointing, "
          "--method lora or qlora, or quantized --weights shrink it");
    }
  }
  return rec;
}

}  // namespace rigplan
