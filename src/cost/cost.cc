#include "rigplan/cost.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cost/cost_constants.h"
#include "util/strings.h"

namespace rigplan {

using namespace cost_constants;

namespace {

bool contains(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

double sustained_dc_w(const Gpu& gpu, int count, const BaseSystem& system) {
  return count * gpu.board_power_w + system.base_power_w;
}

}  // namespace

const BaseSystem* base_system_for(const Catalog& catalog, const Gpu& gpu, int count,
                                  std::string* why, const BaseSystem* only) {
  const BaseSystem* best = nullptr;
  std::vector<std::string> reasons;
  const std::string cooler = gpu.cooler.empty() ? "open-air" : gpu.cooler;
  std::vector<const BaseSystem*> candidates;
  if (only) candidates.push_back(only);  // it may come from a build file rather than the catalog
  for (const auto& s : catalog.systems) {
    if (!only && !s.existing) candidates.push_back(&s);
  }
  for (const BaseSystem* candidate : candidates) {
    const BaseSystem& s = *candidate;
    if (!contains(s.gpu_form_factors, gpu.form_factor) || !contains(s.gpu_coolers, cooler) ||
        count < s.min_gpus || count > s.max_gpus) {
      continue;
    }
    const double dc = sustained_dc_w(gpu, count, s);
    if (dc > s.psu_w * kPsuSustainedFraction) {
      reasons.push_back(fmt::format(
          "{}: {} x {} W + {} W = {} W is over {}% of its {} W of PSUs", s.id, count,
          format_number(gpu.board_power_w), format_number(s.base_power_w), format_number(dc),
          format_number(kPsuSustainedFraction * 100), format_number(s.psu_w)));
      continue;
    }
    if (!best || s.price_usd < best->price_usd) best = candidate;
  }
  if (!best && why) {
    const std::string gpus = fmt::format("{} {} GPU{} with a {} cooler", count, gpu.form_factor,
                                         count == 1 ? "" : "s", cooler);
    *why = !reasons.empty() ? join(reasons, "; ")
           : only           ? fmt::format("{} does not take {}", only->id, gpus)
                            : fmt::format("no base system in the catalog takes {}", gpus);
  }
  return best;
}

Result<OwnedSystem> machine_for(const Catalog& catalog, const Gpu& gpu, int count,
                                const BaseSystem* only) {
  OwnedSystem out;
  out.gpu = &gpu;
  out.count = count;
  std::string why;
  out.system = base_system_for(catalog, gpu, count, &why, only);
  if (!out.system) return Status::not_found(why);
  const double width = gpu.slot_width.value_or(2);
  if (count > 1 && width > out.system->max_slot_width)
    out.cooling_usd = count * kWideCardCoolingUsd;
  out.capex_usd = out.system->price_usd + out.cooling_usd;
  out.max_dc_w = sustained_dc_w(gpu, count, *out.system);
  out.max_wall_w = out.max_dc_w / out.system->psu_efficiency;
  out.embodied_kgco2e = count * kEmbodiedKgPerGpu + out.system->embodied_kgco2e;
  return out;
}

Result<OwnedSystem> own_system(const Catalog& catalog, const Gpu& gpu, int count,
                               std::string_view condition, const BaseSystem* only) {
  PriceQuote price;
  if (condition == "new") {
    auto quote = new_price(gpu);
    if (!quote) return Status::not_found(fmt::format("{} has no new price in the catalog", gpu.id));
    price = *quote;
  } else if (condition == "used") {
    if (!gpu.used_price_usd) {
      return Status::not_found(fmt::format("{} has no used price in the catalog", gpu.id));
    }
    price = {*gpu.used_price_usd, gpu.used_price_date, "used"};
  } else {
    return Status::invalid_input(
        fmt::format("condition '{}' is not accepted; expected 'new' or 'used'", condition));
  }
  auto out = machine_for(catalog, gpu, count, only);
  if (!out) return out;
  out->condition = std::string(condition);
  out->gpu_price = price;
  out->capex_usd += count * price.usd;
  return out;
}

double gpu_power_utilisation(std::string_view workload_class, std::string_view mode) {
  if (mode == "decode") return kPowerUtilisationDecode;
  if (mode == "infer" || mode == "prefill") return kPowerUtilisationPrefill;
  return workload_class == "transformer" ? kPowerUtilisationTransformerTrain
                                         : kPowerUtilisationOtherTrain;
}

double power_limit_speed(double fraction) {
  return std::pow(std::clamp(fraction, 0.0, 1.0), kPowerLimitSpeedExponent);
}

PowerDraw system_power(const Gpu& gpu, int count, const BaseSystem& system, double utilisation,
                       double power_limit) {
  PowerDraw p;
  p.gpu_w = gpu.board_power_w * std::min(utilisation, power_limit);
  p.dc_w = count * p.gpu_w + system.base_power_w;
  p.wall_w = p.dc_w / system.psu_efficiency;
  return p;
}

Result<SiteEnergy> site_energy(const Catalog& catalog, std::string_view region, bool datacenter) {
  auto found = catalog.find_region(region);
  if (!found) return found.status();
  SiteEnergy site;
  site.pue = datacenter ? kDatacenterPue : kOfficePue;
  site.pue_from = datacenter ? kDefaultDcPue : "office (no cooling plant)";
  bool has_carbon = false, has_pue = false;
  for (const Region* r = *found; r; r = r->parent.empty() ? nullptr : catalog.region(r->parent)) {
    if (!site.usd_per_kwh && r->electricity_usd_per_kwh) {
      site.usd_per_kwh = r->electricity_usd_per_kwh;
      site.price_from = r->id;
    }
    if (!has_carbon && r->carbon_gco2_per_kwh) {
      site.gco2_per_kwh = *r->carbon_gco2_per_kwh;
      site.carbon_from = r->id;
      has_carbon = true;
    }
    if (!has_pue && r->pue) {
      site.pue = *r->pue;
      site.pue_from = r->id;
      has_pue = true;
    }
  }
  if (!has_carbon) {
    return Status::not_found(
        fmt::format("region '{}' has no carbon intensity, nor do its parents", (*found)->id));
  }
  return site;
}

double resale_fraction(const Gpu& gpu, double years) {
  const double retention = gpu.segment == "consumer"      ? kValueRetentionConsumer
                           : gpu.segment == "workstation" ? kValueRetentionWorkstation
                                                          : kValueRetentionDatacenter;
  return std::pow(retention, years);
}

OwnCost own_cost(const OwnInputs& in, double horizon_years, double busy_hours) {
  OwnCost c;
  c.busy_hours = busy_hours;
  c.energy_kwh = in.wall_w / 1000 * busy_hours * in.pue;
  c.electricity_usd = c.energy_kwh * in.usd_per_kwh;
  c.resale_usd = in.resale ? in.gpu_value_usd * std::pow(in.retention_per_year, horizon_years) : 0;
  c.total_usd = in.capex_usd + c.electricity_usd - c.resale_usd;
  c.co2_operational_kg = c.energy_kwh * in.gco2_per_kwh / 1000;
  c.co2_embodied_kg = in.embodied_kgco2e * std::min(1.0, horizon_years / kServiceLifeYears);
  return c;
}

RentCost rent_cost(const RentInputs& in, double hours) {
  RentCost c;
  c.hours = hours;
  c.total_usd = in.usd_per_hour * hours;
  c.energy_kwh = in.wall_w / 1000 * hours * in.pue;
  c.co2_operational_kg = c.energy_kwh * in.gco2_per_kwh / 1000;
  c.co2_embodied_kg =
      in.embodied_kgco2e * hours / (kServiceLifeYears * kHoursPerYear * kCloudUtilisation);
  return c;
}

BreakEven break_even(const OwnInputs& own, double rent_usd_per_hour, double utilisation,
                     double horizon_years) {
  BreakEven out;
  const double running = own.wall_w / 1000 * own.pue * own.usd_per_kwh;  // USD per busy hour
  const double saving = rent_usd_per_hour - running;
  if (saving <= 0) {
    out.why = fmt::format(
        "an hour of electricity ({:.3f} USD) costs more than an hour of rent "
        "({:.3f} USD)",
        running, rent_usd_per_hour);
    return out;
  }
  // Owning minus renting after `days` at the utilisation: concave in days (the resale value
  // falls ever more slowly), so its first zero is found by a daily scan, then bisection.
  auto gap = [&](double days) {
    const double years = days / 365;
    return own_cost(own, years, 24 * utilisation * days).total_usd -
           rent_usd_per_hour * 24 * utilisation * days;
  };
  const OwnCost at_horizon = own_cost(own, horizon_years, 0);
  out.utilisation = (at_horizon.total_usd) / (horizon_years * kHoursPerYear * saving);
  constexpr double kMaxDays = 20 * 365;
  if (utilisation <= 0) {
    out.why = "the utilisation is zero";
    return out;
  }
  double lo = 0, hi = -1;
  for (double day = 1; day <= kMaxDays; day += 1) {
    if (gap(day) <= 0) {
      hi = day;
      lo = day - 1;
      break;
    }
  }
  if (hi < 0) {
    out.why = fmt::format("owning does not pay back within {} years at {}% utilisation",
                          kMaxDays / 365, format_number(utilisation * 100));
    return out;
  }
  for (int i = 0; i < 40; ++i) {
    const double mid = (lo + hi) / 2;
    (gap(mid) <= 0 ? hi : lo) = mid;
  }
  out.reached = true;
  out.days = hi;
  out.hours = 24 * utilisation * hi;
  return out;
}

}  // namespace rigplan

namespace rigplan {

using namespace cost_constants;

Result<GpuValue> gpu_value(const Workload& workload, const Gpu& gpu, const RunConfig& run,
                           double throughput, double reference_throughput, const Catalog& catalog,
                           const Calibration& calibration, bool shrink_batch) {
  GpuValue v;
  v.relative = throughput / reference_throughput;
  v.price = new_price(gpu);
  if (v.price) v.per_kusd_card = v.relative / v.price->usd * 1000;
  const double gpu_kw =
      gpu.board_power_w * gpu_power_utilisation(workload_class(workload), run.mode) / 1000;
  v.per_kw = v.relative / gpu_kw;
  for (int count : kValueCounts) {
    auto owned = own_system(catalog, gpu, count, "new");
    if (!owned) continue;
    RunConfig many = run;
    many.gpus = count;
    auto p = predict_largest_fitting(workload, gpu, many, calibration, catalog, shrink_batch);
    if (!p) return p.status();
    if (!p->fits) continue;
    const double relative = p->throughput / reference_throughput;
    v.systems.push_back(
        {count, owned->system->id, owned->capex_usd, relative, relative / owned->capex_usd * 1000});
  }
  return v;
}

Result<CostComparison> compare_costs(const CostRequest& r, const Catalog& catalog,
                                     const Calibration& calibration) {
  if (r.utilisation <= 0 || r.utilisation > 1) {
    return Status::invalid_input(fmt::format(
        "--utilisation {} is out of range; expected > 0 and <= 1", format_number(r.utilisation)));
  }
  if (r.horizon_months <= 0 || r.horizon_months > 240) {
    return Status::invalid_input(
        fmt::format("--horizon-months {} is out of range; expected > 0 and <= 240",
                    format_number(r.horizon_months)));
  }
  if (r.count < 1 || r.count > 8) {
    return Status::invalid_input(
        fmt::format("--gpus {} is out of range; expected 1 to 8 in one machine", r.count));
  }
  auto gpu = catalog.find_gpu(r.gpu);
  if (!gpu) return gpu.status();
  CostComparison out;
  out.utilisation = r.utilisation;
  out.horizon_years = r.horizon_months / 12;
  const BaseSystem* only = r.machine;
  if (!only && !r.system.empty()) {
    auto found = catalog.find_system(r.system);
    if (!found) return found.status();
    only = *found;
  }
  // With --price the catalog's prices are not needed, only the machine's power and carbon.
  auto owned = r.capex_usd ? machine_for(catalog, **gpu, r.count, only)
                           : own_system(catalog, **gpu, r.count, r.condition, only);
  if (!owned) {
    if (owned.status().code() != Status::Code::kNotFound) return owned.status();
    return Status::invalid_input(
        fmt::format("{}; {}", owned.status().message(),
                    r.capex_usd ? "add a base system to the catalog (docs/catalog.md)"
                                : "pass --price USD for the whole machine"));
  }
  out.owned = *owned;
  if (r.capex_usd) {
    out.owned.condition = r.condition;
    out.owned.capex_usd = *r.capex_usd;
    out.assumptions.push_back(
        fmt::format("The machine costs {} USD (--price), GPUs and system together{}.",
                    format_number(*r.capex_usd),
                    r.resale ? fmt::format("; the GPUs, {}% of it, resell",
                                           format_number(kPriceOverrideGpuShare * 100))
                             : ""));
  }

  // Power while busy: the workload's utilisation of board power, or full board power.
  double u = 1.0;
  double own_throughput = 0;
  std::string klass;
  if (r.workload) {
    klass = workload_class(*r.workload);
    u = gpu_power_utilisation(klass, r.run.mode);
    RunConfig run = r.run;
    run.gpus = r.count;
    auto p = predict(*r.workload, **gpu, run, calibration, catalog);
    if (!p) return p.status();
    own_throughput = p->throughput * power_limit_speed(r.power_limit);
    out.throughput = own_throughput;
    out.unit = p->unit;
  } else {
    out.assumptions.push_back(
        "No workload: the GPUs draw their full board power while busy, and a "
        "rented GPU-hour does the work of an owned one.");
  }
  out.power = system_power(**gpu, r.count, *out.owned.system, u, r.power_limit);
  if (r.wall_w) {
    out.power.wall_w = *r.wall_w;
    out.assumptions.push_back(fmt::format(
        "The machine draws {} W at the wall while busy (--power).", format_number(*r.wall_w)));
  }
  auto site = site_energy(catalog, r.region, out.owned.system->form == "rack");
  if (!site) return site.status();
  if (r.electricity_usd_per_kwh) {
    site->usd_per_kwh = r.electricity_usd_per_kwh;
    site->price_from = "--electricity";
  }
  if (r.pue) {
    site->pue = *r.pue;
    site->pue_from = "--pue";
  }
  if (!site->usd_per_kwh) {
    return Status::invalid_input(fmt::format(
        "region '{}' has no electricity price, nor do its parents; pass --electricity USD/kWh",
        r.region));
  }
  out.site = *site;

  OwnInputs& in = out.inputs;
  in.capex_usd = out.owned.capex_usd;
  in.gpu_value_usd =
      r.capex_usd ? *r.capex_usd * kPriceOverrideGpuShare : r.count * out.owned.gpu_price.usd;
  in.retention_per_year = resale_fraction(**gpu, 1);
  in.wall_w = out.power.wall_w;
  in.usd_per_kwh = *site->usd_per_kwh;
  in.pue = site->pue;
  in.gco2_per_kwh = site->gco2_per_kwh;
  in.embodied_kgco2e = out.owned.embodied_kgco2e;
  in.resale = r.resale;
  const double busy = r.utilisation * out.horizon_years * kHoursPerYear;
  out.own = own_cost(in, out.horizon_years, busy);

  // The alternatives: named offers, else every offer of the same GPU and count.
  // `region`: where the rented GPUs run, for their grid intensity; "" for the owner's region.
  auto add = [&](RentAlternative a, const Gpu& rented, const std::string& region) -> Status {
    if (r.workload) {
      RunConfig run = r.run;
      run.gpus = a.count;
      auto p = predict(*r.workload, rented, run, calibration, catalog);
      if (!p) return p.status();
      a.speed_ratio = own_throughput / p->throughput;
    }
    RentInputs rent;
    rent.usd_per_hour = a.usd_per_hour;
    rent.wall_w = out.power.wall_w * a.count / r.count;
    rent.pue = kHyperscalePue;
    rent.gco2_per_kwh = site->gco2_per_kwh;
    if (!region.empty()) {
      auto dc = site_energy(catalog, region, true);
      if (!dc) return dc.status();
      rent.gco2_per_kwh = dc->gco2_per_kwh;
      if (dc->pue_from != kDefaultDcPue) rent.pue = dc->pue;
    }
    rent.embodied_kgco2e = out.owned.embodied_kgco2e * a.count / r.count;
    a.cost = rent_cost(rent, busy * a.speed_ratio);
    a.break_even = break_even(in, a.usd_per_hour * a.speed_ratio, r.utilisation, out.horizon_years);
    out.alternatives.push_back(std::move(a));
    return {};
  };
  std::vector<const Offer*> offers;
  for (const auto& id : r.offers) {
    auto o = catalog.find_offer(id);
    if (!o) return o.status();
    offers.push_back(*o);
  }
  if (r.offers.empty() && !r.rent_usd_per_hour) {
    for (const auto& o : catalog.offers) {
      if (o.gpu == (*gpu)->id && o.gpu_count == r.count) offers.push_back(&o);
    }
  }
  for (const Offer* o : offers) {
    const Gpu& rented = *catalog.gpu(o->gpu);
    RentAlternative a{o->id,  o->provider,  o->billing == "serverless" ? "serverless" : "on-demand",
                      o->gpu, o->gpu_count, o->price_per_hour_usd};
    if (Status s = add(a, rented, o->region); !s.ok()) return s;
    if (o->spot_price_per_hour_usd) {
      a.pricing = "spot";
      a.usd_per_hour = *o->spot_price_per_hour_usd;
      if (Status s = add(a, rented, o->region); !s.ok()) return s;
    }
  }
  if (r.rent_usd_per_hour) {
    RentAlternative a{"--rent", "", "as given", (*gpu)->id, r.count, *r.rent_usd_per_hour};
    if (Status s = add(a, **gpu, ""); !s.ok()) return s;
  }
  if (out.alternatives.empty()) {
    out.assumptions.push_back(
        fmt::format("The catalog has no offer of {} x {}: name one with --offer "
                    "or give a price with --rent.",
                    r.count, (*gpu)->id));
  }
  std::stable_sort(out.alternatives.begin(), out.alternatives.end(),
                   [](const RentAlternative& a, const RentAlternative& b) {
                     return a.cost.total_usd < b.cost.total_usd;
                   });
  return out;
}

}  // namespace rigplan
