// Evaluating a candidate: how the demand runs on it, then what it costs and emits, with the cost,
// energy and CO2 model that `rigplan cost` uses too (rigplan/cost.h).
#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <tuple>

#include "cost/cost_constants.h"
#include "cost/rent_host.h"
#include "model/framework_speed.h"
#include "model/links.h"
#include "model/run_speed.h"
#include "recommend/steps.h"
#include "util/strings.h"

namespace rigplan::recommend_steps {

using namespace cost_constants;

namespace {

// Whether a GPU's cards are all linked to each other (NVSwitch, Infinity Fabric): inference then
// splits a model by tensor parallelism, else by pipeline stages. The only thing of the GPU that
// strategies() reads, so the strategies are made once per value of it.
bool all_linked(const Gpu& gpu) {
  return gpu.gpu_link == "nvswitch" || gpu.gpu_link == "infinity-fabric";
}

// The configurations tried for `count` GPUs, in order of preference: plain data parallel, then
// sharding (ZeRO-3 for training, then ZeRO-3 with the shards offloaded to host memory; layers
// split for inference: tensor parallel over NVLink or NVSwitch, pipeline stages over PCIe).
std::vector<Strategy> strategies(const Workload& w, const RunConfig& base, const Gpu& gpu,
                                 int count) {
  std::vector<Strategy> out;
  out.reserve(3);
  RunConfig plain = base;
  plain.gpus = count;
  if (count == 1) {
    out.push_back({"single", std::move(plain)});
    return out;
  }
  out.push_back({"ddp", plain});
  RunConfig sharded = std::move(plain);
  if (base.mode == "train") {
    sharded.zero = 3;
    // What does not fit sharded may fit with the shards in host memory (FSDP CPUOffload,
    // ZeRO-Infinity: how FSDP-QLoRA trains 70B on two 24 GB cards); perf counts the PCIe traffic.
    out.push_back({"zero-3", sharded});
    if (base.offload == "none") {
      sharded.offload = "cpu";
      out.push_back({"zero-3 + cpu offload", std::move(sharded)});
    }
  } else if (base.mode == "serve") {
    // A service may buy latency with tensor parallelism within a machine: every degree that
    // divides the count and the heads, replicas of that split over the rest.
    for (int tp = 2; tp <= std::min(count, kGpusPerMachine); tp *= 2) {
      if (count % tp != 0 || !check_layout(w, tp, 1, true).ok()) continue;
      RunConfig split = sharded;
      split.tensor_parallel = tp;
      out.push_back({fmt::format("tp-{}", tp), std::move(split)});
    }
  } else {
    // Within a machine, dividing the count and the model (heads for tensor, layers for pipeline
    // parallelism).
    const bool linked = all_linked(gpu);
    int split = std::min(count, kGpusPerMachine);
    while (split > 1 && (count % split != 0 ||
                         !check_layout(w, linked ? split : 1, linked ? 1 : split, true).ok()))
      --split;
    if (split == 1) return out;  // the model does not split evenly over this count
    (linked ? sharded.tensor_parallel : sharded.pipeline_parallel) = split;
    out.push_back(
        {linked ? fmt::format("tp-{}", split) : fmt::format("pp-{}", split), std::move(sharded)});
  }
  return out;
}

// Owning `machines` machines over the horizon; a job carries its hours' share of the purchase.
void cost_owned(const Candidate& c, const Request& r, double hours, Option& o) {
  const Constraints& k = *r.constraints;
  const OwnedSystem& sys = *c.owned;
  const BaseSystem& base = *sys.system;
  const int in_machine = std::min(c.count, kGpusPerMachine);
  o.capex_usd = sys.capex_usd * c.machines;
  const PowerDraw p = system_power(*c.gpu, in_machine, base, r.gpu_load, k.power_limit);
  o.wall_w = p.wall_w * c.machines;
  o.max_wall_w =
      (in_machine * c.gpu->board_power_w * k.power_limit + base.base_power_w) / base.psu_efficiency;
  const SiteEnergy& site = base.form == "rack" ? r.server_room : r.office;
  OwnInputs in;
  in.capex_usd = o.capex_usd;
  in.gpu_value_usd = c.count * sys.gpu_price.usd;
  in.retention_per_year = value_retention(*c.gpu);
  in.wall_w = o.wall_w;
  in.usd_per_kwh = *site.usd_per_kwh;
  in.pue = site.pue;
  in.gco2_per_kwh = site.gco2_per_kwh;
  in.embodied_kgco2e = sys.embodied_kgco2e * c.machines;
  in.resale = k.resale;
  const double years = k.horizon_months / 12;
  const double busy_total = r.demand->work ? hours : hours * k.horizon_months;
  const OwnCost cost = own_cost(in, years, busy_total);
  // A job's share of owning: its hours over the machine's busy hours in the horizon.
  const double share = r.demand->work && k.utilisation
                           ? std::min(1.0, hours / (*k.utilisation * years * kHoursPerYear))
                           : 1.0;
  o.total_cost_usd = (cost.total_usd - cost.electricity_usd) * share + cost.electricity_usd;
  o.co2_embodied_kg = cost.co2_embodied_kg * share;
  o.energy_kwh = cost.energy_kwh;
  o.co2_kg = cost.co2_operational_kg + o.co2_embodied_kg;
}

// The datacentre an offer's instances run in, found once per region for the request.
Result<const SiteEnergy*> rent_site(const Request& r, const Offer& offer) {
  const std::string_view region = rent_region(&offer, "world");
  for (const auto& [id, site] : r.rent_sites) {
    if (id == region) return &site;
  }
  auto dc = site_energy(*r.catalog, region, true);
  if (!dc) return dc.status();
  return &r.rent_sites.emplace_back(region, std::move(dc).value()).second;
}

// The host of `count` rented GPUs of a kind (one of the catalog's), found once per GPU and GPUs
// per machine for the request.
const RentHost& rent_host_of(const Request& r, const Gpu& gpu, int count) {
  const std::vector<Gpu>& gpus = r.catalog->gpus;
  assert(&gpu >= gpus.data() && &gpu < gpus.data() + gpus.size());
  const int in_machine = std::min(count, kGpusPerMachine);
  if (r.rent_hosts.empty()) r.rent_hosts.resize(gpus.size() * kGpusPerMachine);
  auto& host = r.rent_hosts[static_cast<size_t>(&gpu - gpus.data()) * kGpusPerMachine +
                            static_cast<size_t>(in_machine - 1)];
  if (!host) host = rent_host(*r.catalog, gpu, in_machine);
  return *host;
}

Status cost_rented(const Candidate& c, const Request& r, double hours, Option& o) {
  const Offer& offer = *c.offer;
  const double usd_per_hour =
      (c.pricing == "spot" ? *offer.spot_price_per_hour_usd : offer.price_per_hour_usd) *
      c.instances;
  if (r.rent_offer != &offer || r.rent_count != c.count) {
    auto dc = rent_site(r, offer);
    if (!dc) return dc.status();
    r.rent_in = rent_inputs(*r.catalog, *c.gpu, c.count, usd_per_hour, r.gpu_load, &offer, **dc,
                            rent_host_of(r, *c.gpu, c.count));
    r.rent_offer = &offer;
    r.rent_count = c.count;
  }
  RentInputs in = r.rent_in;
  in.usd_per_hour = usd_per_hour;
  const double busy_total = r.demand->work ? hours : hours * r.constraints->horizon_months;
  const RentCost cost = rent_cost(in, busy_total);
  o.wall_w = in.wall_w;
  o.total_cost_usd = cost.total_usd;
  o.energy_kwh = cost.energy_kwh;
  o.co2_embodied_kg = cost.co2_embodied_kg;
  o.co2_kg = cost.co2_operational_kg + cost.co2_embodied_kg;
  return {};
}

// The run predict takes for a candidate's option (Option::run) from its task run's: the link
// and machine size left to predict where it assumes the same of the GPUs (links.h: a link of
// the kind of the GPU's own; a machine that holds the run, or of the size predict takes), and a
// rented cluster's network as the catalog fabric it names and the GPUs that share one of its
// ports to give the offer's bandwidth per GPU (none when it names no such fabric).
RunConfig predict_run(const Candidate& c, const Request& r, const RunConfig& config) {
  const Gpu& gpu = *c.gpu;
  RunConfig run = config;
  if (link_kind(gpu, run.link) == link_kind(gpu, "")) run.link.clear();
  RunConfig assumed = run;
  assumed.gpus_per_node.reset();
  const int assumed_node = node_gpus(gpu, assumed);
  const int node = run.gpus_per_node.value_or(assumed_node);
  if (node == assumed_node || (run.gpus <= node && run.gpus <= assumed_node))
    run.gpus_per_node.reset();
  const std::optional<double> network = run.network_gbps_per_gpu;
  run.network_gbps_per_gpu.reset();
  if (!network || *network <= 0 || run.gpus <= node || !c.offer) return run;
  for (const Interconnect& ic : r.catalog->interconnects) {
    if (ic.id != c.offer->fabric) continue;
    const double ports = ic.bw_per_direction_gbps / *network;
    if (ports >= 1 && ports == std::round(ports)) {
      run.fabric = ic.id;
      run.gpus_per_nic = static_cast<int>(ports);
    }
  }
  return run;
}

}  // namespace

Result<double> run_demand(const Candidate& c, const Request& r, DemandRuns& demand_runs,
                          Option& o) {
  auto runs = demand_runs.runs(*c.gpu, c.count, c.topology);
  if (!runs) return runs.status();
  const bool owned = c.owned || c.kind == "keep";
  const double speed = owned ? r.owned_speed : 1.0;
  o.fits = true;
  double hours = 0;
  for (size_t i = 0; i < (*runs)->tasks.size(); ++i) {
    const TaskRun& run = (*runs)->tasks[i];
    o.memory_gb = std::max(o.memory_gb, run.memory_gb);
    if (!run.stack_refusal.empty()) {
      o.fits = false;
      breaks(o, "stack", run.stack_refusal);
      continue;
    }
    if (!run.fits) {
      o.fits = false;
      o.strategy = run.strategy;
      o.run = predict_run(c, r, run.config);
      breaks(o, "fit", run.why_not);
      continue;
    }
    if (i == 0) {
      o.throughput = run.throughput * speed;
      o.unit = run.unit;
      o.strategy = run.strategy;
      o.run = predict_run(c, r, run.config);
      o.serving = run.serving;
    }
    hours += r.work[i] / (run.throughput * speed) / 3600;
  }
  if (const Family* family = (*runs)->family) {
    o.stack = family->stack;
    o.common_stack = family->common_stack;
    o.stack_note = (*runs)->stack_note;
  }
  // A service is up its hours whatever its load.
  if (r.demand->serving) return r.demand->serving->hours_per_month;
  return hours;
}

namespace {

// A run on no more GPUs than one machine or instance holds crosses no network, and the model
// reads the machine's size only to bound the GPUs of a run within it (links.h node_gpus,
// network_for): the run is the same on any machine of at least its GPUs, with or without a
// fabric, over links of the same kind (link_kind). Such runs share one topology: their own GPUs,
// no network, and "" for a link of the kind the GPU's own is, so that an owned rtx-4090 x 2 and a
// rented 2-GPU instance of it joined by PCIe are run once.
Topology within_node(const Gpu& gpu, int count, const Topology& topology) {
  if (count > topology.gpus_per_node) return topology;
  const std::string_view kind = link_kind(gpu, topology.link);
  return {kind == link_kind(gpu, "") ? std::string_view() : kind, count, std::nullopt};
}

}  // namespace

// What the options of `runs` say: why a task does not fit the GPU's memory, and the GPU's stack
// (a less common one, or software of the demand that runs there only partly, the last task's
// that does), each written once for every candidate of the GPU x count x topology.
void DemandRuns::note_runs(const Gpu& gpu, GpuRuns& runs) const {
  std::string partly;
  for (size_t i = 0; i < runs.tasks.size(); ++i) {
    TaskRun& run = runs.tasks[i];
    if (!run.stack_partly.empty()) partly = run.stack_partly;
    if (run.stack_refusal.empty() && !run.fits && run.why_not.empty()) {
      run.why_not = fmt::format("{} needs {:.1f} GB per GPU of {} GB", demand_.tasks[i].workload.id,
                                run.memory_gb, format_number(gpu.memory_gb));
    }
  }
  runs.family = catalog_.family_of(gpu);
  std::string& note = runs.stack_note;  // the notes joined by "; "
  if (runs.family) {
    if (!runs.family->common_stack) note = stack_summary(*runs.family);
    if (!partly.empty()) (runs.family->common_stack ? note : note += "; ") += partly;
  }
  const std::string lag = maturity_of_tasks(gpu, runs);
  if (!lag.empty()) note += (note.empty() ? "" : "; ") + lag;
}

// The maturity of the stack of the demand's first training task that runs on `gpu` and whose
// stack lags its silicon (maturity_note); "" when none does.
std::string DemandRuns::maturity_of_tasks(const Gpu& gpu, const GpuRuns& runs) const {
  const std::string key = calibration_key(gpu);
  for (size_t i = 0; i < runs.tasks.size(); ++i) {
    const Task& task = demand_.tasks[i];
    if (task.run.mode != "train" || !runs.tasks[i].fits) continue;
    const WorkloadCalibration* measured = measured_speed(calibration_, task.workload.id);
    const RunConfig& run = runs.tasks[i].config;
    auto framework = run_framework(calibration_, run.framework, run.zero, measured);
    if (!framework) continue;
    if (const auto* m = calibration_.maturity(key, run_stack(measured, **framework)))
      return maturity_note(*m, gpu.id);
  }
  return "";
}

size_t DemandRuns::RunsKeyHash::operator()(const RunsKey& k) const noexcept {
  // Fibonacci hashing of the GPU's address, mixed with the count and the placement.
  constexpr size_t kGolden = 0x9E3779B97F4A7C15u;
  return (reinterpret_cast<uintptr_t>(k.gpu) * kGolden) ^ (static_cast<size_t>(k.count) << 16) ^
         static_cast<size_t>(k.placement);
}

Result<const GpuRuns*> DemandRuns::runs(const Gpu& gpu, int count, const Topology& asked) {
  // The same link is the same view of the catalog (a different view of the same words only
  // misses this shortcut).
  const LastAsked& last = last_asked_;
  if (last.gpu == &gpu && last.count == count && last.topology.link.data() == asked.link.data() &&
      last.topology.link.size() == asked.link.size() &&
      last.topology.gpus_per_node == asked.gpus_per_node &&
      last.topology.network_gbps_per_gpu == asked.network_gbps_per_gpu)
    return last.runs;
  const Topology topology = within_node(gpu, count, asked);
  const RunsKey key{&gpu, count, topology_index(topology)};
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    GpuRuns made;
    made.tasks.resize(demand_.tasks.size());
    for (size_t i = 0; i < demand_.tasks.size(); ++i) {
      if (Status s = run_task(i, gpu, count, topology, key.placement, made.tasks[i]); !s.ok())
        return s;
    }
    note_runs(gpu, made);
    it = cache_.emplace(key, std::move(made)).first;
  }
  last_asked_ = {&gpu, count, asked, &it->second};
  return &it->second;
}

