#include "rigplan/cost.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "cost/cost_constants.h"
#include "rigplan/recommend.h"
#include "test_support.h"

namespace rigplan {
namespace {

using testing::default_catalog;

const Gpu& gpu(std::string_view id) { return *default_catalog().gpu(id); }

// Dettmers' worked example ("Which GPU for deep learning", cloud vs desktop): a 2,200 USD
// desktop with one RTX 3090 drawing 450 W against an AWS V100 spot instance at 2.14 USD/h, at
// 15% utilisation and 0.12 USD/kWh, without resale. By hand: electricity 0.45 kW x 0.12 =
// 0.054 USD per busy hour, so the break-even is 2200 / (24 x 0.15 x (2.14 - 0.054)) = 293.0 days.
TEST(BreakEven, ReproducesDettmersDesktopAgainstV100Spot) {
  OwnInputs desktop;
  desktop.capex_usd = 2200;
  desktop.wall_w = 450;
  desktop.usd_per_kwh = 0.12;
  desktop.resale = false;
  const BreakEven b = break_even(desktop, 2.14, 0.15, 3);
  ASSERT_TRUE(b.reached) << b.why;
  EXPECT_NEAR(b.days, 292.97, 0.05);
  EXPECT_NEAR(b.hours, 292.97 * 24 * 0.15, 0.2);
  // Over 3 years, the two cost the same at 2200 / (3 x 8760 x 2.086) = 4.0% utilisation.
  EXPECT_NEAR(b.utilisation, 0.0401, 0.0005);
}

TEST(BreakEven, ResaleBringsItForward) {
  OwnInputs desktop;
  desktop.capex_usd = 2200;
  desktop.gpu_value_usd = 1500;
  desktop.retention_per_year = 0.858;
  desktop.wall_w = 450;
  desktop.usd_per_kwh = 0.12;
  const BreakEven b = break_even(desktop, 2.14, 0.15, 3);
  ASSERT_TRUE(b.reached);
  // At the break-even day t: 2200 - 1500 x 0.858^(t/365) = 24 x 0.15 x t x 2.086.
  const double t = b.days;
  EXPECT_NEAR(2200 - 1500 * std::pow(0.858, t / 365), 24 * 0.15 * t * 2.086, 0.5);
  EXPECT_LT(t, 150);
}

TEST(BreakEven, NeverWhenAnHourOfPowerCostsMoreThanRent) {
  OwnInputs box;
  box.capex_usd = 1000;
  box.wall_w = 2000;
  box.usd_per_kwh = 0.5;
  const BreakEven b = break_even(box, 0.8, 0.5, 3);
  EXPECT_FALSE(b.reached);
  EXPECT_NE(b.why.find("electricity"), std::string::npos);
}

TEST(OwnSystem, PricesFourRtx3090sByHand) {
  // 4 x 1,499 USD (launch price) + workstation-4gpu 6,500 + 4 x 100 USD risers or water blocks
  // (3-slot cards in a system whose slots take 2) = 12,896 USD; 4 x 350 + 300 = 1,700 W DC.
  auto s = own_system(default_catalog(), gpu("rtx-3090"), 4, "new");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->system->id, "workstation-4gpu");
  EXPECT_DOUBLE_EQ(s->cooling_usd, 400);
  EXPECT_DOUBLE_EQ(s->capex_usd, 12896);
  EXPECT_DOUBLE_EQ(s->max_dc_w, 1700);
  EXPECT_NEAR(s->max_wall_w, 1700 / 0.92, 1e-9);
  EXPECT_DOUBLE_EQ(s->embodied_kgco2e, 4 * 150 + 700);
}

TEST(OwnSystem, UsedPriceAndTwoCardDesktop) {
  // 2 x 800 USD used + desktop-2gpu 2,900 = 4,500 USD.
  auto s = own_system(default_catalog(), gpu("rtx-3090"), 2, "used");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->system->id, "desktop-2gpu");
  EXPECT_DOUBLE_EQ(s->capex_usd, 4500);
  EXPECT_EQ(s->gpu_price.kind, "used");
}

TEST(OwnSystem, EightOpenAirCardsHaveNoBaseSystem) {
  auto s = own_system(default_catalog(), gpu("rtx-4090"), 8, "new");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "no base system in the catalog takes 8 pcie GPUs with a open-air cooler");
}

TEST(OwnSystem, PassiveCardsGoInARackServer) {
  auto s = own_system(default_catalog(), gpu("a100-pcie-80gb"), 1, "new");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->system->id, "rack-2gpu");
  EXPECT_DOUBLE_EQ(s->capex_usd, 14000 + 9000);
}

