// Sanity rules over the catalog's prices (prices.h). Each names the entry's file and line.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "rigplan/prices.h"
#include "util/strings.h"

namespace rigplan {
namespace {

// A price that is the launch MSRP this long after launch is history, not a price one can pay.
constexpr long kLaunchPriceCurrentDays = 365;
// Tukey's "far out" fences: 3 interquartile ranges beyond the quartiles (Tukey 1977,
// Exploratory Data Analysis, ch. 2), taken on log prices because prices vary by ratios.
constexpr double kFarOutIqr = 3.0;
// Whatever the spread, a price within 2x of the median is never "far out".
constexpr double kMinFactorFromMedian = 2.0;
// Fewer offers than this say too little about a GPU's usual price.
constexpr int kMinOffersForRange = 5;

std::string usd(double value) { return fmt::format("{} USD", format_number(value)); }

double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(at));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - static_cast<double>(lo));
}

void check_gpu(const Gpu& g, const Date& today, std::vector<PriceWarning>& out) {
  auto warn = [&](std::string_view rule, std::string message) {
    out.push_back(
        {g.provenance.file, g.provenance.line, "gpu", g.id, std::string(rule), std::move(message)});
  };
  const auto fresh = new_price(g);
  if (fresh && g.used_price_usd && fresh->usd < *g.used_price_usd) {
    warn("new-below-used",
         fmt::format("new price {} ({} price of {}) is below its used price {} of {}",
                     usd(fresh->usd), fresh->kind,
                     fresh->date ? fresh->date->to_string() : "no date", usd(*g.used_price_usd),
                     g.used_price_date ? g.used_price_date->to_string() : "no date"));
  }
  if (g.launch_price_usd && fresh) {
    const Date& asked = fresh->kind == "launch" ? today : *fresh->date;
    const long after = asked.days_since_epoch() - g.release_date.days_since_epoch();
    if (fresh->usd == *g.launch_price_usd && after >= kLaunchPriceCurrentDays) {
      warn("launch-price-as-new",
           fresh->kind == "launch"
               ? fmt::format("its new price is the launch price {} of {}, {} years ago: the "
                             "catalog has no current street price",
                             usd(*g.launch_price_usd), g.release_date.to_string(),
                             format_number(std::round(static_cast<double>(after) / 36.525) / 10))
               : fmt::format("street price {} of {} is the launch price, {} years after launch",
                             usd(fresh->usd), fresh->date->to_string(),
                             format_number(std::round(static_cast<double>(after) / 36.525) / 10)));
    }
  }
  const std::pair<const std::optional<Date>*, std::string_view> dates[] = {
      {&g.street_price_date, "street"}, {&g.used_price_date, "used"}};
  for (const auto& [date, what] : dates) {
    if (*date && **date > today) {
      warn("dated-after-today", fmt::format("{} price dated {}, after today ({})", what,
                                            (*date)->to_string(), today.to_string()));
    }
  }
}

void check_offer(const Offer& o, const std::map<std::string, std::optional<GpuHourRange>>& ranges,
                 const Date& today, std::vector<PriceWarning>& out) {
  auto warn = [&](std::string_view rule, std::string message) {
    out.push_back({o.provenance.file, o.provenance.line, "offer", o.id, std::string(rule),
                   std::move(message)});
  };
  if (o.spot_price_per_hour_usd && *o.spot_price_per_hour_usd > o.price_per_hour_usd) {
    warn("spot-above-on-demand",
         fmt::format("spot price {}/h is above its on-demand price {}/h (columns swapped?)",
                     usd(*o.spot_price_per_hour_usd), usd(o.price_per_hour_usd)));
  }
  auto range = ranges.find(o.gpu);
  if (range != ranges.end() && range->second) {
    const GpuHourRange& r = *range->second;
    const double per_gpu = o.price_per_gpu_hour_usd();
    if (per_gpu < r.low || per_gpu > r.high) {
      warn("gpu-hour-out-of-range",
           fmt::format("{:.2f} USD/GPU-hour is far {} the {} offers of {} (median {:.2f}, usual "
                       "range {:.2f}-{:.2f})",
                       per_gpu, per_gpu < r.low ? "below" : "above", r.offers, o.gpu, r.median,
                       r.low, r.high));
    }
  }
  if (o.price_date > today) {
    warn("dated-after-today", fmt::format("price dated {}, after today ({})",
                                          o.price_date.to_string(), today.to_string()));
  }
}

}  // namespace

std::optional<GpuHourRange> gpu_hour_range(const Catalog& catalog, std::string_view gpu) {
  std::vector<double> logs;
  for (const auto& o : catalog.offers) {
    if (o.gpu == gpu) logs.push_back(std::log(o.price_per_gpu_hour_usd()));
  }
  if (static_cast<int>(logs.size()) < kMinOffersForRange) return std::nullopt;
  std::sort(logs.begin(), logs.end());
  const double q1 = quantile(logs, 0.25), q3 = quantile(logs, 0.75), median = quantile(logs, 0.5);
  const double spread = std::log(kMinFactorFromMedian);
  GpuHourRange r;
  r.offers = static_cast<int>(logs.size());
  r.median = std::exp(median);
  r.low = std::exp(std::min(q1 - kFarOutIqr * (q3 - q1), median - spread));
  r.high = std::exp(std::max(q3 + kFarOutIqr * (q3 - q1), median + spread));
  return r;
}

std::vector<PriceWarning> check_prices(const Catalog& catalog, const Date& today) {
  std::vector<PriceWarning> out;
  for (const auto& g : catalog.gpus) check_gpu(g, today, out);
  std::map<std::string, std::optional<GpuHourRange>> ranges;
  for (const auto& o : catalog.offers) {
    if (!ranges.count(o.gpu)) ranges[o.gpu] = gpu_hour_range(catalog, o.gpu);
  }
  for (const auto& o : catalog.offers) check_offer(o, ranges, today, out);
  std::stable_sort(out.begin(), out.end(), [](const PriceWarning& a, const PriceWarning& b) {
    const auto rank = [](const std::string& rule) {
      return std::find(std::begin(kPriceRules), std::end(kPriceRules), rule) -
             std::begin(kPriceRules);
    };
    const auto ra = rank(a.rule), rb = rank(b.rule);
    return std::tie(ra, a.file, a.line) < std::tie(rb, b.file, b.line);
  });
  return out;
}

}  // namespace rigplan
