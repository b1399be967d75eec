// Scale-out training (docs/scaleout.md): parallel layouts as Megatron-LM and torchtitan run them,
// checked by hand, and the cluster validation set.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "model/gemm_waves.h"
#include "model_support.h"
#include "rigplan/memory.h"
#include "rigplan/perf.h"
#include "rigplan/train_plan.h"
#include "rigplan/validate.h"
#include "term_support.h"
#include "test_support.h"

namespace rigplan {
namespace {

using testing::compute_s;
using testing::gpu;
using testing::term;
using testing::workload;

const Catalog& catalog() { return testing::default_catalog(); }
const Zoo& zoo() { return testing::default_zoo(); }

// GPT-3 175B as the Megatron-LM example trains it: 1,024 GPUs, TP 8, PP 16, so 8 data-parallel
// replicas share the global batch of 1,536 sequences: 192 each.
RunConfig gpt3_on_1024() {
  RunConfig c;
  c.gpus = 1024;
  c.tensor_parallel = 8;
  c.pipeline_parallel = 16;
  c.global_batch = 1536;
  c.micro_batch = 1;
  c.seq_len = 2048;
  c.recompute = "full";
  return c;
}

TEST(Layout, TheGlobalBatchIsSharedByTheDataParallelReplicas) {
  auto e = estimate_memory(workload("gpt3-175b"), gpu("a100-sxm4-80gb"), gpt3_on_1024(), false);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(*e->config.batch, 192);  // 1536 / (1024 / (8 × 16))
  EXPECT_EQ(*e->config.global_batch, 1536);
}

// recommend keeps a task's --batch per GPU when it lays a job out (2 × 1,024 GPUs = 2,048
// sequences), so predict reads --batch beside --global-batch per GPU as well as per replica.
TEST(Layout, ABatchBesideTheGlobalBatchMayBeEachGpus) {
  RunConfig c = gpt3_on_1024();
  c.global_batch = 2048;
  c.batch = 2;
  auto e = estimate_memory(workload("gpt3-175b"), gpu("a100-sxm4-80gb"), c, false);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(*e->config.batch, 256);  // 2048 / 8 replicas
  c.batch = 256;
  e = estimate_memory(workload("gpt3-175b"), gpu("a100-sxm4-80gb"), c, false);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(*e->config.batch, 256);
}

TEST(Layout, RefusesLayoutsThatDoNotSplitWhole) {
  const auto with = [](auto change) {
    RunConfig c = gpt3_on_1024();
    change(c);
    return c;
  };
  const std::pair<RunConfig, const char*> cases[] = {
      {with([](RunConfig& c) { c.global_batch = 1001; }),
       "--global-batch 1001 must be --batch × data parallel 8"},
      {with([](RunConfig& c) { c.batch = 100; }),
       "--global-batch 1536 must be --batch × data parallel 8 or --batch × GPUs 1024 (--batch "
       "100)"},
      {with([](RunConfig& c) { c.micro_batch = 5; }),
       "--micro-batch 5 must divide the batch of a data-parallel replica, 192"},
      {with([](RunConfig& c) { c.context_parallel = 3; }),
       "--gpus 1024 must be a multiple of tensor parallel 8 × pipeline parallel 16 × context "
       "parallel 3"},
      // 96 layers over 16 stages of 6 layers: 4 chunks a stage would need 64 | 96.
      {with([](RunConfig& c) { c.virtual_stages = 4; }),
       "--vp 4 needs --pp above 1 and pipeline parallel × vp dividing the model's 96 layers"},
      {with([](RunConfig& c) { c.expert_parallel = 2; }),
       "--ep 2 splits a mixture of experts; gpt3-175b has no experts"},
      {with([](RunConfig& c) { c.virtual_stages = 0; }),
       "--vp 0 is out of range; expected an integer from 1 to 1024"},
  };
  for (const auto& [config, message] : cases) {
    auto e = estimate_memory(workload("gpt3-175b"), gpu("a100-sxm4-80gb"), config, false);
    ASSERT_FALSE(e.ok()) << message;
    EXPECT_EQ(e.status().code(), Status::Code::kInvalidInput);
    EXPECT_EQ(e.status().message(), message);
  }
  // Three chunks of two layers on each of 16 stages: 16 × 3 divides 96.
  auto interleaved = with([](RunConfig& c) { c.virtual_stages = 3; });
  EXPECT_TRUE(
      estimate_memory(workload("gpt3-175b"), gpu("a100-sxm4-80gb"), interleaved, false).ok());
}

Prediction predict_run(const char* w, const RunConfig& c) {
  auto p = predict(workload(w), gpu("a100-sxm4-80gb"), c, embedded_calibration(), catalog());
  EXPECT_TRUE(p.ok()) << p.status().message();
  return std::move(p).value();
}

TEST(Pipeline, TheOneFOneBBubbleIsStagesLessOneOverVirtualStagesTimesMicroBatches) {
  // 192 micro-batches of 1 per replica over 16 stages: 15/192 of the compute idles.
  const Prediction plain = predict_run("gpt3-175b", gpt3_on_1024());
  EXPECT_NEAR(term(plain, "pipeline_bubble") / compute_s(plain), 15.0 / 192, 1e-12);
  // Interleaved over 3 chunks a stage (2 layers each): a third of that.
  RunConfig interleaved = gpt3_on_1024();
  interleaved.virtual_stages = 3;
  const Prediction v3 = predict_run("gpt3-175b", interleaved);
  EXPECT_NEAR(term(v3, "pipeline_bubble") / compute_s(v3), 15.0 / (3 * 192), 1e-12);
}

TEST(Pipeline, SelectiveRecomputeRunsTheAttentionCoreForwardOnceMore) {
  RunConfig none = gpt3_on_1024();
  none.recompute = "none";
  RunConfig selective = gpt3_on_1024();
  selective.recompute = "selective";
  // Without full recomputation this layout needs more than an 80 GB A100 holds, and a run that
  // does not fit has no operator times: compared as if it had run, as validate does a measured
  // run.
  none.known_to_fit = selective.known_to_fit = true;
  // Forward, two backward passes, and the recomputed forward: 4/3 of the attention time.
  EXPECT_NEAR(term(predict_run("gpt3-175b", selective), "attention") /
                  term(predict_run("gpt3-175b", none), "attention"),
              4.0 / 3, 1e-12);
}

double flops(const Prediction& p, std::string_view name) {
  for (const auto& t : p.terms) {
    if (t.name == name) return t.flops;
  }
  return 0;
}

// Llama 2 13B as torchtitan's performance table trained it on one GPU's share: 2 sequences of
// 4,096 tokens (d 5,120, MLP 13,824, 40 layers, multi-head attention).
RunConfig llama_2_13b_torchtitan(std::string recompute) {
  RunConfig c;
  c.batch = 2;
  c.seq_len = 4096;
  c.precision = "bf16";
  c.recompute = std::move(recompute);
  c.known_to_fit = true;  // without recompute it needs more than one A100 holds
  return c;
}

TEST(Recompute, PerOpSelectiveRunsEveryOtherLinearAndTheElementwiseOperatorsAgain) {
  const Prediction none = predict_run("llama-2-13b", llama_2_13b_torchtitan("none"));
  const Prediction op = predict_run("llama-2-13b", llama_2_13b_torchtitan("selective-op"));
  // The policy keeps the outputs of q, v, gate and down, the 1st, 3rd, 5th and 7th matmuls a
  // block calls, and runs k (5,120 × 5,120), o (5,120 × 5,120) and up (5,120 × 13,824) forward
  // again: 123,207,680 weights a layer, × 40 layers × 2 FLOPs × 8,192 tokens.
  EXPECT_NEAR(flops(op, "gemm") - flops(none, "gemm"), 123'207'680.0 * 40 * 2 * 8192, 1e3);
  // It keeps the flash attention kernel's output, so attention does not run again.
  EXPECT_DOUBLE_EQ(term(op, "attention"), term(none, "attention"));
  EXPECT_GT(term(op, "elementwise"), term(none, "elementwise"));
  // torchtitan measured it on 64 A100 80 GB: 2,162 tokens/s a GPU without checkpointing, 1,904
  // with per-op selective checkpointing (docs/performance.md @ 3faaa1a0de; validation/
  // cluster.csv rows 102 and 104), 1.1355× the step; the layers' operators grow 1.130× (the
  // optimizer, which FSDP shards over 64 GPUs there, left out).
  const auto layers_s = [](const Prediction& p) {
    return term(p, "gemm") + term(p, "attention") + term(p, "elementwise");
  };
  EXPECT_NEAR(layers_s(op) / layers_s(none), 2162.0 / 1904, 0.01);
}

TEST(Recompute, PerOpSelectiveKeepsTheLayerInputAndTheSavedOutputs) {
  // Llama 2 70B (d 8,192, 64 heads, 8 key/value heads of 128, MLP 28,672, 80 layers) as
  // torchtitan ran it on 64 A100 80 GB with FSDP: 1 sequence of 4,096 tokens a GPU. Per token a
  // layer keeps, in bf16: its input (16,384 B), the outputs of q (16,384), v (2,048), gate
  // (57,344) and down (16,384), the attention output (16,384) and its fp32 log-sum-exp per head
  // (256): 125,184 B. The layer whose backward runs holds the rest of what it keeps without
  // recompute, 332,032 − 125,184 = 206,848 B a token.
  RunConfig c;
  c.gpus = 64;
  c.zero = 3;
  c.batch = 1;
  c.seq_len = 4096;
  c.precision = "bf16";
  c.recompute = "selective-op";
  auto op = estimate_memory(workload("llama-2-70b"), gpu("a100-sxm4-80gb"), c, false);
  ASSERT_TRUE(op.ok()) << op.status().message();
  EXPECT_NEAR(term(*op, "activations"), (80 * 4096 * 125'184.0 + 4096 * 206'848.0) / 1e9, 1e-6);
  // It fits where Megatron-LM's selective recompute, which with FlashAttention keeps all of
  // 332,032 B a token and layer, does not: so torchtitan ran it at this batch.
  EXPECT_TRUE(op->fits);
  c.recompute = "selective";
  auto selective = estimate_memory(workload("llama-2-70b"), gpu("a100-sxm4-80gb"), c, false);
  ASSERT_TRUE(selective.ok());
  EXPECT_NEAR(term(*selective, "activations"), 80 * 4096 * 332'032.0 / 1e9, 1e-6);
  EXPECT_FALSE(selective->fits);
}

// Korthikanti et al. 2022, Table 2, for their 22B model (s 2048, b 4, h 6144, a 64, L 48, t 8):
// without sequence parallelism or recomputation a layer keeps s·b·h·(10 + 24/t + 5·a·s/(h·t))
// bytes = 50,331,648 × 26.333 = 1,325,400,064.
RunConfig megatron_22b(std::string recompute, bool sequence_parallel) {
  RunConfig c;
  c.gpus = 8;
  c.tensor_parallel = 8;
  c.batch = 4;
  c.seq_len = 2048;
  c.flash_attention = false;  // Megatron-LM of 2022 kept the s×s scores
  c.recompute = std::move(recompute);
  c.sequence_parallel = sequence_parallel;
  return c;
}

TEST(Activations, KorthikantiTableTwoForTheTwentyTwoBillionModel) {
  const Workload& w = workload("megatron-22b");
  const Gpu& a100 = gpu("a100-sxm4-80gb");
  auto plain = estimate_memory(w, a100, megatron_22b("none", false), false);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_NEAR(term(*plain, "activations"), 48 * 1'325'400'064.0 / 1e9, 1e-6);
  // Sequence parallel and selective recompute: 34·s·b·h/t a layer, and the fp32 log-sum-exp
  // per head the recomputed attention keeps (4·a·s·b/t).
  auto sp = estimate_memory(w, a100, megatron_22b("selective", true), false);
  ASSERT_TRUE(sp.ok());
  EXPECT_NEAR(term(*sp, "activations"),
              48 * (34.0 * 2048 * 4 * 6144 + 4.0 * 64 * 2048 * 4) / 8 / 1e9, 1e-6);
  // Full recompute: 2·s·b·h a layer (the layer input, whole on each rank without SP) and one
  // layer's activations while it is recomputed.
  auto full = estimate_memory(w, a100, megatron_22b("full", false), false);
  ASSERT_TRUE(full.ok());
  EXPECT_NEAR(term(*full, "activations"), (48 * 2.0 * 2048 * 4 * 6144 + 1'325'400'064) / 1e9, 1e-6);
}

TEST(Activations, ThePipelinesFirstStageHoldsItsStagesMicroBatchesInFlight) {
  // GPT-3 175B as Korthikanti et al. 2022 ran it: TP 8, PP 8, 3 chunks a stage, 64 micro-batches
  // of 1, SP and selective recompute. The first stage holds 8 micro-batches of its 12 layers,
  // × (1 + 7/24) interleaved: 124 layers of 34·s·h/t + 4·a·s/t bytes.
  RunConfig c;
  c.gpus = 64;
  c.tensor_parallel = 8;
  c.pipeline_parallel = 8;
  c.virtual_stages = 3;
  c.micro_batch = 1;
  c.global_batch = 64;
  c.seq_len = 2048;
  c.recompute = "selective";
  c.sequence_parallel = true;
  auto e = estimate_memory(workload("gpt3-175b"), gpu("a100-sxm4-80gb"), c, false);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_NEAR(term(*e, "activations"), 124 * (34.0 * 2048 * 12288 + 4.0 * 96 * 2048) / 8 / 1e9,
              1e-6);
  // Without interleaving (1F1B's warm-up of pp − 1 micro-batches), the 8 micro-batches of 12
  // layers: 96 layers, not the interleaved factor at vp 1.
  c.virtual_stages = 1;
  auto plain = estimate_memory(workload("gpt3-175b"), gpu("a100-sxm4-80gb"), c, false);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_NEAR(term(*plain, "activations"), 96 * (34.0 * 2048 * 12288 + 4.0 * 96 * 2048) / 8 / 1e9,
              1e-6);
}

TEST(Topology, TensorParallelStaysInANodeAndDataParallelCrossesTheFabric) {
  // TP 8 fills a node; the 8 data-parallel replicas and the 16 stages are nodes apart.
  const Prediction hdr = predict_run("gpt3-175b", gpt3_on_1024());
  EXPECT_NE(hdr.note.find("tensor parallel "), std::string::npos) << hdr.note;
  EXPECT_NE(hdr.note.find(" s over nvswitch"), std::string::npos) << hdr.note;
  EXPECT_NE(hdr.note.find(" s over ib-hdr (a port per GPU, 25 GB/s per GPU)"), std::string::npos)
      << hdr.note;
  // NDR shared by two GPUs is HDR's rate per GPU: the same step; one NDR port per GPU is faster.
  RunConfig shared = gpt3_on_1024();
  shared.fabric = "ib-ndr";
  shared.gpus_per_nic = 2;
  EXPECT_DOUBLE_EQ(predict_run("gpt3-175b", shared).step_time_s, hdr.step_time_s);
  RunConfig ndr = gpt3_on_1024();
  ndr.fabric = "ib-ndr";
  EXPECT_LT(predict_run("gpt3-175b", ndr).step_time_s, hdr.step_time_s);
}

// Llama 2 70B (68,976,648,192 parameters) under FSDP on 64 A100 in 8 nodes, as torchtitan ran it
// (validation/cluster.csv row 105). Each GPU gathers the bf16 weights for the forward and again
// for the backward and reduce-scatters the bf16 gradients: 6 B × P × 63/64 = 407,393,328,384 B a
// step. The ring visits a node's 8 GPUs over NVSwitch and leaves it once a channel, each channel
// through its own HDR port: min(231, 8 × 25 × 0.9 = 180) GB/s, 2.2633 s. Of its 2 × 63 = 126
// steps 2 × 8 = 16 cross the network (20 µs) and 110 stay in a node (10 µs): 1.42 ms.
RunConfig llama_2_70b_fsdp(int gpus_per_nic) {
  RunConfig c;
  c.gpus = 64;
  c.batch = 1;
  c.seq_len = 4096;
  c.precision = "bf16";
  c.zero = 3;
  c.recompute = "selective-op";
  c.gpus_per_nic = gpus_per_nic;
  return c;
}

TEST(Topology, AnFsdpRingLeavesEachNodeThroughAllItsPorts) {
  constexpr double kBytes = 6 * 68'976'648'192.0 * 63 / 64;
  constexpr double kHops = 16 * 20e-6 + 110 * 10e-6;
  EXPECT_NEAR(kBytes, 407'393'328'384.0, 1);
  EXPECT_NEAR(kBytes / 180e9 + kHops, 2.26472, 1e-5);
  const Prediction ports = predict_run("llama-2-70b", llama_2_70b_fsdp(1));
  EXPECT_NE(ports.note.find("over ib-hdr (a port per GPU, 25 GB/s per GPU), the ring's 8 GPUs a "
                            "node share their ports: 180 GB/s"),
            std::string::npos)
      << ports.note;
  // FSDP prefetches behind the whole step; 2.26 s is less than 0.9 of its compute, so only the
  // last 25 MB bucket is left: 25e6 / 180e9 = 0.139 ms.
  EXPECT_LT(kBytes / 180e9 + kHops, 0.9 * compute_s(ports));
  EXPECT_NEAR(term(ports, "communication"), 25e6 / 180e9, 1e-12);
  // One HDR port for a node's 8 GPUs (gpus_per_nic 8): 8 × 25 / 8 × 0.9 = 22.5 GB/s, 18.106 s,
  // of which the step hides 0.9 of its compute.
  const Prediction one_port = predict_run("llama-2-70b", llama_2_70b_fsdp(8));
  EXPECT_NEAR(kBytes / 22.5e9 + kHops, 18.1078, 1e-4);
  EXPECT_NEAR(term(one_port, "communication"), kBytes / 22.5e9 + kHops - 0.9 * compute_s(one_port),
              1e-9);
}

TEST(Topology, AFabricMustBeACatalogNetwork) {
  RunConfig c = gpt3_on_1024();
  c.fabric = "ib-nrd";
  auto p =
      predict(workload("gpt3-175b"), gpu("a100-sxm4-80gb"), c, embedded_calibration(), catalog());
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), Status::Code::kInvalidInput);
  const std::string& message = p.status().message();
  EXPECT_EQ(message.rfind("--fabric 'ib-nrd' is not accepted; expected 'ib-fdr', 'ib-edr', ", 0),
            0u)
      << message;
  EXPECT_TRUE(message.ends_with("(did you mean 'ib-ndr', 'ib-fdr' or 'ib-edr'?)")) << message;
}

TEST(TrainPlan, EnumeratesEveryLayoutThatSplitsTheModelWhole) {
  // Megatron's 1.2B GPT (15 heads, 24 layers, seq 1024) on 2 GPUs, global batch 2. TP 2 does not
  // divide 15 heads, so: PP 1 CP 1 DP 2 (micro 1; 3 recomputes × ZeRO 0/1/3, and ZeRO-3's
  // default framework, eager FSDP, adds torchtitan's per-op recompute) = 10; PP 1 CP 2 DP 1
  // (micro 1 or 2) = 20; PP 2 DP 1 (vp 1, 2, 3, 4 or 6; micro 1 or 2; ZeRO 0/1) = 60. 90 layouts,
  // all within an A100's 80 GB.
  TrainPlanRequest request;
  request.run.gpus = 2;
  request.run.global_batch = 2;
  request.top = 3;
  auto plan = plan_training(workload("megatron-gpt2-1.2b"), gpu("a100-sxm4-80gb"), request,
                            embedded_calibration(), catalog());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->evaluated, 90);
  EXPECT_EQ(plan->fitting, 90);
  ASSERT_EQ(plan->layouts.size(), 3u);
  EXPECT_TRUE(plan->layouts[0].why_slower.empty());
  for (size_t i = 1; i < plan->layouts.size(); ++i) {
    EXPECT_LE(plan->layouts[i].prediction.throughput, plan->layouts[i - 1].prediction.throughput);
    EXPECT_FALSE(plan->layouts[i].why_slower.empty());
  }
}

TEST(TrainPlan, FindsAFittingLayoutForGpt3OnAThousandGpusAndRefusesWhatItCannotSearch) {
  TrainPlanRequest request;
  request.run.gpus = 1024;
  request.run.global_batch = 1536;
  request.tokens = 300e9;
  auto plan = plan_training(workload("gpt3-175b"), gpu("a100-sxm4-80gb"), request,
                            embedded_calibration(), catalog());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_FALSE(plan->layouts.empty());
  const LayoutOption& best = plan->layouts.front();
  EXPECT_LE(best.memory_gb, capacity_gb(gpu("a100-sxm4-80gb")));
  // 300e9 tokens at the best layout's speed, in days.
  EXPECT_NEAR(*best.days, 300e9 / best.prediction.throughput / 86400, 1e-9);
  auto cnn = plan_training(workload("resnet50"), gpu("a100-sxm4-80gb"), request,
                           embedded_calibration(), catalog());
  ASSERT_FALSE(cnn.ok());
  EXPECT_EQ(cnn.status().message(),
            "train-plan searches transformer layouts; resnet50 is not a transformer");
}

// Mixtral 8x7B (8 experts, top-2, hidden 4096, 32 MoE layers) trained on 8 H100 SXM, a node of
// NVSwitch: 8 sequences of 4,096 tokens per GPU in bf16, as if it fit (all 46.7B parameters'
// optimizer state on each GPU does not: this compares the step's terms, as validate does a
// measured run).
RunConfig mixtral_on_h100(int gpus, int ep) {
  RunConfig c;
  c.gpus = gpus;
  c.expert_parallel = ep;
  c.batch = 8;
  c.seq_len = 4096;
  c.known_to_fit = true;
  return c;
}

Prediction predict_mixtral(const RunConfig& c) {
  auto p = predict(workload("mixtral-8x7b"), gpu("h100-sxm5-80gb"), c, embedded_calibration(),
                   catalog());
  EXPECT_TRUE(p.ok()) << p.status().message();
  return std::move(p).value();
}

TEST(ExpertParallel, TwoAllToAllsEachWayPerMoeLayerOverTheNodesNvswitch) {
  // NVSwitch of H100 SXM: 900 GB/s both ways, 450 each, × kNvlinkEfficiency 0.77 = 346.5 GB/s.
  const double busbw = 900e9 / 2 * 0.77;
  // Data parallel over 8 GPUs: the fp32 gradients' all-reduce, 2 · 7/8 · 46.7e9 · 4 B over
  // 346.5 GB/s ≈ 0.94 s, hides behind the backward of a step of over 4 s of compute, all but
  // DDP's last 25 MB bucket: that is all of the ep 1 run's communication.
  const double bucket = 25e6 / busbw;
  const Prediction ep1 = predict_mixtral(mixtral_on_h100(8, 1));
  EXPECT_NEAR(term(ep1, "communication"), bucket, 1e-12);
  EXPECT_EQ(ep1.note.find("expert parallel"), std::string::npos) << ep1.note;
  // EP 8: each GPU sends 7/8 of its 8 · 4,096 = 32,768 tokens × top-2 × 4,096 × 2 B =
  // 469,762,048 B an all-to-all, 1.3557 ms at 346.5 GB/s, plus 7 exchanges of 10 µs: 1.4257 ms;
  // 2 all-to-alls forward and 2 backward in each of 32 layers: 128 × 1.4257 ms = 0.1825 s.
  const double all_to_all = 7.0 / 8 * 32768 * 2 * 4096 * 2 / busbw + 7 * 10e-6;
  const Prediction ep8 = predict_mixtral(mixtral_on_h100(8, 8));
  EXPECT_NEAR(term(ep8, "communication") - bucket, 128 * all_to_all, 1e-9);
  EXPECT_NEAR(128 * all_to_all, 0.182494, 1e-6);
  EXPECT_NE(ep8.note.find("expert parallel 0.182 s over nvswitch"), std::string::npos) << ep8.note;
  // Full recompute dispatches and combines once more in the recomputed forward: 6 a layer.
  RunConfig full = mixtral_on_h100(8, 8);
  full.recompute = "full";
  RunConfig full_ep1 = mixtral_on_h100(8, 1);
  full_ep1.recompute = "full";
  EXPECT_NEAR(term(predict_mixtral(full), "communication") -
                  term(predict_mixtral(full_ep1), "communication"),
              192 * all_to_all, 1e-9);
}

TEST(ExpertParallel, EachGpuRunsItsExpertsOnTheTokensOfItsGroupAtTheSameFlops) {
  // 8 experts on each GPU with 1/8 of 32,768 × 2 routed rows each, or 1 expert on each GPU with
  // all 8,192 rows of the group: the same GEMM FLOPs, in a GEMM of 8,192 rows and not eight of
  // 1,024.
  const Prediction ep1 = predict_mixtral(mixtral_on_h100(8, 1));
  const Prediction ep8 = predict_mixtral(mixtral_on_h100(8, 8));
  double flops1 = 0, flops8 = 0;
  for (const auto& t : ep1.terms) flops1 += t.name == "gemm" ? t.flops : 0;
  for (const auto& t : ep8.terms) flops8 += t.name == "gemm" ? t.flops : 0;
  EXPECT_GT(flops1, 0);
  EXPECT_DOUBLE_EQ(flops8, flops1);
  // Fewer kernels of the same work: never slower.
  EXPECT_LE(term(ep8, "gemm"), term(ep1, "gemm"));
}

TEST(ExpertParallel, AGroupSpanningTwoNodesCrossesTheNetwork) {
  // 16 H100 in 2 nodes of 8, TP 2 with sequence parallelism: ranks 0-1 are a TP pair and an
  // expert group takes ep of them 2 apart. EP 4 spans 8 ranks, one node; EP 8 spans 16, both.
  RunConfig in_node = mixtral_on_h100(16, 4);
  in_node.tensor_parallel = 2;
  in_node.sequence_parallel = true;
  RunConfig across = in_node;
  across.expert_parallel = 8;
  // EP 4 in a node: 3/4 of 8 · 4,096 / 2 = 16,384 tokens × 2 × 4,096 × 2 B = 201,326,592 B at
  // 346.5 GB/s, plus 3 hops of 10 µs: 0.61103 ms; × 128: 0.0782 s.
  const Prediction inside = predict_mixtral(in_node);
  EXPECT_NEAR(128 * (3.0 / 4 * 16384 * 2 * 4096 * 2 / 346.5e9 + 3 * 10e-6), 0.078212, 1e-6);
  EXPECT_NE(inside.note.find("expert parallel 0.0782 s over nvswitch"), std::string::npos)
      << inside.note;
  // EP 8 across nodes: 7/8 of 32,768 / 2 = 16,384 tokens × 2 × 4,096 × 2 B = 234,881,024 B at
  // min(346.5, 25 × 0.9) = 22.5 GB/s of HDR per GPU, plus 7 hops of 20 µs: 10.579 ms; × 128:
  // 1.354 s.
  const Prediction outside = predict_mixtral(across);
  EXPECT_NEAR(128 * (7.0 / 8 * 16384 * 2 * 4096 * 2 / 22.5e9 + 7 * 20e-6), 1.35414, 1e-5);
  EXPECT_NE(
      outside.note.find("expert parallel 1.35 s over ib-hdr (a port per GPU, 25 GB/s per GPU)"),
      std::string::npos)
      << outside.note;
}

// Mixtral 8x7B's parameters (docs/workloads.md's counting): an expert's gated MLP is
// 3 · 4,096 · 14,336 = 176,160,768, 8 a layer in 32 layers: P_experts = 45,097,156,608; the
// rest (attention 41,943,040 a layer, router 32,768, norms 8,192, embeddings and head 2 ·
// 131,072,000, final norm 4,096) is P_dense = 1,605,636,096, of 46,702,792,704 in all.
constexpr double kMixtralExperts = 45'097'156'608.0;
constexpr double kMixtralDense = 1'605'636'096.0;

// The memory of training `id` on H100s, one 4,096-token sequence a GPU, with its formulas.
MemoryEstimate training_memory(const char* id, int gpus, int ep, int zero, int cp = 1) {
  RunConfig c;
  c.gpus = gpus;
  c.expert_parallel = ep;
  c.zero = zero;
  c.context_parallel = cp;
  c.batch = 1;
  c.seq_len = 4096;
  auto e = estimate_memory(workload(id), gpu("h100-sxm5-80gb"), c, true);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return std::move(e).value();
}

TEST(ExpertParallel, EachGpuHoldsOnlyItsExpertsWeightsGradientsAndOptimizerState) {
  // Mixed bf16 AdamW on 8 GPUs without ZeRO: 4 B weights, 2 B copies, 4 B gradients, 8 B
  // moments, 18 B a parameter held. EP 1: every GPU holds all 46,702,792,704 parameters;
  // EP 8: the dense 1,605,636,096 and 1 expert of 8, 5,637,144,576: 7,242,780,672.
  const ParamCounts counts = count_params(workload("mixtral-8x7b"));
  EXPECT_EQ(counts.experts, 45'097'156'608);
  EXPECT_EQ(counts.total - counts.experts, 1'605'636'096);
  EXPECT_EQ(count_params(workload("llama-2-13b")).experts, 0);
  const MemoryEstimate ep1 = training_memory("mixtral-8x7b", 8, 1, 0);
  const MemoryEstimate ep8 = training_memory("mixtral-8x7b", 8, 8, 0);
  EXPECT_NEAR(term(ep1, "weights"), 186.811170816, 1e-6);
  EXPECT_NEAR(term(ep8, "weights"), 28.971122688, 1e-6);
  // The experts' weights fall by 8×: 180.39 GB to 22.55 GB, the dense 6.42 GB stay.
  EXPECT_NEAR(term(ep1, "weights") - term(ep8, "weights"),
              kMixtralExperts * 4 * (1 - 1.0 / 8) / 1e9, 1e-6);
  EXPECT_NEAR(term(ep8, "half_precision_copies"), 14.485561344, 1e-6);
  EXPECT_NEAR(term(ep8, "gradients"), 28.971122688, 1e-6);
  EXPECT_NEAR(term(ep8, "optimizer"), 57.942245376, 1e-6);
  // Per GPU, with the activations of 1 × 4,096 tokens (32 · 4,096 · 282,752 B = 37.06 GB) and
  // logits (4,096 · 32,000 · 6 B = 0.79 GB): EP 1 (878.50 GB · 1.05 + 1.5) = 923.92 GB;
  // EP 8 (7,242,780,672 · 18 + 37,060,870,144 + 786,432,000 B) · 1.05 + 1.5 GB = 178.13 GB.
  EXPECT_NEAR(ep1.total_gb, 923.9224493568, 1e-6);
  EXPECT_NEAR(ep8.total_gb, 178.128221952, 1e-6);
}

TEST(ExpertParallel, ZeroShardsTheExpertsStateOverTheirOwnReplicas) {
  // ZeRO-1 on 8 GPUs: the dense state over dp = 8, an expert's over its edp = dp · cp / ep
  // replicas. EP 8: each expert has one replica, so its state is whole on its GPU:
  // (1,605,636,096 / 8 + 45,097,156,608 / 8 / 1) · 8 B = 46.70 GB, as at EP 1 (every parameter
  // / 8): the distributed optimizer already spread the experts' state; EP saves their weights
  // and gradients.
  const MemoryEstimate ep1 = training_memory("mixtral-8x7b", 8, 1, 1);
  const MemoryEstimate ep8 = training_memory("mixtral-8x7b", 8, 8, 1);
  EXPECT_NEAR(term(ep1, "optimizer"), 46.702792704, 1e-6);
  EXPECT_NEAR(term(ep8, "optimizer"), 46.702792704, 1e-6);
  EXPECT_NEAR(term(ep8, "gradients"), 28.971122688, 1e-6);
  // CP 2 × DP 4 and EP 2: the dense state over dp · cp = 8 GPUs, edp = 4 · 2 / 2 = 4 replicas of
  // each expert: (1,605,636,096 / 8 + 45,097,156,608 / 2 / 4) · 8 B = 5,837,849,088 · 8 B
  // = 46.702792704 GB.
  const MemoryEstimate cp = training_memory("mixtral-8x7b", 8, 2, 1, 2);
  EXPECT_NEAR(term(cp, "optimizer"), (kMixtralDense / 8 + kMixtralExperts / 2 / 4) * 8 / 1e9, 1e-6);
  EXPECT_NEAR(term(cp, "optimizer"), 46.702792704, 1e-6);
}

// The context-parallel GPUs split the sequence and keep whole replicas of the weights, so ZeRO
// shards a dense model's state over dp · cp, as Megatron-Core's distributed optimizer shards it
// over its data-parallel group "with context parallel" and torchtitan's FSDP over dp_shard × cp.
TEST(Layout, ZeroShardsTheStateOverTheDataAndContextParallelGpus) {
  const auto llama_7b = [](int cp, int zero) {
    return training_memory("llama-2-7b", 8, 1, zero, cp);
  };
  // Llama 2 7B, 6,738,415,616 parameters, mixed bf16 AdamW (8 B of moments a parameter), on
  // 8 GPUs as CP 2 × DP 4: ZeRO-1 shards the moments over 8 GPUs, 6.738 GB a GPU, as CP 1 ×
  // DP 8 does; without ZeRO every GPU holds them, 53.91 GB.
  const double params = static_cast<double>(count_params(workload("llama-2-7b")).total);
  EXPECT_EQ(params, 6'738'415'616.0);
  const MemoryEstimate cp2 = llama_7b(2, 1);
  EXPECT_NEAR(term(cp2, "optimizer"), params * 8 / 8 / 1e9, 1e-6);
  EXPECT_NEAR(term(cp2, "optimizer"), term(llama_7b(1, 1), "optimizer"), 1e-9);
  EXPECT_NEAR(term(llama_7b(2, 0), "optimizer"), params * 8 / 1e9, 1e-6);
  // ZeRO-3: the 4 B weights, 4 B gradients and 2 B copies too, over 8.
  const MemoryEstimate zero3 = llama_7b(2, 3);
  EXPECT_NEAR(term(zero3, "weights"), params * 4 / 8 / 1e9, 1e-6);
  EXPECT_NEAR(term(zero3, "gradients"), params * 4 / 8 / 1e9, 1e-6);
  EXPECT_NEAR(term(zero3, "half_precision_copies"), params * 2 / 8 / 1e9, 1e-6);
  // --explain names the GPUs it shards over and their number.
  for (const auto& t : cp2.terms) {
    if (t.name != "optimizer") continue;
    EXPECT_NE(t.formula.find(" / (dp·cp)"), std::string::npos) << t.formula;
    EXPECT_NE(t.values.find(" / 8"), std::string::npos) << t.values;
  }
}

// Llama 3 8B, 8,030,261,248 parameters, batch 4 × 2,048 tokens on H100s with CP 2: the GPUs
// that hold a run under ZeRO-3 keep its context parallelism, so they come in multiples of 2 and
// shard the state over all of them (dp·cp). On 2 GPUs (CP 2 × DP 1) ZeRO-3 needs 104.7 GB; on 4
// (CP 2 × DP 2) the 4 B weights are 8.03e9 × 4 / 4 = 8.03 GB and the run 66.8 GB, which fits.
// Before, the search counted n GPUs as n data-parallel ones with CP 2 on top: "2 GPUs with
// --zero 3 (66.8 GB each)", a run that does not fit; and CP 3 on 3 GPUs, "1 GPU".
TEST(Layout, TheFewestGpusThatHoldARunKeepItsContextParallelism) {
  RunConfig c;
  c.gpus = 2;
  c.context_parallel = 2;
  c.batch = 4;
  c.seq_len = 2048;
  const MemoryEstimate e = testing::estimate("llama-3-8b", "h100-sxm5-80gb", c);
  EXPECT_FALSE(e.fits);
  EXPECT_EQ(e.min_gpus, 4);
  EXPECT_NE(
      std::find(e.suggestions.begin(), e.suggestions.end(), "4 GPUs with --zero 3 (66.8 GB each)"),
      e.suggestions.end());
  c.zero = 3;
  const MemoryEstimate two = testing::estimate("llama-3-8b", "h100-sxm5-80gb", c);
  EXPECT_FALSE(two.fits);
  EXPECT_NEAR(two.total_gb, 104.7, 0.05);
  EXPECT_EQ(two.min_gpus, 4);
  c.gpus = 4;
  const MemoryEstimate four = testing::estimate("llama-3-8b", "h100-sxm5-80gb", c);
  EXPECT_TRUE(four.fits);
  EXPECT_NEAR(term(four, "weights"), 8'030'261'248.0 * 4 / 4 / 1e9, 1e-6);
  EXPECT_NEAR(four.total_gb, 66.8, 0.05);
  c.gpus = 3;
  c.context_parallel = 3;
  c.zero = 0;
  EXPECT_EQ(testing::estimate("llama-3-8b", "h100-sxm5-80gb", c).min_gpus, 3);
}

// Llama 3 70B on 64 H100s as TP 4 PP 8×2 CP 2 DP 1, micro-batch 1, ZeRO-1, one 8,192-token
// sequence a micro-batch: 100.1 GB a GPU without sequence parallelism, 75.8 GB with it (what
// train-plan lists for the layout, which always runs it with TP): the first change offered.
TEST(Layout, ATensorParallelRunThatDoesNotFitIsOfferedSequenceParallelismFirst) {
  RunConfig c;
  c.gpus = 64;
  c.tensor_parallel = 4;
  c.pipeline_parallel = 8;
  c.virtual_stages = 2;
  c.context_parallel = 2;
  c.micro_batch = 1;
  c.global_batch = 512;
  c.zero = 1;
  const MemoryEstimate e = testing::estimate("llama-3-70b", "h100-sxm5-80gb", c);
  EXPECT_NEAR(e.total_gb, 100.1, 0.05);
  ASSERT_FALSE(e.suggestions.empty());
  EXPECT_EQ(e.suggestions[0], "--sequence-parallel (75.8 GB)");
  c.sequence_parallel = true;
  EXPECT_NEAR(testing::estimate("llama-3-70b", "h100-sxm5-80gb", c).total_gb, 75.8, 0.05);
}

TEST(ExpertParallel, TheExpertsGradientsReduceOverTheirDataParallelGpusOnly) {
  // 8 H100 SXM on NVSwitch (346.5 GB/s, 10 µs a hop), 1 × 512 tokens a GPU: a short step, so
  // the all-reduce shows past the backward it overlaps (0.9 of 2/3 of the compute).
  const double busbw = 346.5e9;
  RunConfig c = mixtral_on_h100(8, 2);
  c.batch = 1;
  c.seq_len = 512;
  const Prediction ep2 = predict_mixtral(c);
  // EP 2: the dense gradients over the 8 GPUs, 2 · 7/8 · 1,605,636,096 · 4 B = 11.24 GB; the
  // experts' over the edp = 4 GPUs that hold the same experts, each GPU its half of them:
  // 2 · 3/4 · 22,548,578,304 · 4 B = 135.29 GB. 0.032577 s + 0.390512 s.
  const double dense = 2 * 7.0 / 8 * kMixtralDense * 4 / busbw + 2 * 7 * 10e-6;
  const double experts = 2 * 3.0 / 4 * kMixtralExperts / 2 * 4 / busbw + 2 * 3 * 10e-6;
  EXPECT_NEAR(dense + experts, 0.423089, 1e-6);
  // The all-to-alls: 1/2 of 512 tokens × 2 × 4,096 × 2 B, + 1 hop, 4 a layer in 32 layers.
  const double all_to_all = 128 * (0.5 * 512 * 2 * 4096 * 2 / busbw + 10e-6);
  EXPECT_NEAR(term(ep2, "communication") - all_to_all,
              dense + experts - 0.9 * compute_s(ep2) * 2 / 3, 1e-9);
  EXPECT_NE(ep2.note.find("(the experts' over 4 GPUs)"), std::string::npos) << ep2.note;
  // EP 8: each expert on one GPU, nothing of theirs to reduce; the dense gradients alone.
  c.expert_parallel = 8;
  const Prediction ep8 = predict_mixtral(c);
  const double all_to_all8 = 128 * (7.0 / 8 * 512 * 2 * 4096 * 2 / busbw + 7 * 10e-6);
  EXPECT_NEAR(term(ep8, "communication") - all_to_all8,
              std::max(dense - 0.9 * compute_s(ep8) * 2 / 3, 25e6 / busbw), 1e-9);
  EXPECT_NE(ep8.note.find("(the experts': none, each on one GPU)"), std::string::npos) << ep8.note;
  // EP 1: one all-reduce of all 46.7B parameters' gradients, 2 · 7/8 · 46,702,792,704 · 4 B.
  c.expert_parallel = 1;
  const Prediction ep1 = predict_mixtral(c);
  EXPECT_NEAR(term(ep1, "communication"),
              2 * 7.0 / 8 * (kMixtralDense + kMixtralExperts) * 4 / busbw + 2 * 7 * 10e-6 -
                  0.9 * compute_s(ep1) * 2 / 3,
              1e-9);
}

TEST(ExpertParallel, ALocalExpertsGemmsRunAsOneGroupedGemmWhoseWavesHoldAllTheirTiles) {
  // Mixtral at TP 4, micro-batch 2 of 4,096 tokens: each expert's gate and up projections take
  // 8,192 · 2 / 8 = 2,048 rows × 14,336 / 4 = 3,584 columns, 16 × 28 = 448 tiles of 128 × 128.
  // Alone on an H100's 132 SMs: 4 waves (3.39), 448 / 528 = 84.8% filled; at EP 2 an expert has
  // 4,096 rows, 896 tiles in 7 waves, 97.0%. Grouped as Megatron-Core's --moe-grouped-gemm runs
  // a GPU's experts: 8 × 448 = 4 × 896 = 3,584 tiles in 28 waves (27.15) at either ep, 97.0%.
  EXPECT_EQ(gemm_waves(448, 132).waves, 4);
  EXPECT_NEAR(gemm_waves(448, 132).efficiency, 448.0 / 528, 1e-12);
  EXPECT_EQ(gemm_waves(896, 132).waves, 7);
  EXPECT_EQ(gemm_waves(8 * 448, 132).waves, 28);
  EXPECT_NEAR(gemm_waves(8 * 448, 132).efficiency, 3584.0 / 3696, 1e-12);
  EXPECT_NEAR(3584.0 / 3696, 0.969697, 1e-6);
  // So the step's GEMMs take the same time at EP 1 and EP 2 (the same FLOPs in the same tiles,
  // compute-bound): ep no longer wins by filling the last wave.
  RunConfig c;
  c.gpus = 16;
  c.tensor_parallel = 4;
  c.sequence_parallel = true;
  c.micro_batch = 2;
  c.global_batch = 64;
  c.seq_len = 4096;
  c.zero = 3;
  const Prediction ep1 = predict_mixtral(c);
  c.expert_parallel = 2;
  const Prediction ep2 = predict_mixtral(c);
  EXPECT_GT(term(ep1, "gemm"), 0);
  EXPECT_NEAR(term(ep2, "gemm"), term(ep1, "gemm"), 1e-9);
}

TEST(ExpertParallel, TrainPlanSplitsAMixturesExpertsButNotADenseModel) {
  RunConfig base;
  base.gpus = 16;
  base.global_batch = 16;
  base.seq_len = 4096;
  const auto ep_of = [](const std::vector<RunConfig>& layouts, int tp, int pp, int cp) {
    std::set<int> out;
    for (const RunConfig& c : layouts) {
      if (c.tensor_parallel == tp && c.pipeline_parallel == pp && c.context_parallel == cp)
        out.insert(c.expert_parallel);
    }
    return out;
  };
  const std::vector<RunConfig> moe = training_layouts(
      workload("mixtral-8x7b"), gpu("h100-sxm5-80gb"), base, embedded_calibration());
  // ep divides the 8 experts and dp · cp: DP 16 → 1, 2, 4, 8; TP 4 CP 2 DP 2 → 1, 2, 4; TP 8 PP 2
  // DP 1 → 1.
  EXPECT_EQ(ep_of(moe, 1, 1, 1), (std::set<int>{1, 2, 4, 8}));
  EXPECT_EQ(ep_of(moe, 4, 1, 2), (std::set<int>{1, 2, 4}));
  EXPECT_EQ(ep_of(moe, 8, 2, 1), (std::set<int>{1}));
  // Each expert degree repeats the other choices: as many layouts with EP 8 as with EP 1 at DP 16.
  const auto count = [&moe](int ep) {
    return std::count_if(moe.begin(), moe.end(), [ep](const RunConfig& c) {
      return c.tensor_parallel * c.pipeline_parallel * c.context_parallel == 1 &&
             c.expert_parallel == ep;
    });
  };
  EXPECT_GT(count(1), 0);
  EXPECT_EQ(count(8), count(1));
  // A dense model: the same base, no expert degree but 1.
  const std::vector<RunConfig> dense = training_layouts(
      workload("llama-2-13b"), gpu("h100-sxm5-80gb"), base, embedded_calibration());
  ASSERT_FALSE(dense.empty());
  EXPECT_TRUE(std::all_of(dense.begin(), dense.end(),
                          [](const RunConfig& c) { return c.expert_parallel == 1; }));
  // The search over 16 H100 evaluates and lists them: ZeRO-3 over 16 GPUs fits the 46.7B
  // parameters' 16 B each (47 GB a GPU).
  TrainPlanRequest request;
  request.run = base;
  request.top = 100'000;
  auto plan = plan_training(workload("mixtral-8x7b"), gpu("h100-sxm5-80gb"), request,
                            embedded_calibration(), catalog());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->evaluated, static_cast<long>(moe.size()));
  EXPECT_TRUE(std::any_of(plan->layouts.begin(), plan->layouts.end(),
                          [](const LayoutOption& o) { return o.run.expert_parallel == 8; }));
}

// 24 GPUs cannot split Llama 3 70B and 512 sequences whole: 24 = 3 × 8, and no tensor (a divisor
// of the 8 KV heads), pipeline (of 80 layers) or context degree (1, 2, 4, 8) has the factor 3
// while 512 replicas' divisors are powers of two. 20 (TP 4 × PP 5) and 32 do.
TEST(TrainPlan, RefusesAGpuCountNoLayoutSplitsWithTheNearestCountsAndBatchesThatDo) {
  TrainPlanRequest request;
  request.run.gpus = 24;
  auto plan = plan_training(workload("llama-3-70b"), gpu("h100-sxm5-80gb"), request,
                            embedded_calibration(), catalog());
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), Status::Code::kInvalidInput);
  // On 24 GPUs every split leaves 3, 6, 12 or 24 data-parallel replicas (3 divides no tensor,
  // pipeline or context degree of the model): 510 = 3 × 170 and 513 = 3 × 171 sequences split,
  // 511 = 7 × 73 and 512 = 2^9 do not.
  EXPECT_TRUE(plan.status().message().ends_with(
      "these would: --gpus 20, --gpus 32, --global-batch 510, --global-batch 513"))
      << plan.status().message();
  request.run.global_batch = 513;
  request.top = 1;
  auto batch = plan_training(workload("llama-3-70b"), gpu("h100-sxm5-80gb"), request,
                             embedded_calibration(), catalog());
  ASSERT_TRUE(batch.ok()) << batch.status().message();
  EXPECT_EQ(batch->global_batch, 513);
  EXPECT_GT(batch->evaluated, 0);
}

// The nearest counts are found from the splits, not by trying every count: Llama 3.1 405B's
// default global batch is 32 sequences of 131,072 tokens (4,194,304 tokens), and the largest
// count any split leaves whole is TP 8 (the 8 KV heads) × PP 126 (the layers) × CP 8 × 32
// replicas = 258,048 GPUs, so 1,048,576 GPUs have a count below and none above. Trying each of
// the 2 million counts near it took 40 s.
TEST(TrainPlan, TheNearestCountsOfAMillionGpusAreTheSplitsOwn) {
  TrainPlanRequest request;
  request.run.gpus = 1'048'576;
  auto plan = plan_training(workload("llama-3.1-405b"), gpu("h100-sxm5-80gb"), request,
                            embedded_calibration(), catalog());
  ASSERT_FALSE(plan.ok());
  EXPECT_TRUE(
      plan.status().message().ends_with("global batch of 32 sequences over 1048576 GPUs "
                                        "whole: tensor × pipeline × context parallel "
                                        "must divide the GPUs and the data-parallel "
                                        "replicas left must divide the global batch; "
                                        "these would: --gpus 258048"))
      << plan.status().message();
}

// train-plan searches in Blackwell's training recipes where the GPU runs them, and refuses them
// once, with the GPUs that do, where it does not. Llama 3 8B on 8 B200: the fastest NVFP4 layout
// is faster than the fastest MXFP8 one, which is faster than the fastest BF16 one.
TEST(TrainPlan, SearchesInBlockScaledPrecisionsWhereTheGpuRunsThem) {
  TrainPlanRequest request;
  request.run.gpus = 8;
  request.run.seq_len = 4096;
  request.run.global_batch = 64;
  auto fastest = [&](const char* precision) {
    request.run.precision = precision;
    auto plan = plan_training(workload("llama-3-8b"), gpu("b200-sxm-192gb"), request,
                              embedded_calibration(), catalog());
    EXPECT_TRUE(plan.ok() && !plan->layouts.empty()) << precision;
    if (!plan.ok() || plan->layouts.empty()) return 0.0;
    EXPECT_EQ(plan->layouts.front().run.precision, precision);
    return plan->layouts.front().prediction.throughput;
  };
  const double nvfp4 = fastest("nvfp4"), mxfp8 = fastest("mxfp8"), bf16 = fastest("bf16");
  EXPECT_GT(nvfp4, mxfp8);
  EXPECT_GT(mxfp8, bf16);
  request.run.precision = "nvfp4";
  auto hopper = plan_training(workload("llama-3-8b"), gpu("h100-sxm5-80gb"), request,
                              embedded_calibration(), catalog());
  ASSERT_FALSE(hopper.ok());
  EXPECT_NE(hopper.status().message().find("GPUs that run it:"), std::string::npos);
}

// torchtitan's per-op recompute is searched where the layout's framework runs it: a framework
// covering torchtitan at every ZeRO stage, by default only with sharded weights (ZeRO-3, whose
// default is eager FSDP), never under Megatron-LM. Each layout that tries full recompute then
// tries the per-op policy too.
TEST(TrainPlan, SearchesPerOpRecomputeWhereTheFrameworkRunsIt) {
  RunConfig base;
  base.gpus = 16;
  base.global_batch = 16;
  base.seq_len = 4096;
  const auto count = [&base](std::string_view framework, std::string_view recompute, int zero) {
    RunConfig run = base;
    run.framework = std::string(framework);
    const std::vector<RunConfig> layouts = training_layouts(
        workload("llama-2-13b"), gpu("h100-sxm5-80gb"), run, embedded_calibration());
    return std::count_if(layouts.begin(), layouts.end(), [&](const RunConfig& c) {
      return c.recompute == recompute && (zero < 0 || c.zero == zero);
    });
  };
  const long full = count("", "full", -1);
  ASSERT_GT(full, 0);
  EXPECT_EQ(count("torchtitan", "selective-op", -1), full);
  EXPECT_EQ(count("megatron", "selective-op", -1), 0);
  EXPECT_EQ(count("", "selective-op", -1), count("", "full", 3));
  EXPECT_EQ(count("", "selective-op", 0), 0);
  EXPECT_GT(count("", "selective-op", 3), 0);
}

// 8 L40S (48 GB) training Llama 3 8B under torchtitan at its 8,192-token sequence: plain data
// parallel with FSDP at micro-batch 1 keeps 74.3 GB a GPU with no recompute and does not fit;
// the per-op policy brings it to 46.4 GB, faster than recomputing every layer.
TEST(TrainPlan, PerOpRecomputeFitsWhereNoneDoesNot) {
  TrainPlanRequest request;
  request.run.gpus = 8;
  request.run.framework = "torchtitan";
  request.top = 100'000;
  auto plan = plan_training(workload("llama-3-8b"), gpu("l40s"), request, embedded_calibration(),
                            catalog());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const auto find = [&plan](std::string_view recompute) -> const LayoutOption* {
    for (const LayoutOption& o : plan->layouts) {
      const RunConfig& c = o.run;
      if (c.tensor_parallel * c.pipeline_parallel * c.context_parallel == 1 && c.zero == 3 &&
          c.micro_batch == 1 && c.recompute == recompute)
        return &o;
    }
    return nullptr;
  };
  EXPECT_EQ(find("none"), nullptr);
  const LayoutOption* op = find("selective-op");
  const LayoutOption* full = find("full");
  ASSERT_NE(op, nullptr);
  ASSERT_NE(full, nullptr);
  EXPECT_NEAR(op->memory_gb, 46.4, 0.1);
  EXPECT_GT(op->prediction.throughput, full->prediction.throughput);
}

constexpr const char* kLayoutHeader =
    "group,ref,gpu,num_gpus,workload,mode,precision,weights,method,optimizer,lora_rank,"
    "batch_per_gpu,seq_len,grad_checkpointing,metric,value,unit,source,tp,pp,cp,ep,vp,micro_batch,"
    "global_batch,recompute,sequence_parallel\n";

TEST(Layout, ValidateReadsAndChecksTheLayoutColumns) {
  const std::string row =
      "k/175b,,a100-sxm4-80gb,64,gpt3-175b,train,fp16,,full,adamw,,64,2048,0,throughput,9534,"
      "tokens/s,test,8,8,1,,3,1,64,selective,";
  auto report =
      validate_measurements(catalog(), zoo(), "c.csv", std::string(kLayoutHeader) + row + "True\n");
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->rows.size(), 1u);
  EXPECT_TRUE(report->rows[0].skipped.empty()) << report->rows[0].skipped;
  EXPECT_TRUE(report->rows[0].absolute);
  auto bad = validate_measurements(catalog(), zoo(), "c.csv",
                                   std::string(kLayoutHeader) + row + "maybe\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "c.csv:2: column 'sequence_parallel': 'maybe' is not accepted; expected 0 or 1, true "
            "or false, yes or no");
  const std::string zero_vp =
      "k/175b,,a100-sxm4-80gb,64,gpt3-175b,train,fp16,,full,adamw,,64,2048,0,throughput,9534,"
      "tokens/s,test,8,8,1,,0,1,64,selective,1\n";
  auto vp = validate_measurements(catalog(), zoo(), "c.csv", std::string(kLayoutHeader) + zero_vp);
  ASSERT_FALSE(vp.ok());
  EXPECT_EQ(vp.status().message(),
            "c.csv:2: column 'vp': '0' is out of range; expected an integer from 1 to 1024");
}

TEST(Layout, ValidateReadsTheGpusPerNodeColumn) {
  // Llama 3.2 1B data-parallel on 8 A100 SXM4, 12 sequences of 2,048 tokens a GPU: 196,608
  // tokens a step. In one node of 8 the all-reduce's last 25 MB bucket is exposed over NVSwitch
  // (25e6 / 231e9 = 0.1082 ms); in nodes of 4 over HDR, through each node's 4 ports
  // (25e6 / (4 × 22.5e9) = 0.2778 ms), the rest hidden by the backward pass either way
  // (tests/model/links_test.cc): the step is 0.16955 ms longer.
  const std::string header =
      "group,ref,gpu,num_gpus,workload,mode,precision,weights,method,optimizer,lora_rank,"
      "batch_per_gpu,seq_len,grad_checkpointing,metric,value,unit,source,gpus_per_node\n";
  const auto row = [](const char* group, const char* per_node) {
    return fmt::format(
        "{},,a100-sxm4-80gb,8,llama-3.2-1b,train,bf16,,full,adamw,,12,2048,0,throughput,100000,"
        "tokens/s,test,{}\n",
        group, per_node);
  };
  auto report = validate_measurements(catalog(), zoo(), "n.csv",
                                      header + row("one-node", "") + row("nodes-of-4", "4"));
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->rows.size(), 2u);
  ASSERT_TRUE(report->rows[0].predicted && report->rows[1].predicted);
  const double one_node_step = 196608 / *report->rows[0].predicted;
  const double extra = 25e6 / 90e9 - 25e6 / 231e9;
  EXPECT_NEAR(extra, 0.16955e-3, 1e-8);
  EXPECT_NEAR(*report->rows[1].predicted, 196608 / (one_node_step + extra),
              1e-9 * *report->rows[1].predicted);
  auto bad = validate_measurements(catalog(), zoo(), "n.csv", header + row("nodes-of-0", "0"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "n.csv:2: column 'gpus_per_node': '0' is out of range; expected an integer from 1 to "
            "1024");
  auto fraction = validate_measurements(catalog(), zoo(), "n.csv", header + row("x", "2.5"));
  ASSERT_FALSE(fraction.ok());
  EXPECT_EQ(fraction.status().message(),
            "n.csv:2: column 'gpus_per_node': '2.5' is not a whole number; expected an integer "
            "from 1 to 1024");
}

TEST(Layout, EveryRowOfTheClusterSetIsPredicted) {
  std::ifstream in(std::string(RIGPLAN_SOURCE_DIR) + "/validation/cluster.csv");
  std::ostringstream text;
  text << in.rdbuf();
  auto report = validate_measurements(catalog(), zoo(), "cluster.csv", text.str());
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->overall.skipped, 0);
  EXPECT_EQ(report->overall.n_absolute, 31);
}

}  // namespace
}  // namespace rigplan
