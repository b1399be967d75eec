// The constraints of recommend(), one function each, in a table: every option is checked against
// every constraint, so an infeasible request can say which binds and what relaxing it gives.
#include <fmt/format.h>

#include <algorithm>

#include "cost/cost_constants.h"
#include "recommend/steps.h"
#include "util/strings.h"

namespace rigplan::recommend_steps {

using namespace cost_constants;

namespace {

void check_budget(const Candidate& c, const Request& r, Option& o) {
  const auto& budget = r.constraints->budget_usd;
  if (!budget) return;
  if (c.owned && o.capex_usd > *budget) {
    breaks(o, "budget",
           fmt::format("costs {} to buy, over the {} budget", usd(o.capex_usd), usd(*budget)));
  }
  if (c.offer && o.total_cost_usd > *budget) {
    breaks(o, "budget",
           fmt::format("rent totals {}, over the {} budget", usd(o.total_cost_usd), usd(*budget)));
  }
}

void check_power(const Candidate& c, const Request& r, Option& o) {
  if (!c.owned || !r.power_cap || o.max_wall_w <= *r.power_cap) return;
  breaks(o, "power",
         fmt::format("draws up to {:.0f} W at the wall per machine, over {} ({:.0f} W)",
                     o.max_wall_w, r.power_cap_name, *r.power_cap));
}

void check_max_gpus(const Candidate& c, const Request& r, Option& o) {
  if (c.count <= r.constraints->max_gpus) return;
  breaks(o, "max_gpus",
         fmt::format("uses {} GPUs, more than --max-gpus {}", c.count, r.constraints->max_gpus));
}

void check_acquire(const Candidate& c, const Request& r, Option& o) {
  const std::string& acquire = r.constraints->acquire;
  if (c.owned && acquire == "rent") breaks(o, "acquire", "an owned machine, but --acquire rent");
  if (c.offer && acquire == "own") breaks(o, "acquire", "a rented instance, but --acquire own");
}

void check_condition(const Candidate& c, const Request& r, Option& o) {
  const std::string& condition = r.constraints->condition;
  if (!c.owned || condition == "any" || condition == o.condition) return;
  breaks(o, "condition", fmt::format("bought {}, but --condition {}", o.condition, condition));
}

// The work fits in the time there is: a month's work within the month, a job within the horizon.
void check_time(const Candidate&, const Request& r, Option& o) {
  if (!o.fits) return;
  const double hours = o.time_to_result_h;
  if (r.demand->hours_per_month && hours > kHoursPerMonth) {
    breaks(o, "time",
           fmt::format("needs {:.0f} busy hours a month, more than the {:.0f} in a month", hours,
                       kHoursPerMonth));
  }
  const double horizon_hours = r.constraints->horizon_months / 12 * kHoursPerYear;
  if (r.demand->work && hours > horizon_hours) {
    breaks(o, "time",
           fmt::format("takes {}, longer than the {}-month horizon", hours_text(hours),
                       format_number(r.constraints->horizon_months)));
  }
}

// A serving job: the rate served, and the mean latencies within their targets.
void check_rate(const Candidate&, const Request& r, Option& o) {
  if (!o.fits || !r.demand->serving || !o.serving || !o.serving->saturated) return;
  breaks(o, "rate",
         fmt::format("serves at most {:.3g} requests/s, below the {} asked",
                     o.serving->requests_per_s, format_number(r.demand->serving->request_rate)));
}

// The served option's mean latencies, when it keeps up with the rate.
const ServingPrediction* served(const Request& r, const Option& o) {
  if (!o.fits || !r.demand->serving || !o.serving || o.serving->saturated) return nullptr;
  return &*o.serving;
}

void check_ttft(const Candidate&, const Request& r, Option& o) {
  const ServingPrediction* s = served(r, o);
  const auto& target = r.demand->serving ? r.demand->serving->max_ttft_ms : std::nullopt;
  if (!s || !target || s->ttft_ms <= *target) return;
  breaks(o, "ttft",
         fmt::format("takes {:.0f} ms to the first token, over --max-ttft-ms {}", s->ttft_ms,
                     format_number(*target)));
}

void check_tpot(const Candidate&, const Request& r, Option& o) {
  const ServingPrediction* s = served(r, o);
  const auto& target = r.demand->serving ? r.demand->serving->max_tpot_ms : std::nullopt;
  if (!s || !target || s->tpot_ms <= *target) return;
  breaks(o, "tpot",
         fmt::format("takes {:.1f} ms per output token, over --max-tpot-ms {}", s->tpot_ms,
                     format_number(*target)));
}

}  // namespace

bool meets(const ServingPrediction& serving, const ServingJob& job) {
  return !serving.saturated && (!job.max_ttft_ms || serving.ttft_ms <= *job.max_ttft_ms) &&
         (!job.max_tpot_ms || serving.tpot_ms <= *job.max_tpot_ms);
}

const std::vector<Constraint>& constraints() {
  static const std::vector<Constraint> kTable = {
      {"budget", "the budget", check_budget},
      {"power", "the power limit", check_power},
      {"max_gpus", "the GPU count limit", check_max_gpus},
      {"acquire", "--acquire", check_acquire},
      {"condition", "--condition", check_condition},
      {"time", "the time available", check_time},
      {"rate", "the request rate (--serve-rate)", check_rate},
      {"ttft", "the time to first token (--max-ttft-ms)", check_ttft},
      {"tpot", "the time per output token (--max-tpot-ms)", check_tpot},
      {"price_age", "the price age limit (--allow-stale-prices)", check_price_age},
  };
  return kTable;
}

void breaks(Option& o, std::string constraint, std::string why) {
  o.binding.push_back(std::move(constraint));
  o.violations.push_back(std::move(why));
}

void apply_constraints(const Candidate& c, const Request& r, Option& o) {
  for (const Constraint& constraint : constraints()) constraint.check(c, r, o);
}

}  // namespace rigplan::recommend_steps
