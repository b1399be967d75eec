// The steps of recommend(), in the order it runs them (docs/recommend.md):
//
//   check_request      the demand and constraints checked and resolved against the catalog
//   resolve_work       usage demands: each task's work per month, at the reference GPU's speed
//   owned_candidates   every GPU x count x condition in a base system
//   rented_candidates  every offer x instances x pricing, as a ladder of growing size
//   evaluate           one candidate: how the demand runs on it (fit, throughput, hours), and
//                      its cost, energy and CO2 from the shared model of rigplan/cost.h
//   apply_constraints  the table of named constraints (constraints()): each names a violation
//   rank               cheapest first, and the cost/time front
//   note_price_ages    what options a price more than a year old keeps out
//   relax              nothing feasible: what relaxing each constraint alone would give
//   describe           the sentences of the options shown: reasons and violations
//
// A new kind of demand (a serving job with latency targets) plugs into DemandRuns::run_task,
// which says how one task runs on a GPU x count; a new constraint (a price's age) is one row of
// constraints().
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "cost/cost_constants.h"
#include "cost/rent_host.h"
#include "model/run_speed.h"
#include "rigplan/catalog_query.h"
#include "rigplan/recommend.h"

namespace rigplan::recommend_steps {

using cost_constants::kGpusPerMachine;

// GPU counts considered; above cost_constants::kGpusPerMachine, whole machines of that many.
inline constexpr int kCounts[] = {1, 2, 4, 8, 16, 32, 64};

// How a candidate's GPUs are joined: the link within a machine or instance, its GPUs, and the
// network between machines: a rented offer's cluster fabric (0: none, so no run spans its
// instances), or for owned machines of 8 the default NIC per GPU (none).
struct Topology {
  std::string_view link;  // RunConfig::link (offer_link_kind); "": the GPU's own
  int gpus_per_node = kGpusPerMachine;
  std::optional<double> network_gbps_per_gpu;
};

// The request once checked, with what it resolves to in the catalog.
struct Request {
  const Demand* demand = nullptr;
  const Constraints* constraints = nullptr;
  const Catalog* catalog = nullptr;
  const Calibration* calibration = nullptr;
  SiteEnergy office;                // where owned towers run
  SiteEnergy server_room;           // where owned racks run
  std::optional<double> power_cap;  // W at the wall per machine: --max-power or the circuit's
  std::string power_cap_name;
  const BaseSystem* only_system = nullptr;  // --system or --build
  std::vector<const Gpu*> gpus_allowed;     // --gpus-allowed resolved; empty: every GPU
  std::vector<GpuCount> have;               // --have resolved; empty: none given
  bool allowed(const Gpu& gpu) const;
  double gpu_load = 1;       // average share of board power while running the demand
  double owned_speed = 1;    // owned and kept GPUs' speed at --power-limit (power_limit_speed)
  std::vector<double> work;  // per task, in its unit: for the job, or per month (usage)
  std::vector<std::string> assumptions;
  // The note on a price's age past --max-price-age ("" within it), by the price's date, made
  // once for every option shown priced that day (note_prices).
  mutable std::vector<std::pair<Date, std::string>> price_age_notes;
  // The last price date price_age_broken aged, and whether it is stale: the options of an offer,
  // all priced one day, are checked one after the other.
  mutable std::optional<std::pair<Date, bool>> last_aged;
  // The datacentres rented options run in, by region (rent_region), each found once.
  mutable std::vector<std::pair<std::string_view, SiteEnergy>> rent_sites;
  // The rent inputs of the last offer and size costed, for its next pricing: they differ only
  // in the price per hour.
  mutable const Offer* rent_offer = nullptr;
  mutable int rent_count = 0;
  mutable RentInputs rent_in;
  // The hosts of rented GPUs (rent_host), by the GPU's position in the catalog and GPUs per
  // machine (1 to kGpusPerMachine), each found once.
  mutable std::vector<std::optional<RentHost>> rent_hosts;
};

// Checks the demand and the constraints; a malformed request is a kInvalidInput Status.
Result<Request> check_request(const Demand& demand, const Constraints& constraints,
                              const Catalog& catalog, const Calibration& calibration);

// How one task runs on `count` GPUs of a kind.
struct TaskRun {
  bool fits = false;
  std::string strategy;
  // The run of the strategy, or of a layout of train-plan's search (run_layouts), unresolved as
  // predict takes it: the task's run with the strategy's settings, and the topology's link,
  // machine size and network (Option::run, made from it by run_demand).
  RunConfig config;
  double memory_gb = 0;
  double throughput = 0;
  std::string unit;
  std::optional<ServingPrediction> serving;  // a serving job, at its request rate
  std::string why_not;                       // why it does not run (memory, the fabric)
  std::string stack_refusal;  // the run's software does not run on the GPU's stack (check_stack)
  std::string stack_partly;   // software of the run that runs there only partly
};

// How the demand's tasks run on a GPU x count x topology, and the GPU's family (its stack) with
// what to say of it for the demand: a less common stack, software that runs there only partly,
// a training stack that lags the GPU's silicon (StackMaturity).
struct GpuRuns {
  std::vector<TaskRun> tasks;  // by task
  const Family* family = nullptr;
  std::string stack_note;
};

// Orders the keys of DemandRuns, which store names as std::string, and the keys it looks them
// up with, which view them, alike: each name compares as a std::string_view, so a lookup copies
// no string (std::less<> would need a tuple's string to compare with a view, which not every
// standard library offers).
struct NameViewLess {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    return views(a) < views(b);
  }