RunConfig run_on(const RunConfig& config, const Topology& topology) {
  RunConfig c = config;
  if (c.link.empty()) c.link = topology.link;
  c.gpus_per_node = topology.gpus_per_node;
  c.network_gbps_per_gpu = topology.network_gbps_per_gpu;
  return c;
}

void set_run(TaskRun& run, bool fits, const std::string& strategy, const RunConfig& config,
             double memory_gb, double throughput) {
  run.fits = fits;
  run.strategy = strategy;
  run.config = config;
  run.memory_gb = memory_gb;
  run.throughput = throughput;
  run.unit.clear();
  run.serving.reset();
  run.why_not.clear();
}

// The first strategy that fits (a serving job: that fits and meets the job), else the last
// that fits, else the last one tried; into `best`, a new TaskRun. A job larger than one machine
// takes the fastest layout of train-plan's search instead when it is faster (run_layouts).
Status DemandRuns::run_task(size_t task_index, const Gpu& gpu, int count, const Topology& topology,
                            int topology_index, TaskRun& best) {
  const Task& task = demand_.tasks[task_index];
  const std::optional<ServingJob>& job = demand_.serving;
  const StackCheck* stack = nullptr;
  for (Strategy& strategy : strategies_for(task_index, gpu, count)) {
    // The run as recommend's option keeps it, made only for the strategy that is kept.
    const auto keep = [&](bool fits, double memory_gb, double throughput = 0.0) {
      set_run(best, fits, strategy.name, run_on(strategy.config, topology), memory_gb, throughput);
    };
    auto shared = facts_of(task_index, gpu, count, strategy, topology);
    if (!shared) return shared.status();
    if (!stack) stack = &stack_of(task_index, gpu, **shared);
    if (!stack->refusal.empty()) {
      keep(false, (*shared)->memory.total_gb);
      best.stack_refusal = stack->refusal;
      return {};
    }
    const RunFacts* facts = &placed(**shared, strategy.config.link, topology, topology_index);
    const RunConfig& resolved = facts->memory.config;
    if (topology.network_gbps_per_gpu == 0.0 &&
        resolved.tensor_parallel * resolved.pipeline_parallel > topology.gpus_per_node) {
      // A replica split over instances that share no cluster fabric does not run.
      if (!best.fits) {
        keep(false, facts->memory.total_gb);
        best.why_not = fmt::format(
            "{} needs {} GPUs per replica, more than one instance's {}, and the instances have no "
            "cluster fabric",
            task.workload.id, resolved.tensor_parallel * resolved.pipeline_parallel,
            topology.gpus_per_node);
      }
      continue;
    }
    if (facts->memory.total_gb > capacity_gb(gpu)) {
      if (!best.fits) keep(false, facts->memory.total_gb);
      continue;
    }
    auto p = speed(task.workload, gpu, *facts);
    if (!p) return p.status();
    if (!p->fits && best.fits) continue;
    keep(p->fits, facts->memory.total_gb, p->throughput);
    best.unit = std::move(p->unit);
    best.serving = std::move(p->serving);
    if (best.fits && (!job || (best.serving && meets(*best.serving, *job)))) break;
  }
  if (stack) best.stack_partly = stack->partly;
  // A job larger than one machine: the fastest of train-plan's layouts, when faster still.
  if (searches_layouts(task_index, count, topology))
    return run_layouts(task_index, gpu, count, topology, best);
  return {};
}

