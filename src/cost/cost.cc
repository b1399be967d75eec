#include "rigplan/cost.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cost/cost_constants.h"
#include "cost/rent_host.h"
#include "rigplan/input.h"
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
  std::vector<std::string> reasons;  // written only when `why` is asked for
  const std::string_view cooler = gpu.cooler.empty() ? "open-air" : std::string_view(gpu.cooler);
  const auto consider = [&](const BaseSystem& s) {
    if (count < s.min_gpus || count > s.max_gpus ||
        !contains(s.gpu_form_factors, gpu.form_factor) || !contains(s.gpu_coolers, cooler)) {
      return;
    }
    const double dc = sustained_dc_w(gpu, count, s);
    if (dc > s.psu_w * kPsuSustainedFraction) {
      if (!why) return;
      reasons.push_back(fmt::format(
          "{}: {} x {} W + {} W = {} W is over {}% of its {} W of PSUs", s.id, count,
          format_number(gpu.board_power_w), format_number(s.base_power_w), format_number(dc),
          format_number(kPsuSustainedFraction * 100), format_number(s.psu_w)));
      return;
    }
    if (!best || s.price_usd < best->price_usd) best = &s;
  };
  if (only) {
    consider(*only);  // it may come from a build file rather than the catalog
  } else {
    for (const auto& s : catalog.systems) {
      if (!s.existing) consider(s);
    }
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
  // Why none does is written only when none does.
  if (const BaseSystem* system = base_system_for(catalog, gpu, count, nullptr, only))
    return machine_in(catalog, gpu, count, *system);
  std::string why;
  base_system_for(catalog, gpu, count, &why, only);
  return Status::not_found(why);
}

OwnedSystem machine_in(const Catalog& catalog, const Gpu& gpu, int count,
                       const BaseSystem& system) {
  OwnedSystem out;
  out.gpu = &gpu;
  out.count = count;
  out.system = &system;
  const double width = gpu.slot_width.value_or(2);
  const Part* cooling = catalog.part(kWideCardCoolingPart);
  if (count > 1 && width > system.max_slot_width && cooling)
    out.cooling_usd = count * cooling->price_usd;
  out.capex_usd = system.price_usd + out.cooling_usd;
  out.max_dc_w = sustained_dc_w(gpu, count, system);
  out.max_wall_w = out.max_dc_w / system.psu_efficiency;
  out.embodied_kgco2e = count * gpu.embodied_kgco2e.value_or(0) + system.embodied_kgco2e;
  return out;
}

namespace {

// The price of one GPU in a condition: "new" (street, else launch price) or "used".
Result<PriceQuote> gpu_price(const Gpu& gpu, std::string_view condition) {
  if (condition == "new") {
    auto quote = new_price(gpu);
    if (!quote) return Status::not_found(fmt::format("{} has no new price in the catalog", gpu.id));
    return *quote;
  }
  if (condition == "used") {
    if (!gpu.used_price_usd) {
      return Status::not_found(fmt::format("{} has no used price in the catalog", gpu.id));
    }
    return PriceQuote{*gpu.used_price_usd, gpu.used_price_date, "used"};
  }
  return Status::invalid_input(
      fmt::format("condition '{}' is not accepted; expected 'new' or 'used'", shown(condition)));
}

void price(OwnedSystem& out, std::string_view condition, const PriceQuote& price) {
  out.condition = std::string(condition);
  out.gpu_price = price;
  out.capex_usd += out.count * price.usd;
}

}  // namespace

Result<OwnedSystem> own_system(const Catalog& catalog, const Gpu& gpu, int count,
                               std::string_view condition, const BaseSystem* only) {
  auto quote = gpu_price(gpu, condition);
  if (!quote) return quote.status();
  auto out = machine_for(catalog, gpu, count, only);
  if (!out) return out;
  price(*out, condition, *quote);
  return out;
}