 private:
  static std::string_view view(const std::string& s) { return s; }
  template <class T>
  static T view(const T& x) {
    return x;
  }
  template <class... T>
  static auto views(const std::tuple<T...>& key) {
    return std::apply([](const auto&... x) { return std::make_tuple(view(x)...); }, key);
  }
};

// Sets `run` to how a strategy runs (`config`: its run, TaskRun::config), clearing what an
// earlier strategy left there.
void set_run(TaskRun& run, bool fits, const std::string& strategy, const RunConfig& config,
             double memory_gb, double throughput = 0);

// `config` on a topology's GPUs: its link (its own, else the topology's), machine size and
// network, as predict runs it on a candidate (TaskRun::config).
RunConfig run_on(const RunConfig& config, const Topology& topology);

// A parallel layout as an option names it (its strategy): "tp-2 pp-2 dp-8 zero-1, micro-batch
// 2, selective recompute": the degrees above 1 (data parallel always; expert parallel after it,
// "dp-8 ep-4", its GPUs being data-parallel ones), the ZeRO stage above 0,
// the micro-batch and a recompute other than none; sequence parallelism goes with tp > 1.
std::string layout_label(const RunConfig& layout);

// A configuration tried for a task on a count, and the facts of its training run once made: they
// do not depend on the GPU or the topology.
struct Strategy {
  std::string name;  // single, ddp, zero-3, tp-2, ...
  RunConfig config;
  const RunFacts* facts = nullptr;
};

// How the demand's tasks run on each GPU x count asked about, made once each; the facts of a
// training task and configuration (memory, parameters, FLOPs) are shared across GPUs.
class DemandRuns {
 public:
  DemandRuns(const Demand& demand, const Catalog& catalog, const Calibration& calibration)
      : demand_(demand), catalog_(catalog), calibration_(calibration) {}
  Result<const GpuRuns*> runs(const Gpu& gpu, int count, const Topology& topology);

 private:
  Status run_task(size_t task_index, const Gpu& gpu, int count, const Topology& topology,
                  int topology_index, TaskRun& run);
  Result<const RunFacts*> facts_of(size_t task_index, const Gpu& gpu, int count, Strategy& strategy,
                                   const Topology& topology);
  // The facts with the topology's links (`link`: the strategy's own, empty: the topology's): what
  // predict runs on this candidate.
  const RunFacts& placed(const RunFacts& facts, const std::string& link, const Topology& topology,
                         int topology_index);
  Result<RunSpeed> speed(const Workload& w, const Gpu& gpu, const RunFacts& facts);
  void note_runs(const Gpu& gpu, GpuRuns& runs) const;
  std::string maturity_of_tasks(const Gpu& gpu, const GpuRuns& runs) const;

  // Jobs larger than one machine (layouts.cc): whether a task on `count` GPUs of the topology
  // searches train-plan's layouts, the layouts with their facts, and the fastest that fits.
  struct Layout {
    RunFacts facts;    // its configuration carries the links of the candidate last predicted
    RunConfig config;  // the layout unresolved, with the task's own sequence (TaskRun::config)
    bool first_of_group = false;  // the first of the layout's recompute variants
  };
  bool searches_layouts(size_t task_index, int count, const Topology& topology) const;
  Result<std::vector<Layout>*> layouts_for(size_t task_index, const Gpu& gpu, int count,
                                           int gpus_per_node, bool split_sequences);
  Result<Layout*> fastest_layout(size_t task_index, const Gpu& gpu, const Topology& topology,
                                 std::vector<Layout>& layouts, RunSpeed& fastest_speed);
  Status run_layouts(size_t task_index, const Gpu& gpu, int count, const Topology& topology,
                     TaskRun& best);