// The strategies of a task on `count` GPUs, made once per task and count (and, for inference,
// all_linked(gpu)); without the candidate's topology.
std::vector<Strategy>& DemandRuns::strategies_for(size_t task_index, const Gpu& gpu, int count) {
  const auto key = std::make_tuple(task_index, count, all_linked(gpu));
  if (auto it = strategies_.find(key); it != strategies_.end()) return it->second;
  const Task& task = demand_.tasks[task_index];
  RunConfig base = task.run;
  if (demand_.serving) base.request_rate = demand_.serving->request_rate;
  return strategies_.emplace(key, strategies(task.workload, base, gpu, count)).first->second;
}

// The stack check of a task on a GPU, made once per task and GPU from the facts of its first
// strategy.
const StackCheck& DemandRuns::stack_of(size_t task_index, const Gpu& gpu, const RunFacts& facts) {
  const auto key = std::make_pair(task_index, &gpu);
  if (auto it = stacks_.find(key); it != stacks_.end()) return it->second;
  const Workload& w = demand_.tasks[task_index].workload;
  return stacks_.emplace(key, check_stack(w, gpu, facts, catalog_)).first->second;
}

// How fast a run goes: its speed alone, or with a host CPU, as the input pipeline bounds it.
// The placed facts' configuration is the run with the candidate's links.
Result<RunSpeed> DemandRuns::speed(const Workload& w, const Gpu& gpu, const RunFacts& facts) {
  const RunConfig& cfg = facts.memory.config;
  auto speed = predict_speed(w, gpu, cfg, calibration_, catalog_, facts, &times_);
  if (!speed || !demand_.host || speed->step_time_s <= 0) return speed;
  auto feed = input_feed(w, cfg, speed->samples_per_step, speed->step_time_s, *demand_.host,
                         embedded_input_pipelines());
  if (!feed) return feed.status();
  speed->throughput *= speed->step_time_s / feed->step_time_s;
  speed->step_time_s = feed->step_time_s;
  return speed;
}

