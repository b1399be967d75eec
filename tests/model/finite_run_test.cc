// A serving benchmark's finite run (model/finite_run.h, docs/inference.md "Finite runs"): first
// against engines of a few lines whose runs can be timed by hand, then through the serving model.
#include "model/finite_run.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "model_support.h"
#include "rigplan/report.h"

namespace rigplan {
namespace {

using testing::gpu;
using testing::run;
using testing::workload;

// An engine whose request stays `latency_s` in flight at any count: no queue of work, only of
// slots. Steps of 20 ms, a TTFT of 50 ms.
ServePoint constant_latency(double latency_s) { return {latency_s, 0.02, 0.05}; }

// An engine that serves `per_s` requests a second however many it holds, after a floor of
// `latency_s`: n in flight finish one request each in latency_s + n / per_s.
ServePoint bounded(int n, double latency_s, double per_s) {
  return {latency_s + n / per_s, 0.02, 0.05};
}

// At a rate the engine keeps up with, request k is sent at k/R and finishes one latency later:
// the run lasts (N − 1)/R + L, and each request's TTFT and TPOT are the engine's.
TEST(FiniteRun, AKeptUpRateLastsTheSendsAndOneLatency) {
  FiniteLoad load;
  load.requests = 500;
  load.rate = 2;
  load.slots = 10'000;
  const FiniteRun r = simulate_finite_run(load, [](int) { return constant_latency(4); });
  EXPECT_DOUBLE_EQ(r.last_sent_s, 249.5);
  EXPECT_NEAR(r.drained_s, 253.5, 1e-9);
  EXPECT_EQ(r.most_in_flight, 8);  // sends 0.5 s apart, each 4 s in flight
  EXPECT_EQ(r.most_waiting, 0);
  EXPECT_DOUBLE_EQ(r.wait_s, 0);
  EXPECT_NEAR(r.ttft_s, 0.05, 1e-12);
  EXPECT_NEAR(r.tpot_s, 0.02, 1e-12);
  // 500 · 4 s in flight over the 253.5 s of the run.
  EXPECT_NEAR(r.mean_in_flight, 2000 / 253.5, 1e-9);
}

// One slot, sent faster than it frees: request k joins at k·L and finishes at (k + 1)·L, so the
// run lasts N·L, and waits k·L − k/R, (N − 1)/2 · (L − 1/R) on average.
TEST(FiniteRun, ARateBeyondTheSlotsQueuesAndTheRunLastsTheService) {
  FiniteLoad load;
  load.requests = 10;
  load.rate = 4;
  load.slots = 1;
  const FiniteRun r = simulate_finite_run(load, [](int) { return constant_latency(1); });
  EXPECT_NEAR(r.drained_s, 10, 1e-9);
  EXPECT_NEAR(r.wait_s, 4.5 * 0.75, 1e-9);
  EXPECT_NEAR(r.ttft_s, 4.5 * 0.75 + 0.05, 1e-9);
  EXPECT_EQ(r.most_in_flight, 1);
  EXPECT_EQ(r.most_waiting, 7);  // at t = 2.25 s: 10 sent, 2 done, 1 in flight
}

// All at once into an engine that serves 20 requests/s after a 4 s floor: the 500 share the
// engine and finish together after 4 + 500/20 = 29 s, a throughput of 20 · 500/(500 + 20 · 4)
// requests/s: the capacity, less the one floor the run pays.
TEST(FiniteRun, ABurstFinishesAtTheCapacityLessOneLatency) {
  FiniteLoad load;
  load.requests = 500;
  load.slots = 10'000;
  const FiniteRun r = simulate_finite_run(load, [](int n) { return bounded(n, 4, 20); });
  EXPECT_DOUBLE_EQ(r.last_sent_s, 0);
  EXPECT_NEAR(r.drained_s, 29, 1e-9);
  EXPECT_NEAR(500 / r.drained_s, 20.0 * 500 / (500 + 20 * 4), 1e-9);
  // Far above the capacity, a rate's run is the burst's but for the sends' spread.
  load.rate = 1e4;
  const FiniteRun fast = simulate_finite_run(load, [](int n) { return bounded(n, 4, 20); });
  EXPECT_NEAR(fast.drained_s, 29, 0.05);
}

// A fixed concurrency of 8 over 150 requests: waves of 8 that finish together (each wave's
// requests are sent when the last one's finish), 18 of them, then a wave of 6.
TEST(FiniteRun, AFixedConcurrencyRunsInWavesAndALastPartialOne) {
  FiniteLoad load;
  load.requests = 150;
  load.senders = 8;
  load.slots = 100;
  const FiniteRun r = simulate_finite_run(load, [](int n) { return bounded(n, 1, 10); });
  EXPECT_NEAR(r.drained_s, 18 * (1 + 0.8) + (1 + 0.6), 1e-9);
  EXPECT_EQ(r.most_in_flight, 8);
  EXPECT_DOUBLE_EQ(r.wait_s, 0);  // the client holds them back, not the engine
}

RunConfig trtllm_online(double rate) {
  RunConfig c;
  c.mode = "serve";
  c.engine = "tensorrt-llm";
  c.gpus = 4;
  c.tensor_parallel = 4;
  c.seq_len = 202;
  c.gen_tokens = 214;
  c.request_rate = rate;
  return c;
}

// TensorRT-LLM's online table: 500 requests of Llama 3.1 70B on 4 H100s (202 + 214 tokens). At 2
// requests/s the run is the 249.5 s of sends and about one request's latency (its TTFT and 213
// TPOTs at the steady state of the rate), within 1%: 500 · 214 over that.
TEST(FiniteRun, ALowRateIsTheSendsAndOneRequestsLatency) {
  RunConfig c = trtllm_online(2);
  const Prediction steady = run("llama-3.1-70b", "h100-sxm5-80gb", c);
  c.requests = 500;
  const Prediction finite = run("llama-3.1-70b", "h100-sxm5-80gb", c);
  ASSERT_TRUE(steady.serving && finite.serving);
  const ServingPrediction &s = *steady.serving, &f = *finite.serving;
  const double latency_s = (s.ttft_ms - s.queue_wait_ms + 213 * s.tpot_ms) / 1e3;
  EXPECT_NEAR(f.output_tokens_per_s, 500 * 214 / (249.5 + latency_s), 0.01 * f.output_tokens_per_s);
  EXPECT_LT(f.output_tokens_per_s, s.output_tokens_per_s);
  EXPECT_NEAR(f.tpot_ms, s.tpot_ms, 0.05 * s.tpot_ms);
  EXPECT_EQ(f.requests, 500);
  EXPECT_DOUBLE_EQ(f.last_sent_s, 249.5);
  EXPECT_FALSE(f.saturated);
}

// Far beyond what the setup serves, the 500 requests are all sent within the first 0.5 s: the
// run is the burst's to within 2% (without a rate, as many as the KV cache holds, 1,265, are kept
// outstanding: all 500 at once); and it serves less than the unending stream at that load, since
// the run pays a ramp and a drain.
TEST(FiniteRun, AFarTooHighRateRunsAsTheBurst) {
  RunConfig c = trtllm_online(1000);
  c.requests = 500;
  const Prediction fast = run("llama-3.1-70b", "h100-sxm5-80gb", c);
  c.request_rate.reset();
  const Prediction burst = run("llama-3.1-70b", "h100-sxm5-80gb", c);
  c.requests.reset();
  const Prediction max_load = run("llama-3.1-70b", "h100-sxm5-80gb", c);
  ASSERT_TRUE(fast.serving && burst.serving && max_load.serving);
  EXPECT_DOUBLE_EQ(burst.serving->last_sent_s, 0);
  EXPECT_NEAR(fast.serving->output_tokens_per_s, burst.serving->output_tokens_per_s,
              0.02 * burst.serving->output_tokens_per_s);
  EXPECT_LT(burst.serving->output_tokens_per_s, max_load.serving->output_tokens_per_s);
}

// The text says the run is finite, when its last request is sent and when it drains.
TEST(FiniteRun, TheAnswerSaysWhenTheRunDrains) {
  RunConfig c = trtllm_online(16);
  c.requests = 500;
  const Prediction p = run("llama-3.1-70b", "h100-sxm5-80gb", c);
  ASSERT_TRUE(p.serving);
  const std::string text =
      report::prediction_text(workload("llama-3.1-70b"), gpu("h100-sxm5-80gb"), p, false);
  EXPECT_NE(text.find(fmt::format("run          500 requests: the last arrives at 31.19 s, the "
                                  "run drains by {:.4g} s\n",
                                  p.serving->drained_s)),
            std::string::npos)
      << text;
  EXPECT_GT(p.serving->drained_s, 31.1875);
}

}  // namespace
}  // namespace rigplan