  std::vector<Strategy>& strategies_for(size_t task_index, const Gpu& gpu, int count);
  // The stack check of a task on a GPU: the software a task's runs need does not depend on the
  // count or the strategy, only on the task as resolved (engine and formats).
  const StackCheck& stack_of(size_t task_index, const Gpu& gpu, const RunFacts& facts);
  // The position of a topology among those asked about, added at its first use.
  int topology_index(const Topology& topology);

  const Demand& demand_;
  const Catalog& catalog_;
  const Calibration& calibration_;
  // The topologies asked about, each once (topology_index).
  std::vector<Topology> topologies_;
  int last_topology_ = -1;  // the last one found
  // A GPU, count and topology_index: the key of the runs made (cache_).
  struct RunsKey {
    const Gpu* gpu;
    int count;
    int placement;
    bool operator==(const RunsKey&) const = default;
  };
  struct RunsKeyHash {
    size_t operator()(const RunsKey& k) const noexcept;
  };
  // The runs made: one hash probe per candidate (most candidates find their runs made for an
  // earlier one: a GPU's other pricing, condition or offer).
  std::unordered_map<RunsKey, GpuRuns, RunsKeyHash> cache_;
  // The last runs asked for, as asked (before within_node): an offer's on-demand and spot
  // pricings, and a GPU's new and used conditions, ask one after the other.
  struct LastAsked {
    const Gpu* gpu = nullptr;
    int count = 0;
    Topology topology;
    const GpuRuns* runs = nullptr;
  } last_asked_;
  // By task, count, strategy and, for inference, the GPU (nullptr: training, any GPU).
  std::map<std::tuple<size_t, int, std::string, const Gpu*>, RunFacts, NameViewLess> facts_;
  // By the facts placed and topology_index.
  std::map<std::pair<const RunFacts*, int>, RunFacts> placed_;
  // By task, count and all_linked(gpu).
  std::map<std::tuple<size_t, int, bool>, std::vector<Strategy>> strategies_;
  // By task and GPU.
  std::map<std::pair<size_t, const Gpu*>, StackCheck> stacks_;
  // By task, count, GPUs per machine and whether they split sequences: train-plan's layouts
  // (layouts_for).
  std::map<std::tuple<size_t, int, int, bool>, std::vector<Layout>> layouts_;
  SharedFacts shared_facts_;  // of the facts above
  OperatorTimes times_;       // of the facts above, on each GPU
};

// Usage demands: each task's share of the hours on the reference GPU, converted to its work per
// month at the reference's speed. Work demands: the job's work.
Status resolve_work(Request& request, DemandRuns& runs);

// One machine to evaluate: an owned GPU x count in a base system, or rented instances of an
// offer at one pricing; its option's identity (kind, gpu, count, ...) is written when it is
// evaluated (evaluate).
struct Candidate {
  std::string_view kind;  // own, rent, keep
  const Gpu* gpu = nullptr;
  int count = 0;
  std::string_view condition;        // own: new, used; keep: owned
  std::optional<OwnedSystem> owned;  // own: one machine of min(count, kGpusPerMachine) GPUs
  double machines = 1;               // own: machines of that many
  const Offer* offer = nullptr;      // rent
  int instances = 1;                 // rent
  std::string_view pricing;          // rent: on-demand, spot, serverless
  Topology topology;
};

// Owned candidates; `unpriced` counts the GPU x count x condition that have no price or system.
std::vector<Candidate> owned_candidates(const Request& request, int* unpriced);

// Rented candidates, offer by offer, each offer's sizes smallest first (its ladder). Usage demands
// stop at the first size that does the month's work in the month (more instances cost the same
// for it). Several instances of an offer sold without a cluster fabric train no job together:
// only a service (independent replicas) rents them; `unclustered` counts the sizes left out.
std::vector<Candidate> rented_candidates(const Request& request, int* unclustered);

// How the demand's tasks run on a candidate: its fit, throughput (of the first task) and busy
// hours per job (work) or per month (usage); owned and kept GPUs at the power limit.
Result<double> run_demand(const Candidate& candidate, const Request& request, DemandRuns& runs,
                          Option& option);

// The option of a candidate, written into `option` (a new one): its identity, fit, speed, hours,
// cost, energy and CO2; a task that does not fit is a "fit" violation.
Status evaluate(const Candidate& candidate, const Request& request, DemandRuns& runs,
                Option& option);