// The position of a topology among those asked about, added at its first use.
int DemandRuns::topology_index(const Topology& topology) {
  auto same = [&](const Topology& t) {
    return t.gpus_per_node == topology.gpus_per_node &&
           t.network_gbps_per_gpu == topology.network_gbps_per_gpu && t.link == topology.link;
  };
  // Candidates come in runs of one topology (an offer's ladder, a GPU's counts).
  if (last_topology_ >= 0 && same(topologies_[last_topology_])) return last_topology_;
  for (size_t i = 0; i < topologies_.size(); ++i) {
    if (same(topologies_[i])) return last_topology_ = static_cast<int>(i);
  }
  topologies_.push_back(topology);
  return last_topology_ = static_cast<int>(topologies_.size() - 1);
}

// The facts' configuration is what predict runs: this candidate's links, not the first's; `link`
// is the strategy's own (empty: the topology's).
const RunFacts& DemandRuns::placed(const RunFacts& facts, const std::string& link,
                                   const Topology& topology, int topology_index) {
  const auto key = std::make_pair(&facts, topology_index);
  if (auto it = placed_.find(key); it != placed_.end()) return it->second;
  RunFacts out = facts;
  RunConfig& c = out.memory.config;
  c.link = link.empty() ? topology.link : std::string_view(link);
  c.gpus_per_node = topology.gpus_per_node;
  c.network_gbps_per_gpu = topology.network_gbps_per_gpu;
  return placed_.emplace(key, std::move(out)).first->second;
}