TEST(OwnSystem, AGpuWithoutAPriceIsReported) {
  auto s = own_system(default_catalog(), gpu("rtx-4090"), 1, "used");
  EXPECT_TRUE(s.ok());  // the catalog has a used price
  auto none = own_system(default_catalog(), gpu("h200-sxm-141gb"), 8, "new");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "h200-sxm-141gb has no new price in the catalog");
}

TEST(Power, DesktopUnderLlmTraining) {
  const BaseSystem& desktop = *default_catalog().find_system("desktop-1gpu").value();
  // 450 W x 0.85 = 382.5 W; + 150 W = 532.5 W DC; / 0.90 = 591.7 W at the wall.
  const PowerDraw p =
      system_power(gpu("rtx-4090"), 1, desktop, gpu_power_utilisation("transformer", "train"));
  EXPECT_DOUBLE_EQ(p.gpu_w, 382.5);
  EXPECT_DOUBLE_EQ(p.dc_w, 532.5);
  EXPECT_NEAR(p.wall_w, 591.67, 0.01);
  // A cap below the average draw binds: 0.7 x 450 W.
  EXPECT_DOUBLE_EQ(system_power(gpu("rtx-4090"), 1, desktop, 0.85, 0.7).gpu_w, 315);
}

TEST(Power, DettmersPowerLimitCostsSevenPercent) {
  EXPECT_NEAR(power_limit_speed(0.8), 0.929, 0.001);
  EXPECT_DOUBLE_EQ(power_limit_speed(1.0), 1.0);
}

TEST(Site, RegionFiguresAndInheritance) {
  auto us = site_energy(default_catalog(), "us", false);
  ASSERT_TRUE(us.ok());
  EXPECT_DOUBLE_EQ(*us->usd_per_kwh, 0.1492);
  EXPECT_DOUBLE_EQ(us->gco2_per_kwh, 369.473);
  EXPECT_DOUBLE_EQ(us->pue, 1.0);
  auto dc = site_energy(default_catalog(), "us", true);
  EXPECT_DOUBLE_EQ(dc->pue, 1.58);
  auto world = site_energy(default_catalog(), "world", false);
  ASSERT_TRUE(world.ok());
  EXPECT_FALSE(world->usd_per_kwh.has_value());
  EXPECT_FALSE(site_energy(default_catalog(), "atlantis", false).ok());
}

TEST(OwnCost, AddsUpByHand) {
  OwnInputs in;
  in.capex_usd = 3099;
  in.gpu_value_usd = 1599;
  in.retention_per_year = 0.858;
  in.wall_w = 600;
  in.usd_per_kwh = 0.15;
  in.pue = 1.0;
  in.gco2_per_kwh = 400;
  in.embodied_kgco2e = 500;
  const OwnCost c = own_cost(in, 3, 1000);
  EXPECT_DOUBLE_EQ(c.energy_kwh, 600);
  EXPECT_DOUBLE_EQ(c.electricity_usd, 90);
  EXPECT_NEAR(c.resale_usd, 1599 * 0.858 * 0.858 * 0.858, 1e-9);
  EXPECT_NEAR(c.total_usd, 3099 + 90 - c.resale_usd, 1e-9);
  EXPECT_DOUBLE_EQ(c.co2_operational_kg, 240);
  EXPECT_DOUBLE_EQ(c.co2_embodied_kg, 250);  // 3 of 6 years of service life
}

TEST(RentCost, EmbodiedShareAtCloudUtilisation) {
  RentInputs in{2.0, 1000, 1.1, 300, 1000};
  const RentCost c = rent_cost(in, 100);
  EXPECT_DOUBLE_EQ(c.total_usd, 200);
  EXPECT_NEAR(c.energy_kwh, 110, 1e-9);
  EXPECT_NEAR(c.co2_operational_kg, 33, 1e-9);
  EXPECT_NEAR(c.co2_embodied_kg, 1000 * 100 / (6 * 8760 * 0.85), 1e-9);
}

// The value-retention constants are the geometric means of (used / launch)^(1 / years) over the
// catalog's GPUs with both prices; a catalog update that moves them should move the constants.
TEST(ValueRetention, MatchesTheCatalog) {
  std::map<std::string, std::pair<double, int>> logs;
  for (const Gpu& g : default_catalog().gpus) {
    if (!g.launch_price_usd || !g.used_price_usd || !g.used_price_date) continue;
    const double years = static_cast<double>(g.used_price_date->days_since_epoch() -
                                             g.release_date.days_since_epoch()) /
                         365.25;
    auto& [sum, n] = logs[g.segment];
    sum += std::log(*g.used_price_usd / *g.launch_price_usd) / years;
    ++n;
  }
  namespace cc = cost_constants;
  EXPECT_NEAR(std::exp(logs["consumer"].first / logs["consumer"].second),
              cc::kValueRetentionConsumer, 0.001);
  EXPECT_NEAR(std::exp(logs["workstation"].first / logs["workstation"].second),
              cc::kValueRetentionWorkstation, 0.001);
  EXPECT_NEAR(std::exp(logs["datacenter"].first / logs["datacenter"].second),
              cc::kValueRetentionDatacenter, 0.001);
  EXPECT_DOUBLE_EQ(resale_fraction(gpu("rtx-4090"), 2),
                   cc::kValueRetentionConsumer * cc::kValueRetentionConsumer);
}

