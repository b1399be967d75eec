// The last steps of recommend(): options ranked cheapest first with the cost/time front and a
// reason each, and, when nothing is feasible, what relaxing each constraint alone would give.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "recommend/steps.h"
#include "util/strings.h"

namespace rigplan::recommend_steps {
namespace {

// What options are ranked by, read once from each: sorting these instead of the options reads no
// option twice, and an option is most of a kilobyte.
struct CostKey {
  double cost_usd;  // total_cost_usd
  double time;      // slowness()
  size_t index;     // in the options evaluated
};

CostKey key_of(const Option& o, size_t index) { return {o.total_cost_usd, slowness(o), index}; }

// Cheapest first, then fastest.
bool cheaper_key(const CostKey& x, const CostKey& y) {
  if (x.cost_usd != y.cost_usd) return x.cost_usd < y.cost_usd;
  return x.time < y.time;
}

bool cheaper(const Option& x, const Option& y) { return cheaper_key(key_of(x, 0), key_of(y, 0)); }

// Options a move reads ahead of the one it makes: a search's options fill a megabyte and are read
// out of order (cheapest first), so each move would otherwise wait on memory the cache no longer
// holds; fetching the option four moves ahead lets it arrive while the others move.
constexpr size_t kFetchAhead = 4;
constexpr size_t kCacheLineBytes = 64;  // x86-64 and most ARM cores

void fetch(const Option& option) {
  const char* bytes = reinterpret_cast<const char*>(&option);
  for (size_t at = 0; at < sizeof(Option); at += kCacheLineBytes) __builtin_prefetch(bytes + at);
}

// Moves the options of `evaluated` at `keys` (in the order evaluated) to the end of `options`,
// cheapest first, as a stable sort of them by cheaper: each option moves once.
void move_by_cost(std::vector<Option>& evaluated, std::vector<CostKey>& keys,
                  std::vector<Option>& options) {
  std::stable_sort(keys.begin(), keys.end(), cheaper_key);
  options.reserve(options.size() + keys.size());
  for (size_t k = 0; k < keys.size(); ++k) {
    if (k + kFetchAhead < keys.size()) fetch(evaluated[keys[k + kFetchAhead].index]);
    options.push_back(std::move(evaluated[keys[k].index]));
  }
}

// Cheapest first, then fastest; options already in that order (file_options) stay in place.
void sort_by_cost(std::vector<Option>& options) {
  if (std::is_sorted(options.begin(), options.end(), cheaper)) return;
  std::vector<Option> unsorted = std::move(options);
  std::vector<CostKey> keys(unsorted.size());
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = key_of(unsorted[i], i);
  options.clear();
  move_by_cost(unsorted, keys, options);
}

// Options whose costs differ by at most this fraction of the larger are tied, and a tie goes to
// the option on the common stack (Family::common_stack, CUDA): the cost model's inputs (street
// prices, rents of one date, a utilisation) are not known to better than a percent, and a
// less common stack costs time the total does not count (families.toml, `gaps`).
constexpr double kStackTieFraction = 0.01;

bool tied(const Option& a, const Option& b) {
  return std::abs(a.total_cost_usd - b.total_cost_usd) <=
         kStackTieFraction * std::max(a.total_cost_usd, b.total_cost_usd);
}

// Moves each option on the common stack ahead of the options on a less common stack just above
// it that it ties with, and says so in its stack note.
void prefer_common_stack(std::vector<Option>& options) {
  for (size_t i = 1; i < options.size(); ++i) {
    size_t j = i;
    while (j > 0 && options[j].common_stack && !options[j - 1].common_stack &&
           tied(options[j], options[j - 1])) {
      std::swap(options[j], options[j - 1]);
      --j;
    }
    if (j == i) continue;
    Option& moved = options[j];
    const Option& passed = options[j + 1];
    const std::string tie = fmt::format(
        "ranked above {} on {} ({}): within {}% of its cost, a tie goes to the common stack",
        label(passed), passed.stack, usd(passed.total_cost_usd),
        format_number(kStackTieFraction * 100));
    moved.stack_note = moved.stack_note.empty() ? tie : moved.stack_note + "; " + tie;
  }
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
  // The cheapest: the first, unless a tie put an option on the common stack above it.
  const Option& top = *std::min_element(
      options.begin(), options.end(),
      [](const Option& a, const Option& b) { return a.total_cost_usd < b.total_cost_usd; });
  if (i > 0 && &o == &top) {
    return fmt::format("lowest total cost: {} for {}{}, tied with an option on the common stack",
                       usd(o.total_cost_usd), hours_text(o.time_to_result_h), per);
  }
  if (i == 0 && o.serving) {
    return fmt::format(
        "lowest total cost that meets every constraint: {} for {}{} up; {:.0f} ms to the first "
        "token, {:.1f} ms per output token",
        usd(o.total_cost_usd), hours_text(o.time_to_result_h), per, o.serving->ttft_ms,
        o.serving->tpot_ms);
  }
  if (i == 0) {
    // A tie on cost may have put the common stack first (prefer_common_stack).
    const bool cheapest = options.size() < 2 || o.total_cost_usd <= options[1].total_cost_usd;
    return fmt::format("{} that meets every constraint: {} for {}{} busy",
                       cheapest ? "lowest total cost" : "lowest total cost on the common stack",
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

// Every service is up the same hours: its time per output token tells them apart.
double slowness(const Option& o) { return o.serving ? o.serving->tpot_ms : o.time_to_result_h; }

namespace {

std::string with_stack_note(const std::string& reason, const Option& o) {
  return o.stack_note.empty() ? reason : reason + "; " + o.stack_note;
}

}  // namespace

void file_options(std::vector<Option>& evaluated, Recommendation& rec) {
  std::vector<CostKey> feasible, rejected;
  rejected.reserve(evaluated.size());
  for (size_t i = 0; i < evaluated.size(); ++i) {
    const Option& o = evaluated[i];
    (o.binding.empty() ? feasible : rejected).push_back(key_of(o, i));
  }
  move_by_cost(evaluated, feasible, rec.options);
  move_by_cost(evaluated, rejected, rec.rejected);
  rec.evaluated += static_cast<int>(evaluated.size());
  evaluated.clear();
}

void rank(Recommendation& rec) {
  sort_by_cost(rec.options);
  prefer_common_stack(rec.options);
  mark_front(rec.options);
}

void describe(const Request& r, size_t top, bool reasons_written, Recommendation& rec) {
  const std::string per = r.demand->work ? "" : " a month";
  for (size_t i = 0; i < rec.options.size() && !reasons_written; ++i) {
    Option& o = rec.options[i];
    if (i < top || o.pareto) o.reason = with_stack_note(reason(rec.options, i, per), o);
  }
  for (size_t i = 0; i < rec.rejected.size(); ++i) {
    Option& o = rec.rejected[i];
    if (i < top) {
      describe_violations(r, o);
      o.reason = join(o.violations, "; ");
    } else {
      o.violations.clear();  // fit and stack, written when found
    }
  }
}

void relax(const Request& r, Recommendation& rec) {
  if (!rec.options.empty()) return;
  const std::string per = r.demand->work ? "" : " a month";
  for (const Constraint& constraint : constraints()) {
    const auto it = std::find_if(rec.rejected.begin(), rec.rejected.end(), [&](const Option& o) {
      return o.binding.size() == 1 && o.binding[0] == constraint.name;
    });
    if (it == rec.rejected.end()) continue;
    describe_violations(r, *it);
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

namespace {

std::string have_label(const Have& h) { return fmt::format("{} x {}", h.count, h.gpu); }

// An option's speedup, resale and net cost against what the user has.
void price_upgrade(const Have& have, double have_slowness, Option& o) {
  if (have.runs && o.fits) o.speedup_over_have = have_slowness / slowness(o);
  if (o.kind == "own") {
    o.resale_usd = have.resale_usd;
    o.net_cost_usd = o.capex_usd - have.resale_usd;
  } else {
    o.net_cost_usd = o.total_cost_usd;
  }
  if (o.speedup_over_have && *o.speedup_over_have > 1)
    o.net_cost_per_speedup_usd = *o.net_cost_usd / (*o.speedup_over_have - 1);
}

// Beats keeping: keeping breaks a constraint (the user's GPUs cannot hold the workload or do
// not do it in time) and this option meets them, or it is at least min_speedup as fast.
bool beats(const Have& have, const Option& o) {
  return o.fits &&
         (!have.keep_breaks.empty() || o.speedup_over_have.value_or(0) >= have.min_speedup);
}

std::string upgrade_reason(const Have& have, const Option& o) {
  if (!have.runs) {
    return fmt::format("runs the workload, which your {} cannot, for a net {}", have_label(have),
                       usd(*o.net_cost_usd));
  }
  if (!have.keep_breaks.empty()) {
    return fmt::format("{:.2f}x as fast as your {}, which keeping breaks ({}), for a net {}",
                       o.speedup_over_have.value_or(0), have_label(have),
                       join(have.keep_breaks, ", "), usd(*o.net_cost_usd));
  }
  if (beats(have, o)) {
    return fmt::format("{:.2f}x as fast as your {} for a net {} ({} per 1.0x gained)",
                       *o.speedup_over_have, have_label(have), usd(*o.net_cost_usd),
                       usd(*o.net_cost_per_speedup_usd));
  }
  return fmt::format("{:.2f}x your {}, under the {}x an upgrade must reach: ranks below keeping it",
                     o.speedup_over_have.value_or(0), have_label(have),
                     format_number(have.min_speedup));
}

// Why keep wins or loses, in one sentence.
std::string keep_verdict(const Have& have, const Option& keep, const std::vector<Option>& upgrades,
                         const std::vector<Option>& slower) {
  const std::string mine = have_label(have);
  if (!have.runs) {
    return fmt::format(
        "your {} cannot run the workload ({}): every option that runs it beats keeping", mine,
        join(keep.violations, "; "));
  }
  if (!have.keep_breaks.empty()) {
    return fmt::format(
        "your GPUs ({}) run the workload but keeping them breaks {} ({}): every option that "
        "meets the constraints beats keeping",
        mine, join(have.keep_breaks, ", "), join(keep.violations, "; "));
  }
  if (!upgrades.empty()) {
    return fmt::format(
        "{} at least {}x as fast as your {}; the best value is {} at {} per 1.0x gained",
        upgrades.size() == 1 ? std::string("1 option is")
                             : fmt::format("{} options are", upgrades.size()),
        format_number(have.min_speedup), mine, label(upgrades.front()),
        usd(*upgrades.front().net_cost_per_speedup_usd));
  }
  const auto fastest =
      std::max_element(slower.begin(), slower.end(), [](const Option& a, const Option& b) {
        return a.speedup_over_have.value_or(0) < b.speedup_over_have.value_or(0);
      });
  return fmt::format(
      "keep what you have: no option is at least {}x as fast as your {}{}",
      format_number(have.min_speedup), mine,
      fastest == slower.end()
          ? ""
          : fmt::format(" (the fastest, {}, is {:.2f}x for a net {})", label(*fastest),
                        fastest->speedup_over_have.value_or(0), usd(*fastest->net_cost_usd)));
}

std::string have_note(const Have& have) {
  std::vector<std::string> cards, unpriced;
  for (const HaveGpu& g : have.gpus) {
    if (!g.used_price_usd) {
      unpriced.push_back(g.gpu);
      continue;
    }
    cards.push_back(fmt::format("{} x {} at {} each (used price of {})", g.count, g.gpu,
                                usd(*g.used_price_usd),
                                g.used_price_date ? g.used_price_date->to_string() : "no date"));
  }
  std::string note = fmt::format(
      "--have: your GPUs are sold when you buy an owned option, for {} ({}){}. Net cost: an owned "
      "option's purchase, its base system included, less that resale; a rented option's rent, "
      "with your GPUs kept, not sold. Net cost per 1.0x = net cost / (speedup - 1). Keeping "
      "costs nothing more (its electricity is not counted); an option ranks above it only when "
      "at least {}x as fast (docs/recommend.md, \"Upgrades\").",
      usd(have.resale_usd), cards.empty() ? "no used price" : join(cards, ", "),
      unpriced.empty() ? ""
                       : fmt::format("; {} has no used price in the catalog: counted at 0 USD",
                                     join(unpriced, ", ")),
      format_number(have.min_speedup));
  if (have.gpus.size() > 1) {
    note += fmt::format(
        " A job does not span unlike GPUs: speedups are over your {}, the fastest of yours that "
        "runs it.",
        have_label(have));
  }
  return note;
}

}  // namespace

void rank_upgrades(Have have, Option keep, Recommendation& rec) {
  const double mine = slowness(keep);
  std::vector<Option> upgrades, slower;
  for (Option& o : rec.options) {
    price_upgrade(have, mine, o);
    o.reason = with_stack_note(upgrade_reason(have, o), o);
    (beats(have, o) ? upgrades : slower).push_back(std::move(o));
  }
  for (Option& o : rec.rejected) price_upgrade(have, mine, o);
  // Net cost per 1.0x gained where an option is faster, then net cost.
  const auto value = [](const Option& o) {
    return std::make_pair(!o.net_cost_per_speedup_usd,
                          o.net_cost_per_speedup_usd.value_or(*o.net_cost_usd));
  };
  std::stable_sort(upgrades.begin(), upgrades.end(),
                   [&](const Option& a, const Option& b) { return value(a) < value(b); });
  const bool keepable = have.keep_breaks.empty();
  have.keep_wins = keepable && upgrades.empty();
  have.verdict = keep_verdict(have, keep, upgrades, slower);
  keep.reason = have.verdict;
  rec.options = std::move(upgrades);
  if (keepable) {
    rec.options.push_back(std::move(keep));
  } else {
    keep.reason = join(keep.violations, "; ");
    rec.rejected.insert(rec.rejected.begin(), std::move(keep));
  }
  for (Option& o : slower) rec.options.push_back(std::move(o));
  ++rec.evaluated;  // keep
  rec.assumptions.push_back(have_note(have));
  rec.have = std::move(have);
}

std::string usd(double v) { return fmt::format("{} USD", format_number(std::round(v))); }

std::string hours_text(double h) {
  if (h < 1) return fmt::format("{:.0f} min", h * 60);
  if (h < 48) return fmt::format("{:.1f} h", h);
  return fmt::format("{:.1f} days", h / 24);
}

std::string label(const Option& o) {
  if (o.kind == "keep") return fmt::format("keep {} x {}", o.count, o.gpu);
  if (o.kind == "own") {
    return fmt::format("own {}{} x {} ({})", o.condition == "used" ? "used " : "", o.count, o.gpu,
                       system_label(o));
  }
  return fmt::format("rent {} {}", offer_label(o), o.pricing);
}

}  // namespace rigplan::recommend_steps

namespace rigplan {
namespace {

// "id x n" for n > 1, else "id".
std::string times(std::string_view id, int n) {
  std::string out(id);
  if (n > 1) {
    out += " x ";
    out += std::to_string(n);
  }
  return out;
}

}  // namespace

std::string system_label(const Option& o) { return times(o.system, o.machines); }

std::string offer_label(const Option& o) { return times(o.offer, o.instances); }

}  // namespace rigplan