// A training run's facts are made on the first GPU asked about: they do not depend on it. An
// inference run's memory does (the engine claims a share of the GPU, and the KV cache holds
// what the rest allows), so its facts are made per GPU. Neither depends on the topology: the
// configuration they are made with carries the first topology's links.
Result<const RunFacts*> DemandRuns::facts_of(size_t task_index, const Gpu& gpu, int count,
                                             Strategy& strategy, const Topology& topology) {
  if (strategy.facts) return strategy.facts;
  const bool train = strategy.config.mode == "train";
  const Gpu* per_gpu = train ? nullptr : &gpu;
  const auto wanted = std::make_tuple(task_index, count, std::string_view(strategy.name), per_gpu);
  auto it = facts_.find(wanted);
  if (it == facts_.end()) {
    RunConfig cfg = strategy.config;
    if (cfg.link.empty()) cfg.link = topology.link;
    cfg.gpus_per_node = topology.gpus_per_node;
    cfg.network_gbps_per_gpu = topology.network_gbps_per_gpu;
    auto f = run_facts(demand_.tasks[task_index].workload, gpu, cfg, shared_facts_);
    if (!f) return f.status();
    auto key = std::make_tuple(task_index, count, strategy.name, per_gpu);
    it = facts_.emplace(std::move(key), std::move(f).value()).first;
  }
  if (train) strategy.facts = &it->second;
  return &it->second;
}

