// Owning and renting GPUs: the price of a whole system, its power under a workload, energy and
// CO2 (operational and embodied), and owning against renting over a horizon with the break-even
// time and utilisation. Every constant is named in src/cost/cost_constants.h with its source;
// docs/cost.md derives the formulas.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "rigplan/catalog.h"
#include "rigplan/memory.h"
#include "rigplan/perf.h"
#include "rigplan/status.h"
#include "rigplan/workload.h"

namespace rigplan {

// An owned machine: `count` GPUs bought new or used, in the cheapest base system that holds them.
struct OwnedSystem {
  const Gpu* gpu = nullptr;
  int count = 0;
  std::string condition;  // new, used
  PriceQuote gpu_price;   // per GPU
  const BaseSystem* system = nullptr;
  double cooling_usd = 0;      // risers or water blocks for cards wider than the system's slots
  double capex_usd = 0;        // count x GPU price + base system + cooling
  double max_dc_w = 0;         // count x board power + base power: what the PSUs must deliver
  double max_wall_w = 0;       // max_dc_w / PSU efficiency: what the circuit must carry
  double embodied_kgco2e = 0;  // GPUs + base system
};

// The cheapest base system for `count` GPUs of a kind: its form factor and cooler are accepted,
// the count is within its range, and its PSUs deliver the GPUs' board power plus its own draw
// within kPsuSustainedFraction. `only`: consider that system alone (an `existing` machine is
// never chosen otherwise). nullptr with `why` filled when none does.
const BaseSystem* base_system_for(const Catalog& catalog, const Gpu& gpu, int count,
                                  std::string* why = nullptr, const BaseSystem* only = nullptr);

// The machine for `count` GPUs without their price: base system, cooling, power and embodied
// carbon. No base system is a kNotFound Status that says why.
Result<OwnedSystem> machine_for(const Catalog& catalog, const Gpu& gpu, int count,
                                const BaseSystem* only = nullptr);
// The machine of machine_for in a base system base_system_for found: a caller that needs no
// reason when none holds the GPUs finds the system without one.
OwnedSystem machine_in(const Catalog& catalog, const Gpu& gpu, int count, const BaseSystem& system);

// An owned machine priced from the catalog. condition: "new" (street, else launch price) or
// "used". A GPU without a price of that condition, or with no base system, is a kNotFound Status
// that says why.
Result<OwnedSystem> own_system(const Catalog& catalog, const Gpu& gpu, int count,
                               std::string_view condition, const BaseSystem* only = nullptr);
// The machine of machine_for priced as own_system prices it: one machine found once, priced for
// each condition.
Result<OwnedSystem> own_system(const OwnedSystem& machine, std::string_view condition);

// Share of a GPU's board power drawn while running a workload of a class and mode
// (kPowerUtilisation*): the average, not the peak, which sizes PSUs and circuits instead.
double gpu_power_utilisation(std::string_view workload_class, std::string_view mode);

// Speed kept when a GPU is capped at `fraction` of its board power (1: no cap).
double power_limit_speed(double fraction);

// Average power of a machine running a workload.
struct PowerDraw {
  double gpu_w = 0;   // per GPU
  double dc_w = 0;    // all GPUs + the base system
  double wall_w = 0;  // dc_w / PSU efficiency
};
PowerDraw system_power(const Gpu& gpu, int count, const BaseSystem& system, double utilisation,
                       double power_limit = 1.0);

// Electricity price, grid carbon intensity and PUE at a site, each with the region it came from
// (a region without its own figure takes its parent's).
struct SiteEnergy {
  std::optional<double> usd_per_kwh;
  double gco2_per_kwh = 0;
  double pue = 1;
  std::string price_from;   // region id, "--electricity" or "" when none
  std::string carbon_from;  // region id or "--carbon"
  std::string pue_from;     // region id, "--pue", or the default's name
};
// The pue_from of a datacentre site whose region has no PUE of its own.
inline constexpr std::string_view kDefaultDcPue = "average datacentre (Uptime 2023)";
// `datacenter`: the PUE default is a datacentre's (kDatacenterPue) rather than an office's (1.0).
Result<SiteEnergy> site_energy(const Catalog& catalog, std::string_view region, bool datacenter);

// Where an owned machine runs: the region's office (a tower) or server room (a rack,
// kDatacenterPue unless the region has its own PUE), with --electricity and --pue replacing the
// region's figures. A region without an electricity price is a kInvalidInput Status.
Result<SiteEnergy> owner_site(const Catalog& catalog, std::string_view region, bool rack,
                              std::optional<double> usd_per_kwh, std::optional<double> pue);

// Share of a GPU's purchase value it keeps each year (kValueRetention* by segment).
double value_retention(const Gpu& gpu);
// Share of a GPU's purchase value left after `years`: value_retention(gpu) ^ years.
double resale_fraction(const Gpu& gpu, double years);

// Owning one machine over a horizon.
struct OwnInputs {
  double capex_usd = 0;
  double gpu_value_usd = 0;       // the part of capex that resells (the GPUs)
  double retention_per_year = 1;  // resale value kept per year of the GPUs
  double wall_w = 0;              // average draw at the wall while busy
  double usd_per_kwh = 0;
  double pue = 1;
  double gco2_per_kwh = 0;
  double embodied_kgco2e = 0;
  bool resale = true;
};
struct OwnCost {
  double busy_hours = 0;
  double energy_kwh = 0;
  double electricity_usd = 0;
  double resale_usd = 0;
  double total_usd = 0;  // capex + electricity - resale
  double co2_operational_kg = 0;
  double co2_embodied_kg = 0;  // embodied share of the horizon in the hardware's service life
};
OwnCost own_cost(const OwnInputs& in, double horizon_years, double busy_hours);

// Renting for a number of instance-hours.
struct RentInputs {
  double usd_per_hour = 0;  // whole instance
  double wall_w = 0;        // average draw of its GPUs and host while busy
  double pue = 1;
  double gco2_per_kwh = 0;
  double embodied_kgco2e = 0;  // of the hardware behind the instance
};
struct RentCost {
  double hours = 0;
  double total_usd = 0;
  double energy_kwh = 0;
  double co2_operational_kg = 0;
  double co2_embodied_kg = 0;  // hours over the hardware's life at the cloud's utilisation
};
RentCost rent_cost(const RentInputs& in, double hours);

// Renting `count` GPUs of a kind at `usd_per_hour`: one model for `cost` and `recommend`. The
// instances draw their GPUs at `gpu_load` of board power plus their host (the base system that
// would hold the GPUs, or a share of the smallest one that holds more), and carry that
// hardware's embodied carbon. They run in the offer's region (`region` when it names none, or
// without an offer) at its datacentre PUE: kHyperscalePue at a hyperscaler in a region with no
// PUE of its own, else the region's or kDatacenterPue.
Result<RentInputs> rent_inputs(const Catalog& catalog, const Gpu& gpu, int count,
                               double usd_per_hour, double gpu_load, const Offer* offer,
                               std::string_view region);
// The datacentre of rent_inputs: the region the GPUs run in (the offer's, else `region`).
std::string_view rent_region(const Offer* offer, std::string_view region);
// rent_inputs at the datacentre `dc`, the site_energy of rent_region found once for every
// option rented there.
RentInputs rent_inputs(const Catalog& catalog, const Gpu& gpu, int count, double usd_per_hour,
                       double gpu_load, const Offer* offer, const SiteEnergy& dc);

// When owning becomes cheaper than renting the same hours.
struct BreakEven {
  bool reached = false;    // false: renting stays cheaper (or owning never pays back)
  double hours = 0;        // busy hours of use at which the costs meet
  double days = 0;         // calendar days at the utilisation
  double utilisation = 0;  // utilisation at which they meet over the horizon (may exceed 1)
  std::string why;         // when not reached
};
// `utilisation`: share of calendar time the owned machine is busy. With resale the GPUs' value
// falls with calendar time, so the break-even day is solved numerically.
BreakEven break_even(const OwnInputs& own, double rent_usd_per_hour, double utilisation,
                     double horizon_years);

// Dettmers' performance per dollar for `rigplan compare`: a GPU's throughput relative to a
// reference GPU's single-GPU throughput, per 1,000 USD of the card alone and of whole new
// systems with 1, 2, 4 and 8 of it, and per kW of the GPUs' average draw.
struct GpuValue {
  double relative = 0;                  // throughput / reference throughput, one GPU each
  std::optional<PriceQuote> price;      // new price of the card
  std::optional<double> per_kusd_card;  // relative per 1,000 USD of the card
  struct SystemValue {
    int count = 0;
    std::string system;  // base system id
    double capex_usd = 0;
    double relative = 0;  // the k-GPU system's throughput / reference single-GPU throughput
    double per_kusd = 0;
  };
  std::vector<SystemValue> systems;  // the counts of kValueCounts that have a priced system and fit
  double per_kw = 0;                 // relative per kW of average GPU draw while running
};
// The system sizes of the value table: Dettmers' performance-per-dollar charts price 1-2, 4 and
// 8-GPU systems (docs/cost.md).
inline constexpr int kValueCounts[] = {1, 2, 4, 8};
// `throughput` and `reference_throughput` are single-GPU predictions of the same run. With
// `shrink_batch`, an N-GPU system that cannot hold the run's batch runs the largest that fits
// (predict_largest_fitting).
Result<GpuValue> gpu_value(const Workload& workload, const Gpu& gpu, const RunConfig& run,
                           double throughput, double reference_throughput, const Catalog& catalog,
                           const Calibration& calibration, bool shrink_batch = false);

// A whole system of `count` GPUs for `rigplan compare --gpus 2x ID`: `throughput` (the system's)
// relative to the reference system's, per 1,000 USD of its GPUs (per_kusd_card) and of the whole
// new machine (systems: that one system, when a base system holds the GPUs and the run fits),
// and per kW of its GPUs' average draw.
GpuValue system_value(const Workload& workload, const Gpu& gpu, int count, const RunConfig& run,
                      double throughput, double reference_throughput, const Catalog& catalog);

// `rigplan cost`: one owned machine against cloud offers over a horizon.
struct CostRequest {
  std::string gpu;
  int count = 1;
  std::string condition = "new";
  std::string system;                   // a base system id; "": the cheapest that holds the GPUs
  const BaseSystem* machine = nullptr;  // replaces `system`: e.g. from a build file
  std::optional<double> capex_usd;      // replaces the catalog price of GPUs and system
  const Workload* workload = nullptr;   // none: plain GPU-hours at full board power
  RunConfig run;
  double utilisation = 0.5;               // share of calendar time the owned machine is busy
  std::optional<double> hours_per_month;  // busy hours a month, replacing `utilisation`
  double horizon_months = 36;
  std::string region = "us";
  std::optional<double> electricity_usd_per_kwh;
  std::optional<double> pue;
  std::optional<double> wall_w;  // replaces the modelled average draw at the wall
  double power_limit = 1.0;
  std::vector<std::string> offers;          // none: every offer of the same GPU and count
  std::optional<double> rent_usd_per_hour;  // an extra alternative at this price
  bool resale = true;
};

struct RentAlternative {
  std::string offer;  // offer id, or "--rent"
  std::string provider;
  std::string pricing;  // on-demand, spot, serverless
  std::string gpu;
  int count = 0;
  double usd_per_hour = 0;
  double speed_ratio = 1;  // owned throughput / rented throughput (1 without a workload)
  RentCost cost;           // for the owned machine's busy hours of work
  BreakEven break_even;
  std::optional<Date> price_date;  // the offer's; none for --rent
  std::string price_caveat;        // the offer's
};

struct CostComparison {
  OwnedSystem owned;
  PowerDraw power;
  SiteEnergy site;
  OwnInputs inputs;
  OwnCost own;
  double utilisation = 0;
  double horizon_years = 0;
  double throughput = 0;  // of the owned machine, with a workload
  std::string unit;
  std::vector<RentAlternative> alternatives;  // cheapest first
  std::vector<std::string> assumptions;
};

Result<CostComparison> compare_costs(const CostRequest& request, const Catalog& catalog,
                                     const Calibration& calibration);

}  // namespace rigplan
