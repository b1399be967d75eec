// The dates of the prices recommend() costs options on: each option's date and what to say about
// its price, and a summary of the options left out for a price more than a year old
// (docs/prices.md, "Dates").
#include <fmt/format.h>

#include <algorithm>

#include "recommend/steps.h"
#include "util/strings.h"

namespace rigplan::recommend_steps {
namespace {

constexpr double kDaysPerMonth = 365.25 / 12;

// The oldest of the dates given; none when one of them is missing.
std::optional<Date> oldest(std::initializer_list<std::optional<Date>> dates) {
  std::optional<Date> out;
  for (const auto& d : dates) {
    if (!d) return std::nullopt;
    if (!out || *d < *out) out = d;
  }
  return out;
}

// "price of 2025-06-01, 18 months old" past --max-price-age, else "".
const std::string& price_age_note(const Request& r, const Date& date) {
  for (const auto& [d, note] : r.price_age_notes) {
    if (d == date) return note;
  }
  const Constraints& k = *r.constraints;
  const long age = age_in_days(date, *k.today);
  std::string note;
  if (static_cast<double>(age) > k.max_price_age_months * kDaysPerMonth)
    note = fmt::format("price of {}, {}", date.to_string(), age_text(age));
  return r.price_age_notes.emplace_back(date, std::move(note)).second;
}

}  // namespace

std::string age_text(long days) {
  if (days < 62) return fmt::format("{} days old", days);
  return fmt::format("{:.0f} months old", static_cast<double>(days) / kDaysPerMonth);
}

void date_price(const Candidate& c, Option& o) {
  if (c.offer) {
    o.price_as_of = c.offer->price_date;
  } else {
    o.price_as_of = oldest({c.owned->gpu_price.date, c.owned->system->price_date});
  }
}

namespace {

// The new price of an owned option's GPU when it is a launch price (own_system prices a new card
// at new_price).
std::optional<PriceQuote> launch_price(const Request& r, const Option& o) {
  if (o.kind != "own" || o.condition != "new") return std::nullopt;
  auto quote = new_price(*r.catalog->gpu(o.gpu));
  if (!quote || quote->kind != "launch") return std::nullopt;
  return quote;
}

// The caveat of a rented option's offer; "" when none.
std::string_view price_caveat(const Request& r, const Option& o) {
  if (o.kind != "rent") return {};
  auto named = r.catalog->find_offer(o.offer);
  const Offer* offer = named && (*named)->id == o.offer ? *named : nullptr;
  if (!offer) {
    const auto& offers = r.catalog->offers;
    const auto it =
        std::find_if(offers.begin(), offers.end(), [&](const Offer& f) { return f.id == o.offer; });
    if (it == offers.end()) return {};
    offer = &*it;
  }
  return offer->price_caveat;
}

// The notes on an option's price in order, joined by "; ": its date or age, the launch price,
// the caveat.
std::string price_note(const Request& r, const Option& o) {
  std::string note;
  const auto then = [&note]() -> std::string& { return note.empty() ? note : note += "; "; };
  if (!o.price_as_of) {
    note = "price undated";
  } else if (r.constraints->today) {
    note = price_age_note(r, *o.price_as_of);
  }
  if (const auto launch = launch_price(r, o)) {
    then() += "the GPU at its launch price (";
    note += launch->date ? launch->date->to_string() : "undated";
    note += "), the only new price the catalog has";
  }
  if (const std::string_view caveat = price_caveat(r, o); !caveat.empty()) then() += caveat;
  return note;
}

}  // namespace

void note_prices(const Request& r, size_t top, Recommendation& rec) {
  for (size_t i = 0; i < rec.options.size(); ++i) {
    Option& o = rec.options[i];
    if ((i < top || o.pareto) && o.kind != "keep") o.price_note = price_note(r, o);
  }
  for (size_t i = 0; i < rec.rejected.size() && i < top; ++i) {
    Option& o = rec.rejected[i];
    if (o.kind != "keep") o.price_note = price_note(r, o);
  }
}

bool price_age_broken(const Candidate&, const Request& r, const Option& o) {
  const Constraints& k = *r.constraints;
  if (!k.today || k.allow_stale_prices) return false;
  if (!o.price_as_of) return true;
  const Date& date = *o.price_as_of;
  if (!r.last_aged || r.last_aged->first != date)
    r.last_aged.emplace(date, age_in_days(date, *k.today) > PriceAge::kStaleDays);
  return r.last_aged->second;
}

std::string price_age_why(const Request& r, const Option& o) {
  if (!o.price_as_of) return "its price has no date (--allow-stale-prices ranks it)";
  return fmt::format("priced {}, {}: more than a year (--allow-stale-prices ranks it)",
                     o.price_as_of->to_string(),
                     age_text(age_in_days(*o.price_as_of, *r.constraints->today)));
}

void note_price_ages(const Request& r, Recommendation& rec) {
  const Constraints& k = *r.constraints;
  if (!k.today) {
    rec.assumptions.push_back(
        "Prices were not aged: the request gave no date to age them against.");
    return;
  }
  if (k.allow_stale_prices) {
    const auto stale = std::count_if(rec.options.begin(), rec.options.end(), [&](const Option& o) {
      return !o.price_as_of || age_in_days(*o.price_as_of, *k.today) > PriceAge::kStaleDays;
    });
    if (stale > 0) {
      rec.assumptions.push_back(
          fmt::format("{} ranked options are costed on prices more than a year old or undated "
                      "(--allow-stale-prices): today's prices may differ a lot.",
                      stale));
    }
    return;
  }
  // Options that only their price's age keeps out, cheapest first (rank() sorted them).
  std::vector<const Option*> only_stale;
  for (const auto& o : rec.rejected) {
    if (o.binding.size() == 1 && o.binding[0] == "price_age") only_stale.push_back(&o);
  }
  if (only_stale.empty()) return;
  auto [first, last] = std::minmax_element(
      only_stale.begin(), only_stale.end(),
      [](const Option* a, const Option* b) { return a->price_as_of < b->price_as_of; });
  const Option& cheapest = *only_stale.front();
  rec.assumptions.push_back(fmt::format(
      "{} options that meet every constraint are not ranked: their prices are more than a year "
      "old or undated ({} to {}). --allow-stale-prices ranks them; the cheapest, {}, would cost "
      "{} on a price of {}{}.",
      only_stale.size(), (*first)->price_as_of ? (*first)->price_as_of->to_string() : "undated",
      (*last)->price_as_of ? (*last)->price_as_of->to_string() : "undated", label(cheapest),
      usd(cheapest.total_cost_usd),
      cheapest.price_as_of ? cheapest.price_as_of->to_string() : "no date",
      !rec.options.empty() && cheapest.total_cost_usd < rec.options.front().total_cost_usd
          ? fmt::format(", less than the first ranked ({})",
                        usd(rec.options.front().total_cost_usd))
          : ""));
}

}  // namespace rigplan::recommend_steps