namespace {

// What identifies a candidate's option: "own 2 x rtx-4090 new", "rent lambda-h100 x 2 spot".
void name(const Candidate& c, Option& o) {
  o.kind = c.kind;
  o.gpu = c.gpu->id;
  o.count = c.count;
  o.condition = c.condition;
  if (c.owned) {
    o.system = c.owned->system->id;
    o.machines = static_cast<int>(c.machines);
  }
  if (!c.offer) return;
  o.offer = c.offer->id;
  if (c.instances > 1) o.fabric = c.offer->fabric;
  o.pricing = c.pricing;
  o.provider = c.offer->provider;
  o.instances = c.instances;
}

}  // namespace

Status evaluate(const Candidate& c, const Request& r, DemandRuns& runs, Option& o) {
  name(c, o);
  auto hours = run_demand(c, r, runs, o);
  if (!hours) return hours.status();
  o.hours = r.demand->work ? *hours : *hours * r.constraints->horizon_months;
  o.time_to_result_h = *hours;
  if (c.owned) {
    cost_owned(c, r, *hours, o);
  } else if (Status s = cost_rented(c, r, *hours, o); !s.ok()) {
    return s;
  }
  o.cost_per_result_usd =
      r.demand->work ? o.total_cost_usd : o.total_cost_usd / r.constraints->horizon_months;
  date_price(c, o);
  return {};
}

