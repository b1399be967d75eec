// The constraints of recommend(), one function each, in a table: every option is checked against
// every constraint, so an infeasible request can say which binds and what relaxing it gives.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cassert>
#include <iterator>
#include <span>
#include <utility>

#include "cost/cost_constants.h"
#include "recommend/steps.h"
#include "util/strings.h"

namespace rigplan::recommend_steps {

using namespace cost_constants;

namespace {

bool budget_broken(const Candidate& c, const Request& r, const Option& o) {
  const auto& budget = r.constraints->budget_usd;
  if (!budget) return false;
  return (c.owned && o.capex_usd > *budget) || (c.offer && o.total_cost_usd > *budget);
}

std::string budget_why(const Request& r, const Option& o) {
  const double budget = *r.constraints->budget_usd;
  if (o.kind == "own") {
    return fmt::format("costs {} to buy, over the {} budget", usd(o.capex_usd), usd(budget));
  }
  return fmt::format("rent totals {}, over the {} budget", usd(o.total_cost_usd), usd(budget));
}

bool power_broken(const Candidate& c, const Request& r, const Option& o) {
  return c.owned && r.power_cap && o.max_wall_w > *r.power_cap;
}

std::string power_why(const Request& r, const Option& o) {
  return fmt::format("draws up to {:.0f} W at the wall per machine, over {} ({:.0f} W)",
                     o.max_wall_w, r.power_cap_name, *r.power_cap);
}

bool max_gpus_broken(const Candidate& c, const Request& r, const Option&) {
  return c.count > r.constraints->max_gpus;
}

std::string max_gpus_why(const Request& r, const Option& o) {
  return fmt::format("uses {} GPUs, more than --max-gpus {}", o.count, r.constraints->max_gpus);
}

bool acquire_broken(const Candidate& c, const Request& r, const Option&) {
  const std::string& acquire = r.constraints->acquire;
  return (c.owned && acquire == "rent") || (c.offer && acquire == "own");
}

std::string acquire_why(const Request&, const Option& o) {
  return o.kind == "own" ? "an owned machine, but --acquire rent"
                         : "a rented instance, but --acquire own";
}

bool condition_broken(const Candidate& c, const Request& r, const Option& o) {
  const std::string& condition = r.constraints->condition;
  return c.owned && condition != "any" && condition != o.condition;
}

std::string condition_why(const Request& r, const Option& o) {
  return fmt::format("bought {}, but --condition {}", o.condition, r.constraints->condition);
}

// The work fits in the time there is: a month's work within the month, a job within the horizon.
double horizon_hours(const Request& r) {
  return r.constraints->horizon_months / 12 * kHoursPerYear;
}

bool time_broken(const Candidate&, const Request& r, const Option& o) {
  if (!o.fits) return false;
  return (r.demand->hours_per_month && o.time_to_result_h > kHoursPerMonth) ||
         (r.demand->work && o.time_to_result_h > horizon_hours(r));
}

std::string time_why(const Request& r, const Option& o) {
  const double hours = o.time_to_result_h;
  std::vector<std::string> why;
  if (r.demand->hours_per_month && hours > kHoursPerMonth) {
    why.push_back(fmt::format("needs {:.0f} busy hours a month, more than the {:.0f} in a month",
                              hours, kHoursPerMonth));
  }
  if (r.demand->work && hours > horizon_hours(r)) {
    why.push_back(fmt::format("takes {}, longer than the {}-month horizon", hours_text(hours),
                              format_number(r.constraints->horizon_months)));
  }
  return join(why, "; ");
}

// A serving job: the rate served, and the mean latencies within their targets.
bool rate_broken(const Candidate&, const Request& r, const Option& o) {
  return o.fits && r.demand->serving && o.serving && o.serving->saturated;
}

std::string rate_why(const Request& r, const Option& o) {
  return fmt::format("serves at most {:.3g} requests/s, below the {} asked",
                     o.serving->requests_per_s, format_number(r.demand->serving->request_rate));
}

// The served option's mean latencies, when it keeps up with the rate.
const ServingPrediction* served(const Request& r, const Option& o) {
  if (!o.fits || !r.demand->serving || !o.serving || o.serving->saturated) return nullptr;
  return &*o.serving;
}

bool ttft_broken(const Candidate&, const Request& r, const Option& o) {
  const ServingPrediction* s = served(r, o);
  const auto& target = r.demand->serving ? r.demand->serving->max_ttft_ms : std::nullopt;
  return s && target && s->ttft_ms > *target;
}

std::string ttft_why(const Request& r, const Option& o) {
  return fmt::format("takes {:.0f} ms to the first token, over --max-ttft-ms {}",
                     o.serving->ttft_ms, format_number(*r.demand->serving->max_ttft_ms));
}

bool tpot_broken(const Candidate&, const Request& r, const Option& o) {
  const ServingPrediction* s = served(r, o);
  const auto& target = r.demand->serving ? r.demand->serving->max_tpot_ms : std::nullopt;
  return s && target && s->tpot_ms > *target;
}

std::string tpot_why(const Request& r, const Option& o) {
  return fmt::format("takes {:.1f} ms per output token, over --max-tpot-ms {}", o.serving->tpot_ms,
                     format_number(*r.demand->serving->max_tpot_ms));
}

// The table, in the order relaxations are offered: a constant array, so that apply_constraints
// calls each check directly.
constexpr Constraint kConstraints[] = {
    {"budget", "the budget", budget_broken, budget_why},
    {"power", "the power limit", power_broken, power_why},
    {"max_gpus", "the GPU count limit", max_gpus_broken, max_gpus_why},
    {"acquire", "--acquire", acquire_broken, acquire_why},
    {"condition", "--condition", condition_broken, condition_why},
    {"time", "the time available", time_broken, time_why},
    {"rate", "the request rate (--serve-rate)", rate_broken, rate_why},
    {"ttft", "the time to first token (--max-ttft-ms)", ttft_broken, ttft_why},
    {"tpot", "the time per output token (--max-tpot-ms)", tpot_broken, tpot_why},
    {"price_age", "the price age limit (--allow-stale-prices)", price_age_broken, price_age_why},
};
static_assert(std::size(kConstraints) <= sizeof(unsigned) * 8, "a bit per constraint");

// The constraints an option breaks, a bit each (1 << its row): every check called directly.
template <size_t... Row>
unsigned broken_rows(const Candidate& c, const Request& r, const Option& o,
                     std::index_sequence<Row...>) {
  return ((kConstraints[Row].broken(c, r, o) ? 1u << Row : 0u) | ...);
}

}  // namespace

std::span<const Constraint> constraints() { return kConstraints; }

bool meets(const ServingPrediction& serving, const ServingJob& job) {
  return !serving.saturated && (!job.max_ttft_ms || serving.ttft_ms <= *job.max_ttft_ms) &&
         (!job.max_tpot_ms || serving.tpot_ms <= *job.max_tpot_ms);
}

void breaks(Option& o, std::string_view constraint, std::string why) {
  o.binding.push_back(constraint);
  o.violations.push_back(std::move(why));
}

unsigned apply_constraints(const Candidate& c, const Request& r, Option& o) {
  const unsigned broken = broken_rows(c, r, o, std::make_index_sequence<std::size(kConstraints)>());
  if (!broken) return 0;
  for (unsigned rows = broken; rows; rows &= rows - 1)
    o.binding.emplace_back(kConstraints[std::countr_zero(rows)].name);
  return broken;
}

unsigned pace_constraints() {
  static const unsigned kPace = [] {
    unsigned bits = 0;
    for (size_t i = 0; i < std::size(kConstraints); ++i) {
      const std::string_view name = kConstraints[i].name;
      if (name == "time" || name == "rate" || name == "ttft" || name == "tpot") bits |= 1u << i;
    }
    return bits;
  }();
  return kPace;
}

void describe_violations(const Request& r, Option& o) {
  const std::span<const Constraint> table = kConstraints;
  for (size_t i = o.violations.size(); i < o.binding.size(); ++i) {
    const auto it = std::find_if(table.begin(), table.end(),
                                 [&](const Constraint& k) { return k.name == o.binding[i]; });
    assert(it != table.end() && "fit and stack are described when found, before the table's");
    o.violations.push_back(it->why(r, o));
  }
}

}  // namespace rigplan::recommend_steps