// Performance per dollar, by hand: with the reference's own throughput the relative speed is 1,
// so the card alone gives 1 / 1,499 USD x 1,000 = 0.667 per kUSD; each system divides its own
// relative speed by its price (1 GPU: 1,499 + desktop-1gpu 1,500 = 2,999 USD).
TEST(GpuValue, PerformancePerDollarTable) {
  const Workload& bert = *testing::default_zoo().find("bert-large-squad").value();
  RunConfig run;
  run.precision = "fp16";
  run.batch = 8;
  auto v =
      gpu_value(bert, gpu("rtx-3090"), run, 100, 100, default_catalog(), embedded_calibration());
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_DOUBLE_EQ(v->relative, 1);
  EXPECT_NEAR(*v->per_kusd_card, 0.66711, 1e-5);
  ASSERT_EQ(v->systems.size(), 3u);  // 1, 2 and 4 GPUs; no base system takes 8 open-air cards
  const double capex[] = {2999, 2 * 1499 + 2900, 12896};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(v->systems[i].capex_usd, capex[i]);
    EXPECT_NEAR(v->systems[i].per_kusd, v->systems[i].relative / capex[i] * 1000, 1e-12);
  }
  // 1 / (350 W x 0.85 / 1000) per kW.
  EXPECT_NEAR(v->per_kw, 1 / 0.2975, 1e-9);
}

// A rented RTX 4090 (RunPod, no region: the world average) drawing its board power at the CNN
// training share, in the desktop-1gpu host that would hold it. By hand: (450 W x 0.75 + 150 W) /
// 0.90 PSU efficiency = 541.67 W at the wall; a GPU cloud at the average datacentre PUE of 1.58;
// 480.6 gCO2/kWh; embodied 150 kg for the GPU plus 350 kg for the host.
TEST(RentInputs, OneModelForARentedGpu) {
  const Offer& offer = **default_catalog().find_offer("runpod-rtx-4090");
  auto in = rent_inputs(default_catalog(), gpu("rtx-4090"), 1, 0.6, 0.75, &offer, "world");
  ASSERT_TRUE(in.ok()) << in.status().message();
  EXPECT_DOUBLE_EQ(in->usd_per_hour, 0.6);
  EXPECT_NEAR(in->wall_w, (450 * 0.75 + 150) / 0.90, 1e-9);
  EXPECT_DOUBLE_EQ(in->pue, 1.58);
  EXPECT_DOUBLE_EQ(in->gco2_per_kwh, 480.6);
  EXPECT_DOUBLE_EQ(in->embodied_kgco2e, 500);
}

// `cost` and `recommend` price the energy and CO2 of the same rented offer with the same model:
// per busy hour they agree.
TEST(RentInputs, CostAndRecommendAgreeOnAnOffer) {
  const Workload& resnet = *testing::default_zoo().find("resnet50").value();
  RunConfig run;
  run.precision = "fp16";
  run.batch = 64;
  CostRequest r;
  r.gpu = "rtx-4090";
  r.workload = &resnet;
  r.run = run;
  r.offers = {"runpod-rtx-4090"};
  auto cost = compare_costs(r, default_catalog(), embedded_calibration());
  ASSERT_TRUE(cost.ok()) << cost.status().message();
  ASSERT_FALSE(cost->alternatives.empty());
  const RentCost& rented = cost->alternatives.front().cost;
  Demand d;
  d.tasks.push_back({resnet, run, 1});
  d.work = 1e8;
  Constraints k;
  k.acquire = "rent";
  k.max_gpus = 1;
  auto rec = recommend(d, k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  const auto o = std::find_if(rec->options.begin(), rec->options.end(), [](const Option& x) {
    return x.offer == "runpod-rtx-4090" && x.pricing == "spot";
  });
  ASSERT_NE(o, rec->options.end());
  const double kwh_per_hour = (450 * 0.75 + 150) / 0.90 * 1.58 / 1000;
  EXPECT_NEAR(rented.energy_kwh / rented.hours, kwh_per_hour, 1e-9);
  EXPECT_NEAR(o->energy_kwh / o->hours, kwh_per_hour, 1e-9);
  EXPECT_NEAR(o->co2_kg - o->co2_embodied_kg, o->energy_kwh * 480.6 / 1000, 1e-9);
}

}  // namespace
}  // namespace rigplan
