// The last steps of recommend(): options ranked cheapest first with the cost/time front and a
// reason each, and, when nothing is feasible, what relaxing each constraint alone would give.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "recommend/steps.h"
#include "util/strings.h"

namespace rigplan::recommend_steps {
namespace {

// What an option's speed is judged by (less is faster): its time to the result, or a service's
// time per output token (every service is up the same hours).
double slowness(const Option& o) { return o.serving ? o.serving->tpot_ms : o.time_to_result_h; }

// Cheapest first, then fastest; an order of indices, so each option moves once.
void sort_by_cost(std::vector<Option>& options) {
  std::vector<size_t> order(options.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Option &x = options[a], &y = options[b];
    if (x.total_cost_usd != y.total_cost_usd) return x.total_cost_usd < y.total_cost_usd;
    return slowness(x) < slowness(y);
  });
  std::vector<Option> sorted;
  sorted.reserve(options.size());
  for (size_t i : order) sorted.push_back(std::move(options[i]));
  options = std::move(sorted);
}

// The cost/time Pareto front: walking by cost, an option is on it when it is faster than every
// cheaper one.
void mark_front(std::vector<Option>& options) {
  double fastest = HUGE_VAL;
  for (auto& o : options) {
    if (slowness(o) < fastest) {
      o.pareto = true;
      fastest = slowness(o);
    }
  }
}

std::string reason(const std::vector<Option>& options, size_t i, const std::string& per) {
  const Option& o = options[i];
  const Option& top = options.front();
  if (i == 0 && o.serving) {
    return fmt::format(
        "lowest total cost that meets every constraint: {} for {}{} up; {:.0f} ms to the first "
        "token, {:.1f} ms per output token",
        usd(o.total_cost_usd), hours_text(o.time_to_result_h), per, o.serving->ttft_ms,
        o.serving->tpot_ms);
  }
  if (i == 0) {
    return fmt::format("lowest total cost that meets every constraint: {} for {}{} busy",
                       usd(o.total_cost_usd), hours_text(o.time_to_result_h), per);
  }
  const std::string more = usd(o.total_cost_usd - top.total_cost_usd);
  if (o.pareto) {
    return fmt::format("on the cost/time front: {:.1f}x faster{} than the cheapest for {} more",
                       slowness(top) / slowness(o), o.serving ? " per output token" : "", more);
  }
  const auto end = options.begin() + static_cast<std::ptrdiff_t>(i);
  const auto better = std::find_if(options.begin(), end, [&](const Option& p) {
    return p.pareto && slowness(p) <= slowness(o);
  });
  return better != end ? fmt::format("{} more than the cheapest; {} is as fast for less", more,
                                     label(*better))
                       : fmt::format("{} more than the cheapest", more);
}

}  // namespace

void rank(Recommendation& rec) {
  sort_by_cost(rec.options);
  sort_by_cost(rec.rejected);
  mark_front(rec.options);
  const std::string per = rec.demand.work ? "" : " a month";
  for (size_t i = 0; i < rec.options.size(); ++i)
    rec.options[i].reason = reason(rec.options, i, per);
  for (auto& o : rec.rejected) o.reason = join(o.violations, "; ");
}

void relax(Recommendation& rec) {
  if (!rec.options.empty()) return;
  const std::string per = rec.demand.work ? "" : " a month";
  for (const Constraint& constraint : constraints()) {
    const auto it = std::find_if(rec.rejected.begin(), rec.rejected.end(), [&](const Option& o) {
      return o.binding.size() == 1 && o.binding[0] == constraint.name;
    });
    if (it == rec.rejected.end()) continue;
    rec.relaxations.push_back(
        fmt::format("relaxing {}: the cheapest option that meets the rest is {} at {} ({}; {})",
                    constraint.what, label(*it), usd(it->total_cost_usd),
                    hours_text(it->time_to_result_h) + per, join(it->violations, "; ")));
  }
  const bool anything_fits =
      std::any_of(rec.rejected.begin(), rec.rejected.end(), [](const Option& o) { return o.fits; });
  if (!anything_fits) {
    rec.relaxations.push_back(
        "no option holds the workload as configured: `rigplan memory` shows the largest batch "
        "and the longest sequence that fit; a shorter --seq, a smaller --batch, --checkpointing, "
        "--method lora or qlora, or quantized --weights shrink it");
  }
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

}  // namespace rigplan::recommend_steps
