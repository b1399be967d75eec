// recommend for a serving job: the cheapest setup that serves a request rate within latency
// targets (docs/recommend.md, docs/inference.md).
#include <gtest/gtest.h>

#include <algorithm>

#include "rigplan/recommend.h"
#include "rigplan/report.h"
#include "test_support.h"

namespace rigplan {
namespace {

using testing::default_catalog;
using testing::default_zoo;

// Llama 3.1 8B in vLLM, 1,024 prompt tokens and 256 generated, at `rate` requests/s.
Demand service(double rate, std::optional<double> max_tpot_ms = std::nullopt) {
  Demand d;
  RunConfig run;
  run.mode = "serve";
  run.engine = "vllm";
  run.seq_len = 1024;
  run.gen_tokens = 256;
  d.tasks.push_back({*default_zoo().find("llama-3.1-8b").value(), run, 1});
  d.serving = ServingJob{rate, 1000.0, max_tpot_ms, 730};
  return d;
}

Constraints rented(int max_gpus) {
  Constraints k;
  k.acquire = "rent";
  k.max_gpus = max_gpus;
  k.horizon_months = 12;
  return k;
}

// What predict says of the same GPU, count, layout and instance link at the same rate.
ServingPrediction predicted(const Option& o, const Demand& d) {
  RunConfig run = d.tasks[0].run;
  run.gpus = o.count;
  const std::string offer_id(o.offer);
  const auto& offers = default_catalog().offers;
  const auto offer =
      std::find_if(offers.begin(), offers.end(), [&](const Offer& f) { return f.id == offer_id; });
  EXPECT_NE(offer, offers.end()) << offer_id;
  run.link = offer_link_kind(*offer, default_catalog());
  run.gpus_per_node = offer->gpu_count;
  run.network_gbps_per_gpu = offer->fabric.empty() ? 0.0 : offer->fabric_gbps_per_gpu();
  run.request_rate = d.serving->request_rate;
  if (o.strategy.rfind("tp-", 0) == 0) run.tensor_parallel = std::stoi(o.strategy.substr(3));
  const Gpu& gpu = *default_catalog().find_gpu(o.gpu).value();
  auto p = predict(d.tasks[0].workload, gpu, run, embedded_calibration(), default_catalog());
  EXPECT_TRUE(p.ok()) << p.status().message();
  return *p->serving;
}

// Every ranked option serves the rate (its output is rate x 256 tokens/s) within the targets,
// with the latencies predict gives for its GPU: the KV cache each GPU holds is its own (an
// 80 GB H100 holds 349 sequences of 1,280 tokens, a 32 GB RTX 5090 79), not the first GPU's.
TEST(RecommendServing, EveryOptionServesTheRateWithinTheTargets) {
  const Demand d = service(10, 40);
  auto rec = recommend(d, rented(8), default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  ASSERT_FALSE(rec->options.empty());
  EXPECT_EQ(rec->unit, "output tokens/s");
  for (const Option& o : rec->options) {
    SCOPED_TRACE(o.offer);
    ASSERT_TRUE(o.serving.has_value());
    EXPECT_FALSE(o.serving->saturated);
    EXPECT_DOUBLE_EQ(o.serving->requests_per_s, 10);
    EXPECT_DOUBLE_EQ(o.throughput, 2560);
    EXPECT_LE(o.serving->tpot_ms, 40);
    EXPECT_LE(o.serving->ttft_ms, 1000);
    EXPECT_DOUBLE_EQ(o.time_to_result_h, 730);  // up all month
    const ServingPrediction p = predicted(o, d);
    EXPECT_EQ(o.serving->max_concurrency, p.max_concurrency);
    EXPECT_DOUBLE_EQ(o.serving->tpot_ms, p.tpot_ms);
  }
  const auto h100 = std::find_if(rec->options.begin(), rec->options.end(), [](const Option& o) {
    return o.gpu == "h100-sxm5-80gb" && o.count == 1;
  });
  ASSERT_NE(h100, rec->options.end());
  EXPECT_EQ(h100->serving->max_concurrency, 349);
}

// A rate one GPU cannot serve is a "rate" violation with what it does serve; a latency target
// nothing meets leaves nothing feasible, and the relaxation names the target.
TEST(RecommendServing, RateAndLatencyTargetsBind) {
  auto rec = recommend(service(1000), rented(1), default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  EXPECT_TRUE(rec->options.empty());
  const auto saturated = std::find_if(rec->rejected.begin(), rec->rejected.end(),
                                      [](const Option& o) { return o.gpu == "h100-sxm5-80gb"; });
  ASSERT_NE(saturated, rec->rejected.end());
  EXPECT_EQ(saturated->binding.front(), "rate");
  // At the most sequences its KV cache holds (349), one H100 serves 20.5 requests/s.
  EXPECT_EQ(saturated->violations.front(), "serves at most 20.5 requests/s, below the 1000 asked");

  rec = recommend(service(1, 0.5), rented(8), default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  EXPECT_TRUE(rec->options.empty());
  const auto tpot =
      std::find_if(rec->relaxations.begin(), rec->relaxations.end(), [](const std::string& line) {
        return line.starts_with(
            "relaxing the time per output token (--max-tpot-ms): the cheapest option that meets "
            "the rest is ");
      });
  EXPECT_NE(tpot, rec->relaxations.end());
}

// The answer's first line names the service asked: its rate, lengths, targets, engine, and the
// weight format when one is given (fp8 weights halve what an H100 reads a decode step).
TEST(RecommendServing, TheAnswerNamesTheEngineAndTheWeights) {
  Demand d = service(1, 40);
  const auto first_line = [&] {
    auto rec = recommend(d, rented(1), default_catalog(), embedded_calibration());
    EXPECT_TRUE(rec.ok()) << rec.status().message();
    const std::string text = report::recommend_text(*rec, 3, false);
    return text.substr(0, text.find('\n'));
  };
  EXPECT_NE(first_line().find("(1024 prompt + 256 generated tokens; TTFT <= 1000 ms, TPOT <= 40 "
                              "ms) with vllm, up 730 h a month"),
            std::string::npos)
      << first_line();
  d.tasks[0].run.weights = "fp8";
  EXPECT_NE(first_line().find("with vllm, fp8 weights, up 730 h a month"), std::string::npos)
      << first_line();
}

// Targets without a rate, a model that does not generate, and no output length are errors.
TEST(RecommendServing, MalformedServingJobsAreErrors) {
  RecommendRequest r;
  r.workload = *default_zoo().find("llama-3.1-8b").value();
  r.max_tpot_ms = 40;
  r.hours_per_month = 10;
  auto resolved = resolve_request(r, embedded_presets(), default_zoo());
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.status().message(),
            "--max-tpot-ms is a target of a serving job: give the requests per second with "
            "--serve-rate R");

  Demand d = service(1);
  d.tasks[0].workload = *default_zoo().find("bert-large-squad").value();
  auto rec = recommend(d, rented(1), default_catalog(), embedded_calibration());
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.status().message(),
            "a serving job serves a model that generates tokens; bert-large-squad is not a "
            "decoder LLM");

  d = service(1);
  d.tasks[0].run.gen_tokens = 0;
  rec = recommend(d, rented(1), default_catalog(), embedded_calibration());
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.status().message(),
            "a serving job generates tokens: give the output length with --output-len N");

  r = RecommendRequest{};
  r.workload = *default_zoo().find("llama-3.1-8b").value();
  r.run.mode = "decode";
  r.serve_rate = 2;
  resolved = resolve_request(r, embedded_presets(), default_zoo());
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.status().message(),
            "a serving job runs --mode serve, not --mode decode; leave --mode out");
}

// The serving presets carry their job; a serving preset's target without its rate is refused
// with the file and line.
TEST(RecommendServing, ServingPresets) {
  auto preset = find_preset(embedded_presets(), "chatbot-70b");
  ASSERT_TRUE(preset.ok());
  ASSERT_TRUE((*preset)->serving.has_value());
  EXPECT_EQ((*preset)->serving->request_rate, 2);
  EXPECT_EQ((*preset)->serving->max_tpot_ms, 40);
  EXPECT_EQ((*preset)->tasks[0].run.weights, "fp8");

  auto bad = load_presets({{"p.toml",
                            "[[preset]]\nid = \"x\"\nname = \"x\"\ndescription = \"x\"\n"
                            "hours_per_month = 10\nmax_tpot_ms = 40\n"
                            "[[preset.task]]\nworkload = \"llama-3.1-8b\"\n"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(
                "'max_ttft_ms', 'max_tpot_ms' and 'serve_hours' need 'serve_rate'"),
            std::string::npos)
      << bad.status().message();
}

// Instances sold without a cluster fabric train no job together: a 1e12-token Llama 2 7B run on
// up to 256 rented GPUs ranks single instances and clusters with a fabric (Azure ND H100 v5 on
// InfiniBand NDR), never 256 single-A10 instances; a service may still spread its replicas over
// separate instances.
TEST(RecommendClusters, OnlyInstancesWithAFabricTrainTogether) {
  Demand d;
  RunConfig run;
  run.seq_len = 4096;
  run.checkpointing = true;
  d.tasks.push_back({*default_zoo().find("llama-2-7b").value(), run, 1});
  d.work = 1e12;
  auto rec = recommend(d, rented(256), default_catalog(), embedded_calibration());
  ASSERT_TRUE(rec.ok()) << rec.status().message();
  ASSERT_FALSE(rec->options.empty());
  int clusters = 0;
  for (const auto* list : {&rec->options, &rec->rejected}) {
    for (const Option& o : *list) {
      if (o.instances == 1) continue;
      EXPECT_FALSE(o.fabric.empty()) << o.offer;
      ++clusters;
    }
  }
  EXPECT_GT(clusters, 0);
  const auto clustered = std::find_if(rec->options.begin(), rec->options.end(),
                                      [](const Option& o) { return o.instances > 1; });
  ASSERT_NE(clustered, rec->options.end());
  EXPECT_FALSE(clustered->fabric.empty());
  EXPECT_TRUE(
      std::any_of(rec->assumptions.begin(), rec->assumptions.end(), [](const std::string& a) {
        return a.find(
                   "were not offered: their provider sells them without a "
                   "cluster fabric") != std::string::npos;
      }));

  auto served = recommend(service(10, 40), rented(8), default_catalog(), embedded_calibration());
  ASSERT_TRUE(served.ok()) << served.status().message();
  EXPECT_TRUE(std::any_of(served->options.begin(), served->options.end(),
                          [](const Option& o) { return o.instances > 1 && o.fabric.empty(); }));
}

}  // namespace
}  // namespace rigplan
