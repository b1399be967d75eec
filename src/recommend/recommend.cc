// recommend(): the steps of src/recommend/steps.h in order. Every option is evaluated against
// every constraint, so an infeasible request can say which constraint binds and what relaxing it
// gives.
#include "rigplan/recommend.h"

#include <fmt/format.h>

#include <algorithm>

#include "recommend/steps.h"

namespace rigplan {

using namespace recommend_steps;

namespace {

// Evaluates a candidate into a new option of `evaluated` and checks it against every constraint.
// Returns whether it fits and has the time for the work.
Result<bool> consider(const Candidate& c, const Request& r, DemandRuns& runs,
                      std::vector<Option>& evaluated) {
  Option& o = evaluated.emplace_back();
  if (Status s = evaluate(c, r, runs, o); !s.ok()) return s;
  const unsigned broken = apply_constraints(c, r, o);
  // Keeps up: does the work in the time (a service: serves the rate within its targets).
  return o.fits && !(broken & pace_constraints());
}

// Each offer's ladder in turn (rented_candidates), up to the first size that keeps up for a usage
// or serving demand.
Status consider_rented(const std::vector<Candidate>& rented, const Request& r, DemandRuns& runs,
                       std::vector<Option>& evaluated) {
  const Offer* ladder = nullptr;  // the offer whose sizes are being considered
  int done_at = 0;                // usage and serving demands: the instances that first kept up
  for (const Candidate& c : rented) {
    if (c.offer != ladder) {
      ladder = c.offer;
      done_at = 0;
    }
    if (done_at && c.instances > done_at) continue;
    auto keeps_up = consider(c, r, runs, evaluated);
    if (!keeps_up) return keeps_up.status();
    if ((r.demand->hours_per_month || r.demand->serving) && *keeps_up && !done_at)
      done_at = c.instances;
  }
  return {};
}

// Every candidate of the search's scope evaluated and filed in `rec`, unranked.
Status consider_all(Request& r, DemandRuns& runs, bool rent, Recommendation& rec) {
  int unpriced = 0, unclustered = 0;
  const std::vector<Candidate> owned = owned_candidates(r, &unpriced);
  std::vector<Candidate> rented;
  if (rent) rented = rented_candidates(r, &unclustered);
  std::vector<Option> evaluated;
  evaluated.reserve(owned.size() + rented.size());
  for (const Candidate& c : owned) {
    if (auto s = consider(c, r, runs, evaluated); !s) return s.status();
  }
  if (Status s = consider_rented(rented, r, runs, evaluated); !s.ok()) return s;
  if (unclustered > 0) {
    r.assumptions.push_back(fmt::format(
        "{} rented options of several instances were not offered: their provider sells them "
        "without a cluster fabric, so the instances share only its ordinary network and train no "
        "job together (offers with a fabric, or one instance of several GPUs, do).",
        unclustered));
  }
  rec.assumptions = std::move(r.assumptions);
  if (unpriced > 0 && !r.only_system) {
    rec.assumptions.push_back(fmt::format(
        "{} owned GPU x count combinations were skipped: the catalog has no price for the GPU in "
        "that condition or no base system that holds them.",
        unpriced));
  }
  file_options(evaluated, rec);
  return {};
}

bool owned_and_breaks(const Option& o, std::string_view constraint) {
  return o.kind == "own" &&
         std::find(o.binding.begin(), o.binding.end(), constraint) != o.binding.end();
}

// What a search evaluates: every candidate, or only the owned ones (a search whose constraints
// rule out renting and that only its owned options are read from).
enum class Scope { kAll, kOwned };

Result<Recommendation> search(const Demand& demand, const Constraints& constraints,
                              const Catalog& catalog, const Calibration& calibration,
                              DemandRuns& runs, Scope scope, size_t top);

// A budget that buys no owned machine because each includes a new base system: what it buys as a
// GPU added to the PC the user has (--system existing-desktop), said with the answer. The search
// runs the demand on the GPUs of `runs`, made by the search it notes.
void note_existing_desktop(const Demand& demand, const Constraints& k, const Catalog& catalog,
                           const Calibration& calibration, DemandRuns& runs, Recommendation& rec) {
  constexpr std::string_view kDesktop = "existing-desktop";
  const auto owned = [](const Option& o) { return o.kind == "own"; };
  if (k.acquire == "rent" || !k.system.empty() || k.machine || !catalog.find_system(kDesktop) ||
      std::any_of(rec.options.begin(), rec.options.end(), owned) ||
      std::none_of(rec.rejected.begin(), rec.rejected.end(),
                   [](const Option& o) { return owned_and_breaks(o, "budget"); }))
    return;
  Constraints in_pc = k;
  in_pc.system = kDesktop;
  in_pc.acquire = "own";
  // Rented options break --acquire own: none is an option or only stale, so none is evaluated.
  // The note reads its numbers and labels, no sentence.
  auto alt = search(demand, in_pc, catalog, calibration, runs, Scope::kOwned, 0);
  if (!alt) return;
  std::string line;
  if (const auto it = std::find_if(alt->options.begin(), alt->options.end(), owned);
      it != alt->options.end()) {
    line = fmt::format("{} at {} (--system {})", label(*it), usd(it->total_cost_usd), kDesktop);
  } else if (const auto stale = std::find_if(alt->rejected.begin(), alt->rejected.end(),
                                             [](const Option& o) {
                                               return o.binding.size() == 1 &&
                                                      o.binding[0] == "price_age";
                                             });
             stale != alt->rejected.end()) {
    line =
        fmt::format("{} at {} on a price more than a year old (--system {} --allow-stale-prices)",
                    label(*stale), usd(stale->total_cost_usd), kDesktop);
  } else {
    line = fmt::format("no GPU that meets every other constraint either (--system {})", kDesktop);
  }
  // Beside the relaxations when nothing is feasible, else with the notes of the answer.
  (rec.options.empty() ? rec.relaxations : rec.assumptions)
      .push_back(fmt::format(
          "every owned option here includes a new base system; the budget buys, as a GPU added "
          "to the PC you have: {}",
          line));
}

// recommend() over `runs`: how the demand runs on each GPU x count, made once for a search and
// the searches it runs for its notes (they depend on the demand, not on the constraints). The
// sentences are written for the options an answer of the first `top` shows.
Result<Recommendation> search(const Demand& demand, const Constraints& constraints,
                              const Catalog& catalog, const Calibration& calibration,
                              DemandRuns& runs, Scope scope, size_t top) {
  auto request = check_request(demand, constraints, catalog, calibration);
  if (!request) return request.status();
  Request& r = *request;
  if (Status s = resolve_work(r, runs); !s.ok()) return s;
  Recommendation rec;  // its demand and constraints are recommend()'s to copy
  rec.site = r.office;
  // A service's throughput is the output tokens it generates at the rate asked.
  rec.unit = demand.serving ? "output tokens/s" : demand.tasks[0].workload.throughput_unit + "/s";
  if (Status s = consider_all(r, runs, scope == Scope::kAll, rec); !s.ok()) return s;
  rank(rec);
  note_price_ages(r, rec);
  relax(r, rec);
  note_existing_desktop(demand, constraints, catalog, calibration, runs, rec);
  if (!r.have.empty()) {
    Option keep;
    auto have = evaluate_have(r, runs, keep);
    if (!have) return have.status();
    rank_upgrades(std::move(have).value(), std::move(keep), rec);
  }
  describe(r, top, rec.have.has_value(), rec);
  note_prices(r, top, rec);
  return rec;
}

}  // namespace

Result<Recommendation> recommend(const Demand& demand, const Constraints& constraints,
                                 const Catalog& catalog, const Calibration& calibration,
                                 size_t top) {
  DemandRuns runs(demand, catalog, calibration);
  auto rec = search(demand, constraints, catalog, calibration, runs, Scope::kAll, top);
  if (rec) {
    rec->demand = demand;
    rec->constraints = constraints;
  }
  return rec;
}

}  // namespace rigplan
