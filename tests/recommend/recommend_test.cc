#include "rigplan/recommend.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "recommend/steps.h"
#include "test_support.h"

namespace rigplan {
namespace {

using testing::default_catalog;
using testing::default_zoo;

Demand job(std::string_view workload, RunConfig run, double work) {
  Demand d;
  d.tasks.push_back({*default_zoo().find(workload).value(), std::move(run), 1});
  d.work = work;
  return d;
}

RunConfig qlora(int batch) {
  RunConfig r;
  r.method = "qlora";
  r.precision = "bf16";
  r.batch = batch;
  r.seq_len = 2048;
  r.checkpointing = true;
  return r;
}

// Every preset is ranked by the models: feasible options exist, they come cheapest first (a
// tie within 1% goes to the common stack), the first is on the Pareto front, and the front is
// ordered by falling time (a service's: by falling time per output token, every option being up the
// same hours).
TEST(Recommend, EveryPresetHasARankedAnswer) {
  for (const Preset& preset : embedded_presets()) {
    SCOPED_TRACE(preset.id);
    auto demand = preset_demand(preset, default_zoo());
    ASSERT_TRUE(demand.ok()) << demand.status().message();
    auto rec = recommend(*demand, preset.constraints, default_catalog(), embedded_calibration());
    ASSERT_TRUE(rec.ok()) << rec.status().message();
    ASSERT_FALSE(rec->options.empty());
    EXPECT_TRUE(rec->options.front().pareto);
    double last_time = HUGE_VAL;
    for (size_t i = 0; i < rec->options.size(); ++i) {
      const Option& o = rec->options[i];
      EXPECT_TRUE(o.fits);
      EXPECT_TRUE(o.violations.empty());
      // Cheapest first, but where a tie (costs within 1%) put the common stack first.
      const Option* prev = i > 0 ? &rec->options[i - 1] : nullptr;
      if (prev && prev->total_cost_usd > o.total_cost_usd) {
        EXPECT_TRUE(prev->common_stack && !o.common_stack) << prev->gpu << " above " << o.gpu;
        // Within 1% of the dearer's cost, as the ranking's tie is.
        EXPECT_LE(prev->total_cost_usd - o.total_cost_usd, 0.01 * prev->total_cost_usd);
        EXPECT_NE(prev->reason.find("a tie goes to the common stack"), std::string::npos);
      }
      const double time = o.serving ? o.serving->tpot_ms : o.time_to_result_h;
      if (o.pareto) {
        EXPECT_LT(time, last_time);
        last_time = time;
      }
      EXPECT_LE(o.count, preset.constraints.max_gpus);
      if (o.kind == "own" && preset.constraints.budget_usd) {
        EXPECT_LE(o.capex_usd, *preset.constraints.budget_usd);
      }
      EXPECT_FALSE(o.reason.empty());
    }
  }
}

// A budget that buys no owned machine with a new base system says what it buys as a GPU added
// to the PC the user has (Dettmers' advice at 1,500 USD: a used card in the PC you have). Its
// total cost counts the energy of the preset's work, 150 hours a month on an RTX 4090.
TEST(Recommend, ABudgetThatBuysNothingNamesWhatItBuysInTheExistingDesktop) {
  const Preset& kaggle = *find_preset(embedded_presets(), "kaggle").value();
  auto demand = preset_demand(kaggle, default_zoo());
  ASSERT_TRUE(demand.ok());
  Constraints k = kaggle.constraints;
  k.budget_usd = 1500;
  k.acquire = "own";
  auto rec = recommend(*demand, k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  EXPECT_TRUE(rec->options.empty());
  ASSERT_FALSE(rec->relaxations.empty());
  EXPECT_EQ(rec->relaxations.back(),
            "every owned option here includes a new base system; the budget buys, as a GPU added "
            "to the PC you have: own used 1 x rtx-a4000 (existing-desktop) at 443 USD (--system "
            "existing-desktop)");
}

TEST(Recommend, GpusAllowedKeepsEveryOptionOnThoseGpus) {
  const Preset& kaggle = *find_preset(embedded_presets(), "kaggle").value();
  auto demand = preset_demand(kaggle, default_zoo());
  ASSERT_TRUE(demand.ok());
  Constraints k = kaggle.constraints;
  k.gpus_allowed = {"rtx-3090", "GeForce RTX 4090"};
  auto rec = recommend(*demand, k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  ASSERT_FALSE(rec->options.empty());
  for (const auto* options : {&rec->options, &rec->rejected}) {
    for (const Option& o : *options)
      EXPECT_TRUE(o.gpu == "rtx-3090" || o.gpu == "rtx-4090") << o.gpu;
  }
  EXPECT_NE(std::find(rec->assumptions.begin(), rec->assumptions.end(),
                      "Only options on rtx-3090, rtx-4090 (--gpus-allowed)."),
            rec->assumptions.end());
  k.gpus_allowed = {"rtx-4900"};
  auto unknown = recommend(*demand, k, default_catalog(), embedded_calibration());
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), Status::Code::kNotFound);
  EXPECT_NE(unknown.status().message().find("--gpus-allowed: "), std::string::npos);
  EXPECT_NE(unknown.status().message().find("did you mean 'rtx-4090'"), std::string::npos)
      << unknown.status().message();
}

// --have gtx-1080-ti: its resale is the catalog's used price (170 USD of 2025-06-01), an owned
// option's net cost its purchase less 170 USD, and its speedup the ratio of the two predictions:
// `rigplan predict resnet50 --batch 128 --gpu rtx-3090` (866.8 images/s) over `--gpu
// gtx-1080-ti` (181.98 images/s).
TEST(Recommend, HaveGivesResaleNetCostAndSpeedupOverTheOwnedGpu) {
  Constraints k;
  k.acquire = "own";
  k.max_gpus = 1;
  k.gpus_allowed = {"rtx-3090"};
  k.have = {"gtx-1080-ti"};
  RunConfig batch128;
  batch128.batch = 128;
  auto rec =
      recommend(job("resnet50", batch128, 1e8), k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  ASSERT_TRUE(rec->have.has_value());
  const Have& have = *rec->have;
  EXPECT_EQ(have.gpu, "gtx-1080-ti");
  EXPECT_EQ(have.count, 1);
  EXPECT_TRUE(have.runs);
  EXPECT_NEAR(have.throughput, 181.98, 0.5);
  EXPECT_DOUBLE_EQ(have.resale_usd, 170);
  ASSERT_EQ(have.gpus.size(), 1u);
  EXPECT_EQ(have.gpus[0].used_price_date->to_string(), "2025-06-01");
  EXPECT_DOUBLE_EQ(have.min_speedup, 1.2);
  size_t owned = 0;
  for (const Option& o : rec->options) {
    if (o.kind != "own") continue;
    ++owned;
    EXPECT_EQ(o.gpu, "rtx-3090");
    EXPECT_DOUBLE_EQ(*o.resale_usd, 170);
    EXPECT_DOUBLE_EQ(*o.net_cost_usd, o.capex_usd - 170);
    EXPECT_NEAR(*o.speedup_over_have, 866.8 / 181.98, 0.002);
    EXPECT_NEAR(*o.net_cost_per_speedup_usd, *o.net_cost_usd / (*o.speedup_over_have - 1), 1e-6);
  }
  EXPECT_GT(owned, 0u);
  // The 3090 is more than 1.2x as fast: it ranks above keeping the 1080 Ti, which is listed.
  EXPECT_EQ(rec->options.front().kind, "own");
  EXPECT_FALSE(have.keep_wins);
  const auto keep = std::find_if(rec->options.begin(), rec->options.end(),
                                 [](const Option& o) { return o.kind == "keep"; });
  ASSERT_NE(keep, rec->options.end());
  EXPECT_DOUBLE_EQ(*keep->speedup_over_have, 1.0);
  EXPECT_DOUBLE_EQ(*keep->net_cost_usd, 0.0);
}

// Keep wins when no option is 1.2x as fast: an RTX 4090 owner offered only RTX 2070s. Every
// other option is slower and ranks below keep.
TEST(Recommend, KeepWinsWhenEveryOptionIsSlower) {
  Constraints k;
  k.max_gpus = 1;
  k.gpus_allowed = {"rtx-2070"};
  k.have = {"rtx-4090"};
  RunConfig batch64;
  batch64.batch = 64;
  auto rec = recommend(job("resnet50", batch64, 1e8), k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  ASSERT_GT(rec->options.size(), 1u);
  EXPECT_TRUE(rec->have->keep_wins);
  EXPECT_EQ(rec->options.front().kind, "keep");
  EXPECT_EQ(rec->options.front().reason.rfind("keep what you have: no option is at least 1.2x", 0),
            0u)
      << rec->options.front().reason;
  for (size_t i = 1; i < rec->options.size(); ++i) {
    EXPECT_LT(*rec->options[i].speedup_over_have, 1.0) << rec->options[i].gpu;
  }
}

// What the user has cannot hold the workload (Llama 3.1 8B QLoRA at batch 4 needs 18.16 GB,
// `rigplan memory`, of the 1080 Ti's 11): every option that runs it beats keeping, keep is
// rejected for fit, and no speedup is given.
TEST(Recommend, HaveThatCannotRunTheWorkloadIsRejected) {
  Constraints k;
  k.acquire = "own";
  k.max_gpus = 1;
  k.gpus_allowed = {"rtx-3090"};
  k.have = {"gtx-1080-ti"};
  auto rec =
      recommend(job("llama-3.1-8b", qlora(4), 1e7), k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  EXPECT_FALSE(rec->have->runs);
  EXPECT_FALSE(rec->have->keep_wins);
  ASSERT_FALSE(rec->options.empty());
  for (const Option& o : rec->options) {
    EXPECT_NE(o.kind, "keep");
    EXPECT_FALSE(o.speedup_over_have.has_value());
  }
  ASSERT_FALSE(rec->rejected.empty());
  EXPECT_EQ(rec->rejected.front().kind, "keep");
  EXPECT_EQ(rec->rejected.front().binding, ConstraintNames{"fit"});
  EXPECT_EQ(rec->have->keep_breaks, std::vector<std::string>{"fit"});
}

// The kaggle persona's 150 h a month on an RTX 4090 take the 1080 Ti 1,292 h (181.98 images/s
// on resnet50, as predict): it holds the work, so speedups are given, but not in the month, so
// keeping breaks the time constraint and every feasible option ranks above it.
TEST(Recommend, HaveThatIsTooSlowForTheMonthGivesSpeedupsButIsNotKept) {
  const Preset& kaggle = *find_preset(embedded_presets(), "kaggle").value();
  auto demand = preset_demand(kaggle, default_zoo());
  ASSERT_TRUE(demand.ok());
  Constraints k = kaggle.constraints;
  k.have = {"gtx-1080-ti"};
  auto rec = recommend(*demand, k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  EXPECT_TRUE(rec->have->runs);
  EXPECT_NEAR(rec->have->throughput, 181.98, 0.01);
  EXPECT_EQ(rec->have->keep_breaks, std::vector<std::string>{"time"});
  EXPECT_FALSE(rec->have->keep_wins);
  ASSERT_FALSE(rec->options.empty());
  for (const Option& o : rec->options) {
    EXPECT_NE(o.kind, "keep");
    EXPECT_GT(*o.speedup_over_have, 1.0) << o.gpu;
  }
  EXPECT_EQ(rec->rejected.front().kind, "keep");
}

// An unknown --have id exits as not found, with the closest ids; a count as compare --gpus.
TEST(Recommend, HaveIsCheckedAgainstTheCatalog) {
  Constraints k;
  k.have = {"gtx-1800-ti"};
  auto rec = recommend(job("resnet50", {}, 1e8), k, default_catalog(), embedded_calibration());
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.status().code(), Status::Code::kNotFound);
  EXPECT_NE(rec.status().message().find("--have: "), std::string::npos);
  EXPECT_NE(rec.status().message().find("gtx-1080-ti"), std::string::npos)
      << rec.status().message();
  k.have = {"0x rtx-3090"};
  auto zero = recommend(job("resnet50", {}, 1e8), k, default_catalog(), embedded_calibration());
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().code(), Status::Code::kInvalidInput);
  k.have = {"2x rtx-3090"};
  k.acquire = "own";
  k.max_gpus = 1;
  auto two = recommend(job("resnet50", {}, 1e8), k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(two.ok()) << two.status().message();
  EXPECT_EQ(two->have->count, 2);
  EXPECT_DOUBLE_EQ(two->have->resale_usd, 2 * 800);
}

// A work demand's time is the work over the predicted throughput.
TEST(Recommend, TimeToResultIsWorkOverThroughput) {
  Constraints k;
  k.acquire = "own";
  k.condition = "new";
  k.max_gpus = 1;
  auto rec =
      recommend(job("llama-3.1-8b", qlora(4), 1e8), k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  ASSERT_FALSE(rec->options.empty());
  for (const Option& o : rec->options) {
    EXPECT_EQ(o.kind, "own");
    EXPECT_EQ(o.condition, "new");
    EXPECT_EQ(o.unit, "tokens/s");
    EXPECT_NEAR(o.time_to_result_h, 1e8 / o.throughput / 3600, 1e-9 * o.time_to_result_h);
  }
}

// Sentences are written for the options an answer shows, and only for them: with top 3, the
// shown options' reasons and the first 3 rejected options' violations are those of a search that
// describes every option; the rest keep the names of what they break and no sentence.
TEST(Recommend, SentencesAreWrittenForTheOptionsShown) {
  Constraints k;
  k.budget_usd = 3000;
  k.region = "de";
  Demand d = job("resnet50", RunConfig{}, 0);
  d.work.reset();
  d.hours_per_month = 100;
  auto all = recommend(d, k, default_catalog(), embedded_calibration());
  auto top3 = recommend(d, k, default_catalog(), embedded_calibration(), 3);
  ASSERT_TRUE(all.ok() && top3.ok());
  ASSERT_EQ(all->options.size(), top3->options.size());
  ASSERT_EQ(all->rejected.size(), top3->rejected.size());
  ASSERT_GT(top3->rejected.size(), 3u);
  for (size_t i = 0; i < all->options.size(); ++i) {
    const Option &eager = all->options[i], &lazy = top3->options[i];
    EXPECT_EQ(lazy.total_cost_usd, eager.total_cost_usd);
    EXPECT_EQ(lazy.reason, i < 3 || eager.pareto ? eager.reason : "") << i;
  }
  for (size_t i = 0; i < all->rejected.size(); ++i) {
    const Option &eager = all->rejected[i], &lazy = top3->rejected[i];
    EXPECT_EQ(lazy.binding, eager.binding) << i;
    EXPECT_EQ(lazy.violations, i < 3 ? eager.violations : std::vector<std::string>{}) << i;
    EXPECT_EQ(lazy.reason, i < 3 ? eager.reason : "") << i;
  }
  // An owned machine over the budget says its purchase against the budget, in whole USD.
  const auto over = std::find_if(all->rejected.begin(), all->rejected.end(), [](const Option& o) {
    return o.kind == "own" && o.binding.front() == "budget";
  });
  ASSERT_NE(over, all->rejected.end());
  EXPECT_EQ(over->violations.front(), fmt::format("costs {} USD to buy, over the 3000 USD budget",
                                                  std::lround(over->capex_usd)));
}

// Without --utilisation an owned machine carries its purchase less resale; with it, the job
// carries only its hours' share.
TEST(Recommend, UtilisationSpreadsThePurchase) {
  Constraints k;
  k.acquire = "own";
  k.max_gpus = 1;
  auto whole = recommend(job("resnet50", {}, 1e8), k, default_catalog(), embedded_calibration());
  k.utilisation = 0.5;
  auto shared = recommend(job("resnet50", {}, 1e8), k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(whole.ok() && shared.ok());
  EXPECT_GT(whole->options.front().total_cost_usd, 10 * shared->options.front().total_cost_usd);
}

// --cpu ryzen-7-7800x3d: each one-GPU machine's loader has 8 - 1 = 7 cores of 150 x 5.0 / 3.6
// = 208.33 images/s (data/pipeline/loaders.toml, pytorch), so every option trains resnet50 at
// the smaller of its GPU's speed and 1,458.33 images/s.
TEST(Recommend, AHostCpuFeedsEveryOption) {
  Constraints k;
  k.acquire = "own";
  k.max_gpus = 1;
  k.allow_stale_prices = true;
  auto plain = recommend(job("resnet50", {}, 1e8), k, default_catalog(), embedded_calibration());
  Demand fed = job("resnet50", {}, 1e8);
  fed.host = HostSpec{default_catalog().cpu("ryzen-7-7800x3d"), 1, "pytorch"};
  auto with_cpu = recommend(fed, k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(plain.ok() && with_cpu.ok());
  ASSERT_EQ(plain->options.size(), with_cpu->options.size());
  int bound = 0;
  for (const Option& o : with_cpu->options) {
    const auto same = std::find_if(plain->options.begin(), plain->options.end(), [&](auto& p) {
      return p.gpu == o.gpu && p.condition == o.condition && p.system == o.system;
    });
    ASSERT_NE(same, plain->options.end()) << o.gpu;
    EXPECT_NEAR(o.throughput, std::min(same->throughput, 7 * 150 * 5.0 / 3.6), 1e-6) << o.gpu;
    bound += same->throughput > 7 * 150 * 5.0 / 3.6;
  }
  EXPECT_GT(bound, 0);
}

// Nothing under 1,000 USD holds a 70B QLoRA: the answer names the binding constraints and the
// cheapest option once each is relaxed.
TEST(Recommend, InfeasibleRequestSaysWhatBinds) {
  Constraints k;
  k.acquire = "own";
  k.budget_usd = 1000;
  auto rec =
      recommend(job("llama-3.1-70b", qlora(1), 1e8), k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  EXPECT_TRUE(rec->options.empty());
  ASSERT_GE(rec->relaxations.size(), 2u);
  EXPECT_EQ(rec->relaxations[0].rfind(
                "relaxing the budget: the cheapest option that meets the rest is own ", 0),
            0u)
      << rec->relaxations[0];
  EXPECT_NE(rec->relaxations[1].find("relaxing --acquire"), std::string::npos)
      << rec->relaxations[1];
}

TEST(Recommend, APowerCircuitExcludesBigMachines) {
  Constraints k;
  k.acquire = "own";
  k.circuit = "us-15a";  // 120 V x 15 A x 0.8 = 1,440 W
  auto rec = recommend(job("resnet50", {}, 1e9), k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  for (const Option& o : rec->options) EXPECT_LE(o.max_wall_w, 1440);
  bool rejected_for_power = false;
  for (const Option& o : rec->rejected) {
    if (std::find(o.binding.begin(), o.binding.end(), "power") != o.binding.end())
      rejected_for_power = true;
  }
  EXPECT_TRUE(rejected_for_power);
}

const Option* find_option(const std::vector<Option>& options, std::string_view offer,
                          std::string_view pricing) {
  for (const Option& o : options) {
    if (o.offer == offer && o.pricing == pricing) return &o;
  }
  return nullptr;
}

bool has_note(const Recommendation& rec, std::string_view text) {
  return std::any_of(rec.assumptions.begin(), rec.assumptions.end(),
                     [&](const std::string& a) { return a.find(text) != std::string::npos; });
}

// On 2026-11-23 the SkyPilot snapshot (priced 2025-06-01, 540 days before) is more than a year
// old: its offers rank only with --allow-stale-prices, and the answer says what they would give.
TEST(Recommend, PricesMoreThanAYearOldRankOnlyWhenAllowed) {
  Constraints k;
  k.acquire = "rent";
  k.max_gpus = 1;
  k.today = Date{2026, 11, 23};
  auto rec = recommend(job("resnet50", {}, 1e8), k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  ASSERT_FALSE(rec->options.empty());
  for (const Option& o : rec->options) {
    ASSERT_TRUE(o.price_as_of) << o.offer;
    EXPECT_LE(age_in_days(*o.price_as_of, *k.today), 365) << o.offer;
  }
  const Option* stale = find_option(rec->rejected, "hyperbolic-1x-rtx-4090", "on-demand");
  ASSERT_NE(stale, nullptr);
  EXPECT_EQ(stale->binding, ConstraintNames{"price_age"});
  EXPECT_EQ(stale->violations[0],
            "priced 2025-06-01, 18 months old: more than a year (--allow-stale-prices ranks it)");
  EXPECT_TRUE(has_note(*rec, "options that meet every constraint are not ranked: their prices"))
      << ::testing::PrintToString(rec->assumptions);

  k.allow_stale_prices = true;
  auto allowed = recommend(job("resnet50", {}, 1e8), k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(allowed.ok());
  const Option* ranked = find_option(allowed->options, "hyperbolic-1x-rtx-4090", "on-demand");
  ASSERT_NE(ranked, nullptr);
  EXPECT_EQ(ranked->price_note, "price of 2025-06-01, 18 months old");
  EXPECT_TRUE(has_note(*allowed,
                       "ranked options are costed on prices more than a year old or undated "
                       "(--allow-stale-prices)"));
}

// A price older than --max-price-age, and an offer's caveat, are said beside the option.
TEST(Recommend, OldAndDoubtfulPricesSaySo) {
  Constraints k;
  k.acquire = "rent";
  k.max_gpus = 1;
  k.today = Date{2026, 11, 23};
  auto rec = recommend(job("resnet50", {}, 1e8), k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok());
  const Option* runpod = find_option(rec->options, "runpod-rtx-4090", "on-demand");
  ASSERT_NE(runpod, nullptr);
  EXPECT_EQ(runpod->price_as_of, (Date{2026, 3, 1}));
  EXPECT_EQ(runpod->price_note,
            "price of 2026-03-01, 9 months old; the source's on-demand figures are 1.76x its "
            "spot figures throughout and another source calls the spot figure the on-demand "
            "price: verify on runpod.io");
  k.max_price_age_months = 12;
  rec = recommend(job("resnet50", {}, 1e8), k, default_catalog(), embedded_calibration());
  runpod = find_option(rec->options, "runpod-rtx-4090", "on-demand");
  ASSERT_NE(runpod, nullptr);
  EXPECT_EQ(runpod->price_note.rfind("the source's on-demand figures", 0), 0u);
}

// A new GPU priced at its launch price years later is dated by its launch, so it ranks only with
// --allow-stale-prices, and then says it stands on a launch price.
TEST(Recommend, ALaunchPriceIsDatedByTheLaunch) {
  Constraints k;
  k.acquire = "own";
  k.condition = "new";
  k.max_gpus = 1;
  k.today = Date{2026, 11, 23};
  k.allow_stale_prices = true;
  auto rec = recommend(job("resnet50", {}, 1e8), k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok());
  const auto it = std::find_if(rec->options.begin(), rec->options.end(),
                               [](const Option& o) { return o.gpu == "rtx-4090"; });
  ASSERT_NE(it, rec->options.end());
  EXPECT_EQ(it->price_as_of, (Date{2022, 10, 12}));
  EXPECT_EQ(it->price_note,
            "price of 2022-10-12, 49 months old; the GPU at its launch price (2022-10-12), the "
            "only new price the catalog has");
}

// Without a date to age prices against, the answer says they were not aged.
TEST(Recommend, UnagedPricesAreSaid) {
  Constraints k;
  k.acquire = "rent";
  k.max_gpus = 1;
  auto rec = recommend(job("resnet50", {}, 1e8), k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok());
  EXPECT_TRUE(
      has_note(*rec, "Prices were not aged: the request gave no date to age them against."));
}

TEST(Recommend, MalformedRequestsAreErrors) {
  Constraints k;
  k.region = "atlantis";
  auto r = recommend(job("resnet50", {}, 1e8), k, default_catalog(), embedded_calibration());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().is_user_error());
  Constraints bad_acquire;
  bad_acquire.acquire = "lease";
  r = recommend(job("resnet50", {}, 1e8), bad_acquire, default_catalog(), embedded_calibration());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "--acquire 'lease' is not accepted; expected 'own', 'rent' or 'both'");
  Demand both = job("resnet50", {}, 1e8);
  both.hours_per_month = 10;
  EXPECT_FALSE(recommend(both, {}, default_catalog(), embedded_calibration()).ok());
}

TEST(Presets, LoaderReportsTyposWithPosition) {
  const std::vector<CatalogFile> files = {
      {"p.toml",
       "[[preset]]\nid = \"x\"\nname = \"X\"\ndescription = \"d\"\ndettmers_pick = \"p\"\n"
       "dettmers_source = \"s\"\nhours_per_month = 10\nbudgt_usd = 5\n"
       "[[preset.task]]\nworkload = \"resnet50\"\nprecison = \"fp16\"\n"}};
  auto presets = load_presets(files);
  ASSERT_FALSE(presets.ok());
  EXPECT_EQ(
      presets.status().message(),
      "p.toml:8:13: preset 'x': unknown field 'budgt_usd' (did you mean 'budget_usd'?)\n"
      "p.toml:11:12: preset 'x': task 1: unknown field 'precison' (did you mean 'precision'?)\n"
      "2 problems in 1 file");
}

// A field of a preset or of its task that fails its own check is reported once, by its field;
// the rules across fields that read it skip it (EntryContext::read_well): a job size written as
// text is not stored, and was also "a preset needs one of ...", which the user did give.
TEST(Presets, AFailedFieldIsReportedOnceNotAgainByTheRulesThatReadIt) {
  const std::string head = "[[preset]]\nid = \"x\"\nname = \"X\"\ndescription = \"d\"\n";
  const auto problems = [&](const std::string& job, const std::string& task) {
    auto presets = load_presets({{"p.toml", head + job + "[[preset.task]]\n" + task}});
    return presets.ok() ? std::string("loaded") : std::string(presets.status().message());
  };
  EXPECT_EQ(problems("hours_per_month = \"10\"\n", "workload = \"resnet50\"\n"),
            "p.toml:5:19: preset 'x': field 'hours_per_month': expected a number, got a string\n"
            "1 problem in 1 file");
  // A serving rate as text: not also "'max_ttft_ms', ... need 'serve_rate'" nor "needs one of".
  EXPECT_EQ(problems("serve_rate = \"5\"\nmax_ttft_ms = 500\n",
                     "workload = \"llama-3.1-8b\"\nmode = \"serve\"\n"),
            "p.toml:5:14: preset 'x': field 'serve_rate': expected a number, got a string\n"
            "1 problem in 1 file");
  // A serving task's mode not accepted: not also "a serving preset has one task, with mode =
  // \"serve\"".
  EXPECT_EQ(problems("serve_rate = 5\n", "workload = \"llama-3.1-8b\"\nmode = \"Serve\"\n"),
            "p.toml:8:8: preset 'x': task 1: field 'mode': 'Serve' is not accepted; expected "
            "'train', 'infer', 'prefill', 'decode' or 'serve' (did you mean 'serve'?)\n"
            "1 problem in 1 file");
  // A method not accepted does not choose the tool's recipe: not also "--recipe torchtune: no
  // torchtune recipe for --method LoRA on one GPU; its recipes are ...".
  EXPECT_EQ(problems("hours_per_month = 10\n",
                     "workload = \"llama-3.1-8b\"\nrecipe = \"torchtune\"\nmethod = \"LoRA\"\n"),
            "p.toml:9:10: preset 'x': task 1: field 'method': 'LoRA' is not accepted; expected "
            "'full', 'lora', 'qlora', 'adapter' or 'adapter-v2' (did you mean 'lora' or "
            "'qlora'?)\n"
            "1 problem in 1 file");
  // Read well, the same fields load, and a serving task of another mode is still refused.
  EXPECT_EQ(problems("hours_per_month = 10\n",
                     "workload = \"llama-3.1-8b\"\nrecipe = \"torchtune\"\nmethod = \"lora\"\n"),
            "loaded");
  EXPECT_EQ(problems("serve_rate = 5\n", "workload = \"llama-3.1-8b\"\nmode = \"infer\"\n"),
            "p.toml:5:14: preset 'x': field 'serve_rate': a serving preset has one task, with "
            "mode = \"serve\"\n1 problem in 1 file");
}

// A preset of one's own names the GPUs its persona has; --have given replaces them.
TEST(Presets, HaveInAPresetAndReplacedByTheCommandLine) {
  const std::vector<CatalogFile> files = {
      {"p.toml",
       "[[preset]]\nid = \"x\"\nname = \"X\"\ndescription = \"d\"\nhours_per_month = 10\n"
       "have = [\"gtx-1080-ti\"]\n[[preset.task]]\nworkload = \"resnet50\"\n"}};
  auto presets = load_presets(files);
  ASSERT_TRUE(presets.ok()) << presets.status().message();
  EXPECT_EQ(presets->front().constraints.have, std::vector<std::string>{"gtx-1080-ti"});
  RecommendRequest r;
  r.preset = "x";
  auto resolved = resolve_request(r, *presets, default_zoo());
  ASSERT_TRUE(resolved.ok()) << resolved.status().message();
  EXPECT_EQ(resolved->constraints.have, std::vector<std::string>{"gtx-1080-ti"});
  r.constraints.have = {"2x rtx-3090"};
  resolved = resolve_request(r, *presets, default_zoo());
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->constraints.have, std::vector<std::string>{"2x rtx-3090"});
}

TEST(Presets, UnknownPresetSuggests) {
  auto p = find_preset(embedded_presets(), "kagle");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("did you mean 'kaggle'"), std::string::npos);
}

// A preset's constraints, each replaced by the one given; the rest stay the preset's.
TEST(RecommendRequest, GivenConstraintsReplaceThePresets) {
  RecommendRequest r;
  r.preset = "kaggle";
  r.constraints.budget_usd = 1500;
  r.constraints.acquire = "own";
  auto resolved = resolve_request(r, embedded_presets(), default_zoo());
  ASSERT_TRUE(resolved.ok()) << resolved.status().message();
  EXPECT_EQ(resolved->constraints.budget_usd, 1500);
  EXPECT_EQ(resolved->constraints.acquire, "own");
  EXPECT_EQ(resolved->constraints.max_gpus, 2);         // the preset's
  EXPECT_EQ(resolved->constraints.horizon_months, 24);  // the preset's
  EXPECT_EQ(resolved->demand.hours_per_month, 150);
  EXPECT_EQ(resolved->demand.tasks.size(), 3u);
}

TEST(RecommendRequest, AWorkloadNeedsOneJobSize) {
  RecommendRequest r;
  r.workload = *default_zoo().find("resnet50").value();
  auto resolved = resolve_request(r, embedded_presets(), default_zoo());
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.status().message(),
            "give a job size: --tokens N, --samples N, --images N --epochs E, --hours-per-month "
            "H, or a serving job's --serve-rate R");
  r.images = 1.2e6;
  r.epochs = 90;
  resolved = resolve_request(r, embedded_presets(), default_zoo());
  ASSERT_TRUE(resolved.ok()) << resolved.status().message();
  EXPECT_DOUBLE_EQ(*resolved->demand.work, 1.08e8);
  r.tokens = 1e9;
  resolved = resolve_request(r, embedded_presets(), default_zoo());
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.status().message(),
            "give one job size: --tokens, --samples, --images (with --epochs), --hours-per-month "
            "or --serve-rate");
}

// An owned option of a GPU and stack named by literals (an option views its names).
Option priced(std::string_view gpu, std::string_view stack, double usd, double hours) {
  Option o;
  o.kind = "own";
  o.gpu = gpu;
  o.count = 1;
  o.condition = "new";
  o.system = "desktop";
  o.fits = true;
  o.stack = stack;
  o.common_stack = o.stack == "cuda";
  o.total_cost_usd = usd;
  o.time_to_result_h = hours;
  return o;
}

// A tie (costs within 1%) goes to the common stack, and both reasons say why; 2% apart is no tie.
TEST(Recommend, ATieOnCostGoesToTheCommonStack) {
  Recommendation rec;
  rec.demand.work = 1e8;
  rec.options = {priced("rx-7900-xtx", "rocm", 1000, 10), priced("rtx-4090", "cuda", 1001, 10),
                 priced("rtx-3090", "cuda", 1020, 12)};
  rec.options[0].stack_note = "ROCm on AMD RDNA 3, a less common stack than CUDA";
  recommend_steps::rank(rec);
  recommend_steps::Request request;  // a job: its time, not a month's
  request.demand = &rec.demand;
  recommend_steps::describe(request, 10, false, rec);
  ASSERT_EQ(rec.options.size(), 3u);
  EXPECT_EQ(rec.options[0].gpu, "rtx-4090");
  EXPECT_EQ(rec.options[1].gpu, "rx-7900-xtx");
  EXPECT_EQ(rec.options[2].gpu, "rtx-3090");
  EXPECT_EQ(rec.options[0].reason,
            "lowest total cost on the common stack that meets every constraint: 1001 USD for "
            "10.0 h busy; ranked above own 1 x rx-7900-xtx (desktop) on rocm (1000 USD): within "
            "1% of its cost, a tie goes to the common stack");
  EXPECT_NE(rec.options[1].reason.find("; ROCm on AMD RDNA 3, a less common stack than CUDA"),
            std::string::npos)
      << rec.options[1].reason;

  Recommendation apart;
  apart.demand.work = 1e8;
  apart.options = {priced("rx-7900-xtx", "rocm", 1000, 10), priced("rtx-4090", "cuda", 1020, 10)};
  recommend_steps::rank(apart);
  EXPECT_EQ(apart.options[0].gpu, "rx-7900-xtx");
}

// Filing: the options that break no constraint are ranked, the others rejected, each list cheapest
// first, then fastest, and options alike in both keep the order they were evaluated in.
TEST(Recommend, FilingSortsEachListCheapestFirstKeepingTiesInOrder) {
  std::vector<Option> evaluated;
  const auto add = [&](std::string_view gpu, double usd, double hours, bool rejected) {
    evaluated.push_back(priced(gpu, "cuda", usd, hours));
    if (rejected) evaluated.back().binding.push_back("budget");
  };
  add("a", 300, 5, true);
  add("b", 100, 9, false);
  add("c", 200, 1, true);
  add("d", 300, 4, true);
  add("e", 50, 2, false);
  add("f", 200, 1, true);
  add("g", 100, 3, true);
  add("h", 300, 5, true);
  Recommendation rec;
  recommend_steps::file_options(evaluated, rec);
  EXPECT_TRUE(evaluated.empty());
  EXPECT_EQ(rec.evaluated, 8);
  const auto gpus = [](const std::vector<Option>& options) {
    std::string out;
    for (const Option& o : options) out += o.gpu;
    return out;
  };
  EXPECT_EQ(gpus(rec.options), "eb");
  EXPECT_EQ(gpus(rec.rejected), "gcfdah");
  for (const Option& o : rec.rejected) EXPECT_EQ(o.binding, ConstraintNames{"budget"}) << o.gpu;
}

// The stack constraint: vLLM does not run on Pascal, so serving on a GTX 1080 Ti is rejected for
// it, with what runs there; the rest of the answer stands.
TEST(Recommend, AnOptionWhoseEngineDoesNotRunOnItsStackIsRejected) {
  RunConfig serve;
  serve.mode = "decode";
  serve.engine = "vllm";
  serve.batch = 1;
  serve.seq_len = 512;
  Constraints k;
  k.gpus_allowed = {"gtx-1080-ti", "rtx-3090"};
  k.acquire = "own";
  auto rec = recommend(job("llama-2-7b", serve, 1e6), k, default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  const auto pascal = std::find_if(rec->rejected.begin(), rec->rejected.end(),
                                   [](const Option& o) { return o.gpu == "gtx-1080-ti"; });
  ASSERT_NE(pascal, rec->rejected.end());
  EXPECT_EQ(pascal->binding, ConstraintNames{"stack"});
  EXPECT_EQ(pascal->reason.rfind("vllm does not run on gtx-1080-ti (NVIDIA Pascal, CUDA)", 0), 0u)
      << pascal->reason;
  ASSERT_FALSE(rec->options.empty());
  EXPECT_EQ(rec->options.front().gpu, "rtx-3090");
  EXPECT_EQ(rec->options.front().stack, "cuda");
}

}  // namespace
}  // namespace rigplan
