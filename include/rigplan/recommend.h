// From a workload to a ranked list of owned machines and cloud offers: enumerate every GPU x
// count in a base system and every offer, check memory and constraints, predict throughput,
// price the time to result and the energy and CO2, rank by cost, and mark the cost/time Pareto
// front. docs/recommend.md explains each step.
#pragma once

#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rigplan/catalog.h"
#include "rigplan/cost.h"
#include "rigplan/memory.h"
#include "rigplan/perf.h"
#include "rigplan/prices.h"
#include "rigplan/status.h"
#include "rigplan/workload.h"

namespace rigplan {

// One workload of the demand and its share of the work.
struct Task {
  Workload workload;
  RunConfig run;
  double share = 1;  // of the hours on the reference GPU (usage demands)
};

// A service to run: an LLM answering `request_rate` requests per second, each a prompt of the
// task's seq_len tokens and gen_tokens generated (mode "serve", docs/inference.md), within its
// latency targets, `hours_per_month` hours a month (all of them: always on).
struct ServingJob {
  double request_rate = 0;
  std::optional<double> max_ttft_ms;  // time to the first token, mean
  std::optional<double> max_tpot_ms;  // time per output token after the first, mean
  double hours_per_month = 730;       // 365 × 24 / 12
};

// What must be computed: a fixed amount of work (samples or tokens of one task), hours of use
// per month on a reference GPU split among tasks by share, over the horizon, or a service.
struct Demand {
  std::vector<Task> tasks;
  std::optional<double> work;             // in the task's unit: samples, images or tokens
  std::optional<double> hours_per_month;  // on one reference GPU
  std::optional<ServingJob> serving;      // its one task is the served model
  std::string reference_gpu = "rtx-4090";
  // --cpu: the CPU of every machine, owned or rented, whose input pipeline bounds each training
  // task that reads an input (input_pipeline.h); none: no pipeline is modelled.
  std::optional<HostSpec> host;
};

struct Constraints {
  std::optional<double> budget_usd;  // own: purchase; rent: total rent
  std::string region = "us";
  double horizon_months = 36;
  // Work demands: the owned machine's busy share of calendar time, over which its purchase is
  // spread; none: the machine is bought for the job and carries its whole purchase less resale.
  std::optional<double> utilisation;
  std::string acquire = "both";       // own, rent, both
  std::string condition = "any";      // new, used, any
  std::optional<double> max_power_w;  // continuous wall draw of an owned machine
  std::string circuit;                // a Circuit id: its continuous capacity bounds the draw
  int max_gpus = 8;
  // GPU ids or names the options may use (--gpus-allowed), each checked against the catalog;
  // empty: every GPU.
  std::vector<std::string> gpus_allowed;
  std::string system;  // a base system id for owned options (e.g. existing-desktop); "": cheapest
  const BaseSystem* machine = nullptr;  // replaces `system`: owned options are this machine only
  std::string machine_gpu;              // with `machine`: the GPU it holds
  double power_limit = 1.0;             // cap on GPU board power, as a fraction
  std::optional<double> electricity_usd_per_kwh;  // replaces the region's
  std::optional<double> pue;                      // replaces the site default
  bool resale = true;
  // The date prices are aged against (the caller's today); none: ages are not judged, and the
  // answer says so. A price older than max_price_age_months is flagged in its option; one older
  // than PriceAge::kStaleDays ranks only with allow_stale_prices.
  std::optional<Date> today;
  double max_price_age_months = PriceAge::kWarnMonths;
  bool allow_stale_prices = false;
  // --have: the GPUs the user owns, "gtx-1080-ti" or "2x rtx-3090" (compare --gpus), each checked
  // against the catalog; each option's speedup over them and "keep" as an option. Empty: none.
  std::vector<std::string> have;
};

// The names of the constraints an option breaks (budget, power, fit, ...), in the order found,
// each viewing a fixed word. Most options break one or two: those are held in place, with no
// allocation for each of the thousands of options a search rejects; more are held in a vector.
class ConstraintNames {
 public:
  using value_type = std::string_view;
  using iterator = const std::string_view*;
  using const_iterator = const std::string_view*;

  ConstraintNames() = default;
  ConstraintNames(std::initializer_list<std::string_view> names) {
    for (const std::string_view name : names) push_back(name);
  }
  void push_back(std::string_view name) {
    if (more_.empty() && held_ < kHeld) {
      names_[held_++] = name;
      return;
    }
    if (more_.empty()) {
      more_.assign(names_, names_ + held_);
      held_ = 0;
    }
    more_.push_back(name);
  }
  void emplace_back(std::string_view name) { push_back(name); }
  const std::string_view* begin() const { return more_.empty() ? names_ : more_.data(); }
  const std::string_view* end() const { return begin() + size(); }
  size_t size() const { return more_.empty() ? held_ : more_.size(); }
  bool empty() const { return size() == 0; }
  std::string_view operator[](size_t i) const { return begin()[i]; }
  std::string_view front() const { return *begin(); }
  friend bool operator==(const ConstraintNames& a, const ConstraintNames& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }

 private:
  static constexpr size_t kHeld = 2;
  std::string_view names_[kHeld];
  size_t held_ = 0;                     // of names_, while more_ is empty
  std::vector<std::string_view> more_;  // every name, past kHeld of them
};

// One machine the demand could run on, and what running it there gives. Its names (kind, gpu,
// condition, system, offer, pricing, provider, fabric, stack and binding) view the catalog's
// entries and fixed words: an option is read while the catalog it was made from lives.
struct Option {
  std::string_view kind;  // own, rent, keep
  std::string_view gpu;   // Gpu id
  int count = 0;
  std::string_view condition;  // own: new, used; keep: owned
  std::string_view system;     // own: base system id (system_label: with its machines)
  int machines = 1;            // own: machines of that system, for more GPUs than one holds
  std::string_view offer;      // rent: offer id (offer_label: with its instances)
  std::string_view pricing;    // rent: on-demand, spot, serverless
  std::string_view provider;   // rent
  int instances = 1;           // rent: instances of the offer
  std::string_view fabric;     // rent: the network that joins them, "" for one instance
  bool fits = false;
  // How the work is spread over the GPUs: ddp, zero-3, ..., or a parallel layout of
  // train-plan's search ("tp-2 pp-2 dp-8, micro-batch 2") for a training job larger than one
  // machine (docs/recommend.md, "Jobs larger than a machine").
  std::string strategy;
  // The first task's run as the search evaluated it, as predict takes it: the task's run with
  // the strategy's sharding or layout, and the links, machine size and network of the option
  // where predict would not assume them for its GPUs (recommend's "as predict flags").
  RunConfig run;
  double memory_gb = 0;   // per GPU, the largest task's
  double throughput = 0;  // of the first task, in `unit`, all GPUs
  std::string unit;
  std::optional<ServingPrediction> serving;  // a serving job: latencies at its request rate
  double hours = 0;                          // busy hours for the demand over the horizon
  double time_to_result_h = 0;  // work demand: hours to the result; usage: busy hours per month
  double capex_usd = 0;         // own
  double total_cost_usd = 0;
  double cost_per_result_usd = 0;  // per work demand, or per month of usage
  double energy_kwh = 0;
  double co2_kg = 0;
  double co2_embodied_kg = 0;
  double wall_w = 0;                // average while busy
  double max_wall_w = 0;            // own: the most it draws, for circuits
  std::optional<Date> price_as_of;  // of the prices it is costed on (own: the oldest of GPU and
                                    // base system); none when the catalog dates none
  // Its price's age past --max-price-age, a launch price, a caveat; written for the options an
  // answer shows (recommend()).
  std::string price_note;
  std::vector<std::string> violations;  // constraints it breaks, one sentence each
  ConstraintNames binding;              // names of those constraints: budget, power, fit, ...
  bool pareto = false;
  std::string reason;  // one line: why it ranks where it does
  // The software stack of its GPU's family (cuda, rocm, ...), whether it is the common one, and
  // what to say about it: a less common stack, software of the run that runs only partly, or a
  // tie with an option on a less common stack that it ranks above; "" when nothing.
  std::string_view stack;
  bool common_stack = true;
  std::string stack_note;
  // --have (docs/recommend.md, "Upgrades"): the speedup over the user's GPUs (none when they or
  // this option cannot run the demand), the resale of the user's cards (own: sold; rent: kept,
  // none), the net cost (own: purchase less that resale; rent: the rent) and the net cost per
  // 1.0x of speedup gained (when faster).
  std::optional<double> speedup_over_have;
  std::optional<double> resale_usd;
  std::optional<double> net_cost_usd;
  std::optional<double> net_cost_per_speedup_usd;
};

// "desktop-8gpu x 2": an owned option's base system, with its machines when more than one.
std::string system_label(const Option& option);
// "lambda-h100 x 2": a rented option's offer, with its instances when more than one.
std::string offer_label(const Option& option);

// One kind of the GPUs the user has (--have), with the catalog's used price of one card.
struct HaveGpu {
  std::string gpu;
  int count = 1;
  std::optional<double> used_price_usd;  // none: the catalog has no used price
  std::optional<Date> used_price_date;
};

// What the user has, run as `predict --gpus N` runs N of them (one kind: a job does not span
// unlike GPUs; of several kinds, the fastest that runs the demand), and what selling it brings.
struct Have {
  std::vector<HaveGpu> gpus;
  std::string gpu;  // the kind the demand runs on
  int count = 0;
  bool runs = false;  // holds the demand in memory: its speedups are defined
  // The constraints keeping them breaks (time: too slow for the month's work; rate, ttft, tpot;
  // fit): when any, keeping is no option and every option that meets them beats it.
  std::vector<std::string> keep_breaks;
  double throughput = 0;
  std::string unit;
  double time_to_result_h = 0;
  std::optional<ServingPrediction> serving;
  double resale_usd = 0;   // the used prices of every card that has one
  double min_speedup = 0;  // what an option must reach to rank above keeping (kMinUpgradeSpeedup)
  bool keep_wins = false;
  std::string verdict;  // one sentence: why keep wins, or what beats it
};

struct Recommendation {
  Demand demand;  // as evaluated (work resolved)
  Constraints constraints;
  SiteEnergy site;
  std::vector<Option> options;  // feasible, best first
  // Infeasible, with the names of the constraints each breaks (binding); the first `top` of
  // recommend() with the sentences too (violations, reason).
  std::vector<Option> rejected;
  // When nothing is feasible: per binding constraint, what relaxing it alone would give.
  std::vector<std::string> relaxations;
  std::vector<std::string> assumptions;  // defaults applied, one sentence each
  int evaluated = 0;
  std::string unit;          // of the first task's throughput
  std::optional<Have> have;  // --have
};

// A malformed request (no task, unknown region or circuit, an option out of range) is a
// kInvalidInput Status. An infeasible one is a Recommendation with no options and relaxations.
// Every option carries its numbers; the sentences (reason, violations, price_note) are written
// for those a report of the first `top` shows (report::recommend_json): the first `top` options,
// every later one on the Pareto front, and the first `top` rejected ones. A search evaluates
// thousands of options and an answer shows tens.
Result<Recommendation> recommend(const Demand& demand, const Constraints& constraints,
                                 const Catalog& catalog, const Calibration& calibration,
                                 size_t top = std::numeric_limits<size_t>::max());

// A named persona of Dettmers' guide: a workload mix and constraints (data/presets/).
struct Preset {
  std::string id;
  std::string name;
  std::string description;
  std::string dettmers_pick;    // what Dettmers' 2023 guide recommends for the persona; "" for
  std::string dettmers_source;  // personas the guide has none for (serving an LLM)
  struct TaskSpec {
    std::string workload;
    RunConfig run;  // with the task's recipe applied
    double share = 1;
    std::optional<int> resolution;  // image models at another input size (at_resolution)
  };
  std::vector<TaskSpec> tasks;
  std::optional<double> hours_per_month;
  std::optional<double> work;
  std::optional<ServingJob> serving;
  std::string reference_gpu = "rtx-4090";
  Constraints constraints;
};

const std::vector<Preset>& embedded_presets();
// Parses preset files; every problem is reported as "file:line:column: message".
Result<std::vector<Preset>> load_presets(const std::vector<CatalogFile>& files);
Result<const Preset*> find_preset(const std::vector<Preset>& presets, std::string_view id);

// The demand of a preset with its workloads resolved from the zoo.
Result<Demand> preset_demand(const Preset& preset, const Zoo& zoo);

// Constraints as given on a command line or in an API request: each one given replaces the
// preset's (or the default).
struct ConstraintOptions {
  std::optional<double> budget_usd;
  std::optional<std::string> region;
  std::optional<double> utilisation;
  std::optional<double> horizon_months;
  std::optional<std::string> acquire;
  std::optional<std::string> condition;
  std::optional<double> max_power_w;
  std::optional<std::string> circuit;
  std::optional<int> max_gpus;
  std::vector<std::string> gpus_allowed;  // empty: not given
  std::optional<std::string> system;
  std::optional<double> power_limit;
  std::optional<double> electricity_usd_per_kwh;
  std::optional<double> pue;
  bool no_resale = false;
  std::optional<Date> today;
  std::optional<double> max_price_age_months;
  bool allow_stale_prices = false;
  std::vector<std::string> have;  // empty: not given
};

// A recommendation as asked: a preset, a workload, or a preset with its tasks replaced by a
// workload; one job size at most (a preset has its own); and the constraints given.
struct RecommendRequest {
  std::string preset;                // a preset id, or ""
  std::optional<Workload> workload;  // replaces the preset's tasks
  // Of `workload`; its framework applies to a preset's tasks too, and compile and cuda_graphs
  // to a preset's training tasks (an inference task's speed is its engine's).
  RunConfig run;
  std::optional<double> tokens, samples, images, epochs, hours_per_month;
  // A serving job: requests per second, latency targets and hours a month up (default: all).
  std::optional<double> serve_rate, max_ttft_ms, max_tpot_ms, serve_hours;
  std::optional<std::string> reference_gpu;
  std::optional<HostSpec> host;  // --cpu and --loader (host_spec)
  ConstraintOptions constraints;
  // --build: owned options are this machine with `machine_gpu_count` of `machine_gpu` only.
  const BaseSystem* machine = nullptr;
  std::string machine_gpu;
  int machine_gpu_count = 0;
};

struct ResolvedRequest {
  Demand demand;
  Constraints constraints;
};
// The demand and constraints of a request. No workload and no preset, no job size for a
// workload, or more than one job size is a kInvalidInput Status; so is an unknown preset, and
// --compile or --cuda-graphs for a demand that trains nothing (check_compile_mode).
Result<ResolvedRequest> resolve_request(const RecommendRequest& request,
                                        const std::vector<Preset>& presets, const Zoo& zoo);

}  // namespace rigplan