Result<OwnedSystem> own_system(const OwnedSystem& machine, std::string_view condition) {
  auto quote = gpu_price(*machine.gpu, condition);
  if (!quote) return quote.status();
  OwnedSystem out = machine;
  price(out, condition, *quote);
  return out;
}

double gpu_power_utilisation(std::string_view workload_class, std::string_view mode) {
  // Serving is mostly decode steps (a few prompt chunks among them): decode's draw.
  if (mode == "decode" || mode == "serve") return kPowerUtilisationDecode;
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

Result<SiteEnergy> owner_site(const Catalog& catalog, std::string_view region, bool rack,
                              std::optional<double> usd_per_kwh, std::optional<double> pue) {
  auto site = site_energy(catalog, region, rack);
  if (!site) return site.status();
  if (usd_per_kwh) {
    site->usd_per_kwh = usd_per_kwh;
    site->price_from = "--electricity";
  }
  if (pue) {
    site->pue = *pue;
    site->pue_from = "--pue";
  }
  if (!site->usd_per_kwh) {
    return Status::invalid_input(fmt::format(
        "region '{}' has no electricity price, nor do its parents; pass --electricity USD/kWh",
        region));
  }
  return site;
}

double value_retention(const Gpu& gpu) {
  return gpu.segment == "consumer"      ? kValueRetentionConsumer
         : gpu.segment == "workstation" ? kValueRetentionWorkstation
                                        : kValueRetentionDatacenter;
}

double resale_fraction(const Gpu& gpu, double years) {
  return std::pow(value_retention(gpu), years);
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

namespace {

// The host of rented GPUs, which the user does not buy: its power and embodied carbon, from the
// owned system that would hold them, or a share of the smallest one that holds more.
struct Host {
  double base_power_w = 0;
  double psu_efficiency = 1;
  double embodied_kgco2e = 0;
};

// A host the catalog has no system for is taken to have the most efficient PSUs of the catalog's
// 80 PLUS tiers (data/catalog/psus.toml: Titanium, 94% at half load), as datacentre servers are
// sold with (recall).
double best_psu_efficiency(const Catalog& catalog) {
  double best = 0;
  for (const auto& tier : catalog.psu_efficiencies) best = std::max(best, tier.half_load);
  return best > 0 ? best : 1;
}

Host host_for(const Catalog& catalog, int count, const RentHost& host_system) {
  const int in_machine = std::min(count, kGpusPerMachine);
  const double machines = std::max(1.0, static_cast<double>(count) / kGpusPerMachine);
  const BaseSystem* s = host_system.system;
  if (!s) return {0, best_psu_efficiency(catalog), 0};
  if (!host_system.shared)
    return {s->base_power_w * machines, s->psu_efficiency, s->embodied_kgco2e * machines};
  const double share = machines * in_machine / s->max_gpus;
  return {s->base_power_w * share, s->psu_efficiency, s->embodied_kgco2e * share};
}

}  // namespace

RentHost rent_host(const Catalog& catalog, const Gpu& gpu, int in_machine) {
  if (const BaseSystem* s = base_system_for(catalog, gpu, in_machine)) return {s, false};
  const BaseSystem* larger = nullptr;
  for (const auto& s : catalog.systems) {
    const bool form = contains(s.gpu_form_factors, gpu.form_factor);
    if (form && s.max_gpus >= in_machine && (!larger || s.max_gpus < larger->max_gpus)) larger = &s;
  }
  return {larger, true};
}

std::string_view rent_region(const Offer* offer, std::string_view region) {
  return offer && !offer->region.empty() ? std::string_view(offer->region) : region;
}

RentInputs rent_inputs(const Catalog& catalog, const Gpu& gpu, int count, double usd_per_hour,
                       double gpu_load, const Offer* offer, const SiteEnergy& dc) {
  return rent_inputs(catalog, gpu, count, usd_per_hour, gpu_load, offer, dc,
                     rent_host(catalog, gpu, std::min(count, kGpusPerMachine)));
}

RentInputs rent_inputs(const Catalog& catalog, const Gpu& gpu, int count, double usd_per_hour,
                       double gpu_load, const Offer* offer, const SiteEnergy& dc,
                       const RentHost& host_system) {
  const Host host = host_for(catalog, count, host_system);
  const bool hyperscale =
      offer && offer->provider_kind == "hyperscaler" && dc.pue_from == kDefaultDcPue;
  RentInputs in;
  in.usd_per_hour = usd_per_hour;
  in.wall_w = (count * gpu.board_power_w * gpu_load + host.base_power_w) / host.psu_efficiency;
  in.pue = hyperscale ? kHyperscalePue : dc.pue;
  in.gco2_per_kwh = dc.gco2_per_kwh;
  in.embodied_kgco2e = count * gpu.embodied_kgco2e.value_or(0) + host.embodied_kgco2e;
  return in;
}

Result<RentInputs> rent_inputs(const Catalog& catalog, const Gpu& gpu, int count,
                               double usd_per_hour, double gpu_load, const Offer* offer,
                               std::string_view region) {
  auto dc = site_energy(catalog, rent_region(offer, region), true);
  if (!dc) return dc.status();
  return rent_inputs(catalog, gpu, count, usd_per_hour, gpu_load, offer, *dc);
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
  v.relative = reference_throughput > 0 ? throughput / reference_throughput : 0;
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
    const double relative = reference_throughput > 0 ? p->throughput / reference_throughput : 0;
    v.systems.push_back(
        {count, owned->system->id, owned->capex_usd, relative, relative / owned->capex_usd * 1000});
  }
  return v;
}

GpuValue system_value(const Workload& workload, const Gpu& gpu, int count, const RunConfig& run,
                      double throughput, double reference_throughput, const Catalog& catalog) {
  GpuValue v;
  v.relative = reference_throughput > 0 ? throughput / reference_throughput : 0;
  v.price = new_price(gpu);
  if (v.price) v.per_kusd_card = v.relative / (v.price->usd * count) * 1000;
  const double gpus_kw =
      count * gpu.board_power_w * gpu_power_utilisation(workload_class(workload), run.mode) / 1000;
  v.per_kw = v.relative / gpus_kw;
  auto owned = own_system(catalog, gpu, count, "new");
  if (owned && throughput > 0) {
    v.systems.push_back({count, owned->system->id, owned->capex_usd, v.relative,
                         v.relative / owned->capex_usd * 1000});
  }
  return v;
}

namespace {

// Each number of the request within its range (rigplan/input.h).
Status check_cost_request(const CostRequest& r) {
  return input::check_all({{&input::kBusyHoursPerMonth, r.hours_per_month},
                           {&input::kUtilisation, r.utilisation},
                           {&input::kHorizonMonths, r.horizon_months},
                           {&input::kMachineGpus, r.count},
                           {&input::kPowerLimit, r.power_limit},
                           {&input::kMachinePrice, r.capex_usd},
                           {&input::kElectricity, r.electricity_usd_per_kwh},
                           {&input::kPue, r.pue},
                           {&input::kWallPower, r.wall_w},
                           {&input::kRent, r.rent_usd_per_hour}});
}

// The owned machine: from the catalog, or priced whole by --price.
Result<OwnedSystem> owned_machine(const CostRequest& r, const Gpu& gpu, const Catalog& catalog,
                                  std::vector<std::string>& assumptions) {
  const BaseSystem* only = r.machine;
  if (!only && !r.system.empty()) {
    auto found = catalog.find_system(r.system);
    if (!found) return found.status();
    only = *found;
  }
  // With --price the catalog's prices are not needed, only the machine's power and carbon.
  auto owned = r.capex_usd ? machine_for(catalog, gpu, r.count, only)
                           : own_system(catalog, gpu, r.count, r.condition, only);
  if (!owned) {
    if (owned.status().code() != Status::Code::kNotFound) return owned.status();
    return Status::invalid_input(
        fmt::format("{}; {}", owned.status().message(),
                    r.capex_usd ? "add a base system to the catalog (docs/catalog.md)"
                                : "pass --price USD for the whole machine"));
  }
  if (r.capex_usd) {
    owned->condition = r.condition;
    owned->capex_usd = *r.capex_usd;
    assumptions.push_back(
        fmt::format("The machine costs {} USD (--price), GPUs and system together{}.",
                    format_number(*r.capex_usd),
                    r.resale ? fmt::format("; the GPUs, {}% of it, resell",
                                           format_number(kPriceOverrideGpuShare * 100))
                             : ""));
  }
  return owned;
}

// The owned machine's throughput and average power while busy: the workload's share of board
// power, or full board power without a workload. Returns the share of board power.
Result<double> owned_power(const CostRequest& r, const Gpu& gpu, const Catalog& catalog,
                           const Calibration& calibration, CostComparison& out) {
  double load = 1.0;
  if (r.workload) {
    load = gpu_power_utilisation(workload_class(*r.workload), r.run.mode);
    RunConfig run = r.run;
    run.gpus = r.count;
    auto p =
        predict_largest_fitting(*r.workload, gpu, run, calibration, catalog, run.offload != "cpu");
    if (!p) return p.status();
    if (p->throughput <= 0) {
      return Status::invalid_input(
          fmt::format("{} on {} × {}: {}", r.workload->id, r.count, gpu.id, p->note));
    }
    const int asked = run.batch.value_or(r.workload->default_batch);
    if (!run.global_batch && p->config.batch && *p->config.batch < asked) {
      out.assumptions.push_back(
          fmt::format("Batch {} per GPU does not fit the {}; it runs {}, the largest that does.",
                      asked, gpu.id, *p->config.batch));
    }
    out.throughput = p->throughput * power_limit_speed(r.power_limit);
    out.unit = p->unit;
  } else {
    out.assumptions.push_back(
        "No workload: the GPUs draw their full board power while busy, and a "
        "rented GPU-hour does the work of an owned one.");
  }
  out.power = system_power(gpu, r.count, *out.owned.system, load, r.power_limit);
  if (r.wall_w) {
    out.power.wall_w = *r.wall_w;
    out.assumptions.push_back(fmt::format(
        "The machine draws {} W at the wall while busy (--power).", format_number(*r.wall_w)));
  }
  return load;
}

OwnInputs owned_inputs(const CostRequest& r, const Gpu& gpu, const CostComparison& out) {
  OwnInputs in;
  in.capex_usd = out.owned.capex_usd;
  in.gpu_value_usd =
      r.capex_usd ? *r.capex_usd * kPriceOverrideGpuShare : r.count * out.owned.gpu_price.usd;
  in.retention_per_year = value_retention(gpu);
  in.wall_w = out.power.wall_w;
  in.usd_per_kwh = *out.site.usd_per_kwh;
  in.pue = out.site.pue;
  in.gco2_per_kwh = out.site.gco2_per_kwh;
  in.embodied_kgco2e = out.owned.embodied_kgco2e;
  in.resale = r.resale;
  return in;
}

// The rented alternatives: the named offers, else every offer of the same GPU and count, and
// --rent; each for the owned machine's busy hours of work, from the model rent_inputs().
class Alternatives {
 public:
  Alternatives(const CostRequest& r, const Catalog& catalog, const Calibration& calibration,
               double load, CostComparison& out)
      : r_(r), catalog_(catalog), calibration_(calibration), load_(load), out_(out) {}

  Status add_offer(const Offer& o) {
    const Gpu& rented = *catalog_.gpu(o.gpu);
    RentAlternative a{o.id,  o.provider,  o.billing == "serverless" ? "serverless" : "on-demand",
                      o.gpu, o.gpu_count, o.price_per_hour_usd};
    a.price_date = o.price_date;
    a.price_caveat = o.price_caveat;
    if (Status s = add(a, rented, &o); !s.ok()) return s;
    if (!o.spot_price_per_hour_usd) return {};
    a.pricing = "spot";
    a.usd_per_hour = *o.spot_price_per_hour_usd;
    return add(a, rented, &o);
  }

  Status add(RentAlternative a, const Gpu& rented, const Offer* offer) {
    if (r_.workload) {
      RunConfig run = r_.run;
      run.gpus = a.count;
      auto p = predict_largest_fitting(*r_.workload, rented, run, calibration_, catalog_,
                                       run.offload != "cpu");
      if (!p) return p.status();
      if (p->throughput <= 0) {
        out_.assumptions.push_back(fmt::format("{} left out: {} does not fit its {} × {}.", a.offer,
                                               r_.workload->id, a.count, rented.id));
        return {};
      }
      a.speed_ratio = out_.throughput / p->throughput;
    }
    // An offer without a region runs at the world average; --rent in the owner's region.
    auto rent = rent_inputs(catalog_, rented, a.count, a.usd_per_hour, load_, offer,
                            offer ? "world" : r_.region);
    if (!rent) return rent.status();
    const double busy = out_.utilisation * out_.horizon_years * kHoursPerYear;
    a.cost = rent_cost(*rent, busy * a.speed_ratio);
    a.break_even =
        break_even(out_.inputs, a.usd_per_hour * a.speed_ratio, r_.utilisation, out_.horizon_years);
    out_.alternatives.push_back(std::move(a));
    return {};
  }

 private:
  const CostRequest& r_;
  const Catalog& catalog_;
  const Calibration& calibration_;
  double load_;
  CostComparison& out_;
};

Status add_alternatives(const CostRequest& r, const Gpu& gpu, const Catalog& catalog,
                        Alternatives& alternatives) {
  std::vector<const Offer*> offers;
  for (const auto& id : r.offers) {
    auto o = catalog.find_offer(id);
    if (!o) return o.status();
    offers.push_back(*o);
  }
  if (r.offers.empty() && !r.rent_usd_per_hour) {
    for (const auto& o : catalog.offers) {
      if (o.gpu == gpu.id && o.gpu_count == r.count) offers.push_back(&o);
    }
  }
  for (const Offer* o : offers) {
    if (Status s = alternatives.add_offer(*o); !s.ok()) return s;
  }
  if (!r.rent_usd_per_hour) return {};
  return alternatives.add({"--rent", "", "as given", gpu.id, r.count, *r.rent_usd_per_hour}, gpu,
                          nullptr);
}

}  // namespace

Result<CostComparison> compare_costs(const CostRequest& request, const Catalog& catalog,
                                     const Calibration& calibration) {
  CostRequest r = request;
  if (r.hours_per_month) r.utilisation = *r.hours_per_month / kHoursPerMonth;
  if (Status s = check_cost_request(r); !s.ok()) return s;
  auto gpu = catalog.find_gpu(r.gpu);
  if (!gpu) return gpu.status();
  CostComparison out;
  out.utilisation = r.utilisation;
  out.horizon_years = r.horizon_months / 12;
  auto owned = owned_machine(r, **gpu, catalog, out.assumptions);
  if (!owned) return owned.status();
  out.owned = std::move(owned).value();
  auto load = owned_power(r, **gpu, catalog, calibration, out);
  if (!load) return load.status();
  auto site = owner_site(catalog, r.region, out.owned.system->form == "rack",
                         r.electricity_usd_per_kwh, r.pue);
  if (!site) return site.status();
  out.site = *site;
  out.inputs = owned_inputs(r, **gpu, out);
  out.own =
      own_cost(out.inputs, out.horizon_years, r.utilisation * out.horizon_years * kHoursPerYear);
  Alternatives alternatives(r, catalog, calibration, *load, out);
  if (Status s = add_alternatives(r, **gpu, catalog, alternatives); !s.ok()) return s;
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
