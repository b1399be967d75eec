#include <fmt/format.h>

#include <cmath>

#include "rigplan/chart.h"
#include "rigplan/report.h"
#include "util/figures.h"
#include "util/strings.h"

namespace rigplan::report {
namespace {

double round2(double x) { return std::round(x * 100) / 100; }
double round1(double x) { return std::round(x * 10) / 10; }

Json break_even_json(const BreakEven& b) {
  if (!b.reached)
    return {{"reached", false}, {"why", b.why}, {"utilisation", round2(b.utilisation)}};
  return {{"reached", true},
          {"days", round1(b.days)},
          {"hours", round1(b.hours)},
          {"utilisation", round2(b.utilisation)}};
}

std::string break_even_text(const BreakEven& b) {
  if (!b.reached) return "never";
  if (b.days < 365 * 2) return fmt::format("{:.0f} days", b.days);
  return fmt::format("{:.1f} years", b.days / 365);
}

// One rented alternative: the offer, its price and speed, its cost for the same work and the
// break-even of owning against it.
Json rent_json(const RentAlternative& a) {
  Json j = {{"offer", a.offer},
            {"provider", a.provider},
            {"pricing", a.pricing},
            {"gpu", a.gpu},
            {"count", a.count},
            {"usd_per_hour", a.usd_per_hour},
            {"speed_ratio", round2(a.speed_ratio)},
            {"hours", round1(a.cost.hours)},
            {"total_cost_usd", round2(a.cost.total_usd)},
            {"energy_kwh", round1(a.cost.energy_kwh)},
            {"co2_kg", round1(a.cost.co2_operational_kg + a.cost.co2_embodied_kg)},
            {"break_even", break_even_json(a.break_even)},
            {"price_as_of", a.price_date ? Json(a.price_date->to_string()) : Json(nullptr)}};
  if (!a.price_caveat.empty()) j["price_caveat"] = a.price_caveat;
  return j;
}

// The owned machine: its parts and their prices, the site's electricity and carbon, and its
// cost over the horizon.
Json owned_json(const CostComparison& c) {
  const OwnedSystem& o = c.owned;
  return {
      {"gpu", o.gpu->id},
      {"count", o.count},
      {"condition", o.condition},
      {"system", o.system->id},
      {"capex_usd", round2(o.capex_usd)},
      {"gpu_price_usd", o.gpu_price.usd},
      {"gpu_price_kind", std::string(o.gpu_price.kind)},
      {"gpu_price_as_of", o.gpu_price.date ? Json(o.gpu_price.date->to_string()) : Json(nullptr)},
      {"system_price_usd", o.system->price_usd},
      {"system_price_as_of", o.system->price_date.to_string()},
      {"cooling_usd", o.cooling_usd},
      {"utilisation", c.utilisation},
      {"horizon_years", round2(c.horizon_years)},
      {"busy_hours", round1(c.own.busy_hours)},
      {"wall_w", round1(c.power.wall_w)},
      {"max_wall_w", round1(o.max_wall_w)},
      {"usd_per_kwh", *c.site.usd_per_kwh},
      {"pue", c.site.pue},
      {"gco2_per_kwh", c.site.gco2_per_kwh},
      {"energy_kwh", round1(c.own.energy_kwh)},
      {"electricity_usd", round2(c.own.electricity_usd)},
      {"resale_usd", round2(c.own.resale_usd)},
      {"total_cost_usd", round2(c.own.total_usd)},
      {"cost_per_busy_hour_usd",
       round2(c.own.busy_hours > 0 ? c.own.total_usd / c.own.busy_hours : 0)},
      {"co2_operational_kg", round1(c.own.co2_operational_kg)},
      {"co2_embodied_kg", round1(c.own.co2_embodied_kg)},
  };
}

// The cost of owning, item by item: the parts (or --price), electricity, resale and the total.
Table owning_table(const CostComparison& c) {
  const OwnedSystem& o = c.owned;
  Table own({{"item"}, {"USD", Table::Align::kRight}, {"how"}});
  if (o.gpu_price.usd > 0) {
    own.add_row({"GPUs", format_number(std::round(o.count * o.gpu_price.usd)),
                 fmt::format("{} x {} ({} price{})", o.count, format_number(o.gpu_price.usd),
                             o.gpu_price.kind,
                             o.gpu_price.date ? ", " + o.gpu_price.date->to_string() : "")});
    own.add_row({"base system", format_number(o.system->price_usd),
                 fmt::format("{} ({})", o.system->id, o.system->price_date.to_string())});
    if (o.cooling_usd > 0) {
      own.add_row(
          {"risers / water", format_number(o.cooling_usd), "cards wider than the system's slots"});
    }
  } else {
    own.add_row({"machine", format_number(o.capex_usd), "--price"});
  }
  own.add_row(
      {"electricity", fmt::format("{:.0f}", c.own.electricity_usd),
       fmt::format("{:.0f} W x {:.0f} h x PUE {} = {:.0f} kWh at {} USD/kWh ({})", c.power.wall_w,
                   c.own.busy_hours, format_number(c.site.pue), c.own.energy_kwh,
                   format_number(*c.site.usd_per_kwh), c.site.price_from)});
  own.add_row({"resale", c.own.resale_usd > 0 ? fmt::format("-{:.0f}", c.own.resale_usd) : "0",
               c.inputs.resale ? fmt::format("GPUs keep {:.0f}% of their value a year",
                                             c.inputs.retention_per_year * 100)
                               : "--no-resale"});
  own.add_row({"total", fmt::format("{:.0f}", c.own.total_usd),
               fmt::format("{:.2f} USD per busy hour", c.own.total_usd / c.own.busy_hours)});
  return own;
}

// Renting the same work: each offer's price, speed, hours, total and break-even, and what the
// columns mean.
std::string renting_text(const CostComparison& c) {
  std::string out = "\nRenting the same work instead:\n\n";
  Table rent({{"offer"},
              {"pricing"},
              {"USD/h", Table::Align::kRight},
              {"speed", Table::Align::kRight},
              {"hours", Table::Align::kRight},
              {"total USD", Table::Align::kRight},
              {"break-even", Table::Align::kRight},
              {"break-even util.", Table::Align::kRight},
              {"priced"}});
  for (const auto& a : c.alternatives) {
    rent.add_row({a.offer, a.pricing, format_number(a.usd_per_hour),
                  fmt::format("{:.2f}", 1 / a.speed_ratio), fmt::format("{:.0f}", a.cost.hours),
                  fmt::format("{:.0f}", a.cost.total_usd), break_even_text(a.break_even),
                  fmt::format("{:.0f}%", a.break_even.utilisation * 100),
                  (a.price_date ? a.price_date->to_string() : "--rent") +
                      (a.price_caveat.empty() ? "" : " !")});
  }
  out += rent.render();
  out +=
      "\nbreak-even: calendar time at this utilisation after which owning is cheaper; break-even "
      "util.: "
      "the utilisation at which the two cost the same over the horizon. speed: the offer's "
      "throughput "
      "relative to the owned machine. priced: the date of the offer's price (! it has a caveat: "
      "`rigplan offers show ID`).\n";
  return out;
}

}  // namespace

Json to_json(const CostComparison& c) {
  Json out = owned_json(c);
  if (c.throughput > 0) {
    out["throughput"] = std::stod(fmt::format("{:.5g}", c.throughput));
    out["unit"] = c.unit;
  }
  Json rent = Json::array();
  for (const auto& a : c.alternatives) rent.push_back(rent_json(a));
  out["rent"] = rent;
  // The headline: the cheapest alternative's break-even, null when there is none or it never comes.
  out["break_even_days"] = nullptr;
  out["break_even_utilisation"] = nullptr;
  if (!c.alternatives.empty()) {
    const BreakEven& b = c.alternatives.front().break_even;
    if (b.reached) out["break_even_days"] = round1(b.days);
    out["break_even_utilisation"] = round2(b.utilisation);
  }
  out["assumptions"] = c.assumptions;
  return out;
}

std::string cost_text(const CostComparison& c, bool explain) {
  const OwnedSystem& o = c.owned;
  std::string out = fmt::format(
      "Own {} x {} ({}) in {} for {:.0f} months, busy {:.3g}% of the time ({:.0f} h):\n\n", o.count,
      o.gpu->id, o.condition.empty() ? "new" : o.condition, o.system->id, c.horizon_years * 12,
      c.utilisation * 100, c.own.busy_hours);
  out += owning_table(c).render();
  out += fmt::format("\nCO2: {:.0f} kg operational ({} g/kWh, {}) + {:.0f} kg embodied\n",
                     c.own.co2_operational_kg, format_number(c.site.gco2_per_kwh),
                     c.site.carbon_from, c.own.co2_embodied_kg);
  if (c.throughput > 0)
    out += fmt::format("Throughput while busy: {} {}\n", significant(c.throughput), c.unit);
  if (!c.alternatives.empty()) out += renting_text(c);
  for (const auto& a : c.assumptions) out += "note: " + a + "\n";
  if (explain) {
    out +=
        "\nOwning = purchase + electricity (wall W x busy hours x PUE x price) - resale (GPU value "
        "x "
        "retention^years).\nRenting = instance price x busy hours x speed ratio. Break-even: the "
        "first day "
        "where owning costs no more than renting (docs/cost.md).\n";
  }
  return out;
}

std::string cost_html(const CostComparison& c, const std::string& date) {
  const double months = c.horizon_years * 12;
  const double busy_per_month = c.own.busy_hours / months;
  chart::LineChart line{
      fmt::format("Owning {} x {} against renting", c.owned.count, c.owned.gpu->id),
      "months",
      "cumulative cost (USD)",
      chart::dated("rigplan cost: owning = purchase + electricity - resale if sold that month; "
                   "renting = price x busy hours x speed ratio (docs/cost.md)",
                   date),
      {},
      -1,
      ""};
  chart::LineChart::Series own{"own (net of resale)", {}};
  for (int m = 0; m <= static_cast<int>(std::ceil(months)); ++m) {
    const double t = std::min<double>(m, months);
    own.points.emplace_back(t, own_cost(c.inputs, t / 12, busy_per_month * t).total_usd);
  }
  line.series.push_back(std::move(own));
  for (size_t i = 0; i < c.alternatives.size() && i < 3; ++i) {
    const RentAlternative& a = c.alternatives[i];
    chart::LineChart::Series rent{
        fmt::format("rent {} ({}, {} USD/h)", a.offer, a.pricing, format_number(a.usd_per_hour)),
        {}};
    rent.points.emplace_back(0, 0);
    rent.points.emplace_back(months, a.usd_per_hour * a.speed_ratio * busy_per_month * months);
    line.series.push_back(std::move(rent));
  }
  if (!c.alternatives.empty() && c.alternatives.front().break_even.reached) {
    line.marker_x = c.alternatives.front().break_even.days / 365 * 12;
    line.marker_label =
        fmt::format("break-even: {:.0f} days", c.alternatives.front().break_even.days);
  }
  chart::Section section{"Buy or rent", {}, {}, {chart::svg(line)}};
  const std::string text = cost_text(c, false);
  for (size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) section.paragraphs.push_back(text.substr(start, end - start));
  }
  return chart::html_page(
      "rigplan cost", {section},
      chart::dated("Generated by rigplan. Prices and factors trace to data/catalog and "
                   "src/cost/cost_constants.h",
                   date));
}

}  // namespace rigplan::report