// A named constraint: `broken` says whether an option breaks it, `why` says how in a sentence
// with the numbers (written only for the options an answer shows, describe()); `what` names it in
// a relaxation ("relaxing the budget: ...").
struct Constraint {
  std::string_view name;
  std::string_view what;
  bool (*broken)(const Candidate& candidate, const Request& request, const Option& option);
  std::string (*why)(const Request& request, const Option& option);
};
// Every constraint, in the order relaxations are offered.
std::span<const Constraint> constraints();

// Whether a serving prediction meets the job: its rate served, its latency targets met.
bool meets(const ServingPrediction& serving, const ServingJob& job);

// Records that an option breaks a constraint: its name and a sentence with the numbers (the
// constraints found while running the demand, fit and stack, before the table's).
void breaks(Option& option, std::string_view constraint, std::string why);

// Names in option.binding each constraint of the table the option breaks, without the sentences;
// returns them as bits, 1 << their row in constraints().
unsigned apply_constraints(const Candidate& candidate, const Request& request, Option& option);
// The constraints of an option that keeps up, as bits of apply_constraints: it does the work in
// the time (time), a service serves the rate within its targets (rate, ttft, tpot).
unsigned pace_constraints();
// Writes the sentence of each constraint of the table in option.binding that has none yet.
void describe_violations(const Request& request, Option& option);

// The date of the prices an option is costed on.
void date_price(const Candidate& candidate, Option& option);
// What to say about the prices of the options an answer of the first `top` shows (those of
// describe()): an age past --max-price-age, a GPU at its launch price, the offer's caveat. The
// others' price_note stays "".
void note_prices(const Request& request, size_t top, Recommendation& rec);
// The price_age constraint: a price more than PriceAge::kStaleDays old, or undated, ranks only
// with --allow-stale-prices.
bool price_age_broken(const Candidate& candidate, const Request& request, const Option& option);
std::string price_age_why(const Request& request, const Option& option);
// After rank(): how many options only their price's age keeps out, and the cheapest of them; or,
// with --allow-stale-prices, how many ranked options stand on such prices.
void note_price_ages(const Request& request, Recommendation& rec);
// "45 days old", "17 months old".
std::string age_text(long days);

// --have: an option must be at least this many times as fast as the GPUs the user has to rank
// above keeping them. Rationale: a speedup is the ratio of two predictions, each with the
// throughput model's error (validate --loo: median 5.8%, docs/performance.md), so a ratio may be
// off by about twice that, and selling a card and installing another costs time and risk; 1.2x
// is about three times the ratio's median error, a gain the model can tell from noise.
inline constexpr double kMinUpgradeSpeedup = 1.2;

// The GPUs the user has, resolved against the catalog (--have; an unknown id: the closest ids).
Status resolve_have(const Catalog& catalog, const Constraints& k, Request& r);
// How the demand runs on the GPUs the user has, and what selling them brings; `keep` is them as
// an option (kind "keep", cost 0, speedup 1), with a violation when they cannot run the demand.
Result<Have> evaluate_have(const Request& request, DemandRuns& runs, Option& keep);
// After rank(): each option's speedup, resale and net cost against `have`; options at least
// kMinUpgradeSpeedup as fast ranked by net cost per 1.0x gained, then "keep what you have",
// then the rest; the verdict in rec.have and the notes.
void rank_upgrades(Have have, Option keep, Recommendation& rec);
// What an option's speed is judged by (less is faster): its time to the result, or a service's
// time per output token.
double slowness(const Option& option);

// Files the options evaluated: those that break no constraint in rec.options, the others in
// rec.rejected, each list cheapest first (then fastest) as rank() sorts it, each option moved
// once; `evaluated` is left empty.
void file_options(std::vector<Option>& evaluated, Recommendation& rec);

// Sorts the options cheapest first (then fastest), ties on cost to the common stack, and marks the
// cost/time Pareto front; the rejected options stay as file_options filed them, cheapest first.
void rank(Recommendation& rec);

// Writes the sentences of the options an answer of the first `top` shows: each option's reason
// (unless `reasons_written`, as rank_upgrades writes them), for the first `top` options and every
// later one on the Pareto front; the violations and reason of the first `top` rejected ones. The
// other rejected options keep the names of what they break (binding) and no sentences.
void describe(const Request& request, size_t top, bool reasons_written, Recommendation& rec);

// Nothing feasible: per constraint, the cheapest option that breaks only it.
void relax(const Request& request, Recommendation& rec);

// "12 min", "3.5 h", "4.2 days".
std::string hours_text(double hours);
// "1,234 USD".
std::string usd(double value);
// "own 2 x rtx-4090 (desktop-2gpu)", "rent lambda-h100 on-demand".
std::string label(const Option& option);

}  // namespace rigplan::recommend_steps