namespace {

// The kept GPUs as an option: how the demand runs on `count` of `gpu` at the owned power limit,
// checked against the constraints that bind a machine already owned (time, rate, latencies).
Result<Option> keep_option(const GpuCount& owned, const Request& r, DemandRuns& runs) {
  Candidate c;
  c.kind = "keep";
  c.gpu = owned.gpu;
  c.count = owned.count;
  c.condition = "owned";
  Option o;
  name(c, o);
  auto hours = run_demand(c, r, runs, o);
  if (!hours) return hours.status();
  o.hours = r.demand->work ? *hours : *hours * r.constraints->horizon_months;
  o.time_to_result_h = *hours;
  for (const Constraint& k : constraints()) {
    if ((k.name == "time" || k.name == "rate" || k.name == "ttft" || k.name == "tpot") &&
        k.broken(c, r, o))
      o.binding.emplace_back(k.name);
  }
  describe_violations(r, o);
  o.speedup_over_have = 1.0;
  o.resale_usd = 0.0;
  o.net_cost_usd = 0.0;
  return o;
}

}  // namespace

Result<Have> evaluate_have(const Request& r, DemandRuns& runs, Option& keep) {
  Have have;
  have.min_speedup = kMinUpgradeSpeedup;
  std::optional<Option> best;
  for (const GpuCount& owned : r.have) {
    const Gpu& gpu = *owned.gpu;
    have.gpus.push_back({gpu.id, owned.count, gpu.used_price_usd, gpu.used_price_date});
    if (gpu.used_price_usd) have.resale_usd += *gpu.used_price_usd * owned.count;
    auto o = keep_option(owned, r, runs);
    if (!o) return o.status();
    // Keepable first, then one that holds the demand, then the fastest.
    const auto rank = [](const Option& x) {
      return std::make_tuple(!x.binding.empty(), !x.fits, slowness(x));
    };
    if (!best || rank(*o) < rank(*best)) best = std::move(o).value();
  }
  have.gpu = best->gpu;
  have.count = best->count;
  have.runs = best->fits;
  have.keep_breaks.assign(best->binding.begin(), best->binding.end());
  have.throughput = best->throughput;
  have.unit = best->unit;
  have.time_to_result_h = best->time_to_result_h;
  have.serving = best->serving;
  keep = std::move(best).value();
  return have;
}

}  // namespace rigplan::recommend_steps
